#pragma once
// GPU building blocks of all-pairs shortest paths (min_plus over float, double, int32) and of
// Boolean transitive closure (bit-packed), used by the host-side recursions in
// algorithms/include/kleene/algorithms/{rkleene,closure}.hpp. The overloads that take a context
// run on its stream and return once it has done their work (those without one: default_context());
// the overloads that take a cuda::stream (stream.hpp) only enqueue on it (the out-of-core
// algorithms, apsp_out_of_core.hpp). In a build without CUDA they throw kleene::no_device.
//
// Floyd-Warshall updates are d(i,j) = min(d(i,j), d(i,k) + d(k,j)) with the semiring's addition
// (integers saturate at numeric_limits<T>::max(), the infinity sentinel). The caller sets the
// diagonal first (closure_diagonal) when it wants the reflexive closure.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/memory.hpp>

#include <cstddef>
#include <cstdint>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

class stream;

/// Blocked Floyd-Warshall in place (64 x 64 tiles for 4-byte types, 32 x 32 for 8-byte, three
/// phases per round, any n).
template <class T>
KLEENE_DEVICE_ENTRY void floyd_warshall_blocked(dense_view<T, device> a,
                                                context& ctx) KLEENE_DEVICE_BODY;
template <class T>
void floyd_warshall_blocked(dense_view<T, device> a) {
    floyd_warshall_blocked<T>(a, default_context());
}
/// The same enqueued on s (asynchronous); a device int for its range checks from ctx (null:
/// default_context()): the context's own on its stream, else one for the call from its pool.
template <class T>
KLEENE_DEVICE_ENTRY void floyd_warshall_blocked(dense_view<T, device> a, stream const& s,
                                                context* ctx = nullptr) KLEENE_DEVICE_BODY;
/// One launch per k, one thread per entry: the textbook GPU version, for comparison.
template <class T>
KLEENE_DEVICE_ENTRY void floyd_warshall_naive(dense_view<T, device> a,
                                              context& ctx) KLEENE_DEVICE_BODY;
template <class T>
void floyd_warshall_naive(dense_view<T, device> a) {
    floyd_warshall_naive<T>(a, default_context());
}
/// dst(i,j) = min(dst(i,j), src(i,j)); shapes must match.
template <class T>
KLEENE_DEVICE_ENTRY void min_into(dense_view<T, device> dst, dense_view<T const, device> src,
                                  context& ctx) KLEENE_DEVICE_BODY;
template <class T>
void min_into(dense_view<T, device> dst, dense_view<T const, device> src) {
    min_into<T>(dst, src, default_context());
}
template <class T>
KLEENE_DEVICE_ENTRY void min_into(dense_view<T, device> dst, dense_view<T const, device> src,
                                  stream const& s) KLEENE_DEVICE_BODY;
/// a(i,i) = min(a(i,i), 0) for the square view a.
template <class T>
KLEENE_DEVICE_ENTRY void closure_diagonal(dense_view<T, device> a,
                                          context& ctx) KLEENE_DEVICE_BODY;
template <class T>
void closure_diagonal(dense_view<T, device> a) {
    closure_diagonal<T>(a, default_context());
}
/// The smallest i with a(i,i) < 0, or -1.
template <class T>
KLEENE_DEVICE_ENTRY std::int64_t first_negative_diagonal(dense_view<T const, device> a,
                                                         context& ctx) KLEENE_DEVICE_VALUE;
template <class T>
std::int64_t first_negative_diagonal(dense_view<T const, device> a) {
    return first_negative_diagonal<T>(a, default_context());
}

/// Warshall's algorithm on one bit-packed square block of at most 512 x 512 (one thread block):
/// a becomes a+ (paths of one edge or more).
KLEENE_DEVICE_ENTRY void bit_warshall(bit_view<std::uint64_t> a, context& ctx) KLEENE_DEVICE_BODY;
inline void bit_warshall(bit_view<std::uint64_t> a) { bit_warshall(a, default_context()); }
KLEENE_DEVICE_ENTRY void bit_warshall(bit_view<std::uint64_t> a,
                                      stream const& s) KLEENE_DEVICE_BODY;
inline constexpr std::size_t bit_warshall_max = 512;
/// dst |= src on the bits of the view (bits past cols untouched).
KLEENE_DEVICE_ENTRY void or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src,
                                 context& ctx) KLEENE_DEVICE_BODY;
inline void or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src) {
    or_into(dst, src, default_context());
}
KLEENE_DEVICE_ENTRY void or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src,
                                 stream const& s) KLEENE_DEVICE_BODY;
/// Sets every a(i,i) of the square view.
KLEENE_DEVICE_ENTRY void set_bit_diagonal(bit_view<std::uint64_t> a,
                                          context& ctx) KLEENE_DEVICE_BODY;
inline void set_bit_diagonal(bit_view<std::uint64_t> a) { set_bit_diagonal(a, default_context()); }

// ---- a device graph's start (apsp_start.cu): its dense matrices made on the device ----

/// apsp.hpp's apsp_start on the device: out (n x n) = a's entries as U, +inf (infinity<U>())
/// where a has none, the diagonal min(a(i,i), 0). U is T, or double for distances computed wider
/// (int32 and fp32 past their range, path_weights.hpp).
template <class T, class U, index_type Index>
KLEENE_DEVICE_ENTRY void apsp_start(csr_matrix<T, Index, device> const& a,
                                    dense_view<U, device> out, context& ctx) KLEENE_DEVICE_BODY;
/// out = d narrowed to T, +inf to infinity<T>(); a finite entry whose magnitude passes `top` is
/// left unwritten. Returns the first such position (row-major, i * n + j), or -1.
template <class T>
KLEENE_DEVICE_ENTRY std::int64_t narrow_distances(dense_view<double const, device> d,
                                                  dense_view<T, device> out, double top,
                                                  context& ctx) KLEENE_DEVICE_VALUE;
/// Sets bit (i, j) of `bits` (cleared, p.rows() x p.cols()) for every entry of the pattern p.
template <index_type Index>
KLEENE_DEVICE_ENTRY void pattern_bits(csr_matrix<bool, Index, device> const& p,
                                      bit_view<std::uint64_t> bits,
                                      context& ctx) KLEENE_DEVICE_BODY;
/// a with 32-bit indices, on the device (what cuda::predecessors takes), for one call on ctx: the
/// index arrays are temporaries of ctx's pool, the values a's own (borrowed: the result must not
/// outlive a). The caller checks that rows and entries fit them.
template <class T>
KLEENE_DEVICE_ENTRY csr_matrix<T, std::int32_t, device> narrow_indices(
    csr_matrix<T, std::int64_t, device> const& a, context& ctx) KLEENE_DEVICE_VALUE;

/// Free device memory in bytes (cudaMemGetInfo); 0 when there is no device.
KLEENE_DEVICE_ENTRY std::size_t free_device_memory() noexcept KLEENE_DEVICE_RETURNS(0);

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

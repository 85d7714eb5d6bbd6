#pragma once
// GPU building blocks of all-pairs shortest paths (min_plus over float, double, int32) and of
// Boolean transitive closure (bit-packed), used by the host-side recursions in
// algorithms/include/kleene/algorithms/{rkleene,closure}.hpp. All calls are synchronous and run on
// the legacy default stream, except the overloads that take a cuda::stream (stream.hpp): those
// only enqueue on it (the out-of-core algorithms, apsp_out_of_core.hpp). In a build without CUDA
// they throw kleene::no_device.
//
// Floyd-Warshall updates are d(i,j) = min(d(i,j), d(i,k) + d(k,j)) with the semiring's addition
// (integers saturate at numeric_limits<T>::max(), the infinity sentinel). The caller sets the
// diagonal first (closure_diagonal) when it wants the reflexive closure.

#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/memory.hpp>

#include <cstddef>
#include <cstdint>

namespace kleene::cuda {

class stream;

/// Blocked Floyd-Warshall in place (64 x 64 tiles for 4-byte types, 32 x 32 for 8-byte, three phases per round, any n).
template <class T>
void floyd_warshall_blocked(dense_view<T, device> a);
template <class T>
void floyd_warshall_blocked(dense_view<T, device> a, stream const& s);
/// One launch per k, one thread per entry: the textbook GPU version, for comparison.
template <class T>
void floyd_warshall_naive(dense_view<T, device> a);
/// dst(i,j) = min(dst(i,j), src(i,j)); shapes must match.
template <class T>
void min_into(dense_view<T, device> dst, dense_view<T const, device> src);
template <class T>
void min_into(dense_view<T, device> dst, dense_view<T const, device> src, stream const& s);
/// a(i,i) = min(a(i,i), 0) for the square view a.
template <class T>
void closure_diagonal(dense_view<T, device> a);
/// The smallest i with a(i,i) < 0, or -1.
template <class T>
std::int64_t first_negative_diagonal(dense_view<T const, device> a);

/// Warshall's algorithm on one bit-packed square block of at most 512 x 512 (one thread block):
/// a becomes a+ (paths of one edge or more).
void bit_warshall(bit_view<std::uint64_t> a);
void bit_warshall(bit_view<std::uint64_t> a, stream const& s);
inline constexpr std::size_t bit_warshall_max = 512;
/// dst |= src on the bits of the view (bits past cols untouched).
void or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src);
void or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src, stream const& s);
/// Sets every a(i,i) of the square view.
void set_bit_diagonal(bit_view<std::uint64_t> a);

/// Free device memory in bytes (cudaMemGetInfo); 0 when there is no device.
std::size_t free_device_memory() noexcept;

}  // namespace kleene::cuda

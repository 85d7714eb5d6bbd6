#pragma once
// The device cores behind reduce_transpose.hpp and extract_assign.hpp (operations_reduce.cu,
// operations_transpose.cu, operations_extract.cu, operations_assign.cu), declared without the CPU
// headers: the public headers resolve index selections on the host and call these. Each runs on
// ctx's stream and returns with its work there done.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene::cuda::detail {
KLEENE_DEVICE_ENTRIES_BEGIN

// ---- reduce -------------------------------------------------------------------------------------

/// Whether the GPU reduce has kernels for monoid Mon (the built-in plus, times, min, max).
template <class Mon>
inline constexpr bool gpu_monoid = false;
template <class T>
inline constexpr bool gpu_monoid<plus_monoid<T>> = true;
template <class T>
inline constexpr bool gpu_monoid<times_monoid<T>> = true;
template <class T>
inline constexpr bool gpu_monoid<min_monoid<T>> = true;
template <class T>
inline constexpr bool gpu_monoid<max_monoid<T>> = true;

/// The monoid a reduce operator stands for: itself, or a semiring's additive monoid.
template <class Op>
constexpr auto gpu_monoid_of(Op const&) {
    if constexpr (requires { typename Op::add_monoid; }) return typename Op::add_monoid{};
    else return Op{};
}

/// w[0..rows)<mask, replace> accum= the (+) of each row of A (a row without entries: no entry).
template <class Mon, class Accum, class T, class Index>
KLEENE_DEVICE_ENTRY void reduce_rows_csr(context& ctx, T* w, dense_mask const& mask, Accum accum,
                                         Mon mon, csr_matrix<T, Index, device> const& a, T absent,
                                         bool replace) KLEENE_DEVICE_BODY;

/// The same for a dense rows x cols A (entries equal to absent are absent).
template <class Mon, class Accum, class T>
KLEENE_DEVICE_ENTRY void reduce_rows_dense(context& ctx, T* w, dense_mask const& mask,
                                           Accum accum, Mon mon, T const* a, std::size_t rows,
                                           std::size_t cols, T absent,
                                           bool replace) KLEENE_DEVICE_BODY;

/// w[0..cols)<mask, replace> accum= the (+) of each column of a dense rows x cols A (entries
/// equal to absent are absent; a column without entries: no entry).
template <class Mon, class Accum, class T>
KLEENE_DEVICE_ENTRY void reduce_cols_dense(context& ctx, T* w, dense_mask const& mask,
                                           Accum accum, Mon mon, T const* a, std::size_t rows,
                                           std::size_t cols, T absent,
                                           bool replace) KLEENE_DEVICE_BODY;

/// The (+) of v[0..n) (v == nullptr: n copies of iso), entries equal to absent skipped when
/// skip_absent; the identity when nothing is left.
template <class Mon, class T>
KLEENE_DEVICE_ENTRY T reduce_values(context& ctx, Mon mon, T const* v, T iso, std::size_t n,
                                    T absent, bool skip_absent) KLEENE_DEVICE_VALUE;

// ---- transpose ----------------------------------------------------------------------------------

/// A' with sorted columns (an iso A gives an iso A').
template <class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> transpose_csr(
    context& ctx, csr_matrix<T, Index, device> const& a) KLEENE_DEVICE_VALUE;

/// c (cols x rows)<mask, replace> accum= a' for a dense rows x cols a.
template <class Accum, class T>
KLEENE_DEVICE_ENTRY void transpose_dense(context& ctx, T* c, dense_mask const& mask, Accum accum,
                                         T const* a, std::size_t rows, std::size_t cols, T absent,
                                         bool replace) KLEENE_DEVICE_BODY;

// ---- extract / assign ---------------------------------------------------------------------------

/// Indices [0, size) of a dimension as the kernels read them: list[k] (a device array) or
/// begin + k.
struct index_spec {
    std::size_t size = 0;
    std::size_t begin = 0;
    std::int64_t const* list = nullptr;
    bool sorted = true;  // non-decreasing
};

/// A copy of n T's of device memory for one call on ctx's stream (an operand that the call's
/// output overwrites).
template <class T>
kleene::detail::stream_block copy_operand(T const* a, std::size_t n, context& ctx) {
    kleene::detail::stream_block b;
    copy_to_stream_block(b, a, n * sizeof(T), false, ctx);
    return b;
}

/// An int64 array on the device for one call, in its stream's order (empty: nullptr).
struct device_list {
    kleene::detail::stream_block block;
    std::int64_t const* data() const noexcept {
        return static_cast<std::int64_t const*>(block.data);
    }
};

/// An index list copied to the device (empty for a range) and its spec.
struct device_indices {
    device_list storage;
    index_spec spec;
};

inline device_indices indices_to_device(std::size_t size, std::size_t begin,
                                        std::int64_t const* host_list, bool sorted,
                                        context& ctx) {
    device_indices d;
    d.spec.size = size;
    d.spec.begin = begin;
    d.spec.sorted = sorted;
    if (host_list) {
        copy_to_stream_block(d.storage.block, host_list, size * sizeof(std::int64_t), true, ctx);
        d.spec.list = d.storage.data();
    }
    return d;
}

inline device_list vector_to_device(std::vector<std::int64_t> const& v, context& ctx) {
    device_list d;
    copy_to_stream_block(d.block, v.data(), v.size() * sizeof(std::int64_t), true, ctx);
    return d;
}

/// A(I, J) with sorted columns. For a column list, inv_head (a.cols() + 1 offsets) and inv_pos
/// give, for each column j of A, the positions l with J[l] == j in increasing order.
template <class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> extract_csr(
    context& ctx, csr_matrix<T, Index, device> const& a, index_spec rows, index_spec cols,
    std::int64_t const* inv_head, std::int64_t const* inv_pos) KLEENE_DEVICE_VALUE;

/// w[0..rows.size)<mask, replace> accum= A(I, fixed) (by_row: A(fixed, I), a row of A) for a
/// device CSR A; an entry A lacks is absent in w.
template <class Accum, class T, class Index>
KLEENE_DEVICE_ENTRY void extract_csr_column(context& ctx, T* w, dense_mask const& mask,
                                            Accum accum, csr_matrix<T, Index, device> const& a,
                                            index_spec rows, std::size_t fixed, bool by_row,
                                            T absent, bool replace) KLEENE_DEVICE_BODY;

/// c (rows.size x cols.size)<mask, replace> accum= a(I, J) for a dense a with a_cols columns
/// (a vector: a_cols 1, cols a range of size 1).
template <class Accum, class T>
KLEENE_DEVICE_ENTRY void extract_dense(context& ctx, T* c, dense_mask const& mask, Accum accum,
                                       T const* a, std::size_t a_cols, index_spec rows,
                                       index_spec cols, T absent, bool replace) KLEENE_DEVICE_BODY;

/// C<mask, replace>(I, J) accum= A (a: dense, region-shaped) or x (a == nullptr) for a dense
/// rows x cols C; rinv[i] / cinv[j] are the region position of row i / column j, or -1 (cinv ==
/// nullptr: a vector, column 0 in the region).
template <class Accum, class T>
KLEENE_DEVICE_ENTRY void assign_dense(context& ctx, T* c, std::size_t rows, std::size_t cols,
                                      dense_mask const& mask, Accum accum, T const* a, T x,
                                      std::int64_t const* rinv, std::int64_t const* cinv,
                                      std::size_t region_cols, T absent,
                                      bool replace) KLEENE_DEVICE_BODY;

/// Z = C with the region I x J replaced (Accum no_accum_t: C's region entries that the source
/// lacks deleted) or accumulated, for a device CSR C: the source is a (|I| x |J| CSR) or, where a
/// is nullptr, x at every position of the region. rinv / cinv (device arrays of C.rows() /
/// C.cols() entries) give each row / column of C its position in I / J or -1; rj is J on the
/// device; jsorted (scalar form only) holds J's indices in increasing order. Z has sorted columns;
/// the caller writes C<mask, replace> = Z.
template <class Accum, class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> assign_csr(
    context& ctx, csr_matrix<T, Index, device> const& c, Accum accum,
    csr_matrix<T, Index, device> const* a, T x, index_spec rj, std::int64_t const* rinv,
    std::int64_t const* cinv, std::int64_t const* jsorted) KLEENE_DEVICE_VALUE;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda::detail

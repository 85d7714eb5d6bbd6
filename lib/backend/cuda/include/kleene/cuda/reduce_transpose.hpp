#pragma once
// The CUDA backend of kleene::reduce and kleene::transpose (reduce.hpp, transpose.hpp), which
// call these for device containers: use those. The CPU's semantics, checked against the CPU path
// by tests/gpu/test_structure_gpu.cpp.
//
//   reduce(w, mask, accum, monoid, A, opt)        w<mask, replace> accum= (+) of each row of A
//   reduce(w, mask, accum, monoid, transpose(A), opt)  ... of each column of A
//   reduce(monoid, A, transpose(A) or u) -> T     (+) of every entry (the identity when none)
//   reduce(s, accum, monoid, A, transpose(A) or u)  s accum= (+) of every entry
//   transpose(C, mask, accum, A, opt[, absent])   C<mask, replace> accum= A'
//   reduce(w, monoid, A or transpose(A)), transpose(C, A): the same without mask or accumulator.
//
// A is a device CSR matrix (csr_matrix<T, Index, device>, iso or not) or a dense device matrix,
// w and u dense device vectors; transpose(A) is kleene's view of A' (transposed.hpp). As on the
// CPU the outputs have their shapes already (w.size() == A.rows(), A.cols() for the columns; C is
// A.cols() x A.rows(), csr_matrix<T, Index, device>(rows, cols) makes an empty one);
// dimension_mismatch otherwise. A row (column) without entries gives no entry of w. Masks and
// accumulators as in operations.hpp: a dense_mask for dense outputs, a csr_mask for CSR ones.
// Dense objects hold the absent value where an entry is absent: for reduce the monoid's identity
// (absent_of(op): plus 0, times 1, min +inf, max -inf; with_absent(op, x) states it), for
// transpose the `absent` argument (T{} by default), as on the CPU.
//
// Kernels: a warp per row for the row reductions, a two-pass block reduction for the scalar
// ones; CSR transpose by a stable CUB radix sort of the entries by column (rows come out
// sorted), dense transpose by 32 x 32 shared-memory tiles. The columns of a CSR A are the rows of
// A' (the transpose above, then the row kernel), those of a dense A per-(column, row chunk)
// partials from coalesced reads, then the row kernel over the partials: no atomics, so float
// results are the same from run to run.
//
// Built-in instances (operations_reduce.cu, operations_transpose.cu):
// value types float, double, int32, int64; index types int32, int64; monoids plus, times, min,
// max (or a semiring whose additive monoid is one of them); accumulators none, plus, min (dense)
// and none or any ewise op of operations.hpp (CSR). Calls are synchronous, on the stream of
// options::ctx (null: default_context()'s); they throw kleene::device_error on CUDA failures,
// dimension_mismatch on shapes, and kleene::no_device in a build without CUDA.

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/detail/structure.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/transposed.hpp>
#include <kleene/vector.hpp>

#include <string>
#include <type_traits>

namespace kleene::cuda {

namespace detail {

/// The built-in monoid of a reduce operator (a monoid, a semiring, either with_absent-wrapped).
template <class T, class Op>
constexpr auto reduce_monoid(Op const& op) {
    using M = decltype(gpu_monoid_of(unwrap_absent(op)));
    static_assert(std::is_same_v<typename M::value_type, T>,
                  "cuda::reduce: the input's, the output's and the monoid's value types must be "
                  "equal");
    static_assert(gpu_monoid<M>,
                  "kleene: no GPU reduce for this operator (built-in monoids: plus, times, min, "
                  "max, or a semiring whose add is one of them)");
    return M{};
}

/// w's size against the rows of the reduced operand (A, or the view A' for A's columns).
inline void check_reduce_rows(std::size_t w, std::size_t rows, std::size_t cols,
                              char const* operand = "A") {
    if (w != rows)
        throw dimension_mismatch("cuda::reduce: output w has size " + std::to_string(w) + " but " +
                                 operand + " (" + kleene::detail::shape(rows, cols) + ") has " +
                                 std::to_string(rows) + " rows");
}

template <class T>
struct is_device_reduce_input : std::false_type {};
template <class T, class Index>
struct is_device_reduce_input<csr_matrix<T, Index, device>> : std::true_type {};
template <class T>
struct is_device_reduce_input<dense_matrix<T, device>> : std::true_type {};
template <class T>
struct is_device_reduce_input<dense_vector<T, device>> : std::true_type {};
template <class M>
struct is_device_reduce_input<transposed<M>> : is_device_reduce_input<M> {};

}  // namespace detail

// ---- reduce -------------------------------------------------------------------------------------

/// w<mask, replace> accum= the (+) of each row of a device CSR A.
template <accumulator_type Accum, class Op, class T, index_type Index>
void reduce(dense_vector<T, device>& w, dense_mask const& mask, Accum accum, Op const& op,
            csr_matrix<T, Index, device> const& a, options const& opt = {}) {
    auto const mon = detail::reduce_monoid<T>(op);
    detail::check_reduce_rows(w.size(), a.rows(), a.cols());
    detail::check_dense_mask("cuda::reduce", mask, w.size());
    detail::reduce_rows_csr(resolve(opt.ctx), w.data(), mask, accum, mon, a, T(absent_of(op)),
                            opt.replace);
}
/// w<mask, replace> accum= the (+) of each row of a dense device A (absent entries skipped).
template <accumulator_type Accum, class Op, class T>
void reduce(dense_vector<T, device>& w, dense_mask const& mask, Accum accum, Op const& op,
            dense_matrix<T, device> const& a, options const& opt = {}) {
    auto const mon = detail::reduce_monoid<T>(op);
    detail::check_reduce_rows(w.size(), a.rows(), a.cols());
    detail::check_dense_mask("cuda::reduce", mask, w.size());
    detail::reduce_rows_dense(resolve(opt.ctx), w.data(), mask, accum, mon, a.data(), a.rows(),
                              a.cols(), T(absent_of(op)), opt.replace);
}
/// w<mask, replace> accum= the (+) of each column of a device CSR A, as the rows of A': the CSR
/// transpose (O(nnz), A's size again in scratch) and the row kernel. Per-column atomics would skip
/// the sort but make float sums depend on the order the atomics land in.
template <accumulator_type Accum, class Op, class T, index_type Index>
void reduce(dense_vector<T, device>& w, dense_mask const& mask, Accum accum, Op const& op,
            transposed<csr_matrix<T, Index, device>> const& at, options const& opt = {}) {
    auto const mon = detail::reduce_monoid<T>(op);
    detail::check_reduce_rows(w.size(), at.rows(), at.cols(), "A'");
    detail::check_dense_mask("cuda::reduce", mask, w.size());
    context& ctx = resolve(opt.ctx);
    detail::reduce_rows_csr(ctx, w.data(), mask, accum, mon, detail::transpose_csr(ctx, *at.m),
                            T(absent_of(op)), opt.replace);
}
/// w<mask, replace> accum= the (+) of each column of a dense device A (absent entries skipped).
template <accumulator_type Accum, class Op, class T>
void reduce(dense_vector<T, device>& w, dense_mask const& mask, Accum accum, Op const& op,
            transposed<dense_matrix<T, device>> const& at, options const& opt = {}) {
    auto const mon = detail::reduce_monoid<T>(op);
    auto const& a = *at.m;
    detail::check_reduce_rows(w.size(), at.rows(), at.cols(), "A'");
    detail::check_dense_mask("cuda::reduce", mask, w.size());
    detail::reduce_cols_dense(resolve(opt.ctx), w.data(), mask, accum, mon, a.data(), a.rows(),
                              a.cols(), T(absent_of(op)), opt.replace);
}
template <class Op, class T, index_type Index>
void reduce(dense_vector<T, device>& w, Op const& op, csr_matrix<T, Index, device> const& a,
            options const& opt = {}) {
    reduce(w, dense_mask{}, no_accum, op, a, opt);
}
template <class Op, class T>
void reduce(dense_vector<T, device>& w, Op const& op, dense_matrix<T, device> const& a,
            options const& opt = {}) {
    reduce(w, dense_mask{}, no_accum, op, a, opt);
}
template <class Op, class M>
void reduce(dense_vector<typename M::value_type, device>& w, Op const& op,
            transposed<M> const& at, options const& opt = {}) {
    reduce(w, dense_mask{}, no_accum, op, at, opt);
}

/// The (+) of every stored entry of a device CSR A (the identity when there is none).
template <class Op, class T, index_type Index>
T reduce(Op const& op, csr_matrix<T, Index, device> const& a, options const& opt = {}) {
    auto const mon = detail::reduce_monoid<T>(op);
    return detail::reduce_values(resolve(opt.ctx), mon, a.has_values() ? a.values() : nullptr,
                                 a.iso_value(), a.nnz(), T(absent_of(op)), false);
}
/// The (+) of every entry of a dense device matrix (entries equal to the absent value skipped).
template <class Op, class T>
T reduce(Op const& op, dense_matrix<T, device> const& a, options const& opt = {}) {
    auto const mon = detail::reduce_monoid<T>(op);
    return detail::reduce_values(resolve(opt.ctx), mon, a.data(), T(0), a.rows() * a.cols(),
                                 T(absent_of(op)), true);
}
/// The (+) of every entry of a dense device vector (entries equal to the absent value skipped).
template <class Op, class T>
T reduce(Op const& op, dense_vector<T, device> const& u, options const& opt = {}) {
    auto const mon = detail::reduce_monoid<T>(op);
    return detail::reduce_values(resolve(opt.ctx), mon, u.data(), T(0), u.size(),
                                 T(absent_of(op)), true);
}

/// The (+) of every entry of A', the entries of A (as on the CPU).
template <class Op, class M>
    requires detail::is_device_reduce_input<M>::value
typename M::value_type reduce(Op const& op, transposed<M> const& at, options const& opt = {}) {
    return reduce(op, *at.m, opt);
}

/// s accum= the (+) of every entry (s = that value without an accumulator).
template <accumulator_type Accum, class Op, class A>
    requires detail::is_device_reduce_input<A>::value
void reduce(typename A::value_type& s, Accum, Op const& op, A const& a, options const& opt = {}) {
    auto const r = reduce(op, a, opt);
    if constexpr (std::is_same_v<Accum, no_accum_t>) s = r;
    else s = Accum::apply(s, r);
}

// ---- transpose ----------------------------------------------------------------------------------

/// C<mask, replace> accum= A' on device CSR (C is A.cols() x A.rows(); an iso A gives an iso A').
template <accumulator_type Accum, class T, index_type Index>
void transpose(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
               Accum accum, csr_matrix<T, Index, device> const& a, options const& opt = {}) {
    context& ctx = resolve(opt.ctx);
    detail::write_back_csr(ctx, "cuda::transpose", c, mask, accum, detail::transpose_csr(ctx, a),
                           opt.replace);
}
template <class T, index_type Index>
void transpose(csr_matrix<T, Index, device>& c, csr_matrix<T, Index, device> const& a) {
    transpose(c, csr_mask<Index>{}, no_accum, a);
}

/// C<mask, replace> accum= A' on dense device matrices (C may be A itself when square).
template <accumulator_type Accum, class T>
void transpose(dense_matrix<T, device>& c, dense_mask const& mask, Accum accum,
               dense_matrix<T, device> const& a, options const& opt = {},
               std::type_identity_t<T> absent = {}) {
    if (c.rows() != a.cols() || c.cols() != a.rows())
        throw dimension_mismatch("cuda::transpose: output C is " +
                                 kleene::detail::shape(c.rows(), c.cols()) +
                                 " but the transpose of A (" +
                                 kleene::detail::shape(a.rows(), a.cols()) + ") is " +
                                 kleene::detail::shape(a.cols(), a.rows()));
    detail::check_dense_mask("cuda::transpose", mask, c.rows() * c.cols());
    if (c.data() == a.data() && a.rows() * a.cols() > 0) {
        // The kernel reads A while it writes C.
        auto const copy = detail::copy_operand(a.data(), a.rows() * a.cols(), resolve(opt.ctx));
        detail::transpose_dense(resolve(opt.ctx), c.data(), mask, accum,
                                static_cast<T const*>(copy.data), a.rows(), a.cols(), absent,
                                opt.replace);
        return;
    }
    detail::transpose_dense(resolve(opt.ctx), c.data(), mask, accum, a.data(), a.rows(), a.cols(),
                            absent, opt.replace);
}
template <class T>
void transpose(dense_matrix<T, device>& c, dense_matrix<T, device> const& a,
               options const& opt = {}, std::type_identity_t<T> absent = {}) {
    transpose(c, dense_mask{}, no_accum, a, opt, absent);
}

}  // namespace kleene::cuda

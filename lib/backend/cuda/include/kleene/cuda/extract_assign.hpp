#pragma once
// The CUDA backend of kleene::extract and kleene::assign (extract_assign.hpp), which call these
// for device containers: use those. The CPU's semantics, checked against the CPU path by
// tests/gpu/test_structure_gpu.cpp.
//
//   extract(C, mask, accum, A, I, J, opt[, absent])    C<mask, replace> accum= A(I, J)
//   extract(w, mask, accum, u, I, opt[, absent])       w<mask, replace> accum= u(I)
//   extract(w, mask, accum, A, I, j, opt[, absent])    w<mask, replace> accum= A(I, j)
//   assign(C, mask, accum, A or x, I, J, opt[, absent]) C<mask, replace>(I, J) accum= A or x
//   assign(w, mask, accum, u or x, I, opt[, absent])    w<mask, replace>(I) accum= u or x
//   extract(C, A, I, J), extract(w, u, I), extract(w, A, I, j), assign(C, A or x, I, J),
//   assign(w, u or x, I): the same without mask or accumulator.
//
// extract: C and A both device CSR (same index type; C's columns come out sorted whatever the
// order of J) or both dense device matrices; w and u dense device vectors. A(I, j): A a device
// CSR (one thread an entry of w, a binary search in its row) or dense matrix, or the view
// transpose(A) of one (transposed.hpp: then part of row j of A). assign: C device CSR
// (A device CSR of the same index type, or a scalar; C's columns stay sorted) or a dense device
// matrix (A dense), w and u dense device vectors. I and J are kleene::index_selection
// (index lists, index_range, all_indices), resolved and checked on the host, then copied to the
// device; extract allows repeated indices, assign needs distinct ones (GrB_assign: the mask and
// replace apply to all of C, and without an accumulator the region's entries that A lacks are
// deleted). A column list of a CSR extract is inverted on the host (O(A.cols() + |J|)); a CSR
// assign inverts I and J on the host (O(C.rows() + C.cols())).
// Outputs have their shapes already; masks and accumulators as in operations.hpp (a csr_mask for
// CSR outputs, a dense_mask for dense ones). Dense objects hold `absent` (T{} by default) where
// an entry is absent, as on the CPU.
//
// Built-in instances (operations_extract.cu, operations_assign.cu):
// value types float, double, int32, int64; index types int32, int64; accumulators none, plus,
// min (dense outputs, A(I, j) included) and none or any ewise op of operations.hpp (CSR extract
// and assign: plus, times, min, max, first, second). Calls are synchronous, on the stream of
// options::ctx (null: default_context()'s); they throw invalid_argument for indices outside the
// dimension (j included, and for repeated assign indices), dimension_mismatch on shapes (the CSR
// assign's mask included), kleene::device_error on CUDA failures, and kleene::no_device in a
// build without CUDA.

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/detail/structure.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/index_selection.hpp>
#include <kleene/options.hpp>
#include <kleene/transposed.hpp>
#include <kleene/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::cuda {

namespace detail {

inline device_indices indices_to_device(resolved_indices const& r, context& ctx) {
    return indices_to_device(r.size, r.begin, r.list, r.sorted, ctx);
}

/// Each index's position in the list (-1 where absent), on the device; I holds no duplicates.
inline device_list inverse_to_device(resolved_indices const& r, std::size_t n,
                                     context& ctx) {
    std::vector<std::int64_t> inv(n, -1);
    for (std::size_t k = 0; k < r.size; ++k) inv[r[k]] = std::int64_t(k);
    return vector_to_device(inv, ctx);
}

/// The checks of w = A(I, j) (A as the caller sees it: rows x cols), then I on the device.
inline device_indices column_extract_indices(std::size_t w, dense_mask const& mask,
                                             std::size_t rows, std::size_t cols,
                                             index_selection const& sel, std::size_t col,
                                             char const* operand, context& ctx) {
    auto const ri = sel.resolve(rows, "cuda::extract: row indices");
    if (col >= cols)
        throw invalid_argument("cuda::extract: column " + std::to_string(col) + " is outside " +
                               operand + " (" + kleene::detail::shape(rows, cols) + ")");
    if (w != ri.size)
        throw dimension_mismatch("cuda::extract: output w has size " + std::to_string(w) +
                                 " but A(I, j) has " + std::to_string(ri.size));
    check_dense_mask("cuda::extract", mask, w);
    return indices_to_device(ri, ctx);
}

/// What A(I, j) reads: a device CSR or dense matrix, or the transposed view of one.
template <class A>
inline constexpr bool is_column_source = false;
template <class T, class Index>
inline constexpr bool is_column_source<csr_matrix<T, Index, device>> = true;
template <class T>
inline constexpr bool is_column_source<dense_matrix<T, device>> = true;
template <class M>
inline constexpr bool is_column_source<transposed<M>> = is_column_source<M>;

inline void check_extract_shape(std::size_t c_rows, std::size_t c_cols, std::size_t rows,
                                std::size_t cols) {
    if (c_rows != rows || c_cols != cols)
        throw dimension_mismatch("cuda::extract: output C is " +
                                 kleene::detail::shape(c_rows, c_cols) + " but A(I, J) is " +
                                 kleene::detail::shape(rows, cols));
}

/// The shared part of the dense assigns: a (region-shaped, or nullptr for the scalar x) into
/// the rows x cols c (cols == 0: c is a vector of size rows).
template <class Accum, class T>
void assign_dense_call(T* c, std::size_t rows, std::size_t cols, dense_mask const& mask,
                       Accum accum, T const* a, std::size_t a_rows, std::size_t a_cols, T x,
                       index_selection const& ri_sel, index_selection const* rj_sel,
                       std::string const& what, options const& opt, T absent) {
    bool const vec = rj_sel == nullptr;
    auto const ri =
        ri_sel.resolve(rows, vec ? "cuda::assign: indices" : "cuda::assign: row indices");
    resolved_indices rj;
    rj.size = 1;
    if (!vec) rj = rj_sel->resolve(cols, "cuda::assign: column indices");
    if (a && (a_rows != ri.size || a_cols != rj.size))
        throw dimension_mismatch(vec ? "cuda::assign: the region w(I) has " +
                                           std::to_string(ri.size) + " entries but the source is " +
                                           what
                                     : "cuda::assign: the region C(I, J) is " +
                                           kleene::detail::shape(ri.size, rj.size) +
                                           " but the source is " + what);
    kleene::detail::check_unique(ri, rows,
                                 vec ? "cuda::assign: indices" : "cuda::assign: row indices");
    if (!vec) kleene::detail::check_unique(rj, cols, "cuda::assign: column indices");
    std::size_t const ccols = vec ? 1 : cols;
    check_dense_mask("cuda::assign", mask, rows * ccols);
    context& ctx = resolve(opt.ctx);
    auto const rinv = inverse_to_device(ri, rows, ctx);
    device_list cinv;
    if (!vec) cinv = inverse_to_device(rj, cols, ctx);
    assign_dense(ctx, c, rows, ccols, mask, accum, a, x, rinv.data(), vec ? nullptr : cinv.data(),
                 rj.size, absent, opt.replace);
}

/// The shared part of the CSR assigns: a (|I| x |J|, or nullptr for the scalar x) into C.
template <class Accum, class T, class Index>
void assign_csr_call(csr_matrix<T, Index, device>& c, csr_mask<Index> const& mask, Accum accum,
                     csr_matrix<T, Index, device> const* a, T x, index_selection const& rows,
                     index_selection const& cols, options const& opt) {
    auto const ri = rows.resolve(c.rows(), "cuda::assign: row indices");
    auto const rj = cols.resolve(c.cols(), "cuda::assign: column indices");
    if (a && (a->rows() != ri.size || a->cols() != rj.size))
        throw dimension_mismatch("cuda::assign: the region C(I, J) is " +
                                 kleene::detail::shape(ri.size, rj.size) + " but the source is a " +
                                 kleene::detail::shape(a->rows(), a->cols()) + " matrix");
    kleene::detail::check_unique(ri, c.rows(), "cuda::assign: row indices");
    kleene::detail::check_unique(rj, c.cols(), "cuda::assign: column indices");
    check_csr_mask("cuda::assign", mask, c);
    // Z has at most C's entries and the source's: they must fit the index type.
    double const bound = double(c.nnz()) + (a ? double(a->nnz()) : double(ri.size) * rj.size);
    if (bound > double(std::numeric_limits<Index>::max()))
        throw invalid_argument("cuda::assign: the result may have " +
                               std::to_string(c.nnz()) + " + " +
                               std::to_string(a ? a->nnz() : ri.size * rj.size) +
                               " entries, more than its index type holds");
    context& ctx = resolve(opt.ctx);
    auto const rinv = inverse_to_device(ri, c.rows(), ctx);
    auto const cinv = inverse_to_device(rj, c.cols(), ctx);
    auto const dj = indices_to_device(rj, ctx);
    device_list jsorted;
    if (!a && rj.size > 0) {  // the scalar's region row: J in increasing order
        std::vector<std::int64_t> js(rj.size);
        for (std::size_t l = 0; l < rj.size; ++l) js[l] = std::int64_t(rj[l]);
        if (!rj.sorted) std::sort(js.begin(), js.end());
        jsorted = vector_to_device(js, ctx);
    }
    auto z = assign_csr(ctx, c, accum, a, x, dj.spec, rinv.data(), cinv.data(), jsorted.data());
    if (!mask.active()) c = std::move(z);
    else c = mask_merge_csr(ctx, c, z, mask, opt.replace);
}

}  // namespace detail

// ---- extract ------------------------------------------------------------------------------------

/// C<mask, replace> accum= A(I, J) on device CSR (C is |I| x |J|, sorted columns).
template <accumulator_type Accum, class T, index_type Index>
void extract(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
             Accum accum, csr_matrix<T, Index, device> const& a, index_selection const& rows,
             index_selection const& cols, options const& opt = {}) {
    auto const ri = rows.resolve(a.rows(), "cuda::extract: row indices");
    auto const rj = cols.resolve(a.cols(), "cuda::extract: column indices");
    detail::check_extract_shape(c.rows(), c.cols(), ri.size, rj.size);
    context& ctx = resolve(opt.ctx);
    auto const di = detail::indices_to_device(ri, ctx);
    auto const dj = detail::indices_to_device(rj, ctx);
    detail::device_list head, pos;
    if (rj.list) {
        inverse_index const inv(rj, a.cols());
        head = detail::vector_to_device(inv.head, ctx);
        pos = detail::vector_to_device(inv.pos, ctx);
    }
    detail::write_back_csr(ctx, "cuda::extract", c, mask, accum,
                           detail::extract_csr(ctx, a, di.spec, dj.spec, head.data(), pos.data()),
                           opt.replace);
}
template <class T, index_type Index>
void extract(csr_matrix<T, Index, device>& c, csr_matrix<T, Index, device> const& a,
             index_selection const& rows, index_selection const& cols, options const& opt = {}) {
    extract(c, csr_mask<Index>{}, no_accum, a, rows, cols, opt);
}

/// C<mask, replace> accum= A(I, J) on dense device matrices.
template <accumulator_type Accum, class T>
void extract(dense_matrix<T, device>& c, dense_mask const& mask, Accum accum,
             dense_matrix<T, device> const& a, index_selection const& rows,
             index_selection const& cols, options const& opt = {},
             std::type_identity_t<T> absent = {}) {
    auto const ri = rows.resolve(a.rows(), "cuda::extract: row indices");
    auto const rj = cols.resolve(a.cols(), "cuda::extract: column indices");
    detail::check_extract_shape(c.rows(), c.cols(), ri.size, rj.size);
    detail::check_dense_mask("cuda::extract", mask, c.rows() * c.cols());
    context& ctx = resolve(opt.ctx);
    auto const di = detail::indices_to_device(ri, ctx);
    auto const dj = detail::indices_to_device(rj, ctx);
    if (c.data() == a.data() && ri.size * rj.size > 0) {
        // The kernel reads A while it writes C.
        auto const copy = detail::copy_operand(a.data(), a.rows() * a.cols(), ctx);
        detail::extract_dense(ctx, c.data(), mask, accum, static_cast<T const*>(copy.data),
                              a.cols(), di.spec, dj.spec, absent, opt.replace);
        return;
    }
    detail::extract_dense(ctx, c.data(), mask, accum, a.data(), a.cols(), di.spec, dj.spec, absent,
                          opt.replace);
}
template <class T>
void extract(dense_matrix<T, device>& c, dense_matrix<T, device> const& a,
             index_selection const& rows, index_selection const& cols, options const& opt = {},
             std::type_identity_t<T> absent = {}) {
    extract(c, dense_mask{}, no_accum, a, rows, cols, opt, absent);
}

/// w<mask, replace> accum= u(I) on dense device vectors.
template <accumulator_type Accum, class T>
void extract(dense_vector<T, device>& w, dense_mask const& mask, Accum accum,
             dense_vector<T, device> const& u, index_selection const& rows,
             options const& opt = {}, std::type_identity_t<T> absent = {}) {
    auto const ri = rows.resolve(u.size(), "cuda::extract: indices");
    if (w.size() != ri.size)
        throw dimension_mismatch("cuda::extract: output w has size " + std::to_string(w.size()) +
                                 " but u(I) has " + std::to_string(ri.size));
    detail::check_dense_mask("cuda::extract", mask, w.size());
    context& ctx = resolve(opt.ctx);
    auto const di = detail::indices_to_device(ri, ctx);
    detail::index_spec const one{1, 0, nullptr, true};
    if (w.data() == u.data() && ri.size > 0) {
        auto const copy = detail::copy_operand(u.data(), u.size(), ctx);
        detail::extract_dense(ctx, w.data(), mask, accum, static_cast<T const*>(copy.data), 1,
                              di.spec, one, absent, opt.replace);
        return;
    }
    detail::extract_dense(ctx, w.data(), mask, accum, u.data(), 1, di.spec, one, absent,
                          opt.replace);
}
template <class T>
void extract(dense_vector<T, device>& w, dense_vector<T, device> const& u,
             index_selection const& rows, options const& opt = {},
             std::type_identity_t<T> absent = {}) {
    extract(w, dense_mask{}, no_accum, u, rows, opt, absent);
}

/// w<mask, replace> accum= A(I, j), part of column j of a device CSR A.
template <accumulator_type Accum, class T, index_type Index>
void extract(dense_vector<T, device>& w, dense_mask const& mask, Accum accum,
             csr_matrix<T, Index, device> const& a, index_selection const& rows, std::size_t col,
             options const& opt = {}, std::type_identity_t<T> absent = {}) {
    auto const di = detail::column_extract_indices(
        w.size(), mask, a.rows(), a.cols(), rows, col, "A", resolve(opt.ctx));
    detail::extract_csr_column(resolve(opt.ctx), w.data(), mask, accum, a, di.spec, col, false,
                               T(absent), opt.replace);
}
/// w<mask, replace> accum= A'(I, j), part of row j of a device CSR A.
template <accumulator_type Accum, class T, index_type Index>
void extract(dense_vector<T, device>& w, dense_mask const& mask, Accum accum,
             transposed<csr_matrix<T, Index, device>> const& at, index_selection const& rows,
             std::size_t col, options const& opt = {}, std::type_identity_t<T> absent = {}) {
    auto const di = detail::column_extract_indices(
        w.size(), mask, at.rows(), at.cols(), rows, col, "A'", resolve(opt.ctx));
    detail::extract_csr_column(resolve(opt.ctx), w.data(), mask, accum, *at.m, di.spec, col, true,
                               T(absent), opt.replace);
}
/// w<mask, replace> accum= A(I, j), part of column j of a dense device A.
template <accumulator_type Accum, class T>
void extract(dense_vector<T, device>& w, dense_mask const& mask, Accum accum,
             dense_matrix<T, device> const& a, index_selection const& rows, std::size_t col,
             options const& opt = {}, std::type_identity_t<T> absent = {}) {
    auto const di = detail::column_extract_indices(
        w.size(), mask, a.rows(), a.cols(), rows, col, "A", resolve(opt.ctx));
    detail::index_spec const j{1, col, nullptr, true};
    detail::extract_dense(resolve(opt.ctx), w.data(), mask, accum, a.data(), a.cols(), di.spec, j,
                          T(absent), opt.replace);
}
/// w<mask, replace> accum= A'(I, j), part of row j of a dense device A.
template <accumulator_type Accum, class T>
void extract(dense_vector<T, device>& w, dense_mask const& mask, Accum accum,
             transposed<dense_matrix<T, device>> const& at, index_selection const& rows,
             std::size_t col, options const& opt = {}, std::type_identity_t<T> absent = {}) {
    auto const di = detail::column_extract_indices(
        w.size(), mask, at.rows(), at.cols(), rows, col, "A'", resolve(opt.ctx));
    detail::index_spec const i{1, col, nullptr, true};
    detail::extract_dense(resolve(opt.ctx), w.data(), mask, accum, at.m->data(), at.m->cols(), i,
                          di.spec, T(absent), opt.replace);
}
template <class T, class A>
    requires detail::is_column_source<A>
void extract(dense_vector<T, device>& w, A const& a, index_selection const& rows, std::size_t col,
             options const& opt = {}, std::type_identity_t<T> absent = {}) {
    extract(w, dense_mask{}, no_accum, a, rows, col, opt, absent);
}

// ---- assign -------------------------------------------------------------------------------------

/// C<mask, replace>(I, J) accum= A on device CSR (A is |I| x |J|; C keeps sorted columns).
template <accumulator_type Accum, class T, index_type Index>
void assign(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
            Accum accum, csr_matrix<T, Index, device> const& a, index_selection const& rows,
            index_selection const& cols, options const& opt = {}) {
    detail::assign_csr_call(c, mask, accum, &a, T{}, rows, cols, opt);
}
/// C<mask, replace>(I, J) accum= x (every position of the region) on device CSR.
template <accumulator_type Accum, class T, index_type Index>
void assign(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
            Accum accum, std::type_identity_t<T> x, index_selection const& rows,
            index_selection const& cols, options const& opt = {}) {
    detail::assign_csr_call(c, mask, accum,
                            static_cast<csr_matrix<T, Index, device> const*>(nullptr), T(x), rows,
                            cols, opt);
}
template <class T, index_type Index>
void assign(csr_matrix<T, Index, device>& c, csr_matrix<T, Index, device> const& a,
            index_selection const& rows, index_selection const& cols, options const& opt = {}) {
    assign(c, csr_mask<Index>{}, no_accum, a, rows, cols, opt);
}
template <class T, index_type Index>
void assign(csr_matrix<T, Index, device>& c, std::type_identity_t<T> x,
            index_selection const& rows, index_selection const& cols, options const& opt = {}) {
    assign(c, csr_mask<Index>{}, no_accum, x, rows, cols, opt);
}

/// C<mask, replace>(I, J) accum= A on dense device matrices (A is |I| x |J|).
template <accumulator_type Accum, class T>
void assign(dense_matrix<T, device>& c, dense_mask const& mask, Accum accum,
            dense_matrix<T, device> const& a, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<T> absent = {}) {
    std::string const what = "a " + kleene::detail::shape(a.rows(), a.cols()) + " matrix";
    if (c.data() == a.data() && a.rows() * a.cols() > 0) {
        auto const copy = detail::copy_operand(a.data(), a.rows() * a.cols(), resolve(opt.ctx));
        detail::assign_dense_call(c.data(), c.rows(), c.cols(), mask, accum,
                                  static_cast<T const*>(copy.data), a.rows(), a.cols(), T{}, rows,
                                  &cols, what, opt, T(absent));
        return;
    }
    detail::assign_dense_call(c.data(), c.rows(), c.cols(), mask, accum, a.data(), a.rows(),
                              a.cols(), T{}, rows, &cols, what, opt, T(absent));
}
/// C<mask, replace>(I, J) accum= x (every position of the region) on a dense device matrix.
template <accumulator_type Accum, class T>
void assign(dense_matrix<T, device>& c, dense_mask const& mask, Accum accum,
            std::type_identity_t<T> x, index_selection const& rows, index_selection const& cols,
            options const& opt = {}, std::type_identity_t<T> absent = {}) {
    detail::assign_dense_call(c.data(), c.rows(), c.cols(), mask, accum,
                              static_cast<T const*>(nullptr), 0, 0, T(x), rows, &cols,
                              "a scalar", opt, T(absent));
}
template <class T>
void assign(dense_matrix<T, device>& c, dense_matrix<T, device> const& a,
            index_selection const& rows, index_selection const& cols, options const& opt = {},
            std::type_identity_t<T> absent = {}) {
    assign(c, dense_mask{}, no_accum, a, rows, cols, opt, absent);
}
template <class T>
void assign(dense_matrix<T, device>& c, std::type_identity_t<T> x, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<T> absent = {}) {
    assign(c, dense_mask{}, no_accum, x, rows, cols, opt, absent);
}

/// w<mask, replace>(I) accum= u on dense device vectors (u has |I| entries).
template <accumulator_type Accum, class T>
void assign(dense_vector<T, device>& w, dense_mask const& mask, Accum accum,
            dense_vector<T, device> const& u, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<T> absent = {}) {
    std::string const what = "a vector of size " + std::to_string(u.size());
    if (w.data() == u.data() && u.size() > 0) {
        auto const copy = detail::copy_operand(u.data(), u.size(), resolve(opt.ctx));
        detail::assign_dense_call(w.data(), w.size(), 0, mask, accum,
                                  static_cast<T const*>(copy.data), u.size(), 1, T{}, rows, nullptr,
                                  what, opt, T(absent));
        return;
    }
    detail::assign_dense_call(w.data(), w.size(), 0, mask, accum, u.data(), u.size(), 1, T{}, rows,
                              nullptr, what, opt, T(absent));
}
/// w<mask, replace>(I) accum= x on a dense device vector.
template <accumulator_type Accum, class T>
void assign(dense_vector<T, device>& w, dense_mask const& mask, Accum accum,
            std::type_identity_t<T> x, index_selection const& rows, options const& opt = {},
            std::type_identity_t<T> absent = {}) {
    detail::assign_dense_call(w.data(), w.size(), 0, mask, accum, static_cast<T const*>(nullptr),
                              0, 0, T(x), rows, nullptr, "a scalar", opt, T(absent));
}
template <class T>
void assign(dense_vector<T, device>& w, dense_vector<T, device> const& u,
            index_selection const& rows, options const& opt = {},
            std::type_identity_t<T> absent = {}) {
    assign(w, dense_mask{}, no_accum, u, rows, opt, absent);
}
template <class T>
void assign(dense_vector<T, device>& w, std::type_identity_t<T> x, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<T> absent = {}) {
    assign(w, dense_mask{}, no_accum, x, rows, opt, absent);
}

}  // namespace kleene::cuda

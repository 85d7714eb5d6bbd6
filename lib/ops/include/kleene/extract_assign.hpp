#pragma once
// extract and assign, GraphBLAS style.
//
//   extract(C, mask, accum, A, I, J, options, absent)    C<mask, replace> accum= A(I, J)
//   extract(w, mask, accum, u, I, options, absent)       w<mask, replace> accum= u(I)
//   extract(w, mask, accum, A, I, j, options, absent)    w<mask, replace> accum= A(I, j)
//   assign(C, mask, accum, A or x, I, J, options, absent)  C<mask, replace>(I, J) accum= A or x
//   assign(w, mask, accum, u or x, I, options, absent)     w<mask, replace>(I) accum= u or x
//
// I and J are index lists (std::vector or std::span of integers, or {i, j, ...}), ranges
// (index_range{begin, end}, end excluded) or all_indices. extract allows repeated indices.
// assign follows GrB_assign: the mask and replace apply to all of C, not to the region; without
// an accumulator, entries of the region that A lacks are deleted; indices may not repeat.
// `absent` stands for "no entry" in dense objects (see operators.hpp).
//
// Each form is one body for host and device containers (one space a call; issue 39, item 6): the
// index selections resolved and the shapes, the repeated assign indices and the mask checked on
// the host before any work, the trace, then the choice by space and storage: the CPU kernels
// (cpu/extract_assign.hpp) for host containers, the CUDA backend (cuda/extract_assign.hpp, which
// checks again what it is given) for device ones.

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <kleene/cpu/extract_assign.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/cuda/extract_assign.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/operation_space.hpp>
#include <kleene/index_selection.hpp>
#include <kleene/transpose.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene {

namespace detail {

template <class C>
using result_index_t = typename std::conditional_t<is_csr<C>, C, csr_matrix<int>>::index_type;

/// An output matrix or vector of either space.
template <class C>
concept any_matrix = host_matrix<C> || device_matrix<C>;
template <class W>
concept any_vector = host_vector<W> || device_vector<W>;

/// What C = A(I, J) and C(I, J) = A take: an output matrix and a matrix operand (possibly a
/// transpose view) of one space.
template <class C, class A>
concept matrix_region_operands =
    (host_matrix<C> && matrix_operand<A>) || (device_matrix<C> && device_operand<A>);
/// What w = u(I) and w(I) = u take: two vectors of one space.
template <class W, class U>
concept vector_region_operands =
    (host_vector<W> && host_vector<U>) || (device_vector<W> && device_vector<U>);
/// What w = A(I, j) takes: an output vector and a matrix operand (possibly a transpose view) of
/// one space.
template <class W, class A>
concept column_operands =
    (host_vector<W> && matrix_operand<A>) || (device_vector<W> && device_operand<A>);

/// The scalar source of assign: x at every position of the region.
template <class T>
struct assign_scalar {
    T x;
};
template <class S>
inline constexpr bool is_assign_scalar = false;
template <class T>
inline constexpr bool is_assign_scalar<assign_scalar<T>> = true;

/// How a resolved column selection reads, for the trace.
inline std::string column_selection_kind(resolved_indices const& rj) {
    return rj.list ? (rj.sorted ? "column list (sorted)" : "column list (unsorted)")
                   : "column range";
}
}  // namespace detail

/// C<mask, replace> accum= A(I, J): host or device containers (one space a call), one body: I and
/// J resolved against A and C's shape and the mask checked first, the trace, then the choice by
/// space and storage. Host: a CSR A by rows (a column list through its inverse), a dense one row
/// by row, then the mask and accumulator (cpu::write_back). Device (the CUDA backend,
/// cuda::extract: CSR from CSR of one index type, dense from dense): the same semantics on the
/// context's stream. A transpose view is materialised first (traced).
template <class C, mask_type Mask, accumulator_type Accum, class A>
    requires detail::matrix_region_operands<C, A>
void extract(C& c, Mask const& mask, Accum accum, A const& a_in, index_selection const& rows,
             index_selection const& cols, options const& opt = {},
             std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "extract: the input's value type must equal the output's");
    constexpr bool on_device = detail::in_space<C, device>;
    if constexpr (on_device) detail::check_device_output<C, Accum>();
    [[maybe_unused]] auto const scope = detail::enter_space<C>("extract", opt, "on the GPU");
    auto const ri = rows.resolve(a_in.rows(), "extract: row indices");
    auto const rj = cols.resolve(a_in.cols(), "extract: column indices");
    if (c.rows() != ri.size || c.cols() != rj.size)
        throw dimension_mismatch("extract: output C is " + detail::describe(c) +
                                 " but A(I, J) is " + detail::shape(ri.size, rj.size));
    detail::check_mask("extract", mask, c);
    auto&& a = detail::materialize_any(a_in, opt, "extract");
    using MA = std::remove_cvref_t<decltype(a)>;
    constexpr bool csr_input = detail::is_csr<MA>;
    detail::trace(opt, "extract: " + detail::describe(a) + (on_device ? ": cuda, " : ": ") +
                           (csr_input ? "csr rows, " : "dense rows, ") +
                           detail::column_selection_kind(rj));
    if constexpr (on_device) {
        static_assert((detail::is_csr<C> && std::is_same_v<C, MA>) ||
                          (detail::is_dense<C> && detail::is_dense<MA>),
                      "kleene: extract on the device takes a CSR input into a CSR output (one "
                      "index type) or a dense one into a dense one");
        auto const m = detail::device_mask<C>(mask, opt.ctx);
        if constexpr (detail::is_csr<C>)
            cuda::extract(c, m, accum, a, rows, cols, opt);
        else
            cuda::extract(c, m, accum, a, rows, cols, opt, absent);
    } else {
        using Index = detail::result_index_t<C>;
        csr_matrix<T, Index> t;
        if constexpr (csr_input)
            t = cpu::extract_csr<Index>(a, ri, rj);
        else
            t = cpu::extract_dense<Index>(a, ri, rj, T(absent));
        detail::write_back_result(c, mask, accum, std::move(t), T(absent), opt, "extract");
    }
}
template <class C, class A>
    requires detail::matrix_region_operands<C, A>
void extract(C& c, A const& a, index_selection const& rows, index_selection const& cols,
             options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    extract(c, no_mask, no_accum, a, rows, cols, opt, absent);
}

/// w<mask, replace> accum= u(I): host or device vectors (one space a call), one body: I resolved
/// against u, w's size and the mask checked first, the trace, then a gather: on the CPU, or by the
/// CUDA backend (cuda::extract: dense device vectors of one value type).
template <class W, mask_type Mask, accumulator_type Accum, class U>
    requires detail::vector_region_operands<W, U>
void extract(W& w, Mask const& mask, Accum accum, U const& u, index_selection const& rows,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    static_assert(std::is_same_v<typename U::value_type, T>,
                  "extract: the input's value type must equal the output's");
    constexpr bool on_device = detail::in_space<W, device>;
    if constexpr (on_device) {
        static_assert(detail::is_dense_vec<W> && std::is_same_v<W, U>,
                      "kleene: extract on device vectors takes dense vectors of one value type");
        detail::check_device_output<W, Accum>();
    }
    [[maybe_unused]] auto const scope = detail::enter_space<W>("extract", opt, "on the GPU");
    auto const ri = rows.resolve(u.size(), "extract: indices");
    if (w.size() != ri.size)
        throw dimension_mismatch("extract: output w has size " + std::to_string(w.size()) +
                                 " but u(I) has " + std::to_string(ri.size));
    detail::check_mask("extract", mask, w);
    detail::trace(opt, "extract: " + detail::describe(u) +
                           (on_device ? ": cuda, vector gather" : ": vector gather"));
    if constexpr (on_device) {
        cuda::extract(w, detail::device_mask<W>(mask, opt.ctx), accum, u, rows, opt, absent);
    } else {
        auto const x = detail::load_vector(u, T(absent));
        cpu::vector_result<T> t;
        t.vals = buffer<T>(ri.size);
        t.has.resize(ri.size);
        for (std::size_t k = 0; k < ri.size; ++k) {
            t.vals[k] = x.vals[ri[k]];
            t.has[k] = x.has[ri[k]];
        }
        cpu::write_back(w, mask, accum, t, opt.replace, T(absent));
    }
}
template <class W, class U>
    requires detail::vector_region_operands<W, U>
void extract(W& w, U const& u, index_selection const& rows, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    extract(w, no_mask, no_accum, u, rows, opt, absent);
}

/// w<mask, replace> accum= A(I, j): part of column j (of a transposed view: of row j of A). Host
/// or device containers (one space a call), one body: I resolved against A, j, w's size and the
/// mask checked first, the trace, then one lookup per index: on the CPU (a binary search in a CSR
/// row), or by the CUDA backend (cuda::extract into a dense device vector; a transpose view read
/// in place, not materialised).
template <class W, mask_type Mask, accumulator_type Accum, class A>
    requires detail::column_operands<W, A>
void extract(W& w, Mask const& mask, Accum accum, A const& a, index_selection const& rows,
             std::size_t col, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    constexpr bool on_device = detail::in_space<W, device>;
    if constexpr (on_device)
        static_assert(detail::is_dense_vec<W>,
                      "kleene: extract of a column on the device writes a dense device vector");
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "extract: the input's value type must equal the output's");
    if constexpr (on_device) detail::check_device_output<W, Accum>();
    [[maybe_unused]] auto const scope = detail::enter_space<W>("extract", opt, "on the GPU");
    auto const ri = rows.resolve(a.rows(), "extract: row indices");
    if (col >= a.cols())
        throw invalid_argument("extract: column " + std::to_string(col) + " is outside A (" +
                               detail::describe(a) + ")");
    if (w.size() != ri.size)
        throw dimension_mismatch("extract: output w has size " + std::to_string(w.size()) +
                                 " but A(I, j) has " + std::to_string(ri.size));
    detail::check_mask("extract", mask, w);
    detail::trace(opt, "extract: a column of " + detail::describe(a) +
                           (on_device ? ": cuda, one lookup per index" : ": one lookup per index"));
    if constexpr (on_device) {
        cuda::extract(w, detail::device_mask<W>(mask, opt.ctx), accum, a, rows, col, opt, absent);
    } else {
        cpu::vector_result<T> t;
        t.vals = buffer<T>(ri.size, T(absent));
        t.has.assign(ri.size, 0);
        auto lookup = [&](auto const& m, std::size_t i, std::size_t j, std::size_t k) {
            if constexpr (detail::is_csr<std::remove_cvref_t<decltype(m)>>) {
                auto const p = m.find(i, j);
                if (p >= 0) {
                    t.vals[k] = m.value(std::size_t(p));
                    t.has[k] = 1;
                }
            } else {
                t.vals[k] = m(i, j);
                t.has[k] = !(m(i, j) == T(absent));
            }
        };
#pragma omp parallel for schedule(static) if (ri.size > 10000)
        for (std::size_t k = 0; k < ri.size; ++k) {
            if constexpr (is_transposed<A>)
                lookup(*a.m, col, ri[k], k);
            else
                lookup(a, ri[k], col, k);
        }
        cpu::write_back(w, mask, accum, t, opt.replace, T(absent));
    }
}
template <class W, class A>
    requires detail::column_operands<W, A>
void extract(W& w, A const& a, index_selection const& rows, std::size_t col,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    extract(w, no_mask, no_accum, a, rows, col, opt, absent);
}

namespace detail {
/// C<mask, replace>(I, J) accum= the source (a matrix operand, or assign_scalar's x): host or
/// device C, one body: I and J resolved against C, the region's shape against the source's,
/// repeated indices and the mask checked first, the trace, then the choice by space and storage.
/// Host: Z = C with the region replaced or accumulated (cpu::assign_csr or assign_dense), then
/// C<mask, replace> = Z. Device (the CUDA backend, cuda::assign: a CSR source into a CSR C of
/// its index type, a dense one into a dense C, or the scalar): the same semantics on the
/// context's stream. A transpose view is materialised first (traced).
template <class C, class Mask, class Accum, class Src>
void assign_matrix(C& c, Mask const& mask, Accum accum, Src const& src_in,
                   index_selection const& rows, index_selection const& cols, options const& opt,
                   typename C::value_type absent) {
    using T = typename C::value_type;
    constexpr bool scalar = is_assign_scalar<Src>;
    constexpr bool on_device = in_space<C, device>;
    if constexpr (on_device) check_device_output<C, Accum>();
    [[maybe_unused]] auto const scope = enter_space<C>("assign", opt, "on the GPU");
    // The scalar is itself; a view is made a matrix of its space.
    auto&& src = materialize_any(src_in, opt, "assign");
    using S = std::remove_cvref_t<decltype(src)>;
    std::string const what = [&] {
        if constexpr (scalar)
            return std::string("a scalar");
        else
            return describe(src);
    }();
    auto const ri = rows.resolve(c.rows(), "assign: row indices");
    auto const rj = cols.resolve(c.cols(), "assign: column indices");
    if constexpr (!scalar)
        if (src.rows() != ri.size || src.cols() != rj.size)
            throw dimension_mismatch("assign: the region C(I, J) is " + shape(ri.size, rj.size) +
                                     " but the source is " + what);
    check_unique(ri, c.rows(), "assign: row indices");
    check_unique(rj, c.cols(), "assign: column indices");
    check_mask("assign", mask, c);
    trace(opt, "assign: " + what + " into " + shape(ri.size, rj.size) + " of " + describe(c) +
                   (on_device ? ": cuda" : "") +
                   (std::is_same_v<Mask, no_mask_t> ? "" : ", then C<mask> = the result"));
    if constexpr (on_device) {
        static_assert(scalar || (is_csr<C> && std::is_same_v<C, S>) ||
                          (is_dense<C> && is_dense<S>),
                      "kleene: assign on the device takes a CSR source into a CSR output (one "
                      "index type) or a dense one into a dense one");
        auto const m = device_mask<C>(mask, opt.ctx);
        auto const& s = [&]() -> auto const& {
            if constexpr (scalar)
                return src.x;
            else
                return src;
        }();
        if constexpr (is_csr<C>)
            cuda::assign(c, m, accum, s, rows, cols, opt);
        else
            cuda::assign(c, m, accum, s, rows, cols, opt, absent);
    } else {
        auto const rs = [&] {
            if constexpr (scalar)
                return cpu::scalar_rows<T>{src.x, rj.size};
            else
                return cpu::detail::row_source(src, T(absent));
        }();
        auto z = [&] {
            if constexpr (is_csr<C>)
                return cpu::assign_csr<Accum>(c, rs, ri, rj);
            else
                return cpu::assign_dense<Accum>(c, rs, ri, rj, absent);
        }();
        if constexpr (std::is_same_v<Mask, no_mask_t>)
            c = std::move(z);
        else
            cpu::write_back(c, mask, no_accum, z, opt.replace, absent);
    }
}
}  // namespace detail

/// C<mask, replace>(I, J) accum= A: host or device containers, one space a call
/// (detail::assign_matrix).
template <class C, mask_type Mask, accumulator_type Accum, class A>
    requires detail::matrix_region_operands<C, A>
void assign(C& c, Mask const& mask, Accum accum, A const& a, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    static_assert(std::is_same_v<typename A::value_type, typename C::value_type>,
                  "assign: the input's value type must equal the output's");
    detail::assign_matrix(c, mask, accum, a, rows, cols, opt, absent);
}
/// C<mask, replace>(I, J) accum= x (every position of the region): a host or device C
/// (detail::assign_matrix).
template <class C, mask_type Mask, accumulator_type Accum>
    requires detail::any_matrix<C>
void assign(C& c, Mask const& mask, Accum accum, std::type_identity_t<typename C::value_type> x,
            index_selection const& rows, index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    detail::assign_matrix(c, mask, accum, detail::assign_scalar<T>{x}, rows, cols, opt, absent);
}
template <class C, class A>
    requires detail::matrix_region_operands<C, A>
void assign(C& c, A const& a, index_selection const& rows, index_selection const& cols,
            options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    assign(c, no_mask, no_accum, a, rows, cols, opt, absent);
}
template <class C>
    requires detail::any_matrix<C>
void assign(C& c, std::type_identity_t<typename C::value_type> x, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    assign(c, no_mask, no_accum, x, rows, cols, opt, absent);
}

namespace detail {
/// w<mask, replace>(I) accum= the source (a vector, or assign_scalar's x): host or device w, one
/// body: I resolved against w, the source's size, repeated indices and the mask checked first,
/// the trace, then on the CPU (Z = w with the region replaced or accumulated, then
/// w<mask, replace> = Z) or by the CUDA backend (cuda::assign: dense device vectors of one value
/// type, or the scalar into a dense device vector).
template <class W, class Mask, class Accum, class Src>
void assign_vector(W& w, Mask const& mask, Accum accum, Src const& src,
                   index_selection const& rows, options const& opt,
                   typename W::value_type absent) {
    using T = typename W::value_type;
    constexpr bool scalar = is_assign_scalar<Src>;
    constexpr bool on_device = in_space<W, device>;
    if constexpr (on_device) {
        if constexpr (scalar)
            static_assert(is_dense_vec<W>,
                          "kleene: assign on device vectors takes dense vectors");
        else
            static_assert(is_dense_vec<W> && std::is_same_v<W, Src>,
                          "kleene: assign on device vectors takes dense vectors of one value type");
        check_device_output<W, Accum>();
    }
    [[maybe_unused]] auto const scope = enter_space<W>("assign", opt, "on the GPU");
    std::string const what = [&] {
        if constexpr (scalar)
            return std::string("a scalar");
        else
            return describe(src);
    }();
    auto const ri = rows.resolve(w.size(), "assign: indices");
    if constexpr (!scalar)
        if (src.size() != ri.size)
            throw dimension_mismatch("assign: the region w(I) has " + std::to_string(ri.size) +
                                     " entries but the source is " + what);
    check_unique(ri, w.size(), "assign: indices");
    check_mask("assign", mask, w);
    trace(opt, "assign: " + what + " into " + std::to_string(ri.size) + " entries of " +
                   describe(w) + (on_device ? ": cuda" : ""));
    if constexpr (on_device) {
        auto const m = device_mask<W>(mask, opt.ctx);
        if constexpr (scalar)
            cuda::assign(w, m, accum, src.x, rows, opt, absent);
        else
            cuda::assign(w, m, accum, src, rows, opt, absent);
    } else {
        cpu::vector_result<T> u;
        if constexpr (!scalar) u = load_vector(src, absent);
        auto z = load_vector(w, absent);
        for (std::size_t k = 0; k < ri.size; ++k) {
            std::size_t const i = ri[k];
            T v;
            bool has;
            if constexpr (scalar) {
                v = src.x;
                has = true;
            } else {
                v = u.vals[k];
                has = u.has[k] != 0;
            }
            if (has) {
                if constexpr (std::is_same_v<Accum, no_accum_t>)
                    z.vals[i] = v;
                else
                    z.vals[i] = z.has[i] ? Accum::apply(z.vals[i], v) : v;
                z.has[i] = 1;
            } else if constexpr (std::is_same_v<Accum, no_accum_t>) {
                z.has[i] = 0;
            }
        }
        if constexpr (std::is_same_v<Mask, no_mask_t>)
            cpu::write_back(w, no_mask, no_accum, z, false, absent);
        else
            cpu::write_back(w, mask, no_accum, z, opt.replace, absent);
    }
}
}  // namespace detail

/// w<mask, replace>(I) accum= u: host or device vectors, one space a call (detail::assign_vector).
template <class W, mask_type Mask, accumulator_type Accum, class U>
    requires detail::vector_region_operands<W, U>
void assign(W& w, Mask const& mask, Accum accum, U const& u, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    static_assert(std::is_same_v<typename U::value_type, typename W::value_type>,
                  "assign: the input's value type must equal the output's");
    detail::assign_vector(w, mask, accum, u, rows, opt, absent);
}
/// w<mask, replace>(I) accum= x: a host or device w (detail::assign_vector).
template <class W, mask_type Mask, accumulator_type Accum>
    requires detail::any_vector<W>
void assign(W& w, Mask const& mask, Accum accum, std::type_identity_t<typename W::value_type> x,
            index_selection const& rows, options const& opt = {},
            std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    detail::assign_vector(w, mask, accum, detail::assign_scalar<T>{x}, rows, opt, absent);
}
template <class W, class U>
    requires detail::vector_region_operands<W, U>
void assign(W& w, U const& u, index_selection const& rows, options const& opt = {},
            std::type_identity_t<typename W::value_type> absent = {}) {
    assign(w, no_mask, no_accum, u, rows, opt, absent);
}
template <class W>
    requires detail::any_vector<W>
void assign(W& w, std::type_identity_t<typename W::value_type> x, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    assign(w, no_mask, no_accum, x, rows, opt, absent);
}

KLEENE_NO_MIXED_SPACES(extract)
KLEENE_NO_MIXED_SPACES(assign)

}  // namespace kleene

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

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <kleene/cpu/extract_assign.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/cuda/extract_assign.hpp>
#include <kleene/index_selection.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/transpose.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene {

namespace detail {

template <class C>
using result_index_t = typename std::conditional_t<is_csr<C>, C, csr_matrix<int>>::index_type;
}  // namespace detail

/// C<mask, replace> accum= A(I, J).
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, detail::matrix_operand A>
void extract(C& c, Mask const& mask, Accum accum, A const& a_in, index_selection const& rows,
             index_selection const& cols, options const& opt = {},
             std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "extract: the input's value type must equal the output's");
    auto const omp_scope = detail::check_host("extract", opt);
    auto const ri = rows.resolve(a_in.rows(), "extract: row indices");
    auto const rj = cols.resolve(a_in.cols(), "extract: column indices");
    if (c.rows() != ri.size || c.cols() != rj.size)
        throw dimension_mismatch("extract: output C is " + detail::describe(c) +
                                 " but A(I, J) is " + detail::shape(ri.size, rj.size));
    detail::check_mask("extract", mask, c);
    auto&& a = detail::materialize(a_in, opt, "extract");
    using MA = std::remove_cvref_t<decltype(a)>;
    using Index = detail::result_index_t<C>;
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    std::string const how =
        rj.list ? (rj.sorted ? "column list (sorted)" : "column list (unsorted)") : "column range";
    csr_matrix<T, Index> t;
    if constexpr (detail::is_csr<MA>) {
        detail::trace(opt, "extract: " + detail::describe(a) + ": csr rows, " + how);
        t = cpu::extract_csr<Index>(a, ri, rj);
    } else {
        detail::trace(opt, "extract: " + detail::describe(a) + ": dense rows, " + how);
        t = cpu::extract_dense<Index>(a, ri, rj, T(absent));
    }
    if constexpr (plain && std::is_same_v<C, csr_matrix<T, Index>>)
        c = std::move(t);
    else
        cpu::write_back(c, mask, accum, t, opt.replace, T(absent));
}
template <detail::host_matrix C, detail::matrix_operand A>
void extract(C& c, A const& a, index_selection const& rows, index_selection const& cols,
             options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    extract(c, no_mask, no_accum, a, rows, cols, opt, absent);
}

/// w<mask, replace> accum= u(I).
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_vector U>
void extract(W& w, Mask const& mask, Accum accum, U const& u, index_selection const& rows,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    static_assert(std::is_same_v<typename U::value_type, T>,
                  "extract: the input's value type must equal the output's");
    auto const omp_scope = detail::check_host("extract", opt);
    auto const ri = rows.resolve(u.size(), "extract: indices");
    if (w.size() != ri.size)
        throw dimension_mismatch("extract: output w has size " + std::to_string(w.size()) +
                                 " but u(I) has " + std::to_string(ri.size));
    detail::check_mask("extract", mask, w);
    detail::trace(opt, "extract: " + detail::describe(u) + ": vector gather");
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
template <detail::host_vector W, detail::host_vector U>
void extract(W& w, U const& u, index_selection const& rows, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    extract(w, no_mask, no_accum, u, rows, opt, absent);
}

/// w<mask, replace> accum= A(I, j): part of column j (of a transposed view: of row j of A).
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::matrix_operand A>
void extract(W& w, Mask const& mask, Accum accum, A const& a, index_selection const& rows,
             std::size_t col, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "extract: the input's value type must equal the output's");
    auto const omp_scope = detail::check_host("extract", opt);
    auto const ri = rows.resolve(a.rows(), "extract: row indices");
    if (col >= a.cols())
        throw invalid_argument("extract: column " + std::to_string(col) + " is outside A (" +
                               detail::describe_operand(a) + ")");
    if (w.size() != ri.size)
        throw dimension_mismatch("extract: output w has size " + std::to_string(w.size()) +
                                 " but A(I, j) has " + std::to_string(ri.size));
    detail::check_mask("extract", mask, w);
    detail::trace(opt,
                  "extract: a column of " + detail::describe_operand(a) + ": one lookup per index");
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

template <detail::host_vector W, detail::matrix_operand A>
void extract(W& w, A const& a, index_selection const& rows, std::size_t col,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    extract(w, no_mask, no_accum, a, rows, col, opt, absent);
}

namespace detail {
template <class C, class Mask, class Accum, class Src>
void assign_matrix(C& c, Mask const& mask, Accum, Src const& src, std::size_t src_rows,
                   std::size_t src_cols, index_selection const& rows, index_selection const& cols,
                   options const& opt, typename C::value_type absent, std::string const& what) {
    auto const omp_scope = check_host("assign", opt);
    auto const ri = rows.resolve(c.rows(), "assign: row indices");
    auto const rj = cols.resolve(c.cols(), "assign: column indices");
    if (src_rows != ri.size || src_cols != rj.size)
        throw dimension_mismatch("assign: the region C(I, J) is " + shape(ri.size, rj.size) +
                                 " but the source is " + what);
    check_unique(ri, c.rows(), "assign: row indices");
    check_unique(rj, c.cols(), "assign: column indices");
    check_mask("assign", mask, c);
    trace(opt, "assign: " + what + " into " + shape(ri.size, rj.size) + " of " + describe(c) +
                   (std::is_same_v<Mask, no_mask_t> ? "" : ", then C<mask> = the result"));
    auto z = [&] {
        if constexpr (is_csr<C>)
            return cpu::assign_csr<Accum>(c, src, ri, rj);
        else
            return cpu::assign_dense<Accum>(c, src, ri, rj, absent);
    }();
    if constexpr (std::is_same_v<Mask, no_mask_t>)
        c = std::move(z);
    else
        cpu::write_back(c, mask, no_accum, z, opt.replace, absent);
}
}  // namespace detail

/// C<mask, replace>(I, J) accum= A.
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, detail::matrix_operand A>
void assign(C& c, Mask const& mask, Accum accum, A const& a_in, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "assign: the input's value type must equal the output's");
    auto&& a = detail::materialize(a_in, opt, "assign");
    detail::assign_matrix(c, mask, accum, cpu::detail::row_source(a, T(absent)), a.rows(), a.cols(),
                          rows, cols, opt, absent, detail::describe(a));
}
/// C<mask, replace>(I, J) accum= x (every position of the region).
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum>
void assign(C& c, Mask const& mask, Accum accum, std::type_identity_t<typename C::value_type> x,
            index_selection const& rows, index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    std::size_t const nr = rows.resolve(c.rows(), "assign: row indices").size;
    std::size_t const nc = cols.resolve(c.cols(), "assign: column indices").size;
    detail::assign_matrix(c, mask, accum, cpu::scalar_rows<T>{x, nc}, nr, nc, rows, cols, opt,
                          absent, "a scalar");
}
template <detail::host_matrix C, detail::matrix_operand A>
void assign(C& c, A const& a, index_selection const& rows, index_selection const& cols,
            options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    assign(c, no_mask, no_accum, a, rows, cols, opt, absent);
}
template <detail::host_matrix C>
void assign(C& c, std::type_identity_t<typename C::value_type> x, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    assign(c, no_mask, no_accum, x, rows, cols, opt, absent);
}

namespace detail {
template <class W, class Mask, class Accum, class Get>
void assign_vector(W& w, Mask const& mask, Accum, Get const& get, std::size_t src_size,
                   index_selection const& rows, options const& opt, typename W::value_type absent,
                   std::string const& what) {
    using T = typename W::value_type;
    auto const omp_scope = check_host("assign", opt);
    auto const ri = rows.resolve(w.size(), "assign: indices");
    if (src_size != ri.size)
        throw dimension_mismatch("assign: the region w(I) has " + std::to_string(ri.size) +
                                 " entries but the source is " + what);
    check_unique(ri, w.size(), "assign: indices");
    check_mask("assign", mask, w);
    trace(opt,
          "assign: " + what + " into " + std::to_string(ri.size) + " entries of " + describe(w));
    auto z = load_vector(w, absent);
    for (std::size_t k = 0; k < ri.size; ++k) {
        std::size_t const i = ri[k];
        T v;
        if (get(k, v)) {
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
}  // namespace detail

/// w<mask, replace>(I) accum= u.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_vector U>
void assign(W& w, Mask const& mask, Accum accum, U const& u, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    static_assert(std::is_same_v<typename U::value_type, T>,
                  "assign: the input's value type must equal the output's");
    auto const x = detail::load_vector(u, T(absent));
    auto get = [&x](std::size_t k, T& v) {
        v = x.vals[k];
        return x.has[k] != 0;
    };
    detail::assign_vector(w, mask, accum, get, u.size(), rows, opt, absent, detail::describe(u));
}
/// w<mask, replace>(I) accum= x.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum>
void assign(W& w, Mask const& mask, Accum accum, std::type_identity_t<typename W::value_type> x,
            index_selection const& rows, options const& opt = {},
            std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    auto get = [x](std::size_t, T& v) {
        v = x;
        return true;
    };
    std::size_t const n = rows.resolve(w.size(), "assign: indices").size;
    detail::assign_vector(w, mask, accum, get, n, rows, opt, absent, "a scalar");
}
template <detail::host_vector W, detail::host_vector U>
void assign(W& w, U const& u, index_selection const& rows, options const& opt = {},
            std::type_identity_t<typename W::value_type> absent = {}) {
    assign(w, no_mask, no_accum, u, rows, opt, absent);
}
template <detail::host_vector W>
void assign(W& w, std::type_identity_t<typename W::value_type> x, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    assign(w, no_mask, no_accum, x, rows, opt, absent);
}

// ---- on device containers -----------------------------------------------------------------------
// The host's calls and semantics, run by the CUDA backend (cuda/extract_assign.hpp): index
// selections are resolved and checked on the host, then copied to the device.

namespace detail {
template <class C>
void extract_assign_device_checks(char const* name, options const& opt) {
    device_call(name, opt, "on the GPU");
    static_assert(gpu_value<typename C::value_type>,
                  "kleene: operations on device containers are built for float, double, int32 and "
                  "int64 values");
}
}  // namespace detail

/// C<mask, replace> accum= A(I, J) on device matrices (CSR from CSR, dense from dense).
template <detail::device_matrix C, mask_type Mask, accumulator_type Accum,
          detail::device_operand A>
void extract(C& c, Mask const& mask, Accum accum, A const& a_in, index_selection const& rows,
             index_selection const& cols, options const& opt = {},
             std::type_identity_t<typename C::value_type> absent = {}) {
    static_assert(std::is_same_v<typename A::value_type, typename C::value_type>,
                  "extract: the input's value type must equal the output's");
    detail::check_device_output<C, Accum>();
    detail::check_mask("extract", mask, c);
    detail::extract_assign_device_checks<C>("extract", opt);
    auto&& a = detail::materialize_device(a_in, opt, "extract");
    using MA = std::remove_cvref_t<decltype(a)>;
    static_assert((detail::is_device_csr<C> && std::is_same_v<C, MA>) ||
                      (detail::is_device_dense<C> && detail::is_device_dense<MA>),
                  "kleene: extract on the device takes a CSR input into a CSR output (one index "
                  "type) or a dense one into a dense one");
    if constexpr (detail::is_device_csr<C>)
        cuda::extract(c, detail::device_mask<C>(mask, opt.ctx), accum, a, rows, cols, opt);
    else
        cuda::extract(c, detail::device_mask<C>(mask, opt.ctx), accum, a, rows, cols, opt, absent);
}
template <detail::device_matrix C, detail::device_operand A>
void extract(C& c, A const& a, index_selection const& rows, index_selection const& cols,
             options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    extract(c, no_mask, no_accum, a, rows, cols, opt, absent);
}

/// w<mask, replace> accum= u(I) on dense device vectors.
template <detail::device_vector W, mask_type Mask, accumulator_type Accum, detail::device_vector U>
void extract(W& w, Mask const& mask, Accum accum, U const& u, index_selection const& rows,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    static_assert(detail::is_device_dense_vec<W> && std::is_same_v<W, U>,
                  "kleene: extract on device vectors takes dense vectors of one value type");
    detail::check_device_output<W, Accum>();
    detail::check_mask("extract", mask, w);
    detail::extract_assign_device_checks<W>("extract", opt);
    cuda::extract(w, detail::device_mask<W>(mask, opt.ctx), accum, u, rows, opt, absent);
}
template <detail::device_vector W, detail::device_vector U>
void extract(W& w, U const& u, index_selection const& rows, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    extract(w, no_mask, no_accum, u, rows, opt, absent);
}

/// w<mask, replace> accum= A(I, j) (A' (I, j): part of row j) on device containers.
template <detail::device_vector W, mask_type Mask, accumulator_type Accum,
          detail::device_operand A>
void extract(W& w, Mask const& mask, Accum accum, A const& a, index_selection const& rows,
             std::size_t col, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    static_assert(detail::is_device_dense_vec<W>,
                  "kleene: extract of a column on the device writes a dense device vector");
    static_assert(std::is_same_v<typename A::value_type, typename W::value_type>,
                  "extract: the input's value type must equal the output's");
    detail::check_device_output<W, Accum>();
    detail::check_mask("extract", mask, w);
    detail::extract_assign_device_checks<W>("extract", opt);
    cuda::extract(w, detail::device_mask<W>(mask, opt.ctx), accum, a, rows, col, opt, absent);
}
template <detail::device_vector W, detail::device_operand A>
void extract(W& w, A const& a, index_selection const& rows, std::size_t col,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    extract(w, no_mask, no_accum, a, rows, col, opt, absent);
}

/// C<mask, replace>(I, J) accum= A on device matrices (CSR into CSR, dense into dense).
template <detail::device_matrix C, mask_type Mask, accumulator_type Accum,
          detail::device_operand A>
void assign(C& c, Mask const& mask, Accum accum, A const& a_in, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    static_assert(std::is_same_v<typename A::value_type, typename C::value_type>,
                  "assign: the input's value type must equal the output's");
    detail::check_device_output<C, Accum>();
    detail::check_mask("assign", mask, c);
    detail::extract_assign_device_checks<C>("assign", opt);
    auto&& a = detail::materialize_device(a_in, opt, "assign");
    using MA = std::remove_cvref_t<decltype(a)>;
    static_assert((detail::is_device_csr<C> && std::is_same_v<C, MA>) ||
                      (detail::is_device_dense<C> && detail::is_device_dense<MA>),
                  "kleene: assign on the device takes a CSR source into a CSR output (one index "
                  "type) or a dense one into a dense one");
    if constexpr (detail::is_device_csr<C>)
        cuda::assign(c, detail::device_mask<C>(mask, opt.ctx), accum, a, rows, cols, opt);
    else
        cuda::assign(c, detail::device_mask<C>(mask, opt.ctx), accum, a, rows, cols, opt, absent);
}
/// C<mask, replace>(I, J) accum= x on a device matrix.
template <detail::device_matrix C, mask_type Mask, accumulator_type Accum>
void assign(C& c, Mask const& mask, Accum accum, std::type_identity_t<typename C::value_type> x,
            index_selection const& rows, index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    detail::check_device_output<C, Accum>();
    detail::check_mask("assign", mask, c);
    detail::extract_assign_device_checks<C>("assign", opt);
    if constexpr (detail::is_device_csr<C>)
        cuda::assign(c, detail::device_mask<C>(mask, opt.ctx), accum, x, rows, cols, opt);
    else
        cuda::assign(c, detail::device_mask<C>(mask, opt.ctx), accum, x, rows, cols, opt, absent);
}
template <detail::device_matrix C, detail::device_operand A>
void assign(C& c, A const& a, index_selection const& rows, index_selection const& cols,
            options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    assign(c, no_mask, no_accum, a, rows, cols, opt, absent);
}
template <detail::device_matrix C>
void assign(C& c, std::type_identity_t<typename C::value_type> x, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    assign(c, no_mask, no_accum, x, rows, cols, opt, absent);
}

/// w<mask, replace>(I) accum= u on dense device vectors.
template <detail::device_vector W, mask_type Mask, accumulator_type Accum, detail::device_vector U>
void assign(W& w, Mask const& mask, Accum accum, U const& u, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    static_assert(detail::is_device_dense_vec<W> && std::is_same_v<W, U>,
                  "kleene: assign on device vectors takes dense vectors of one value type");
    detail::check_device_output<W, Accum>();
    detail::check_mask("assign", mask, w);
    detail::extract_assign_device_checks<W>("assign", opt);
    cuda::assign(w, detail::device_mask<W>(mask, opt.ctx), accum, u, rows, opt, absent);
}
/// w<mask, replace>(I) accum= x on a dense device vector.
template <detail::device_vector W, mask_type Mask, accumulator_type Accum>
void assign(W& w, Mask const& mask, Accum accum, std::type_identity_t<typename W::value_type> x,
            index_selection const& rows, options const& opt = {},
            std::type_identity_t<typename W::value_type> absent = {}) {
    static_assert(detail::is_device_dense_vec<W>,
                  "kleene: assign on device vectors takes dense vectors");
    detail::check_device_output<W, Accum>();
    detail::check_mask("assign", mask, w);
    detail::extract_assign_device_checks<W>("assign", opt);
    cuda::assign(w, detail::device_mask<W>(mask, opt.ctx), accum, x, rows, opt, absent);
}
template <detail::device_vector W, detail::device_vector U>
void assign(W& w, U const& u, index_selection const& rows, options const& opt = {},
            std::type_identity_t<typename W::value_type> absent = {}) {
    assign(w, no_mask, no_accum, u, rows, opt, absent);
}
template <detail::device_vector W>
void assign(W& w, std::type_identity_t<typename W::value_type> x, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    assign(w, no_mask, no_accum, x, rows, opt, absent);
}

KLEENE_NO_MIXED_SPACES(extract)
KLEENE_NO_MIXED_SPACES(assign)

}  // namespace kleene

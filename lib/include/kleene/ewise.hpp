#pragma once
// Element-wise operations, GraphBLAS style.
//
//   ewise_add(C, mask, accum, op, A, B, options)    C<mask, replace> accum= A (+) B   (union)
//   ewise_mult(C, mask, accum, op, A, B, options)   C<mask, replace> accum= A (x) B (intersection)
//
// and the same on vectors (w, u, v). op is a binary operator, a monoid, or a semiring (ewise_add
// uses its add, ewise_mult its mul), optionally wrapped as with_absent(op, x). Where only one
// operand has an entry, ewise_add copies it; op(a, b) always takes a from A and b from B. Inputs
// may be CSR, dense or transposed views (materialised); dense objects hold the absent value of
// operators.hpp where an entry is absent.

#include <kleene/cpu/elementwise.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/operators.hpp>
#include <kleene/transpose.hpp>
#include <string>
#include <type_traits>

namespace kleene {

namespace detail {
template <class... Containers, class Op>
constexpr void check_value_types(Op const&) {
    using T = typename Op::value_type;
    static_assert((std::is_same_v<typename Containers::value_type, T> && ...),
                  "kleene: the containers' value types must equal the operator's value_type");
}

template <class Op>
std::string op_kind() {
    if constexpr (semiring_type<Op>)
        return "semiring";
    else if constexpr (monoid_type<Op>)
        return "monoid";
    else
        return "binary operator";
}

template <class A, class B, class C>
void check_ewise_shapes(char const* name, C const& c, A const& a, B const& b) {
    if (rows_of(a) != rows_of(b) || cols_of(a) != cols_of(b))
        throw dimension_mismatch(std::string(name) + ": A (" + describe_operand(a) + ") and B (" +
                                 describe_operand(b) + ") differ in shape");
    if (rows_of(c) != rows_of(a) || cols_of(c) != cols_of(a))
        throw dimension_mismatch(std::string(name) + ": output is " + describe(c) +
                                 " but A and B are " + shape(rows_of(a), cols_of(a)));
}

template <bool Union, class C, class Mask, class Accum, class Op, class A, class B>
void ewise_matrix(char const* name, C& c, Mask const& mask, Accum accum, Op const& op_in,
                  A const& a_in, B const& b_in, options const& opt) {
    auto const& op0 = unwrap_absent(op_in);
    using Op0 = std::remove_cvref_t<decltype(op0)>;
    check_value_types<C, A, B>(op0);
    using T = typename C::value_type;
    check_ewise_shapes(name, c, a_in, b_in);
    check_mask(name, mask, c);
    auto const omp_scope = check_host(name, opt);
    T const absent = absent_of(op_in);
    auto const op = [&] {
        if constexpr (Union)
            return add_operator(op0);
        else
            return mul_operator(op0);
    }();
    auto&& a = materialize(a_in, opt, name);
    auto&& b = materialize(b_in, opt, name);
    using MA = std::remove_cvref_t<decltype(a)>;
    using MB = std::remove_cvref_t<decltype(b)>;
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    std::string const what =
        std::string(name) + ": " + describe(a) + ", " + describe(b) + " (" + op_kind<Op0>() + "): ";
    if constexpr (is_dense<MA> && is_dense<MB> && is_dense<C> && plain) {
        trace(opt, what + "dense, element by element into C");
        cpu::ewise_dense<Union>(op, a, b, c, absent);
    } else if constexpr (is_csr<MA> && is_csr<MB>) {
        trace(opt, what + (Union ? "csr row merge (union" : "csr row merge (intersection") +
                       ", count then fill)" + (plain ? "" : ", then mask/accumulate"));
        auto t = cpu::ewise_csr<Union>(op, a, b);
        if constexpr (plain && std::is_same_v<C, decltype(t)>)
            c = std::move(t);
        else
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
    } else {
        trace(opt, what + "row by row through a dense workspace, then mask/accumulate");
        using Index = typename std::conditional_t<is_csr<C>, C, csr_matrix<T>>::index_type;
        auto const t = cpu::ewise_rows<Union, Index>(op, a, b, absent);
        cpu::write_back(c, mask, accum, t, opt.replace, absent);
    }
}

template <bool Union, class W, class Mask, class Accum, class Op, class U, class V>
void ewise_vector(char const* name, W& w, Mask const& mask, Accum accum, Op const& op_in,
                  U const& u, V const& v, options const& opt) {
    auto const& op0 = unwrap_absent(op_in);
    check_value_types<W, U, V>(op0);
    using T = typename W::value_type;
    check_ewise_shapes(name, w, u, v);
    check_mask(name, mask, w);
    auto const omp_scope = check_host(name, opt);
    T const absent = absent_of(op_in);
    trace(opt, std::string(name) + ": " + describe(u) + ", " + describe(v) +
                   ": vectors, element by element");
    auto const t = [&] {
        if constexpr (Union)
            return cpu::ewise_vector<true>(add_operator(op0), load_vector(u, absent),
                                           load_vector(v, absent));
        else
            return cpu::ewise_vector<false>(mul_operator(op0), load_vector(u, absent),
                                            load_vector(v, absent));
    }();
    cpu::write_back(w, mask, accum, t, opt.replace, absent);
}
}  // namespace detail

/// C<mask, replace> accum= A (+) B: the union of the structures, op(a, b) where both exist.
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::matrix_operand A, detail::matrix_operand B>
void ewise_add(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
               options const& opt = {}) {
    detail::ewise_matrix<true>("ewise_add", c, mask, accum, op, a, b, opt);
}
template <detail::host_matrix C, ewise_operator Op, detail::matrix_operand A,
          detail::matrix_operand B>
void ewise_add(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    detail::ewise_matrix<true>("ewise_add", c, no_mask, no_accum, op, a, b, opt);
}

/// C<mask, replace> accum= A (x) B: the intersection of the structures, op(a, b).
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::matrix_operand A, detail::matrix_operand B>
void ewise_mult(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
                options const& opt = {}) {
    detail::ewise_matrix<false>("ewise_mult", c, mask, accum, op, a, b, opt);
}
template <detail::host_matrix C, ewise_operator Op, detail::matrix_operand A,
          detail::matrix_operand B>
void ewise_mult(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    detail::ewise_matrix<false>("ewise_mult", c, no_mask, no_accum, op, a, b, opt);
}

/// w<mask, replace> accum= u (+) v.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::host_vector U, detail::host_vector V>
void ewise_add(W& w, Mask const& mask, Accum accum, Op const& op, U const& u, V const& v,
               options const& opt = {}) {
    detail::ewise_vector<true>("ewise_add", w, mask, accum, op, u, v, opt);
}
template <detail::host_vector W, ewise_operator Op, detail::host_vector U, detail::host_vector V>
void ewise_add(W& w, Op const& op, U const& u, V const& v, options const& opt = {}) {
    detail::ewise_vector<true>("ewise_add", w, no_mask, no_accum, op, u, v, opt);
}

/// w<mask, replace> accum= u (x) v.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::host_vector U, detail::host_vector V>
void ewise_mult(W& w, Mask const& mask, Accum accum, Op const& op, U const& u, V const& v,
                options const& opt = {}) {
    detail::ewise_vector<false>("ewise_mult", w, mask, accum, op, u, v, opt);
}
template <detail::host_vector W, ewise_operator Op, detail::host_vector U, detail::host_vector V>
void ewise_mult(W& w, Op const& op, U const& u, V const& v, options const& opt = {}) {
    detail::ewise_vector<false>("ewise_mult", w, no_mask, no_accum, op, u, v, opt);
}

// ---- on device containers -----------------------------------------------------------------------

namespace detail {
template <bool Union, class C, class Mask, class Accum, class Op, class A, class B>
void ewise_device(char const* name, C& c, Mask const& mask, Accum accum, Op const& op,
                  A const& a_in, B const& b_in, options const& opt) {
    check_value_types<C, A, B>(unwrap_absent(op));
    check_device_output<C, Accum>();
    if (rows_of(a_in) != rows_of(b_in) || cols_of(a_in) != cols_of(b_in))
        throw dimension_mismatch(std::string(name) + ": A (" + describe_device(a_in) +
                                 ") and B (" + describe_device(b_in) + ") differ in shape");
    if (rows_of(c) != rows_of(a_in) || cols_of(c) != cols_of(a_in))
        throw dimension_mismatch(std::string(name) + ": output is " + describe_device(c) +
                                 " but A and B are " + shape(rows_of(a_in), cols_of(a_in)));
    check_mask(name, mask, c);
    device_call(name, opt, "on the GPU");
    using T = typename C::value_type;
    // The backend takes the binary operator: a monoid's or a semiring's own (add for the union,
    // mul for the intersection), the absent value kept.
    auto const bin = backend_binary_op<Union>(op);
    static_assert(gpu_ewise_op<std::remove_cvref_t<decltype(bin)>, T>,
                  "kleene: element-wise operations on the device are built for plus, times, min, "
                  "max, first and second");
    auto const wrapped = with_absent(bin, T(absent_of(op)));
    if constexpr (device_vector<C>) {
        static_assert(is_device_dense_vec<C> && is_device_dense_vec<A> && is_device_dense_vec<B>,
                      "kleene: element-wise operations on device vectors take dense vectors");
        trace(opt, std::string(name) + ": device dense vectors, element by element");
        auto const m = device_mask<C>(mask, opt.ctx);
        if constexpr (Union) cuda::ewise_add(c, m, accum, wrapped, a_in, b_in, opt);
        else cuda::ewise_mult(c, m, accum, wrapped, a_in, b_in, opt);
    } else {
        auto&& a = materialize_device(a_in, opt, name);
        auto&& b = materialize_device(b_in, opt, name);
        using MA = std::remove_cvref_t<decltype(a)>;
        using MB = std::remove_cvref_t<decltype(b)>;
        static_assert((is_device_csr<C> && is_device_csr<MA> && is_device_csr<MB>) ||
                          (is_device_dense<C> && is_device_dense<MA> && is_device_dense<MB>),
                      "kleene: element-wise operations on the device take operands and an output "
                      "that are all CSR (with one index type) or all dense");
        trace(opt, std::string(name) + ": " + describe_device(a) + ", " + describe_device(b) +
                       (is_device_csr<MA> ? ": cuda row merge (count, then fill)"
                                          : ": cuda element by element"));
        auto const m = device_mask<C>(mask, opt.ctx);
        if constexpr (Union) cuda::ewise_add(c, m, accum, wrapped, a, b, opt);
        else cuda::ewise_mult(c, m, accum, wrapped, a, b, opt);
    }
}
template <class X>
concept device_container = device_operand<X> || device_vector<X>;
}  // namespace detail

/// C<mask, replace> accum= A (+) B on device containers (all CSR, all dense, or dense vectors):
/// the same call and semantics as on the host, run by the CUDA backend (cuda/operations.hpp).
template <detail::device_container C, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::device_container A, detail::device_container B>
void ewise_add(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
               options const& opt = {}) {
    detail::ewise_device<true>("ewise_add", c, mask, accum, op, a, b, opt);
}
template <detail::device_container C, ewise_operator Op, detail::device_container A,
          detail::device_container B>
void ewise_add(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    detail::ewise_device<true>("ewise_add", c, no_mask, no_accum, op, a, b, opt);
}
/// C<mask, replace> accum= A (x) B on device containers.
template <detail::device_container C, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::device_container A, detail::device_container B>
void ewise_mult(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
                options const& opt = {}) {
    detail::ewise_device<false>("ewise_mult", c, mask, accum, op, a, b, opt);
}
template <detail::device_container C, ewise_operator Op, detail::device_container A,
          detail::device_container B>
void ewise_mult(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    detail::ewise_device<false>("ewise_mult", c, no_mask, no_accum, op, a, b, opt);
}

KLEENE_NO_MIXED_SPACES(ewise_add)
KLEENE_NO_MIXED_SPACES(ewise_mult)

}  // namespace kleene

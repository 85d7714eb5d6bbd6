#pragma once
// kronecker: the Kronecker product, GraphBLAS style.
//
//   kronecker(C, mask, accum, op, A, B, options)   C<mask, replace> accum= kron(A, B)
//
// C(ia * mb + ib, ja * nb + jb) = op(A(ia, ja), B(ib, jb)) for B of size mb x nb, where both
// entries exist. op is a binary operator, a monoid, or a semiring (its mul), optionally wrapped
// as with_absent(op, x); dense objects hold the absent value of operators.hpp.

#include <kleene/cpu/kronecker.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/mxm.hpp>
#include <kleene/operators.hpp>
#include <kleene/transpose.hpp>
#include <string>
#include <type_traits>

namespace kleene {

/// C<mask, replace> accum= kron(A, B).
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::matrix_operand A, detail::matrix_operand B>
void kronecker(C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in, B const& b_in,
               options const& opt = {}) {
    using T = typename C::value_type;
    auto const op = detail::mul_operator(unwrap_absent(op_in));
    static_assert(
        std::is_same_v<typename A::value_type, T> && std::is_same_v<typename B::value_type, T> &&
            std::is_same_v<typename decltype(op)::value_type, T>,
        "kronecker: the inputs', the output's and the operator's value types must be equal");
    if (c.rows() != a_in.rows() * b_in.rows() || c.cols() != a_in.cols() * b_in.cols())
        throw dimension_mismatch(
            "kronecker: output C is " + detail::describe(c) + " but kron(A, B) of A (" +
            detail::describe_operand(a_in) + ") and B (" + detail::describe_operand(b_in) +
            ") is " + detail::shape(a_in.rows() * b_in.rows(), a_in.cols() * b_in.cols()));
    detail::check_mask("kronecker", mask, c);
    auto const omp_scope = detail::check_host("kronecker", opt);
    T const absent = absent_of(op_in);
    auto&& a = detail::materialize(a_in, opt, "kronecker");
    auto&& b = detail::materialize(b_in, opt, "kronecker");
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    detail::trace(opt, "kronecker: " + detail::describe(a) + " x " + detail::describe(b) +
                           ": row by row (rows of A times rows of B)");
    if constexpr (detail::is_csr<C>) {
        auto t = cpu::kronecker<typename C::index_type>(op, a, b, absent);
        if constexpr (plain)
            c = std::move(t);
        else
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
    } else {
        auto const t = cpu::kronecker<std::int64_t>(op, a, b, absent);
        cpu::write_back(c, mask, accum, t, opt.replace, absent);
    }
}
template <detail::host_matrix C, ewise_operator Op, detail::matrix_operand A,
          detail::matrix_operand B>
void kronecker(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    kronecker(c, no_mask, no_accum, op, a, b, opt);
}

}  // namespace kleene

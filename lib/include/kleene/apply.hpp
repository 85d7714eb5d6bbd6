#pragma once
// apply: a unary operator on every entry, GraphBLAS style.
//
//   apply(C, mask, accum, op, A, options)   C<mask, replace> accum= op(A)
//   apply(w, mask, accum, op, u, options)   w<mask, replace> accum= op(u)
//
// op is a unary operator (identity_op, ainv_op, abs_op, minv_op, lnot_op, one_op, or a user type
// with value_type and apply(T)), or a binary operator with a bound scalar: bind_first(op, x)
// computes op(x, a), bind_second(op, y) computes op(a, y). The structure of the result is the
// structure of the input; an iso CSR input gives an iso result. Dense objects hold the absent
// value of operators.hpp (with_absent(op, x) sets it).

#include <kleene/cpu/elementwise.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/mxm.hpp>
#include <kleene/operators.hpp>
#include <kleene/transpose.hpp>
#include <string>
#include <type_traits>

namespace kleene {

/// What apply accepts: a unary operator, possibly wrapped in with_absent.
template <class Op>
concept apply_operator = unary_op_type<Op> ||(is_absent_as<Op>&& requires(Op const& op) {
    requires unary_op_type<std::remove_cvref_t<decltype(op.op)>>;
});

/// C<mask, replace> accum= op(A).
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, apply_operator Op,
          detail::matrix_operand A>
void apply(C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in,
           options const& opt = {}) {
    using T = typename C::value_type;
    auto const& op = unwrap_absent(op_in);
    static_assert(std::is_same_v<typename A::value_type, T> &&
                      std::is_same_v<typename std::remove_cvref_t<decltype(op)>::value_type, T>,
                  "apply: the input's, the output's and the operator's value types must be equal");
    if (c.rows() != a_in.rows() || c.cols() != a_in.cols())
        throw dimension_mismatch("apply: output C is " + detail::describe(c) + " but A is " +
                                 detail::describe_operand(a_in));
    detail::check_mask("apply", mask, c);
    auto const omp_scope = detail::check_host("apply", opt);
    T const absent = absent_of(op_in);
    auto const f = [&op](T v) { return T(op.apply(v)); };
    auto&& a = detail::materialize(a_in, opt, "apply");
    using MA = std::remove_cvref_t<decltype(a)>;
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    if constexpr (detail::is_csr<MA>) {
        detail::trace(opt,
                      "apply: " + detail::describe(a) + ": csr values mapped, structure shared");
        auto t = cpu::apply_csr(f, a);
        if constexpr (plain && std::is_same_v<C, MA>)
            c = std::move(t);
        else
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
    } else if constexpr (detail::is_dense<C> && plain) {
        detail::trace(opt, "apply: " + detail::describe(a) + ": dense, entry by entry");
        std::size_t const n = a.rows() * a.cols();
        T const* x = a.data();
        T* z = c.data();
#pragma omp parallel for schedule(static) if (n > 65536)
        for (std::size_t k = 0; k < n; ++k) z[k] = x[k] == absent ? absent : f(x[k]);
    } else {
        detail::trace(opt, "apply: " + detail::describe(a) + ": row by row, then mask/accumulate");
        using Index = typename std::conditional_t<detail::is_csr<C>, C, csr_matrix<T>>::index_type;
        auto const t = cpu::map_rows<Index>(
            a, absent, [&](std::size_t, std::size_t, T v, auto out) { out(f(v)); });
        cpu::write_back(c, mask, accum, t, opt.replace, absent);
    }
}
template <detail::host_matrix C, apply_operator Op, detail::matrix_operand A>
void apply(C& c, Op const& op, A const& a, options const& opt = {}) {
    apply(c, no_mask, no_accum, op, a, opt);
}

/// w<mask, replace> accum= op(u).
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, apply_operator Op,
          detail::host_vector U>
void apply(W& w, Mask const& mask, Accum accum, Op const& op_in, U const& u,
           options const& opt = {}) {
    using T = typename W::value_type;
    auto const& op = unwrap_absent(op_in);
    static_assert(std::is_same_v<typename U::value_type, T> &&
                      std::is_same_v<typename std::remove_cvref_t<decltype(op)>::value_type, T>,
                  "apply: the input's, the output's and the operator's value types must be equal");
    if (w.size() != u.size())
        throw dimension_mismatch("apply: output w is " + detail::describe(w) + " but u is " +
                                 detail::describe(u));
    detail::check_mask("apply", mask, w);
    auto const omp_scope = detail::check_host("apply", opt);
    T const absent = absent_of(op_in);
    detail::trace(opt, "apply: " + detail::describe(u) + ": vector, entry by entry");
    auto t = detail::load_vector(u, absent);
    std::size_t const n = t.vals.size();
#pragma omp parallel for schedule(static) if (n > 100000)
    for (std::size_t i = 0; i < n; ++i)
        if (t.has[i]) t.vals[i] = T(op.apply(t.vals[i]));
    cpu::write_back(w, mask, accum, t, opt.replace, absent);
}
template <detail::host_vector W, apply_operator Op, detail::host_vector U>
void apply(W& w, Op const& op, U const& u, options const& opt = {}) {
    apply(w, no_mask, no_accum, op, u, opt);
}

}  // namespace kleene

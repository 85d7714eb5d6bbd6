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
#include <kleene/detail/operation_checks.hpp>
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

// ---- on device containers -----------------------------------------------------------------------

namespace detail {
/// The unary operators the CUDA backend's apply is built for (operations_instances.hpp).
template <class F, class T>
inline constexpr bool gpu_apply_op =
    std::is_same_v<F, identity_op<T>> || std::is_same_v<F, ainv_op<T>> ||
    std::is_same_v<F, abs_op<T>> || std::is_same_v<F, one_op<T>> ||
    std::is_same_v<F, minv_op<T>> || std::is_same_v<F, bound_second<plus_op<T>>> ||
    std::is_same_v<F, bound_second<times_op<T>>> || std::is_same_v<F, bound_second<min_op<T>>> ||
    std::is_same_v<F, bound_second<max_op<T>>>;

template <class C, class Mask, class Accum, class Op, class A>
void apply_device(C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in,
                  options const& opt) {
    using T = typename C::value_type;
    using F = std::remove_cvref_t<decltype(unwrap_absent(op_in))>;
    static_assert(std::is_same_v<typename A::value_type, T> && std::is_same_v<typename F::value_type, T>,
                  "apply: the input's, the output's and the operator's value types must be equal");
    static_assert(gpu_apply_op<F, T>,
                  "kleene: apply on the device is built for identity, ainv, abs, one, minv and "
                  "plus, times, min, max bound to a second operand");
    check_device_output<C, Accum>();
    if (rows_of(c) != rows_of(a_in) || cols_of(c) != cols_of(a_in))
        throw dimension_mismatch("apply: output is " + describe_device(c) + " but the input is " +
                                 describe_device(a_in));
    check_mask("apply", mask, c);
    device_call("apply", opt, "on the GPU");
    if constexpr (device_vector<C>) {
        static_assert(is_device_dense_vec<C> && is_device_dense_vec<A>,
                      "kleene: apply on device vectors takes dense vectors");
        cuda::apply(c, device_mask<C>(mask, opt.ctx), accum, op_in, a_in, opt);
    } else {
        auto&& a = materialize_device(a_in, opt, "apply");
        using MA = std::remove_cvref_t<decltype(a)>;
        static_assert((is_device_csr<C> && is_device_csr<MA>) ||
                          (is_device_dense<C> && is_device_dense<MA>),
                      "kleene: apply on the device takes a CSR input into a CSR output (one index "
                      "type) or a dense one into a dense one");
        trace(opt, "apply: " + describe_device(a) +
                       (is_device_csr<MA> ? ": cuda, values mapped, structure shared"
                                          : ": cuda, entry by entry"));
        cuda::apply(c, device_mask<C>(mask, opt.ctx), accum, op_in, a, opt);
    }
}
}  // namespace detail

/// C<mask, replace> accum= op(A) on device containers (CSR into CSR, dense into dense, dense
/// vectors): the host's call and semantics, run by the CUDA backend.
template <class C, mask_type Mask, accumulator_type Accum, apply_operator Op, class A>
    requires(detail::device_matrix<C> || detail::device_vector<C>) &&
            (detail::device_operand<A> || detail::device_vector<A>)
void apply(C& c, Mask const& mask, Accum accum, Op const& op, A const& a,
           options const& opt = {}) {
    detail::apply_device(c, mask, accum, op, a, opt);
}
template <class C, apply_operator Op, class A>
    requires(detail::device_matrix<C> || detail::device_vector<C>) &&
            (detail::device_operand<A> || detail::device_vector<A>)
void apply(C& c, Op const& op, A const& a, options const& opt = {}) {
    detail::apply_device(c, no_mask, no_accum, op, a, opt);
}

KLEENE_NO_MIXED_SPACES(apply)

}  // namespace kleene

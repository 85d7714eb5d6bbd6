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
#include <kleene/detail/operation_space.hpp>
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

namespace detail {
/// The unary operators the CUDA backend's apply is built for (operations_instances.hpp).
template <class F, class T>
inline constexpr bool gpu_apply_op =
    std::is_same_v<F, identity_op<T>> || std::is_same_v<F, ainv_op<T>> ||
    std::is_same_v<F, abs_op<T>> || std::is_same_v<F, one_op<T>> ||
    std::is_same_v<F, minv_op<T>> || std::is_same_v<F, bound_second<plus_op<T>>> ||
    std::is_same_v<F, bound_second<times_op<T>>> || std::is_same_v<F, bound_second<min_op<T>>> ||
    std::is_same_v<F, bound_second<max_op<T>>>;

/// What apply takes: an output and an input of one space, matrices (the input possibly a
/// transpose view) or vectors.
template <class C, class A>
concept apply_operands =
    (host_matrix<C> && matrix_operand<A>) || (host_vector<C> && host_vector<A>) ||
    ((device_matrix<C> || device_vector<C>) && (device_operand<A> || device_vector<A>));
}  // namespace detail

/// C<mask, replace> accum= op(A), and w<mask, replace> accum= op(u): host or device containers
/// (one space a call), one body: the checks, the trace, and the choice by space and storage.
/// Host: a CSR input's values mapped with its structure shared (an iso input stays iso), a dense
/// one entry by entry, otherwise row by row, then the mask and accumulator (cpu::write_back).
/// Device (the CUDA backend, cuda::apply: CSR into CSR of one index type, dense into dense, dense
/// vectors; the operators gpu_apply_op lists): the same semantics on the context's stream.
template <class C, mask_type Mask, accumulator_type Accum, apply_operator Op, class A>
    requires detail::apply_operands<C, A>
void apply(C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in,
           options const& opt = {}) {
    using T = typename C::value_type;
    auto const& op = unwrap_absent(op_in);
    using F = std::remove_cvref_t<decltype(op)>;
    static_assert(std::is_same_v<typename A::value_type, T> && std::is_same_v<typename F::value_type, T>,
                  "apply: the input's, the output's and the operator's value types must be equal");
    constexpr bool on_device = detail::in_space<C, device>;
    if constexpr (on_device) {
        static_assert(detail::gpu_apply_op<F, T>,
                      "kleene: apply on the device is built for identity, ainv, abs, one, minv and "
                      "plus, times, min, max bound to a second operand");
        detail::check_device_output<C, Accum>();
    }
    if (detail::rows_of(c) != detail::rows_of(a_in) || detail::cols_of(c) != detail::cols_of(a_in))
        throw dimension_mismatch("apply: output is " + detail::describe(c) +
                                 " but the input is " + detail::describe(a_in));
    detail::check_mask("apply", mask, c);
    [[maybe_unused]] auto const scope = detail::enter_space<C>("apply", opt, "on the GPU");
    T const absent = absent_of(op_in);
    auto&& a = detail::materialize_any(a_in, opt, "apply");
    using MA = std::remove_cvref_t<decltype(a)>;
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    auto const f = [&op](T v) { return T(op.apply(v)); };
    if constexpr (on_device) {
        static_assert((detail::is_dense_vec<C> && detail::is_dense_vec<MA>) ||
                          (detail::is_csr<C> && detail::is_csr<MA>) ||
                          (detail::is_dense<C> && detail::is_dense<MA>),
                      "kleene: apply on the device takes a CSR input into a CSR output (one index "
                      "type), a dense one into a dense one, or dense vectors");
        detail::trace(opt, "apply: " + detail::describe(a) +
                               (detail::is_csr<MA> ? ": cuda, values mapped, structure shared"
                                                          : ": cuda, entry by entry"));
        cuda::apply(c, detail::device_mask<C>(mask, opt.ctx), accum, op_in, a, opt);
    } else if constexpr (detail::host_vector<C>) {
        detail::trace(opt, "apply: " + detail::describe(a) + ": vector, entry by entry");
        auto t = detail::load_vector(a, absent);
        std::size_t const n = t.vals.size();
#pragma omp parallel for schedule(static) if (n > 100000)
        for (std::size_t i = 0; i < n; ++i)
            if (t.has[i]) t.vals[i] = f(t.vals[i]);
        cpu::write_back(c, mask, accum, t, opt.replace, absent);
    } else if constexpr (detail::is_csr<MA>) {
        detail::trace(opt,
                      "apply: " + detail::describe(a) + ": csr values mapped, structure shared");
        auto t = cpu::apply_csr(f, a);
        detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "apply");
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
template <class C, apply_operator Op, class A>
    requires detail::apply_operands<C, A>
void apply(C& c, Op const& op, A const& a, options const& opt = {}) {
    apply(c, no_mask, no_accum, op, a, opt);
}

KLEENE_NO_MIXED_SPACES(apply)

}  // namespace kleene

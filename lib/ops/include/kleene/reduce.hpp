#pragma once
// reduce: fold entries with a monoid, GraphBLAS style.
//
//   reduce(w, mask, accum, monoid, A, options)   w<mask, replace> accum= (+) of each row of A
//   reduce(w, mask, accum, monoid, transpose(A)) ... of each column of A (not materialised)
//   reduce(monoid, A or u, options) -> T         (+) of every entry (the identity when none)
//   reduce(s, accum, monoid, A or u, options)    s accum= (+) of every entry
//
// monoid is a monoid (plus_monoid<T>, min_monoid, ..., or a user type meeting monoid_type) or a
// semiring (its add), optionally wrapped as with_absent(monoid, x). A row without entries gives
// no entry of w. Dense objects hold the absent value of operators.hpp (the monoid's identity).

#include <kleene/cpu/reduce.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/operation_space.hpp>
#include <kleene/operators.hpp>
#include <kleene/transpose.hpp>
#include <string>
#include <type_traits>

namespace kleene {

namespace detail {
/// A semiring's add as a monoid, with the semiring's terminal value.
template <semiring_type S>
struct add_monoid_of {
    using value_type = typename S::value_type;
    static constexpr bool idempotent = S::idempotent_add;
    static constexpr bool has_terminal = S::has_terminal;
    static constexpr bool any_terminal = requires { S::any_terminal; }
    &&S::any_terminal;
    static constexpr value_type identity() { return S::zero(); }
    static constexpr value_type terminal() { return S::terminal(); }
    static constexpr value_type apply(value_type a, value_type b) { return S::add(a, b); }
};

template <class Op>
constexpr auto as_monoid(Op const& op) {
    if constexpr (semiring_type<Op>)
        return add_monoid_of<Op>{};
    else
        return op;
}
}  // namespace detail

/// What reduce accepts: a monoid or a semiring, possibly wrapped in with_absent.
template <class Op>
concept reduce_operator = monoid_type<Op> || semiring_type<Op> ||
    (is_absent_as<Op>&& requires(Op const& op) {
        requires monoid_type<std::remove_cvref_t<decltype(op.op)>> ||
            semiring_type<std::remove_cvref_t<decltype(op.op)>>;
    });

namespace detail {
/// What reduce to a vector takes: an output vector and a matrix operand of one space.
template <class W, class A>
concept reduce_operands = (host_vector<W> && matrix_operand<A>) ||
                          (device_vector<W> && device_operand<A>);
/// What reduce to a scalar takes: a matrix operand or a vector (dense on the device), either space.
template <class A>
concept reduce_input = matrix_operand<A> || host_vector<A> || device_operand<A> ||
                       (is_dense_vec<A> && in_space<A, device>);
}  // namespace detail

/// w<mask, replace> accum= the (+) of each row of A (of each column for transpose(A)): host or
/// device containers (one space a call), one body. Host: one fold per row (CSR: early exit on the
/// monoid's terminal value), per-thread column folds for a transposed view (not materialised),
/// then the mask and accumulator. Device (the CUDA backend, into a dense device vector; monoids
/// plus, times, min and max, or a semiring whose add is one of them): a warp per row; columns
/// through A' for CSR, per-column partials for dense; no atomics, so float sums repeat run to run.
template <class W, mask_type Mask, accumulator_type Accum, reduce_operator Op, class A>
    requires detail::reduce_operands<W, A>
void reduce(W& w, Mask const& mask, Accum accum, Op const& op, A const& a,
            options const& opt = {}) {
    using T = typename W::value_type;
    auto const mon = detail::as_monoid(unwrap_absent(op));
    static_assert(std::is_same_v<typename A::value_type, T> &&
                      std::is_same_v<typename decltype(mon)::value_type, T>,
                  "reduce: the input's, the output's and the monoid's value types must be equal");
    constexpr bool on_device = detail::in_space<W, device>;
    if constexpr (on_device) {
        static_assert(detail::is_dense_vec<W>,
                      "kleene: reduce on the device writes a dense device vector");
        detail::check_device_output<W, Accum>();
    }
    if (w.size() != a.rows())
        throw dimension_mismatch("reduce: output w has size " + std::to_string(w.size()) +
                                 " but A (" + detail::describe(a) + ") has " +
                                 std::to_string(a.rows()) + " rows");
    detail::check_mask("reduce", mask, w);
    [[maybe_unused]] auto const scope = detail::enter_space<W>(
        "reduce", opt,
        std::string(is_transposed<A> ? "columns" : "rows") + " of " + detail::describe(a) +
            " on the GPU");
    if constexpr (on_device) {
        cuda::reduce(w, detail::device_mask<W>(mask, opt.ctx), accum, op, a, opt);
    } else {
        T const absent = absent_of(op);
        cpu::vector_result<T> t;
        if constexpr (is_transposed<A>) {
            detail::trace(opt, "reduce: columns of " + detail::describe(*a.m) +
                                   " (transposed view, not materialised): per-thread column folds");
            t = cpu::reduce_cols(mon, *a.m, absent);
        } else if constexpr (detail::is_csr<A>) {
            detail::trace(opt, "reduce: rows of " + detail::describe(a) + ": one fold per row" +
                                   std::string(decltype(mon)::has_terminal
                                                   ? ", early exit on the terminal value"
                                                   : ""));
            t = cpu::reduce_rows(mon, a);
        } else {
            detail::trace(opt, "reduce: rows of " + detail::describe(a) + ": one fold per row");
            t = cpu::reduce_rows(mon, a, absent);
        }
        if constexpr (std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t> &&
                      detail::is_dense_vec<W>) {
            std::size_t const n = t.vals.size();
#pragma omp parallel for simd schedule(static) if (n > 100000)
            for (std::size_t i = 0; i < n; ++i) w.data()[i] = t.has[i] ? t.vals[i] : absent;
        } else {
            cpu::write_back(w, mask, accum, t, opt.replace, absent);
        }
    }
}
template <class W, reduce_operator Op, class A>
    requires detail::reduce_operands<W, A>
void reduce(W& w, Op const& op, A const& a, options const& opt = {}) {
    reduce(w, no_mask, no_accum, op, a, opt);
}

/// The (+) of every entry of a matrix or vector (the monoid's identity when there is none): host
/// or device containers, one body. Device: a matrix (or its transpose) or a dense vector, by the
/// CUDA backend, the value read back on the context's stream.
template <reduce_operator Op, class A>
    requires detail::reduce_input<A>
typename Op::value_type reduce(Op const& op, A const& a, options const& opt = {}) {
    using T = typename Op::value_type;
    auto const mon = detail::as_monoid(unwrap_absent(op));
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "reduce: the input's and the monoid's value types must be equal");
    [[maybe_unused]] auto const scope = detail::enter_space<A>(
        "reduce", opt, "every entry of " + detail::describe(a) + " to a scalar on the GPU");
    if constexpr (detail::in_space<A, device>) {
        return cuda::reduce(op, a, opt);
    } else {
        T const absent = absent_of(op);
        if constexpr (is_transposed<A>) {
            return reduce(op, *a.m, opt);
        } else if constexpr (detail::is_csr<A> || detail::is_sparse_vec<A>) {
            detail::trace(opt, "reduce: every entry of " + detail::describe(a) + " to a scalar");
            T const* v = a.values();
            if constexpr (detail::is_csr<A>)
                if (!a.has_values()) {
                    T const iso = a.iso_value();
                    return cpu::reduce_values<decltype(mon), T>(
                        mon, a.nnz(), [iso](std::size_t) { return iso; });
                }
            return cpu::reduce_values<decltype(mon), T>(mon, a.nnz(),
                                                        [v](std::size_t k) { return v[k]; });
        } else {
            detail::trace(opt, "reduce: every entry of " + detail::describe(a) +
                                   " to a scalar (absent values skipped)");
            T const* v = a.data();
            T const id = mon.identity();
            return cpu::reduce_values<decltype(mon), T>(
                mon, detail::rows_of(a) * detail::cols_of(a),
                [v, absent, id](std::size_t k) { return v[k] == absent ? id : v[k]; });
        }
    }
}

/// s accum= the (+) of every entry (s = that value without an accumulator).
template <accumulator_type Accum, reduce_operator Op, class A>
    requires detail::reduce_input<A>
void reduce(typename Op::value_type& s, Accum, Op const& op, A const& a, options const& opt = {}) {
    auto const r = reduce(op, a, opt);
    if constexpr (std::is_same_v<Accum, no_accum_t>)
        s = r;
    else
        s = Accum::apply(s, r);
}

KLEENE_NO_MIXED_SPACES(reduce)

}  // namespace kleene

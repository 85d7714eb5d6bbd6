#pragma once
// select: keep the entries an index-unary predicate accepts, GraphBLAS style.
//
//   select(C, mask, accum, pred, A, options, absent)   C<mask, replace> accum= A(pred)
//   select(w, mask, accum, pred, u, options, absent)   w<mask, replace> accum= u(pred)
//
// pred(v, i, j) -> bool sees each entry's value and position (j == 0 for vectors). Built-ins:
// tril{k} (j <= i + k), triu{k} (j >= i + k), diag{k} (j == i + k), offdiag{k}, row_le{k},
// row_gt{k}, col_le{k}, col_gt{k}, and value comparisons value_eq{x}, value_ne, value_lt,
// value_le, value_gt, value_ge. Any callable of (value, row, column), a lambda included, is a
// user predicate. `absent` stands for "no entry" in dense objects (see operators.hpp).

#include <concepts>
#include <cstdint>
#include <kleene/cpu/elementwise.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/operation_space.hpp>
#include <kleene/transpose.hpp>
#include <string>
#include <type_traits>

namespace kleene {

namespace detail {
inline std::int64_t sidx(std::size_t i) {
    return static_cast<std::int64_t>(i);
}
}  // namespace detail

struct tril {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t i, std::size_t j) const {
        return detail::sidx(j) <= detail::sidx(i) + k;
    }
};
struct triu {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t i, std::size_t j) const {
        return detail::sidx(j) >= detail::sidx(i) + k;
    }
};
struct diag {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t i, std::size_t j) const {
        return detail::sidx(j) == detail::sidx(i) + k;
    }
};
struct offdiag {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t i, std::size_t j) const {
        return detail::sidx(j) != detail::sidx(i) + k;
    }
};
struct row_le {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t i, std::size_t) const {
        return detail::sidx(i) <= k;
    }
};
struct row_gt {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t i, std::size_t) const {
        return detail::sidx(i) > k;
    }
};
struct col_le {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t, std::size_t j) const {
        return detail::sidx(j) <= k;
    }
};
struct col_gt {
    std::int64_t k = 0;
    template <class T>
    constexpr bool operator()(T const&, std::size_t, std::size_t j) const {
        return detail::sidx(j) > k;
    }
};

#define KLEENE_VALUE_PREDICATE(name, expr)                                              \
    template <class T>                                                                  \
    struct name {                                                                       \
        T x;                                                                            \
        constexpr bool operator()(T v, std::size_t, std::size_t) const { return expr; } \
    };                                                                                  \
    template <class T>                                                                  \
    name(T) -> name<T>;
KLEENE_VALUE_PREDICATE(value_eq, v == x)
KLEENE_VALUE_PREDICATE(value_ne, v != x)
KLEENE_VALUE_PREDICATE(value_lt, v < x)
KLEENE_VALUE_PREDICATE(value_le, v <= x)
KLEENE_VALUE_PREDICATE(value_gt, v > x)
KLEENE_VALUE_PREDICATE(value_ge, v >= x)
#undef KLEENE_VALUE_PREDICATE

template <class P, class T>
concept index_unary_predicate = requires(P const& p, T v, std::size_t i) {
    { p(v, i, i) } -> std::convertible_to<bool>;
};

namespace detail {
/// What select takes: an output and an input of one space: host matrices (the input possibly a
/// transpose view) or vectors, device CSR matrices (the input possibly a transpose view).
template <class C, class A>
concept select_operands = (host_matrix<C> && matrix_operand<A>) ||
                          (host_vector<C> && host_vector<A>) ||
                          (device_matrix<C> && device_operand<A>);
}  // namespace detail

/// C<mask, replace> accum= the entries (i, j, v) of A with pred(v, i, j), and w<mask, replace>
/// accum= the entries (i, v) of u with pred(v, i, 0): host or device containers (one space a
/// call), one body: the checks, the trace, and the choice by space and storage. Host: a CSR input
/// filtered (count then fill), a dense one entry by entry, otherwise row by row, then the mask and
/// accumulator (cpu::write_back). Device (the CUDA backend, cuda::select: CSR into CSR, the
/// built-in predicates tril, triu, diag, offdiag, value_eq ... value_ge): the same semantics on the
/// context's stream. `absent` stands for "no entry" in dense objects (a CSR output has none).
template <class C, mask_type Mask, accumulator_type Accum, class Pred, class A>
    requires detail::select_operands<C, A> && index_unary_predicate<Pred, typename C::value_type>
void select(C& c, Mask const& mask, Accum accum, Pred const& pred, A const& a_in,
            options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "select: the input's value type must equal the output's");
    constexpr bool on_device = detail::in_space<C, device>;
    if constexpr (on_device) detail::check_device_output<C, Accum>();
    if (detail::rows_of(c) != detail::rows_of(a_in) || detail::cols_of(c) != detail::cols_of(a_in))
        throw dimension_mismatch("select: output is " + detail::describe(c) +
                                 " but the input is " + detail::describe(a_in));
    detail::check_mask("select", mask, c);
    [[maybe_unused]] auto const scope = detail::enter_space<C>("select", opt, "on the GPU");
    auto const keep = [&pred](T v, std::size_t i, std::size_t j) { return bool(pred(v, i, j)); };
    auto&& a = detail::materialize_any(a_in, opt, "select");
    using MA = std::remove_cvref_t<decltype(a)>;
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    if constexpr (on_device) {
        static_assert(detail::is_csr<C> && detail::is_csr<MA>,
                      "kleene: select on the device takes a CSR input into a CSR output");
        detail::trace(opt, "select: " + detail::describe(a) + ": cuda filter (count then fill)");
        cuda::select(c, detail::device_mask<C>(mask, opt.ctx), accum, pred, a, opt);
    } else if constexpr (detail::host_vector<C>) {
        detail::trace(opt, "select: " + detail::describe(a) + ": vector, entry by entry");
        auto t = detail::load_vector(a, T(absent));
        std::size_t const n = t.vals.size();
#pragma omp parallel for schedule(static) if (n > 100000)
        for (std::size_t i = 0; i < n; ++i)
            if (t.has[i] && !keep(t.vals[i], i, std::size_t(0))) t.has[i] = 0;
        cpu::write_back(c, mask, accum, t, opt.replace, T(absent));
    } else if constexpr (detail::is_csr<MA>) {
        detail::trace(opt, "select: " + detail::describe(a) + ": csr filter (count then fill)");
        auto t = cpu::select_csr(keep, a);
        detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "select");
    } else if constexpr (detail::is_dense<C> && plain) {
        detail::trace(opt, "select: " + detail::describe(a) + ": dense, entry by entry");
        std::size_t const cols = a.cols();
#pragma omp parallel for schedule(static) if (a.rows() * cols > 65536)
        for (std::size_t i = 0; i < a.rows(); ++i)
            for (std::size_t j = 0; j < cols; ++j) {
                T const v = a.data()[i * cols + j];
                c.data()[i * cols + j] = (v == absent || !keep(v, i, j)) ? absent : v;
            }
    } else {
        detail::trace(opt, "select: " + detail::describe(a) + ": row by row, then mask/accumulate");
        using Index = typename std::conditional_t<detail::is_csr<C>, C, csr_matrix<T>>::index_type;
        auto const t =
            cpu::map_rows<Index>(a, absent, [&](std::size_t i, std::size_t j, T v, auto out) {
                if (keep(v, i, j)) out(v);
            });
        cpu::write_back(c, mask, accum, t, opt.replace, absent);
    }
}
template <class C, class Pred, class A>
    requires detail::select_operands<C, A> && index_unary_predicate<Pred, typename C::value_type>
void select(C& c, Pred const& pred, A const& a, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    select(c, no_mask, no_accum, pred, a, opt, absent);
}

KLEENE_NO_MIXED_SPACES(select)

}  // namespace kleene

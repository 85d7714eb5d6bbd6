#pragma once
// The closure of a dense square matrix over a semiring, in place: A+ = A (+) A^2 (+) A^3 (+) ...
// (entry (i, j): the sum, over every path of one edge or more from i to j, of the product of its
// entries), or A* = I (+) A+ with `reflexive` (the diagonal then holds one). Any semiring object
// (semiring.hpp's built-ins, kleene::runtime_semiring, a user's type) on the CPU; any
// jit::semiring_source (built-in, composed or given as source text) on the GPU, compiled by the
// JIT (jit::closure), so a user's semiring needs no nvcc.
//
// Method: R-Kleene's recursion (rkleene.hpp), whose base case is Floyd-Warshall's recurrence
// a_ij (+)= a_ik (x) a_kj (k in order) on diagonal blocks of at most `base`, and whose products
// are the dense GEMM: cpu::dense_gemm for a semiring type (static operations), a row-parallel
// loop for a semiring object (runtime_semiring), jit::dense_gemm on the GPU.
//
// When the result is exact. The recurrence leaves out the pivot's star (a_ik (x) a_kk* (x) a_kj);
// that is exact when
//   - the add is idempotent (x (+) x == x: both methods reach some paths more than once), and
//   - every cycle weight w that occurs is absorbed by one: add(one, w) == one (then a_kk* == one,
//     going around a cycle never improves a path, and A+ is the sum over the simple paths).
// min_plus without negative cycles, max_plus without positive ones, max_min, min_max, lor_land,
// max_times over weights in [0, 1] (nonnegative weights whose cycles weigh at most 1) qualify.
// Both are checked: an add that is not idempotent (plus, times) is refused, and so is a multiply
// without an identity (first, second, pair: `one` would mean nothing), with invalid_argument;
// after the closure, a diagonal entry d with add(one, d) != one is a cycle that improves on one
// (min_plus: a negative cycle; max_times: one heavier than 1) and raises kleene::negative_cycle
// naming its vertex, the smallest such. The check is complete: an idempotent add orders the
// values (x <= y when x (+) y == y), every entry only grows in that order as walks are added to
// its sum, and a simple cycle through a vertex is always added to some diagonal entry, so a cycle
// that one does not absorb leaves an entry that one does not absorb either. Integer sums follow
// the semiring's own operators (min_plus saturates at its infinities; plus wraps).
//
// Absent entries hold the semiring's zero, and multiply as absent (mul(zero, x) == zero, as the
// dense GEMM's dense_safe has it) whether or not the semiring's zero annihilates. Infinite
// entries are values (min_plus's zero is +inf). NaN, as apsp refuses NaN weights: an entry that
// is NaN raises invalid_argument naming it, and so does a NaN the operations make (inf - inf,
// 0 * inf) in the result. On an error the matrix holds unspecified values.

#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/algorithms/path_weights.hpp>
#include <kleene/context.hpp>
#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/rkleene_recursion.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>
#include <kleene/runtime_semiring.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kleene {

/// CPU base-case size: Floyd-Warshall on diagonal blocks up to this size (not tuned).
inline constexpr std::size_t semiring_closure_cpu_base = 128;

struct semiring_closure_options {
    /// A* = I (+) A+ (the diagonal set to one) instead of A+.
    bool reflexive = false;
    /// Base-case size, 0: the default (CPU semiring_closure_cpu_base; GPU the largest block the
    /// JIT's base kernel closes, jit::closure_block_side). Small values exercise the recursion.
    std::size_t base = 0;
    /// GPU: the stream, the JIT cache and the GEMM's tuning (null: default_context()).
    context* ctx = nullptr;
    explain_trace* explain = nullptr;
    /// CPU: called before each base case and product (options.hpp); it may throw.
    step_hook on_step{};
};

namespace detail {

template <class S>
bool closure_add_idempotent(S const& s) {
    if constexpr (requires { s.traits().idempotent_add; }) return s.traits().idempotent_add;
    else return S::idempotent_add;
}

template <class S>
bool closure_mul_has_identity(S const& s) {
    if constexpr (requires { s.mul_operator(); }) {
        mul_kind const m = s.mul_operator();
        return m != mul_kind::first && m != mul_kind::second && m != mul_kind::pair;
    } else if constexpr (requires { S::mul_op::has_identity; }) {
        return S::mul_op::has_identity;
    } else {
        return true;
    }
}

template <class S>
bool closure_zero_annihilates(S const& s) {
    if constexpr (requires { s.traits().zero_annihilates; }) return s.traits().zero_annihilates;
    else return zero_annihilates<S>();
}

/// A semiring object's name for messages: a run-time composition's operators, else "the semiring".
template <class S>
std::string closure_name(S const& s) {
    if constexpr (requires { s.add_operator(); s.mul_operator(); })
        return std::string(add_kind_names[static_cast<std::size_t>(s.add_operator())]) + "." +
               std::string(mul_kind_names[static_cast<std::size_t>(s.mul_operator())]);
    else return "the semiring";
}

/// Whether the multiply adds (min.plus, max.plus): path weights are then sums, which can leave T.
template <class S>
bool closure_mul_is_plus(S const& s) {
    using T = typename S::value_type;
    if constexpr (requires { s.mul_operator(); }) {
        return s.mul_operator() == mul_kind::plus;
    } else if constexpr (requires { typename S::mul_op; }) {
        using M = typename S::mul_op;
        return std::is_same_v<M, plus_op<T>> || std::is_same_v<M, plus_sat_op<T>> ||
               std::is_same_v<M, plus_sat_op<T, true>>;
    } else {
        return false;
    }
}

/// With a multiply that adds, a path's sum past T's range would come out as the semiring's zero
/// (integers saturate at infinity, floating point rounds to it): a reachable pair would read as
/// unreachable. Refused before the work by apsp's bound (path_weights.hpp: the sum over vertices
/// of the heaviest entry leaving each, entries equal to `zero` being absent).
template <class T>
void closure_refuse_overflow(dense_view<T const> a, T zero, bool mul_is_plus) {
    if (!mul_is_plus) return;
    path_weight_bound b;
    for (std::size_t i = 0; i < a.rows; ++i) {
        long double top = 0;
        for (std::size_t j = 0; j < a.cols; ++j) {
            T const w = a(i, j);
            if (w == zero) continue;
            if constexpr (std::is_floating_point_v<T>)
                if (!std::isfinite(w)) continue;
            b.negative = b.negative || w < T(0);
            top = std::max(top, std::fabs(static_cast<long double>(w)));
        }
        b.bound += top;
    }
    if (!distances_fit<T>(b))
        throw overflow_error("semiring_closure: " + distance_range_note<T>(b) +
                             ", where a path's sum would read as no path" +
                             (std::is_integral_v<T> ? "; use float64 (exact to 2^53)" : ""));
}

inline void closure_refuse(bool idempotent, bool has_identity, std::string const& name) {
    if (!idempotent)
        throw invalid_argument(
            "semiring_closure: the add of " + name +
            " is not idempotent (x (+) x != x, as plus and times): the closure sums paths that "
            "R-Kleene and Floyd-Warshall reach more than once, so it runs over idempotent adds "
            "only (min, max, lor, land, any)");
    if (!has_identity)
        throw invalid_argument("semiring_closure: the multiply of " + name +
                               " has no identity (first, second, pair), which the closure's "
                               "one (the empty path, and its cycle test) needs");
}

/// invalid_argument naming the first NaN entry of a (row-major), if any; `made`: after the
/// closure (a NaN of the operations), else in the input.
template <class T>
void closure_refuse_nan(dense_view<T const> a, bool made) {
    if constexpr (std::is_floating_point_v<T>) {
        for (std::size_t i = 0; i < a.rows; ++i)
            for (std::size_t j = 0; j < a.cols; ++j)
                if (std::isnan(a(i, j))) throw invalid_argument(closure_nan_message(i, j, made));
    }
}

/// The closure's operations: the semiring's add, and its multiply with zero as absent.
template <class S>
struct closure_ops {
    using T = typename S::value_type;
    S const& s;
    T zero;
    bool annihilates;
    T add(T a, T b) const { return s.add(a, b); }
    T mul(T a, T b) const {
        return (!annihilates && (a == zero || b == zero)) ? zero : s.mul(a, b);
    }
};

/// Floyd-Warshall's recurrence in place on a: row k first, then the other rows in parallel (as
/// floyd_warshall does). A zero a_ik is skipped: it contributes nothing.
template <class S>
void closure_fw(closure_ops<S> const& o, dense_view<typename S::value_type> a) {
    using T = typename S::value_type;
    std::size_t const n = a.rows;
    for (std::size_t k = 0; k < n; ++k) {
        T* rk = a.row(k);
        T const akk = rk[k];
        if (!(akk == o.zero))
            for (std::size_t j = 0; j < n; ++j) rk[j] = o.add(rk[j], o.mul(akk, rk[j]));
#pragma omp parallel for schedule(static) if (n >= 128)
        for (std::size_t i = 0; i < n; ++i) {
            if (i == k) continue;
            T* ri = a.row(i);
            T const aik = ri[k];
            if (aik == o.zero) continue;
            for (std::size_t j = 0; j < n; ++j) ri[j] = o.add(ri[j], o.mul(aik, rk[j]));
        }
    }
}

/// c = [c (+)] x (x) y for a semiring object (no static operations for cpu::dense_gemm): rows of
/// c in parallel, i-k-j order, zero entries of x skipped.
template <class S>
void closure_gemm(closure_ops<S> const& o, dense_view<typename S::value_type const> x,
                  dense_view<typename S::value_type const> y, dense_view<typename S::value_type> c,
                  bool accumulate) {
    using T = typename S::value_type;
#pragma omp parallel for schedule(dynamic, 4) if (c.rows * c.cols * x.cols >= (1u << 20))
    for (std::size_t i = 0; i < c.rows; ++i) {
        T* ci = c.row(i);
        if (!accumulate)
            for (std::size_t j = 0; j < c.cols; ++j) ci[j] = o.zero;
        for (std::size_t k = 0; k < x.cols; ++k) {
            T const xik = x(i, k);
            if (xik == o.zero) continue;
            T const* yk = y.row(k);
            for (std::size_t j = 0; j < c.cols; ++j) ci[j] = o.add(ci[j], o.mul(xik, yk[j]));
        }
    }
}

template <class S>
struct semiring_closure_cpu_backend {
    using T = typename S::value_type;
    closure_ops<S> ops;
    std::size_t base_size;
    dense_matrix<T> ws;
    step_hook const* on_step = nullptr;
    static std::size_t split(std::size_t n) { return n / 2; }
    void base(dense_view<T> a) const {
        if (on_step) detail::step(*on_step);
        closure_fw(ops, a);
    }
    void gemm(dense_view<T const> x, dense_view<T const> y, dense_view<T> c, bool acc) const {
        if constexpr (semiring_type<S>) cpu::dense_gemm<dense_safe<S>>(x, y, c, acc);
        else closure_gemm(ops, x, y, c, acc);
    }
    void mul_add(dense_view<T> c, dense_view<T> x, dense_view<T> y, bool disjoint) {
        if (on_step) detail::step(*on_step);
        if (disjoint) {
            gemm(x, y, c, true);
            return;
        }
        dense_view<T> const t{ws.data(), c.rows, c.cols, ws.ld()};
        gemm(x, y, t, false);
#pragma omp parallel for schedule(static) if (c.rows * c.cols >= (1u << 16))
        for (std::size_t i = 0; i < c.rows; ++i)
            for (std::size_t j = 0; j < c.cols; ++j) c(i, j) = ops.add(c(i, j), t(i, j));
    }
};

}  // namespace detail

/// The closure A+ (A* with opt.reflexive) of the square host matrix a in place, over the
/// semiring object s (see the file comment for the semirings it takes and the errors it raises:
/// dimension_mismatch, invalid_argument, negative_cycle).
template <class T, semiring_object S>
    requires std::same_as<T, typename S::value_type>
void semiring_closure(dense_view<T> a, S const& s, semiring_closure_options const& opt = {}) {
    detail::require_square("semiring_closure", a.rows, a.cols);
    detail::closure_refuse(detail::closure_add_idempotent(s), detail::closure_mul_has_identity(s),
                           detail::closure_name(s));
    detail::closure_refuse_nan<T>(a, false);
    detail::closure_refuse_overflow<T>(a, s.zero(), detail::closure_mul_is_plus(s));
    std::size_t const n = a.rows;
    if (n == 0) return;
    std::size_t const base = opt.base ? opt.base : semiring_closure_cpu_base;
    using backend = detail::semiring_closure_cpu_backend<S>;
    std::size_t const w = detail::rkleene_workspace_side<backend>(n, base);
    backend be{{s, s.zero(), detail::closure_zero_annihilates(s)},
               base,
               dense_matrix<T>(w, w),
               &opt.on_step};
    if (opt.explain)
        opt.explain->add("semiring_closure: " + detail::shape(n, n) + " over " +
                         detail::closure_name(s) +
                         " on the cpu: R-Kleene, Floyd-Warshall on blocks up to " +
                         std::to_string(base) + ", products by " +
                         (semiring_type<S> ? "the dense GEMM (a compiled semiring)"
                                           : "the generic row loop (a semiring object)"));
    detail::rkleene_recurse(be, a);
    detail::closure_refuse_nan<T>(a, true);
    T const one = s.one();
    for (std::size_t i = 0; i < n; ++i) {
        T const d = a(i, i);
        if (!(s.add(one, d) == one))
            throw negative_cycle(static_cast<std::int64_t>(i),
                                 detail::closure_cycle_message(
                                     static_cast<std::int64_t>(i), detail::closure_value_text(one),
                                     detail::closure_value_text(d), detail::closure_name(s)));
        if (opt.reflexive) a(i, i) = one;
    }
}

/// The same on the GPU for a semiring given to the JIT (jit::builtin, jit::compose or source
/// text): jit::closure, on the context's stream (opt.ctx); returns when a holds the result.
template <class T>
void semiring_closure(dense_view<T, device> a, cuda::jit::semiring_source const& s,
                      semiring_closure_options const& opt = {}) {
    cuda::jit::report r;
    cuda::jit::closure<T>(a, s, opt.reflexive, resolve(opt.ctx), opt.base, &r);
    if (opt.explain)
        opt.explain->add("semiring_closure: " + detail::shape(a.rows, a.cols) + " over " + s.name +
                         " on the gpu: " + cuda::jit::describe(r));
}

}  // namespace kleene

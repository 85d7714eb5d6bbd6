#define BOOST_TEST_MODULE mxm_reference_graphblas
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/kleene.hpp>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// Where SuiteSparse:GraphBLAS has no built-in (user-defined semirings, integer min_plus with its
// infinity sentinel, which GraphBLAS's wrapping PLUS would get wrong), kleene's mxm is compared
// with a plain triple-loop reference that applies the GraphBLAS mask/accumulate/replace rules.

using namespace kleene;
namespace grb = kleene::graphblas;
using i32 = std::int32_t;
using i64 = std::int64_t;

namespace {

struct gf2 {  // GF(2) on int32: xor, and
    using value_type = i32;
    static constexpr bool idempotent_add = false;
    static constexpr bool has_terminal = false;
    static constexpr i32 zero() { return 0; }
    static constexpr i32 one() { return 1; }
    static constexpr i32 terminal() { return 0; }
    static constexpr i32 add(i32 a, i32 b) { return a ^ b; }
    static constexpr i32 mul(i32 a, i32 b) { return a & b; }
};
struct xor_op {
    using value_type = i32;
    static constexpr i32 apply(i32 a, i32 b) { return a ^ b; }
};

// (+, max) on int64: zero (0) does not annihilate max, so dense kernels must skip absent entries.
struct plus_max_user {
    using value_type = i64;
    static constexpr bool idempotent_add = false;
    static constexpr bool has_terminal = false;
    static constexpr i64 zero() { return 0; }
    static constexpr i64 one() { return std::numeric_limits<i64>::lowest(); }
    static constexpr i64 terminal() { return 0; }
    static constexpr i64 add(i64 a, i64 b) { return a + b; }
    static constexpr i64 mul(i64 a, i64 b) { return a < b ? b : a; }
};

// (max, min) on double with a terminal value: +inf ends a dot product early.
struct bottleneck {
    using value_type = double;
    static constexpr bool idempotent_add = true;
    static constexpr bool has_terminal = true;
    static constexpr double zero() { return -std::numeric_limits<double>::infinity(); }
    static constexpr double one() { return std::numeric_limits<double>::infinity(); }
    static constexpr double terminal() { return std::numeric_limits<double>::infinity(); }
    static constexpr double add(double a, double b) { return a < b ? b : a; }
    static constexpr double mul(double a, double b) { return a < b ? a : b; }
};

static_assert(!grb::has_grb_semiring<gf2>);
static_assert(!grb::has_grb_semiring<plus_max_user>);

template <class T>
using grid = std::vector<std::optional<T>>;  // row-major, nullopt = no entry

template <class T, class I>
grid<T> to_grid(csr_matrix<T, I> const& a) {
    grid<T> g(a.rows() * a.cols());
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            g[i * a.cols() + a.col_idx()[k]] = a.value(k);
    return g;
}
template <class T>
grid<T> to_grid(dense_matrix<T> const& a, T zero) {
    grid<T> g(a.rows() * a.cols());
    for (std::size_t x = 0; x < g.size(); ++x)
        if (!(a.data()[x] == zero)) g[x] = a.data()[x];
    return g;
}

/// C<M, replace> accum= A (+).(x) B, entry by entry, straight from the definitions.
template <class S, class Accum>
grid<typename S::value_type> reference(grid<typename S::value_type> const& c, std::size_t m,
                                       std::size_t k, std::size_t n,
                                       grid<typename S::value_type> const& a,
                                       grid<typename S::value_type> const& b,
                                       grid<typename S::value_type> const* mask, bool structural,
                                       bool complemented, bool replace, bool zero_is_absent) {
    grid<typename S::value_type> out(m * n);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            std::optional<typename S::value_type> t;
            for (std::size_t p = 0; p < k; ++p)
                if (a[i * k + p] && b[p * n + j]) {
                    auto const v = S::mul(*a[i * k + p], *b[p * n + j]);
                    t = t ? S::add(*t, v) : v;
                }
            if (zero_is_absent && t && *t == S::zero()) t.reset();
            auto const& mv = mask ? (*mask)[i * n + j] : std::nullopt;
            bool const allowed =
                !mask || ((mv && (structural || *mv != typename S::value_type(0))) != complemented);
            auto const& cv = c[i * n + j];
            if (!allowed)
                out[i * n + j] = replace ? std::nullopt : cv;
            else if constexpr (std::is_same_v<Accum, no_accum_t>)
                out[i * n + j] = t;
            else
                out[i * n + j] = (cv && t) ? Accum::apply(*cv, *t) : (t ? t : cv);
        }
    return out;
}

template <class S, class Accum, class C, class A, class B>
void check_all_masks(C const& c0, csr_matrix<typename S::value_type> const& msk, A const& a,
                     B const& b, std::size_t k, std::string const& what) {
    using T = typename S::value_type;
    T const zero = S::zero();
    auto grid_of = [&](auto const& x) {
        if constexpr (requires { x.nnz(); })
            return to_grid(x);
        else
            return to_grid(x, zero);
    };
    std::size_t const m = c0.rows(), n = c0.cols();
    auto const ga = grid_of(a), gb = grid_of(b), gc = grid_of(c0), gm = to_grid(msk);
    for (bool replace : {false, true})
        for (int kind = 0; kind < 5; ++kind) {  // 0: none; else valued/structural x complemented
            bool const structural = kind == 2 || kind == 4, comp = kind >= 3;
            options opt;
            opt.replace = replace;
            C got = c0;
            if (kind == 0) {
                mxm(got, no_mask, Accum{}, a, b, S{}, opt);
            } else {
                auto mv = mask(msk);
                mv.structural = structural;
                mv.complemented = comp;
                mxm(got, mv, Accum{}, a, b, S{}, opt);
            }
            // kleene's documented rule: a product computed through a dense temporary (either
            // operand dense) that equals zero is absent (see test_mxm_graphblas.cpp).
            bool const dense_temporary = !requires {
                a.nnz();
            }
            || !requires {
                b.nnz();
            };
            auto want = reference<S, Accum>(gc, m, k, n, ga, gb, kind ? &gm : nullptr, structural,
                                            comp, replace, dense_temporary);
            if constexpr (!requires {
                              got.nnz();
                          })  // dense output: an entry equal to zero is absent
                for (auto& e : want)
                    if (e && *e == zero) e.reset();
            auto const have = grid_of(got);
            std::size_t bad = 0, first = have.size();
            for (std::size_t x = 0; x < have.size(); ++x)
                if (have[x] != want[x]) {
                    ++bad;
                    first = std::min(first, x);
                }
            BOOST_TEST(bad == 0u, what << " mask kind " << kind << (replace ? " replace" : "")
                                       << ": " << bad << " entries differ, first at ("
                                       << (n ? first / n : 0) << ", " << (n ? first % n : 0)
                                       << ")");
        }
}

template <class S, class Accum>
void all_pairs(csr_matrix<typename S::value_type> const& a,
               csr_matrix<typename S::value_type> const& b,
               csr_matrix<typename S::value_type> const& c,
               csr_matrix<typename S::value_type> const& msk, std::string const& what) {
    auto const ad = to_dense<S>(a), bd = to_dense<S>(b), cd = to_dense<S>(c);
    std::size_t const k = a.cols();
    check_all_masks<S, Accum>(c, msk, a, b, k, what + " csr x csr -> csr");
    check_all_masks<S, Accum>(cd, msk, a, b, k, what + " csr x csr -> dense");
    check_all_masks<S, Accum>(c, msk, a, bd, k, what + " csr x dense -> csr");
    check_all_masks<S, Accum>(cd, msk, a, bd, k, what + " csr x dense -> dense");
    check_all_masks<S, Accum>(c, msk, ad, b, k, what + " dense x csr -> csr");
    check_all_masks<S, Accum>(cd, msk, ad, b, k, what + " dense x csr -> dense");
    check_all_masks<S, Accum>(c, msk, ad, bd, k, what + " dense x dense -> csr");
    check_all_masks<S, Accum>(cd, msk, ad, bd, k, what + " dense x dense -> dense");
}

struct shape3 {
    std::size_t m, k, n;
    double density;
};
std::vector<shape3> const shapes = {{0, 0, 0, 0.5},  {1, 1, 1, 1.0},    {3, 0, 4, 0.5},
                                    {9, 13, 7, 0.4}, {45, 38, 52, 0.1}, {90, 70, 80, 0.3}};

template <class S, class Accum, class Values>
void run(Values values, std::uint64_t seed) {
    using T = typename S::value_type;
    std::mt19937_64 g(seed);
    for (auto const& s : shapes) {
        auto a = grb::random_csr<T>(s.m, s.k, s.density, g, true);
        auto b = grb::random_csr<T>(s.k, s.n, s.density, g);
        auto c = grb::random_csr<T>(s.m, s.n, 0.3, g);
        for (auto* x : {&a, &b, &c})
            for (std::size_t p = 0; p < x->nnz(); ++p) x->values()[p] = values(g);
        auto const msk = grb::random_mask<T>(s.m, s.n, g);
        all_pairs<S, Accum>(
            a, b, c, msk,
            std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(user_defined_gf2) {
    run<gf2, xor_op>(
        [](std::mt19937_64& g) { return i32(std::uniform_int_distribution<int>(0, 7)(g)); }, 1);
}

BOOST_AUTO_TEST_CASE(user_defined_plus_max_whose_zero_does_not_annihilate) {
    run<plus_max_user, plus_op<i64>>(
        [](std::mt19937_64& g) { return i64(std::uniform_int_distribution<int>(-5, 9)(g)); }, 2);
}

BOOST_AUTO_TEST_CASE(user_defined_bottleneck_with_terminal) {
    run<bottleneck, max_op<double>>(
        [](std::mt19937_64& g) {
            double const x = std::uniform_real_distribution<double>(-3, 3)(g);
            return x > 2.5 ? std::numeric_limits<double>::infinity() : x;
        },
        3);
}

BOOST_AUTO_TEST_CASE(int_min_plus_keeps_the_infinity_sentinel) {
    // Infinite weights and weights whose sums overflow int32: plus_sat_op must saturate to inf.
    run<min_plus<i32>, min_op<i32>>(
        [](std::mt19937_64& g) {
            int const r = std::uniform_int_distribution<int>(0, 9)(g);
            if (r == 0) return infinity<i32>();
            if (r == 1) return i32(std::numeric_limits<i32>::max() - 5);
            if (r == 2) return i32(1 << 30);
            return i32(r);
        },
        4);
}

BOOST_AUTO_TEST_CASE(int64_max_plus_keeps_the_minus_infinity_sentinel) {
    run<max_plus<i64>, max_op<i64>>(
        [](std::mt19937_64& g) {
            int const r = std::uniform_int_distribution<int>(0, 9)(g);
            if (r == 0) return std::numeric_limits<i64>::lowest();
            if (r == 1) return std::numeric_limits<i64>::lowest() + 7;
            return i64(r - 5);
        },
        5);
}

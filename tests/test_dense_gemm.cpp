#define BOOST_TEST_MODULE dense_gemm
#include <algorithm>
#include <boost/core/demangle.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace {

using kleene::dense_matrix;
using kleene::dense_view;

// A rows x cols view inside a larger matrix (1 row above, 2 columns left, `pad` columns right),
// so that ld > cols and writes outside the view show up as changed canaries.
template <class T>
struct padded {
    dense_matrix<T> store;
    dense_view<T> view;
    padded(std::size_t rows, std::size_t cols, std::size_t pad, T canary)
        : store(rows + 2, cols + 2 + pad, canary), view(store.block(1, 2, rows, cols)) {}
};

/// The plain triple loop, k ascending for every entry.
template <class S>
void reference_gemm(dense_view<typename S::value_type const> a,
                    dense_view<typename S::value_type const> b,
                    dense_view<typename S::value_type> c, bool accumulate) {
    for (std::size_t i = 0; i < c.rows; ++i) {
        if (!accumulate)
            for (std::size_t j = 0; j < c.cols; ++j) c(i, j) = S::zero();
        for (std::size_t k = 0; k < a.cols; ++k)
            for (std::size_t j = 0; j < c.cols; ++j)
                c(i, j) = S::add(c(i, j), S::mul(a(i, k), b(k, j)));
    }
}

template <class T>
bool close(T x, T y, double rel) {
    if constexpr (std::is_floating_point_v<T>) {
        if (rel > 0) return std::abs(x - y) <= rel * std::max<T>({T(1), std::abs(x), std::abs(y)});
    }
    return x == y;
}

template <class T>
std::string show(T v) {
    std::ostringstream os;
    if constexpr (sizeof(T) == 1)
        os << int(v);
    else
        os << v;
    return os.str();
}

std::mt19937_64& rng() {
    static std::mt19937_64 r(20240607);
    return r;
}

/// Compares kleene::cpu::dense_gemm with the reference for an m x k times k x n product.
/// `gen` draws one random value; `rel` > 0 allows that relative error (plus_times on floats).
template <class S, class Gen>
void check_gemm(std::size_t m, std::size_t k, std::size_t n, bool accumulate, Gen gen,
                double rel = 0) {
    using T = typename S::value_type;
    std::size_t const pad = 1 + rng()() % 9;
    T const canary = gen();
    padded<T> a(m, k, pad, canary), b(k, n, pad + 2, canary), c(m, n, pad + 1, canary);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < k; ++j) a.view(i, j) = gen();
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = 0; j < n; ++j) b.view(i, j) = gen();
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) c.view(i, j) = gen();
    dense_matrix<T> expect(c.store);
    dense_view<T> expect_view{expect.data() + (c.view.data - c.store.data()), m, n, c.view.ld};
    reference_gemm<S>(a.view, b.view, expect_view, accumulate);

    kleene::cpu::dense_gemm<S>(a.view, b.view, c.view, accumulate);

    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < c.store.rows(); ++i) {
        for (std::size_t j = 0; j < c.store.cols(); ++j) {
            if (close(c.store(i, j), expect(i, j), rel)) continue;
            if (bad++ == 0)
                first = "storage (" + std::to_string(i) + ", " + std::to_string(j) + "): got " +
                        show(c.store(i, j)) + ", expected " + show(expect(i, j));
        }
    }
    BOOST_TEST(bad == 0u, boost::core::demangle(typeid(S).name())
                              << " " << m << "x" << k << "x" << n << " accumulate=" << accumulate
                              << ": " << bad << " mismatches, first at " << first);
}

struct shape3 {
    std::size_t m, k, n;
};

// Squares of every size the brief names, and rectangles that cross the tile sizes (MR = 6,
// NR = 16 floats / 8 doubles / 64 bytes, KC = 256) and the one-thread threshold.
std::vector<shape3> const shapes = {
    {0, 0, 0},       {1, 1, 1},     {7, 7, 7},     {33, 33, 33}, {64, 64, 64}, {100, 100, 100},
    {257, 257, 257}, {0, 5, 3},     {4, 0, 6},     {5, 3, 0},    {1, 300, 5},  {130, 17, 70},
    {300, 2, 260},   {65, 513, 31}, {13, 64, 129}, {200, 96, 1}, {6, 256, 16}, {97, 260, 121}};

template <class S, class Gen>
void check_all_shapes(Gen gen, double rel = 0) {
    for (auto const& s : shapes) {
        bool const big = s.m * s.k * s.n > 1000000;
        // The largest shapes run once, with a random accumulate flag, to keep the suite short.
        if (big) {
            check_gemm<S>(s.m, s.k, s.n, rng()() % 2 == 0, gen, rel);
        } else {
            check_gemm<S>(s.m, s.k, s.n, false, gen, rel);
            check_gemm<S>(s.m, s.k, s.n, true, gen, rel);
        }
    }
}

/// Small integers (or integral floats) in [lo, hi], and with probability `p_sentinel` the value
/// `sentinel` (the semiring's zero: +inf for min_plus, -inf for max_plus).
template <class T>
auto int_values(long lo, long hi, double p_sentinel = 0, T sentinel = T{}) {
    return [=] {
        if (p_sentinel > 0 && std::uniform_real_distribution<double>(0, 1)(rng()) < p_sentinel)
            return sentinel;
        return T(std::uniform_int_distribution<long>(lo, hi)(rng()));
    };
}

template <class T>
auto real_values(double lo, double hi) {
    return [=] { return T(std::uniform_real_distribution<double>(lo, hi)(rng())); };
}

template <class T>
auto bool_values(double p_true) {
    return [=] { return T(std::uniform_real_distribution<double>(0, 1)(rng()) < p_true); };
}

template <template <class> class SR, class T>
void check_min_family(double p_sentinel) {
    check_all_shapes<SR<T>>(int_values<T>(-50, 100, p_sentinel, kleene::infinity<T>()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(plus_times_all_types) {
    check_all_shapes<kleene::plus_times<float>>(real_values<float>(0.5, 2.0), 1e-5);
    check_all_shapes<kleene::plus_times<double>>(real_values<double>(-1.0, 1.0), 1e-12);
    check_all_shapes<kleene::plus_times<std::int32_t>>(int_values<std::int32_t>(-3, 3));
    check_all_shapes<kleene::plus_times<std::int64_t>>(int_values<std::int64_t>(-1000, 1000));
    check_all_shapes<kleene::plus_times<std::uint8_t>>(int_values<std::uint8_t>(0, 255));
}

BOOST_AUTO_TEST_CASE(min_plus_with_infinity) {
    check_min_family<kleene::min_plus, float>(0.3);
    check_min_family<kleene::min_plus, double>(0.3);
    check_min_family<kleene::min_plus, std::int32_t>(0.3);
    check_min_family<kleene::min_plus, std::int64_t>(0.3);
    // Mostly infinite: most sums stay at the sentinel.
    check_all_shapes<kleene::min_plus<float>>(
        int_values<float>(0, 9, 0.95, kleene::infinity<float>()));
    // Saturation: finite sums past the largest int32 clamp to the sentinel.
    check_all_shapes<kleene::min_plus<std::int32_t>>(
        int_values<std::int32_t>(2000000000, 2147483646, 0.1, kleene::infinity<std::int32_t>()));
}

BOOST_AUTO_TEST_CASE(max_plus_with_minus_infinity) {
    auto minus_inf = [](auto t) { return kleene::detail::min_value<decltype(t)>(); };
    check_all_shapes<kleene::max_plus<float>>(int_values<float>(-50, 100, 0.3, minus_inf(0.0f)));
    check_all_shapes<kleene::max_plus<double>>(int_values<double>(-50, 100, 0.3, minus_inf(0.0)));
    check_all_shapes<kleene::max_plus<std::int32_t>>(
        int_values<std::int32_t>(-50, 100, 0.3, minus_inf(std::int32_t{})));
    check_all_shapes<kleene::max_plus<std::int64_t>>(
        int_values<std::int64_t>(-50, 100, 0.3, minus_inf(std::int64_t{})));
}

BOOST_AUTO_TEST_CASE(max_min_and_min_max) {
    check_all_shapes<kleene::max_min<float>>(real_values<float>(-10, 10));
    check_all_shapes<kleene::max_min<std::int32_t>>(int_values<std::int32_t>(-1000, 1000));
    check_all_shapes<kleene::max_min<std::uint8_t>>(int_values<std::uint8_t>(0, 255));
    check_all_shapes<kleene::min_max<double>>(
        int_values<double>(-1000, 1000, 0.1, kleene::infinity<double>()));
    check_all_shapes<kleene::min_max<std::int64_t>>(int_values<std::int64_t>(-1000, 1000));
}

BOOST_AUTO_TEST_CASE(boolean_semirings) {
    check_all_shapes<kleene::lor_land<bool>>(bool_values<bool>(0.02));
    check_all_shapes<kleene::lor_land<bool>>(bool_values<bool>(0.5));
    check_all_shapes<kleene::lor_land<std::uint8_t>>(int_values<std::uint8_t>(0, 2));
    check_all_shapes<kleene::any_pair<bool>>(bool_values<bool>(0.3));
}

BOOST_AUTO_TEST_CASE(pair_first_second) {
    check_all_shapes<kleene::plus_pair<std::int32_t>>(int_values<std::int32_t>(-5, 5));
    check_all_shapes<kleene::plus_pair<std::int64_t>>(int_values<std::int64_t>(-5, 5));
    check_all_shapes<kleene::plus_pair<float>>(int_values<float>(-5, 5));
    check_all_shapes<kleene::min_first<float>>(
        int_values<float>(-100, 100, 0.2, kleene::infinity<float>()));
    check_all_shapes<kleene::min_first<std::int32_t>>(int_values<std::int32_t>(-100, 100));
    check_all_shapes<kleene::min_second<double>>(real_values<double>(-1, 1));
    check_all_shapes<kleene::min_second<std::int64_t>>(int_values<std::int64_t>(-100, 100));
}

namespace {

// User-defined semirings: a struct value type (shortest distance, then fewest hops) and a plain
// one over double (most reliable path: max of products of probabilities).
struct dist_hops {
    float dist;
    std::int32_t hops;
    friend bool operator==(dist_hops const&, dist_hops const&) = default;
    friend std::ostream& operator<<(std::ostream& os, dist_hops const& v) {
        return os << "(" << v.dist << ", " << v.hops << ")";
    }
};

struct shortest_fewest {
    using value_type = dist_hops;
    static constexpr bool idempotent_add = true;
    static constexpr bool has_terminal = false;
    static constexpr dist_hops zero() { return {kleene::infinity<float>(), 0}; }
    static constexpr dist_hops one() { return {0.0f, 0}; }
    static constexpr dist_hops terminal() { return zero(); }
    static constexpr dist_hops add(dist_hops x, dist_hops y) {
        return (y.dist < x.dist || (y.dist == x.dist && y.hops < x.hops)) ? y : x;
    }
    static constexpr dist_hops mul(dist_hops x, dist_hops y) {
        return {x.dist + y.dist, x.hops + y.hops};
    }
};

struct max_times_double {
    using value_type = double;
    static constexpr bool idempotent_add = true;
    static constexpr bool has_terminal = true;
    static constexpr double zero() { return 0.0; }
    static constexpr double one() { return 1.0; }
    static constexpr double terminal() { return 1.0; }
    static constexpr double add(double x, double y) { return x < y ? y : x; }
    static constexpr double mul(double x, double y) { return x * y; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(user_defined_semirings) {
    static_assert(kleene::semiring_type<shortest_fewest>);
    check_all_shapes<shortest_fewest>([] {
        return dist_hops{float(std::uniform_int_distribution<int>(0, 20)(rng())),
                         std::uniform_int_distribution<int>(0, 5)(rng())};
    });
    check_all_shapes<max_times_double>(real_values<double>(0, 1));
}

BOOST_AUTO_TEST_CASE(shape_errors) {
    dense_matrix<float> a(3, 4, 1.0f), b(5, 2, 1.0f), c(3, 2, 0.0f);
    BOOST_CHECK_THROW(
        kleene::cpu::dense_gemm<kleene::min_plus<float>>(a.view(), b.view(), c.view(), false),
        kleene::dimension_mismatch);
    dense_matrix<float> b2(4, 2, 1.0f), c2(2, 2, 0.0f);
    BOOST_CHECK_THROW(
        kleene::cpu::dense_gemm<kleene::min_plus<float>>(a.view(), b2.view(), c2.view(), false),
        kleene::dimension_mismatch);
    try {
        kleene::cpu::dense_gemm<kleene::min_plus<float>>(a.view(), b.view(), c.view(), false);
    } catch (kleene::dimension_mismatch const& e) {
        std::string const what = e.what();
        BOOST_TEST(what.find("3x4") != std::string::npos);
        BOOST_TEST(what.find("5x2") != std::string::npos);
    }
    dense_view<float const> bad_ld{a.data(), 3, 4, 2};
    BOOST_CHECK_THROW(
        kleene::cpu::dense_gemm<kleene::min_plus<float>>(bad_ld, b2.view(), c.view(), false),
        kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(blocks_of_one_matrix) {
    using S = kleene::min_plus<float>;
    auto gen = int_values<float>(0, 50, 0.2, kleene::infinity<float>());
    dense_matrix<float> m(40, 40);
    for (std::size_t i = 0; i < 40 * 40; ++i) m.data()[i] = gen();
    BOOST_CHECK_THROW(kleene::cpu::dense_gemm<S>(m.view(), m.view(), m.view(), true),
                      kleene::invalid_argument);
    BOOST_CHECK_THROW(kleene::cpu::dense_gemm<S>(m.block(0, 0, 20, 20), m.block(20, 0, 20, 20),
                                                 m.block(10, 10, 20, 20), false),
                      kleene::invalid_argument);
    // R-Kleene's shapes: C beside or below A and B in the same matrix shares no element.
    auto const a11 = m.block(0, 0, 20, 20), a12 = m.block(0, 20, 20, 20);
    auto const a21 = m.block(20, 0, 20, 20), a22 = m.block(20, 20, 20, 20);
    for (bool accumulate : {false, true}) {
        dense_matrix<float> expect(m);
        dense_view<float> e22{expect.data() + 20 * 40 + 20, 20, 20, 40};
        reference_gemm<S>(a21, a12, e22, accumulate);
        kleene::cpu::dense_gemm<S>(a21, a12, a22, accumulate);
        BOOST_TEST(std::equal(m.data(), m.data() + 40 * 40, expect.data()));
        dense_matrix<float> expect2(m);
        dense_view<float> e12{expect2.data() + 20, 20, 20, 40};
        reference_gemm<S>(a11, a22, e12, accumulate);
        kleene::cpu::dense_gemm<S>(a11, a22, a12, accumulate);
        BOOST_TEST(std::equal(m.data(), m.data() + 40 * 40, expect2.data()));
    }
}

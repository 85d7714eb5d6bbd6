// APSP and closure on the CPU against plain Floyd-Warshall and a naive closure: R-Kleene, blocked
// Floyd-Warshall, Johnson and apsp()'s automatic choice on random graphs (directed, undirected,
// negative edges, negative cycles, disconnected parts, n = 1, 2, odd, prime), predecessor paths
// of the reported length, and the bitset closure.

#define BOOST_TEST_MODULE apsp
#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/closure.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;

/// Edge probability p; weights w0 + pot(u) - pot(v) with w0 in [0, 50] (negative edges, no
/// negative cycle); `undirected` mirrors every edge with w0 only (non-negative); `parts` > 1 keeps
/// edges inside n / parts blocks (disconnected); `cycle` plants 0 -> 1 -> 2 -> 0 of weight -15.
template <class T>
csr_matrix<T> random_graph(std::size_t n, double p, std::uint64_t seed, bool undirected = false,
                           std::size_t parts = 1, bool cycle = false) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<int> pot(n);
    for (auto& x : pot) x = undirected ? 0 : static_cast<int>(rng() % 20);
    std::vector<std::int32_t> ii, jj;
    std::vector<T> vv;
    std::size_t const part = (n + parts - 1) / parts;
    auto add = [&](std::size_t i, std::size_t j, T w) {
        ii.push_back(static_cast<std::int32_t>(i));
        jj.push_back(static_cast<std::int32_t>(j));
        vv.push_back(w);
    };
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = undirected ? i + 1 : 0; j < n; ++j)
            if (i != j && i / part == j / part && u(rng) < p) {
                T const w = T(static_cast<int>(rng() % 51) + pot[i] - pot[j]);
                add(i, j, w);
                if (undirected) add(j, i, w);
            }
    if (cycle && n >= 3)
        for (std::size_t k = 0; k < 3; ++k) add(k, (k + 1) % 3, T(-5));
    return csr_matrix<T>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
}

/// The reference: the plain Floyd-Warshall triple loop written here, independent of the library
/// (kleene's own floyd_warshall is one of the algorithms under test). Sums are formed in long
/// double, wide enough that nothing saturates or overflows on these graphs; "no path" is a flag,
/// not a sentinel. The result is narrowed to T, with kleene's infinity where there is no path.
template <class T>
dense_matrix<T> reference(csr_matrix<T> const& a) {
    std::size_t const n = a.rows();
    std::vector<long double> d(n * n, 0);
    std::vector<char> has(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            std::size_t const j = static_cast<std::size_t>(a.col_idx()[k]);
            long double const w = a.value(k);
            if (!has[i * n + j] || w < d[i * n + j]) d[i * n + j] = w;
            has[i * n + j] = 1;
        }
    for (std::size_t i = 0; i < n; ++i) {
        if (!has[i * n + i] || d[i * n + i] > 0) d[i * n + i] = 0;
        has[i * n + i] = 1;
    }
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t i = 0; i < n; ++i) {
            if (!has[i * n + k]) continue;
            for (std::size_t j = 0; j < n; ++j) {
                if (!has[k * n + j]) continue;
                long double const via = d[i * n + k] + d[k * n + j];
                if (!has[i * n + j] || via < d[i * n + j]) d[i * n + j] = via, has[i * n + j] = 1;
            }
        }
    dense_matrix<T> r(n, n);
    for (std::size_t i = 0; i < n * n; ++i) {
        long double v = d[i];
        if constexpr (std::is_integral_v<T>)  // only a negative cycle's entries leave the range
            v = std::clamp<long double>(v, std::numeric_limits<T>::min() + 1.0L,
                                        std::numeric_limits<T>::max() - 1.0L);
        r.data()[i] = has[i] ? static_cast<T>(v) : infinity<T>();
    }
    return r;
}

template <class T>
bool close(T g, T w) {
    if (g == w) return true;
    if constexpr (std::is_floating_point_v<T>)
        return std::abs(double(g) - double(w)) <= 1e-4 * (1 + std::abs(double(w)));
    return false;
}

template <class T>
std::size_t mismatches(dense_matrix<T> const& got, dense_matrix<T> const& want) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.rows(); ++i)
        for (std::size_t j = 0; j < want.cols(); ++j) bad += !close(got(i, j), want(i, j));
    return bad;
}

/// Every predecessor path exists in the graph and has the reported length.
template <class T>
void check_paths(csr_matrix<T> const& a, apsp_result<T> const& r) {
    std::size_t const n = a.rows();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            auto const p = path(dense_view<std::int32_t const>(r.pred.view()), i, j);
            if (r.dist(i, j) == infinity<T>()) {
                bad += !p.empty();
                continue;
            }
            if (p.empty() || p.front() != std::int64_t(i) || p.back() != std::int64_t(j)) {
                ++bad;
                continue;
            }
            double len = 0;
            for (std::size_t s = 1; s < p.size(); ++s) {
                auto const k = a.find(static_cast<std::size_t>(p[s - 1]), static_cast<std::size_t>(p[s]));
                if (k < 0) {
                    ++bad;
                    break;
                }
                len += double(a.value(static_cast<std::size_t>(k)));
            }
            bad += std::abs(len - double(r.dist(i, j))) > 1e-3 * (1 + std::abs(len));
        }
    BOOST_TEST(bad == 0u);
}

template <class T>
void run_all(std::size_t n, double p, bool undirected, std::size_t parts) {
    auto const a = random_graph<T>(n, p, n * 31 + parts, undirected, parts);
    auto const want = reference(a);
    for (auto alg : {apsp_algorithm::automatic, apsp_algorithm::rkleene, apsp_algorithm::blocked_fw,
                     apsp_algorithm::johnson}) {
        BOOST_TEST_CONTEXT("n=" << n << " p=" << p << " undirected=" << undirected
                                << " parts=" << parts << " alg=" << to_string(alg)) {
            apsp_options opt;
            opt.algorithm = alg;
            opt.device = device_choice::cpu;
            opt.predecessors = n <= 130;
            auto const r = apsp(a, opt);
            BOOST_TEST(mismatches(r.dist, want) == 0u);
            if (opt.predecessors) check_paths(a, r);
        }
    }
    BOOST_TEST_CONTEXT("n=" << n << " rkleene base 8") {
        dense_matrix<T> d = to_dense(a, infinity<T>());
        for (std::size_t i = 0; i < n; ++i) d(i, i) = std::min(d(i, i), T(0));
        rkleene(d.view(), 8);
        BOOST_TEST(mismatches(d, want) == 0u);
    }
    BOOST_TEST_CONTEXT("n=" << n << " blocked tile 7") {
        dense_matrix<T> d = to_dense(a, infinity<T>());
        for (std::size_t i = 0; i < n; ++i) d(i, i) = std::min(d(i, i), T(0));
        floyd_warshall_blocked(d.view(), 7);
        BOOST_TEST(mismatches(d, want) == 0u);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(apsp_matches_floyd_warshall) {
    for (std::size_t n : {1, 2, 5, 17, 64, 101, 130, 211}) {
        run_all<float>(n, 0.1, false, 1);
        run_all<std::int32_t>(n, 0.3, false, 2);
        run_all<double>(n, 0.05, true, 3);
    }
}

BOOST_AUTO_TEST_CASE(negative_cycle_reported) {
    for (std::size_t n : {3, 40, 131})
        for (auto alg : {apsp_algorithm::rkleene, apsp_algorithm::blocked_fw, apsp_algorithm::fw,
                         apsp_algorithm::johnson}) {
            auto const a = random_graph<std::int32_t>(n, 0.05, n, false, 1, true);
            auto const want = reference(a);
            apsp_options opt;
            opt.algorithm = alg;
            opt.device = device_choice::cpu;
            try {
                apsp(a, opt);
                BOOST_ERROR("no negative_cycle for n=" << n << " " << to_string(alg));
            } catch (negative_cycle const& e) {
                // The vertex lies on a negative closed walk (the reference agrees).
                BOOST_TEST(want(static_cast<std::size_t>(e.vertex()), static_cast<std::size_t>(e.vertex())) < 0);
            }
        }
}

// ---- distances past the value type (path_weights.hpp) -------------------------------------------

template <class T>
csr_matrix<T> chain(std::size_t n, std::vector<std::int32_t> ii, std::vector<std::int32_t> jj,
                    std::vector<T> vv) {
    return csr_matrix<T>::from_coo(n, n, ii, jj, vv);
}

template <class E, class F>
std::string thrown(F&& f) {
    try {
        f();
    } catch (E const& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

BOOST_AUTO_TEST_CASE(int32_overflow_is_an_error_not_infinity) {
    // 1 -> 2 -> 3 weighs 4e9: no int32 holds it. It used to come back as "no path".
    auto const a = chain<std::int32_t>(4, {0, 1}, {1, 2}, {2000000000, 2000000000});
    for (auto alg : {apsp_algorithm::rkleene, apsp_algorithm::fw, apsp_algorithm::blocked_fw,
                     apsp_algorithm::johnson}) {
        apsp_options o;
        o.algorithm = alg;
        o.device = device_choice::cpu;
        std::string const m = thrown<overflow_error>([&] { apsp(a, o); });
        BOOST_TEST(m.find("from 1 to 3 is 4000000000") != std::string::npos, m);
        BOOST_TEST(m.find("int32") != std::string::npos, m);
    }
    // An edge of exactly INT32_MAX is a finite weight past int32's largest finite distance.
    auto const b = chain<std::int32_t>(2, {0}, {1}, {std::numeric_limits<std::int32_t>::max()});
    BOOST_CHECK_THROW(apsp(b, {}), overflow_error);
}

BOOST_AUTO_TEST_CASE(int32_widened_when_paths_could_overflow_but_do_not) {
    // Two disconnected heavy edges: the bound (3e9) is past int32, every distance fits. Computed
    // in fp64 and narrowed back, exactly; the trace says so.
    auto const a = chain<std::int32_t>(4, {0, 2}, {1, 3}, {1500000000, 1500000000});
    explain_trace t;
    apsp_options o;
    o.explain = &t;
    auto const r = apsp(a, o);
    BOOST_TEST(r.dist(0, 1) == 1500000000);
    BOOST_TEST(r.dist(2, 3) == 1500000000);
    BOOST_TEST(r.dist(0, 3) == infinity<std::int32_t>());
    BOOST_TEST(r.dist(1, 1) == 0);
    bool said = false;
    for (auto const& l : t.lines) said = said || l.find("computing in fp64") != std::string::npos;
    BOOST_TEST(said);
    // Negative weights need twice the room: -1.2e9 and 1.2e9 (bound 2.4e9 > 2147483646 / 2).
    auto const c = chain<std::int32_t>(3, {0, 1}, {1, 2}, {1200000000, -1200000000});
    auto const rc = apsp(c, {});
    BOOST_TEST(rc.dist(0, 2) == 0);
    BOOST_TEST(rc.dist(0, 1) == 1200000000);
    BOOST_TEST(rc.dist(1, 2) == -1200000000);
    // Within the bound nothing changes (no widening line).
    auto const d = chain<std::int32_t>(3, {0, 1}, {1, 2}, {1000000000, 1000000000});
    explain_trace td;
    apsp_options od;
    od.explain = &td;
    BOOST_TEST(apsp(d, od).dist(0, 2) == 2000000000);
    for (auto const& l : td.lines) BOOST_TEST(l.find("fp64") == std::string::npos, l);
}

BOOST_AUTO_TEST_CASE(fp32_and_int64_overflow) {
    auto const f = chain<float>(3, {0, 1}, {1, 2}, {3e38f, 3e38f});
    std::string const m = thrown<overflow_error>([&] { apsp(f, {}); });
    BOOST_TEST(m.find("fp32") != std::string::npos, m);
    auto const big = std::int64_t(5) << 60;
    auto const g = chain<std::int64_t>(3, {0, 1}, {1, 2}, {big, big});
    std::string const mg = thrown<overflow_error>([&] { apsp(g, {}); });
    BOOST_TEST(mg.find("int64") != std::string::npos, mg);
}

BOOST_AUTO_TEST_CASE(nan_and_infinite_weights_are_refused) {
    double const nan = std::numeric_limits<double>::quiet_NaN();
    double const inf = std::numeric_limits<double>::infinity();
    for (double bad : {nan, -inf, inf}) {
        auto const a = chain<double>(3, {0, 1}, {1, 2}, {5.0, bad});
        std::string const m = thrown<invalid_argument>([&] { apsp(a, {}); });
        BOOST_TEST(m.find("edge (2, 3)") != std::string::npos, m);
        BOOST_TEST(m.find("finite") != std::string::npos, m);
    }
}

BOOST_AUTO_TEST_CASE(closure_matches_naive) {
    for (std::size_t n : {1, 2, 63, 64, 65, 200}) {
        auto const a = random_graph<float>(n, 1.5 / static_cast<double>(n), n);
        host_bits got = to_host_bits(a);
        closure_cpu(got);
        // Naive: repeated squaring-free BFS from every vertex (paths of one edge or more).
        for (std::size_t s = 0; s < n; ++s) {
            std::vector<char> seen(n);
            std::vector<std::size_t> q;
            for (std::size_t k = a.row_begin(s); k < a.row_end(s); ++k) {
                auto const v = static_cast<std::size_t>(a.col_idx()[k]);
                if (!seen[v]) seen[v] = 1, q.push_back(v);
            }
            for (std::size_t h = 0; h < q.size(); ++h)
                for (std::size_t k = a.row_begin(q[h]); k < a.row_end(q[h]); ++k) {
                    auto const v = static_cast<std::size_t>(a.col_idx()[k]);
                    if (!seen[v]) seen[v] = 1, q.push_back(v);
                }
            std::size_t bad = 0;
            for (std::size_t v = 0; v < n; ++v) bad += got.test(s, v) != bool(seen[v]);
            BOOST_TEST(bad == 0u);
        }
        closure_options opt;
        opt.reflexive = true;
        opt.device = device_choice::cpu;
        auto const r = closure(a, opt);
        for (std::size_t i = 0; i < n; ++i) BOOST_TEST(r.find(i, i) >= 0);
    }
}

// apsp()'s plan (detail::plan_apsp_host) is the cost model's choice, said in the trace, and its run
// (detail::apsp_run) is apsp()'s answer; a pinned choice that cannot run is refused by the plan.
BOOST_AUTO_TEST_CASE(the_plan_follows_the_cost_model_and_the_run_answers) {
    auto const a = random_graph<double>(120, 0.03, 11);
    auto const want = reference(a);
    apsp_options opt;
    opt.device = device_choice::cpu;
    for (bool cheap_johnson : {true, false}) {
        apsp_cost_model model;
        model.johnson_s_per_edge = cheap_johnson ? 1e-15 : 1.0;
        explain_trace log;
        opt.explain = &log;
        auto const p = detail::plan_apsp_host(a, opt, model);
        BOOST_TEST(!p.gpu);
        BOOST_TEST(!p.out_of_core);
        BOOST_TEST((p.algorithm ==
                    (cheap_johnson ? apsp_algorithm::johnson : apsp_algorithm::rkleene)));
        bool said = false;
        for (auto const& line : log.lines)
            said = said || line.find(std::string("apsp: chose ") +
                                     std::string(to_string(p.algorithm)) + " on cpu") !=
                               std::string::npos;
        BOOST_TEST(said, "the trace names the plan's choice");
        opt.explain = nullptr;
        auto const r = detail::apsp_run(p, a, opt);
        BOOST_TEST((r.algorithm == p.algorithm));
        for (std::size_t i = 0; i < a.rows(); ++i)
            for (std::size_t j = 0; j < a.rows(); ++j)
                BOOST_TEST(r.dist(i, j) == want(i, j), i << "," << j);
        auto const whole = apsp(a, opt, model);
        BOOST_TEST((whole.algorithm == p.algorithm));
    }
    apsp_options bad;
    bad.device = device_choice::cpu;
    bad.algorithm = apsp_algorithm::bellman_ford;
    BOOST_CHECK_THROW(detail::plan_apsp_host(a, bad, apsp_cost_model{}), invalid_argument);
}

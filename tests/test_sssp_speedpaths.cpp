// The fast CPU paths of sssp() and bfs() against plain references written here (Dijkstra with a
// binary heap and long double sums, a queue BFS): delta-stepping's once-per-distance expansion and
// prefetched vertex lists, long rows shared out by edge ranges, sums with and without saturation,
// the one-pass weight summary (automatic delta, quick overflow bound, non-finite weights), BFS
// returning parents without levels, and results reused across searches. Random graphs of many
// sizes on 1 to 4 threads, zero weights, many sources; disconnected graphs, self-loops, duplicate
// edges, isolated vertices, one vertex and none.

#define BOOST_TEST_MODULE sssp_speedpaths
#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/sssp.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace kleene;

struct thread_count {
    int saved = omp_get_max_threads();
    explicit thread_count(int t) { omp_set_num_threads(t); }
    ~thread_count() { omp_set_num_threads(saved); }
};

/// Dijkstra with sums in long double (exact for the integers used here): the true distance, or
/// infinity<T>() where unreachable.
template <class T, class Index>
std::vector<long double> dijkstra(csr_matrix<T, Index> const& a, std::size_t s) {
    std::vector<long double> d(a.rows(), std::numeric_limits<long double>::infinity());
    using item = std::pair<long double, std::size_t>;
    std::priority_queue<item, std::vector<item>, std::greater<>> heap;
    d[s] = 0;
    heap.push({0, s});
    while (!heap.empty()) {
        auto const [du, u] = heap.top();
        heap.pop();
        if (du > d[u]) continue;
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            long double const nd = du + static_cast<long double>(a.value(k));
            if (nd < d[v]) {
                d[v] = nd;
                heap.push({nd, v});
            }
        }
    }
    return d;
}

template <class T, class Index>
std::vector<std::int64_t> queue_bfs(csr_matrix<T, Index> const& a, std::size_t s) {
    std::vector<std::int64_t> level(a.rows(), -1);
    std::deque<std::size_t> q{s};
    level[s] = 0;
    while (!q.empty()) {
        std::size_t const u = q.front();
        q.pop_front();
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            if (level[v] < 0) {
                level[v] = level[u] + 1;
                q.push_back(v);
            }
        }
    }
    return level;
}

/// Vertices whose distance differs from the reference (floating point: within rounding).
template <class T>
std::size_t mismatches(std::vector<T> const& got, std::vector<long double> const& want) {
    if (got.size() != want.size()) return want.size() + 1;
    std::size_t bad = 0;
    for (std::size_t v = 0; v < want.size(); ++v) {
        if (std::isinf(want[v])) {
            bad += got[v] != infinity<T>();
        } else if constexpr (std::is_floating_point_v<T>) {
            // Equal paths summed in another order differ in the last bits.
            long double const tol = std::is_same_v<T, float> ? 1e-5L : 1e-12L;
            bad += !(std::fabs(static_cast<long double>(got[v]) - want[v]) <=
                     tol * (1 + std::fabs(want[v])));
        } else {
            bad += static_cast<long double>(got[v]) != want[v];
        }
    }
    return bad;
}

/// Random weighted edges from a seed: `m` edges over n vertices, weights uniform in [lo, hi]
/// (integers for integer T), with self-loops and repeated pairs left in; from_coo keeps the
/// lightest of a repeated pair. `undirected` stores each edge both ways with one weight.
template <class T>
csr_matrix<T> random_graph(std::size_t n, std::size_t m, std::uint64_t seed, double lo, double hi,
                           bool undirected) {
    std::mt19937_64 rng(seed);
    std::vector<std::int32_t> ii, jj;
    std::vector<T> vv;
    for (std::size_t e = 0; n > 0 && e < m; ++e) {
        auto const u = static_cast<std::int32_t>(rng() % n);
        auto const v = static_cast<std::int32_t>(rng() % n);
        T w;
        if constexpr (std::is_integral_v<T>)
            w = static_cast<T>(
                static_cast<std::int64_t>(lo) +
                static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1)));
        else
            w = static_cast<T>(lo + (hi - lo) * std::uniform_real_distribution<double>(0, 1)(rng));
        ii.push_back(u);
        jj.push_back(v);
        vv.push_back(w);
        if (undirected) {
            ii.push_back(v);
            jj.push_back(u);
            vv.push_back(w);
        }
    }
    return csr_matrix<T>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
}

/// `base` plus `hubs` vertices (the last ones) joined both ways to `degree` random vertices each:
/// rows far longer than delta-stepping's split length, reached in the same buckets.
template <class T>
csr_matrix<T> with_hubs(std::size_t n, std::size_t m, std::size_t hubs, std::size_t degree,
                        std::uint64_t seed, double lo, double hi) {
    std::mt19937_64 rng(seed);
    auto const base = random_graph<T>(n, m, seed + 1, lo, hi, true);
    std::vector<std::int32_t> ii, jj;
    std::vector<T> vv;
    for (std::size_t u = 0; u < n; ++u)
        for (std::size_t k = base.row_begin(u); k < base.row_end(u); ++k) {
            ii.push_back(static_cast<std::int32_t>(u));
            jj.push_back(base.col_idx()[k]);
            vv.push_back(base.value(k));
        }
    std::size_t const total = n + hubs;
    for (std::size_t h = n; h < total; ++h)
        for (std::size_t e = 0; e < degree; ++e) {
            auto const v = static_cast<std::int32_t>(rng() % total);
            auto const w = static_cast<T>(lo + static_cast<double>(rng() % 1000) / 999 * (hi - lo));
            for (int dir = 0; dir < 2; ++dir) {
                ii.push_back(dir ? v : static_cast<std::int32_t>(h));
                jj.push_back(dir ? static_cast<std::int32_t>(h) : v);
                vv.push_back(w);
            }
        }
    return csr_matrix<T>::from_coo(total, total, ii, jj, vv, duplicate_policy::min);
}

template <class T>
csr_matrix<T> kronecker(int scale, std::uint64_t seed, double lo, double hi) {
    kronecker_options o;
    o.scale = scale;
    o.edge_factor = 16;
    o.seed = seed;
    o.undirected = true;
    o.weights = std::is_integral_v<T> ? weight_range::integers(static_cast<std::int64_t>(lo),
                                                               static_cast<std::int64_t>(hi))
                                      : weight_range(lo, hi);
    return kronecker_graph<T>(o);
}

/// Sources: the first vertex with an edge, the last vertex, and `more` random ones.
template <class T>
std::vector<std::size_t> sources(csr_matrix<T> const& a, std::size_t more, std::uint64_t seed) {
    std::vector<std::size_t> s;
    if (a.rows() == 0) return s;
    for (std::size_t v = 0; v < a.rows(); ++v)
        if (a.row_end(v) > a.row_begin(v)) {
            s.push_back(v);
            break;
        }
    s.push_back(a.rows() - 1);
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < more; ++i) s.push_back(rng() % a.rows());
    return s;
}

/// delta-stepping (automatic and given widths) on 1..4 threads from every source, against Dijkstra.
template <class T>
void check_delta_stepping(csr_matrix<T> const& a, std::vector<std::size_t> const& srcs,
                          std::vector<double> const& deltas, std::string const& what) {
    for (std::size_t s : srcs) {
        auto const want = dijkstra(a, s);
        for (int threads : {1, 2, 3, 4}) {
            thread_count tc(threads);
            for (double delta : deltas) {
                sssp_options o;
                o.device = device_choice::cpu;
                o.method = sssp_method::delta_stepping;
                o.delta = delta;
                auto const r = sssp(a, s, o);
                BOOST_TEST(mismatches(r.dist, want) == 0u, what << ": source " << s << ", "
                                                                << threads << " threads, delta "
                                                                << delta);
            }
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(delta_stepping_random_graphs_of_many_sizes) {
    // Small ones run on one thread (one per 32k edges), the larger ones on up to 4.
    std::uint64_t seed = 100;
    for (std::size_t n : {1u, 2u, 5u, 17u, 100u, 1000u, 6000u, 20000u}) {
        for (bool undirected : {false, true}) {
            std::size_t const m = n * (n < 100 ? 3 : 9);
            auto const i32 = random_graph<std::int32_t>(n, m, ++seed, 0, 40, undirected);
            check_delta_stepping(i32, sources(i32, 2, seed), {0.0, 1.0, 13.0},
                                 "int32 n=" + std::to_string(n));
            auto const f64 = random_graph<double>(n, m, ++seed, 0, 3, undirected);
            check_delta_stepping(f64, sources(f64, 2, seed), {0.0, 0.05, 2.0},
                                 "double n=" + std::to_string(n));
        }
    }
    // Kronecker graphs large enough for 4 threads, weights as GAP's (1..255) and with zeros.
    auto const k = kronecker<std::int32_t>(13, 7, 1, 255);
    BOOST_TEST(k.nnz() >= 4u * 32768u);
    check_delta_stepping(k, sources(k, 6, 8), {0.0, 2.0, 64.0}, "kronecker 1..255");
    auto const kz = kronecker<std::int32_t>(13, 9, 0, 3);
    check_delta_stepping(kz, sources(kz, 6, 10), {0.0, 1.0, 4.0}, "kronecker 0..3");
    auto const kf = kronecker<float>(12, 11, 0, 1);
    check_delta_stepping(kf, sources(kf, 3, 12), {0.0, 0.01}, "kronecker float 0..1");
}

BOOST_AUTO_TEST_CASE(delta_stepping_long_rows_split) {
    // Hubs of 6000 edges (past the 4096 split length) met in the same buckets on several threads,
    // with zero weights among them; many sources, hubs among them.
    auto const a = with_hubs<std::int64_t>(30000, 90000, 6, 6000, 31, 0, 50);
    auto src = sources(a, 6, 32);
    src.push_back(a.rows() - 3);
    check_delta_stepping(a, src, {0.0, 1.0, 7.0, 1000.0}, "hubs int64");
    auto const f = with_hubs<double>(20000, 60000, 4, 9000, 33, 0.5, 2);
    check_delta_stepping(f, sources(f, 3, 34), {0.0, 0.25}, "hubs double");
    // The explain trace counts the split rows.
    thread_count tc(4);
    sssp_options o;
    o.device = device_choice::cpu;
    o.method = sssp_method::delta_stepping;
    o.delta = 1;
    explain_trace t;
    o.explain = &t;
    sssp(a, src.front(), o);
    bool split = false;
    for (auto const& l : t.lines)
        split = split || (l.find("long rows split") != std::string::npos &&
                          l.find(" 0 long rows split") == std::string::npos);
    BOOST_TEST(split, t.str());
}

BOOST_AUTO_TEST_CASE(delta_stepping_disconnected_loops_duplicates_isolated) {
    // Two components and isolated vertices, self-loops (weight 0 and positive), repeated pairs
    // with different weights (the lightest is stored).
    std::vector<std::int32_t> ii, jj;
    std::vector<std::int32_t> vv;
    auto edge = [&](int u, int v, int w) {
        ii.push_back(u);
        jj.push_back(v);
        vv.push_back(w);
    };
    edge(0, 1, 5);
    edge(0, 1, 2);  // duplicate, lighter
    edge(1, 2, 0);
    edge(2, 2, 0);  // zero self-loop
    edge(2, 0, 1);
    edge(1, 1, 7);  // self-loop
    edge(2, 3, 9);
    edge(3, 4, 0);
    edge(4, 3, 0);  // zero-weight cycle
    edge(6, 7, 1);  // second component (5 is isolated, 8 too)
    edge(7, 6, 1);
    edge(7, 7, 3);
    auto const a = csr_matrix<std::int32_t>::from_coo(9, 9, ii, jj, vv, duplicate_policy::min);
    std::vector<std::size_t> all(9);
    for (std::size_t v = 0; v < 9; ++v) all[v] = v;
    check_delta_stepping(a, all, {0.0, 1.0, 3.0, 100.0}, "small mixed graph");
    auto const r = sssp(a, 0, {});
    BOOST_TEST(r.dist[2] == 2);
    BOOST_TEST(r.dist[4] == 11);
    BOOST_TEST(r.dist[5] == infinity<std::int32_t>());
    BOOST_TEST(r.dist[6] == infinity<std::int32_t>());
    // One vertex, with and without a self-loop; no vertices (every source is out of range).
    auto const one = csr_matrix<double>::from_coo(
        1, 1, std::vector<std::int32_t>{0}, std::vector<std::int32_t>{0}, std::vector<double>{2.5});
    BOOST_TEST(sssp(one, 0, {}).dist == std::vector<double>{0.0});
    BOOST_TEST(sssp(csr_matrix<double>(1, 1), 0, {}).dist == std::vector<double>{0.0});
    BOOST_CHECK_THROW(sssp(csr_matrix<double>(0, 0), 0, {}), kleene::invalid_argument);
    bfs_options bo;
    bo.parents = true;
    bo.levels = false;
    BOOST_CHECK_THROW(bfs(csr_matrix<double>(0, 0), 0, bo), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(delta_stepping_sums_near_the_type_limit) {
    // B (the sum of each vertex's heaviest edge) is 2.1e9, within int32, but B + the heaviest
    // edge is not: the saturating sums run, and say so.
    std::vector<std::int32_t> ii{0, 1, 2, 2}, jj{1, 2, 0, 3};
    std::vector<std::int32_t> vv{1000000000, 1000000000, 100000000, 50000000};
    auto const a = csr_matrix<std::int32_t>::from_coo(4, 4, ii, jj, vv);
    check_delta_stepping(a, {0, 1, 2, 3}, {0.0, 1.0, 1e9}, "near int32 max");
    sssp_options o;
    explain_trace t;
    o.explain = &t;
    auto const r = sssp(a, 0, o);
    BOOST_TEST(r.dist[2] == 2000000000);
    BOOST_TEST(r.dist[3] == 2050000000);
    BOOST_TEST(t.str().find("saturating sums") != std::string::npos, t.str());
    // GAP's weights on a Kronecker graph: plain sums.
    auto const k = kronecker<std::int32_t>(10, 40, 1, 255);
    explain_trace tk;
    o.explain = &tk;
    BOOST_TEST(mismatches(sssp(k, 0, o).dist, dijkstra(k, 0)) == 0u);
    BOOST_TEST(tk.str().find("saturating") == std::string::npos, tk.str());
    // A distance past the type: overflow_error (the checks of path_weights.hpp still run).
    std::vector<std::int32_t> const pi{0, 1}, pj{1, 2}, pv{2000000000, 2000000000};
    auto const b = csr_matrix<std::int32_t>::from_coo(3, 3, pi, pj, pv);
    BOOST_CHECK_THROW(sssp(b, 0, {}), overflow_error);
    BOOST_TEST(sssp(b, 1, {}).dist[2] == 2000000000);
    // A random graph whose quick bound (n * the heaviest weight) is past int32: the exact bound is
    // computed.
    auto const c = random_graph<std::int32_t>(3000, 6000, 41, 0, 800000, false);
    check_delta_stepping(c, sources(c, 2, 42), {0.0, 1000.0}, "quick bound past int32");
}

BOOST_AUTO_TEST_CASE(weight_summary_and_automatic_delta) {
    auto const k = kronecker<std::int32_t>(10, 51, 1, 255);
    auto const s = detail::summarise_weights(k);
    // The summary against a plain loop.
    double sum = 0;
    std::int32_t lo = std::numeric_limits<std::int32_t>::max(), hi = 0;
    for (std::size_t e = 0; e < k.nnz(); ++e) {
        sum += k.values()[e];
        lo = std::min(lo, k.values()[e]);
        hi = std::max(hi, k.values()[e]);
    }
    BOOST_TEST(s.min == lo);
    BOOST_TEST(s.max_abs == hi);
    BOOST_TEST(std::fabs(s.mean - sum / static_cast<double>(k.nnz())) < 1e-9);
    BOOST_TEST(!s.negative);
    BOOST_TEST(!s.non_finite);
    BOOST_TEST(s.quick_bound >= weight_bound(k, "test").bound);
    // Negative weights and iso matrices.
    auto const neg = random_graph<double>(200, 800, 52, -2, 5, false);
    BOOST_TEST(detail::summarise_weights(neg).negative);
    csr_matrix<float> const iso(k.rows(), k.cols(), k.row_ptr_storage(), k.col_idx_storage(),
                                buffer<float>{}, 0.5f, true);
    BOOST_TEST(detail::summarise_weights(iso).mean == 0.5);
    // The width: mean / degree from degree 32 up; wider below (road networks: about 8 times the
    // mean weight at degree 2.5), never narrower, falling as the degree grows.
    BOOST_TEST(detail::automatic_delta(128, 64) == 2.0);
    BOOST_TEST(detail::automatic_delta(128, 32) == 4.0);
    BOOST_TEST(detail::automatic_delta(128, 2.5) > 1000.0);
    BOOST_TEST(detail::automatic_delta(128, 2.5) < 2000.0);
    for (double deg = 1; deg < 64; deg *= 1.5)
        BOOST_TEST(detail::automatic_delta(128, deg) > detail::automatic_delta(128, deg * 1.5));
    BOOST_TEST(detail::automatic_delta(0, 4) == 1.0);
    // The explain trace names the automatic width and where it came from.
    sssp_options o;
    o.device = device_choice::cpu;
    explain_trace t;
    o.explain = &t;
    auto const r = sssp(k, 0, o);
    BOOST_TEST(mismatches(r.dist, dijkstra(k, 0)) == 0u);
    BOOST_TEST(t.str().find("automatic") != std::string::npos, t.str());
    // NaN and infinite weights are refused, also in the one-pass summary.
    for (double bad :
         {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        auto g = random_graph<double>(50, 200, 53, 0, 1, false);
        std::vector<std::int32_t> ii, jj;
        std::vector<double> vv;
        for (std::size_t u = 0; u < g.rows(); ++u)
            for (std::size_t e = g.row_begin(u); e < g.row_end(u); ++e) {
                ii.push_back(static_cast<std::int32_t>(u));
                jj.push_back(g.col_idx()[e]);
                vv.push_back(e == 17 ? bad : g.value(e));
            }
        auto const h = csr_matrix<double>::from_coo(50, 50, ii, jj, vv);
        BOOST_CHECK_THROW(sssp(h, 0, {}), kleene::invalid_argument);
    }
}

BOOST_AUTO_TEST_CASE(bfs_parents_without_levels) {
    std::uint64_t seed = 200;
    std::vector<csr_matrix<std::int32_t>> graphs;
    for (std::size_t n : {1u, 3u, 50u, 2000u, 30000u})
        graphs.push_back(random_graph<std::int32_t>(n, 4 * n, ++seed, 1, 1, true));
    graphs.push_back(kronecker<std::int32_t>(14, 61, 1, 1));
    graphs.push_back(with_hubs<std::int32_t>(20000, 40000, 3, 7000, 62, 1, 1));
    for (auto const& a : graphs)
        for (std::size_t s : sources(a, 3, a.rows())) {
            auto const want = queue_bfs(a, s);
            for (int threads : {1, 2, 4}) {
                thread_count tc(threads);
                for (auto dir :
                     {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull})
                    for (bool sym : {false, true}) {
                        bfs_options o;
                        o.device = device_choice::cpu;
                        o.direction = dir;
                        o.parents = true;
                        o.levels = false;
                        o.symmetric = sym;
                        auto const r = bfs(a, s, o);
                        BOOST_TEST(r.level.empty());
                        BOOST_REQUIRE_EQUAL(r.parent.size(), a.rows());
                        std::size_t bad = 0;
                        for (std::size_t v = 0; v < a.rows(); ++v) {
                            std::int64_t const p = r.parent[v];
                            if (want[v] < 0)
                                bad += p != -1;
                            else if (v == s)
                                bad += p != static_cast<std::int64_t>(s);
                            else
                                bad +=
                                    !(p >= 0 && want[static_cast<std::size_t>(p)] == want[v] - 1 &&
                                      a.find(static_cast<std::size_t>(p), v) >= 0);
                        }
                        BOOST_TEST(bad == 0u, "n=" << a.rows() << " source " << s << ", " << threads
                                                   << " threads, direction " << int(dir)
                                                   << ", symmetric " << sym);
                    }
            }
        }
    bfs_options none;
    none.parents = false;
    none.levels = false;
    BOOST_CHECK_THROW(bfs(graphs[2], 0, none), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(results_reused_across_searches) {
    // One result object through graphs of different sizes (its vectors resized, or refilled in
    // parallel when the size matches), sources, threads, and with parents on and off.
    std::vector<csr_matrix<std::int32_t>> graphs;
    graphs.push_back(kronecker<std::int32_t>(14, 71, 0, 20));
    graphs.push_back(random_graph<std::int32_t>(500, 2000, 72, 1, 9, false));
    graphs.push_back(kronecker<std::int32_t>(14, 71, 0, 20));
    graphs.push_back(random_graph<std::int32_t>(1, 1, 73, 1, 1, false));
    sssp_result<std::int32_t> sr;
    bfs_result br;
    bool parents = false;
    for (auto const& a : graphs)
        for (std::size_t s : sources(a, 2, a.rows() + 7)) {
            parents = !parents;
            auto const want = dijkstra(a, s);
            auto const levels = queue_bfs(a, s);
            for (int threads : {1, 4}) {
                thread_count tc(threads);
                sssp_options so;
                so.device = device_choice::cpu;
                so.parents = parents;
                sssp(sr, a, s, so);
                BOOST_TEST(mismatches(sr.dist, want) == 0u,
                           "sssp n=" << a.rows() << " source " << s);
                BOOST_TEST(sr.parent.size() == (parents ? a.rows() : 0u));
                bfs_options bo;
                bo.device = device_choice::cpu;
                bo.parents = parents;
                bfs(br, a, s, bo);
                BOOST_TEST((br.level == levels), "bfs n=" << a.rows() << " source " << s);
                BOOST_TEST(br.parent.size() == (parents ? a.rows() : 0u));
                for (std::size_t v = 0; parents && v < a.rows(); ++v)
                    BOOST_TEST((levels[v] < 0 ? br.parent[v] == -1
                                : v == s      ? br.parent[v] == static_cast<std::int64_t>(s)
                                              : levels[static_cast<std::size_t>(br.parent[v])] ==
                                               levels[v] - 1));
                bo.parents = true;
                bo.levels = false;
                bfs(br, a, s, bo);
                BOOST_TEST(br.level.empty());
                BOOST_TEST(br.parent.size() == a.rows());
            }
        }
}

// BFS, SSSP and the graph generators on the CPU against plain references: a queue BFS, Dijkstra
// with a binary heap, textbook Bellman-Ford. Random uniform and Kronecker graphs, directed and
// undirected, disconnected, with self-loops, n = 1, no edges; forced push, forced pull and the
// automatic switch; 1, 2 and 3 threads; parents checked as BFS / shortest-path trees; negative
// cycles; delta-stepping over a range of bucket widths; generator determinism and edge counts.

#define BOOST_TEST_MODULE bfs_sssp
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
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace kleene;

// ---- references ---------------------------------------------------------------------------------

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

template <class T, class Index>
std::vector<T> dijkstra(csr_matrix<T, Index> const& a, std::size_t s) {
    std::vector<T> d(a.rows(), infinity<T>());
    using item = std::pair<T, std::size_t>;
    std::priority_queue<item, std::vector<item>, std::greater<>> heap;
    d[s] = T(0);
    heap.push({T(0), s});
    while (!heap.empty()) {
        auto const [du, u] = heap.top();
        heap.pop();
        if (du > d[u]) continue;
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            T const nd = du + a.value(k);
            if (nd < d[v]) {
                d[v] = nd;
                heap.push({nd, v});
            }
        }
    }
    return d;
}

/// Textbook Bellman-Ford: n - 1 rounds over every edge (graphs without reachable negative cycles).
template <class T, class Index>
std::vector<T> textbook_bellman_ford(csr_matrix<T, Index> const& a, std::size_t s) {
    std::size_t const n = a.rows();
    std::vector<T> d(n, infinity<T>());
    d[s] = T(0);
    for (std::size_t round = 0; round + 1 < n; ++round)
        for (std::size_t u = 0; u < n; ++u) {
            if (d[u] == infinity<T>()) continue;
            for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
                auto const v = static_cast<std::size_t>(a.col_idx()[k]);
                d[v] = std::min(d[v], T(d[u] + a.value(k)));
            }
        }
    return d;
}

// ---- checks
// ---------------------------------------------------------------------------------------

/// Levels equal the reference; every parent is one level up and an in-neighbour; unreached: -1.
template <class T, class Index>
void check_bfs(csr_matrix<T, Index> const& a, std::size_t s, bfs_result const& r, bool parents,
               std::string const& what) {
    BOOST_TEST_CONTEXT(what) {
        auto const want = queue_bfs(a, s);
        BOOST_REQUIRE_EQUAL(r.level.size(), want.size());
        std::size_t bad_level = 0, bad_parent = 0;
        for (std::size_t v = 0; v < want.size(); ++v) bad_level += r.level[v] != want[v];
        BOOST_TEST(bad_level == 0u);
        if (!parents) {
            BOOST_TEST(r.parent.empty());
            return;
        }
        BOOST_REQUIRE_EQUAL(r.parent.size(), want.size());
        for (std::size_t v = 0; v < want.size(); ++v) {
            std::int64_t const p = r.parent[v];
            if (want[v] < 0) {
                bad_parent += p != -1;
            } else if (v == s) {
                bad_parent += p != static_cast<std::int64_t>(s);
            } else {
                bool const ok = p >= 0 && static_cast<std::size_t>(p) < want.size() &&
                                want[static_cast<std::size_t>(p)] == want[v] - 1 &&
                                a.find(static_cast<std::size_t>(p), v) >= 0;
                bad_parent += !ok;
            }
        }
        BOOST_TEST(bad_parent == 0u);
    }
}

template <class T>
bool close(T got, T want) {
    if (got == want) return true;
    if constexpr (std::is_floating_point_v<T>)
        return std::abs(double(got) - double(want)) <= 1e-5 * (1 + std::abs(double(want)));
    return false;
}

template <class T>
std::size_t mismatches(std::vector<T> const& got, std::vector<T> const& want) {
    if (got.size() != want.size()) return std::max(got.size(), want.size()) + 1;
    std::size_t bad = 0;
    for (std::size_t v = 0; v < want.size(); ++v) bad += !close(got[v], want[v]);
    return bad;
}

/// Parents form a tree rooted at s whose edges are tight: d[p] + w(p, v) == d[v].
template <class T, class Index>
void check_sssp_parents(csr_matrix<T, Index> const& a, std::size_t s, sssp_result<T> const& r) {
    std::size_t const n = a.rows();
    BOOST_REQUIRE_EQUAL(r.parent.size(), n);
    std::size_t bad = 0;
    for (std::size_t v = 0; v < n; ++v) {
        std::int64_t const p = r.parent[v];
        if (r.dist[v] == infinity<T>()) {
            bad += p != -1;
            continue;
        }
        if (v == s) {
            bad += p != static_cast<std::int64_t>(s);
            continue;
        }
        auto const k = p >= 0 ? a.find(static_cast<std::size_t>(p), v) : -1;
        bad += k < 0 ||
               !close(T(r.dist[static_cast<std::size_t>(p)] + a.value(static_cast<std::size_t>(k))),
                      r.dist[v]);
        // Walking up reaches the source within n steps (no cycle among the parents).
        std::size_t x = v, steps = 0;
        while (x != s && steps <= n && r.parent[x] >= 0) {
            x = static_cast<std::size_t>(r.parent[x]);
            ++steps;
        }
        bad += x != s;
    }
    BOOST_TEST(bad == 0u);
}

// ---- graphs
// ---------------------------------------------------------------------------------------

csr_matrix<bool> uniform(std::size_t n, std::size_t m, std::uint64_t seed, bool undirected,
                         bool loops = false) {
    uniform_options o;
    o.vertices = n;
    o.edges = m;
    o.seed = seed;
    o.undirected = undirected;
    o.self_loops = loops;
    return uniform_graph<bool>(o);
}

csr_matrix<bool> kronecker(int scale, std::uint64_t seed, bool undirected, double edge_factor = 8) {
    kronecker_options o;
    o.scale = scale;
    o.edge_factor = edge_factor;
    o.seed = seed;
    o.undirected = undirected;
    return kronecker_graph<bool>(o);
}

/// Two separate copies of `g` side by side (block diagonal): half the vertices are unreachable.
template <class T>
csr_matrix<T> two_copies(csr_matrix<T> const& g) {
    std::vector<std::int32_t> ii, jj;
    std::vector<T> vv;  // unused for bool (a pattern)
    auto const n = static_cast<std::int32_t>(g.rows());
    for (std::int32_t c = 0; c < 2; ++c)
        for (std::size_t u = 0; u < g.rows(); ++u)
            for (std::size_t k = g.row_begin(u); k < g.row_end(u); ++k) {
                ii.push_back(static_cast<std::int32_t>(u) + c * n);
                jj.push_back(g.col_idx()[k] + c * n);
                vv.push_back(g.value(k));
            }
    if constexpr (std::is_same_v<T, bool>)
        return csr_matrix<T>::from_coo(2 * g.rows(), 2 * g.rows(), ii, jj, std::span<bool const>{});
    else
        return csr_matrix<T>::from_coo(2 * g.rows(), 2 * g.rows(), ii, jj, vv);
}

/// Some vertex with out-edges (the first one), or 0.
template <class T, class Index>
std::size_t busy_vertex(csr_matrix<T, Index> const& a, std::size_t from = 0) {
    for (std::size_t v = from; v < a.rows(); ++v)
        if (a.row_end(v) > a.row_begin(v)) return v;
    return 0;
}

struct thread_count {
    int saved = omp_get_max_threads();
    explicit thread_count(int t) { omp_set_num_threads(t); }
    ~thread_count() { omp_set_num_threads(saved); }
};

/// Every direction, with and without parents, symmetric where the graph is, on 1, 2 and 3 threads,
/// with push levels on one thread (serial_edges large), on all (0) and by the default; parallel
/// push levels split by vertices and by edges (split_edges 0).
template <class T, class Index>
void bfs_all_ways(csr_matrix<T, Index> const& a, std::size_t s, bool undirected,
                  std::string const& name) {
    struct push_mode {
        std::int64_t serial_edges, split_edges;
    };
    for (int threads : {1, 2, 3}) {
        thread_count tc(threads);
        for (auto dir : {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull})
            for (bool parents : {false, true})
                for (bool sym : {false, true})
                    for (push_mode pm : {push_mode{-1, -1}, push_mode{0, -1}, push_mode{0, 0},
                                         push_mode{std::int64_t(1) << 40, -1}}) {
                        if (sym && !undirected) continue;
                        bfs_options o;
                        o.device = device_choice::cpu;
                        o.direction = dir;
                        o.parents = parents;
                        o.symmetric = sym;
                        o.serial_edges = pm.serial_edges;
                        o.split_edges = pm.split_edges;
                        check_bfs(a, s, bfs(a, s, o), parents,
                                  name + " threads=" + std::to_string(threads) + " direction=" +
                                      std::to_string(int(dir)) + " parents=" +
                                      std::to_string(parents) + " symmetric=" +
                                      std::to_string(sym) + " serial_edges=" +
                                      std::to_string(pm.serial_edges) + " split_edges=" +
                                      std::to_string(pm.split_edges));
                    }
    }
}

}  // namespace

// ---- BFS
// ------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(bfs_uniform_directed_and_undirected) {
    for (bool undirected : {false, true})
        for (std::uint64_t seed : {1u, 2u}) {
            auto const a = uniform(3000, 9000, seed, undirected);
            bfs_all_ways(a, busy_vertex(a), undirected, "uniform seed " + std::to_string(seed));
        }
}

BOOST_AUTO_TEST_CASE(bfs_kronecker) {
    for (bool undirected : {false, true}) {
        auto const a = kronecker(12, 7, undirected);
        bfs_all_ways(a, busy_vertex(a, 100), undirected, "kronecker");
    }
}

BOOST_AUTO_TEST_CASE(bfs_disconnected_self_loops_tiny) {
    auto const d = two_copies(uniform(500, 2500, 3, true));
    bfs_all_ways(d, busy_vertex(d), true, "disconnected");
    bfs_all_ways(d, busy_vertex(d, 500), true, "disconnected, second half");
    auto const loops = uniform(400, 1200, 4, false, true);
    bfs_all_ways(loops, busy_vertex(loops), false, "self-loops");
    csr_matrix<bool> one(1, 1);
    bfs_all_ways(one, 0, true, "n=1");
    auto const one_loop = csr_matrix<bool>::from_coo(
        1, 1, std::vector<std::int32_t>{0}, std::vector<std::int32_t>{0}, std::span<bool const>{});
    bfs_all_ways(one_loop, 0, true, "n=1 with a self-loop");
    csr_matrix<float> empty(7, 7);
    bfs_all_ways(empty, 3, true, "no edges");
    // A long path (many levels, a frontier of one vertex): pull steps scan almost everything.
    std::vector<std::int32_t> ii, jj;
    for (std::int32_t v = 0; v + 1 < 300; ++v) {
        ii.push_back(v + 1);
        jj.push_back(v);
    }
    auto const path = csr_matrix<bool>::from_coo(300, 300, ii, jj, std::span<bool const>{});
    bfs_all_ways(path, 299, false, "path");
}

BOOST_AUTO_TEST_CASE(bfs_into_a_reused_result) {
    // bfs(r, ...) into a result left by a larger graph, a smaller one and the same one: every
    // entry is rewritten (a fresh result's values start uninitialised: vector_for_overwrite).
    auto const big = uniform(100000, 400000, 5, true);
    auto const small = uniform(3000, 9000, 6, true);
    bfs_options o;
    o.parents = true;
    bfs_result r;
    for (auto const* g : {&big, &small, &small, &big, &big}) {
        std::size_t const s = busy_vertex(*g);
        bfs(r, *g, s, o);
        bfs_result const fresh = bfs(*g, s, o);
        BOOST_TEST(r.level.size() == g->rows());
        BOOST_TEST((r.level == fresh.level));
        std::vector<std::int64_t> const copy(r.level.begin(), r.level.end());
        BOOST_TEST((copy == r.level));  // std::vector == vector_for_overwrite, both ways
        BOOST_TEST((r.level == copy));
        BOOST_TEST(std::count(r.parent.begin(), r.parent.end(), -1) ==
                   std::count(r.level.begin(), r.level.end(), -1));
        BOOST_TEST(r.parent[s] == static_cast<std::int64_t>(s));
    }
    // Parents only: the levels are left empty, and filled again when asked for.
    o.levels = false;
    bfs(r, big, busy_vertex(big), o);
    BOOST_TEST(r.level.empty());
    BOOST_TEST(r.parent.size() == big.rows());
    o.levels = true;
    bfs(r, big, busy_vertex(big), o);
    BOOST_TEST((r.level == bfs(big, busy_vertex(big), o).level));
}

BOOST_AUTO_TEST_CASE(bfs_and_bellman_ford_large_frontiers) {
    // Levels of tens of thousands of vertices: the parallel prefix sums and list <-> bitmap
    // conversions of the frontier.
    auto const a = uniform(120000, 360000, 8, true);
    std::size_t const s = busy_vertex(a);
    for (int threads : {2, 3}) {
        thread_count tc(threads);
        for (auto dir : {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull}) {
            bfs_options o;
            o.device = device_choice::cpu;
            o.direction = dir;
            o.parents = true;
            o.symmetric = dir == bfs_direction::pull;
            check_bfs(a, s, bfs(a, s, o), true, "large, direction " + std::to_string(int(dir)));
        }
    }
    uniform_options w;
    w.vertices = 60000;
    w.edges = 240000;
    w.seed = 9;
    w.weights = weight_range{1, 100};
    auto const g = uniform_graph<std::int64_t>(w);
    sssp_options o;
    o.device = device_choice::cpu;
    o.method = sssp_method::bellman_ford;
    BOOST_TEST(mismatches(sssp(g, busy_vertex(g), o).dist, dijkstra(g, busy_vertex(g))) == 0u);
}

BOOST_AUTO_TEST_CASE(bfs_int64_indices_given_transpose_and_weights) {
    kronecker_options o;
    o.scale = 10;
    o.seed = 11;
    o.weights = weight_range{1, 9};
    auto const a = kronecker_graph<double, std::int64_t>(o);
    auto const at = cpu::transpose_csr(a);
    std::size_t const s = busy_vertex(a);
    for (auto dir : {bfs_direction::automatic, bfs_direction::pull}) {
        bfs_options opt;
        opt.device = device_choice::cpu;
        opt.direction = dir;
        opt.parents = true;
        check_bfs(a, s, bfs(a, at, s, opt), true, "given transpose");
        check_bfs(a, s, bfs(a, s, opt), true, "made transpose");
    }
}

BOOST_AUTO_TEST_CASE(bfs_explain_and_errors) {
    auto const a = kronecker(12, 5, true, 16);
    explain_trace trace;
    bfs_options o;
    o.device = device_choice::cpu;
    o.symmetric = true;
    o.explain = &trace;
    check_bfs(a, busy_vertex(a), bfs(a, busy_vertex(a), o), false, "explained");
    std::string const s = trace.str();
    BOOST_TEST(s.find("cpu") != std::string::npos);
    BOOST_TEST(s.find(": push") != std::string::npos);
    // A Kronecker graph's middle levels hold most of it: the automatic rule pulls there.
    BOOST_TEST(s.find(": pull") != std::string::npos, s);

    BOOST_CHECK_THROW(bfs(a, a.rows(), o), kleene::invalid_argument);
    BOOST_CHECK_THROW(bfs(csr_matrix<bool>(3, 4), 0, o), dimension_mismatch);
    if (cuda::device_count() == 0) {
        bfs_options g;
        g.device = device_choice::gpu;
        BOOST_CHECK_THROW(bfs(a, 0, g), no_device);
        // automatic without a device: the CPU, said so in the trace.
        explain_trace t2;
        g.device = device_choice::automatic;
        g.explain = &t2;
        BOOST_TEST((bfs(a, 0, g).device == device_choice::cpu));
        BOOST_TEST(t2.str().find("no device") != std::string::npos);
    } else {
        // With a GPU: the same answers through kleene::cuda::bfs, directed and undirected.
        auto const d = kronecker(12, 6, false, 16);
        std::size_t const s = busy_vertex(d);
        for (auto dir : {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull}) {
            bfs_options g;
            g.device = device_choice::gpu;
            g.direction = dir;
            g.parents = true;
            auto const r = bfs(d, s, g);
            BOOST_TEST((r.device == device_choice::gpu));
            check_bfs(d, s, r, true, "gpu, directed");
            g.symmetric = true;
            check_bfs(a, busy_vertex(a), bfs(a, busy_vertex(a), g), true, "gpu, undirected");
        }
    }
}

// ---- SSSP
// -----------------------------------------------------------------------------------------

namespace {

template <class T>
csr_matrix<T> weighted_uniform(std::size_t n, std::size_t m, std::uint64_t seed, bool undirected,
                               double lo, double hi) {
    uniform_options o;
    o.vertices = n;
    o.edges = m;
    o.seed = seed;
    o.undirected = undirected;
    o.weights = weight_range{lo, hi};
    return uniform_graph<T>(o);
}

template <class T>
csr_matrix<T> weighted_kronecker(int scale, std::uint64_t seed, bool undirected, double lo,
                                 double hi) {
    kronecker_options o;
    o.scale = scale;
    o.edge_factor = 8;
    o.seed = seed;
    o.undirected = undirected;
    o.weights = weight_range{lo, hi};
    return kronecker_graph<T>(o);
}

template <class T>
void sssp_all_ways(csr_matrix<T> const& a, std::size_t s, std::string const& name) {
    auto const want = dijkstra(a, s);
    for (int threads : {1, 2, 3}) {
        thread_count tc(threads);
        for (auto method :
             {sssp_method::automatic, sssp_method::bellman_ford, sssp_method::delta_stepping}) {
            sssp_options o;
            o.device = device_choice::cpu;
            o.method = method;
            o.parents = true;
            auto const r = sssp(a, s, o);
            BOOST_TEST_CONTEXT(name << " threads=" << threads << " method=" << to_string(method)) {
                BOOST_TEST(mismatches(r.dist, want) == 0u);
                check_sssp_parents(a, s, r);
                BOOST_TEST(
                    (r.method ==
                     (method == sssp_method::automatic ? sssp_method::delta_stepping : method)));
            }
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(sssp_against_dijkstra) {
    for (bool undirected : {false, true}) {
        auto const u = weighted_uniform<double>(2000, 8000, 21, undirected, 0.5, 10);
        sssp_all_ways(u, busy_vertex(u), "uniform double");
        auto const k = weighted_kronecker<std::int32_t>(11, 22, undirected, 1, 255);
        sssp_all_ways(k, busy_vertex(k, 50), "kronecker int32");
        auto const f = weighted_kronecker<float>(10, 23, undirected, 0, 1);
        sssp_all_ways(f, busy_vertex(f), "kronecker float, zero weights possible");
        auto const i64 = weighted_uniform<std::int64_t>(1500, 6000, 24, undirected, 0, 3);
        sssp_all_ways(i64, busy_vertex(i64), "uniform int64 with zero weights");
    }
    auto const d = two_copies(weighted_uniform<double>(300, 1200, 25, true, 1, 5));
    sssp_all_ways(d, busy_vertex(d, 300), "disconnected");
    sssp_all_ways(csr_matrix<double>(1, 1), 0, "n=1");
    sssp_all_ways(csr_matrix<std::int32_t>(4, 4), 2, "no edges");
    // Pattern: weight 1 everywhere, distances are BFS levels.
    auto const p = kronecker(10, 26, false);
    csr_matrix<std::int64_t> const pw(p.rows(), p.cols(), p.row_ptr_storage(), p.col_idx_storage(),
                                      buffer<std::int64_t>{}, 1, true);
    auto const r = sssp(pw, busy_vertex(pw), {});
    auto const lv = queue_bfs(p, busy_vertex(pw));
    std::size_t bad = 0;
    for (std::size_t v = 0; v < lv.size(); ++v)
        bad += lv[v] < 0 ? r.dist[v] != infinity<std::int64_t>() : r.dist[v] != lv[v];
    BOOST_TEST(bad == 0u);
}

BOOST_AUTO_TEST_CASE(delta_stepping_bucket_widths) {
    auto const a = weighted_kronecker<double>(11, 31, true, 0.25, 100);
    auto const b = weighted_uniform<std::int32_t>(3000, 12000, 32, false, 1, 1000);
    auto const want_a = dijkstra(a, busy_vertex(a));
    auto const want_b = dijkstra(b, busy_vertex(b));
    // From far below the smallest weight (bucket ring wraps, far slot used) to above the diameter.
    for (double delta : {0.0, 1e-3, 0.3, 1.0, 7.0, 50.0, 1e6}) {
        sssp_options o;
        o.device = device_choice::cpu;
        o.method = sssp_method::delta_stepping;
        o.delta = delta;
        BOOST_TEST_CONTEXT("delta " << delta) {
            BOOST_TEST(mismatches(sssp(a, busy_vertex(a), o).dist, want_a) == 0u);
            BOOST_TEST(mismatches(sssp(b, busy_vertex(b), o).dist, want_b) == 0u);
        }
    }
}

namespace {
/// Random edges with weights w0 + pot(u) - pot(v) (w0 >= 0): negative edges, no negative cycle.
/// `cycle` adds 0 -> 1 -> 2 -> 0 of total weight -3, and then no other edge enters 0, 1 or 2: that
/// cycle is the only negative one, and no vertex but 0, 1, 2 reaches it.
template <class T>
csr_matrix<T> potential_graph(std::size_t n, std::size_t m, std::uint64_t seed, bool cycle) {
    std::mt19937_64 rng(seed);
    std::vector<int> pot(n);
    for (auto& x : pot) x = static_cast<int>(rng() % 30);
    std::vector<std::int32_t> ii, jj;
    std::vector<T> vv;
    for (std::size_t e = 0; e < m; ++e) {
        auto const u = static_cast<std::int32_t>(rng() % n),
                   v = static_cast<std::int32_t>(rng() % n);
        if (u == v || (cycle && v < 3)) continue;
        ii.push_back(u);
        jj.push_back(v);
        vv.push_back(T(static_cast<int>(rng() % 20) + pot[u] - pot[v]));
    }
    if (cycle)
        for (std::int32_t k = 0; k < 3; ++k) {
            ii.push_back(k);
            jj.push_back((k + 1) % 3);
            vv.push_back(T(-1));
        }
    return csr_matrix<T>::from_coo(n, n, ii, jj, vv, duplicate_policy::last);
}
}  // namespace

BOOST_AUTO_TEST_CASE(negative_weights_and_cycles) {
    for (int threads : {1, 2}) {
        thread_count tc(threads);
        auto const a = potential_graph<std::int32_t>(800, 4000, 41, false);
        auto const want = textbook_bellman_ford(a, 5);
        sssp_options o;
        o.device = device_choice::cpu;
        o.parents = true;
        auto const r = sssp(a, 5, o);
        BOOST_TEST((r.method == sssp_method::bellman_ford));
        BOOST_TEST(mismatches(r.dist, want) == 0u);
        check_sssp_parents(a, 5, r);
        o.method = sssp_method::delta_stepping;
        BOOST_CHECK_THROW(sssp(a, 5, o), kleene::invalid_argument);

        auto const c = potential_graph<double>(200, 300, 42, true);
        o.method = sssp_method::automatic;
        auto const from = queue_bfs(c, 0);
        bool threw = false;
        try {
            sssp(c, 0, o);
        } catch (negative_cycle const& e) {
            threw = true;
            BOOST_TEST((e.vertex() >= 0 && e.vertex() < 3),
                       "vertex " << e.vertex() << " is not on the cycle");
        }
        BOOST_TEST(threw);
        // From a vertex that cannot reach the cycle: plain distances, no error.
        std::size_t far = c.rows();
        for (std::size_t v = 3; v < c.rows() && far == c.rows(); ++v)
            if (queue_bfs(c, v)[0] < 0) far = v;
        if (far < c.rows())
            BOOST_TEST(mismatches(sssp(c, far, o).dist, textbook_bellman_ford(c, far)) == 0u);
    }
    // A negative self-loop on a single vertex.
    auto const one = csr_matrix<float>::from_coo(
        1, 1, std::vector<std::int32_t>{0}, std::vector<std::int32_t>{0}, std::vector<float>{-1});
    BOOST_CHECK_THROW(sssp(one, 0, {}), negative_cycle);
}

BOOST_AUTO_TEST_CASE(sssp_errors_and_device) {
    auto const a = weighted_uniform<float>(100, 300, 51, false, 1, 2);
    BOOST_CHECK_THROW(sssp(a, 100, {}), kleene::invalid_argument);
    sssp_options bad;
    bad.delta = -1;
    BOOST_CHECK_THROW(sssp(a, 0, bad), kleene::invalid_argument);
    if (cuda::device_count() == 0) {
        sssp_options g;
        g.device = device_choice::gpu;
        BOOST_CHECK_THROW(sssp(a, 0, g), no_device);
        g.device = device_choice::automatic;
        BOOST_TEST((sssp(a, 0, g).device == device_choice::cpu));
    } else {
        auto const k = weighted_kronecker<float>(12, 52, false, 0.5, 9);
        auto const want = dijkstra(k, busy_vertex(k));
        for (auto method :
             {sssp_method::automatic, sssp_method::bellman_ford, sssp_method::delta_stepping}) {
            sssp_options g;
            g.device = device_choice::gpu;
            g.method = method;
            g.parents = true;
            auto const r = sssp(k, busy_vertex(k), g);
            BOOST_TEST((r.device == device_choice::gpu));
            BOOST_TEST(mismatches(r.dist, want) == 0u);
            check_sssp_parents(k, busy_vertex(k), r);
        }
    }
}

BOOST_AUTO_TEST_CASE(sssp_distances_past_the_type) {
    // 1 -> 2 -> 3 weighing 2 * 5e18 (past int64), 1 -> 4 weighing 7: the far vertex is reachable,
    // its distance is not an int64; it used to come back as unreachable.
    std::vector<std::int32_t> const ii{0, 1, 0}, jj{1, 2, 3};
    std::int64_t const big = 5000000000000000000;
    std::vector<std::int64_t> const vv{big, big, 7};
    auto const a = csr_matrix<std::int64_t>::from_coo(4, 4, ii, jj, vv);
    std::vector<device_choice> devices{device_choice::cpu};
    if (cuda::device_count() > 0) devices.push_back(device_choice::gpu);
    for (auto dev : devices)
        for (auto method : {sssp_method::bellman_ford, sssp_method::delta_stepping}) {
            sssp_options o;
            o.device = dev;
            o.method = method;
            try {
                sssp(a, 0, o);
                BOOST_ERROR("no overflow_error");
            } catch (overflow_error const& e) {
                std::string const m = e.what();
                BOOST_TEST(m.find("from 1 to 3") != std::string::npos, m);
                BOOST_TEST(m.find("int64") != std::string::npos, m);
            }
        }
    // int32: the bound is past int32 but no distance is: exact, no error.
    std::vector<std::int32_t> const vv32{1500000000, 600000000, 7};
    auto const b = csr_matrix<std::int32_t>::from_coo(4, 4, ii, jj, vv32);
    for (auto dev : devices) {
        sssp_options o;
        o.device = dev;
        auto const r = sssp(b, 0, o);
        BOOST_TEST(r.dist[2] == 2100000000);
        BOOST_TEST(r.dist[3] == 7);
    }
    // Negative weights past half the range cannot be checked after the fact: refused up front.
    std::vector<std::int32_t> const neg{1500000000, -600000000, 7};
    auto const c = csr_matrix<std::int32_t>::from_coo(4, 4, ii, jj, neg);
    BOOST_CHECK_THROW(sssp(c, 0, {}), overflow_error);
    // NaN and infinite weights are refused.
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
        std::vector<double> const vd{1.0, bad, 2.0};
        auto const d = csr_matrix<double>::from_coo(4, 4, ii, jj, vd);
        BOOST_CHECK_THROW(sssp(d, 0, {}), kleene::invalid_argument);
    }
}

BOOST_AUTO_TEST_CASE(sssp_tiny_delta_finishes) {
    // delta 1e-30 used to put every vertex past the bucket numbers and loop for ever; it is
    // raised to the finest width that means anything (integer: 1; real: 2^-40 of the bound).
    auto const k = weighted_kronecker<double>(10, 53, false, 0.5, 9);
    auto const want = dijkstra(k, busy_vertex(k));
    sssp_options o;
    o.device = device_choice::cpu;
    o.method = sssp_method::delta_stepping;
    o.delta = 1e-30;
    explain_trace t;
    o.explain = &t;
    BOOST_TEST(mismatches(sssp(k, busy_vertex(k), o).dist, want) == 0u);
    bool raised = false;
    for (auto const& l : t.lines) raised = raised || l.find("raised to") != std::string::npos;
    BOOST_TEST(raised);
    auto const ki = weighted_kronecker<std::int32_t>(10, 54, false, 1, 9);
    auto const wanti = dijkstra(ki, busy_vertex(ki));
    o.explain = nullptr;
    BOOST_TEST(mismatches(sssp(ki, busy_vertex(ki), o).dist, wanti) == 0u);
}

// ---- generators
// -----------------------------------------------------------------------------------

namespace {
template <class T, class Index>
bool same_matrix(csr_matrix<T, Index> const& x, csr_matrix<T, Index> const& y) {
    if (x.rows() != y.rows() || x.nnz() != y.nnz() || x.has_values() != y.has_values())
        return false;
    if (!std::equal(x.row_ptr(), x.row_ptr() + x.rows() + 1, y.row_ptr())) return false;
    if (!std::equal(x.col_idx(), x.col_idx() + x.nnz(), y.col_idx())) return false;
    return !x.has_values() || std::equal(x.values(), x.values() + x.nnz(), y.values());
}
}  // namespace

BOOST_AUTO_TEST_CASE(generators_are_deterministic) {
    kronecker_options k;
    k.scale = 12;
    k.seed = 99;
    k.undirected = true;
    k.weights = weight_range{1, 50};
    uniform_options u;
    u.vertices = 5000;
    u.edges = 20000;
    u.seed = 98;
    u.weights = weight_range{-2.5, 2.5};
    csr_matrix<std::int32_t> k1;
    csr_matrix<double> u1;
    {
        thread_count tc(1);
        k1 = kronecker_graph<std::int32_t>(k);
        u1 = uniform_graph<double>(u);
    }
    for (int threads : {2, 3}) {
        thread_count tc(threads);
        BOOST_TEST(same_matrix(k1, kronecker_graph<std::int32_t>(k)));
        BOOST_TEST(same_matrix(u1, uniform_graph<double>(u)));
    }
    BOOST_TEST(same_matrix(k1, kronecker_graph<std::int32_t>(k)));
    k.seed = 100;
    u.seed = 97;
    BOOST_TEST(!same_matrix(k1, kronecker_graph<std::int32_t>(k)));
    BOOST_TEST(!same_matrix(u1, uniform_graph<double>(u)));
}

BOOST_AUTO_TEST_CASE(generator_weight_ranges) {
    // A range the type cannot hold is refused (fp32 used to write inf for every weight).
    uniform_options u;
    u.vertices = 50;
    u.edges = 200;
    u.weights = weight_range{1e300, 1e308};
    BOOST_CHECK_THROW(uniform_graph<float>(u), kleene::invalid_argument);
    BOOST_TEST(uniform_graph<double>(u).nnz() == 200u);
    u.weights = weight_range{-1e308, 1e308};  // hi - lo overflows a double: still finite weights
    auto const wide = uniform_graph<double>(u);
    for (std::size_t k = 0; k < wide.nnz(); ++k) BOOST_TEST(std::isfinite(wide.value(k)));
    // The whole int64 range, exactly (its bounds are not doubles): weights spread over it (every
    // weight used to come out INT64_MIN).
    u.weights = weight_range::integers(std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max());
    auto const g = uniform_graph<std::int64_t>(u);
    std::set<std::int64_t> seen;
    bool negative = false, positive = false;
    for (std::size_t k = 0; k < g.nnz(); ++k) {
        seen.insert(g.value(k));
        negative = negative || g.value(k) < 0;
        positive = positive || g.value(k) > 0;
    }
    BOOST_TEST(seen.size() > 190u);
    BOOST_TEST((negative && positive));
    // Past int32 (or past 2^63 given as doubles): refused, not wrapped.
    u.weights = weight_range{0, 3e9};
    BOOST_CHECK_THROW(uniform_graph<std::int32_t>(u), kleene::invalid_argument);
    u.weights = weight_range{0, 9.3e18};
    BOOST_CHECK_THROW(uniform_graph<std::int64_t>(u), kleene::invalid_argument);
    // An exact single-value range.
    u.weights = weight_range::integers(7, 7);
    auto const seven = uniform_graph<std::int32_t>(u);
    for (std::size_t k = 0; k < seven.nnz(); ++k) BOOST_TEST(seven.value(k) == 7);
}

BOOST_AUTO_TEST_CASE(kronecker_edges_and_matrix) {
    kronecker_options o;
    o.scale = 11;
    o.edge_factor = 16;
    o.seed = 5;
    o.remove_self_loops = false;
    o.weights = weight_range{1, 20};
    auto const raw = kronecker_edges<std::int64_t>(o);
    std::size_t const m = 16u << 11;
    BOOST_TEST(raw.vertices == 2048u);
    BOOST_TEST(raw.src.size() == m);
    std::size_t loops = 0;
    std::set<std::pair<std::int32_t, std::int32_t>> distinct, distinct_no_loops;
    for (std::size_t e = 0; e < m; ++e) {
        loops += raw.src[e] == raw.dst[e];
        BOOST_TEST_REQUIRE((raw.weight[e] >= 1 && raw.weight[e] <= 20));
        distinct.insert({raw.src[e], raw.dst[e]});
        if (raw.src[e] != raw.dst[e]) distinct_no_loops.insert({raw.src[e], raw.dst[e]});
    }
    BOOST_TEST(loops > 0u);  // Kronecker graphs have some; removal must have work to do
    // Self-loops removed: exactly the others remain, in the same order.
    o.remove_self_loops = true;
    auto const clean = kronecker_edges<std::int64_t>(o);
    BOOST_TEST(clean.src.size() == m - loops);
    for (std::size_t e = 0; e < clean.src.size(); ++e)
        BOOST_TEST_REQUIRE(clean.src[e] != clean.dst[e]);
    // The matrix: each distinct pair once, with the smallest of its weights.
    auto const g = kronecker_graph<std::int64_t>(o);
    BOOST_TEST(g.nnz() == distinct_no_loops.size());
    o.remove_self_loops = false;
    auto const gl = kronecker_graph<std::int64_t>(o);
    BOOST_TEST(gl.nnz() == distinct.size());
    std::size_t bad = 0;
    for (std::size_t e = 0; e < m; ++e) {
        auto const k =
            gl.find(static_cast<std::size_t>(raw.src[e]), static_cast<std::size_t>(raw.dst[e]));
        bad += k < 0 || gl.value(static_cast<std::size_t>(k)) > raw.weight[e];
    }
    BOOST_TEST(bad == 0u);
    // Undirected: twice the edges in the list; the matrix is symmetric with equal weights.
    o.undirected = true;
    o.remove_self_loops = true;
    BOOST_TEST(kronecker_edges<std::int64_t>(o).src.size() == 2 * (m - loops));
    auto const s = kronecker_graph<std::int64_t>(o);
    auto const st = cpu::transpose_csr(s);
    BOOST_TEST(same_matrix(s, st));
    for (std::size_t v = 0; v < s.rows(); ++v) BOOST_TEST_REQUIRE(s.find(v, v) < 0);
}

BOOST_AUTO_TEST_CASE(kronecker_follows_the_initiator) {
    // Without the permutation, the top bit of (row, column) falls in quadrant A, B, C, D with
    // probabilities 0.57, 0.19, 0.19, 0.05; the degrees are skewed.
    kronecker_options o;
    o.scale = 14;
    o.edge_factor = 16;
    o.permute = false;
    o.remove_self_loops = false;
    auto const e = kronecker_edges<bool>(o);
    std::size_t const half = std::size_t(1) << 13;
    double q[4] = {0, 0, 0, 0};
    for (std::size_t k = 0; k < e.src.size(); ++k)
        q[2 * (static_cast<std::size_t>(e.src[k]) >= half) +
          (static_cast<std::size_t>(e.dst[k]) >= half)] += 1;
    double const m = static_cast<double>(e.src.size());
    BOOST_TEST(std::abs(q[0] / m - 0.57) < 0.01);
    BOOST_TEST(std::abs(q[1] / m - 0.19) < 0.01);
    BOOST_TEST(std::abs(q[2] / m - 0.19) < 0.01);
    BOOST_TEST(std::abs(q[3] / m - 0.05) < 0.01);
    // The permutation relabels vertices: the same multiset of out-degrees.
    o.permute = true;
    auto const p = kronecker_edges<bool>(o);
    std::vector<std::size_t> d0(2 * half), d1(2 * half);
    for (auto v : e.src) ++d0[static_cast<std::size_t>(v)];
    for (auto v : p.src) ++d1[static_cast<std::size_t>(v)];
    BOOST_TEST(*std::max_element(d0.begin(), d0.end()) > 50u * (e.src.size() / d0.size()));
    std::sort(d0.begin(), d0.end());
    std::sort(d1.begin(), d1.end());
    BOOST_TEST((d0 == d1));
}

BOOST_AUTO_TEST_CASE(uniform_graph_counts) {
    for (bool undirected : {false, true})
        for (bool loops : {false, true}) {
            uniform_options o;
            o.vertices = 300;
            o.edges = 5000;
            o.seed = 61;
            o.undirected = undirected;
            o.self_loops = loops;
            o.weights = weight_range{2, 4};
            auto const g = uniform_graph<std::int32_t>(o);
            std::size_t diag = 0, bad = 0;
            for (std::size_t v = 0; v < g.rows(); ++v) diag += g.find(v, v) >= 0;
            for (std::size_t k = 0; k < g.nnz(); ++k) bad += g.value(k) < 2 || g.value(k) > 4;
            BOOST_TEST_CONTEXT("undirected=" << undirected << " loops=" << loops) {
                BOOST_TEST(bad == 0u);
                if (!loops) BOOST_TEST(diag == 0u);
                // Stored entries: m, or both directions of every non-loop pair.
                BOOST_TEST(g.nnz() == (undirected ? 2 * o.edges - diag : o.edges));
                if (undirected) BOOST_TEST(same_matrix(g, cpu::transpose_csr(g)));
            }
        }
    // Every possible edge of a small complete graph.
    uniform_options full;
    full.vertices = 20;
    full.edges = 20 * 19;
    BOOST_TEST(uniform_graph<bool>(full).nnz() == 380u);
    full.edges = 381;
    BOOST_CHECK_THROW(uniform_graph<bool>(full), kleene::invalid_argument);
    kronecker_options bad;
    bad.scale = 31;
    BOOST_CHECK_THROW(kronecker_graph<bool>(bad), kleene::invalid_argument);
    bad.scale = 4;
    bad.weights = weight_range{1, 2};
    BOOST_CHECK_THROW(kronecker_graph<bool>(bad), kleene::invalid_argument);  // weights on bool
    bad.weights = weight_range{1.2, 1.8};
    BOOST_CHECK_THROW(kronecker_graph<std::int32_t>(bad), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(generator_sizes_no_machine_holds_are_refused_at_once) {
    // Scale 40 filled gigabytes before a bare std::bad_alloc; now the need is checked first.
    kronecker_options k;
    k.scale = 40;
    try {
        kronecker_graph<bool, std::int64_t>(k);
        BOOST_FAIL("no error");
    } catch (kleene::out_of_memory const& e) {
        BOOST_TEST(std::string(e.what()).find("generate: scale 40 with edge factor 16 "
                                              "(1099511627776 vertices, 17592186044416 edges) "
                                              "needs at least 264.0 TiB") == 0u);
    }
    BOOST_CHECK_THROW((kronecker_edges<bool, std::int64_t>(k)), kleene::out_of_memory);
    // edge_factor * 2^scale past 2^64 (llround gave an unspecified count).
    k.scale = 5;
    k.edge_factor = 1e30;
    BOOST_CHECK_THROW((kronecker_graph<bool, std::int64_t>(k)), kleene::invalid_argument);
    uniform_options u;
    u.vertices = std::size_t(1) << 60;
    u.edges = 1;
    BOOST_CHECK_THROW((uniform_graph<bool, std::int64_t>(u)), kleene::out_of_memory);
    // The edge count doubled for an undirected graph wrapped past 2^64.
    u.vertices = std::size_t(1) << 33;
    u.edges = std::numeric_limits<std::size_t>::max() / 2 + 1;
    u.undirected = true;
    BOOST_CHECK_THROW((uniform_graph<bool, std::int64_t>(u)), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(algebraic_forms) {
    // bfs_levels and sssp_bellman_ford: the vxm formulations kept beside the fast paths.
    auto const a = kronecker(9, 71, false);
    std::size_t const s = busy_vertex(a);
    BOOST_TEST((bfs_levels(a, s) == queue_bfs(a, s)));
    auto const g = potential_graph<double>(150, 600, 72, false);
    auto const d = sssp_bellman_ford(g, 3);
    BOOST_TEST(mismatches(std::vector<double>(d.begin(), d.end()), textbook_bellman_ford(g, 3)) ==
               0u);
    auto const c = potential_graph<double>(150, 600, 73, true);
    bool threw = false;
    try {
        sssp_bellman_ford(c, 0);
    } catch (negative_cycle const& e) {
        threw = true;
        BOOST_TEST((e.vertex() >= 0 && e.vertex() < 3),
                   "vertex " << e.vertex() << " is not on the cycle");
    }
    BOOST_TEST(threw);
}

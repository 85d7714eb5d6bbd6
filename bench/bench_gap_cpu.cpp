// kleene's CPU graph kernels (BFS with parents, SSSP by delta-stepping, connected components,
// PageRank, triangle counting, betweenness) against the GAP Benchmark Suite's published methods
// (bench/gap_method.hpp: a reimplementation of the methods, not GAP's code), on GAP's kron graph:
// undirected Kronecker, edge factor 16, int32 weights uniform in [1, 255].
// Sources: K random vertices with at least one edge (fixed seed), the same for every side; each
// side's time is one call (allocation of its results included; kleene's is the public call with
// its checks of the input). The order of the sides rotates from source to source. kleene's BFS
// runs three ways: levels and parents; parents only (GAP's BFS returns parents only); parents only
// into a result reused from the previous source (a fresh std::vector of n int64 is filled by one
// thread, which dominates at 2^22 vertices on 16 threads). SSSP runs fresh and reused.
// Betweenness runs in batches of 4 consecutive sources (GAP's -i4), median over the batches; cc,
// pr and tc run --runs times each (the side that goes first rotating), median of the runs. cc and
// pr also run into a result reused from kleene's previous call (the peer's arrays come back from
// glibc's free lists; a fresh 32 MiB result is new pages to fault in), and pr with its
// contributions pinned to double (pagerank_options::contributions; the automatic choice holds
// them in float at tolerance 1e-4), in the same rotation.
//
//   bench_gap_cpu [--scale 18] [--sources 64] [--threads N] [--seed 1] [--gap-delta 2]
//                 [--delta 0] [--oracle 2] [--runs 5] [--kernels bfs,sssp,cc,pr,tc,bc]
//                 [--break cc|pr|tc|bc]
//
// --gap-delta is the peer's bucket width (GAP's benchmark runs kron with -d2); --delta is
// kleene's (0: its automatic choice, printed). Every answer is verified: BFS levels and SSSP
// distances by an O(edges) certificate (the source at 0; no edge u->v with d[v] > d[u] + w; every
// reached vertex has a tight in-edge from a vertex closer to the source), every parent vector as
// a BFS tree against the certified levels, kleene's distances against the peer's exactly, and the
// first --oracle sources also against a serial queue BFS and a binary-heap Dijkstra.
// cc: the two partitions are the same sets of vertices (labels may differ), every edge lies inside
// one of kleene's components, and their number equals a serial union-find's. pr: both sides run
// the GAP definition (damping 0.85, the rank of a vertex without edges lost, not redistributed:
// kleene's pagerank_dangling::gap), tolerance 1e-4, at most 20 iterations; their ranks differ by
// less than the tolerance in L1, and one serial power step in double moves a converged side's
// ranks by less than the tolerance in L1. tc: kleene's count equals the peer's, and the peer's
// count on the other labelling (relabelled or not). bc: kleene's raw sums, plus for every source
// s its own dependency (GAP adds delta_s(s): the number of other vertices s reaches) and divided
// by the largest, equal the peer's scores to 1e-9 relative; kleene's normalised scores equal its
// raw ones divided by their largest. --break corrupts one answer of the peer before its check,
// to see that check fail (exit 1).

#include "gap_method.hpp"

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/algorithms/triangles.hpp>

#include <fmt/core.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

using namespace kleene;
namespace gap = kleene::bench::gap;

namespace {

using graph = csr_matrix<std::int32_t, std::int32_t>;
using weight = std::int32_t;

struct config {
    int scale = 18;
    int sources = 64;
    int threads = omp_get_max_threads();
    std::uint64_t seed = 1;
    weight gap_delta = 2;
    double delta = 0;
    int oracle = 2;
    int runs = 5;
    bool run_bfs = true, run_sssp = true, run_cc = true, run_pr = true, run_tc = true,
         run_bc = true;
    std::string broken;  ///< the kernel whose peer answer is corrupted on purpose
};

constexpr int pr_max_iterations = 20;  // GAP's pr defaults
constexpr double pr_tolerance = 1e-4;
constexpr std::size_t bc_batch = 4;  // GAP's benchmark runs bc with -i4

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    if (x.empty()) return 0;
    std::size_t const h = x.size() / 2;
    return x.size() % 2 ? x[h] : (x[h - 1] + x[h]) / 2;
}

[[noreturn]] void fail(std::string const& what) {
    fmt::print(stderr, "verification failed: {}\n", what);
    std::exit(1);
}

bool has_edge(graph const& a, std::size_t u, std::size_t v) {
    auto const* b = a.col_idx() + a.row_begin(u);
    auto const* e = a.col_idx() + a.row_end(u);
    return std::binary_search(b, e, static_cast<std::int32_t>(v));
}

/// d are exact shortest distances from s under `len(k)` (the length of stored edge k), -1 or
/// `unreached` marking unreached vertices: d[s] == 0, no edge shortens any distance, every other
/// reached vertex has a tight in-edge from a strictly closer vertex (lengths are >= 1 here).
template <class D, class Alloc, class Len>
void certify(graph const& a, std::size_t s, std::vector<D, Alloc> const& d, D unreached, Len len,
             char const* what) {
    std::size_t const n = a.rows();
    if (d.size() != n) fail(fmt::format("{}: {} values for {} vertices", what, d.size(), n));
    if (d[s] != 0) fail(fmt::format("{}: the source is at {}", what, d[s]));
    std::int64_t bad = -1;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : bad)
    for (std::size_t v = 0; v < n; ++v) {
        bool tight = v == s;
        for (std::size_t k = a.row_begin(v); k < a.row_end(v); ++k) {
            auto const u = static_cast<std::size_t>(a.col_idx()[k]);
            // Undirected: row v lists v's in-edges (u -> v) too, with the same length.
            if (d[u] == unreached) {
                if (d[v] != unreached) bad = std::max(bad, static_cast<std::int64_t>(u));
                continue;
            }
            if (d[v] == unreached || d[v] > d[u] + len(k)) {
                bad = std::max(bad, static_cast<std::int64_t>(v));
                continue;
            }
            tight = tight || d[v] == d[u] + len(k);
        }
        if (d[v] != unreached && !tight) bad = std::max(bad, static_cast<std::int64_t>(v));
    }
    if (bad >= 0) fail(fmt::format("{}: vertex {} from source {}", what, bad, s));
}

/// parent is a BFS tree over exactly the reached vertices of `level`: each parent is one level up
/// and joined to its child by an edge.
template <class P>
void certify_tree(graph const& a, std::size_t s, std::span<std::int64_t const> level,
                  P const* parent, char const* what) {
    std::size_t const n = a.rows();
    if (parent[s] != static_cast<P>(s)) fail(fmt::format("{}: the source is not its own", what));
    std::int64_t bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad)
    for (std::size_t v = 0; v < n; ++v) {
        if (v == s) continue;
        if ((level[v] < 0) != (parent[v] < 0)) {
            bad = std::max(bad, static_cast<std::int64_t>(v));
            continue;
        }
        if (parent[v] < 0) continue;
        auto const p = static_cast<std::size_t>(parent[v]);
        if (!(p < n && level[p] == level[v] - 1 && has_edge(a, p, v)))
            bad = std::max(bad, static_cast<std::int64_t>(v));
    }
    if (bad >= 0) fail(fmt::format("{}: parent of vertex {} from source {}", what, bad, s));
}

std::vector<std::int64_t> serial_bfs(graph const& a, std::size_t s) {
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

std::vector<weight> dijkstra(graph const& a, std::size_t s) {
    std::vector<weight> d(a.rows(), infinity<weight>());
    using item = std::pair<weight, std::size_t>;
    std::priority_queue<item, std::vector<item>, std::greater<>> heap;
    d[s] = 0;
    heap.push({0, s});
    while (!heap.empty()) {
        auto const [du, u] = heap.top();
        heap.pop();
        if (du > d[u]) continue;
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            weight const nd = du + a.values()[k];
            if (nd < d[v]) {
                d[v] = nd;
                heap.push({nd, v});
            }
        }
    }
    return d;
}

/// `runs` timed calls of each side after one untimed call of each, the side that goes first
/// rotating; the median ms of each side.
std::vector<double> rotate(int runs, std::vector<std::function<void()>> const& sides) {
    std::size_t const k = sides.size();
    std::vector<std::vector<double>> t(k);
    for (int r = -1; r < runs; ++r)
        for (std::size_t i = 0; i < k; ++i) {
            std::size_t const which = (i + static_cast<std::size_t>(r + 1)) % k;
            auto const t0 = clock_type::now();
            sides[which]();
            if (r >= 0) t[which].push_back(ms_since(t0));
        }
    std::vector<double> m;
    for (auto const& x : t) m.push_back(median(x));
    return m;
}

template <class A, class B>
std::pair<double, double> alternate(int runs, A&& run_kleene, B&& run_peer) {
    auto const m = rotate(runs, {run_kleene, run_peer});
    return {m[0], m[1]};
}

/// kleene's components and the peer's labels split the vertices into the same sets; kleene's
/// are the connected components (every edge inside one, as many as a serial union-find finds).
void check_cc(graph const& a, cc_result const& k, std::int32_t const* peer) {
    std::size_t const n = a.rows();
    if (k.component.size() != n) fail("cc: kleene labelled the wrong number of vertices");
    std::vector<std::int64_t> k2p(n, -1), p2k(n, -1);
    std::size_t distinct = 0;
    for (std::size_t v = 0; v < n; ++v) {
        std::int64_t const kl = k.component[v], pl = peer[v];
        if (kl < 0 || static_cast<std::size_t>(kl) >= n || pl < 0 ||
            static_cast<std::size_t>(pl) >= n)
            fail(fmt::format("cc: vertex {}: label out of range (kleene {}, peer {})", v, kl, pl));
        auto& kp = k2p[static_cast<std::size_t>(kl)];
        auto& pk = p2k[static_cast<std::size_t>(pl)];
        distinct += kp < 0;
        if (kp < 0) kp = pl;
        if (pk < 0) pk = kl;
        if (kp != pl || pk != kl)
            fail(fmt::format("cc: vertex {} is with different vertices in kleene's and the "
                             "peer's components",
                             v));
    }
    std::int64_t bad = -1;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : bad)
    for (std::size_t v = 0; v < n; ++v)
        for (std::size_t e = a.row_begin(v); e < a.row_end(v); ++e)
            if (k.component[static_cast<std::size_t>(a.col_idx()[e])] != k.component[v])
                bad = std::max(bad, static_cast<std::int64_t>(v));
    if (bad >= 0) fail(fmt::format("cc: an edge of vertex {} joins two of kleene's components", bad));
    std::vector<std::size_t> up(n);
    std::iota(up.begin(), up.end(), std::size_t(0));
    auto find = [&up](std::size_t x) {
        while (up[x] != x) x = up[x] = up[up[x]];
        return x;
    };
    std::size_t sets = n;
    for (std::size_t v = 0; v < n; ++v)
        for (std::size_t e = a.row_begin(v); e < a.row_end(v); ++e) {
            std::size_t const x = find(v), y = find(static_cast<std::size_t>(a.col_idx()[e]));
            if (x != y) up[std::max(x, y)] = std::min(x, y), --sets;
        }
    if (distinct != sets || k.count != sets)
        fail(fmt::format("cc: {} components (kleene's count {}), a union-find finds {}", distinct,
                         k.count, sets));
}

/// The L1 norm of (one serial GAP power step of r) - r, in double.
template <class R>
double pr_step_change(graph const& a, R const* r) {
    std::size_t const n = a.rows();
    double const d = 0.85, base = (1 - d) / static_cast<double>(n);
    double change = 0;
    for (std::size_t v = 0; v < n; ++v) {
        double in = 0;
        for (std::size_t e = a.row_begin(v); e < a.row_end(v); ++e) {
            auto const u = static_cast<std::size_t>(a.col_idx()[e]);
            in += static_cast<double>(r[u]) / static_cast<double>(a.row_end(u) - a.row_begin(u));
        }
        change += std::abs(base + d * in - static_cast<double>(r[v]));
    }
    return change;
}

void check_pr(graph const& a, pagerank_result const& k, gap::pagerank_run<float> const& p) {
    std::size_t const n = a.rows();
    if (k.rank.size() != n) fail("pr: kleene ranked the wrong number of vertices");
    double diff = 0;
    for (std::size_t v = 0; v < n; ++v)
        diff += std::abs(k.rank[v] - static_cast<double>(p.score[v]));
    if (!(diff < pr_tolerance))
        fail(fmt::format("pr: kleene's and the peer's ranks differ by {:.3g} in L1 (tolerance {})",
                         diff, pr_tolerance));
    if (k.converged && !(pr_step_change(a, k.rank.data()) < pr_tolerance))
        fail("pr: a power step moves kleene's converged ranks by more than the tolerance");
    if (p.error < pr_tolerance && !(pr_step_change(a, p.score.get()) < pr_tolerance))
        fail("pr: a power step moves the peer's converged ranks by more than the tolerance");
}

bool same_to(double x, double y, double rel) {
    return std::abs(x - y) <= rel * std::max(std::abs(x), std::abs(y));
}

/// kleene's normalised and raw betweenness against the peer's (see the top of the file).
void check_bc(graph const& a, std::vector<std::int64_t> const& batch, bc_result const& normalised,
              bc_result const& raw, double const* peer) {
    std::size_t const n = a.rows();
    if (normalised.centrality.size() != n || raw.centrality.size() != n)
        fail("bc: kleene scored the wrong number of vertices");
    std::vector<double> want(raw.centrality.begin(), raw.centrality.end());
    double top_raw = 0;
    for (double x : want) top_raw = std::max(top_raw, x);
    for (std::size_t v = 0; v < n; ++v)
        if (!same_to(normalised.centrality[v], top_raw > 0 ? want[v] / top_raw : 0.0, 1e-9))
            fail(fmt::format("bc: kleene's normalised score of vertex {} is not its raw score "
                             "over the largest",
                             v));
    for (std::int64_t s : batch) {
        auto const level = serial_bfs(a, static_cast<std::size_t>(s));
        auto const reached = std::count_if(level.begin(), level.end(),
                                           [](std::int64_t l) { return l >= 0; });
        want[static_cast<std::size_t>(s)] += static_cast<double>(reached - 1);
    }
    double top = 0;
    for (double x : want) top = std::max(top, x);
    for (std::size_t v = 0; v < n; ++v)
        if (!same_to(want[v] / top, peer[v], 1e-9))
            fail(fmt::format("bc: vertex {}: kleene {:.17g}, peer {:.17g} (normalised as GAP)", v,
                             want[v] / top, peer[v]));
}

}  // namespace

int main(int argc, char** argv) {
    config cfg;
    for (int i = 1; i < argc; i += 2) {
        std::string_view const opt = argv[i];
        if (i + 1 >= argc) {
            fmt::print(stderr, "{} needs a value\n", opt);
            return 2;
        }
        char const* val = argv[i + 1];
        if (opt == "--scale")
            cfg.scale = std::atoi(val);
        else if (opt == "--sources")
            cfg.sources = std::atoi(val);
        else if (opt == "--threads")
            cfg.threads = std::atoi(val);
        else if (opt == "--seed")
            cfg.seed = std::strtoull(val, nullptr, 10);
        else if (opt == "--gap-delta")
            cfg.gap_delta = std::atoi(val);
        else if (opt == "--delta")
            cfg.delta = std::atof(val);
        else if (opt == "--oracle")
            cfg.oracle = std::atoi(val);
        else if (opt == "--runs")
            cfg.runs = std::atoi(val);
        else if (opt == "--break")
            cfg.broken = val;
        else if (opt == "--kernels") {
            std::string_view const k = val;
            auto has = [k](std::string_view x) { return k.find(x) != std::string_view::npos; };
            cfg.run_bfs = has("bfs");
            cfg.run_sssp = has("sssp");
            cfg.run_cc = has("cc");
            cfg.run_pr = has("pr");
            cfg.run_tc = has("tc");
            cfg.run_bc = has("bc");
        } else {
            fmt::print(stderr, "unknown option {}\n", opt);
            return 2;
        }
    }
    if (cfg.scale < 1 || cfg.scale > 30 || cfg.sources < 1 || cfg.threads < 1 ||
        cfg.gap_delta < 1 || cfg.delta < 0 || cfg.runs < 1 ||
        !(cfg.broken.empty() || cfg.broken == "cc" || cfg.broken == "pr" || cfg.broken == "tc" ||
          cfg.broken == "bc")) {
        fmt::print(stderr, "bad option value\n");
        return 2;
    }
    omp_set_num_threads(cfg.threads);

    kronecker_options ko;
    ko.scale = cfg.scale;
    ko.edge_factor = 16;
    ko.seed = cfg.seed;
    ko.undirected = true;
    ko.weights = weight_range::integers(1, 255);
    auto const t_gen = clock_type::now();
    graph const a = kronecker_graph<weight, std::int32_t>(ko);
    double const gen_ms = ms_since(t_gen);
    std::size_t const n = a.rows();
    gap::graph_view<std::int32_t, weight> const g{n, a.nnz(), a.row_ptr(), a.col_idx(), a.values()};

    std::mt19937_64 rng(cfg.seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(cfg.scale));
    std::vector<std::size_t> sources;
    while (sources.size() < static_cast<std::size_t>(cfg.sources)) {
        std::size_t const s = rng() % n;
        if (a.row_end(s) > a.row_begin(s)) sources.push_back(s);
    }

    fmt::print(
        "GAP kron graph: scale {}, {} vertices, {} stored edges (undirected, edge factor 16, int32 "
        "weights 1..255), generated in {:.0f} ms; {} threads; {} sources\n",
        cfg.scale, n, a.nnz(), gen_ms, cfg.threads, sources.size());

    bfs_options bo;
    bo.device = device_choice::cpu;
    bo.parents = true;
    bo.symmetric = true;
    bfs_options bo_parents = bo;
    bo_parents.levels = false;
    sssp_options so;
    so.device = device_choice::cpu;
    so.method = sssp_method::delta_stepping;
    so.delta = cfg.delta;
    if (cfg.run_sssp) {
        explain_trace why;
        sssp_options o = so;
        o.explain = &why;
        (void)sssp(a, sources[0], o);
        for (auto const& l : why.lines)
            if (l.find("delta") != std::string::npos) fmt::print("kleene {}\n", l);
        fmt::print("peer: GAP delta-stepping, delta {}; GAP BFS, alpha 15, beta 18\n",
                   cfg.gap_delta);
    }

    // Times per source: bfs {levels + parents, parents only, parents only reused, peer}; sssp
    // {fresh, reused, peer}. The reused results live across sources, as in a user's loop.
    std::vector<double> bfs_ms[4], sssp_ms[3];
    bfs_result bfs_reused;
    sssp_result<weight> sssp_reused;
    // One untimed run of each first (page faults, the OpenMP pool).
    bool warm = false;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        std::size_t const s = sources[i];
        auto const src = static_cast<std::int32_t>(s);
        bool const oracle = static_cast<int>(i) < cfg.oracle;
        if (cfg.run_bfs) {
            // kleene: levels and parents, parents only (GAP's output), parents only into a reused
            // result; then the peer. The order rotates from source to source.
            bfs_result kr, ko;
            std::unique_ptr<std::int32_t[]> pr;
            double t[4] = {};
            for (int rep = warm ? 1 : 0; rep < 2; ++rep)
                for (std::size_t side = 0; side < 4; ++side) {
                    std::size_t const which = (side + i) % 4;
                    auto const t0 = clock_type::now();
                    if (which == 0)
                        kr = bfs(a, s, bo);
                    else if (which == 1)
                        ko = bfs(a, s, bo_parents);
                    else if (which == 2)
                        bfs(bfs_reused, a, s, bo_parents);
                    else
                        pr = gap::bfs(g, src);
                    t[which] = ms_since(t0);
                }
            for (std::size_t w = 0; w < 4; ++w) bfs_ms[w].push_back(t[w]);
            certify(
                a, s, kr.level, std::int64_t(-1), [](std::size_t) { return std::int64_t(1); },
                "kleene bfs levels");
            certify_tree(a, s, kr.level, kr.parent.data(), "kleene bfs parents");
            if (!ko.level.empty() || !bfs_reused.level.empty())
                fail("kleene bfs returned levels it was not asked for");
            certify_tree(a, s, kr.level, ko.parent.data(), "kleene bfs parents (no levels)");
            certify_tree(a, s, kr.level, bfs_reused.parent.data(), "kleene bfs parents (reused)");
            certify_tree(a, s, kr.level, pr.get(), "peer bfs parents");
            if (oracle && serial_bfs(a, s) != kr.level) fail("kleene bfs levels vs serial BFS");
        }
        if (cfg.run_sssp) {
            // kleene, kleene into a reused result, the peer; the order rotates.
            sssp_result<weight> kr;
            std::unique_ptr<weight[]> pr;
            double t[3] = {};
            for (int rep = warm ? 1 : 0; rep < 2; ++rep)
                for (std::size_t side = 0; side < 3; ++side) {
                    std::size_t const which = (side + i) % 3;
                    auto const t0 = clock_type::now();
                    if (which == 0)
                        kr = sssp(a, s, so);
                    else if (which == 1)
                        sssp(sssp_reused, a, s, so);
                    else
                        pr = gap::delta_stepping(g, src, cfg.gap_delta);
                    t[which] = ms_since(t0);
                }
            for (std::size_t w = 0; w < 3; ++w) sssp_ms[w].push_back(t[w]);
            auto const* w = a.values();
            certify(
                a, s, kr.dist, infinity<weight>(), [w](std::size_t k) { return w[k]; },
                "kleene sssp distances");
            if (sssp_reused.dist != kr.dist) fail("kleene sssp into a reused result differs");
            for (std::size_t v = 0; v < n; ++v) {
                weight const pv = pr[v] == gap::dist_inf<weight> ? infinity<weight>() : pr[v];
                if (pv != kr.dist[v])
                    fail(fmt::format("sssp from {}: vertex {}: kleene {}, peer {}", s, v,
                                     kr.dist[v], pr[v]));
            }
            if (oracle && dijkstra(a, s) != kr.dist) fail("kleene sssp vs Dijkstra");
        }
        warm = true;
    }

    // cc, pr, tc: --runs calls of each side; bc: batches of bc_batch sources.
    double cc_ms[2] = {}, cc_reused_ms = 0, pr_ms[2] = {}, pr_float_ms[2] = {}, pr_reused_ms = 0,
           tc_ms[2] = {};
    int pr_iters[3] = {};
    std::vector<double> bc_ms[2];
    if (cfg.run_cc) {
        cc_options o;
        o.device = device_choice::cpu;
        o.symmetric = true;
        // kleene fresh, kleene into a result reused from its previous call (as a user's loop
        // over graphs of one size may), the peer; in one rotation.
        cc_result k, kr;
        std::unique_ptr<std::int32_t[]> p;
        auto const m = rotate(cfg.runs, {[&] { k = connected_components(a, o); },
                                         [&] { connected_components(kr, a, o); },
                                         [&] { p = gap::afforest(g); }});
        cc_ms[0] = m[0];
        cc_reused_ms = m[1];
        cc_ms[1] = m[2];
        if (kr.component != k.component) fail("cc: kleene into a reused result differs");
        if (cfg.broken == "cc") {  // merge the peer's component of vertex 0 with another one
            std::size_t v = 0;
            while (v < n && p[v] == p[0]) ++v;
            if (v < n) p[v] = p[0];
        }
        check_cc(a, k, p.get());
        fmt::print("cc: {} components (kleene: {})\n", k.count, to_string(k.method));
    }
    if (cfg.run_pr) {
        pagerank_options o;
        o.device = device_choice::cpu;
        o.symmetric = true;
        o.dangling = pagerank_dangling::gap;
        o.tolerance = pr_tolerance;
        o.max_iterations = pr_max_iterations;
        // kleene as called (automatic: its contributions in float at this tolerance, as GAP keeps
        // all of PageRank in float), the same into a result reused from its previous call, and
        // with the contributions pinned to double, in the same rotation.
        pagerank_options of = o;
        o.contributions = pagerank_contributions::as_double;
        pagerank_result k, kf, kr;
        gap::pagerank_run<float> p;
        auto const m = rotate(cfg.runs, {[&] { k = pagerank(a, o); }, [&] { kf = pagerank(a, of); },
                                         [&] { pagerank(kr, a, of); },
                                         [&] { p = gap::pagerank(g, pr_max_iterations,
                                                                 pr_tolerance); }});
        pr_ms[0] = m[0];
        pr_float_ms[0] = m[1];
        pr_reused_ms = m[2];
        pr_ms[1] = pr_float_ms[1] = m[3];
        if (kr.rank != kf.rank) fail("pr: kleene into a reused result differs");
        if (cfg.broken == "pr") p.score[0] += static_cast<float>(10 * pr_tolerance);
        check_pr(a, k, p);
        check_pr(a, kf, p);
        pr_iters[0] = k.iterations;
        pr_iters[1] = p.iterations;
        pr_iters[2] = kf.iterations;
        fmt::print("pr: kleene in double {} iterations (last change {:.3g}), automatic (float) {} "
                   "({:.3g}), peer {} ({:.3g})\n",
                   k.iterations, k.change, kf.iterations, kf.change, p.iterations, p.error);
        // Where a call's time goes: one more call of each side with its minor page faults (first
        // touches of fresh memory), and kleene's explain trace (set-up against the steps).
        auto const faults = [](auto&& call) {
            rusage before{}, after{};
            getrusage(RUSAGE_SELF, &before);
            auto const t0 = clock_type::now();
            call();
            double const t = ms_since(t0);
            getrusage(RUSAGE_SELF, &after);
            return std::pair{after.ru_minflt - before.ru_minflt, t};
        };
        explain_trace tr, trf;
        pagerank_options oe = o, ofe = of;
        oe.explain = &tr;
        ofe.explain = &trf;
        auto const [fk, tk] = faults([&] { k = pagerank(a, oe); });
        auto const [ff, tf] = faults([&] { kf = pagerank(a, ofe); });
        auto const [fp, tp] =
            faults([&] { p = gap::pagerank(g, pr_max_iterations, pr_tolerance); });
        fmt::print("pr: one more call each: kleene in double {:.1f} ms, {} minor faults; automatic "
                   "(float) {:.1f} ms, {} faults; peer {:.1f} ms, {} faults\n{}{}",
                   tk, fk, tf, ff, tp, fp, tr.str(), trf.str());
    }
    if (cfg.run_tc) {
        tc_options o;
        o.device = device_choice::cpu;
        o.symmetric = true;
        tc_result k;
        std::uint64_t p = 0;
        bool relabelled = false;
        std::tie(tc_ms[0], tc_ms[1]) = alternate(
            cfg.runs, [&] { k = triangle_count(a, o); },
            [&] { p = gap::triangle_count(g, &relabelled); });
        if (cfg.broken == "tc") ++p;
        // The peer once more on the other numbering (relabelled if it did not, and back).
        std::uint64_t other = 0;
        if (relabelled) {
            other = gap::ordered_count(static_cast<std::int64_t>(n), a.row_ptr(), a.col_idx());
        } else {
            auto const r = gap::relabel_by_degree(g);
            other = gap::ordered_count(static_cast<std::int64_t>(n), r.row.get(), r.col.get());
        }
        if (k.triangles != p || other != p)
            fail(fmt::format("tc: kleene {}, peer {}, peer {} {}", k.triangles, p,
                             relabelled ? "without relabelling" : "relabelled", other));
        fmt::print("tc: {} triangles (kleene relabelled: {}, peer relabelled: {})\n", p,
                   k.relabelled ? "yes" : "no", relabelled ? "yes" : "no");
    }
    if (cfg.run_bc) {
        bc_options o;
        o.device = device_choice::cpu;
        o.symmetric = true;
        o.normalize = true;
        bc_options o_raw = o;
        o_raw.normalize = false;
        std::size_t const per = std::min(bc_batch, sources.size());
        std::size_t const batches = sources.size() / per;
        for (std::size_t b = 0; b < batches; ++b) {
            std::vector<std::int64_t> batch(sources.begin() + static_cast<std::ptrdiff_t>(b * per),
                                            sources.begin() +
                                                static_cast<std::ptrdiff_t>((b + 1) * per));
            std::vector<std::int32_t> const batch32(batch.begin(), batch.end());
            bc_result k;
            std::unique_ptr<double[]> p;
            double t[2] = {};
            for (int rep = b == 0 ? 0 : 1; rep < 2; ++rep)
                for (std::size_t side = 0; side < 2; ++side) {
                    std::size_t const which = (side + b) % 2;
                    auto const t0 = clock_type::now();
                    if (which == 0)
                        k = betweenness(a, batch, o);
                    else
                        p = gap::brandes(g, batch32.data(), batch32.size());
                    t[which] = ms_since(t0);
                }
            bc_ms[0].push_back(t[0]);
            bc_ms[1].push_back(t[1]);
            if (cfg.broken == "bc") p[static_cast<std::size_t>(batch[0])] *= 1 + 1e-8;
            check_bc(a, batch, k, betweenness(a, batch, o_raw), p.get());
        }
        fmt::print("bc: {} batches of {} sources\n", batches, per);
    }

    fmt::print("\n| kernel | kleene median ms | peer (GAP method) median ms | kleene / peer |\n");
    fmt::print("|---|---:|---:|---:|\n");
    auto row = [](char const* what, std::vector<double> const& k, std::vector<double> const& p) {
        fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} |\n", what, median(k), median(p),
                   median(k) / median(p));
    };
    if (cfg.run_bfs) {
        row("bfs, levels + parents", bfs_ms[0], bfs_ms[3]);
        row("bfs, parents only (GAP's output)", bfs_ms[1], bfs_ms[3]);
        row("bfs, parents only, reused result", bfs_ms[2], bfs_ms[3]);
    }
    if (cfg.run_sssp) {
        row("sssp, delta-stepping", sssp_ms[0], sssp_ms[2]);
        row("sssp, delta-stepping, reused result", sssp_ms[1], sssp_ms[2]);
    }
    auto row2 = [](char const* what, double k, double p) {
        fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} |\n", what, k, p, k / p);
    };
    if (cfg.run_cc) {
        row2("cc, afforest", cc_ms[0], cc_ms[1]);
        row2("cc, afforest, reused result", cc_reused_ms, cc_ms[1]);
    }
    if (cfg.run_pr) {
        row2("pr, to 1e-4 or 20 iterations (automatic: float contributions)", pr_float_ms[0],
             pr_float_ms[1]);
        row2("pr, per iteration", pr_float_ms[0] / pr_iters[2], pr_float_ms[1] / pr_iters[1]);
        row2("pr, automatic, reused result", pr_reused_ms, pr_float_ms[1]);
        row2("pr, contributions pinned to double", pr_ms[0], pr_ms[1]);
        row2("pr, per iteration, contributions in double", pr_ms[0] / pr_iters[0],
             pr_ms[1] / pr_iters[1]);
    }
    if (cfg.run_tc) row2("tc, relabelling included", tc_ms[0], tc_ms[1]);
    if (cfg.run_bc) row("bc, batch of 4 sources", bc_ms[0], bc_ms[1]);
    fmt::print(
        "all answers verified ({} against serial BFS / Dijkstra)\n",
        std::min<std::size_t>(static_cast<std::size_t>(std::max(cfg.oracle, 0)), sources.size()));
    return 0;
}

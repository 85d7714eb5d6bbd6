// kleene::bfs on the CPU against a BFS written with SuiteSparse:GraphBLAS C calls in the LAGraph
// style (kleene::graphblas::bfs_oracle, <kleene/graphblas/bfs.hpp>: push and pull steps under the
// complemented structural mask of the visited set, Beamer's rule, any.pair for levels and
// any.secondi for parents plus levels). Undirected Graph500 Kronecker graphs, edge factor 16;
// K random sources of degree > 0. Both sides get the same matrix and its degrees in advance
// (LAGraph caches them as graph properties); times cover the traversal including its vectors.
// Levels must agree exactly; both parent vectors must be valid BFS trees.
//
//   bench_bfs_cpu_vs_graphblas [--scales 16,18] [--sources K] [--edge-factor E] [--threads N]
//                              [--seed S]
//
// Reported: median time over the sources, and GTEPS by the Graph500 rule (per source: undirected
// edges of the traversed component / time), the median and the harmonic mean over the sources.

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/graphblas/bfs.hpp>
#include <kleene/graphblas/graphblas.hpp>

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

using namespace kleene;
namespace grb = kleene::graphblas;

namespace {

struct config {
    std::vector<int> scales{16, 18};
    int sources = 16;
    double edge_factor = 16;
    int threads = omp_get_max_threads();
    std::uint64_t seed = 1;
};

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x.empty() ? 0 : x[x.size() / 2];
}
/// Per-source GTEPS: "median (harmonic mean)"; Graph500 reports the harmonic mean.
std::string gteps(std::vector<double> const& edges, std::vector<double> const& ms) {
    std::vector<double> g;
    double inv = 0;
    for (std::size_t i = 0; i < ms.size(); ++i) {
        g.push_back(edges[i] / (ms[i] * 1e-3) * 1e-9);
        inv += 1 / g.back();
    }
    return fmt::format("{:.3f} ({:.3f})", median(g),
                       ms.empty() ? 0 : static_cast<double>(ms.size()) / inv);
}

std::vector<int> parse_list(std::string_view s) {
    std::vector<int> out;
    std::size_t b = 0;
    while (b <= s.size()) {
        std::size_t e = s.find(',', b);
        if (e == std::string_view::npos) e = s.size();
        out.push_back(std::atoi(std::string(s.substr(b, e - b)).c_str()));
        b = e + 1;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    config cfg;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string_view const opt = argv[i];
        std::string_view const val = argv[i + 1];
        if (opt == "--scales")
            cfg.scales = parse_list(val);
        else if (opt == "--sources")
            cfg.sources = std::atoi(argv[i + 1]);
        else if (opt == "--edge-factor")
            cfg.edge_factor = std::atof(argv[i + 1]);
        else if (opt == "--threads")
            cfg.threads = std::atoi(argv[i + 1]);
        else if (opt == "--seed")
            cfg.seed = std::strtoull(argv[i + 1], nullptr, 10);
        else {
            fmt::print(stderr, "unknown option {}\n", opt);
            return 2;
        }
    }
    omp_set_num_threads(cfg.threads);
    grb::ensure_initialized();
    grb::check(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, cfg.threads), "GxB_Global_Option_set");
    fmt::print(
        "{} vs kleene::bfs (CPU), {} threads; undirected Kronecker graphs, edge factor {}; "
        "median over {} sources of degree > 0\n\n",
        grb::library_version(), cfg.threads, cfg.edge_factor, cfg.sources);
    fmt::print(
        "| scale | vertices | stored edges | output | SuiteSparse ms | kleene ms | kleene / "
        "SuiteSparse | SuiteSparse GTEPS median (harmonic) | kleene GTEPS median (harmonic) |\n");
    fmt::print("|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
    std::fflush(stdout);

    for (int scale : cfg.scales) {
        kronecker_options ko;
        ko.scale = scale;
        ko.edge_factor = cfg.edge_factor;
        ko.seed = cfg.seed;
        ko.undirected = true;
        auto const a = kronecker_graph<bool>(ko);
        std::size_t const n = a.rows();
        grb::bfs_oracle const gb(a, true);

        std::mt19937_64 rng(cfg.seed + static_cast<std::uint64_t>(scale));
        std::vector<std::size_t> sources;
        while (sources.size() < static_cast<std::size_t>(cfg.sources)) {
            std::size_t const s = rng() % n;
            if (a.row_end(s) > a.row_begin(s)) sources.push_back(s);
        }
        bfs_options ko_levels;
        ko_levels.device = device_choice::cpu;
        ko_levels.symmetric = true;
        bfs_options ko_parents = ko_levels;
        ko_parents.parents = true;

        // One warm-up of each (page faults, OpenMP and GraphBLAS thread pools).
        (void)gb.run(sources[0], true);
        (void)bfs(a, sources[0], ko_parents);
        for (bool parents : {false, true}) {
            std::vector<double> t_grb, t_kl, edges;
            for (std::size_t s : sources) {
                auto const oracle = gb.run(s, parents);
                auto const& gl = oracle.level;
                auto const& gp = oracle.parent;
                t_grb.push_back(oracle.ms);
                auto const t0 = clock_type::now();
                bfs_result const r = bfs(a, s, parents ? ko_parents : ko_levels);
                t_kl.push_back(ms_since(t0));
                if (r.level != gl) {
                    fmt::print(stderr, "scale {} source {}: kleene and SuiteSparse levels differ\n",
                               scale, s);
                    return 1;
                }
                if (parents &&
                    (!graphblas::valid_bfs_tree(a, s, gl, gp) || !graphblas::valid_bfs_tree(a, s, r.level, r.parent))) {
                    fmt::print(stderr, "scale {} source {}: a parent vector is not a BFS tree\n",
                               scale, s);
                    return 1;
                }
                // Undirected edges of the traversed component (each is stored twice).
                double stored = 0;
                for (std::size_t v = 0; v < n; ++v)
                    if (r.level[v] >= 0)
                        stored += static_cast<double>(a.row_end(v) - a.row_begin(v));
                edges.push_back(stored / 2);
            }
            double const g = median(t_grb), k = median(t_kl);
            fmt::print("| {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {} | {} |\n", scale, n,
                       a.nnz(), parents ? "parents + levels" : "levels", g, k, k / g,
                       gteps(edges, t_grb), gteps(edges, t_kl));
            std::fflush(stdout);
        }
    }
    return 0;
}

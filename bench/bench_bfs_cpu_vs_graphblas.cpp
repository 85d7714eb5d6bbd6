// kleene::bfs on the CPU against a BFS written with SuiteSparse:GraphBLAS C calls in the LAGraph
// style (LG_BreadthFirstSearch_SSGrB's algorithm): q'{!visited} = q' A (push, sparse q) or
// q{!visited} = A' q (pull, bitmap q) under the complemented structural mask of the visited set,
// switching by the unexplored-edge rule (alpha = 8, beta = 512), any.pair for levels and
// any.secondi for parents (plus levels). Undirected Graph500 Kronecker graphs, edge factor 16;
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

void ok(GrB_Info info, char const* call) {
    grb::check(info, call);
}

/// The GraphBLAS side: A (by row, iso bool; A' = A for an undirected graph) and its out-degrees.
class graphblas_bfs {
  public:
    explicit graphblas_bfs(csr_matrix<bool> const& a)
        : n_(a.rows()), nvals_(a.nnz()), a_(grb::to_grb(a)) {
        ok(GrB_Vector_new(&degree_, GrB_INT64, n_), "GrB_Vector_new");
        std::vector<GrB_Index> idx(n_);
        std::vector<std::int64_t> deg(n_);
        for (std::size_t v = 0; v < n_; ++v) {
            idx[v] = v;
            deg[v] = a.row_ptr()[v + 1] - a.row_ptr()[v];
        }
        ok(GrB_Vector_build_INT64(degree_, idx.data(), deg.data(), n_, GrB_PLUS_INT64), "build");
        a_.wait();
        ok(GrB_Vector_wait(degree_, GrB_MATERIALIZE), "GrB_Vector_wait");
    }
    ~graphblas_bfs() { GrB_Vector_free(&degree_); }
    graphblas_bfs(graphblas_bfs const&) = delete;
    graphblas_bfs& operator=(graphblas_bfs const&) = delete;

    /// Levels (and parents): returns the traversal time in ms; the vectors are copied out after.
    double run(std::size_t src, bool parents, std::vector<std::int64_t>& level,
               std::vector<std::int64_t>& parent) {
        auto const t0 = clock_type::now();
        auto const n = static_cast<GrB_Index>(n_);
        GrB_Vector q = nullptr, pi = nullptr, v = nullptr, w = nullptr;
        GrB_Semiring semiring;
        if (parents) {
            semiring = GxB_ANY_SECONDI_INT64;
            ok(GrB_Vector_new(&pi, GrB_INT64, n), "GrB_Vector_new");
            ok(GxB_Vector_Option_set(pi, GxB_SPARSITY_CONTROL, GxB_BITMAP + GxB_FULL), "GxB_set");
            ok(GrB_Vector_setElement_INT64(pi, static_cast<std::int64_t>(src), src), "setElement");
            ok(GrB_Vector_new(&q, GrB_INT64, n), "GrB_Vector_new");
            ok(GrB_Vector_setElement_INT64(q, static_cast<std::int64_t>(src), src), "setElement");
        } else {
            semiring = GxB_ANY_PAIR_BOOL;
            ok(GrB_Vector_new(&q, GrB_BOOL, n), "GrB_Vector_new");
            ok(GrB_Vector_setElement_BOOL(q, true, src), "setElement");
        }
        ok(GrB_Vector_new(&v, GrB_INT64, n), "GrB_Vector_new");
        ok(GxB_Vector_Option_set(v, GxB_SPARSITY_CONTROL, GxB_BITMAP + GxB_FULL), "GxB_set");
        ok(GrB_Vector_setElement_INT64(v, 0, src), "setElement");
        ok(GrB_Vector_new(&w, GrB_INT64, n), "GrB_Vector_new");
        GrB_Vector const visited = parents ? pi : v;

        double const alpha = 8, beta1 = 8, beta2 = 512;
        auto const n_over_beta1 = static_cast<GrB_Index>(static_cast<double>(n) / beta1);
        auto const n_over_beta2 = static_cast<GrB_Index>(static_cast<double>(n) / beta2);
        bool push = true, pulled = false, may_pull = true;
        GrB_Index nq = 1, last_nq = 0;
        auto unexplored = static_cast<std::int64_t>(nvals_);
        for (GrB_Index seen = 1, k = 1; seen < n; seen += nq, ++k) {
            if (may_pull) {
                if (push) {
                    bool const growing = nq > last_nq;
                    bool to_pull = false;
                    if (unexplored < static_cast<std::int64_t>(n)) {
                        may_pull = false;  // little left: stay with push
                    } else if (pulled) {
                        to_pull = growing && nq > n_over_beta1;
                    } else {
                        // Edges out of the frontier: w<q> = degree, summed.
                        ok(GrB_Vector_assign(w, q, nullptr, degree_, GrB_ALL, n, GrB_DESC_RS),
                           "assign");
                        std::int64_t frontier_edges = 0;
                        ok(GrB_Vector_reduce_INT64(&frontier_edges, nullptr, GrB_PLUS_MONOID_INT64,
                                                   w, nullptr),
                           "reduce");
                        unexplored -= frontier_edges;
                        to_pull = growing && static_cast<double>(frontier_edges) >
                                                 static_cast<double>(unexplored) / alpha;
                    }
                    if (to_pull) push = false;
                } else if (nq < last_nq && nq <= n_over_beta2) {
                    push = true;
                }
                pulled = pulled || !push;
            }
            ok(GxB_Vector_Option_set(q, GxB_SPARSITY_CONTROL, push ? GxB_SPARSE : GxB_BITMAP),
               "GxB_set");
            if (push)
                ok(GrB_vxm(q, visited, nullptr, semiring, q, a_.get(), GrB_DESC_RSC), "GrB_vxm");
            else
                ok(GrB_mxv(q, visited, nullptr, semiring, a_.get(), q, GrB_DESC_RSC), "GrB_mxv");
            last_nq = nq;
            ok(GrB_Vector_nvals(&nq, q), "nvals");
            if (nq == 0) break;
            if (parents) ok(GrB_Vector_assign(pi, q, nullptr, q, GrB_ALL, n, GrB_DESC_S), "assign");
            ok(GrB_Vector_assign_INT64(v, q, nullptr, static_cast<std::int64_t>(k), GrB_ALL, n,
                                       GrB_DESC_S),
               "assign");
        }
        ok(GrB_Vector_wait(v, GrB_MATERIALIZE), "wait");
        if (parents) ok(GrB_Vector_wait(pi, GrB_MATERIALIZE), "wait");
        double const t = ms_since(t0);
        auto extract = [&](GrB_Vector x, std::vector<std::int64_t>& out) {
            GrB_Index nv = 0;
            ok(GrB_Vector_nvals(&nv, x), "nvals");
            std::vector<GrB_Index> idx(nv);
            std::vector<std::int64_t> val(nv);
            ok(GrB_Vector_extractTuples_INT64(idx.data(), val.data(), &nv, x), "extractTuples");
            out.assign(n_, -1);
            for (GrB_Index i = 0; i < nv; ++i) out[idx[i]] = val[i];
        };
        extract(v, level);
        if (parents) extract(pi, parent);
        GrB_Vector_free(&q);
        GrB_Vector_free(&pi);
        GrB_Vector_free(&v);
        GrB_Vector_free(&w);
        return t;
    }

  private:
    std::size_t n_, nvals_;
    grb::matrix a_;
    GrB_Vector degree_ = nullptr;
};

/// Parent of every reached vertex is one level up and adjacent; the source is its own parent.
bool valid_tree(csr_matrix<bool> const& a, std::size_t src, std::vector<std::int64_t> const& level,
                std::vector<std::int64_t> const& parent) {
    for (std::size_t v = 0; v < level.size(); ++v) {
        if (level[v] < 0) {
            if (parent[v] != -1) return false;
        } else if (v == src) {
            if (parent[v] != static_cast<std::int64_t>(src)) return false;
        } else {
            std::int64_t const p = parent[v];
            if (p < 0 || level[static_cast<std::size_t>(p)] != level[v] - 1 ||
                a.find(static_cast<std::size_t>(p), v) < 0)
                return false;
        }
    }
    return true;
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
    ok(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, cfg.threads), "GxB_Global_Option_set");
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
        graphblas_bfs gb(a);

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
        {
            std::vector<std::int64_t> l, p;
            gb.run(sources[0], true, l, p);
            (void)bfs(a, sources[0], ko_parents);
        }
        for (bool parents : {false, true}) {
            std::vector<double> t_grb, t_kl, edges;
            for (std::size_t s : sources) {
                std::vector<std::int64_t> gl, gp;
                t_grb.push_back(gb.run(s, parents, gl, gp));
                auto const t0 = clock_type::now();
                bfs_result const r = bfs(a, s, parents ? ko_parents : ko_levels);
                t_kl.push_back(ms_since(t0));
                if (r.level != gl) {
                    fmt::print(stderr, "scale {} source {}: kleene and SuiteSparse levels differ\n",
                               scale, s);
                    return 1;
                }
                if (parents &&
                    (!valid_tree(a, s, gl, gp) || !valid_tree(a, s, r.level, r.parent))) {
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

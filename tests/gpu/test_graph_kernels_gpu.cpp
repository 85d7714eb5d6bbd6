// GPU graph-analytics kernels (kleene/algorithms/cuda/graph_kernels.hpp) against plain host code
// written here: a union-find for the components, the PageRank power iteration in double (pushing
// along the out-edges, so the transpose the GPU pulls from is checked too), the node-iterator
// triangle count over sorted rows, and textbook Brandes (queue, predecessors, stack) for
// betweenness. Graphs: random ones of many sizes with self-loops, duplicate coordinates and
// isolated vertices, disconnected unions, paths, a star whose hub row is long enough to be sliced
// over warps, and Graph500 Kronecker graphs of scales 10-14; directed graphs (with their transpose)
// for PageRank and betweenness; the empty graph, one vertex, and bad input.

#define BOOST_TEST_MODULE graph_kernels_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/vector.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace kleene;
using kleene::test::have_gpu;
using kleene::test::needs;
using rng = std::mt19937_64;

/// An edge list; duplicates allowed (the CSR merges them).
struct edges {
    std::size_t n = 0;
    std::vector<std::int64_t> from, to;
    void add(std::int64_t u, std::int64_t v) {
        from.push_back(u);
        to.push_back(v);
    }
    edges symmetric() const {
        edges e = *this;
        for (std::size_t k = 0; k < from.size(); ++k) e.add(to[k], from[k]);
        return e;
    }
    edges reversed() const {
        edges e;
        e.n = n;
        for (std::size_t k = 0; k < from.size(); ++k) e.add(to[k], from[k]);
        return e;
    }
};

template <class I>
csr_matrix<bool, I> pattern(edges const& e) {
    std::vector<I> ii(e.from.begin(), e.from.end()), jj(e.to.begin(), e.to.end());
    return csr_matrix<bool, I>::from_coo(e.n, e.n, ii, jj, std::span<bool const>{},
                                         duplicate_policy::last);
}

template <class I>
csr_matrix<bool, I> transpose_of(csr_matrix<bool, I> const& a) {
    edges e;
    e.n = a.rows();
    for (std::size_t u = 0; u < a.rows(); ++u)
        for (I v : a.row_cols(u)) e.add(std::int64_t(v), std::int64_t(u));
    return pattern<I>(e);
}

/// Poisson out-degrees, uniform targets, plus a few self-loops and repeated coordinates.
edges random_edges(std::size_t n, double mean_degree, rng& g) {
    edges e;
    e.n = n;
    if (n == 0) return e;
    std::poisson_distribution<int> d(mean_degree);
    for (std::size_t u = 0; u < n; ++u) {
        int const k = d(g);
        for (int i = 0; i < k; ++i) e.add(std::int64_t(u), std::int64_t(g() % n));
    }
    for (std::size_t i = 0; i < n / 10 + 1; ++i) {
        auto const v = std::int64_t(g() % n);
        e.add(v, v);
        if (!e.from.empty()) {
            std::size_t const k = g() % e.from.size();
            e.add(e.from[k], e.to[k]);
        }
    }
    return e;
}

/// Several random pieces side by side (no edges between them) and some isolated vertices.
edges pieces(std::vector<std::size_t> const& sizes, double mean_degree, rng& g) {
    edges e;
    for (std::size_t s : sizes) {
        edges const p = random_edges(s, mean_degree, g);
        for (std::size_t k = 0; k < p.from.size(); ++k)
            e.add(p.from[k] + std::int64_t(e.n), p.to[k] + std::int64_t(e.n));
        e.n += s + 3;  // three isolated vertices after each piece
    }
    return e;
}

/// A side x side grid, each vertex joined to its right and lower neighbours.
edges grid_edges(std::int64_t side) {
    edges e;
    e.n = std::size_t(side * side);
    for (std::int64_t r = 0; r < side; ++r)
        for (std::int64_t c = 0; c < side; ++c) {
            if (c + 1 < side) e.add(r * side + c, r * side + c + 1);
            if (r + 1 < side) e.add(r * side + c, (r + 1) * side + c);
        }
    return e;
}

edges path(std::size_t n) {
    edges e;
    e.n = n;
    for (std::size_t v = 0; v + 1 < n; ++v) e.add(std::int64_t(v), std::int64_t(v + 1));
    return e;
}

/// Vertex 0 joined to all others (a row longer than the walk's slicing threshold), plus random
/// edges among the leaves, so the hub lies on many triangles and shortest paths.
edges star(std::size_t n, double mean_degree, rng& g) {
    edges e = random_edges(n, mean_degree, g);
    for (std::size_t v = 1; v < n; ++v) e.add(0, std::int64_t(v));
    return e;
}

template <class I>
csr_matrix<bool, I> kronecker(int scale, bool undirected, std::uint64_t seed) {
    kronecker_options o;
    o.scale = scale;
    o.edge_factor = 16;
    o.seed = seed;
    o.undirected = undirected;
    return kronecker_graph<bool, I>(o);
}

// ---- references
// ----------------------------------------------------------------------------------

/// Components by union-find over every entry (either direction), named by their smallest vertex.
template <class I>
std::vector<std::int64_t> ref_components(csr_matrix<bool, I> const& a) {
    std::vector<std::size_t> parent(a.rows());
    std::iota(parent.begin(), parent.end(), std::size_t(0));
    auto find = [&](std::size_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    for (std::size_t u = 0; u < a.rows(); ++u)
        for (I v : a.row_cols(u)) {
            std::size_t const ru = find(u), rv = find(std::size_t(v));
            if (ru != rv) parent[std::max(ru, rv)] = std::min(ru, rv);
        }
    std::vector<std::int64_t> label(a.rows());
    for (std::size_t v = 0; v < a.rows(); ++v) label[v] = std::int64_t(find(v));
    return label;
}

struct ref_pr {
    std::vector<double> rank;
    std::vector<double> change;  // per iteration
};

/// `iterations` PageRank steps exactly as graph_kernels.hpp defines them, pushing along out-edges.
template <class I>
ref_pr ref_pagerank(csr_matrix<bool, I> const& a, cuda::pagerank_params const& p, int iterations,
                    double stop = -1) {
    std::size_t const n = a.rows();
    ref_pr r;
    r.rank.assign(n, n ? 1.0 / double(n) : 0.0);
    for (int it = 0; it < iterations; ++it) {
        std::vector<double> pulled(n, 0.0);
        double dangling = 0;
        for (std::size_t u = 0; u < n; ++u) {
            auto const row = a.row_cols(u);
            if (row.empty()) dangling += r.rank[u];
            for (I v : row) pulled[std::size_t(v)] += r.rank[u] / double(row.size());
        }
        double change = 0;
        for (std::size_t v = 0; v < n; ++v) {
            double const next =
                (1 - p.damping) / double(n) +
                p.damping * (pulled[v] + (p.redistribute_dangling ? dangling / double(n) : 0.0));
            change += std::fabs(next - r.rank[v]);
            r.rank[v] = next;
        }
        r.change.push_back(change);
        if (change < stop) break;
    }
    return r;
}

/// Node iterator: u < v < w with v, w in N(u) and w in N(v); rows are sorted.
template <class I>
std::uint64_t ref_triangles(csr_matrix<bool, I> const& a) {
    std::uint64_t count = 0;
    for (std::size_t u = 0; u < a.rows(); ++u) {
        auto const nu = a.row_cols(u);
        for (I v : nu) {
            if (std::size_t(v) <= u) continue;
            for (I w : a.row_cols(std::size_t(v)))
                if (w > v && std::binary_search(nu.begin(), nu.end(), w)) ++count;
        }
    }
    return count;
}

/// Brandes (2001): a BFS per source recording predecessors and path counts, then dependencies
/// accumulated in reverse BFS order.
template <class I>
std::vector<double> ref_brandes(csr_matrix<bool, I> const& a,
                                std::vector<std::int64_t> const& sources) {
    std::size_t const n = a.rows();
    std::vector<double> centrality(n, 0.0);
    for (std::int64_t s64 : sources) {
        auto const s = std::size_t(s64);
        std::vector<std::vector<std::size_t>> pred(n);
        std::vector<double> sigma(n, 0.0), delta(n, 0.0);
        std::vector<std::int64_t> dist(n, -1);
        std::vector<std::size_t> order;
        std::deque<std::size_t> queue{s};
        sigma[s] = 1;
        dist[s] = 0;
        while (!queue.empty()) {
            std::size_t const v = queue.front();
            queue.pop_front();
            order.push_back(v);
            for (I wi : a.row_cols(v)) {
                auto const w = std::size_t(wi);
                if (dist[w] < 0) {
                    dist[w] = dist[v] + 1;
                    queue.push_back(w);
                }
                if (dist[w] == dist[v] + 1) {
                    sigma[w] += sigma[v];
                    pred[w].push_back(v);
                }
            }
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            std::size_t const w = *it;
            for (std::size_t v : pred[w]) delta[v] += sigma[v] / sigma[w] * (1 + delta[w]);
            if (w != s) centrality[w] += delta[w];
        }
    }
    return centrality;
}

// ---- checks
// --------------------------------------------------------------------------------------

template <class I>
void check_cc(csr_matrix<bool, I> const& a, std::string const& what) {
    auto const want = ref_components(a);
    std::size_t const count = [&] {
        std::size_t c = 0;
        for (std::size_t v = 0; v < want.size(); ++v) c += want[v] == std::int64_t(v);
        return c;
    }();
    auto const ad = a.to_device();
    for (auto kernel : {cuda::cc_kernel::fastsv, cuda::cc_kernel::afforest}) {
        auto const run = cuda::connected_components(ad, kernel);
        std::string const name = what +
                                 (kernel == cuda::cc_kernel::fastsv ? " fastsv" : " afforest") +
                                 " (" + std::to_string(sizeof(I) * 8) + "-bit)";
        BOOST_TEST(run.component.size() == a.rows(), name);
        std::size_t wrong = 0;
        for (std::size_t v = 0; v < std::min(want.size(), run.component.size()); ++v)
            wrong += run.component[v] != want[v];
        BOOST_TEST(wrong == 0u, name << ": " << wrong << " wrong labels");
        BOOST_TEST(run.count == count, name << ": count");
        BOOST_TEST(!run.notes.empty(), name);
        if (a.rows() > 0) BOOST_TEST(run.iterations > 0, name);
        // The labels left on the device, in the caller's vector.
        dense_vector<std::int64_t, device> comp_d(a.rows());
        auto const on = cuda::connected_components(ad, comp_d, kernel, default_context());
        BOOST_TEST(on.component.empty(), name);
        BOOST_TEST(on.count == count, name << ": count, labels on the device");
        auto const got = comp_d.to_host();
        std::size_t wrong_d = 0;
        for (std::size_t v = 0; v < std::min(want.size(), got.size()); ++v)
            wrong_d += got[v] != want[v];
        BOOST_TEST(wrong_d == 0u, name << ": " << wrong_d << " wrong labels on the device");
    }
    if (a.rows() > 0) {
        dense_vector<std::int64_t, device> wrong_size(a.rows() + 1);
        BOOST_CHECK_THROW((void)cuda::connected_components(ad, wrong_size, cuda::cc_kernel::fastsv,
                                                           default_context()),
                          dimension_mismatch);
    }
}

/// The Gauss-Seidel kernel (contributions updated in place) has no step-for-step reference: which
/// contributions a vertex reads new varies from run to run. Its fixed point is the Jacobi one, so
/// its ranks are held to the reference's converged ranks: after a step whose L1 change is below
/// the tolerance, within 4 tolerance / (1 - damping) in L1 (the Jacobi bound is damping /
/// (1 - damping) times the change). Without an iteration, the initial ranks exactly.
template <class I>
void check_gauss_seidel(csr_matrix<bool, I> const& a, csr_matrix<bool, I, device> const& ad,
                        csr_matrix<bool, I, device> const& atd, std::string const& what,
                        cuda::pagerank_params const& p) {
    std::string const name = what + " gauss-seidel (" + std::to_string(sizeof(I) * 8) + "-bit)";
    auto const run = cuda::pagerank(ad, atd, p, cuda::pagerank_kernel::gauss_seidel);
    BOOST_TEST(run.rank.size() == a.rows(), name);
    BOOST_TEST(run.iterations <= std::max(p.max_iterations, 0), name);
    dense_vector<double, device> rank_d(a.rows());
    auto const on =
        cuda::pagerank(ad, atd, p, cuda::pagerank_kernel::gauss_seidel, rank_d, default_context());
    BOOST_TEST(on.rank.empty(), name);
    auto const got = rank_d.to_host();
    if (a.rows() == 0 || run.rank.size() != a.rows() || got.size() != a.rows()) return;
    if (p.max_iterations == 0) {
        for (std::size_t v = 0; v < a.rows(); ++v) {
            BOOST_TEST(run.rank[v] == 1.0 / double(a.rows()), name << ": vertex " << v);
            BOOST_TEST(got[v] == 1.0 / double(a.rows()), name << ": vertex " << v);
        }
        return;
    }
    if (!(run.change < p.tolerance)) {
        // Not converged (tolerance 0, damping 1): only the count of steps is known.
        BOOST_TEST(run.iterations == p.max_iterations, name);
        return;
    }
    if (p.damping >= 1.0) return;  // no bound from the change alone
    auto const fixed = ref_pagerank(a, p, 5000, 1e-14);
    BOOST_TEST(fixed.change.back() < 1e-14, name << ": the reference did not converge");
    double const bound = 4 * p.tolerance / (1 - p.damping);
    auto const distance = [&](auto const& ranks) {
        double off = 0;
        for (std::size_t v = 0; v < a.rows(); ++v) off += std::fabs(ranks[v] - fixed.rank[v]);
        return off;
    };
    for (double const off : {distance(run.rank), distance(got)})
        BOOST_TEST(off <= bound, name << ": L1 distance " << off << " from the fixed point, bound "
                                      << bound);
    BOOST_TEST(on.change < p.tolerance, name << ": ranks on the device, change " << on.change);
}

/// GPU ranks against the reference run for as many iterations as the GPU ran; the stopping rule
/// is checked on the reference's changes (up to rounding in the last bits).
template <class I>
void check_pagerank_on(csr_matrix<bool, I> const& a, csr_matrix<bool, I, device> const& ad,
                       csr_matrix<bool, I, device> const& atd, std::string const& what,
                       cuda::pagerank_params p) {
    for (bool spread : {false, true}) {
        p.redistribute_dangling = spread;
        for (auto kernel : {cuda::pagerank_kernel::fused, cuda::pagerank_kernel::semiring}) {
            std::string const name =
                what + (kernel == cuda::pagerank_kernel::fused ? " fused" : " semiring") +
                (spread ? " redistribute" : " gap") + " (" + std::to_string(sizeof(I) * 8) +
                "-bit)";
            auto const run = cuda::pagerank(ad, atd, p, kernel);
            auto const want = ref_pagerank(a, p, run.iterations);
            BOOST_TEST(run.rank.size() == a.rows(), name);
            double worst = 0;
            for (std::size_t v = 0; v < std::min(run.rank.size(), want.rank.size()); ++v)
                worst = std::max(worst, std::fabs(run.rank[v] - want.rank[v]));
            BOOST_TEST(worst <= 1e-12, name << ": rank off by " << worst);
            // The ranks left on the device, in the caller's vector.
            dense_vector<double, device> rank_d(a.rows());
            auto const on = cuda::pagerank(ad, atd, p, kernel, rank_d, default_context());
            BOOST_TEST(on.rank.empty(), name);
            BOOST_TEST(on.iterations == run.iterations, name << ": iterations, ranks on the device");
            auto const got = rank_d.to_host();
            double worst_d = 0;
            for (std::size_t v = 0; v < std::min(got.size(), want.rank.size()); ++v)
                worst_d = std::max(worst_d, std::fabs(got[v] - want.rank[v]));
            BOOST_TEST(worst_d <= 1e-12, name << ": rank on the device off by " << worst_d);
            BOOST_TEST(run.iterations <= p.max_iterations, name);
            if (a.rows() == 0) continue;
            double const slack = 1e-12;
            for (int i = 0; i + 1 < run.iterations; ++i)
                BOOST_TEST(want.change[std::size_t(i)] >= p.tolerance - slack,
                           name << ": should have stopped after iteration " << i + 1);
            if (run.iterations > 0) {
                double const last = want.change.back();
                BOOST_TEST(std::fabs(run.change - last) <= 1e-12 + 1e-9 * last,
                           name << ": change " << run.change << ", reference " << last);
                if (run.iterations < p.max_iterations)
                    BOOST_TEST(last < p.tolerance + slack, name << ": stopped too early");
            }
        }
        check_gauss_seidel(a, ad, atd, what + (spread ? " redistribute" : " gap"), p);
    }
}

/// A symmetric graph (at the same object as a) runs twice: with A' a device copy of its own, and
/// with one device matrix as both A and A', as a kleene::graph holds it (the pull then reads the
/// out-degrees from the walked rows' own pointers: pr_pull's same_ptr).
template <class I>
void check_pagerank(csr_matrix<bool, I> const& a, csr_matrix<bool, I> const& at,
                    std::string const& what, cuda::pagerank_params p = {}) {
    auto const ad = a.to_device(), at_copy = at.to_device();
    check_pagerank_on(a, ad, at_copy, what, p);
    if (&a == &at) check_pagerank_on(a, ad, ad, what + " (A' the same device matrix)", p);
}

template <class I>
void check_tc(csr_matrix<bool, I> const& a, std::string const& what) {
    std::uint64_t const want = ref_triangles(a);
    auto const ad = a.to_device();
    for (bool relabel : {true, false}) {
        auto const run = cuda::triangle_count(ad, relabel);
        BOOST_TEST(run.triangles == want, what << (relabel ? " relabelled" : " as numbered") << " ("
                                               << sizeof(I) * 8 << "-bit): " << run.triangles
                                               << " triangles, reference " << want);
        BOOST_TEST(run.relabelled == relabel);
    }
    // Every tc_tuning path: a thread per entry, the sorted queue, and limits low enough that
    // small graphs queue most pairs for the lane groups, which search, merge or pick by size.
    for (bool entry : {false, true})
        for (bool sorted : {false, true})
            for (float heavy_merge : {0.0f, 1.0f, 1e9f})
                for (bool relabel : {true, false}) {
                    cuda::tc_tuning t;
                    t.entry_parallel = entry;
                    t.sort_queue = sorted;
                    t.radix_rows = entry != sorted;
                    t.merge_max = 16;
                    t.search_max = 0;
                    t.heavy_merge = heavy_merge;
                    auto const run = cuda::triangle_count(ad, relabel, t);
                    BOOST_TEST(run.triangles == want,
                               what << " (tuning: relabel " << relabel << ", entry " << entry
                                    << ", sorted " << sorted << ", radix rows " << t.radix_rows
                                    << ", heavy_merge " << heavy_merge << "): " << run.triangles
                                    << " triangles, reference " << want);
                }
}

template <class I>
void check_bc(csr_matrix<bool, I> const& a, csr_matrix<bool, I> const& at,
              std::vector<std::int64_t> const& sources, std::string const& what,
              context& ctx = default_context(), std::string const& note = {}) {
    auto const want = ref_brandes(a, sources);
    auto const ad = a.to_device(), atd = at.to_device();
    auto const run = cuda::betweenness(ad, atd, sources, ctx);
    if (!note.empty()) {
        bool const noted = std::any_of(run.notes.begin(), run.notes.end(), [&](std::string const& s) {
            return s.find(note) != std::string::npos;
        });
        BOOST_TEST(noted, what << ": no note '" << note << "' in: " << run.notes.front());
    }
    BOOST_TEST(run.centrality.size() == a.rows(), what);
    std::size_t wrong = 0;
    double worst = 0;
    for (std::size_t v = 0; v < std::min(want.size(), run.centrality.size()); ++v) {
        double const err = std::fabs(run.centrality[v] - want[v]);
        if (err > 1e-9 * std::max(1.0, std::fabs(want[v]))) ++wrong;
        worst = std::max(worst, err);
    }
    BOOST_TEST(wrong == 0u, what << " (" << sources.size() << " sources, " << sizeof(I) * 8
                                 << "-bit): " << wrong << " wrong, worst error " << worst);
}

std::vector<std::int64_t> some_sources(std::size_t n, std::size_t k, rng& g) {
    std::vector<std::int64_t> s;
    for (std::size_t i = 0; i < k; ++i) s.push_back(std::int64_t(g() % n));
    return s;
}

/// Every kernel on the symmetric graph of `e`, and PageRank and BC on `e` as a directed graph.
template <class I>
void check_all(edges const& e, std::string const& what, rng& g) {
    auto const sym = pattern<I>(e.symmetric());
    check_cc(sym, what);
    check_tc(sym, what);
    check_pagerank(sym, sym, what + " symmetric");
    auto const dir = pattern<I>(e);
    auto const dir_t = transpose_of(dir);
    check_pagerank(dir, dir_t, what + " directed");
    if (e.n > 0)
        for (std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(8), std::size_t(13)}) {
            check_bc(sym, sym, some_sources(e.n, k, g), what + " symmetric");
            check_bc(dir, dir_t, some_sources(e.n, k, g), what + " directed");
        }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(small)

BOOST_AUTO_TEST_CASE(empty_and_single_vertex) {
    if (!have_gpu(needs::minimal)) return;
    rng g(1);
    for (std::size_t n : {0, 1, 7}) {  // 7: isolated vertices only
        edges e;
        e.n = n;
        check_all<std::int32_t>(e, "no edges, n=" + std::to_string(n), g);
        check_all<std::int64_t>(e, "no edges, n=" + std::to_string(n), g);
    }
    edges loop;
    loop.n = 1;
    loop.add(0, 0);
    check_all<std::int32_t>(loop, "one vertex with a self-loop", g);
    edges pair;
    pair.n = 2;
    pair.add(0, 1);
    pair.add(0, 1);
    check_all<std::int64_t>(pair, "one edge given twice", g);
    // No sources: zero centrality, nothing run.
    auto const a = pattern<std::int32_t>(random_edges(20, 2, g).symmetric()).to_device();
    auto const run = cuda::betweenness(a, a, {});
    BOOST_TEST(run.centrality.size() == 20u);
    BOOST_TEST(
        std::all_of(run.centrality.begin(), run.centrality.end(), [](double c) { return c == 0; }));
}

BOOST_AUTO_TEST_CASE(random_graphs) {
    if (!have_gpu(needs::minimal)) return;
    rng g(20);
    for (std::size_t n : {2, 3, 5, 17, 64, 200, 1000, 3000})
        for (double degree : {0.5, 3.0, 12.0}) {
            std::string const what =
                "random n=" + std::to_string(n) + " degree " + std::to_string(degree);
            check_all<std::int32_t>(random_edges(n, degree, g), what, g);
        }
    check_all<std::int64_t>(random_edges(500, 4.0, g), "random n=500 degree 4", g);
}

BOOST_AUTO_TEST_CASE(disconnected_paths_stars) {
    if (!have_gpu(needs::minimal)) return;
    rng g(7);
    check_all<std::int32_t>(pieces({1, 2, 30, 400, 5}, 2.0, g), "five pieces", g);
    check_all<std::int64_t>(pieces({100, 100, 100}, 1.0, g), "three sparse pieces", g);
    check_all<std::int32_t>(path(3000), "path of 3000", g);
    check_all<std::int64_t>(path(257), "path of 257", g);
    // Hub rows of 9000 and 5000 entries: past walk::long_min, so they are sliced over warps.
    check_all<std::int32_t>(star(9000, 2.0, g), "star of 9000", g);
    check_all<std::int64_t>(star(5000, 1.0, g), "star of 5000", g);
}

// BC keeps depths in 8 bits while a batch has fewer than 255 levels; from an end of a chain of
// 300 cliques of 10 (29 entries a vertex: not chained) it has 300, so the batch must run again
// with 32-bit depths, and still be right.
BOOST_AUTO_TEST_CASE(bc_deeper_than_8_bit_depths) {
    if (!have_gpu(needs::minimal)) return;
    edges e;
    std::int64_t const groups = 300, size = 10;
    e.n = std::size_t(groups * size);
    for (std::int64_t gi = 0; gi < groups; ++gi)
        for (std::int64_t i = 0; i < size; ++i)
            for (std::int64_t j = 0; j < size; ++j) {
                if (i < j) e.add(gi * size + i, gi * size + j);
                if (gi + 1 < groups) e.add(gi * size + i, (gi + 1) * size + j);
            }
    auto const p = pattern<std::int32_t>(e.symmetric());
    auto const pd = p.to_device();
    auto const run = cuda::betweenness(pd, pd, {0, std::int64_t(e.n) - 1});
    bool const rerun = std::any_of(run.notes.begin(), run.notes.end(), [](std::string const& s) {
        return s.find("runs again with 32-bit depths") != std::string::npos;
    });
    BOOST_TEST(rerun, "no rerun with 32-bit depths noted for a chain of 300 cliques");
    check_bc(p, p, {0, std::int64_t(e.n) - 1}, "chain of cliques from both ends");
    check_bc(p, p, {1500}, "chain of cliques from its middle (150 levels)");
}

// Graphs of few edges a vertex, with tuning::bc_loop = chained, chain their push levels (queued
// 32 at a time, sizes on the device) with 32-bit depths from the start: a path of 3000 (2,999 levels, the chain's end
// inside a chain of 32) and a grid.
BOOST_AUTO_TEST_CASE(bc_chained_levels) {
    if (!have_gpu(needs::minimal)) return;
    rng g(11);
    context ctx;
    ctx.tune.bc_loop = bc_level_loop::chained;
    auto const p = pattern<std::int32_t>(path(3000).symmetric());
    auto const pd = p.to_device();
    auto const run = cuda::betweenness(pd, pd, {0, 2999, 1234}, ctx);
    bool const chained = std::any_of(run.notes.begin(), run.notes.end(), [](std::string const& s) {
        return s.find("32-bit depths: 3000 levels (p push, P pull, c push chained: ccc") !=
               std::string::npos;
    });
    BOOST_TEST(chained, "a path of 3000 did not chain its levels: " << run.notes.front());
    check_bc(p, p, {0, 2999, 1234}, "path of 3000, chained", ctx);
    edges const grid = grid_edges(50);
    auto const gs = pattern<std::int64_t>(grid.symmetric());
    check_bc(gs, gs, some_sources(grid.n, 8, g), "grid 50 x 50, chained", ctx);
    auto const gd = pattern<std::int64_t>(grid);
    check_bc(gd, transpose_of(gd), some_sources(grid.n, 5, g), "directed grid, chained", ctx);
    // The automatic choice on the same path: the cooperative kernel.
    check_bc(p, p, {0, 2999, 1234}, "path of 3000, automatic", default_context(),
             "forward and backward in one cooperative kernel");
}

// tuning::bc_loop = cooperative: the whole batch in one cooperative kernel, every batch width
// (1, 2, 4 and 8 columns), paths whose ends meet in the middle, grids, a directed grid; a star of
// 5,000 leaves (a row longer than walk::long_min) keeps the chained levels.
BOOST_AUTO_TEST_CASE(bc_cooperative_levels) {
    if (!have_gpu(needs::minimal)) return;
    rng g(12);
    context ctx;
    ctx.tune.bc_loop = bc_level_loop::cooperative;
    std::string const one_kernel = "in one cooperative kernel";
    auto const p = pattern<std::int32_t>(path(3000).symmetric());
    check_bc(p, p, {0}, "path of 3000, one source, cooperative", ctx,
             "3000 levels, forward and backward " + one_kernel);
    check_bc(p, p, {0, 2999}, "path of 3000, both ends, cooperative", ctx, one_kernel);
    check_bc(p, p, {0, 2999, 1234}, "path of 3000, three sources, cooperative", ctx, one_kernel);
    edges const grid = grid_edges(50);
    auto const gs = pattern<std::int64_t>(grid.symmetric());
    check_bc(gs, gs, some_sources(grid.n, 8, g), "grid 50 x 50, 8 sources, cooperative", ctx,
             one_kernel);
    check_bc(gs, gs, some_sources(grid.n, 11, g), "grid 50 x 50, 11 sources, cooperative", ctx,
             one_kernel);
    auto const gd = pattern<std::int64_t>(grid);
    check_bc(gd, transpose_of(gd), some_sources(grid.n, 5, g), "directed grid, cooperative", ctx,
             one_kernel);
    edges star;
    star.n = 5001;
    for (std::int64_t v = 1; v < 5001; ++v) star.add(0, v);
    auto const ss = pattern<std::int32_t>(star.symmetric());
    check_bc(ss, ss, {0, 17}, "star of 5000 leaves, cooperative asked", ctx,
             "c push chained");
}

BOOST_AUTO_TEST_CASE(bad_input) {
    if (!have_gpu(needs::minimal)) return;
    csr_matrix<bool, std::int32_t, device> const rect(3, 4);
    BOOST_CHECK_THROW(cuda::connected_components(rect, cuda::cc_kernel::fastsv),
                      dimension_mismatch);
    BOOST_CHECK_THROW(cuda::triangle_count(rect, true), dimension_mismatch);
    {
        csr_matrix<bool, std::int32_t, device> const square(3, 3);
        cuda::tc_tuning low;
        low.merge_max = 15;  // queued pairs need lists of at least 8 for the lane groups
        BOOST_CHECK_THROW(cuda::triangle_count(square, true, low), invalid_argument);
        cuda::tc_tuning nan;
        nan.heavy_merge = std::nanf("");
        BOOST_CHECK_THROW(cuda::triangle_count(square, true, nan), invalid_argument);
    }
    BOOST_CHECK_THROW(cuda::pagerank(rect, rect, {}, cuda::pagerank_kernel::fused),
                      dimension_mismatch);
    BOOST_CHECK_THROW(cuda::betweenness(rect, rect, {0}), dimension_mismatch);
    rng g(3);
    auto const a = pattern<std::int32_t>(random_edges(10, 2, g)).to_device();
    auto const b = pattern<std::int32_t>(random_edges(11, 2, g)).to_device();
    BOOST_CHECK_THROW(cuda::pagerank(a, b, {}, cuda::pagerank_kernel::fused), dimension_mismatch);
    BOOST_CHECK_THROW(cuda::betweenness(a, b, {0}), dimension_mismatch);
    BOOST_CHECK_THROW(cuda::betweenness(a, a, {10}), invalid_argument);
    BOOST_CHECK_THROW(cuda::betweenness(a, a, {-1}), invalid_argument);
    csr_matrix<bool, std::int32_t, device> const none;
    BOOST_CHECK_THROW(cuda::betweenness(none, none, {0}), invalid_argument);
    for (auto kernel : {cuda::pagerank_kernel::fused, cuda::pagerank_kernel::semiring}) {
        cuda::pagerank_params p;
        p.damping = std::numeric_limits<double>::quiet_NaN();
        BOOST_CHECK_THROW(cuda::pagerank(a, a, p, kernel), invalid_argument);
        p = {};
        p.damping = 1.5;
        BOOST_CHECK_THROW(cuda::pagerank(a, a, p, kernel), invalid_argument);
        p = {};
        p.tolerance = -1e-3;
        BOOST_CHECK_THROW(cuda::pagerank(a, a, p, kernel), invalid_argument);
        p = {};
        p.tolerance = std::numeric_limits<double>::quiet_NaN();
        BOOST_CHECK_THROW(cuda::pagerank(a, a, p, kernel), invalid_argument);
        p = {};
        p.max_iterations = -1;
        BOOST_CHECK_THROW(cuda::pagerank(a, a, p, kernel), invalid_argument);
    }
}

BOOST_AUTO_TEST_CASE(pagerank_parameters) {
    if (!have_gpu(needs::minimal)) return;
    rng g(11);
    auto const e = random_edges(300, 3.0, g);
    auto const a = pattern<std::int32_t>(e);
    auto const at = transpose_of(a);
    cuda::pagerank_params p;
    p.max_iterations = 0;  // the initial ranks, untouched
    check_pagerank(a, at, "no iterations", p);
    p = {};
    p.tolerance = 0;  // never converges: runs max_iterations
    p.max_iterations = 7;
    check_pagerank(a, at, "tolerance 0", p);
    p = {};
    p.damping = 0.5;
    p.tolerance = 1e-9;
    check_pagerank(a, at, "damping 0.5", p);
    p = {};
    p.damping = 1.0;
    p.max_iterations = 30;
    check_pagerank(a, at, "damping 1", p);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(kronecker_graphs)

BOOST_AUTO_TEST_CASE(scales_10_to_14) {
    if (!have_gpu(needs::minimal)) return;
    rng g(5);
    for (int scale : {10, 12, 14}) {
        std::string const what = "kronecker scale " + std::to_string(scale);
        auto const sym = kronecker<std::int32_t>(scale, true, std::uint64_t(scale));
        check_cc(sym, what);
        check_tc(sym, what);
        check_pagerank(sym, sym, what);
        check_bc(sym, sym, some_sources(sym.rows(), 4, g), what);
        auto const dir = kronecker<std::int32_t>(scale, false, std::uint64_t(scale) + 100);
        auto const dir_t = transpose_of(dir);
        check_pagerank(dir, dir_t, what + " directed");
        check_bc(dir, dir_t, some_sources(dir.rows(), 5, g), what + " directed");
    }
    auto const big = kronecker<std::int64_t>(12, true, 99);
    check_cc(big, "kronecker scale 12");
    check_tc(big, "kronecker scale 12");
    check_pagerank(big, big, "kronecker scale 12");
    check_bc(big, big, some_sources(big.rows(), 8, g), "kronecker scale 12");
}

BOOST_AUTO_TEST_SUITE_END()

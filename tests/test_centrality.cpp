// Betweenness centrality on the CPU against a textbook Brandes written here (queue BFS, path
// counts, predecessor lists, a stack, dependencies): single sources and batches (repeats
// included), directed and undirected random uniform and Kronecker graphs of many sizes, both
// methods and automatic, forced push / pull / automatic levels, 1-3 threads; closed forms on
// paths and stars; disconnected graphs, self-loops, duplicate input edges, isolated vertices, 0
// and 1 vertices, no sources; normalisation; bad input.

#define BOOST_TEST_MODULE centrality
#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/generate.hpp>

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace kleene;

// ---- reference ----------------------------------------------------------------------------------

/// Brandes (2001) for unweighted graphs, summed over `sources`; a source gets nothing from its
/// own search.
template <class T, class Index>
std::vector<double> textbook_brandes(csr_matrix<T, Index> const& a,
                                     std::vector<std::int64_t> const& sources) {
    std::size_t const n = a.rows();
    std::vector<double> bc(n, 0.0);
    for (std::int64_t s64 : sources) {
        auto const s = static_cast<std::size_t>(s64);
        std::vector<std::vector<std::size_t>> pred(n);
        std::vector<double> sigma(n, 0.0), delta(n, 0.0);
        std::vector<std::int64_t> dist(n, -1);
        std::vector<std::size_t> stack;
        std::deque<std::size_t> queue{s};
        sigma[s] = 1;
        dist[s] = 0;
        while (!queue.empty()) {
            std::size_t const v = queue.front();
            queue.pop_front();
            stack.push_back(v);
            for (std::size_t k = a.row_begin(v); k < a.row_end(v); ++k) {
                auto const w = static_cast<std::size_t>(a.col_idx()[k]);
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
        while (!stack.empty()) {
            std::size_t const w = stack.back();
            stack.pop_back();
            for (std::size_t v : pred[w]) delta[v] += sigma[v] / sigma[w] * (1 + delta[w]);
            if (w != s) bc[w] += delta[w];
        }
    }
    return bc;
}

// ---- graphs -------------------------------------------------------------------------------------

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

csr_matrix<bool> kronecker(int scale, std::uint64_t seed, bool undirected) {
    kronecker_options o;
    o.scale = scale;
    o.edge_factor = 8;
    o.seed = seed;
    o.undirected = undirected;
    return kronecker_graph<bool>(o);
}

csr_matrix<bool> from_edges(std::size_t n, std::vector<std::int32_t> const& ii,
                            std::vector<std::int32_t> const& jj) {
    return csr_matrix<bool>::from_coo(n, n, ii, jj, std::span<bool const>{},
                                      duplicate_policy::last);
}

/// The undirected graph of the edges (i, j): both directions.
csr_matrix<bool> undirected_edges(std::size_t n, std::vector<std::int32_t> ii,
                                  std::vector<std::int32_t> jj) {
    std::size_t const m = ii.size();
    for (std::size_t k = 0; k < m; ++k) {
        ii.push_back(jj[k]);
        jj.push_back(ii[k]);
    }
    return from_edges(n, ii, jj);
}

struct thread_count {
    int saved = omp_get_max_threads();
    explicit thread_count(int t) { omp_set_num_threads(t); }
    ~thread_count() { omp_set_num_threads(saved); }
};

/// Sums of many path-count ratios: equal up to rounding, relative to the size of the score.
bool close(double x, double want) {
    return std::abs(x - want) <= 1e-9 * (1 + std::abs(want));
}

std::size_t mismatches(std::span<double const> got, std::span<double const> want) {
    if (got.size() != want.size()) return std::max<std::size_t>(1, want.size());
    std::size_t bad = 0;
    for (std::size_t v = 0; v < want.size(); ++v) bad += !close(got[v], want[v]);
    return bad;
}

/// betweenness(a, sources) every way against the reference: both methods and automatic, each
/// forward direction of the direct method, symmetric where the graph is, 1-3 threads.
template <class T, class Index>
void check_bc(csr_matrix<T, Index> const& a, std::vector<std::int64_t> const& sources,
              bool undirected, std::string const& name) {
    auto const want = textbook_brandes(a, sources);
    for (int threads : {1, 2, 3}) {
        thread_count tc(threads);
        for (auto method : {bc_method::automatic, bc_method::semiring, bc_method::direct})
            for (auto dir : {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull})
                for (bool sym : {false, true})
                    // Parallel push levels: by default; none on one thread, split by vertices;
                    // split by edges (the direct method's searches in turn).
                    for (std::int64_t split : {std::int64_t(-1), std::int64_t(1) << 40,
                                               std::int64_t(0)}) {
                    if (sym && !undirected) continue;
                    if (method == bc_method::semiring && dir != bfs_direction::automatic) continue;
                    if (method != bc_method::direct && split != -1) continue;
                    bc_options o;
                    o.method = method;
                    o.direction = dir;
                    o.symmetric = sym;
                    o.device = device_choice::cpu;
                    o.serial_edges = split == -1 ? -1 : 0;
                    o.split_edges = split;
                    auto const r = betweenness(a, sources, o);
                    BOOST_TEST_CONTEXT(name << " sources=" << sources.size() << " threads="
                                            << threads << " method=" << to_string(method)
                                            << " direction=" << int(dir) << " symmetric=" << sym
                                            << " split_edges=" << split) {
                        BOOST_TEST(mismatches(r.centrality, want) == 0u);
                        BOOST_TEST((r.device == device_choice::cpu));
                        BOOST_TEST((r.method ==
                                    (method == bc_method::automatic ? bc_method::direct : method)));
                    }
                }
    }
}

/// Sources: k vertices drawn at random (repeats possible), preferring ones with out-edges.
template <class T, class Index>
std::vector<std::int64_t> some_sources(csr_matrix<T, Index> const& a, std::size_t k,
                                       std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::vector<std::int64_t> s;
    for (std::size_t tries = 0; s.size() < k && tries < 100 * k; ++tries) {
        std::size_t const v = g() % a.rows();
        if (a.row_end(v) > a.row_begin(v) || tries >= 50 * k)
            s.push_back(static_cast<std::int64_t>(v));
    }
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_uniform_graphs) {
    std::uint64_t seed = 11;
    for (std::size_t n : {2u, 5u, 12u, 40u, 130u, 400u})
        for (double avg : {1.0, 3.0, 8.0})
            for (bool undirected : {false, true}) {
                auto const max_m = undirected ? n * (n - 1) / 2 : n * (n - 1);
                auto const m = std::min(max_m, static_cast<std::size_t>(avg * double(n)));
                auto const a = uniform(n, m, seed++, undirected);
                std::string const name = "uniform n=" + std::to_string(n) +
                                         " m=" + std::to_string(m) +
                                         " undirected=" + std::to_string(undirected);
                for (std::size_t k : {1u, 4u, 9u})
                    check_bc(a, some_sources(a, k, seed + k), undirected, name);
            }
}

BOOST_AUTO_TEST_CASE(random_kronecker_graphs) {
    // Skewed degrees: large frontiers (parallel push and pull steps), many shortest paths.
    for (int scale : {6, 9, 11})
        for (bool undirected : {false, true}) {
            auto const a = kronecker(scale, 40 + static_cast<std::uint64_t>(scale), undirected);
            std::string const name = "kronecker scale=" + std::to_string(scale) +
                                     " undirected=" + std::to_string(undirected);
            for (std::size_t k : {1u, 3u, 8u})
                check_bc(a, some_sources(a, k, 5 * k), undirected, name);
        }
}

BOOST_AUTO_TEST_CASE(path_graph_closed_form) {
    // Undirected path 0 - 1 - ... - (n-1). All sources: BC(v) = 2 v (n - 1 - v) (each pair once
    // per direction). Source 0 alone: delta(v) = n - 1 - v for v >= 1.
    for (std::size_t n : {1u, 2u, 3u, 8u, 31u}) {
        std::vector<std::int32_t> ii, jj;
        for (std::size_t v = 0; v + 1 < n; ++v) {
            ii.push_back(static_cast<std::int32_t>(v));
            jj.push_back(static_cast<std::int32_t>(v + 1));
        }
        auto const a = undirected_edges(n, ii, jj);
        std::vector<std::int64_t> all(n);
        for (std::size_t v = 0; v < n; ++v) all[v] = static_cast<std::int64_t>(v);
        for (auto method : {bc_method::semiring, bc_method::direct}) {
            bc_options o;
            o.method = method;
            auto const r = betweenness(a, all, o);
            auto const one = betweenness(a, std::vector<std::int64_t>{0}, o);
            BOOST_TEST_CONTEXT("path n=" << n << " " << to_string(method)) {
                for (std::size_t v = 0; v < n; ++v) {
                    BOOST_TEST(r.centrality[v] == 2.0 * double(v) * double(n - 1 - v));
                    BOOST_TEST(one.centrality[v] == (v == 0 ? 0.0 : double(n - 1 - v)));
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(star_graph_closed_form) {
    // Undirected star, centre 0 and k leaves, all sources: the centre lies on every path between
    // two leaves, k (k - 1) ordered pairs; leaves on none. Out-star (directed): nothing between.
    for (std::size_t k : {1u, 2u, 5u, 40u}) {
        std::vector<std::int32_t> ii, jj;
        for (std::size_t l = 1; l <= k; ++l) {
            ii.push_back(0);
            jj.push_back(static_cast<std::int32_t>(l));
        }
        std::vector<std::int64_t> all(k + 1);
        for (std::size_t v = 0; v <= k; ++v) all[v] = static_cast<std::int64_t>(v);
        auto const und = undirected_edges(k + 1, ii, jj);
        auto const out = from_edges(k + 1, ii, jj);
        for (auto method : {bc_method::semiring, bc_method::direct}) {
            bc_options o;
            o.method = method;
            auto const r = betweenness(und, all, o);
            auto const d = betweenness(out, all, o);
            BOOST_TEST_CONTEXT("star k=" << k << " " << to_string(method)) {
                BOOST_TEST(r.centrality[0] == double(k) * double(k - 1));
                for (std::size_t v = 1; v <= k; ++v) BOOST_TEST(r.centrality[v] == 0.0);
                for (double x : d.centrality) BOOST_TEST(x == 0.0);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(diamond_counts_paths) {
    // 0 -> {1, 2} -> 3 -> 4: two shortest paths to 3 and 4, each middle vertex on half of them.
    auto const a = from_edges(5, {0, 0, 1, 2, 3}, {1, 2, 3, 3, 4});
    for (auto method : {bc_method::semiring, bc_method::direct}) {
        bc_options o;
        o.method = method;
        auto const r = betweenness(a, std::vector<std::int64_t>{0}, o);
        std::vector<double> const want{0, 1, 1, 1, 0};
        BOOST_TEST(r.centrality == want, boost::test_tools::per_element());
    }
}

BOOST_AUTO_TEST_CASE(disconnected_self_loops_duplicates_isolated) {
    // Two components, self-loops at 0 and 5, duplicate input edges, isolated vertices 8 and 9.
    std::vector<std::int32_t> ii{0, 0, 1, 1, 2, 2, 3, 5, 5, 6, 6, 7, 0};
    std::vector<std::int32_t> jj{0, 1, 2, 2, 3, 0, 1, 5, 6, 7, 7, 5, 1};
    auto const a = from_edges(10, ii, jj);
    BOOST_TEST(a.nnz() == 10u);
    check_bc(a, {0, 5, 8, 2, 2}, false, "two components");
    auto const u = undirected_edges(10, ii, jj);
    check_bc(u, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true, "two components undirected");
    auto const loops = uniform(200, 500, 3, false, true);
    check_bc(loops, some_sources(loops, 5, 1), false, "uniform with self-loops");
    auto const sparse = uniform(300, 150, 4, true);  // many components
    check_bc(sparse, some_sources(sparse, 12, 2), true, "sparse undirected");
}

BOOST_AUTO_TEST_CASE(repeated_sources_count_again) {
    auto const a = kronecker(8, 9, true);
    auto const s = some_sources(a, 3, 77);
    std::vector<std::int64_t> twice = s;
    twice.insert(twice.end(), s.begin(), s.end());
    for (auto method : {bc_method::semiring, bc_method::direct}) {
        bc_options o;
        o.method = method;
        auto const once = betweenness(a, s, o);
        auto const two = betweenness(a, twice, o);
        std::vector<double> doubled(once.centrality.begin(), once.centrality.end());
        for (double& x : doubled) x *= 2;
        BOOST_TEST(mismatches(two.centrality, doubled) == 0u);
    }
}

BOOST_AUTO_TEST_CASE(normalize_divides_by_the_largest) {
    auto const a = kronecker(9, 5, true);
    auto const s = some_sources(a, 4, 3);
    auto const want = textbook_brandes(a, s);
    double top = 0;
    for (double x : want) top = std::max(top, x);
    BOOST_REQUIRE(top > 0);
    for (auto method : {bc_method::semiring, bc_method::direct}) {
        bc_options o;
        o.method = method;
        o.normalize = true;
        auto const r = betweenness(a, s, o);
        double got_top = 0;
        for (std::size_t v = 0; v < want.size(); ++v) {
            BOOST_TEST(std::abs(r.centrality[v] - want[v] / top) <= 1e-12);
            got_top = std::max(got_top, r.centrality[v]);
        }
        BOOST_TEST(got_top == 1.0);
    }
    // All zeros (no path through anything) stay zeros.
    bc_options o;
    o.normalize = true;
    auto const r = betweenness(csr_matrix<bool>(4, 4), std::vector<std::int64_t>{1}, o);
    for (double x : r.centrality) BOOST_TEST(x == 0.0);
}

BOOST_AUTO_TEST_CASE(tiny_graphs_and_no_sources) {
    for (auto method : {bc_method::semiring, bc_method::direct}) {
        bc_options o;
        o.method = method;
        // 0 vertices: an empty result; there is no vertex to start from.
        csr_matrix<bool> const empty(0, 0);
        BOOST_TEST(betweenness(empty, std::vector<std::int64_t>{}, o).centrality.empty());
        BOOST_CHECK_THROW(betweenness(empty, std::vector<std::int64_t>{0}, o),
                          kleene::invalid_argument);
        // 1 vertex, with and without a self-loop.
        auto const loop = from_edges(1, {0}, {0});
        BOOST_TEST(
            betweenness(csr_matrix<bool>(1, 1), std::vector<std::int64_t>{0}, o).centrality ==
                std::vector<double>{0.0},
            boost::test_tools::per_element());
        BOOST_TEST(betweenness(loop, std::vector<std::int64_t>{0, 0}, o).centrality ==
                       std::vector<double>{0.0},
                   boost::test_tools::per_element());
        // No sources: zeros.
        auto const a = uniform(20, 60, 1, false);
        auto const r = betweenness(a, std::vector<std::int64_t>{}, o);
        BOOST_REQUIRE_EQUAL(r.centrality.size(), 20u);
        for (double x : r.centrality) BOOST_TEST(x == 0.0);
    }
}

BOOST_AUTO_TEST_CASE(other_types) {
    // Values are ignored: a weighted double matrix with int64 indices (zero weights are edges).
    uniform_options u;
    u.vertices = 150;
    u.edges = 600;
    u.seed = 8;
    u.weights = weight_range(0.0, 0.0);
    auto const w = uniform_graph<double, std::int64_t>(u);
    check_bc(w, some_sources(w, 6, 9), false, "double int64");
}

BOOST_AUTO_TEST_CASE(explain_names_the_method) {
    auto const a = kronecker(8, 2, true);
    auto const s = some_sources(a, 2, 4);
    for (auto method : {bc_method::automatic, bc_method::semiring, bc_method::direct}) {
        explain_trace tr;
        bc_options o;
        o.method = method;
        o.explain = &tr;
        betweenness(a, s, o);
        auto const text = tr.str();
        BOOST_TEST_CONTEXT(text) {
            BOOST_TEST(text.find(method == bc_method::semiring ? "method semiring (pinned)"
                                 : method == bc_method::direct
                                     ? "method direct (pinned)"
                                     : "method direct (automatic") != std::string::npos);
            BOOST_TEST(text.find(": cpu") != std::string::npos);
            if (method == bc_method::semiring) {
                BOOST_TEST(text.find("mxm: ") != std::string::npos);  // kleene's own products ran
                BOOST_TEST(text.find("ewise_mult: ") != std::string::npos);
            } else {
                BOOST_TEST(text.find("vertices reached") != std::string::npos);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws) {
    auto const a = uniform(10, 20, 1, false);
    BOOST_CHECK_THROW(betweenness(a, std::vector<std::int64_t>{-1}), kleene::invalid_argument);
    BOOST_CHECK_THROW(betweenness(a, std::vector<std::int64_t>{3, 10}), kleene::invalid_argument);
    csr_matrix<bool> const rect(3, 4);
    BOOST_CHECK_THROW(betweenness(rect, std::vector<std::int64_t>{0}), kleene::dimension_mismatch);
    for (double alpha : {-1.0, std::nan(""), HUGE_VAL}) {
        bc_options o;
        o.alpha = alpha;
        BOOST_CHECK_THROW(betweenness(a, std::vector<std::int64_t>{0}, o),
                          kleene::invalid_argument);
    }
}

BOOST_AUTO_TEST_CASE(gpu_without_a_device_throws) {
    // This build machine has no GPU: device=gpu must say so, never run on the CPU instead.
    if (cuda::device_count() > 0) return;
    auto const a = uniform(10, 20, 1, false);
    bc_options o;
    o.device = device_choice::gpu;
    BOOST_CHECK_THROW(betweenness(a, std::vector<std::int64_t>{0}, o), kleene::no_device);
    o.device = device_choice::automatic;
    o.gpu_min_edges = 0;  // automatic with no device stays on the CPU
    BOOST_TEST((betweenness(a, std::vector<std::int64_t>{0}, o).device == device_choice::cpu));
}

BOOST_AUTO_TEST_CASE(gpu_matches_cpu) {
    // Runs where there is a GPU (the cuda::betweenness kernel): host graphs pinned to the GPU and
    // device graphs, against the textbook reference.
    if (cuda::device_count() == 0) {
        BOOST_TEST_MESSAGE("gpu_matches_cpu: no GPU here, nothing to compare");
        return;
    }
    for (bool undirected : {false, true}) {
        auto const a = kronecker(12, 19, undirected);
        auto const ad = a.to_device();
        for (std::size_t k : {1u, 4u, 33u}) {
            auto const s = some_sources(a, k, 3 * k);
            auto const want = textbook_brandes(a, s);
            bc_options o;
            o.symmetric = undirected;
            o.device = device_choice::gpu;
            auto const host_gpu = betweenness(a, s, o);
            o.device = device_choice::automatic;
            auto const dev = betweenness(ad, s, o);
            BOOST_TEST_CONTEXT("undirected=" << undirected << " sources=" << k) {
                for (auto const* r : {&host_gpu, &dev}) {
                    BOOST_TEST((r->device == device_choice::gpu));
                    BOOST_TEST(mismatches(r->centrality, want) == 0u);
                }
            }
        }
    }
}

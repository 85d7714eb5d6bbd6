// kleene::graph on the GPU (label gpu; skips with a message without a device): a device graph and a
// host graph run with device=gpu give the CPU's answers (bfs levels, sssp distances, pagerank,
// components, triangles, betweenness) on random and Kronecker graphs; repeated calls copy nothing
// to the device.
//
// Device residency (issue 39, item 3): on a device graph every property (degrees, symmetry,
// weights) and every algorithm (bfs, sssp with and without negative weights, components,
// pagerank, triangles, betweenness, apsp, closure, closure_matrix, predecessors) gives the host
// graph's answer while both copy counters stay at 0 over two calls of each, and each algorithm's
// device-result overload leaves the same answer in device memory. device_to_host_copies() counts
// the graph's host mirror of A, the one way a graph copies A to the host (graph::on_host()): a
// device graph's path that read A on the host would make it 1, as the last case shows by asking
// for the mirror itself.
//
// "Copy nothing" is checked through the graph's own count of the matrices it moved host -> device
// (host_to_device_copies): the graph overloads hand the cuda:: entry points the graph's kept device
// matrices (the callable the algorithm front ends take replaces their to_device() / transpose
// branch), so after the first GPU call on a host graph the count stays put, and on a device graph
// it stays 0. The kept device matrices are also the very same objects from call to call (their
// device pointers do not change) and each was computed once (computations()).

#define BOOST_TEST_MODULE graph_object_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/apsp_reference.hpp"
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/graph.hpp>
#include <kleene/cuda/memory_pool.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <span>
#include <utility>
#include <vector>

namespace {

using namespace kleene;
using kleene::test::have_gpu;
using kleene::test::needs;

template <class T>
csr_matrix<T> random_graph(std::size_t n, std::size_t m, std::uint64_t seed, bool undirected,
                           double lo, double hi) {
    uniform_options o;
    o.vertices = n;
    o.edges = m;
    o.seed = seed;
    o.undirected = undirected;
    o.weights = std::is_integral_v<T> ? weight_range::integers(static_cast<std::int64_t>(lo),
                                                               static_cast<std::int64_t>(hi))
                                      : weight_range(lo, hi);
    return uniform_graph<T>(o);
}

std::size_t far_apart(std::span<double const> x, std::span<double const> y, double tol) {
    if (x.size() != y.size()) return std::max(x.size(), y.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) bad += !(std::abs(x[i] - y[i]) <= tol);
    return bad;
}

template <class T>
void compare_with_cpu(csr_matrix<T> const& a, bool undirected) {
    auto const kind = undirected ? graph_kind::undirected : graph_kind::directed;
    graph hg(csr_matrix<T>(a), kind);  // host graph, run with device=gpu
    graph dg(a.to_device(), kind);     // device graph
    std::size_t const n = a.rows();
    for (std::size_t s : {std::size_t(0), n / 2}) {
        for (auto dir : {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull}) {
            bfs_options o;
            o.direction = dir;
            o.device = device_choice::cpu;
            auto const want = bfs(a, s, o);
            o.device = device_choice::gpu;
            BOOST_TEST(bfs(hg, s, o).level == want.level, boost::test_tools::per_element());
            o.device = device_choice::automatic;
            auto const got = bfs(dg, s, o);
            BOOST_TEST((got.device == device_choice::gpu));
            BOOST_TEST(got.level == want.level, boost::test_tools::per_element());
        }
        sssp_options o;
        o.device = device_choice::cpu;
        auto const want = sssp(a, s, o);
        o.device = device_choice::gpu;
        auto const h = sssp(hg, s, o);
        auto const d = sssp(dg, s, sssp_options{});
        BOOST_TEST((d.device == device_choice::gpu));
        std::size_t bad = 0;
        for (std::size_t v = 0; v < n; ++v) {
            auto const tol =
                std::is_integral_v<T> ? 0.0 : 1e-9 * (1 + std::abs(double(want.dist[v])));
            bad += !(std::abs(double(h.dist[v]) - double(want.dist[v])) <= tol);
            bad += !(std::abs(double(d.dist[v]) - double(want.dist[v])) <= tol);
        }
        BOOST_TEST(bad == 0u);
    }
    {
        pagerank_options o;
        o.device = device_choice::cpu;
        o.method = pagerank_method::fused;  // the GPU's Jacobi steps, stopped at the same step
        auto const want = pagerank(a, o);
        o.device = device_choice::gpu;
        BOOST_TEST(far_apart(pagerank(hg, o).rank, want.rank, 1e-6) == 0u);
        BOOST_TEST(far_apart(pagerank(dg, o).rank, want.rank, 1e-6) == 0u);
    }
    {
        cc_options o;
        o.device = device_choice::cpu;
        auto const want = connected_components(a, o);
        o.device = device_choice::gpu;
        BOOST_TEST(connected_components(hg, o).component == want.component,
                   boost::test_tools::per_element());
        BOOST_TEST(connected_components(dg).component == want.component,
                   boost::test_tools::per_element());
    }
    if (undirected) {
        tc_options o;
        o.device = device_choice::cpu;
        auto const want = triangle_count(a, o).triangles;
        o.device = device_choice::gpu;
        BOOST_TEST(triangle_count(hg, o).triangles == want);
        BOOST_TEST(triangle_count(dg).triangles == want);
    }
    {
        std::vector<std::int64_t> src{0, static_cast<std::int64_t>(n / 3)};
        bc_options o;
        o.device = device_choice::cpu;
        auto const want = betweenness(a, src, o);
        o.device = device_choice::gpu;
        BOOST_TEST(far_apart(betweenness(hg, src, o).centrality, want.centrality, 1e-6) == 0u);
        BOOST_TEST(far_apart(betweenness(dg, src).centrality, want.centrality, 1e-6) == 0u);
    }
    BOOST_TEST(dg.host_to_device_copies() == 0u);
}

BOOST_AUTO_TEST_CASE(device_graph_answers_equal_cpu) {
    if (!have_gpu(needs::minimal)) return;
    for (bool undirected : {false, true})
        for (std::size_t n : {50u, 2000u}) {
            BOOST_TEST_CONTEXT("n=" << n << " undirected=" << undirected) {
                compare_with_cpu(random_graph<double>(n, 8 * n, n + 1, undirected, 0.5, 4),
                                 undirected);
                compare_with_cpu(random_graph<std::int32_t>(n, 8 * n, n + 2, undirected, 1, 30),
                                 undirected);
            }
        }
    kronecker_options ko;
    ko.scale = 12;
    ko.undirected = true;
    ko.weights = weight_range::integers(1, 100);
    compare_with_cpu(kronecker_graph<std::int32_t>(ko), true);
}

BOOST_AUTO_TEST_CASE(repeated_calls_copy_nothing) {
    if (!have_gpu(needs::minimal)) return;
    auto const a = random_graph<float>(5000, 60000, 9, false, 1, 10);

    // Host graph, GPU runs: the first bfs copies A's pattern and A''s pattern once; sssp copies
    // the valued A once; later calls of any of them copy nothing more.
    graph hg{csr_matrix<float>(a)};
    bfs_options bo;
    bo.device = device_choice::gpu;
    bo.direction = bfs_direction::pull;
    (void)bfs(hg, 0, bo);
    BOOST_TEST(hg.host_to_device_copies() == 2u);
    auto const* pattern_rows = hg.device_pattern().row_ptr();
    auto const* transpose_rows = hg.device_pattern_transpose().row_ptr();
    sssp_options so;
    so.device = device_choice::gpu;
    (void)sssp(hg, 0, so);
    BOOST_TEST(hg.host_to_device_copies() == 3u);
    pagerank_options po;
    po.device = device_choice::gpu;
    for (int rep = 0; rep < 4; ++rep) {
        explain_trace e;
        bo.explain = &e;
        (void)bfs(hg, static_cast<std::size_t>(rep), bo);
        (void)sssp(hg, static_cast<std::size_t>(rep), so);
        (void)pagerank(hg, po);
        BOOST_TEST(e.str().find("graph: cached device pattern of A' reused") != std::string::npos);
        bo.explain = nullptr;  // e ends here
    }
    BOOST_TEST(hg.host_to_device_copies() == 3u);
    BOOST_TEST(hg.device_pattern().row_ptr() == pattern_rows);
    BOOST_TEST(hg.device_pattern_transpose().row_ptr() == transpose_rows);
    BOOST_TEST(hg.computations(graph_property::device_pattern_transpose) == 1u);
    BOOST_TEST(hg.computations(graph_property::pattern_transpose) == 1u);

    // Device graph: nothing ever goes host -> device; A' is transposed on the device once.
    graph dg(a.to_device());
    for (int rep = 0; rep < 4; ++rep) {
        (void)bfs(dg, static_cast<std::size_t>(rep), bo);
        (void)sssp(dg, static_cast<std::size_t>(rep));
        (void)pagerank(dg);
    }
    BOOST_TEST(dg.host_to_device_copies() == 0u);
    BOOST_TEST(dg.computations(graph_property::pattern_transpose) == 1u);
    BOOST_TEST(dg.device_to_host_copies() == 0u);  // no host mirror: A stays on the device

    // modify() drops the device copies: the next GPU call copies again, once.
    hg.modify() = a;
    (void)bfs(hg, 0, bo);
    (void)bfs(hg, 1, bo);
    BOOST_TEST(hg.host_to_device_copies() == 5u);
}

BOOST_AUTO_TEST_CASE(device_graph_refuses_cpu) {
    if (!have_gpu(needs::minimal)) return;
    graph dg(random_graph<double>(20, 40, 1, false, 1, 2).to_device());
    bfs_options o;
    o.device = device_choice::cpu;
    BOOST_CHECK_THROW((void)bfs(dg, 0, o), invalid_argument);
}

// ---- device residency -------------------------------------------------------------------------

/// Both copy counters of a device graph are still 0 (`what`: the call just made).
template <class G>
void no_copies(G const& g, std::string const& what) {
    BOOST_TEST(g.device_to_host_copies() == 0u, what << ": A copied to the host");
    BOOST_TEST(g.host_to_device_copies() == 0u, what << ": A copied to the device");
}

using kleene::test::potential_graph;  // negative edges, no negative cycle

/// A copy of the undirected a whose first off-diagonal value differs from its mirror's: the
/// structure is symmetric, the values not.
template <class T>
csr_matrix<T> values_not_symmetric(csr_matrix<T> a) {
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            if (static_cast<std::size_t>(a.col_idx()[k]) != i) {
                a.values()[k] = a.values()[k] + T(1);
                return a;
            }
    return a;
}

/// Parents of a search tree on `a` from s: -1 exactly where `reached` is false, s its own, and
/// otherwise an edge (parent, v) for which ok(parent, v, k) holds (k: the edge's position).
template <class T, class Ok>
std::size_t bad_parents(csr_matrix<T> const& a, std::size_t s, std::vector<bool> const& reached,
                        std::vector<std::int64_t> const& parent, Ok&& ok) {
    std::size_t bad = parent.size() != a.rows();
    for (std::size_t v = 0; !bad && v < a.rows(); ++v) {
        std::int64_t const p = parent[v];
        if (!reached[v]) bad += p != -1;
        else if (v == s) bad += p != std::int64_t(s);
        else if (p < 0) ++bad;
        else if (std::ptrdiff_t const k = a.find(std::size_t(p), v); k < 0) ++bad;
        else bad += !ok(std::size_t(p), v, std::size_t(k));
    }
    return bad;
}

template <class T>
std::vector<T> host_of(dense_vector<T, device> const& d) {
    auto const h = d.to_host();
    return std::vector<T>(h.begin(), h.end());
}

BOOST_AUTO_TEST_CASE(device_graph_properties_computed_on_device) {
    if (!have_gpu(needs::minimal)) return;
    auto check = [](auto const& a, graph_kind kind, std::string const& what) {
        BOOST_TEST_CONTEXT(what) {
            graph hg(decltype(a)(a), kind);
            graph dg(a.to_device(), kind);
            for (int rep = 0; rep < 2; ++rep) {
                BOOST_TEST(dg.out_degree() == hg.out_degree(), boost::test_tools::per_element());
                BOOST_TEST(dg.in_degree() == hg.in_degree(), boost::test_tools::per_element());
                BOOST_TEST(dg.symmetric_structure() == hg.symmetric_structure());
                BOOST_TEST(dg.symmetric() == hg.symmetric());
                auto const& w = dg.weights();
                auto const& h = hg.weights();
                BOOST_TEST(w.empty == h.empty);
                BOOST_TEST(w.negative == h.negative);
                BOOST_TEST(double(w.min) == double(h.min));
                BOOST_TEST(double(w.max) == double(h.max));
                BOOST_TEST(w.summary.min == h.summary.min);
                BOOST_TEST(std::abs(w.summary.mean - h.summary.mean) <=
                           1e-10 * (1 + std::abs(h.summary.mean)));
                BOOST_TEST(w.summary.negative == h.summary.negative);
                BOOST_TEST(w.summary.non_finite == h.summary.non_finite);
                BOOST_TEST(double(w.summary.max_abs) == double(h.summary.max_abs));
                BOOST_TEST(double(w.summary.quick_bound) == double(h.summary.quick_bound));
                // B from the device pass, against weight_bound on the host matrix.
                BOOST_TEST_REQUIRE(w.scan.has_value());
                auto const b = weight_bound(hg.matrix(), "test");
                BOOST_TEST(std::abs(double(w.scan->bound.bound) - double(b.bound)) <=
                           1e-10 * double(b.bound));
                BOOST_TEST(w.scan->bound.negative == b.negative);
                BOOST_TEST(w.scan->bad_row == -1);
                no_copies(dg, what + ", rep " + std::to_string(rep));
            }
            BOOST_TEST(dg.computations(graph_property::weights) == 1u);
            BOOST_TEST(dg.computations(graph_property::symmetry) == 1u);
        }
    };
    for (std::size_t n : {60u, 3000u}) {
        std::string const size = " n=" + std::to_string(n);
        check(random_graph<double>(n, 6 * n, n, false, -2, 5), graph_kind::directed,
              "directed fp64" + size);
        auto const und = random_graph<double>(n, 6 * n, n + 1, true, 0.5, 4);
        check(und, graph_kind::undirected, "undirected fp64" + size);
        check(values_not_symmetric(und), graph_kind::directed, "values not symmetric" + size);
        check(random_graph<std::int32_t>(n, 6 * n, n + 2, false, -7, 30), graph_kind::directed,
              "directed int32" + size);
        check(random_graph<float>(n, 6 * n, n + 3, true, 1, 9), graph_kind::undirected,
              "undirected fp32" + size);
    }
    // A non-finite weight: named by sssp as the host graph names it, from the device pass.
    auto a = random_graph<double>(40, 200, 7, false, 1, 5);
    a.values()[a.nnz() / 2] = std::numeric_limits<double>::infinity();
    graph hg{csr_matrix<double>(a)};
    graph dg(a.to_device());
    BOOST_TEST(dg.weights().summary.non_finite);
    std::string want, got;
    try {
        (void)sssp(hg, 0);
    } catch (invalid_argument const& e) {
        want = e.what();
    }
    try {
        (void)sssp(dg, 0);
    } catch (invalid_argument const& e) {
        got = e.what();
    }
    BOOST_TEST(!want.empty());
    BOOST_TEST(got == want);
    no_copies(dg, "a non-finite weight");
}

BOOST_AUTO_TEST_CASE(device_graph_bfs_reads_no_host_copy) {
    if (!have_gpu(needs::minimal)) return;
    for (bool undirected : {false, true}) {
        auto const a = random_graph<float>(3000, 20000, 11 + undirected, undirected, 1, 5);
        auto const kind = undirected ? graph_kind::undirected : graph_kind::directed;
        graph hg{csr_matrix<float>(a), kind};
        graph dg(a.to_device(), kind);
        bfs_device_result dr;
        for (int rep = 0; rep < 2; ++rep)
            for (auto dir : {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull})
                for (std::size_t s : {std::size_t(0), std::size_t(1234)}) {
                    std::string const what = "bfs, undirected " + std::to_string(undirected) +
                                              ", direction " + detail::to_string(dir) +
                                              ", source " + std::to_string(s);
                    bfs_options o;
                    o.direction = dir;
                    o.device = device_choice::cpu;
                    auto const want = bfs(hg, s, o);
                    o.device = device_choice::automatic;
                    o.parents = true;
                    auto const got = bfs(dg, s, o);
                    BOOST_TEST(got.level == want.level, boost::test_tools::per_element());
                    std::vector<bool> reached(a.rows());
                    for (std::size_t v = 0; v < a.rows(); ++v) reached[v] = want.level[v] >= 0;
                    std::vector<std::int64_t> const parent(got.parent.begin(), got.parent.end());
                    BOOST_TEST(bad_parents(a, s, reached, parent,
                                           [&](std::size_t p, std::size_t v, std::size_t) {
                                               return want.level[p] == want.level[v] - 1;
                                           }) == 0u,
                               what);
                    no_copies(dg, what);
                    bfs(dr, dg, s, o);  // left on the device
                    BOOST_TEST(host_of(dr.level) == std::vector<std::int64_t>(want.level.begin(),
                                                                              want.level.end()),
                               boost::test_tools::per_element());
                    BOOST_TEST(bad_parents(a, s, reached, host_of(dr.parent),
                                           [&](std::size_t p, std::size_t v, std::size_t) {
                                               return want.level[p] == want.level[v] - 1;
                                           }) == 0u,
                               what << " (device result)");
                    no_copies(dg, what + " (device result)");
                }
    }
}

/// sssp of a device graph against the host graph's on the CPU: distances, a valid tight-edge tree,
/// from host results and from device results, the counters at 0.
template <class T>
void sssp_against_host(csr_matrix<T> const& a, std::string const& what) {
    graph hg{csr_matrix<T>(a)};
    graph dg(a.to_device());
    sssp_device_result<T> dr;
    sssp_result<T> into;
    for (int rep = 0; rep < 2; ++rep)
        for (std::size_t s : {std::size_t(0), a.rows() / 2}) {
            std::string const at = what + ", source " + std::to_string(s);
            sssp_options o;
            o.device = device_choice::cpu;
            auto const want = sssp(hg, s, o);
            o.device = device_choice::automatic;
            o.parents = true;
            auto const got = sssp(dg, s, o);
            sssp(dr, dg, s, o);
            auto const dd = host_of(dr.dist);
            auto const dp = host_of(dr.parent);
            std::size_t bad = got.dist.size() != a.rows() || dd.size() != a.rows();
            std::vector<bool> reached(a.rows());
            for (std::size_t v = 0; !bad && v < a.rows(); ++v) {
                auto const tol =
                    std::is_integral_v<T> ? 0.0 : 1e-5 * (1 + std::abs(double(want.dist[v])));
                bool const inf = want.dist[v] == infinity<T>();
                reached[v] = !inf;
                for (T x : {got.dist[v], dd[v]})
                    bad += inf ? x != infinity<T>()
                               : !(std::abs(double(x) - double(want.dist[v])) <= tol);
            }
            BOOST_TEST(bad == 0u, at << ": distances");
            auto tight = [&](std::vector<T> const& d) {
                return [&](std::size_t p, std::size_t v, std::size_t k) {
                    return plus_sat_op<T>::apply(d[p], a.value(k)) == d[v];
                };
            };
            BOOST_TEST(bad_parents(a, s, reached, got.parent, tight(got.dist)) == 0u,
                       at << ": parents");
            BOOST_TEST(bad_parents(a, s, reached, dp, tight(dd)) == 0u,
                       at << ": parents (device result)");
            // Without parents, into the last result: the device copies the distances straight
            // into r's storage (kept), equal to the search with parents.
            o.parents = false;
            T const* before = into.dist.data();
            bool const had = into.dist.size() == a.rows();
            sssp(into, dg, s, o);
            BOOST_TEST((into.dist == got.dist), at << ": into the last result");
            BOOST_TEST(into.parent.empty(), at);
            if (had) BOOST_TEST((into.dist.data() == before), at << ": storage kept");
            no_copies(dg, at);
        }
}

BOOST_AUTO_TEST_CASE(device_graph_sssp_reads_no_host_copy) {
    if (!have_gpu(needs::minimal)) return;
    sssp_against_host(random_graph<double>(3000, 24000, 21, false, 0.5, 4), "sssp fp64");
    sssp_against_host(random_graph<std::int32_t>(3000, 24000, 22, true, 1, 30), "sssp int32");
    // Negative weights: Bellman-Ford on the device.
    sssp_against_host(potential_graph<std::int32_t>(400, 0.02, 23), "sssp negative int32");
    sssp_against_host(potential_graph<double>(400, 0.02, 24), "sssp negative fp64");
}

BOOST_AUTO_TEST_CASE(device_graph_kernels_read_no_host_copy) {
    if (!have_gpu(needs::minimal)) return;
    for (bool undirected : {false, true}) {
        auto const a = random_graph<double>(3000, 20000, 31 + undirected, undirected, 1, 5);
        auto const kind = undirected ? graph_kind::undirected : graph_kind::directed;
        graph hg{csr_matrix<double>(a), kind};
        graph dg(a.to_device(), kind);
        std::string const what = undirected ? "undirected" : "directed";
        dense_vector<double, device> rank, scores;
        dense_vector<std::int64_t, device> component;
        for (int rep = 0; rep < 2; ++rep) {
            cc_options co;
            co.device = device_choice::cpu;
            auto const cc_want = connected_components(hg, co);
            BOOST_TEST(connected_components(dg).component == cc_want.component,
                       boost::test_tools::per_element());
            auto const cc_dev = connected_components(component, dg);
            BOOST_TEST(cc_dev.component.empty());
            BOOST_TEST(cc_dev.count == cc_want.count);
            BOOST_TEST(host_of(component) == std::vector<std::int64_t>(cc_want.component.begin(),
                                                                       cc_want.component.end()),
                       boost::test_tools::per_element());
            no_copies(dg, what + ": connected_components");

            pagerank_options po;
            po.device = device_choice::cpu;
            po.method = pagerank_method::fused;  // Jacobi on both: stopped at the same step
            auto const pr_want = pagerank(hg, po);
            po.device = device_choice::automatic;
            BOOST_TEST(far_apart(pagerank(dg, po).rank, pr_want.rank, 1e-6) == 0u);
            auto const pr_dev = pagerank(rank, dg, po);
            BOOST_TEST(pr_dev.rank.empty());
            BOOST_TEST(far_apart(host_of(rank), pr_want.rank, 1e-6) == 0u);
            no_copies(dg, what + ": pagerank");

            if (undirected) {
                tc_options to;
                to.device = device_choice::cpu;
                BOOST_TEST(triangle_count(dg).triangles == triangle_count(hg, to).triangles);
                no_copies(dg, what + ": triangle_count");
            }

            std::vector<std::int64_t> src{0, 777};
            bc_options bo;
            bo.device = device_choice::cpu;
            auto const bc_want = betweenness(hg, src, bo);
            BOOST_TEST(far_apart(betweenness(dg, src).centrality, bc_want.centrality, 1e-6) ==
                       0u);
            // The scores left on the device, raw and normalized there.
            auto const bc_dev = betweenness(scores, dg, src);
            BOOST_TEST(bc_dev.centrality.empty());
            BOOST_TEST(far_apart(host_of(scores), bc_want.centrality, 1e-6) == 0u);
            bo.normalize = true;
            auto const bc_norm = betweenness(hg, src, bo);
            BOOST_TEST(*std::max_element(bc_norm.centrality.begin(), bc_norm.centrality.end()) ==
                       1.0);
            bc_options dn;
            dn.normalize = true;
            (void)betweenness(scores, dg, src, dn);
            BOOST_TEST(far_apart(host_of(scores), bc_norm.centrality, 1e-9) == 0u);
            no_copies(dg, what + ": betweenness");
        }
    }
}

/// apsp and predecessors of a device graph against the host graph's on the CPU.
template <class T>
void apsp_against_host(csr_matrix<T> const& a, std::string const& what) {
    graph hg{csr_matrix<T>(a)};
    graph dg(a.to_device());
    std::size_t const n = a.rows();
    apsp_device_result<T> dr;
    for (int rep = 0; rep < 2; ++rep)
        for (auto alg : {apsp_algorithm::automatic, apsp_algorithm::blocked_fw,
                         apsp_algorithm::bellman_ford}) {
            std::string const at = what + ", " + std::string(to_string(alg));
            apsp_options ho;
            ho.device = device_choice::cpu;
            auto const want = apsp(hg, ho);
            apsp_options o;
            o.algorithm = alg;
            o.predecessors = true;
            auto const got = apsp(dg, o);
            apsp(dr, dg, o);
            auto const dd = dr.dist.to_host();
            auto const dp = dr.pred.to_host();
            std::size_t bad = got.dist.rows() != n || dd.rows() != n;
            for (std::size_t i = 0; !bad && i < n; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    double const w = double(want.dist(i, j));
                    auto const tol = std::is_integral_v<T> ? 0.0 : 1e-5 * (1 + std::abs(w));
                    for (T x : {got.dist(i, j), dd(i, j)})
                        bad += want.dist(i, j) == infinity<T>()
                                   ? x != infinity<T>()
                                   : !(std::abs(double(x) - w) <= tol);
                }
            BOOST_TEST(bad == 0u, at << ": distances");
            // Predecessors (which of several tight in-edges is taken is the device's choice):
            // each a tight edge by the rule of paths.hpp, -1 for the source and unreached.
            auto bad_predecessors = [&](dense_matrix<std::int32_t> const& pred) {
                std::size_t b = pred.rows() != n || pred.cols() != n;
                for (std::size_t s = 0; !b && s < n; ++s)
                    for (std::size_t v = 0; v < n; ++v) {
                        std::int32_t const p = pred(s, v);
                        if (v == s || got.dist(s, v) == infinity<T>()) {
                            b += p != -1;
                            continue;
                        }
                        std::ptrdiff_t const k = p < 0 ? -1 : a.find(std::size_t(p), v);
                        b += k < 0 || !detail::tight(got.dist(s, std::size_t(p)),
                                                     a.value(std::size_t(k)), got.dist(s, v));
                    }
                return b;
            };
            BOOST_TEST(bad_predecessors(got.pred) == 0u, at << ": predecessors");
            BOOST_TEST(bad_predecessors(dr.pred.to_host()) == 0u,
                       at << ": predecessors (device result)");
            // predecessors(graph, distances): from host and from device distances.
            BOOST_TEST(bad_predecessors(predecessors(dg, dense_view<T const>(got.dist.view()))) ==
                           0u,
                       at << ": predecessors(graph, host distances)");
            dense_matrix<std::int32_t, device> pred_dev;
            predecessors(pred_dev, dg, dense_view<T const, device>(dr.dist.view()));
            BOOST_TEST(bad_predecessors(pred_dev.to_host()) == 0u,
                       at << ": predecessors(graph, device distances)");
            no_copies(dg, at);
        }
}

// The algorithms' large temporaries come from the context's stream-ordered pool, allocated and
// released on its stream (until the twenty-second session they were device containers: cudaMalloc,
// and a cudaFree that waits for the whole device): a device graph's APSP distances and
// predecessors on their way to the host, R-Kleene's workspaces, the fp64 distances of a widened
// APSP, host distances sent to the device for the predecessors. What the pool keeps afterwards is
// what ctx.memory_pool_keep() allows, handed back when the call ends.
BOOST_AUTO_TEST_CASE(algorithm_temporaries_come_from_the_context_pool) {
    if (!have_gpu(needs::minimal)) return;
    std::size_t const n = 1024;
    auto const a = random_graph<float>(n, 8 * n, 71, false, 1, 9);
    graph dg(a.to_device());
    apsp_options ho;
    ho.device = device_choice::cpu;
    auto const want = apsp(graph{csr_matrix<float>(a)}, ho);
    context ctx;
    apsp_options o;
    o.ctx = &ctx;
    o.algorithm = apsp_algorithm::rkleene;
    o.predecessors = true;
    (void)apsp(dg, o);  // the GEMM's workspace, which the context keeps (from the pool), grown
    std::size_t const held = cuda::pool_usage(ctx).used;
    // The distances and predecessors (n x n each) and R-Kleene's larger workspace (n/2 x n/2).
    std::size_t const temps = n * n * (sizeof(float) + sizeof(std::int32_t)) +
                              (n / 2) * (n / 2) * sizeof(float);
    for (std::size_t keep : {std::size_t(0), std::numeric_limits<std::size_t>::max()}) {
        ctx.set_memory_pool_keep(keep);
        cuda::trim_memory_pool(ctx);
        cuda::reset_memory_pool_peaks(ctx);
        auto const got = apsp(dg, o);
        std::size_t bad = got.dist.rows() != n || got.pred.rows() != n;
        for (std::size_t i = 0; !bad && i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                bad += !(std::abs(double(got.dist(i, j)) - double(want.dist(i, j))) <=
                         1e-5 * (1 + std::abs(double(want.dist(i, j)))));
        auto const u = cuda::pool_usage(ctx);
        BOOST_TEST_CONTEXT("keep " << keep << ": held " << held << ", peak " << u.used_peak
                                   << ", used " << u.used << ", reserved " << u.reserved) {
            BOOST_TEST(bad == 0u);
            BOOST_TEST(u.used_peak >= held + temps);
            BOOST_TEST(u.used == held);  // every temporary released
            if (keep == 0) BOOST_TEST(u.reserved < held + n * n * sizeof(float));
            else BOOST_TEST(u.reserved >= held + temps);
        }
    }
    // int32 weights whose path sums pass int32's range: computed in fp64 (n x n, a temporary).
    auto const big = random_graph<std::int32_t>(n, 4 * n, 72, false, 1 << 24, (1 << 24) + 100);
    graph bg(big.to_device());
    apsp_options w;
    w.ctx = &ctx;
    w.algorithm = apsp_algorithm::rkleene;
    ctx.set_memory_pool_keep(std::nullopt);
    cuda::reset_memory_pool_peaks(ctx);
    auto const wide = apsp(bg, w);
    BOOST_TEST(wide.dist.rows() == n);
    BOOST_TEST(cuda::pool_usage(ctx).used_peak >=
               held + n * n * (sizeof(double) + sizeof(std::int32_t)));
    // Host distances to the device graph's predecessors (the calling thread's default context).
    context& dc = default_context();
    dense_view<float const> const hd(want.dist.view());
    (void)predecessors(dg, hd);
    std::size_t const dheld = cuda::pool_usage(dc).used;
    cuda::reset_memory_pool_peaks(dc);
    auto const p = predecessors(dg, hd);
    BOOST_TEST(p.rows() == n);
    BOOST_TEST(cuda::pool_usage(dc).used_peak >=
               dheld + n * n * (sizeof(float) + sizeof(std::int32_t)));
    BOOST_TEST(cuda::pool_usage(dc).used == dheld);
}

BOOST_AUTO_TEST_CASE(device_graph_apsp_reads_no_host_copy) {
    if (!have_gpu(needs::minimal)) return;
    apsp_against_host(random_graph<std::int32_t>(300, 1500, 41, false, 1, 30), "apsp int32");
    apsp_against_host(random_graph<double>(300, 1500, 42, true, 0.5, 4), "apsp fp64");
    apsp_against_host(potential_graph<std::int32_t>(200, 0.03, 43), "apsp negative int32");
    // int32 weights whose B passes int32's range: computed in fp64 on the device and narrowed
    // (dense algorithms; the batched Bellman-Ford refuses such weights).
    auto big = random_graph<std::int32_t>(200, 1000, 44, false, 1 << 24, (1 << 24) + 100);
    graph hg{csr_matrix<std::int32_t>(big)};
    graph dg(big.to_device());
    for (int rep = 0; rep < 2; ++rep) {
        apsp_options ho;
        ho.device = device_choice::cpu;
        auto const want = apsp(hg, ho);
        auto const got = apsp(dg);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < big.rows(); ++i)
            for (std::size_t j = 0; j < big.rows(); ++j) bad += got.dist(i, j) != want.dist(i, j);
        BOOST_TEST(bad == 0u, "apsp widened");
        apsp_options bf;
        bf.algorithm = apsp_algorithm::bellman_ford;
        BOOST_CHECK_THROW((void)apsp(dg, bf), invalid_argument);
        no_copies(dg, "apsp widened");
    }
}

BOOST_AUTO_TEST_CASE(device_graph_apsp_the_device_path_does_not_run) {
    if (!have_gpu(needs::minimal)) return;
    // device=cpu and Johnson: the host's APSP on the graph's mirror, copied once and kept.
    auto const a = random_graph<float>(150, 900, 61, false, 1, 9);
    graph hg{csr_matrix<float>(a)};
    graph dg(a.to_device());
    apsp_options ho;
    ho.device = device_choice::cpu;
    auto const want = apsp(hg, ho);
    for (int rep = 0; rep < 2; ++rep) {
        for (bool johnson : {false, true}) {
            apsp_options o;
            if (johnson) o.algorithm = apsp_algorithm::johnson;
            else o.device = device_choice::cpu;
            explain_trace why;
            o.explain = &why;
            auto const got = apsp(dg, o);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < a.rows(); ++i)
                for (std::size_t j = 0; j < a.rows(); ++j)
                    bad += !(got.dist(i, j) == want.dist(i, j) ||  // also unreachable (inf)
                             std::abs(got.dist(i, j) - want.dist(i, j)) <=
                                 1e-4f * (1 + std::abs(want.dist(i, j))));
            BOOST_TEST(bad == 0u, (johnson ? "johnson" : "device=cpu"));
            BOOST_TEST(why.str().find("host mirror") != std::string::npos, why.str());
        }
        BOOST_TEST(dg.device_to_host_copies() == 1u);  // the mirror, once over both reps
    }
}

BOOST_AUTO_TEST_CASE(device_graph_closure_reads_no_host_copy) {
    if (!have_gpu(needs::minimal)) return;
    // Sparse enough that the closure is far from complete.
    auto const a = random_graph<float>(700, 800, 51, false, 1, 2);
    graph hg{csr_matrix<float>(a)};
    graph dg(a.to_device());
    std::size_t const n = a.rows();
    for (int rep = 0; rep < 2; ++rep)
        for (bool reflexive : {false, true}) {
            std::string const what = "closure, reflexive " + std::to_string(reflexive);
            closure_options ho;
            ho.device = device_choice::cpu;
            ho.reflexive = reflexive;
            auto const want = closure(hg, ho);
            closure_options o;
            o.reflexive = reflexive;
            auto const got = closure(dg, o);
            BOOST_TEST(got.nnz() == want.nnz(), what);
            BOOST_TEST(std::equal(got.row_ptr(), got.row_ptr() + n + 1, want.row_ptr()), what);
            BOOST_TEST(std::equal(got.col_idx(), got.col_idx() + got.nnz(), want.col_idx()), what);
            no_copies(dg, what);

            auto const m = closure_matrix(dg, o);
            BOOST_TEST((m.device == device_choice::gpu));
            BOOST_TEST(m.pairs() == want.nnz(), what << ": closure_matrix");
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t k = want.row_begin(i); k < want.row_end(i); ++k) {
                    auto const j = static_cast<std::size_t>(want.col_idx()[k]);
                    bad += m.format == output_choice::csr ? m.csr.find(i, j) < 0
                                                          : !m.bits.test(i, j);
                }
            BOOST_TEST(bad == 0u, what << ": closure_matrix");
            no_copies(dg, what + ": closure_matrix");

            cuda::bit_matrix bits;
            closure(bits, dg, o);  // left on the device
            BOOST_TEST_REQUIRE(bits.rows() == n);
            std::vector<std::uint64_t> words(n * bits.ld());
            kleene::detail::copy_bytes<host, device>(words.data(), bits.data(),
                                                     words.size() * sizeof(std::uint64_t));
            host_bits const hb{n, bits.ld(), std::move(words)};
            std::size_t bad_bits = 0, pairs = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    pairs += hb.test(i, j);
                    bad_bits += hb.test(i, j) && want.find(i, j) < 0;
                }
            BOOST_TEST(bad_bits == 0u, what << ": bits on the device");
            BOOST_TEST(pairs == want.nnz(), what << ": bits on the device");
            no_copies(dg, what + ": bits on the device");
        }
}

BOOST_AUTO_TEST_CASE(closure_temporaries_come_from_the_context_pool) {
    if (!have_gpu(needs::minimal)) return;
    // The dense closure on the GPU of a device graph (its bits made there, copied back) and of a
    // host graph (its bits sent there and back): the n x n bits and R-Kleene's workspace (a bit
    // matrix of the larger half) are temporaries of the context's pool, all released by the
    // time the call returns; the answers equal the CPU's.
    std::size_t const n = 2048;
    auto const a = random_graph<float>(n, 2300, 53, false, 1, 2);
    graph hg{csr_matrix<float>(a)};
    graph dg(a.to_device());
    closure_options co;
    co.device = device_choice::cpu;
    auto const want = closure(hg, co);
    std::size_t const ld = (n + 63) / 64, half = (n + 1) / 2, hld = (half + 63) / 64;
    std::size_t const temps = n * ld * 8 + half * hld * 8;
    context ctx;
    closure_options o;
    o.ctx = &ctx;
    o.device = device_choice::gpu;
    o.method = closure_method::dense;
    o.output_format = output_choice::csr;
    for (bool const on_device : {true, false}) {
        auto run = [&] { return on_device ? closure_matrix(dg, o) : closure_matrix(hg, o); };
        (void)run();  // warm: the kernels loaded, the pool made
        std::size_t const held = cuda::pool_usage(ctx).used;
        cuda::reset_memory_pool_peaks(ctx);
        auto const got = run();
        auto const u = cuda::pool_usage(ctx);
        BOOST_TEST_CONTEXT((on_device ? "device graph" : "host graph")
                           << ": held " << held << ", peak " << u.used_peak << ", temporaries "
                           << temps) {
            BOOST_TEST((got.device == device_choice::gpu));
            BOOST_TEST(got.csr.nnz() == want.nnz());
            BOOST_TEST(std::equal(got.csr.row_ptr(), got.csr.row_ptr() + n + 1, want.row_ptr()));
            BOOST_TEST(std::equal(got.csr.col_idx(), got.csr.col_idx() + got.csr.nnz(),
                                  want.col_idx()));
            BOOST_TEST(u.used_peak >= held + temps);
            BOOST_TEST(u.used == held);
        }
    }
}

BOOST_AUTO_TEST_CASE(device_graph_mirror_is_counted) {
    if (!have_gpu(needs::minimal)) return;
    // The counter the cases above read: the host mirror, and only it, moves it.
    graph dg(random_graph<double>(50, 200, 61, false, 1, 3).to_device());
    (void)sssp(dg, 0);
    (void)apsp(dg);
    BOOST_TEST(dg.device_to_host_copies() == 0u);
    (void)dg.on_host();
    (void)dg.on_host();
    BOOST_TEST(dg.device_to_host_copies() == 1u);
    // A closure with the condensation pinned runs on that mirror (said in the trace), reused.
    closure_options o;
    o.method = closure_method::condensation;
    explain_trace e;
    o.explain = &e;
    (void)closure(dg, o);
    BOOST_TEST(e.str().find("host mirror") != std::string::npos);
    BOOST_TEST(dg.device_to_host_copies() == 1u);
}

}  // namespace

// kleene::graph on the GPU (label gpu; skips with a message without a device): a device graph and a
// host graph run with device=gpu give the CPU's answers (bfs levels, sssp distances, pagerank,
// components, triangles, betweenness) on random and Kronecker graphs; repeated calls copy nothing
// to the device.
//
// "Copy nothing" is checked through the graph's own count of the matrices it moved host -> device
// (host_to_device_copies): the graph overloads hand the cuda:: entry points the graph's kept device
// matrices (the callable the algorithm front ends take replaces their to_device() / transpose
// branch), so after the first GPU call on a host graph the count stays put, and on a device graph
// it stays 0. The kept device matrices are also the very same objects from call to call (their
// device pointers do not change) and each was computed once (computations()).

#define BOOST_TEST_MODULE graph_object_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/graph.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <span>
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
    BOOST_TEST(dg.device_to_host_copies() == 1u);  // the host mirror, once

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

}  // namespace

// kleene::graph (algorithms/graph.hpp) on the CPU: every cached property against the same thing
// computed here from the matrix (transposes, degrees, symmetry, weights); each property computed
// once (the graph's own counters), also from two threads at once; modify() drops them and they
// follow the new matrix; every graph overload (bfs, sssp, pagerank, connected_components,
// triangle_count, betweenness, apsp, closure, predecessors) gives the matrix overload's answer on
// random directed and undirected graphs with double and int32 weights, negative ones included;
// traces name the reused properties; bad input is refused.

#define BOOST_TEST_MODULE graph_object
#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/graph.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace kleene;

/// A random graph of n vertices and about m edges with weights in [lo, hi]; undirected: A == A'.
template <class T>
csr_matrix<T> random_graph(std::size_t n, std::size_t m, std::uint64_t seed, bool undirected,
                           double lo, double hi) {
    uniform_options o;
    o.vertices = n;
    o.edges = std::min(m, undirected ? n * (n - 1) / 2 : n * (n - 1));
    o.seed = seed;
    o.undirected = undirected;
    o.weights = std::is_integral_v<T> ? weight_range::integers(static_cast<std::int64_t>(lo),
                                                               static_cast<std::int64_t>(hi))
                                      : weight_range(lo, hi);
    return uniform_graph<T>(o);
}

template <class T, class Index>
bool same(csr_matrix<T, Index> const& x, csr_matrix<T, Index> const& y, bool values) {
    if (x.rows() != y.rows() || x.cols() != y.cols() || x.nnz() != y.nnz()) return false;
    if (!std::equal(x.row_ptr(), x.row_ptr() + x.rows() + 1, y.row_ptr())) return false;
    if (!std::equal(x.col_idx(), x.col_idx() + x.nnz(), y.col_idx())) return false;
    for (std::size_t k = 0; values && k < x.nnz(); ++k)
        if (x.value(k) != y.value(k)) return false;
    return true;
}

/// The transpose written plainly: entries sorted by (column, row).
template <class T>
csr_matrix<T> plain_transpose(csr_matrix<T> const& a) {
    std::vector<std::int32_t> ii, jj;
    std::vector<T> v;
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            ii.push_back(a.col_idx()[k]);
            jj.push_back(static_cast<std::int32_t>(i));
            v.push_back(a.value(k));
        }
    return csr_matrix<T>::from_coo(a.cols(), a.rows(), ii, jj, v);
}

template <class T>
void check_properties(csr_matrix<T> const& a, graph_kind kind) {
    graph g(csr_matrix<T>(a), kind);
    std::size_t const n = a.rows();
    auto const t = plain_transpose(a);
    BOOST_TEST(same(g.transpose(), t, true));
    BOOST_TEST(same(g.pattern_transpose(), pattern_of(t), false));
    BOOST_TEST(same(g.pattern(), pattern_of(a), false));
    std::vector<std::int64_t> out(n, 0), in(n, 0);
    bool sym_s = true, sym_v = true, neg = false;
    T lo = a.nnz() ? a.value(0) : T(), hi = lo;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            auto const j = static_cast<std::size_t>(a.col_idx()[k]);
            ++out[i];
            ++in[j];
            auto const back = a.find(j, i);
            sym_s = sym_s && back >= 0;
            sym_v = sym_v && back >= 0 && a.value(static_cast<std::size_t>(back)) == a.value(k);
            lo = std::min(lo, a.value(k));
            hi = std::max(hi, a.value(k));
            neg = neg || a.value(k) < T(0);
        }
    BOOST_TEST(g.out_degree() == out, boost::test_tools::per_element());
    BOOST_TEST(g.in_degree() == in, boost::test_tools::per_element());
    BOOST_TEST(g.symmetric_structure() == sym_s);
    BOOST_TEST(g.symmetric() == sym_v);
    BOOST_TEST(g.has_negative_weights() == neg);
    BOOST_TEST(g.weights().empty == (a.nnz() == 0));
    if (a.nnz()) {
        BOOST_TEST(g.weights().min == lo);
        BOOST_TEST(g.weights().max == hi);
    }
}

BOOST_AUTO_TEST_CASE(properties_equal_fresh_computations) {
    for (std::size_t n : {1u, 2u, 17u, 100u})
        for (bool undirected : {false, true})
            for (std::uint64_t seed : {1u, 2u}) {
                BOOST_TEST_CONTEXT("n=" << n << " undirected=" << undirected << " seed=" << seed) {
                    auto const kind = undirected ? graph_kind::undirected : graph_kind::directed;
                    check_properties(random_graph<double>(n, 4 * n, seed, undirected, -2, 10),
                                     kind);
                    check_properties(random_graph<std::int32_t>(n, 3 * n, seed, undirected, 1, 9),
                                     kind);
                }
            }
    // A directed graph that happens to be symmetric in structure but not in values.
    std::vector<std::int32_t> ii{0, 1, 1, 2}, jj{1, 0, 2, 1};
    std::vector<double> v{1, 1, 2, 3};
    auto const a = csr_matrix<double>::from_coo(3, 3, ii, jj, v);
    check_properties(a, graph_kind::directed);
    graph g(a);
    BOOST_TEST(g.symmetric_structure());
    BOOST_TEST(!g.symmetric());
}

BOOST_AUTO_TEST_CASE(properties_are_computed_once_and_modify_drops_them) {
    auto const a = random_graph<double>(60, 300, 7, false, 1, 5);
    graph g{csr_matrix<double>(a)};
    for (auto p : {graph_property::pattern_transpose, graph_property::transpose,
                   graph_property::in_degree, graph_property::symmetry, graph_property::weights})
        BOOST_TEST(!g.cached(p));
    for (int rep = 0; rep < 3; ++rep) {
        (void)g.pattern_transpose();
        (void)g.transpose();
        (void)g.in_degree();
        (void)g.out_degree();
        (void)g.symmetric();
        (void)g.weights();
    }
    for (auto p : {graph_property::pattern, graph_property::pattern_transpose,
                   graph_property::transpose, graph_property::in_degree, graph_property::out_degree,
                   graph_property::symmetry, graph_property::weights}) {
        BOOST_TEST_CONTEXT(to_string(p)) {
            BOOST_TEST(g.cached(p));
            BOOST_TEST(g.computations(p) == 1u);
        }
    }
    // The algorithms reuse them: a pull BFS and a PageRank compute no transpose of their own.
    bfs_options bo;
    bo.direction = bfs_direction::pull;
    (void)bfs(g, 0, bo);
    (void)pagerank(g);
    BOOST_TEST(g.computations(graph_property::pattern_transpose) == 1u);
    BOOST_TEST(g.computations(graph_property::symmetry) == 1u);

    // modify(): every cache dropped, the next reads follow the new matrix.
    auto const b = random_graph<double>(60, 200, 8, true, -3, 5);
    g.modify() = b;
    BOOST_TEST((g.kind() == graph_kind::directed));
    BOOST_TEST(!g.cached(graph_property::pattern_transpose));
    BOOST_TEST(!g.cached(graph_property::weights));
    BOOST_TEST(same(g.transpose(), plain_transpose(b), true));
    BOOST_TEST(g.has_negative_weights());
    BOOST_TEST(g.symmetric());
    BOOST_TEST(g.computations(graph_property::transpose) == 2u);
    BOOST_TEST(g.computations(graph_property::weights) == 2u);
    g.set_kind(graph_kind::undirected);  // b is symmetric: accepted
    BOOST_TEST(g.computations(graph_property::symmetry) == 2u);
}

BOOST_AUTO_TEST_CASE(two_threads_compute_a_property_once) {
    auto const a = random_graph<double>(3000, 30000, 3, false, 1, 5);
    for (int rep = 0; rep < 5; ++rep) {
        graph g{csr_matrix<double>(a)};
        csr_matrix<bool> const* p1 = nullptr;
        csr_matrix<bool> const* p2 = nullptr;
        std::thread t1([&] { p1 = &g.pattern_transpose(); });
        std::thread t2([&] { p2 = &g.pattern_transpose(); });
        t1.join();
        t2.join();
        BOOST_TEST(p1 == p2);
        BOOST_TEST(g.computations(graph_property::pattern_transpose) == 1u);
        BOOST_TEST(same(*p1, pattern_of(plain_transpose(a)), false));
    }
}

template <class T>
bool close(T x, T y) {
    if constexpr (std::is_floating_point_v<T>)
        return x == y || std::abs(x - y) <= 1e-9 * (1 + std::abs(y));
    else
        return x == y;
}

template <class T>
void check_algorithms(csr_matrix<T> const& a, bool undirected) {
    std::size_t const n = a.rows();
    graph g(csr_matrix<T>(a), undirected ? graph_kind::undirected : graph_kind::directed);
    bool const negative = g.has_negative_weights();
    for (std::size_t s : {std::size_t(0), n / 2, n - 1}) {
        for (auto dir : {bfs_direction::automatic, bfs_direction::push, bfs_direction::pull}) {
            bfs_options o;
            o.direction = dir;
            o.device = device_choice::cpu;
            auto const want = bfs(a, s, o);
            auto const got = bfs(g, s, o);
            BOOST_TEST(got.level == want.level, boost::test_tools::per_element());
        }
        if (!negative || !undirected) {  // an undirected negative edge is a negative cycle
            sssp_options o;
            o.device = device_choice::cpu;
            std::optional<sssp_result<T>> want;
            try {
                want = sssp(a, s, o);
            } catch (negative_cycle const&) {
            }
            if (!want) {
                BOOST_CHECK_THROW((void)sssp(g, s, o), negative_cycle);
            } else {
                auto const got = sssp(g, s, o);
                BOOST_TEST((got.method == want->method));
                BOOST_TEST(got.dist.size() == want->dist.size());
                std::size_t bad = 0;
                for (std::size_t v = 0; v < n; ++v) bad += !close(got.dist[v], want->dist[v]);
                BOOST_TEST(bad == 0u);
            }
        }
    }
    {
        pagerank_options o;
        o.device = device_choice::cpu;
        o.method = pagerank_method::fused;  // reproducible: the graph's call equals the matrix's
        auto const want = pagerank(a, o), got = pagerank(g, o);
        BOOST_TEST(got.iterations == want.iterations);
        std::size_t bad = 0;
        for (std::size_t v = 0; v < n; ++v) bad += !close(got.rank[v], want.rank[v]);
        BOOST_TEST(bad == 0u);
    }
    {
        cc_options o;
        o.device = device_choice::cpu;
        o.symmetric = undirected;
        auto const want = connected_components(a, o);
        o.symmetric = false;  // the graph knows
        auto const got = connected_components(g, o);
        BOOST_TEST(got.component == want.component, boost::test_tools::per_element());
        BOOST_TEST(got.count == want.count);
    }
    if (undirected) {
        tc_options o;
        o.device = device_choice::cpu;
        BOOST_TEST(triangle_count(g, o).triangles == triangle_count(a, o).triangles);
    } else if (!g.symmetric_structure()) {
        BOOST_CHECK_THROW((void)triangle_count(g, tc_options{}), invalid_argument);
    }
    {
        std::vector<std::int64_t> src{0, static_cast<std::int64_t>(n / 3),
                                      static_cast<std::int64_t>(n - 1)};
        bc_options o;
        o.device = device_choice::cpu;
        auto const want = betweenness(a, src, o), got = betweenness(g, src, o);
        std::size_t bad = 0;
        for (std::size_t v = 0; v < n; ++v) bad += !close(got.centrality[v], want.centrality[v]);
        BOOST_TEST(bad == 0u);
    }
    if (n <= 120 && (!negative || !undirected)) {
        apsp_options o;
        o.device = device_choice::cpu;
        o.predecessors = true;
        std::optional<apsp_result<T>> want;
        try {
            want = apsp(a, o);
        } catch (negative_cycle const&) {
        }
        if (!want) {
            BOOST_CHECK_THROW((void)apsp(g, o), negative_cycle);
        } else {
            auto const got = apsp(g, o);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j) bad += !close(got.dist(i, j), want->dist(i, j));
            BOOST_TEST(bad == 0u);
            auto const pg = predecessors(g, dense_view<T const>(got.dist.view()));
            auto const pa = predecessors(a, dense_view<T const>(want->dist.view()));
            std::size_t pbad = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j) pbad += pg(i, j) != pa(i, j);
            BOOST_TEST(pbad == 0u);
        }
        closure_options co;
        co.device = device_choice::cpu;
        BOOST_TEST(same(closure(g, co), closure(a, co), false));
    }
}

BOOST_AUTO_TEST_CASE(graph_overloads_match_matrix_overloads) {
    for (std::size_t n : {2u, 40u, 300u})
        for (bool undirected : {false, true})
            for (std::uint64_t seed : {11u, 12u}) {
                BOOST_TEST_CONTEXT("n=" << n << " undirected=" << undirected << " seed=" << seed) {
                    check_algorithms(random_graph<double>(n, 3 * n, seed, undirected, 0.5, 9),
                                     undirected);
                    check_algorithms(random_graph<std::int32_t>(n, 2 * n, seed, undirected, 1, 20),
                                     undirected);
                    check_algorithms(random_graph<std::int32_t>(n, 2 * n, seed, undirected, -1, 20),
                                     undirected);
                }
            }
}

BOOST_AUTO_TEST_CASE(traces_name_reused_properties) {
    auto const a = random_graph<double>(200, 1200, 5, false, 1, 5);
    graph g{csr_matrix<double>(a)};
    bfs_options o;
    o.direction = bfs_direction::pull;
    o.device = device_choice::cpu;
    explain_trace first, second;
    o.explain = &first;
    (void)bfs(g, 0, o);
    o.explain = &second;
    (void)bfs(g, 0, o);
    auto has = [](explain_trace const& e, std::string const& s) {
        return e.str().find(s) != std::string::npos;
    };
    BOOST_TEST(has(first, "graph: pattern of A' computed and kept"));
    BOOST_TEST(!has(first, "bfs: transposed A"));
    BOOST_TEST(has(second, "graph: cached pattern of A' reused"));
    BOOST_TEST(has(second, "graph: cached symmetry reused"));
    sssp_options so;
    so.explain = &second;
    (void)sssp(g, 0, so);
    BOOST_TEST(has(second, "graph: weights computed and kept"));
    explain_trace third;
    so.explain = &third;
    (void)sssp(g, 0, so);
    BOOST_TEST(has(third, "graph: cached weights reused"));
}

BOOST_AUTO_TEST_CASE(bad_input) {
    std::vector<std::int32_t> ii{0}, jj{1};
    std::vector<double> v{1};
    auto const a = csr_matrix<double>::from_coo(2, 2, ii, jj, v);
    BOOST_CHECK_THROW((void)graph(csr_matrix<double>(a), graph_kind::undirected), invalid_argument);
    BOOST_CHECK_THROW((void)graph(csr_matrix<double>(2, 3)), dimension_mismatch);
    graph g{csr_matrix<double>(a)};
    BOOST_CHECK_THROW(g.set_kind(graph_kind::undirected), invalid_argument);
    BOOST_TEST((g.kind() == graph_kind::directed));
    BOOST_CHECK_THROW((void)bfs(g, 2), invalid_argument);
    if (cuda::device_count() == 0) {
        bfs_options o;
        o.device = device_choice::gpu;
        BOOST_CHECK_THROW((void)bfs(g, 0, o), no_device);
        BOOST_TEST(g.host_to_device_copies() == 0u);
    }
}

}  // namespace

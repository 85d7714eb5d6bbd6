// Triangle counting against references written here: brute force over vertex triples on small
// graphs, and a count over edge pairs by binary search on larger ones. The fused kernel and the
// kleene::mxm path, with and without relabelling and automatic, on random uniform and Kronecker
// graphs of many sizes, int32 and int64 indices, 1 to 3 threads; the karate club (45); complete
// graphs past 2^31 triangles; self-loops, duplicate entries, isolated vertices, 0 and 1 vertices;
// non-symmetric and non-square input; device=gpu without a GPU (CPU against GPU where there is
// one).

#define BOOST_TEST_MODULE triangles
#include <omp.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/io/matrix_market.hpp>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;

/// Every triple i < j < k of distinct vertices with all three edges (n^3 / 6 lookups).
template <class T, class Index>
std::uint64_t brute_force_triangles(csr_matrix<T, Index> const& a) {
    std::size_t const n = a.rows();
    std::vector<std::vector<bool>> adj(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            adj[i][static_cast<std::size_t>(a.col_idx()[k])] = true;
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if (adj[i][j])
                for (std::size_t k = j + 1; k < n; ++k) count += adj[i][k] && adj[j][k];
    return count;
}

/// For every edge i < j and every neighbour k > j of j: is (i, k) an edge (binary search)?
template <class T, class Index>
std::uint64_t edge_pair_triangles(csr_matrix<T, Index> const& a) {
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t p = a.row_begin(i); p < a.row_end(i); ++p) {
            auto const j = static_cast<std::size_t>(a.col_idx()[p]);
            if (j <= i) continue;
            for (std::size_t q = a.row_begin(j); q < a.row_end(j); ++q) {
                auto const k = static_cast<std::size_t>(a.col_idx()[q]);
                if (k > j && a.find(i, k) >= 0) ++count;
            }
        }
    return count;
}

struct variant {
    tc_method method;
    tc_relabel relabel;
    char const* name;
};
constexpr variant variants[] = {
    {tc_method::fused, tc_relabel::never, "fused"},
    {tc_method::fused, tc_relabel::always, "fused, relabelled"},
    {tc_method::mxm, tc_relabel::never, "mxm"},
    {tc_method::mxm, tc_relabel::always, "mxm, relabelled"},
    {tc_method::automatic, tc_relabel::automatic, "automatic"},
};

template <class T, class Index>
void check_all(csr_matrix<T, Index> const& a, std::uint64_t want, std::string const& what) {
    for (auto const& v : variants)
        for (int promise = 0; promise <= 1; ++promise) {
            tc_options o;
            o.method = v.method;
            o.relabel = v.relabel;
            o.symmetric = promise == 1;
            auto const r = triangle_count(a, o);
            BOOST_TEST_INFO(what << ", " << v.name << (promise ? ", symmetric promised" : ""));
            BOOST_TEST(r.triangles == want);
            BOOST_TEST((r.device == device_choice::cpu));
            BOOST_TEST(
                (r.method == (v.method == tc_method::mxm ? tc_method::mxm : tc_method::fused)));
            if (v.relabel != tc_relabel::automatic)
                BOOST_TEST(r.relabelled == (v.relabel == tc_relabel::always));
        }
}

/// A random undirected graph as coordinates: both directions of every edge, some self-loops and
/// some repeated entries (merged by from_coo), and isolated vertices past the last edge.
template <class Index>
csr_matrix<bool, Index> random_undirected(std::mt19937& gen, std::size_t n, double p) {
    std::vector<Index> ii, jj;
    std::bernoulli_distribution edge(p), loop(0.1), repeat(0.2);
    std::size_t const used = n - n / 8;
    for (std::size_t i = 0; i < used; ++i) {
        if (loop(gen)) ii.push_back(static_cast<Index>(i)), jj.push_back(static_cast<Index>(i));
        for (std::size_t j = i + 1; j < used; ++j)
            if (edge(gen)) {
                ii.push_back(static_cast<Index>(i)), jj.push_back(static_cast<Index>(j));
                ii.push_back(static_cast<Index>(j)), jj.push_back(static_cast<Index>(i));
                if (repeat(gen))
                    ii.push_back(static_cast<Index>(j)), jj.push_back(static_cast<Index>(i));
            }
    }
    return csr_matrix<bool, Index>::from_coo(n, n, ii, jj, {}, duplicate_policy::sum, true);
}

struct thread_count {
    int saved = omp_get_max_threads();
    explicit thread_count(int t) { omp_set_num_threads(t); }
    ~thread_count() { omp_set_num_threads(saved); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(references_agree) {
    // K4 has 4 triangles; the two references agree on a random graph.
    std::vector<std::int32_t> ii, jj;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            if (i != j) ii.push_back(i), jj.push_back(j);
    auto const k4 = csr_matrix<bool>::from_coo(4, 4, ii, jj, {});
    BOOST_TEST(brute_force_triangles(k4) == 4u);
    BOOST_TEST(edge_pair_triangles(k4) == 4u);
    std::mt19937 gen(3);
    auto const a = random_undirected<std::int32_t>(gen, 60, 0.3);
    BOOST_TEST(brute_force_triangles(a) == edge_pair_triangles(a));
    BOOST_TEST(brute_force_triangles(a) > 0u);
}

BOOST_AUTO_TEST_CASE(small_and_degenerate_graphs) {
    check_all(csr_matrix<bool>(0, 0), 0, "0 x 0");
    check_all(csr_matrix<bool>(1, 1), 0, "1 x 1");
    check_all(csr_matrix<bool>::from_coo(1, 1, std::vector<std::int32_t>{0},
                                         std::vector<std::int32_t>{0}, {}),
              0, "1 x 1, a self-loop");
    check_all(csr_matrix<bool>(9, 9), 0, "isolated vertices");
    // A triangle with self-loops on its corners and duplicated entries: still one.
    std::vector<std::int32_t> const ii{0, 1, 1, 2, 2, 0, 0, 1, 2, 0, 2, 2};
    std::vector<std::int32_t> const jj{1, 0, 2, 1, 0, 2, 0, 1, 2, 1, 1, 0};
    check_all(csr_matrix<std::int64_t>::from_coo(5, 5, ii, jj, {}, duplicate_policy::sum, 1), 1,
              "triangle with loops and duplicates");
    // Two triangles sharing an edge, and a disconnected third.
    std::vector<std::int32_t> ei{0, 1, 0, 2, 1, 2, 1, 3, 2, 3, 5, 6, 6, 7, 5, 7};
    std::vector<std::int32_t> ej{1, 0, 2, 0, 2, 1, 3, 1, 3, 2, 6, 5, 7, 6, 7, 5};
    auto const g = csr_matrix<bool>::from_coo(9, 9, ei, ej, {});
    BOOST_TEST(brute_force_triangles(g) == 3u);
    check_all(g, 3, "three triangles, two pieces");
}

BOOST_AUTO_TEST_CASE(karate_club) {
    auto const a =
        io::read_matrix_market<bool>(std::string(KLEENE_TEST_DATA) + "/mm/good/karate.mtx");
    BOOST_TEST(a.rows() == 34u);
    BOOST_TEST(a.nnz() == 2 * 78u);
    BOOST_TEST(brute_force_triangles(a) == 45u);
    check_all(a, 45, "karate");
    auto const b = io::read_matrix_market<double, std::int64_t>(std::string(KLEENE_TEST_DATA) +
                                                                "/mm/good/karate.mtx");
    check_all(b, 45, "karate, int64");
}

BOOST_AUTO_TEST_CASE(random_graphs_many_sizes) {
    std::mt19937 gen(17);
    for (std::size_t n : {2u, 3u, 5u, 10u, 31u, 64u, 65u, 100u, 200u})
        for (double p : {0.05, 0.2, 0.6}) {
            auto const a = random_undirected<std::int32_t>(gen, n, p);
            std::uint64_t const want = brute_force_triangles(a);
            check_all(a, want, "random n=" + std::to_string(n) + " p=" + std::to_string(p));
            auto const b = random_undirected<std::int64_t>(gen, n, p);
            check_all(b, brute_force_triangles(b),
                      "random int64 n=" + std::to_string(n) + " p=" + std::to_string(p));
        }
}

BOOST_AUTO_TEST_CASE(uniform_and_kronecker_graphs) {
    for (std::size_t n : {1000u, 5000u, 20000u})
        for (std::size_t degree : {4u, 16u, 40u}) {
            uniform_options u;
            u.vertices = n;
            u.edges = degree * n / 2;
            u.undirected = true;
            u.self_loops = true;
            u.seed = n + degree;
            auto const a = uniform_graph<bool>(u);
            check_all(a, edge_pair_triangles(a),
                      "uniform n=" + std::to_string(n) + " degree " + std::to_string(degree));
        }
    for (int scale : {10, 11, 12})
        for (double ef : {2.0, 16.0}) {
            kronecker_options k;
            k.scale = scale;
            k.edge_factor = ef;
            k.undirected = true;
            k.seed = static_cast<std::uint64_t>(scale) * 7;
            k.remove_self_loops = scale != 11;
            auto const a = kronecker_graph<bool>(k);
            std::uint64_t const want = edge_pair_triangles(a);
            std::string const what =
                "kronecker scale " + std::to_string(scale) + " ef " + std::to_string(ef);
            check_all(a, want, what);
            check_all(kronecker_graph<std::int32_t, std::int64_t>(k), want, what + ", int64");
        }
}

BOOST_AUTO_TEST_CASE(merge_and_bitmap_kernels_agree) {
    // The fused method merges rows where U's rows are short and marks a bitmap otherwise
    // (detail::tc_merge_max_row): both kernels on the same U, sparse and dense, relabelled or not,
    // against the reference, so that each is checked whichever the rule picks.
    std::mt19937 gen(41);
    for (std::size_t n : {3u, 64u, 300u, 2000u})
        for (double p : {0.002, 0.02, 0.3}) {
            auto const a = random_undirected<std::int32_t>(gen, n, p);
            std::uint64_t const want = edge_pair_triangles(a);
            for (bool relabel : {false, true}) {
                auto const u = relabel
                                   ? detail::upper_relabelled(n, a.row_ptr(), a.col_idx())
                                   : detail::upper_in_place(n, a.row_ptr(), a.col_idx());
                BOOST_TEST_INFO("n=" << n << " p=" << p << " relabel=" << relabel);
                BOOST_TEST(detail::count_merge(n, u) == want);
                BOOST_TEST(detail::count_fused(n, u) == want);
            }
            BOOST_TEST(detail::count_merge_in_place(n, a.row_ptr(), a.col_idx()) == want);
        }
}

BOOST_AUTO_TEST_CASE(thread_counts) {
    kronecker_options k;
    k.scale = 13;
    k.edge_factor = 8;
    k.undirected = true;
    auto const a = kronecker_graph<bool>(k);
    std::uint64_t const want = edge_pair_triangles(a);
    for (int t : {1, 2, 3}) {
        thread_count threads(t);
        check_all(a, want, "kronecker 13, " + std::to_string(t) + " threads");
    }
}

BOOST_AUTO_TEST_CASE(complete_graph_past_int32) {
    // K_n has n (n-1) (n-2) / 6 triangles: 2,301,120,800 > 2^31 for n = 2400.
    std::size_t const n = 2400;
    buffer<std::int32_t> rp(n + 1), cj(n * (n - 1));
    std::size_t w = 0;
    for (std::size_t i = 0; i < n; ++i) {
        rp[i] = static_cast<std::int32_t>(w);
        for (std::size_t j = 0; j < n; ++j)
            if (j != i) cj[w++] = static_cast<std::int32_t>(j);
    }
    rp[n] = static_cast<std::int32_t>(w);
    csr_matrix<bool> const a(n, n, std::move(rp), std::move(cj), buffer<bool>{}, true);
    tc_options o;
    o.method = tc_method::fused;
    auto const r = triangle_count(a, o);
    BOOST_TEST(r.triangles == std::uint64_t(n) * (n - 1) * (n - 2) / 6);
    BOOST_TEST(r.triangles > std::uint64_t(1) << 31);
}

BOOST_AUTO_TEST_CASE(automatic_relabel_rule) {
    // Kronecker graphs are skewed (E[d^2] far above E[d]^2): relabelled; uniform graphs not.
    kronecker_options k;
    k.scale = 12;
    k.undirected = true;
    BOOST_TEST(triangle_count(kronecker_graph<bool>(k)).relabelled);
    uniform_options u;
    u.vertices = 4096;
    u.edges = 16 * 4096;
    u.undirected = true;
    BOOST_TEST(!triangle_count(uniform_graph<bool>(u)).relabelled);
    BOOST_TEST(!triangle_count(csr_matrix<bool>(10, 10)).relabelled);  // no edges
    BOOST_TEST(!triangle_count(csr_matrix<bool>(0, 0)).relabelled);
}

BOOST_AUTO_TEST_CASE(explain_names_the_choices) {
    kronecker_options k;
    k.scale = 11;
    k.undirected = true;
    auto const a = kronecker_graph<bool>(k);
    for (auto const& v : variants) {
        explain_trace trace;
        tc_options o;
        o.method = v.method;
        o.relabel = v.relabel;
        o.explain = &trace;
        triangle_count(a, o);
        std::string const s = trace.str();
        BOOST_TEST_INFO(s);
        BOOST_TEST(s.find("checked that A's pattern is symmetric") != std::string::npos);
        BOOST_TEST(s.find(v.method == tc_method::mxm ? "kleene::mxm" : "fused bitmap kernel") !=
                   std::string::npos);
        BOOST_TEST(s.find(v.relabel == tc_relabel::never ? "no relabelling (pinned)"
                          : v.relabel == tc_relabel::always
                              ? "relabel by degree (pinned)"
                              : "E[d^2] / E[d]^2") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(bad_input) {
    BOOST_CHECK_THROW(triangle_count(csr_matrix<bool>(3, 4)), dimension_mismatch);
    // A directed edge without its reverse: not an undirected graph.
    auto const d = csr_matrix<bool>::from_coo(3, 3, std::vector<std::int32_t>{0, 1, 2},
                                              std::vector<std::int32_t>{1, 0, 1}, {});
    BOOST_CHECK_THROW(triangle_count(d), invalid_argument);
    tc_options o;
    o.method = tc_method::mxm;
    BOOST_CHECK_THROW(triangle_count(d, o), invalid_argument);
    try {
        triangle_count(d);
    } catch (invalid_argument const& e) {
        BOOST_TEST(std::string(e.what()).find("not symmetric") != std::string::npos);
    }
    // The caller's promise skips the check.
    o.symmetric = true;
    BOOST_CHECK_NO_THROW(triangle_count(d, o));
}

BOOST_AUTO_TEST_CASE(device_choice_gpu) {
    kronecker_options k;
    k.scale = 10;
    k.undirected = true;
    auto const a = kronecker_graph<bool>(k);
    tc_options o;
    o.device = device_choice::gpu;
    if (cuda::device_count() == 0) {
        // No GPU here: pinning it must fail loudly, never run on the CPU instead.
        BOOST_CHECK_THROW(triangle_count(a, o), no_device);
        o.relabel = tc_relabel::always;
        BOOST_CHECK_THROW(triangle_count(a, o), no_device);
        return;
    }
    std::uint64_t const want = edge_pair_triangles(a);
    for (auto relabel : {tc_relabel::never, tc_relabel::always, tc_relabel::automatic}) {
        o.relabel = relabel;
        auto const r = triangle_count(a, o);
        BOOST_TEST((r.device == device_choice::gpu));
        BOOST_TEST(r.triangles == want);
        BOOST_TEST(triangle_count(a.to_device(), o).triangles == want);
    }
    tc_options cpu;
    cpu.device = device_choice::cpu;
    BOOST_CHECK_THROW(triangle_count(a.to_device(), cpu), invalid_argument);
    auto const d = csr_matrix<bool>::from_coo(3, 3, std::vector<std::int32_t>{0},
                                              std::vector<std::int32_t>{1}, {});
    BOOST_CHECK_THROW(triangle_count(d.to_device(), o), invalid_argument);
}

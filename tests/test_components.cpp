// Connected components against a union-find written here: every method (Afforest, FastSV fused,
// FastSV on kleene operations, automatic) on random uniform and Kronecker graphs of many sizes,
// directed (weak components) and undirected, int32 and int64 indices, 1 to 3 threads; the karate
// club; disconnected graphs, self-loops, duplicate entries, isolated vertices, 0 and 1 vertices;
// bad input; device=gpu without a GPU (and CPU against GPU where there is one).

#define BOOST_TEST_MODULE components
#include <omp.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/io/matrix_market.hpp>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace kleene;

/// Union-find over every stored entry taken as an undirected edge; each vertex labelled by the
/// smallest vertex of its set.
template <class T, class Index>
std::vector<std::int64_t> reference_components(csr_matrix<T, Index> const& a) {
    std::size_t const n = a.rows();
    std::vector<std::size_t> parent(n);
    std::iota(parent.begin(), parent.end(), std::size_t(0));
    auto find = [&](std::size_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            std::size_t const x = find(i), y = find(static_cast<std::size_t>(a.col_idx()[k]));
            if (x != y) parent[std::max(x, y)] = std::min(x, y);
        }
    std::vector<std::int64_t> smallest(n, -1), label(n);
    for (std::size_t v = 0; v < n; ++v) {
        auto& s = smallest[find(v)];
        if (s < 0) s = static_cast<std::int64_t>(v);  // v rises: the first one seen is the smallest
        label[v] = s;
    }
    return label;
}

std::size_t distinct(std::vector<std::int64_t> const& label) {
    return std::set<std::int64_t>(label.begin(), label.end()).size();
}

struct variant {
    cc_method method;
    bool fused;
    char const* name;
};
constexpr variant variants[] = {{cc_method::afforest, true, "afforest"},
                                {cc_method::fastsv, true, "fastsv fused"},
                                {cc_method::fastsv, false, "fastsv kleene operations"},
                                {cc_method::automatic, true, "automatic"}};

/// Every method, with and without the symmetric promise where A is symmetric, against the
/// union-find.
template <class T, class Index>
void check_all(csr_matrix<T, Index> const& a, bool symmetric, std::string const& what) {
    auto const want = reference_components(a);
    std::size_t const want_count = distinct(want);
    for (auto const& v : variants)
        for (int promise = 0; promise <= (symmetric ? 1 : 0); ++promise) {
            cc_options o;
            o.method = v.method;
            o.fused = v.fused;
            o.symmetric = promise == 1;
            o.device = device_choice::cpu;
            auto const r = connected_components(a, o);
            BOOST_TEST_INFO(what << ", " << v.name << (promise ? ", symmetric promised" : ""));
            BOOST_TEST(r.component == want, boost::test_tools::per_element());
            BOOST_TEST_INFO(what << ", " << v.name);
            BOOST_TEST(r.count == want_count);
            BOOST_TEST((r.device == device_choice::cpu));
            BOOST_TEST((r.method != cc_method::automatic));
            if (v.method != cc_method::automatic) BOOST_TEST((r.method == v.method));
            if (a.rows() > 0) BOOST_TEST(r.iterations >= 1);
        }
}

template <class Index>
csr_matrix<bool, Index> from_edges(std::size_t n, std::vector<Index> const& ii,
                                   std::vector<Index> const& jj,
                                   duplicate_policy dup = duplicate_policy::error) {
    return csr_matrix<bool, Index>::from_coo(n, n, ii, jj, {}, dup, true);
}

/// A random graph of `pieces` blocks of random sizes and densities (so many components), with
/// isolated vertices, self-loops and repeated edges (merged by from_coo). Undirected: both
/// directions of each edge.
template <class Index>
csr_matrix<bool, Index> random_pieces(std::mt19937& gen, int pieces, bool undirected) {
    std::vector<Index> ii, jj;
    std::size_t n = 0;
    for (int p = 0; p < pieces; ++p) {
        std::size_t const size = 1 + gen() % 30;
        std::bernoulli_distribution edge(p % 3 == 0 ? 0.02 : p % 3 == 1 ? 0.1 : 0.4);
        for (std::size_t x = 0; x < size; ++x)
            for (std::size_t y = 0; y < size; ++y)
                if ((x < y || (x == y && gen() % 8 == 0)) && edge(gen)) {
                    ii.push_back(static_cast<Index>(n + x));
                    jj.push_back(static_cast<Index>(n + y));
                    if (undirected) {
                        ii.push_back(static_cast<Index>(n + y));
                        jj.push_back(static_cast<Index>(n + x));
                    }
                    if (gen() % 5 == 0) {  // a repeat
                        ii.push_back(static_cast<Index>(n + x));
                        jj.push_back(static_cast<Index>(n + y));
                    }
                }
        n += size;
        n += gen() % 3;  // isolated vertices
    }
    // Shuffle the vertex numbers, so that components are not runs of consecutive vertices.
    std::vector<Index> perm(n);
    std::iota(perm.begin(), perm.end(), Index(0));
    std::shuffle(perm.begin(), perm.end(), gen);
    for (auto& x : ii) x = perm[static_cast<std::size_t>(x)];
    for (auto& x : jj) x = perm[static_cast<std::size_t>(x)];
    return from_edges<Index>(n, ii, jj, duplicate_policy::last);
}

struct thread_count {
    int saved = omp_get_max_threads();
    explicit thread_count(int t) { omp_set_num_threads(t); }
    ~thread_count() { omp_set_num_threads(saved); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(reference_is_sane) {
    // 0-1, 2 alone, 3-4-5 by a directed path: the smallest vertex names each component.
    auto const a = from_edges<std::int32_t>(6, {0, 3, 5}, {1, 4, 4});
    std::vector<std::int64_t> const want{0, 0, 2, 3, 3, 3};
    BOOST_TEST(reference_components(a) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(small_and_degenerate_graphs) {
    check_all(csr_matrix<bool>(0, 0), true, "0 x 0");
    check_all(csr_matrix<bool>(1, 1), true, "1 x 1, no edge");
    check_all(from_edges<std::int32_t>(1, {0}, {0}), true, "1 x 1, a self-loop");
    check_all(csr_matrix<bool>(7, 7), true, "7 isolated vertices");
    check_all(from_edges<std::int32_t>(3, {0, 1, 2}, {0, 1, 2}), true, "only self-loops");
    // Duplicate entries in the coordinates: summed away by from_coo.
    check_all(from_edges<std::int32_t>(4, {0, 0, 1, 1, 3}, {1, 1, 0, 0, 3}, duplicate_policy::sum),
              true, "duplicates");
    // A directed path written backwards: one weak component, reached only through in-edges.
    std::vector<std::int32_t> ii, jj;
    for (int v = 1; v < 50; ++v) ii.push_back(v), jj.push_back(v - 1);
    check_all(from_edges<std::int32_t>(50, ii, jj), false, "a directed path");
    // A long undirected path (many FastSV rounds), numbered in a scrambled order.
    ii.clear(), jj.clear();
    std::vector<std::int32_t> order(2000);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(5));
    for (std::size_t v = 1; v < order.size(); ++v) {
        ii.push_back(order[v]), jj.push_back(order[v - 1]);
        ii.push_back(order[v - 1]), jj.push_back(order[v]);
    }
    check_all(from_edges<std::int32_t>(2000, ii, jj), true, "a long path");
    // Two stars whose centres are the largest vertices.
    check_all(from_edges<std::int32_t>(6, {0, 5, 1, 5, 2, 4, 3, 4}, {5, 0, 5, 1, 4, 2, 4, 3}), true,
              "two stars");
}

BOOST_AUTO_TEST_CASE(karate_club) {
    auto const a =
        io::read_matrix_market<bool>(std::string(KLEENE_TEST_DATA) + "/mm/good/karate.mtx");
    BOOST_TEST(a.rows() == 34u);
    BOOST_TEST(a.nnz() == 156u);  // 78 edges, both directions
    for (auto const& v : variants) {
        cc_options o;
        o.method = v.method;
        o.fused = v.fused;
        auto const r = connected_components(a, o);
        BOOST_TEST_INFO(v.name);
        BOOST_TEST(r.count == 1u);
        BOOST_TEST(r.component == std::vector<std::int64_t>(34, 0),
                   boost::test_tools::per_element());
    }
    check_all(a, true, "karate");
}

BOOST_AUTO_TEST_CASE(random_pieces_many_sizes) {
    std::mt19937 gen(11);
    for (int pieces : {1, 2, 5, 20, 60, 200}) {
        for (int undirected = 0; undirected <= 1; ++undirected) {
            auto const a = random_pieces<std::int32_t>(gen, pieces, undirected == 1);
            check_all(a, undirected == 1,
                      std::to_string(pieces) + " pieces" + (undirected ? "" : ", directed"));
            auto const b = random_pieces<std::int64_t>(gen, pieces, undirected == 1);
            check_all(b, undirected == 1,
                      std::to_string(pieces) + " pieces, int64" + (undirected ? "" : ", directed"));
        }
    }
}

// connected_components(r, A, options) into one result across graphs of changing sizes, methods
// and pattern kinds: every call equals a fresh call, whatever r held before.
BOOST_AUTO_TEST_CASE(into_a_reused_result) {
    std::mt19937 gen(23);
    cc_result r;
    for (int round = 0; round < 12; ++round) {
        bool const undirected = round % 3 != 0;
        auto const a = random_pieces<std::int32_t>(gen, 1 + round * 7 % 40, undirected);
        for (cc_method m : {cc_method::afforest, cc_method::fastsv, cc_method::automatic}) {
            cc_options o;
            o.device = device_choice::cpu;
            o.method = m;
            o.symmetric = undirected && round % 2 == 0;
            cc_result const fresh = connected_components(a, o);
            connected_components(r, a, o);
            std::string const what = "round " + std::to_string(round) + ", " + to_string(m);
            BOOST_TEST((r.component == fresh.component), what);
            BOOST_TEST(r.count == fresh.count, what);
            BOOST_TEST(r.iterations == fresh.iterations, what);
            BOOST_TEST((r.method == fresh.method), what);
        }
    }
}

// A non-square matrix into a result that holds an earlier answer throws as the fresh call does;
// the same result then takes a smaller graph whole.
BOOST_AUTO_TEST_CASE(bad_input_into_a_reused_result) {
    std::mt19937 gen(29);
    auto const big = random_pieces<std::int32_t>(gen, 60, true);
    auto const small = random_pieces<std::int32_t>(gen, 2, true);
    cc_options o;
    o.device = device_choice::cpu;
    cc_result r;
    connected_components(r, big, o);
    BOOST_CHECK_THROW(connected_components(r, csr_matrix<bool>(3, 4), o), dimension_mismatch);
    connected_components(r, small, o);
    cc_result const fresh = connected_components(small, o);
    BOOST_TEST((r.component == fresh.component));
    BOOST_TEST(r.count == fresh.count);
}

BOOST_AUTO_TEST_CASE(uniform_graphs) {
    // Mean degrees around 1 (many components, near the giant component's threshold) and above.
    for (std::size_t n : {10u, 100u, 1000u, 5000u, 40000u})
        for (double degree : {0.5, 1.0, 2.0, 8.0})
            for (int undirected = 0; undirected <= 1; ++undirected) {
                uniform_options u;
                u.vertices = n;
                u.edges = static_cast<std::size_t>(degree * static_cast<double>(n) / 2);
                u.undirected = undirected == 1;
                u.self_loops = n % 2 == 0;
                u.seed = n + static_cast<std::size_t>(degree * 10);
                check_all(uniform_graph<bool>(u), u.undirected,
                          "uniform n=" + std::to_string(n) + " degree " + std::to_string(degree) +
                              (u.undirected ? "" : " directed"));
            }
}

BOOST_AUTO_TEST_CASE(kronecker_graphs) {
    for (int scale : {10, 11, 12})
        for (double ef : {0.5, 4.0, 16.0})
            for (int undirected = 0; undirected <= 1; ++undirected) {
                kronecker_options k;
                k.scale = scale;
                k.edge_factor = ef;
                k.undirected = undirected == 1;
                k.seed = static_cast<std::uint64_t>(scale);
                std::string const what = "kronecker scale " + std::to_string(scale) + " ef " +
                                         std::to_string(ef) + (k.undirected ? "" : " directed");
                check_all(kronecker_graph<bool>(k), k.undirected, what);
                check_all(kronecker_graph<double, std::int64_t>(k), k.undirected, what + ", int64");
            }
}

BOOST_AUTO_TEST_CASE(thread_counts) {
    // Large enough that the parallel loops run parallel (n > 16384).
    kronecker_options k;
    k.scale = 15;
    k.edge_factor = 2;
    k.undirected = true;
    auto const a = kronecker_graph<bool>(k);
    for (int t : {1, 2, 3}) {
        thread_count threads(t);
        check_all(a, true, "kronecker 15, " + std::to_string(t) + " threads");
    }
    k.undirected = false;
    k.edge_factor = 8;
    auto const d = kronecker_graph<bool>(k);
    for (int t : {1, 3}) {
        thread_count threads(t);
        check_all(d, false, "directed kronecker 15, " + std::to_string(t) + " threads");
    }
}

BOOST_AUTO_TEST_CASE(explain_names_the_method) {
    auto const a = from_edges<std::int32_t>(4, {0, 1, 2, 3}, {1, 0, 3, 2});
    for (auto const& v : variants) {
        explain_trace trace;
        cc_options o;
        o.method = v.method;
        o.fused = v.fused;
        o.explain = &trace;
        auto const r = connected_components(a, o);
        std::string const s = trace.str();
        BOOST_TEST_INFO(s);
        BOOST_TEST(s.find(std::string("connected_components: ") + to_string(r.method)) !=
                   std::string::npos);
        // FastSV runs on A + A'; Afforest links A's own edges (no skip: A is not promised
        // symmetric).
        BOOST_TEST(
            s.find(r.method == cc_method::fastsv ? "symmetrised" : "no component is skipped") !=
            std::string::npos);
        BOOST_TEST(s.find("cpu") != std::string::npos);
    }
    explain_trace trace;
    cc_options o;
    o.symmetric = true;
    o.explain = &trace;
    connected_components(a, o);
    BOOST_TEST(trace.str().find("caller's promise") != std::string::npos);
    BOOST_TEST(trace.str().find("method afforest") != std::string::npos);
    BOOST_TEST(trace.str().find("sampled vertices: its vertices skip") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_input) {
    csr_matrix<bool> const rect(3, 4);
    BOOST_CHECK_THROW(connected_components(rect), dimension_mismatch);
    cc_options o;
    o.method = cc_method::fastsv;
    BOOST_CHECK_THROW(connected_components(rect, o), dimension_mismatch);
}

BOOST_AUTO_TEST_CASE(device_choice_gpu) {
    kronecker_options k;
    k.scale = 10;
    k.undirected = false;
    auto const a = kronecker_graph<bool>(k);
    cc_options o;
    o.device = device_choice::gpu;
    if (cuda::device_count() == 0) {
        // No GPU here: pinning it must fail loudly, never run on the CPU instead.
        BOOST_CHECK_THROW(connected_components(a, o), no_device);
        o.method = cc_method::fastsv;
        BOOST_CHECK_THROW(connected_components(a, o), no_device);
        return;
    }
    auto const want = reference_components(a);
    for (auto m : {cc_method::afforest, cc_method::fastsv, cc_method::automatic}) {
        o.method = m;
        auto const r = connected_components(a, o);
        BOOST_TEST((r.device == device_choice::gpu));
        BOOST_TEST(r.component == want, boost::test_tools::per_element());
        auto const d = connected_components(a.to_device(), o);
        BOOST_TEST(d.component == want, boost::test_tools::per_element());
        cc_options cpu = o;
        cpu.device = device_choice::cpu;
        BOOST_CHECK_THROW(connected_components(a.to_device(), cpu), invalid_argument);
    }
}

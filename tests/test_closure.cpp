// Transitive closure of sparse graphs through the condensation (closure.hpp, scc.hpp,
// closure_condensation.hpp) against the dense closure (bitset Warshall on the whole n x n, itself
// checked against a BFS from every vertex in test_apsp), on random graphs of many shapes: empty,
// one vertex, self-loops, one strongly connected component, DAGs, many components, chains,
// stars, random densities. Every method (search, sweep), output (CSR, bits), index type and
// reflexive or not; the strongly connected components against mutual reachability and their
// topological numbering; the estimate; deep paths (no recursion); the memory limit. Then the
// closure over any semiring (semiring_closure.hpp) against a plain fixed-point reference.

#define BOOST_TEST_MODULE closure
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/scc.hpp>
#include <kleene/algorithms/semiring_closure.hpp>
#include <kleene/runtime_semiring.hpp>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;

struct edges {
    std::size_t n = 0;
    std::vector<std::int64_t> from, to;
    void add(std::size_t u, std::size_t v) {
        from.push_back(static_cast<std::int64_t>(u));
        to.push_back(static_cast<std::int64_t>(v));
    }
};

template <class Index>
csr_matrix<bool, Index> matrix_of(edges const& e) {
    std::vector<Index> i(e.from.begin(), e.from.end()), j(e.to.begin(), e.to.end());
    return csr_matrix<bool, Index>::from_coo(e.n, e.n, i, j, {}, duplicate_policy::last);
}

/// Vertex ids shuffled, so that no shape arrives in a convenient order.
edges shuffled(edges e, std::mt19937_64& rng) {
    std::vector<std::int64_t> p(e.n);
    for (std::size_t v = 0; v < e.n; ++v) p[v] = static_cast<std::int64_t>(v);
    std::shuffle(p.begin(), p.end(), rng);
    for (auto& u : e.from) u = p[static_cast<std::size_t>(u)];
    for (auto& v : e.to) v = p[static_cast<std::size_t>(v)];
    return e;
}

edges random_gnp(std::size_t n, double p, std::mt19937_64& rng, bool loops) {
    edges e{n, {}, {}};
    std::uniform_real_distribution<double> u(0, 1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if ((loops || i != j) && u(rng) < p) e.add(i, j);
    return e;
}

edges random_dag(std::size_t n, double degree, std::mt19937_64& rng) {
    edges e{n, {}, {}};
    if (n < 2) return e;
    for (std::size_t k = 0; k < static_cast<std::size_t>(degree * double(n)); ++k) {
        std::size_t a = rng() % n, b = rng() % n;
        if (a == b) continue;
        e.add(std::min(a, b), std::max(a, b));
    }
    return shuffled(e, rng);
}

/// Blocks of `block` vertices, each a cycle with chords (one component each), and random edges
/// from later blocks to earlier ones (a DAG between them).
edges many_sccs(std::size_t n, std::size_t block, std::size_t between, std::mt19937_64& rng) {
    edges e{n, {}, {}};
    for (std::size_t b0 = 0; b0 < n; b0 += block) {
        std::size_t const b1 = std::min(n, b0 + block);
        for (std::size_t v = b0; v + 1 < b1; ++v) e.add(v, v + 1);
        if (b1 - b0 > 1) e.add(b1 - 1, b0);
        for (std::size_t c = 0; c < (b1 - b0) / 2; ++c)
            e.add(b0 + rng() % (b1 - b0), b0 + rng() % (b1 - b0));
    }
    for (std::size_t k = 0; k < between; ++k) {
        std::size_t a = rng() % n, b = rng() % n;
        if (a / block == b / block) continue;
        if (a / block < b / block) std::swap(a, b);
        e.add(a, b);
    }
    return shuffled(e, rng);
}

struct shape {
    std::string name;
    edges e;
};

std::vector<shape> shapes() {
    std::mt19937_64 rng(20240601);
    std::vector<shape> s;
    s.push_back({"empty", {0, {}, {}}});
    s.push_back({"one vertex", {1, {}, {}}});
    s.push_back({"one self-loop", {1, {0}, {0}}});
    s.push_back({"isolated", {50, {}, {}}});
    s.push_back({"one edge", {100, {17}, {42}}});
    s.push_back({"two-cycle", {5, {1, 3}, {3, 1}}});
    {
        edges e{70, {}, {}};
        for (std::size_t v = 0; v < 70; v += 3) e.add(v, v);  // self-loops, some also on paths
        for (std::size_t v = 0; v + 1 < 70; v += 2) e.add(v, v + 1);
        s.push_back({"self-loops", shuffled(e, rng)});
    }
    for (std::size_t n : {2u, 3u, 64u, 65u, 300u}) {
        edges e{n, {}, {}};
        for (std::size_t v = 0; v < n; ++v) e.add(v, (v + 1) % n);
        for (std::size_t c = 0; c < n / 3; ++c) e.add(rng() % n, rng() % n);
        s.push_back({"one scc n=" + std::to_string(n), shuffled(e, rng)});
    }
    for (std::size_t n : {10u, 129u, 400u})
        for (double d : {0.5, 1.5, 4.0})
            s.push_back(
                {"dag n=" + std::to_string(n) + " d=" + std::to_string(d), random_dag(n, d, rng)});
    for (std::size_t block : {2u, 7u, 40u})
        s.push_back({"many sccs block=" + std::to_string(block), many_sccs(500, block, 300, rng)});
    {
        edges e{300, {}, {}};
        for (std::size_t v = 0; v + 1 < 300; ++v) e.add(v, v + 1);
        s.push_back({"chain", shuffled(e, rng)});
    }
    {
        edges in{200, {}, {}}, out{200, {}, {}};
        for (std::size_t v = 1; v < 200; ++v) in.add(v, 0), out.add(0, v);
        s.push_back({"in-star", in});
        s.push_back({"out-star", out});
    }
    for (std::size_t n : {1u, 2u, 31u, 130u, 257u})
        for (double p : {0.3 / double(n), 1.0 / double(n), 3.0 / double(n), 0.2})
            s.push_back({"gnp n=" + std::to_string(n) + " p=" + std::to_string(p),
                         random_gnp(n, p, rng, true)});
    return s;
}

/// The reference: the dense bitset Warshall on the whole matrix (checked against BFS in
/// test_apsp), reflexive by hand.
host_bits reference(csr_matrix<bool, std::int64_t> const& a, bool reflexive) {
    host_bits b = to_host_bits(a);
    closure_cpu(b);
    if (reflexive)
        for (std::size_t i = 0; i < b.n; ++i) b.set(i, i);
    return b;
}

/// Pairs where got (CSR) and want differ, and whether the CSR rows are sorted and unique.
std::size_t differences(csr_matrix<bool, std::int64_t> const& got, host_bits const& want) {
    std::size_t bad = got.rows() == want.n ? 0 : 1;
    if (bad) return bad;
    for (std::size_t i = 0; i < want.n; ++i) {
        std::size_t count = 0;
        for (std::size_t k = got.row_begin(i); k < got.row_end(i); ++k) {
            auto const j = static_cast<std::size_t>(got.col_idx()[k]);
            if (k > got.row_begin(i) && got.col_idx()[k - 1] >= got.col_idx()[k]) ++bad;
            if (!want.test(i, j)) ++bad;
            ++count;
        }
        std::size_t w = 0;
        for (std::size_t q = 0; q < want.ld; ++q)
            w += static_cast<std::size_t>(std::popcount(want.words[i * want.ld + q]));
        if (w != count) ++bad;
    }
    return bad;
}

std::size_t differences(host_bits const& got, host_bits const& want) {
    if (got.n != want.n || got.ld != want.ld) return 1;
    std::size_t bad = 0;
    for (std::size_t q = 0; q < want.words.size(); ++q) bad += got.words[q] != want.words[q];
    return bad;
}

template <class Index>
void check_shape(shape const& s) {
    auto const a = matrix_of<Index>(s.e);
    auto const a64 = matrix_of<std::int64_t>(s.e);
    for (bool reflexive : {false, true}) {
        host_bits const want = reference(a64, reflexive);
        for (closure_reach reach :
             {closure_reach::search, closure_reach::sweep, closure_reach::automatic})
            for (output_choice out :
                 {output_choice::csr, output_choice::dense, output_choice::automatic}) {
                closure_options opt;
                opt.reflexive = reflexive;
                opt.device = device_choice::cpu;
                opt.method = closure_method::condensation;
                opt.reach = reach;
                opt.output_format = out;
                explain_trace why;
                opt.explain = &why;
                closure_result const r = closure_matrix(a, opt);
                std::string const what = s.name + (reflexive ? " reflexive" : "") + " reach " +
                                         to_string(reach) + "\n" + why.str();
                BOOST_TEST_CONTEXT(what) {
                    BOOST_TEST((r.method == closure_method::condensation));
                    BOOST_TEST((out == output_choice::automatic || r.format == out));
                    BOOST_TEST((reach == closure_reach::automatic || r.reach == reach));
                    if (r.format == output_choice::csr)
                        BOOST_TEST(differences(r.csr, want) == 0u);
                    else
                        BOOST_TEST(differences(r.bits, want) == 0u);
                }
            }
        // The public wrappers and the dense method give the same.
        closure_options opt;
        opt.reflexive = reflexive;
        opt.device = device_choice::cpu;
        BOOST_TEST_CONTEXT(s.name) {
            BOOST_TEST(differences(closure(a, opt), want) == 0u);
            BOOST_TEST(differences(closure_bits(a, opt), want) == 0u);
            opt.method = closure_method::dense;
            BOOST_TEST(differences(closure(a, opt), want) == 0u);
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(condensation_matches_dense_closure_int32) {
    for (auto const& s : shapes()) check_shape<std::int32_t>(s);
}

BOOST_AUTO_TEST_CASE(condensation_matches_dense_closure_int64) {
    for (auto const& s : shapes()) check_shape<std::int64_t>(s);
}

BOOST_AUTO_TEST_CASE(scc_labels_are_mutual_reachability_in_topological_order) {
    for (auto const& s : shapes()) {
        auto const a = matrix_of<std::int32_t>(s.e);
        auto const r = strongly_connected_components(a);
        host_bits const reach = reference(matrix_of<std::int64_t>(s.e), true);
        std::size_t bad = 0;
        for (std::size_t u = 0; u < s.e.n; ++u)
            for (std::size_t v = 0; v < s.e.n; ++v)
                bad += (r.label[u] == r.label[v]) != (reach.test(u, v) && reach.test(v, u));
        // An edge between components goes to a smaller label (sinks first).
        for (std::size_t k = 0; k < s.e.from.size(); ++k) {
            auto const lu = r.label[static_cast<std::size_t>(s.e.from[k])];
            auto const lv = r.label[static_cast<std::size_t>(s.e.to[k])];
            bad += lu != lv && lv > lu;
        }
        std::size_t labels = 0;
        for (auto l : r.label) labels = std::max(labels, static_cast<std::size_t>(l) + 1);
        BOOST_TEST_CONTEXT(s.name) {
            BOOST_TEST(bad == 0u);
            BOOST_TEST(r.count == labels);
        }
    }
}

BOOST_AUTO_TEST_CASE(deep_paths_need_no_call_stack) {
    // A path and a cycle of a million vertices: recursion this deep would overflow the stack.
    std::size_t const n = 1000000;
    edges path{n, {}, {}};
    for (std::size_t v = 0; v + 1 < n; ++v) path.add(v, v + 1);
    auto const p = strongly_connected_components(matrix_of<std::int32_t>(path));
    BOOST_TEST(p.count == n);
    BOOST_TEST(p.label[0] == std::int32_t(n - 1));  // the source completes last
    path.add(n - 1, 0);
    auto const c = strongly_connected_components(matrix_of<std::int32_t>(path));
    BOOST_TEST(c.count == 1u);
}

BOOST_AUTO_TEST_CASE(estimate_is_exact_on_chains_and_close_elsewhere) {
    std::mt19937_64 rng(7);
    edges chain{2000, {}, {}};
    for (std::size_t v = 0; v + 1 < 2000; ++v) chain.add(v, v + 1);
    auto const g = detail::condense(matrix_of<std::int32_t>(shuffled(chain, rng)));
    auto const e = detail::estimate_closure(g, false);
    BOOST_TEST(e.exact);
    BOOST_TEST(e.pairs == 2000.0 * 1999 / 2);
    BOOST_TEST(detail::neg_log(1.0) == 0.0f);
    for (double u : {1e-300, 1e-9, 0.25, 0.5, 0.70710678, 0.7071068, 0.9, 1 - 1e-9, 1 - 0x1p-53})
        BOOST_TEST(detail::neg_log(u) == static_cast<float>(-std::log(u)),
                   boost::test_tools::tolerance(1e-6f));
    // A DAG, one where every vertex reaches all later ones, and a graph with components: the
    // estimate within a factor 1.5 of the count.
    edges line{3000, {}, {}};
    for (std::size_t v = 0; v + 1 < 3000; ++v)
        for (std::size_t k = 0; k < 3; ++k)
            line.add(v, std::min<std::size_t>(2999, v + 1 + rng() % 6));
    for (auto const& s :
         {random_dag(3000, 1.2, rng), many_sccs(3000, 30, 2500, rng), shuffled(line, rng)}) {
        auto const a = matrix_of<std::int32_t>(s);
        auto const r = closure(a, {.device = device_choice::cpu});
        auto const est = detail::estimate_closure(detail::condense(a), false);
        double const ratio = est.pairs / double(std::max<std::size_t>(r.nnz(), 1));
        BOOST_TEST_CONTEXT("estimate " << est.pairs << ", count " << r.nnz()) {
            BOOST_TEST(ratio > 0.67);
            BOOST_TEST(ratio < 1.5);
        }
    }
}

BOOST_AUTO_TEST_CASE(large_sparse_graphs) {
    // n = 5,000,000 and one edge: the condensation's time follows the graph, not n^2.
    edges one{5000000, {123}, {4567890}};
    explain_trace why;
    auto const r = closure_matrix(matrix_of<std::int32_t>(one),
                                  {.device = device_choice::cpu, .explain = &why});
    BOOST_TEST_CONTEXT(why.str()) {
        BOOST_TEST((r.format == output_choice::csr));
        BOOST_TEST(r.csr.nnz() == 1u);
        BOOST_TEST(r.csr.find(123, 4567890) >= 0);
        BOOST_TEST(why.str().find("exactly 1 pairs") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(results_past_the_limit_fail_before_the_work) {
    // One cycle of 100,000 vertices: 10^10 pairs, 74.5 GiB as CSR, 1.2 GiB as bits.
    std::size_t const n = 100000;
    edges cycle{n, {}, {}};
    for (std::size_t v = 0; v < n; ++v) cycle.add(v, (v + 1) % n);
    auto const a = matrix_of<std::int32_t>(cycle);
    closure_options opt;
    opt.device = device_choice::cpu;
    opt.max_output_bytes = std::size_t(1) << 30;
    std::string msg;
    try {
        closure(a, opt);
    } catch (out_of_memory const& e) {
        msg = e.what();
    }
    BOOST_TEST(msg.find("has 1e+10 pairs (counted)") != std::string::npos, msg);
    BOOST_TEST(msg.find("74.5 GiB as CSR") != std::string::npos, msg);
    BOOST_TEST(msg.find("more than the limit of 1.0 GiB") != std::string::npos, msg);
    // The search stops at its budget: out_of_memory thrown in a thread, rethrown after the
    // parallel region.
    std::mt19937_64 rng(11);
    auto const g = detail::condense(matrix_of<std::int32_t>(random_dag(20000, 2.0, rng)));
    BOOST_CHECK_THROW(detail::reach_by_search(g, false, 2, 1000), out_of_memory);
    BOOST_TEST(detail::reach_by_search(g, false, 2, std::size_t(-1)).weight.size() == g.k);
    // The bits fit a 2 GiB limit.
    opt.max_output_bytes = std::size_t(2) << 30;
    auto const r = closure_matrix(a, opt);
    BOOST_TEST((r.format == output_choice::dense));
    BOOST_TEST(r.pairs() == n * n);
}

// ---- the closure over any semiring (semiring_closure.hpp) -------------------------------------
// Against a plain reference written here: R = A, then R = A (+) R (x) A until it stops changing
// (at most n + 1 rounds: with an idempotent add and cycles one absorbs, paths of n edges or fewer
// carry the whole sum), zero multiplying as absent; reflexive: add(one, R(i, i)) on the diagonal.

namespace {

template <class S>
dense_matrix<typename S::value_type> reference_closure(S const& s,
                                                       dense_matrix<typename S::value_type> const& a,
                                                       bool reflexive) {
    using T = typename S::value_type;
    std::size_t const n = a.rows();
    T const zero = s.zero();
    auto const mul = [&](T x, T y) { return x == zero || y == zero ? zero : T(s.mul(x, y)); };
    dense_matrix<T> r = a;
    for (std::size_t round = 0; round <= n; ++round) {
        dense_matrix<T> next = a;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t k = 0; k < n; ++k)
                for (std::size_t j = 0; j < n; ++j)
                    next(i, j) = s.add(next(i, j), mul(r(i, k), a(k, j)));
        bool same = true;
        for (std::size_t q = 0; q < n * n && same; ++q) same = next.data()[q] == r.data()[q];
        r = std::move(next);
        if (same) break;
    }
    if (reflexive)
        for (std::size_t i = 0; i < n; ++i) r(i, i) = s.add(s.one(), r(i, i));
    return r;
}

/// n x n, each entry present with probability p (else the semiring's zero), values from draw.
template <class T, class Draw>
dense_matrix<T> random_dense(std::size_t n, double p, T zero, Draw draw, std::mt19937_64& rng) {
    dense_matrix<T> a(n, n, zero);
    std::uniform_real_distribution<double> u(0, 1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (u(rng) < p) a(i, j) = draw(i, j);
    return a;
}

/// Entries that differ (relative tolerance tol for floating point, 0: exactly), and the first.
template <class T>
std::size_t closure_differences(dense_matrix<T> const& got, dense_matrix<T> const& want,
                                double tol, std::string& first) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.rows(); ++i)
        for (std::size_t j = 0; j < want.cols(); ++j) {
            T const g = got(i, j), w = want(i, j);
            bool ok = g == w;
            if constexpr (std::is_floating_point_v<T>)
                if (!ok && tol > 0 && std::isfinite(g) && std::isfinite(w))
                    ok = std::fabs(double(g) - double(w)) <=
                         tol * std::max(1.0, std::max(std::fabs(double(g)), std::fabs(double(w))));
            if (!ok && bad++ == 0)
                first = "(" + std::to_string(i) + ", " + std::to_string(j) + "): got " +
                        std::to_string(double(g)) + ", want " + std::to_string(double(w));
        }
    return bad;
}

/// The closure of a (several sizes, densities, base sizes that make the recursion run) against
/// the reference, reflexive and not.
template <class S, class Draw>
void check_semiring_closure(S const& s, std::string const& name, Draw draw, double tol = 0) {
    using T = typename S::value_type;
    std::mt19937_64 rng(4242);
    for (std::size_t n : {0u, 1u, 2u, 5u, 37u, 150u})
        for (double p : {0.05, 0.3})
            for (std::size_t base : {std::size_t(0), std::size_t(4)}) {
                if (n == 150 && base == 4) continue;  // the default base already recurses
                dense_matrix<T> const a = random_dense<T>(n, p, s.zero(), draw, rng);
                for (bool reflexive : {false, true}) {
                    dense_matrix<T> const want = reference_closure(s, a, reflexive);
                    dense_matrix<T> got = a;
                    semiring_closure_options opt;
                    opt.reflexive = reflexive;
                    opt.base = base;
                    explain_trace why;
                    opt.explain = &why;
                    semiring_closure(got.view(), s, opt);
                    std::string first;
                    std::size_t const bad = closure_differences(got, want, tol, first);
                    BOOST_TEST(bad == 0u, name << " n=" << n << " p=" << p << " base=" << base
                                               << (reflexive ? " reflexive" : "") << ": " << bad
                                               << " entries differ, first " << first);
                    if (n > 0) BOOST_TEST(!why.lines.empty());
                }
            }
}

}  // namespace

BOOST_AUTO_TEST_CASE(semiring_closure_min_plus) {
    // Weights 1..9, and weights with negative entries but no negative cycle (potentials:
    // w(i, j) = c + p(j) - p(i) with c >= 0 sums to c's along a cycle).
    std::mt19937_64 g(7);
    check_semiring_closure(min_plus<float>{}, "min_plus<float>",
                           [&](std::size_t, std::size_t) { return float(1 + g() % 9); });
    check_semiring_closure(min_plus<std::int32_t>{}, "min_plus<int32>",
                           [&](std::size_t i, std::size_t j) {
                               return std::int32_t(g() % 5) + std::int32_t(j % 7) -
                                      std::int32_t(i % 7);
                           });
    check_semiring_closure(min_plus<double>{}, "min_plus<double>", [&](std::size_t i, std::size_t j) {
        return double(g() % 5) + double(j % 11) - double(i % 11);
    });
}

BOOST_AUTO_TEST_CASE(semiring_closure_max_min_max_times_lor_land) {
    std::mt19937_64 g(8);
    check_semiring_closure(max_min<float>{}, "max_min<float>",
                           [&](std::size_t, std::size_t) { return float(g() % 100) / 4; });
    check_semiring_closure(max_min<std::int64_t>{}, "max_min<int64>",
                           [&](std::size_t, std::size_t) { return std::int64_t(g() % 1000) - 500; });
    // Probabilities in [0, 1]: the closure is the most probable path; the reference multiplies
    // along paths in another order, so equal to a few ulps.
    std::uniform_real_distribution<double> u(0, 1);
    check_semiring_closure(max_times<double>{}, "max_times<double>",
                           [&](std::size_t, std::size_t) { return u(g); }, 1e-12);
    check_semiring_closure(max_times<float>{}, "max_times<float>",
                           [&](std::size_t, std::size_t) { return float(u(g)); }, 1e-5);
    check_semiring_closure(lor_land<bool>{}, "lor_land<bool>",
                           [&](std::size_t, std::size_t) { return true; });
    check_semiring_closure(lor_land<std::int32_t>{}, "lor_land<int32>",
                           [&](std::size_t, std::size_t) { return std::int32_t(1); });
}

BOOST_AUTO_TEST_CASE(semiring_closure_runtime_semirings) {
    // The generic row loop (a semiring object) against the same reference; max.first is refused
    // below, min.max and max.times are compositions the object answers at run time.
    std::mt19937_64 g(9);
    check_semiring_closure(runtime_semiring<float>(add_kind::min, mul_kind::plus), "min.plus<float>",
                           [&](std::size_t, std::size_t) { return float(1 + g() % 9); });
    check_semiring_closure(runtime_semiring<std::int32_t>(add_kind::min, mul_kind::max),
                           "min.max<int32>",
                           [&](std::size_t, std::size_t) { return std::int32_t(g() % 50); });
    std::uniform_real_distribution<double> u(0, 1);
    check_semiring_closure(runtime_semiring<double>(add_kind::max, mul_kind::times),
                           "max.times<double>", [&](std::size_t, std::size_t) { return u(g); },
                           1e-12);
    check_semiring_closure(runtime_semiring<std::int64_t>(add_kind::max, mul_kind::min),
                           "max.min<int64>",
                           [&](std::size_t, std::size_t) { return std::int64_t(g() % 100); });
}

BOOST_AUTO_TEST_CASE(semiring_closure_small_and_disconnected) {
    // n = 0 and n = 1 (with and without a self-loop).
    dense_matrix<float> e(0, 0);
    semiring_closure(e.view(), min_plus<float>{});
    dense_matrix<float> one(1, 1, infinity<float>());
    semiring_closure(one.view(), min_plus<float>{});
    BOOST_TEST(one(0, 0) == infinity<float>());
    semiring_closure(one.view(), min_plus<float>{}, {.reflexive = true});
    BOOST_TEST(one(0, 0) == 0.0f);
    dense_matrix<float> loop(1, 1, 3.0f);
    semiring_closure(loop.view(), min_plus<float>{});
    BOOST_TEST(loop(0, 0) == 3.0f);  // A+: the loop itself
    // Two components {0..59} and {60..119}, each a cycle: nothing crosses between them.
    std::size_t const n = 120;
    dense_matrix<std::int32_t> a(n, n, infinity<std::int32_t>());
    for (std::size_t v = 0; v < n; ++v) a(v, v % 60 == 59 ? v - 59 : v + 1) = 2;
    dense_matrix<std::int32_t> const want = reference_closure(min_plus<std::int32_t>{}, a, true);
    semiring_closure(a.view(), min_plus<std::int32_t>{}, {.reflexive = true, .base = 8});
    std::string first;
    BOOST_TEST(closure_differences(a, want, 0, first) == 0u, first);
    BOOST_TEST(a(0, 59) == 118);
    BOOST_TEST(a(59, 0) == 2);
    BOOST_TEST(a(0, 60) == infinity<std::int32_t>());
    BOOST_TEST(a(100, 10) == infinity<std::int32_t>());
    BOOST_TEST(a(70, 70) == 0);
}

BOOST_AUTO_TEST_CASE(semiring_closure_cycles_one_does_not_absorb) {
    // min_plus: the cycle 3 -> 5 -> 3 weighs -1; 3 is the smallest vertex on it.
    for (std::size_t base : {std::size_t(0), std::size_t(2)}) {
        dense_matrix<double> a(8, 8, infinity<double>());
        for (std::size_t v = 0; v + 1 < 8; ++v) a(v, v + 1) = 1;
        a(5, 3) = -3;
        try {
            semiring_closure(a.view(), min_plus<double>{}, {.base = base});
            BOOST_FAIL("a negative cycle must throw");
        } catch (negative_cycle const& e) {
            BOOST_TEST(e.vertex() == 3);
            BOOST_TEST(std::string(e.what()).find("vertex 3") != std::string::npos, e.what());
        }
    }
    // max_times: a self-loop of 1.5 at vertex 2 (paths through it grow without end); the same
    // over the run-time composition.
    dense_matrix<float> b(4, 4, max_times<float>::zero());
    b(0, 1) = 0.5f;
    b(1, 2) = 0.5f;
    b(2, 2) = 1.5f;
    b(2, 3) = 0.5f;
    dense_matrix<float> b2 = b;
    try {
        semiring_closure(b.view(), max_times<float>{}, {.reflexive = true});
        BOOST_FAIL("a cycle heavier than one must throw");
    } catch (negative_cycle const& e) {
        BOOST_TEST(e.vertex() == 2);
        BOOST_TEST(std::string(e.what()).find("came out") != std::string::npos, e.what());
    }
    BOOST_CHECK_THROW(
        semiring_closure(b2.view(), runtime_semiring<float>(add_kind::max, mul_kind::times)),
        negative_cycle);
    // Weights above 1 without a cycle are fine: paths stay simple.
    dense_matrix<float> c(3, 3, max_times<float>::zero());
    c(0, 1) = 2.0f;
    c(1, 2) = 3.0f;
    semiring_closure(c.view(), max_times<float>{});
    BOOST_TEST(c(0, 2) == 6.0f);
}

BOOST_AUTO_TEST_CASE(semiring_closure_refusals) {
    dense_matrix<float> a(3, 3, 1.0f);
    // An add that is not idempotent: compiled and run-time.
    BOOST_CHECK_THROW(semiring_closure(a.view(), plus_times<float>{}), invalid_argument);
    BOOST_CHECK_THROW(
        semiring_closure(a.view(), runtime_semiring<float>(add_kind::plus, mul_kind::min)),
        invalid_argument);
    try {
        semiring_closure(a.view(), runtime_semiring<float>(add_kind::plus, mul_kind::times));
        BOOST_FAIL("plus.times must be refused");
    } catch (invalid_argument const& e) {
        BOOST_TEST(std::string(e.what()).find("plus.times") != std::string::npos, e.what());
        BOOST_TEST(std::string(e.what()).find("not idempotent") != std::string::npos, e.what());
    }
    // A multiply without identity.
    BOOST_CHECK_THROW(semiring_closure(a.view(), min_first<float>{}), invalid_argument);
    BOOST_CHECK_THROW(
        semiring_closure(a.view(), runtime_semiring<float>(add_kind::max, mul_kind::first)),
        invalid_argument);
    // Not square.
    dense_matrix<float> r(2, 3, 1.0f);
    BOOST_CHECK_THROW(semiring_closure(r.view(), min_plus<float>{}), dimension_mismatch);
    // NaN in the input, named.
    a(1, 2) = std::numeric_limits<float>::quiet_NaN();
    try {
        semiring_closure(a.view(), min_plus<float>{});
        BOOST_FAIL("NaN must be refused");
    } catch (invalid_argument const& e) {
        BOOST_TEST(std::string(e.what()).find("(1, 2) is NaN") != std::string::npos, e.what());
    }
}

// Sums past the value type: a path 0 -> 1 -> 2 of two 2^62 weights sums to 2^63, past int64;
// saturated it would read as infinity, no path. Refused before the work, for compiled and run-time
// min.plus and max.plus (whose bound counts negative weights twice); a path that fits still runs.
BOOST_AUTO_TEST_CASE(semiring_closure_refuses_sums_past_the_type) {
    std::int64_t const big = std::int64_t(1) << 62;
    dense_matrix<std::int64_t> a(3, 3, min_plus<std::int64_t>::zero());
    a(0, 1) = big;
    a(1, 2) = big;
    try {
        semiring_closure(a.view(), min_plus<std::int64_t>{});
        BOOST_FAIL("int64 sums past 2^63 must be refused");
    } catch (overflow_error const& e) {
        BOOST_TEST(std::string(e.what()).find("int64 distances could reach") != std::string::npos,
                   e.what());
    }
    BOOST_CHECK_THROW(semiring_closure(a.view(), runtime_semiring<std::int64_t>(add_kind::min,
                                                                                mul_kind::plus)),
                      overflow_error);
    dense_matrix<std::int32_t> m(3, 3, max_plus<std::int32_t>::zero());
    m(0, 1) = -(1 << 29);
    m(1, 2) = -(1 << 29);  // |sum| 2^30 fits, but the bound with negative weights is half the range
    BOOST_CHECK_THROW(semiring_closure(m.view(), max_plus<std::int32_t>{}), overflow_error);
    m(0, 1) = 1 << 20;
    m(1, 2) = 1 << 20;
    semiring_closure(m.view(), max_plus<std::int32_t>{});
    BOOST_TEST(m(0, 2) == (1 << 21));
    // A multiply that does not add is not bounded: max.min over the same weights.
    dense_matrix<std::int64_t> c(3, 3, max_min<std::int64_t>::zero());
    c(0, 1) = big;
    c(1, 2) = big;
    semiring_closure(c.view(), max_min<std::int64_t>{});
    BOOST_TEST(c(0, 2) == big);
}

BOOST_AUTO_TEST_CASE(semiring_closure_calls_the_step_hook) {
    dense_matrix<float> a(40, 40, 1.0f);
    int steps = 0;
    semiring_closure(a.view(), min_plus<float>{}, {.base = 8, .on_step = [&] { ++steps; }});
    BOOST_TEST(steps > 8);
    BOOST_TEST(a(3, 7) == 1.0f);
    BOOST_CHECK_THROW(semiring_closure(a.view(), min_plus<float>{},
                                       {.base = 8, .on_step = [] { throw error("stop"); }}),
                      error);
}

// PageRank on the CPU against a dense power iteration in double written here: both dangling
// definitions, both methods and automatic, 1-3 threads, random uniform and Kronecker graphs
// (directed and undirected, many sizes), disconnected graphs, self-loops, duplicate input edges,
// isolated vertices, 0 and 1 vertices; closed forms (directed cycle, 1 vertex); bad parameters.

#define BOOST_TEST_MODULE pagerank
#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/pagerank.hpp>

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace kleene;

// ---- reference ----------------------------------------------------------------------------------

struct dense_reference {
    std::vector<double> rank;
    int iterations = 0;
    double change = 0;
};

/// The textbook power iteration on the dense n x n transition matrix M (M[v][u] = 1/outdeg(u) for
/// an edge u -> v), x' = (1 - d)/n + d (M x + [redistribute] (dangling mass of x)/n), from 1/n,
/// stopping after the first step whose L1 change is below tol.
template <class T, class Index>
dense_reference power_iteration(csr_matrix<T, Index> const& a, double d, double tol, int max_it,
                                bool redistribute) {
    std::size_t const n = a.rows();
    std::vector<double> m(n * n, 0.0);
    std::vector<bool> dangling(n, false);
    for (std::size_t u = 0; u < n; ++u) {
        std::size_t const deg = a.row_end(u) - a.row_begin(u);
        dangling[u] = deg == 0;
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k)
            m[static_cast<std::size_t>(a.col_idx()[k]) * n + u] += 1.0 / static_cast<double>(deg);
    }
    dense_reference r;
    std::vector<double> x(n, 1.0 / static_cast<double>(n)), y(n);
    for (int it = 1; it <= max_it; ++it) {
        double dm = 0;
        for (std::size_t u = 0; u < n; ++u)
            if (dangling[u]) dm += x[u];
        double change = 0;
        for (std::size_t v = 0; v < n; ++v) {
            double s = 0;
            for (std::size_t u = 0; u < n; ++u) s += m[v * n + u] * x[u];
            y[v] = (1 - d) / static_cast<double>(n) + d * s +
                   (redistribute ? d * dm / static_cast<double>(n) : 0.0);
            change += std::abs(y[v] - x[v]);
        }
        x.swap(y);
        r.iterations = it;
        r.change = change;
        if (change < tol) break;
    }
    r.rank.assign(x.begin(), x.end());
    return r;
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

struct thread_count {
    int saved = omp_get_max_threads();
    explicit thread_count(int t) { omp_set_num_threads(t); }
    ~thread_count() { omp_set_num_threads(saved); }
};

double l1(std::span<double const> x, std::span<double const> y) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += std::abs(x[i] - y[i]);
    return s;
}

/// pagerank(a) with every method and dangling rule, on 1-3 threads, against the reference:
/// - at the same tolerance, the same number of steps and the same ranks up to rounding (both run
///   the same Jacobi iteration; only the order of the sums differs);
/// - against the fixed point (the reference run to 1e-14): the iteration contracts by d in L1
///   (M and its redistributing form are column-substochastic), so the last change delta bounds the
///   distance by d / (1 - d) * delta (< d / (1 - d) * tol once converged);
/// - redistribute: the ranks sum to 1;
/// - the result does not depend on the number of threads (block sums folded in a fixed order).
template <class T, class Index>
void check_pagerank(csr_matrix<T, Index> const& a, bool undirected, std::string const& name,
                    double tol = 1e-4, int max_it = 100) {
    double const d = 0.85;
    for (auto dangling : {pagerank_dangling::gap, pagerank_dangling::redistribute}) {
        bool const redis = dangling == pagerank_dangling::redistribute;
        auto const ref = power_iteration(a, d, tol, max_it, redis);
        auto const fixed = power_iteration(a, d, 1e-14, 10000, redis);
        std::vector<double> first;
        for (int threads : {1, 2, 3}) {
            thread_count tc(threads);
            for (auto method : {pagerank_method::automatic, pagerank_method::semiring,
                                pagerank_method::fused, pagerank_method::gauss_seidel})
                for (bool sym : {false, true}) {
                    if (sym && !undirected) continue;
                    pagerank_options o;
                    o.damping = d;
                    o.tolerance = tol;
                    o.max_iterations = max_it;
                    o.dangling = dangling;
                    o.method = method;
                    o.symmetric = sym;
                    o.device = device_choice::cpu;
                    // In double, as the reference; automatic's choice is checked on its own.
                    o.contributions = pagerank_contributions::as_double;
                    auto const r = pagerank(a, o);
                    BOOST_TEST_CONTEXT(name << " dangling=" << int(redis) << " threads=" << threads
                                            << " method=" << to_string(method)
                                            << " symmetric=" << sym) {
                        BOOST_REQUIRE_EQUAL(r.rank.size(), a.rows());
                        BOOST_TEST((r.device == device_choice::cpu));
                        // automatic on the CPU: Gauss-Seidel on every graph.
                        auto const expect = method != pagerank_method::automatic
                                                ? method
                                                : pagerank_method::gauss_seidel;
                        BOOST_TEST((r.method == expect));
                        bool const gs = expect == pagerank_method::gauss_seidel;
                        if (gs) {
                            // In place: other steps, the same fixed point, the same stopping rule.
                            BOOST_TEST(r.converged == (r.change < tol));
                            BOOST_TEST(r.iterations <= max_it);
                            if (r.converged)
                                BOOST_TEST(l1(r.rank, fixed.rank) <= 10 * d / (1 - d) * tol);
                            if (ref.change < tol) BOOST_TEST(r.converged);
                            continue;
                        }
                        BOOST_TEST(r.iterations == ref.iterations);
                        BOOST_TEST(r.converged == (ref.change < tol));
                        BOOST_TEST(std::abs(r.change - ref.change) <= 1e-12);
                        double worst = 0;
                        for (std::size_t v = 0; v < a.rows(); ++v)
                            worst = std::max(worst, std::abs(r.rank[v] - ref.rank[v]));
                        BOOST_TEST(worst <= 1e-13);
                        BOOST_TEST(l1(r.rank, fixed.rank) <= d / (1 - d) * r.change + 1e-12);
                        if (r.converged) BOOST_TEST(r.change < tol);
                        if (redis) {
                            double s = 0;
                            for (double x : r.rank) s += x;
                            BOOST_TEST(std::abs(s - 1) <= 1e-12);
                        }
                        if (expect == pagerank_method::fused && !sym) {
                            if (first.empty()) first.assign(r.rank.begin(), r.rank.end());
                            BOOST_TEST((r.rank == first));  // bit for bit on 1, 2, 3 threads
                        }
                    }
                }
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_uniform_graphs) {
    std::uint64_t seed = 1;
    for (std::size_t n : {2u, 3u, 7u, 20u, 64u, 150u, 300u})
        for (double avg : {0.5, 2.0, 6.0})
            for (bool undirected : {false, true}) {
                auto const m = static_cast<std::size_t>(avg * static_cast<double>(n));
                auto const max_m = undirected ? n * (n - 1) / 2 : n * (n - 1);
                auto const a = uniform(n, std::min(m, max_m), seed++, undirected);
                check_pagerank(a, undirected,
                               "uniform n=" + std::to_string(n) + " m=" + std::to_string(m) +
                                   " undirected=" + std::to_string(undirected));
            }
}

BOOST_AUTO_TEST_CASE(random_kronecker_graphs) {
    // Skewed degrees, many isolated vertices (dangling under the GAP definition).
    for (int scale : {5, 7, 10})
        for (bool undirected : {false, true})
            check_pagerank(kronecker(scale, 3 + static_cast<std::uint64_t>(scale), undirected),
                           undirected,
                           "kronecker scale=" + std::to_string(scale) +
                               " undirected=" + std::to_string(undirected));
}

BOOST_AUTO_TEST_CASE(larger_graphs) {
    // Enough vertices for several row blocks, so that the passes run in parallel.
    check_pagerank(uniform(1500, 9000, 31, false), false, "uniform n=1500 directed");
    check_pagerank(uniform(1200, 5000, 32, true), true, "uniform n=1200 undirected");
}

BOOST_AUTO_TEST_CASE(gauss_seidel_block_rows) {
    // Any block size of the in-place pass (one row a block to one block for all): the same fixed
    // point within the Gauss-Seidel bound, float and double contributions, 1-3 threads; the trace
    // names the blocks.
    double const d = 0.85, tol = 1e-6;
    for (bool undirected : {false, true}) {
        auto const a = uniform(1200, 5000, 33, undirected);
        for (auto dangling : {pagerank_dangling::gap, pagerank_dangling::redistribute}) {
            auto const fixed = power_iteration(a, d, 1e-14, 10000,
                                               dangling == pagerank_dangling::redistribute);
            for (int threads : {1, 2, 3}) {
                thread_count tc(threads);
                for (std::size_t rows : {std::size_t(1), std::size_t(7), std::size_t(500),
                                         std::size_t(1) << 20})
                    for (auto c : {pagerank_contributions::as_float,
                                   pagerank_contributions::as_double}) {
                        pagerank_options o;
                        o.tolerance = tol;
                        o.dangling = dangling;
                        o.method = pagerank_method::gauss_seidel;
                        o.symmetric = undirected;
                        o.device = device_choice::cpu;
                        o.contributions = c;
                        o.gauss_seidel_block_rows = rows;
                        explain_trace tr;
                        o.explain = &tr;
                        auto const r = pagerank(a, o);
                        BOOST_TEST_CONTEXT("undirected=" << undirected << " dangling="
                                                         << int(dangling) << " threads=" << threads
                                                         << " rows=" << rows
                                                         << " float=" << (c == pagerank_contributions::as_float)) {
                            BOOST_TEST(r.converged);
                            BOOST_TEST(l1(r.rank, fixed.rank) <= 10 * d / (1 - d) * tol);
                            // ceil(n / rows) blocks of about equal cost (fewer where rows
                            // of one row are asked for: equal cost targets fall on one row).
                            auto const at = tr.str().find(" blocks (gauss_seidel_block_rows " +
                                                          std::to_string(rows) + ")");
                            BOOST_REQUIRE(at != std::string::npos);
                            auto const from = tr.str().rfind("in ", at) + 3;
                            auto const blocks = std::stoul(tr.str().substr(from, at - from));
                            BOOST_TEST(blocks >= 1);
                            BOOST_TEST(blocks <= (1200 + rows - 1) / rows);
                            if (rows > 1) BOOST_TEST(blocks == (1200 + rows - 1) / rows);
                        }
                    }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(schedules) {
    // Blocks split among the threads once (static) or handed out (dynamic): the Jacobi pass's
    // ranks bit for bit the same, on 1-3 threads, float and double contributions; Gauss-Seidel
    // within its bound of the fixed point.
    double const d = 0.85, tol = 1e-6;
    auto const a = uniform(3000, 15000, 34, false);
    auto const fixed = power_iteration(a, d, 1e-14, 10000, false);
    for (auto c : {pagerank_contributions::as_float, pagerank_contributions::as_double}) {
        std::vector<double> first;
        for (int threads : {1, 2, 3}) {
            thread_count tc(threads);
            for (auto schedule : {pagerank_schedule::handed_out, pagerank_schedule::owned,
                                  pagerank_schedule::automatic}) {
                pagerank_options o;
                o.tolerance = tol;
                o.device = device_choice::cpu;
                o.contributions = c;
                o.schedule = schedule;
                o.method = pagerank_method::fused;
                auto const r = pagerank(a, o);
                o.method = pagerank_method::gauss_seidel;
                auto const gs = pagerank(a, o);
                BOOST_TEST_CONTEXT("threads=" << threads << " schedule=" << to_string(schedule) << " float="
                                              << (c == pagerank_contributions::as_float)) {
                    if (first.empty()) first.assign(r.rank.begin(), r.rank.end());
                    BOOST_TEST((r.rank == first));
                    BOOST_TEST(gs.converged);
                    BOOST_TEST(l1(gs.rank, fixed.rank) <= 10 * d / (1 - d) * tol);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(automatic_schedule_follows_a_threads_part) {
    // Owned where a thread's part of the pass (rank, share, row pointer a row; column an entry)
    // is at most pagerank_owned_bytes, handed out beyond; the trace says which and why.
    thread_count tc(1);
    for (std::size_t n : {std::size_t(3000), std::size_t(60000)}) {
        auto const a = uniform(n, 2 * n, 35, false);
        pagerank_options o;
        o.device = device_choice::cpu;
        explain_trace tr;
        o.explain = &tr;
        auto const r = pagerank(a, o);
        std::size_t const ix = sizeof(*a.row_ptr());
        std::size_t const part = n * (8 + 4 + ix) + a.nnz() * ix;
        bool const owned = part <= pagerank_owned_bytes;
        BOOST_TEST_CONTEXT("n=" << n << " part=" << part << "\n" << tr.str()) {
            BOOST_TEST(r.converged);
            BOOST_TEST(tr.str().find(owned ? "blocks owned by the threads" : "blocks handed out") !=
                       std::string::npos);
            BOOST_TEST(tr.str().find("(automatic: a thread's part") != std::string::npos);
        }
    }
}

// pagerank(r, A, options) into one result across graphs of changing sizes (0 vertices among
// them), methods, contributions and dangling rules: every call equals a fresh call bit for bit.
BOOST_AUTO_TEST_CASE(into_a_reused_result) {
    pagerank_result r;
    std::uint64_t seed = 90;
    for (std::size_t n : {300u, 40u, 0u, 1500u, 7u, 1500u}) {
        auto const a = uniform(n, std::min<std::size_t>(4 * n, n * (n ? n - 1 : 0)), seed++,
                               n % 2 == 0);
        for (auto m : {pagerank_method::fused, pagerank_method::semiring})
            for (auto c : {pagerank_contributions::automatic, pagerank_contributions::as_double})
                for (auto dg : {pagerank_dangling::gap, pagerank_dangling::redistribute}) {
                    pagerank_options o;
                    o.device = device_choice::cpu;
                    o.method = m;
                    o.contributions = c;
                    o.dangling = dg;
                    pagerank_result const fresh = pagerank(a, o);
                    pagerank(r, a, o);
                    std::string const what = "n=" + std::to_string(n) + " " + to_string(m);
                    BOOST_TEST((r.rank == fresh.rank), what);
                    BOOST_TEST(r.iterations == fresh.iterations, what);
                    BOOST_TEST(r.change == fresh.change, what);
                    BOOST_TEST(r.converged == fresh.converged, what);
                }
    }
}

// Bad input into a result that holds an earlier answer throws as the fresh call does, and the
// same result then takes a good call whole.
BOOST_AUTO_TEST_CASE(bad_input_into_a_reused_result) {
    auto const a = uniform(200, 900, 5, false);
    pagerank_result r;
    pagerank(r, a, {});
    double const nan = std::numeric_limits<double>::quiet_NaN();
    pagerank_options o;
    o.damping = nan;
    BOOST_CHECK_THROW(pagerank(r, a, o), kleene::invalid_argument);
    o = {};
    o.tolerance = std::numeric_limits<double>::infinity();
    BOOST_CHECK_THROW(pagerank(r, a, o), kleene::invalid_argument);
    BOOST_CHECK_THROW(pagerank(r, csr_matrix<bool>(3, 4), {}), kleene::dimension_mismatch);
    auto const small = uniform(7, 12, 6, true);
    pagerank_options jacobi;  // bit-reproducible (Gauss-Seidel, the default, need not be)
    jacobi.method = pagerank_method::fused;
    pagerank(r, small, jacobi);
    pagerank_result const fresh = pagerank(small, jacobi);
    BOOST_TEST((r.rank == fresh.rank));
    BOOST_TEST(r.iterations == fresh.iterations);
    BOOST_TEST(r.converged == fresh.converged);
}

BOOST_AUTO_TEST_CASE(tolerances) {
    auto const a = uniform(120, 500, 77, false);
    for (double tol : {1e-2, 1e-6, 1e-10})
        check_pagerank(a, false, "tolerance " + std::to_string(tol), tol, 1000);
    check_pagerank(a, false, "not converged in 20 steps", 1e-10, 20);
}

BOOST_AUTO_TEST_CASE(float_contributions_stay_within_their_bound) {
    // Contributions rounded to float (relative error <= u = 2^-24) perturb a step by at most
    // d u |x|_1 <= 2 d u in L1, so the ranks lie within d / (1 - d) (change + 2u) of the fixed
    // point, and under redistribute their sum within d / (1 - d) u of 1. Bit for bit the same on
    // 1-3 threads; the semiring method ignores the option.
    double const d = 0.85, u = std::ldexp(1.0, -24);
    struct named {
        csr_matrix<bool> a;
        bool undirected;
        std::string name;
    };
    std::vector<named> graphs;
    graphs.push_back({kronecker(10, 13, true), true, "kronecker 10 undirected"});
    graphs.push_back({kronecker(10, 14, false), false, "kronecker 10 directed"});
    graphs.push_back({uniform(800, 4000, 15, false), false, "uniform 800 directed"});
    for (auto const& g : graphs)
        for (auto dangling : {pagerank_dangling::gap, pagerank_dangling::redistribute}) {
            bool const redis = dangling == pagerank_dangling::redistribute;
            auto const fixed = power_iteration(g.a, d, 1e-14, 10000, redis);
            for (double tol : {1e-4, 1e-6}) {
                std::vector<double> first;
                for (int threads : {1, 2, 3}) {
                    thread_count tc(threads);
                    for (bool sym : {false, true}) {
                        if (sym && !g.undirected) continue;
                        pagerank_options o;
                        o.tolerance = tol;
                        o.max_iterations = 1000;
                        o.dangling = dangling;
                        o.symmetric = sym;
                        o.device = device_choice::cpu;
                        o.contributions = pagerank_contributions::as_float;
                        o.method = pagerank_method::fused;  // Jacobi: the bound and bit for bit
                        auto const r = pagerank(g.a, o);
                        BOOST_TEST_CONTEXT(g.name << " dangling=" << int(redis) << " tol=" << tol
                                                  << " threads=" << threads
                                                  << " symmetric=" << sym) {
                            BOOST_TEST(r.converged);
                            BOOST_TEST(l1(r.rank, fixed.rank) <=
                                       d / (1 - d) * (r.change + 2 * u) + 1e-12);
                            if (redis) {
                                double s = 0;
                                for (double x : r.rank) s += x;
                                BOOST_TEST(std::abs(s - 1) <= d / (1 - d) * u + 1e-12);
                            }
                            if (first.empty()) first.assign(r.rank.begin(), r.rank.end());
                            BOOST_TEST((r.rank == first));
                        }
                    }
                }
            }
        }
    pagerank_options o;
    o.method = pagerank_method::semiring;
    auto const plain = pagerank(graphs[0].a, o);
    o.contributions = pagerank_contributions::as_float;
    explain_trace tr;
    o.explain = &tr;
    BOOST_TEST((pagerank(graphs[0].a, o).rank == plain.rank));
    BOOST_TEST(tr.str().find("in float") == std::string::npos);
    o.method = pagerank_method::fused;
    pagerank(graphs[0].a, o);
    BOOST_TEST(tr.str().find("contributions held in float (pinned)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(automatic_contributions_follow_the_tolerance) {
    // automatic holds the contributions in float exactly when the tolerance is at least
    // pagerank_float_min_tolerance (the default 1e-4 is): bit for bit the pinned run of that
    // precision, and the trace says which and why.
    auto const a = kronecker(10, 21, true);
    double const t = pagerank_float_min_tolerance;
    BOOST_TEST(pagerank_options{}.tolerance >= t);
    for (double tol : {1e-2, 1e-4, t, std::nextafter(t, 0.0), 1e-6, 1e-10}) {
        bool const in_float = tol >= t;
        pagerank_options o;
        o.tolerance = tol;
        o.max_iterations = 1000;
        o.device = device_choice::cpu;
        o.method = pagerank_method::fused;  // bit-reproducible, so the runs compare bit for bit
        explain_trace tr;
        o.explain = &tr;
        auto const automatic = pagerank(a, o);
        o.explain = nullptr;
        o.contributions = in_float ? pagerank_contributions::as_float
                                   : pagerank_contributions::as_double;
        auto const pinned = pagerank(a, o);
        o.contributions = in_float ? pagerank_contributions::as_double
                                   : pagerank_contributions::as_float;
        auto const other = pagerank(a, o);
        BOOST_TEST_CONTEXT("tolerance " << tol) {
            BOOST_TEST((automatic.rank == pinned.rank));
            BOOST_TEST((automatic.rank != other.rank));  // the choice is visible in the ranks
            BOOST_TEST(tr.str().find(in_float ? "contributions held in float (automatic"
                                              : "contributions held in double (automatic") !=
                       std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(self_loops_and_duplicates_and_isolated_vertices) {
    // Self-loops count as out-edges; duplicate input edges are one edge; vertices 6, 7 isolated.
    std::vector<std::int32_t> ii{0, 0, 0, 1, 1, 2, 3, 3, 4, 5, 5, 5};
    std::vector<std::int32_t> jj{1, 1, 0, 2, 2, 0, 3, 4, 3, 5, 0, 0};
    auto const a = from_edges(8, ii, jj);
    BOOST_TEST(a.nnz() == 9u);
    check_pagerank(a, false, "self-loops, duplicates, isolated");
    auto const loops = uniform(90, 300, 5, false, true);
    check_pagerank(loops, false, "uniform with self-loops");
}

BOOST_AUTO_TEST_CASE(disconnected_graphs) {
    // Two directed cycles of different lengths and a path: no dangling vertex but the path's end.
    std::vector<std::int32_t> ii{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::vector<std::int32_t> jj{1, 2, 0, 4, 5, 6, 3, 8, 9, 10};
    auto const a = from_edges(11, ii, jj);
    check_pagerank(a, false, "two cycles and a path");
    auto const b = uniform(200, 120, 9, true);  // sparse: many components
    check_pagerank(b, true, "sparse undirected");
}

BOOST_AUTO_TEST_CASE(directed_cycle_is_uniform) {
    for (std::size_t n : {1u, 2u, 5u, 33u}) {
        std::vector<std::int32_t> ii, jj;
        for (std::size_t v = 0; v < n; ++v) {
            ii.push_back(static_cast<std::int32_t>(v));
            jj.push_back(static_cast<std::int32_t>((v + 1) % n));
        }
        auto const a = from_edges(n, ii, jj);
        for (auto method : {pagerank_method::semiring, pagerank_method::fused})
            for (auto c : {pagerank_contributions::as_double, pagerank_contributions::automatic}) {
                pagerank_options o;
                o.method = method;
                o.contributions = c;
                auto const r = pagerank(a, o);
                // automatic: float contributions for the fused pass at the default tolerance,
                // 1/n rounded once to float (relative error <= 2^-24) and multiplied by d.
                bool const rounded = method == pagerank_method::fused &&
                                     c == pagerank_contributions::automatic;
                double const bound = rounded ? std::ldexp(1.0, -24) / double(n) : 1e-15;
                BOOST_TEST_CONTEXT("n=" << n << " " << to_string(method) << " rounded "
                                        << rounded) {
                    BOOST_TEST(r.iterations == 1);
                    BOOST_TEST(r.converged);
                    for (double x : r.rank) BOOST_TEST(std::abs(x - 1.0 / double(n)) <= bound);
                }
            }
    }
}

BOOST_AUTO_TEST_CASE(one_and_zero_vertices) {
    csr_matrix<bool> const one(1, 1);
    pagerank_options o;
    auto r = pagerank(one, o);  // GAP: the rank of the lone dangling vertex is lost
    BOOST_REQUIRE_EQUAL(r.rank.size(), 1u);
    BOOST_TEST(std::abs(r.rank[0] - 0.15) <= 1e-15);
    BOOST_TEST(r.iterations == 2);  // 1 -> 0.15 (change 0.85), then 0.15 again
    o.dangling = pagerank_dangling::redistribute;
    r = pagerank(one, o);
    BOOST_TEST(std::abs(r.rank[0] - 1.0) <= 1e-15);
    BOOST_TEST(r.iterations == 1);
    auto const loop = from_edges(1, {0}, {0});
    for (auto dangling : {pagerank_dangling::gap, pagerank_dangling::redistribute}) {
        o.dangling = dangling;
        r = pagerank(loop, o);
        BOOST_TEST(std::abs(r.rank[0] - 1.0) <= 1e-15);
    }

    csr_matrix<bool> const empty(0, 0);
    for (auto method : {pagerank_method::semiring, pagerank_method::fused}) {
        o.method = method;
        r = pagerank(empty, o);
        BOOST_TEST(r.rank.empty());
        BOOST_TEST(r.iterations == 0);
        BOOST_TEST(r.converged);
    }
}

BOOST_AUTO_TEST_CASE(isolated_vertices_keep_the_teleport_share) {
    // No edges at all: every vertex dangling. GAP: (1 - d)/n each; redistribute: 1/n each.
    csr_matrix<bool> const a(10, 10);
    pagerank_options o;
    auto r = pagerank(a, o);
    for (double x : r.rank) BOOST_TEST(std::abs(x - 0.015) <= 1e-15);
    o.dangling = pagerank_dangling::redistribute;
    r = pagerank(a, o);
    for (double x : r.rank) BOOST_TEST(std::abs(x - 0.1) <= 1e-15);
}

BOOST_AUTO_TEST_CASE(max_iterations_stops_early) {
    auto const a = uniform(100, 400, 21, false);
    pagerank_options o;
    o.tolerance = 1e-12;
    o.max_iterations = 3;
    o.method = pagerank_method::fused;  // the power iteration's steps
    auto const r = pagerank(a, o);
    auto const ref = power_iteration(a, 0.85, 1e-12, 3, false);
    BOOST_TEST(r.iterations == 3);
    BOOST_TEST(!r.converged);
    BOOST_TEST(std::abs(r.change - ref.change) <= 1e-12);
    for (std::size_t v = 0; v < a.rows(); ++v)
        BOOST_TEST(std::abs(r.rank[v] - ref.rank[v]) <= 1e-13);
}

BOOST_AUTO_TEST_CASE(other_types) {
    // Values are ignored: a weighted float matrix with int64 indices ranks as its structure.
    uniform_options u;
    u.vertices = 80;
    u.edges = 300;
    u.seed = 4;
    u.weights = weight_range(0.0, 0.0);  // zero weights are still edges
    auto const w = uniform_graph<float, std::int64_t>(u);
    check_pagerank(w, false, "float int64");
}

BOOST_AUTO_TEST_CASE(explain_names_the_method) {
    auto const a = uniform(50, 200, 8, false);
    for (auto method : {pagerank_method::automatic, pagerank_method::semiring,
                        pagerank_method::fused, pagerank_method::gauss_seidel}) {
        explain_trace tr;
        pagerank_options o;
        o.method = method;
        o.explain = &tr;
        pagerank(a, o);
        auto const s = tr.str();
        BOOST_TEST_CONTEXT(s) {
            bool const named =
                s.find(method == pagerank_method::semiring ? "method semiring (pinned)"
                       : method == pagerank_method::fused  ? "method fused (pinned)"
                       : method == pagerank_method::gauss_seidel
                           ? "method gauss-seidel (pinned)"
                           : "method gauss-seidel (automatic on the CPU") != std::string::npos;
            BOOST_TEST(named);
            BOOST_TEST(s.find("dangling gap") != std::string::npos);
            BOOST_TEST(s.find(": cpu") != std::string::npos);
            BOOST_TEST(s.find("steps, change") != std::string::npos);
            if (method == pagerank_method::semiring)
                BOOST_TEST(s.find("mxv: ") != std::string::npos);  // kleene's own product ran
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws) {
    auto const a = uniform(10, 20, 1, false);
    auto bad = [&](auto change) {
        pagerank_options o;
        change(o);
        BOOST_CHECK_THROW(pagerank(a, o), kleene::invalid_argument);
    };
    double const nan = std::numeric_limits<double>::quiet_NaN();
    double const inf = std::numeric_limits<double>::infinity();
    bad([](pagerank_options& o) { o.damping = -0.1; });
    bad([](pagerank_options& o) { o.damping = 1.0; });
    bad([&](pagerank_options& o) { o.damping = nan; });
    bad([](pagerank_options& o) { o.tolerance = 0; });
    bad([](pagerank_options& o) { o.tolerance = -1e-4; });
    bad([&](pagerank_options& o) { o.tolerance = nan; });
    bad([&](pagerank_options& o) { o.tolerance = inf; });
    bad([](pagerank_options& o) { o.max_iterations = 0; });
    csr_matrix<bool> const rect(3, 4);
    BOOST_CHECK_THROW(pagerank(rect, {}), kleene::dimension_mismatch);
    pagerank_options ok;
    ok.damping = 0;  // the boundary is allowed: every rank 1/n
    auto const r = pagerank(a, ok);
    for (double x : r.rank) BOOST_TEST(std::abs(x - 0.1) <= 1e-15);
}

/// A w x h grid, undirected, numbered row by row: a road network's slow mixing (its Gauss-Seidel
/// changes shrink by about d^2 a step for many steps).
csr_matrix<bool> grid(std::int32_t w, std::int32_t h) {
    std::vector<std::int32_t> ii, jj;
    auto edge = [&](std::int32_t u, std::int32_t v) {
        ii.push_back(u), jj.push_back(v), ii.push_back(v), jj.push_back(u);
    };
    for (std::int32_t y = 0; y < h; ++y)
        for (std::int32_t x = 0; x < w; ++x) {
            if (x + 1 < w) edge(y * w + x, y * w + x + 1);
            if (y + 1 < h) edge(y * w + x, (y + 1) * w + x);
        }
    return from_edges(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), ii, jj);
}

BOOST_AUTO_TEST_CASE(over_relaxation_takes_fewer_steps_to_the_same_fixed_point) {
    // On slowly mixing graphs the automatic rule over-relaxes the Gauss-Seidel pass once its
    // changes shrink slowly: fewer steps than GAP's plain pass, and the ranks at least as close to
    // the fixed point (the fused Jacobi iteration run to 1e-13; it is checked against the dense
    // reference above). Pinned weights run from the first step (on the directed graph they cost:
    // 41-67 steps against 17, hence automatic's symmetric pulls only). To 1e-6: these graphs are small,
    // their slow phase is longer at a tighter tolerance.
    double const d = 0.85, tol = 1e-6;
    for (auto const& [name, a, sym] :
         {std::tuple{std::string("grid 60x40"), grid(60, 40), true},
          std::tuple{std::string("grid 200x8"), grid(200, 8), true},
          // A star: bipartite, its first relaxed change 1.08 times the last plain one (the rule
          // must not give up on it), then 0.31 a step.
          std::tuple{std::string("star of 5"), from_edges(6, {0, 0, 0, 0, 0, 1, 2, 3, 4, 5},
                                                          {1, 2, 3, 4, 5, 0, 0, 0, 0, 0}),
                     true},
          std::tuple{std::string("directed uniform n=3000 m=4500"), uniform(3000, 4500, 77, false),
                     false}}) {
        pagerank_options fo;
        fo.method = pagerank_method::fused;
        fo.tolerance = 1e-13;
        fo.max_iterations = 10000;
        fo.contributions = pagerank_contributions::as_double;
        auto const fixed = pagerank(a, fo);
        BOOST_REQUIRE(fixed.converged);
        for (int threads : {1, 2, 3}) {
            thread_count tc(threads);
            bool const symmetric = sym;
            auto run = [&](double relaxation, explain_trace* tr = nullptr, int promise = -1) {
                pagerank_options o;
                o.method = pagerank_method::gauss_seidel;
                o.tolerance = tol;
                o.symmetric = promise < 0 ? symmetric : promise != 0;
                o.relaxation = relaxation;
                o.explain = tr;
                return pagerank(a, o);
            };
            explain_trace tr;
            auto const plain = run(1), automatic = run(0, &tr), pinned = run(1.2);
            BOOST_TEST_MESSAGE(name << " threads=" << threads << ": steps plain "
                                    << plain.iterations << ", automatic " << automatic.iterations
                                    << " (from " << automatic.relaxed_from << "), pinned 1.2 "
                                    << pinned.iterations);
            BOOST_TEST_CONTEXT(name << " threads=" << threads << " steps plain "
                                    << plain.iterations << ", automatic " << automatic.iterations
                                    << " (relaxed from " << automatic.relaxed_from
                                    << "), pinned " << pinned.iterations << "; L1 from the fixed "
                                    << "point " << l1(plain.rank, fixed.rank) << ", "
                                    << l1(automatic.rank, fixed.rank) << ", "
                                    << l1(pinned.rank, fixed.rank) << "\n"
                                    << tr.str()) {
                BOOST_TEST(plain.converged);
                BOOST_TEST(automatic.converged);
                BOOST_TEST(pinned.converged);
                BOOST_TEST(plain.relaxed_from == 0);
                BOOST_TEST(plain.relaxation == 1.0);
                BOOST_TEST(pinned.relaxed_from == 1);
                BOOST_TEST(pinned.relaxation == 1.2);
                if (!sym) {  // automatic relaxes symmetric pulls only
                    BOOST_TEST(automatic.relaxed_from == 0);
                    // the same pass; on several threads which reads see new values varies
                    if (threads == 1) BOOST_TEST(automatic.iterations == plain.iterations);
                    BOOST_TEST(std::abs(automatic.iterations - plain.iterations) <= 2);
                    BOOST_TEST(tr.str().find("no over-relaxation (automatic: A is not "
                                             "symmetric") != std::string::npos);
                } else {  // slow mixing: the rule takes over, and pays
                    BOOST_TEST(automatic.relaxed_from >= 4);
                    BOOST_TEST(automatic.relaxation == pagerank_sor_weight(d));
                    BOOST_TEST(automatic.iterations + 3 <= plain.iterations);
                    // Not promised: found symmetric, the same rule (a file's header must not
                    // change the answer).
                    explain_trace tr2;
                    auto const found = run(0, &tr2, 0);
                    BOOST_TEST(found.relaxed_from >= 4);
                    if (threads == 1) {  // one thread: deterministic, the same run
                        BOOST_TEST(found.relaxed_from == automatic.relaxed_from);
                        BOOST_TEST((found.rank == automatic.rank));
                    }
                    BOOST_TEST(tr2.str().find("A' made equals A (symmetric)") != std::string::npos);
                    BOOST_TEST(tr.str().find("over-relaxed from step " +
                                             std::to_string(automatic.relaxed_from) + ", w = 1.31") !=
                               std::string::npos);
                }
                double const bound = d / (1 - d) * tol;
                BOOST_TEST(l1(plain.rank, fixed.rank) <= 2 * bound);
                BOOST_TEST(l1(automatic.rank, fixed.rank) <= bound);
                BOOST_TEST(l1(pinned.rank, fixed.rank) <= bound);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(relaxation_out_of_range_or_off_its_pass_throws) {
    auto const a = grid(10, 10);
    double const nan = std::numeric_limits<double>::quiet_NaN();
    for (double w : {-1.0, 0.5, 0.999, 2.0, 3.0, nan, std::numeric_limits<double>::infinity()}) {
        pagerank_options o;
        o.relaxation = w;
        BOOST_CHECK_THROW(pagerank(a, o), kleene::invalid_argument);
    }
    // A pinned weight on a pass that has none: an error, not a silent plain run.
    for (auto method : {pagerank_method::fused, pagerank_method::semiring}) {
        pagerank_options o;
        o.method = method;
        o.relaxation = 1.3;
        BOOST_CHECK_THROW(pagerank(a, o), kleene::invalid_argument);
        o.relaxation = 1;  // none asked: fine
        BOOST_TEST(pagerank(a, o).converged);
    }
    pagerank_options o;
    o.relaxation = 1.999;
    o.max_iterations = 5;
    auto const r = pagerank(a, o);  // runs; may not converge in 5 steps
    BOOST_TEST(r.iterations <= 5);
    BOOST_TEST(r.relaxation == 1.999);
}

BOOST_AUTO_TEST_CASE(gpu_without_a_device_throws) {
    // This build machine has no GPU: device=gpu must say so, never run on the CPU instead.
    if (cuda::device_count() > 0) return;
    auto const a = uniform(10, 20, 1, false);
    pagerank_options o;
    o.device = device_choice::gpu;
    BOOST_CHECK_THROW(pagerank(a, o), kleene::no_device);
    o.device = device_choice::automatic;
    o.gpu_min_edges = 0;  // automatic with no device stays on the CPU
    BOOST_TEST((pagerank(a, o).device == device_choice::cpu));
}

BOOST_AUTO_TEST_CASE(gpu_matches_cpu) {
    // Runs where there is a GPU (the cuda::pagerank kernels): host graphs pinned to the GPU and
    // device graphs, against the CPU. Both are within d/(1-d) * tol of the fixed point in L1.
    if (cuda::device_count() == 0) {
        BOOST_TEST_MESSAGE("gpu_matches_cpu: no GPU here, nothing to compare");
        return;
    }
    for (bool undirected : {false, true}) {
        auto const a = kronecker(12, 17, undirected);
        auto const ad = a.to_device();
        for (auto dangling : {pagerank_dangling::gap, pagerank_dangling::redistribute})
            for (auto method : {pagerank_method::semiring, pagerank_method::fused}) {
                pagerank_options o;
                o.dangling = dangling;
                o.method = method;
                o.symmetric = undirected;
                o.device = device_choice::cpu;
                auto const cpu = pagerank(a, o);
                o.device = device_choice::gpu;
                auto const host_gpu = pagerank(a, o);
                o.device = device_choice::automatic;
                auto const dev = pagerank(ad, o);
                BOOST_TEST_CONTEXT("undirected=" << undirected << " dangling=" << int(dangling)
                                                 << " " << to_string(method)) {
                    for (auto const* r : {&host_gpu, &dev}) {
                        BOOST_TEST((r->device == device_choice::gpu));
                        BOOST_REQUIRE_EQUAL(r->rank.size(), a.rows());
                        BOOST_TEST(r->converged);
                        BOOST_TEST(l1(r->rank, cpu.rank) <= 2 * 0.85 / 0.15 * 1e-4);
                    }
                }
            }
    }
}

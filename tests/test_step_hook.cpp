// The step hook (options.hpp) of the CPU searches that poll it between rounds outside their
// parallel regions: delta-stepping SSSP (which leaves its parallel region to call it) and
// Johnson's APSP (Bellman-Ford rounds, batches of sources). A hook that counts must not change
// the result (checked against the same call without a hook and against Bellman-Ford); a hook that
// throws stops the call, and is not called again.

#define BOOST_TEST_MODULE step_hook
#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/context.hpp>

#include <omp.h>

#include <cctype>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace kleene;

struct stop_request : std::runtime_error {
    stop_request() : std::runtime_error("stop") {}
};

/// A hook that counts its calls and throws on call number `throw_at` (0: never).
struct counting_hook {
    std::size_t calls = 0;
    std::size_t throw_at = 0;
    step_hook hook() {
        return [this] {
            ++calls;
            if (calls == throw_at) throw stop_request();
        };
    }
};

/// 0 -> 1 -> ... -> n-1 with weight 1: with delta 1 every vertex is a bucket of its own, so
/// delta-stepping runs n rounds (many more than its 256 rounds between polls).
csr_matrix<double> chain(std::size_t n) {
    std::vector<std::int32_t> i(n - 1), j(n - 1);
    std::iota(i.begin(), i.end(), 0);
    std::iota(j.begin(), j.end(), 1);
    std::vector<double> w(n - 1, 1.0);
    return csr_matrix<double>::from_coo(n, n, i, j, w);
}

csr_matrix<float> random_weighted(std::size_t n, std::size_t m, std::uint64_t seed) {
    uniform_options o;
    o.vertices = n;
    o.edges = m;
    o.seed = seed;
    o.weights = weight_range(1, 50);
    return uniform_graph<float>(o);
}

/// The rounds delta-stepping reports in the explain trace ("N rounds on T threads").
std::size_t rounds_of(explain_trace const& why) {
    std::string const s = why.str();
    auto const end = s.find(" rounds on ");
    if (end == std::string::npos) return 0;
    auto begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(s[begin - 1]))) --begin;
    return std::stoul(s.substr(begin, end - begin));
}

sssp_options delta_stepping(double delta) {
    sssp_options o;
    o.device = device_choice::cpu;
    o.method = sssp_method::delta_stepping;
    o.delta = delta;
    return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(delta_stepping_polls_between_rounds) {
    std::size_t const n = 3000;
    auto const a = chain(n);
    counting_hook h;
    auto o = delta_stepping(1.0);
    o.on_step = h.hook();
    auto const r = sssp(a, 0, o);
    // Once before the first round, then at least every 256 rounds.
    BOOST_TEST(h.calls >= 1 + n / 256);
    std::size_t bad = 0;
    for (std::size_t v = 0; v < n; ++v) bad += r.dist[v] != double(v);
    BOOST_TEST(bad == 0u);
}

BOOST_AUTO_TEST_CASE(delta_stepping_with_a_hook_equals_bellman_ford) {
    // Enough edges for two or more threads in delta-stepping (one per 32768 edges), and a narrow
    // bucket width for many rounds: the threads leave and enter the parallel region many times
    // (delta 0.01: weights up to 50 reach past the ring of 1024 buckets, into the far map).
    auto const a = random_weighted(20000, 120000, 7);
    sssp_options bf;
    bf.device = device_choice::cpu;
    bf.method = sssp_method::bellman_ford;
    auto const want = sssp(a, 3, bf).dist;
    for (double delta : {0.01, 0.1}) {
        counting_hook h;
        explain_trace why;
        auto o = delta_stepping(delta);
        o.on_step = h.hook();
        o.explain = &why;
        auto const got = sssp(a, 3, o).dist;
        auto const plain = sssp(a, 3, delta_stepping(delta)).dist;
        BOOST_TEST_CONTEXT("delta " << delta << ", " << h.calls << " hook calls, " << why.str()) {
            std::size_t const rounds = rounds_of(why);
            BOOST_TEST(rounds > 600u);  // the hook is called between rounds several times
            BOOST_TEST(h.calls >= 1 + rounds / 256);
            BOOST_TEST(got == want);
            BOOST_TEST(plain == want);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_throwing_hook_stops_delta_stepping) {
    auto const a = chain(3000);
    for (std::size_t k : {1u, 3u}) {
        counting_hook h;
        h.throw_at = k;
        auto o = delta_stepping(1.0);
        o.on_step = h.hook();
        BOOST_TEST_CONTEXT("throw at call " << k) {
            BOOST_CHECK_THROW(sssp(a, 0, o), stop_request);
            BOOST_TEST(h.calls == k);
        }
    }
}

BOOST_AUTO_TEST_CASE(johnson_polls_and_stops) {
    auto const a = random_weighted(700, 5000, 11);
    apsp_options o;
    o.device = device_choice::cpu;
    o.algorithm = apsp_algorithm::johnson;
    auto const want = apsp(a, o).dist;

    counting_hook h;
    o.on_step = h.hook();
    auto const got = apsp(a, o).dist;
    // Bellman-Ford rounds (at least one) and one call per batch of 32 sources per thread.
    std::size_t const batch = 32 * static_cast<std::size_t>(omp_get_max_threads());
    std::size_t const batches = (a.rows() + batch - 1) / batch;
    BOOST_TEST(h.calls >= 1 + batches);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t j = 0; j < a.cols(); ++j) bad += got(i, j) != want(i, j);
    BOOST_TEST(bad == 0u);

    // Stopped in Bellman-Ford (first call) and at the last batch.
    for (std::size_t k : {std::size_t(1), h.calls}) {
        counting_hook s;
        s.throw_at = k;
        o.on_step = s.hook();
        BOOST_TEST_CONTEXT("throw at call " << k) {
            BOOST_CHECK_THROW(apsp(a, o), stop_request);
            BOOST_TEST(s.calls == k);
        }
    }
}

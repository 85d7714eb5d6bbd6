// GPU predecessors (cuda::predecessors) against the rules a predecessor matrix must meet, on random
// graphs with negative edges and zero-weight cycles: pred(s,v) is -1 exactly for v == s and the
// unreachable v; otherwise (pred(s,v), v) is an edge with d(s,u) + w == d(s,v), and the path that
// kleene::path rebuilds ends, is made of edges, and has the reported length. fp32, fp64, int32.

#define BOOST_TEST_MODULE paths_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/apsp_reference.hpp"
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/cuda/paths.hpp>
#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/convert.hpp>
#include <kleene/cuda/runtime.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

using namespace kleene;

using kleene::test::have_gpu;
using kleene::test::needs;

template <class T>
csr_matrix<T> random_graph(std::size_t n, double p, std::uint64_t seed) {
    return kleene::test::potential_graph<T>(n, p, seed);
}

template <class T>
void check_predecessors(csr_matrix<T> const& a, dense_matrix<T> const& d,
                        dense_matrix<std::int32_t> const& pred) {
    std::size_t const n = a.rows();
    std::map<std::pair<std::size_t, std::size_t>, T> w;
    for (std::size_t u = 0; u < n; ++u)
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) w[{u, std::size_t(a.col_idx()[k])}] = a.value(k);
    std::size_t bad = 0;
    for (std::size_t s = 0; s < n; ++s)
        for (std::size_t v = 0; v < n; ++v) {
            bool const none = v == s || d(s, v) == infinity<T>();
            if (none) {
                bad += pred(s, v) != -1;
                continue;
            }
            auto const p = path(dense_view<std::int32_t const>(pred.view()), s, v);
            if (p.size() < 2 || std::size_t(p.front()) != s || std::size_t(p.back()) != v) {
                ++bad;
                continue;
            }
            double len = 0;
            for (std::size_t q = 1; q < p.size(); ++q) {
                auto it = w.find({std::size_t(p[q - 1]), std::size_t(p[q])});
                if (it == w.end()) {
                    ++bad;
                    break;
                }
                len += double(it->second);
            }
            bad += std::abs(len - double(d(s, v))) > 1e-3 * (1 + std::abs(double(d(s, v))));
        }
    BOOST_TEST(bad == 0u);
}

template <class T>
void run_case(std::size_t n, double p, std::uint64_t seed) {
    auto const a = random_graph<T>(n, p, seed);
    dense_matrix<T> d = to_dense(a, infinity<T>());
    for (std::size_t i = 0; i < n; ++i) d(i, i) = std::min(d(i, i), T(0));
    floyd_warshall(d.view());
    auto const ad = a.to_device();
    auto const dd = d.to_device();
    dense_matrix<std::int32_t, device> pd(n, n);
    cuda::predecessors<T>(ad, dense_view<T const, device>(dd.view()), pd.view());
    auto const pred = pd.to_host();
    check_predecessors(a, d, pred);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(small)

BOOST_AUTO_TEST_CASE(tiny_graphs) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {1, 2, 3, 7}) {
        run_case<float>(n, 0.5, n);
        run_case<std::int32_t>(n, 0.5, n + 100);
    }
}

BOOST_AUTO_TEST_CASE(sparse_and_dense) {
    if (!have_gpu(needs::minimal)) return;
    run_case<float>(61, 0.05, 1);    // disconnected parts
    run_case<double>(97, 0.2, 2);
    run_case<std::int32_t>(64, 0.1, 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(larger) {
    if (!have_gpu(needs::minimal)) return;
    run_case<float>(301, 0.02, 4);
    run_case<std::int32_t>(513, 0.01, 5);
    run_case<double>(257, 0.05, 6);
}

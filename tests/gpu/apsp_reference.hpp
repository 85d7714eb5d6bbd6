#pragma once
// The APSP reference and comparison shared by the GPU APSP suites (test_apsp_gpu,
// test_apsp_batched_gpu, test_paths_gpu, test_graph_object_gpu): plain Floyd-Warshall on the host,
// an entry-by-entry comparison (floating-point entries within 1e-4 relative), and random graphs
// with negative edges but no negative cycle.

#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/convert.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>
#include <cmath>
#include <cstddef>
#include <type_traits>

namespace kleene::test {

/// Edge probability p, weights w0(u,v) + pot(u) - pot(v) with pot in [0, pot_max) and w0 in
/// [0, w_max] (zero-weight edges and cycles occur): negative edges, no negative cycle. `cycle`
/// adds a negative cycle 0 -> 1 -> 2 -> 0 when n >= 3.
template <class T>
csr_matrix<T> potential_graph(std::size_t n, double p, std::uint64_t seed, int pot_max = 10,
                              int w_max = 20, bool cycle = false) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<int> pot(n);
    for (auto& x : pot) x = static_cast<int>(rng() % static_cast<unsigned>(pot_max));
    std::vector<std::int32_t> ii, jj;
    std::vector<T> vv;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j && u(rng) < p) {
                ii.push_back(static_cast<std::int32_t>(i));
                jj.push_back(static_cast<std::int32_t>(j));
                vv.push_back(
                    T(static_cast<int>(rng() % static_cast<unsigned>(w_max + 1)) + pot[i] - pot[j]));
            }
    if (cycle && n >= 3)
        for (std::size_t k = 0; k < 3; ++k) {
            ii.push_back(static_cast<std::int32_t>(k));
            jj.push_back(static_cast<std::int32_t>((k + 1) % 3));
            vv.push_back(T(-5));
        }
    return csr_matrix<T>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
}

/// All-pairs distances of a by plain Floyd-Warshall: +inf where no path, min(a(i,i), 0) to start.
template <class T, class Index>
dense_matrix<T> reference(csr_matrix<T, Index> const& a) {
    dense_matrix<T> d = to_dense(a, infinity<T>());
    for (std::size_t i = 0; i < d.rows(); ++i) d(i, i) = std::min(d(i, i), T(0));
    floyd_warshall(d.view());
    return d;
}

template <class T>
void check_equal(dense_matrix<T> const& got, dense_matrix<T> const& want) {
    BOOST_TEST_REQUIRE(got.rows() == want.rows());
    BOOST_TEST_REQUIRE(got.cols() == want.cols());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.rows(); ++i)
        for (std::size_t j = 0; j < want.cols(); ++j) {
            T const g = got(i, j), w = want(i, j);
            bool ok = g == w;
            if constexpr (std::is_floating_point_v<T>)
                ok = ok || std::abs(double(g) - double(w)) <= 1e-4 * (1 + std::abs(double(w)));
            if (!ok && bad++ < 3)
                BOOST_TEST_MESSAGE("(" << i << "," << j << "): " << g << " vs " << w);
        }
    BOOST_TEST(bad == 0u);
}

}  // namespace kleene::test

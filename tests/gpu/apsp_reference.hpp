#pragma once
// The APSP reference and comparison shared by the GPU APSP suites (test_apsp_gpu,
// test_apsp_batched_gpu): plain Floyd-Warshall on the host, and an entry-by-entry comparison
// (floating-point entries within 1e-4 relative).

#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/convert.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

namespace kleene::test {

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

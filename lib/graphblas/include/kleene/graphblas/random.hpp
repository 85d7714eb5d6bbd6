#pragma once
// Random operands for comparisons against the oracle (the tests, the benchmark, `kleene compare`).
// Values are small and positive (1..9 for integers, [0.5, 4) for floating point, true for
// bool): integer sums stay far from overflow and from kleene's infinity sentinels, where
// GraphBLAS's wrapping arithmetic and kleene's saturating arithmetic would disagree.

#include <cstddef>
#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/vector.hpp>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

namespace kleene::graphblas {

template <class T>
T random_value(std::mt19937_64& g) {
    // Never false for bool: false is the zero of lor_land, and kleene drops zero-valued results
    // that pass through a dense temporary (see tests/test_mxm_graphblas.cpp).
    if constexpr (std::is_same_v<T, bool>)
        return (void)g, true;
    else if constexpr (std::is_floating_point_v<T>)
        return std::uniform_real_distribution<T>(0.5, 4)(g);
    else
        return std::uniform_int_distribution<T>(1, 9)(g);
}

/// A rows x cols matrix where each entry is present with probability `density`; with `holes`,
/// every 5th row (from 3) and every 7th column (from 2) stay empty.
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> random_csr(std::size_t rows, std::size_t cols, double density,
                                std::mt19937_64& g, bool holes = false) {
    buffer<Index> ptr(rows + 1);
    std::vector<Index> idx;
    std::vector<T> vals;  // (bool: copied into a buffer below)
    std::bernoulli_distribution keep(density);
    ptr[0] = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < cols; ++j) {
            if ((holes && (i % 5 == 3 || j % 7 == 2)) || !keep(g)) continue;
            idx.push_back(static_cast<Index>(j));
            vals.push_back(random_value<T>(g));
        }
        ptr[i + 1] = static_cast<Index>(idx.size());
    }
    buffer<Index> ci(idx.size());
    buffer<T> cv(idx.size());
    std::copy(idx.begin(), idx.end(), ci.data());
    std::copy(vals.begin(), vals.end(), cv.data());
    return {rows, cols, std::move(ptr), std::move(ci), std::move(cv), T(1), true};
}

/// A random mask: about 40% of the entries stored, a third of those holding zero (so a valued and
/// a structural mask differ).
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> random_mask(std::size_t rows, std::size_t cols, std::mt19937_64& g) {
    auto m = random_csr<T, Index>(rows, cols, 0.4, g);
    std::bernoulli_distribution zero(0.33);
    for (std::size_t k = 0; k < m.nnz(); ++k)
        if (zero(g)) m.values()[k] = T(0);
    return m;
}

template <class T, index_type Index = std::int32_t>
sparse_vector<T, Index> random_sparse_vector(std::size_t n, double density, std::mt19937_64& g) {
    std::vector<Index> idx;
    std::vector<T> vals;
    std::bernoulli_distribution keep(density);
    for (std::size_t i = 0; i < n; ++i)
        if (keep(g)) {
            idx.push_back(static_cast<Index>(i));
            vals.push_back(random_value<T>(g));
        }
    buffer<Index> bi(idx.size());
    buffer<T> bv(idx.size());
    std::copy(idx.begin(), idx.end(), bi.data());
    std::copy(vals.begin(), vals.end(), bv.data());
    return {n, std::move(bi), std::move(bv)};
}

}  // namespace kleene::graphblas

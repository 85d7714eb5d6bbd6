#pragma once
// Helpers the APSP benchmarks share: a checked CUDA call that ends the benchmark, and the dense
// random graph they time (integer weights in [1, 100], so fp32 sums are exact and every
// algorithm's result is comparable entry by entry; 0 on the diagonal).

#include <kleene/dense_matrix.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace kleene::bench {

inline void check(cudaError_t e, char const* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}

inline std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/// Fills the square a with the dense random graph of `seed` (rows in parallel).
template <class T>
void fill_random_dense(dense_matrix<T>& a, std::uint64_t seed) {
    std::size_t const n = a.rows();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            a(i, j) = i == j ? T(0) : T(1 + static_cast<int>(mix(seed ^ (i * n + j)) % 100));
}

}  // namespace kleene::bench

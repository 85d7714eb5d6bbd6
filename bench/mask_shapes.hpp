#pragma once
// The dense masks of the sampled-GEMM benchmarks (bench_dense_gemm --masked on the CPU,
// bench/gpu/bench_gemm_gpu --masked on the GPU): which entries (i, j) of an n x n C each allows.

#include <cstddef>

namespace kleene::bench {

struct mask_shape {
    char const* name;
    bool (*allow)(std::size_t i, std::size_t j);
};

inline constexpr mask_shape mask_shapes[] = {
    {"full", [](std::size_t, std::size_t) { return true; }},
    {"lower triangle", [](std::size_t i, std::size_t j) { return j <= i; }},
    {"band of 512", [](std::size_t i, std::size_t j) { return (i > j ? i - j : j - i) < 256; }},
    {"diagonal blocks of 1024",
     [](std::size_t i, std::size_t j) { return i / 1024 == j / 1024; }},
};

}  // namespace kleene::bench

#pragma once
// The semiring x type pairs for which lib/cuda instantiates dense_gemm.
// X(semiring template, value type). lor_land over bool and uint8 are explicit specialisations
// (dense_gemm.hpp) and are not listed.

#include <cstdint>

#define KLEENE_GEMM_NUMERIC_SEMIRINGS(X, T)                                                        \
    X(plus_times, T) X(min_plus, T) X(max_plus, T) X(max_min, T) X(min_max, T) X(lor_land, T)     \
    X(any_pair, T) X(plus_pair, T) X(min_first, T) X(min_second, T) X(plus_min, T) X(max_times, T)

#define KLEENE_GEMM_INSTANCES(X)                                                                   \
    KLEENE_GEMM_NUMERIC_SEMIRINGS(X, float)                                                        \
    KLEENE_GEMM_NUMERIC_SEMIRINGS(X, double)                                                       \
    KLEENE_GEMM_NUMERIC_SEMIRINGS(X, std::int32_t)                                                 \
    KLEENE_GEMM_NUMERIC_SEMIRINGS(X, std::int64_t)                                                 \
    X(any_pair, bool) X(any_pair, std::uint8_t)

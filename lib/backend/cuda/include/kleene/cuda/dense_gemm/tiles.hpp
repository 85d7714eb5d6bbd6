#pragma once
// The dense GEMM's tile constants that host and device code share (dense_gemm.hpp sizes scratch
// with them, policies.cuh and kernels.cuh tile with them). No other include: NVRTC compiles the
// kernels too (the JIT, kleene/cuda/jit.hpp).

#include <cstddef>

namespace kleene::cuda::gemm_detail {
inline constexpr int staged_k = 32;  // k depth of a pipeline stage
inline constexpr std::size_t pack_block_m = 128;
}  // namespace kleene::cuda::gemm_detail

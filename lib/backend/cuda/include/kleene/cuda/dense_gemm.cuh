#pragma once
// The kernel template behind dense_gemm (dense_gemm.hpp). Code compiled by nvcc may include this
// and call kleene::cuda::dense_gemm<my_semiring>(a, b, c, accumulate) for a semiring of its own;
// the registry's instances (kleene/instance_lists.hpp) are compiled once, in lib/backend/cuda, and
// declared extern here so that such code (out_of_core.cu) does not compile them again.
//
// Layers: a per-thread 8 x 8 register tile (policy::update) in a 128 x 128 block tile, and a host
// launcher that picks the kernel and policy and checks every call (enqueue / run). Two kernels:
//  - staged_kernel (4-byte types, B's rows 16-byte aligned): A is first packed k-major into
//    device scratch (transposed, encoded by the policy, k padded to the stage depth; in panels
//    of C's rows so the scratch stays under pack_cap_bytes), then a 3-stage cp.async pipeline
//    of 32-deep k tiles feeds shared memory with no register staging and no bounds checks in the
//    loop (B's edges are zero-filled by the copies). Chosen from the variants of
//    lab/gemm_lab.cu ("asyncT32"), the fastest there for fp32 and int32 (rates:
//    docs/performance.md). Checked policies (checked_staged) take
//    data in a range where a cheaper update is exact: int32 min_plus / max_plus (shifted
//    encoding, DPX) and fp32 min_plus on non-negative data (two k steps a 3-input integer min);
//    a device flag set by the packing and a range check of B falls back to the generic policy.
//  - gemm_kernel (any type, any alignment): 128 x 128 x 16 (8 for 8-byte types) stages through
//    shared memory with a register prefetch of the next k slice and checked loads.
//
// The three layers live under dense_gemm/: policies.cuh (tile shapes, update policies, traits),
// kernels.cuh (the __global__ code) and launch.cuh (the host side and the public templates).

#include <kleene/cuda/dense_gemm/kernels.cuh>
#include <kleene/cuda/dense_gemm/launch.cuh>
#include <kleene/cuda/dense_gemm/policies.cuh>

namespace kleene::cuda {
KLEENE_GEMM_INSTANCES(KLEENE_GEMM_EXTERN)
}  // namespace kleene::cuda

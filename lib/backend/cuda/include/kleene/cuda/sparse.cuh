#pragma once
// The kernel templates behind the sparse products (sparse.hpp). Code compiled by nvcc may include
// this and call kleene::cuda::spmv<my_semiring, Index>(...) and friends for a semiring of its own;
// the registry's instances (kleene/instance_lists.hpp) are compiled once, in lib/backend/cuda, and
// declared extern here so that such code does not compile them again.
//
// Pieces that do not depend on the semiring (the SpGEMM count pass, cuSPARSE, masks) live in
// lib/backend/cuda/src/sparse_common.cu and sparse_cusparse.cu.
//
// One header per product under sparse/ (common.cuh: what they share); this one includes them all.

#include <kleene/cuda/sparse/common.cuh>
#include <kleene/cuda/sparse/masked_dot.cuh>
#include <kleene/cuda/sparse/masked_saxpy.cuh>
#include <kleene/cuda/sparse/masked_spmm.cuh>
#include <kleene/cuda/sparse/spgemm.cuh>
#include <kleene/cuda/sparse/spmm.cuh>
#include <kleene/cuda/sparse/spmspv.cuh>
#include <kleene/cuda/sparse/spmv.cuh>

namespace kleene::cuda {
KLEENE_SPARSE_INSTANCES(KLEENE_SPARSE_EXTERN)
}  // namespace kleene::cuda

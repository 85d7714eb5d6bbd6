// The builtin pairs this build leaves out (KLEENE_INSTANCES=minimal; kleene/instance_lists.hpp):
// their specialisations, declared in sparse.hpp and dense_gemm.hpp, throw kleene::missing_instance
// with the pair and the set that has it, so that a program that names one still links.

#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/sparse.hpp>

namespace kleene::cuda {
KLEENE_SPARSE_MISSING(KLEENE_SPARSE_MISSING_DEFINITION)
KLEENE_GEMM_MISSING(KLEENE_GEMM_MISSING_DEFINITION)
}  // namespace kleene::cuda

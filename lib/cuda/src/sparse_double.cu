// Built-in instances of the sparse products over double (one file per type so they compile in
// parallel).

#include <kleene/cuda/detail/sparse_instances.hpp>
#include <kleene/cuda/sparse.cuh>

namespace kleene::cuda {
KLEENE_SPARSE_NUMERIC_SEMIRINGS(KLEENE_SPARSE_INSTANTIATE_BOTH_INDEX, double)
}  // namespace kleene::cuda

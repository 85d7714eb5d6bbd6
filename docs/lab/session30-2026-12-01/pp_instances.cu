// Lab (session 30): plus_pair over double, int32 indices, compiled into the lab's bench_masked_tc
// (with gen_pp's instance list, which moves that pair from the left-out list to the built one),
// so that the public mxm runs the issue's semiring in a minimal build.
#include <kleene/cuda/sparse.cuh>
namespace kleene::cuda {
KLEENE_SPARSE_INSTANTIATE(plus_pair, double, std::int32_t)
}

// The GPU traversals of kleene/cuda/graph.hpp in a build without CUDA (lib/cuda/src/graph*.cu are
// not compiled then): every call throws no_device, never a silent CPU fallback. The instantiations
// are those of the .cu files: T in {bool, float, double, int32, int64}, Index in {int32, int64}.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/graph.hpp>
#include <kleene/error.hpp>

#include <cstdint>

namespace kleene::cuda {
using no_cuda::unavailable;

template <class T, index_type Index>
bfs_run bfs(csr_matrix<T, Index, device> const&, csr_matrix<T, Index, device> const&, std::size_t,
            bool, bfs_tuning const&) {
    unavailable();
}

template <class T, index_type Index>
sssp_run<T> sssp(csr_matrix<T, Index, device> const&, std::size_t, sssp_tuning const&) {
    unavailable();
}

#define KLEENE_GRAPH_INSTANTIATE_INDEX(T, Index)                                           \
    template bfs_run bfs<T, Index>(csr_matrix<T, Index, device> const&,                    \
                                   csr_matrix<T, Index, device> const&, std::size_t, bool, \
                                   bfs_tuning const&);                                     \
    template sssp_run<T> sssp<T, Index>(csr_matrix<T, Index, device> const&, std::size_t,  \
                                        sssp_tuning const&);
#define KLEENE_GRAPH_INSTANTIATE(T)                 \
    KLEENE_GRAPH_INSTANTIATE_INDEX(T, std::int32_t) \
    KLEENE_GRAPH_INSTANTIATE_INDEX(T, std::int64_t)
KLEENE_GRAPH_INSTANTIATE(bool)
KLEENE_GRAPH_INSTANTIATE(float)
KLEENE_GRAPH_INSTANTIATE(double)
KLEENE_GRAPH_INSTANTIATE(std::int32_t)
KLEENE_GRAPH_INSTANTIATE(std::int64_t)
#undef KLEENE_GRAPH_INSTANTIATE
#undef KLEENE_GRAPH_INSTANTIATE_INDEX

}  // namespace kleene::cuda

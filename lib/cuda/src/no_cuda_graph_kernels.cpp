// The graph-analytics kernels of kleene/cuda/graph_kernels.hpp in a build without CUDA
// (lib/cuda/src/graph_kernels_*.cu are not compiled then): every call throws no_device, never a
// silent CPU run. The instantiations are those of the .cu files: Index in {int32, int64}.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/graph_kernels.hpp>
#include <kleene/error.hpp>

#include <cstdint>
#include <vector>

namespace kleene::cuda {
using no_cuda::unavailable;

template <index_type Index>
cc_run connected_components(csr_matrix<bool, Index, device> const&, cc_kernel) {
    unavailable();
}

template <index_type Index>
pagerank_run pagerank(csr_matrix<bool, Index, device> const&,
                      csr_matrix<bool, Index, device> const&, pagerank_params const&,
                      pagerank_kernel) {
    unavailable();
}

template <index_type Index>
tc_run triangle_count(csr_matrix<bool, Index, device> const&, bool) {
    unavailable();
}

template <index_type Index>
bc_run betweenness(csr_matrix<bool, Index, device> const&, csr_matrix<bool, Index, device> const&,
                   std::vector<std::int64_t> const&) {
    unavailable();
}

#define KLEENE_GRAPH_KERNELS_INSTANTIATE(Index)                                          \
    template cc_run connected_components<Index>(csr_matrix<bool, Index, device> const&,  \
                                                cc_kernel);                              \
    template pagerank_run pagerank<Index>(csr_matrix<bool, Index, device> const&,        \
                                          csr_matrix<bool, Index, device> const&,        \
                                          pagerank_params const&, pagerank_kernel);      \
    template tc_run triangle_count<Index>(csr_matrix<bool, Index, device> const&, bool); \
    template bc_run betweenness<Index>(csr_matrix<bool, Index, device> const&,           \
                                       csr_matrix<bool, Index, device> const&,           \
                                       std::vector<std::int64_t> const&);
KLEENE_GRAPH_KERNELS_INSTANTIATE(std::int32_t)
KLEENE_GRAPH_KERNELS_INSTANTIATE(std::int64_t)
#undef KLEENE_GRAPH_KERNELS_INSTANTIATE

}  // namespace kleene::cuda

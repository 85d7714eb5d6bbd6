// The context's stream-ordered memory pool (kleene/cuda/memory_pool.hpp).

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/detail/device_state.hpp>

#include <cuda_runtime.h>

#include <cstdint>

namespace kleene::cuda {
namespace {

void destroy_pool(void* p) noexcept {
    // Allocations still out, or frees still queued, are released by the driver once done.
    (void)cudaMemPoolDestroy(static_cast<cudaMemPool_t>(p));
}

}  // namespace

void* memory_pool(context& ctx) {
    if (void* mine = ctx.supplied_memory_pool()) return mine;
    auto& h = ctx.state().pool;
    if (h.h) return h.h;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = ctx.device();
    cudaMemPool_t pool = nullptr;
    KLEENE_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    // Keep what the calls free: the default threshold (0) hands it back to the driver at every
    // synchronisation, and the next call maps it again (Kronecker scale 22 on the H200:
    // 1-2 ms of an SSSP or betweenness call; docs/performance.md).
    std::uint64_t keep = ~std::uint64_t(0);
    if (cudaError_t const e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        e != cudaSuccess) {
        destroy_pool(pool);
        detail::check_cuda(e, "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)", __FILE__,
                           __LINE__);
    }
    h.h = pool;
    h.destroy = destroy_pool;
    return pool;
}

void trim_memory_pool(context& ctx, std::size_t keep) {
    if (ctx.supplied_memory_pool()) return;
    auto& h = ctx.state().pool;
    if (!h.h) return;
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream())));
    KLEENE_CUDA_CHECK(cudaMemPoolTrimTo(static_cast<cudaMemPool_t>(h.h), keep));
}

}  // namespace kleene::cuda

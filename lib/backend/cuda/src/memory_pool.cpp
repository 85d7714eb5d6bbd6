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

namespace {

void set_release_threshold(cudaMemPool_t pool, std::uint64_t keep) {
    detail::check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
                       "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)", __FILE__,
                       __LINE__);
}

}  // namespace

void* memory_pool(context& ctx) {
    if (void* mine = ctx.supplied_memory_pool()) {
        ctx.require_current_device();  // (state() checks it on the other path)
        return mine;
    }
    auto& st = ctx.state();
    auto& h = st.pool;
    // What the pool keeps of what the calls free: the driver's default threshold (0) hands it
    // all back at every synchronisation and the next call maps it again (Kronecker scale 22 on
    // the H200: 1-2 ms of an SSSP or betweenness call; docs/performance.md); keeping everything
    // would leave an APSP's workspace of gigabytes in the pool after the call.
    std::size_t const keep = ctx.memory_pool_keep().value_or(default_memory_pool_keep);
    if (h.h) {
        if (st.pool_keep != keep) {
            set_release_threshold(static_cast<cudaMemPool_t>(h.h), keep);
            st.pool_keep = keep;
        }
        return h.h;
    }
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = ctx.device();
    cudaMemPool_t pool = nullptr;
    KLEENE_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    try {
        set_release_threshold(pool, keep);
    } catch (...) {
        destroy_pool(pool);
        throw;
    }
    h.h = pool;
    h.destroy = destroy_pool;
    st.pool_keep = keep;
    return pool;
}

void trim_memory_pool(context& ctx, std::size_t keep) {
    if (ctx.supplied_memory_pool()) return;
    auto& h = ctx.state().pool;
    if (!h.h) return;
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream())));
    KLEENE_CUDA_CHECK(cudaMemPoolTrimTo(static_cast<cudaMemPool_t>(h.h), keep));
}

std::size_t free_memory_for_plan(context& ctx) noexcept {
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    std::size_t free = 0, total = 0;
    try {
        trim_memory_pool(ctx);
        if (current != ctx.device() && cudaSetDevice(ctx.device()) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        cudaError_t const e = cudaMemGetInfo(&free, &total);
        if (current != ctx.device()) (void)cudaSetDevice(current);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
    } catch (...) {
        return 0;
    }
    return free;
}

memory_pool_usage pool_usage(context& ctx) {
    auto const pool = static_cast<cudaMemPool_t>(memory_pool(ctx));
    auto get = [&](cudaMemPoolAttr attr, char const* name) {
        std::uint64_t v = 0;
        detail::check_cuda(cudaMemPoolGetAttribute(pool, attr, &v), name, __FILE__, __LINE__);
        return static_cast<std::size_t>(v);
    };
    memory_pool_usage u;
    u.reserved = get(cudaMemPoolAttrReservedMemCurrent,
                     "cudaMemPoolGetAttribute(cudaMemPoolAttrReservedMemCurrent)");
    u.used = get(cudaMemPoolAttrUsedMemCurrent,
                 "cudaMemPoolGetAttribute(cudaMemPoolAttrUsedMemCurrent)");
    u.reserved_peak = get(cudaMemPoolAttrReservedMemHigh,
                          "cudaMemPoolGetAttribute(cudaMemPoolAttrReservedMemHigh)");
    u.used_peak = get(cudaMemPoolAttrUsedMemHigh,
                      "cudaMemPoolGetAttribute(cudaMemPoolAttrUsedMemHigh)");
    return u;
}

void reset_memory_pool_peaks(context& ctx) {
    auto const pool = static_cast<cudaMemPool_t>(memory_pool(ctx));
    std::uint64_t zero = 0;  // "only 0 may be set": the peak restarts from the current value
    KLEENE_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    KLEENE_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
}

}  // namespace kleene::cuda

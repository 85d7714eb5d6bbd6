// Results from the device to pageable host memory through the context's two page-locked buffers
// (kleene/cuda/result_copy.hpp).

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace kleene::cuda {
namespace {

/// The two page-locked buffers and the events that say when each has been filled.
struct staging {
    std::size_t bytes = 0;  // of each buffer
    void* host[2] = {nullptr, nullptr};
    cudaEvent_t filled[2] = {nullptr, nullptr};
};

void destroy_staging(void* p) noexcept {
    auto* s = static_cast<staging*>(p);
    for (int i = 0; i < 2; ++i) {
        if (s->host[i]) (void)cudaFreeHost(s->host[i]);
        if (s->filled[i]) (void)cudaEventDestroy(s->filled[i]);
    }
    delete s;
}

/// The context's staging buffers of at least `bytes` each, or null where page-locked memory cannot
/// be had (the copy then goes directly).
staging* staging_of(context& ctx, std::size_t bytes) {
    auto& h = ctx.state().result_staging;
    auto* s = static_cast<staging*>(h.h);
    if (s && s->bytes >= bytes) return s;
    if (s) {
        // Smaller buffers than asked for: every copy through them has completed (each copy waits
        // for its last chunk), so they may go.
        destroy_staging(s);
        h.h = nullptr;
    }
    auto* fresh = new staging;
    h.h = fresh;
    h.destroy = destroy_staging;
    for (int i = 0; i < 2; ++i) {
        if (cudaHostAlloc(&fresh->host[i], bytes, cudaHostAllocDefault) != cudaSuccess) {
            (void)cudaGetLastError();
            fresh->host[i] = nullptr;
            destroy_staging(fresh);
            h.h = nullptr;
            return nullptr;
        }
        KLEENE_CUDA_CHECK(cudaEventCreateWithFlags(&fresh->filled[i], cudaEventDisableTiming));
    }
    fresh->bytes = bytes;
    return fresh;
}

/// memcpy by the context's OpenMP threads, in pieces of 256 KiB.
void parallel_copy(char* dst, char const* src, std::size_t bytes, int threads) {
    constexpr std::size_t piece = std::size_t(256) << 10;
    auto const pieces = static_cast<std::int64_t>((bytes + piece - 1) / piece);
#ifdef _OPENMP
    int const t = std::max(1, std::min<int>(threads > 0 ? threads : omp_get_max_threads(),
                                            static_cast<int>(pieces)));
#pragma omp parallel for schedule(static) num_threads(t)
#else
    (void)threads;
#endif
    for (std::int64_t p = 0; p < pieces; ++p) {
        std::size_t const off = std::size_t(p) * piece;
        std::memcpy(dst + off, src + off, std::min(piece, bytes - off));
    }
}

bool page_locked(void const* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

}  // namespace

void copy_result_to_host(void* dst, void const* src, std::size_t bytes, context& ctx,
                         result_copy_options const& opt) {
    auto const st = static_cast<cudaStream_t>(ctx.stream());
    constexpr std::size_t mib = std::size_t(1) << 20;
    std::size_t const half = (bytes / 2 + mib - 1) / mib * mib;
    std::size_t const chunk =
        std::max<std::size_t>(std::min(opt.chunk, half), std::size_t(64) << 10);
    staging* s = nullptr;
    if (opt.staged && bytes >= opt.staged_from && bytes > 0 && !page_locked(dst))
        s = staging_of(ctx, chunk);
    if (!s) {
        if (bytes) KLEENE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        return;
    }
    auto* const out = static_cast<char*>(dst);
    auto const* const in = static_cast<char const*>(src);
    std::size_t const chunks = (bytes + chunk - 1) / chunk;
    auto const length = [&](std::size_t k) { return std::min(chunk, bytes - k * chunk); };
    auto const enqueue = [&](std::size_t k) {
        void* const buffer = s->host[k % 2];
        KLEENE_CUDA_CHECK(
            cudaMemcpyAsync(buffer, in + k * chunk, length(k), cudaMemcpyDeviceToHost, st));
        KLEENE_CUDA_CHECK(cudaEventRecord(s->filled[k % 2], st));
    };
    // Two chunks in flight: the host copies chunk k out of its buffer while chunk k + 1 arrives in
    // the other; chunk k + 2 is queued into k's buffer once the host is done with it.
    enqueue(0);
    if (chunks > 1) enqueue(1);
    for (std::size_t k = 0; k < chunks; ++k) {
        KLEENE_CUDA_CHECK(cudaEventSynchronize(s->filled[k % 2]));
        parallel_copy(out + k * chunk, static_cast<char const*>(s->host[k % 2]), length(k),
                      ctx.threads());
        if (k + 2 < chunks) enqueue(k + 2);
    }
}

namespace detail {

namespace {
struct small_block {
    void* p = nullptr;
    std::size_t bytes = 0;
};
void destroy_small(void* h) noexcept {
    auto* b = static_cast<small_block*>(h);
    if (b->p) (void)cudaFreeHost(b->p);
    delete b;
}
}  // namespace

void* pinned_scratch(context& ctx, std::size_t bytes) {
    constexpr std::size_t most = std::size_t(1) << 20;
    if (bytes > most)
        throw invalid_argument("pinned_scratch: " + std::to_string(bytes) +
                               " bytes asked for, at most 1 MiB");
    auto& h = ctx.state().pinned_small;
    auto* b = static_cast<small_block*>(h.h);
    if (b && b->bytes >= bytes) return b->p;
    if (b) {  // too small: whatever used it has been waited for (one thread, calls in turn)
        destroy_small(b);
        h.h = nullptr;
    }
    auto* fresh = new small_block;
    std::size_t const size = std::max<std::size_t>(bytes, 4096);
    if (cudaError_t const e = cudaHostAlloc(&fresh->p, size, cudaHostAllocDefault);
        e != cudaSuccess) {
        (void)cudaGetLastError();
        delete fresh;
        throw device_error(std::string("cudaHostAlloc of ") + std::to_string(size) +
                           " page-locked bytes for a call's host loop: " + cudaGetErrorString(e));
    }
    fresh->bytes = size;
    h.h = fresh;
    h.destroy = destroy_small;
    return fresh->p;
}

}  // namespace detail
}  // namespace kleene::cuda

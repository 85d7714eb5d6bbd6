#pragma once
// The device resources a kleene::context owns (context.hpp), for the CUDA backend: plain C++ so
// that the context compiles without CUDA headers. Handles are stored as void* with the function
// that destroys them (set by the .cu file that creates them: dense_gemm_cublas.cu,
// sparse_cusparse.cu). Buffers grow on demand and are freed with the context.

#include <kleene/memory.hpp>

#include <cstddef>
#include <utility>

namespace kleene::detail {

/// A block of device scratch that grows on demand, in stream order (kleene/cuda/detail/
/// stream_memory.cuh, grow_scratch): allocated with cudaMallocAsync on the stream of the call that
/// needs more, the smaller block before it released on that stream behind the work queued there
/// (cudaFreeAsync), so that growing waits for nothing. `stream` is the stream of the last call
/// that took the block: a call on another stream that needs more first waits for the device (the
/// old stream may still run work on the old block, and may no longer exist to order a release
/// on). Released with cudaFree (waits for the device) by its owner's end.
struct scratch_block {
    void* data = nullptr;
    std::size_t bytes = 0;
    void* stream = nullptr;
    bool used = false;  // stream is known
    /// Set by the CUDA side with the first block: releases one.
    void (*release)(scratch_block&) noexcept = nullptr;

    scratch_block() = default;
    scratch_block(scratch_block const&) = delete;
    scratch_block& operator=(scratch_block const&) = delete;
    scratch_block(scratch_block&& o) noexcept
        : data(o.data), bytes(o.bytes), stream(o.stream), used(o.used), release(o.release) {
        o.data = nullptr;
        o.bytes = 0;
    }
    scratch_block& operator=(scratch_block&& o) noexcept {
        std::swap(data, o.data);
        std::swap(bytes, o.bytes);
        std::swap(stream, o.stream);
        std::swap(used, o.used);
        std::swap(release, o.release);
        return *this;
    }
    ~scratch_block() {
        if (data && release) release(*this);
    }
};

/// Device memory in the order of one stream, for temporaries that types outside the CUDA sources
/// hold (kleene/cuda/mask.hpp): allocated on `stream` from a stream-ordered pool and released on
/// it when the block goes (cudaFreeAsync): neither waits for the device, as a kleene::buffer's
/// cudaFree does, and both may be captured into a CUDA graph. Made by
/// kleene/cuda/detail/stream_memory.cuh (allocate_block), which sets `release`. Work on another
/// stream must be ordered after the allocation's stream (an event) before it reads the block.
struct stream_block {
    void* data = nullptr;
    std::size_t bytes = 0;
    void* stream = nullptr;
    void (*release)(stream_block&) noexcept = nullptr;

    stream_block() = default;
    stream_block(stream_block const&) = delete;
    stream_block& operator=(stream_block const&) = delete;
    stream_block(stream_block&& o) noexcept
        : data(std::exchange(o.data, nullptr)), bytes(std::exchange(o.bytes, 0)),
          stream(o.stream), release(o.release) {}
    stream_block& operator=(stream_block&& o) noexcept {
        std::swap(data, o.data);
        std::swap(bytes, o.bytes);
        std::swap(stream, o.stream);
        std::swap(release, o.release);
        return *this;
    }
    ~stream_block() {
        if (data && release) release(*this);
    }
};

struct device_state {
    /// The CUDA device the resources belong to (the context's), made current to release them.
    int owner_device = 0;
    struct handle {
        void* h = nullptr;
        void (*destroy)(void*) noexcept = nullptr;
    };
    handle cublas;
    handle cusparse;
    /// The JIT's kernels loaded on this device (lib/backend/cuda/src/jit.cpp).
    handle jit;
    /// Two page-locked host buffers for results copied to pageable memory (lib/backend/cuda/src/
    /// result_copy.cpp).
    handle result_staging;
    /// A small page-locked host block for the values a call's host loop reads and writes between
    /// its launches (lib/backend/cuda/src/result_copy.cpp), kept: allocating page-locked memory per
    /// call costs more than the values' trips, and freeing it waits for the whole device.
    handle pinned_small;
    /// The context's own stream-ordered memory pool (a cudaMemPool_t; lib/backend/cuda/src/
    /// memory_pool.cpp), when the caller supplied none.
    handle pool;
    /// The release threshold set on `pool` (context::memory_pool_keep).
    std::size_t pool_keep = 0;
    /// The GEMM's packed operand and split-k partial products, when the caller supplied none.
    scratch_block workspace;
    /// Scratch of the sparse products (sparse.cuh numbers its uses 0..7).
    static constexpr int slot_count = 8;
    scratch_block slots[slot_count];
    /// Temporary storage of CUB's device algorithms.
    scratch_block cub;
    /// One device int for the range checks' verdicts on the context's stream.
    buffer<int, device> flag;
    /// Default contexts keep their handles: they die at thread exit, for the main thread possibly
    /// after the CUDA runtime has shut down, when destroying a handle is no longer safe.
    bool keep_handles = false;

    device_state() = default;
    device_state(device_state const&) = delete;
    device_state& operator=(device_state const&) = delete;
    ~device_state() {
        if (keep_handles) {
            // After the CUDA runtime has shut down a release is not safe either.
            for (scratch_block* b : {&workspace, &cub}) b->release = nullptr;
            for (scratch_block& b : slots) b.release = nullptr;
            return;
        }
        // The scratch blocks first: they may come from the context's own pool, destroyed below.
        for (scratch_block* b : {&workspace, &cub}) scratch_block gone = std::move(*b);
        for (scratch_block& b : slots) scratch_block gone = std::move(b);
        for (handle* x : {&cublas, &cusparse, &jit, &result_staging, &pinned_small, &pool})
            if (x->h && x->destroy) x->destroy(x->h);
    }
};

}  // namespace kleene::detail

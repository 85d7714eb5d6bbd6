#pragma once
// The device resources a kleene::context owns (context.hpp), for the CUDA backend: plain C++ so
// that the context compiles without CUDA headers. Handles are stored as void* with the function
// that destroys them (set by the .cu file that creates them: dense_gemm_cublas.cu,
// sparse_cusparse.cu). Buffers grow on demand and are freed with the context.

#include <kleene/memory.hpp>

#include <cstddef>

namespace kleene::detail {

struct device_state {
    struct handle {
        void* h = nullptr;
        void (*destroy)(void*) noexcept = nullptr;
    };
    handle cublas;
    handle cusparse;
    /// The JIT's kernels loaded on this device (lib/cuda/src/jit.cpp).
    handle jit;
    /// The GEMM's packed operand and split-k partial products, when the caller supplied none.
    buffer<unsigned char, device> workspace;
    /// Scratch of the sparse products (sparse.cuh numbers its uses 0..7).
    static constexpr int slot_count = 8;
    buffer<unsigned char, device> slots[slot_count];
    /// Temporary storage of CUB's device algorithms.
    buffer<unsigned char, device> cub;
    /// One device int for the range checks' verdicts on the context's stream.
    buffer<int, device> flag;
    /// Default contexts keep their handles: they die at thread exit, for the main thread possibly
    /// after the CUDA runtime has shut down, when destroying a handle is no longer safe.
    bool keep_handles = false;

    device_state() = default;
    device_state(device_state const&) = delete;
    device_state& operator=(device_state const&) = delete;
    ~device_state() {
        if (keep_handles) return;
        for (handle* x : {&cublas, &cusparse, &jit})
            if (x->h && x->destroy) x->destroy(x->h);
    }
};

/// At least `bytes` of b (contents not kept): the old buffer is freed first, so the two need
/// not coexist. The caller makes sure no queued work still reads the old one.
inline void* grow(buffer<unsigned char, device>& b, std::size_t bytes) {
    if (b.size() < bytes) {
        b = buffer<unsigned char, device>();
        b = buffer<unsigned char, device>(bytes);
    }
    return b.data();
}

}  // namespace kleene::detail

#pragma once
// The stream-ordered memory pool a context's GPU calls take their temporaries from
// (context::set_memory_pool; implemented in lib/cuda/src/memory_pool.cpp).

#include <kleene/context.hpp>
#include <kleene/detail/device_entry.hpp>

#include <cstddef>

namespace kleene::cuda {

/// The pool ctx's calls allocate from (a cudaMemPool_t): the caller's, or the context's own,
/// created on first use on ctx.device() with a release threshold that keeps all freed memory.
KLEENE_DEVICE_ENTRY void* memory_pool(context& ctx) KLEENE_DEVICE_VALUE;

/// Hands the memory the context's own pool keeps back to the driver, down to `keep` bytes
/// (cudaMemPoolTrimTo), after the work queued on ctx's stream. Does nothing to a caller's pool or
/// where the context has none yet.
KLEENE_DEVICE_ENTRY void trim_memory_pool(context& ctx, std::size_t keep = 0) KLEENE_DEVICE_BODY;

}  // namespace kleene::cuda

#pragma once
// The stream-ordered memory pool a context's GPU calls take their temporaries from
// (context::set_memory_pool; implemented in lib/backend/cuda/src/memory_pool.cpp).

#include <kleene/context.hpp>
#include <kleene/detail/device_entry.hpp>

#include <cstddef>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// The pool ctx's calls allocate from (a cudaMemPool_t): the caller's, or the context's own,
/// created on first use on ctx.device(), its release threshold ctx.memory_pool_keep() (set again
/// here when that changed), default_memory_pool_keep when the context names none.
KLEENE_DEVICE_ENTRY void* memory_pool(context& ctx) KLEENE_DEVICE_VALUE;

/// What the context's own pool keeps of the memory its calls free unless the context says
/// otherwise (context::set_memory_pool_keep): 2 GiB. Why that much: docs/guide.md, the
/// paragraph on the context.
inline constexpr std::size_t default_memory_pool_keep = std::size_t(2) << 30;

/// Hands the memory the context's own pool keeps back to the driver, down to `keep` bytes
/// (cudaMemPoolTrimTo), after the work queued on ctx's stream. Does nothing to a caller's pool or
/// where the context has none yet.
KLEENE_DEVICE_ENTRY void trim_memory_pool(context& ctx, std::size_t keep = 0) KLEENE_DEVICE_BODY;

/// The device's free memory (cudaMemGetInfo on ctx.device()) once the context's own pool has
/// handed back what it keeps (trim_memory_pool(ctx)): what a plan for device memory (APSP,
/// closure, out of core) may count on. 0 without a device or when a CUDA call fails.
KLEENE_DEVICE_ENTRY std::size_t free_memory_for_plan(context& ctx) noexcept
    KLEENE_DEVICE_RETURNS(0);

/// What the pool ctx's calls allocate from holds, in bytes (cudaMemPoolGetAttribute): the
/// memory it has from the driver (`reserved`) and what is handed out now (`used`, the calls'
/// temporaries in flight and the scratch the context keeps), and the peaks of both since the
/// pool was made or the last reset_memory_pool_peaks. The size query for a caller who supplies
/// the pool (context::set_memory_pool): run a representative call once on a context, read
/// `used_peak`, and reserve that much (for example with cudaMemPoolAttrReleaseThreshold) in the
/// pool of later contexts. Measured, not predicted: a call on a larger input needs more. For a
/// caller's pool the figures cover everything allocated from it, not only kleene's.
struct memory_pool_usage {
    std::size_t reserved = 0, used = 0;
    std::size_t reserved_peak = 0, used_peak = 0;
};
KLEENE_DEVICE_ENTRY memory_pool_usage pool_usage(context& ctx) KLEENE_DEVICE_VALUE;

/// Sets the peaks of pool_usage(ctx) back to the current values.
KLEENE_DEVICE_ENTRY void reset_memory_pool_peaks(context& ctx) KLEENE_DEVICE_BODY;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

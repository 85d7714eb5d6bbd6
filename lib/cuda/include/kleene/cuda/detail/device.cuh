#pragma once
// Device-side helpers shared by the sparse products (sparse.cuh) and the traversals (graph*.cu):
// semiring atomics, shuffles of any value type, the load-balanced walk over a frontier's edges,
// and a CUB temporary-storage holder. Include only from code compiled by nvcc.

#include <kleene/context.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace kleene::cuda::detail {

/// The stream ctx's device work goes to (null: the legacy default stream).
inline cudaStream_t stream_of(context const& ctx) noexcept {
    return static_cast<cudaStream_t>(ctx.stream());
}

/// Blocks of `threads` covering n items, at least 1, at most `cap` (kernels grid-stride past it).
inline unsigned blocks_for(std::size_t n, unsigned threads, std::size_t cap = 1u << 20) {
    std::size_t b = (n + threads - 1) / threads;
    return static_cast<unsigned>(std::clamp<std::size_t>(b, 1, cap));
}

/// A persistent grid: enough blocks to fill the current device a few times over. Asked each call
/// (a host-side query, no device round trip), not cached: threads of one process may run on
/// devices of different sizes.
inline unsigned persistent_blocks(unsigned per_sm = 8) {
    int dev = 0, sms = 0;
    KLEENE_CUDA_CHECK(cudaGetDevice(&dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return static_cast<unsigned>(sms) * per_sm;
}

/// Temporary storage for CUB device algorithms: grows, never shrinks.
class cub_temp {
public:
    void* get(std::size_t bytes) {
        if (bytes > buf_.size()) buf_ = buffer<unsigned char, device>(bytes);
        return buf_.data();
    }

private:
    buffer<unsigned char, device> buf_;
};

template <class T>
__global__ void fill_kernel(T* __restrict__ p, std::size_t n, T v) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = v;
}

/// p[0..n) = v, enqueued on st.
template <class T>
void fill(T* p, std::size_t n, T v, cudaStream_t st) {
    if (n == 0) return;
    fill_kernel<T><<<blocks_for(n, 256, 4096), 256, 0, st>>>(p, n, v);
    KLEENE_CUDA_CHECK_LAUNCH("fill_kernel");
}
/// p[0..n) = v on the legacy default stream. Kept for algorithms/cuda/src/graph_sssp.cu until it
/// passes its context's stream to the form above; remove then.
template <class T>
void fill(T* p, std::size_t n, T v) {
    if (n == 0) return;
    fill_kernel<T><<<blocks_for(n, 256, 4096), 256>>>(p, n, v);
    KLEENE_CUDA_CHECK_LAUNCH("fill_kernel");
}

template <class To, class From>
__host__ __device__ __forceinline__ To bits_as(From f) {
    static_assert(sizeof(To) == sizeof(From));
    To t;
    memcpy(&t, &f, sizeof(To));
    return t;
}

/// Entry k's value of a CSR matrix that may be iso (values == nullptr).
template <class T, class I>
__device__ __forceinline__ T value_at(T const* __restrict__ values, T iso, I k) {
    return values ? values[k] : iso;
}

// ---- shuffles of any value type -----------------------------------------------------------------

template <class T>
__device__ __forceinline__ T shfl(unsigned mask, T v, int src, int width = 32) {
    if constexpr (sizeof(T) < 4) return T(__shfl_sync(mask, int(v), src, width));
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return T(__shfl_sync(mask, static_cast<long long>(v), src, width));
    else return __shfl_sync(mask, v, src, width);
}
template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, T v, unsigned delta, int width = 32) {
    if constexpr (sizeof(T) < 4) return T(__shfl_up_sync(mask, int(v), delta, width));
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return T(__shfl_up_sync(mask, static_cast<long long>(v), delta, width));
    else return __shfl_up_sync(mask, v, delta, width);
}
template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, T v, unsigned delta, int width = 32) {
    if constexpr (sizeof(T) < 4) return T(__shfl_down_sync(mask, int(v), delta, width));
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return T(__shfl_down_sync(mask, static_cast<long long>(v), delta, width));
    else return __shfl_down_sync(mask, v, delta, width);
}

// ---- atomics ------------------------------------------------------------------------------------

/// *p = f(*p) atomically for 4- and 8-byte values (CAS loop); stops without writing when f leaves
/// the value unchanged (min / max that lose touch memory once).
template <class T, class F>
__device__ __forceinline__ void atomic_update(T* p, F const& f) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8,
                  "kleene: a generic GPU atomic needs a 4- or 8-byte value type");
    using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    W* w = reinterpret_cast<W*>(p);
    W old = *reinterpret_cast<W volatile*>(w);
    while (true) {
        W const desired = bits_as<W>(f(bits_as<T>(old)));
        if (desired == old) return;
        W const seen = atomicCAS(w, old, desired);
        if (seen == old) return;
        old = seen;
    }
}

/// Whether S's additive monoid is built on Op (plus_op, min_op, ...).
template <class S, template <class> class Op>
constexpr bool add_is() {
    if constexpr (requires { typename S::add_monoid::op_type; })
        return std::is_same_v<typename S::add_monoid::op_type, Op<typename S::value_type>>;
    else return false;
}

/// *p = S::add(*p, v) atomically. lor is an idempotent store (racing writers agree); any keeps a
/// value already there, as any_op does (a CAS from zero; for 1-byte types, where CAS would touch
/// the neighbours, a store of a non-zero v: racing writers may then leave any of their values);
/// plus, min and max use the hardware atomics where they exist.
template <class S>
__device__ __forceinline__ void atomic_add(typename S::value_type* p, typename S::value_type v) {
    using T = typename S::value_type;
    if constexpr (add_is<S, any_op>() && sizeof(T) == 1) {
        if (v != T(0)) *p = v;
    } else if constexpr (add_is<S, any_op>()) {
        if (v != T(0)) atomic_update(p, [v](T c) { return c == T(0) ? v : c; });
    } else if constexpr (add_is<S, lor_op>()) {
        if (v != T(0)) *p = T(1);
    } else if constexpr (add_is<S, plus_op>() &&
                         (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::int32_t>)) {
        atomicAdd(p, v);
    } else if constexpr (add_is<S, plus_op>() &&
                         (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>)) {
        atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    } else if constexpr (add_is<S, min_op>() && std::is_same_v<T, std::int32_t>) {
        atomicMin(p, v);
    } else if constexpr (add_is<S, min_op>() && std::is_same_v<T, std::int64_t>) {
        atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v));
    } else if constexpr (add_is<S, max_op>() && std::is_same_v<T, std::int32_t>) {
        atomicMax(p, v);
    } else if constexpr (add_is<S, max_op>() && std::is_same_v<T, std::int64_t>) {
        atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v));
    } else {
        atomic_update(p, [v](T c) { return S::add(c, v); });
    }
}

/// *p = min(*p, v); returns true when v was smaller than the value seen (this thread improved it).
template <class T>
__device__ __forceinline__ bool atomic_min_improves(T* p, T v) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
        return atomicMin(p, v) > v;
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        return atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v)) > v;
    } else {
        using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
        W* w = reinterpret_cast<W*>(p);
        W old = *reinterpret_cast<W volatile*>(w);
        while (v < bits_as<T>(old)) {
            W const seen = atomicCAS(w, old, bits_as<W>(v));
            if (seen == old) return true;
            old = seen;
        }
        return false;
    }
}

/// A slot out of *count++, with one atomic per group of converged threads.
__device__ __forceinline__ unsigned long long aggregated_slot(unsigned long long* count) {
    namespace cg = cooperative_groups;
    auto g = cg::coalesced_threads();
    unsigned long long base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<unsigned long long>(g.size()));
    base = g.shfl(base, 0);
    return base + g.thread_rank();
}

/// *sum += v summed over the converged threads first (one atomic per group).
__device__ __forceinline__ void aggregated_add(unsigned long long* sum, unsigned long long v) {
    namespace cg = cooperative_groups;
    auto g = cg::coalesced_threads();
    unsigned long long const s = cg::reduce(g, v, cg::plus<unsigned long long>());
    if (g.thread_rank() == 0 && s != 0) atomicAdd(sum, s);
}

// ---- load-balanced walk over a frontier's edges -------------------------------------------------

/// The last k in [lo, hi] with offs[k] <= e (offs non-decreasing, offs[lo] <= e).
template <class Off>
__device__ __forceinline__ std::int64_t last_at_most(Off const* offs, std::int64_t lo,
                                                     std::int64_t hi, Off e) {
    while (lo < hi) {
        std::int64_t const mid = lo + (hi - lo + 1) / 2;
        if (offs[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/// Frontier entry k owns the edges [offs[k], offs[k+1]) (offs: exclusive scan of the entries'
/// degrees, count + 1 values, offs[count] = the total). Every edge is visited once, as
/// f(k, r) with r its rank inside entry k's row; the grid strides over tiles of Threads * Items
/// consecutive edges, so that each block does the same work whatever the degrees (a row of a
/// million edges is spread over many blocks; empty rows cost nothing). Call from every thread of
/// the block (it synchronises the block). offs is a plain pointer: the BFS device loop writes it
/// in the same kernel, so its loads must not take the read-only path (kernels whose offsets are
/// read-only declare their own parameter __restrict__).
template <int Threads, int Items, class Off, class F>
__device__ __forceinline__ void for_each_frontier_edge(Off const* offs,
                                                       std::int64_t count, F const& f) {
    constexpr Off tile = Off(Threads) * Items;
    __shared__ std::int64_t range[2];
    if (count <= 0) return;
    Off const total = offs[count];
    for (Off t0 = Off(blockIdx.x) * tile; t0 < total; t0 += Off(gridDim.x) * tile) {
        if (threadIdx.x == 0) {
            Off const last = (t0 + tile < total ? t0 + tile : total) - 1;
            std::int64_t const lo = last_at_most(offs, 0, count - 1, t0);
            range[0] = lo;
            range[1] = last_at_most(offs, lo, count - 1, last);
        }
        __syncthreads();
        std::int64_t const lo = range[0], hi = range[1];
#pragma unroll
        for (int i = 0; i < Items; ++i) {
            Off const e = t0 + Off(i * Threads + static_cast<int>(threadIdx.x));
            if (e < total) {
                std::int64_t const k = last_at_most(offs, lo, hi, e);
                f(k, e - offs[k]);
            }
        }
        __syncthreads();
    }
}

}  // namespace kleene::cuda::detail

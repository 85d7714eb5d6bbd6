#pragma once
// BFS levels in one block, before the asynchronous work list (graph_bfs.cu's bfs_async). On a
// graph of high diameter the levels are many and small: a road network's levels hold a few
// hundred to a few thousand vertices. One block of 1024 threads expands such a level at the
// latency of two rounds of reads of the CSR (the frontier's rows, then their columns) and one
// barrier, with the visited set a bit a vertex in its shared memory and the frontier in shared
// memory too (spilling to global memory past its room): NY 1.23 ms against the work list's 1.39
// (H200, 2026-12-01, docs/lab/session25-2026-12-01). A warp takes 32 vertices of the level (a
// lane each), loads their rows at once, then their edges up to 128 at once (4 a lane), and claims
// the unvisited with an atomic or on the bitmap; the claimed vertex gets its level (and parent)
// in global memory and a place in the next level's queue.
//
// One block is one multiprocessor: a level larger than `max_frontier` vertices is handed over
// to the work list, which then starts from that frontier (async_seed) with the levels found so
// far (all exact: every level before the frontier's is complete). NE's levels outgrow one block
// (7.4 ms in one block against the work list's 4.9).

#include "graph_async.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace kleene::cuda::bfs_block_detail {

constexpr int block_threads = 1024;

/// How the block's levels ended (written by thread 0).
struct block_outcome {
    int levels;             // levels expanded (the frontier handed over is level `levels`)
    int handed_over;        // 1: a level outgrew max_frontier; it is in spill[levels % 2]
    long long frontier;     // the handed-over frontier's vertices
    long long largest;      // the largest level expanded in the block
};

/// The search from `source` while its levels hold at most max_frontier vertices. level: n
/// values, infinity (INT32_MAX) where unreached, written for every vertex the block reaches;
/// parent (null: none) likewise. The queue holds qcap vertices a level in shared memory, the rest
/// in spill0 / spill1 (n each). Shared memory: 2 qcap Index values, then ceil(n / 32) words.
template <class Index>
__global__ void __launch_bounds__(block_threads, 1)
    bfs_one_block(Index const* __restrict__ ptr, Index const* __restrict__ col, std::int64_t n,
                  Index source, std::int32_t* __restrict__ level, Index* __restrict__ parent,
                  Index* __restrict__ spill0, Index* __restrict__ spill1, int qcap,
                  long long max_frontier, block_outcome* out) {
    extern __shared__ __align__(16) unsigned char block_smem[];
    Index* const q0 = reinterpret_cast<Index*>(block_smem);
    Index* const q1 = q0 + qcap;
    std::uint32_t* const seen = reinterpret_cast<std::uint32_t*>(q1 + qcap);
    // By level mod 3: this level's count, the next's, the one to clear; 32-bit (n is far below
    // 2^31 here: the visited bits of n vertices fit the block's shared memory).
    __shared__ unsigned cnt[3];
    constexpr unsigned full = 0xffffffffu;
    int const tid = static_cast<int>(threadIdx.x), nt = static_cast<int>(blockDim.x);
    int const lane = tid & 31, warp0 = tid & ~31;
    std::int64_t const words = (n + 31) / 32;
    for (std::int64_t i = tid; i < words; i += nt) seen[i] = 0;
    if (tid == 0) {
        cnt[0] = 1;
        cnt[1] = cnt[2] = 0;
        q0[0] = source;
        level[source] = 0;
        if (parent) parent[source] = source;
    }
    __syncthreads();
    if (tid == 0) seen[source >> 5] |= 1u << (source & 31);
    long long largest = 0;
    int lvl = 0;
    __syncthreads();
    while (true) {
        int const c = static_cast<int>(cnt[lvl % 3]);
        Index* const cur = (lvl & 1) ? q1 : q0;
        Index* const nxt = (lvl & 1) ? q0 : q1;
        Index* const cur_spill = (lvl & 1) ? spill1 : spill0;
        Index* const nxt_spill = (lvl & 1) ? spill0 : spill1;
        if (c == 0) break;
        if (c > max_frontier) {
            // To the work list: the frontier, whole, into the spill buffer this level does not
            // read (the next level's).
            for (int i = tid; i < c; i += nt)
                nxt_spill[i] = i < qcap ? cur[i] : cur_spill[i - qcap];
            if (tid == 0) *out = block_outcome{lvl, 1, c, largest};
            return;
        }
        largest = c > largest ? static_cast<long long>(c) : largest;
        unsigned* const ncnt = cnt + (lvl + 1) % 3;
        if (tid == 0) cnt[(lvl + 2) % 3] = 0;  // read by everyone a level ago
        std::int32_t const next_level = lvl + 1;
        for (int i0 = warp0; i0 < c; i0 += nt) {
            int const i = i0 + lane;
            Index u = 0, b = 0, deg = 0;
            if (i < c) {
                u = i < qcap ? cur[i] : cur_spill[i - qcap];
                b = ptr[u];
                deg = ptr[u + 1] - b;
            }
            auto const [excl, total] = async_detail::lay_out_edges(deg, lane);
            for (Index base = 0; base < total; base += 128) {
                Index vv[4], uu[4];
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    Index const e = base + r * 32 + lane;
                    int const owner = async_detail::edge_owner(excl, e);
                    Index const bo = __shfl_sync(full, b, owner);
                    Index const eo = __shfl_sync(full, excl, owner);
                    uu[r] = __shfl_sync(full, u, owner);
                    vv[r] = e < total ? col[bo + (e - eo)] : Index(-1);
                }
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    Index const v = vv[r];
                    if (v < 0) continue;
                    std::uint32_t const bit = 1u << (v & 31);
                    std::uint32_t* const w = seen + (v >> 5);
                    if (*reinterpret_cast<std::uint32_t volatile*>(w) & bit) continue;
                    if (atomicOr(w, bit) & bit) continue;
                    level[v] = next_level;
                    if (parent) parent[v] = uu[r];
                    int const j = static_cast<int>(atomicAdd(ncnt, 1u));
                    if (j < qcap) nxt[j] = v;
                    else nxt_spill[j - qcap] = v;
                }
            }
        }
        ++lvl;
        __syncthreads();
    }
    if (tid == 0) *out = block_outcome{lvl, 0, 0, largest};
}

}  // namespace kleene::cuda::bfs_block_detail

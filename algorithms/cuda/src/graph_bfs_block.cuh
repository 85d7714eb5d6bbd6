#pragma once
// BFS levels in one block, before the asynchronous work list (graph_bfs.cu's bfs_async). On a
// graph of high diameter the levels are many and small: a road network's levels hold a few
// hundred to a few thousand vertices. One block of 1024 threads expands such a level at the
// latency of two rounds of reads of the CSR (the frontier's rows, then their columns) and one
// barrier, with the visited set a bit a vertex in its shared memory and the frontier in shared
// memory too (spilling to global memory past its room): NY 1.23 ms against the work list's 1.39
// (H200, 2026-12-01, docs/lab/session25-2026-12-01). A warp takes 32 vertices of the level (a
// lane each), loads their rows at once, then their edges up to 128 at once (4 a lane), and claims
// the unvisited with an atomic or on the bitmap, the four at once; the claimed vertex gets a place
// in the next level's queue and in the search's order (its level and parent are written from the
// order after the block, by the whole device). Both cut NY to 1.17 ms in the lab (from 1.26, H200,
// docs/lab/session26-2026-12-01).
//
// One block is one multiprocessor: a level larger than `max_frontier` vertices, or levels that
// take it longer than a step of the work list on average (`level_cycles`), are handed over
// to the work list, which then starts from that frontier (async_seed) with the levels found so
// far (all exact: every level before the frontier's is complete). NE's levels outgrow one block
// (7.4 ms in one block against the work list's 4.9).

#include "graph_async.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace kleene::cuda::bfs_block_detail {

constexpr int block_threads = 1024;

/// How the block's levels ended (written by thread 0).
struct block_outcome {
    int levels;             // levels expanded (the frontier handed over is level `levels`)
    int handed_over;        // 1: a level outgrew max_frontier, 2: the levels' mean time
                            // exceeded level_cycles; the frontier is order[placed - frontier, placed)
    long long frontier;     // the handed-over frontier's vertices
    long long largest;      // the largest level expanded in the block
    long long placed;       // vertices in order (every level found, the handed-over one included)
    long long mean_cycles;  // the levels' mean time when it stopped (level_cycles > 0)
};

/// A warp's edges base .. base + 127 of its 32 rows laid out end to end (a lane's row starts at
/// b, its vertex u, its first edge's place excl of the warp's total; lay_out_edges), four a lane
/// at once: their columns (vv; -1 past total) and the vertices whose rows hold them (uu).
template <class Index>
__device__ __forceinline__ void gather_edges4(Index const* __restrict__ col, Index b, Index u,
                                              Index excl, Index total, Index base, int lane,
                                              Index (&vv)[4], Index (&uu)[4]) {
    constexpr unsigned full = 0xffffffffu;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        Index const e = base + r * 32 + lane;
        int const owner = async_detail::edge_owner(excl, e);
        Index const bo = __shfl_sync(full, b, owner);
        Index const eo = __shfl_sync(full, excl, owner);
        uu[r] = __shfl_sync(full, u, owner);
        vv[r] = e < total ? col[bo + (e - eo)] : Index(-1);
    }
}

/// The search from `source` while its levels hold at most max_frontier vertices and (when
/// level_cycles > 0) a level takes at most level_cycles of the multiprocessor's clock on average
/// (an exponential mean over about 16 levels, decided a level late). It writes the
/// vertices it reaches in order, level by level (order, and their parents in order_parent when
/// that is not null; level l at positions starts[l] .. starts[l + 1]), not level[] itself:
/// scattered writes inside the block's levels cost a road network's search a fifth of its time
/// (H200, docs/lab/session26-2026-12-01); finish_levels writes them afterwards over the whole
/// device. The queue holds qcap vertices a level in shared memory; past that a level reads its
/// vertices back from order. Shared memory: 2 qcap Index values, then ceil(n / 32) words.
/// order and order_parent hold n values, starts n + 2.
template <class Index>
__global__ void __launch_bounds__(block_threads, 1)
    bfs_one_block(Index const* __restrict__ ptr, Index const* __restrict__ col, std::int64_t n,
                  Index source, Index* __restrict__ order, Index* __restrict__ order_parent,
                  long long* __restrict__ starts, int qcap, long long max_frontier,
                  long long level_cycles, block_outcome* out) {
    extern __shared__ __align__(16) unsigned char block_smem[];
    Index* const q0 = reinterpret_cast<Index*>(block_smem);
    Index* const q1 = q0 + qcap;
    std::uint32_t* const seen = reinterpret_cast<std::uint32_t*>(q1 + qcap);
    // By level mod 3: this level's count, the next's, the one to clear; 32-bit (n is far below
    // 2^31 here: the visited bits of n vertices fit the block's shared memory).
    __shared__ unsigned cnt[3];
    // By level mod 2: whether the block leaves at that level (thread 0 decides a level ahead, so
    // that everyone reads the word after the barrier that follows its write, and it is not
    // rewritten before everyone has read it).
    __shared__ int leave[2];
    int const tid = static_cast<int>(threadIdx.x), nt = static_cast<int>(blockDim.x);
    int const lane = tid & 31, warp0 = tid & ~31;
    std::int64_t const words = (n + 31) / 32;
    for (std::int64_t i = tid; i < words; i += nt) seen[i] = 0;
    long long mean = 0, last = 0;  // thread 0: the levels' mean time and the last level's start
    if (tid == 0) {
        cnt[0] = 1;
        cnt[1] = cnt[2] = 0;
        leave[0] = leave[1] = 0;
        q0[0] = source;
        order[0] = source;
        if (order_parent) order_parent[0] = source;
        starts[0] = 0;
    }
    __syncthreads();
    if (tid == 0) seen[source >> 5] |= 1u << (source & 31);
    long long largest = 0, start = 0;  // start: the level's first position in order
    int lvl = 0;
    __syncthreads();
    while (true) {
        int const c = static_cast<int>(cnt[lvl % 3]);
        Index* const cur = (lvl & 1) ? q1 : q0;
        Index* const nxt = (lvl & 1) ? q0 : q1;
        long long const next_start = start + c;
        if (tid == 0) starts[lvl + 1] = next_start;
        if (c == 0) break;
        if (c > max_frontier || leave[lvl & 1]) {  // to the work list: order[start, next_start)
            if (tid == 0)
                *out = block_outcome{lvl, c > max_frontier ? 1 : 2, c, largest, next_start, mean};
            return;
        }
        if (tid == 0 && level_cycles > 0) {
            long long const now = clock64();
            if (lvl > 0) mean += (now - last - mean) / 16;  // level lvl - 1's time
            last = now;
            leave[(lvl + 1) & 1] = mean > level_cycles;
        }
        largest = c > largest ? static_cast<long long>(c) : largest;
        unsigned* const ncnt = cnt + (lvl + 1) % 3;
        if (tid == 0) cnt[(lvl + 2) % 3] = 0;  // read by everyone a level ago
        for (int i0 = warp0; i0 < c; i0 += nt) {
            int const i = i0 + lane;
            Index u = 0, b = 0, deg = 0;
            if (i < c) {
                u = i < qcap ? cur[i] : order[start + i];
                b = ptr[u];
                deg = ptr[u + 1] - b;
            }
            auto const [excl, total] = async_detail::lay_out_edges(deg, lane);
            for (Index base = 0; base < total; base += 128) {
                Index vv[4], uu[4];
                gather_edges4(col, b, u, excl, total, base, lane, vv, uu);
                // The four claims at once: the words read, then the atomics issued back to back
                // (one after another, each waiting on the last, cost NY 5%).
                std::uint32_t word[4], was[4];
#pragma unroll
                for (int r = 0; r < 4; ++r) word[r] = vv[r] >= 0 ? seen[vv[r] >> 5] : ~0u;
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    std::uint32_t const bit = 1u << (vv[r] & 31);
                    was[r] = vv[r] >= 0 && !(word[r] & bit) ? atomicOr(seen + (vv[r] >> 5), bit)
                                                            : ~0u;
                }
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    if (was[r] & (1u << (vv[r] & 31))) continue;
                    int const j = static_cast<int>(atomicAdd(ncnt, 1u));
                    if (j < qcap) nxt[j] = vv[r];
                    order[next_start + j] = vv[r];
                    if (order_parent) order_parent[next_start + j] = uu[r];
                }
            }
        }
        ++lvl;
        start = next_start;
        __syncthreads();
    }
    if (tid == 0) *out = block_outcome{lvl, 0, 0, largest, start, mean};
}

/// A queued vertex and its parent, stored through distributed shared memory in one access.
template <class Index>
struct alignas(2 * sizeof(Index)) queued_vertex {
    Index v, p;
};

/// Shared memory of bfs_cluster a block: its share of the visited bits (the words w with w mod
/// C == its rank) and two queues of qcap queued vertices.
inline std::size_t cluster_bytes(std::int64_t n, int C, long long qcap, std::size_t index_bytes) {
    std::int64_t const words = (n + 31) / 32;
    return static_cast<std::size_t>((words + C - 1) / C) * sizeof(std::uint32_t) +
           4 * static_cast<std::size_t>(qcap) * index_bytes;
}

/// The vertices a block of a cluster of C owns (its words' 32 each): the length of its part.
inline std::int64_t cluster_part(std::int64_t n, int C) {
    std::int64_t const words = (n + 31) / 32;
    return (words + C - 1) / C * 32;
}

/// Where bfs_cluster writes the levels it expands: block b's vertices, their parents and levels
/// at b * part .. b * part + count[b] (each block its own part, in the order it expanded them,
/// coalesced; finish_cluster writes level[] and parent[] from them afterwards).
template <class Index>
struct cluster_parts {
    Index* v;
    Index* p;  // null: no parents
    std::int32_t* level;
    int* count;  // C: written when the cluster ends
    std::int64_t part;
};

/// The search continued from the block's handed-over frontier by a thread-block cluster of C
/// blocks (Hopper; C a power of two, at most 16), level by level with one cluster barrier a
/// level: the visited bits spread over the blocks by word (word w in block w mod C, reached
/// through distributed shared memory), a claimed vertex queued with its parent at its owner
/// (one store), and each block writing its queue to its own part (cluster_parts) as it expands
/// the level. The only cross-block read of a level is the blocks' counts, summed: no level's
/// positions are laid out across the blocks (lab/cluster_bisect.cu, H200, 2026-12-01: laying
/// them out a level, a count scan, a pass of its own and pairs stored as two values made this
/// kernel 9% slower than the lab's kernel 8 on NE). A vertex past its owner's queue goes to
/// `spill` (*spill_count, zero at launch); such a level, or one of more than max_total vertices
/// (0: no bound), is handed over: written to order from order_from (queues by rank, then the
/// spill) for the work list, its level in out. The search so far is order[0, starts[first_level]
/// + first_frontier), its last first_frontier vertices level first_level, at most qcap at any
/// owner (the caller's check).
template <class Index>
__global__ void __launch_bounds__(block_threads, 1)
    bfs_cluster(Index const* __restrict__ ptr, Index const* __restrict__ col, std::int64_t n,
                Index* __restrict__ order, Index* __restrict__ order_parent,
                long long const* __restrict__ starts, cluster_parts<Index> parts,
                queued_vertex<Index>* __restrict__ spill, unsigned long long* spill_count,
                int first_level, long long first_frontier, int qcap, long long max_total,
                block_outcome* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    using qv = queued_vertex<Index>;
    cg::cluster_group cluster = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char block_smem[];
    qv* const qa = reinterpret_cast<qv*>(block_smem);
    qv* const qb = qa + qcap;
    std::uint32_t* const seen = reinterpret_cast<std::uint32_t*>(qb + qcap);
    // By level mod 3 (as bfs_one_block): this level's count, the next's, the one to clear. A
    // count past qcap counts the owner's entries in the spill too.
    __shared__ int cnt[3];
    // The level's vertices in the cluster; whether it is handed over; this block's place in it
    // and the queued ones (the hand-over only).
    __shared__ int total_s, hand_s, lower_s, queued_s;
    constexpr unsigned full = 0xffffffffu;
    int const C = static_cast<int>(cluster.num_blocks());
    int const me = static_cast<int>(cluster.block_rank());
    int shift = 0;
    while ((1 << shift) < C) ++shift;
    int const tid = static_cast<int>(threadIdx.x), nt = static_cast<int>(blockDim.x);
    int const lane = tid & 31, warp0 = tid & ~31;
    int const wlocal = static_cast<int>(((n + 31) / 32 + C - 1) >> shift);
    for (int i = tid; i < wlocal; i += nt) seen[i] = 0;
    if (tid == 0) cnt[0] = cnt[1] = cnt[2] = 0;
    __syncthreads();
    // The visited set so far, each block its own words, and the frontier into its owners' queues.
    long long const fbegin = starts[first_level];
    long long const placed = fbegin + first_frontier;
    for (long long i = tid; i < placed; i += nt) {
        Index const v = order[i];
        int const w = static_cast<int>(v >> 5);
        if ((w & (C - 1)) != me) continue;
        atomicOr(seen + (w >> shift), 1u << (v & 31));
        if (i >= fbegin) qa[atomicAdd(cnt, 1)] = qv{v, order_parent ? order_parent[i] : v};
    }
    cluster.sync();
    Index* const my_v = parts.v + me * parts.part;
    Index* const my_p = parts.p ? parts.p + me * parts.part : nullptr;
    std::int32_t* const my_l = parts.level + me * parts.part;
    int pos = 0, largest = 0;  // pos: this block's vertices written to its part so far
    for (int k = 0;; ++k) {
        int const lvl = first_level + k;
        // The cluster's count of the level (every block's, complete at the barrier that ended
        // the last level), and whether it is handed over (an owner's queue overflowed into the
        // spill, or more than max_total); only then the lower ranks' share.
        if (tid < 32) {
            int const raw = tid < C ? *cluster.map_shared_rank(cnt + k % 3, tid) : 0;
            int t = raw;
            for (int o = 16; o > 0; o /= 2) t += __shfl_xor_sync(full, t, o);
            bool const hand = k > 0 && (__any_sync(full, raw > qcap) ||
                                        (max_total > 0 && t > max_total));
            if (hand) {
                int const q = min(raw, qcap);
                int x = q;
                for (int o = 1; o < 32; o *= 2) {
                    int const y = __shfl_up_sync(full, x, o);
                    if (lane >= o) x += y;
                }
                int const lower = __shfl_sync(full, x - q, me), queued = __shfl_sync(full, x, 31);
                if (tid == 0) lower_s = lower, queued_s = queued;
            }
            if (tid == 0) {
                total_s = t;
                hand_s = hand;
                cnt[(k + 2) % 3] = 0;  // read by everyone a level ago
            }
        }
        __syncthreads();
        int const total = total_s;
        int const c = min(cnt[k % 3], qcap);
        qv* const cur = (k & 1) ? qb : qa;
        qv* const nxt = (k & 1) ? qa : qb;
        if (total == 0 || hand_s) {
            if (hand_s) {  // the level into order for the work list: queues by rank, then the spill
                long long const at = placed + lower_s;
                for (int i = tid; i < c; i += nt) {
                    order[at + i] = cur[i].v;
                    if (order_parent) order_parent[at + i] = cur[i].p;
                }
                int const spilled = total - queued_s;
                for (int i = me * nt + tid; i < spilled; i += C * nt) {
                    order[placed + queued_s + i] = spill[i].v;
                    if (order_parent) order_parent[placed + queued_s + i] = spill[i].p;
                }
            }
            if (tid == 0) parts.count[me] = pos;
            if (tid == 0 && me == 0)
                *out = hand_s ? block_outcome{lvl, 1, total, largest, placed + total, 0}
                              : block_outcome{lvl, 0, 0, largest, placed, 0};
            cluster.sync();  // no block leaves while another may still read its counts
            return;
        }
        largest = total > largest ? total : largest;
        int* const ncnt = cnt + (k + 1) % 3;
        for (int i0 = warp0; i0 < c; i0 += nt) {
            int const i = i0 + lane;
            Index u = 0, b = 0, deg = 0;
            if (i < c) {
                qv const it = cur[i];
                u = it.v;
                if (k > 0) {  // level first_level is the block's, in order already
                    my_v[pos + i] = it.v;
                    if (my_p) my_p[pos + i] = it.p;
                    my_l[pos + i] = lvl;
                }
                b = ptr[u];
                deg = ptr[u + 1] - b;
            }
            auto const [excl, etotal] = async_detail::lay_out_edges(deg, lane);
            for (Index base = 0; base < etotal; base += 128) {
                Index vv[4], uu[4];
                gather_edges4(col, b, u, excl, etotal, base, lane, vv, uu);
                // The four claims at once on the owners' words.
                std::uint32_t* w[4];
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    int const wv = vv[r] < 0 ? 0 : static_cast<int>(vv[r] >> 5);
                    w[r] = cluster.map_shared_rank(seen + (wv >> shift), static_cast<unsigned>(wv & (C - 1)));
                }
                // The atomics at once, without reading the words first (a read is a round trip
                // through distributed shared memory as the atomic is: 3.6% of NE's search,
                // lab/cluster_bisect.cu, H200, 2026-12-01).
                std::uint32_t was[4];
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    was[r] = vv[r] >= 0 ? atomicOr(w[r], 1u << (vv[r] & 31)) : ~0u;
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    if (was[r] & (1u << (vv[r] & 31))) continue;
                    auto const ob = static_cast<unsigned>((vv[r] >> 5) & (C - 1));
                    int const j = atomicAdd(cluster.map_shared_rank(ncnt, ob), 1);
                    if (j < qcap)
                        *cluster.map_shared_rank(nxt + j, ob) = qv{vv[r], uu[r]};
                    else
                        spill[atomicAdd(spill_count, 1ull)] = qv{vv[r], uu[r]};
                }
            }
        }
        if (k > 0) pos += c;
        cluster.sync();
    }
#else
    __trap();  // launched only on devices of compute capability 9.0 or more (bfs_async)
#endif
}

/// The cluster's levels and parents into level[] and parent[] (null: none), over the device:
/// each block's part (cluster_parts), then the level it handed over (out->handed_over: its
/// out->frontier vertices at order[out->placed - out->frontier, out->placed), level out->levels).
template <class Index>
__global__ void finish_cluster(cluster_parts<Index> parts, int C, Index const* __restrict__ order,
                               Index const* __restrict__ order_parent,
                               block_outcome const* __restrict__ out, std::int32_t* level,
                               Index* parent) {
    long long const stride = static_cast<long long>(gridDim.x) * blockDim.x;
    long long const first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    long long const all = static_cast<long long>(C) * parts.part;
    for (long long i = first; i < all; i += stride) {
        long long const b = i / parts.part;
        if (i - b * parts.part >= parts.count[b]) continue;
        Index const v = parts.v[i];
        level[v] = parts.level[i];
        if (parent) parent[v] = parts.p[i];
    }
    if (out->handed_over)
        for (long long i = out->placed - out->frontier + first; i < out->placed; i += stride) {
            Index const v = order[i];
            level[v] = out->levels;
            if (parent) parent[v] = order_parent[i];
        }
}

/// The levels and parents of order's positions [from, out->placed) into level[] and parent[]
/// (null: none), over the device: position i of order is level l where starts[l] <= i <
/// starts[l + 1].
template <class Index>
__global__ void finish_levels(Index const* __restrict__ order,
                              Index const* __restrict__ order_parent,
                              long long const* __restrict__ starts,
                              block_outcome const* __restrict__ out, long long from,
                              std::int32_t* level, Index* parent) {
    int const levels = out->levels + (out->handed_over ? 1 : 0);  // the handed-over frontier too
    long long const placed = out->placed;
    long long const stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = from + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
         i < placed; i += stride) {
        int lo = 0, hi = levels;  // the last l with starts[l] <= i
        while (hi - lo > 1) {
            int const mid = (lo + hi) / 2;
            if (starts[mid] <= i) lo = mid;
            else hi = mid;
        }
        Index const v = order[i];
        level[v] = lo;
        if (parent) parent[v] = order_parent[i];
    }
}

}  // namespace kleene::cuda::bfs_block_detail

#pragma once
// Asynchronous label-correcting relaxation on one work list (BFS levels and SSSP distances on
// graphs of high diameter; graph_bfs.cu and graph_sssp.cu choose it). A level-synchronous search
// pays a barrier and a chain of dependent memory accesses per level: on a road network (over a
// thousand levels of a few thousand edges) that is most of its time, however few the edges
// (docs/lab/performance-history.md, "GPU BFS and SSSP on the road networks: a profile"). Here no
// step waits for a level to end: the search is one kernel whose warps take vertices from one
// first-in-first-out list as soon as they are written, lower their neighbours' labels with atomic
// min and append the neighbours they lowered. A vertex is relaxed again whenever its label drops,
// so the labels converge to the shortest distances (unit weights: BFS levels); the list's order
// keeps such corrections few on road networks (the explain trace counts the items a vertex). The
// search ends when every item appended has been processed.
//
// The list is a ring of cells (a bounded multi-producer multi-consumer queue in the manner of
// Vyukov's). Slot s of the list lives in cell s mod capacity. An item is a vertex, the label it
// was appended with, and its row (start and length, loaded beside the atomic min that lowered it,
// so that the warp taking it goes straight to the column indices: one dependent memory round trip
// fewer a step). Items of 32-bit vertices and labels are four 64-bit words, each a tag (slot + 1)
// beside one field: one poll of the four words finds and checks the item, and the writer needs no
// fence. Wider items keep their fields apart behind a sequence number (s + 1 once written, with
// store-release and load-acquire). A cell's `seq` becomes s + capacity once the item is taken:
// the writer of slot s + capacity, a lap later, waits for that.
//
// Readers: a warp claims 32 consecutive slots with one atomicAdd on `head` (possibly beyond what
// has been written: it then waits on them, which is how idle warps wait for work) and polls the
// first 8 still pending (a thousand idle warps' polls are most of the ring's memory traffic).
// Writers: a warp reserves 32 slots at a time with one atomicAdd on `tail`, aligned with the
// readers' claims, and fills them in order as it lowers vertices, so that the shared counter's
// atomic is on the path of one round of edges in many; a warp with nothing to do gives its unused
// reserved slots back as holes (vertex -1), which their readers skip. An item whose vertex has
// since been lowered again is stale: a later item carries the lower label, and its row is walked
// but not relaxed.
//
// The end: `pushed` counts items appended (lane 0 adds before the items are written), `done`
// items processed (a warp adds its count when it runs out of work, after a fence behind its
// additions to `pushed`). A waiting warp ends the search once done == pushed, read in that order:
// done never passes pushed, so equality seen in that order means that at the first read every
// appended item had been processed and none was being processed. The ring holds min(n, 2^22)
// items and four times the slots all warps can claim or reserve; a writer that waits over 4 ms for
// its cell (more items alive than that: a graph this list does not suit) sets `overflow`, and
// everyone leaves; the caller then runs a level-synchronous method instead. Past a deadline (60 s
// from the callers) the search stops and the caller throws device_error rather than hang.

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/device_functions.cuh>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace kleene::cuda::async_detail {

constexpr int async_max_threads = 1024;  // a block: 32 x warps a multiprocessor

/// The list's counters, each on its own 128-byte line (idle warps read `done` and `pushed`;
/// writers reserve from `tail` and add to `pushed`, warps that run dry add to `done`, claiming
/// warps to `head`).
struct alignas(128) async_counters {
    alignas(128) unsigned long long head;
    alignas(128) unsigned long long tail;
    alignas(128) unsigned long long done;
    alignas(128) unsigned long long pushed;   // items appended (holes not counted)
    unsigned long long kept;     // vertices a warp relaxed next itself, not through the list
    unsigned long long deadline_ns;  // %globaltimer value past which the search gives up
    int overflow;                    // a writer waited too long for its cell
    int timed_out;                   // the search ran past its time limit
};

/// Items of 32-bit vertices and labels are four 64-bit words a cell, each a 32-bit tag (the slot
/// + 1, low half) beside one field, so that a reader's four loads of one round trip both find and
/// check the item, and a writer needs no fence between the fields and a flag. Wider items keep
/// their fields apart behind a sequence number (store release, load acquire).
template <class D, class Index>
inline constexpr bool tagged_cells = sizeof(D) == 4 && sizeof(Index) == 4;

template <class D, class Index>
struct async_cells {
    unsigned long long* seq;  // see the top of the file; tagged: only "taken" (s + capacity)
    unsigned long long* word;  // tagged: 4 a cell (vertex, label, row start, row length)
    Index* vertex;             // the others
    D* label;   // the label the vertex was appended with
    Index* beg;  // its row
    Index* deg;
};

template <class D, class Index>
struct async_args {
    Index const* ptr;
    Index const* col;
    D* dist;
    async_cells<D, Index> cell;
    unsigned long long capacity;  // a power of two
    async_counters* ctr;
    unsigned poll_ns;  // an idle warp's pause between polls
    unsigned keep;     // lowered vertices a warp keeps to relax next itself, in [0, 32]
};

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <class T>
__device__ __forceinline__ T load_acquire(T const* p) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    if constexpr (sizeof(T) == 4) {
        unsigned v;
        asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return detail::bits_as<T>(v);
    } else {
        unsigned long long v;
        asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        return detail::bits_as<T>(v);
    }
}

template <class T>
__device__ __forceinline__ void store_release(T* p, T x) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    if constexpr (sizeof(T) == 4) {
        asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(detail::bits_as<unsigned>(x))
                     : "memory");
    } else {
        asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(p),
                     "l"(detail::bits_as<unsigned long long>(x))
                     : "memory");
    }
}

__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long x) {
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(x) : "memory");
}

template <class T>
__device__ __forceinline__ T load_relaxed(T const* p) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    if constexpr (sizeof(T) == 4) {
        unsigned v;
        asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return detail::bits_as<T>(v);
    } else {
        unsigned long long v;
        asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        return detail::bits_as<T>(v);
    }
}

/// Every edge weighs 1 (BFS levels).
template <class D>
struct unit_weight {
    __device__ __forceinline__ D operator()(std::int64_t) const { return D(1); }
};

/// The CSR's values, or its iso value.
template <class D>
struct csr_weight {
    D const* w;  // nullptr: iso
    D iso;
    __device__ __forceinline__ D operator()(std::int64_t k) const { return w ? w[k] : iso; }
};

/// A warp's rows laid end to end: lane j's `deg` edges are [excl_j, excl_j + deg_j) of the
/// warp's `total` (an exclusive scan over the lanes).
template <class Index>
struct warp_edges {
    Index excl, total;
};

template <class Index>
__device__ __forceinline__ warp_edges<Index> lay_out_edges(Index deg, int lane) {
    Index excl = deg;
    for (int o = 1; o < 32; o *= 2) {
        Index const y = __shfl_up_sync(0xffffffffu, excl, o);
        if (lane >= o) excl += y;
    }
    Index const total = __shfl_sync(0xffffffffu, excl, 31);
    return {excl - deg, total};
}

/// The lane whose edges hold the warp's e-th edge (the last lane whose edges start at or before
/// e), by binary search over the lanes' `excl`.
template <class Index>
__device__ __forceinline__ int edge_owner(Index excl, Index e) {
    int owner = 0;
    for (int step = 16; step > 0; step /= 2) {
        int const j = owner + step;
        Index const ej = __shfl_sync(0xffffffffu, excl, j & 31);
        if (j < 32 && ej <= e) owner = j;
    }
    return owner;
}

template <class Index, class D>
struct async_item {
    Index v;  // -1: a hole
    D label;
    Index beg, deg;
};

__device__ __forceinline__ unsigned long long tag_word(unsigned long long s, std::uint32_t x) {
    return ((s + 1) << 32) | x;
}

/// Writes one item into slot s (waiting, on a later lap, until slot s - capacity has been taken).
/// False when the wait gave up.
template <class D, class Index>
__device__ __forceinline__ bool write_item(async_args<D, Index> const& a, unsigned long long s,
                                           async_item<Index, D> const& it) {
    unsigned long long const c = s & (a.capacity - 1);
    if (s >= a.capacity) {
        unsigned long long const give_up = global_ns() + 4000000ull;
        // Tagged items: a relaxed poll. The item's stores below wait on its value (a control
        // dependency), and the reader stored it only after its own loads of the cell had
        // returned (see read_item), so no store here can overtake those loads; an acquire load
        // here invalidated the multiprocessor's L1 on every item written (CCTL.IVALL, 7% of
        // SSSP's stall samples on NE, and every warp's cached rows with it).
        while ((tagged_cells<D, Index> ? load_relaxed(a.cell.seq + c)
                                       : load_acquire(a.cell.seq + c)) != s) {
            if (load_relaxed(&a.ctr->overflow) != 0 || global_ns() > give_up) {
                atomicExch(&a.ctr->overflow, 1);
                return false;
            }
            __nanosleep(64);
        }
    }
    if constexpr (tagged_cells<D, Index>) {
        unsigned long long* w = a.cell.word + 4 * c;
        store_relaxed(w + 0, tag_word(s, detail::bits_as<std::uint32_t>(it.v)));
        store_relaxed(w + 1, tag_word(s, detail::bits_as<std::uint32_t>(it.label)));
        store_relaxed(w + 2, tag_word(s, detail::bits_as<std::uint32_t>(it.beg)));
        store_relaxed(w + 3, tag_word(s, detail::bits_as<std::uint32_t>(it.deg)));
    } else {
        a.cell.vertex[c] = it.v;
        a.cell.label[c] = it.label;
        a.cell.beg[c] = it.beg;
        a.cell.deg[c] = it.deg;
        store_release(a.cell.seq + c, s + 1);  // orders the item before it
    }
    return true;
}

/// Takes slot s's item if it has been written (and frees its cell for the next lap).
template <class D, class Index>
__device__ __forceinline__ bool read_item(async_args<D, Index> const& a, unsigned long long s,
                                          async_item<Index, D>& it) {
    unsigned long long const c = s & (a.capacity - 1);
    if constexpr (tagged_cells<D, Index>) {
        unsigned long long const* w = a.cell.word + 4 * c;
        unsigned long long const w0 = load_relaxed(w + 0), w1 = load_relaxed(w + 1),
                                 w2 = load_relaxed(w + 2), w3 = load_relaxed(w + 3);
        unsigned long long const tag = (s + 1) & 0xffffffffull;
        if ((w0 >> 32) != tag || (w1 >> 32) != tag || (w2 >> 32) != tag || (w3 >> 32) != tag)
            return false;
        it.v = detail::bits_as<Index>(static_cast<std::uint32_t>(w0));
        it.label = detail::bits_as<D>(static_cast<std::uint32_t>(w1));
        it.beg = detail::bits_as<Index>(static_cast<std::uint32_t>(w2));
        it.deg = detail::bits_as<Index>(static_cast<std::uint32_t>(w3));
    } else {
        if (load_acquire(a.cell.seq + c) != s + 1) return false;
        it.v = a.cell.vertex[c];
        it.label = a.cell.label[c];
        it.beg = a.cell.beg[c];
        it.deg = a.cell.deg[c];
    }
    // Free for the next lap. Tagged: a relaxed store suffices and saves a memory barrier on
    // every item taken (MEMBAR + ERRBAR, 10-14% of BFS's and SSSP's stall samples on NE): the
    // four loads' values were compared above, so they have returned before this store executes
    // (a control dependency; GPUs do not execute stores speculatively), and the writer of the
    // next lap waits for this value before it overwrites them. The other layout's field loads
    // are not compared, so its store stays a release.
    if constexpr (tagged_cells<D, Index>)
        store_relaxed(a.cell.seq + c, s + a.capacity);
    else
        store_release(a.cell.seq + c, s + a.capacity);
    return true;
}

/// The whole search; launch with any number of blocks of whole warps (no grid-wide
/// synchronization: a block that starts late claims slots beyond the end and leaves). Keep: a
/// warp keeps up to a.keep lowered vertices for its next round (a.keep > 0), with a.keep items a
/// warp of dynamic shared memory.
template <class D, class Index, class Weight, bool Keep>
__global__ void __launch_bounds__(async_max_threads)
    relax_async(async_args<D, Index> a, Weight weight) {
    constexpr unsigned full = 0xffffffffu;
    constexpr unsigned reserve = 32;  // slots a warp reserves at once for what it appends
    int const lane = static_cast<int>(threadIdx.x & 31);
    unsigned const below = (1u << lane) - 1u;
    unsigned long long slot = 0;
    bool pending = false;  // this lane holds a claimed slot not yet taken
    unsigned idle = 0;     // polls in a row that found nothing
    // The warp's reserved slots [res, res_end) (the same in every lane).
    unsigned long long res = 0, res_end = 0;
    // Items processed, not yet added to `done`: the count goes out when the warp runs out of
    // work, after a fence behind lane 0's additions to `pushed` for what they appended (a fence
    // and an atomic on every round would hold the warp up a round trip each time).
    unsigned long long finished = 0;
    unsigned long long kept_total = 0;  // items kept (see below), for the explain trace
    // Kept items: of the vertices a round lowers from items of the list, the first a.keep go
    // straight to this warp's next round (lane i holds the i-th) instead of through the list,
    // so that a step of a chain of lowerings does not wait for a write, a reader's poll and its
    // load; the rest are appended. What kept items lower goes on the list (a chain of kept
    // items runs ahead of the list's order and its labels are corrected many times over: BFS
    // on NE took 28 kept items a vertex and 4.5x the time). They are staged in shared memory
    // between the rounds (a.keep a warp, dynamic shared memory). A warp holding kept items has
    // not added its `finished` to `done`, so the search cannot look over meanwhile. The kernel
    // is built twice: Keep = false is the list alone (the code for kept items, even unused,
    // made BFS and SSSP 4-7% slower on the roads: H200, 2026-11-30, lab session 20).
    extern __shared__ __align__(16) unsigned char kept_stage[];
    async_item<Index, D>* const stage =
        reinterpret_cast<async_item<Index, D>*>(kept_stage) + (threadIdx.x / 32) * a.keep;
    unsigned nkept = 0;  // kept items for the next round (the same in every lane)
    while (true) {
        if (nkept == 0 && !__any_sync(full, pending)) {
            unsigned long long b = 0;
            if (lane == 0) b = atomicAdd(&a.ctr->head, 32ull);
            slot = __shfl_sync(full, b, 0) + static_cast<unsigned long long>(lane);
            pending = true;
        }
        bool have = false;
        Index v = 0, beg = 0, deg = 0;
        D label = D(0);
        bool const mine = Keep && static_cast<unsigned>(lane) < nkept;  // a kept item
        if constexpr (Keep) {
            __syncwarp();  // the stage was written in the last round's edges
            if (mine) {
                async_item<Index, D> const it = stage[lane];
                have = true, v = it.v, label = it.label, beg = it.beg, deg = it.deg;
            }
            nkept = 0;
            __syncwarp();  // read before this round's edges write the stage again
        }
        // A warp's 32 slots are one writer's reservation (both come in aligned blocks of 32),
        // filled in order: poll the first 8 still pending, not all (a thousand idle warps'
        // polls are most of the ring's memory traffic). Lanes holding a kept item skip a round.
        unsigned const waiting = __ballot_sync(full, pending);
        if (!mine && pending && lane < __ffs(waiting) - 1 + 8) {
            async_item<Index, D> it;
            if (read_item(a, slot, it)) {
                pending = false;
                have = it.v != Index(-1);  // not a hole
                if (have) v = it.v, label = it.label, beg = it.beg, deg = it.deg;
            }
        }
        unsigned const got = __ballot_sync(full, have);
        if (got == 0) {
            // Nothing to do: first give back the reserved slots as holes (their readers wait
            // on them); then, on the first empty poll after work and every 64th after that,
            // see whether the search is over (a thousand idle warps reading the counters more
            // often would crowd the writers' atomics on them).
            if (res < res_end) {
                if (res + lane < res_end)
                    (void)write_item(a, res + lane, async_item<Index, D>{Index(-1), D(0), 0, 0});
                res = res_end;
            }
            if (finished != 0 || kept_total != 0) {
                if (lane == 0) {
                    if (kept_total != 0) atomicAdd(&a.ctr->kept, kept_total);
                    __threadfence();
                    atomicAdd(&a.ctr->done, finished);
                }
                finished = 0;
                kept_total = 0;
            }
            int stop = 0;
            if (lane == 0 && (idle & 63u) == 0) {
                // Relaxed reads first (an acquire invalidates the multiprocessor's L1); only an
                // apparent end is confirmed by the ordered acquire reads the argument above needs.
                unsigned long long d = load_relaxed(&a.ctr->done);
                unsigned long long t = load_relaxed(&a.ctr->pushed);
                if (d == t) {
                    d = load_acquire(&a.ctr->done);
                    t = load_acquire(&a.ctr->pushed);
                }
                stop = d == t || load_relaxed(&a.ctr->overflow) != 0 ||
                       load_relaxed(&a.ctr->timed_out) != 0;
                if (!stop && global_ns() > a.ctr->deadline_ns) {
                    atomicExch(&a.ctr->timed_out, 1);
                    stop = 1;
                }
            }
            if (__shfl_sync(full, stop, 0)) return;
            ++idle;
            __nanosleep(idle < 16 ? 32u : a.poll_ns);
            continue;
        }
        idle = 0;
        // A vertex lowered again since its item was written is stale: a later item carries it.
        // Its row is still walked (the test waits on a load the column loads need not wait
        // for), but not relaxed. The others relax with the label they were appended with,
        // which is the vertex's label now.
        bool stale = false;
        if (have) stale = load_relaxed(a.dist + v) < label;
        // The edges of those rows, 32 at a time over the warp.
        auto const [excl, total] = lay_out_edges(deg, lane);
        for (Index base = 0; base < total; base += 32) {
            Index const e = base + lane;
            int const owner = edge_owner(excl, e);
            Index const k = __shfl_sync(full, beg, owner) + (e - __shfl_sync(full, excl, owner));
            D const du = __shfl_sync(full, label, owner);
            bool const skip = __shfl_sync(full, stale, owner);
            bool better = false;
            Index to = 0, to_beg = 0, to_end = 0;
            D nd = D(0);
            if (e < total) {
                to = a.col[k];
                nd = min_plus<D>::mul(du, weight(static_cast<std::int64_t>(k)));
                // The row of `to`, loaded beside the atomic (not after it) for its item.
                to_beg = a.ptr[to];
                to_end = a.ptr[to + 1];
                better = !skip && nd < infinity<D>() &&
                         detail::atomic_min_improves(a.dist + to, nd);
            }
            unsigned push = __ballot_sync(full, better);
            if (!push) continue;
            // The first ones lowered from the list's items are kept, while there is room.
            unsigned keepable = 0;
            if (Keep && nkept < a.keep) {  // the same in every lane: all of them shuffle
                bool const from_kept = __shfl_sync(full, mine, owner);
                keepable = __ballot_sync(full, better && !from_kept);
            }
            if (keepable) {
                unsigned const room = a.keep - nkept;
                unsigned const r = __popc(keepable & below);
                unsigned take = keepable;  // the lowest `room` lanes of keepable
                if (__popc(keepable) > static_cast<int>(room)) {
                    unsigned m = keepable;
                    for (unsigned i = 0; i < room; ++i) m &= m - 1;
                    take = keepable & ~m;
                }
                if (((take >> lane) & 1u) != 0) {
                    stage[nkept + r] = async_item<Index, D>{to, nd, to_beg, to_end - to_beg};
                    better = false;
                }
                nkept += static_cast<unsigned>(__popc(take));
                push &= ~take;
                if (!push) continue;
            }
            // Slots: what is left of the warp's reservation, then a new one (its atomic is on
            // the path of one round in many, not of every round).
            unsigned const count = __popc(push);
            unsigned long long const left = res_end - res;
            unsigned long long fresh = 0;
            unsigned long long want = 0;
            if (left < count) {
                want = max(static_cast<unsigned long long>(reserve), count - left);
                unsigned long long b = 0;
                if (lane == 0) b = atomicAdd(&a.ctr->tail, want);
                fresh = __shfl_sync(full, b, 0);
            }
            if (lane == 0) atomicAdd(&a.ctr->pushed, static_cast<unsigned long long>(count));
            if (better) {
                unsigned const r = __popc(push & below);
                unsigned long long const s = r < left ? res + r : fresh + (r - left);
                (void)write_item(a, s, async_item<Index, D>{to, nd, to_beg, to_end - to_beg});
            }
            if (left < count) {
                res = fresh + (count - left);
                res_end = fresh + want;
            } else {
                res += count;
            }
        }
        if constexpr (Keep) {
            unsigned const listed = __ballot_sync(full, have && !mine);
            finished += static_cast<unsigned long long>(__popc(listed));
            kept_total += static_cast<unsigned long long>(__popc(got & ~listed));
        } else {
            finished += static_cast<unsigned long long>(__popc(got));
        }
    }
}

/// Where the list starts: the source alone (count 0: dist[i] = infinity, dist[source] = 0), or
/// `count` vertices already labelled `label` in dist, which is then left as it is (a search that
/// ran its first levels elsewhere hands over its frontier: graph_bfs.cu's one block).
template <class D, class Index>
struct async_seed {
    Index const* v = nullptr;  // device; count of them
    long long count = 0;
    D label{};
};

/// dist as the seed says; every cell waits for its first lap's slot, and slots [0, count) hold
/// the seed's items (the source alone by default), the rest of the first 32-slot block holes.
template <class D, class Index>
__global__ void async_init(D* dist, std::int64_t n, Index const* ptr, Index source,
                           async_seed<D, Index> seed, async_cells<D, Index> cell,
                           unsigned long long capacity, async_counters* ctr,
                           unsigned long long limit_ns) {
    std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
    std::int64_t const end = std::max(n, static_cast<std::int64_t>(capacity));
    long long const items = seed.count > 0 ? seed.count : 1;
    long long const written = (items + 31) / 32 * 32;  // items, then holes to a block of 32
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < end;
         i += stride) {
        if (seed.count == 0 && i < n) dist[i] = i == std::int64_t(source) ? D(0) : infinity<D>();
        if (i >= static_cast<std::int64_t>(capacity)) continue;
        auto const c = static_cast<unsigned long long>(i);
        if (i < written) {
            bool const item = i < items;
            Index const v = !item ? Index(-1) : seed.count > 0 ? seed.v[i] : source;
            Index const beg = item ? ptr[v] : Index(0);
            Index const deg = item ? Index(ptr[v + 1] - beg) : Index(0);
            D const label = seed.count > 0 ? seed.label : D(0);
            if constexpr (tagged_cells<D, Index>) {
                cell.seq[c] = c;
                cell.word[4 * c] = tag_word(c, detail::bits_as<std::uint32_t>(v));
                cell.word[4 * c + 1] = tag_word(c, item ? detail::bits_as<std::uint32_t>(label) : 0u);
                cell.word[4 * c + 2] = tag_word(c, detail::bits_as<std::uint32_t>(beg));
                cell.word[4 * c + 3] = tag_word(c, detail::bits_as<std::uint32_t>(deg));
            } else {
                cell.vertex[c] = v;
                cell.label[c] = label;
                cell.beg[c] = beg;
                cell.deg[c] = deg;
                cell.seq[c] = c + 1;
            }
        } else if constexpr (tagged_cells<D, Index>) {
            cell.seq[c] = c;  // no reader yet; the tags (c, not slot c's c + 1) say empty
            for (int f = 0; f < 4; ++f) cell.word[4 * c + f] = c << 32;
        } else {
            cell.seq[c] = c;  // waiting
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        ctr->head = 0;
        ctr->tail = static_cast<unsigned long long>(written);  // reservations stay aligned
        ctr->done = 0;
        ctr->pushed = static_cast<unsigned long long>(items);
        ctr->kept = 0;
        ctr->overflow = 0;
        ctr->timed_out = 0;
        ctr->deadline_ns = global_ns() + limit_ns;
    }
}

/// How a search on the work list went.
struct async_outcome {
    bool finished = false;  // false: a writer gave up waiting for its cell; dist is not final
    unsigned long long items = 0;    // items appended (the source included)
    unsigned long long holes = 0;    // reserved slots given back unused
    unsigned long long kept = 0;     // vertices relaxed next by the warp that lowered them
    long long capacity = 0;  // cells of the ring
    unsigned blocks = 0;
    int threads = 0;  // a block
    double seconds = 0;  // the kernel alone (events)

    /// One line for the explain trace.
    std::string note(std::int64_t n) const {
        char buf[400];
        std::snprintf(buf, sizeof buf,
                      "asynchronous work list: %u blocks of %d threads, a ring of %lld cells, %llu "
                      "items for %lld vertices (%.2f a vertex; %llu reserved slots unused) and "
                      "%llu kept by the warp that lowered them (%.2f a vertex), %.3f ms%s",
                      blocks, threads, capacity, items, static_cast<long long>(n),
                      n ? double(items) / double(n) : 0.0, holes, kept,
                      n ? double(kept) / double(n) : 0.0, seconds * 1e3,
                      finished ? "" : "; the ring was full (a writer waited over 4 ms)");
        return buf;
    }
};

/// Relaxes from `source` on the work list into dist (n values, overwritten), on stream st; or,
/// given a seed, from the seed's vertices, with dist as it is (see async_seed).
/// warps_per_sm: the kernel's warps a multiprocessor (one block each); poll_ns: an idle warp's pause between
/// polls; keep: lowered vertices a warp relaxes next itself (at most 32); time_limit_s: the
/// search throws device_error past it (a safety net, not a tuning knob).
template <class D, class Index, class Weight>
async_outcome run_async(Index const* ptr, Index const* col, Weight weight, std::int64_t n,
                        D* dist, Index source, int warps_per_sm, unsigned poll_ns,
                        unsigned keep, double time_limit_s, char const* what,
                        ::kleene::cuda::detail::device_stream st,
                        async_seed<D, Index> seed = {}) {
    using cuda::detail::stream_buffer;
    async_outcome out;
    out.blocks = cuda::detail::persistent_blocks(1);
    out.threads = 32 * std::clamp(warps_per_sm, 1, 32);
    // A lap of the ring: n vertices (at most 2^22: the frontiers of the graphs this list suits
    // are far smaller) and twice the slots all warps can claim or reserve ahead, rounded up to a
    // power of two.
    long long const want = std::min<long long>(n, 1ll << 22) +
                           4 * static_cast<long long>(out.blocks) * out.threads + 1024 +
                           2 * seed.count;
    out.capacity = 1;
    while (out.capacity < want) out.capacity *= 2;
    auto const cap = static_cast<std::size_t>(out.capacity);
    constexpr bool tagged = tagged_cells<D, Index>;
    stream_buffer<unsigned long long> seq(cap, st), word(tagged ? 4 * cap : 0, st);
    stream_buffer<Index> vertex(tagged ? 0 : cap, st), beg(tagged ? 0 : cap, st),
        deg(tagged ? 0 : cap, st);
    stream_buffer<D> label(tagged ? 0 : cap, st);
    stream_buffer<async_counters> ctr(1, st);
    async_cells<D, Index> const cells{seq.data(), word.data(), vertex.data(), label.data(),
                                      beg.data(), deg.data()};
    event start(true), stop(true);  // cuda/stream.hpp; recorded on st
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start.native()), st));
    async_init<D, Index>
        <<<cuda::detail::blocks_for(std::max(static_cast<std::size_t>(n), cap), 256, 4096), 256, 0,
           st>>>(dist, n, ptr, source, seed, cells, static_cast<unsigned long long>(cap),
                 ctr.data(), static_cast<unsigned long long>(time_limit_s * 1e9));
    KLEENE_CUDA_CHECK_LAUNCH("async_init");
    async_args<D, Index> const args{
        ptr, col, dist, cells, static_cast<unsigned long long>(cap), ctr.data(), poll_ns,
        std::min(keep, 32u)};
    std::size_t const stage_bytes =
        static_cast<std::size_t>(out.threads / 32) * args.keep * sizeof(async_item<Index, D>);
    if (args.keep != 0)
        relax_async<D, Index, Weight, true>
            <<<out.blocks, out.threads, stage_bytes, st>>>(args, weight);
    else
        relax_async<D, Index, Weight, false><<<out.blocks, out.threads, 0, st>>>(args, weight);
    KLEENE_CUDA_CHECK_LAUNCH("relax_async");
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop.native()), st));
    async_counters c{};
    cuda::detail::copy_to_host(&c, ctr.data(), 1, st);
    out.seconds = double(event::elapsed_ms(start, stop)) / 1000.0;
    if (c.timed_out)
        throw device_error(std::string(what) + ": the asynchronous search ran past its limit of " +
                           std::to_string(time_limit_s) + " s");
    out.items = c.pushed;
    out.holes = c.tail - c.pushed;
    out.kept = c.kept;
    out.finished = c.overflow == 0;
    return out;
}

}  // namespace kleene::cuda::async_detail

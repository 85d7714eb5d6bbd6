// A region-per-block SSSP / BFS for road networks, measured before it goes into the library
// (issue 38: the GPU work list is bound by its chain of dependent global-memory steps, about 4 us
// each; lab/chain_latency.cu measured 0.14-0.21 us a step in one block's shared memory and
// lab/road_regions.py that NE's deepest chains cross only 33-39 of 128 regions).
//
// The graph is cut into R regions by recursive BFS bisection and renumbered so that a region is a
// range of vertex ids. One block a region, all co-resident (a cooperative launch): the block keeps
// its region's labels in shared memory and relaxes in rounds (Bellman-Ford on a frontier: the
// vertices lowered in the last round, each listed once, a bit a vertex), without any grid-wide
// barrier. An edge into another region lowers the global label with atomic min and, if that
// lowered it, hands the vertex to its region's inbox (a ring in global memory; a flag a vertex keeps
// it there at most once). A block with an empty frontier polls its inbox; the search ends when
// `pending` (items handed over and not yet processed to the end, plus the source) is zero.
//
// Kernels (--kernels, a list): 2, the rows read from the CSR in global memory and the frontier
// as two lists; 3, the region's rows in shared memory too and the frontier as a bit a vertex;
// both with an optional window on the labels a round relaxes (--windows-sssp, --windows-bfs; 0:
// none). For BFS only: 4, the whole search in one block, level by level, no regions (a thread a
// vertex, or a warp 32 vertices; visited bits in shared or global memory); 5, the same over a
// thread-block cluster (--clusters, a list of sizes; distributed shared memory); 6, kernel 4
// with the rows as a padded table (an int4 a vertex: one read of the graph a level), and (with 6)
// kernel 7, kernel 4's warp mode with its claims at once and its writes deferred; 8, kernel 5
// likewise (--clusters).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 lab/region_sssp.cu -o region_sssp
//   ./region_sssp road_NE.mtx [--kernels 2,3,4,5] [--regions 64,128] [--threads 512,1024]
//                 [--sources-file F | --sources 16] [--runs 5] [--bfs | --both] [--check K]
//                 [--windows-sssp 0,1024] [--windows-bfs 0,8] [--poll-ns 500] [--clusters 1,16]
// Prints per configuration the median over sources of each source's median kernel time (CUDA
// events, the labels' initialisation included), rounds, items and the rounds' cost by kind;
// checks the first K sources' labels against Dijkstra on the host (BFS: levels, and kernels 4
// and 5 their parents, against a host BFS). Measured: docs/lab/session25-2026-12-01.
#include "mtx_graph.hpp"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#define CHECK(x)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

using u32 = unsigned;
using u64 = unsigned long long;
constexpr u32 INF = 0xffffffffu;

using csr = lab_csr<int>;

// Recursive BFS bisection; returns the new order (order[new] = old) and the regions' offsets.
struct partition {
    std::vector<int> order, off;
};

static partition bisect_all(csr const& g, int depth) {
    partition p;
    std::vector<int> tag(g.n, -1), seen(g.n, -1);
    int stamp = 0, visit = 0;
    std::vector<int> q;
    auto bfs = [&](std::vector<int> const& part, int start, int mytag) {
        ++visit;
        q.clear();
        q.push_back(start);
        seen[start] = visit;
        for (std::size_t h = 0; h < q.size(); ++h) {
            int u = q[h];
            for (int k = g.ptr[u]; k < g.ptr[u + 1]; ++k) {
                int v = g.col[k];
                if (tag[v] == mytag && seen[v] != visit) seen[v] = visit, q.push_back(v);
            }
        }
        if (q.size() < part.size())
            for (int v : part)
                if (seen[v] != visit) q.push_back(v);
        return q;
    };
    std::function<void(std::vector<int>, int)> rec = [&](std::vector<int> part, int d) {
        if (d == 0 || part.size() < 2) {
            p.off.push_back(int(p.order.size()));
            p.order.insert(p.order.end(), part.begin(), part.end());
            return;
        }
        int const mytag = stamp++;
        for (int v : part) tag[v] = mytag;
        int start = part[0];
        for (int i = 0; i < 2; ++i) start = bfs(part, start, mytag).back();
        std::vector<int> ord = bfs(part, start, mytag);
        std::size_t const half = ord.size() / 2;
        std::vector<int> a(ord.begin(), ord.begin() + half), b(ord.begin() + half, ord.end());
        rec(std::move(a), d - 1);
        rec(std::move(b), d - 1);
    };
    std::vector<int> all(g.n);
    for (int i = 0; i < g.n; ++i) all[i] = i;
    rec(all, depth);
    p.off.push_back(g.n);
    return p;
}

static csr permute(csr const& g, std::vector<int> const& order, std::vector<int>& newid) {
    newid.assign(g.n, 0);
    for (int i = 0; i < g.n; ++i) newid[order[i]] = i;
    csr h;
    h.n = g.n;
    h.ptr.assign(g.n + 1, 0);
    h.col.resize(g.col.size());
    h.w.resize(g.w.size());
    for (int i = 0; i < g.n; ++i) {
        int o = order[i];
        h.ptr[i + 1] = h.ptr[i] + (g.ptr[o + 1] - g.ptr[o]);
        int k2 = h.ptr[i];
        for (int k = g.ptr[o]; k < g.ptr[o + 1]; ++k, ++k2) h.col[k2] = newid[g.col[k]], h.w[k2] = g.w[k];
    }
    return h;
}

// ---------------------------------------------------------------------------------- the kernel

struct region_args {
    int const* ptr;
    int const* col;
    u32 const* w;       // nullptr: unit weights
    int const* off;     // R + 1
    int R;
    u32* dist;          // global labels (new numbering)
    u32* inflag;        // a vertex is in its region's inbox
    u64* inbox;         // R x cap cells: (slot + 1) << 32 | vertex
    u64* inbox_tail;    // R, each on its own 128-byte line (stride 16)
    u32 cap;            // a power of two
    u64* pending;
    u64* stats;         // rounds, items, handed, idle polls
    int* abort;
    u32* pub;           // R: each region's least listed label (INF: nothing listed)
    u32 window;         // a round relaxes the labels up to the least listed anywhere + window
    u64 const* deadline;  // %globaltimer past which the search gives up (abort = 1)
    int smax;           // largest region
    // Kernel 3: each region's rows in shared memory. rp_all: per region size + 1 local row
    // offsets (u16) at off[r] + r; adj_all: per region its entries at adj_off[r]: intra-region
    // (bit 31 clear) local column in bits 0-15 and weight in bits 16-30; across regions (bit 31
    // set) the global entry index in bits 0-30.
    unsigned short const* rp_all;
    u32 const* adj_all;
    int const* adj_off;
    int wmax, emax;
    unsigned poll_ns;  // kernel 3: an idle block's pause between polls of its inbox
};

__device__ __forceinline__ u64 gtime() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ u64 ld_relaxed(u64 const* p) {
    u64 v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ u32 ld_relaxed32(u32 const* p) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_relaxed(u64* p, u64 v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed32(u32* p, u32 v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void red_min(u32* p, u32 v) {
    asm volatile("red.relaxed.gpu.global.min.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <bool Unit>
__global__ void __launch_bounds__(1024, 1) region_relax(region_args a, int source) {
    extern __shared__ __align__(16) unsigned char smem[];
    int const S = a.smax;
    u32* lab = reinterpret_cast<u32*>(smem);
    int* const list0 = reinterpret_cast<int*>(lab + S);
    int* const list1 = reinterpret_cast<int*>(lab + 2 * S);
    u32* bits = reinterpret_cast<u32*>(lab + 3 * S);
    __shared__ int cnt[2];
    __shared__ u64 ih, it;  // inbox: slots taken up to ih, tail seen it
    __shared__ int stop;
    __shared__ u32 lim, nmin;  // this round's window; the least label listed for the next
    __shared__ u64 s_rounds, s_items, s_handed, s_deferred;
    __shared__ u64 s_busy_ns, s_push_ns, s_push_rounds, s_first, s_last;
    __shared__ int pushed_round;
    int const r = blockIdx.x;
    int const base = a.off[r], size = a.off[r + 1] - base;
    int const tid = threadIdx.x, nt = blockDim.x, lane = tid & 31;
    for (int i = tid; i < size; i += nt) lab[i] = INF;
    for (int i = tid; i < (size + 31) / 32; i += nt) bits[i] = 0;
    u64 const deadline_ns = *a.deadline;
    u64 taken = 0;  // tid 0: items taken (the source included) not yet retired from `pending`
    if (tid == 0) {
        cnt[0] = cnt[1] = 0;
        ih = it = 0;
        stop = 0;
        lim = a.window;
        s_rounds = s_items = s_handed = s_deferred = 0;
        s_busy_ns = s_push_ns = s_push_rounds = s_last = 0;
        s_first = ~0ull;
        pushed_round = 0;
    }
    __syncthreads();
    int q = 0;  // the list that the next round processes
    if (tid == 0 && source >= base && source < base + size) {
        int const ls = source - base;
        lab[ls] = 0;
        list0[0] = ls;
        cnt[0] = 1;
        bits[ls >> 5] |= 1u << (ls & 31);
        taken = 1;
    }
    u64* const my_inbox = a.inbox + u64(r) * a.cap;
    while (true) {
        // Take what the inbox holds into the next round's list.
        u64 const h0 = ih, t0 = it;
        for (u64 s = h0 + tid; s < t0; s += nt) {
            u64* cell = my_inbox + (s & (a.cap - 1));
            u64 c;
            while (((c = ld_relaxed(cell)) >> 32) != ((s + 1) & 0xffffffffull)) {
            }
            int const v = int(c & 0xffffffffu);
            atomicExch(a.inflag + v, 0u);
            __threadfence();
            u32 const d = ld_relaxed32(a.dist + v);
            int const lv = v - base;
            if (d < atomicMin(lab + lv, d)) {
                u32 const bit = 1u << (lv & 31);
                if (!(atomicOr(bits + (lv >> 5), bit) & bit)) (q ? list1 : list0)[atomicAdd(cnt + q, 1)] = lv;
            }
        }
        __syncthreads();
        int const items = cnt[q];
        if (items == 0) {
            if (tid == 0) {
                ih = t0;
                taken += t0 - h0;
                st_relaxed32(a.pub + r, INF);
                if (taken) {
                    __threadfence();
                    atomicAdd(a.pending, u64(0) - taken);
                    taken = 0;
                }
                unsigned idle = 0;
                while (true) {
                    u64 const t = ld_relaxed(a.inbox_tail + 16 * r);
                    if (t != ih) {
                        it = t;
                        break;
                    }
                    if (ld_relaxed(a.pending) == 0 || *(volatile int*)a.abort) {
                        stop = 1;
                        break;
                    }
                    if ((++idle & 255) == 0 && gtime() > deadline_ns) {
                        atomicExch(a.abort, 1);
                        stop = 1;
                        break;
                    }
                    __nanosleep(idle < 32 ? 20 : 100);
                }
            }
            __syncthreads();
            if (stop) break;
            continue;
        }
        __syncthreads();  // everyone has read cnt[q]
        if (tid == 0) {
            cnt[q ^ 1] = 0;
            nmin = INF;
            taken += t0 - h0;
            ih = t0;
            ++s_rounds;
            s_items += items;
        }
        __syncthreads();
        u64 const round_start = tid == 0 ? gtime() : 0;
        u32 const L = lim;
        u64 tail = 0;
        if (tid == 0) tail = ld_relaxed(a.inbox_tail + 16 * r);  // used at the round's end
        // Warp 0: the other regions' least listed labels, for the next round's window.
        u32 seen = INF;
        if (tid < 32)
            for (int j = lane; j < a.R; j += 32) seen = min(seen, ld_relaxed32(a.pub + j));
        int* const cur = q ? list1 : list0;
        int* const nxt = q ? list0 : list1;
        u32 mymin = INF;
        unsigned deferred = 0;
        for (int i = tid; i < items; i += nt) {
            int const lv = cur[i];
            u32 const d0 = *(volatile u32*)(lab + lv);
            if (d0 > L) {  // beyond the window: listed again, as it is
                nxt[atomicAdd(cnt + (q ^ 1), 1)] = lv;
                mymin = min(mymin, d0);
                ++deferred;
                continue;
            }
            atomicAnd(bits + (lv >> 5), ~(1u << (lv & 31)));
            u32 const d = *(volatile u32*)(lab + lv);
            int const v = base + lv;
            int const b = a.ptr[v], e = a.ptr[v + 1];
            for (int k = b; k < e; ++k) {
                int const x = a.col[k];
                u32 const nd = d + (Unit ? 1u : a.w[k]);
                int const lx = x - base;
                if (unsigned(lx) < unsigned(size)) {
                    if (nd < atomicMin(lab + lx, nd)) {
                        red_min(a.dist + x, nd);
                        mymin = min(mymin, nd);
                        u32 const bit = 1u << (lx & 31);
                        if (!(atomicOr(bits + (lx >> 5), bit) & bit)) nxt[atomicAdd(cnt + (q ^ 1), 1)] = lx;
                    }
                } else if (nd < atomicMin(a.dist + x, nd)) {
                    __threadfence();
                    if (atomicExch(a.inflag + x, 1u) == 0) {
                        // The region of x: binary search of the offsets.
                        int lo = 0, hi = a.R;
                        while (hi - lo > 1) {
                            int const mid = (lo + hi) / 2;
                            if (a.off[mid] <= x) lo = mid; else hi = mid;
                        }
                        atomicAdd(a.pending, 1ull);
                        u64 const s = atomicAdd(a.inbox_tail + 16 * lo, 1ull);
                        __threadfence();
                        st_relaxed(a.inbox + u64(lo) * a.cap + (s & (a.cap - 1)), ((s + 1) << 32) | u32(x));
                        atomicAdd(&s_handed, 1ull);
                        pushed_round = 1;
                    }
                }
            }
        }
        // The least label listed for the next round, over the block.
        for (int o = 16; o > 0; o /= 2) mymin = min(mymin, __shfl_xor_sync(0xffffffffu, mymin, o));
        if (lane == 0 && mymin != INF) atomicMin(&nmin, mymin);
        if (deferred) atomicAdd(&s_deferred, u64(deferred));
        __syncthreads();
        if (tid < 32) {
            u32 m = min(seen, nmin);
            for (int o = 16; o > 0; o /= 2) m = min(m, __shfl_xor_sync(0xffffffffu, m, o));
            if (tid == 0) {
                st_relaxed32(a.pub + r, nmin);
                lim = m == INF ? INF : (u64(m) + a.window >= INF ? INF - 1 : m + a.window);
                it = tail;
                u64 const now = gtime();
                s_busy_ns += now - round_start;
                if (pushed_round) s_push_ns += now - round_start, ++s_push_rounds, pushed_round = 0;
                if (s_first == ~0ull) s_first = round_start;
                s_last = now;
            }
        }
        q ^= 1;
        __syncthreads();
    }
    for (int i = tid; i < size; i += nt) a.dist[base + i] = lab[i];
    if (tid == 0) {
        atomicAdd(a.stats + 0, s_rounds);
        atomicAdd(a.stats + 1, s_items - s_deferred);
        atomicAdd(a.stats + 2, s_handed);
        atomicAdd(a.stats + 3, s_deferred);
        atomicAdd(a.stats + 4, s_busy_ns);
        atomicAdd(a.stats + 5, s_push_ns);
        atomicAdd(a.stats + 6, s_push_rounds);
        if (s_first != ~0ull) atomicMin(a.stats + 7, s_first), atomicMax(a.stats + 8, s_last);
    }
}


// Kernel 3: the region's rows in shared memory, the frontier as a bit a vertex (a warp a word of
// 32 vertices, a lane a vertex), one barrier a round (__syncthreads_or: is anything listed next).
template <bool Unit>
__global__ void __launch_bounds__(1024, 1) region_smem(region_args a, int source) {
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr unsigned full = 0xffffffffu;
    int const r = blockIdx.x;
    int const base = a.off[r], size = a.off[r + 1] - base;
    int const words = (size + 31) / 32;
    int const e0 = a.adj_off[r], E = a.adj_off[r + 1] - e0;
    u32* const lab = reinterpret_cast<u32*>(smem);
    u32* const F0 = lab + a.smax;
    u32* const F1 = F0 + a.wmax;
    u32* const adj = F1 + a.wmax;
    unsigned short* const rp = reinterpret_cast<unsigned short*>(adj + a.emax);
    __shared__ u64 ih[2], it[2];  // by round parity: inbox slots taken up to ih, tail seen it
    __shared__ u32 lim[2], nmin[2];
    __shared__ int stop;
    __shared__ u64 s_rounds, s_items, s_handed, s_deferred;
    __shared__ u64 s_busy_ns, s_push_ns, s_push_rounds, s_first, s_last;
    __shared__ int pushed_round, cross_round, arrive_round;
    __shared__ u64 s_plain_ns, s_plain_rounds, s_cross_ns, s_cross_rounds, s_arrive_ns, s_arrive_rounds;
    // Copies in flight (cp.async, L2): the inbox's tail and the regions' published labels, read a
    // round after they were asked for, so that no global load is on a round's path.
    __shared__ __align__(16) u64 tail_buf[2];
    __shared__ __align__(16) u32 pub_buf[512];
    int const tid = threadIdx.x, nt = blockDim.x, lane = tid & 31, warp = tid >> 5, nwarps = nt >> 5;
    for (int i = tid; i < size; i += nt) lab[i] = INF;
    for (int i = tid; i <= size; i += nt) rp[i] = a.rp_all[base + r + i];
    for (int i = tid; i < E; i += nt) adj[i] = a.adj_all[e0 + i];
    for (int i = tid; i < 512; i += nt) pub_buf[i] = INF;
    if (tid == 0) tail_buf[0] = tail_buf[1] = 0;
    for (int i = tid; i < words; i += nt) F0[i] = F1[i] = 0;
    u64 const deadline_ns = *a.deadline;
    u64 taken = 0;
    if (tid == 0) {
        ih[0] = it[0] = ih[1] = it[1] = 0;
        lim[0] = lim[1] = a.window;
        nmin[0] = nmin[1] = INF;
        stop = 0;
        s_rounds = s_items = s_handed = s_deferred = 0;
        s_busy_ns = s_push_ns = s_push_rounds = s_last = 0;
        s_first = ~0ull;
        pushed_round = cross_round = arrive_round = 0;
        s_plain_ns = s_plain_rounds = s_cross_ns = s_cross_rounds = s_arrive_ns = s_arrive_rounds = 0;
    }
    __syncthreads();
    if (tid == 0 && source >= base && source < base + size) {
        int const ls = source - base;
        lab[ls] = 0;
        F0[ls >> 5] |= 1u << (ls & 31);
        taken = 1;
    }
    __syncthreads();
    bool const windowed = a.window != INF;
    u32 seen = INF;  // warp 0: the least of the other regions' published labels (a round late)
    u64* const my_inbox = a.inbox + u64(r) * a.cap;
    int p = 0;
    unsigned items_round = 0;
    while (true) {
        u32* const cur = p ? F1 : F0;
        u32* const nxt = p ? F0 : F1;
        u64 const round_start = tid == 0 ? gtime() : 0;
        int any = 0;
        u64 const h0 = ih[p], t0 = it[p];
        for (u64 s = h0 + tid; s < t0; s += nt) {
            u64* cell = my_inbox + (s & (a.cap - 1));
            u64 c;
            while (((c = ld_relaxed(cell)) >> 32) != ((s + 1) & 0xffffffffull)) {
            }
            int const v = int(c & 0xffffffffu);
            arrive_round = 1;
            atomicExch(a.inflag + v, 0u);
            __threadfence();
            u32 const d = ld_relaxed32(a.dist + v);
            int const lv = v - base;
            if (d < atomicMin(lab + lv, d)) {
                atomicOr(nxt + (lv >> 5), 1u << (lv & 31));
                any = 1;
            }
        }
        u32 const L = lim[p];
        u64 tail = 0;
        u32 loaded = INF;
        if (tid < 32) {
            // What was asked for last round, then the next copies.
            asm volatile("cp.async.wait_all;" ::: "memory");
            if (tid == 0) tail = tail_buf[0];
            if (windowed)
                for (int j = lane; j < a.R; j += 32) loaded = min(loaded, pub_buf[j]);
            __syncwarp();
            if (tid == 0) {
                unsigned const dst = unsigned(__cvta_generic_to_shared(tail_buf));
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst),
                             "l"(a.inbox_tail + 16 * r) : "memory");
            }
            if (windowed)
                for (int j = 4 * lane; j < a.R; j += 128) {
                    unsigned const dst = unsigned(__cvta_generic_to_shared(pub_buf + j));
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst),
                                 "l"(a.pub + j) : "memory");
                }
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        u32 mymin = INF;
        unsigned done_here = 0, kept_here = 0;
        for (int wd = warp; wd < words; wd += nwarps) {
            u32 const m = cur[wd];
            if (m == 0) continue;
            bool keep = false;
            if ((m >> lane) & 1u) {
                int const lv = wd * 32 + lane;
                u32 const d = *(volatile u32*)(lab + lv);
                if (d > L) {
                    keep = true;
                    mymin = min(mymin, d);
                } else {
                    ++done_here;
                    int const b = rp[lv], e = rp[lv + 1];
                    for (int k = b; k < e; ++k) {
                        u32 const x = adj[k];
                        if (!(x >> 31)) {
                            int const lx = int(x & 0xffffu);
                            u32 const nd = d + (Unit ? 1u : ((x >> 16) & 0x7fffu));
                            if (nd < atomicMin(lab + lx, nd)) {
                                atomicOr(nxt + (lx >> 5), 1u << (lx & 31));
                                any = 1;
                                mymin = min(mymin, nd);
                                red_min(a.dist + base + lx, nd);
                            }
                        } else {
                            int const gk = int(x & 0x7fffffffu);
                            cross_round = 1;
                            int const gx = a.col[gk];
                            u32 const nd = d + (Unit ? 1u : a.w[gk]);
                            if (nd < atomicMin(a.dist + gx, nd)) {
                                __threadfence();
                                if (atomicExch(a.inflag + gx, 1u) == 0) {
                                    int lo = 0, hi = a.R;
                                    while (hi - lo > 1) {
                                        int const mid = (lo + hi) / 2;
                                        if (a.off[mid] <= gx) lo = mid; else hi = mid;
                                    }
                                    atomicAdd(a.pending, 1ull);
                                    u64 const s = atomicAdd(a.inbox_tail + 16 * lo, 1ull);
                                    __threadfence();
                                    st_relaxed(a.inbox + u64(lo) * a.cap + (s & (a.cap - 1)),
                                               ((s + 1) << 32) | u32(gx));
                                    atomicAdd(&s_handed, 1ull);
                                    pushed_round = 1;
                                }
                            }
                        }
                    }
                }
            }
            u32 const kept = __ballot_sync(full, keep);
            if (lane == 0) {
                cur[wd] = 0;
                if (kept) atomicOr(nxt + wd, kept);
            }
            if (kept) any = 1;
            kept_here += keep;
        }
        for (int o = 16; o > 0; o /= 2) mymin = min(mymin, __shfl_xor_sync(full, mymin, o));
        if (lane == 0 && mymin != INF) atomicMin(nmin + p, mymin);
        if (windowed && tid < 32) {
            // The next round's window: the others' labels loaded a round ago and this block's
            // least listed label of the last round (complete at its barrier).
            u32 m = min(seen, nmin[p ^ 1]);
            for (int o = 16; o > 0; o /= 2) m = min(m, __shfl_xor_sync(full, m, o));
            for (int o = 16; o > 0; o /= 2) loaded = min(loaded, __shfl_xor_sync(full, loaded, o));
            seen = loaded;
            if (tid == 0) {
                st_relaxed32(a.pub + r, nmin[p ^ 1]);
                lim[p ^ 1] = m == INF ? INF - 1 : (u64(m) + a.window >= INF ? INF - 1 : m + a.window);
                nmin[p ^ 1] = INF;
            }
        } else if (tid == 0) {
            lim[p ^ 1] = INF - 1;
            nmin[p ^ 1] = INF;
        }
        if (done_here) atomicAdd(&s_items, u64(done_here));
        if (kept_here) atomicAdd(&s_deferred, u64(kept_here));
        if (tid == 0) {
            ih[p ^ 1] = t0;
            it[p ^ 1] = tail > t0 ? tail : t0;  // the copy may be a round old
            taken += t0 - h0;
        }
        any = __syncthreads_or(any);
        if (tid == 0) {
            ++s_rounds;
            u64 const now = gtime();
            s_busy_ns += now - round_start;
            if (pushed_round) s_push_ns += now - round_start, ++s_push_rounds;
            else if (arrive_round) s_arrive_ns += now - round_start, ++s_arrive_rounds;
            else if (cross_round) s_cross_ns += now - round_start, ++s_cross_rounds;
            else s_plain_ns += now - round_start, ++s_plain_rounds;
            pushed_round = arrive_round = cross_round = 0;
            if (s_first == ~0ull) s_first = round_start;
            s_last = now;
        }
        p ^= 1;
        if (any) continue;
        // Nothing listed: retire what was taken, wait for the inbox or the end.
        if (tid == 0) {
            st_relaxed32(a.pub + r, INF);
            if (taken) {
                __threadfence();
                atomicAdd(a.pending, u64(0) - taken);
                taken = 0;
            }
            unsigned idle = 0;
            while (true) {
                u64 const t = ld_relaxed(a.inbox_tail + 16 * r);
                if (t != ih[p]) {
                    it[p] = t;
                    break;
                }
                if ((idle & 7) == 0 && (ld_relaxed(a.pending) == 0 || *(volatile int*)a.abort)) {
                    stop = 1;
                    break;
                }
                if ((++idle & 255) == 0 && gtime() > deadline_ns) {
                    atomicExch(a.abort, 1);
                    stop = 1;
                    break;
                }
                __nanosleep(idle < 8 ? 100 : a.poll_ns);
            }
        }
        __syncthreads();
        if (stop) break;
    }
    for (int i = tid; i < size; i += nt) a.dist[base + i] = lab[i];
    if (tid == 0) {
        atomicAdd(a.stats + 0, s_rounds);
        atomicAdd(a.stats + 1, s_items);
        atomicAdd(a.stats + 2, s_handed);
        atomicAdd(a.stats + 3, s_deferred);
        atomicAdd(a.stats + 4, s_busy_ns);
        atomicAdd(a.stats + 5, s_push_ns);
        atomicAdd(a.stats + 6, s_push_rounds);
        atomicAdd(a.stats + 9, s_plain_ns), atomicAdd(a.stats + 10, s_plain_rounds);
        atomicAdd(a.stats + 11, s_cross_ns), atomicAdd(a.stats + 12, s_cross_rounds);
        atomicAdd(a.stats + 13, s_arrive_ns), atomicAdd(a.stats + 14, s_arrive_rounds);
        if (s_first != ~0ull) atomicMin(a.stats + 7, s_first), atomicMax(a.stats + 8, s_last);
    }
}

__global__ void init_kernel(u32* dist, u32* inflag, int n, int source, u64* tails, int R, u64* inbox,
                            u64 cells, u64* pending, u64* stats, int* abort, u64 limit_ns,
                            u64* deadline, u32* pub) {
    u64 const stride = u64(gridDim.x) * blockDim.x;
    for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < (u64(n) > cells ? u64(n) : cells); i += stride) {
        if (i < u64(n)) dist[i] = i == u64(source) ? 0 : INF, inflag[i] = 0;
        if (i < cells) inbox[i] = 0;
        if (i < u64(R)) tails[16 * i] = 0, pub[i] = INF;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *pending = 1;
        for (int j = 0; j < 16; ++j) stats[j] = 0;
        stats[7] = ~0ull;
        *abort = 0;
        *deadline = gtime() + limit_ns;
    }
}

// ---------------------------------------------------------------------------------- host checks

static std::vector<u32> dijkstra(csr const& g, int s, bool unit) {
    std::vector<u32> d(g.n, INF);
    using P = std::pair<u32, int>;
    std::priority_queue<P, std::vector<P>, std::greater<P>> pq;
    d[s] = 0;
    pq.push({0, s});
    while (!pq.empty()) {
        auto [du, u] = pq.top();
        pq.pop();
        if (du != d[u]) continue;
        for (int k = g.ptr[u]; k < g.ptr[u + 1]; ++k) {
            u32 nd = du + (unit ? 1 : g.w[k]);
            if (nd < d[g.col[k]]) d[g.col[k]] = nd, pq.push({nd, g.col[k]});
        }
    }
    return d;
}


// A warp's 32 rows laid out end to end (kernels 4, 5 and 7): the lane's first edge's place, and
// the warp's total in `total`.
__device__ __forceinline__ int warp_exclusive(int deg, int lane, int& total) {
    int excl = deg;
    for (int o = 1; o < 32; o *= 2) {
        int const y = __shfl_up_sync(0xffffffffu, excl, o);
        if (lane >= o) excl += y;
    }
    total = __shfl_sync(0xffffffffu, excl, 31);
    return excl - deg;
}

// The warp's edges base .. base + 127, four a lane: their columns (vv; -1 past total) and the
// vertices whose rows hold them (uu). b, u: the lane's row start and vertex.
__device__ __forceinline__ void warp_edges4(int const* __restrict__ col, int excl, int total, int base,
                                            int lane, int b, int u, int (&vv)[4], int (&uu)[4]) {
    constexpr unsigned full = 0xffffffffu;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        int const e = base + r * 32 + lane;
        int owner = 0;
        for (int step = 16; step > 0; step /= 2) {
            int const j = owner + step;
            int const ej = __shfl_sync(full, excl, j & 31);
            if (j < 32 && ej <= e) owner = j;
        }
        int const bo = __shfl_sync(full, b, owner), eo = __shfl_sync(full, excl, owner);
        uu[r] = __shfl_sync(full, u, owner);
        vv[r] = e < total ? col[bo + (e - eo)] : -1;
    }
}

// The one-block searches' start (kernels 4 and 6): the visited bits cleared (clear false: they
// are in global memory, cleared by the caller), level 0 the source alone, then the source marked.
__device__ __forceinline__ void one_block_start(u32* seen, bool clear, int words, int* cnt, int* q0,
                                                int* level, int* parent, int source) {
    int const tid = threadIdx.x, nt = blockDim.x;
    if (clear)
        for (int i = tid; i < words; i += nt) seen[i] = 0;
    if (tid == 0) {
        cnt[0] = 1, cnt[1] = 0, cnt[2] = 0;
        q0[0] = source;
        level[source] = 0;
        parent[source] = source;
    }
    __syncthreads();
    if (tid == 0) atomicOr(seen + (source >> 5), 1u << (source & 31));
    __syncthreads();
}

// Kernel 4: the whole BFS in one block, level by level (one barrier a level), the visited set a
// bit a vertex in shared memory (SharedSeen; else in global memory), the frontier in shared
// memory (spilling to global past qcap). No regions, no renumbering: a road network's levels hold
// a few thousand vertices, which one multiprocessor relaxes at the latency of two dependent reads
// of the CSR a level.
template <bool SharedSeen, bool Warp>
__global__ void __launch_bounds__(1024, 1)
    one_block_bfs(int const* __restrict__ ptr, int const* __restrict__ col, int n, int source,
                  int* __restrict__ level, int* __restrict__ parent, u32* gseen, int* spill0,
                  int* spill1, int qcap, u64* stats) {
    extern __shared__ __align__(16) unsigned char smem[];
    int* const q0 = reinterpret_cast<int*>(smem);
    int* const q1 = q0 + qcap;
    u32* const seen = SharedSeen ? reinterpret_cast<u32*>(q1 + qcap) : gseen;
    __shared__ int cnt[3];
    int const tid = threadIdx.x, nt = blockDim.x;
    int const words = (n + 31) / 32;
    one_block_start(seen, SharedSeen, words, cnt, q0, level, parent, source);
    int lvl = 0;
    while (true) {
        int const c = cnt[lvl % 3];
        if (c == 0) break;
        int* const cur = (lvl & 1) ? q1 : q0;
        int* const nxt = (lvl & 1) ? q0 : q1;
        int* const cur_spill = (lvl & 1) ? spill1 : spill0;
        int* const nxt_spill = (lvl & 1) ? spill0 : spill1;
        int* const ncnt = cnt + (lvl + 1) % 3;
        if (tid == 0) cnt[(lvl + 2) % 3] = 0;
        if (Warp) {
        // A warp takes 32 items (a lane each), loads their rows at once, and then their edges
        // up to 4 a lane at once (128 a warp), so that a level waits on two rounds of reads of
        // the CSR, not one a vertex and edge.
        constexpr unsigned full = 0xffffffffu;
        int const lane = tid & 31, warp0 = tid & ~31;
        for (int i0 = warp0; i0 < c; i0 += nt) {
            int const i = i0 + lane;
            int u = 0, b = 0, deg = 0;
            if (i < c) {
                u = i < qcap ? cur[i] : cur_spill[i - qcap];
                b = ptr[u];
                deg = ptr[u + 1] - b;
            }
            int total = 0;
            int const excl = warp_exclusive(deg, lane, total);
            for (int base = 0; base < total; base += 128) {
                int vv[4], uu[4];
                warp_edges4(col, excl, total, base, lane, b, u, vv, uu);
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    int const v = vv[r];
                    if (v < 0) continue;
                    u32 const bit = 1u << (v & 31);
                    u32* const w = seen + (v >> 5);
                    if (*(volatile u32*)w & bit) continue;
                    if (atomicOr(w, bit) & bit) continue;
                    level[v] = lvl + 1;
                    parent[v] = uu[r];
                    int const j = atomicAdd(ncnt, 1);
                    if (j < qcap) nxt[j] = v;
                    else nxt_spill[j - qcap] = v;
                }
            }
        }
        } else {
        // A thread takes up to 2 items at once, loads their rows, then up to 8 edges of each
        // into registers before it looks at any: two rounds of reads a level.
        for (int i = tid; i < c; i += 2 * nt) {
            int const i2 = i + nt;
            int u[2], b[2], e[2];
            u[0] = i < qcap ? cur[i] : cur_spill[i - qcap];
            u[1] = i2 < c ? (i2 < qcap ? cur[i2] : cur_spill[i2 - qcap]) : -1;
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                b[j] = u[j] >= 0 ? ptr[u[j]] : 0;
                e[j] = u[j] >= 0 ? ptr[u[j] + 1] : 0;
            }
            while (b[0] < e[0] || b[1] < e[1]) {
                int vv[2][8];
#pragma unroll
                for (int j = 0; j < 2; ++j)
#pragma unroll
                    for (int r = 0; r < 8; ++r) vv[j][r] = b[j] + r < e[j] ? col[b[j] + r] : -1;
#pragma unroll
                for (int j = 0; j < 2; ++j) {
#pragma unroll
                    for (int r = 0; r < 8; ++r) {
                        int const v = vv[j][r];
                        if (v < 0) continue;
                        u32 const bit = 1u << (v & 31);
                        u32* const w = seen + (v >> 5);
                        if (*(volatile u32*)w & bit) continue;
                        if (atomicOr(w, bit) & bit) continue;
                        level[v] = lvl + 1;
                        parent[v] = u[j];
                        int const q = atomicAdd(ncnt, 1);
                        if (q < qcap) nxt[q] = v;
                        else nxt_spill[q - qcap] = v;
                    }
                    b[j] += 8;
                }
            }
        }
        }
        ++lvl;
        __syncthreads();
    }
    if (tid == 0) stats[0] = u64(lvl);
}

// Kernel 6: kernel 4 with the rows as a padded table, an int4 a vertex (its first 4 neighbours,
// -1 past its degree; a vertex of more than 4 keeps its first 3 and -2, and its other neighbours
// are read from the CSR): a level waits on one read of the graph (the table), not two (the row
// pointers, then the columns). A thread takes P vertices of the level at once; its claims go into
// the next level with one atomic a thread (Agg: one a warp, after a scan of the warp's counts).
// Opt (bits): 1, a thread's four claims at once (the four words read, then the atomics issued
// back to back) instead of one after another; 2, a claimed vertex's row prefetched into L1 for the
// next level.
template <int P, bool Agg, bool Store = true, int Opt = 0>
__global__ void __launch_bounds__(1024, 1)
    one_block_ell(int4 const* __restrict__ ell, int const* __restrict__ ptr, int const* __restrict__ col,
                  int n, int source, int* __restrict__ level, int* __restrict__ parent, int* spill0,
                  int* spill1, int qcap, u64* stats, long long* trace = nullptr) {
    extern __shared__ __align__(16) unsigned char smem[];
    int* const q0 = reinterpret_cast<int*>(smem);
    int* const q1 = q0 + qcap;
    u32* const seen = reinterpret_cast<u32*>(q1 + qcap);
    __shared__ int cnt[3];
    constexpr unsigned full = 0xffffffffu;
    int const tid = threadIdx.x, nt = blockDim.x, lane = tid & 31, warp0 = tid & ~31;
    int const words = (n + 31) / 32;
    one_block_start(seen, true, words, cnt, q0, level, parent, source);
    int lvl = 0;
    while (true) {
        int const c = cnt[lvl % 3];
        if (c == 0) break;
        int* const cur = (lvl & 1) ? q1 : q0;
        int* const nxt = (lvl & 1) ? q0 : q1;
        int* const cur_spill = (lvl & 1) ? spill1 : spill0;
        int* const nxt_spill = (lvl & 1) ? spill0 : spill1;
        int* const ncnt = cnt + (lvl + 1) % 3;
        if (tid == 0) cnt[(lvl + 2) % 3] = 0;
        int const nl = lvl + 1;
        if (trace && tid == 0) trace[2 * lvl] = clock64(), trace[2 * lvl + 1] = c;
        auto claim = [&](int v) {
            if (v < 0) return false;
            u32 const bit = 1u << (v & 31);
            u32* const w = seen + (v >> 5);
            if (*(volatile u32*)w & bit) return false;
            return !(atomicOr(w, bit) & bit);
        };
        auto put = [&](int j, int v) {
            if (j < qcap) nxt[j] = v;
            else nxt_spill[j - qcap] = v;
        };
        // The warp's loop is uniform (Agg's scan needs every lane): a warp takes 32 P entries.
        for (int i0 = warp0 * P; i0 < c; i0 += nt * P) {
            int u[P];
            int4 r[P];
#pragma unroll
            for (int p = 0; p < P; ++p) {
                int const i = i0 + p * 32 + lane;
                u[p] = i < c ? (i < qcap ? cur[i] : cur_spill[i - qcap]) : -1;
            }
#pragma unroll
            for (int p = 0; p < P; ++p) r[p] = u[p] >= 0 ? ell[u[p]] : make_int4(-1, -1, -1, -1);
            unsigned got = 0;
            if (Opt & 1) {
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    int const vs[4] = {r[p].x, r[p].y, r[p].z, r[p].w};
                    u32 wv[4], old[4];
#pragma unroll
                    for (int s = 0; s < 4; ++s) wv[s] = vs[s] >= 0 ? seen[vs[s] >> 5] : ~0u;
#pragma unroll
                    for (int s = 0; s < 4; ++s) {
                        u32 const bit = 1u << (vs[s] & 31);
                        old[s] = vs[s] >= 0 && !(wv[s] & bit) ? atomicOr(seen + (vs[s] >> 5), bit) : ~0u;
                    }
#pragma unroll
                    for (int s = 0; s < 4; ++s) got |= unsigned(!(old[s] & (1u << (vs[s] & 31)))) << (4 * p + s);
                }
            } else {
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    got |= unsigned(claim(r[p].x)) << (4 * p);
                    got |= unsigned(claim(r[p].y)) << (4 * p + 1);
                    got |= unsigned(claim(r[p].z)) << (4 * p + 2);
                    got |= unsigned(claim(r[p].w)) << (4 * p + 3);
                }
            }
            if (Opt & 2) {
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    int const vs[4] = {r[p].x, r[p].y, r[p].z, r[p].w};
#pragma unroll
                    for (int s = 0; s < 4; ++s)
                        if (got >> (4 * p + s) & 1) asm volatile("prefetch.global.L1 [%0];" ::"l"(ell + vs[s]));
                }
            }
            int const k = __popc(got);
            int j = 0;
            if (Agg) {
                int x = k;
#pragma unroll
                for (int o = 1; o < 32; o *= 2) {
                    int const y = __shfl_up_sync(full, x, o);
                    if (lane >= o) x += y;
                }
                int const total = __shfl_sync(full, x, 31);
                int base = 0;
                if (lane == 31 && total) base = atomicAdd(ncnt, total);
                j = __shfl_sync(full, base, 31) + x - k;
            } else if (k) {
                j = atomicAdd(ncnt, k);
            }
#pragma unroll
            for (int p = 0; p < P; ++p) {
                int const vs[4] = {r[p].x, r[p].y, r[p].z, r[p].w};
#pragma unroll
                for (int s = 0; s < 4; ++s)
                    if (got >> (4 * p + s) & 1) {
                        if (Store) level[vs[s]] = nl, parent[vs[s]] = u[p];
                        put(j++, vs[s]);
                    }
            }
#pragma unroll
            for (int p = 0; p < P; ++p)
                if (r[p].w == -2)  // more than 4 neighbours: the rest from the CSR
                    for (int e = ptr[u[p]] + 3, end = ptr[u[p] + 1]; e < end; ++e) {
                        int const v = col[e];
                        if (!claim(v)) continue;
                        level[v] = nl;
                        parent[v] = u[p];
                        put(atomicAdd(ncnt, 1), v);
                    }
        }
        ++lvl;
        __syncthreads();
    }
    if (tid == 0) stats[0] = u64(lvl);
    if (trace && tid == 0) trace[2 * lvl] = clock64(), trace[2 * lvl + 1] = 0;
}

__global__ void build_ell(int const* __restrict__ ptr, int const* __restrict__ col, int n, int4* ell) {
    for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < n; u += gridDim.x * blockDim.x) {
        int const b = ptr[u], d = ptr[u + 1] - b;
        int x[4];
#pragma unroll
        for (int s = 0; s < 4; ++s) x[s] = s < d ? col[b + s] : -1;
        if (d > 4) x[3] = -2;
        ell[u] = make_int4(x[0], x[1], x[2], x[3]);
    }
}

// Kernel 7: kernel 4's warp mode (a warp 32 vertices, their edges 128 at once, visited bits in
// shared memory) with Opt (bits): 1, a lane's four claims at once (the words read, then the
// atomics issued back to back); 4, the levels' and parents' writes deferred: the block writes each
// level's vertices and their parents in order (ord, opar: positions offs[l] .. offs[l + 1] hold
// level l; the frontier past the shared queue is read back from ord) and a grid-wide pass
// (finish_order) writes level[] and parent[] afterwards, instead of scattered stores inside the
// block's levels.
template <int Opt>
__global__ void __launch_bounds__(1024, 1)
    one_block_order(int const* __restrict__ ptr, int const* __restrict__ col, int n, int source,
                    int* __restrict__ level, int* __restrict__ parent, int* __restrict__ ord,
                    int* __restrict__ opar, int* __restrict__ offs, int qcap, u64* stats) {
    extern __shared__ __align__(16) unsigned char smem[];
    int* const q0 = reinterpret_cast<int*>(smem);
    int* const q1 = q0 + qcap;
    u32* const seen = reinterpret_cast<u32*>(q1 + qcap);
    __shared__ int cnt[3];
    constexpr unsigned full = 0xffffffffu;
    constexpr bool defer = Opt & 4;
    int const tid = threadIdx.x, nt = blockDim.x, lane = tid & 31, warp0 = tid & ~31;
    int const words = (n + 31) / 32;
    for (int i = tid; i < words; i += nt) seen[i] = 0;
    if (tid == 0) {
        cnt[0] = 1, cnt[1] = 0, cnt[2] = 0;
        q0[0] = source;
        ord[0] = source, opar[0] = source, offs[0] = 0;
        if (!defer) level[source] = 0, parent[source] = source;
    }
    __syncthreads();
    if (tid == 0) atomicOr(seen + (source >> 5), 1u << (source & 31));
    __syncthreads();
    int lvl = 0, start = 0;  // start: the current level's first position in ord
    while (true) {
        int const c = cnt[lvl % 3];
        if (tid == 0) offs[lvl + 1] = start + c;
        if (c == 0) break;
        int* const cur = (lvl & 1) ? q1 : q0;
        int* const nxt = (lvl & 1) ? q0 : q1;
        int* const ncnt = cnt + (lvl + 1) % 3;
        int const nstart = start + c;
        if (tid == 0) cnt[(lvl + 2) % 3] = 0;
        for (int i0 = warp0; i0 < c; i0 += nt) {
            int const i = i0 + lane;
            int u = 0, b = 0, deg = 0;
            if (i < c) {
                u = i < qcap ? cur[i] : ord[start + i];
                b = ptr[u];
                deg = ptr[u + 1] - b;
            }
            int total = 0;
            int const excl = warp_exclusive(deg, lane, total);
            for (int base = 0; base < total; base += 128) {
                int vv[4], uu[4];
                warp_edges4(col, excl, total, base, lane, b, u, vv, uu);
                bool got[4];
                if (Opt & 1) {
                    u32 wv[4], old[4];
#pragma unroll
                    for (int r = 0; r < 4; ++r) wv[r] = vv[r] >= 0 ? seen[vv[r] >> 5] : ~0u;
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        u32 const bit = 1u << (vv[r] & 31);
                        old[r] = vv[r] >= 0 && !(wv[r] & bit) ? atomicOr(seen + (vv[r] >> 5), bit) : ~0u;
                    }
#pragma unroll
                    for (int r = 0; r < 4; ++r) got[r] = !(old[r] & (1u << (vv[r] & 31)));
                } else {
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        int const v = vv[r];
                        got[r] = false;
                        if (v < 0) continue;
                        u32 const bit = 1u << (v & 31);
                        u32* const w = seen + (v >> 5);
                        if (*(volatile u32*)w & bit) continue;
                        got[r] = !(atomicOr(w, bit) & bit);
                    }
                }
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    if (!got[r]) continue;
                    int const v = vv[r];
                    int const j = atomicAdd(ncnt, 1);
                    if (j < qcap) nxt[j] = v;
                    ord[nstart + j] = v;
                    opar[nstart + j] = uu[r];
                    if (!defer) level[v] = lvl + 1, parent[v] = uu[r];
                }
            }
        }
        ++lvl;
        start = nstart;
        __syncthreads();
    }
    if (tid == 0) stats[0] = u64(lvl);
}

// Deferred writes: position i of ord is level l where offs[l] <= i < offs[l + 1].
__global__ void finish_order(int const* __restrict__ ord, int const* __restrict__ opar,
                             int const* __restrict__ offs, u64 const* stats, int* level, int* parent) {
    int const L = int(stats[0]);
    int const total = offs[L];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int lo = 0, hi = L;  // the last l with offs[l] <= i
        while (hi - lo > 1) {
            int const mid = (lo + hi) / 2;
            if (offs[mid] <= i) lo = mid;
            else hi = mid;
        }
        level[ord[i]] = lo;
        parent[ord[i]] = opar[i];
    }
}

__global__ void fill_kernel(int* a, int n, int x) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = x;
}

// Kernel 4's variants (modes 0, a thread 2 items; 1, a warp 32 items; each with the visited bits in
// shared and in global memory) or kernel 6's (ell: modes 2-5, P = 1, 1, 2, 2 without and with
// the warp's one atomic; visited bits in shared memory).
static void run_one_block(csr const& g, std::vector<int> const& sources, int runs, int threads,
                          std::vector<std::vector<u32>> const& refs, int& bad, bool ell) {
    int *dptr, *dcol, *dlevel, *dparent, *ds0, *ds1;
    u32* dseen;
    u64* dstats;
    CHECK(cudaMalloc(&dptr, sizeof(int) * (g.n + 1)));
    CHECK(cudaMalloc(&dcol, sizeof(int) * g.col.size()));
    CHECK(cudaMalloc(&dlevel, sizeof(int) * g.n));
    CHECK(cudaMalloc(&dparent, sizeof(int) * g.n));
    CHECK(cudaMalloc(&ds0, sizeof(int) * g.n));
    CHECK(cudaMalloc(&ds1, sizeof(int) * g.n));
    CHECK(cudaMalloc(&dseen, sizeof(u32) * ((g.n + 31) / 32)));
    CHECK(cudaMalloc(&dstats, 128));
    CHECK(cudaMemcpy(dptr, g.ptr.data(), sizeof(int) * (g.n + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcol, g.col.data(), sizeof(int) * g.col.size(), cudaMemcpyHostToDevice));
    int optin = 0;
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    int4* dell = nullptr;
    int* doffs = nullptr;
    CHECK(cudaMalloc(&doffs, sizeof(int) * (g.n + 2)));
    if (ell) {  // the padded table, built once (its time reported)
        CHECK(cudaMalloc(&dell, sizeof(int4) * g.n));
        std::vector<float> bt;
        for (int rep = 0; rep < 5; ++rep) {
            CHECK(cudaEventRecord(e0));
            build_ell<<<264, 512>>>(dptr, dcol, g.n, dell);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            bt.push_back(t);
        }
        std::sort(bt.begin(), bt.end());
        long long over = 0;
        for (int v = 0; v < g.n; ++v) over += g.ptr[v + 1] - g.ptr[v] > 4;
        std::printf("ell table: %.3f ms to build (median of 5), %lld vertices of more than 4 neighbours\n",
                    bt[2], over);
    }
    for (int shared_seen = 1; shared_seen >= (ell ? 1 : 0); --shared_seen) {
        std::size_t const seen_bytes = shared_seen ? sizeof(u32) * ((g.n + 31) / 32) : 0;
        int qcap = 2048;
        std::size_t shmem = seen_bytes + 2 * sizeof(int) * qcap;
        if (shmem + 256 > std::size_t(optin)) {
            std::printf("one block, seen in shared memory: %zu bytes, more than %d\n", shmem, optin);
            continue;
        }
        if (shared_seen) {  // the rest of the shared memory for the frontier
            qcap = int((std::size_t(optin) - 256 - seen_bytes) / (2 * sizeof(int)));
            shmem = seen_bytes + 2 * sizeof(int) * qcap;
        } else {
            qcap = 16384;
            shmem = 2 * sizeof(int) * qcap;
        }
      for (int warp_mode = ell ? 2 : 0; warp_mode < (ell ? 13 : 2); ++warp_mode) {
        auto kern = shared_seen ? (warp_mode ? one_block_bfs<true, true> : one_block_bfs<true, false>)
                                : (warp_mode ? one_block_bfs<false, true> : one_block_bfs<false, false>);
        decltype(&one_block_ell<1, false>) const ekern[7] = {
            one_block_ell<1, false>, one_block_ell<1, true>, one_block_ell<2, false>, one_block_ell<2, true>,
            one_block_ell<1, false, true, 1>, one_block_ell<1, false, true, 2>, one_block_ell<1, false, true, 3>};
        decltype(&one_block_order<0>) const okern[4] = {one_block_order<0>, one_block_order<1>, one_block_order<4>,
                                                         one_block_order<5>};
        if (ell && warp_mode >= 9)
            CHECK(cudaFuncSetAttribute(okern[warp_mode - 9], cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem)));
        else if (ell)
            CHECK(cudaFuncSetAttribute(ekern[warp_mode - 2], cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem)));
        else
            CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem)));
        std::vector<double> medians;
        std::vector<int> out(g.n);
        u64 levels_sum = 0;
        for (std::size_t si = 0; si < sources.size(); ++si) {
            std::vector<float> ms;
            for (int rep = 0; rep < runs; ++rep) {
                CHECK(cudaEventRecord(e0));
                fill_kernel<<<264, 512>>>(dlevel, g.n, 0x7fffffff);
                if (!shared_seen) CHECK(cudaMemsetAsync(dseen, 0, sizeof(u32) * ((g.n + 31) / 32)));
                if (ell && warp_mode >= 9) {
                    okern[warp_mode - 9]<<<1, threads, shmem>>>(dptr, dcol, g.n, sources[si], dlevel, dparent, ds0,
                                                                ds1, doffs, qcap, dstats);
                    if (warp_mode >= 11) finish_order<<<264, 512>>>(ds0, ds1, doffs, dstats, dlevel, dparent);
                } else if (ell)
                    ekern[warp_mode - 2]<<<1, threads, shmem>>>(dell, dptr, dcol, g.n, sources[si], dlevel,
                                                                 dparent, ds0, ds1, qcap, dstats, nullptr);
                else
                    kern<<<1, threads, shmem>>>(dptr, dcol, g.n, sources[si], dlevel, dparent, dseen, ds0,
                                                ds1, qcap, dstats);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaGetLastError());
                float t = 0;
                CHECK(cudaEventElapsedTime(&t, e0, e1));
                ms.push_back(t);
            }
            u64 st = 0;
            CHECK(cudaMemcpy(&st, dstats, sizeof st, cudaMemcpyDeviceToHost));
            levels_sum += st;
            if (ell && (warp_mode == 2 || warp_mode == 8) && si < 2) {  // a traced run: each level's clocks by its size
              // store 0: without the levels' and parents' writes (a floor; its answer is not checked)
              for (int store = 0; store <= 1; ++store) {  // the storing run last: its answer is checked
                long long* dtrace;
                CHECK(cudaMalloc(&dtrace, sizeof(long long) * 2 * (st + 2)));
                fill_kernel<<<264, 512>>>(dlevel, g.n, 0x7fffffff);
                auto tk = warp_mode == 8 ? (store ? one_block_ell<1, false, true, 3> : one_block_ell<1, false, false, 3>)
                                         : (store ? one_block_ell<1, false, true> : one_block_ell<1, false, false>);
                CHECK(cudaFuncSetAttribute(tk, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem)));
                CHECK(cudaEventRecord(e0));
                tk<<<1, threads, shmem>>>(dell, dptr, dcol, g.n, sources[si], dlevel, dparent, ds0, ds1, qcap,
                                          dstats, dtrace);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                float tms = 0;
                CHECK(cudaEventElapsedTime(&tms, e0, e1));
                std::vector<long long> tr(2 * (st + 1));
                CHECK(cudaMemcpy(tr.data(), dtrace, sizeof(long long) * tr.size(), cudaMemcpyDeviceToHost));
                cudaFree(dtrace);
                int khz = 0;
                CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
                int const edges[] = {1, 17, 65, 257, 513, 1025, 2049, 4097, 1 << 30};
                std::printf("  %s source %d%s, %.3f ms traced, levels by size (vertices: levels, us a level, us in all):",
                            warp_mode == 8 ? "claims at once, prefetch:" : "plain:", sources[si],
                            store ? "" : " WITHOUT the level/parent writes", tms);
                for (int bi = 0; bi + 1 < 9; ++bi) {
                    long long nlv = 0, cyc = 0;
                    for (u64 l = 0; l < st; ++l)
                        if (tr[2 * l + 1] >= edges[bi] && tr[2 * l + 1] < edges[bi + 1])
                            ++nlv, cyc += tr[2 * l + 2] - tr[2 * l];
                    if (nlv)
                        std::printf(" [%d,%d): %lld, %.2f, %.0f;", edges[bi], edges[bi + 1], nlv,
                                    1e3 * double(cyc) / nlv / khz, 1e3 * double(cyc) / khz);
                }
                std::printf(" (clock %d MHz)\n", khz / 1000);
              }
              CHECK(cudaMemcpy(&st, dstats, sizeof st, cudaMemcpyDeviceToHost));
            }
            std::sort(ms.begin(), ms.end());
            medians.push_back(ms[ms.size() / 2]);
            if (si < refs.size()) {
                CHECK(cudaMemcpy(out.data(), dlevel, sizeof(int) * g.n, cudaMemcpyDeviceToHost));
                std::vector<int> par(g.n);
                CHECK(cudaMemcpy(par.data(), dparent, sizeof(int) * g.n, cudaMemcpyDeviceToHost));
                int wrong = 0;
                for (int v = 0; v < g.n; ++v) {
                    u32 const want = refs[si][v];
                    int const got = out[v];
                    if (want == INF ? got != 0x7fffffff : u32(got) != want) ++wrong;
                    else if (want != INF && v != sources[si]) {  // the parent: an edge one level up
                        int const p = par[v];
                        bool ok = p >= 0 && p < g.n && u32(out[p]) + 1 == want;
                        if (ok) {
                            ok = false;
                            for (int k = g.ptr[p]; k < g.ptr[p + 1]; ++k) ok |= g.col[k] == v;
                        }
                        wrong += !ok;
                    }
                }
                if (wrong) std::printf("  CHECK source %d: %d of %d levels/parents wrong\n", sources[si], wrong, g.n);
                bad += wrong != 0;
            }
        }
        std::vector<double> m2 = medians;
        std::sort(m2.begin(), m2.end());
        std::printf("RESULT one block bfs (%s), seen in %s memory, T=%d, frontier %d in shared memory: median "
                    "%.3f ms (sources %.3f-%.3f), %.0f levels a source; checked %zu\n",
                    warp_mode >= 2 ? (char const*[]){"ell, a thread 1 row", "ell, a thread 1 row, a warp's one atomic",
                                                     "ell, a thread 2 rows", "ell, a thread 2 rows, a warp's one atomic",
                                                     "ell, a thread 1 row, claims at once",
                                                     "ell, a thread 1 row, rows prefetched to L1",
                                                     "ell, a thread 1 row, claims at once, rows prefetched",
                                                     "order: a warp 32 items (kernel 4)",
                                                     "order: a warp 32 items, claims at once",
                                                     "order: a warp 32 items, writes deferred",
                                                     "order: a warp 32 items, claims at once, writes deferred"}[warp_mode - 2]
                    : warp_mode ? "a warp 32 items" : "a thread 2 items", shared_seen ? "shared" : "global",
                    threads, qcap, m2[m2.size() / 2], m2.front(),
                    m2.back(), double(levels_sum) / double(sources.size()), refs.size());
        std::fflush(stdout);
      }
    }
    cudaFree(dptr), cudaFree(dcol), cudaFree(dlevel), cudaFree(dparent), cudaFree(ds0), cudaFree(ds1);
    cudaFree(dseen), cudaFree(dstats), cudaFree(dell), cudaFree(doffs);
}


// Kernel 5: kernel 4 over a thread-block cluster (Hopper): the visited bits and the frontier are
// spread over the cluster's blocks by word of 32 vertices (word w in block w mod C), a vertex is
// appended to its owner's queue through distributed shared memory, a level ends at a cluster
// barrier. C multiprocessors relax a level, at the latency of two reads of the CSR, a few remote
// shared-memory operations and the barrier.
__global__ void __launch_bounds__(1024, 1)
    cluster_bfs(int const* __restrict__ ptr, int const* __restrict__ col, int n, int source,
                int* __restrict__ level, int* __restrict__ parent, int qcap, int wlocal, int* overflow,
                u64* stats) {
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char smem[];
    int* const q0 = reinterpret_cast<int*>(smem);
    int* const q1 = q0 + qcap;
    u32* const seen = reinterpret_cast<u32*>(q1 + qcap);
    __shared__ int cnt[3];
    __shared__ int total_s;
    int const C = int(cluster.num_blocks());
    int const me = int(cluster.block_rank());
    int shift = 0;
    while ((1 << shift) < C) ++shift;
    int const tid = threadIdx.x, nt = blockDim.x;
    for (int i = tid; i < wlocal; i += nt) seen[i] = 0;
    if (tid == 0) cnt[0] = cnt[1] = cnt[2] = 0;
    cluster.sync();
    if (tid == 0 && ((source >> 5) & (C - 1)) == me) {
        cnt[0] = 1;
        q0[0] = source;
        seen[(source >> 5) >> shift] |= 1u << (source & 31);
        level[source] = 0;
        parent[source] = source;
    }
    cluster.sync();
    constexpr unsigned full = 0xffffffffu;
    int const lane = tid & 31, warp0 = tid & ~31;
    int lvl = 0;
    while (true) {
        // The cluster's frontier: every block's count of this level (complete at the barrier).
        if (tid < 32) {
            int t = 0;
            if (tid < C) t = *cluster.map_shared_rank(cnt + lvl % 3, tid);
            for (int o = 16; o > 0; o /= 2) t += __shfl_xor_sync(full, t, o);
            if (tid == 0) total_s = t, cnt[(lvl + 2) % 3] = 0;
        }
        __syncthreads();
        if (total_s == 0) break;
        int const c = cnt[lvl % 3];
        int* const cur = (lvl & 1) ? q1 : q0;
        int* const nxt_local = (lvl & 1) ? q0 : q1;
        int const ni = (lvl + 1) % 3;
        for (int i0 = warp0; i0 < c; i0 += nt) {
            int const i = i0 + lane;
            int u = 0, b = 0, deg = 0;
            if (i < c) {
                u = cur[i];
                b = ptr[u];
                deg = ptr[u + 1] - b;
            }
            int total = 0;
            int const excl = warp_exclusive(deg, lane, total);
            for (int base = 0; base < total; base += 128) {
                int vv[4], uu[4];
                warp_edges4(col, excl, total, base, lane, b, u, vv, uu);
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    int const v = vv[r];
                    if (v < 0) continue;
                    int const word = v >> 5;
                    unsigned const ob = unsigned(word & (C - 1));
                    u32 const bit = 1u << (v & 31);
                    u32* const w = cluster.map_shared_rank(seen + (word >> shift), ob);
                    if (*(volatile u32*)w & bit) continue;
                    if (atomicOr(w, bit) & bit) continue;
                    level[v] = lvl + 1;
                    parent[v] = uu[r];
                    int const j = atomicAdd(cluster.map_shared_rank(cnt + ni, ob), 1);
                    if (j < qcap) *cluster.map_shared_rank(nxt_local + j, ob) = v;
                    else *overflow = 1;
                }
            }
        }
        (void)nxt_local;
        ++lvl;
        cluster.sync();
    }
    if (tid == 0 && me == 0) stats[0] = u64(lvl);
}

// Kernel 8: kernel 5 with the library's level body of the twenty-sixth session: a lane's four
// claims at once (the owners' words read, then the remote atomics issued back to back), and the
// levels' and parents' writes deferred: a vertex's owner appends it with its parent to its queue,
// and when it expands the level it writes its queue in order to its own part of ord / opar
// (coalesced; its level starts in bstarts), from which finish_cluster writes level[] and
// parent[] after the search. ord, opar: C parts of cap_b entries; bstarts: C parts of max_lev.
__global__ void __launch_bounds__(1024, 1)
    cluster_bfs_deferred(int const* __restrict__ ptr, int const* __restrict__ col, int n, int source,
                         int* __restrict__ ord, int* __restrict__ opar, int* __restrict__ bstarts,
                         int cap_b, int max_lev, int qcap, int wlocal, int* overflow, u64* stats,
                         int variant) {
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char smem[];
    int2* const q0 = reinterpret_cast<int2*>(smem);
    int2* const q1 = q0 + qcap;
    u32* const seen = reinterpret_cast<u32*>(q1 + qcap);
    __shared__ int cnt[3];
    __shared__ int total_s, lower_s;
    int const C = int(cluster.num_blocks());
    int const me = int(cluster.block_rank());
    int shift = 0;
    while ((1 << shift) < C) ++shift;
    int const tid = threadIdx.x, nt = blockDim.x;
    for (int i = tid; i < wlocal; i += nt) seen[i] = 0;
    if (tid == 0) cnt[0] = cnt[1] = cnt[2] = 0;
    cluster.sync();
    if (tid == 0 && ((source >> 5) & (C - 1)) == me) {
        cnt[0] = 1;
        q0[0] = make_int2(source, source);
        seen[(source >> 5) >> shift] |= 1u << (source & 31);
    }
    cluster.sync();
    constexpr unsigned full = 0xffffffffu;
    int const lane = tid & 31, warp0 = tid & ~31;
    int* const my_ord = ord + std::size_t(me) * cap_b;
    int* const my_opar = opar + std::size_t(me) * cap_b;
    int* const my_starts = bstarts + std::size_t(me) * max_lev;
    int lvl = 0, pos = 0;  // pos: this block's vertices written to its part of ord so far
    while (true) {
        if (tid < 32) {
            int t = 0;
            if (tid < C) t = *cluster.map_shared_rank(cnt + lvl % 3, tid);
            if (variant & 4) {
                // --k8-variant 4: the library's count: the lower ranks' share (a scan), the
                // count past the queues (a second reduction), as bfs_cluster computes them.
                int const raw = t;
                int const tq = raw < qcap ? raw : qcap;
                int const over = raw - tq;
                int x = tq;
                for (int o = 1; o < 32; o *= 2) {
                    int const y = __shfl_up_sync(full, x, o);
                    if (lane >= o) x += y;
                }
                int spill_all = over;
                for (int o = 16; o > 0; o /= 2) spill_all += __shfl_xor_sync(full, spill_all, o);
                int const all = __shfl_sync(full, x, 31);
                int const lower = __shfl_sync(full, x - tq, me);
                if (tid == 0) total_s = all + spill_all, lower_s = lower, cnt[(lvl + 2) % 3] = 0;
            } else {
                for (int o = 16; o > 0; o /= 2) t += __shfl_xor_sync(full, t, o);
                if (tid == 0) total_s = t, cnt[(lvl + 2) % 3] = 0;
            }
        }
        __syncthreads();
        if (total_s == 0) break;
        if ((variant & 4) && tid == 0 && lower_s < 0) *overflow = 1;  // keeps lower_s
        int const c = min(cnt[lvl % 3], qcap);  // past qcap: overflow (flagged when appended)
        if (tid == 0) {
            if (lvl + 1 < max_lev) my_starts[lvl] = pos;
            else *overflow = 1;
        }
        // (a block's part holds cap_b >= its share of the vertices: the caller gives n)
        int2* const cur = (lvl & 1) ? q1 : q0;
        int2* const nxt = (lvl & 1) ? q0 : q1;
        int const ni = (lvl + 1) % 3;
        // --k8-variant 2: the queue written out in a pass of its own before the level's
        // expansion (as the library's bfs_cluster does).
        if (variant & 2)
            for (int i = tid; i < c; i += nt) {
                my_ord[pos + i] = cur[i].x;
                my_opar[pos + i] = cur[i].y;
            }
        for (int i0 = warp0; i0 < c; i0 += nt) {
            int const i = i0 + lane;
            int u = 0, b = 0, deg = 0;
            if (i < c) {
                int2 const it = cur[i];
                u = it.x;
                if (!(variant & 2)) {
                    my_ord[pos + i] = it.x;
                    my_opar[pos + i] = it.y;
                }
                b = ptr[u];
                deg = ptr[u + 1] - b;
            }
            int total = 0;
            int const excl = warp_exclusive(deg, lane, total);
            for (int base = 0; base < total; base += 128) {
                int vv[4], uu[4];
                warp_edges4(col, excl, total, base, lane, b, u, vv, uu);
                u32* w[4];
                u32 word[4], was[4];
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    int const v = vv[r] < 0 ? 0 : vv[r];
                    w[r] = cluster.map_shared_rank(seen + ((v >> 5) >> shift), unsigned((v >> 5) & (C - 1)));
                }
#pragma unroll
                for (int r = 0; r < 4; ++r) word[r] = vv[r] >= 0 ? *w[r] : ~0u;
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    u32 const bit = 1u << (vv[r] & 31);
                    was[r] = vv[r] >= 0 && !(word[r] & bit) ? atomicOr(w[r], bit) : ~0u;
                }
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    if (was[r] & (1u << (vv[r] & 31))) continue;
                    unsigned const ob = unsigned((vv[r] >> 5) & (C - 1));
                    int const j = atomicAdd(cluster.map_shared_rank(cnt + ni, ob), 1);
                    if (j < qcap) {
                        if (variant & 1) {  // --k8-variant 1: two 4-byte stores (the library's)
                            int* const slot = reinterpret_cast<int*>(cluster.map_shared_rank(nxt + j, ob));
                            slot[0] = vv[r];
                            slot[1] = uu[r];
                        } else {
                            *cluster.map_shared_rank(nxt + j, ob) = make_int2(vv[r], uu[r]);
                        }
                    } else {
                        *overflow = 1;
                    }
                }
            }
        }
        pos += c;
        ++lvl;
        cluster.sync();
    }
    if (tid == 0) {
        if (lvl < max_lev) my_starts[lvl] = pos;
        stats[1 + me] = u64(lvl);
    }
    if (tid == 0 && me == 0) stats[0] = u64(lvl);
}

// Kernel 8's deferred writes: block part b's position i is level l where
// bstarts[b][l] <= i < bstarts[b][l + 1]; stats[0] levels (the same for every part).
__global__ void finish_cluster(int const* __restrict__ ord, int const* __restrict__ opar,
                               int const* __restrict__ bstarts, u64 const* stats, int C, int cap_b,
                               int max_lev, int* level, int* parent) {
    int const L = int(stats[0]);
    for (int b = 0; b < C; ++b) {
        int const* st = bstarts + std::size_t(b) * max_lev;
        int const total = st[L];
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
            int lo = 0, hi = L;
            while (hi - lo > 1) {
                int const mid = (lo + hi) / 2;
                if (st[mid] <= i) lo = mid;
                else hi = mid;
            }
            int const v = ord[std::size_t(b) * cap_b + i];
            level[v] = lo;
            parent[v] = opar[std::size_t(b) * cap_b + i];
        }
    }
}

static void run_cluster(csr const& g, std::vector<int> const& sources, int runs, int threads,
                        std::vector<int> const& sizes, std::vector<std::vector<u32>> const& refs,
                        int& bad, bool deferred, int variant = 0, bool per_source = false) {
    int *dptr, *dcol, *dlevel, *dparent, *dover;
    u64* dstats;
    CHECK(cudaMalloc(&dptr, sizeof(int) * (g.n + 1)));
    CHECK(cudaMalloc(&dcol, sizeof(int) * g.col.size()));
    CHECK(cudaMalloc(&dlevel, sizeof(int) * g.n));
    CHECK(cudaMalloc(&dparent, sizeof(int) * g.n));
    CHECK(cudaMalloc(&dover, 128));
    CHECK(cudaMalloc(&dstats, 1024));
    CHECK(cudaMemcpy(dptr, g.ptr.data(), sizeof(int) * (g.n + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcol, g.col.data(), sizeof(int) * g.col.size(), cudaMemcpyHostToDevice));
    int optin = 0;
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CHECK(cudaFuncSetAttribute(cluster_bfs, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CHECK(cudaFuncSetAttribute(cluster_bfs_deferred, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    // Kernel 8's parts of the order (a block's share of the vertices, at most n) and level starts.
    int const max_lev = 16384;
    int *dord = nullptr, *dopar = nullptr, *dbst = nullptr;
    int const maxC = sizes.empty() ? 1 : *std::max_element(sizes.begin(), sizes.end());
    if (deferred) {
        CHECK(cudaMalloc(&dord, sizeof(int) * std::size_t(g.n) * maxC));
        CHECK(cudaMalloc(&dopar, sizeof(int) * std::size_t(g.n) * maxC));
        CHECK(cudaMalloc(&dbst, sizeof(int) * std::size_t(max_lev) * maxC));
    }
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int C : sizes) {
        int const words = (g.n + 31) / 32;
        int const wlocal = (words + C - 1) / C;
        std::size_t const seen_bytes = sizeof(u32) * wlocal;
        if (seen_bytes + 2 * sizeof(int) * 1024 + 512 > std::size_t(optin)) {
            std::printf("cluster %d: %zu bytes of visited bits a block, too many\n", C, seen_bytes);
            continue;
        }
        std::size_t const item = deferred ? sizeof(int2) : sizeof(int);  // a queue's entry
        int const qcap = int((std::size_t(optin) - 512 - seen_bytes) / (2 * item));
        std::size_t const shmem = seen_bytes + 2 * item * qcap;
        CHECK(cudaFuncSetAttribute(cluster_bfs, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem)));
        CHECK(cudaFuncSetAttribute(cluster_bfs_deferred, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem)));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(C);
        cfg.blockDim = dim3(threads);
        cfg.dynamicSmemBytes = shmem;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = C;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int clusters = 0;
        cudaError_t const oe = deferred ? cudaOccupancyMaxActiveClusters(&clusters, cluster_bfs_deferred, &cfg)
                                        : cudaOccupancyMaxActiveClusters(&clusters, cluster_bfs, &cfg);
        if (oe != cudaSuccess || clusters < 1) {
            std::printf("cluster %d: cannot be scheduled (%s, %d)\n", C, cudaGetErrorString(oe), clusters);
            cudaGetLastError();
            continue;
        }
        std::vector<double> medians;
        std::vector<int> out(g.n), par(g.n);
        u64 levels_sum = 0;
        int over = 0;
        for (std::size_t si = 0; si < sources.size(); ++si) {
            std::vector<float> ms;
            for (int rep = 0; rep < runs; ++rep) {
                CHECK(cudaEventRecord(e0));
                fill_kernel<<<264, 512>>>(dlevel, g.n, 0x7fffffff);
                CHECK(cudaMemsetAsync(dover, 0, 4));
                if (deferred) {
                    CHECK(cudaLaunchKernelEx(&cfg, cluster_bfs_deferred, (int const*)dptr, (int const*)dcol,
                                             g.n, sources[si], dord, dopar, dbst, g.n, max_lev, qcap, wlocal,
                                             dover, dstats, variant));
                    finish_cluster<<<264, 512>>>(dord, dopar, dbst, dstats, C, g.n, max_lev, dlevel, dparent);
                } else {
                    CHECK(cudaLaunchKernelEx(&cfg, cluster_bfs, (int const*)dptr, (int const*)dcol, g.n,
                                             sources[si], dlevel, dparent, qcap, wlocal, dover, dstats));
                }
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaGetLastError());
                float t = 0;
                CHECK(cudaEventElapsedTime(&t, e0, e1));
                ms.push_back(t);
                int o = 0;
                CHECK(cudaMemcpy(&o, dover, 4, cudaMemcpyDeviceToHost));
                over |= o;
            }
            u64 st = 0;
            CHECK(cudaMemcpy(&st, dstats, sizeof st, cudaMemcpyDeviceToHost));
            levels_sum += st;
            std::sort(ms.begin(), ms.end());
            medians.push_back(ms[ms.size() / 2]);
            if (per_source)
                std::printf("  source %d: %.3f ms, %llu levels\n", sources[si], ms[ms.size() / 2],
                            static_cast<unsigned long long>(st));
            if (si < refs.size()) {
                CHECK(cudaMemcpy(out.data(), dlevel, sizeof(int) * g.n, cudaMemcpyDeviceToHost));
                CHECK(cudaMemcpy(par.data(), dparent, sizeof(int) * g.n, cudaMemcpyDeviceToHost));
                int wrong = 0;
                for (int v = 0; v < g.n; ++v) {
                    u32 const want = refs[si][v];
                    int const got = out[v];
                    if (want == INF ? got != 0x7fffffff : u32(got) != want) ++wrong;
                    else if (want != INF && v != sources[si]) {
                        int const p = par[v];
                        bool ok = p >= 0 && p < g.n && u32(out[p]) + 1 == want;
                        if (ok) {
                            ok = false;
                            for (int k = g.ptr[p]; k < g.ptr[p + 1]; ++k) ok |= g.col[k] == v;
                        }
                        wrong += !ok;
                    }
                }
                if (wrong) std::printf("  CHECK source %d: %d of %d levels/parents wrong\n", sources[si], wrong, g.n);
                bad += wrong != 0;
            }
        }
        std::vector<double> m2 = medians;
        std::sort(m2.begin(), m2.end());
        std::printf("RESULT cluster bfs%s v%d C=%d T=%d (frontier %d a block, %d clusters fit): median %.3f ms "
                    "(sources %.3f-%.3f), %.0f levels a source%s; checked %zu\n",
                    deferred ? " (claims at once, writes deferred)" : "", variant, C, threads, qcap,
                    clusters, m2[m2.size() / 2], m2.front(), m2.back(),
                    double(levels_sum) / double(sources.size()), over ? " QUEUE OVERFLOW" : "",
                    refs.size());
        std::fflush(stdout);
        bad += over;
    }
    cudaFree(dptr), cudaFree(dcol), cudaFree(dlevel), cudaFree(dparent), cudaFree(dover), cudaFree(dstats);
    cudaFree(dord), cudaFree(dopar), cudaFree(dbst);
}

static std::vector<int> parse_list(std::string const& s) {
    std::vector<int> v;
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t j = s.find(',', i);
        if (j == std::string::npos) j = s.size();
        v.push_back(std::stoi(s.substr(i, j - i)));
        i = j + 1;
    }
    return v;
}

int main(int argc, char** argv) {
    if (argc < 2) return std::printf("usage: region_sssp GRAPH.mtx [options]\n"), 1;
    std::vector<int> Rs = {128}, Ts = {512};
    std::vector<int> Wsssp = {1024}, Wbfs = {4};  // windows; 0: none
    std::vector<int> Ks = {3};  // kernels
    int poll_ns = 500;
    std::vector<int> Cs = {1, 2, 4, 8, 16};  // kernel 5's cluster sizes
    std::vector<int> k8v = {0};  // kernel 8's variants (--k8-variants: 1 two 4-byte stores, 2 a write pass, 4 the library's count scan)
    bool per_source = false;
    int nsrc = 16, runs = 5, check = 2;
    std::vector<std::string> modes = {"sssp"};
    std::string srcfile;
    for (int i = 2; i < argc; ++i) {
        std::string o = argv[i];
        auto val = [&] { return std::string(argv[++i]); };
        if (o == "--regions") Rs = parse_list(val());
        else if (o == "--threads") Ts = parse_list(val());
        else if (o == "--sources") nsrc = std::stoi(val());
        else if (o == "--sources-file") srcfile = val();
        else if (o == "--runs") runs = std::stoi(val());
        else if (o == "--check") check = std::stoi(val());
        else if (o == "--windows-sssp") Wsssp = parse_list(val());
        else if (o == "--windows-bfs") Wbfs = parse_list(val());
        else if (o == "--kernels") Ks = parse_list(val());
        else if (o == "--poll-ns") poll_ns = std::stoi(val());
        else if (o == "--clusters") Cs = parse_list(val());
        else if (o == "--k8-variants") k8v = parse_list(val());
        else if (o == "--per-source") per_source = true;
        else if (o == "--bfs") modes = {"bfs"};
        else if (o == "--both") modes = {"sssp", "bfs"};
        else return std::printf("unknown option %s\n", o.c_str()), 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    csr g0 = read_mtx<int>(argv[1]);
    auto t1 = std::chrono::steady_clock::now();
    std::printf("%s: n=%d entries=%zu; read %.2f s\n", argv[1], g0.n, g0.col.size(),
                std::chrono::duration<double>(t1 - t0).count());
    std::vector<int> sources;
    if (!srcfile.empty()) {
        std::ifstream f(srcfile);
        long long x;
        while (f >> x) sources.push_back(int(x));
    } else {
        std::mt19937 rng(27491095);
        while (int(sources.size()) < nsrc) {
            int s = int(rng() % g0.n);
            if (g0.ptr[s + 1] > g0.ptr[s]) sources.push_back(s);
        }
    }
    // References in the original numbering, per mode and checked source.
    std::vector<std::vector<std::vector<u32>>> refs(modes.size());
    for (std::size_t mi = 0; mi < modes.size(); ++mi)
        for (int si = 0; si < std::min<int>(check, int(sources.size())); ++si)
            refs[mi].push_back(dijkstra(g0, sources[si], modes[mi] == "bfs"));
    int bad = 0;
    if (std::find(Ks.begin(), Ks.end(), 4) != Ks.end())
        for (std::size_t mi = 0; mi < modes.size(); ++mi)
            if (modes[mi] == "bfs")
                for (int threads : Ts) run_one_block(g0, sources, runs, threads, refs[mi], bad, false);
    if (std::find(Ks.begin(), Ks.end(), 6) != Ks.end())
        for (std::size_t mi = 0; mi < modes.size(); ++mi)
            if (modes[mi] == "bfs")
                for (int threads : Ts) run_one_block(g0, sources, runs, threads, refs[mi], bad, true);
    if (std::find(Ks.begin(), Ks.end(), 5) != Ks.end())
        for (std::size_t mi = 0; mi < modes.size(); ++mi)
            if (modes[mi] == "bfs")
                for (int threads : Ts) run_cluster(g0, sources, runs, threads, Cs, refs[mi], bad, false);
    if (std::find(Ks.begin(), Ks.end(), 8) != Ks.end())
        for (std::size_t mi = 0; mi < modes.size(); ++mi)
            if (modes[mi] == "bfs")
                for (int threads : Ts)
                    for (int v : k8v) run_cluster(g0, sources, runs, threads, Cs, refs[mi], bad, true, v, per_source);
    if (std::find(Ks.begin(), Ks.end(), 2) == Ks.end() && std::find(Ks.begin(), Ks.end(), 3) == Ks.end())
        Rs.clear();
    for (int Rreq : Rs) {
        int depth = 0;
        while ((1 << depth) < Rreq) ++depth;
        int const R = 1 << depth;
        auto t2 = std::chrono::steady_clock::now();
        partition p = bisect_all(g0, depth);
        std::vector<int> newid;
        csr g = permute(g0, p.order, newid);
        auto t3 = std::chrono::steady_clock::now();
        int smax = 0;
        long long cut = 0;
        std::vector<int> region(g.n);
        for (int r = 0; r < R; ++r) {
            smax = std::max(smax, p.off[r + 1] - p.off[r]);
            for (int v = p.off[r]; v < p.off[r + 1]; ++v) region[v] = r;
        }
        std::vector<int> boundary(R, 0);
        for (int v = 0; v < g.n; ++v) {
            bool b = false;
            for (int k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
                if (region[g.col[k]] != region[v]) b = true, ++cut;
            boundary[region[v]] += b;
        }
        int const bmax = *std::max_element(boundary.begin(), boundary.end());
        // Kernel 3's shared rows.
        std::vector<unsigned short> rp_all(g.n + R);
        std::vector<u32> adj_all;
        std::vector<int> adj_off(R + 1, 0);
        int emax = 0;
        bool fits3 = smax < 65536;
        for (int r = 0; r < R; ++r) {
            int const b = p.off[r], sz = p.off[r + 1] - b;
            adj_off[r] = int(adj_all.size());
            for (int i = 0; i <= sz; ++i) {
                int const rel = (i < sz ? g.ptr[b + i] : g.ptr[b + sz]) - g.ptr[b];
                if (rel > 65535) fits3 = false;
                rp_all[b + r + i] = (unsigned short)rel;
            }
            for (int k = g.ptr[b]; k < g.ptr[b + sz]; ++k) {
                int const x = g.col[k];
                if (x >= b && x < b + sz && g.w[k] < 32768) adj_all.push_back(u32(x - b) | (g.w[k] << 16));
                else adj_all.push_back(0x80000000u | u32(k));
            }
            emax = std::max(emax, int(adj_all.size()) - adj_off[r]);
        }
        adj_off[R] = int(adj_all.size());
        int const wmax = (smax + 31) / 32;
        std::size_t const shmem3 = 4 * std::size_t(smax) + 8 * std::size_t(wmax) + 4 * std::size_t(emax) +
                                   2 * std::size_t(smax + 1) + 16;
        std::printf("kernel 3: %d entries in the largest region, %zu bytes of shared memory%s\n", emax,
                    shmem3, fits3 ? "" : " (does not fit 16-bit offsets)");
        unsigned short* drp;
        u32* dadj;
        int* dadjoff;
        CHECK(cudaMalloc(&drp, sizeof(unsigned short) * rp_all.size()));
        CHECK(cudaMalloc(&dadj, sizeof(u32) * adj_all.size()));
        CHECK(cudaMalloc(&dadjoff, sizeof(int) * (R + 1)));
        CHECK(cudaMemcpy(drp, rp_all.data(), sizeof(unsigned short) * rp_all.size(), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dadj, adj_all.data(), sizeof(u32) * adj_all.size(), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dadjoff, adj_off.data(), sizeof(int) * (R + 1), cudaMemcpyHostToDevice));
        u32 cap = 1;
        while (cap < u32(bmax) + 1) cap *= 2;
        std::printf("%d regions: partition+renumber %.3f s, largest %d vertices, %lld cut edges, most "
                    "boundary vertices %d (inbox %u)\n", R,
                    std::chrono::duration<double>(t3 - t2).count(), smax, cut / 2, bmax, cap);
        int *dptr, *dcol, *doff, *dabort;
        u32 *dw, *ddist, *dflag, *dpub;
        u64 *dinbox, *dtails, *dpending, *dstats, *ddeadline;
        CHECK(cudaMalloc(&dptr, sizeof(int) * (g.n + 1)));
        CHECK(cudaMalloc(&dcol, sizeof(int) * g.col.size()));
        CHECK(cudaMalloc(&dw, sizeof(u32) * g.w.size()));
        CHECK(cudaMalloc(&doff, sizeof(int) * (R + 1)));
        CHECK(cudaMalloc(&ddist, sizeof(u32) * g.n));
        CHECK(cudaMalloc(&dflag, sizeof(u32) * g.n));
        CHECK(cudaMalloc(&dinbox, sizeof(u64) * R * cap));
        CHECK(cudaMalloc(&dtails, sizeof(u64) * 16 * R));
        CHECK(cudaMalloc(&dpending, 128));
        CHECK(cudaMalloc(&dstats, 128));
        CHECK(cudaMalloc(&ddeadline, 128));
        CHECK(cudaMalloc(&dabort, 128));
        CHECK(cudaMalloc(&dpub, sizeof(u32) * R));
        CHECK(cudaMemcpy(dptr, g.ptr.data(), sizeof(int) * (g.n + 1), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dcol, g.col.data(), sizeof(int) * g.col.size(), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dw, g.w.data(), sizeof(u32) * g.w.size(), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(doff, p.off.data(), sizeof(int) * (R + 1), cudaMemcpyHostToDevice));
        std::size_t const shmem2 = sizeof(u32) * (3 * std::size_t(smax) + (smax + 31) / 32);
        cudaEvent_t e0, e1;
        CHECK(cudaEventCreate(&e0));
        CHECK(cudaEventCreate(&e1));
        std::vector<u32> out(g.n);
        for (std::size_t mi = 0; mi < modes.size(); ++mi) {
            bool const unit = modes[mi] == "bfs";
          for (int kv : Ks) {
            if (kv == 3 && !fits3) continue;
            std::size_t const shmem = kv == 3 ? shmem3 : shmem2;
            auto kern = kv == 3 ? (unit ? region_smem<true> : region_smem<false>)
                                : (unit ? region_relax<true> : region_relax<false>);
            int optin = 0;
            CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
            if (shmem + 256 > std::size_t(optin)) {
                std::printf("%s R=%d: %zu bytes of shared memory a block, more than %d\n",
                            modes[mi].c_str(), R, shmem, optin);
                continue;
            }
            CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem)));
            for (int threads : Ts)
            for (int Wi : unit ? Wbfs : Wsssp) {
                u32 const W = Wi <= 0 ? INF : u32(Wi);
                int per_sm = 0, sms = 0;
                CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, threads, shmem));
                CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
                if (per_sm * sms < R) {
                    std::printf("%s R=%d T=%d: %zu bytes of shared memory, %d a multiprocessor: not "
                                "co-resident\n", modes[mi].c_str(), R, threads, shmem, per_sm);
                    continue;
                }
                std::vector<double> medians;
                double items_sum = 0, rounds_sum = 0, handed_sum = 0, def_sum = 0, busy = 0, pushns = 0, pushr = 0, span = 0;
                double cat[16] = {};
                for (std::size_t si = 0; si < sources.size(); ++si) {
                    int s = newid[sources[si]];
                    std::vector<float> ms;
                    u64 st[16] = {};
                    for (int rep = 0; rep < runs; ++rep) {
                        CHECK(cudaEventRecord(e0));
                        init_kernel<<<264, 512>>>(ddist, dflag, g.n, s, dtails, R, dinbox, u64(R) * cap,
                                                  dpending, dstats, dabort, 20000000000ull, ddeadline, dpub);
                        region_args a{dptr, dcol, unit ? nullptr : dw, doff, R, ddist, dflag, dinbox,
                                      dtails, cap, dpending, dstats, dabort, dpub, u32(W), ddeadline, smax,
                                      drp, dadj, dadjoff, wmax, emax, unsigned(poll_ns)};
                        void* args[] = {&a, &s};
                        CHECK(cudaLaunchCooperativeKernel((void*)kern, dim3(R), dim3(threads), args,
                                                          shmem, 0));
                        CHECK(cudaEventRecord(e1));
                        CHECK(cudaEventSynchronize(e1));
                        CHECK(cudaGetLastError());
                        float t = 0;
                        CHECK(cudaEventElapsedTime(&t, e0, e1));
                        ms.push_back(t);
                        CHECK(cudaMemcpy(st, dstats, sizeof st, cudaMemcpyDeviceToHost));
                        int ab = 0;
                        CHECK(cudaMemcpy(&ab, dabort, sizeof ab, cudaMemcpyDeviceToHost));
                        if (ab) std::printf("ABORTED (deadline)\n"), std::exit(1);
                    }
                    std::sort(ms.begin(), ms.end());
                    medians.push_back(ms[ms.size() / 2]);
                    rounds_sum += double(st[0]), items_sum += double(st[1]), handed_sum += double(st[2]);
                    def_sum += double(st[3]);
                    busy += double(st[4]), pushns += double(st[5]), pushr += double(st[6]);
                    span += double(st[8] - st[7]);
                    for (int j = 9; j < 15; ++j) cat[j] += double(st[j]);
                    if (si < refs[mi].size()) {
                        CHECK(cudaMemcpy(out.data(), ddist, sizeof(u32) * g.n, cudaMemcpyDeviceToHost));
                        int wrong = 0;
                        for (int v = 0; v < g.n; ++v) wrong += out[newid[v]] != refs[mi][si][v];
                        if (wrong)
                            std::printf("  CHECK source %d: %d of %d labels differ\n", sources[si],
                                        wrong, g.n);
                        bad += wrong != 0;
                    }
                }
                std::vector<double> m2 = medians;
                std::sort(m2.begin(), m2.end());
                double const ns = double(sources.size());
                std::printf("RESULT %s %s K=%d R=%d T=%d W=%d: median %.3f ms (sources %.3f-%.3f), rounds "
                            "%.0f a source (%.1f a region), items %.2f a vertex (deferred %.2f), handed "
                            "over %.0f; checked %zu\n", argv[1], modes[mi].c_str(), kv, R, threads, Wi,
                            m2[m2.size() / 2], m2.front(), m2.back(), rounds_sum / ns,
                            rounds_sum / ns / R, items_sum / ns / g.n, def_sum / ns / g.n,
                            handed_sum / ns, refs[mi].size());
                std::printf("  rounds: %.2f us each (with a hand-over %.2f us, %.0f%% of rounds); busy "
                            "%.1f%% of blocks x span %.3f ms\n", busy / rounds_sum / 1e3,
                            pushns / std::max(pushr, 1.0) / 1e3, 100 * pushr / rounds_sum,
                            100 * busy / (span * R), span / ns / 1e6);
                if (kv == 3)
                    std::printf("  rounds by kind: plain %.2f us (%.0f%%), a cross entry read %.2f us (%.0f%%), "
                                "inbox items taken %.2f us (%.0f%%)\n",
                                cat[9] / std::max(cat[10], 1.0) / 1e3, 100 * cat[10] / rounds_sum,
                                cat[11] / std::max(cat[12], 1.0) / 1e3, 100 * cat[12] / rounds_sum,
                                cat[13] / std::max(cat[14], 1.0) / 1e3, 100 * cat[14] / rounds_sum);
                std::fflush(stdout);
            }
          }
        }
        cudaFree(drp), cudaFree(dadj), cudaFree(dadjoff);
        cudaFree(dptr), cudaFree(dcol), cudaFree(dw), cudaFree(doff), cudaFree(ddist), cudaFree(dflag);
        cudaFree(dinbox), cudaFree(dtails), cudaFree(dpending), cudaFree(dstats), cudaFree(ddeadline),
            cudaFree(dabort);
    }
    std::printf("%s\n", bad ? "CHECK FAILED" : "all checked labels equal");
    return bad ? 1 : 0;
}

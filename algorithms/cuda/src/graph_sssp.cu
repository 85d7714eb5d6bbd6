// Single-source shortest paths on the GPU (graph.hpp): frontier Bellman-Ford and delta-stepping
// (near-far piles), both built on one relaxation kernel that walks the frontier's edges in equal
// tiles and lowers distances with atomic min. Vertices whose distance dropped form the next
// frontier, once each (a stamp per queue built).
//
// Bellman-Ford: with no negative cycle reachable from the source, every distance is final after
// n - 1 rounds (a round relaxes at least the paths one edge longer, and asynchronous updates only
// help), so a non-empty frontier after round n proves a negative cycle. Its vertex is then found
// on the host (a queue-based Bellman-Ford that follows predecessors), which only that case pays.
//
// Delta-stepping: relaxations that land below the current threshold feed the near pile and run
// at once; the others wait in the far pile (each vertex once). When the near pile empties the
// threshold moves to (smallest far distance) + delta and the far pile is split.
//
// Small rounds (frontiers of road networks, the first and last rounds elsewhere) run in one block
// (sssp_block), round after round and bucket after bucket, until a frontier or a far pile
// outgrows it: a round there costs a few block barriers, where a launch of its own costs a scan,
// a kernel and a read-back of the counters (tens of microseconds, thousands of times on a road
// network).
//
// Everything runs on the context's stream.

#include "graph_async.cuh"

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

namespace kleene::cuda {
namespace {

constexpr int threads = 256;
constexpr int relax_items = 8;

template <class T, class Index>
struct sssp_graph {
    Index const* ptr;
    Index const* col;
    T const* w;  // nullptr: every edge weighs iso
    T iso;
    std::int64_t n;
};

struct sssp_counters {
    unsigned long long near;  // entries of the queue being built
    unsigned long long far;   // entries of the far pile
};

template <class T, class Index>
struct relax_args {
    sssp_graph<T, Index> g;
    T* dist;
    Index const* queue;
    std::int64_t const* offs;
    std::int64_t count;
    int id;  // stamp of the queue being built
    int* stamp;
    Index* next;
    std::int64_t* next_deg;
    sssp_counters* ctr;
    bool split;  // delta-stepping: results at or above `threshold` go to the far pile
    T threshold;
    Index* far;
    unsigned* in_far;
};

template <class T, class Index>
__device__ __forceinline__ void push_near(relax_args<T, Index> const& p, Index v) {
    if (atomicExch(&p.stamp[v], p.id) == p.id) return;
    auto const slot = detail::aggregated_slot(&p.ctr->near);
    p.next[slot] = v;
    p.next_deg[slot] = p.g.ptr[v + 1] - p.g.ptr[v];
}

template <class T, class Index>
__global__ void __launch_bounds__(threads) relax(relax_args<T, Index> p) {
    detail::for_each_frontier_edge<threads, relax_items>(
        p.offs, p.count, [&](std::int64_t k, std::int64_t r) {
            Index const u = p.queue[k];
            Index const pos = p.g.ptr[u] + Index(r);
            Index const v = p.g.col[pos];
            T const du = p.dist[u];
            if (du == infinity<T>()) return;
            T const nd = min_plus<T>::mul(du, detail::value_at(p.g.w, p.g.iso, pos));
            if (!(nd < p.dist[v])) return;
            if (!detail::atomic_min_improves(&p.dist[v], nd)) return;
            if (!p.split || nd < p.threshold) {
                push_near(p, v);
            } else if (atomicExch(&p.in_far[v], 1u) == 0u) {
                p.far[detail::aggregated_slot(&p.ctr->far)] = v;
            }
        });
}

/// Far pile -> near queue (distance below the new threshold) or the next far pile.
template <class T, class Index>
__global__ void split_far(relax_args<T, Index> p, Index const* __restrict__ far,
                          std::int64_t count) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        Index const v = far[k];
        if (p.dist[v] < p.threshold) {
            p.in_far[v] = 0u;
            push_near(p, v);
        } else {
            p.far[detail::aggregated_slot(&p.ctr->far)] = v;
        }
    }
}

template <class T, class Index>
__global__ void far_minimum(T const* __restrict__ dist, Index const* __restrict__ far,
                            std::int64_t count, T* __restrict__ out) {
    T m = infinity<T>();
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        T const d = dist[far[k]];
        m = d < m ? d : m;
    }
    using reduce = cub::BlockReduce<T, threads>;
    __shared__ typename reduce::TempStorage tmp;
    T const b = reduce(tmp).Reduce(m, [](T x, T y) { return y < x ? y : x; });
    if (threadIdx.x == 0 && b < infinity<T>()) detail::atomic_min_improves(out, b);
}

/// Sum (as double) and minimum of the edge weights.
template <class T>
__global__ void weight_stats(T const* __restrict__ w, std::int64_t n, double* __restrict__ sum,
                             T* __restrict__ min) {
    double s = 0;
    T m = infinity<T>();
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < n;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        T const x = w[k];
        s += double(x);
        m = x < m ? x : m;
    }
    using reduce_d = cub::BlockReduce<double, threads>;
    using reduce_t = cub::BlockReduce<T, threads>;
    __shared__ typename reduce_d::TempStorage tmp_d;
    __shared__ typename reduce_t::TempStorage tmp_t;
    double const bs = reduce_d(tmp_d).Sum(s);
    T const bm = reduce_t(tmp_t).Reduce(m, [](T x, T y) { return y < x ? y : x; });
    if (threadIdx.x == 0) {
        atomicAdd(sum, bs);
        detail::atomic_min_improves(min, bm);
    }
}


/// The next threshold of delta-stepping: lo + delta, kept inside T and above lo.
template <class T>
__host__ __device__ __forceinline__ T next_threshold(T lo, T delta) {
    if constexpr (std::is_integral_v<T>) {
        return lo > std::numeric_limits<T>::max() - delta ? std::numeric_limits<T>::max()
                                                          : T(lo + delta);
    } else {
        T thr = lo + delta;
        if (!(thr > lo)) thr = nextafter(lo, infinity<T>());
        return thr;
    }
}

constexpr int sblock_threads = 512;
constexpr int sblock_items = 4;
constexpr int sblock_cap = sblock_threads * sblock_items;  // frontier entries a block round takes
constexpr long long sblock_far_cap = 65536;                // far entries a block bucket step takes
constexpr int sblock_unroll = 4;

/// The state the host loop and sssp_block hand each other.
template <class T>
struct sblock_state {
    long long frontier;   // entries of queue[cur]
    long long far_count;  // entries of far[far_cur]
    long long rounds;     // relaxation rounds so far
    long long block_rounds;
    T threshold;
    int cur, far_cur, id;
    int done;  // nothing is left to relax
};

/// Rounds and bucket steps in one block while they stay small (top of the file); stops before a
/// round of more than sblock_cap vertices or edge_cap edges, a bucket step over a far pile of more
/// than sblock_far_cap, or max_rounds rounds (the host then looks for a negative cycle).
template <class T, class Index>
__global__ void __launch_bounds__(sblock_threads)
    sssp_block(relax_args<T, Index> p, Index* q0, Index* q1, std::int64_t* d0, std::int64_t* d1,
               Index* f0, Index* f1, sblock_state<T>* state, T delta, long long edge_cap,
               long long max_rounds) {
    using scan = cub::BlockScan<int, sblock_threads, cub::BLOCK_SCAN_WARP_SCANS>;
    using reduce = cub::BlockReduce<T, sblock_threads>;
    __shared__ union {
        typename scan::TempStorage scan;
        typename reduce::TempStorage reduce;
    } tmp;
    __shared__ int offs[sblock_cap + 1];
    __shared__ Index row[sblock_cap];  // the frontier's rows' first entries
    __shared__ T du[sblock_cap];       // and their distances
    __shared__ unsigned long long near_n, far_n;
    __shared__ T low;
    int const t = static_cast<int>(threadIdx.x);
    auto const& g = p.g;
    sblock_state<T> st = *state;
    // (Selected by ternaries, not arrays: a runtime index into a local array goes to the stack.)
    auto queue = [&](int i) { return i ? q1 : q0; };
    auto deg = [&](int i) { return i ? d1 : d0; };
    auto far = [&](int i) { return i ? f1 : f0; };
    while (true) {
        if (st.frontier == 0) {
            if (!p.split || st.far_count == 0) {
                st.done = 1;
                break;
            }
            if (st.far_count > sblock_far_cap) break;
            // Bucket step: threshold = smallest far distance + delta; split the far pile.
            Index const* fp = far(st.far_cur);
            T m = infinity<T>();
            for (long long k = t; k < st.far_count; k += sblock_threads) {
                T const d = p.dist[fp[k]];
                m = d < m ? d : m;
            }
            T const b = reduce(tmp.reduce).Reduce(m, [](T x, T y) { return y < x ? y : x; });
            if (t == 0) {
                low = b;
                near_n = 0;
                far_n = 0;
            }
            __syncthreads();
            st.threshold = next_threshold(low, delta);
            Index* nq = queue(st.cur);
            std::int64_t* nd = deg(st.cur);
            Index* nf = far(1 - st.far_cur);
            int const id = st.id++;
            for (long long k = t; k < st.far_count; k += sblock_threads) {
                Index const v = fp[k];
                if (p.dist[v] < st.threshold) {
                    p.in_far[v] = 0u;
                    if (atomicExch(&p.stamp[v], id) == id) continue;
                    auto const slot = detail::aggregated_slot(&near_n);
                    nq[slot] = v;
                    nd[slot] = g.ptr[v + 1] - g.ptr[v];
                } else {
                    nf[detail::aggregated_slot(&far_n)] = v;
                }
            }
            __syncthreads();
            st.frontier = static_cast<long long>(near_n);
            st.far_count = static_cast<long long>(far_n);
            st.far_cur = 1 - st.far_cur;
            __syncthreads();  // near_n and far_n are reset by the next step
            continue;
        }
        if (st.frontier > sblock_cap || st.rounds >= max_rounds) break;
        auto const f = static_cast<int>(st.frontier);
        Index const* q = queue(st.cur);
        std::int64_t const* dq = deg(st.cur);
        int items[sblock_items];
#pragma unroll
        for (int i = 0; i < sblock_items; ++i) {
            int const k = t * sblock_items + i;
            items[i] = 0;
            if (k < f) {
                Index const u = q[k];
                row[k] = g.ptr[u];
                du[k] = p.dist[u];
                std::int64_t const dk = dq[k];
                items[i] = dk > edge_cap ? static_cast<int>(edge_cap + 1) : static_cast<int>(dk);
            }
        }
        int edges = 0;
        scan(tmp.scan).ExclusiveSum(items, items, edges);
        if (edges > edge_cap) break;  // the same verdict in every thread; nothing changed yet
#pragma unroll
        for (int i = 0; i < sblock_items; ++i) {
            int const k = t * sblock_items + i;
            if (k < f) offs[k] = items[i];
        }
        if (t == 0) {
            offs[f] = edges;
            near_n = 0;
            far_n = static_cast<unsigned long long>(st.far_count);
        }
        __syncthreads();
        Index* nq = queue(1 - st.cur);
        std::int64_t* nd = deg(1 - st.cur);
        Index* fp = p.split ? far(st.far_cur) : nullptr;
        int const id = st.id++;
        for (int e0 = t; e0 < edges; e0 += sblock_threads * sblock_unroll) {
            Index v[sblock_unroll];
            T cand[sblock_unroll];
            bool take[sblock_unroll];
#pragma unroll
            for (int j = 0; j < sblock_unroll; ++j) {
                int const e = e0 + j * sblock_threads;
                take[j] = e < edges;
                if (take[j]) {
                    auto const k = static_cast<int>(detail::last_at_most(offs, 0, f - 1, e));
                    Index const pos = row[k] + Index(e - offs[k]);
                    v[j] = g.col[pos];
                    take[j] = du[k] != infinity<T>();
                    cand[j] = min_plus<T>::mul(du[k], detail::value_at(g.w, g.iso, pos));
                }
            }
#pragma unroll
            for (int j = 0; j < sblock_unroll; ++j)
                if (take[j]) take[j] = cand[j] < p.dist[v[j]];
#pragma unroll
            for (int j = 0; j < sblock_unroll; ++j)
                if (take[j]) take[j] = detail::atomic_min_improves(&p.dist[v[j]], cand[j]);
#pragma unroll
            for (int j = 0; j < sblock_unroll; ++j) {
                if (!take[j]) continue;
                if (!p.split || cand[j] < st.threshold) {
                    if (atomicExch(&p.stamp[v[j]], id) == id) continue;
                    auto const slot = detail::aggregated_slot(&near_n);
                    nq[slot] = v[j];
                    nd[slot] = g.ptr[v[j] + 1] - g.ptr[v[j]];
                } else if (atomicExch(&p.in_far[v[j]], 1u) == 0u) {
                    fp[detail::aggregated_slot(&far_n)] = v[j];
                }
            }
        }
        __syncthreads();
        st.frontier = static_cast<long long>(near_n);
        st.far_count = static_cast<long long>(far_n);
        st.cur = 1 - st.cur;
        ++st.rounds;
        ++st.block_rounds;
        __syncthreads();  // near_n and far_n are reset by the next round
    }
    if (t == 0) *state = st;
}

template <class T, class Index>
__global__ void sssp_init(sssp_graph<T, Index> g, T* dist, Index source, Index* queue,
                          std::int64_t* deg) {
    dist[source] = T(0);
    queue[0] = source;
    deg[0] = g.ptr[source + 1] - g.ptr[source];
}

/// Whether x lies on a cycle of the predecessor graph.
inline bool on_pred_cycle(std::vector<std::int64_t> const& pred, std::int64_t x) {
    std::int64_t y = pred[static_cast<std::size_t>(x)];
    for (std::size_t i = 0; i < pred.size() && y >= 0; ++i) {
        if (y == x) return true;
        y = pred[static_cast<std::size_t>(y)];
    }
    return false;
}

/// A vertex on a negative cycle reachable from `source`, found on the host (the graph copied
/// there). First a queue-based Bellman-Ford that counts each tentative path's edges: a path of n
/// edges repeats a vertex, and n predecessors back from its end usually sit on the cycle. When
/// that walk does not close a cycle, the textbook way: n passes over every edge, then n
/// predecessors back from a vertex that the last pass still lowered.
template <class T, class Index>
std::int64_t negative_cycle_vertex(csr_matrix<T, Index, device> const& a, std::size_t source) {
    auto const h = a.to_host();
    std::size_t const n = h.rows();
    std::vector<T> dist(n, infinity<T>());
    std::vector<std::int64_t> pred(n, -1), edges(n, 0);
    auto walk_back = [&](std::int64_t x) {
        for (std::size_t i = 0; i < n && x >= 0; ++i) x = pred[static_cast<std::size_t>(x)];
        return x;
    };
    {
        std::vector<char> queued(n, 0);
        std::deque<std::size_t> q{source};
        dist[source] = T(0);
        queued[source] = 1;
        while (!q.empty()) {
            std::size_t const u = q.front();
            q.pop_front();
            queued[u] = 0;
            for (std::size_t k = h.row_begin(u); k < h.row_end(u); ++k) {
                auto const v = static_cast<std::size_t>(h.col_idx()[k]);
                T const nd = min_plus<T>::mul(dist[u], h.value(k));
                if (!(nd < dist[v])) continue;
                dist[v] = nd;
                pred[v] = static_cast<std::int64_t>(u);
                edges[v] = edges[u] + 1;
                if (edges[v] >= static_cast<std::int64_t>(n)) {
                    std::int64_t const x = walk_back(static_cast<std::int64_t>(v));
                    if (x >= 0 && on_pred_cycle(pred, x)) return x;
                    q.clear();
                    break;
                }
                if (!queued[v]) {
                    queued[v] = 1;
                    q.push_back(v);
                }
            }
        }
    }
    std::fill(dist.begin(), dist.end(), infinity<T>());
    std::fill(pred.begin(), pred.end(), -1);
    dist[source] = T(0);
    std::int64_t last = -1;
    for (std::size_t pass = 0; pass < n; ++pass) {
        last = -1;
        for (std::size_t u = 0; u < n; ++u) {
            if (dist[u] == infinity<T>()) continue;
            for (std::size_t k = h.row_begin(u); k < h.row_end(u); ++k) {
                auto const v = static_cast<std::size_t>(h.col_idx()[k]);
                T const nd = min_plus<T>::mul(dist[u], h.value(k));
                if (nd < dist[v]) {
                    dist[v] = nd;
                    pred[v] = static_cast<std::int64_t>(u);
                    last = static_cast<std::int64_t>(v);
                }
            }
        }
        if (last < 0) break;
    }
    return last < 0 ? -1 : walk_back(last);
}

/// The distances to `out`, n values on the device (the caller's), when it is not null, else to
/// run.dist; either way after the work queued on ctx's stream.
template <class T>
void hand_over(sssp_run<T>& run, T const* dist, std::size_t n, T* out, context& ctx) {
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    if (out) {
        if (n) KLEENE_CUDA_CHECK(cudaMemcpyAsync(out, dist, n * sizeof(T),
                                                 cudaMemcpyDeviceToDevice, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    } else {
        run.dist.resize(n);
        detail::copy_to_host(run.dist.data(), dist, n, ctx);
    }
}

/// The search into `run`: every field is set anew, except that run.dist keeps its storage (a
/// caller searching again into the last run copies into pages it has already touched).
template <class T, class Index>
void sssp_impl(sssp_run<T>& run, csr_matrix<T, Index, device> const& a, std::size_t source,
               sssp_tuning const& tuning, T* out, context& ctx) {
    run.seconds = 0;
    run.rounds = 0;
    run.method = sssp_method::automatic;
    run.notes.clear();
    using detail::stream_buffer;
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    std::size_t const n = a.rows();
    sssp_graph<T, Index> const g{a.row_ptr(), a.col_idx(), a.values(), a.iso_value(),
                                 static_cast<std::int64_t>(n)};
    // Weight statistics: the method (negative weights need Bellman-Ford) and delta; a caller that
    // knows them (kleene::graph keeps its weights' summary) spares this pass over the weights.
    double mean = 0;
    bool negative = false;  // a weight below zero
    bool const known = !std::isnan(tuning.weight_mean) && !std::isnan(tuning.weight_min);
    if (known) {
        mean = tuning.weight_mean;
        negative = tuning.weight_min < 0;
    } else if (a.nnz() > 0) {
        if (a.values()) {
            stream_buffer<double> sum(1, st);
            stream_buffer<T> mn(1, st);
            T const inf = infinity<T>();
            KLEENE_CUDA_CHECK(cudaMemsetAsync(sum.data(), 0, sizeof(double), st));
            KLEENE_CUDA_CHECK(
                cudaMemcpyAsync(mn.data(), &inf, sizeof(T), cudaMemcpyHostToDevice, st));
            weight_stats<T><<<detail::blocks_for(a.nnz(), threads, 1024), threads, 0, st>>>(
                a.values(), static_cast<std::int64_t>(a.nnz()), sum.data(), mn.data());
            KLEENE_CUDA_CHECK_LAUNCH("weight_stats");
            double const s = detail::read_one(sum.data(), st);
            negative = detail::read_one(mn.data(), st) < T(0);
            mean = s / double(a.nnz());
        } else {
            mean = double(a.iso_value());
            negative = a.iso_value() < T(0);
        }
    }
    sssp_method method = tuning.method;
    std::string why;
    if (method == sssp_method::automatic) {
        bool const sparse = tuning.async_degree > 0 && n > 0 &&
                            double(a.nnz()) <= tuning.async_degree * double(n);
        method = negative ? sssp_method::bellman_ford
                 : sparse ? sssp_method::async
                          : sssp_method::delta_stepping;
        if (method == sssp_method::async)
            why = "at most async_degree " + std::to_string(tuning.async_degree) +
                  " edges a vertex: the asynchronous work list; ";
    }
    if ((method == sssp_method::delta_stepping || method == sssp_method::async) && negative)
        throw invalid_argument(std::string("sssp: ") +
                               (method == sssp_method::async ? "the asynchronous work list"
                                                             : "delta-stepping") +
                               " needs non-negative weights; use Bellman-Ford");
    if (method == sssp_method::async) {
        stream_buffer<T> dist(n, st);
        auto const listed = async_detail::run_async<T, Index>(
            a.row_ptr(), a.col_idx(), async_detail::csr_weight<T>{a.values(), a.iso_value()},
            static_cast<std::int64_t>(n), dist.data(), static_cast<Index>(source),
            tuning.async_warps, tuning.async_poll_ns, tuning.async_keep, 60.0, "sssp", st);
        if (listed.finished) {
            run.method = sssp_method::async;
            run.seconds = listed.seconds;
            run.rounds = 1;
            run.notes = why + listed.note(static_cast<std::int64_t>(n));
            hand_over(run, dist.data(), n, out, ctx);
            return;
        }
        why += listed.note(static_cast<std::int64_t>(n)) + "; delta-stepping instead; ";
        method = sssp_method::delta_stepping;
    }
    bool const split = method == sssp_method::delta_stepping;
    double delta_d = tuning.delta;
    if (split && !(delta_d > 0)) {
        // About a warp's worth of edges per bucket and vertex: mean weight x 32 / mean degree.
        double const degree = n ? double(a.nnz()) / double(n) : 1.0;
        delta_d = std::max(mean, 1e-30) * std::max(1.0, 32.0 / std::max(degree, 1e-30));
    }
    T delta = T(0);
    if (split) {
        if constexpr (std::is_integral_v<T>)
            delta = static_cast<T>(std::min<double>(std::max(1.0, std::ceil(delta_d)),
                                                    double(std::numeric_limits<T>::max() / 4)));
        else delta = static_cast<T>(delta_d);
    }

    stream_buffer<T> dist(n, st);
    stream_buffer<int> stamp(n, st);
    stream_buffer<unsigned> in_far(split ? n : 0, st);
    stream_buffer<Index> queue[2] = {stream_buffer<Index>(n, st), stream_buffer<Index>(n, st)};
    stream_buffer<std::int64_t> deg[2] = {stream_buffer<std::int64_t>(n, st),
                                          stream_buffer<std::int64_t>(n, st)};
    stream_buffer<Index> far[2] = {stream_buffer<Index>(split ? n : 0, st),
                                   stream_buffer<Index>(split ? n : 0, st)};
    stream_buffer<std::int64_t> offs(n + 1, st);
    stream_buffer<sssp_counters> ctr(1, st);
    stream_buffer<T> far_min(1, st);
    std::size_t scan_bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, deg[0].data(),
                                                    offs.data() + 1, static_cast<std::int64_t>(n),
                                                    st));
    stream_buffer<unsigned char> scan_temp(scan_bytes, st);

    event start(true), stop(true);  // cuda/stream.hpp; recorded on st
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start.native()), st));
    if (n > 0) {  // dist = infinity: detail::fill's kernel, on st
        detail::fill_kernel<T><<<detail::blocks_for(n, 256, 4096), 256, 0, st>>>(
            dist.data(), n, infinity<T>());
        KLEENE_CUDA_CHECK_LAUNCH("fill_kernel");
    }
    KLEENE_CUDA_CHECK(cudaMemsetAsync(stamp.data(), 0xff, n * sizeof(int), st));
    if (split) KLEENE_CUDA_CHECK(cudaMemsetAsync(in_far.data(), 0, n * sizeof(unsigned), st));
    sssp_init<T, Index><<<1, 1, 0, st>>>(g, dist.data(), static_cast<Index>(source),
                                         queue[0].data(), deg[0].data());
    KLEENE_CUDA_CHECK_LAUNCH("sssp_init");

    relax_args<T, Index> p{g,
                           dist.data(),
                           nullptr,
                           offs.data(),
                           0,
                           0,
                           stamp.data(),
                           nullptr,
                           nullptr,
                           ctr.data(),
                           split,
                           split ? delta : T(0),
                           nullptr,
                           split ? in_far.data() : nullptr};
    std::int64_t frontier = 1, far_count = 0;
    int cur = 0, far_cur = 0, id = 0;
    std::size_t rounds = 0, block_rounds = 0, block_runs = 0;
    bool cycle = false;
    auto read_counters = [&] { return detail::read_one(ctr.data(), st); };
    // Small rounds in one block (sssp_block). `declined`: it handed back this very state (a round
    // or a far pile too big for it), so the launches below take the next step.
    bool const use_block = tuning.block_edges > 0;
    bool declined = false;
    stream_buffer<sblock_state<T>> block_state(use_block ? 1 : 0, st);
    // The block's state crosses in the context's page-locked scratch (kept: a page-locked
    // allocation per call, and its free, which waits for the whole device, cost more).
    auto* const block_host = static_cast<sblock_state<T>*>(
        detail::pinned_scratch(ctx, sizeof(sblock_state<T>)));
    // Profile: the host's clock around each run of the block (launch, rounds, read-back) and
    // around the whole loop; the rest is the grid's rounds and the bucket splits.
    double block_s = 0;
    std::size_t splits = 0;
    auto const loop0 = std::chrono::steady_clock::now();
    auto run_block = [&]() -> bool {  // true: the search is done
        auto const b0 = std::chrono::steady_clock::now();
        sblock_state<T> const state{
            frontier, far_count, static_cast<long long>(rounds), 0, p.threshold, cur, far_cur, id,
            0};
        *block_host = state;
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(block_state.data(), block_host, sizeof state,
                                          cudaMemcpyHostToDevice, st));
        long long const max_rounds = split ? std::numeric_limits<long long>::max()
                                           : static_cast<long long>(n);
        sssp_block<T, Index><<<1, sblock_threads, 0, st>>>(
            p, queue[0].data(), queue[1].data(), deg[0].data(), deg[1].data(),
            split ? far[0].data() : nullptr, split ? far[1].data() : nullptr, block_state.data(),
            delta, tuning.block_edges, max_rounds);
        KLEENE_CUDA_CHECK_LAUNCH("sssp_block");
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(block_host, block_state.data(), sizeof state,
                                          cudaMemcpyDeviceToHost, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        block_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
        sblock_state<T> const r = *block_host;
        declined = r.block_rounds == 0 && r.frontier == frontier && r.far_count == far_count &&
                   r.done == 0;
        ++block_runs;
        block_rounds += static_cast<std::size_t>(r.block_rounds);
        frontier = r.frontier;
        far_count = r.far_count;
        rounds = static_cast<std::size_t>(r.rounds);
        p.threshold = r.threshold;
        cur = r.cur;
        far_cur = r.far_cur;
        id = r.id;
        return r.done != 0;
    };
    while (true) {
        if (use_block && !declined && frontier <= sblock_cap &&
            (frontier > 0 || far_count <= sblock_far_cap)) {
            if (run_block()) break;
            if (!split && frontier > 0 && rounds >= n) {
                cycle = true;
                break;
            }
            continue;
        }
        declined = false;
        bool launched = false;  // a round ran here since the block handed back
        while (frontier > 0) {
            if (!split && rounds >= n) {  // round n still changed something
                cycle = true;
                break;
            }
            if (use_block && launched && frontier <= sblock_cap) break;  // the block may take it
            launched = true;
            int const nxt = 1 - cur;
            // The counters: near restarts, far keeps counting into the current far pile.
            sssp_counters const c0{0, static_cast<unsigned long long>(far_count)};
            KLEENE_CUDA_CHECK(
                cudaMemcpyAsync(ctr.data(), &c0, sizeof c0, cudaMemcpyHostToDevice, st));
            KLEENE_CUDA_CHECK(cudaMemsetAsync(offs.data(), 0, sizeof(std::int64_t), st));
            KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
                scan_temp.data(), scan_bytes, deg[cur].data(), offs.data() + 1, frontier, st));
            p.queue = queue[cur].data();
            p.count = frontier;
            p.id = id++;
            p.next = queue[nxt].data();
            p.next_deg = deg[nxt].data();
            p.far = split ? far[far_cur].data() : nullptr;
            relax<T, Index><<<detail::persistent_blocks(8), threads, 0, st>>>(p);
            KLEENE_CUDA_CHECK_LAUNCH("relax");
            sssp_counters const c = read_counters();
            frontier = static_cast<std::int64_t>(c.near);
            far_count = static_cast<std::int64_t>(c.far);
            cur = nxt;
            ++rounds;
        }
        if (cycle) break;
        if (frontier > 0) continue;  // handed to the block
        if (!split || far_count == 0) break;
        if (use_block && far_count <= sblock_far_cap) continue;  // the block steps the bucket
        // Next bucket: smallest far distance + delta; split the far pile around it.
        T const inf = infinity<T>();
        KLEENE_CUDA_CHECK(
            cudaMemcpyAsync(far_min.data(), &inf, sizeof(T), cudaMemcpyHostToDevice, st));
        far_minimum<T, Index>
            <<<detail::blocks_for(std::size_t(far_count), threads, 1024), threads, 0, st>>>(
                dist.data(), far[far_cur].data(), far_count, far_min.data());
        KLEENE_CUDA_CHECK_LAUNCH("far_minimum");
        T const lo = detail::read_one(far_min.data(), st);
        T thr;
        if constexpr (std::is_integral_v<T>) {
            thr = lo > std::numeric_limits<T>::max() - delta ? std::numeric_limits<T>::max()
                                                             : T(lo + delta);
        } else {
            thr = lo + delta;
            if (!(thr > lo)) thr = std::nextafter(lo, inf);
        }
        p.threshold = thr;
        sssp_counters const c0{0, 0};
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(ctr.data(), &c0, sizeof c0, cudaMemcpyHostToDevice, st));
        p.id = id++;
        p.next = queue[cur].data();  // the near queue being built is the next round's input
        p.next_deg = deg[cur].data();
        p.far = far[1 - far_cur].data();
        split_far<T, Index>
            <<<detail::blocks_for(std::size_t(far_count), threads), threads, 0, st>>>(
                p, far[far_cur].data(), far_count);
        KLEENE_CUDA_CHECK_LAUNCH("split_far");
        sssp_counters const c = read_counters();
        frontier = static_cast<std::int64_t>(c.near);
        far_count = static_cast<std::int64_t>(c.far);
        far_cur = 1 - far_cur;
        ++splits;
    }
    double const loop_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - loop0).count();
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop.native()), st));
    stop.synchronize();
    if (cycle) throw negative_cycle(negative_cycle_vertex(a, source));
    float const ms = event::elapsed_ms(start, stop);
    run.seconds = double(ms) / 1000.0;
    run.rounds = rounds;
    run.method = method;
    run.notes = why +
                std::string(split ? "delta-stepping, delta " + std::to_string(double(delta))
                                  : "Bellman-Ford") +
                ": " + std::to_string(rounds) + " rounds, " + std::to_string(block_rounds) +
                " of them in one block (" + std::to_string(block_runs) +
                " launches; rounds of at most " + std::to_string(sblock_cap) + " vertices and " +
                std::to_string(tuning.block_edges) + " edges)";
    {
        char buf[256];
        std::size_t const grid_rounds = rounds - block_rounds;
        std::snprintf(buf, sizeof buf,
                      "; profile (host clock): the block's runs %.3f ms (%.1f us a round, launch "
                      "and read-back included), the grid's %zu rounds and %zu bucket splits "
                      "%.3f ms (%.1f us a round or split)",
                      block_s * 1e3, block_rounds ? block_s * 1e6 / double(block_rounds) : 0.0,
                      grid_rounds, splits, (loop_s - block_s) * 1e3,
                      grid_rounds + splits ? (loop_s - block_s) * 1e6 / double(grid_rounds + splits)
                                           : 0.0);
        run.notes += buf;
    }
    hand_over(run, dist.data(), n, out, ctx);
}

}  // namespace

namespace {
template <class T, class Index>
void check_sssp(csr_matrix<T, Index, device> const& a, std::size_t source,
                sssp_tuning const& tuning) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("sssp: the adjacency matrix must be square, not " +
                                 kleene::detail::shape(a.rows(), a.cols()));
    if (source >= a.rows())
        throw invalid_argument("sssp: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    if (tuning.delta < 0) throw invalid_argument("sssp: delta must not be negative");
    if (std::isnan(tuning.weight_mean) != std::isnan(tuning.weight_min) ||
        std::isinf(tuning.weight_mean) || std::isinf(tuning.weight_min))
        throw invalid_argument("sssp: weight_mean and weight_min are given together and finite, "
                               "or both left NaN (measured by the call)");
    if (!(tuning.async_degree >= 0) || tuning.async_warps < 1 || tuning.async_warps > 32 ||
        tuning.async_poll_ns > 1000000 || tuning.async_keep > 32)
        throw invalid_argument("sssp: async_degree must be >= 0, async_warps in [1, 32], "
                               "async_poll_ns at most 1e6 and async_keep at most 32");
}
}  // namespace

template <class T, index_type Index>
sssp_run<T> sssp(csr_matrix<T, Index, device> const& a, std::size_t source,
                 sssp_tuning const& tuning, context& ctx) {
    check_sssp(a, source, tuning);
    sssp_run<T> run;
    sssp_impl<T, Index>(run, a, source, tuning, nullptr, ctx);
    return run;
}

template <class T, index_type Index>
void sssp(sssp_run<T>& run, csr_matrix<T, Index, device> const& a, std::size_t source,
          sssp_tuning const& tuning, context& ctx) {
    check_sssp(a, source, tuning);
    sssp_impl<T, Index>(run, a, source, tuning, nullptr, ctx);
}

template <class T, index_type Index>
sssp_run<T> sssp(csr_matrix<T, Index, device> const& a, std::size_t source,
                 dense_vector<T, device>& dist, sssp_tuning const& tuning, context& ctx) {
    check_sssp(a, source, tuning);
    if (dist.size() != a.rows())
        throw dimension_mismatch("sssp: the result vector holds " + std::to_string(dist.size()) +
                                 " entries, the graph " + std::to_string(a.rows()) + " vertices");
    sssp_run<T> run;
    sssp_impl<T, Index>(run, a, source, tuning, dist.data(), ctx);
    return run;
}

#define KLEENE_SSSP(T, Index)                                                             \
    template sssp_run<T> sssp<T, Index>(csr_matrix<T, Index, device> const&, std::size_t, \
                                        sssp_tuning const&, context&);                    \
    template sssp_run<T> sssp<T, Index>(csr_matrix<T, Index, device> const&, std::size_t, \
                                        dense_vector<T, device>&, sssp_tuning const&,     \
                                        context&);                                        \
    template void sssp<T, Index>(sssp_run<T>&, csr_matrix<T, Index, device> const&,       \
                                 std::size_t, sssp_tuning const&, context&);
#define KLEENE_SSSP_BOTH(T) KLEENE_SSSP(T, std::int32_t) KLEENE_SSSP(T, std::int64_t)
KLEENE_SSSP_BOTH(float)
KLEENE_SSSP_BOTH(double)
KLEENE_SSSP_BOTH(std::int32_t)
KLEENE_SSSP_BOTH(std::int64_t)
#undef KLEENE_SSSP_BOTH
#undef KLEENE_SSSP

}  // namespace kleene::cuda

// The condensation closure's rows on the GPU (kleene/algorithms/cuda/closure.hpp).
//
// One warp a component at a time (taken from a shared counter): a breadth-first traversal of the
// DAG between components from it, with a private visited bitmap of k bits and a private queue.
// A queue entry of out-degree up to 32 is handled by one lane (most are: the DAG's mean degree is
// a few), a larger one by the whole warp in turn. The traversal runs twice: the count pass sums
// the vertices of the reached components (each component's row weight), the fill pass writes the
// vertices of each component's row once, into a buffer of sum(weights) entries. The rows are then
// sorted (CUB's segmented sort) and copied to every vertex of their component, widened to the
// result's int64 columns, or set as bits. The host arrays of the condensation are copied in once;
// the result is copied back. Device memory: the traversals' workspace (warps x (k indices + k
// bits)), twice the component rows for the sort, the result; the warps are as many as fit a
// quarter of the budget, at most 32 a SM.

#include <kleene/algorithms/cuda/closure.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/error.hpp>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <limits>
#include <cstdint>
#include <string>
#include <utility>

namespace kleene::cuda {
namespace {

constexpr unsigned full = 0xffffffffu;
constexpr int threads_per_block = 256;

template <class Index>
struct dag {
    std::int64_t k;
    Index const* ptr;
    Index const* succ;
    Index const* member_ptr;
    Index const* members;
    std::uint8_t const* self;
};

/// Per-warp workspace: a visited bitmap of k bits (32-bit words) and a queue of k entries.
template <class Index>
struct workspace {
    std::uint32_t* vis;
    Index* queue;
    std::int64_t words;  ///< bitmap words a warp
    std::int64_t k;
    std::int64_t warps;  ///< warps with a workspace

    /// The calling warp's bitmap and queue; false for a warp past `warps` (it has none).
    __device__ bool of_this_warp(std::uint32_t*& v, Index*& q) const {
        std::int64_t const warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
        if (warp >= warps) return false;
        v = vis + warp * words;
        q = queue + warp * k;
        return true;
    }
};

__device__ __forceinline__ int warp_max(int x) {
    for (int o = 16; o > 0; o >>= 1) x = max(x, __shfl_xor_sync(full, x, o));
    return x;
}

template <class T>
__device__ __forceinline__ T warp_sum(T x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(full, x, o);
    return x;
}

/// Inclusive prefix sum over the warp's lanes.
__device__ __forceinline__ std::int64_t warp_inclusive(std::int64_t x, int lane) {
    for (int o = 1; o < 32; o <<= 1) {
        std::int64_t const y = __shfl_up_sync(full, x, o);
        if (lane >= o) x += y;
    }
    return x;
}

/// Appends the lanes' values whose flag is set to the queue at tail (warp-uniform).
template <class Index>
__device__ __forceinline__ void append(bool flag, Index d, Index* queue, std::int64_t& tail,
                                       int lane) {
    unsigned const mask = __ballot_sync(full, flag);
    if (flag) queue[tail + __popc(mask & ((1u << lane) - 1u))] = d;
    tail += __popc(mask);
}

/// Marks d visited; true when it was not yet.
__device__ __forceinline__ bool first_visit(std::uint32_t* vis, std::int64_t d) {
    std::uint32_t const bit = 1u << (d & 31);
    return !(atomicOr(vis + (d >> 5), bit) & bit);
}

/// The components reachable from c by one edge or more, into the warp's queue; returns how many.
/// Every lane of the warp calls it and gets the same count.
template <class Index>
__device__ std::int64_t traverse(dag<Index> const& g, std::int64_t c, std::uint32_t* vis,
                                 Index* queue, int lane) {
    std::int64_t tail = 0;
    std::int64_t const b = g.ptr[c], e = g.ptr[c + 1];
    for (std::int64_t base = b; base < e; base += 32) {
        std::int64_t const p = base + lane;
        bool const ok = p < e;
        Index const d = ok ? g.succ[p] : Index(0);
        append(ok && first_visit(vis, d), d, queue, tail, lane);
    }
    std::int64_t head = 0;
    while (head < tail) {
        __syncwarp();  // the queue's entries written by other lanes
        std::int64_t const i = head + lane;
        bool const has = i < tail;
        Index const x = has ? queue[i] : Index(0);
        std::int64_t const xb = has ? std::int64_t(g.ptr[x]) : 0;
        std::int64_t const xe = has ? std::int64_t(g.ptr[x + 1]) : 0;
        int const deg = xe - xb > 32 ? 33 : static_cast<int>(xe - xb);
        head = head + 32 < tail ? head + 32 : tail;
        bool const small = has && deg <= 32;
        int const rounds = warp_max(small ? deg : 0);
        for (int j = 0; j < rounds; ++j) {
            bool const ok = small && j < deg;
            Index const d = ok ? g.succ[xb + j] : Index(0);
            append(ok && first_visit(vis, d), d, queue, tail, lane);
        }
        for (unsigned big = __ballot_sync(full, has && !small); big; big &= big - 1) {
            int const src = __ffs(big) - 1;
            std::int64_t const bb = __shfl_sync(full, xb, src), be = __shfl_sync(full, xe, src);
            for (std::int64_t base = bb; base < be; base += 32) {
                std::int64_t const p = base + lane;
                bool const ok = p < be;
                Index const d = ok ? g.succ[p] : Index(0);
                append(ok && first_visit(vis, d), d, queue, tail, lane);
            }
        }
    }
    __syncwarp();
    return tail;
}

template <class Index>
__device__ __forceinline__ std::int64_t size_of(dag<Index> const& g, std::int64_t c) {
    return std::int64_t(g.member_ptr[c + 1]) - std::int64_t(g.member_ptr[c]);
}

/// The next component for this warp (lane 0 takes it from the shared counter).
__device__ __forceinline__ std::int64_t next_component(unsigned long long* counter, int lane) {
    unsigned long long c = 0;
    if (lane == 0) c = atomicAdd(counter, 1ull);
    return static_cast<std::int64_t>(__shfl_sync(full, c, 0));
}

template <class Index>
__global__ void count_rows(dag<Index> g, workspace<Index> w, unsigned long long* counter,
                           std::int64_t* weight) {
    int const lane = threadIdx.x & 31;
    std::uint32_t* vis;
    Index* queue;
    if (!w.of_this_warp(vis, queue)) return;
    for (std::int64_t c = next_component(counter, lane); c < g.k;
         c = next_component(counter, lane)) {
        std::int64_t const tail = traverse(g, c, vis, queue, lane);
        std::int64_t s = 0;
        for (std::int64_t i = lane; i < tail; i += 32) {
            Index const d = queue[i];
            s += size_of(g, d);
            vis[d >> 5] = 0;
        }
        s = warp_sum(s);
        if (lane == 0) weight[c] = s + (g.self[c] ? size_of(g, c) : 0);
        __syncwarp();
    }
}

template <class Index>
__global__ void fill_rows(dag<Index> g, workspace<Index> w, unsigned long long* counter,
                          std::int64_t const* row_ptr, Index* rows) {
    int const lane = threadIdx.x & 31;
    std::uint32_t* vis;
    Index* queue;
    if (!w.of_this_warp(vis, queue)) return;
    for (std::int64_t c = next_component(counter, lane); c < g.k;
         c = next_component(counter, lane)) {
        std::int64_t const tail = traverse(g, c, vis, queue, lane);
        Index* const out = rows + row_ptr[c];
        std::int64_t pos = 0;
        if (g.self[c]) {
            std::int64_t const m0 = g.member_ptr[c], s = size_of(g, c);
            for (std::int64_t t = lane; t < s; t += 32) out[t] = g.members[m0 + t];
            pos = s;
        }
        for (std::int64_t base = 0; base < tail; base += 32) {
            std::int64_t const i = base + lane;
            bool const has = i < tail;
            Index const d = has ? queue[i] : Index(0);
            std::int64_t const s = has ? size_of(g, d) : 0;
            std::int64_t const m0 = has ? std::int64_t(g.member_ptr[d]) : 0;
            std::int64_t const incl = warp_inclusive(s, lane);
            std::int64_t const total = __shfl_sync(full, incl, 31);
            // Entry t of this chunk's vertices belongs to the first lane whose inclusive sum
            // passes t: a binary search over the lanes by shuffles.
            for (std::int64_t t0 = 0; t0 < total; t0 += 32) {
                std::int64_t const t = t0 + lane;
                int j = 0;
                for (int step = 16; step >= 1; step >>= 1) {
                    std::int64_t const v = __shfl_sync(full, incl, j + step - 1);
                    if (v <= t) j += step;
                }
                std::int64_t const inc_j = __shfl_sync(full, incl, j);
                std::int64_t const s_j = __shfl_sync(full, s, j);
                std::int64_t const m_j = __shfl_sync(full, m0, j);
                if (t < total) out[pos + t] = g.members[m_j + (t - (inc_j - s_j))];
            }
            pos += total;
            if (has) vis[d >> 5] = 0;
        }
        __syncwarp();
    }
}

template <class Index>
__global__ void vertex_weights(std::int64_t n, Index const* label, std::int64_t const* weight,
                               std::int64_t* out) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x)
        out[v] = weight[label[v]];
}

/// Row v of the result from its component's sorted row: CSR columns (cols) or bits (words).
template <class Index>
__global__ void expand_rows(std::int64_t n, Index const* label, std::int64_t const* row_ptr,
                            std::int64_t const* weight, Index const* rows,
                            std::int64_t const* vptr, std::int64_t* cols,
                            unsigned long long* words, std::int64_t ld) {
    int const lane = threadIdx.x & 31;
    std::int64_t const warps = (std::int64_t(gridDim.x) * blockDim.x) >> 5;
    for (std::int64_t v = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; v < n;
         v += warps) {
        Index const c = label[v];
        Index const* const src = rows + row_ptr[c];
        std::int64_t const len = weight[c];
        if (cols) {
            std::int64_t* const dst = cols + vptr[v];
            for (std::int64_t t = lane; t < len; t += 32) dst[t] = src[t];
        } else {
            unsigned long long* const dst = words + v * ld;
            for (std::int64_t t = lane; t < len; t += 32) {
                std::int64_t const j = src[t];
                atomicOr(dst + (j >> 6), 1ull << (j & 63));
            }
        }
    }
}

/// A stream-ordered device allocation of n T's from the context's pool on its stream
/// (cudaMallocFromPoolAsync; the device's current pool where none is named), freed on the same
/// stream: no allocation or release waits for the device.
template <class T>
struct device_array {
    T* p = nullptr;
    cudaStream_t s = nullptr;
    device_array() = default;
    device_array(std::size_t n, char const* what, cuda::detail::device_stream stream)
        : s(stream.st) {
        if (n == 0) return;
        cudaError_t const e =
            stream.pool ? cudaMallocFromPoolAsync(reinterpret_cast<void**>(&p), n * sizeof(T),
                                                  stream.pool, s)
                        : cudaMallocAsync(reinterpret_cast<void**>(&p), n * sizeof(T), s);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            p = nullptr;
            throw out_of_memory(std::string("closure on the GPU: cudaMallocAsync of ") +
                                    kleene::detail::format_bytes((long double)(n * sizeof(T))) + " for " +
                                    what + " failed: " + cudaGetErrorString(e),
                                (long double)(n * sizeof(T)));
        }
    }
    device_array(device_array const&) = delete;
    device_array& operator=(device_array const&) = delete;
    device_array(device_array&& o) noexcept
        : p(std::exchange(o.p, nullptr)), s(o.s) {}
    device_array& operator=(device_array&&) = delete;
    ~device_array() { reset(); }
    void reset() noexcept {
        if (p) (void)cudaFreeAsync(p, s);
        p = nullptr;
    }
};

template <class T>
device_array<T> to_device(T const* host, std::size_t n, char const* what,
                          cuda::detail::device_stream s) {
    device_array<T> d(n, what, s);
    if (n) KLEENE_CUDA_CHECK(cudaMemcpyAsync(d.p, host, n * sizeof(T), cudaMemcpyHostToDevice, s));
    return d;
}

struct timer {
    cudaEvent_t e[6] = {};
    timer() {
        for (auto& x : e) KLEENE_CUDA_CHECK(cudaEventCreate(&x));
    }
    ~timer() {
        for (auto x : e) (void)cudaEventDestroy(x);
    }
    timer(timer const&) = delete;
    timer& operator=(timer const&) = delete;
    double ms(int a, int b) const {
        float t = 0;
        KLEENE_CUDA_CHECK(cudaEventElapsedTime(&t, e[a], e[b]));
        return double(t) * 1e-3;
    }
};

std::string mib(double bytes) { return kleene::detail::format_bytes(static_cast<long double>(bytes)); }

}  // namespace

template <class Index>
closure_rows_gpu closure_condensation_rows(condensation_view<Index> const& g, bool bits,
                                           std::size_t max_device_bytes, std::size_t max_pairs,
                                           context& ctx) {
    closure_rows_gpu r;
    r.bits = bits;
    std::size_t const n = g.n, k = g.k;
    r.ld = (n + 63) / 64;
    if (k == 0 || n == 0) {
        if (!bits) {
            r.ptr = buffer<std::int64_t>(n + 1, 0);
            r.cols = buffer<std::int64_t>(0);
        }
        return r;
    }
    int dev = 0, sms = 0;
    KLEENE_CUDA_CHECK(cudaGetDevice(&dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cuda::detail::device_stream const s = cuda::detail::stream_of(ctx);  // the context's pool
    std::size_t free_b = 0, total_b = 0;
    KLEENE_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    // What may be allocated: the cap, at most the free memory less 256 MiB for CUB and the driver.
    std::size_t budget = free_b > (std::size_t(256) << 20) ? free_b - (std::size_t(256) << 20) : 0;
    if (max_device_bytes) budget = std::min(budget, max_device_bytes);

    std::size_t const m = static_cast<std::size_t>(g.ptr[k]);
    std::size_t const graph_bytes = (2 * (k + 1) + m + 2 * n) * sizeof(Index) + k;
    std::size_t const words = (k + 31) / 32;
    std::size_t const per_warp = words * 4 + k * sizeof(Index);
    std::size_t const weight_bytes = (k + 1) * 8 * 2;
    if (graph_bytes + weight_bytes + per_warp > budget) {
        r.fitted = false;
        r.device_bytes = graph_bytes + weight_bytes + per_warp;
        r.notes.push_back("closure: the GPU's condensation needs " + mib(double(r.device_bytes)) +
                          " for the DAG and one traversal, more than the " + mib(double(budget)) +
                          " it may use");
        return r;
    }
    // Warps: 32 a SM, at most one a component, their workspaces in a quarter of what is left
    // (one at least); the grid is rounded up to whole blocks and the warps past `warps` return.
    std::size_t const left = budget - graph_bytes - weight_bytes;
    std::size_t const warps = std::max<std::size_t>(
        1, std::min({std::size_t(sms) * 32, k, left / 4 / per_warp}));
    unsigned const grid =
        static_cast<unsigned>((warps * 32 + threads_per_block - 1) / threads_per_block);

    timer tm;
    auto const host0 = std::chrono::steady_clock::now();
    KLEENE_CUDA_CHECK(cudaEventRecord(tm.e[0], s));
    auto const d_ptr = to_device(g.ptr, k + 1, "the DAG's row pointers", s);
    auto const d_succ = to_device(g.succ, m, "the DAG's edges", s);
    auto const d_mptr = to_device(g.member_ptr, k + 1, "the components' member pointers", s);
    auto const d_members = to_device(g.members, n, "the components' members", s);
    auto const d_label = to_device(g.label, n, "the vertices' components", s);
    auto const d_self = to_device(g.self, k, "the components' self flags", s);
    device_array<std::uint32_t> vis(warps * words, "the traversals' visited bits", s);
    device_array<Index> queue(warps * k, "the traversals' queues", s);
    device_array<std::int64_t> weight(k + 1, "the rows' weights", s);
    device_array<std::int64_t> row_ptr(k + 1, "the rows' offsets", s);
    device_array<unsigned long long> counter(2, "the work counters", s);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(vis.p, 0, warps * words * 4, s));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(counter.p, 0, 2 * sizeof(unsigned long long), s));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(row_ptr.p, 0, sizeof(std::int64_t), s));
    dag<Index> const dg{static_cast<std::int64_t>(k), d_ptr.p, d_succ.p, d_mptr.p, d_members.p,
                        d_self.p};
    workspace<Index> const ws{vis.p, queue.p, static_cast<std::int64_t>(words),
                              static_cast<std::int64_t>(k), static_cast<std::int64_t>(warps)};
    KLEENE_CUDA_CHECK(cudaEventRecord(tm.e[1], s));
    count_rows<Index><<<grid, threads_per_block, 0, s>>>(dg, ws, counter.p, weight.p);
    KLEENE_CUDA_CHECK_LAUNCH("closure count_rows");
    // row_ptr[1..k] = inclusive sums of the weights; the vertex rows' sizes and their sums.
    device_array<std::int64_t> vptr(n + 1, "the result's row pointers", s);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(vptr.p, 0, sizeof(std::int64_t), s));
    device_array<std::int64_t> vdeg(n, "the vertex rows' sizes", s);
    std::size_t scan_bytes = 0, scan_bytes2 = 0;
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, weight.p, row_ptr.p + 1,
                                                    static_cast<std::int64_t>(k), s));
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes2, vdeg.p, vptr.p + 1,
                                                    static_cast<std::int64_t>(n), s));
    device_array<unsigned char> scan_temp(std::max(scan_bytes, scan_bytes2), "a prefix sum", s);
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scan_temp.p, scan_bytes, weight.p,
                                                    row_ptr.p + 1, static_cast<std::int64_t>(k), s));
    vertex_weights<Index><<<std::min<std::size_t>((n + 255) / 256, 65536), 256, 0, s>>>(
        static_cast<std::int64_t>(n), d_label.p, weight.p, vdeg.p);
    KLEENE_CUDA_CHECK_LAUNCH("closure vertex_weights");
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scan_temp.p, scan_bytes2, vdeg.p, vptr.p + 1,
                                                    static_cast<std::int64_t>(n), s));
    vdeg.reset();
    std::int64_t sizes[2] = {0, 0};  // component rows' entries, the result's pairs
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(sizes, row_ptr.p + k, sizeof(std::int64_t),
                                      cudaMemcpyDeviceToHost, s));
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(sizes + 1, vptr.p + n, sizeof(std::int64_t),
                                      cudaMemcpyDeviceToHost, s));
    KLEENE_CUDA_CHECK(cudaEventRecord(tm.e[2], s));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(s));
    auto const rows_total = static_cast<std::size_t>(sizes[0]);
    r.pairs = static_cast<std::size_t>(sizes[1]);
    r.count_s = tm.ms(1, 2);
    if (max_pairs && r.pairs > max_pairs)
        throw out_of_memory("closure: the result has " + std::to_string(r.pairs) +
                                " pairs, more than the " + std::to_string(max_pairs) +
                                " the host's limit holds",
                            (long double)r.pairs * 8);

    // CUB's segmented sort counts its items in int.
    if (rows_total > std::size_t(std::numeric_limits<int>::max())) {
        r.fitted = false;
        r.notes.push_back("closure: the GPU's condensation found " + std::to_string(rows_total) +
                          " entries in component rows, past the 2^31 - 1 CUB's segmented sort "
                          "takes in one call");
        return r;
    }
    // The rest: the rows (twice, for the sort) and CUB's sort space, then the result; the
    // traversals' workspace is released (stream-ordered) before the sort.
    std::size_t sort_bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
        nullptr, sort_bytes, static_cast<Index const*>(nullptr), static_cast<Index*>(nullptr),
        static_cast<int>(rows_total), static_cast<int>(k), row_ptr.p,
        row_ptr.p + 1, s));
    std::size_t const rows_bytes = rows_total * sizeof(Index);
    std::size_t const out_bytes = bits ? n * r.ld * 8 : r.pairs * 8;
    std::size_t const base = graph_bytes + weight_bytes + (n + 1) * 8;
    std::size_t const peak =
        base + std::max({warps * per_warp + rows_bytes, 2 * rows_bytes + sort_bytes,
                         rows_bytes + out_bytes});
    r.device_bytes = peak;
    if (peak > budget) {
        r.fitted = false;
        r.notes.push_back("closure: the GPU's condensation found " + std::to_string(r.pairs) +
                          " pairs (" + std::to_string(rows_total) +
                          " in component rows); with its workspace it needs " + mib(double(peak)) +
                          ", more than the " + mib(double(budget)) + " it may use");
        return r;
    }
    device_array<Index> rows(rows_total, "the component rows", s);
    fill_rows<Index><<<grid, threads_per_block, 0, s>>>(dg, ws, counter.p + 1, row_ptr.p, rows.p);
    KLEENE_CUDA_CHECK_LAUNCH("closure fill_rows");
    KLEENE_CUDA_CHECK(cudaEventRecord(tm.e[3], s));
    vis.reset();
    queue.reset();
    device_array<Index> sorted(rows_total, "the sorted component rows", s);
    device_array<unsigned char> sort_temp(sort_bytes, "the segmented sort", s);
    KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
        sort_temp.p, sort_bytes, static_cast<Index const*>(rows.p), sorted.p,
        static_cast<int>(rows_total), static_cast<int>(k), row_ptr.p,
        row_ptr.p + 1, s));
    KLEENE_CUDA_CHECK(cudaEventRecord(tm.e[4], s));
    sort_temp.reset();
    rows.reset();
    device_array<std::int64_t> cols(bits ? 0 : r.pairs, "the result's columns", s);
    device_array<unsigned long long> wbits(bits ? n * r.ld : 0, "the result's bit rows", s);
    if (bits) KLEENE_CUDA_CHECK(cudaMemsetAsync(wbits.p, 0, n * r.ld * 8, s));
    expand_rows<Index><<<std::min<std::size_t>((n * 32 + 255) / 256, 65536), 256, 0, s>>>(
        static_cast<std::int64_t>(n), d_label.p, row_ptr.p, weight.p, sorted.p, vptr.p,
        bits ? nullptr : cols.p, bits ? wbits.p : nullptr, static_cast<std::int64_t>(r.ld));
    KLEENE_CUDA_CHECK_LAUNCH("closure expand_rows");
    KLEENE_CUDA_CHECK(cudaEventRecord(tm.e[5], s));
    auto const copy0 = std::chrono::steady_clock::now();
    // Through the context's page-locked buffers (result_copy.hpp: the DMA engine fills one while
    // the context's threads copy the other out, so the result's pages are first touched by many
    // threads at once), kept from call to call. This did the same with two buffers of bytes / 32
    // (16 to 64 MiB) allocated and freed each call and a team of std::threads.
    if (bits) {
        r.words.resize(n * r.ld);
        cuda::copy_result_to_host(r.words.data(), wbits.p, n * r.ld * 8, ctx);
    } else {
        r.ptr = buffer<std::int64_t>(n + 1);
        r.cols = buffer<std::int64_t>(r.pairs);
        cuda::copy_result_to_host(r.ptr.data(), vptr.p, (n + 1) * 8, ctx);
        cuda::copy_result_to_host(r.cols.data(), cols.p, r.pairs * 8, ctx);
    }
    auto const done = std::chrono::steady_clock::now();
    r.fill_s = tm.ms(2, 3);
    r.sort_s = tm.ms(3, 4);
    r.expand_s = tm.ms(4, 5);
    r.copy_s = std::chrono::duration<double>(done - copy0).count();
    double const whole = std::chrono::duration<double>(done - host0).count();
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "closure: on the GPU, %zu warps traversing the DAG: count %.3f ms, fill %.3f "
                  "ms (%zu entries in component rows), sort %.3f ms, rows to vertices %.3f ms, "
                  "copy of %s to the host %.3f ms; %.3f ms in all, %s of device memory at most",
                  warps, r.count_s * 1e3, r.fill_s * 1e3, rows_total, r.sort_s * 1e3,
                  r.expand_s * 1e3, mib(double(out_bytes + (bits ? 0 : (n + 1) * 8))).c_str(),
                  r.copy_s * 1e3, whole * 1e3, mib(double(peak)).c_str());
    r.notes.push_back(buf);
    return r;
}

template closure_rows_gpu closure_condensation_rows<std::int32_t>(
    condensation_view<std::int32_t> const&, bool, std::size_t, std::size_t, context&);
template closure_rows_gpu closure_condensation_rows<std::int64_t>(
    condensation_view<std::int64_t> const&, bool, std::size_t, std::size_t, context&);

}  // namespace kleene::cuda

// Batched multi-source Bellman-Ford APSP (apsp_batched.hpp).
//
// Round k computes D_k(v, :) = min(D_{k-1}(v, :), min over in-edges u -> v of w + D_{k-1}(u, :))
// from one buffer into the other. Every column is its own single-source problem, so the frontier
// step keeps a changed flag per row and chunk of 128 columns: a chunk of row v whose in-neighbours
// all kept that chunk in round k - 1 would come out as it went in, and is skipped; otherwise only
// the edges from in-neighbours whose chunk changed are relaxed. A skipped chunk must still hold
// D_{k-1} in the output buffer, which last received it two rounds ago: true unless the chunk
// itself changed in round k - 1, so those are copied. Round 1 counts the sources' chunks as
// changed (their D_0 entries are the only finite ones), and both buffers start as D_0.
//
// The batches run on the stream of opt.ctx (default_context() when null).

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/cuda/apsp_batched.hpp>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/algorithms/negative_cycle.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::cuda {
namespace {

constexpr int threads = 256;
constexpr int cols_per_lane = 4;
constexpr int chunk = 32 * cols_per_lane;  // columns a warp covers in one pass; one changed flag
constexpr unsigned full = 0xffffffffu;
constexpr unsigned long long none = ~0ull;

/// min(c, w + d) as min_plus<T> defines it (fminf / fmin: D never holds NaN).
template <class T>
__device__ __forceinline__ T relax(T c, T w, T d) {
    if constexpr (std::is_same_v<T, float>)
        return fminf(c, w + d);
    else if constexpr (std::is_same_v<T, double>)
        return fmin(c, w + d);
    else
        return min_plus<T>::add(c, min_plus<T>::mul(w, d));
}

/// changed_*: a flag per (row, chunk), row-major. counters[0]: chunks (frontier) or blocks (spmm)
/// that saw a decrease this round; counters[1]: the smallest source whose distance to itself went
/// negative, `none` while there is none.
template <class T, class Index>
struct round_args {
    Index const* ptr;  // A': row v lists the in-edges u -> v
    Index const* col;
    T const* val;
    T iso;
    T const* in;
    T* out;
    std::int64_t n;
    std::int64_t s;      // columns (sources) of this batch; the row pitch of D is s as well
    std::int64_t first;  // source of column 0
    std::int64_t chunks;
    std::uint8_t const* changed_in;
    std::uint8_t* changed_out;
    unsigned long long* counters;
};

/// D(v, j) = 0 where v == first + j, else +inf, in both buffers; the sources' chunks count as
/// changed.
template <class T>
__global__ void init_batch(T* d0, T* d1, std::uint8_t* changed, std::int64_t n, std::int64_t s,
                           std::int64_t first, std::int64_t chunks) {
    std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n * s;
         i += stride) {
        T const v = i / s == first + i % s ? T(0) : infinity<T>();
        d0[i] = v;
        d1[i] = v;
    }
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n * chunks;
         i += stride) {
        std::int64_t const j = i / chunks - first;  // the row's column, if it is a source
        changed[i] = j >= 0 && j < s && j / chunk == i % chunks;
    }
}

/// One frontier round, a warp per row v, a chunk at a time (see the top of the file).
template <class T, class Index>
__global__ void __launch_bounds__(threads) frontier_round(round_args<T, Index> p) {
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * (threads / 32);
    for (std::int64_t v = (std::int64_t(blockIdx.x) * threads + threadIdx.x) / 32; v < p.n;
         v += warps) {
        std::int64_t const b = p.ptr[v], e = p.ptr[v + 1];
        std::int64_t const own = v - p.first;  // v's column when v is a source of this batch
        T const* src = p.in + v * p.s;
        T* dst = p.out + v * p.s;
        for (std::int64_t c = 0; c < p.chunks; ++c) {
            std::int64_t const cb = c * chunk;
            bool active = false;
            for (std::int64_t k = b; k < e && !active; k += 32)
                active = __any_sync(
                    full,
                    k + lane < e && p.changed_in[std::int64_t(p.col[k + lane]) * p.chunks + c]);
            if (!active) {
                if (p.changed_in[v * p.chunks + c])
                    for (std::int64_t j = cb + lane; j < std::min(cb + chunk, p.s); j += 32)
                        dst[j] = src[j];
                if (lane == 0) p.changed_out[v * p.chunks + c] = 0;
                continue;
            }
            T old[cols_per_lane], acc[cols_per_lane];
#pragma unroll
            for (int q = 0; q < cols_per_lane; ++q) {
                std::int64_t const j = cb + lane + 32 * q;
                old[q] = j < p.s ? src[j] : infinity<T>();
                acc[q] = old[q];
            }
            for (std::int64_t kb = b; kb < e; kb += 32) {
                Index u = 0;
                T w = infinity<T>();
                bool live = false;
                if (kb + lane < e) {
                    u = p.col[kb + lane];
                    w = detail::value_at(p.val, p.iso, kb + lane);
                    live = p.changed_in[std::int64_t(u) * p.chunks + c] != 0;
                }
                // Only the in-neighbours whose chunk changed last round can lower this one.
                for (unsigned m = __ballot_sync(full, live); m != 0; m &= m - 1) {
                    int const t = __ffs(static_cast<int>(m)) - 1;
                    Index const ut = detail::shfl(full, u, t);
                    T const wt = detail::shfl(full, w, t);
                    T const* urow = p.in + std::int64_t(ut) * p.s;
#pragma unroll
                    for (int q = 0; q < cols_per_lane; ++q) {
                        std::int64_t const j = cb + lane + 32 * q;
                        if (j < p.s) acc[q] = relax(acc[q], wt, urow[j]);
                    }
                }
            }
            bool decreased = false;
#pragma unroll
            for (int q = 0; q < cols_per_lane; ++q) {
                std::int64_t const j = cb + lane + 32 * q;
                if (j >= p.s) continue;
                dst[j] = acc[q];
                if (acc[q] < old[q]) {
                    decreased = true;
                    if (j == own && acc[q] < T(0))
                        atomicMin(&p.counters[1], static_cast<unsigned long long>(v));
                }
            }
            bool const any = __any_sync(full, decreased);
            if (lane == 0) {
                p.changed_out[v * p.chunks + c] = any;
                if (any) atomicAdd(&p.counters[0], 1ull);
            }
        }
    }
}

/// The spmm step's bookkeeping: did any entry of `next` drop below `cur`, and did a source's
/// distance to itself go negative.
template <class T>
__global__ void __launch_bounds__(threads)
    compare_round(T const* cur, T const* next, std::int64_t n, std::int64_t s, std::int64_t first,
                  unsigned long long* counters) {
    std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
    bool decreased = false;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n * s;
         i += stride) {
        if (!(next[i] < cur[i])) continue;
        decreased = true;
        std::int64_t const v = i / s;
        if (v == first + i % s && next[i] < T(0))
            atomicMin(&counters[1], static_cast<unsigned long long>(v));
    }
    if (__syncthreads_or(decreased) && threadIdx.x == 0) atomicAdd(&counters[0], 1ull);
}

/// out (s x n, pitch n) = d' for d (n x s, pitch s): 32 x 32 tiles through shared memory.
template <class T>
__global__ void transpose_block(T const* __restrict__ d, T* __restrict__ out, std::int64_t n,
                                std::int64_t s) {
    __shared__ T tile[32][33];
    std::int64_t const v0 = std::int64_t(blockIdx.x) * 32, j0 = std::int64_t(blockIdx.y) * 32;
    int const tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    for (int r = ty; r < 32; r += 8)
        if (v0 + r < n && j0 + tx < s) tile[r][tx] = d[(v0 + r) * s + j0 + tx];
    __syncthreads();
    for (int r = ty; r < 32; r += 8)
        if (j0 + r < s && v0 + tx < n) out[(j0 + r) * n + v0 + tx] = tile[tx][r];
}

/// A vertex on a negative cycle reachable from sources [first, first + count): the shared
/// search of negative_cycle.hpp from all of them at distance 0. Returns `first` if none shows
/// within 4n rounds.
template <class T, class Index>
std::int64_t vertex_on_negative_cycle(csr_matrix<T, Index> const& a, std::size_t first,
                                      std::size_t count) {
    dense_vector<T> dist(a.rows(), infinity<T>());
    for (std::size_t v = first; v < first + count; ++v) dist[v] = T(0);
    std::int64_t const x = kleene::detail::find_negative_cycle(a, dist, 4 * a.rows() + 4);
    return x >= 0 ? x : static_cast<std::int64_t>(first);
}

/// The batches over A' (at, on the device; A is n x n with nnz entries). Each finished batch,
/// rows [first, first + sb) of the result as sb x n row-major device memory, goes to
/// put(first, sb, rows, stream); cycle(first, sb) names a vertex on a negative cycle when round
/// n still changes something.
template <class T, class Index, class Put, class Cycle>
void run_batches(csr_matrix<T, Index, device> const& at, std::size_t nnz,
                 bellman_ford_options const& opt, Put&& put, Cycle&& cycle) {
    std::size_t const n = at.rows();
    // Batch size: pinned, or the default while two n x s buffers fit in half the free memory.
    std::size_t const graph_bytes = (n + 1 + nnz) * sizeof(Index) + nnz * sizeof(T);
    std::size_t const free_bytes = free_device_memory();
    std::size_t const per_column = 2 * n * sizeof(T);
    std::size_t const spare =
        free_bytes > graph_bytes + (64u << 20) ? free_bytes - graph_bytes - (64u << 20) : 0;
    std::size_t want = opt.batch;
    if (want == 0)
        want = std::clamp<std::size_t>(spare / 2 / per_column, 1, bellman_ford_default_batch);
    want = std::min(want, n);
    std::size_t const batches = (n + want - 1) / want;
    std::size_t const s = (n + batches - 1) / batches;
    if (opt.explain)
        opt.explain->add(
            "apsp_bellman_ford: n=" + std::to_string(n) + ", nnz=" + std::to_string(nnz) +
            ", " + std::to_string(batches) + " batches of " + std::to_string(s) + " sources (" +
            (opt.batch ? "pinned " + std::to_string(opt.batch)
                       : "default " + std::to_string(bellman_ford_default_batch) + ", " +
                             std::to_string(free_bytes >> 20) + " MiB free on the device") +
            "), " + std::string(to_string(opt.step)) + " step");

    context& ctx = resolve(opt.ctx);
    detail::device_stream const st = detail::stream_of(ctx);  // buffers from the context's pool
    using detail::stream_buffer;
    stream_buffer<T> d[2] = {stream_buffer<T>(n * s, st), stream_buffer<T>(n * s, st)};
    std::size_t const chunks = (s + chunk - 1) / chunk;
    stream_buffer<std::uint8_t> changed[2] = {stream_buffer<std::uint8_t>(n * chunks, st),
                                              stream_buffer<std::uint8_t>(n * chunks, st)};
    stream_buffer<unsigned long long> counters(2, st);
    unsigned const grid_rows = detail::blocks_for(n * 32, threads, detail::persistent_blocks(8));
    sparse_options spmm_opt;
    spmm_opt.accumulate = true;
    spmm_opt.ctx = &ctx;
    std::size_t total_rounds = 0, max_rounds = 0;

    for (std::size_t first = 0; first < n; first += s) {
        std::size_t const sb = std::min(s, n - first);
        auto const sn = static_cast<std::int64_t>(n), ss = static_cast<std::int64_t>(sb),
                   sf = static_cast<std::int64_t>(first);
        unsigned const grid_all = detail::blocks_for(n * sb, threads, detail::persistent_blocks(8));
        auto const sc = static_cast<std::int64_t>((sb + chunk - 1) / chunk);
        init_batch<T><<<grid_all, threads, 0, st>>>(d[0].data(), d[1].data(), changed[0].data(), sn,
                                                    ss, sf, sc);
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::init_batch");
        KLEENE_CUDA_CHECK(
            cudaMemsetAsync(counters.data(), 0xff, 2 * sizeof(unsigned long long), st));
        round_args<T, Index> p{
            at.row_ptr(), at.col_idx(), at.values(), at.iso_value(), nullptr, nullptr,        sn,
            ss,           sf,           sc,          nullptr,        nullptr, counters.data()};
        int cur = 0;
        std::size_t rounds = 0;
        for (;;) {
            ++rounds;
            KLEENE_CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, sizeof(unsigned long long), st));
            if (opt.step == bellman_ford_step::frontier) {
                p.in = d[cur].data();
                p.out = d[1 - cur].data();
                p.changed_in = changed[cur].data();
                p.changed_out = changed[1 - cur].data();
                frontier_round<T, Index><<<grid_rows, threads, 0, st>>>(p);
                KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::frontier_round");
            } else {
                KLEENE_CUDA_CHECK(cudaMemcpyAsync(d[1 - cur].data(), d[cur].data(),
                                                  n * sb * sizeof(T), cudaMemcpyDeviceToDevice,
                                                  st));
                spmm<min_plus<T>, Index>(dense_view<T, device>{d[1 - cur].data(), n, sb, sb}, at,
                                         dense_view<T const, device>{d[cur].data(), n, sb, sb},
                                         spmm_opt);
                compare_round<T><<<grid_all, threads, 0, st>>>(d[cur].data(), d[1 - cur].data(),
                                                               sn, ss, sf, counters.data());
                KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::compare_round");
            }
            cur = 1 - cur;
            unsigned long long c[2];
            detail::copy_to_host(c, counters.data(), 2, st);
            if (c[1] != none) throw negative_cycle(static_cast<std::int64_t>(c[1]));
            if (c[0] == 0) break;
            // Round n changed something: walks of n edges beat every simple path.
            if (rounds == n) throw negative_cycle(cycle(first, sb));
        }
        total_rounds += rounds;
        max_rounds = std::max(max_rounds, rounds);

        // Column j of D is row first + j of the result: transpose into the free buffer, hand over.
        dim3 const tgrid(static_cast<unsigned>((n + 31) / 32),
                         static_cast<unsigned>((sb + 31) / 32));
        transpose_block<T>
            <<<tgrid, dim3(32, 8), 0, st>>>(d[cur].data(), d[1 - cur].data(), sn, ss);
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::transpose_block");
        put(first, sb, static_cast<T const*>(d[1 - cur].data()), st);
    }
    if (opt.explain)
        opt.explain->add("apsp_bellman_ford: " + std::to_string(total_rounds) + " rounds in all, " +
                         std::to_string(max_rounds) + " at most in a batch");
}

template <class A>
void check_square(A const& a) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("apsp_bellman_ford: the adjacency matrix must be square, not " +
                                 kleene::detail::shape(a.rows(), a.cols()));
}

/// A' of a device A, on the device (synchronous: done before anything is queued on the batches'
/// stream).
template <class T, class Index>
csr_matrix<T, Index, device> transpose_of(csr_matrix<T, Index, device> const& a) {
    csr_matrix<T, Index, device> at(a.cols(), a.rows());
    cuda::transpose(at, a);
    return at;
}

}  // namespace

namespace {
/// The distances to the host, batch by batch, from A on the device (`device_a` makes it: a copy of
/// a host A, or the caller's device A itself); `host_a` gives a host A for naming a vertex on a
/// negative cycle (the error's path only).
template <class T, class Index, class DeviceA, class HostA>
dense_matrix<T> bellman_ford_to_host(std::size_t n, std::size_t nnz, DeviceA&& device_a,
                                     HostA&& host_a, bellman_ford_options const& opt) {
    require_device();
    dense_matrix<T> result(n, n);
    if (n == 0) return result;
    run_batches<T, Index>(
        transpose_of(device_a()), nnz, opt,
        [&](std::size_t first, std::size_t sb, T const* rows, cudaStream_t st) {
            detail::copy_to_host(result.data() + first * n, rows, sb * n, st);
        },
        [&](std::size_t first, std::size_t sb) {
            return vertex_on_negative_cycle(host_a(), first, sb);
        });
    return result;
}
}  // namespace

template <class T, index_type Index>
dense_matrix<T> apsp_bellman_ford(csr_matrix<T, Index> const& a, bellman_ford_options const& opt) {
    check_square(a);
    return bellman_ford_to_host<T, Index>(
        a.rows(), a.nnz(), [&] { return a.to_device(); },
        [&]() -> csr_matrix<T, Index> const& { return a; }, opt);
}

/// A device A never leaves the device: but on a negative cycle that no source's own distance
/// shows, a host copy of A names a vertex on it (the error's path only, as cuda::sssp does).
template <class T, index_type Index>
dense_matrix<T> apsp_bellman_ford(csr_matrix<T, Index, device> const& a,
                                  bellman_ford_options const& opt) {
    check_square(a);
    return bellman_ford_to_host<T, Index>(
        a.rows(), a.nnz(), [&]() -> csr_matrix<T, Index, device> const& { return a; },
        [&] { return a.to_host(); }, opt);
}

template <class T, index_type Index>
void apsp_bellman_ford(csr_matrix<T, Index, device> const& a, dense_view<T, device> dist,
                       bellman_ford_options const& opt) {
    check_square(a);
    std::size_t const n = a.rows();
    if (dist.rows != n || dist.cols != n)
        throw dimension_mismatch("apsp_bellman_ford: the distances are " +
                                 kleene::detail::shape(dist.rows, dist.cols) + " for a " +
                                 std::to_string(n) + "-vertex graph");
    require_device();
    if (n == 0) return;
    run_batches<T, Index>(
        transpose_of(a), a.nnz(), opt,
        [&](std::size_t first, std::size_t sb, T const* rows, cudaStream_t st) {
            KLEENE_CUDA_CHECK(cudaMemcpy2DAsync(dist.data + first * dist.ld, dist.ld * sizeof(T),
                                                rows, n * sizeof(T), n * sizeof(T), sb,
                                                cudaMemcpyDeviceToDevice, st));
        },
        [&](std::size_t first, std::size_t sb) {
            return vertex_on_negative_cycle(a.to_host(), first, sb);
        });
    detail::end_of_call(static_cast<cudaStream_t>(resolve(opt.ctx).stream()));
}

KLEENE_APSP_BF_INSTANCES

}  // namespace kleene::cuda

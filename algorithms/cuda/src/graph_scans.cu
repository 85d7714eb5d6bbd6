// Passes over a device graph for kleene::graph's properties and sssp's checks (graph_scans.hpp).
// Everything runs on the context's stream; reductions are two passes (block partials, then one
// block over them) with no floating-point atomics, so sums come out the same every run.

#include <kleene/algorithms/cuda/graph_scans.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::cuda {
namespace {

constexpr unsigned threads = 256;

/// The row holding entry k: the last i with rp[i] <= k (rp: n + 1 row starts).
template <class Index>
__device__ std::int64_t row_of(Index const* rp, std::int64_t n, std::int64_t k) {
    std::int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        std::int64_t const mid = lo + (hi - lo) / 2;
        if (static_cast<std::int64_t>(rp[mid]) <= k) lo = mid;
        else hi = mid;
    }
    return lo;
}

// ---- degrees -----------------------------------------------------------------------------------

template <class Index>
__global__ void row_degree_kernel(Index const* __restrict__ rp, std::int64_t n,
                                  std::int64_t* __restrict__ out) {
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        out[i] = static_cast<std::int64_t>(rp[i + 1] - rp[i]);
}

template <class Index>
__global__ void column_count_kernel(Index const* __restrict__ col, std::int64_t nnz,
                                    unsigned long long* __restrict__ out) {
    for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
         k += std::int64_t(gridDim.x) * blockDim.x)
        atomicAdd(&out[col[k]], 1ull);
}

// ---- symmetry ----------------------------------------------------------------------------------

/// flags[0] = 1 when an entry has no mirror, flags[1] = 1 when a mirror's value differs.
template <class T, class Index>
__global__ void symmetry_kernel(Index const* __restrict__ rp, Index const* __restrict__ col,
                                T const* __restrict__ val, std::int64_t n, std::int64_t nnz,
                                unsigned* __restrict__ flags) {
    for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const i = row_of(rp, n, k);
        std::int64_t const j = col[k];
        std::int64_t b = rp[j], e = rp[j + 1];
        while (b < e) {  // the first column >= i in row j
            std::int64_t const mid = b + (e - b) / 2;
            if (static_cast<std::int64_t>(col[mid]) < i) b = mid + 1;
            else e = mid;
        }
        if (b == static_cast<std::int64_t>(rp[j + 1]) || static_cast<std::int64_t>(col[b]) != i) {
            atomicOr(&flags[0], 1u);
        } else if (val && !(val[k] == val[b])) {
            atomicOr(&flags[1], 1u);
        }
    }
}

// ---- weights -----------------------------------------------------------------------------------

template <class T>
struct weight_acc {
    // The sum as summarise_weights takes it; B exactly for integers (a row's largest |weight|
    // is at most 2^63, their sum over 2^64 rows fits 128 bits), in double for floating point.
    using sum_type =
        std::conditional_t<std::is_integral_v<T> && sizeof(T) <= 4, long long, double>;
    using bound_type = std::conditional_t<std::is_floating_point_v<T>, double, unsigned __int128>;
    T lo, hi;
    sum_type sum;
    bound_type bound;
    long long count;
    long long bad_row, bad_col;
    double bad_value;

    __device__ static weight_acc none() {
        using lim = std::numeric_limits<T>;  // +-inf for floating point: an infinite weight counts
        return {lim::has_infinity ? lim::infinity() : lim::max(),
                lim::has_infinity ? -lim::infinity() : lim::lowest(), 0, 0, 0, -1, -1, 0.0};
    }
    __device__ void add(weight_acc const& o) {
        if (o.lo < lo) lo = o.lo;
        if (hi < o.hi) hi = o.hi;
        sum += o.sum;
        bound += o.bound;
        count += o.count;
        if (o.bad_row > bad_row) {
            bad_row = o.bad_row;
            bad_col = o.bad_col;
            bad_value = o.bad_value;
        }
    }
};

/// |x| as B sums it: double for floating point, an unsigned 64-bit magnitude for integers
/// (|INT64_MIN| included).
template <class T>
__device__ typename weight_acc<T>::bound_type magnitude(T x) {
    if constexpr (std::is_floating_point_v<T>) {
        return fabs(static_cast<double>(x));
    } else if constexpr (std::is_signed_v<T>) {
        using U = unsigned long long;
        return x < T(0) ? U(0) - U(static_cast<long long>(x)) : U(x);
    } else {
        return static_cast<unsigned long long>(x);
    }
}

/// Reduces every thread's acc in shared memory; thread 0 gets the block's.
template <class T>
__device__ weight_acc<T> block_reduce(weight_acc<T> acc) {
    __shared__ weight_acc<T> part[threads];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = threads / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) part[threadIdx.x].add(part[threadIdx.x + s]);
        __syncthreads();
    }
    return part[0];
}

/// A thread a row (B needs each row's largest |weight|); one partial a block.
template <class T, class Index>
__global__ void weight_rows_kernel(Index const* __restrict__ rp, Index const* __restrict__ col,
                                   T const* __restrict__ val, T iso, std::int64_t n,
                                   weight_acc<T>* __restrict__ partial) {
    using acc_t = weight_acc<T>;
    acc_t acc = acc_t::none();
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        typename acc_t::bound_type top = 0;
        for (std::int64_t k = rp[i]; k < static_cast<std::int64_t>(rp[i + 1]); ++k) {
            T const x = val ? val[k] : iso;
            if constexpr (std::is_floating_point_v<T>) {
                if (!isfinite(x) && acc.bad_row != i) {  // the row's first
                    acc.bad_row = i;
                    acc.bad_col = static_cast<long long>(col[k]);
                    acc.bad_value = static_cast<double>(x);
                }
            }
            if (x < acc.lo) acc.lo = x;
            if (acc.hi < x) acc.hi = x;
            acc.sum += static_cast<typename acc_t::sum_type>(x);
            auto const m = magnitude(x);
            if (m > top) top = m;
        }
        acc.count += static_cast<long long>(rp[i + 1] - rp[i]);
        acc.bound += top;
    }
    acc_t const block = block_reduce(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = block;
}

template <class T>
__global__ void weight_partials_kernel(weight_acc<T> const* __restrict__ partial,
                                       unsigned count, weight_acc<T>* __restrict__ out) {
    weight_acc<T> acc = weight_acc<T>::none();
    for (unsigned b = threadIdx.x; b < count; b += blockDim.x) acc.add(partial[b]);
    weight_acc<T> const all = block_reduce(acc);
    if (threadIdx.x == 0) *out = all;
}

// ---- sssp's passes -----------------------------------------------------------------------------

/// to[0] = min v over edges (u, v) with dist[u] reached and dist[v] not.
template <class T, class Index>
__global__ void unreached_target_kernel(Index const* __restrict__ rp,
                                        Index const* __restrict__ col, T const* __restrict__ dist,
                                        std::int64_t n, unsigned long long* __restrict__ to) {
    T const inf = infinity<T>();
    for (std::int64_t u = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < n;
         u += std::int64_t(gridDim.x) * blockDim.x) {
        if (dist[u] == inf) continue;
        for (std::int64_t k = rp[u]; k < static_cast<std::int64_t>(rp[u + 1]); ++k) {
            auto const v = static_cast<std::int64_t>(col[k]);
            if (dist[v] == inf) atomicMin(to, static_cast<unsigned long long>(v));
        }
    }
}

/// from[0] = min reached u with an edge to v; then the edge's distance and weight into out.
template <class T, class Index>
__global__ void reached_source_kernel(Index const* __restrict__ rp,
                                      Index const* __restrict__ col, T const* __restrict__ dist,
                                      std::int64_t n, std::int64_t v,
                                      unsigned long long* __restrict__ from) {
    T const inf = infinity<T>();
    for (std::int64_t u = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < n;
         u += std::int64_t(gridDim.x) * blockDim.x) {
        if (dist[u] == inf) continue;
        for (std::int64_t k = rp[u]; k < static_cast<std::int64_t>(rp[u + 1]); ++k)
            if (static_cast<std::int64_t>(col[k]) == v) {
                atomicMin(from, static_cast<unsigned long long>(u));
                break;
            }
    }
}

template <class T, class Index>
__global__ void edge_of_kernel(Index const* __restrict__ rp, Index const* __restrict__ col,
                               T const* __restrict__ val, T iso, T const* __restrict__ dist,
                               std::int64_t u, std::int64_t v, T* __restrict__ out) {
    for (std::int64_t k = rp[u]; k < static_cast<std::int64_t>(rp[u + 1]); ++k)
        if (static_cast<std::int64_t>(col[k]) == v) {
            out[0] = dist[u];
            out[1] = val ? val[k] : iso;
            return;
        }
}

/// parent = -1 but the source's (itself); the source is the first level's queue.
template <class Index>
__global__ void tree_start_kernel(std::int64_t* __restrict__ parent, std::int64_t n,
                                  std::int64_t source, Index* __restrict__ queue) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x)
        parent[v] = v == source ? source : -1;
    if (blockIdx.x == 0 && threadIdx.x == 0) queue[0] = static_cast<Index>(source);
}

/// One level of the tight-edge search: a warp per frontier vertex, its lanes over the out-edges;
/// an unclaimed v whose edge is tight is claimed (compare-and-swap of its parent) and queued.
template <class T, class Index>
__global__ void tight_level_kernel(Index const* __restrict__ rp, Index const* __restrict__ col,
                                   T const* __restrict__ val, T iso, T const* __restrict__ dist,
                                   Index const* __restrict__ frontier, std::int64_t count,
                                   std::int64_t* __restrict__ parent, Index* __restrict__ next,
                                   unsigned long long* __restrict__ next_count) {
    std::int64_t const warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
    unsigned const lane = threadIdx.x % 32;
    for (std::int64_t q = std::int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
         q < count; q += warps) {
        auto const u = static_cast<std::int64_t>(frontier[q]);
        T const du = dist[u];
        for (std::int64_t k = rp[u] + lane; k < static_cast<std::int64_t>(rp[u + 1]); k += 32) {
            auto const v = static_cast<std::int64_t>(col[k]);
            if (parent[v] >= 0) continue;
            if (!(plus_sat_op<T>::apply(du, val ? val[k] : iso) == dist[v])) continue;
            auto* slot = reinterpret_cast<unsigned long long*>(parent + v);
            if (atomicCAS(slot, ~0ull, static_cast<unsigned long long>(u)) != ~0ull) continue;
            next[atomicAdd(next_count, 1ull)] = static_cast<Index>(v);
        }
    }
}

}  // namespace

template <index_type Index>
std::vector<std::int64_t> degrees(csr_matrix<bool, Index, device> const& p, bool columns,
                                  context& ctx) {
    std::size_t const n = columns ? p.cols() : p.rows();
    std::vector<std::int64_t> out(n);
    if (n == 0) return out;
    cudaStream_t const st = detail::stream_of(ctx);
    detail::stream_buffer<std::int64_t> d(n, st);
    if (columns) {
        d.zero();
        if (p.nnz() > 0) {
            column_count_kernel<Index><<<detail::blocks_for(p.nnz(), threads, 65536), threads, 0,
                                         st>>>(p.col_idx(), static_cast<std::int64_t>(p.nnz()),
                                               reinterpret_cast<unsigned long long*>(d.data()));
            KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::column_count_kernel");
        }
    } else {
        row_degree_kernel<Index><<<detail::blocks_for(n, threads, 65536), threads, 0, st>>>(
            p.row_ptr(), static_cast<std::int64_t>(n), d.data());
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::row_degree_kernel");
    }
    detail::copy_to_host(out.data(), d.data(), n, st);
    return out;
}

template <class T, index_type Index>
graph_symmetry symmetry(csr_matrix<T, Index, device> const& a, context& ctx) {
    if (a.rows() != a.cols()) return {};
    if (a.nnz() == 0) return {true, true};
    cudaStream_t const st = detail::stream_of(ctx);
    detail::stream_buffer<unsigned> flags(2, st);
    flags.zero();
    symmetry_kernel<T, Index><<<detail::blocks_for(a.nnz(), threads, 65536), threads, 0, st>>>(
        a.row_ptr(), a.col_idx(), a.has_values() ? a.values() : nullptr,
        static_cast<std::int64_t>(a.rows()), static_cast<std::int64_t>(a.nnz()), flags.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::symmetry_kernel");
    unsigned f[2] = {0, 0};
    detail::copy_to_host(f, flags.data(), 2, st);
    return {f[0] == 0, f[0] == 0 && f[1] == 0};
}

template <class T, index_type Index>
weight_pass<T> scan_weights(csr_matrix<T, Index, device> const& a, context& ctx) {
    weight_pass<T> r;
    std::size_t const n = a.rows();
    if (a.nnz() == 0 || n == 0) return r;
    cudaStream_t const st = detail::stream_of(ctx);
    unsigned const blocks = detail::blocks_for(n, threads, 1024);
    detail::stream_buffer<weight_acc<T>> partial(blocks, st), all(1, st);
    weight_rows_kernel<T, Index><<<blocks, threads, 0, st>>>(
        a.row_ptr(), a.col_idx(), a.has_values() ? a.values() : nullptr, a.iso_value(),
        static_cast<std::int64_t>(n), partial.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::weight_rows_kernel");
    weight_partials_kernel<T><<<1, threads, 0, st>>>(partial.data(), blocks, all.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::weight_partials_kernel");
    weight_acc<T> const acc = detail::read_one(all.data(), st);
    r.empty = false;
    r.min = acc.lo;
    r.max = acc.hi;
    r.sum = static_cast<double>(acc.sum);
    r.bound = static_cast<long double>(acc.bound);
    r.non_finite = acc.bad_row >= 0;
    r.bad_row = acc.bad_row;
    r.bad_col = acc.bad_col;
    r.bad_value = acc.bad_value;
    return r;
}

template <class T, index_type Index>
saturated_edge<T> first_saturated_edge(csr_matrix<T, Index, device> const& a, T const* dist,
                                       context& ctx) {
    saturated_edge<T> r;
    std::size_t const n = a.rows();
    if (n == 0 || a.nnz() == 0) return r;
    cudaStream_t const st = detail::stream_of(ctx);
    unsigned const blocks = detail::blocks_for(n, threads, 65536);
    auto const sn = static_cast<std::int64_t>(n);
    detail::stream_buffer<unsigned long long> found(1, st);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(found.data(), 0xff, sizeof(unsigned long long), st));
    unreached_target_kernel<T, Index><<<blocks, threads, 0, st>>>(a.row_ptr(), a.col_idx(), dist,
                                                                   sn, found.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::unreached_target_kernel");
    unsigned long long const to = detail::read_one(found.data(), st);
    if (to == ~0ull) return r;
    // Only on the way to an overflow_error: two more passes name an edge.
    r.to = static_cast<std::int64_t>(to);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(found.data(), 0xff, sizeof(unsigned long long), st));
    reached_source_kernel<T, Index><<<blocks, threads, 0, st>>>(a.row_ptr(), a.col_idx(), dist,
                                                                 sn, r.to, found.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::reached_source_kernel");
    r.from = static_cast<std::int64_t>(detail::read_one(found.data(), st));
    detail::stream_buffer<T> edge(2, st);
    edge_of_kernel<T, Index><<<1, 1, 0, st>>>(a.row_ptr(), a.col_idx(),
                                              a.has_values() ? a.values() : nullptr,
                                              a.iso_value(), dist, r.from, r.to, edge.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::edge_of_kernel");
    T e[2] = {};
    detail::copy_to_host(e, edge.data(), 2, st);
    r.dist_from = e[0];
    r.weight = e[1];
    return r;
}

template <class T, index_type Index>
void tight_edge_tree(csr_matrix<T, Index, device> const& a, std::size_t source, T const* dist,
                     std::int64_t* parent, context& ctx) {
    std::size_t const n = a.rows();
    if (source >= n)
        throw invalid_argument("tight_edge_tree: source " + std::to_string(source) +
                               " is not a vertex of a " + std::to_string(n) + "-vertex graph");
    cudaStream_t const st = detail::stream_of(ctx);
    auto const sn = static_cast<std::int64_t>(n);
    detail::stream_buffer<Index> queue[2] = {detail::stream_buffer<Index>(n, st),
                                             detail::stream_buffer<Index>(n, st)};
    detail::stream_buffer<unsigned long long> next_count(1, st);
    tree_start_kernel<Index><<<detail::blocks_for(n, threads, 65536), threads, 0, st>>>(
        parent, sn, static_cast<std::int64_t>(source), queue[0].data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::tree_start_kernel");
    T const* val = a.has_values() ? a.values() : nullptr;
    std::size_t count = 1;
    for (int cur = 0; count > 0; cur = 1 - cur) {
        next_count.zero();
        tight_level_kernel<T, Index>
            <<<detail::blocks_for(count * 32, threads, 65536), threads, 0, st>>>(
                a.row_ptr(), a.col_idx(), val, a.iso_value(), dist, queue[cur].data(),
                static_cast<std::int64_t>(count), parent, queue[1 - cur].data(),
                next_count.data());
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::tight_level_kernel");
        count = static_cast<std::size_t>(detail::read_one(next_count.data(), st));
    }
}

#define KLEENE_SCAN_DEGREES(Index)                                                             \
    template std::vector<std::int64_t> degrees<Index>(csr_matrix<bool, Index, device> const&, \
                                                      bool, context&);
KLEENE_SCAN_DEGREES(std::int32_t)
KLEENE_SCAN_DEGREES(std::int64_t)
#undef KLEENE_SCAN_DEGREES

#define KLEENE_SCAN_VALUES(T, Index)                                                            \
    template graph_symmetry symmetry<T, Index>(csr_matrix<T, Index, device> const&, context&);  \
    template weight_pass<T> scan_weights<T, Index>(csr_matrix<T, Index, device> const&, context&);
#define KLEENE_SCAN_SSSP(T, Index)                                                               \
    template saturated_edge<T> first_saturated_edge<T, Index>(csr_matrix<T, Index, device> const&, \
                                                              T const*, context&);               \
    template void tight_edge_tree<T, Index>(csr_matrix<T, Index, device> const&, std::size_t,     \
                                            T const*, std::int64_t*, context&);
#define KLEENE_SCAN_TYPE(T, X) X(T, std::int32_t) X(T, std::int64_t)
KLEENE_SCAN_TYPE(float, KLEENE_SCAN_VALUES)
KLEENE_SCAN_TYPE(double, KLEENE_SCAN_VALUES)
KLEENE_SCAN_TYPE(std::int32_t, KLEENE_SCAN_VALUES)
KLEENE_SCAN_TYPE(std::int64_t, KLEENE_SCAN_VALUES)
KLEENE_SCAN_TYPE(bool, KLEENE_SCAN_VALUES)
KLEENE_SCAN_TYPE(float, KLEENE_SCAN_SSSP)
KLEENE_SCAN_TYPE(double, KLEENE_SCAN_SSSP)
KLEENE_SCAN_TYPE(std::int32_t, KLEENE_SCAN_SSSP)
KLEENE_SCAN_TYPE(std::int64_t, KLEENE_SCAN_SSSP)
#undef KLEENE_SCAN_TYPE
#undef KLEENE_SCAN_SSSP
#undef KLEENE_SCAN_VALUES

}  // namespace kleene::cuda

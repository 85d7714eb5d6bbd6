// reduce on device containers (reduce_transpose.hpp): a warp per row for the row reductions, a
// two-pass block reduction (per-block partials, then one block) for the scalar ones. The columns
// of a dense A: blocks of 32 columns x a chunk of rows fold coalesced row segments into one
// partial per (column, chunk), then the row kernel folds each column's partials and writes w
// (the header reduces a CSR A's columns as the rows of its transpose). No atomics: the fold order
// depends on the shape only, so float results do not change from run to run.

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/structure_instances.hpp>

#include <cub/block/block_reduce.cuh>

namespace kleene::cuda {
namespace detail {

/// Row i of a CSR matrix as the reduce kernel reads it (every stored entry is present).
template <class T, class Index>
struct csr_rows {
    Index const* ap;
    T const* av;
    T iso;
    __device__ std::size_t begin(std::size_t i) const { return std::size_t(ap[i]); }
    __device__ std::size_t end(std::size_t i) const { return std::size_t(ap[i + 1]); }
    __device__ bool get(std::size_t k, T& v) const {
        v = value_at(av, iso, k);
        return true;
    }
};

/// Row i of a dense row-major matrix (entries equal to absent are absent).
template <class T>
struct dense_rows {
    T const* a;
    std::size_t cols;
    T absent;
    __device__ std::size_t begin(std::size_t i) const { return i * cols; }
    __device__ std::size_t end(std::size_t i) const { return (i + 1) * cols; }
    __device__ bool get(std::size_t k, T& v) const {
        v = a[k];
        return !(v == absent);
    }
};

/// Folds (s, any) with (v, has): the running value of a reduction that may have seen nothing.
template <class Mon, class T>
__device__ __forceinline__ void fold(T& s, bool& any, T v, bool has) {
    if (has) {
        s = any ? T(Mon::apply(s, v)) : v;
        any = true;
    }
}

/// One warp a row: lanes fold strided entries, then the warp folds the lanes' results.
template <class Mon, class Accum, class T, class Rows>
__global__ void reduce_rows_kernel(T* __restrict__ w, std::uint8_t const* __restrict__ flags,
                                   bool comp, Accum accum, Rows rows_of, std::size_t rows,
                                   T absent, bool replace) {
    unsigned const lane = threadIdx.x % 32;
    std::size_t const warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    for (std::size_t i = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32; i < rows;
         i += warps) {
        T s = Mon::identity();
        bool any = false;
        std::size_t const e = rows_of.end(i);
        for (std::size_t k = rows_of.begin(i) + lane; k < e; k += 32) {
            T v;
            bool const has = rows_of.get(k, v);
            fold<Mon>(s, any, v, has);
        }
        for (unsigned off = 16; off > 0; off /= 2) {
            T const o = shfl_down(0xffffffffu, s, off);
            bool const oa = __shfl_down_sync(0xffffffffu, int(any), off) != 0;
            fold<Mon>(s, any, o, oa);
        }
        if (lane == 0)
            w[i] = combine(accum, mask_allows(flags, comp, i), replace, w[i], any, s, absent);
    }
}

/// On st; returns with st's work done.
template <class Mon, class Accum, class T, class Rows>
void reduce_rows(cudaStream_t st, T* w, dense_mask const& mask, Accum accum, Rows rows_of,
                 std::size_t rows, T absent, bool replace) {
    if (rows == 0) return;
    constexpr unsigned threads = 256;
    reduce_rows_kernel<Mon><<<blocks_for(rows, threads / 32), threads, 0, st>>>(
        w, mask_flags(mask, st), mask.complemented(), accum, rows_of, rows,
        absent, replace);
    KLEENE_CUDA_CHECK_LAUNCH("reduce_rows_kernel");
    end_of_call(st);
}

template <class Mon, class Accum, class T, class Index>
void reduce_rows_csr(context& ctx, T* w, dense_mask const& mask, Accum accum, Mon,
                     csr_matrix<T, Index, device> const& a, T absent, bool replace) {
    reduce_rows<Mon>(stream_of(ctx), w, mask, accum,
                     csr_rows<T, Index>{a.row_ptr(), a.values(), a.iso_value()}, a.rows(), absent,
                     replace);
}

template <class Mon, class Accum, class T>
void reduce_rows_dense(context& ctx, T* w, dense_mask const& mask, Accum accum, Mon, T const* a,
                       std::size_t rows, std::size_t cols, T absent, bool replace) {
    reduce_rows<Mon>(stream_of(ctx), w, mask, accum, dense_rows<T>{a, cols, absent}, rows, absent,
                     replace);
}

/// Column i's partial results: entries i * n .. (i + 1) * n, flagged where a chunk had entries.
template <class T>
struct partial_rows {
    T const* v;
    std::uint8_t const* has;
    std::size_t n;
    __device__ std::size_t begin(std::size_t i) const { return i * n; }
    __device__ std::size_t end(std::size_t i) const { return (i + 1) * n; }
    __device__ bool get(std::size_t k, T& x) const {
        x = v[k];
        return has[k] != 0;
    }
};

constexpr unsigned col_tile = 32;  // columns of a block: a warp reads 32 adjacent entries
constexpr unsigned col_lanes = 8;  // rows a block reads at once

/// Block (bx, by) folds columns bx * 32.. over the rows of chunk by: lane y folds rows y, y + 8,
/// ... of the chunk, then lane 0 folds the 8 lanes in order into the column's partial for it.
template <class Mon, class T>
__global__ void reduce_cols_partial_kernel(T const* __restrict__ a, std::size_t rows,
                                           std::size_t cols, std::size_t chunk, T absent,
                                           T* __restrict__ pv, std::uint8_t* __restrict__ ph) {
    __shared__ T lane_v[col_lanes][col_tile];
    __shared__ bool lane_has[col_lanes][col_tile];
    std::size_t const j = std::size_t(blockIdx.x) * col_tile + threadIdx.x;
    std::size_t const c = blockIdx.y, chunks = gridDim.y;
    std::size_t const r1 = std::min(rows, (c + 1) * chunk);
    T s = Mon::identity();
    bool any = false;
    if (j < cols)
        for (std::size_t i = c * chunk + threadIdx.y; i < r1; i += col_lanes) {
            T const v = a[i * cols + j];
            fold<Mon>(s, any, v, !(v == absent));
        }
    lane_v[threadIdx.y][threadIdx.x] = s;
    lane_has[threadIdx.y][threadIdx.x] = any;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        for (unsigned y = 1; y < col_lanes; ++y)
            fold<Mon>(s, any, lane_v[y][threadIdx.x], lane_has[y][threadIdx.x]);
        pv[j * chunks + c] = s;
        ph[j * chunks + c] = any;
    }
}

template <class Mon, class Accum, class T>
void reduce_cols_dense(context& ctx, T* w, dense_mask const& mask, Accum accum, Mon, T const* a,
                       std::size_t rows, std::size_t cols, T absent, bool replace) {
    if (cols == 0) return;
    device_stream const st = stream_of(ctx);
    // Up to about 4096 blocks (chunks <= 4096 fits grid.y), chunks of at least 64 rows (8 per
    // lane); a function of the shape only, so the fold order is too.
    std::size_t const gx = (cols + col_tile - 1) / col_tile;
    std::size_t const want = std::max<std::size_t>(1, 4096 / gx);
    std::size_t const chunk = std::max<std::size_t>(64, (rows + want - 1) / want);
    std::size_t const chunks = (rows + chunk - 1) / chunk;  // 0 when rows == 0
    stream_buffer<T> pv(cols * chunks, st);
    stream_buffer<std::uint8_t> ph(cols * chunks, st);
    if (chunks > 0) {
        dim3 const grid(static_cast<unsigned>(gx), static_cast<unsigned>(chunks));
        reduce_cols_partial_kernel<Mon><<<grid, dim3(col_tile, col_lanes), 0, st>>>(
            a, rows, cols, chunk, absent, pv.data(), ph.data());
        KLEENE_CUDA_CHECK_LAUNCH("reduce_cols_partial_kernel");
    }
    // pv and ph are released on st, behind reduce_rows' work.
    reduce_rows<Mon>(st, w, mask, accum, partial_rows<T>{pv.data(), ph.data(), chunks}, cols,
                     absent, replace);
}

template <class Mon>
struct monoid_fn {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return Mon::apply(a, b);
    }
};

constexpr unsigned reduce_threads = 256;

/// partial[block] = the (+) of the block's grid-strided share of v (identity where absent).
template <class Mon, class T>
__global__ void reduce_values_kernel(T const* __restrict__ v, T iso, std::size_t n, T absent,
                                     bool skip_absent, T* __restrict__ partial) {
    using block_reduce = cub::BlockReduce<T, reduce_threads>;
    __shared__ typename block_reduce::TempStorage temp;
    T s = Mon::identity();
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x) {
        T const x = value_at(v, iso, k);
        if (!(skip_absent && x == absent)) s = Mon::apply(s, x);
    }
    T const total = block_reduce(temp).Reduce(s, monoid_fn<Mon>{});
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

template <class Mon, class T>
T reduce_values(context& ctx, Mon, T const* v, T iso, std::size_t n, T absent, bool skip_absent) {
    if (n == 0) return Mon::identity();
    device_stream const st = stream_of(ctx);
    unsigned const blocks = blocks_for(n, reduce_threads, 1024);
    stream_buffer<T> partial(blocks + 1, st);
    reduce_values_kernel<Mon><<<blocks, reduce_threads, 0, st>>>(v, iso, n, absent, skip_absent,
                                                                 partial.data());
    KLEENE_CUDA_CHECK_LAUNCH("reduce_values_kernel");
    reduce_values_kernel<Mon><<<1, reduce_threads, 0, st>>>(partial.data(), T(0), blocks, absent,
                                                            false, partial.data() + blocks);
    KLEENE_CUDA_CHECK_LAUNCH("reduce_values_kernel (partials)");
    T out;
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(&out, partial.data() + blocks, sizeof(T),
                                      cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return out;
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_STRUCT_REDUCE_INSTANCES)

}  // namespace kleene::cuda

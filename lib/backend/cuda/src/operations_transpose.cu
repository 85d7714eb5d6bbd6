// transpose on device containers (reduce_transpose.hpp). CSR: a stable CUB radix sort of the
// entries' positions by column (entries arrive in row order, so each output row comes out sorted),
// output row pointers by binary search in the sorted columns, then a gather. Dense: 32 x 32 tiles
// staged in shared memory, with the mask, accumulator and replace applied on the write.

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/structure_instances.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <bit>

namespace kleene::cuda {
namespace detail {

template <class Index>
__global__ void iota_kernel(Index* __restrict__ p, std::size_t n) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x)
        p[k] = Index(k);
}

/// The first position in sorted[0..n) whose value is >= x.
template <class K>
__device__ __forceinline__ std::size_t lower_bound(K const* __restrict__ sorted, std::size_t n,
                                                   K x) {
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        std::size_t const mid = lo + (hi - lo) / 2;
        if (sorted[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// out_ptr[j] = the first sorted position of column j, for j in [0, cols].
template <class Key, class Index>
__global__ void column_starts_kernel(Key const* __restrict__ keys, std::size_t nnz,
                                     std::size_t cols, Index* __restrict__ out_ptr) {
    for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j <= cols;
         j += std::size_t(gridDim.x) * blockDim.x)
        out_ptr[j] = Index(lower_bound(keys, nnz, Key(j)));
}

/// Output entry p is input entry perm[p]: its row (found in the row pointers) becomes the column.
template <class T, class Index>
__global__ void transpose_gather_kernel(Index const* __restrict__ perm, std::size_t nnz,
                                        Index const* __restrict__ ap, std::size_t rows,
                                        T const* __restrict__ av, Index* __restrict__ cj,
                                        T* __restrict__ cv) {
    for (std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; p < nnz;
         p += std::size_t(gridDim.x) * blockDim.x) {
        Index const k = perm[p];
        // The row holding entry k: the first i with ap[i + 1] > k.
        std::size_t lo = 0, hi = rows;
        while (lo < hi) {
            std::size_t const mid = lo + (hi - lo) / 2;
            if (ap[mid + 1] <= k) lo = mid + 1;
            else hi = mid;
        }
        cj[p] = Index(lo);
        if (av) cv[p] = av[k];
    }
}

template <class T, class Index>
csr_matrix<T, Index, device> transpose_csr(context& ctx, csr_matrix<T, Index, device> const& a) {
    using Key = std::make_unsigned_t<Index>;
    std::size_t const rows = a.rows(), cols = a.cols(), nnz = a.nnz();
    bool const valued = a.has_values();
    device_stream const st = stream_of(ctx);
    buffer<Index, device> out_ptr(cols + 1);
    buffer<Index, device> out_cols(nnz);
    buffer<T, device> out_vals(valued ? nnz : 0);
    if (nnz == 0) {
        fill(out_ptr.data(), cols + 1, Index(0), st);
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        return {cols, rows, std::move(out_ptr), std::move(out_cols), std::move(out_vals),
                a.iso_value(), true};
    }
    stream_buffer<Index> perm_in(nnz, st), perm(nnz, st);
    stream_buffer<Key> keys(nnz, st);
    iota_kernel<<<blocks_for(nnz, 256), 256, 0, st>>>(perm_in.data(), nnz);
    KLEENE_CUDA_CHECK_LAUNCH("iota_kernel");
    // Only the bits a column index can use (cols >= 1 here).
    int const end_bit = std::max(1, int(std::bit_width(std::uint64_t(cols - 1))));
    auto const* keys_in = reinterpret_cast<Key const*>(a.col_idx());
    cub_temp temp(st);
    std::size_t bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys.data(),
                                                      perm_in.data(), perm.data(), nnz, 0,
                                                      end_bit, st));
    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(bytes), bytes, keys_in,
                                                      keys.data(), perm_in.data(), perm.data(),
                                                      nnz, 0, end_bit, st));
    column_starts_kernel<<<blocks_for(cols + 1, 256), 256, 0, st>>>(keys.data(), nnz, cols,
                                                                    out_ptr.data());
    KLEENE_CUDA_CHECK_LAUNCH("column_starts_kernel");
    transpose_gather_kernel<<<blocks_for(nnz, 256), 256, 0, st>>>(
        perm.data(), nnz, a.row_ptr(), rows, valued ? a.values() : static_cast<T const*>(nullptr),
        out_cols.data(), out_vals.data());
    KLEENE_CUDA_CHECK_LAUNCH("transpose_gather_kernel");
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return {cols, rows, std::move(out_ptr), std::move(out_cols), std::move(out_vals),
            a.iso_value(), true};
}

constexpr unsigned tile = 32;
constexpr unsigned tile_rows = 8;

/// Block (bx, by) moves the tile of a at rows by*32.., columns bx*32.. into c (cols x rows); the
/// grid strides over tile rows past 65535.
template <class Accum, class T>
__global__ void transpose_dense_kernel(T* __restrict__ c, std::uint8_t const* __restrict__ flags,
                                       bool comp, Accum accum, T const* __restrict__ a,
                                       std::size_t rows, std::size_t cols, T absent,
                                       bool replace) {
    __shared__ T staged[tile][tile + 1];  // +1: the column reads hit different banks
    std::size_t const j0 = std::size_t(blockIdx.x) * tile;
    for (std::size_t i0 = std::size_t(blockIdx.y) * tile; i0 < rows;
         i0 += std::size_t(gridDim.y) * tile) {
        for (unsigned r = threadIdx.y; r < tile; r += tile_rows) {
            std::size_t const i = i0 + r, j = j0 + threadIdx.x;
            if (i < rows && j < cols) staged[r][threadIdx.x] = a[i * cols + j];
        }
        __syncthreads();
        for (unsigned r = threadIdx.y; r < tile; r += tile_rows) {
            std::size_t const j = j0 + r, i = i0 + threadIdx.x;  // c(j, i) = a(i, j)
            if (i < rows && j < cols) {
                std::size_t const k = j * rows + i;
                T const t = staged[threadIdx.x][r];
                c[k] = combine(accum, mask_allows(flags, comp, k), replace, c[k], !(t == absent),
                               t, absent);
            }
        }
        __syncthreads();
    }
}

template <class Accum, class T>
void transpose_dense(context& ctx, T* c, dense_mask const& mask, Accum accum, T const* a,
                     std::size_t rows, std::size_t cols, T absent, bool replace) {
    if (rows == 0 || cols == 0) return;
    device_stream const st = stream_of(ctx);
    std::size_t const gx = (cols + tile - 1) / tile, gy = (rows + tile - 1) / tile;
    dim3 const grid(static_cast<unsigned>(gx),
                    static_cast<unsigned>(std::min<std::size_t>(gy, 65535)));
    transpose_dense_kernel<<<grid, dim3(tile, tile_rows), 0, st>>>(
        c, mask_flags(mask, st), mask.complemented(), accum, a, rows, cols,
        absent, replace);
    KLEENE_CUDA_CHECK_LAUNCH("transpose_dense_kernel");
    end_of_call(st);
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_STRUCT_TRANSPOSE_INSTANCES)

}  // namespace kleene::cuda

// Conversions between dense and sparse storage on the device (convert.hpp's to_dense, to_csr and
// to_sparse for device containers; mxm's dense x CSR and dense-into-CSR paths).

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/operations_instances.hpp>

#include <limits>

namespace kleene::cuda {

namespace detail {

template <class T, class Index>
__global__ void csr_scatter_kernel(T* __restrict__ out, std::size_t rows, std::size_t cols,
                                   Index const* __restrict__ ap, Index const* __restrict__ aj,
                                   T const* __restrict__ av, T a_iso) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::size_t(gridDim.x) * blockDim.x)
        for (Index k = ap[i]; k < ap[i + 1]; ++k) out[i * cols + aj[k]] = value_at(av, a_iso, k);
}

/// A warp a row: counts (Fill false) the entries that differ from absent, or writes them (Fill
/// true) at ptr[i] on, in column order (a ballot per 32 columns gives each lane its position).
template <bool Fill, class T, class Index>
__global__ void dense_rows_kernel(T const* __restrict__ d, std::size_t rows, std::size_t cols,
                                  T absent, std::int64_t* __restrict__ ptr,
                                  Index* __restrict__ out_cols, T* __restrict__ out_vals) {
    unsigned const lane = threadIdx.x & 31u;
    std::size_t const warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    for (std::size_t i = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32; i < rows;
         i += warps) {
        std::int64_t w = Fill ? ptr[i] : 0;
        for (std::size_t j0 = 0; j0 < cols; j0 += 32) {
            std::size_t const j = j0 + lane;
            T const x = j < cols ? d[i * cols + j] : absent;
            bool const keep = j < cols && !(x == absent);
            unsigned const votes = __ballot_sync(0xffffffffu, keep);
            if (Fill && keep) {
                std::int64_t const at = w + __popc(votes & ((1u << lane) - 1u));
                out_cols[at] = static_cast<Index>(j);
                out_vals[at] = x;
            }
            w += __popc(votes);
        }
        if (!Fill && lane == 0) ptr[i] = w;
    }
}

template <class T, class Index>
__global__ void scatter_kernel(T* __restrict__ out, Index const* __restrict__ idx,
                               T const* __restrict__ vals, std::size_t nnz) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < nnz;
         k += std::size_t(gridDim.x) * blockDim.x)
        out[idx[k]] = vals[k];
}

template <class Index>
__global__ void narrow_kernel(Index* __restrict__ out, std::int64_t const* __restrict__ in,
                              std::size_t n) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x)
        out[k] = static_cast<Index>(in[k]);
}

template <class T, class Index>
void csr_to_dense(context& ctx, T* out, csr_matrix<T, Index, device> const& a, T absent) {
    std::size_t const n = a.rows() * a.cols();
    if (n == 0) return;
    device_stream const st = stream_of(ctx);
    fill(out, n, absent, st);
    if (a.nnz() > 0) {
        csr_scatter_kernel<<<blocks_for(a.rows(), 128), 128, 0, st>>>(
            out, a.rows(), a.cols(), a.row_ptr(), a.col_idx(), a.values(), a.iso_value());
        KLEENE_CUDA_CHECK_LAUNCH("csr_scatter_kernel");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

template <class T, class Index>
csr_matrix<T, Index, device> dense_to_csr(context& ctx, T const* d, std::size_t rows,
                                          std::size_t cols, T absent) {
    constexpr auto most = static_cast<std::size_t>(std::numeric_limits<Index>::max());
    if (rows > most || cols > most)
        throw overflow_error("to_csr: a " + kleene::detail::shape(rows, cols) +
                             " matrix does not fit the index type of " +
                             std::to_string(sizeof(Index) * 8) + " bits");
    device_stream const st = stream_of(ctx);
    stream_buffer<std::int64_t> ptr64(rows + 1, st);
    fill(ptr64.data(), rows + 1, std::int64_t(0), st);
    unsigned const grid = blocks_for(rows * 32, 256);
    if (rows > 0 && cols > 0) {
        dense_rows_kernel<false, T, Index>
            <<<grid, 256, 0, st>>>(d, rows, cols, absent, ptr64.data(), nullptr, nullptr);
        KLEENE_CUDA_CHECK_LAUNCH("dense_rows_kernel (count)");
    }
    std::size_t const nnz = scan_counts(ptr64.data(), rows, st);
    if (nnz > most)
        throw overflow_error("to_csr: " + std::to_string(nnz) +
                             " entries do not fit the index type of " +
                             std::to_string(sizeof(Index) * 8) + " bits");
    buffer<Index, device> ptr(rows + 1), out_cols(nnz);
    buffer<T, device> vals(nnz);
    if (nnz > 0) {
        dense_rows_kernel<true, T, Index><<<grid, 256, 0, st>>>(
            d, rows, cols, absent, ptr64.data(), out_cols.data(), vals.data());
        KLEENE_CUDA_CHECK_LAUNCH("dense_rows_kernel (fill)");
    }
    narrow_kernel<<<blocks_for(rows + 1, 256), 256, 0, st>>>(ptr.data(), ptr64.data(), rows + 1);
    KLEENE_CUDA_CHECK_LAUNCH("narrow_kernel");
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return {rows, cols, std::move(ptr), std::move(out_cols), std::move(vals), T(1), true};
}

template <class T, class Index>
void sparse_to_dense(context& ctx, T* out, std::size_t n, Index const* idx, T const* vals,
                     std::size_t nnz, T absent) {
    if (n == 0) return;
    device_stream const st = stream_of(ctx);
    fill(out, n, absent, st);
    if (nnz > 0) {
        scatter_kernel<<<blocks_for(nnz, 256), 256, 0, st>>>(out, idx, vals, nnz);
        KLEENE_CUDA_CHECK_LAUNCH("scatter_kernel");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_OPS_CONVERT_INSTANCES)

}  // namespace kleene::cuda

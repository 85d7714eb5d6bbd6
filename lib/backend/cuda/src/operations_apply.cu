// apply on device CSR and dense containers (operations.hpp).

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/operations_instances.hpp>

namespace kleene::cuda {
namespace detail {

template <class F, class Accum, class T>
__global__ void apply_dense_kernel(T* __restrict__ c, std::uint8_t const* __restrict__ flags,
                                   bool comp, Accum accum, F f, T const* __restrict__ a,
                                   std::size_t n, T absent, bool replace) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x) {
        T const x = a[k];
        bool const has_t = !(x == absent);
        T const t = has_t ? T(f.apply(x)) : absent;
        c[k] = combine(accum, mask_allows(flags, comp, k), replace, c[k], has_t, t, absent);
    }
}

template <class F, class T, class Index>
__global__ void apply_values_kernel(F f, T* __restrict__ out, T const* __restrict__ in, T iso,
                                    std::size_t nnz) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < nnz;
         k += std::size_t(gridDim.x) * blockDim.x)
        out[k] = T(f.apply(value_at(in, iso, k)));
}

template <class F, class Accum, class T>
void apply_dense(context& ctx, T* c, dense_mask const& mask, Accum accum, F f, T const* a,
                 std::size_t n, T absent, bool replace) {
    if (n == 0) return;
    device_stream const st = stream_of(ctx);
    apply_dense_kernel<<<blocks_for(n, 256), 256, 0, st>>>(
        c, mask_flags(mask, st), mask.complemented(), accum, f, a, n, absent,
        replace);
    KLEENE_CUDA_CHECK_LAUNCH("apply_dense_kernel");
    end_of_call(st);
}

template <class F, class T, class Index>
csr_matrix<T, Index, device> apply_csr(context& ctx, F f, csr_matrix<T, Index, device> const& a) {
    std::size_t const nnz = a.nnz();
    buffer<T, device> vals(nnz);
    if (nnz > 0) {
        device_stream const st = stream_of(ctx);
        apply_values_kernel<F, T, Index><<<blocks_for(nnz, 256), 256, 0, st>>>(
            f, vals.data(), a.values(), a.iso_value(), nnz);
        KLEENE_CUDA_CHECK_LAUNCH("apply_values_kernel");
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    }
    return {a.rows(), a.cols(), a.row_ptr_storage(), a.col_idx_storage(), std::move(vals), T(1),
            true};
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_OPS_APPLY_INSTANCES)

}  // namespace kleene::cuda

#pragma once
// SpMV's host side, w<mask> = A u (pull); the kernels are spmv_kernels.cuh's.

#include <kleene/cuda/sparse/common.cuh>
#include <kleene/cuda/sparse/spmv_kernels.cuh>

#include <cstdint>

namespace kleene::cuda {
namespace sparse_detail {

/// The SpMV kernels of one semiring and index type: compiled ahead of time (spmv_kernels_of) or
/// by the JIT (kleene/cuda/jit.hpp); spmv_launch runs either.
struct spmv_kernels {
    void const* rows = nullptr;
    void const* long_slices = nullptr;
    void const* long_finish = nullptr;
    void const* long_whole = nullptr;
};
template <class S, class Index>
spmv_kernels spmv_kernels_of() {
    return {reinterpret_cast<void const*>(&spmv_rows_kernel<S, Index>),
            reinterpret_cast<void const*>(&spmv_long_kernel<S, Index>),
            reinterpret_cast<void const*>(&spmv_long_finish<S, Index>),
            reinterpret_cast<void const*>(&spmv_long_whole<S, Index>)};
}

/// w<mask> = [w (+)] A u with kernels k, on the context's stream; returns when w is written.
template <class T, class Index>
void spmv_launch(context& ctx, spmv_kernels const& k, dense_vector<T, device>& w, mask_ref mask,
                 csr_matrix<T, Index, device> const& a, dense_vector<T, device> const& u,
                 bool accumulate, bool replace) {
    std::int64_t const rows = static_cast<std::int64_t>(a.rows());
    if (rows == 0) return;
    auto const st = static_cast<cudaStream_t>(ctx.stream());
    spmv_args<T, Index> p{a.row_ptr(), a.col_idx(), a.values(), a.iso_value(), u.data(),
                          w.data(),    rows,        mask,       accumulate,    replace,
                          nullptr,     nullptr,     nullptr};
    std::size_t const long_cap = a.nnz() / std::size_t(spmv_long + 1);
    if (long_cap > 0) {
        p.long_rows = scratch<Index>(ctx, 0, long_cap);
        p.long_sum = scratch<T>(ctx, 1, long_cap);
        p.long_count = scratch<unsigned long long>(ctx, 2, 1);
        KLEENE_CUDA_CHECK(cudaMemsetAsync(p.long_count, 0, sizeof(unsigned long long), st));
    }
    unsigned const blocks =
        detail::blocks_for(std::size_t(rows), spmv_threads, detail::persistent_blocks(16));
    void* row_args[] = {&p};
    KLEENE_CUDA_CHECK(
        cudaLaunchKernel(k.rows, dim3(blocks), dim3(spmv_threads), row_args, 0, st));
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    KLEENE_CUDA_CHECK(cudaStreamIsCapturing(st, &capture));
    if (long_cap > 0 && capture != cudaStreamCaptureStatusNone) {
        // Captured into a graph: no host read of the count; a block a long row.
        KLEENE_CUDA_CHECK(cudaLaunchKernel(k.long_whole, dim3(detail::persistent_blocks(8)),
                                           dim3(spmv_threads), row_args, 0, st));
    } else if (long_cap > 0) {
        std::int64_t* offs = nullptr;
        std::int64_t count = 0;
        std::int64_t items =
            number_slices(ctx, a.row_ptr(), p.long_rows, p.long_count, spmv_slice, offs, count);
        if (items > 0) {
            void* long_args[] = {&p, &offs, &count, &items};
            KLEENE_CUDA_CHECK(cudaLaunchKernel(
                k.long_slices,
                dim3(detail::blocks_for(std::size_t(items), 1, detail::persistent_blocks(8))),
                dim3(spmv_threads), long_args, 0, st));
            void* finish_args[] = {&p, &count};
            KLEENE_CUDA_CHECK(cudaLaunchKernel(
                k.long_finish, dim3(detail::blocks_for(std::size_t(count), 256)), dim3(256),
                finish_args, 0, st));
        }
    }
    // end_of_call's test, already made: no wait while the stream is being captured.
    if (capture == cudaStreamCaptureStatusNone) KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

/// spmv's operand checks: shapes, and w distinct from u.
template <class T, class Index>
void check_spmv_operands(dense_vector<T, device> const& w, vector_mask const& mask,
                         csr_matrix<T, Index, device> const& a, dense_vector<T, device> const& u) {
    check_vector("spmv", "u", u.size(), a.cols());
    check_vector("spmv", "w", w.size(), a.rows());
    if (mask.active()) check_vector("spmv", "the mask", mask.size(), a.rows());
    if (w.size() > 0 && w.data() == u.data())
        throw invalid_argument(
            "spmv: w and u must be different vectors (the product reads u while it writes w)");
}

template <class S, class Index>
void spmv_generic(context& ctx, dense_vector<typename S::value_type, device>& w, mask_ref mask,
                  csr_matrix<typename S::value_type, Index, device> const& a,
                  dense_vector<typename S::value_type, device> const& u, bool accumulate,
                  bool replace) {
    spmv_launch<typename S::value_type, Index>(ctx, spmv_kernels_of<S, Index>(), w, mask, a, u,
                                               accumulate, replace);
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
sparse_backend spmv(dense_vector<typename S::value_type, device>& w, vector_mask const& mask,
                    csr_matrix<typename S::value_type, Index, device> const& a,
                    dense_vector<typename S::value_type, device> const& u,
                    sparse_options const& opt) {
    using namespace sparse_detail;
    context& ctx = resolve(opt.ctx);
    check_spmv_operands(w, mask, a, u);
    bool const plain = !mask.active();
    if constexpr (cusparse_has<S>) {
        bool const want = opt.backend == sparse_backend::cusparse ||
                          (opt.backend == sparse_backend::automatic && cusparse_default::spmv);
        if (want && plain && a.nnz() > 0 && a.has_values()) {
            cusparse_spmv<typename S::value_type, Index>(ctx, a, u.data(), w.data(), opt.accumulate);
            return sparse_backend::cusparse;
        }
        if (opt.backend == sparse_backend::cusparse)
            no_cusparse("spmv", plain ? "an iso or empty matrix" : "a masked product");
    } else if (opt.backend == sparse_backend::cusparse) {
        no_cusparse("spmv", "this semiring");
    }
    spmv_generic<S, Index>(ctx, w, ref(mask, ctx), a, u, opt.accumulate, opt.replace);
    return sparse_backend::generic;
}

}  // namespace kleene::cuda

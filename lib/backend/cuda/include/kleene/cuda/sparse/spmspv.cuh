#pragma once
// SpMSpV, w<mask> = u A (push): the frontier's edges expanded with semiring atomics, the touched
// columns queued and sorted.

#include <kleene/cuda/sparse/common.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <type_traits>

namespace kleene::cuda {
namespace sparse_detail {

// ---- SpMSpV (push) ----------------------------------------------------------------------------

inline constexpr int push_threads = 256;
inline constexpr int push_items = 8;

template <class Index>
__global__ void push_degrees(Index const* __restrict__ row_ptr, Index const* __restrict__ idx,
                             std::int64_t count, std::int64_t* __restrict__ deg) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        Index const r = idx[k];
        deg[k] = static_cast<std::int64_t>(row_ptr[r + 1] - row_ptr[r]);
    }
}

template <class S, class Index>
struct push_args {
    using T = typename S::value_type;
    Index const* row_ptr;
    Index const* col;
    T const* val;
    T iso;
    Index const* u_idx;
    T const* u_val;
    std::int64_t u_count;
    std::int64_t const* offs;
    mask_ref mask;
    T* acc;
    unsigned* touched;
    Index* queue;
    unsigned long long* queued;
};

template <class S, class Index>
__global__ void __launch_bounds__(push_threads) spmspv_expand(push_args<S, Index> p) {
    detail::for_each_frontier_edge<push_threads, push_items>(
        p.offs, p.u_count, [&](std::int64_t k, std::int64_t r) {
            Index const pos = p.row_ptr[p.u_idx[k]] + Index(r);
            Index const j = p.col[pos];
            if (!p.mask.allows(j)) return;
            atomic_add<S>(&p.acc[j], S::mul(p.u_val[k], value_at(p.val, p.iso, pos)));
            if (p.touched[j] == 0u && atomicExch(&p.touched[j], 1u) == 0u)
                p.queue[detail::aggregated_slot(p.queued)] = j;
        });
}

template <class T, class Index>
__global__ void gather_values(Index const* __restrict__ idx, std::int64_t count,
                              T const* __restrict__ acc, T* __restrict__ out) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        out[k] = acc[idx[k]];
}

inline int bits_for(std::size_t n) {
    int b = 1;
    while (b < 63 && (std::size_t(1) << b) < n) ++b;
    return b;
}

template <class S, class Index>
void spmspv_generic(context& ctx, sparse_vector<typename S::value_type, Index, device>& w,
                    mask_ref mask,
                    sparse_vector<typename S::value_type, Index, device> const& u,
                    csr_matrix<typename S::value_type, Index, device> const& a) {
    using T = typename S::value_type;
    using U = std::make_unsigned_t<Index>;
    std::size_t const n = a.cols();
    auto const f = static_cast<std::int64_t>(u.nnz());
    if (f == 0 || n == 0 || a.nnz() == 0) {
        w = sparse_vector<T, Index, device>(n);
        return;
    }
    cudaStream_t const st = stream_of(ctx);
    auto* deg = scratch<std::int64_t>(ctx, 0, std::size_t(f));
    auto* offs = scratch<std::int64_t>(ctx, 1, std::size_t(f) + 1);
    push_degrees<Index><<<detail::blocks_for(std::size_t(f), 256), 256, 0, st>>>(
        a.row_ptr(), u.indices(), f, deg);
    KLEENE_CUDA_CHECK_LAUNCH("push_degrees");
    exclusive_offsets(ctx, deg, offs, f);
    push_args<S, Index> p{a.row_ptr(),
                          a.col_idx(),
                          a.values(),
                          a.iso_value(),
                          u.indices(),
                          u.values(),
                          f,
                          offs,
                          mask,
                          scratch<T>(ctx, 2, n),
                          scratch<unsigned>(ctx, 3, n),
                          scratch<Index>(ctx, 4, n),
                          scratch<unsigned long long>(ctx, 5, 1)};
    detail::fill(p.acc, n, S::zero(), st);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(p.touched, 0, n * sizeof(unsigned), st));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(p.queued, 0, sizeof(unsigned long long), st));
    spmspv_expand<S, Index><<<detail::persistent_blocks(8), push_threads, 0, st>>>(p);
    KLEENE_CUDA_CHECK_LAUNCH("spmspv_expand");
    unsigned long long count = 0;
    KLEENE_CUDA_CHECK(
        cudaMemcpyAsync(&count, p.queued, sizeof count, cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    buffer<Index, device> idx(count);
    buffer<T, device> vals(count);
    if (count > 0) {
        std::size_t bytes = 0;
        auto const* in = reinterpret_cast<U const*>(p.queue);
        auto* out = reinterpret_cast<U*>(idx.data());
        int const end_bit = bits_for(n);
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
            nullptr, bytes, in, out, static_cast<std::int64_t>(count), 0, end_bit, st));
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(cub_scratch(ctx, bytes), bytes, in, out,
                                                         static_cast<std::int64_t>(count), 0,
                                                         end_bit, st));
        gather_values<T, Index><<<detail::blocks_for(count, 256), 256, 0, st>>>(
            idx.data(), static_cast<std::int64_t>(count), p.acc, vals.data());
        KLEENE_CUDA_CHECK_LAUNCH("gather_values");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    w = sparse_vector<T, Index, device>(n, std::move(idx), std::move(vals));
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
void spmspv(sparse_vector<typename S::value_type, Index, device>& w, vector_mask const& mask,
            sparse_vector<typename S::value_type, Index, device> const& u,
            csr_matrix<typename S::value_type, Index, device> const& a, context* ctx) {
    using namespace sparse_detail;
    check_vector("spmspv", "u", u.size(), a.rows());
    if (mask.active()) check_vector("spmspv", "the mask", mask.size(), a.cols());
    context& c = resolve(ctx);
    spmspv_generic<S, Index>(c, w, ref(mask, c), u, a);
}

}  // namespace kleene::cuda

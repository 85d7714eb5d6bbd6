// select on device CSR (operations.hpp): a count pass, a CUB scan, a compaction pass.

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/operations_instances.hpp>

namespace kleene::cuda {
namespace detail {

template <class T>
__device__ __forceinline__ bool keep(select_spec<T> const& p, T v, std::int64_t i, std::int64_t j) {
    using S = select_spec<T>;
    switch (p.kind) {
        case S::tril: return j <= i + p.k;
        case S::triu: return j >= i + p.k;
        case S::diag: return j == i + p.k;
        case S::offdiag: return j != i + p.k;
        case S::eq: return v == p.x;
        case S::ne: return v != p.x;
        case S::lt: return v < p.x;
        case S::le: return v <= p.x;
        case S::gt: return v > p.x;
        case S::ge: return v >= p.x;
    }
    return false;
}

/// Counts (Fill false) or writes (Fill true) each row's kept entries, one thread a row.
template <bool Fill, class T, class Index>
__global__ void select_csr_kernel(select_spec<T> pred, std::size_t rows, Index const* __restrict__ ap,
                                  Index const* __restrict__ aj, T const* __restrict__ av, T iso,
                                  Index* __restrict__ cp, Index* __restrict__ cj,
                                  T* __restrict__ cv) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::size_t(gridDim.x) * blockDim.x) {
        Index w = Fill ? cp[i] : Index(0);
        for (Index k = ap[i]; k < ap[i + 1]; ++k) {
            T const v = value_at(av, iso, k);
            if (keep(pred, v, std::int64_t(i), std::int64_t(aj[k]))) {
                if (Fill) {
                    cj[w] = aj[k];
                    cv[w] = v;
                }
                ++w;
            }
        }
        if (!Fill) cp[i] = w;
    }
}

template <class T, class Index>
csr_matrix<T, Index, device> select_csr(context& ctx, select_spec<T> pred,
                                        csr_matrix<T, Index, device> const& a) {
    std::size_t const rows = a.rows();
    unsigned const grid = blocks_for(rows, 128);
    device_stream const st = stream_of(ctx);
    auto launch = [&](auto fill_pass, Index* cp, Index* cj, T* cv) {
        select_csr_kernel<decltype(fill_pass)::value><<<grid, 128, 0, st>>>(
            pred, rows, a.row_ptr(), a.col_idx(), a.values(), a.iso_value(), cp, cj, cv);
    };
    return two_pass_csr<T, Index>(
        st, rows, a.cols(), "select_csr_kernel",
        [&](Index* cp) { launch(std::false_type{}, cp, nullptr, nullptr); },
        [&](Index* cp, Index* cj, T* cv) { launch(std::true_type{}, cp, cj, cv); });
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_OPS_SELECT_INSTANCES)

}  // namespace kleene::cuda

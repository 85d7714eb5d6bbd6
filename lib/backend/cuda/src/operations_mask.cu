// The CSR mask (csr_mask) and the masked write-back of CSR outputs (operations.hpp): one thread a
// row merges the sorted rows of C, Z and the mask; a count pass, a CUB scan and a fill pass.

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/operations_instances.hpp>

namespace kleene::cuda {

namespace detail {

/// Counts (Fill false) or copies (Fill true) each row's entries that are not zero.
template <bool Fill, class M, class Index>
__global__ void mask_nonzero_kernel(std::size_t rows, Index const* __restrict__ mp,
                                    Index const* __restrict__ mj, M const* __restrict__ mv,
                                    Index* __restrict__ op, Index* __restrict__ oj) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::size_t(gridDim.x) * blockDim.x) {
        Index w = Fill ? op[i] : Index(0);
        for (Index k = mp[i]; k < mp[i + 1]; ++k) {
            if (mv[k] == M(0)) continue;
            if (Fill) oj[w] = mj[k];
            ++w;
        }
        if (!Fill) op[i] = w;
    }
}

/// Counts (Fill false) or writes (Fill true) row i of C<mask, replace> = Z.
template <bool Fill, class T, class Index>
__global__ void mask_merge_kernel(std::size_t rows, Index const* __restrict__ cp,
                                  Index const* __restrict__ cj, T const* __restrict__ cv, T c_iso,
                                  Index const* __restrict__ zp, Index const* __restrict__ zj,
                                  T const* __restrict__ zv, T z_iso, Index const* __restrict__ mp,
                                  Index const* __restrict__ mj, bool comp, bool replace,
                                  Index* __restrict__ op, Index* __restrict__ oj,
                                  T* __restrict__ ov) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::size_t(gridDim.x) * blockDim.x) {
        Index kc = cp[i], kz = zp[i], km = mp[i];
        Index const ec = cp[i + 1], ez = zp[i + 1], em = mp[i + 1];
        Index w = Fill ? op[i] : Index(0);
        while (kc < ec || kz < ez) {
            Index const x = kc < ec ? cj[kc] : Index(-1);
            Index const y = kz < ez ? zj[kz] : Index(-1);
            bool const in_c = kc < ec && (kz >= ez || x <= y);
            bool const in_z = kz < ez && (kc >= ec || y <= x);
            Index const j = in_c ? x : y;
            while (km < em && mj[km] < j) ++km;
            bool const allowed = (km < em && mj[km] == j) != comp;
            bool const from_z = allowed && in_z;
            bool const from_c = !allowed && !replace && in_c;
            if (from_z || from_c) {
                if (Fill) {
                    oj[w] = j;
                    ov[w] = from_z ? value_at(zv, z_iso, kz) : value_at(cv, c_iso, kc);
                }
                ++w;
            }
            kc += in_c;
            kz += in_z;
        }
        if (!Fill) op[i] = w;
    }
}

template <class T, class Index>
csr_matrix<T, Index, device> mask_merge_csr(context& ctx, csr_matrix<T, Index, device> const& c,
                                            csr_matrix<T, Index, device> const& z,
                                            csr_mask<Index> const& mask, bool replace) {
    std::size_t const rows = c.rows();
    unsigned const grid = blocks_for(rows, 128);
    device_stream const st = stream_of(ctx);
    auto launch = [&](auto fill_pass, Index* op, Index* oj, T* ov) {
        mask_merge_kernel<decltype(fill_pass)::value><<<grid, 128, 0, st>>>(
            rows, c.row_ptr(), c.col_idx(), c.values(), c.iso_value(), z.row_ptr(), z.col_idx(),
            z.values(), z.iso_value(), mask.row_ptr(), mask.col_idx(), mask.complemented(),
            replace, op, oj, ov);
    };
    return two_pass_csr<T, Index>(
        st, rows, c.cols(), "mask_merge_kernel",
        [&](Index* op) { launch(std::false_type{}, op, nullptr, nullptr); },
        [&](Index* op, Index* oj, T* ov) { launch(std::true_type{}, op, oj, ov); });
}

}  // namespace detail

template <index_type Index>
template <class M>
csr_mask<Index>::csr_mask(mask_view<csr_matrix<M, Index, device>> m, context& ctx)
    : rows_(m.m->rows()), cols_(m.m->cols()), complemented_(m.complemented), active_(true) {
    auto const& a = *m.m;
    bool const keep_all = m.structural || (a.is_iso() && !(a.iso_value() == M(0)));
    if (keep_all || a.nnz() == 0) {
        ptr_ = a.row_ptr();
        idx_ = a.col_idx();
        nnz_ = a.nnz();
        return;
    }
    detail::device_stream const st = detail::stream_of(ctx);
    Index* const op = detail::allocate_block<Index>(own_ptr_, rows_ + 1, st);
    Index* oj = nullptr;
    detail::fill(op, rows_ + 1, Index(0), st);
    if (!a.is_iso()) {  // an iso zero mask keeps nothing: every count stays 0
        unsigned const grid = detail::blocks_for(rows_, 128);
        if (rows_ > 0) {
            detail::mask_nonzero_kernel<false><<<grid, 128, 0, st>>>(
                rows_, a.row_ptr(), a.col_idx(), a.values(), op, static_cast<Index*>(nullptr));
            KLEENE_CUDA_CHECK_LAUNCH("mask_nonzero_kernel (count)");
        }
        std::size_t const nnz = detail::scan_counts(op, rows_, st);  // read back: the size
        nnz_ = nnz;
        oj = detail::allocate_block<Index>(own_idx_, nnz, st);
        if (nnz > 0) {
            detail::mask_nonzero_kernel<true><<<grid, 128, 0, st>>>(
                rows_, a.row_ptr(), a.col_idx(), a.values(), op, oj);
            KLEENE_CUDA_CHECK_LAUNCH("mask_nonzero_kernel (fill)");
        }
    }
    // Ready when this returns (the size was read back already), for a product on any stream.
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    ptr_ = op;
    idx_ = oj;
}

KLEENE_MASK_VALUE_TYPES(KLEENE_OPS_DECLARE_CSR_MASK)
KLEENE_OPS_TYPES(KLEENE_OPS_MASK_MERGE_INSTANCES)

}  // namespace kleene::cuda

// kronecker on device CSR and dense containers (operations.hpp): C(ia mb + ib, ja nb + jb) =
// op(A(ia, ja), B(ib, jb)) where both entries exist.

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/operations_instances.hpp>

namespace kleene::cuda {

namespace detail {

/// One thread an entry of the dense mb ma x nb na C, the mask, accumulator and replace applied in
/// place (the same combine as ewise_dense).
template <class Op, class Accum, class T>
__global__ void kronecker_dense_kernel(T* __restrict__ c, std::uint8_t const* __restrict__ flags,
                                       bool comp, Accum accum, Op op, T const* __restrict__ a,
                                       std::size_t na, T const* __restrict__ b, std::size_t mb,
                                       std::size_t nb, std::size_t n, T absent, bool replace) {
    std::size_t const cols = na * nb;
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t const r = k / cols, q = k % cols;
        T const x = a[(r / mb) * na + q / nb], y = b[(r % mb) * nb + q % nb];
        bool const has_t = !(x == absent) && !(y == absent);
        T const t = has_t ? T(op.apply(x, y)) : absent;
        c[k] = combine(accum, mask_allows(flags, comp, k), replace, c[k], has_t, t, absent);
    }
}

/// Counts (Fill false) or writes (Fill true) row i = ia mb + ib of C, one thread a row: the
/// entries of row ia of A times those of row ib of B, in that order, so columns come out sorted.
template <bool Fill, class Op, class T, class Index>
__global__ void kronecker_csr_kernel(Op op, std::size_t rows, std::size_t mb, std::size_t nb,
                                     Index const* __restrict__ ap, Index const* __restrict__ aj,
                                     T const* __restrict__ av, T a_iso,
                                     Index const* __restrict__ bp, Index const* __restrict__ bj,
                                     T const* __restrict__ bv, T b_iso, Index* __restrict__ cp,
                                     Index* __restrict__ cj, T* __restrict__ cv) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t const ia = i / mb, ib = i % mb;
        Index const a0 = ap[ia], a1 = ap[ia + 1], b0 = bp[ib], b1 = bp[ib + 1];
        if (!Fill) {
            cp[i] = (a1 - a0) * (b1 - b0);  // fits: the host checked nnz(A) nnz(B)
            continue;
        }
        Index w = cp[i];
        for (Index ka = a0; ka < a1; ++ka) {
            Index const base = aj[ka] * Index(nb);
            T const x = value_at(av, a_iso, ka);
            for (Index kb = b0; kb < b1; ++kb, ++w) {
                cj[w] = base + bj[kb];
                cv[w] = op.apply(x, value_at(bv, b_iso, kb));
            }
        }
    }
}

template <class Op, class Accum, class T>
void kronecker_dense(context& ctx, T* c, dense_mask const& mask, Accum accum, Op op, T const* a,
                     std::size_t ma, std::size_t na, T const* b, std::size_t mb, std::size_t nb,
                     T absent, bool replace) {
    std::size_t const n = ma * mb * na * nb;
    if (n == 0) return;
    device_stream const st = stream_of(ctx);
    kronecker_dense_kernel<<<blocks_for(n, 256), 256, 0, st>>>(
        c, mask_flags(mask, st), mask.complemented(), accum, op, a, na, b, mb, nb,
        n, absent, replace);
    KLEENE_CUDA_CHECK_LAUNCH("kronecker_dense_kernel");
    end_of_call(st);
}

template <class Op, class T, class Index>
csr_matrix<T, Index, device> kronecker_csr(context& ctx, Op op,
                                           csr_matrix<T, Index, device> const& a,
                                           csr_matrix<T, Index, device> const& b) {
    std::size_t const rows = a.rows() * b.rows();
    unsigned const grid = blocks_for(rows, 128);
    device_stream const st = stream_of(ctx);
    auto launch = [&](auto fill_pass, Index* cp, Index* cj, T* cv) {
        kronecker_csr_kernel<decltype(fill_pass)::value><<<grid, 128, 0, st>>>(
            op, rows, b.rows(), b.cols(), a.row_ptr(), a.col_idx(), a.values(), a.iso_value(),
            b.row_ptr(), b.col_idx(), b.values(), b.iso_value(), cp, cj, cv);
    };
    return two_pass_csr<T, Index>(
        st, rows, a.cols() * b.cols(), "kronecker_csr_kernel",
        [&](Index* cp) { launch(std::false_type{}, cp, nullptr, nullptr); },
        [&](Index* cp, Index* cj, T* cv) { launch(std::true_type{}, cp, cj, cv); });
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_OPS_KRONECKER_INSTANCES)

}  // namespace kleene::cuda

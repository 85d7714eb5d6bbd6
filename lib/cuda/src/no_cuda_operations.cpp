// Built instead of lib/cuda/src/operations_*.cu when kleene is configured without CUDA: every
// operation on device containers is a clear error, never a silent CPU fallback.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/detail/operations_instances.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/error.hpp>

namespace kleene::cuda {
using no_cuda::unavailable;

template <index_type Index>
template <class M>
csr_mask<Index>::csr_mask(mask_view<csr_matrix<M, Index, device>>) {
    unavailable();
}

namespace detail {
template <class T, class Index>
csr_matrix<T, Index, device> mask_merge_csr(csr_matrix<T, Index, device> const&,
                                            csr_matrix<T, Index, device> const&,
                                            csr_mask<Index> const&, bool) {
    unavailable();
}
template <bool Union, class Op, class Accum, class T>
void ewise_dense(T*, dense_mask const&, Accum, Op, T const*, T const*, std::size_t, T, bool) {
    unavailable();
}
template <bool Union, class Op, class T, class Index>
csr_matrix<T, Index, device> ewise_csr(Op, csr_matrix<T, Index, device> const&,
                                       csr_matrix<T, Index, device> const&) {
    unavailable();
}
template <class F, class Accum, class T>
void apply_dense(T*, dense_mask const&, Accum, F, T const*, std::size_t, T, bool) {
    unavailable();
}
template <class F, class T, class Index>
csr_matrix<T, Index, device> apply_csr(F, csr_matrix<T, Index, device> const&) {
    unavailable();
}
template <class T, class Index>
csr_matrix<T, Index, device> select_csr(select_spec<T>, csr_matrix<T, Index, device> const&) {
    unavailable();
}
template <class Op, class Accum, class T>
void kronecker_dense(T*, dense_mask const&, Accum, Op, T const*, std::size_t, std::size_t,
                     T const*, std::size_t, std::size_t, T, bool) {
    unavailable();
}
template <class T, class Index>
void csr_to_dense(T*, csr_matrix<T, Index, device> const&, T) {
    unavailable();
}
template <class T, class Index>
csr_matrix<T, Index, device> dense_to_csr(T const*, std::size_t, std::size_t, T) {
    unavailable();
}
template <class T, class Index>
void sparse_to_dense(T*, std::size_t, Index const*, T const*, std::size_t, T) {
    unavailable();
}
template <class Op, class T, class Index>
csr_matrix<T, Index, device> kronecker_csr(Op, csr_matrix<T, Index, device> const&,
                                           csr_matrix<T, Index, device> const&) {
    unavailable();
}
}  // namespace detail

KLEENE_MASK_VALUE_TYPES(KLEENE_OPS_DECLARE_CSR_MASK)
KLEENE_OPS_TYPES(KLEENE_OPS_MASK_MERGE_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_OPS_EWISE_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_OPS_APPLY_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_OPS_SELECT_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_OPS_KRONECKER_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_OPS_CONVERT_INSTANCES)

}  // namespace kleene::cuda

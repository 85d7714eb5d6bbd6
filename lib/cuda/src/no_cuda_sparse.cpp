// Built instead of lib/cuda/src/sparse_*.cu when kleene is configured without CUDA: every sparse
// product on the device is a clear error, never a silent CPU fallback.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/detail/sparse_instances.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/error.hpp>

namespace kleene::cuda {
using no_cuda::unavailable;

template <class M>
vector_mask::vector_mask(mask_view<dense_vector<M, device>>) {
    unavailable();
}
template <class M, class I>
vector_mask::vector_mask(mask_view<sparse_vector<M, I, device>>) {
    unavailable();
}
#define KLEENE_MASK_INSTANCES(M)                                                          \
    template vector_mask::vector_mask(mask_view<dense_vector<M, device>>);                \
    template vector_mask::vector_mask(mask_view<sparse_vector<M, std::int32_t, device>>); \
    template vector_mask::vector_mask(mask_view<sparse_vector<M, std::int64_t, device>>);
KLEENE_MASK_INSTANCES(bool)
KLEENE_MASK_INSTANCES(std::uint8_t)
KLEENE_MASK_INSTANCES(float)
KLEENE_MASK_INSTANCES(double)
KLEENE_MASK_INSTANCES(std::int32_t)
KLEENE_MASK_INSTANCES(std::int64_t)
#undef KLEENE_MASK_INSTANCES

template <semiring_type S, index_type Index>
sparse_backend spmv(dense_vector<typename S::value_type, device>&, vector_mask const&,
                    csr_matrix<typename S::value_type, Index, device> const&,
                    dense_vector<typename S::value_type, device> const&, sparse_options const&) {
    unavailable();
}
template <semiring_type S, index_type Index>
void spmspv(sparse_vector<typename S::value_type, Index, device>&, vector_mask const&,
            sparse_vector<typename S::value_type, Index, device> const&,
            csr_matrix<typename S::value_type, Index, device> const&) {
    unavailable();
}
template <semiring_type S, index_type Index>
sparse_backend spmm(dense_view<typename S::value_type, device>,
                    csr_matrix<typename S::value_type, Index, device> const&,
                    dense_view<typename S::value_type const, device>, sparse_options const&) {
    unavailable();
}
template <semiring_type S, index_type Index>
sparse_backend spgemm(csr_matrix<typename S::value_type, Index, device>&,
                      csr_matrix<typename S::value_type, Index, device> const&,
                      csr_matrix<typename S::value_type, Index, device> const&,
                      sparse_options const&) {
    unavailable();
}

KLEENE_SPARSE_INSTANCES(KLEENE_SPARSE_INSTANTIATE_BOTH_INDEX)

}  // namespace kleene::cuda

// Built instead of lib/cuda/src/sparse_*.cu when kleene is configured without CUDA: every sparse
// product on the device is a clear error, never a silent CPU fallback.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/detail/sparse_instances.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/error.hpp>

namespace kleene::cuda {
using no_cuda::unavailable;


template <semiring_type S, index_type Index>
sparse_backend spmv(dense_vector<typename S::value_type, device>&, vector_mask const&,
                    csr_matrix<typename S::value_type, Index, device> const&,
                    dense_vector<typename S::value_type, device> const&, sparse_options const&) {
    unavailable();
}
template <semiring_type S, index_type Index>
void spmspv(sparse_vector<typename S::value_type, Index, device>&, vector_mask const&,
            sparse_vector<typename S::value_type, Index, device> const&,
            csr_matrix<typename S::value_type, Index, device> const&, context*) {
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

template <semiring_type S, index_type Index>
sparse_backend spgemm_dense(dense_view<typename S::value_type, device>,
                            csr_matrix<typename S::value_type, Index, device> const&,
                            csr_matrix<typename S::value_type, Index, device> const&,
                            sparse_options const&) {
    unavailable();
}
template <index_type Index>
double product_density(Index const*, Index const*, std::size_t, Index const*, std::size_t) {
    unavailable();
}
template double product_density<std::int32_t>(std::int32_t const*, std::int32_t const*,
                                              std::size_t, std::int32_t const*, std::size_t);
template double product_density<std::int64_t>(std::int64_t const*, std::int64_t const*,
                                              std::size_t, std::int64_t const*, std::size_t);

KLEENE_SPARSE_INSTANCES(KLEENE_SPARSE_INSTANTIATE_BOTH_INDEX)

}  // namespace kleene::cuda

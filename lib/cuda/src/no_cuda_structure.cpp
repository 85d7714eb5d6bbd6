// Built instead of lib/cuda/src/operations_{reduce,transpose,extract,assign}.cu when kleene is
// configured without CUDA: every reduce, transpose, extract and assign on device containers is a
// clear error, never a silent CPU fallback.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/detail/structure_instances.hpp>
#include <kleene/error.hpp>

namespace kleene::cuda {
using no_cuda::unavailable;

namespace detail {
template <class Mon, class Accum, class T, class Index>
void reduce_rows_csr(T*, dense_mask const&, Accum, Mon, csr_matrix<T, Index, device> const&, T,
                     bool) {
    unavailable();
}
template <class Mon, class Accum, class T>
void reduce_rows_dense(T*, dense_mask const&, Accum, Mon, T const*, std::size_t, std::size_t, T,
                       bool) {
    unavailable();
}
template <class Mon, class Accum, class T>
void reduce_cols_dense(T*, dense_mask const&, Accum, Mon, T const*, std::size_t, std::size_t, T,
                       bool) {
    unavailable();
}
template <class Mon, class T>
T reduce_values(Mon, T const*, T, std::size_t, T, bool) {
    unavailable();
}
template <class T, class Index>
csr_matrix<T, Index, device> transpose_csr(csr_matrix<T, Index, device> const&) {
    unavailable();
}
template <class Accum, class T>
void transpose_dense(T*, dense_mask const&, Accum, T const*, std::size_t, std::size_t, T, bool) {
    unavailable();
}
template <class T, class Index>
csr_matrix<T, Index, device> extract_csr(csr_matrix<T, Index, device> const&, index_spec,
                                         index_spec, std::int64_t const*, std::int64_t const*) {
    unavailable();
}
template <class Accum, class T, class Index>
void extract_csr_column(T*, dense_mask const&, Accum, csr_matrix<T, Index, device> const&,
                        index_spec, std::size_t, bool, T, bool) {
    unavailable();
}
template <class Accum, class T>
void extract_dense(T*, dense_mask const&, Accum, T const*, std::size_t, index_spec, index_spec, T,
                   bool) {
    unavailable();
}
template <class Accum, class T>
void assign_dense(T*, std::size_t, std::size_t, dense_mask const&, Accum, T const*, T,
                  std::int64_t const*, std::int64_t const*, std::size_t, T, bool) {
    unavailable();
}
template <class Accum, class T, class Index>
csr_matrix<T, Index, device> assign_csr(csr_matrix<T, Index, device> const&, Accum,
                                        csr_matrix<T, Index, device> const*, T, index_spec,
                                        std::int64_t const*, std::int64_t const*,
                                        std::int64_t const*) {
    unavailable();
}
}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_STRUCT_REDUCE_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_STRUCT_TRANSPOSE_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_STRUCT_EXTRACT_INSTANCES)
KLEENE_OPS_TYPES(KLEENE_STRUCT_ASSIGN_INSTANCES)

}  // namespace kleene::cuda

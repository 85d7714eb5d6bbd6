#pragma once
// How lib/backend/cuda's sparse products (sparse.hpp) are instantiated, declared extern, and
// specialised to throw for the registry's pairs this build leaves out. Which pairs:
// KLEENE_SPARSE_INSTANCES and KLEENE_SPARSE_MISSING of the generated kleene/instance_lists.hpp (cmake/instances.cmake), as
// X(semiring template, T, Index, "semiring", "type", "index type").

#include <kleene/instance_lists.hpp>
#include <kleene/semiring.hpp>

#include <type_traits>

/// D(A, function, return type, (parameters), S, T, Index) for the products of (S<T>, Index),
/// A passed through.
#define KLEENE_SPARSE_PRODUCTS(D, A, S, T, Index)                                               \
    D(A, spmv, sparse_backend,                                                                  \
      (dense_vector<T, device>&, vector_mask const&, csr_matrix<T, Index, device> const&,       \
       dense_vector<T, device> const&, sparse_options const&),                                  \
      S, T, Index)                                                                              \
    D(A, spmspv, void,                                                                          \
      (sparse_vector<T, Index, device>&, vector_mask const&,                                    \
       sparse_vector<T, Index, device> const&, csr_matrix<T, Index, device> const&, context*),  \
      S, T, Index)                                                                              \
    D(A, spmm, sparse_backend,                                                                  \
      (dense_view<T, device>, csr_matrix<T, Index, device> const&, dense_view<T const, device>, \
       sparse_options const&),                                                                  \
      S, T, Index)                                                                              \
    D(A, spgemm, sparse_backend,                                                                \
      (csr_matrix<T, Index, device>&, csr_matrix<T, Index, device> const&,                      \
       csr_matrix<T, Index, device> const&, sparse_options const&),                             \
      S, T, Index)                                                                              \
    D(A, spgemm_dense, sparse_backend,                                                          \
      (dense_view<T, device>, csr_matrix<T, Index, device> const&,                              \
       csr_matrix<T, Index, device> const&, sparse_options const&),                             \
      S, T, Index)                                                                              \
    D(A, masked_dot, void,                                                                      \
      (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                                   \
       csr_matrix<T, Index, device> const&, csr_matrix<T, Index, device> const&,                \
       sparse_options const&),                                                                  \
      S, T, Index)                                                                              \
    D(A, masked_saxpy, void,                                                                    \
      (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                                   \
       csr_matrix<T, Index, device> const&, csr_matrix<T, Index, device> const&,                \
       sparse_options const&),                                                                  \
      S, T, Index)                                                                              \
    D(A, masked_spmm, void,                                                                     \
      (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                                   \
       csr_matrix<T, Index, device> const&, dense_view<T const, device>,                        \
       sparse_options const&),                                                                  \
      S, T, Index)                                                                              \
    D(A, masked_gemm, void,                                                                     \
      (csr_matrix<T, Index, device>&, csr_mask<Index> const&, dense_view<T const, device>,      \
       dense_view<T const, device>, sparse_options const&),                                     \
      S, T, Index)                                                                              \
    D(A, masked_dot_dense, void,                                                                \
      (csr_matrix<T, Index, device>&, csr_mask<Index> const&, dense_view<T const, device>,      \
       csr_matrix<T, Index, device> const&, sparse_options const&),                             \
      S, T, Index)

#define KLEENE_SPARSE_DEFINITION(A, f, R, params, S, T, Index) template R f<S<T>, Index> params;
#define KLEENE_SPARSE_DECLARATION(A, f, R, params, S, T, Index) A R f<S<T>, Index> params;
/// The explicit instances of one pair (the generated lib/backend/cuda instance files).
#define KLEENE_SPARSE_INSTANTIATE(S, T, Index) \
    KLEENE_SPARSE_PRODUCTS(KLEENE_SPARSE_DEFINITION, , S, T, Index)
/// Their extern declarations (sparse.cuh: nvcc code that includes the templates uses the
/// library's).
#define KLEENE_SPARSE_EXTERN(S, T, Index, ...) \
    KLEENE_SPARSE_PRODUCTS(KLEENE_SPARSE_DECLARATION, extern template, S, T, Index)
/// A left-out pair: specialisations declared in sparse.hpp, defined in
/// lib/backend/cuda/src/missing.cpp (spmv and spgemm through the JIT, the others throw
/// kleene::missing_instance).
#define KLEENE_SPARSE_MISSING_DECLARATION(S, T, Index, ...) \
    KLEENE_SPARSE_PRODUCTS(KLEENE_SPARSE_DECLARATION, template <>, S, T, Index)

namespace kleene::cuda {
#define KLEENE_SPARSE_IS_LEFT_OUT(S_, T_, Index_, ...) \
    || (std::is_same_v<S, S_<T_>> && std::is_same_v<I, Index_>)
/// Whether (S, I) is a registry pair this build leaves out (its products throw, or run through
/// the JIT): mxm then keeps to the products the JIT serves.
template <class S, class I>
inline constexpr bool sparse_left_out = false KLEENE_SPARSE_MISSING(KLEENE_SPARSE_IS_LEFT_OUT);
#undef KLEENE_SPARSE_IS_LEFT_OUT
}  // namespace kleene::cuda

#pragma once
// How lib/backend/cuda's dense GEMM (dense_gemm.hpp) is instantiated, declared extern, and
// specialised to throw for the registry's pairs this build leaves out. Which pairs:
// KLEENE_GEMM_INSTANCES and KLEENE_GEMM_MISSING of the generated kleene/instance_lists.hpp (cmake/instances.cmake), as
// X(semiring template, T, "semiring", "type"). Over bool and uint8, lor_land (explicit
// specialisations, dense_gemm.hpp) and any_pair are built by bit_matrix.cu and are not listed.

#include <kleene/instance_lists.hpp>

/// D(A, (parameters), S, T) for the four forms of dense_gemm<S<T>>, A passed through.
#define KLEENE_GEMM_FORMS(D, A, S, T)                                                             \
    D(A, (dense_view<T const, device>, dense_view<T const, device>, dense_view<T, device>, bool), \
      S, T)                                                                                       \
    D(A,                                                                                          \
      (dense_view<T const, device>, dense_view<T const, device>, dense_view<T, device>, bool,     \
       stream const&, context*),                                                                  \
      S, T)                                                                                       \
    D(A,                                                                                          \
      (dense_view<T const, device>, dense_view<T const, device>, dense_view<T, device>, bool,     \
       context&),                                                                                 \
      S, T)                                                                                       \
    D(A,                                                                                          \
      (dense_view<T const, device>, dense_view<T const, device>, dense_view<T, device>,           \
       dense_mask const&, context&),                                                              \
      S, T)

#define KLEENE_GEMM_DEFINITION(A, params, S, T) template void dense_gemm<S<T>> params;
#define KLEENE_GEMM_DECLARATION(A, params, S, T) A void dense_gemm<S<T>> params;
/// The explicit instances of one pair (the generated lib/backend/cuda instance files).
#define KLEENE_GEMM_INSTANTIATE(S, T) KLEENE_GEMM_FORMS(KLEENE_GEMM_DEFINITION, , S, T)
/// Their extern declarations (dense_gemm.cuh: nvcc code that includes the template, such as
/// out_of_core.cu, uses the library's).
#define KLEENE_GEMM_EXTERN(S, T, ...) \
    KLEENE_GEMM_FORMS(KLEENE_GEMM_DECLARATION, extern template, S, T)
/// A left-out pair: specialisations declared in dense_gemm.hpp, defined in
/// lib/backend/cuda/src/missing.cpp (through the JIT; the stream form throws
/// kleene::missing_instance).
#define KLEENE_GEMM_MISSING_DECLARATION(S, T, ...) \
    KLEENE_GEMM_FORMS(KLEENE_GEMM_DECLARATION, template <>, S, T)

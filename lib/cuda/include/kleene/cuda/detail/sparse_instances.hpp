#pragma once
// The semiring x type pairs for which lib/cuda instantiates the sparse products (sparse.hpp).
// X(semiring template, value type); each pair for both index types.

#include <cstdint>

#define KLEENE_SPARSE_NUMERIC_SEMIRINGS(X, T) \
    X(plus_times, T)                          \
    X(min_plus, T) X(max_plus, T) X(plus_pair, T) X(any_pair, T) X(min_first, T) X(min_second, T)

#define KLEENE_SPARSE_BOOL_SEMIRINGS(X) X(lor_land, bool) X(any_pair, bool)

#define KLEENE_SPARSE_INSTANCES(X)                   \
    KLEENE_SPARSE_NUMERIC_SEMIRINGS(X, float)        \
    KLEENE_SPARSE_NUMERIC_SEMIRINGS(X, double)       \
    KLEENE_SPARSE_NUMERIC_SEMIRINGS(X, std::int32_t) \
    KLEENE_SPARSE_NUMERIC_SEMIRINGS(X, std::int64_t) \
    KLEENE_SPARSE_BOOL_SEMIRINGS(X)

/// X(semiring template, T, Index) for the five sparse products of one (semiring, T) pair.
#define KLEENE_SPARSE_DECLARE_PRODUCTS(S, T, Index)                                                \
    template sparse_backend spmv<S<T>, Index>(                                                     \
        dense_vector<T, device>&, vector_mask const&, csr_matrix<T, Index, device> const&,         \
        dense_vector<T, device> const&, sparse_options const&);                                    \
    template void spmspv<S<T>, Index>(sparse_vector<T, Index, device>&, vector_mask const&,        \
                                      sparse_vector<T, Index, device> const&,                      \
                                      csr_matrix<T, Index, device> const&, context*);              \
    template sparse_backend spmm<S<T>, Index>(dense_view<T, device>,                               \
                                              csr_matrix<T, Index, device> const&,                 \
                                              dense_view<T const, device>, sparse_options const&); \
    template sparse_backend spgemm<S<T>, Index>(                                                   \
        csr_matrix<T, Index, device>&, csr_matrix<T, Index, device> const&,                        \
        csr_matrix<T, Index, device> const&, sparse_options const&);                               \
    template sparse_backend spgemm_dense<S<T>, Index>(                                             \
        dense_view<T, device>, csr_matrix<T, Index, device> const&,                                \
        csr_matrix<T, Index, device> const&, sparse_options const&);

#define KLEENE_SPARSE_INSTANTIATE_BOTH_INDEX(S, T)     \
    KLEENE_SPARSE_DECLARE_PRODUCTS(S, T, std::int32_t) \
    KLEENE_SPARSE_DECLARE_PRODUCTS(S, T, std::int64_t)

#pragma once
// The monoid x accumulator x type sets for which lib/backend/cuda instantiates detail/structure.hpp
// (operations_reduce.cu, _transpose.cu, _extract.cu, _assign.cu). Value types and accumulators are
// those of operations_instances.hpp: KLEENE_OPS_ACCUMS for the dense kernels and the CSR column extract, KLEENE_OPS_CSR_ACCUMS for the CSR assign (whose
// kernel applies the accumulator itself; the other CSR forms accumulate through ewise_csr).

#include <kleene/cuda/detail/operations_instances.hpp>
#include <kleene/cuda/detail/structure.hpp>

#include <cstdint>

/// Monoids of reduce: X(A, T, monoid type), A passed through.
#define KLEENE_STRUCT_MONOIDS(X, A, T) \
    X(A, T, plus_monoid<T>) X(A, T, times_monoid<T>) X(A, T, min_monoid<T>) X(A, T, max_monoid<T>)

#define KLEENE_STRUCT_DECLARE_REDUCE_ROWS(Accum, T, Mon)                                          \
    template void detail::reduce_rows_csr<Mon, Accum, T, std::int32_t>(                           \
        context&, T*, dense_mask const&, Accum, Mon, csr_matrix<T, std::int32_t, device> const&,  \
        T, bool);                                                                                 \
    template void detail::reduce_rows_csr<Mon, Accum, T, std::int64_t>(                           \
        context&, T*, dense_mask const&, Accum, Mon, csr_matrix<T, std::int64_t, device> const&,  \
        T, bool);                                                                                 \
    template void detail::reduce_rows_dense<Mon, Accum, T>(                                       \
        context&, T*, dense_mask const&, Accum, Mon, T const*, std::size_t, std::size_t, T, bool); \
    template void detail::reduce_cols_dense<Mon, Accum, T>(                                       \
        context&, T*, dense_mask const&, Accum, Mon, T const*, std::size_t, std::size_t, T, bool);

#define KLEENE_STRUCT_DECLARE_REDUCE_VALUES(Unused, T, Mon) \
    template T detail::reduce_values<Mon, T>(context&, Mon, T const*, T, std::size_t, T, bool);

#define KLEENE_STRUCT_REDUCE_ACCUM(Accum, T) \
    KLEENE_STRUCT_MONOIDS(KLEENE_STRUCT_DECLARE_REDUCE_ROWS, Accum, T)
#define KLEENE_STRUCT_REDUCE_INSTANCES(T)                  \
    KLEENE_OPS_ACCUMS(KLEENE_STRUCT_REDUCE_ACCUM, T)       \
    KLEENE_STRUCT_MONOIDS(KLEENE_STRUCT_DECLARE_REDUCE_VALUES, void, T)

#define KLEENE_STRUCT_DECLARE_TRANSPOSE_DENSE(Accum, T)                                           \
    template void detail::transpose_dense<Accum, T>(context&, T*, dense_mask const&, Accum,       \
                                                    T const*, std::size_t, std::size_t, T, bool);
#define KLEENE_STRUCT_TRANSPOSE_INSTANCES(T)                                                      \
    template csr_matrix<T, std::int32_t, device> detail::transpose_csr<T, std::int32_t>(          \
        context&, csr_matrix<T, std::int32_t, device> const&);                                    \
    template csr_matrix<T, std::int64_t, device> detail::transpose_csr<T, std::int64_t>(          \
        context&, csr_matrix<T, std::int64_t, device> const&);                                    \
    KLEENE_OPS_ACCUMS(KLEENE_STRUCT_DECLARE_TRANSPOSE_DENSE, T)

#define KLEENE_STRUCT_DECLARE_EXTRACT_DENSE(Accum, T)                                             \
    template void detail::extract_dense<Accum, T>(context&, T*, dense_mask const&, Accum,         \
                                                  T const*, std::size_t, index_spec, index_spec,  \
                                                  T, bool);
#define KLEENE_STRUCT_DECLARE_EXTRACT_COLUMN_INDEX(Accum, T, Index)                               \
    template void detail::extract_csr_column<Accum, T, Index>(                                    \
        context&, T*, dense_mask const&, Accum, csr_matrix<T, Index, device> const&, index_spec,  \
        std::size_t, bool, T, bool);
#define KLEENE_STRUCT_DECLARE_EXTRACT_COLUMN(Accum, T)                 \
    KLEENE_STRUCT_DECLARE_EXTRACT_COLUMN_INDEX(Accum, T, std::int32_t) \
    KLEENE_STRUCT_DECLARE_EXTRACT_COLUMN_INDEX(Accum, T, std::int64_t)
#define KLEENE_STRUCT_EXTRACT_INSTANCES(T)                                                        \
    template csr_matrix<T, std::int32_t, device> detail::extract_csr<T, std::int32_t>(            \
        context&, csr_matrix<T, std::int32_t, device> const&, index_spec, index_spec,             \
        std::int64_t const*, std::int64_t const*);                                                \
    template csr_matrix<T, std::int64_t, device> detail::extract_csr<T, std::int64_t>(            \
        context&, csr_matrix<T, std::int64_t, device> const&, index_spec, index_spec,             \
        std::int64_t const*, std::int64_t const*);                                                \
    KLEENE_OPS_ACCUMS(KLEENE_STRUCT_DECLARE_EXTRACT_DENSE, T)                                     \
    KLEENE_OPS_ACCUMS(KLEENE_STRUCT_DECLARE_EXTRACT_COLUMN, T)

#define KLEENE_STRUCT_DECLARE_ASSIGN_DENSE(Accum, T)                                              \
    template void detail::assign_dense<Accum, T>(context&, T*, std::size_t, std::size_t,          \
                                                 dense_mask const&, Accum, T const*, T,           \
                                                 std::int64_t const*, std::int64_t const*,        \
                                                 std::size_t, T, bool);
#define KLEENE_STRUCT_DECLARE_ASSIGN_CSR_INDEX(Accum, T, Index)                                 \
    template csr_matrix<T, Index, device> detail::assign_csr<Accum, T, Index>(                    \
        context&, csr_matrix<T, Index, device> const&, Accum, csr_matrix<T, Index, device> const*, \
        T, index_spec, std::int64_t const*, std::int64_t const*, std::int64_t const*);
#define KLEENE_STRUCT_DECLARE_ASSIGN_CSR(Accum, T)                     \
    KLEENE_STRUCT_DECLARE_ASSIGN_CSR_INDEX(Accum, T, std::int32_t)     \
    KLEENE_STRUCT_DECLARE_ASSIGN_CSR_INDEX(Accum, T, std::int64_t)
#define KLEENE_STRUCT_ASSIGN_INSTANCES(T)                     \
    KLEENE_OPS_ACCUMS(KLEENE_STRUCT_DECLARE_ASSIGN_DENSE, T) \
    KLEENE_OPS_CSR_ACCUMS(KLEENE_STRUCT_DECLARE_ASSIGN_CSR, T)

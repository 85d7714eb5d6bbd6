#pragma once
// The operator x type sets for which lib/backend/cuda instantiates operations.hpp
// (operations_*.cu). X(...) macros, one list per family; the value types are the registry's
// (KLEENE_OPS_TYPES of the generated kleene/instance_lists.hpp, cmake/instances.cmake).

#include <kleene/context.hpp>
#include <kleene/instance_lists.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>

#include <cstdint>

/// Binary operators of ewise_add / ewise_mult: X(A, T, op template), A passed through.
#define KLEENE_OPS_EWISE_OPS(X, A, T)                                                  \
    X(A, T, plus_op) X(A, T, times_op) X(A, T, min_op) X(A, T, max_op) X(A, T, first_op) \
    X(A, T, second_op)

/// Accumulators of the dense forms: X(accumulator type, T).
#define KLEENE_OPS_ACCUMS(X, T) X(no_accum_t, T) X(plus_op<T>, T) X(min_op<T>, T)

/// Accumulators of a CSR kernel that applies them itself: none or any ewise op, as the CSR forms
/// that accumulate through ewise_csr (write_back_csr) have. X(accumulator type, T).
#define KLEENE_OPS_ACCUM_OF_OP(X, T, Op) X(Op<T>, T)
#define KLEENE_OPS_CSR_ACCUMS(X, T) \
    X(no_accum_t, T) KLEENE_OPS_EWISE_OPS(KLEENE_OPS_ACCUM_OF_OP, X, T)

/// Apply operators: X(A, T, operator type), A passed through.
#define KLEENE_OPS_APPLY_OPS(X, A, T)                                                    \
    X(A, T, identity_op<T>) X(A, T, ainv_op<T>) X(A, T, abs_op<T>) X(A, T, one_op<T>)    \
    X(A, T, minv_op<T>) X(A, T, bound_second<plus_op<T>>) X(A, T, bound_second<times_op<T>>) \
    X(A, T, bound_second<min_op<T>>) X(A, T, bound_second<max_op<T>>)

#define KLEENE_OPS_DECLARE_EWISE_DENSE(Accum, T, Op)                                            \
    template void detail::ewise_dense<true, Op<T>, Accum, T>(                                     \
        context&, T*, dense_mask const&, Accum, Op<T>, T const*, T const*, std::size_t, T, bool); \
    template void detail::ewise_dense<false, Op<T>, Accum, T>(                                    \
        context&, T*, dense_mask const&, Accum, Op<T>, T const*, T const*, std::size_t, T, bool);

#define KLEENE_OPS_DECLARE_EWISE_CSR(Unused, T, Op)                                               \
    template csr_matrix<T, std::int32_t, device> detail::ewise_csr<true, Op<T>, T, std::int32_t>( \
        context&, Op<T>, csr_matrix<T, std::int32_t, device> const&,                      \
        csr_matrix<T, std::int32_t, device> const&);                                      \
    template csr_matrix<T, std::int32_t, device> detail::ewise_csr<false, Op<T>, T, std::int32_t>( \
        context&, Op<T>, csr_matrix<T, std::int32_t, device> const&,                      \
        csr_matrix<T, std::int32_t, device> const&);                                      \
    template csr_matrix<T, std::int64_t, device> detail::ewise_csr<true, Op<T>, T, std::int64_t>( \
        context&, Op<T>, csr_matrix<T, std::int64_t, device> const&,                      \
        csr_matrix<T, std::int64_t, device> const&);                                      \
    template csr_matrix<T, std::int64_t, device> detail::ewise_csr<false, Op<T>, T, std::int64_t>( \
        context&, Op<T>, csr_matrix<T, std::int64_t, device> const&,                      \
        csr_matrix<T, std::int64_t, device> const&);

#define KLEENE_OPS_DECLARE_APPLY_DENSE(Accum, T, F)                                        \
    template void detail::apply_dense<F, Accum, T>(context&, T*, dense_mask const&, Accum, F, \
                                                   T const*, std::size_t, T, bool);

#define KLEENE_OPS_DECLARE_APPLY_CSR(Unused, T, F)                                                      \
    template csr_matrix<T, std::int32_t, device> detail::apply_csr<F, T, std::int32_t>(         \
        context&, F, csr_matrix<T, std::int32_t, device> const&);                               \
    template csr_matrix<T, std::int64_t, device> detail::apply_csr<F, T, std::int64_t>(         \
        context&, F, csr_matrix<T, std::int64_t, device> const&);

#define KLEENE_OPS_DECLARE_CSR_MASK(M)                                                    \
    template csr_mask<std::int32_t>::csr_mask(mask_view<csr_matrix<M, std::int32_t, device>>, \
                                              context&);                                      \
    template csr_mask<std::int64_t>::csr_mask(mask_view<csr_matrix<M, std::int64_t, device>>, \
                                              context&);

#define KLEENE_OPS_MASK_MERGE_INSTANCES(T)                                                       \
    template csr_matrix<T, std::int32_t, device> detail::mask_merge_csr<T, std::int32_t>(        \
        context&, csr_matrix<T, std::int32_t, device> const&,                                  \
        csr_matrix<T, std::int32_t, device> const&, csr_mask<std::int32_t> const&, bool);      \
    template csr_matrix<T, std::int64_t, device> detail::mask_merge_csr<T, std::int64_t>(        \
        context&, csr_matrix<T, std::int64_t, device> const&,                                  \
        csr_matrix<T, std::int64_t, device> const&, csr_mask<std::int64_t> const&, bool);

/// Everything of one value type T (ewise and apply, dense and CSR).
#define KLEENE_OPS_EWISE_DENSE_ACCUM(Accum, T) \
    KLEENE_OPS_EWISE_OPS(KLEENE_OPS_DECLARE_EWISE_DENSE, Accum, T)
#define KLEENE_OPS_APPLY_DENSE_ACCUM(Accum, T) \
    KLEENE_OPS_APPLY_OPS(KLEENE_OPS_DECLARE_APPLY_DENSE, Accum, T)
#define KLEENE_OPS_EWISE_INSTANCES(T)                          \
    KLEENE_OPS_ACCUMS(KLEENE_OPS_EWISE_DENSE_ACCUM, T)         \
    KLEENE_OPS_EWISE_OPS(KLEENE_OPS_DECLARE_EWISE_CSR, void, T)
#define KLEENE_OPS_APPLY_INSTANCES(T)                          \
    KLEENE_OPS_ACCUMS(KLEENE_OPS_APPLY_DENSE_ACCUM, T)         \
    KLEENE_OPS_APPLY_OPS(KLEENE_OPS_DECLARE_APPLY_CSR, void, T)

#define KLEENE_OPS_SELECT_INSTANCES(T)                                                         \
    template csr_matrix<T, std::int32_t, device> detail::select_csr<T, std::int32_t>(            \
        context&, detail::select_spec<T>, csr_matrix<T, std::int32_t, device> const&);           \
    template csr_matrix<T, std::int64_t, device> detail::select_csr<T, std::int64_t>(            \
        context&, detail::select_spec<T>, csr_matrix<T, std::int64_t, device> const&);

/// kronecker (operations_kronecker.cu): the ewise operators, dense with the dense accumulators.
#define KLEENE_OPS_DECLARE_KRONECKER_DENSE(Accum, T, Op)                                       \
    template void detail::kronecker_dense<Op<T>, Accum, T>(                                    \
        context&, T*, dense_mask const&, Accum, Op<T>, T const*, std::size_t, std::size_t,       \
        T const*, std::size_t, std::size_t, T, bool);
#define KLEENE_OPS_DECLARE_KRONECKER_CSR(Unused, T, Op)                                           \
    template csr_matrix<T, std::int32_t, device> detail::kronecker_csr<Op<T>, T, std::int32_t>(   \
        context&, Op<T>, csr_matrix<T, std::int32_t, device> const&,                               \
        csr_matrix<T, std::int32_t, device> const&);                                               \
    template csr_matrix<T, std::int64_t, device> detail::kronecker_csr<Op<T>, T, std::int64_t>(   \
        context&, Op<T>, csr_matrix<T, std::int64_t, device> const&,                               \
        csr_matrix<T, std::int64_t, device> const&);
#define KLEENE_OPS_KRONECKER_DENSE_ACCUM(Accum, T) \
    KLEENE_OPS_EWISE_OPS(KLEENE_OPS_DECLARE_KRONECKER_DENSE, Accum, T)
#define KLEENE_OPS_KRONECKER_INSTANCES(T)                     \
    KLEENE_OPS_ACCUMS(KLEENE_OPS_KRONECKER_DENSE_ACCUM, T)    \
    KLEENE_OPS_EWISE_OPS(KLEENE_OPS_DECLARE_KRONECKER_CSR, void, T)

/// Dense <-> sparse conversions (operations_convert.cu), for both index types.
#define KLEENE_OPS_DECLARE_CONVERT(T, Index)                                                 \
    template void detail::csr_to_dense<T, Index>(context&, T*,                              \
                                                 csr_matrix<T, Index, device> const&, T);    \
    template csr_matrix<T, Index, device> detail::dense_to_csr<T, Index>(                   \
        context&, T const*, std::size_t, std::size_t, T);                                   \
    template void detail::sparse_to_dense<T, Index>(context&, T*, std::size_t, Index const*, \
                                                    T const*, std::size_t, T);
#define KLEENE_OPS_CONVERT_INSTANCES(T)                \
    KLEENE_OPS_DECLARE_CONVERT(T, std::int32_t)        \
    KLEENE_OPS_DECLARE_CONVERT(T, std::int64_t)

#pragma once
// Conversions between dense and sparse storage. A dense object has no "absent" marker, so every
// conversion names the value that stands for an absent entry: a semiring (its zero) or a value.

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <vector>

namespace kleene {

/// Dense copy of a CSR matrix; entries it does not store hold `absent`.
template <class T, index_type Index>
dense_matrix<T> to_dense(csr_matrix<T, Index> const& a, T absent) {
    dense_matrix<T> d(a.rows(), a.cols(), absent);
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) d(i, a.col_idx()[k]) = a.value(k);
    return d;
}
template <semiring_type S, class T, index_type Index>
dense_matrix<T> to_dense(csr_matrix<T, Index> const& a) {
    return to_dense(a, T(S::zero()));
}

/// CSR copy of a dense view, storing every entry that differs from `absent`.
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> to_csr(dense_view<T const> d, T absent) {
    buffer<Index> ptr(d.rows + 1);
    ptr[0] = 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < d.rows; ++i) {
        for (std::size_t j = 0; j < d.cols; ++j) n += !(d(i, j) == absent);
        ptr[i + 1] = static_cast<Index>(n);
    }
    buffer<Index> cols(n);
    buffer<T> vals(n);
    std::size_t w = 0;
    for (std::size_t i = 0; i < d.rows; ++i)
        for (std::size_t j = 0; j < d.cols; ++j)
            if (!(d(i, j) == absent)) {
                cols[w] = static_cast<Index>(j);
                vals[w++] = d(i, j);
            }
    return {d.rows, d.cols, std::move(ptr), std::move(cols), std::move(vals), T(1), true};
}
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> to_csr(dense_matrix<T> const& d, T absent) {
    return to_csr<T, Index>(d.view(), absent);
}
template <semiring_type S, class T, index_type Index = std::int32_t>
csr_matrix<T, Index> to_csr(dense_matrix<T> const& d) {
    return to_csr<T, Index>(d.view(), T(S::zero()));
}

template <class T, index_type Index>
dense_vector<T> to_dense(sparse_vector<T, Index> const& v, T absent) {
    dense_vector<T> d(v.size(), absent);
    for (std::size_t k = 0; k < v.nnz(); ++k) d[v.indices()[k]] = v.values()[k];
    return d;
}
template <semiring_type S, class T, index_type Index>
dense_vector<T> to_dense(sparse_vector<T, Index> const& v) {
    return to_dense(v, T(S::zero()));
}

template <class T, index_type Index = std::int32_t>
sparse_vector<T, Index> to_sparse(dense_vector<T> const& d, T absent) {
    std::size_t n = 0;
    for (T const& x : d) n += !(x == absent);
    buffer<Index> idx(n);
    buffer<T> vals(n);
    std::size_t w = 0;
    for (std::size_t i = 0; i < d.size(); ++i)
        if (!(d[i] == absent)) {
            idx[w] = static_cast<Index>(i);
            vals[w++] = d[i];
        }
    return {d.size(), std::move(idx), std::move(vals)};
}
template <semiring_type S, class T, index_type Index = std::int32_t>
sparse_vector<T, Index> to_sparse(dense_vector<T> const& d) {
    return to_sparse<T, Index>(d, T(S::zero()));
}

// ---- on device containers (CUDA kernels; no_device in a build without CUDA) -----------------------
// On the stream of ctx (null: default_context()), finished when they return.

/// Dense device copy of a device CSR matrix; entries it does not store hold `absent`.
template <class T, index_type Index>
dense_matrix<T, device> to_dense(csr_matrix<T, Index, device> const& a, T absent,
                                 context* ctx = nullptr) {
    dense_matrix<T, device> d(a.rows(), a.cols());
    cuda::detail::csr_to_dense(resolve(ctx), d.data(), a, absent);
    return d;
}
template <semiring_type S, class T, index_type Index>
dense_matrix<T, device> to_dense(csr_matrix<T, Index, device> const& a, context* ctx = nullptr) {
    return to_dense(a, T(S::zero()), ctx);
}

/// Device CSR copy of a dense device matrix, storing every entry that differs from `absent`
/// (overflow_error when they do not fit Index).
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index, device> to_csr(dense_matrix<T, device> const& d, T absent,
                                    context* ctx = nullptr) {
    return cuda::detail::dense_to_csr<T, Index>(resolve(ctx), d.data(), d.rows(), d.cols(),
                                                absent);
}
template <semiring_type S, class T, index_type Index = std::int32_t>
csr_matrix<T, Index, device> to_csr(dense_matrix<T, device> const& d, context* ctx = nullptr) {
    return to_csr<T, Index>(d, T(S::zero()), ctx);
}

/// Dense device copy of a device sparse vector; entries it does not store hold `absent`.
template <class T, index_type Index>
dense_vector<T, device> to_dense(sparse_vector<T, Index, device> const& v, T absent,
                                 context* ctx = nullptr) {
    dense_vector<T, device> d(v.size());
    cuda::detail::sparse_to_dense(resolve(ctx), d.data(), v.size(), v.indices(), v.values(),
                                  v.nnz(), absent);
    return d;
}
template <semiring_type S, class T, index_type Index>
dense_vector<T, device> to_dense(sparse_vector<T, Index, device> const& v,
                                 context* ctx = nullptr) {
    return to_dense(v, T(S::zero()), ctx);
}

}  // namespace kleene

#pragma once
// Owning handles for GrB_Matrix / GrB_Vector and conversions between them and kleene containers.
// GraphBLAS has "no value" where kleene's dense objects hold a stand-in, so every conversion of a
// dense object names its absent value (usually the semiring's zero); CSR and sparse vectors
// convert entry for entry. Dense objects go to GraphBLAS as full matrices when no entry is absent
// (so GraphBLAS runs its dense kernels), as bitmaps otherwise.

#include <cstddef>
#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/graphblas/c_api.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/traits.hpp>
#include <kleene/vector.hpp>
#include <utility>

namespace kleene::graphblas {

/// An owned GrB_Matrix (freed on destruction; move-only).
class matrix {
  public:
    matrix() = default;
    /// An empty rows x cols matrix of GraphBLAS type `type`.
    matrix(GrB_Type type, std::size_t rows, std::size_t cols);
    /// Takes ownership of `m`.
    explicit matrix(GrB_Matrix m) noexcept : m_(m) {}
    matrix(matrix&& o) noexcept : m_(std::exchange(o.m_, nullptr)) {}
    matrix& operator=(matrix&& o) noexcept {
        std::swap(m_, o.m_);
        return *this;
    }
    matrix(matrix const&) = delete;
    matrix& operator=(matrix const&) = delete;
    ~matrix();

    GrB_Matrix get() const noexcept { return m_; }
    std::size_t rows() const;
    std::size_t cols() const;
    std::size_t nvals() const;
    /// Finishes pending work (GrB_wait with GrB_MATERIALIZE).
    void wait() const;

  private:
    GrB_Matrix m_ = nullptr;
};

/// An owned GrB_Vector (freed on destruction; move-only).
class vector {
  public:
    vector() = default;
    vector(GrB_Type type, std::size_t n);
    explicit vector(GrB_Vector v) noexcept : v_(v) {}
    vector(vector&& o) noexcept : v_(std::exchange(o.v_, nullptr)) {}
    vector& operator=(vector&& o) noexcept {
        std::swap(v_, o.v_);
        return *this;
    }
    vector(vector const&) = delete;
    vector& operator=(vector const&) = delete;
    ~vector();

    GrB_Vector get() const noexcept { return v_; }
    std::size_t size() const;
    std::size_t nvals() const;
    void wait() const;

  private:
    GrB_Vector v_ = nullptr;
};

// ---- kleene -> GraphBLAS ------------------------------------------------------------------------

/// Every stored entry of `a` (iso matrices stay iso).
template <class T, index_type Index>
matrix to_grb(csr_matrix<T, Index> const& a);
/// The entries of `a` that differ from `absent`.
template <class T>
matrix to_grb(dense_matrix<T> const& a, T absent);
/// Every entry of `a` (a full matrix): what a dense mask means, where every entry is stored.
template <class T>
matrix to_grb_full(dense_matrix<T> const& a);

template <class T, index_type Index>
vector to_grb(sparse_vector<T, Index> const& v);
template <class T>
vector to_grb(dense_vector<T> const& v, T absent);
template <class T>
vector to_grb_full(dense_vector<T> const& v);

/// CSR and sparse vectors ignore `absent`: one spelling for any container.
template <class T, index_type Index>
matrix to_grb(csr_matrix<T, Index> const& a, T) {
    return to_grb(a);
}
template <class T, index_type Index>
vector to_grb(sparse_vector<T, Index> const& v, T) {
    return to_grb(v);
}

// ---- GraphBLAS -> kleene ------------------------------------------------------------------------
// The GraphBLAS object's type must be grb_type<T>() (checked).

template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> csr_from_grb(GrB_Matrix m);
/// Entries GraphBLAS does not store become `absent`.
template <class T>
dense_matrix<T> dense_from_grb(GrB_Matrix m, T absent);
template <class T, index_type Index = std::int32_t>
sparse_vector<T, Index> sparse_from_grb(GrB_Vector v);
template <class T>
dense_vector<T> dense_from_grb(GrB_Vector v, T absent);

/// Converts back into the container type K (csr_matrix, dense_matrix, sparse_vector or
/// dense_vector); `absent` fills dense containers.
template <class K>
K from_grb(GrB_Matrix m, typename K::value_type absent) {
    using T = typename K::value_type;
    if constexpr (std::is_same_v<K, dense_matrix<T>>)
        return dense_from_grb<T>(m, absent);
    else
        return csr_from_grb<T, typename K::index_type>(m);
}
template <class K>
K from_grb(GrB_Vector v, typename K::value_type absent) {
    using T = typename K::value_type;
    if constexpr (std::is_same_v<K, dense_vector<T>>)
        return dense_from_grb<T>(v, absent);
    else
        return sparse_from_grb<T, typename K::index_type>(v);
}

// Instantiated in convert.cpp for every value type of is_grb_value and both index types.
#define KLEENE_GRB_CONVERT_EXTERN(T)                                                             \
    extern template matrix to_grb(csr_matrix<T, std::int32_t> const&);                           \
    extern template matrix to_grb(csr_matrix<T, std::int64_t> const&);                           \
    extern template matrix to_grb(dense_matrix<T> const&, T);                                    \
    extern template matrix to_grb_full(dense_matrix<T> const&);                                  \
    extern template vector to_grb(sparse_vector<T, std::int32_t> const&);                        \
    extern template vector to_grb(sparse_vector<T, std::int64_t> const&);                        \
    extern template vector to_grb(dense_vector<T> const&, T);                                    \
    extern template vector to_grb_full(dense_vector<T> const&);                                  \
    extern template csr_matrix<T, std::int32_t> csr_from_grb<T, std::int32_t>(GrB_Matrix);       \
    extern template csr_matrix<T, std::int64_t> csr_from_grb<T, std::int64_t>(GrB_Matrix);       \
    extern template dense_matrix<T> dense_from_grb<T>(GrB_Matrix, T);                            \
    extern template sparse_vector<T, std::int32_t> sparse_from_grb<T, std::int32_t>(GrB_Vector); \
    extern template sparse_vector<T, std::int64_t> sparse_from_grb<T, std::int64_t>(GrB_Vector); \
    extern template dense_vector<T> dense_from_grb<T>(GrB_Vector, T);
KLEENE_GRB_CONVERT_EXTERN(float)
KLEENE_GRB_CONVERT_EXTERN(double)
KLEENE_GRB_CONVERT_EXTERN(std::int32_t)
KLEENE_GRB_CONVERT_EXTERN(std::int64_t)
KLEENE_GRB_CONVERT_EXTERN(bool)
#undef KLEENE_GRB_CONVERT_EXTERN

}  // namespace kleene::graphblas

#pragma once
// The view A' of a matrix, what transpose(A) returns: rows() and cols() swapped, A's storage
// shared (no copy; A must outlive the view). Host matrices: transpose.hpp makes the view and says
// which operations take it. Device matrices (made here, without the CPU headers): the device
// reduce (columns of A) and extract (A'(I, j)) of kleene/cuda/.

#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/memory.hpp>

#include <cstddef>

namespace kleene {

/// A' for a matrix M.
template <class M>
struct transposed {
    using value_type = typename M::value_type;
    M const* m;
    std::size_t rows() const noexcept { return m->cols(); }
    std::size_t cols() const noexcept { return m->rows(); }
};

template <class M>
inline constexpr bool is_transposed = false;
template <class M>
inline constexpr bool is_transposed<transposed<M>> = true;

/// A' of a device CSR matrix, as a view.
template <class T, index_type Index>
transposed<csr_matrix<T, Index, device>> transpose(csr_matrix<T, Index, device> const& a) {
    return {&a};
}
/// A' of a dense device matrix, as a view.
template <class T>
transposed<dense_matrix<T, device>> transpose(dense_matrix<T, device> const& a) {
    return {&a};
}

}  // namespace kleene

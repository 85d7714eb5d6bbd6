#pragma once
// Row-wise access to a mask for the CPU kernels. A CSR mask row is scattered into a per-thread
// stamp array once, so each allowed(j) test is one load; a dense mask is read in place.

#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <cstdint>
#include <vector>

namespace kleene::cpu {

/// No mask: every entry may be written.
struct mask_rows_none {
    explicit mask_rows_none(no_mask_t, std::size_t = 0) {}
    void select_row(std::size_t) {}
    bool allowed(std::size_t) const { return true; }
    static constexpr bool always = true;
};

template <class M>
struct mask_rows;

template <class T, class Index>
struct mask_rows<csr_matrix<T, Index>> {
    static constexpr bool always = false;
    mask_rows(mask_view<csr_matrix<T, Index>> v, std::size_t cols)
        : m(v.m), structural(v.structural), complemented(v.complemented), stamp(cols, 0) {}
    void select_row(std::size_t i) {
        ++gen;
        for (std::size_t k = m->row_begin(i); k < m->row_end(i); ++k)
            if (structural || m->value(k) != T(0)) stamp[m->col_idx()[k]] = gen;
    }
    bool allowed(std::size_t j) const { return (stamp[j] == gen) != complemented; }

    csr_matrix<T, Index> const* m;
    bool structural, complemented;
    std::vector<std::uint32_t> stamp;
    std::uint32_t gen = 0;
};

template <class T>
struct mask_rows<dense_matrix<T>> {
    static constexpr bool always = false;
    mask_rows(mask_view<dense_matrix<T>> v, std::size_t)
        : m(v.m), structural(v.structural), complemented(v.complemented) {}
    void select_row(std::size_t i) { row = m->data() + i * m->ld(); }
    bool allowed(std::size_t j) const { return (structural || row[j] != T(0)) != complemented; }

    dense_matrix<T> const* m;
    bool structural, complemented;
    T const* row = nullptr;
};

template <class M>
auto make_mask_rows(mask_view<M> v, std::size_t cols) { return mask_rows<M>(v, cols); }
inline auto make_mask_rows(no_mask_t, std::size_t) { return mask_rows_none(no_mask); }

/// A vector mask flattened to one flag per entry (vector operations are O(n) already).
template <class M>
std::vector<std::uint8_t> mask_flags(mask_view<M> v, std::size_t n) {
    std::vector<std::uint8_t> f(n, 0);
    using T = typename M::value_type;
    if constexpr (requires { v.m->nnz(); }) {  // sparse_vector
        for (std::size_t k = 0; k < v.m->nnz(); ++k)
            if (v.structural || v.m->values()[k] != T(0)) f[v.m->indices()[k]] = 1;
    } else {
        for (std::size_t i = 0; i < n; ++i) f[i] = v.structural || (*v.m)[i] != T(0);
    }
    if (v.complemented)
        for (auto& x : f) x = !x;
    return f;
}

}  // namespace kleene::cpu

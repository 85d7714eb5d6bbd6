#pragma once
// CPU reductions with a monoid: each row of a matrix to one entry of a vector, each column (for a
// transposed view), and every entry to a scalar. A monoid with a terminal value (min, max, lor,
// land, any) stops a row as soon as it is reached. Dense inputs skip entries equal to `absent`.

#include <omp.h>

#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/sparse_products.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <vector>

namespace kleene::cpu {

/// Whether a running reduction can no longer change.
template <class Mon, class T>
constexpr bool at_terminal(T v) {
    if constexpr (!Mon::has_terminal)
        return false;
    else if constexpr (requires { Mon::any_terminal; } && Mon::any_terminal)
        return true;
    else
        return v == Mon::terminal();
}

/// t_i = (+) of row i of A; rows without entries have none.
template <class Mon, class T, class Index>
vector_result<T> reduce_rows(Mon const& mon, csr_matrix<T, Index> const& a) {
    std::size_t const rows = a.rows();
    vector_result<T> t;
    t.vals = buffer<T>(rows);
    t.has.resize(rows);
    Index const* ap = a.row_ptr();
    detail::csr_values<T, Index> const av(a);
#pragma omp parallel for schedule(static) if (a.nnz() > 50000)
    for (std::size_t i = 0; i < rows; ++i) {
        Index const b = ap[i], e = ap[i + 1];
        t.has[i] = b < e;
        if (b == e) {
            t.vals[i] = mon.identity();
            continue;
        }
        T s = av[b];
        for (Index k = b + 1; k < e && !at_terminal<Mon>(s); ++k) s = mon.apply(s, av[k]);
        t.vals[i] = s;
    }
    return t;
}

template <class Mon, class T>
vector_result<T> reduce_rows(Mon const& mon, dense_matrix<T> const& a, T absent) {
    std::size_t const rows = a.rows(), cols = a.cols();
    vector_result<T> t;
    t.vals = buffer<T>(rows);
    t.has.resize(rows);
#pragma omp parallel for schedule(static) if (rows * cols > 65536)
    for (std::size_t i = 0; i < rows; ++i) {
        T const* r = a.data() + i * cols;
        T s = mon.identity();
        bool any = false;
        for (std::size_t j = 0; j < cols; ++j)
            if (!(r[j] == absent)) {
                s = any ? mon.apply(s, r[j]) : r[j];
                any = true;
            }
        t.vals[i] = s;
        t.has[i] = any;
    }
    return t;
}

/// t_j = (+) of column j of A: each thread folds its rows into its own (values, flags), the
/// partial results are then folded in thread order.
template <class Mon, class M, class T>
vector_result<T> reduce_cols(Mon const& mon, M const& a, T absent) {
    std::size_t const cols = a.cols();
    auto const src = kleene::cpu::detail::row_source(a, absent);
    std::size_t work = 0;
    if constexpr (requires { a.nnz(); })
        work = a.nnz();
    else
        work = a.rows() * a.cols();
    int const nt = work > 100000 ? max_threads() : 1;
    std::vector<vector_result<T>> part(nt);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int const p = omp_get_thread_num(), np = omp_get_num_threads();
        auto& r = part[p];
        r.vals = buffer<T>(cols, mon.identity());
        r.has.assign(cols, 0);
        std::size_t const i0 = a.rows() * p / np, i1 = a.rows() * (p + 1) / np;
        for (std::size_t i = i0; i < i1; ++i)
            src.for_each(i, [&](std::size_t j, T v) {
                r.vals[j] = r.has[j] ? mon.apply(r.vals[j], v) : v;
                r.has[j] = 1;
            });
    }
    for (std::size_t p = 1; p < part.size(); ++p)
        for (std::size_t j = 0; j < cols; ++j)
            if (part[p].has[j]) {
                part[0].vals[j] =
                    part[0].has[j] ? mon.apply(part[0].vals[j], part[p].vals[j]) : part[p].vals[j];
                part[0].has[j] = 1;
            }
    return std::move(part[0]);
}

/// (+) of n values read through get(k), identity when n == 0. Each thread folds its block into
/// a panel of 16 independent partial results (no dependency chain, so the loop vectorises), then
/// the panels and the threads' results are folded in order.
template <class Mon, class T, class Get>
T reduce_values(Mon const& mon, std::size_t n, Get const& get) {
    constexpr std::size_t panel = 16;
    int const nt = n > 100000 ? max_threads() : 1;
    buffer<T> part(static_cast<std::size_t>(nt),
                   mon.identity());  // not vector<bool>: threads write it
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int const p = omp_get_thread_num(), np = omp_get_num_threads();
        std::size_t const k0 = n * p / np, k1 = n * (p + 1) / np;
        T acc[panel];
        for (auto& x : acc) x = mon.identity();
        std::size_t k = k0;
        for (; k + panel <= k1; k += panel) {
            for (std::size_t q = 0; q < panel; ++q) acc[q] = mon.apply(acc[q], get(k + q));
            if constexpr (Mon::has_terminal)
                if (at_terminal<Mon>(acc[0])) break;
        }
        T s = mon.identity();
        for (auto const& x : acc) s = mon.apply(s, x);
        // The identity is not a value: `any` (every value terminal) must read one first.
        for (bool valued = k > k0; k < k1 && !(valued && at_terminal<Mon>(s)); ++k, valued = true)
            s = mon.apply(s, get(k));
        part[p] = s;
    }
    T s = mon.identity();
    for (T const& x : part) s = mon.apply(s, x);
    return s;
}

}  // namespace kleene::cpu

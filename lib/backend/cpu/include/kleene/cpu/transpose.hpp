#pragma once
// CPU transpose kernels. CSR: each thread counts the columns of its block of rows, the counts give
// every (thread, column) pair its own output range, and each thread scatters its rows in order, so
// the output rows come out sorted without a sort. Dense: 32 x 32 tiles.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <kleene/cpu/parallel.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <vector>

namespace kleene::cpu {

template <class T, class Index>
csr_matrix<T, Index> transpose_csr(csr_matrix<T, Index> const& a) {
    std::size_t const rows = a.rows(), cols = a.cols(), nnz = a.nnz();
    bool const valued = a.has_values();
    // One block per thread, fewer when the per-block column counts would outweigh the entries.
    std::size_t parts = static_cast<std::size_t>(max_threads());
    if (nnz < 50000) parts = 1;
    parts = std::max<std::size_t>(1, std::min(parts, cols ? 1 + 4 * nnz / cols : 1));
    auto const bounds = row_blocks(a.row_ptr(), rows, parts);
    std::size_t const nb = bounds.size() - 1;
    std::vector<std::vector<Index>> count(nb, std::vector<Index>(cols, Index(0)));
    buffer<Index> out_ptr(cols + 1);
    buffer<Index> out_cols(nnz);
    buffer<T> out_vals(valued ? nnz : 0);
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    T const* av = a.values();
#pragma omp parallel num_threads(static_cast <int>(nb)) if (nb > 1)
    {
#pragma omp for schedule(static, 1)
        for (std::size_t b = 0; b < nb; ++b) {
            Index* c = count[b].data();
            for (Index k = ap[bounds[b]]; k < ap[bounds[b + 1]]; ++k) ++c[aj[k]];
        }
#pragma omp single
        {
            // count[b][j] becomes the first output position of block b in column j.
            Index run = 0;
            for (std::size_t j = 0; j < cols; ++j) {
                out_ptr[j] = run;
                for (std::size_t b = 0; b < nb; ++b) {
                    Index const c = count[b][j];
                    count[b][j] = run;
                    run += c;
                }
            }
            out_ptr[cols] = run;
        }
#pragma omp for schedule(static, 1)
        for (std::size_t b = 0; b < nb; ++b) {
            Index* pos = count[b].data();
            for (std::size_t i = bounds[b]; i < bounds[b + 1]; ++i)
                for (Index k = ap[i]; k < ap[i + 1]; ++k) {
                    Index const p = pos[aj[k]]++;
                    out_cols[p] = static_cast<Index>(i);
                    if (valued) out_vals[p] = av[k];
                }
        }
    }
    return {cols,          rows, std::move(out_ptr), std::move(out_cols), std::move(out_vals),
            a.iso_value(), true};
}

template <class T>
dense_matrix<T> transpose_dense(dense_view<T const> a) {
    dense_matrix<T> t(a.cols, a.rows);
    constexpr std::size_t tile = 32;
    std::size_t const tr = (a.rows + tile - 1) / tile, tc = (a.cols + tile - 1) / tile;
#pragma omp parallel for collapse(2) schedule(static) if (a.rows * a.cols > 65536)
    for (std::size_t bi = 0; bi < tr; ++bi)
        for (std::size_t bj = 0; bj < tc; ++bj) {
            std::size_t const i1 = std::min(a.rows, (bi + 1) * tile);
            std::size_t const j1 = std::min(a.cols, (bj + 1) * tile);
            for (std::size_t j = bj * tile; j < j1; ++j)
                for (std::size_t i = bi * tile; i < i1; ++i) t.data()[j * a.rows + i] = a(i, j);
        }
    return t;
}

}  // namespace kleene::cpu

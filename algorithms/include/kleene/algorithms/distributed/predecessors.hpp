#pragma once
// Predecessors of a distributed APSP result without a gather: every rank gets the predecessors of
// its own blocks, by the single-process rule (paths.hpp: a breadth-first search over the tight
// edges from each source, in adjacency order), so that the result equals, entry for entry, what
// kleene::predecessors makes of the gathered distances.
//
// The search from source s needs the whole row d(s, .), which lies across the ranks of s's process
// row. The ranks of a process row therefore broadcast their local rows to each other, a band of
// rows at a time (at most band_bytes of distances a band), and each rank searches from every
// source of the band and keeps its own columns. So the searches are repeated on every rank of a
// process row: n / PR searches of O(nnz) a rank, against n on one process. Each rank receives the
// (PC - 1) / PC of its rows' n columns that other ranks hold, once.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <kleene/algorithms/distributed/comm.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <string>
#include <vector>

namespace kleene::distributed {

/// The distances a band of rows holds at most while the predecessors are made (the process row's
/// rows of the band, all n columns).
inline constexpr std::size_t predecessor_band_bytes = std::size_t(64) << 20;

/// This rank's predecessors for its local blocks of the distances `local` (d's local matrix), as
/// the gathering command writes them: pred + 1 (1-based), 0 where there is none (the source
/// itself, an unreachable vertex). Every rank of the grid calls it (collective along process rows).
template <class T, index_type Index>
dense_matrix<std::int32_t> local_predecessors(csr_matrix<T, Index> const& a,
                                              dense_matrix<T> const& local, block_cyclic const& d,
                                              control& c,
                                              std::size_t band_bytes = predecessor_band_bytes) {
    std::size_t const n = d.n(), lr = d.local_rows(), lc = d.local_cols();
    if (a.rows() != n || a.cols() != n)
        throw dimension_mismatch("distributed predecessors: a " +
                                 kleene::detail::shape(a.rows(), a.cols()) + " graph for " +
                                 std::to_string(n) + " vertices");
    if (local.rows() != lr || local.cols() != lc)
        throw dimension_mismatch("distributed predecessors: local distances " +
                                 kleene::detail::shape(local.rows(), local.cols()) + ", expected " +
                                 kleene::detail::shape(lr, lc));
    int const pc = d.grid().cols;
    if (n == 0) return dense_matrix<std::int32_t>(lr, lc, 0);
    // Every rank of a process row has the same local rows, so they run the same bands.
    std::size_t const band = std::clamp<std::size_t>(band_bytes / (n * sizeof(T)), std::size_t(1),
                                                     std::max(lr, std::size_t(1)));
    // Every buffer first, and all ranks agree they have them: a rank that failed to allocate must
    // not leave the others waiting in a broadcast.
    dense_matrix<std::int32_t> out;
    std::vector<T> rows, part;
    std::string why;
    try {
        out = dense_matrix<std::int32_t>(lr, lc, 0);
        rows.resize(band * n);
        std::size_t widest = 0;
        for (int q = 0; q < pc; ++q) widest = std::max(widest, d.local_cols(q));
        part.reserve(band * widest);
    } catch (std::exception const& e) {
        why = std::string("distributed predecessors: ") + e.what();
    }
    c.agree(why.empty(), why);
    for (std::size_t i0 = 0; i0 < lr; i0 += band) {
        std::size_t const r = std::min(band, lr - i0);
        // The band's distances of every process column of this row, into rows (global columns).
        for (int q = 0; q < pc; ++q) {
            std::size_t const cq = d.local_cols(q);
            part.resize(r * cq);
            if (q == d.pcol() && r * cq > 0)
                std::memcpy(part.data(), &local(i0, 0), r * cq * sizeof(T));
            if (pc > 1 && r * cq > 0) c.broadcast(axis::row, part.data(), r * cq * sizeof(T), q);
            for (std::size_t i = 0; i < r; ++i)
                d.scatter_row(q, part.data() + i * cq, rows.data() + i * n);
        }
#pragma omp parallel
        {
            std::vector<std::size_t> queue;
            std::vector<char> seen;
            std::vector<std::int32_t> pred(n);
#pragma omp for schedule(dynamic, 1)
            for (std::size_t i = 0; i < r; ++i) {
                std::size_t const s = d.global_row(d.prow(), i0 + i);
                T const* row = rows.data() + i * n;
                kleene::detail::predecessor_row(
                    a, s, [row](std::size_t v) { return row[v]; }, pred.data(), queue, seen);
                for (std::size_t j = 0; j < lc; ++j)
                    out(i0 + i, j) = pred[d.global_col(d.pcol(), j)] + 1;
            }
        }
    }
    return out;
}

}  // namespace kleene::distributed

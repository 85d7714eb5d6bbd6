#pragma once
// 2D block-cyclic distribution of an n x n matrix over a pr x pc process grid (ScaLAPACK's layout):
// the matrix is cut into b x b blocks (the last row and column of blocks may be narrower), block
// (I, J) lives on process (I mod pr, J mod pc), and a process keeps its blocks in one row-major
// local matrix in block order: its local block (I / pr, J / pc). Ranks are numbered row-major over
// the grid: rank = prow * pc + pcol. No MPI here: this is the index arithmetic the distributed
// algorithms and their tests share.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <kleene/error.hpp>
#include <string>
#include <utility>

namespace kleene::distributed {

struct process_grid {
    int rows = 1;
    int cols = 1;
    int size() const { return rows * cols; }
    int row_of(int rank) const { return rank / cols; }
    int col_of(int rank) const { return rank % cols; }
    int rank_of(int prow, int pcol) const { return prow * cols + pcol; }
};

/// The most square grid of p processes, rows <= cols (p = 4: 2 x 2, p = 6: 2 x 3, p = 2: 1 x 2).
inline process_grid choose_grid(int p) {
    if (p < 1) throw invalid_argument("process grid: " + std::to_string(p) + " processes");
    int r = static_cast<int>(std::sqrt(static_cast<double>(p)));
    while (r > 1 && p % r != 0) --r;
    return {r, p / r};
}

class block_cyclic {
  public:
    block_cyclic() = default;
    block_cyclic(std::size_t n, std::size_t b, process_grid g, int rank) : n_(n), b_(b), g_(g) {
        if (b == 0) throw invalid_argument("block-cyclic distribution: block size 0");
        if (rank < 0 || rank >= g.size())
            throw invalid_argument("block-cyclic distribution: rank " + std::to_string(rank) +
                                   " outside a grid of " + std::to_string(g.size()));
        prow_ = g.row_of(rank);
        pcol_ = g.col_of(rank);
    }

    std::size_t n() const { return n_; }
    std::size_t block() const { return b_; }
    process_grid grid() const { return g_; }
    int prow() const { return prow_; }
    int pcol() const { return pcol_; }
    /// Blocks along one dimension: ceil(n / b).
    std::size_t blocks() const { return (n_ + b_ - 1) / b_; }
    /// Rows (= columns) of global block I.
    std::size_t block_size(std::size_t I) const { return std::min(b_, n_ - I * b_); }
    int owner_row(std::size_t I) const { return static_cast<int>(I % std::size_t(g_.rows)); }
    int owner_col(std::size_t J) const { return static_cast<int>(J % std::size_t(g_.cols)); }

    /// Local rows of process row p: the sum of its blocks' sizes (only the globally last block can
    /// be short, and it is the last of its owner's).
    std::size_t local_rows(int p) const { return local_extent(p, g_.rows); }
    std::size_t local_cols(int q) const { return local_extent(q, g_.cols); }
    std::size_t local_rows() const { return local_rows(prow_); }
    std::size_t local_cols() const { return local_cols(pcol_); }
    /// Local blocks of process row p / column q.
    std::size_t local_block_rows(int p) const { return count(p, g_.rows); }
    std::size_t local_block_cols(int q) const { return count(q, g_.cols); }

    /// First local row of global block row I on its owner (every earlier local block is full).
    std::size_t local_offset_row(std::size_t I) const { return I / std::size_t(g_.rows) * b_; }
    std::size_t local_offset_col(std::size_t J) const { return J / std::size_t(g_.cols) * b_; }
    /// The global block of the l-th local block row of process row p (column q).
    std::size_t global_block_row(int p, std::size_t l) const {
        return l * std::size_t(g_.rows) + std::size_t(p);
    }
    std::size_t global_block_col(int q, std::size_t l) const {
        return l * std::size_t(g_.cols) + std::size_t(q);
    }

    /// Global row i: its owner's process row, and the local row there.
    int owner_of_row(std::size_t i) const { return owner_row(i / b_); }
    int owner_of_col(std::size_t j) const { return owner_col(j / b_); }
    std::size_t local_row(std::size_t i) const { return local_offset_row(i / b_) + i % b_; }
    std::size_t local_col(std::size_t j) const { return local_offset_col(j / b_) + j % b_; }
    /// Local row r of process row p (column c of q) back to the global index.
    std::size_t global_row(int p, std::size_t r) const {
        return global_block_row(p, r / b_) * b_ + r % b_;
    }
    std::size_t global_col(int q, std::size_t c) const {
        return global_block_col(q, c / b_) * b_ + c % b_;
    }
    /// One local row of process column q (local_cols(q) values) into its places in a global row
    /// (n values), a block of columns at a time.
    template <class T>
    void scatter_row(int q, T const* local_row, T* global_row) const {
        std::size_t const lc = local_cols(q);
        for (std::size_t c0 = 0; c0 < lc; c0 += b_) {
            std::size_t const w = std::min(b_, lc - c0);
            std::copy(local_row + c0, local_row + c0 + w,
                      global_row + global_block_col(q, c0 / b_) * b_);
        }
    }

  private:
    std::size_t count(int p, int procs) const {
        std::size_t const nb = blocks();
        std::size_t const q = std::size_t(procs);
        return nb / q + (std::size_t(p) < nb % q ? 1 : 0);
    }
    std::size_t local_extent(int p, int procs) const {
        std::size_t const k = count(p, procs);
        if (k == 0) return 0;
        // All full except possibly the last, which is global block (k-1) * procs + p.
        return (k - 1) * b_ + block_size((k - 1) * std::size_t(procs) + std::size_t(p));
    }

    std::size_t n_ = 0;
    std::size_t b_ = 1;
    process_grid g_{};
    int prow_ = 0;
    int pcol_ = 0;
};

namespace detail {
/// A range [lo, hi) of (local) rows or columns (empty when hi <= lo).
struct span {
    std::size_t lo = 0, hi = 0;
};
/// At most three ranges, in order (`without`).
struct spans {
    std::array<span, 3> at{};
    std::size_t n = 0;
    span const* begin() const { return at.data(); }
    span const* end() const { return at.data() + n; }
};
/// [a, z) without the ranges x and y (either may be empty or overlap the other), as ranges in
/// order, none of them empty.
inline spans without(std::size_t a, std::size_t z, span x, span y) {
    if (y.lo < x.lo) std::swap(x, y);
    spans out;
    for (span const e : {x, y}) {
        if (e.hi <= e.lo) continue;
        std::size_t const cut = std::min(e.lo, z);
        if (cut > a) out.at[out.n++] = {a, cut};
        a = std::max(a, e.hi);
    }
    if (a < z) out.at[out.n++] = {a, z};
    return out;
}
}  // namespace detail

}  // namespace kleene::distributed

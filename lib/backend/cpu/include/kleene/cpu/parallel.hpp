#pragma once
// OpenMP building blocks shared by the CPU kernels: balanced row partitions and assembly of a CSR
// matrix from rows produced independently by each block.

#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace kleene::cpu {

inline int max_threads() { return omp_get_max_threads(); }

/// One thread's value on cache lines of its own (128 bytes: Intel's adjacent-line prefetcher
/// fetches lines in pairs). In a plain array of per-thread std::vectors neighbours share a line,
/// and every push_back writes the vector's end pointer: each append invalidated the neighbouring
/// threads' copies of that line. The CPU BFS's big push level (uniform scale 20, 2 threads, the
/// 2-core build machine, best of 5): 14.4 ms with the plain array, 11.5 ms padded (one thread:
/// 23 ms), the 2x of the GAP reference's same step (2026-11-29).
template <class T>
struct alignas(128) padded {
    T value;
};

/// Carries the first exception thrown inside an OpenMP region out of it: an exception that
/// crosses the region's end makes the runtime call std::terminate (an mxm whose result did not
/// fit in memory aborted that way). Inside the region: carrier.run([&] { ... }) per iteration
/// or per thread (later iterations are skipped once one failed); after it: carrier.rethrow(what),
/// which turns std::bad_alloc into a kleene::error naming `what`.
class exception_carrier {
  public:
    template <class F>
    void run(F&& f) noexcept {
        if (failed_.load(std::memory_order_relaxed)) return;
        try {
            f();
        } catch (...) {
            bool expected = false;
            if (failed_.compare_exchange_strong(expected, true)) first_ = std::current_exception();
        }
    }
    bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
    void rethrow(char const* what) const {
        if (!first_) return;
        try {
            std::rethrow_exception(first_);
        } catch (std::bad_alloc const&) {
            throw error(std::string("out of memory while computing ") + what);
        }
    }

  private:
    std::atomic<bool> failed_{false};
    std::exception_ptr first_;  // written once, by the thread that set failed_
};

/// Splits rows [0, rows) into about `parts` contiguous blocks of similar cost, where
/// cost_before(i) is the cost of the rows before i (non-decreasing in i, 0 at i = 0): a prefix sum
/// held in an array, or computed on the fly (row_blocks). Returns the block bounds.
template <class CostBefore>
std::vector<std::size_t> balanced_blocks(std::size_t rows, CostBefore cost_before,
                                         std::size_t parts) {
    std::vector<std::size_t> bounds{0};
    if (rows == 0) {
        bounds.push_back(0);
        return bounds;
    }
    parts = std::max<std::size_t>(1, std::min(parts, rows));
    std::int64_t const total = cost_before(rows);
    for (std::size_t p = 1; p < parts; ++p) {
        std::int64_t const target =
            total * static_cast<std::int64_t>(p) / static_cast<std::int64_t>(parts);
        std::size_t lo = 0, hi = rows + 1;  // the first i with cost_before(i) >= target
        while (lo < hi) {
            std::size_t const mid = lo + (hi - lo) / 2;
            if (cost_before(mid) < target) lo = mid + 1;
            else hi = mid;
        }
        std::size_t const r = std::clamp(lo, bounds.back(), rows);
        if (r > bounds.back() && r < rows) bounds.push_back(r);
    }
    bounds.push_back(rows);
    return bounds;
}

/// balanced_blocks over a prefix array (cost_prefix[i] = cost of rows < i, size rows + 1).
inline std::vector<std::size_t> balanced_blocks(std::vector<std::int64_t> const& cost_prefix,
                                                std::size_t parts) {
    return balanced_blocks(
        cost_prefix.size() - 1, [&](std::size_t i) { return cost_prefix[i]; }, parts);
}

/// Blocks of the rows of a CSR structure, a row costing its entries + 1, without a prefix array.
template <class Index>
std::vector<std::size_t> row_blocks(Index const* row_ptr, std::size_t rows, std::size_t parts) {
    return balanced_blocks(
        rows,
        [row_ptr](std::size_t i) {
            return static_cast<std::int64_t>(row_ptr[i]) + static_cast<std::int64_t>(i);
        },
        parts);
}

/// Rows a block of a row-parallel kernel produced: columns and values in row order, plus counts.
template <class T, class Index>
struct row_block {
    std::vector<Index> cols;
    std::vector<T> vals;
};

/// Runs `fill(r0, r1, block, counts)` for every block in parallel (dynamic schedule); `fill`
/// appends the sorted entries of rows r0..r1-1 to block and writes each row's count to
/// counts[i]. The blocks are then concatenated into a CSR matrix.
template <class T, class Index, class Fill>
csr_matrix<T, Index> assemble_rows(std::size_t rows, std::size_t cols,
                                   std::vector<std::size_t> const& bounds, Fill&& fill) {
    std::size_t const nblocks = bounds.size() - 1;
    std::vector<row_block<T, Index>> blocks(nblocks);
    buffer<Index> row_ptr(rows + 1);
    row_ptr[0] = 0;
    Index* counts = row_ptr.data() + 1;
    exception_carrier failure;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t b = 0; b < nblocks; ++b)
        failure.run([&] { fill(bounds[b], bounds[b + 1], blocks[b], counts); });
    failure.rethrow("the rows of a sparse result");
    std::vector<std::size_t> offset(nblocks + 1, 0);
    for (std::size_t b = 0; b < nblocks; ++b) offset[b + 1] = offset[b] + blocks[b].cols.size();
    if (offset.back() > static_cast<std::size_t>(std::numeric_limits<Index>::max()))
        throw invalid_argument("result has " + std::to_string(offset.back()) +
                               " entries, more than the index type holds: use int64 indices");
    for (std::size_t i = 0; i < rows; ++i) row_ptr[i + 1] += row_ptr[i];
    buffer<Index> out_cols;
    buffer<T> out_vals;
    try {
        out_cols = buffer<Index>(offset.back());
        out_vals = buffer<T>(offset.back());
    } catch (std::bad_alloc const&) {
        throw error("out of memory for a sparse result of " + std::to_string(offset.back()) +
                    " entries");
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t b = 0; b < nblocks; ++b) {
        std::copy(blocks[b].cols.begin(), blocks[b].cols.end(), out_cols.data() + offset[b]);
        std::copy(blocks[b].vals.begin(), blocks[b].vals.end(), out_vals.data() + offset[b]);
        std::vector<Index>().swap(blocks[b].cols);
        std::vector<T>().swap(blocks[b].vals);
    }
    return {rows, cols, std::move(row_ptr), std::move(out_cols), std::move(out_vals), T(1), true};
}

/// Even row blocks (for kernels whose rows cost about the same), about 8 per thread.
inline std::vector<std::size_t> even_blocks(std::size_t rows) {
    std::size_t const parts = std::max<std::size_t>(
        1, std::min<std::size_t>(rows, 8 * static_cast<std::size_t>(max_threads())));
    std::vector<std::size_t> bounds(parts + 1);
    for (std::size_t p = 0; p <= parts; ++p) bounds[p] = rows * p / parts;
    return bounds;
}

}  // namespace kleene::cpu

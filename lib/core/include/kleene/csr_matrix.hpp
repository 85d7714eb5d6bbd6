#pragma once
// Compressed sparse row matrices: sorted, unique column indices in every row. Values are optional:
// a matrix without a value array is iso (every stored entry has iso_value(); a pattern matrix is
// the iso matrix of one()).

#include <kleene/error.hpp>
#include <kleene/memory.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kleene {

template <class Index>
concept index_type = std::same_as<Index, std::int32_t> || std::same_as<Index, std::int64_t>;

/// What to do with two entries at the same (i, j) when building from coordinates.
enum class duplicate_policy { error, sum, min, max, last };

template <class T, index_type Index = std::int32_t, memory_space Space = host>
class csr_matrix {
public:
    using value_type = T;
    using index_type = Index;
    using space = Space;

    /// 0 x 0 (on the device: allocates its one row pointer, so it needs a device).
    csr_matrix() : row_ptr_(1) { row_ptr_.zero(); }
    /// An empty rows x cols matrix (no stored entries), in either space.
    csr_matrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols) {
        check_dims(rows, cols);
        row_ptr_ = row_ptr_for(rows, cols);
        row_ptr_.zero();
    }
    /// Adopts CSR arrays; `values` empty means iso with `iso`. Checked unless `trusted`.
    csr_matrix(std::size_t rows, std::size_t cols, buffer<Index, Space> row_ptr,
               buffer<Index, Space> col_idx, buffer<T, Space> values, T iso = T(1),
               bool trusted = false)
        : rows_(rows),
          cols_(cols),
          row_ptr_(std::move(row_ptr)),
          col_idx_(std::move(col_idx)),
          values_(std::move(values)),
          iso_(iso) {
        check_dims(rows, cols);
        if (row_ptr_.size() != rows + 1)
            throw invalid_argument("csr_matrix: row_ptr has " + std::to_string(row_ptr_.size()) +
                                   " entries, expected rows + 1 = " + std::to_string(rows + 1));
        if (!values_.empty() && values_.size() != col_idx_.size())
            throw invalid_argument("csr_matrix: " + std::to_string(values_.size()) + " values for " +
                                   std::to_string(col_idx_.size()) + " column indices");
        if constexpr (std::is_same_v<Space, host>)
            if (!trusted) validate();
    }

    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    std::size_t nnz() const noexcept { return col_idx_.size(); }
    bool is_iso() const noexcept { return values_.empty() && nnz() > 0; }
    bool has_values() const noexcept { return !values_.empty(); }
    T iso_value() const noexcept { return iso_; }

    Index const* row_ptr() const noexcept { return row_ptr_.data(); }
    Index const* col_idx() const noexcept { return col_idx_.data(); }
    T const* values() const noexcept { return values_.data(); }
    Index* row_ptr() noexcept { return row_ptr_.data(); }
    Index* col_idx() noexcept { return col_idx_.data(); }
    T* values() noexcept { return values_.data(); }

    /// Value of the k-th stored entry (host only).
    T value(std::size_t k) const requires std::is_same_v<Space, host> {
        return values_.empty() ? iso_ : values_[k];
    }
    std::size_t row_begin(std::size_t i) const requires std::is_same_v<Space, host> {
        return static_cast<std::size_t>(row_ptr_[i]);
    }
    std::size_t row_end(std::size_t i) const requires std::is_same_v<Space, host> {
        return static_cast<std::size_t>(row_ptr_[i + 1]);
    }
    std::span<Index const> row_cols(std::size_t i) const requires std::is_same_v<Space, host> {
        return {col_idx_.data() + row_ptr_[i], col_idx_.data() + row_ptr_[i + 1]};
    }
    /// Binary search for (i, j); returns the entry position or -1.
    std::ptrdiff_t find(std::size_t i, std::size_t j) const requires std::is_same_v<Space, host> {
        auto r = row_cols(i);
        auto it = std::lower_bound(r.begin(), r.end(), static_cast<Index>(j));
        if (it == r.end() || static_cast<std::size_t>(*it) != j) return -1;
        return static_cast<std::ptrdiff_t>(row_ptr_[i] + (it - r.begin()));
    }

    buffer<Index, Space>& row_ptr_storage() noexcept { return row_ptr_; }
    buffer<Index, Space>& col_idx_storage() noexcept { return col_idx_; }
    buffer<T, Space>& values_storage() noexcept { return values_; }
    buffer<Index, Space> const& row_ptr_storage() const noexcept { return row_ptr_; }
    buffer<Index, Space> const& col_idx_storage() const noexcept { return col_idx_; }
    buffer<T, Space> const& values_storage() const noexcept { return values_; }

    /// Gives every stored entry its own value (an iso matrix becomes a valued one).
    void materialize_values() requires std::is_same_v<Space, host> {
        if (values_.empty() && nnz() > 0) values_ = buffer<T, host>(nnz(), iso_);
    }

    /// Checks the invariants: row_ptr from 0 to nnz without decreasing, columns in range, sorted
    /// and unique in each row. The row pointers are checked before any column is read (a row
    /// pointer past nnz must not send the column check outside the array); the columns are
    /// checked on all threads, and the first bad row is reported.
    void validate() const requires std::is_same_v<Space, host> {
        std::size_t const nnz = col_idx_.size();
        if (row_ptr_[0] != 0) throw invalid_argument("csr_matrix: row_ptr[0] must be 0");
        if (row_ptr_[rows_] < 0 || static_cast<std::size_t>(row_ptr_[rows_]) != nnz)
            throw invalid_argument("csr_matrix: row_ptr[rows] = " + std::to_string(row_ptr_[rows_]) +
                                   " but there are " + std::to_string(nnz) + " entries");
        for (std::size_t i = 0; i < rows_; ++i)
            if (row_ptr_[i + 1] < row_ptr_[i])
                throw invalid_argument("csr_matrix: row_ptr decreases at row " + std::to_string(i));
        // Now 0 <= row_ptr[i] <= nnz for every i.
        auto const bad_row = [&](std::size_t i) {
            for (Index k = row_ptr_[i]; k < row_ptr_[i + 1]; ++k) {
                Index const j = col_idx_[k];
                if (j < 0 || static_cast<std::size_t>(j) >= cols_ ||
                    (k > row_ptr_[i] && col_idx_[k - 1] >= j))
                    return true;
            }
            return false;
        };
        std::size_t first = rows_;
#ifdef _OPENMP  // this header is also compiled by nvcc, without OpenMP
#pragma omp parallel for schedule(static) reduction(min : first) if (nnz > (1u << 16))
#endif
        for (std::size_t i = 0; i < rows_; ++i)
            if (i < first && bad_row(i)) first = i;
        if (first == rows_) return;
        for (Index k = row_ptr_[first]; k < row_ptr_[first + 1]; ++k) {
            Index const j = col_idx_[k];
            if (j < 0 || static_cast<std::size_t>(j) >= cols_)
                throw invalid_argument("csr_matrix: column " + std::to_string(j) + " in row " +
                                       std::to_string(first) + " is outside 0.." +
                                       std::to_string(cols_ - 1));
            if (k > row_ptr_[first] && col_idx_[k - 1] >= j) break;
        }
        throw invalid_argument("csr_matrix: columns of row " + std::to_string(first) +
                               " are not sorted and unique");
    }

    csr_matrix<T, Index, device> to_device() const {
        return {rows_, cols_, row_ptr_.template copy_to<device>(), col_idx_.template copy_to<device>(),
                values_.template copy_to<device>(), iso_, true};
    }
    csr_matrix<T, Index, host> to_host() const {
        return {rows_, cols_, row_ptr_.template copy_to<host>(), col_idx_.template copy_to<host>(),
                values_.template copy_to<host>(), iso_, true};
    }

    /// Builds from coordinates (0-based). Entries are sorted; duplicates follow `dup`.
    /// An empty `v` makes a pattern (iso) matrix of `iso`.
    static csr_matrix from_coo(std::size_t rows, std::size_t cols, std::span<Index const> ii,
                               std::span<Index const> jj, std::span<T const> v,
                               duplicate_policy dup = duplicate_policy::error, T iso = T(1))
        requires std::is_same_v<Space, host>
    {
        check_dims(rows, cols);
        std::size_t const n = ii.size();
        if (jj.size() != n || (!v.empty() && v.size() != n))
            throw invalid_argument("csr_matrix::from_coo: " + std::to_string(ii.size()) + " rows, " +
                                   std::to_string(jj.size()) + " columns and " +
                                   std::to_string(v.size()) + " values differ in length");
        if (n > static_cast<std::size_t>(std::numeric_limits<Index>::max()))
            throw invalid_argument("csr_matrix::from_coo: " + std::to_string(n) +
                                   " entries do not fit the index type");
        bool const valued = !v.empty();
        buffer<Index, host> row_ptr = row_ptr_for(rows, cols);
        row_ptr.fill(Index(0));
        for (std::size_t k = 0; k < n; ++k) {
            if (ii[k] < 0 || static_cast<std::size_t>(ii[k]) >= rows || jj[k] < 0 ||
                static_cast<std::size_t>(jj[k]) >= cols)
                throw invalid_argument("csr_matrix::from_coo: entry (" + std::to_string(ii[k]) + ", " +
                                       std::to_string(jj[k]) + ") is outside a " +
                                       detail::shape(rows, cols) + " matrix");
            ++row_ptr[ii[k] + 1];
        }
        std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
        // Counting sort by row keeps the input order inside a row (so "last" means last in input).
        buffer<Index, host> cols_tmp(n);
        buffer<T, host> vals_tmp(valued ? n : 0);
        {
            std::vector<Index> next(row_ptr.begin(), row_ptr.end() - 1);
            for (std::size_t k = 0; k < n; ++k) {
                Index p = next[ii[k]]++;
                cols_tmp[p] = jj[k];
                if (valued) vals_tmp[p] = v[k];
            }
        }
        buffer<Index, host> out_ptr(rows + 1);
        buffer<Index, host> out_cols(n);
        buffer<T, host> out_vals(valued ? n : 0);
        out_ptr[0] = 0;
        std::vector<std::pair<Index, Index>> row;  // (column, position), stable-sorted by column
        std::size_t w = 0;
        for (std::size_t i = 0; i < rows; ++i) {
            row.clear();
            for (Index k = row_ptr[i]; k < row_ptr[i + 1]; ++k) row.emplace_back(cols_tmp[k], k);
            std::stable_sort(row.begin(), row.end(),
                             [](auto const& a, auto const& c) { return a.first < c.first; });
            for (auto [j, p] : row) {
                if (w > static_cast<std::size_t>(out_ptr[i]) && out_cols[w - 1] == j) {
                    if (dup == duplicate_policy::error)
                        throw invalid_argument("csr_matrix::from_coo: duplicate entry (" +
                                               std::to_string(i) + ", " + std::to_string(j) + ")");
                    if (valued) {
                        T& acc = out_vals[w - 1];
                        T const x = vals_tmp[p];
                        switch (dup) {
                            case duplicate_policy::sum: acc = T(acc + x); break;
                            case duplicate_policy::min: acc = x < acc ? x : acc; break;
                            case duplicate_policy::max: acc = acc < x ? x : acc; break;
                            default: acc = x; break;
                        }
                    }
                    continue;
                }
                out_cols[w] = j;
                if (valued) out_vals[w] = vals_tmp[p];
                ++w;
            }
            out_ptr[i + 1] = static_cast<Index>(w);
        }
        out_cols.resize(w);
        if (valued) out_vals.resize(w);
        return csr_matrix(rows, cols, std::move(out_ptr), std::move(out_cols), std::move(out_vals),
                          iso, true);
    }

private:
    static void check_dims(std::size_t rows, std::size_t cols) {
        auto const lim = static_cast<std::size_t>(std::numeric_limits<Index>::max());
        if (rows > lim || cols > lim)
            throw invalid_argument("csr_matrix: a " + detail::shape(rows, cols) +
                                   " matrix does not fit the index type");
    }
    /// rows + 1 row pointers, or out_of_memory naming the shape.
    static buffer<Index, Space> row_ptr_for(std::size_t rows, std::size_t cols) {
        try {
            return buffer<Index, Space>(rows + 1);
        } catch (out_of_memory const& e) {
            throw out_of_memory("csr_matrix: the row pointers of a " + detail::shape(rows, cols) +
                                    " matrix: " + e.what(),
                                e.bytes());
        }
    }

    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    buffer<Index, Space> row_ptr_;
    buffer<Index, Space> col_idx_;
    buffer<T, Space> values_;
    T iso_ = T(1);
};

}  // namespace kleene

#pragma once
// Row-major dense matrices with a leading dimension, and non-owning views of sub-blocks.
// Absent entries of a dense object hold the semiring's zero (see convert.hpp).

#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace kleene {

/// A non-owning rows x cols window of row-major storage whose rows are `ld` elements apart.
/// Views are cheap to copy; recursive algorithms (R-Kleene) split them in place.
template <class T, memory_space Space = host>
struct dense_view {
    using value_type = std::remove_const_t<T>;
    using space = Space;

    T* data = nullptr;
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::size_t ld = 0;

    KLEENE_HD T& operator()(std::size_t i, std::size_t j) const { return data[i * ld + j]; }
    KLEENE_HD T* row(std::size_t i) const { return data + i * ld; }

    /// The nr x nc block whose top-left entry is (r0, c0).
    dense_view block(std::size_t r0, std::size_t c0, std::size_t nr, std::size_t nc) const {
        if (r0 + nr > rows || c0 + nc > cols)
            throw dimension_mismatch("dense_view::block: block " + detail::shape(nr, nc) + " at (" +
                                     std::to_string(r0) + ", " + std::to_string(c0) +
                                     ") does not fit in a " + detail::shape(rows, cols) + " view");
        return {data + r0 * ld + c0, nr, nc, ld};
    }
    operator dense_view<T const, Space>() const requires(!std::is_const_v<T>) {
        return {data, rows, cols, ld};
    }
};

namespace detail {
/// Whether views x and y (rows ld apart) share an element. Blocks of one matrix (same ld) are
/// tested exactly, so R-Kleene's side-by-side blocks pass; otherwise overlapping spans count.
/// Used by the CPU and GPU GEMMs to refuse an output that shares entries with an input.
template <class T, class U, memory_space Space>
bool views_overlap(dense_view<T, Space> const& x, dense_view<U, Space> const& y) {
    if (x.rows == 0 || x.cols == 0 || y.rows == 0 || y.cols == 0) return false;
    using V = std::remove_const_t<T>;
    auto const x0 = reinterpret_cast<std::uintptr_t>(x.data);
    auto const y0 = reinterpret_cast<std::uintptr_t>(y.data);
    auto const x1 = x0 + ((x.rows - 1) * x.ld + x.cols) * sizeof(V);
    auto const y1 = y0 + ((y.rows - 1) * y.ld + y.cols) * sizeof(V);
    if (x1 <= y0 || y1 <= x0) return false;
    if (x.ld != y.ld || x.ld == 0 || (x0 > y0 ? x0 - y0 : y0 - x0) % sizeof(V) != 0) return true;
    // Place the higher block in the lattice of rows ld apart that starts at the lower one: its
    // columns [c, c + cols) may run past ld into the next lattice row.
    bool const x_first = x0 <= y0;
    std::size_t const d = (x_first ? y0 - x0 : x0 - y0) / sizeof(V);
    std::size_t const lo_rows = x_first ? x.rows : y.rows;
    std::size_t const lo_cols = x_first ? x.cols : y.cols;
    std::size_t const hi_cols = x_first ? y.cols : x.cols;
    std::size_t const r = d / x.ld;
    std::size_t const c = d % x.ld;
    if (hi_cols > x.ld) return true;
    if (r < lo_rows && c < lo_cols) return true;
    return c + hi_cols > x.ld && r + 1 < lo_rows;
}
}  // namespace detail

template <class T, memory_space Space = host>
class dense_matrix {
public:
    using value_type = T;
    using space = Space;

    dense_matrix() = default;
    /// Uninitialised storage (host: call fill, or write every entry).
    dense_matrix(std::size_t rows, std::size_t cols)
        : rows_(rows), cols_(cols), data_(storage_for(rows, cols)) {}
    dense_matrix(std::size_t rows, std::size_t cols, T const& value) requires std::is_same_v<Space, host>
        : rows_(rows), cols_(cols), data_(storage_for(rows, cols)) {
        data_.fill(value);
    }

    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    std::size_t ld() const noexcept { return cols_; }
    T* data() noexcept { return data_.data(); }
    T const* data() const noexcept { return data_.data(); }

    dense_view<T, Space> view() noexcept { return {data_.data(), rows_, cols_, cols_}; }
    dense_view<T const, Space> view() const noexcept { return {data_.data(), rows_, cols_, cols_}; }
    dense_view<T, Space> block(std::size_t r0, std::size_t c0, std::size_t nr, std::size_t nc) {
        return view().block(r0, c0, nr, nc);
    }

    T& operator()(std::size_t i, std::size_t j) requires std::is_same_v<Space, host> {
        return data_[i * cols_ + j];
    }
    T const& operator()(std::size_t i, std::size_t j) const requires std::is_same_v<Space, host> {
        return data_[i * cols_ + j];
    }
    void fill(T const& value) requires std::is_same_v<Space, host> { data_.fill(value); }

    /// Explicit copies between memory spaces.
    dense_matrix<T, device> to_device() const {
        dense_matrix<T, device> out;
        out.adopt(rows_, cols_, data_.template copy_to<device>());
        return out;
    }
    dense_matrix<T, host> to_host() const {
        dense_matrix<T, host> out;
        out.adopt(rows_, cols_, data_.template copy_to<host>());
        return out;
    }

    buffer<T, Space>& storage() noexcept { return data_; }
    buffer<T, Space> const& storage() const noexcept { return data_; }
    void adopt(std::size_t rows, std::size_t cols, buffer<T, Space> data) {
        if ((cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols) ||
            data.size() != rows * cols)
            throw invalid_argument("dense_matrix: storage of " + std::to_string(data.size()) +
                                   " values does not hold a " + detail::shape(rows, cols) + " matrix");
        rows_ = rows;
        cols_ = cols;
        data_ = std::move(data);
    }

private:
    /// rows * cols values, or out_of_memory naming the shape (a product past 64 bits included).
    static buffer<T, Space> storage_for(std::size_t rows, std::size_t cols) {
        if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols) {
            long double const bytes = static_cast<long double>(rows) * cols * sizeof(T);
            throw out_of_memory("dense_matrix: a " + detail::shape(rows, cols) + " matrix needs " +
                                    detail::format_bytes(bytes) + ", more than 64 bits address",
                                bytes);
        }
        try {
            return buffer<T, Space>(rows * cols);
        } catch (out_of_memory const& e) {
            throw out_of_memory("dense_matrix: a " + detail::shape(rows, cols) + " matrix: " +
                                    e.what(),
                                e.bytes());
        }
    }

    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    buffer<T, Space> data_;
};

}  // namespace kleene

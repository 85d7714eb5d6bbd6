#pragma once
// Index selections for extract and assign (extract_assign.hpp, and the CUDA backend's
// cuda/extract_assign.hpp): index lists, ranges and all_indices, resolved against a dimension,
// and the resolved indices both backends read.

#include <kleene/error.hpp>

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace kleene {

/// Indices I[0..size): begin + k for a range, list[k] for a list.
struct resolved_indices {
    std::size_t size = 0;
    std::size_t begin = 0;
    std::int64_t const* list = nullptr;
    bool sorted = true;  // non-decreasing
    std::size_t operator[](std::size_t k) const {
        return list ? static_cast<std::size_t>(list[k]) : begin + k;
    }
};

/// For each column j of a dimension n, the positions l with J[l] == j, in increasing l.
struct inverse_index {
    std::vector<std::int64_t> head;  // n + 1 offsets into pos
    std::vector<std::int64_t> pos;
    inverse_index(resolved_indices const& j, std::size_t n) : head(n + 1, 0), pos(j.size) {
        for (std::size_t l = 0; l < j.size; ++l) ++head[j[l] + 1];
        for (std::size_t c = 0; c < n; ++c) head[c + 1] += head[c];
        std::vector<std::int64_t> next(head.begin(), head.end() - 1);
        for (std::size_t l = 0; l < j.size; ++l) pos[next[j[l]]++] = std::int64_t(l);
    }
};

struct all_indices_t {};
/// Every index of the dimension (GrB_ALL).
inline constexpr all_indices_t all_indices{};

/// The indices begin, begin + 1, ..., end - 1.
struct index_range {
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// An index list, a range, or all indices; resolved against a dimension by each operation.
class index_selection {
  public:
    index_selection(all_indices_t) {}
    index_selection(index_range r) : all_(false), begin_(r.begin), end_(r.end) {}
    template <std::integral I>
    index_selection(std::span<I const> list)
        : all_(false), is_list_(true), list_(list.begin(), list.end()) {}
    template <std::integral I>
    index_selection(std::span<I> list) : index_selection(std::span<I const>(list)) {}
    template <std::integral I>
    index_selection(std::vector<I> const& list) : index_selection(std::span<I const>(list)) {}
    index_selection(std::initializer_list<std::int64_t> list)
        : all_(false), is_list_(true), list_(list) {}

    /// The indices against a dimension n; throws invalid_argument for an index past n.
    resolved_indices resolve(std::size_t n, std::string const& where) const {
        resolved_indices r;
        if (all_) {
            r.size = n;
        } else if (!is_list_) {
            if (begin_ > end_ || end_ > n)
                throw invalid_argument(where + ": range [" + std::to_string(begin_) + ", " +
                                       std::to_string(end_) + ") does not fit a dimension of " +
                                       std::to_string(n));
            r.begin = begin_;
            r.size = end_ - begin_;
        } else {
            for (std::size_t k = 0; k < list_.size(); ++k) {
                if (list_[k] < 0 || static_cast<std::size_t>(list_[k]) >= n)
                    throw invalid_argument(where + ": index " + std::to_string(list_[k]) +
                                           " is outside 0.." + std::to_string(std::int64_t(n) - 1));
                if (k > 0 && list_[k] < list_[k - 1]) r.sorted = false;
            }
            r.size = list_.size();
            r.list = list_.data();
        }
        return r;
    }

  private:
    bool all_ = true;
    bool is_list_ = false;
    std::size_t begin_ = 0, end_ = 0;
    std::vector<std::int64_t> list_;
};

namespace detail {
inline void check_unique(resolved_indices const& r, std::size_t n, std::string const& where) {
    if (!r.list) return;
    std::vector<std::uint8_t> seen(n, 0);
    for (std::size_t k = 0; k < r.size; ++k) {
        if (seen[r[k]])
            throw invalid_argument(where + ": index " + std::to_string(r[k]) +
                                   " appears twice (assign needs distinct indices)");
        seen[r[k]] = 1;
    }
}
}  // namespace detail

}  // namespace kleene

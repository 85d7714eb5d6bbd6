#pragma once
// Entry-by-entry comparison of two kleene results (structure and values), for the tests and for
// `kleene compare`. Floating-point values may differ by a relative tolerance (a sum's order
// changes its rounding); everything else must match exactly. Dense objects are compared at every
// position (their absent entries hold the same stand-in on both sides).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/vector.hpp>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::graphblas {

struct mismatch {
    std::size_t row = 0, col = 0;
    std::string got, want;  // a value, or "absent"
};

struct comparison {
    std::string shape_error;  ///< non-empty when the shapes differ (nothing else is compared)
    std::size_t compared = 0;
    std::size_t mismatches = 0;
    std::vector<mismatch> first;  ///< the first few mismatches, in row-major order

    bool ok() const noexcept { return shape_error.empty() && mismatches == 0; }
    std::string summary() const {
        if (!shape_error.empty()) return shape_error;
        std::ostringstream s;
        s << mismatches << " of " << compared << " entries differ";
        for (auto const& m : first)
            s << "; (" << m.row << ", " << m.col << "): got " << m.got << ", want " << m.want;
        return s.str();
    }
};

namespace detail {
inline constexpr std::size_t max_reported = 8;

template <class T>
std::string show(T v) {
    std::ostringstream s;
    if constexpr (std::is_same_v<T, bool>)
        s << (v ? "true" : "false");
    else
        s << +v;
    return s.str();
}

template <class T>
bool same_value(T a, T b, double rel_tol) {
    if (a == b) return true;
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) && std::isnan(b)) return true;
        if (!std::isfinite(a) || !std::isfinite(b)) return false;
        double const scale = std::max(std::abs(double(a)), std::abs(double(b)));
        return std::abs(double(a) - double(b)) <= rel_tol * scale;
    } else {
        return false;
    }
}

struct recorder {
    comparison& r;
    void add(std::size_t i, std::size_t j, std::string got, std::string want) {
        ++r.mismatches;
        if (r.first.size() < max_reported)
            r.first.push_back({i, j, std::move(got), std::move(want)});
    }
};
}  // namespace detail

template <class T, index_type Index>
comparison compare(csr_matrix<T, Index> const& got, csr_matrix<T, Index> const& want,
                   double rel_tol = 0) {
    comparison r;
    if (got.rows() != want.rows() || got.cols() != want.cols()) {
        r.shape_error = "got a " + kleene::detail::shape(got.rows(), got.cols()) +
                        " matrix, want " + kleene::detail::shape(want.rows(), want.cols());
        return r;
    }
    detail::recorder rec{r};
    for (std::size_t i = 0; i < got.rows(); ++i) {
        std::size_t kg = got.row_begin(i), eg = got.row_end(i);
        std::size_t kw = want.row_begin(i), ew = want.row_end(i);
        while (kg < eg || kw < ew) {
            std::size_t const jg = kg < eg ? std::size_t(got.col_idx()[kg]) : SIZE_MAX;
            std::size_t const jw = kw < ew ? std::size_t(want.col_idx()[kw]) : SIZE_MAX;
            ++r.compared;
            if (jg == jw) {
                if (!detail::same_value(got.value(kg), want.value(kw), rel_tol))
                    rec.add(i, jg, detail::show(got.value(kg)), detail::show(want.value(kw)));
                ++kg, ++kw;
            } else if (jg < jw) {
                rec.add(i, jg, detail::show(got.value(kg)), "absent");
                ++kg;
            } else {
                rec.add(i, jw, "absent", detail::show(want.value(kw)));
                ++kw;
            }
        }
    }
    return r;
}

template <class T>
comparison compare(dense_matrix<T> const& got, dense_matrix<T> const& want, double rel_tol = 0) {
    comparison r;
    if (got.rows() != want.rows() || got.cols() != want.cols()) {
        r.shape_error = "got a " + kleene::detail::shape(got.rows(), got.cols()) +
                        " matrix, want " + kleene::detail::shape(want.rows(), want.cols());
        return r;
    }
    detail::recorder rec{r};
    for (std::size_t i = 0; i < got.rows(); ++i)
        for (std::size_t j = 0; j < got.cols(); ++j) {
            ++r.compared;
            if (!detail::same_value(got(i, j), want(i, j), rel_tol))
                rec.add(i, j, detail::show(got(i, j)), detail::show(want(i, j)));
        }
    return r;
}

template <class T, index_type Index>
comparison compare(sparse_vector<T, Index> const& got, sparse_vector<T, Index> const& want,
                   double rel_tol = 0) {
    comparison r;
    if (got.size() != want.size()) {
        r.shape_error = "got a vector of size " + std::to_string(got.size()) + ", want " +
                        std::to_string(want.size());
        return r;
    }
    detail::recorder rec{r};
    std::size_t kg = 0, kw = 0;
    while (kg < got.nnz() || kw < want.nnz()) {
        std::size_t const jg = kg < got.nnz() ? std::size_t(got.indices()[kg]) : SIZE_MAX;
        std::size_t const jw = kw < want.nnz() ? std::size_t(want.indices()[kw]) : SIZE_MAX;
        ++r.compared;
        if (jg == jw) {
            if (!detail::same_value(got.values()[kg], want.values()[kw], rel_tol))
                rec.add(jg, 0, detail::show(got.values()[kg]), detail::show(want.values()[kw]));
            ++kg, ++kw;
        } else if (jg < jw) {
            rec.add(jg, 0, detail::show(got.values()[kg]), "absent");
            ++kg;
        } else {
            rec.add(jw, 0, "absent", detail::show(want.values()[kw]));
            ++kw;
        }
    }
    return r;
}

template <class T>
comparison compare(dense_vector<T> const& got, dense_vector<T> const& want, double rel_tol = 0) {
    comparison r;
    if (got.size() != want.size()) {
        r.shape_error = "got a vector of size " + std::to_string(got.size()) + ", want " +
                        std::to_string(want.size());
        return r;
    }
    detail::recorder rec{r};
    for (std::size_t i = 0; i < got.size(); ++i) {
        ++r.compared;
        if (!detail::same_value(got[i], want[i], rel_tol))
            rec.add(i, 0, detail::show(got[i]), detail::show(want[i]));
    }
    return r;
}

}  // namespace kleene::graphblas

#pragma once
// Floyd-Warshall over min_plus on host dense views, in place: the plain triple loop (the reference
// every other APSP algorithm is tested against) and a blocked version (three phases per round,
// any n). Updates are d(i,j) = min(d(i,j), d(i,k) + d(k,j)) with min_plus<T>'s saturating add. The
// caller sets the diagonal (0 for the reflexive closure) before the call.

#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cstddef>
#include <string>

namespace kleene {

namespace detail {
template <class T>
inline T relax(T c, T a, T b) {
    return min_plus<T>::add(c, min_plus<T>::mul(a, b));
}

inline void require_square(char const* what, std::size_t rows, std::size_t cols) {
    if (rows != cols)
        throw dimension_mismatch(std::string(what) + ": the matrix must be square, not " +
                                 shape(rows, cols));
}

/// k outermost: c(i,j) = min(c(i,j), a(i,k) + b(k,j)) for k in order, where a or b may be c
/// itself (the dependent phases of blocked Floyd-Warshall).
template <class T>
void fw_dependent(dense_view<T> c, dense_view<T> a, dense_view<T> b) {
    for (std::size_t k = 0; k < a.cols; ++k)
        for (std::size_t i = 0; i < c.rows; ++i) {
            T const aik = a(i, k);
            if (aik == infinity<T>()) continue;
            T* ci = c.row(i);
            T const* bk = b.row(k);
            for (std::size_t j = 0; j < c.cols; ++j) ci[j] = relax(ci[j], aik, bk[j]);
        }
}

/// c = min(c, a min.+ b) with c disjoint from a and b (the independent phase).
template <class T>
void fw_independent(dense_view<T> c, dense_view<T const> a, dense_view<T const> b) {
    for (std::size_t i = 0; i < c.rows; ++i) {
        T* ci = c.row(i);
        for (std::size_t k = 0; k < a.cols; ++k) {
            T const aik = a(i, k);
            if (aik == infinity<T>()) continue;
            T const* bk = b.row(k);
            for (std::size_t j = 0; j < c.cols; ++j) ci[j] = relax(ci[j], aik, bk[j]);
        }
    }
}
}  // namespace detail

/// Plain Floyd-Warshall. Row k is relaxed first in round k, then the other rows in parallel.
template <class T>
void floyd_warshall(dense_view<T> a, step_hook const& on_step = {}) {
    detail::require_square("floyd_warshall", a.rows, a.cols);
    std::size_t const n = a.rows;
    for (std::size_t k = 0; k < n; ++k) {
        detail::step(on_step);
        T* rk = a.row(k);
        T const akk = rk[k];
        for (std::size_t j = 0; j < n; ++j) rk[j] = detail::relax(rk[j], akk, rk[j]);
#pragma omp parallel for schedule(static) if (n >= 256)
        for (std::size_t i = 0; i < n; ++i) {
            if (i == k) continue;
            T* ri = a.row(i);
            T const aik = ri[k];
            if (aik == infinity<T>()) continue;
            for (std::size_t j = 0; j < n; ++j) ri[j] = detail::relax(ri[j], aik, rk[j]);
        }
    }
}

/// Blocked Floyd-Warshall with b x b tiles: per round, the diagonal tile, then its row and
/// column of tiles, then every other tile (in parallel). on_step runs before each round.
template <class T>
void floyd_warshall_blocked(dense_view<T> a, std::size_t b = 64, step_hook const& on_step = {}) {
    detail::require_square("floyd_warshall_blocked", a.rows, a.cols);
    std::size_t const n = a.rows;
    if (b == 0) throw invalid_argument("floyd_warshall_blocked: tile size 0");
    std::size_t const tiles = (n + b - 1) / b;
    auto tile = [&](std::size_t ti, std::size_t tj) {
        return a.block(ti * b, tj * b, std::min(b, n - ti * b), std::min(b, n - tj * b));
    };
    for (std::size_t r = 0; r < tiles; ++r) {
        detail::step(on_step);
        auto const d = tile(r, r);
        detail::fw_dependent(d, d, d);
#pragma omp parallel for schedule(dynamic, 1) if (tiles > 2)
        for (std::size_t t = 0; t < 2 * tiles; ++t) {
            std::size_t const o = t / 2;
            if (o == r) continue;
            if (t % 2 == 0) {
                auto const s = tile(r, o);
                detail::fw_dependent(s, d, s);
            } else {
                auto const s = tile(o, r);
                detail::fw_dependent(s, s, d);
            }
        }
#pragma omp parallel for collapse(2) schedule(dynamic, 1) if (tiles > 2)
        for (std::size_t ti = 0; ti < tiles; ++ti)
            for (std::size_t tj = 0; tj < tiles; ++tj) {
                if (ti == r || tj == r) continue;
                detail::fw_independent<T>(tile(ti, tj), tile(ti, r), tile(r, tj));
            }
    }
}

}  // namespace kleene

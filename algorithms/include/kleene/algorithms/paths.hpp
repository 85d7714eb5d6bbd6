#pragma once
// Predecessors and path reconstruction. The predecessor matrix is rebuilt from the final
// distances, so it serves every APSP algorithm and device alike: from each source s (in
// parallel), a breadth-first search over the tight edges (u, v), d(s,u) + w(u,v) == d(s,v), gives
// every reachable v a predecessor on a shortest path; the search reaches v only from vertices it
// already reached, so zero-weight cycles cannot make the predecessors loop. Floating-point sums
// count as tight within a relative 1e-5 (fp32: 1e-4): tight.hpp. Cost O(n nnz) on the host.

#include <kleene/algorithms/tight.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene {


namespace detail {
/// One source's predecessors from its row of distances (dist(v) = d(s, v)): the breadth-first
/// search over the tight edges. pred (n values) gets the vertex before v, -1 for s and for
/// unreachable v; queue and seen are the caller's scratch (reused across sources).
template <class T, index_type Index, class Dist, class Pred>
void predecessor_row(csr_matrix<T, Index> const& a, std::size_t s, Dist&& dist, Pred* pred,
                     std::vector<std::size_t>& queue, std::vector<char>& seen) {
    std::size_t const n = a.rows();
    seen.assign(n, char(0));
    std::fill(pred, pred + n, Pred(-1));
    queue.assign(1, s);
    seen[s] = 1;
    for (std::size_t q = 0; q < queue.size(); ++q) {
        std::size_t const u = queue[q];
        T const du = dist(u);
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            T const w = a.value(k);
            if (seen[v] || w == infinity<T>() || dist(v) == infinity<T>()) continue;
            if (!tight(du, w, dist(v))) continue;
            seen[v] = 1;
            pred[v] = static_cast<Pred>(u);
            queue.push_back(v);
        }
    }
}
}  // namespace detail

/// pred(s, v) = the vertex before v on a shortest s -> v path; -1 for v == s and unreachable v.
template <class T, index_type Index>
dense_matrix<std::int32_t> predecessors(csr_matrix<T, Index> const& a, dense_view<T const> dist) {
    std::size_t const n = a.rows();
    if (dist.rows != n || dist.cols != n)
        throw dimension_mismatch("predecessors: distances are " + detail::shape(dist.rows, dist.cols) +
                                 " for a " + std::to_string(n) + "-vertex graph");
    dense_matrix<std::int32_t> pred(n, n, -1);
#pragma omp parallel
    {
        std::vector<std::size_t> queue;
        std::vector<char> seen;
#pragma omp for schedule(dynamic, 16)
        for (std::size_t s = 0; s < n; ++s)
            detail::predecessor_row(
                a, s, [&](std::size_t v) { return dist(s, v); }, &pred(s, 0), queue, seen);
    }
    return pred;
}

/// The vertices of the path from `from` to `to` the predecessors describe: {from} when they are
/// equal, empty when `to` is unreachable.
inline std::vector<std::int64_t> path(dense_view<std::int32_t const> pred, std::size_t from,
                                      std::size_t to) {
    std::size_t const n = pred.rows;
    if (from >= n || to >= n)
        throw invalid_argument("path: vertex " + std::to_string(from >= n ? from : to) +
                               " is not in a " + std::to_string(n) + "-vertex graph");
    if (from == to) return {static_cast<std::int64_t>(from)};
    if (pred(from, to) < 0) return {};
    std::vector<std::int64_t> p{static_cast<std::int64_t>(to)};
    for (std::size_t v = to; v != from;) {
        std::int32_t const u = pred(from, v);
        if (u < 0 || p.size() > n)
            throw invalid_argument("path: the predecessor matrix has no path from " +
                                   std::to_string(from) + " to " + std::to_string(to));
        v = static_cast<std::size_t>(u);
        p.push_back(u);
    }
    return {p.rbegin(), p.rend()};
}

}  // namespace kleene

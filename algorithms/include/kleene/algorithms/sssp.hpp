#pragma once
// Single-source shortest paths by Bellman-Ford over min_plus: d = d min (d min.+ A) until nothing
// changes. A change after n rounds means a negative cycle.

#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/mxm.hpp>
#include <kleene/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kleene {

namespace detail {
/// Given distances still improving after n rounds, relaxes once more with parents and walks back
/// n steps from an improved vertex: that lands on the cycle itself.
template <class T, index_type Index>
std::int64_t vertex_on_negative_cycle(csr_matrix<T, Index> const& a, dense_vector<T> dist) {
    std::size_t const n = a.rows();
    std::vector<std::int64_t> parent(n, -1);
    std::int64_t last = -1;
    for (std::size_t round = 0; round < n; ++round) {
        last = -1;
        for (std::size_t u = 0; u < n; ++u) {
            if (dist[u] == infinity<T>()) continue;
            for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
                std::size_t const v = a.col_idx()[k];
                T const cand = plus_sat_op<T>::apply(dist[u], a.value(k));
                if (cand < dist[v]) {
                    dist[v] = cand;
                    parent[v] = static_cast<std::int64_t>(u);
                    last = static_cast<std::int64_t>(v);
                }
            }
        }
    }
    if (last < 0) return 0;
    for (std::size_t step = 0; step < n && parent[last] >= 0; ++step) last = parent[last];
    return last;
}
}  // namespace detail

/// Distances from `source`; unreachable vertices hold infinity<T>().
template <class T, index_type Index>
dense_vector<T> sssp_bellman_ford(csr_matrix<T, Index> const& a, std::size_t source,
                                  options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("sssp: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (source >= a.rows())
        throw invalid_argument("sssp: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    std::size_t const n = a.rows();
    dense_vector<T> d(n, infinity<T>());
    d[source] = T(0);
    for (std::size_t round = 0; round <= n; ++round) {
        dense_vector<T> next = d;
        vxm(next, no_mask, min_op<T>{}, d, a, min_plus<T>{}, opt);
        bool changed = false;
        for (std::size_t v = 0; v < n; ++v) changed |= !(next[v] == d[v]);
        if (!changed) return d;
        if (round == n) throw negative_cycle(detail::vertex_on_negative_cycle(a, std::move(next)));
        d = std::move(next);
    }
    return d;
}

}  // namespace kleene

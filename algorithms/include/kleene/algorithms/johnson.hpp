#pragma once
// Johnson's APSP for sparse graphs on the CPU: Bellman-Ford from a virtual source gives
// potentials h with w(u,v) + h(u) - h(v) >= 0, then Dijkstra runs from every source in parallel
// on the reweighted graph. Sums are done in a wide type (int64 / double), so integer weights
// cannot overflow in between; results at or past the infinity sentinel read as unreachable.
// Entries equal to infinity<T>() are absent edges. The step hook (options.hpp) runs before each
// Bellman-Ford round and between batches of sources, outside the parallel regions.

#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>

#include <omp.h>

#include <algorithm>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

namespace detail {
template <class T>
using johnson_wide = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;

/// Potentials by Bellman-Ford from a virtual source joined to every vertex by a 0 edge. Throws
/// negative_cycle naming a vertex on the cycle (walks parents back n steps from a vertex still
/// improving in round n).
template <class T, index_type Index>
std::vector<johnson_wide<T>> johnson_potentials(csr_matrix<T, Index> const& a,
                                                step_hook const& on_step = {}) {
    using W = johnson_wide<T>;
    std::size_t const n = a.rows();
    std::vector<W> h(n, W(0));
    std::vector<std::int64_t> parent(n, -1);
    for (std::size_t round = 0; round <= n; ++round) {
        detail::step(on_step);
        std::int64_t last = -1;
        for (std::size_t u = 0; u < n; ++u)
            for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
                T const w = a.value(k);
                if (w == infinity<T>()) continue;
                auto const v = static_cast<std::size_t>(a.col_idx()[k]);
                W const cand = h[u] + W(w);
                if (cand < h[v]) {
                    h[v] = cand;
                    parent[v] = static_cast<std::int64_t>(u);
                    last = static_cast<std::int64_t>(v);
                }
            }
        if (last < 0) return h;
        if (round == n) {
            for (std::size_t s = 0; s < n; ++s) last = parent[static_cast<std::size_t>(last)];
            throw negative_cycle(last);
        }
    }
    return h;
}
}  // namespace detail

/// All-pairs distances (infinity<T>() where unreachable, 0 on the diagonal). With a hook, the
/// sources run in batches of 32 per thread (two dynamic chunks each), the hook before each batch.
template <class T, index_type Index>
dense_matrix<T> johnson(csr_matrix<T, Index> const& a, step_hook const& on_step = {}) {
    using W = detail::johnson_wide<T>;
    if (a.rows() != a.cols())
        throw dimension_mismatch("johnson: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    std::size_t const n = a.rows();
    std::vector<W> const h = detail::johnson_potentials(a, on_step);
    dense_matrix<T> d(n, n, infinity<T>());
    W const inf = std::numeric_limits<W>::max();
    std::size_t const batch = on_step ? 32 * static_cast<std::size_t>(omp_get_max_threads())
                                      : std::max<std::size_t>(n, 1);
    for (std::size_t first = 0; first < n; first += batch) {
        detail::step(on_step);
        std::size_t const last = std::min(n, first + batch);
#pragma omp parallel
        {
            std::vector<W> dist(n, inf);
            std::vector<std::size_t> touched;
            using item = std::pair<W, std::size_t>;
            std::priority_queue<item, std::vector<item>, std::greater<item>> heap;
#pragma omp for schedule(dynamic, 16)
            for (std::size_t s = first; s < last; ++s) {
                for (std::size_t v : touched) dist[v] = inf;
                touched.clear();
                dist[s] = W(0);
                touched.push_back(s);
                heap.emplace(W(0), s);
                while (!heap.empty()) {
                    auto const [du, u] = heap.top();
                    heap.pop();
                    if (du > dist[u]) continue;
                    for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
                        T const w = a.value(k);
                        if (w == infinity<T>()) continue;
                        auto const v = static_cast<std::size_t>(a.col_idx()[k]);
                        W rw = W(w) + h[u] - h[v];
                        if (rw < W(0)) rw = W(0);  // rounding of the floating potentials
                        W const cand = du + rw;
                        if (cand < dist[v]) {
                            if (dist[v] == inf) touched.push_back(v);
                            dist[v] = cand;
                            heap.emplace(cand, v);
                        }
                    }
                }
                for (std::size_t v : touched) {
                    W const real = dist[v] - h[s] + h[v];
                    if constexpr (std::is_floating_point_v<T>) {
                        d(s, v) = static_cast<T>(real);
                    } else {
                        d(s, v) = real >= W(infinity<T>()) ? infinity<T>()
                                  : real <= W(std::numeric_limits<T>::lowest())
                                      ? std::numeric_limits<T>::lowest()
                                      : static_cast<T>(real);
                    }
                }
            }
        }
    }
    return d;
}

}  // namespace kleene

#pragma once
// Finding a vertex on a negative cycle once Bellman-Ford has shown there is one: host code
// without OpenMP, shared by the CPU SSSP (sssp.hpp) and the GPU batched Bellman-Ford
// (algorithms/cuda/src/apsp_batched.cu).

#include <kleene/csr_matrix.hpp>
#include <kleene/operators.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace kleene {

namespace detail {
/// Relaxes from `dist` for at most `rounds` rounds (the first over every vertex, then over the
/// vertices improved in the round before) with parents, and after each round walks up the parents
/// from the last improved vertex: a cycle among the parents is a negative cycle. Returns a vertex
/// on it, or -1 when none showed (nothing left to improve, or the rounds ran out).
template <class T, index_type Index>
std::int64_t find_negative_cycle(csr_matrix<T, Index> const& a, dense_vector<T>& dist,
                                 std::size_t rounds) {
    std::size_t const n = a.rows();
    std::vector<std::int64_t> parent(n, -1);
    std::vector<std::size_t> walked(n, 0);  // == round + 1: met on this round's walk
    std::vector<char> queued(n, 0);
    std::vector<std::size_t> frontier, next;
    for (std::size_t u = 0; u < n; ++u)
        if (!(dist[u] == infinity<T>())) frontier.push_back(u);
    for (std::size_t round = 0; round < rounds && !frontier.empty(); ++round) {
        for (std::size_t u : frontier) queued[u] = 0;
        next.clear();
        std::int64_t last = -1;
        for (std::size_t u : frontier)
            for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
                std::size_t const v = a.col_idx()[k];
                T const cand = plus_sat_op<T>::apply(dist[u], a.value(k));
                if (cand < dist[v]) {
                    dist[v] = cand;
                    parent[v] = static_cast<std::int64_t>(u);
                    last = static_cast<std::int64_t>(v);
                    if (!queued[v]) {
                        queued[v] = 1;
                        next.push_back(v);
                    }
                }
            }
        frontier.swap(next);
        std::int64_t x = last;
        while (x >= 0 && walked[static_cast<std::size_t>(x)] != round + 1) {
            walked[static_cast<std::size_t>(x)] = round + 1;
            x = parent[static_cast<std::size_t>(x)];
        }
        if (x >= 0) return x;  // met twice on one walk: on the cycle
    }
    return -1;
}

/// Given distances still improving after n rounds, a vertex on a negative cycle: the cycle among
/// the parents of further relaxations (or, failing that, n steps up from an improved vertex).
template <class T, index_type Index>
std::int64_t vertex_on_negative_cycle(csr_matrix<T, Index> const& a, dense_vector<T> dist) {
    std::int64_t const v = find_negative_cycle(a, dist, a.rows() + 1);
    return v >= 0 ? v : 0;
}
}  // namespace detail

}  // namespace kleene

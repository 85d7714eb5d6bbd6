#pragma once
// Breadth-first search as repeated vector x matrix products over a Boolean semiring: the next
// frontier is frontier (any.pair) A, masked by the complement of the visited set.

#include <kleene/convert.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/mxm.hpp>
#include <kleene/vector.hpp>

#include <cstdint>
#include <vector>

namespace kleene {

/// The structure of A as a Boolean pattern matrix (values dropped, every entry true).
template <class T, index_type Index>
csr_matrix<bool, Index> pattern_of(csr_matrix<T, Index> const& a) {
    return {a.rows(), a.cols(), a.row_ptr_storage(), a.col_idx_storage(), buffer<bool>{}, true, true};
}

/// Level of every vertex reached from `source` (0 at the source), -1 where unreachable.
template <class T, index_type Index>
std::vector<std::int64_t> bfs_levels(csr_matrix<T, Index> const& a, std::size_t source,
                                     options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("bfs: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (source >= a.rows())
        throw invalid_argument("bfs: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    std::size_t const n = a.rows();
    auto const p = pattern_of(a);
    std::vector<std::int64_t> level(n, -1);
    dense_vector<bool> visited(n, false);
    sparse_vector<bool, Index> frontier(n, buffer<Index>{static_cast<Index>(source)}, buffer<bool>{true});
    options o = opt;
    o.replace = true;
    for (std::int64_t depth = 0; frontier.nnz() > 0; ++depth) {
        for (std::size_t k = 0; k < frontier.nnz(); ++k) {
            level[frontier.indices()[k]] = depth;
            visited[frontier.indices()[k]] = true;
        }
        sparse_vector<bool, Index> next(n);
        vxm(next, complement(mask(visited)), no_accum, frontier, p, any_pair<bool>{}, o);
        frontier = std::move(next);
    }
    return level;
}

}  // namespace kleene

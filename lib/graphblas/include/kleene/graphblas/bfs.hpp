#pragma once
// Breadth-first search computed by SuiteSparse:GraphBLAS: the oracle for kleene::bfs (tests,
// `kleene compare bfs`, bench_bfs_cpu_vs_graphblas). The algorithm is LAGraph's: the next frontier
// is q'<!visited> = q' A (push, GrB_vxm on a sparse q) or q<!visited> = A' q (pull, GrB_mxv on a
// bitmap q) under the complemented structural mask of the visited set, switching by the
// unexplored-edge rule (alpha = 8, beta = 512); any.pair gives levels, any.secondi parents. Every
// step is a GrB call: nothing of kleene's runs between the input's conversion and the result's.

#include <cstddef>
#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/graphblas/convert.hpp>
#include <span>
#include <vector>

namespace kleene::graphblas {

struct bfs_oracle_result {
    std::vector<std::int64_t> level;   ///< -1 where unreached
    std::vector<std::int64_t> parent;  ///< -1 where unreached; the source is its own parent
    double ms = 0;                     ///< the traversal in GraphBLAS, vectors included
};

/// One graph, many searches: A converted once (and A' when A is not symmetric), with its
/// out-degrees (LAGraph caches both as graph properties).
class bfs_oracle {
  public:
    /// `a` is square; `symmetric` says A' == A, so pull steps read A itself.
    bfs_oracle(csr_matrix<bool> const& a, bool symmetric);
    ~bfs_oracle();
    bfs_oracle(bfs_oracle const&) = delete;
    bfs_oracle& operator=(bfs_oracle const&) = delete;

    /// Levels from `source` (and parents when asked).
    bfs_oracle_result run(std::size_t source, bool parents) const;

  private:
    std::size_t n_ = 0, nvals_ = 0;
    matrix a_, at_;  // at_ is empty when A is symmetric
    GrB_Vector degree_ = nullptr;
};

/// True when `parent` is a valid BFS tree for `level`: the source is its own parent, every other
/// reached vertex has a parent one level up with an edge to it, unreached vertices have none.
/// BFS parents are not unique, so two libraries' parent vectors are compared through this.
bool valid_bfs_tree(csr_matrix<bool> const& a, std::size_t source,
                    std::span<std::int64_t const> level, std::span<std::int64_t const> parent);

}  // namespace kleene::graphblas

#pragma once
// Beamer's direction-optimising switch (Beamer, Asanovic and Patterson, SC 2012), the one
// definition that the CPU BFS (bfs.hpp), both GPU BFS loops (algorithms/cuda/src/graph_bfs*.cu)
// and the GPU betweenness sweep (graph_kernels_bc.cu) call, from host or device code. A level
// either pushes (the frontier's out-edges are scattered) or pulls (each unvisited vertex looks
// for a parent among its in-neighbours):
//   push -> pull once the frontier's edges exceed 1 / alpha of the edges not yet explored (those
//                of unvisited vertices) and the frontier is still growing;
//   pull -> push once the frontier holds fewer than n / beta vertices and no longer grows.
// The growth tests keep a search from switching on the way down from its peak level (GAP's BFS
// has the second one).

#include <kleene/semiring.hpp>  // KLEENE_HD

namespace kleene::beamer {

/// The BFS defaults, CPU and GPU (bfs_options, cuda::bfs_tuning): on Kronecker graphs alpha
/// 15..30 with beta 64..512 came within 5% of the best on a 16-thread Xeon, and beta 512 beat 18
/// on an H200 (docs/lab/header-measurements.md).
inline constexpr double default_alpha = 15.0;
inline constexpr double default_beta = 512.0;

/// Pull -> push: the frontier is below min_frontier (n / beta; negative: never) and not growing.
KLEENE_HD constexpr bool pull_gives_way(unsigned long long frontier, unsigned long long previous,
                                        double min_frontier) {
    return double(frontier) < min_frontier && frontier <= previous;
}

/// The edge half of push -> pull: the frontier's edges exceed 1 / alpha of the unexplored ones.
KLEENE_HD constexpr bool pull_pays(double frontier_edges, double unexplored_edges, double alpha) {
    return frontier_edges > unexplored_edges / alpha;
}

/// Whether the next level pulls, given whether this one pulled, the sizes of this frontier and the
/// one before, the frontier's edges and the unexplored edges.
KLEENE_HD constexpr bool next_pulls(bool pull, unsigned long long frontier,
                                    unsigned long long previous, double frontier_edges,
                                    double unexplored_edges, double alpha, double min_frontier) {
    if (!pull) return pull_pays(frontier_edges, unexplored_edges, alpha) && frontier > previous;
    return !pull_gives_way(frontier, previous, min_frontier);
}

}  // namespace kleene::beamer

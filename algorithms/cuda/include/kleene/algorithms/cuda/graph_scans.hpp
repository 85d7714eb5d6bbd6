#pragma once
// Passes over a device graph that kleene::graph (graph_object.hpp) and the graph overloads of
// graph.hpp run instead of reading a host copy of A: the degrees, the symmetry, the weights'
// summary, and sssp's two passes over its distances (the saturated-sum check and the tight-edge
// tree). Implemented in algorithms/cuda/src/graph_scans.cu; in a build without CUDA every entry
// point throws kleene::no_device. Each runs on the context's stream and returns once the stream
// has done it; what the host reads back is a few values or a vector of n, never the matrix.
//
// Instances: symmetry and the weights for float, double, int32, int64 and bool values; the sssp
// passes for float, double, int32 and int64; index types int32 and int64.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/detail/device_entry.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// Entries per row of the pattern p (columns: per column), as a host vector of p.rows() values.
/// Columns are counted with integer atomics: the same counts every run.
template <index_type Index>
KLEENE_DEVICE_ENTRY std::vector<std::int64_t> degrees(csr_matrix<bool, Index, device> const& p,
                                                     bool columns,
                                                     context& ctx) KLEENE_DEVICE_VALUE;

struct graph_symmetry {
    bool structure = false;  ///< every entry (i, j) has its mirror (j, i)
    bool values = false;     ///< and each value equals its mirror's (==: a NaN never does)
};

/// Whether the square A equals A': each entry looks its mirror up in its column's row (rows
/// sorted, binary search), so no transpose is made.
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY graph_symmetry symmetry(csr_matrix<T, Index, device> const& a,
                                            context& ctx) KLEENE_DEVICE_VALUE;

/// One pass over the weights of A (its values, or the iso value of each entry): what
/// sssp.hpp's summarise_weights and path_weights.hpp's weight_bound compute on the host.
template <class T>
struct weight_pass {
    bool empty = true;  ///< no entries (the rest is then zero)
    T min{};
    T max{};
    double sum = 0;          ///< the sum of the weights (exact in int64 first for narrow integers)
    long double bound = 0;   ///< B: the sum over rows of the largest |weight| of the row
    bool non_finite = false;   ///< some weight is NaN or infinite
    std::int64_t bad_row = -1; ///< the last row with such a weight (weight_bound names its first)
    std::int64_t bad_col = -1; ///< that weight's column
    double bad_value = 0;      ///< and the weight
};
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY weight_pass<T> scan_weights(csr_matrix<T, Index, device> const& a,
                                                context& ctx) KLEENE_DEVICE_VALUE;

/// sssp's proof of a saturated sum (sssp_cpu.hpp's check_no_saturated_distance): an edge (u, v)
/// from a reached u (dist[u] not infinity<T>()) to an unreached v. `to` is the smallest such v
/// (-1: none), `from` the smallest u with an edge to it, `dist_from` and `weight` that edge's.
template <class T>
struct saturated_edge {
    std::int64_t to = -1;
    std::int64_t from = -1;
    T dist_from{};
    T weight{};
};
/// dist: n device values, the distances of an sssp run on A.
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY saturated_edge<T> first_saturated_edge(csr_matrix<T, Index, device> const& a,
                                                           T const* dist,
                                                           context& ctx) KLEENE_DEVICE_VALUE;

/// sssp_cpu.hpp's tight_edge_tree on the device: parent (n device values) = for every v the vertex
/// before it in a breadth-first search from `source` over the edges with dist[u] (+) w == dist[v]
/// (saturating for integers), the source its own, -1 where unreached. A level a launch; which of
/// several tight in-edges of v one level offers becomes its parent is left to the atomics.
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY void tight_edge_tree(csr_matrix<T, Index, device> const& a, std::size_t source,
                                         T const* dist, std::int64_t* parent,
                                         context& ctx) KLEENE_DEVICE_BODY;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

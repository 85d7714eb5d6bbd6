#pragma once
// GPU kernels of the graph-analytics set (the GAP benchmark's CC, PageRank, triangle counting and
// betweenness centrality) on device CSR patterns. Implemented in
// algorithms/cuda/src/graph_kernels*.cu; in a build without CUDA every entry point throws
// kleene::no_device (kleene/detail/device_entry.hpp), never a silent CPU run. The host front ends with
// options, method choice and explain traces live in
// algorithms/include/kleene/algorithms/{components,pagerank,triangles,centrality}.hpp.
//
// Graphs are square Boolean CSR patterns on the device (row u lists the out-neighbours of u; values
// are ignored). Where a kernel needs the in-neighbours it takes the transpose `at` (for a symmetric
// graph pass the same matrix twice). Results come back as host vectors.
//
// Each entry point runs on the stream of the context it is given (context::stream(); the overloads
// without one take default_context()) and returns once that stream has done its work.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/vector.hpp>
#include <kleene/vector_for_overwrite.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

// ---- connected components -------------------------------------------------------------------------

enum class cc_kernel : std::uint8_t { fastsv, afforest };

struct cc_run {
    /// Component of every vertex, named by the smallest vertex number in it.
    vector_for_overwrite<std::int64_t> component;
    std::size_t count = 0;  ///< number of components
    int iterations = 0;     ///< FastSV rounds, or Afforest's sampling rounds + final passes
    double seconds = 0;     ///< device time of the kernels (events), without the copy back
    std::vector<std::string> notes;  ///< lines for the explain trace
};

/// Components of the undirected graph `a` (a symmetric pattern: the caller symmetrises a directed
/// graph first, which gives its weakly connected components).
template <index_type Index>
KLEENE_DEVICE_ENTRY cc_run connected_components(csr_matrix<bool, Index, device> const& a,
                                                cc_kernel kernel, context& ctx) KLEENE_DEVICE_VALUE;
template <index_type Index>
cc_run connected_components(csr_matrix<bool, Index, device> const& a, cc_kernel kernel) {
    return connected_components<Index>(a, kernel, default_context());
}
/// The same into `run`, whose component vector keeps its storage: a caller that runs again into
/// the last run's result writes the labels into memory it has already touched (a fresh result's
/// first touch of its pages costs more than the copy itself: docs/performance.md).
template <index_type Index>
KLEENE_DEVICE_ENTRY void connected_components(cc_run& run,
                                              csr_matrix<bool, Index, device> const& a,
                                              cc_kernel kernel, context& ctx) KLEENE_DEVICE_BODY;
/// The same, with the labels left on the device in the caller's vector of n entries (written on
/// the context's stream, nothing copied back: run.component stays empty).
template <index_type Index>
KLEENE_DEVICE_ENTRY cc_run connected_components(csr_matrix<bool, Index, device> const& a,
                                                dense_vector<std::int64_t, device>& component,
                                                cc_kernel kernel, context& ctx) KLEENE_DEVICE_VALUE;

// ---- PageRank -------------------------------------------------------------------------------------

/// semiring and fused are Jacobi steps (every vertex from the last step's ranks; the ranks are the
/// same from run to run). gauss_seidel is the fused pass with one contribution array, updated in
/// place: a vertex reads the contributions of in-neighbours that this pass already updated
/// (those walked earlier by any thread), as GAP's pr.cc does on the CPU. Same fixed point and
/// stopping rule; far fewer steps on a large low-degree graph (NE: 22 against 37), more on a
/// skewed one (Kronecker scale 22: 19 against 7); not bit-reproducible from run to run.
enum class pagerank_kernel : std::uint8_t { semiring, fused, gauss_seidel };

struct pagerank_params {
    double damping = 0.85;
    double tolerance = 1e-4;  ///< stop when the L1 norm of the change of the ranks is below this
    int max_iterations = 100;
    /// false (the GAP definition): the rank of a vertex without out-edges is lost each step.
    /// true: it is spread evenly over all vertices (LAGraph_PageRank's, networkx's definition).
    bool redistribute_dangling = false;
};

struct pagerank_run {
    vector_for_overwrite<double> rank;
    int iterations = 0;
    double change = 0;  ///< L1 change of the last iteration
    double seconds = 0;
    std::vector<std::string> notes;
};

/// PageRank of `a` (row u: out-edges of u); `at` its transpose (the in-edges each vertex pulls).
template <index_type Index>
KLEENE_DEVICE_ENTRY pagerank_run pagerank(csr_matrix<bool, Index, device> const& a,
                                          csr_matrix<bool, Index, device> const& at,
                                          pagerank_params const& params, pagerank_kernel kernel,
                                          context& ctx) KLEENE_DEVICE_VALUE;
template <index_type Index>
pagerank_run pagerank(csr_matrix<bool, Index, device> const& a,
                      csr_matrix<bool, Index, device> const& at, pagerank_params const& params,
                      pagerank_kernel kernel) {
    return pagerank<Index>(a, at, params, kernel, default_context());
}
/// The same into `run`, whose rank vector keeps its storage (as connected_components(run, ...)).
template <index_type Index>
KLEENE_DEVICE_ENTRY void pagerank(pagerank_run& run, csr_matrix<bool, Index, device> const& a,
                                  csr_matrix<bool, Index, device> const& at,
                                  pagerank_params const& params, pagerank_kernel kernel,
                                  context& ctx) KLEENE_DEVICE_BODY;
/// The same, with the ranks left on the device in the caller's vector of n entries (written on
/// the context's stream, nothing copied back: run.rank stays empty).
template <index_type Index>
KLEENE_DEVICE_ENTRY pagerank_run pagerank(csr_matrix<bool, Index, device> const& a,
                                          csr_matrix<bool, Index, device> const& at,
                                          pagerank_params const& params, pagerank_kernel kernel,
                                          dense_vector<double, device>& rank,
                                          context& ctx) KLEENE_DEVICE_VALUE;

/// The largest number of entries in a row of `a` (the largest out-degree), read back on the
/// context's stream: the skew the automatic PageRank method reads.
template <index_type Index>
KLEENE_DEVICE_ENTRY std::int64_t max_row_entries(csr_matrix<bool, Index, device> const& a,
                                                 context& ctx) KLEENE_DEVICE_VALUE;

// ---- triangle counting ----------------------------------------------------------------------------

struct tc_run {
    std::uint64_t triangles = 0;
    bool relabelled = false;  ///< vertices were renumbered by degree before counting
    double seconds = 0;
    std::vector<std::string> notes;
};

/// How the GPU count runs its intersections. The defaults are the measured best
/// (bench/gpu/bench_tc_gpu compares the choices; docs/lab/performance-history.md has the numbers).
struct tc_tuning {
    /// One thread per entry of U; false: the row walk (a lane per short row of U, which then
    /// intersects its row's entries one after the other).
    bool entry_parallel = false;
    /// Sort the queued pairs of long lists by their second vertex v, so that the lane groups of
    /// one block search the same U(v) and find it in their cache.
    bool sort_queue = true;
    /// Sort U's rows as one radix sort of (row, column) keys instead of a segmented sort (when
    /// both fit 64 bits).
    bool radix_rows = true;
    /// A thread merges two lists of at most merge_max entries in all; otherwise it looks the
    /// shorter one's elements up by binary search when there are at most search_max of them;
    /// other pairs are queued for groups of 8 lanes.
    int merge_max = 96;
    int search_max = 8;
    /// A queued pair whose longer list L is at most heavy_merge * s * log2(L / 8) long (s: the
    /// shorter) is merged by its lane group (each lane a slice of L) instead of searched (memory
    /// sectors read along the lists against those of s binary searches); 0: always search.
    float heavy_merge = 1.5f;
};

/// Triangles of the undirected graph `a` (symmetric pattern; self-loops and the diagonal are
/// ignored). relabel: renumber vertices by increasing degree first (Sandia / LAGraph's sort).
template <index_type Index>
KLEENE_DEVICE_ENTRY tc_run triangle_count(csr_matrix<bool, Index, device> const& a, bool relabel,
                                          tc_tuning const& tuning,
                                          context& ctx) KLEENE_DEVICE_VALUE;
template <index_type Index>
tc_run triangle_count(csr_matrix<bool, Index, device> const& a, bool relabel,
                      tc_tuning const& tuning = {}) {
    return triangle_count<Index>(a, relabel, tuning, default_context());
}

// ---- betweenness centrality ----------------------------------------------------------------------

struct bc_run {
    /// Brandes' dependency sums over the given sources (unnormalised; an undirected graph counts
    /// each pair once per direction, as GAP and LAGraph do).
    vector_for_overwrite<double> centrality;
    double seconds = 0;
    std::vector<std::string> notes;
};

/// Betweenness centrality from a batch of sources (unweighted shortest paths). `at` is the
/// transpose of `a` (pass `a` again when the graph is symmetric).
template <index_type Index>
KLEENE_DEVICE_ENTRY bc_run betweenness(csr_matrix<bool, Index, device> const& a,
                                       csr_matrix<bool, Index, device> const& at,
                                       std::vector<std::int64_t> const& sources,
                                       context& ctx) KLEENE_DEVICE_VALUE;
template <index_type Index>
bc_run betweenness(csr_matrix<bool, Index, device> const& a,
                   csr_matrix<bool, Index, device> const& at,
                   std::vector<std::int64_t> const& sources) {
    return betweenness<Index>(a, at, sources, default_context());
}
/// The same into `run`, whose centrality vector keeps its storage (as connected_components(run,
/// ...)).
template <index_type Index>
KLEENE_DEVICE_ENTRY void betweenness(bc_run& run, csr_matrix<bool, Index, device> const& a,
                                     csr_matrix<bool, Index, device> const& at,
                                     std::vector<std::int64_t> const& sources,
                                     context& ctx) KLEENE_DEVICE_BODY;
/// The same with the scores left on the device, in the caller's vector of n entries (written on
/// the context's stream, nothing copied back: run.centrality stays empty).
template <index_type Index>
KLEENE_DEVICE_ENTRY bc_run betweenness(csr_matrix<bool, Index, device> const& a,
                                       csr_matrix<bool, Index, device> const& at,
                                       std::vector<std::int64_t> const& sources,
                                       dense_vector<double, device>& centrality,
                                       context& ctx) KLEENE_DEVICE_VALUE;
/// v[0..n) divided by its largest value, on the device, when that is positive (scores >= 0, as
/// betweenness's: bc_options::normalize for scores left on the device); returns the largest.
KLEENE_DEVICE_ENTRY double scale_by_largest(double* v, std::size_t n,
                                            context& ctx) KLEENE_DEVICE_VALUE;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

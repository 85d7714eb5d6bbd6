#pragma once
// GPU traversals on device CSR graphs: BFS (levels and parents, direction-optimising) and SSSP
// (frontier Bellman-Ford, delta-stepping). Implemented in algorithms/cuda/src/graph*.cu; in a build
// without CUDA every entry point throws kleene::no_device. The host-side front ends with options
// and explain traces live in algorithms/include/kleene/algorithms/{bfs,sssp}.hpp.
//
// Graphs are square CSR adjacency matrices on the device (row u lists the out-neighbours of u).
// Pull steps need the in-neighbours: pass the transpose (for a symmetric graph, the same matrix).
//
// Each entry point runs on the stream of the context it is given (context::stream(); the overloads
// without one take default_context()) and returns once that stream has done its work.

#include <kleene/algorithms/beamer.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/vector.hpp>
#include <kleene/vector_for_overwrite.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// How a BFS level expands the frontier.
enum class bfs_direction : std::uint8_t { automatic, push, pull };

/// device: the whole search in one cooperative kernel that applies the switching rule between
/// levels itself (graph_bfs_loop.cu). host: a launch per step with the counters read back, pull
/// steps in gated batches of pull_batch. async: no levels at all, one kernel relaxing levels
/// from a work list with atomic min (graph_async.cuh; push only), for graphs of high diameter.
/// automatic: async for direction-optimising searches on graphs of at most async_degree
/// out-edges a vertex on average (road networks, meshes), else the device loop; the host loop
/// for forced push or pull. A device without cooperative launch runs the host loop, and a full
/// work list (a writer waiting over 4 ms for its slot) the device loop; bfs_run says which ran.
enum class bfs_loop : std::uint8_t { automatic, device, host, async };

struct bfs_tuning {
    bfs_direction direction = bfs_direction::automatic;
    /// Push -> pull when the frontier's out-edges exceed (unvisited edges) / alpha; pull -> push when
    /// the frontier has fewer than n / beta vertices (Beamer's rule). The best of a sweep of
    /// both on Kronecker graphs (bench_sparse_gpu KLEENE_BFS_SWEEP; docs/lab/).
    double alpha = beamer::default_alpha;
    double beta = beamer::default_beta;
    /// Host loop only: pull steps enqueued per host round trip; the device applies the switching
    /// rule between them and later ones return at once (1: a round trip every level). 3 was the
    /// best of 1, 3, 6 and 12 in the same sweep.
    int pull_batch = 3;
    /// Where the level loop runs (bfs_loop). The device loop saves a search's launches and round
    /// trips; forced push and forced pull, whose levels are large, ran slower in it (its grid
    /// holds half the threads of the host loop's pull launches; docs/performance.md).
    bfs_loop loop = bfs_loop::automatic;
    /// Device loop: blocks a SM, 2 (measured best) or 4 (kleene::tuning::bfs_loop_blocks).
    int loop_blocks = 2;
    /// Device loop: push levels of at most 2048 vertices and this many out-edges run in one block,
    /// level after level, while the grid waits (graph_bfs_loop.cu); 0: every level on the grid,
    /// in a kernel built without block 0's levels. Negative (automatic): 8192 on graphs of at most
    /// small_levels_degree edges a vertex, whose levels are many and small (NE with the device
    /// loop forced: 21.7 ms against 40.1 without), else 0: the code and shared memory of block 0's
    /// levels cost the grid's levels more than those levels save on graphs of few, large levels
    /// (the 64-register kernel spilled; Kronecker 22 0.371 against 0.330 ms, uniform 22 0.583
    /// against 0.549; H200, 2026-11-30).
    long long block_edges = -1;
    /// The automatic block_edges' bound on the mean degree (entries of A' over n); NaN or
    /// negative: never.
    double small_levels_degree = 8;
    /// Device loop: time the search's parts on the device's clock (thread 0 of block 0) for the
    /// profile line of run.notes. A kernel of its own: the clock's values held across a level
    /// cost registers the kernel without it keeps (Kronecker 22 spilled and ran 9% slower). The
    /// front end sets it when an explain trace is asked for.
    bool profile = false;
    /// automatic picks the asynchronous work list when nnz <= async_degree x n (road networks
    /// have 2-3 edges a vertex, the Kronecker and uniform graphs of the benchmarks 16-64; 0: never).
    double async_degree = 8;
    /// The work list's kernel: warps a multiprocessor (one block each), in [1, 32]. 4: NY 1.61
    /// ms against 1.72 with 8, NE equal (H200; SSSP wants 8).
    int async_warps = 4;
    /// The work list's idle warps pause this long between polls (nanoseconds, at most 1e6).
    unsigned async_poll_ns = 256;
    /// Of the vertices a warp of the work list lowers in a round from the list's items, this
    /// many (at most 32) it relaxes next itself instead of appending them: that step of a chain
    /// of lowerings then skips the list's write, a reader's poll and its load. 0: every one goes
    /// on the list (BFS: 32 is equal on NE and 7% slower on NY; H200, 2026-11-30).
    unsigned async_keep = 0;
    /// Before the work list, the search runs level by level in one block (the visited set a bit
    /// a vertex in its shared memory) while a level holds at most this many vertices and the
    /// levels take it at most async_block_level_us on average; the work list takes over from the
    /// first level past either, with it as its starting items. Graphs whose visited bits do not
    /// fit one block's shared memory (about 1.8 M vertices on an H200) start on the work list.
    /// 0: the work list from the source.
    long long async_block_frontier = 4096;
    /// The block hands over to the work list once its levels' mean time (an exponential mean
    /// over about 16 levels, on the multiprocessor's clock) exceeds this many microseconds: one
    /// multiprocessor takes a level of n vertices in about 0.9 + 0.003 n us, the work list a
    /// step in about 3 (H200), so that small levels stay in the block and a run of large ones
    /// leaves it, whatever the graph. 0: no limit of time (async_block_frontier alone).
    /// H200, 2026-12-01, against the earlier 512 vertices and no limit of time: NY 1.24-1.27 ms
    /// against 1.32-1.36 (every level in the block), NE 4.91-4.95 against 4.88-4.92 (230 levels
    /// in the block, then the work list); 2.5 and 3 kept less of NY's gain, 4 and 5 cost NE 2-3%.
    double async_block_level_us = 3.5;
    /// Where the block hands over, the levels go on in a thread-block cluster of this many
    /// blocks (Hopper: compute capability 9.0 or more; a power of two, at most 16), level by level
    /// with the visited bits spread over the cluster's shared memory, until a level holds more
    /// than async_cluster_frontier vertices or outgrows a block's queue; then the work list.
    /// 0: no cluster, the work list takes over from the block (as on devices below 9.0, or where
    /// a cluster of this size cannot be scheduled). Measured (H200, 2026-12-01, twenty-seventh
    /// session): NE 4.78-4.79 ms against the work list's 4.84-4.86 after the block's 240 levels
    /// (8 blocks were slower in the twenty-sixth session); NY unchanged (the block keeps every
    /// level); Kronecker and uniform graphs do not take this path.
    int async_cluster_blocks = 16;
    /// The cluster hands a level of more than this many vertices to the work list (0: no bound;
    /// a level past a block's queue goes there all the same).
    long long async_cluster_frontier = 65536;
    /// (vertex, parent) pairs a cluster block's queue holds a level; past it a level goes to
    /// the work list. 0: as many as its shared memory holds (a knob for the tests).
    long long async_cluster_queue = 0;
};

/// What a GPU BFS hands back (host vectors, -1 where unreachable) and how it ran.
struct bfs_run {
    vector_for_overwrite<std::int64_t> level;
    vector_for_overwrite<std::int64_t> parent;  // empty unless parents were asked for
    std::vector<char> step_was_pull;   // one per level expanded: 1 pull, 0 push
    double seconds = 0;                // device time of the traversal alone (events)
    std::size_t levels = 0;            // the deepest level reached + 1
    bool device_loop = false;          // the search ran as one cooperative kernel
    bool async = false;                // the search ran on the asynchronous work list
    bool one_block = false;  // its first levels (or all, where async is false) ran in one block
    bool cluster = false;    // levels after the block's ran in a thread-block cluster
    std::vector<std::string> notes;    // how the levels ran, for the explain trace
};

/// BFS from `source`. `at` is the transpose of `a` (pass `a` again when the graph is symmetric).
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY bfs_run bfs(csr_matrix<T, Index, device> const& a,
                                csr_matrix<T, Index, device> const& at, std::size_t source,
                                bool parents, bfs_tuning const& tuning,
                                context& ctx) KLEENE_DEVICE_VALUE;
template <class T, index_type Index>
bfs_run bfs(csr_matrix<T, Index, device> const& a, csr_matrix<T, Index, device> const& at,
            std::size_t source, bool parents, bfs_tuning const& tuning = {}) {
    return bfs<T, Index>(a, at, source, parents, tuning, default_context());
}
/// The same search into `run`, whose level and parent vectors keep their storage: a caller that
/// searches again into the last search's result writes into memory it has already touched (a
/// fresh result's first touch of its pages costs more than the copy: docs/performance.md).
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY void bfs(bfs_run& run, csr_matrix<T, Index, device> const& a,
                             csr_matrix<T, Index, device> const& at, std::size_t source,
                             bool parents, bfs_tuning const& tuning,
                             context& ctx) KLEENE_DEVICE_BODY;
/// The same search with its results left on the device, in the caller's vectors of n entries:
/// `level` (-1 where unreached) and, when not null, `parent` (the source its own, -1 where
/// unreached), written on the context's stream with nothing copied back (the call returns once
/// the stream has done them). The run's level and parent stay empty; run.levels says how deep
/// the search went. Reusing the vectors across calls allocates nothing for the results.
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY bfs_run bfs(csr_matrix<T, Index, device> const& a,
                                csr_matrix<T, Index, device> const& at, std::size_t source,
                                dense_vector<std::int64_t, device>& level,
                                dense_vector<std::int64_t, device>* parent,
                                bfs_tuning const& tuning, context& ctx) KLEENE_DEVICE_VALUE;

/// async: label-correcting relaxation from one work list without rounds (graph_async.cuh),
/// non-negative weights only; a full list (a writer waiting over 4 ms for its slot) falls back to
/// delta-stepping.
enum class sssp_method : std::uint8_t { automatic, bellman_ford, delta_stepping, async };

struct sssp_tuning {
    sssp_method method = sssp_method::automatic;
    /// Bucket width of delta-stepping; 0 picks one from the mean edge weight.
    double delta = 0;
    /// Rounds whose frontier has at most 2048 vertices and this many out-edges run in one block,
    /// round after round and bucket after bucket (far piles of at most 65536 vertices), without a
    /// host round trip (graph_sssp.cu); 0: every round is a launch of its own.
    long long block_edges = 16384;
    /// automatic (non-negative weights) picks the asynchronous work list (graph_async.cuh) when
    /// nnz <= async_degree x n, as BFS does; 0: never.
    double async_degree = 8;
    int async_warps = 8;            ///< the work list's kernel: warps a multiprocessor
    unsigned async_poll_ns = 256;   ///< its idle warps' pause between polls (ns, at most 1e6)
    /// Lowered vertices a warp relaxes next itself (bfs_tuning::async_keep). 32: SSSP 11-13%
    /// faster than 0 on both road networks (H200, 2026-11-30).
    unsigned async_keep = 32;
    /// The weights' mean and smallest value when the caller knows them (kleene::graph keeps its
    /// weights' summary): the call then skips its own pass over the weights (a reduction and two
    /// waits on the stream). Both NaN (the default): measured by the call. Given, they must be
    /// the weights' true values: the mean sets delta, the sign of the minimum rules out the
    /// methods that need non-negative weights.
    double weight_mean = std::numeric_limits<double>::quiet_NaN();
    double weight_min = std::numeric_limits<double>::quiet_NaN();
};

/// Distances from `source` (host vector; numeric_limits<T>::max() / +inf where unreachable) and the
/// device time. Negative weights: Bellman-Ford only; a negative cycle reachable from the source
/// throws kleene::negative_cycle naming a vertex on it.
template <class T>
struct sssp_run {
    std::vector<T> dist;
    double seconds = 0;
    std::size_t rounds = 0;  ///< relaxation rounds (launches, or steps of the device loop)
    sssp_method method = sssp_method::automatic;  ///< what ran
    std::string notes;       ///< how the rounds ran, for the explain trace
};
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY sssp_run<T> sssp(csr_matrix<T, Index, device> const& a, std::size_t source,
                                     sssp_tuning const& tuning, context& ctx) KLEENE_DEVICE_VALUE;
template <class T, index_type Index>
sssp_run<T> sssp(csr_matrix<T, Index, device> const& a, std::size_t source,
                 sssp_tuning const& tuning = {}) {
    return sssp<T, Index>(a, source, tuning, default_context());
}
/// The same search into `run`, whose distance vector keeps its storage (as bfs(run, ...)): a caller
/// that searches again into the last run's result copies into memory it has already touched.
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY void sssp(sssp_run<T>& run, csr_matrix<T, Index, device> const& a,
                              std::size_t source, sssp_tuning const& tuning,
                              context& ctx) KLEENE_DEVICE_BODY;
/// The same, with the distances left on the device in the caller's vector of n entries (written
/// on the context's stream, nothing copied back: run.dist stays empty).
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY sssp_run<T> sssp(csr_matrix<T, Index, device> const& a, std::size_t source,
                                     dense_vector<T, device>& dist, sssp_tuning const& tuning,
                                     context& ctx) KLEENE_DEVICE_VALUE;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

#pragma once
// Breadth-first search.
//
//   bfs(A, source, options)       direction-optimising BFS (levels, optionally parents), CPU or GPU
//   bfs(A, AT, source, options)   the same with the transpose supplied (repeated searches)
//   bfs(result, A, source, options)  the same into a result whose vectors are reused
//   bfs_levels(A, source)         the plain algebraic form: the next frontier is
//                                 frontier (any.pair) A under the complement of the visited set
//
// bfs() is that same product specialised for the Boolean case. A level is a push step (the
// frontier's out-edges scattered into a bitmap of visited vertices: SpMSpV under a complemented
// mask) or a pull step (every unvisited vertex scans its in-neighbours, i.e. a row of A', and stops
// at the first one in the frontier: masked SpMV with an early exit). Beamer's rule (beamer.hpp, the
// same on the GPU) picks: pull once the frontier's out-edges exceed the unexplored edges / alpha
// while the frontier grows, push again once it no longer grows and holds fewer than n / beta
// vertices. The frontier is a compact vertex list in push steps and a bitmap in pull steps; all
// work arrays are allocated once per search.
//
// On the GPU (kleene::cuda::bfs, algorithms/cuda/src/graph*.cu) the same two steps run as kernels.
// A device graph (graph.hpp) searches its kept device patterns and may leave the levels and
// parents on the device (bfs_device_result).

#include <kleene/algorithms/beamer.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/convert.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/mxm.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>
#include <kleene/vector_for_overwrite.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

/// The structure of A as a Boolean pattern matrix (values dropped, every entry true).
template <class T, index_type Index>
csr_matrix<bool, Index> pattern_of(csr_matrix<T, Index> const& a) {
    return {a.rows(), a.cols(), a.row_ptr_storage(), a.col_idx_storage(), buffer<bool>{},
            true,     true};
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
    sparse_vector<bool, Index> frontier(n, buffer<Index>{static_cast<Index>(source)},
                                        buffer<bool>{true});
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

/// How a BFS level expands the frontier (the GPU kernels take the same choice).
using bfs_direction = cuda::bfs_direction;

struct bfs_options {
    device_choice device = device_choice::automatic;
    bfs_direction direction = bfs_direction::automatic;
    /// Also return the BFS tree (parent of every reached vertex; the source is its own parent).
    bool parents = false;
    /// Return the level of every vertex. false, with parents, leaves `level` empty: the parents
    /// alone (GAP's BFS output) skip writing an array of n int64 that is filled serially.
    bool levels = true;
    /// The caller promises A == A' (an undirected graph): pull steps read A, no transpose is made.
    bool symmetric = false;
    /// Beamer's switches: push -> pull when the frontier's out-edges exceed (unexplored edges) /
    /// alpha; pull -> push when the frontier shrinks below n / beta vertices. 0: the measured
    /// default of the device that runs (CPU: cpu_alpha, cpu_beta; GPU: cuda::bfs_tuning's).
    double alpha = 0;
    double beta = 0;
    /// automatic runs on the GPU when there is one and A has at least this many entries. The
    /// default keeps host graphs on the CPU: one traversal does not repay copying the graph to the
    /// device (from the CLI at Kronecker scale 20, the context start and the copy took 60 times
    /// the whole CPU search). Lower it when the process runs many traversals on one graph.
    std::size_t gpu_min_edges = std::numeric_limits<std::size_t>::max();
    /// One line per decision: the device, the transpose, and per level push/pull with sizes.
    explain_trace* explain = nullptr;
    /// CPU: push levels whose frontier has at most this many out-edges run on one thread, level
    /// after level, without barriers; -1: cpu_serial_edges. 0 makes every level parallel.
    std::int64_t serial_edges = -1;
    /// CPU: parallel push levels with more frontier out-edges than this split the edges evenly
    /// over the threads (a prefix of the degrees, two more barriers; a hub's row is shared),
    /// fewer split the frontier's vertices; -1: big_push_edges.
    std::int64_t split_edges = -1;
    /// OpenMP threads and GPU tuning (tuning::bfs_loop_blocks); null: default_context().
    context* ctx = nullptr;
    /// The CPU search calls it before each level (options.hpp); it may throw.
    step_hook on_step{};
};

/// CPU defaults of alpha and beta: Beamer's rule and its defaults are shared with the GPU
/// (beamer.hpp). On undirected Kronecker graphs (edge factor 16, 16 sources, 16 threads of a Xeon
/// at scale 20) alpha 15..30 with beta 64..512 came within 5% of the best, alpha 4 or beta 18
/// 10-40% slower; one thread at scale 18, all within 10%.
inline constexpr double cpu_alpha = beamer::default_alpha;
inline constexpr double cpu_beta = beamer::default_beta;
/// CPU: push levels with at most this many frontier out-edges run on one thread. Swept on the
/// 16-core H200 host (bench_graph_kernels --serial-edges, 2026-11-28): Kronecker scale 22 took
/// 35.7 ms with none (its first levels are a handful of vertices each on 16 threads) and 10.0-10.2
/// ms from 256 to 4096; the NE road network 35.0 ms with none, 35.6 at 256, 38.5 at 1024.
inline constexpr std::int64_t cpu_serial_edges = 256;
/// CPU: push levels with more frontier out-edges than this split the edges evenly (a prefix of
/// the degrees, two more barriers) instead of the vertices.
inline constexpr std::int64_t big_push_edges = 65536;

/// A search's results left on the device (a device graph's, graph.hpp): vectors of n, reused
/// when they already hold n. The levels are always written (the device computes them anyway).
struct bfs_device_result {
    dense_vector<std::int64_t, device> level;   ///< -1 where unreachable
    dense_vector<std::int64_t, device> parent;  ///< empty unless parents were asked for
    std::size_t levels = 0;                     ///< the deepest level reached + 1
};

/// level and parent are vector_for_overwrite (a std::vector whose resize leaves values
/// uninitialised) so that a fresh result is filled by all threads: it compares equal to a
/// std::vector, and std::vector(r.level.begin(), r.level.end()) copies it into one.
struct bfs_result {
    /// Level of every vertex (0 at the source), -1 where unreachable; empty when options.levels is
    /// false (parents only).
    vector_for_overwrite<std::int64_t> level;
    /// Parent in the BFS tree (source: itself), -1 where unreachable; empty unless asked for.
    vector_for_overwrite<std::int64_t> parent;
    device_choice device = device_choice::cpu;
};

namespace detail {

/// Exclusive prefix sum of the out-degrees of list[0..count): prefix[i] = edges of list[0..i),
/// prefix[count] = all of them. Parallel (two passes over thread blocks) for long lists.
template <class Index>
std::int64_t frontier_degree_prefix(Index const* row_ptr, Index const* list, std::size_t count,
                                    std::int64_t* prefix) {
    auto deg = [&](std::size_t i) {
        auto const u = static_cast<std::size_t>(list[i]);
        return static_cast<std::int64_t>(row_ptr[u + 1] - row_ptr[u]);
    };
    int const threads = cpu::max_threads();
    if (count < 32768 || threads == 1) {
        std::int64_t run = 0;
        for (std::size_t i = 0; i < count; ++i) {
            prefix[i] = run;
            run += deg(i);
        }
        prefix[count] = run;
        return run;
    }
    std::vector<std::int64_t> part(static_cast<std::size_t>(threads) + 1, 0);
    std::int64_t total = 0;
#pragma omp parallel num_threads(threads)
    {
        auto const t = static_cast<std::size_t>(omp_get_thread_num());
        auto const nt = static_cast<std::size_t>(omp_get_num_threads());
        std::size_t const b = count * t / nt, e = count * (t + 1) / nt;
        std::int64_t run = 0;
        for (std::size_t i = b; i < e; ++i) {
            prefix[i] = run;
            run += deg(i);
        }
        part[t + 1] = run;
#pragma omp barrier
#pragma omp single
        {
            for (std::size_t p = 0; p < nt; ++p) part[p + 1] += part[p];
            total = part[nt];
        }
        std::int64_t const off = part[t];
        if (off != 0)
            for (std::size_t i = b; i < e; ++i) prefix[i] += off;
    }
    prefix[count] = total;
    return total;
}

/// Inside a parallel region: hands the out-edges of list[0..count) to the threads in `pieces`
/// ranges of about equal edge counts (one high-degree vertex is split over several threads) and
/// calls visit(u, k_begin, k_end) for each part of a row. No barrier at the end.
template <class Index, class Visit>
void for_frontier_edges(Index const* row_ptr, Index const* list, std::size_t count,
                        std::int64_t const* prefix, std::size_t pieces, Visit&& visit) {
    std::int64_t const total = prefix[count];
    auto const np = static_cast<std::int64_t>(pieces);
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t c = 0; c < np; ++c) {
        std::int64_t const e0 = total * c / np, e1 = total * (c + 1) / np;
        if (e0 == e1) continue;
        // The list position whose edge range holds e0.
        auto i =
            static_cast<std::size_t>(std::upper_bound(prefix, prefix + count + 1, e0) - prefix) - 1;
        for (; i < count && prefix[i] < e1; ++i) {
            auto const u = static_cast<std::size_t>(list[i]);
            std::int64_t const base = row_ptr[u];
            std::int64_t const lo = std::max<std::int64_t>(e0 - prefix[i], 0);
            std::int64_t const hi =
                std::min<std::int64_t>(e1 - prefix[i], prefix[i + 1] - prefix[i]);
            if (lo < hi)
                visit(u, static_cast<std::size_t>(base + lo), static_cast<std::size_t>(base + hi));
        }
    }
}

/// Pieces for for_frontier_edges: about 8 per thread, none smaller than 2048 edges.
inline std::size_t frontier_pieces(std::int64_t edges, int threads) {
    auto const by_size = static_cast<std::size_t>(edges / 2048) + 1;
    return std::min<std::size_t>(by_size, 8 * static_cast<std::size_t>(threads));
}

inline std::atomic_ref<std::uint64_t> word_ref(std::uint64_t* words, std::size_t v) {
    return std::atomic_ref<std::uint64_t>(words[v >> 6]);
}

inline std::string ms(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
    return buf;
}

inline char const* to_string(bfs_direction d) {
    return d == bfs_direction::push ? "push" : d == bfs_direction::pull ? "pull" : "auto";
}

/// v becomes n copies of -1 (fill false: only its size is set), written by all threads (a fresh
/// result's pages are first touched there, not by the calling thread alone).
inline void bfs_result_reset(vector_for_overwrite<std::int64_t>& v, std::size_t n,
                             bool fill = true) {
    if (v.size() != n) {
        v.clear();
        v.resize(n);  // uninitialised
    }
    if (!fill) return;
    std::int64_t* p = v.data();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i) p[i] = -1;
}

/// Frontier entries found and their out-edges, summed by atomics over the parallel levels of one
/// parity of a search and read by every thread after the barrier that ends a level. They only
/// grow: a level's counts are the difference from the values read after the last level of the
/// same parity (no reset). Two sets, so that a fast thread adding level d + 1's counts cannot
/// race with a late thread still reading level d's.
struct alignas(64) bfs_level_count {
    std::atomic<std::int64_t> found{0};
    std::atomic<std::int64_t> edges{0};
};

/// The loop state of the CPU search; every thread of the search's one parallel region holds the
/// same copy, advanced from the same shared counters after each level's barrier.
struct bfs_loop_state {
    std::int64_t depth = 1;   // level the next step assigns
    std::size_t nf = 1;       // frontier entries
    std::size_t last_nf = 0;  // the frontier before it
    std::int64_t mf = 0;      // out-edges of the frontier
    std::int64_t mu = 0;      // out-edges of the vertices not yet visited
    bool push = true;         // direction of the last step
    bool list = true;         // the frontier is the queue (else the bitmap)
    int queue_parity = 0;     // which queue holds it
    int bits_parity = 0;      // which bitmap holds it
    std::int64_t found_base[2] = {0, 0}, edges_base[2] = {0, 0};  // bfs_level_count read last
};

/// One line of the explain trace, kept by thread 0 and formatted after the search.
struct bfs_level_note {
    std::int64_t depth;
    std::size_t nf;
    std::int64_t mf, mu;
    char how;  // 's' serial push, 'p' parallel push, 'l' pull
    double seconds;
};

/// The CPU search. `at` is A' (or A itself when symmetric); null: made on the first pull step.
///
/// The whole search is one parallel region (it is left only to make A' when a first pull needs
/// it): a level ends with one barrier, after which every thread reads the level's counters and
/// takes the same decision. Push levels append to thread-local lists that one atomic a thread
/// places in the next queue; small frontiers (at most serial_edges out-edges) are expanded by
/// thread 0 alone, level after level, while the others wait at the barrier. On road networks
/// (over a thousand levels of a few hundred vertices) the per-level region, barriers and
/// single-thread prefix of the earlier search cost more than the edges.
template <class T, class T2, class Index>
void bfs_cpu(csr_matrix<T, Index> const& a, csr_matrix<T2, Index> const* at, std::size_t source,
             bfs_options const& opt, bfs_result& r) {
    std::size_t const n = a.rows();
    std::size_t const words = (n + 63) / 64;
    int const threads = cpu::max_threads();
    bool const parents = opt.parents;
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    auto out_degree = [ap](std::size_t v) { return static_cast<std::int64_t>(ap[v + 1] - ap[v]); };

    // level: -1 everywhere but the source; parent: written from `mark` at the end.
    bool const levels = opt.levels || !parents;
    // Push levels claim a vertex by compare-and-swap on its entry of `mark`, an array of Index
    // (4 bytes for most graphs, where the int64 result is 8) that ends as the parents. Until it
    // is claimed an entry holds -1 - (the vertex's out-degree), so that a claim reads the
    // out-degree (for Beamer's rule) from the line it has just won, as the GAP reference does,
    // with no second miss on A's row pointers; the parents (or -1) are written out at the end.
    // On the 16-core H200 host (uniform scale 22, the push level of 46,298 vertices and 1.5 M
    // out-edges) a claim by fetch_or on a shared visited bitmap, or by compare-and-swap on the
    // int64 parents, took 13.7-15.1 ms; the GAP reference's step 5 ms (docs/lab, 2026-11-29).
    using Mark = std::conditional_t<std::is_signed_v<Index>, Index, std::int64_t>;
    if (levels) bfs_result_reset(r.level, n);
    else r.level.clear();
    if (parents) bfs_result_reset(r.parent, n, false);
    else r.parent.clear();
    std::int64_t* level = levels ? r.level.data() : nullptr;
    std::int64_t* parent = parents ? r.parent.data() : nullptr;
    buffer<Mark> marks(n);
    Mark* const mark = marks.data();
    // An unclaimed vertex's mark and the out-degree it carries.
    auto const unclaimed = [](std::int64_t degree) { return static_cast<Mark>(-1 - degree); };
    auto const degree_of = [](Mark m) { return -1 - static_cast<std::int64_t>(m); };
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t v = 0; v < n; ++v) mark[v] = unclaimed(out_degree(v));
    mark[source] = static_cast<Mark>(source);
    if (levels) level[source] = 0;
    // visited: one bit per vertex, kept for pull steps only (made up to date from `mark` when a
    // pull step follows a push step); the bits past n are set so that pull steps never look at
    // them.
    buffer<std::uint64_t> visited(words, 0);
    if (n % 64) visited[words - 1] = ~std::uint64_t(0) << (n % 64);
    visited[source >> 6] |= std::uint64_t(1) << (source & 63);
    std::uint64_t* vis = visited.data();

    // Push frontier: a vertex list; pull frontier: a bitmap (made when first needed).
    buffer<Index> queue0(n), queue1(n);
    Index* const queues[2] = {queue0.data(), queue1.data()};
    buffer<std::int64_t> prefix;  // edge offsets of a large push level (made when first needed)
    buffer<std::uint64_t> bits0, bits1;
    std::uint64_t* bits[2] = {nullptr, nullptr};
    std::vector<cpu::padded<std::vector<Index>>> local(static_cast<std::size_t>(threads));
    constexpr std::size_t flush_at = 4096;  // entries of a thread's list before it is placed
    std::vector<std::int64_t> part(static_cast<std::size_t>(threads) + 1, 0);
    queue0[0] = static_cast<Index>(source);

    csr_matrix<bool, Index> made_transpose;
    Index const* tp = at ? at->row_ptr() : nullptr;
    Index const* tj = at ? at->col_idx() : nullptr;
    bool pull_ready = false;  // transpose there, bitmaps allocated, unreachable vertices marked

    auto prepare_pull = [&] {
        if (!tp) {
            auto const t0 = std::chrono::steady_clock::now();
            made_transpose = cpu::transpose_csr(pattern_of(a));
            tp = made_transpose.row_ptr();
            tj = made_transpose.col_idx();
            if (opt.explain)
                opt.explain->add(
                    "bfs: transposed A for pull steps (" +
                    ms(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                           .count()) +
                    ")");
        }
        bits0 = buffer<std::uint64_t>(words);
        bits1 = buffer<std::uint64_t>(words);
        bits[0] = bits0.data();
        bits[1] = bits1.data();
        // A vertex without in-edges is never reached: mark it visited so pull steps skip it.
#pragma omp parallel for schedule(static) if (n > 65536)
        for (std::size_t w = 0; w < words; ++w) {
            std::uint64_t none = 0;
            std::size_t const end = std::min(n, 64 * w + 64);
            for (std::size_t v = 64 * w; v < end; ++v)
                none |= std::uint64_t(tp[v + 1] == tp[v]) << (v & 63);
            vis[w] |= none;
        }
        pull_ready = true;
    };

    double const alpha = opt.alpha > 0 ? opt.alpha : cpu_alpha;
    double const beta = opt.beta > 0 ? opt.beta : cpu_beta;
    double const min_frontier = static_cast<double>(n) / beta;
    bool const automatic = opt.direction == bfs_direction::automatic;
    auto const m = static_cast<std::int64_t>(a.nnz());
    // Push levels with at most this many out-edges run on thread 0 alone: a barrier costs more
    // than expanding them (bfs_options::serial_edges).
    std::int64_t const serial_edges =
        opt.serial_edges >= 0 ? opt.serial_edges : cpu_serial_edges;
    std::int64_t const split_edges = opt.split_edges >= 0 ? opt.split_edges : big_push_edges;

    // The state at region entry (never written inside the region: threads copy it as they
    // start), at its exit (thread 0's), and after a serial run (thread 0's, read past a barrier).
    bfs_loop_state entry, exit_state, handoff;
    entry.mf = out_degree(source);
    entry.mu = m - entry.mf;
    entry.push = opt.direction != bfs_direction::pull;
    bfs_level_count counts[2];
    std::exception_ptr failure;
    bool abort = false, need_pull = false;
    std::vector<bfs_level_note> notes;
    using clock = std::chrono::steady_clock;

    // The direction of the level about to run (the same in every thread).
    auto decide = [&](bfs_loop_state const& st) {
        if (!automatic) return opt.direction != bfs_direction::pull;
        return !beamer::next_pulls(!st.push, st.nf, st.last_nf, static_cast<double>(st.mf),
                                   static_cast<double>(st.mu), alpha, min_frontier);
    };
    // Thread 0 only: the hook before a level; false (and `failure` set) when it threw.
    auto hook = [&]() {
        if (!opt.on_step) return true;
        try {
            detail::step(opt.on_step);
            return true;
        } catch (...) {
            failure = std::current_exception();
            return false;
        }
    };
    for (bool done = false; !done;) {
        need_pull = false;
#pragma omp parallel num_threads(threads)
        {
            auto const t = static_cast<std::size_t>(omp_get_thread_num());
            auto const nt = static_cast<std::size_t>(omp_get_num_threads());
            bfs_loop_state st = entry;
            auto& buf = local[t].value;
            buf.reserve(flush_at);
            while (st.nf > 0) {
                bool const push = decide(st);
                if (!push && !pull_ready) {  // every thread leaves; A' is made outside
                    if (t == 0) need_pull = true;
                    break;
                }
                auto const start = opt.explain && t == 0 ? clock::now() : clock::time_point{};
                if (push && st.list && st.mf <= serial_edges) {
                    // Thread 0 expands levels alone while they stay small; the rest wait below.
                    if (t == 0) {
                        bfs_loop_state s = st;
                        bool go = true;
                        while (go) {
                            if (!hook()) {
                                abort = true;
                                break;
                            }
                            auto const t0 = opt.explain ? clock::now() : clock::time_point{};
                            Index const* q = queues[s.queue_parity];
                            Index* nq = queues[1 - s.queue_parity];
                            std::size_t found = 0;
                            std::int64_t edges = 0;
                            for (std::size_t i = 0; i < s.nf; ++i) {
                                auto const u = static_cast<std::size_t>(q[i]);
                                for (Index k = ap[u]; k < ap[u + 1]; ++k) {
                                    auto const v = static_cast<std::size_t>(aj[k]);
                                    Mark const seen = mark[v];
                                    if (seen >= 0) continue;
                                    mark[v] = static_cast<Mark>(u);
                                    if (levels) level[v] = s.depth;
                                    nq[found++] = static_cast<Index>(v);
                                    edges += degree_of(seen);
                                }
                            }
                            if (opt.explain)
                                notes.push_back({s.depth - 1, s.nf, s.mf, s.mu, 's',
                                                 std::chrono::duration<double>(clock::now() - t0)
                                                     .count()});
                            s.push = true;
                            s.last_nf = s.nf;
                            s.nf = found;
                            s.mf = edges;
                            s.mu -= edges;
                            s.queue_parity = 1 - s.queue_parity;
                            ++s.depth;
                            go = s.nf > 0 && s.mf <= serial_edges && decide(s);
                        }
                        handoff = s;
                    }
#pragma omp barrier
                    st = handoff;
                    if (abort) break;
                    continue;
                }
                if (t == 0 && !hook()) abort = true;
                int const cp = static_cast<int>(st.depth & 1);
                bfs_level_count& count = counts[cp];
                if (push) {
                    Index* q = queues[st.queue_parity];
                    Index* nq = queues[1 - st.queue_parity];
                    if (!st.list) {
                        // Bitmap -> list: each thread lists the set bits of its block of words.
                        std::uint64_t const* fb = bits[st.bits_parity];
                        std::size_t const b = words * t / nt, e = words * (t + 1) / nt;
                        std::int64_t c = 0;
                        for (std::size_t w = b; w < e; ++w) c += std::popcount(fb[w]);
                        part[t + 1] = c;
#pragma omp barrier
                        std::int64_t o = 0;
                        for (std::size_t p = 0; p < t; ++p) o += part[p + 1];
                        for (std::size_t w = b; w < e; ++w)
                            for (std::uint64_t x = fb[w]; x; x &= x - 1)
                                q[o++] = static_cast<Index>(
                                    64 * w + static_cast<std::size_t>(std::countr_zero(x)));
#pragma omp barrier
                        st.list = true;
                    }
                    buf.clear();
                    std::int64_t edges = 0;
                    // The claimed vertices go to the next queue flush_at at a time (one
                    // atomic a flush places them).
                    auto flush = [&] {
                        std::size_t const at_slot = static_cast<std::size_t>(
                            count.found.fetch_add(static_cast<std::int64_t>(buf.size()),
                                                  std::memory_order_relaxed) -
                            st.found_base[cp]);
                        std::copy(buf.begin(), buf.end(), nq + at_slot);
                        buf.clear();
                    };
                    // A claim: compare-and-swap on v's mark; the out-degree comes with it. The
                    // visited bit is read first once a pull step has run (the bits are current
                    // as of the last one: most targets of a later push level are visited, and
                    // the bit is a cache hit where the mark is not). Everything the loop reads
                    // is copied to locals first: the compare-and-swap orders memory, so values
                    // reached through the closure would be loaded again after every one.
                    bool const check_visited = pull_ready;
                    auto visit = [&, mark, vis, level, levels, degree_of, adj = aj,
                                  depth = st.depth](std::size_t u, std::size_t k0, std::size_t k1) {
                        std::int64_t degrees = 0;
                        for (std::size_t k = k0; k < k1; ++k) {
                            auto const v = static_cast<std::size_t>(adj[k]);
                            if (check_visited && ((vis[v >> 6] >> (v & 63)) & 1)) continue;
                            std::atomic_ref<Mark> ref(mark[v]);
                            Mark seen = ref.load(std::memory_order_relaxed);
                            if (seen >= 0 ||
                                !ref.compare_exchange_strong(seen, static_cast<Mark>(u),
                                                             std::memory_order_relaxed))
                                continue;
                            if (levels) level[v] = depth;
                            degrees += degree_of(seen);
                            buf.push_back(static_cast<Index>(v));
                            if (buf.size() == flush_at) flush();
                        }
                        edges += degrees;
                    };
                    if (st.mf <= split_edges) {
                        // Equal runs of the frontier's vertices: no prefix, no barrier.
                        std::size_t const b = st.nf * t / nt, e = st.nf * (t + 1) / nt;
                        for (std::size_t i = b; i < e; ++i) {
                            auto const u = static_cast<std::size_t>(q[i]);
                            visit(u, static_cast<std::size_t>(ap[u]),
                                  static_cast<std::size_t>(ap[u + 1]));
                        }
                    } else {
                        // Equal runs of edges (a hub's row is split over threads).
                        if (t == 0 && prefix.size() < n + 1) prefix = buffer<std::int64_t>(n + 1);
#pragma omp barrier
                        std::int64_t* pre = prefix.data();
                        std::size_t const b = st.nf * t / nt, e = st.nf * (t + 1) / nt;
                        std::int64_t run = 0;
                        for (std::size_t i = b; i < e; ++i) {
                            pre[i] = run;
                            run += out_degree(static_cast<std::size_t>(q[i]));
                        }
                        part[t + 1] = run;
#pragma omp barrier
                        std::int64_t off = 0;
                        for (std::size_t p = 0; p < t; ++p) off += part[p + 1];
                        if (off != 0)
                            for (std::size_t i = b; i < e; ++i) pre[i] += off;
                        if (t + 1 == nt) pre[st.nf] = off + run;
#pragma omp barrier
                        for_frontier_edges(ap, q, st.nf, pre,
                                           frontier_pieces(st.mf, static_cast<int>(nt)), visit);
                    }
                    flush();
                    count.edges.fetch_add(edges, std::memory_order_relaxed);
#pragma omp barrier
                    st.queue_parity = 1 - st.queue_parity;
                } else {
                    if (st.list) {
                        // List -> bitmap, and the visited bits of the push levels since the last
                        // pull step from `mark` (a vertex marked visited for having no in-edges
                        // keeps its bit).
                        std::uint64_t* fb = bits[st.bits_parity];
                        Index const* q = queues[st.queue_parity];
#pragma omp for schedule(static)
                        for (std::size_t w = 0; w < words; ++w) {
                            fb[w] = 0;
                            std::uint64_t seen = 0;
                            std::size_t const end = std::min(n, 64 * w + 64);
                            for (std::size_t v = 64 * w; v < end; ++v)
                                seen |= std::uint64_t(mark[v] >= 0) << (v & 63);
                            vis[w] |= seen;
                        }
#pragma omp for schedule(static)
                        for (std::size_t i = 0; i < st.nf; ++i) {
                            auto const v = static_cast<std::size_t>(q[i]);
                            word_ref(fb, v).fetch_or(std::uint64_t(1) << (v & 63),
                                                     std::memory_order_relaxed);
                        }
                        st.list = false;
                    }
                    std::uint64_t const* front = bits[st.bits_parity];
                    std::uint64_t* next = bits[1 - st.bits_parity];
                    auto const chunk = static_cast<std::size_t>(
                        std::max<std::size_t>(16, words / (32 * nt)));
                    std::int64_t found = 0, edges = 0;
                    std::int64_t const depth = st.depth;
#pragma omp for schedule(dynamic, chunk) nowait
                    for (std::size_t w = 0; w < words; ++w) {
                        std::uint64_t todo = ~vis[w];
                        std::uint64_t got = 0;
                        for (; todo; todo &= todo - 1) {
                            auto const b = static_cast<std::size_t>(std::countr_zero(todo));
                            std::size_t const v = 64 * w + b;
                            for (Index k = tp[v]; k < tp[v + 1]; ++k) {
                                auto const u = static_cast<std::size_t>(tj[k]);
                                if ((front[u >> 6] >> (u & 63)) & 1) {
                                    got |= std::uint64_t(1) << b;
                                    if (levels) level[v] = depth;
                                    edges += degree_of(mark[v]);
                                    mark[v] = static_cast<Mark>(u);
                                    break;
                                }
                            }
                        }
                        next[w] = got;
                        vis[w] |= got;
                        found += std::popcount(got);
                    }
                    count.found.fetch_add(found, std::memory_order_relaxed);
                    count.edges.fetch_add(edges, std::memory_order_relaxed);
#pragma omp barrier
                    st.bits_parity = 1 - st.bits_parity;
                }
                if (abort) break;
                if (t == 0 && opt.explain)
                    notes.push_back({st.depth - 1, st.nf, st.mf, st.mu, push ? 'p' : 'l',
                                     std::chrono::duration<double>(clock::now() - start).count()});
                std::int64_t const found_all = count.found.load(std::memory_order_relaxed);
                std::int64_t const edges_all = count.edges.load(std::memory_order_relaxed);
                std::int64_t const found = found_all - st.found_base[cp];
                std::int64_t const edges = edges_all - st.edges_base[cp];
                st.found_base[cp] = found_all;
                st.edges_base[cp] = edges_all;
                st.push = push;
                st.last_nf = st.nf;
                st.nf = static_cast<std::size_t>(found);
                st.mf = edges;
                st.mu -= edges;
                ++st.depth;
            }
            if (t == 0) exit_state = st;
        }
        if (failure) std::rethrow_exception(failure);
        entry = exit_state;
        if (need_pull) prepare_pull();
        else done = true;
    }
    // The parents, -1 where unreached.
    if (parents) {
#pragma omp parallel for schedule(static) if (n > 65536)
        for (std::size_t v = 0; v < n; ++v)
            parent[v] = mark[v] >= 0 ? static_cast<std::int64_t>(mark[v]) : -1;
    }
    if (opt.explain)
        opt.explain->add("bfs: " + std::to_string(threads) + " threads in one parallel region; push "
                         "levels of at most " + std::to_string(serial_edges) +
                         " out-edges on one thread, parallel push levels split by " +
                         "vertices up to " + std::to_string(split_edges) + " out-edges, by edges above");
    if (opt.explain)
        for (auto const& l : notes)
            opt.explain->add("bfs: level " + std::to_string(l.depth) + ": " +
                             std::to_string(l.nf) + " vertices, " + std::to_string(l.mf) +
                             " out-edges, " + std::to_string(l.mu) + " unexplored: " +
                             (l.how == 'l'   ? "pull"
                              : l.how == 'p' ? "push"
                                             : "push on one thread") +
                             " (" + ms(l.seconds) + ")");
}

/// bfs's checks and its device choice (with the explain line), for A on the host or on the
/// device: only the shapes, the entry count and the options are read. True: run on the GPU.
template <class A, class AT>
bool plan_bfs(A const& a, AT const* at, std::size_t source, bfs_options const& opt) {
    constexpr bool on_device = std::is_same_v<typename A::space, device>;
    if (a.rows() != a.cols())
        throw dimension_mismatch("bfs: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (at && (at->rows() != a.rows() || at->cols() != a.cols()))
        throw dimension_mismatch("bfs: the transpose is " + detail::shape(at->rows(), at->cols()) +
                                 ", the graph " + detail::shape(a.rows(), a.cols()));
    if (source >= a.rows())
        throw invalid_argument("bfs: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    if (!(opt.alpha >= 0) || !(opt.beta >= 0))
        throw invalid_argument("bfs: alpha and beta must be positive (or 0: the default)");
    if (!opt.levels && !opt.parents)
        throw invalid_argument("bfs: asked for neither levels nor parents");
    if (on_device && opt.device == device_choice::cpu)
        throw invalid_argument(
            "bfs: device=cpu was asked for a device graph; copy it with to_host() first");
    std::size_t const n = a.rows();

    bool gpu = false;
    if (on_device || opt.device == device_choice::gpu) {
        cuda::require_device();  // no GPU: no_device, never a silent CPU run
        gpu = true;
    } else if (opt.device == device_choice::automatic) {
        gpu = a.nnz() >= opt.gpu_min_edges && cuda::device_count() > 0;
    }
    if (opt.explain)
        opt.explain->add(
            "bfs: n=" + std::to_string(n) + ", edges=" + std::to_string(a.nnz()) + ", source=" +
            std::to_string(source) + ", direction " + detail::to_string(opt.direction) +
            (opt.parents ? ", parents" : "") + ": " + (gpu ? "gpu" : "cpu") +
            (opt.device != device_choice::automatic ? " (pinned)"
             : on_device                            ? " (a device graph)"
             : gpu ? " (a device and >= " + std::to_string(opt.gpu_min_edges) + " edges)"
                   : (cuda::device_count() > 0
                          ? (opt.gpu_min_edges == std::numeric_limits<std::size_t>::max()
                                 ? std::string(" (host graph: one traversal does not repay the copy)")
                                 : " (fewer than " + std::to_string(opt.gpu_min_edges) + " edges)")
                          : " (no device)")));
    return gpu;
}

inline cuda::bfs_tuning bfs_gpu_tuning(bfs_options const& opt) {
    cuda::bfs_tuning tuning;
    tuning.direction = opt.direction;
    if (opt.alpha > 0) tuning.alpha = opt.alpha;
    if (opt.beta > 0) tuning.beta = opt.beta;
    tuning.loop_blocks = resolve(opt.ctx).tune.bfs_loop_blocks;
    tuning.profile = opt.explain != nullptr;
    return tuning;
}

/// The explain lines of a GPU search; `level`: the host levels (null: left on the device, no
/// per-level sizes).
inline void note_gpu_bfs(cuda::bfs_run const& run, std::int64_t const* level, std::size_t n,
                         bfs_options const& opt) {
    if (!opt.explain) return;
    std::vector<std::size_t> size;
    for (std::size_t v = 0; level && v < n; ++v)
        if (std::int64_t const l = level[v]; l >= 0) {
            if (static_cast<std::size_t>(l) >= size.size())
                size.resize(static_cast<std::size_t>(l) + 1, 0);
            ++size[static_cast<std::size_t>(l)];
        }
    for (std::size_t d = 0; d < run.step_was_pull.size(); ++d)
        opt.explain->add("bfs: level " + std::to_string(d) + ": " +
                         (level ? std::to_string(d < size.size() ? size[d] : 0) + " vertices: "
                                : std::string()) +
                         (run.step_was_pull[d] ? "pull" : "push") + " (gpu)");
    opt.explain->add("bfs: gpu traversal " + detail::ms(run.seconds) +
                     (run.async && run.cluster
                          ? " (the first levels in one block, then a thread-block cluster, then "
                            "the asynchronous work list)"
                      : run.cluster
                          ? " (the first levels in one block, the rest in a thread-block cluster)"
                      : run.async && run.one_block
                          ? " (the first levels in one block, then the asynchronous work list)"
                      : run.async       ? " (asynchronous work list: no levels)"
                      : run.one_block   ? " (every level in one block)"
                      : run.device_loop ? " (one cooperative kernel)"
                                        : " (host loop: a launch per step)"));
    for (auto const& note : run.notes) opt.explain->add(note);
}

/// The GPU search over the device patterns of A and A' (atd null: pull steps read A), into
/// host vectors.
template <class Index>
void bfs_gpu(bfs_result& r, csr_matrix<bool, Index, device> const& ad,
             csr_matrix<bool, Index, device> const* atd, std::size_t source,
             bfs_options const& opt) {
    r.device = device_choice::gpu;
    cuda::bfs_run run = cuda::bfs<bool, Index>(ad, atd ? *atd : ad, source, opt.parents,
                                                bfs_gpu_tuning(opt), resolve(opt.ctx));
    r.level = std::move(run.level);
    r.parent = std::move(run.parent);
    note_gpu_bfs(run, r.level.data(), r.level.size(), opt);
    if (!opt.levels) r.level = {};  // the device computes them anyway; the caller asked for none
}

/// The same with the results left in device vectors (bfs_device_result), nothing copied back.
template <class Index>
void bfs_gpu(bfs_device_result& r, csr_matrix<bool, Index, device> const& ad,
             csr_matrix<bool, Index, device> const* atd, std::size_t source,
             bfs_options const& opt) {
    std::size_t const n = ad.rows();
    if (r.level.size() != n) r.level = dense_vector<std::int64_t, device>(n);
    if (!opt.parents) r.parent = {};
    else if (r.parent.size() != n) r.parent = dense_vector<std::int64_t, device>(n);
    cuda::bfs_run const run =
        cuda::bfs<bool, Index>(ad, atd ? *atd : ad, source, r.level,
                               opt.parents ? &r.parent : nullptr, bfs_gpu_tuning(opt),
                               resolve(opt.ctx));
    r.levels = run.levels;
    note_gpu_bfs(run, nullptr, n, opt);
}

/// The search behind every bfs() overload, into r (see bfs_result_reset for what it reuses).
/// device_of: null, or a callable (bool need_transpose) -> std::pair of pointers to the device
/// patterns of A and A' (A' null when not needed) that the GPU path uses instead of copying A to
/// the device and transposing it on the CPU (kleene::graph lends its cached ones).
template <class T, class T2, class Index, class DeviceOf = std::nullptr_t>
void bfs_into(bfs_result& r, csr_matrix<T, Index> const& a, csr_matrix<T2, Index> const* at,
              std::size_t source, bfs_options const& opt, DeviceOf device_of = nullptr) {
    detail::thread_scope const omp_scope(opt.ctx);
    bool const gpu = plan_bfs(a, at, source, opt);
    std::size_t const n = a.rows();
    if (!gpu) {
        r.device = device_choice::cpu;
        if (at || !opt.symmetric) {
            detail::bfs_cpu(a, at, source, opt, r);
        } else {
            if (opt.explain) opt.explain->add("bfs: A is symmetric: pull steps read A");
            detail::bfs_cpu(a, &a, source, opt, r);
        }
        return;
    }

    // GPU: the structure only (no values) goes to the device; A' too unless A is symmetric.
    auto structure_on_device = [n](auto const& m) {
        return csr_matrix<bool, Index, device>(n, n, m.row_ptr_storage().template copy_to<device>(),
                                               m.col_idx_storage().template copy_to<device>(),
                                               buffer<bool, device>{}, true, true);
    };
    bool const same =
        at ? static_cast<void const*>(at) == static_cast<void const*>(&a) : opt.symmetric;
    bool const need_transpose = !same && opt.direction != bfs_direction::push;
    std::optional<csr_matrix<bool, Index, device>> ad_made;
    std::optional<csr_matrix<bool, Index, device>> atd;  // A' when pull steps need one of their own
    csr_matrix<bool, Index, device> const* adp = nullptr;
    csr_matrix<bool, Index, device> const* atdp = nullptr;
    if constexpr (!std::is_same_v<DeviceOf, std::nullptr_t>) {
        auto const lent = device_of(need_transpose);
        adp = lent.first;
        atdp = need_transpose ? lent.second : nullptr;
    } else {
        adp = &ad_made.emplace(structure_on_device(a));
        if (need_transpose)
            atdp = &atd.emplace(at ? structure_on_device(*at)
                                   : structure_on_device(cpu::transpose_csr(pattern_of(a))));
    }
    bfs_gpu(r, *adp, atdp, source, opt);
}

}  // namespace detail

/// Direction-optimising BFS from `source` (0-based). `at` is A' (pass A for an undirected graph);
/// the other overload makes it when a pull step first needs it, or reuses A when
/// opt.symmetric says A == A'.
template <class T, class T2, index_type Index>
bfs_result bfs(csr_matrix<T, Index> const& a, csr_matrix<T2, Index> const* at, std::size_t source,
               bfs_options const& opt = {}) {
    bfs_result r;
    detail::bfs_into(r, a, at, source, opt);
    return r;
}

template <class T, index_type Index>
bfs_result bfs(csr_matrix<T, Index> const& a, std::size_t source, bfs_options const& opt = {}) {
    return bfs(a, static_cast<csr_matrix<T, Index> const*>(nullptr), source, opt);
}

/// The same search into `r`, for repeated searches on one graph: its vectors that already hold n
/// entries are refilled by all threads instead of allocated and filled by one. A fresh
/// std::vector of n int64 costs more than the search on large graphs (2^22 vertices, 16 threads:
/// twice the search, mostly page faults; docs/performance.md, "Graph-analytics kernels").
template <class T, index_type Index>
void bfs(bfs_result& r, csr_matrix<T, Index> const& a, std::size_t source,
         bfs_options const& opt = {}) {
    detail::bfs_into(r, a, static_cast<csr_matrix<T, Index> const*>(nullptr), source, opt);
}

template <class T, class T2, index_type Index>
bfs_result bfs(csr_matrix<T, Index> const& a, csr_matrix<T2, Index> const& at, std::size_t source,
               bfs_options const& opt = {}) {
    return bfs(a, &at, source, opt);
}

}  // namespace kleene

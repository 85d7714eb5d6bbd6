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

/// v becomes n copies of -1, written by all threads (a fresh result's pages are first touched
/// there, not by the calling thread alone).
inline void bfs_result_reset(vector_for_overwrite<std::int64_t>& v, std::size_t n) {
    if (v.size() != n) {
        v.clear();
        v.resize(n);  // uninitialised
    }
    std::int64_t* p = v.data();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i) p[i] = -1;
}

/// The CPU search. `at` is A' (or A itself when symmetric); null: made on the first pull step.
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

    // level and parent: -1 everywhere but the source.
    bool const levels = opt.levels || !parents;
    if (levels) bfs_result_reset(r.level, n);
    else r.level.clear();
    if (parents) bfs_result_reset(r.parent, n);
    else r.parent.clear();
    std::int64_t* level = levels ? r.level.data() : nullptr;
    std::int64_t* parent = parents ? r.parent.data() : nullptr;
    if (levels) level[source] = 0;
    if (parents) parent[source] = static_cast<std::int64_t>(source);

    // visited: one bit per vertex; the bits past n are set so that pull steps never look at them.
    buffer<std::uint64_t> visited(words, 0);
    if (n % 64) visited[words - 1] = ~std::uint64_t(0) << (n % 64);
    visited[source >> 6] |= std::uint64_t(1) << (source & 63);

    // Push frontier: a vertex list; pull frontier: a bitmap (made when first needed).
    buffer<Index> queue(n), next_queue(n);
    buffer<std::int64_t> prefix(n + 1);
    buffer<std::uint64_t> front_bits, next_bits;
    std::vector<std::vector<Index>> local(static_cast<std::size_t>(threads));
    std::vector<std::size_t> local_offset(static_cast<std::size_t>(threads) + 1);
    queue[0] = static_cast<Index>(source);

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
        front_bits = buffer<std::uint64_t>(words);
        next_bits = buffer<std::uint64_t>(words);
        // A vertex without in-edges is never reached: mark it visited so pull steps skip it.
#pragma omp parallel for schedule(static) if (n > 65536)
        for (std::size_t w = 0; w < words; ++w) {
            std::uint64_t none = 0;
            std::size_t const end = std::min(n, 64 * w + 64);
            for (std::size_t v = 64 * w; v < end; ++v)
                none |= std::uint64_t(tp[v + 1] == tp[v]) << (v & 63);
            visited[w] |= none;
        }
        pull_ready = true;
    };

    double const alpha = opt.alpha > 0 ? opt.alpha : cpu_alpha;
    double const beta = opt.beta > 0 ? opt.beta : cpu_beta;
    auto const m = static_cast<std::int64_t>(a.nnz());
    std::size_t nf = 1, last_nf = 0;
    std::int64_t mf = out_degree(source);  // out-edges of the frontier
    std::int64_t mu = m - mf;              // out-edges of the vertices not yet visited
    bool push = opt.direction != bfs_direction::pull;
    bool frontier_is_list = true;

    for (std::int64_t depth = 1; nf > 0; ++depth) {
        detail::step(opt.on_step);
        if (opt.direction == bfs_direction::automatic)
            push = !beamer::next_pulls(!push, nf, last_nf, static_cast<double>(mf),
                                       static_cast<double>(mu), alpha,
                                       static_cast<double>(n) / beta);
        if (!push && !pull_ready) prepare_pull();
        auto const step_start = std::chrono::steady_clock::now();

        std::size_t found = 0;
        std::int64_t found_edges = 0;
        if (push) {
            if (!frontier_is_list) {
                // Bitmap -> list: each thread lists the set bits of its block of words.
#pragma omp parallel num_threads(threads)
                {
                    auto const t = static_cast<std::size_t>(omp_get_thread_num());
                    auto const nt = static_cast<std::size_t>(omp_get_num_threads());
                    std::size_t const b = words * t / nt, e = words * (t + 1) / nt;
                    std::size_t c = 0;
                    for (std::size_t w = b; w < e; ++w)
                        c += static_cast<std::size_t>(std::popcount(front_bits[w]));
                    local_offset[t + 1] = c;
#pragma omp barrier
#pragma omp single
                    {
                        local_offset[0] = 0;
                        for (std::size_t p = 0; p < nt; ++p) local_offset[p + 1] += local_offset[p];
                    }
                    std::size_t o = local_offset[t];
                    for (std::size_t w = b; w < e; ++w)
                        for (std::uint64_t x = front_bits[w]; x; x &= x - 1)
                            queue[o++] = static_cast<Index>(
                                64 * w + static_cast<std::size_t>(std::countr_zero(x)));
                }
                frontier_is_list = true;
            }
            detail::frontier_degree_prefix(ap, queue.data(), nf, prefix.data());
            std::size_t const pieces = frontier_pieces(mf, threads);
            int const nt = pieces > 1 ? threads : 1;
            std::int64_t const* pre = prefix.data();
            Index const* q = queue.data();
#pragma omp parallel num_threads(nt) reduction(+ : found_edges)
            {
                auto const t = static_cast<std::size_t>(omp_get_thread_num());
                auto const tn = static_cast<std::size_t>(omp_get_num_threads());
                auto& buf = local[t];
                buf.clear();
                std::int64_t edges = 0;
                for_frontier_edges(ap, q, nf, pre, pieces,
                                   [&](std::size_t u, std::size_t k0, std::size_t k1) {
                                       for (std::size_t k = k0; k < k1; ++k) {
                                           auto const v = static_cast<std::size_t>(aj[k]);
                                           std::uint64_t const bit = std::uint64_t(1) << (v & 63);
                                           auto ref = word_ref(visited.data(), v);
                                           if (ref.load(std::memory_order_relaxed) & bit) continue;
                                           if (ref.fetch_or(bit, std::memory_order_relaxed) & bit)
                                               continue;
                                           if (levels) level[v] = depth;
                                           if (parents) parent[v] = static_cast<std::int64_t>(u);
                                           buf.push_back(static_cast<Index>(v));
                                           edges += out_degree(v);
                                       }
                                   });
                found_edges += edges;
                local_offset[t + 1] = buf.size();
#pragma omp barrier
#pragma omp single
                {
                    local_offset[0] = 0;
                    for (std::size_t p = 0; p < tn; ++p) local_offset[p + 1] += local_offset[p];
                }
                std::copy(buf.begin(), buf.end(), next_queue.data() + local_offset[t]);
                if (t == 0) found = local_offset[tn];
            }
            queue.swap(next_queue);
        } else {
            if (frontier_is_list) {
                // List -> bitmap.
                std::fill(front_bits.begin(), front_bits.end(), std::uint64_t(0));
#pragma omp parallel for schedule(static) if (nf > 65536)
                for (std::size_t i = 0; i < nf; ++i) {
                    auto const v = static_cast<std::size_t>(queue[i]);
                    word_ref(front_bits.data(), v)
                        .fetch_or(std::uint64_t(1) << (v & 63), std::memory_order_relaxed);
                }
                frontier_is_list = false;
            }
            std::uint64_t const* front = front_bits.data();
            std::uint64_t* next = next_bits.data();
            std::uint64_t* vis = visited.data();
            auto const chunk = static_cast<std::size_t>(
                std::max<std::size_t>(16, words / (32 * static_cast<std::size_t>(threads))));
            std::size_t count = 0;
#pragma omp parallel for schedule(dynamic, chunk) reduction(+ : count, found_edges) if (words > 64)
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
                            if (parents) parent[v] = static_cast<std::int64_t>(u);
                            found_edges += out_degree(v);
                            break;
                        }
                    }
                }
                next[w] = got;
                vis[w] |= got;
                count += static_cast<std::size_t>(std::popcount(got));
            }
            found = count;
            front_bits.swap(next_bits);
        }
        if (opt.explain)
            opt.explain->add(
                "bfs: level " + std::to_string(depth - 1) + ": " + std::to_string(nf) +
                " vertices, " + std::to_string(mf) + " out-edges, " + std::to_string(mu) +
                " unexplored: " + (push ? "push" : "pull") + " (" +
                ms(std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start)
                       .count()) +
                ")");
        last_nf = nf;
        nf = found;
        mf = found_edges;
        mu -= found_edges;
    }
}

/// The search behind every bfs() overload, into r (see bfs_result_reset for what it reuses).
/// device_of: null, or a callable (bool need_transpose) -> std::pair of pointers to the device
/// patterns of A and A' (A' null when not needed) that the GPU path uses instead of copying A to
/// the device and transposing it on the CPU (kleene::graph lends its cached ones).
template <class T, class T2, class Index, class DeviceOf = std::nullptr_t>
void bfs_into(bfs_result& r, csr_matrix<T, Index> const& a, csr_matrix<T2, Index> const* at,
              std::size_t source, bfs_options const& opt, DeviceOf device_of = nullptr) {
    detail::thread_scope const omp_scope(opt.ctx);
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
    std::size_t const n = a.rows();

    bool gpu = false;
    if (opt.device == device_choice::gpu) {
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
             : gpu ? " (a device and >= " + std::to_string(opt.gpu_min_edges) + " edges)"
                   : (cuda::device_count() > 0
                          ? (opt.gpu_min_edges == std::numeric_limits<std::size_t>::max()
                                 ? std::string(" (host graph: one traversal does not repay the copy)")
                                 : " (fewer than " + std::to_string(opt.gpu_min_edges) + " edges)")
                          : " (no device)")));
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
    r.device = device_choice::gpu;
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
    auto const& ad = *adp;
    cuda::bfs_tuning tuning;
    tuning.direction = opt.direction;
    if (opt.alpha > 0) tuning.alpha = opt.alpha;
    if (opt.beta > 0) tuning.beta = opt.beta;
    tuning.loop_blocks = resolve(opt.ctx).tune.bfs_loop_blocks;
    cuda::bfs_run run = cuda::bfs<bool, Index>(ad, atdp ? *atdp : ad, source, opt.parents, tuning);
    r.level = std::move(run.level);
    r.parent = std::move(run.parent);
    if (opt.explain) {
        std::vector<std::size_t> size;
        for (std::int64_t l : r.level)
            if (l >= 0) {
                if (static_cast<std::size_t>(l) >= size.size())
                    size.resize(static_cast<std::size_t>(l) + 1, 0);
                ++size[static_cast<std::size_t>(l)];
            }
        for (std::size_t d = 0; d < run.step_was_pull.size(); ++d)
            opt.explain->add("bfs: level " + std::to_string(d) + ": " +
                             std::to_string(d < size.size() ? size[d] : 0) +
                             " vertices: " + (run.step_was_pull[d] ? "pull" : "push") + " (gpu)");
        opt.explain->add("bfs: gpu traversal " + detail::ms(run.seconds) +
                         (run.device_loop ? " (one cooperative kernel)"
                                          : " (host loop: a launch per step)"));
    }
    if (!opt.levels) r.level = {};  // the device computes them anyway; the caller asked for none
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

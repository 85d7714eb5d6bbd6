#pragma once
// Betweenness centrality (Brandes, unweighted shortest paths) from a batch of sources.
//
//   betweenness(A, sources, options)   sum over the sources s of Brandes' dependencies delta_s(v)
//
// delta_s(v) = sum over the successors w of v on shortest paths from s of
// sigma_s(v) / sigma_s(w) * (1 + delta_s(w)), sigma_s the number of shortest paths from s. The
// result is the raw sum over the given sources (LAGraph's LAGr_Betweenness); a source gets nothing
// from its own search (GAP's reference adds delta_s(s) to s; LAGraph and Brandes do not). An
// undirected graph counts each pair once per direction. `normalize` divides by the largest score,
// as GAP's reference does (all zeros stay zeros). Sources may repeat: each occurrence is a search
// of its own and counts again (as in LAGraph). Path counts are doubles: they pass 2^64 on
// Kronecker graphs.
//
// Methods (CPU):
// - semiring: LAGraph's batched form on kleene's operations. Frontier F (sources x n, CSR), path
//   counts P (dense): F<!P> = F (+.x) A level by level, P += F, S[d] = F; then back from the
//   deepest level, with B = 1 + delta (dense, all ones at first): W = B ./ S[d] on S[d]'s
//   structure, W<S[d-1]> = W (+.x) A', B += W .* S[d-1]; the result is the column sums of B
//   minus the number of sources. Products are push (Gustavson) only: kleene's mxm has no pull form.
// - direct: Brandes per source, written out. Forward: level-synchronous BFS counting paths, a push
//   step (frontier edges split evenly over the threads, first visit claimed by compare-and-swap,
//   path counts added atomically) or a pull step (every unreached vertex sums the counts of its
//   in-neighbours in the frontier: no atomics), chosen per level as Beamer's BFS does. Backward:
//   level by level, each vertex sums (1 + delta(w)) / sigma(w) over its out-neighbours w one level
//   deeper (no atomics). Searches run one after another, each over all threads, or, with enough
//   sources, side by side (one per thread, each with its own arrays).
// On the GPU: cuda::betweenness (algorithms/cuda/include/kleene/algorithms/cuda/graph_kernels.hpp).

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/algorithms/device_structure.hpp>
#include <kleene/apply.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/ewise.hpp>
#include <kleene/mxm.hpp>
#include <kleene/options.hpp>
#include <kleene/reduce.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

enum class bc_method : std::uint8_t {
    automatic,  ///< direct (measured faster on the CPU, see bc_options)
    semiring,   ///< LAGraph's batched products on kleene's mxm, ewise and reduce
    direct,     ///< Brandes per source, hand-written (parallel over levels or over sources)
};

struct bc_options {
    /// automatic: direct, measured faster than semiring on the CPU (docs/performance.md).
    bc_method method = bc_method::automatic;
    /// false: the raw sums (LAGraph). true: divided by the largest score (GAP's reference).
    bool normalize = false;
    /// The caller promises A == A' (an undirected graph): no transpose is made.
    bool symmetric = false;
    /// Direct method on the CPU: the forward levels' direction (automatic: by alpha).
    bfs_direction direction = bfs_direction::automatic;
    /// Direct method: a level is pulled when the frontier's out-edges exceed (edges of unreached
    /// vertices) / alpha. 0: bc_pull_alpha.
    double alpha = 0;
    /// Direct method: searches run side by side, one per thread, when there are at least this many
    /// sources per thread; else one after another, each level over all threads. 0:
    /// bc_sources_per_thread.
    std::size_t sources_per_thread = 0;
    /// Direct method, searches in turn: push levels with at most this many out-edges run on one
    /// thread; -1: bc_serial_edges. Parallel push levels split the frontier's vertices up to
    /// split_edges out-edges and its edges above; -1: bc_split_edges.
    std::int64_t serial_edges = -1;
    std::int64_t split_edges = -1;
    device_choice device = device_choice::automatic;
    /// automatic runs a host graph on the GPU when there is one and A has at least this many
    /// entries. The default keeps host graphs on the CPU (as bfs does); a device graph always runs
    /// on the GPU.
    std::size_t gpu_min_edges = std::numeric_limits<std::size_t>::max();
    /// One line per decision: device, method, transpose, and per search its levels (push/pull).
    explain_trace* explain = nullptr;
    /// The context the GPU runs on (its device, stream and scratch; null: default_context()).
    context* ctx = nullptr;
};

struct bc_result {
    /// (vector_for_overwrite: a GPU run's scores are copied in without being zeroed first; it
    /// compares equal to a std::vector.)
    vector_for_overwrite<double> centrality;
    /// The CPU method that ran; automatic when the GPU ran (cuda::betweenness has one kernel).
    bc_method method = bc_method::direct;
    device_choice device = device_choice::cpu;
};

inline char const* to_string(bc_method m) {
    return m == bc_method::semiring ? "semiring" : m == bc_method::direct ? "direct" : "automatic";
}

/// Defaults of bc_options::alpha and sources_per_thread. Measured as for bc_options::method:
/// searches in turn with alpha 1, 2, 4 or 15 within 5% of each other, push only 1.6-1.8x slower;
/// 4 searches side by side on 2 threads as fast as in turn or up to 5% faster (scale 16-18).
inline constexpr double bc_pull_alpha = 2.0;
inline constexpr std::size_t bc_sources_per_thread = 2;
/// Direct method, searches in turn: push levels with at most bc_serial_edges out-edges run on one
/// thread (as bfs's cpu_serial_edges); parallel push levels split the frontier's vertices up to
/// bc_split_edges out-edges, its edges above. (Until 2026-11-28 a level under 8192 edges ran on
/// one thread: every level of a road network, so its searches were sequential.)
inline constexpr std::int64_t bc_serial_edges = 256;
inline constexpr std::int64_t bc_split_edges = 65536;

namespace detail {

/// a / b, for W = B ./ S in the semiring method.
struct bc_div_op {
    using value_type = double;
    static constexpr double apply(double a, double b) { return a / b; }
};

/// Arrays of one Brandes search, reused from source to source.
template <class Index>
struct brandes_work {
    std::vector<Index> level;  // -1: not reached
    std::vector<double> sigma;
    std::vector<double> coef;               // (1 + delta(v)) / sigma(v), once v's delta is known
    std::vector<Index> order;               // reached vertices, level by level
    std::vector<std::size_t> level_start;   // order[level_start[l] .. level_start[l + 1]): level l
    buffer<std::int64_t> prefix;            // push steps: out-degree prefix of the frontier
    // Per-thread finds of a level, each on cache lines of its own (every push_back writes the
    // vector's end pointer). Build machine, 2 threads, medians of 3-4 (2026-11-29, eleventh
    // session): Kronecker 20 441 -> 415 ms, uniform 20 899 -> 850, NE 183 -> 180. (The tenth
    // session saw the padded form 13% slower on Kronecker 20; not reproduced.)
    std::vector<cpu::padded<std::vector<Index>>> local;
    std::vector<std::size_t> local_offset;
    std::string steps;  // 'P' push, 'L' pull, one per level (explain)

    explicit brandes_work(std::size_t n, int threads)
        : level(n),
          sigma(n),
          coef(n),
          order(n),
          prefix(n + 1),
          local(static_cast<std::size_t>(threads)),
          local_offset(static_cast<std::size_t>(threads) + 1) {}
};

/// Brandes' backward step for u (level next - 1): delta(u) from its successors one level deeper,
/// then coef(u) = (1 + delta(u)) / sigma(u) for the level above and score(u) += delta(u). The
/// successor test selects rather than branches (whether a neighbour is one level deeper is close
/// to a coin toss on Kronecker and uniform graphs): build machine, 2 threads, medians of 7,
/// Kronecker 18 80 -> 76 ms, uniform 18 98-104 -> 95-96, NE 174-179 -> 175 (within noise).
template <class Index>
inline void brandes_backward(std::size_t u, Index next, Index const* ap, Index const* aj,
                             Index const* level, double const* sigma, double* coef,
                             double* score) {
    double acc = 0;
    for (Index k = ap[u]; k < ap[u + 1]; ++k) {
        auto const v = static_cast<std::size_t>(aj[k]);
        acc += level[v] == next ? coef[v] : 0.0;
    }
    double const delta = sigma[u] * acc;
    coef[u] = (1 + delta) / sigma[u];
    score[u] += delta;
}

/// Frontier entries and out-edges a parallel level found: they only grow, two sets by level
/// parity (as bfs_level_count: a fast thread adding a level's counts never meets a late reader
/// of the level before).
struct alignas(64) bc_level_count {
    std::atomic<std::int64_t> found{0};
    std::atomic<std::int64_t> edges{0};
};

/// One Brandes search on `threads` threads in one parallel region: a level ends with one barrier
/// (the levels of a road network are a few thousand edges each, over a thousand of them: a region
/// and a single-thread prefix per level, or a level on one thread, cost more than the edges).
/// Push levels of at most bc_serial_edges out-edges run on thread 0 alone; larger ones split the
/// frontier's vertices, or its edges above bc_split_edges. The backward pass is one worksharing
/// loop a level. Call from outside a parallel region.
template <class Index>
void brandes_search_parallel(std::size_t n, Index const* ap, Index const* aj, Index const* tp,
                             Index const* tj, std::size_t source, bfs_direction dir, double alpha,
                             int threads, std::int64_t serial_edges, std::int64_t split_edges,
                             brandes_work<Index>& w, double* score) {
    Index* level = w.level.data();
    double* sigma = w.sigma.data();
    Index* order = w.order.data();
    double* coef = w.coef.data();
    auto const src = static_cast<Index>(source);
    w.steps.clear();
    w.level_start.assign({0, 1});
    auto out_degree = [ap](std::size_t v) { return static_cast<std::int64_t>(ap[v + 1] - ap[v]); };
    bc_level_count counts[2];
    cpu::exception_carrier failure;
#pragma omp parallel num_threads(threads)
    {
        auto const t = static_cast<std::size_t>(omp_get_thread_num());
        auto const tn = static_cast<std::size_t>(omp_get_num_threads());
#pragma omp for schedule(static)
        for (std::size_t v = 0; v < n; ++v) {
            level[v] = -1;
            sigma[v] = 0;
        }
        if (t == 0) {
            level[source] = 0;
            sigma[source] = 1;
            order[0] = src;
        }
#pragma omp barrier
        auto& buf = w.local[t].value;
        std::size_t f0 = 0, f1 = 1;
        std::int64_t mf = out_degree(source);
        std::int64_t mu = static_cast<std::int64_t>(ap[n]) - mf;  // unreached edges
        std::int64_t found_base[2] = {0, 0}, edges_base[2] = {0, 0};
        for (Index d = 1; f1 > f0; ++d) {
            std::size_t const nf = f1 - f0;
            Index const* front = order + f0;
            bool const pull = dir == bfs_direction::automatic
                                  ? static_cast<double>(mf) > static_cast<double>(mu) / alpha
                                  : dir == bfs_direction::pull;
            if (t == 0) w.steps += pull ? 'L' : 'P';
            Index const prev = d - 1;
            int const cp = static_cast<int>(d & 1);
            bc_level_count& count = counts[cp];
            Index* out = order + f1;
            buf.clear();
            std::int64_t edges = 0;
            // Claims v for level d from u (sigma su): the first visit, then its path count.
            auto visit = [&](std::size_t u, std::size_t k0, std::size_t k1) {
                double const su = sigma[u];
                for (std::size_t k = k0; k < k1; ++k) {
                    auto const v = static_cast<std::size_t>(aj[k]);
                    std::atomic_ref<Index> lv(level[v]);
                    Index l = lv.load(std::memory_order_relaxed);
                    if (l < 0) {
                        Index expected = -1;
                        if (lv.compare_exchange_strong(expected, d, std::memory_order_relaxed)) {
                            buf.push_back(static_cast<Index>(v));
                            edges += out_degree(v);
                            l = d;
                        } else {
                            l = expected;
                        }
                    }
                    if (l == d)
                        std::atomic_ref<double>(sigma[v]).fetch_add(su, std::memory_order_relaxed);
                }
            };
            if (!pull && mf <= serial_edges) {
                if (t == 0)
                    failure.run([&] {
                        for (std::size_t i = 0; i < nf; ++i) {
                            auto const u = static_cast<std::size_t>(front[i]);
                            visit(u, static_cast<std::size_t>(ap[u]),
                                  static_cast<std::size_t>(ap[u + 1]));
                        }
                    });
            } else if (!pull && mf <= split_edges) {
                failure.run([&] {
                    std::size_t const b = nf * t / tn, e = nf * (t + 1) / tn;
                    for (std::size_t i = b; i < e; ++i) {
                        auto const u = static_cast<std::size_t>(front[i]);
                        visit(u, static_cast<std::size_t>(ap[u]), static_cast<std::size_t>(ap[u + 1]));
                    }
                });
            } else if (!pull) {
                // Equal runs of edges: the frontier's degree prefix, made by all threads.
                std::int64_t* pre = w.prefix.data();
                std::size_t const b = nf * t / tn, e = nf * (t + 1) / tn;
                std::int64_t run = 0;
                for (std::size_t i = b; i < e; ++i) {
                    pre[i] = run;
                    run += out_degree(static_cast<std::size_t>(front[i]));
                }
                w.local_offset[t + 1] = static_cast<std::size_t>(run);
#pragma omp barrier
                std::int64_t off = 0;
                for (std::size_t q = 0; q < t; ++q)
                    off += static_cast<std::int64_t>(w.local_offset[q + 1]);
                if (off != 0)
                    for (std::size_t i = b; i < e; ++i) pre[i] += off;
                if (t + 1 == tn) pre[nf] = off + run;
#pragma omp barrier
                failure.run([&] {
                    for_frontier_edges(ap, front, nf, pre,
                                       frontier_pieces(mf, static_cast<int>(tn)), visit);
                });
            } else {
                // level[u] of an in-neighbour may be turning from -1 into d meanwhile: atomic
                // loads, and either value differs from prev.
#pragma omp for schedule(dynamic, 512) nowait
                for (std::size_t v = 0; v < n; ++v) {
                    if (std::atomic_ref<Index>(level[v]).load(std::memory_order_relaxed) >= 0)
                        continue;
                    double sum = 0;
                    for (Index k = tp[v]; k < tp[v + 1]; ++k) {
                        auto const u = static_cast<std::size_t>(tj[k]);
                        if (std::atomic_ref<Index>(level[u]).load(std::memory_order_relaxed) ==
                            prev)
                            sum += sigma[u];
                    }
                    if (sum > 0) {
                        std::atomic_ref<Index>(level[v]).store(d, std::memory_order_relaxed);
                        sigma[v] = sum;
                        failure.run([&] { buf.push_back(static_cast<Index>(v)); });
                        edges += out_degree(v);
                    }
                }
            }
            if (!buf.empty()) {
                auto const slot = static_cast<std::size_t>(
                    count.found.fetch_add(static_cast<std::int64_t>(buf.size()),
                                          std::memory_order_relaxed) -
                    found_base[cp]);
                std::copy(buf.begin(), buf.end(), out + slot);
            }
            count.edges.fetch_add(edges, std::memory_order_relaxed);
#pragma omp barrier
            if (failure.failed()) break;
            std::int64_t const found_all = count.found.load(std::memory_order_relaxed);
            std::int64_t const edges_all = count.edges.load(std::memory_order_relaxed);
            auto const found = static_cast<std::size_t>(found_all - found_base[cp]);
            mf = edges_all - edges_base[cp];
            found_base[cp] = found_all;
            edges_base[cp] = edges_all;
            mu -= mf;
            f0 = f1;
            f1 += found;
            if (t == 0) w.level_start.push_back(f1);
        }
#pragma omp barrier
        // Backward, deepest level first; the source (level 0) takes nothing.
        if (!failure.failed()) {
            auto const depth = static_cast<std::ptrdiff_t>(w.level_start.size()) - 2;
            for (std::ptrdiff_t l = depth; l >= 1; --l) {
                std::size_t const b = w.level_start[static_cast<std::size_t>(l)];
                std::size_t const e = w.level_start[static_cast<std::size_t>(l) + 1];
                auto const next = static_cast<Index>(l + 1);
#pragma omp for schedule(dynamic, 64)
                for (std::size_t i = b; i < e; ++i)
                    brandes_backward(static_cast<std::size_t>(order[i]), next, ap, aj, level,
                                     sigma, coef, score);
            }
        }
    }
    failure.rethrow("a betweenness search");
}

/// One Brandes search from `source`, adding delta_s(v) to score[v] (v != source). `threads` > 1:
/// brandes_search_parallel (call from outside a parallel region); 1: sequential, here. tp/tj: A'
/// (the in-edges).
template <class Index>
void brandes_search(std::size_t n, Index const* ap, Index const* aj, Index const* tp,
                    Index const* tj, std::size_t source, bfs_direction dir, double alpha,
                    int threads, brandes_work<Index>& w, double* score,
                    std::int64_t serial_edges = bc_serial_edges,
                    std::int64_t split_edges = bc_split_edges) {
    if (threads > 1) {
        brandes_search_parallel(n, ap, aj, tp, tj, source, dir, alpha, threads, serial_edges,
                                split_edges, w, score);
        return;
    }
    std::fill(w.level.begin(), w.level.end(), Index(-1));
    std::fill(w.sigma.begin(), w.sigma.end(), 0.0);
    w.steps.clear();
    Index* level = w.level.data();
    double* sigma = w.sigma.data();
    Index* order = w.order.data();
    auto const src = static_cast<Index>(source);
    level[source] = 0;
    sigma[source] = 1;
    order[0] = src;
    w.level_start.assign({0, 1});
    auto out_degree = [ap](std::size_t v) { return static_cast<std::int64_t>(ap[v + 1] - ap[v]); };
    std::int64_t mu = static_cast<std::int64_t>(ap[n]) - out_degree(source);  // unreached edges

    for (Index d = 1;; ++d) {
        std::size_t const f0 = w.level_start[static_cast<std::size_t>(d) - 1];
        std::size_t const f1 = w.level_start[static_cast<std::size_t>(d)];
        std::size_t const nf = f1 - f0;
        if (nf == 0) break;
        Index const* front = order + f0;
        std::int64_t const mf = frontier_degree_prefix(ap, front, nf, w.prefix.data());
        bool const pull = dir == bfs_direction::automatic
                              ? static_cast<double>(mf) > static_cast<double>(mu) / alpha
                              : dir == bfs_direction::pull;
        w.steps += pull ? 'L' : 'P';
        Index const prev = d - 1;
        std::size_t found = 0;
        std::int64_t found_edges = 0;
        {
            Index* out = order + f1;
            if (!pull) {
                for (std::size_t i = 0; i < nf; ++i) {
                    auto const u = static_cast<std::size_t>(front[i]);
                    double const su = sigma[u];
                    for (Index k = ap[u]; k < ap[u + 1]; ++k) {
                        auto const v = static_cast<std::size_t>(aj[k]);
                        if (level[v] < 0) {
                            level[v] = d;
                            out[found++] = static_cast<Index>(v);
                            found_edges += out_degree(v);
                        }
                        if (level[v] == d) sigma[v] += su;
                    }
                }
            } else {
                for (std::size_t v = 0; v < n; ++v) {
                    if (level[v] >= 0) continue;
                    double s = 0;
                    for (Index k = tp[v]; k < tp[v + 1]; ++k) {
                        auto const u = static_cast<std::size_t>(tj[k]);
                        if (level[u] == prev) s += sigma[u];
                    }
                    if (s > 0) {
                        level[v] = d;
                        sigma[v] = s;
                        out[found++] = static_cast<Index>(v);
                        found_edges += out_degree(v);
                    }
                }
            }
        }
        mu -= found_edges;
        w.level_start.push_back(f1 + found);
    }

    // Backward, deepest level first; the source (level 0) takes nothing.
    double* coef = w.coef.data();
    auto const depth = static_cast<std::ptrdiff_t>(w.level_start.size()) - 2;  // deepest level
    for (std::ptrdiff_t l = depth; l >= 1; --l) {
        std::size_t const b = w.level_start[static_cast<std::size_t>(l)];
        std::size_t const e = w.level_start[static_cast<std::size_t>(l) + 1];
        auto const next = static_cast<Index>(l + 1);
        for (std::size_t i = b; i < e; ++i)
            brandes_backward(static_cast<std::size_t>(order[i]), next, ap, aj, level, sigma, coef,
                             score);
    }
}

/// The direct method over all sources; explain gets one line per search.
template <class Index>
void betweenness_direct(std::size_t n, Index const* ap, Index const* aj, Index const* tp,
                        Index const* tj, std::span<std::int64_t const> sources,
                        bc_options const& opt, vector_for_overwrite<double>& score) {
    bfs_direction const dir = opt.direction;
    double const alpha = opt.alpha > 0 ? opt.alpha : bc_pull_alpha;
    std::size_t const per_thread =
        opt.sources_per_thread > 0 ? opt.sources_per_thread : bc_sources_per_thread;
    explain_trace* const explain = opt.explain;
    int const threads = cpu::max_threads();
    std::size_t const ns = sources.size();
    auto line = [&](std::size_t i, brandes_work<Index> const& w) {
        return "betweenness: source " + std::to_string(sources[i]) + ": " +
               std::to_string(w.level_start.back()) + " vertices reached, " +
               std::to_string(w.level_start.size() - 2) + " levels, steps " + w.steps +
               " (P push, L pull)";
    };
    if (threads > 1 && ns >= per_thread * static_cast<std::size_t>(threads)) {
        // Side by side: thread t runs sources t, t + T, ... (static, so that the sums are folded
        // in the same order every run) into its own score array.
        std::vector<std::vector<double>> part(static_cast<std::size_t>(threads));
        std::vector<std::string> lines(ns);
        cpu::exception_carrier failure;
#pragma omp parallel num_threads(threads)
        failure.run([&] {
            auto const t = static_cast<std::size_t>(omp_get_thread_num());
            auto const tn = static_cast<std::size_t>(omp_get_num_threads());
            brandes_work<Index> w(n, 1);
            part[t].assign(n, 0.0);
            for (std::size_t i = t; i < ns; i += tn) {
                brandes_search(n, ap, aj, tp, tj, static_cast<std::size_t>(sources[i]), dir, alpha,
                               1, w, part[t].data());
                if (explain) lines[i] = line(i, w);
            }
        });
        failure.rethrow("betweenness searches");
        if (explain) {
            explain->add("betweenness: direct, " + std::to_string(ns) +
                         " searches side by side on " + std::to_string(threads) +
                         " threads (one search per thread)");
            for (auto& l : lines) explain->add(std::move(l));
        }
        for (auto const& p : part)
            if (!p.empty())
                for (std::size_t v = 0; v < n; ++v) score[v] += p[v];
        return;
    }
    if (explain)
        explain->add("betweenness: direct, " + std::to_string(ns) +
                     " searches one after another, each level over " + std::to_string(threads) +
                     " threads");
    brandes_work<Index> w(n, threads);
    std::int64_t const serial_edges = opt.serial_edges >= 0 ? opt.serial_edges : bc_serial_edges;
    std::int64_t const split_edges = opt.split_edges >= 0 ? opt.split_edges : bc_split_edges;
    for (std::size_t i = 0; i < ns; ++i) {
        brandes_search(n, ap, aj, tp, tj, static_cast<std::size_t>(sources[i]), dir, alpha, threads,
                       w, score.data(), serial_edges, split_edges);
        if (explain) explain->add(line(i, w));
    }
}

/// The semiring method (LAGraph's LAGr_Betweenness on kleene's operations, push products only).
template <class Index>
void betweenness_semiring(std::size_t n, csr_matrix<double, Index> const& a,
                          csr_matrix<double, Index> const& at,
                          std::span<std::int64_t const> sources, explain_trace* explain,
                          vector_for_overwrite<double>& score) {
    using S = plus_times<double>;
    std::size_t const ns = sources.size();
    options o;
    o.replace = true;
    o.explain = explain;

    // paths(i, s_i) = 1, frontier(i, s_i) = 1.
    dense_matrix<double> paths(ns, n, 0.0);
    buffer<Index> fp(ns + 1), fj(ns);
    for (std::size_t i = 0; i < ns; ++i) {
        paths(i, static_cast<std::size_t>(sources[i])) = 1;
        fp[i] = static_cast<Index>(i);
        fj[i] = static_cast<Index>(sources[i]);
    }
    fp[ns] = static_cast<Index>(ns);
    csr_matrix<double, Index> frontier(ns, n, std::move(fp), std::move(fj), buffer<double>{}, 1.0,
                                       true);
    // S[l]: the frontier of level l + 1, its values the path counts of that level.
    std::vector<csr_matrix<double, Index>> levels;
    for (;;) {
        csr_matrix<double, Index> next(ns, n);
        mxm(next, complement(paths), no_accum, frontier, a, S{}, o);  // next<!paths> = F (+.x) A
        o.explain = nullptr;  // the first product's line stands for the rest
        if (next.nnz() == 0) break;
        apply(paths, no_mask, plus_op<double>{}, identity_op<double>{}, next);  // paths += next
        levels.push_back(next);
        frontier = std::move(next);
    }
    if (explain)
        explain->add("betweenness: semiring, " + std::to_string(levels.size()) +
                     " levels of products over " + std::to_string(ns) + " sources at once");

    dense_matrix<double> b(ns, n, 1.0);  // 1 + delta
    o.explain = explain;
    for (std::size_t l = levels.size(); l-- > 1;) {
        csr_matrix<double, Index> w(ns, n), w2(ns, n);
        ewise_mult(w, no_mask, no_accum, bc_div_op{}, b, levels[l], o);  // W = B ./ S[l]
        mxm(w2, structure(levels[l - 1]), no_accum, w, at, S{}, o);      // W<S[l-1]> = W (+.x) A'
        // B += W .* S[l-1]; absent 0, not times' identity 1 (B's ones are values).
        ewise_mult(b, no_mask, plus_op<double>{}, with_absent(times_op<double>{}, 0.0), w2,
                   levels[l - 1], o);
        o.explain = nullptr;
    }
    dense_vector<double> sums(n);
    reduce(sums, plus_monoid<double>{}, transpose(b));
    for (std::size_t v = 0; v < n; ++v) score[v] += sums[v] - static_cast<double>(ns);
}


inline double bc_seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace detail

/// Betweenness centrality of every vertex of A (host or device CSR; values ignored, row u lists
/// the out-edges of u) summed over `sources` (0-based; repeats allowed, each counted). No sources:
/// all zeros. A 0-vertex graph: an empty result (any source is then out of range). Throws
/// dimension_mismatch for a non-square A, invalid_argument for a source outside 0..n-1 or
/// device=cpu with a device graph; no_device for device=gpu without a GPU.
namespace detail {
/// betweenness()'s body; `out`: a device A's scores left in this device vector (resized to n when
/// it is not; normalized there when asked), the result's centrality then empty.
template <class T, class Index, class Space>
bc_result betweenness_run(csr_matrix<T, Index, Space> const& a,
                          std::span<std::int64_t const> sources, bc_options const& opt,
                          dense_vector<double, device>* out) {
    constexpr bool on_device = std::is_same_v<Space, device>;
    if (a.rows() != a.cols())
        throw dimension_mismatch("betweenness: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    std::size_t const n = a.rows();
    for (std::int64_t s : sources)
        if (s < 0 || static_cast<std::uint64_t>(s) >= n)
            throw invalid_argument("betweenness: source " + std::to_string(s) +
                                   " is not a vertex of a " + std::to_string(n) + "-vertex graph");
    if (!(opt.alpha >= 0) || !std::isfinite(opt.alpha))
        throw invalid_argument("betweenness: alpha must be positive (or 0: the default)");
    if (on_device && opt.device == device_choice::cpu)
        throw invalid_argument(
            "betweenness: device=cpu was asked for a device graph; move it with to_host() first");

    bool gpu = on_device;
    if (opt.device == device_choice::gpu) {
        cuda::require_device();  // no GPU: no_device, never a silent CPU run
        gpu = true;
    } else if (!on_device && opt.device == device_choice::automatic) {
        gpu = a.nnz() >= opt.gpu_min_edges && cuda::device_count() > 0;
    }
    bc_method const method = opt.method == bc_method::automatic ? bc_method::direct : opt.method;
    if (opt.explain) {
        std::string why = opt.device != device_choice::automatic ? " (pinned)"
                          : on_device                            ? " (a device graph)"
                          : gpu
                              ? " (a device and >= " + std::to_string(opt.gpu_min_edges) + " edges)"
                          : cuda::device_count() == 0 ? " (no device)"
                          : opt.gpu_min_edges == std::numeric_limits<std::size_t>::max()
                              ? " (host graph: one run does not repay the copy)"
                              : " (fewer than " + std::to_string(opt.gpu_min_edges) + " edges)";
        opt.explain->add("betweenness: n=" + std::to_string(n) + ", edges=" +
                         std::to_string(a.nnz()) + ", " + std::to_string(sources.size()) +
                         " sources" + (opt.normalize ? ", normalized by the largest score" : "") +
                         ": " + (gpu ? "gpu" : "cpu") + why);
        if (!gpu)
            opt.explain->add(
                std::string("betweenness: method ") + to_string(method) +
                (opt.method != bc_method::automatic
                     ? " (pinned)"
                     : " (automatic: the direct searches, measured faster than the semiring "
                       "products on the CPU; docs/performance.md)"));
    }
    bc_result r;
    r.method = gpu ? bc_method::automatic : method;
    if (out && out->size() != n) *out = dense_vector<double, device>(n);
    if (!out && (!gpu || n == 0)) r.centrality.assign(n, 0.0);  // a GPU run brings its own
    auto normalize = [&] {
        if (!opt.normalize) return;
        double top = 0;
        for (double x : r.centrality) top = std::max(top, x);
        if (top > 0)
            for (double& x : r.centrality) x /= top;
    };

    if (gpu) {
        r.device = device_choice::gpu;
        if (n == 0) return r;
        auto const t0 = std::chrono::steady_clock::now();
        auto [ad, atd] = detail::device_structure(a, opt.symmetric);
        if (opt.explain)
            opt.explain->add(
                std::string("betweenness: structure on the device") +
                (opt.symmetric ? ", A symmetric: A' = A" : " and A' transposed there") + " (" +
                detail::ms(detail::bc_seconds_since(t0)) + ")");
        std::vector<std::int64_t> const src(sources.begin(), sources.end());
        context& ctx = resolve(opt.ctx);
        auto run = out ? cuda::betweenness<Index>(ad, atd ? *atd : ad, src, *out, ctx)
                       : cuda::betweenness<Index>(ad, atd ? *atd : ad, src, ctx);
        if (opt.explain) {
            for (auto& line : run.notes) opt.explain->add("betweenness: " + line);
            opt.explain->add("betweenness: gpu " + detail::ms(run.seconds));
        }
        if (out) {
            if (opt.normalize) (void)cuda::scale_by_largest(out->data(), n, ctx);
            return r;
        }
        r.centrality = std::move(run.centrality);
        normalize();
        return r;
    } else if constexpr (!on_device) {
        r.device = device_choice::cpu;
        if (n == 0 || sources.empty()) return r;
        auto const t0 = std::chrono::steady_clock::now();
        std::optional<csr_matrix<bool, Index>> made;
        // The direct method needs A' for pull steps only; the semiring one for its backward sweep.
        if (!opt.symmetric) made.emplace(cpu::transpose_csr(pattern_of(a)));
        if (opt.explain)
            opt.explain->add(std::string("betweenness: ") +
                             (opt.symmetric ? "A symmetric: A' = A" : "transposed A") + " (" +
                             detail::ms(detail::bc_seconds_since(t0)) + ")");
        auto const t1 = std::chrono::steady_clock::now();
        if (method == bc_method::semiring) {
            csr_matrix<double, Index> ad(n, n, a.row_ptr_storage(), a.col_idx_storage(),
                                         buffer<double>{}, 1.0, true);
            std::optional<csr_matrix<double, Index>> atd;
            if (made)
                atd.emplace(n, n, std::move(made->row_ptr_storage()),
                            std::move(made->col_idx_storage()), buffer<double>{}, 1.0, true);
            detail::betweenness_semiring<Index>(n, ad, atd ? *atd : ad, sources, opt.explain,
                                                r.centrality);
        } else {
            Index const* tp = made ? made->row_ptr() : a.row_ptr();
            Index const* tj = made ? made->col_idx() : a.col_idx();
            detail::betweenness_direct<Index>(n, a.row_ptr(), a.col_idx(), tp, tj, sources, opt,
                                              r.centrality);
        }
        if (opt.explain)
            opt.explain->add("betweenness: " + std::to_string(cpu::max_threads()) + " threads, " +
                             detail::ms(detail::bc_seconds_since(t1)));
        normalize();
        return r;
    }
    return r;  // not reached: a device graph always runs on the GPU
}
}  // namespace detail

template <class T, index_type Index, memory_space Space>
bc_result betweenness(csr_matrix<T, Index, Space> const& a, std::span<std::int64_t const> sources,
                      bc_options const& opt = {}) {
    return detail::betweenness_run(a, sources, opt, nullptr);
}

/// The same for a device A with the scores left in `centrality` (resized to n when it is not;
/// normalized there when asked), nothing copied back: the result's centrality stays empty.
template <class T, index_type Index>
bc_result betweenness(dense_vector<double, device>& centrality,
                      csr_matrix<T, Index, device> const& a, std::span<std::int64_t const> sources,
                      bc_options const& opt = {}) {
    return detail::betweenness_run(a, sources, opt, &centrality);
}

/// The same with the sources in a vector.
template <class T, index_type Index, memory_space Space>
bc_result betweenness(csr_matrix<T, Index, Space> const& a,
                      std::vector<std::int64_t> const& sources, bc_options const& opt = {}) {
    return betweenness(a, std::span<std::int64_t const>(sources), opt);
}

}  // namespace kleene

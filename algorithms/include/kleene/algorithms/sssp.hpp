#pragma once
// Single-source shortest paths.
//
//   sssp(A, source, options)        frontier Bellman-Ford or delta-stepping, CPU or GPU
//   sssp(result, A, source, options)  the same into a result whose vectors are reused
//   sssp(dA, source, options), sssp(device_result, dA, source, options)
//                                   a device matrix: everything on the GPU, the results copied
//                                   back or left in device vectors (sssp_device_result)
//   sssp_bellman_ford(A, source)    the plain algebraic form: d = d min (d min.+ A) until nothing
//                                   changes; a change after n rounds means a negative cycle
//
// sssp()'s Bellman-Ford is the same min.+ product restricted to the rows of the vertices whose
// distance changed in the last round (a sparse frontier, edges split evenly over the threads,
// atomic min into the distances). Delta-stepping (non-negative weights) keeps vertices in buckets
// of width delta (by default the mean weight over the mean degree, said in the explain trace) and
// settles the lowest bucket before the next; each thread keeps its own ring of buckets and works
// through a small current bucket alone before it meets the others (fewer barriers); a vertex is
// expanded once per distance it reaches. Before either runs, one pass over the weights picks the
// method and the width and bounds path weights (path_weights.hpp). Parents come afterwards from
// the distances: a BFS from the source over the edges that are tight (d[u] + w == d[v]), which
// gives a tree even where zero-weight cycles exist.
//
// The CPU searches (Bellman-Ford, delta-stepping, the tight-edge tree): sssp_cpu.hpp. For a
// device matrix the pass over the weights, the overflow check and the tight-edge tree run on the
// device too (cuda/graph_scans.hpp): A is never copied to the host.

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/cuda/graph_scans.hpp>
#include <kleene/algorithms/negative_cycle.hpp>
#include <kleene/algorithms/path_weights.hpp>
#include <kleene/algorithms/sssp_cpu.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/mxm.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {


/// Distances from `source`; unreachable vertices hold infinity<T>().
template <class T, index_type Index>
dense_vector<T> sssp_bellman_ford(csr_matrix<T, Index> const& a, std::size_t source,
                                  options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("sssp: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (source >= a.rows())
        throw invalid_argument("sssp: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    std::size_t const n = a.rows();
    dense_vector<T> d(n, infinity<T>());
    d[source] = T(0);
    for (std::size_t round = 0; round <= n; ++round) {
        dense_vector<T> next = d;
        vxm(next, no_mask, min_op<T>{}, d, a, min_plus<T>{}, opt);
        bool changed = false;
        for (std::size_t v = 0; v < n; ++v) changed |= !(next[v] == d[v]);
        if (!changed) return d;
        if (round == n) throw negative_cycle(detail::vertex_on_negative_cycle(a, std::move(next)));
        d = std::move(next);
    }
    return d;
}

/// Which algorithm sssp() runs (the GPU kernels take the same choice).
using sssp_method = cuda::sssp_method;

inline char const* to_string(sssp_method m) {
    return m == sssp_method::bellman_ford     ? "bellman-ford"
           : m == sssp_method::delta_stepping ? "delta-stepping"
           : m == sssp_method::async          ? "async"
                                              : "auto";
}

struct sssp_options {
    device_choice device = device_choice::automatic;
    /// automatic: delta-stepping when no weight is negative, else Bellman-Ford; on the GPU, the
    /// asynchronous work list instead of delta-stepping on graphs of few edges a vertex (road
    /// networks: cuda::sssp_tuning::async_degree). async: the work list, GPU only.
    sssp_method method = sssp_method::automatic;
    /// Bucket width of delta-stepping; 0 picks one from the weights and the mean degree.
    double delta = 0;
    /// Also return a shortest-path tree (parent of every reached vertex; the source is its own).
    bool parents = false;
    /// automatic runs on the GPU when there is one and A has at least this many entries. The
    /// default keeps host graphs on the CPU: one traversal does not repay copying the graph to the
    /// device (from the CLI at Kronecker scale 20, the context start and the copy took 60 times
    /// the whole CPU search). Lower it when the process runs many traversals on one graph.
    std::size_t gpu_min_edges = std::numeric_limits<std::size_t>::max();
    explain_trace* explain = nullptr;
    /// OpenMP threads of the CPU search (context::threads); null: default_context().
    context* ctx = nullptr;
    /// The CPU searches call it between rounds, outside their parallel regions (options.hpp):
    /// Bellman-Ford before each round, delta-stepping before the first and then every 256 rounds
    /// or 50 ms. It may throw.
    step_hook on_step{};
};

template <class T>
struct sssp_result {
    /// Distance of every vertex from the source, infinity<T>() where unreachable.
    std::vector<T> dist;
    /// Parent on a shortest path (source: itself), -1 where unreachable; empty unless asked for.
    std::vector<std::int64_t> parent;
    sssp_method method = sssp_method::automatic;
    device_choice device = device_choice::cpu;
    /// Rounds the search took: Bellman-Ford's rounds; delta-stepping's barrier-separated rounds
    /// on the CPU, its relaxation rounds (kernel launches or device-loop steps) on the GPU.
    std::size_t rounds = 0;
};

/// sssp's results left on the device (a device graph's, graph.hpp, or a device matrix's): vectors
/// of n that are reused when they already hold n.
template <class T>
struct sssp_device_result {
    dense_vector<T, device> dist;                ///< infinity<T>() where unreachable
    dense_vector<std::int64_t, device> parent;  ///< empty unless parents were asked for
    sssp_method method = sssp_method::automatic;
    std::size_t rounds = 0;
};

namespace detail {

template <class T>
constexpr bool gpu_sssp_type = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                               std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// The bucket width when none is given: the mean weight over the mean degree, widened by
/// (32 / degree)^1.25 below degree 32. Dense graphs want narrow buckets (few re-expansions:
/// GAP's kron graph, degree 31, weights 1..255, takes 4.1, and widths 1 to 16 measured within
/// 7-18% of it at scale 22); sparse high-diameter ones want wide buckets, or a barrier-separated
/// round buys a few hundred edges (the NE road network, degree 2.5: 49 ms at 50, 17 at 512, 14.9
/// at 1024, 15.2 at 2048, 16 threads of the H200 host, 2026-11-28; the GAP reference's best there
/// is 1024). The widening is a fit to those two classes (1194 at degree 2.5, 4.3 at 31, 90 at 8),
/// not a law; bench_graph_kernels --delta measures any graph.
inline double automatic_delta(double mean_weight, double mean_degree) {
    double const degree = std::max(mean_degree, 1.0);
    double const d = mean_weight / degree * std::max(1.0, std::pow(32.0 / degree, 1.25));
    return d > 0 ? d : 1.0;
}

/// What sssp decides before it searches (plan_sssp).
struct sssp_plan {
    sssp_method method = sssp_method::automatic;
    double delta = 0;
    bool gpu = false;
    /// Unpinned on the GPU with non-negative weights: the device picks the work list or
    /// delta-stepping by the graph's degree (cuda::sssp_tuning::async_degree).
    bool device_chooses = false;
    /// Sums may leave T: the result is checked for a saturated distance.
    bool may_overflow = false;
    weight_summary w;
    path_weight_bound wb;
};

/// sssp's checks and choices for A on the host or on the device. summary and scan: what the
/// caller keeps of the weights (kleene::graph), else made here (a device A: one pass there).
/// A device A never leaves the device: B comes from the scan, never from host values.
template <class T, class Index, class Space>
sssp_plan plan_sssp(csr_matrix<T, Index, Space> const& a, std::size_t source,
                    sssp_options const& opt, weight_summary const* summary,
                    path_weight_scan const* scan) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "sssp needs numeric edge weights");
    constexpr bool on_device = std::is_same_v<Space, device>;
    if (a.rows() != a.cols())
        throw dimension_mismatch("sssp: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (source >= a.rows())
        throw invalid_argument("sssp: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    if (opt.delta < 0 || !std::isfinite(opt.delta))
        throw invalid_argument("sssp: delta must be a finite width >= 0 (0: automatic)");
    if (on_device && opt.device == device_choice::cpu)
        throw invalid_argument(
            "sssp: device=cpu was asked for a device graph; copy it with to_host() first");
    std::size_t const n = a.rows();
    sssp_plan p;
    std::pair<weight_summary, path_weight_scan> made;
    if constexpr (on_device) {
        if (!gpu_sssp_type<T>)
            throw invalid_argument("sssp: the GPU runs fp32, fp64, int32 and int64 weights only");
        cuda::require_device();
        if (!summary || !scan) {
            made = weights_of_pass(a, cuda::scan_weights<T, Index>(a, resolve(opt.ctx)));
            summary = &made.first;
            scan = &made.second;
        }
        p.w = *summary;
    } else {
        p.w = summary ? *summary : detail::summarise_weights(a);
    }
    // One pass decides the method, the width and (mostly) overflow; weight_bound()'s exact B (one
    // more pass, or the scan's) only when the quick bound does not settle it, or to name a
    // non-finite weight.
    weight_summary const& w = p.w;
    p.wb = {w.quick_bound, w.negative};
    bool exact_bound = false;
    auto need_exact_bound = [&] {
        if (exact_bound) return;
        exact_bound = true;
        if (scan) {
            p.wb = checked_bound(*scan, "sssp");
        } else if constexpr (!on_device) {
            p.wb = weight_bound(a, "sssp");
        }
    };
    if (w.non_finite || !distances_fit<T>(p.wb)) need_exact_bound();
    p.may_overflow = !distances_fit<T>(p.wb);
    if (p.may_overflow && p.wb.negative)
        throw overflow_error("sssp: " + distance_range_note<T>(p.wb) +
                             ": with negative weights a sum that saturates cannot be told from a "
                             "longer path; use a wider type");

    p.method = opt.method;
    if (p.method == sssp_method::automatic)
        p.method = w.negative ? sssp_method::bellman_ford : sssp_method::delta_stepping;
    if ((p.method == sssp_method::delta_stepping || p.method == sssp_method::async) && w.negative)
        throw invalid_argument(std::string("sssp: ") + kleene::to_string(p.method) +
                               " needs non-negative weights (the smallest is " +
                               std::to_string(w.min) + "); use Bellman-Ford");
    p.delta = opt.delta;
    std::string delta_why = "given";
    if (p.method == sssp_method::delta_stepping && p.delta == 0) {
        double const degree = n ? static_cast<double>(a.nnz()) / static_cast<double>(n) : 1.0;
        p.delta = detail::automatic_delta(w.mean, degree);
        delta_why = "automatic: mean weight " + std::to_string(w.mean) + " / mean degree " +
                    std::to_string(degree) +
                    (degree < 32 ? ", widened by (32 / degree)^1.25 for a sparse graph" : "");
    }
    // Buckets finer than an integer step, or more than 2^40 of them over the longest possible
    // path, sort nothing more finely and overflow the bucket numbers: the width is raised.
    auto finest = [&] {
        return std::max(std::is_integral_v<T> ? 1.0 : 0.0,
                        static_cast<double>(p.wb.bound) / 0x1p40);
    };
    if (p.method == sssp_method::delta_stepping && p.delta < finest()) {
        need_exact_bound();
        if (p.delta < finest()) {
            if (opt.explain)
                opt.explain->add("sssp: delta " + std::to_string(p.delta) + " raised to " +
                                 std::to_string(finest()) +
                                 (std::is_integral_v<T>
                                      ? " (integer weights)"
                                      : " (at most 2^40 buckets over the longest path)"));
            p.delta = finest();
        }
    }

    if (on_device || opt.device == device_choice::gpu) {
        if (!detail::gpu_sssp_type<T>)
            throw invalid_argument("sssp: the GPU runs fp32, fp64, int32 and int64 weights only");
        cuda::require_device();
        p.gpu = true;
    } else if (opt.device == device_choice::automatic) {
        p.gpu = detail::gpu_sssp_type<T> && a.nnz() >= opt.gpu_min_edges &&
                cuda::device_count() > 0;
    }
    if (p.method == sssp_method::async && !p.gpu)
        throw invalid_argument("sssp: the asynchronous work list (method async) runs on the GPU "
                               "only; pass device = gpu, or another method");
    p.device_chooses = p.gpu && opt.method == sssp_method::automatic && !w.negative;
    if (opt.explain)
        opt.explain->add("sssp: n=" + std::to_string(n) + ", edges=" + std::to_string(a.nnz()) +
                         ", source=" + std::to_string(source) + ", smallest weight " +
                         std::to_string(w.min) + ": " +
                         (p.device_chooses
                              ? std::string("the work list or delta-stepping, by degree")
                              : std::string(kleene::to_string(p.method))) +
                         (p.method == sssp_method::delta_stepping && !p.gpu
                              ? " (delta " + std::to_string(p.delta) + ", " + delta_why + ")"
                              : "") +
                         (opt.method == sssp_method::automatic ? " (weights)" : " (pinned)") +
                         " on " + (p.gpu ? "gpu" : "cpu") +
                         (opt.device != device_choice::automatic ? " (pinned)"
                          : on_device                            ? " (a device graph)"
                                                                 : ""));
    return p;
}

template <class T>
cuda::sssp_tuning sssp_gpu_tuning(sssp_plan const& p, sssp_options const& opt) {
    cuda::sssp_tuning tuning;
    tuning.method = p.device_chooses ? sssp_method::automatic : p.method;
    tuning.delta = opt.delta > 0 ? p.delta : 0;
    // The plan has summarised the weights already (or the graph kept the summary): the device
    // search need not pass over them again.
    if (std::isfinite(p.w.mean) && std::isfinite(p.w.min)) {
        tuning.weight_mean = p.w.mean;
        tuning.weight_min = p.w.min;
    }
    return tuning;
}

template <class T>
void note_gpu_sssp(cuda::sssp_run<T> const& run, sssp_options const& opt) {
    if (opt.explain)
        opt.explain->add("sssp: gpu traversal " + detail::ms(run.seconds) + ", " +
                         std::to_string(run.rounds) + " rounds" +
                         (run.notes.empty() ? "" : ": " + run.notes));
}

/// The planned search of a device A, its results left in device vectors of n: the distances and,
/// when `parent` is not null, the tight-edge tree. The overflow check and the tree read A and
/// the distances on the device (cuda/graph_scans.hpp).
template <class T, class Index>
cuda::sssp_run<T> sssp_on_device(sssp_plan const& p, csr_matrix<T, Index, device> const& a,
                                 std::size_t source, sssp_options const& opt,
                                 dense_vector<T, device>& dist,
                                 dense_vector<std::int64_t, device>* parent) {
    context& ctx = resolve(opt.ctx);
    std::size_t const n = a.rows();
    if (dist.size() != n) dist = dense_vector<T, device>(n);
    cuda::sssp_run<T> run = cuda::sssp<T, Index>(a, source, dist, sssp_gpu_tuning<T>(p, opt), ctx);
    note_gpu_sssp(run, opt);
    if (p.may_overflow) {
        auto const e = cuda::first_saturated_edge<T, Index>(a, dist.data(), ctx);
        if (e.to >= 0)
            throw_saturated_distance<T>(source, static_cast<std::size_t>(e.to),
                                        static_cast<long double>(e.dist_from) +
                                            static_cast<long double>(e.weight));
    }
    if (parent) {
        if (parent->size() != n) *parent = dense_vector<std::int64_t, device>(n);
        cuda::tight_edge_tree<T, Index>(a, source, dist.data(), parent->data(), ctx);
    }
    return run;
}

/// The search behind both sssp() overloads, into r. summary: the weights' summary when the
/// caller keeps one (kleene::graph), else made here; device_of: null, or a callable returning a
/// pointer to A on the device that the GPU path uses instead of copying A there.
template <class T, class Index, class DeviceOf = std::nullptr_t>
void sssp_into(sssp_result<T>& r, csr_matrix<T, Index> const& a, std::size_t source,
               sssp_options const& opt, weight_summary const* summary = nullptr,
               DeviceOf device_of = nullptr) {
    detail::thread_scope const omp_scope(opt.ctx);
    sssp_plan const p = plan_sssp(a, source, opt, summary, nullptr);
    weight_summary const& w = p.w;
    r.method = p.method;
    if (p.gpu) {
        if constexpr (detail::gpu_sssp_type<T>) {
            r.device = device_choice::gpu;
            std::optional<csr_matrix<T, Index, device>> made;
            csr_matrix<T, Index, device> const* ad = nullptr;
            if constexpr (!std::is_same_v<DeviceOf, std::nullptr_t>) ad = device_of();
            else ad = &made.emplace(a.to_device());
            cuda::sssp_run<T> run =
                cuda::sssp<T, Index>(*ad, source, sssp_gpu_tuning<T>(p, opt), resolve(opt.ctx));
            r.dist = std::move(run.dist);
            r.rounds = run.rounds;
            r.method = run.method;
            note_gpu_sssp(run, opt);
        }
    } else {
        r.device = device_choice::cpu;
        auto const t0 = std::chrono::steady_clock::now();
        std::string what;
        if (p.method == sssp_method::bellman_ford) {
            r.rounds = detail::bellman_ford_cpu(a, source, r.dist, opt.on_step);
            what = std::to_string(r.rounds) + " rounds";
        } else {
            // Without saturation when no candidate sum can leave T: a simple path weighs at most
            // B, one more edge at most B + the largest weight.
            bool const saturate = std::is_integral_v<T> &&
                                  !(p.wb.bound + w.max_abs <= largest_finite_distance<T>());
            auto const st =
                saturate
                    ? detail::delta_stepping_cpu<true>(a, source, p.delta, r.dist, opt.on_step)
                    : detail::delta_stepping_cpu<false>(a, source, p.delta, r.dist, opt.on_step);
            r.rounds = st.rounds;
            what = std::to_string(st.rounds) + " rounds on " + std::to_string(st.threads) +
                   " threads, " + std::to_string(st.split_rows) + " long rows split" +
                   (saturate ? ", saturating sums" : "");
        }
        if (opt.explain)
            opt.explain->add(
                "sssp: " + what + ", " +
                detail::ms(
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
    }
    if (p.may_overflow) detail::check_no_saturated_distance(a, source, r.dist);
    if (opt.parents) r.parent = detail::tight_edge_tree(a, source, r.dist);
    else r.parent.clear();
}

/// The same for a device A (GPU only): the search, the overflow check and the tree run on the
/// device; the distances (and parents) are copied back into r, A itself never.
template <class T, class Index>
void sssp_into(sssp_result<T>& r, csr_matrix<T, Index, device> const& a, std::size_t source,
               sssp_options const& opt, weight_summary const* summary = nullptr,
               path_weight_scan const* scan = nullptr) {
    sssp_plan const p = plan_sssp(a, source, opt, summary, scan);
    context& ctx = resolve(opt.ctx);
    std::size_t const n = a.rows();
    r.device = device_choice::gpu;
    if (!opt.parents && !p.may_overflow) {
        // Nothing more to do on the device: the search copies the distances into r's own storage
        // (kept when r already holds n, as for repeated searches into one result), staged.
        cuda::sssp_run<T> run;
        run.dist = std::move(r.dist);
        cuda::sssp<T, Index>(run, a, source, sssp_gpu_tuning<T>(p, opt), ctx);
        note_gpu_sssp(run, opt);
        r.dist = std::move(run.dist);
        r.method = run.method;
        r.rounds = run.rounds;
        r.parent.clear();
        return;
    }
    dense_vector<T, device> dist;
    dense_vector<std::int64_t, device> parent;
    cuda::sssp_run<T> const run =
        sssp_on_device(p, a, source, opt, dist, opt.parents ? &parent : nullptr);
    r.method = run.method;
    r.rounds = run.rounds;
    r.dist.resize(n);
    cuda::copy_result_to_host(r.dist.data(), dist.data(), n * sizeof(T), ctx);
    r.parent.resize(opt.parents ? n : 0);
    if (opt.parents)
        cuda::copy_result_to_host(r.parent.data(), parent.data(), n * sizeof(std::int64_t), ctx);
}

/// The same with the results left on the device (sssp_device_result), nothing copied back.
template <class T, class Index>
void sssp_into(sssp_device_result<T>& r, csr_matrix<T, Index, device> const& a,
               std::size_t source, sssp_options const& opt,
               weight_summary const* summary = nullptr, path_weight_scan const* scan = nullptr) {
    sssp_plan const p = plan_sssp(a, source, opt, summary, scan);
    if (!opt.parents) r.parent = {};
    cuda::sssp_run<T> const run =
        sssp_on_device(p, a, source, opt, r.dist, opt.parents ? &r.parent : nullptr);
    r.method = run.method;
    r.rounds = run.rounds;
}

}  // namespace detail

/// Shortest distances from `source` (0-based), with the method and device chosen by `opt`.
/// Negative weights: Bellman-Ford only; a negative cycle reachable from the source throws
/// negative_cycle naming a vertex on it.
template <class T, index_type Index>
sssp_result<T> sssp(csr_matrix<T, Index> const& a, std::size_t source,
                    sssp_options const& opt = {}) {
    sssp_result<T> r;
    detail::sssp_into(r, a, source, opt);
    return r;
}

/// The same into `r`, for repeated searches on one graph: a distance vector that already holds n
/// entries is refilled by all threads instead of allocated and filled by one.
template <class T, index_type Index>
void sssp(sssp_result<T>& r, csr_matrix<T, Index> const& a, std::size_t source,
          sssp_options const& opt = {}) {
    detail::sssp_into(r, a, source, opt);
}

/// Shortest distances in a device graph, on the GPU (device=cpu is refused): the weights' pass,
/// the search and its checks run on the device; the distances come back as host vectors.
template <class T, index_type Index>
sssp_result<T> sssp(csr_matrix<T, Index, device> const& a, std::size_t source,
                    sssp_options const& opt = {}) {
    sssp_result<T> r;
    detail::sssp_into(r, a, source, opt);
    return r;
}

/// The same into `r`: distances that already hold n entries keep their storage (without parents
/// or a possible overflow the device copies them straight into it, staged).
template <class T, index_type Index>
void sssp(sssp_result<T>& r, csr_matrix<T, Index, device> const& a, std::size_t source,
          sssp_options const& opt = {}) {
    detail::sssp_into(r, a, source, opt);
}

/// The same with the results left on the device, in r's vectors (reused when they hold n).
template <class T, index_type Index>
void sssp(sssp_device_result<T>& r, csr_matrix<T, Index, device> const& a, std::size_t source,
          sssp_options const& opt = {}) {
    detail::sssp_into(r, a, source, opt);
}

}  // namespace kleene

#pragma once
// Single-source shortest paths.
//
//   sssp(A, source, options)        frontier Bellman-Ford or delta-stepping, CPU or GPU
//   sssp_bellman_ford(A, source)    the plain algebraic form: d = d min (d min.+ A) until nothing
//                                   changes; a change after n rounds means a negative cycle
//
// sssp()'s Bellman-Ford is the same min.+ product restricted to the rows of the vertices whose
// distance changed in the last round (a sparse frontier, edges split evenly over the threads,
// atomic min into the distances). Delta-stepping (non-negative weights) keeps vertices in buckets
// of width delta and settles the lowest bucket before the next; each thread keeps its own ring of
// buckets and works through a small current bucket alone before it meets the others (fewer
// barriers). Parents come afterwards from the distances: a BFS from the source over the edges
// that are tight (d[u] + w == d[v]), which gives a tree even where zero-weight cycles exist.

#include <kleene/algorithms/path_weights.hpp>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/negative_cycle.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/graph.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/mxm.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
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
                                              : "auto";
}

struct sssp_options {
    device_choice device = device_choice::automatic;
    /// automatic: delta-stepping when no weight is negative, else Bellman-Ford.
    sssp_method method = sssp_method::automatic;
    /// Bucket width of delta-stepping; 0 picks one from the weights and the mean degree.
    double delta = 0;
    /// Also return a shortest-path tree (parent of every reached vertex; the source is its own).
    bool parents = false;
    /// automatic runs on the GPU when there is one and A has at least this many entries. The
    /// default keeps host graphs on the CPU: one traversal does not repay copying the graph to the
    /// device (Kronecker scale 20 from the CLI on the GPU host: CPU 4.7 ms end to end; GPU 303 ms
    /// with the context start and the copy, 0.43 ms of which is the traversal). Lower it when the
    /// process runs many traversals on one graph.
    std::size_t gpu_min_edges = std::numeric_limits<std::size_t>::max();
    explain_trace* explain = nullptr;
};

template <class T>
struct sssp_result {
    /// Distance of every vertex from the source, infinity<T>() where unreachable.
    std::vector<T> dist;
    /// Parent on a shortest path (source: itself), -1 where unreachable; empty unless asked for.
    std::vector<std::int64_t> parent;
    sssp_method method = sssp_method::automatic;
    device_choice device = device_choice::cpu;
};

namespace detail {

template <class T>
constexpr bool gpu_sssp_type = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                               std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// Lowers *p to `value` when that is smaller; true when this call lowered it.
template <class T>
bool atomic_lower(T* p, T value) {
    std::atomic_ref<T> r(*p);
    T old = r.load(std::memory_order_relaxed);
    while (value < old)
        if (r.compare_exchange_weak(old, value, std::memory_order_relaxed)) return true;
    return false;
}

template <class T>
T load_relaxed(T const* p) {
    return std::atomic_ref<T>(*const_cast<T*>(p)).load(std::memory_order_relaxed);
}

struct weight_summary {
    double min = 0, mean = 0;
    bool negative = false;
};

template <class T, class Index>
weight_summary summarise_weights(csr_matrix<T, Index> const& a) {
    weight_summary s;
    std::size_t const m = a.nnz();
    if (m == 0) return s;
    if (!a.has_values()) {
        s.min = s.mean = static_cast<double>(a.iso_value());
    } else {
        T const* v = a.values();
        double lo = std::numeric_limits<double>::infinity(), sum = 0;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(+ : sum) if (m > 65536)
        for (std::size_t k = 0; k < m; ++k) {
            auto const x = static_cast<double>(v[k]);
            lo = std::min(lo, x);
            sum += x;
        }
        s.min = lo;
        s.mean = sum / static_cast<double>(m);
    }
    s.negative = s.min < 0;
    return s;
}

/// After an sssp whose sums may have left T (non-negative weights): a vertex is reachable exactly
/// when an edge leads to it from a reached one, so an unreached end of such an edge proves that
/// its distance saturated. Then every finite distance is exact (path_weights.hpp).
template <class T, class Index>
void check_no_saturated_distance(csr_matrix<T, Index> const& a, std::size_t source,
                                 std::vector<T> const& d) {
    std::size_t const n = a.rows();
    std::int64_t bad = -1;
    long double bad_sum = 0;
#pragma omp parallel for schedule(static)
    for (std::size_t u = 0; u < n; ++u) {
        if (d[u] == infinity<T>()) continue;
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            if (d[v] == infinity<T>()) {
#pragma omp critical(kleene_sssp_saturated)
                if (bad < 0 || static_cast<std::int64_t>(v) < bad) {
                    bad = static_cast<std::int64_t>(v);
                    bad_sum = static_cast<long double>(d[u]) + static_cast<long double>(a.value(k));
                }
            }
        }
    }
    if (bad >= 0)
        throw overflow_error("sssp: the shortest distance from " + std::to_string(source + 1) +
                             " to " + std::to_string(bad + 1) + " is past " +
                             std::string(distance_type_name<T>()) + "'s largest finite value " +
                             long_number(largest_finite_distance<T>()) + " (a path weighs " +
                             long_number(bad_sum) + ")" +
                             (std::is_integral_v<T> && sizeof(T) < 8 ? "; use int64 or fp64"
                                                                     : "; use fp64"));
}

/// Bellman-Ford over min.+ from the changed vertices only. Throws negative_cycle.
template <class T, class Index>
std::size_t bellman_ford_cpu(csr_matrix<T, Index> const& a, std::size_t source, std::vector<T>& d) {
    std::size_t const n = a.rows();
    int const threads = cpu::max_threads();
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    T const* av = a.values();
    T const iso = a.iso_value();
    d.assign(n, infinity<T>());
    d[source] = T(0);
    T* dist = d.data();

    buffer<Index> queue(n), next_queue(n);
    buffer<std::int64_t> prefix(n + 1);
    // stamp[v] == round: v is already in the next frontier (one exchange, no clearing).
    buffer<std::int64_t> stamp(n, std::int64_t(0));
    std::vector<std::vector<Index>> local(static_cast<std::size_t>(threads));
    std::vector<std::size_t> offset(static_cast<std::size_t>(threads) + 1);
    queue[0] = static_cast<Index>(source);
    std::size_t nf = 1, round = 1;
    for (; nf > 0; ++round) {
        // Past n rounds there is a negative cycle; from 64 rounds on, each power of two looks
        // for one among the parents of a few serial rounds (a long run is usually a cycle).
        if (round > n || (round >= 64 && (round & (round - 1)) == 0)) {
            dense_vector<T> snapshot(n);
            std::copy(d.begin(), d.end(), snapshot.begin());
            if (round > n) throw negative_cycle(vertex_on_negative_cycle(a, std::move(snapshot)));
            std::int64_t const v = find_negative_cycle(a, snapshot, 64);
            if (v >= 0) throw negative_cycle(v);
        }
        std::int64_t const edges = frontier_degree_prefix(ap, queue.data(), nf, prefix.data());
        std::size_t const pieces = frontier_pieces(edges, threads);
        auto const r = static_cast<std::int64_t>(round);
        std::size_t found = 0;
#pragma omp parallel num_threads(pieces > 1 ? threads : 1)
        {
            auto const t = static_cast<std::size_t>(omp_get_thread_num());
            auto const tn = static_cast<std::size_t>(omp_get_num_threads());
            auto& buf = local[t];
            buf.clear();
            for_frontier_edges(ap, queue.data(), nf, prefix.data(), pieces,
                               [&](std::size_t u, std::size_t k0, std::size_t k1) {
                                   T const du = load_relaxed(dist + u);
                                   for (std::size_t k = k0; k < k1; ++k) {
                                       auto const v = static_cast<std::size_t>(aj[k]);
                                       T const nd = plus_sat_op<T>::apply(du, av ? av[k] : iso);
                                       if (atomic_lower(dist + v, nd) &&
                                           std::atomic_ref<std::int64_t>(stamp[v]).exchange(
                                               r, std::memory_order_relaxed) != r)
                                           buf.push_back(static_cast<Index>(v));
                                   }
                               });
            offset[t + 1] = buf.size();
#pragma omp barrier
#pragma omp single
            {
                offset[0] = 0;
                for (std::size_t p = 0; p < tn; ++p) offset[p + 1] += offset[p];
                found = offset[tn];
            }
            std::copy(buf.begin(), buf.end(), next_queue.data() + offset[t]);
        }
        queue.swap(next_queue);
        nf = found;
    }
    return round - 1;
}

/// Delta-stepping (weights >= 0). Returns the number of rounds (buckets, or one bucket again).
template <class T, class Index>
std::size_t delta_stepping_cpu(csr_matrix<T, Index> const& a, std::size_t source, double delta,
                               std::vector<T>& d) {
    std::size_t const n = a.rows();
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    T const* av = a.values();
    T const iso = a.iso_value();
    d.assign(n, infinity<T>());
    d[source] = T(0);
    T* dist = d.data();

    // Each thread files bucket b in slot b % ring of a ring of vectors while b < current + ring,
    // and farther buckets in an ordered map, moved into the ring once the ring reaches them.
    constexpr std::uint64_t ring = 1024;
    constexpr std::size_t fuse_limit = 1000;  // a thread settles a current bucket this small alone
    constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
    // Two barriers a bucket: small graphs run on fewer threads (one per 32k edges).
    int const threads = static_cast<int>(
        std::clamp<std::size_t>(a.nnz() / 32768, 1, static_cast<std::size_t>(cpu::max_threads())));
    // Bucket `current` as each thread filed it, read by all in the next round (no copying).
    std::vector<std::vector<Index>> shared(static_cast<std::size_t>(threads));
    std::vector<std::size_t> sizes(static_cast<std::size_t>(threads), 0);
    shared[0].push_back(static_cast<Index>(source));
    sizes[0] = 1;
    std::uint64_t next_bucket[2] = {none, none};
    std::size_t rounds = 0;

#pragma omp parallel num_threads(threads)
    {
        auto const t = static_cast<std::size_t>(omp_get_thread_num());
        auto const tn = static_cast<std::size_t>(omp_get_num_threads());
        std::vector<std::size_t> offset(tn + 1, 0);  // where each thread's part starts
        auto gather = [&] {
            for (std::size_t p = 0; p < tn; ++p) offset[p + 1] = offset[p] + sizes[p];
        };
        gather();
        std::vector<std::vector<Index>> bins(ring);
        std::map<std::uint64_t, std::vector<Index>> far;
        std::vector<Index> work;
        std::uint64_t current = 0;
        auto bucket_of = [delta](T x) {
            double const q = static_cast<double>(x) / delta;
            return q >= 1.8e19 ? none - 1 : static_cast<std::uint64_t>(q);
        };
        auto file = [&](Index v, std::uint64_t b) {
            if (b < current + ring)
                bins[b % ring].push_back(v);
            else
                far[b].push_back(v);
        };
        auto visit = [&](std::size_t u) {
            T const du = load_relaxed(dist + u);
            std::uint64_t const bu = bucket_of(du);
            if (bu != current) {  // settled earlier with a smaller distance (or filed too low)
                if (bu > current) file(static_cast<Index>(u), bu);
                return;
            }
            for (Index k = ap[u]; k < ap[u + 1]; ++k) {
                auto const v = static_cast<std::size_t>(aj[k]);
                T const nd = plus_sat_op<T>::apply(du, av ? av[k] : iso);
                if (atomic_lower(dist + v, nd)) file(static_cast<Index>(v), bucket_of(nd));
            }
        };
        for (int iter = 0;; ++iter) {
            std::uint64_t& lowest = next_bucket[iter & 1];
            // 1. The shared bucket, all threads' parts as one index range.
            std::size_t const total = offset[tn];
#pragma omp for schedule(dynamic, 64) nowait
            for (std::size_t g = 0; g < total; ++g) {
                auto const p =
                    static_cast<std::size_t>(std::upper_bound(offset.begin(), offset.end(), g) -
                                             offset.begin()) -
                    1;
                visit(static_cast<std::size_t>(shared[p][g - offset[p]]));
            }
            // 2. Bucket fusion: settle a small current bucket without the other threads.
            auto& cur_bin = bins[current % ring];
            while (!cur_bin.empty() && cur_bin.size() < fuse_limit) {
                work.swap(cur_bin);
                cur_bin.clear();
                for (Index u : work) visit(static_cast<std::size_t>(u));
                work.clear();
            }
            // 3. The lowest bucket this thread holds.
            std::uint64_t mine = far.empty() ? none : far.begin()->first;
            for (std::uint64_t j = 0; j < ring; ++j)
                if (!bins[(current + j) % ring].empty()) {
                    mine = current + j;
                    break;
                }
            if (mine != none) {
                std::atomic_ref<std::uint64_t> o(lowest);
                std::uint64_t seen = o.load(std::memory_order_relaxed);
                while (mine < seen &&
                       !o.compare_exchange_weak(seen, mine, std::memory_order_relaxed)) {
                }
            }
#pragma omp barrier
            std::uint64_t const next = lowest;
            if (next == none) break;
            // 4. Move on: slots below `next` are empty everywhere; far buckets the ring now
            // reaches move into it.
            current = next;
            while (!far.empty() && far.begin()->first < current + ring) {
                auto node = far.extract(far.begin());
                auto& bin = bins[node.key() % ring];
                bin.insert(bin.end(), node.mapped().begin(), node.mapped().end());
            }
            // 5. Publish this thread's part of the next bucket; reset the other round's minimum
            // (nobody reads or writes it until after the barrier).
            shared[t].clear();
            shared[t].swap(bins[current % ring]);
            sizes[t] = shared[t].size();
            if (t == 0) {
                next_bucket[(iter + 1) & 1] = none;
                ++rounds;
            }
#pragma omp barrier
            gather();
        }
    }
    return rounds + 1;
}

/// A shortest-path tree from the distances: BFS from the source over the tight edges.
template <class T, class Index>
std::vector<std::int64_t> tight_edge_tree(csr_matrix<T, Index> const& a, std::size_t source,
                                          std::vector<T> const& d) {
    std::size_t const n = a.rows();
    std::vector<std::int64_t> parent(n, -1);
    parent[source] = static_cast<std::int64_t>(source);
    std::vector<Index> queue{static_cast<Index>(source)};
    for (std::size_t h = 0; h < queue.size(); ++h) {
        auto const u = static_cast<std::size_t>(queue[h]);
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            if (parent[v] < 0 && plus_sat_op<T>::apply(d[u], a.value(k)) == d[v]) {
                parent[v] = static_cast<std::int64_t>(u);
                queue.push_back(static_cast<Index>(v));
            }
        }
    }
    return parent;
}

}  // namespace detail

/// Shortest distances from `source` (0-based), with the method and device chosen by `opt`.
/// Negative weights: Bellman-Ford only; a negative cycle reachable from the source throws
/// negative_cycle naming a vertex on it.
template <class T, index_type Index>
sssp_result<T> sssp(csr_matrix<T, Index> const& a, std::size_t source,
                    sssp_options const& opt = {}) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "sssp needs numeric edge weights");
    if (a.rows() != a.cols())
        throw dimension_mismatch("sssp: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (source >= a.rows())
        throw invalid_argument("sssp: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    if (opt.delta < 0 || !std::isfinite(opt.delta))
        throw invalid_argument("sssp: delta must be a finite width >= 0 (0: automatic)");
    std::size_t const n = a.rows();
    auto const w = detail::summarise_weights(a);
    path_weight_bound const wb = weight_bound(a, "sssp");
    bool const may_overflow = !distances_fit<T>(wb);
    if (may_overflow && wb.negative)
        throw overflow_error("sssp: " + distance_range_note<T>(wb) +
                             ": with negative weights a sum that saturates cannot be told from a "
                             "longer path; use a wider type");

    sssp_method method = opt.method;
    if (method == sssp_method::automatic)
        method = w.negative ? sssp_method::bellman_ford : sssp_method::delta_stepping;
    if (method == sssp_method::delta_stepping && w.negative)
        throw invalid_argument("sssp: delta-stepping needs non-negative weights (the smallest is " +
                               std::to_string(w.min) + "); use Bellman-Ford");
    double delta = opt.delta;
    if (method == sssp_method::delta_stepping && delta == 0) {
        // The mean weight over the mean degree. Measured (16 threads of a Xeon, 2^18 vertices):
        // Kronecker graphs of mean degree 29 are fastest near 0.01-0.03 mean weights, uniform ones
        // of degree 8 near 0.3; this lands within 10% (Kronecker) and 50% (uniform) of the best,
        // where 1 mean weight is 1.6x and 1.2x slower. One thread favours smaller widths still.
        double const degree = n ? static_cast<double>(a.nnz()) / static_cast<double>(n) : 1.0;
        delta = w.mean / std::max(degree, 1.0);
        if (!(delta > 0)) delta = 1;
    }
    // Buckets finer than an integer step, or more than 2^40 of them over the longest possible
    // path, sort nothing more finely and overflow the bucket numbers: the width is raised.
    double const finest =
        std::max(std::is_integral_v<T> ? 1.0 : 0.0, static_cast<double>(wb.bound) / 0x1p40);
    if (method == sssp_method::delta_stepping && delta < finest) {
        if (opt.explain)
            opt.explain->add("sssp: delta " + std::to_string(delta) + " raised to " +
                             std::to_string(finest) +
                             (std::is_integral_v<T> ? " (integer weights)"
                                                    : " (at most 2^40 buckets over the longest path)"));
        delta = finest;
    }

    bool gpu = false;
    if (opt.device == device_choice::gpu) {
        if (!detail::gpu_sssp_type<T>)
            throw invalid_argument("sssp: the GPU runs fp32, fp64, int32 and int64 weights only");
        cuda::require_device();
        gpu = true;
    } else if (opt.device == device_choice::automatic) {
        gpu = detail::gpu_sssp_type<T> && a.nnz() >= opt.gpu_min_edges && cuda::device_count() > 0;
    }
    if (opt.explain)
        opt.explain->add("sssp: n=" + std::to_string(n) + ", edges=" + std::to_string(a.nnz()) +
                         ", source=" + std::to_string(source) + ", smallest weight " +
                         std::to_string(w.min) + ": " + to_string(method) +
                         (method == sssp_method::delta_stepping && !gpu
                              ? " (delta " + std::to_string(delta) + ")"
                              : "") +
                         (opt.method == sssp_method::automatic ? " (weights)" : " (pinned)") +
                         " on " + (gpu ? "gpu" : "cpu") +
                         (opt.device != device_choice::automatic ? " (pinned)" : ""));

    sssp_result<T> r;
    r.method = method;
    if (gpu) {
        if constexpr (detail::gpu_sssp_type<T>) {
            r.device = device_choice::gpu;
            cuda::sssp_tuning tuning;
            tuning.method = method;
            tuning.delta = opt.delta > 0 ? delta : 0;
            auto const ad = a.to_device();
            cuda::sssp_run<T> run = cuda::sssp<T, Index>(ad, source, tuning);
            r.dist = std::move(run.dist);
            if (opt.explain) opt.explain->add("sssp: gpu traversal " + detail::ms(run.seconds));
        }
    } else {
        r.device = device_choice::cpu;
        auto const t0 = std::chrono::steady_clock::now();
        std::size_t steps = 0;
        if (method == sssp_method::bellman_ford)
            steps = detail::bellman_ford_cpu(a, source, r.dist);
        else
            steps = detail::delta_stepping_cpu(a, source, delta, r.dist);
        if (opt.explain)
            opt.explain->add(
                std::string("sssp: ") + std::to_string(steps) +
                (method == sssp_method::bellman_ford ? " rounds, " : " buckets, ") +
                detail::ms(
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
    }
    if (may_overflow) detail::check_no_saturated_distance(a, source, r.dist);
    if (opt.parents) r.parent = detail::tight_edge_tree(a, source, r.dist);
    return r;
}

}  // namespace kleene

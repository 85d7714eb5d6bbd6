#pragma once
// The CPU searches behind sssp() (sssp.hpp): frontier Bellman-Ford, delta-stepping with per-thread
// bucket rings, the check that no distance saturated, and the shortest-path tree from the
// distances (a BFS over the tight edges). Frontier edges are shared out as in bfs.hpp
// (frontier_pieces).

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/negative_cycle.hpp>
#include <kleene/algorithms/path_weights.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::detail {

/// d becomes n copies of infinity: refilled by all threads when it already holds n entries (a
/// reused result), else allocated and filled by std::vector.
template <class T>
void reset_distances(std::vector<T>& d, std::size_t n) {
    if (d.size() != n) {
        d.assign(n, infinity<T>());
        return;
    }
    T* p = d.data();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i) p[i] = infinity<T>();
}

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

/// check_no_saturated_distance's error: the distance to `to` left T (a path weighs `sum`).
template <class T>
[[noreturn]] void throw_saturated_distance(std::size_t source, std::size_t to, long double sum) {
    throw overflow_error("sssp: the shortest distance from " + std::to_string(source + 1) + " to " +
                         std::to_string(to + 1) + " is past " +
                         std::string(distance_type_name<T>()) + "'s largest finite value " +
                         long_number(largest_finite_distance<T>()) + " (a path weighs " +
                         long_number(sum) + ")" +
                         (std::is_integral_v<T> && sizeof(T) < 8 ? "; use int64 or fp64"
                                                                 : "; use fp64"));
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
    if (bad >= 0) throw_saturated_distance<T>(source, static_cast<std::size_t>(bad), bad_sum);
}

/// Bellman-Ford over min.+ from the changed vertices only. Throws negative_cycle.
template <class T, class Index>
std::size_t bellman_ford_cpu(csr_matrix<T, Index> const& a, std::size_t source, std::vector<T>& d,
                             step_hook const& on_step = {}) {
    std::size_t const n = a.rows();
    int const threads = cpu::max_threads();
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    T const* av = a.values();
    T const iso = a.iso_value();
    reset_distances(d, n);
    d[source] = T(0);
    T* dist = d.data();

    buffer<Index> queue(n), next_queue(n);
    buffer<std::int64_t> prefix(n + 1);
    // stamp[v] == round: v is already in the next frontier (one exchange, no clearing).
    buffer<std::int64_t> stamp(n, std::int64_t(0));
    std::vector<cpu::padded<std::vector<Index>>> local(static_cast<std::size_t>(threads));
    std::vector<std::size_t> offset(static_cast<std::size_t>(threads) + 1);
    queue[0] = static_cast<Index>(source);
    std::size_t nf = 1, round = 1;
    for (; nf > 0; ++round) {
        detail::step(on_step);
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
            auto& buf = local[t].value;
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

/// What delta_stepping_cpu did, for the explain trace.
struct delta_stepping_stats {
    std::size_t rounds = 0;      ///< barrier-separated rounds (a bucket, or one bucket again)
    std::size_t split_rows = 0;  ///< rows long enough to be shared out by edge ranges
    int threads = 1;
};

/// Delta-stepping (weights >= 0) into d. Saturate: candidate sums may leave T (plus_sat_op);
/// without it every du + w fits T and a plain sum is used.
///
/// Each thread files bucket b in slot b % ring of its own ring of vectors while b < current + ring,
/// farther buckets in an ordered map moved into the ring once the ring reaches them. A round:
/// the threads share out the current bucket (every thread's part of it, read in place), then each
/// settles its own new entries of that bucket alone while they are few ("bucket fusion"), votes
/// for its lowest bucket, and publishes its part of the winner. Two barriers a round, no serial
/// step. A vertex is expanded only when its distance dropped below the one it was last expanded
/// with (`expanded`): vertices lowered twice within a bucket, hubs above all, are scanned once.
/// Rows longer than split_degree are shared out by edge ranges so that one hub does not hold up
/// the round.
///
/// on_step (when set) runs before the first round and then every poll_rounds rounds or
/// poll_seconds, whichever comes first, always outside the parallel region: the threads leave it
/// at the end of a round, their rings kept in `lanes`, and enter it again after the hook. Without
/// a hook the rounds run in one region, as before.
template <bool Saturate, class T, class Index>
delta_stepping_stats delta_stepping_cpu(csr_matrix<T, Index> const& a, std::size_t source,
                                        double delta, std::vector<T>& d,
                                        step_hook const& on_step = {}) {
    std::size_t const n = a.rows();
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    T const* av = a.values();
    T const iso = a.iso_value();
    reset_distances(d, n);
    d[source] = T(0);
    T* dist = d.data();

    constexpr std::uint64_t ring = 1024;
    constexpr std::size_t fuse_limit = 1000;  // a thread settles a current bucket this small alone
    constexpr std::size_t chunk = 64;         // vertices per piece of a shared bucket
    // Rows past split_degree edges are shared out in pieces (measured 1.36x faster on 16 threads
    // at Kronecker 2^22; no difference on 2 threads).
    constexpr std::size_t split_degree = 4096, split_piece = 1024;  // edges
    constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
    delta_stepping_stats stats;
    // Two barriers a bucket: small graphs run on fewer threads (one per 32k edges).
    int const threads = static_cast<int>(
        std::clamp<std::size_t>(a.nnz() / 32768, 1, static_cast<std::size_t>(cpu::max_threads())));
    stats.threads = threads;
    auto const nt = static_cast<std::size_t>(threads);
    buffer<T> expanded_store(n);
    T* expanded = expanded_store.data();
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 65536)
    for (std::size_t v = 0; v < n; ++v) expanded[v] = infinity<T>();

    // Bucket `current` as each thread filed it, read by all in the next round (no copying); long
    // rows go to `split` with the distance they are expanded with.
    struct alignas(64) part {
        std::vector<Index> vertices;
        std::vector<std::pair<Index, T>> split;
        std::size_t split_pieces = 0;
    };
    std::vector<part> shared(nt);
    shared[0].vertices.push_back(static_cast<Index>(source));
    std::uint64_t next_bucket[2] = {none, none};
    double const inv_delta = 1.0 / delta;

    // What a thread keeps between parallel regions (the hook runs between them); a cache line
    // apart, as the per-thread locals they replace were.
    struct alignas(64) lane {
        std::vector<std::vector<Index>> bins = std::vector<std::vector<Index>>(ring);
        std::size_t in_ring = 0;  // entries in `bins`
        std::map<std::uint64_t, std::vector<Index>> far;
        std::vector<Index> work;
        std::size_t rounds = 0, split_rows = 0;
        std::uint64_t current = 0;
    };
    std::vector<lane> lanes(nt);
    // Polling: rounds can be short (a barrier pair) or long (a bucket of millions of edges).
    constexpr std::size_t poll_rounds = 256;
    constexpr double poll_seconds = 0.05;
    bool const polling = static_cast<bool>(on_step);
    int first_iter = 0;  // the round a region starts with
    bool finished = false;
    bool pause = false;    // written by thread 0 between a round's barriers, read after the second
    std::size_t team = 0;  // threads of the last region (lanes at or past it are empty)

    while (!finished) {
        detail::step(on_step);
        double const since = polling ? omp_get_wtime() : 0.0;
#pragma omp parallel num_threads(threads)
        {
            auto const t = static_cast<std::size_t>(omp_get_thread_num());
            auto const tn = static_cast<std::size_t>(omp_get_num_threads());
#pragma omp single
            {
                // OpenMP may give a later region fewer threads (OMP_DYNAMIC): the lanes and
                // published parts of the absent ones are handed to present ones; new ones start at
                // `current`.
                for (std::size_t l = tn; l < team; ++l) {
                    lane& from = lanes[l];
                    lane& to = lanes[l % tn];
                    for (std::uint64_t j = 0; j < ring; ++j)
                        to.bins[j].insert(to.bins[j].end(), from.bins[j].begin(),
                                          from.bins[j].end());
                    for (auto& [b, list] : from.far)
                        to.far[b].insert(to.far[b].end(), list.begin(), list.end());
                    to.in_ring += from.in_ring;
                    to.rounds = std::max(to.rounds, from.rounds);
                    to.split_rows += from.split_rows;
                    from = lane{};
                    part& pf = shared[l];
                    part& pt = shared[l % tn];
                    pt.vertices.insert(pt.vertices.end(), pf.vertices.begin(), pf.vertices.end());
                    pt.split.insert(pt.split.end(), pf.split.begin(), pf.split.end());
                    pt.split_pieces += pf.split_pieces;
                    pf = part{};
                }
                for (std::size_t l = team; l < tn; ++l) lanes[l].current = lanes[0].current;
                team = tn;
            }
            // Prefix sums over the parts: pieces of short rows, pieces of long ones.
            std::vector<std::size_t> piece_of(tn + 1, 0), split_of(tn + 1, 0);
            lane& mine_lane = lanes[t];
            auto& bins = mine_lane.bins;
            std::size_t& in_ring = mine_lane.in_ring;
            auto& far = mine_lane.far;
            auto& work = mine_lane.work;
            std::size_t& rounds = mine_lane.rounds;
            std::size_t& split_rows = mine_lane.split_rows;
            std::uint64_t& current = mine_lane.current;
            auto bucket_of = [inv_delta](T x) {
                double const q = static_cast<double>(x) * inv_delta;
                return q >= 1.8e19 ? none - 1 : static_cast<std::uint64_t>(q);
            };
            auto file = [&](Index v, std::uint64_t b) {
                if (b < current + ring) {
                    bins[b % ring].push_back(v);
                    ++in_ring;
                } else {
                    far[b].push_back(v);
                }
            };
            auto relax = [&](T du, std::size_t k0, std::size_t k1) {
                for (std::size_t k = k0; k < k1; ++k) {
                    auto const v = static_cast<std::size_t>(aj[k]);
                    T const w = av ? av[k] : iso;
                    T const nd = Saturate ? plus_sat_op<T>::apply(du, w) : T(du + w);
                    if (atomic_lower(dist + v, nd)) file(static_cast<Index>(v), bucket_of(nd));
                }
            };
            // The distance to expand u with, or none (already expanded at that distance or lower;
            // or settled in an earlier bucket).
            auto claim = [&](std::size_t u, T& du) {
                du = load_relaxed(dist + u);
                std::uint64_t const bu = bucket_of(du);
                if (bu != current) {
                    if (bu > current) file(static_cast<Index>(u), bu);  // cannot happen: kept safe
                    return false;
                }
                std::atomic_ref<T> e(expanded[u]);
                if (!(du < e.load(std::memory_order_relaxed))) return false;
                e.store(du, std::memory_order_relaxed);  // a race only repeats an expansion
                return true;
            };
            auto visit = [&](std::size_t u) {
                T du;
                if (claim(u, du))
                    relax(du, static_cast<std::size_t>(ap[u]), static_cast<std::size_t>(ap[u + 1]));
            };
            // A vertex costs a chain of dependent misses (its row pointer, then its row) before its
            // edges' loads can overlap: fetch the row pointers 8 vertices ahead, the rest 4 ahead
            // (measured 1.2x faster at Kronecker 2^20 on 2 threads).
            auto visit_list = [&](Index const* list, std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) {
                    if (i + 8 < e) __builtin_prefetch(ap + list[i + 8]);
                    if (i + 4 < e) {
                        auto const w = static_cast<std::size_t>(list[i + 4]);
                        __builtin_prefetch(dist + w);
                        __builtin_prefetch(expanded + w);
                        __builtin_prefetch(aj + ap[w]);
                        if (av) __builtin_prefetch(av + ap[w]);
                    }
                    visit(static_cast<std::size_t>(list[i]));
                }
            };
            auto publish = [&](std::vector<Index>& from) {
                part& mine = shared[t];
                mine.vertices.clear();
                mine.split.clear();
                mine.split_pieces = 0;
                // Long rows are claimed here and handed out by edge ranges.
                std::size_t keep = 0;
                for (Index u : from) {
                    auto const deg = static_cast<std::size_t>(ap[u + 1] - ap[u]);
                    if (deg <= split_degree) {
                        from[keep++] = u;
                        continue;
                    }
                    T du;
                    if (!claim(static_cast<std::size_t>(u), du)) continue;
                    mine.split.emplace_back(u, du);
                    mine.split_pieces += (deg + split_piece - 1) / split_piece;
                    ++split_rows;
                }
                from.resize(keep);
                mine.vertices.swap(from);
            };
            std::size_t region_rounds = 0;
            for (int iter = first_iter;; ++iter) {
                std::uint64_t& lowest = next_bucket[(iter + 1) & 1];
                for (std::size_t p = 0; p < tn; ++p) {
                    piece_of[p + 1] = piece_of[p] + (shared[p].vertices.size() + chunk - 1) / chunk;
                    split_of[p + 1] = split_of[p] + shared[p].split_pieces;
                }
                // 1. The shared bucket: long rows by edge ranges, then short rows by vertex chunks.
                // Every thread reads the same sums (the parts were published before the barrier),
                // so all of the team skip an empty loop together: a dynamic loop's set-up is a
                // shared counter every thread touches, a round on a road network a few hundred
                // vertices a thread.
                if (split_of[tn] > 0) {
#pragma omp for schedule(dynamic, 1) nowait
                    for (std::size_t c = 0; c < split_of[tn]; ++c) {
                        auto const p = static_cast<std::size_t>(
                                           std::upper_bound(split_of.begin(), split_of.end(), c) -
                                           split_of.begin()) -
                                       1;
                        std::size_t r = c - split_of[p];  // piece within part p
                        for (auto const& [u, du] : shared[p].split) {
                            auto const b = static_cast<std::size_t>(ap[u]),
                                       e = static_cast<std::size_t>(ap[u + 1]);
                            std::size_t const pieces = (e - b + split_piece - 1) / split_piece;
                            if (r < pieces) {
                                relax(du, b + r * split_piece,
                                      std::min(e, b + (r + 1) * split_piece));
                                break;
                            }
                            r -= pieces;
                        }
                    }
                }
#pragma omp for schedule(dynamic, 1) nowait
                for (std::size_t c = 0; c < piece_of[tn]; ++c) {
                    auto const p = static_cast<std::size_t>(
                                       std::upper_bound(piece_of.begin(), piece_of.end(), c) -
                                       piece_of.begin()) -
                                   1;
                    auto const& list = shared[p].vertices;
                    std::size_t const b = (c - piece_of[p]) * chunk;
                    std::size_t const e = std::min(list.size(), b + chunk);
                    visit_list(list.data(), b, e);
                }
                // 2. Bucket fusion: settle a small current bucket without the other threads.
                auto& cur_bin = bins[current % ring];
                while (!cur_bin.empty() && cur_bin.size() < fuse_limit) {
                    work.swap(cur_bin);
                    in_ring -= work.size();
                    visit_list(work.data(), 0, work.size());
                    work.clear();
                }
                // 3. Vote for the lowest bucket this thread holds.
                std::uint64_t mine = far.empty() ? none : far.begin()->first;
                if (in_ring > 0)
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
                if (next == none) {
                    if (t == 0) finished = true;
                    break;
                }
                ++rounds;
                // 4. Move on: slots below `next` are empty everywhere; far buckets the ring now
                // reaches move into it.
                current = next;
                while (!far.empty() && far.begin()->first < current + ring) {
                    auto node = far.extract(far.begin());
                    auto& bin = bins[node.key() % ring];
                    bin.insert(bin.end(), node.mapped().begin(), node.mapped().end());
                    in_ring += node.mapped().size();
                }
                // 5. Publish this thread's part of the next bucket; reset the other round's minimum
                // (nobody reads or writes it until after the barrier).
                in_ring -= bins[current % ring].size();
                publish(bins[current % ring]);
                if (t == 0) {
                    next_bucket[iter & 1] = none;
                    pause = polling && (++region_rounds >= poll_rounds ||
                                        omp_get_wtime() - since >= poll_seconds);
                    if (pause) first_iter = iter + 1;
                }
#pragma omp barrier
                if (pause) break;  // the next round starts in the next region, after the hook
            }
        }
    }
    for (lane const& l : lanes) {
        stats.rounds = std::max(stats.rounds, l.rounds + 1);
        stats.split_rows += l.split_rows;
    }
    return stats;
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

}  // namespace kleene::detail

#pragma once
// The peer of bench_gap_cpu: the GAP Benchmark Suite's published BFS and SSSP methods (Beamer,
// Asanović, Patterson, "The GAP Benchmark Suite", 2015; the gapbs reference code), written here
// from their description. This is a reimplementation of the method, not GAP's code; it follows
// GAP's choices wherever they change the time:
//
//   bfs    direction-optimising, parents only (int32, claimed by compare-and-swap). Top-down
//          steps read a sliding queue (one array; each step's new vertices are appended through
//          thread-local buffers of 16384 flushed by fetch_add); bottom-up steps scan the unvisited
//          vertices against a bitmap of the frontier, chunks of 1024 vertices. parent[v] < 0 holds
//          -out_degree(v) while v is unvisited, so the edges leaving a new frontier are summed for
//          free. Switch down when those edges exceed (edges still to check) / alpha (15); back up
//          once the frontier shrinks and holds at most n / beta (18) vertices.
//   sssp   delta-stepping with thread-local bins (a growable vector of vectors per thread), one
//          shared frontier array sized for every edge, two barriers per round: process the shared
//          bin (dynamic chunks of 64; a vertex whose distance already dropped below the bin is
//          skipped), then "bucket fusion": keep settling one's own copy of the current bin alone
//          while it holds fewer than 1000 vertices; vote on the lowest non-empty bin; copy one's
//          part of it into the shared frontier. Distances int32 with "infinity" max / 2.
//   cc     Afforest (Sutton, Ben-Nun, Barak 2018): link every vertex to its first neighbour, then
//          its second (one round each, dynamic chunks of 16384, pointer-jumping compress after
//          each); the most frequent label among 1024 random vertices names the big component;
//          the final pass links the remaining edges of every vertex outside it; compress. Linking
//          hooks the larger root under the smaller by compare-and-swap. int32 labels.
//   pr     pull-direction Jacobi (GAP's pr_spmv): each iteration first writes every vertex's
//          outgoing contribution score / out_degree, then every vertex sums its in-neighbours'
//          contributions (dynamic chunks of 16384): score = (1 - d) / n + d * sum, d = 0.85; the
//          L1 change is summed in double; stop when it is below the tolerance (1e-4) or after 20
//          iterations. Scores are float, as in GAP. The rank of a vertex without out-edges is not
//          redistributed (it is lost each iteration).
//   tc     the ordered count: for u, for each neighbour v < u, merge the neighbours of u and v
//          below v (counting every triangle once, u > v > w), dynamic chunks of 64. First the
//          "worth relabelling" test: average degree (undirected edges / n) at least 10 and the
//          mean of 1000 sampled degrees over 1.3 above their median; if so the graph is rebuilt
//          with vertices renumbered by decreasing degree (neighbour lists sorted), its time
//          counted, as in GAP.
//   bc     Brandes per source (Madduri et al.'s successor form): a top-down parallel BFS on a
//          sliding queue that counts shortest paths (atomic adds) and marks, in a bitmap over the
//          stored edges, every edge u -> v with depth(v) = depth(u) + 1; then level by level from
//          the deepest, delta(u) = sum over marked edges of sigma(u) / sigma(v) * (1 + delta(v)),
//          added to the score of u (the source included: GAP adds delta_s(s), which is the number
//          of other vertices s reaches). Finally every score is divided by the largest. GAP keeps
//          scores in float; here they are double so that they compare to 1e-9 with kleene's.
//
// Allocations are uninitialised and filled in parallel, as in GAP (pvector).

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

namespace kleene::bench::gap {

/// A CSR graph as GAP sees it: out-edges (equal to in-edges for the undirected graphs used here).
template <class Index, class W>
struct graph_view {
    std::size_t n = 0;
    std::size_t m = 0;  ///< directed edges
    Index const* row = nullptr;
    Index const* col = nullptr;
    W const* weight = nullptr;  ///< null for BFS
    std::int64_t degree(std::size_t v) const { return row[v + 1] - row[v]; }
};

template <class T>
std::unique_ptr<T[]> uninitialised(std::size_t n) {
    return std::make_unique_for_overwrite<T[]>(n);
}

template <class T>
bool cas(T& x, T expected, T desired) {
    return std::atomic_ref<T>(x).compare_exchange_strong(expected, desired);
}

class bitmap {
  public:
    explicit bitmap(std::size_t bits)
        : words_((bits + 63) / 64), w_(uninitialised<std::uint64_t>(words_)) {}
    void clear() { std::fill(w_.get(), w_.get() + words_, std::uint64_t(0)); }
    bool get(std::size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
    void set(std::size_t i) { w_[i >> 6] |= std::uint64_t(1) << (i & 63); }
    void set_atomic(std::size_t i) {
        std::atomic_ref<std::uint64_t>(w_[i >> 6])
            .fetch_or(std::uint64_t(1) << (i & 63), std::memory_order_relaxed);
    }
    void swap(bitmap& o) {
        std::swap(words_, o.words_);
        std::swap(w_, o.w_);
    }

  private:
    std::size_t words_;
    std::unique_ptr<std::uint64_t[]> w_;
};

/// One array; the current window [begin, end) is read while pushes land at [end, tail).
template <class T>
class sliding_queue {
  public:
    explicit sliding_queue(std::size_t capacity) : a_(uninitialised<T>(capacity)) {}
    void push(T v) { a_[tail_++] = v; }
    void slide() {
        begin_ = end_;
        end_ = tail_;
    }
    bool empty() const { return begin_ == end_; }
    std::size_t size() const { return end_ - begin_; }
    T const* begin() const { return a_.get() + begin_; }
    T const* end() const { return a_.get() + end_; }
    void reset() { begin_ = end_ = tail_ = 0; }
    /// The whole array: the windows read so far lie one after the other.
    T const* data() const { return a_.get(); }
    /// Room for `count` pushes from one thread; returns where they go.
    T* claim(std::size_t count) {
        std::size_t const at = std::atomic_ref<std::size_t>(tail_).fetch_add(count);
        return a_.get() + at;
    }

  private:
    std::unique_ptr<T[]> a_;
    std::size_t begin_ = 0, end_ = 0, tail_ = 0;
};

/// A thread's pushes, flushed to the shared queue in blocks (no false sharing on the queue).
template <class T>
class queue_buffer {
  public:
    explicit queue_buffer(sliding_queue<T>& q) : q_(q) { buf_.reserve(capacity); }
    ~queue_buffer() { flush(); }
    void push(T v) {
        if (buf_.size() == capacity) flush();
        buf_.push_back(v);
    }
    void flush() {
        if (buf_.empty()) return;
        std::copy(buf_.begin(), buf_.end(), q_.claim(buf_.size()));
        buf_.clear();
    }

  private:
    static constexpr std::size_t capacity = 16384;
    sliding_queue<T>& q_;
    std::vector<T> buf_;
};

template <class Index, class W>
std::int64_t top_down_step(graph_view<Index, W> const& g, Index* parent,
                           sliding_queue<Index>& queue) {
    std::int64_t scout = 0;
#pragma omp parallel
    {
        queue_buffer<Index> local(queue);
        Index const* q = queue.begin();
        auto const len = static_cast<std::int64_t>(queue.size());
#pragma omp for reduction(+ : scout) nowait
        for (std::int64_t i = 0; i < len; ++i) {
            Index const u = q[i];
            for (Index k = g.row[u]; k < g.row[u + 1]; ++k) {
                Index const v = g.col[k];
                Index const seen =
                    std::atomic_ref<Index>(parent[v]).load(std::memory_order_relaxed);
                if (seen < 0 && cas(parent[v], seen, u)) {
                    local.push(v);
                    scout += -seen;
                }
            }
        }
        local.flush();
    }
    return scout;
}

template <class Index, class W>
std::int64_t bottom_up_step(graph_view<Index, W> const& g, Index* parent, bitmap const& front,
                            bitmap& next) {
    std::int64_t awake = 0;
    next.clear();
    auto const n = static_cast<std::int64_t>(g.n);
    // Chunks of 1024 vertices are whole bitmap words: plain (non-atomic) sets are safe.
#pragma omp parallel for reduction(+ : awake) schedule(dynamic, 1024)
    for (std::int64_t u = 0; u < n; ++u) {
        if (parent[u] >= 0) continue;
        for (Index k = g.row[u]; k < g.row[u + 1]; ++k) {
            Index const v = g.col[k];
            if (front.get(static_cast<std::size_t>(v))) {
                parent[u] = v;
                ++awake;
                next.set(static_cast<std::size_t>(u));
                break;
            }
        }
    }
    return awake;
}

/// BFS parents from `source` (itself at the source, -1 where unreached).
template <class Index, class W>
std::unique_ptr<Index[]> bfs(graph_view<Index, W> const& g, Index source, int alpha = 15,
                             int beta = 18) {
    auto const n = static_cast<std::int64_t>(g.n);
    auto parent = uninitialised<Index>(g.n);
    Index* p = parent.get();
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) {
        auto const d = static_cast<Index>(g.degree(static_cast<std::size_t>(v)));
        p[v] = d != 0 ? -d : Index(-1);
    }
    p[source] = source;
    sliding_queue<Index> queue(g.n);
    queue.push(source);
    queue.slide();
    bitmap curr(g.n), front(g.n);
    curr.clear();
    front.clear();
    auto edges_to_check = static_cast<std::int64_t>(g.m);
    std::int64_t scout = g.degree(static_cast<std::size_t>(source));
    while (!queue.empty()) {
        if (scout > edges_to_check / alpha) {
            Index const* q = queue.begin();
            auto const len = static_cast<std::int64_t>(queue.size());
#pragma omp parallel for
            for (std::int64_t i = 0; i < len; ++i) front.set_atomic(static_cast<std::size_t>(q[i]));
            std::int64_t awake = len, old_awake = 0;
            queue.slide();
            do {
                old_awake = awake;
                awake = bottom_up_step(g, p, front, curr);
                front.swap(curr);
            } while (awake >= old_awake || awake > n / beta);
            // Bitmap -> queue.
            queue.reset();
#pragma omp parallel
            {
                queue_buffer<Index> local(queue);
#pragma omp for nowait
                for (std::int64_t v = 0; v < n; ++v)
                    if (front.get(static_cast<std::size_t>(v))) local.push(static_cast<Index>(v));
                local.flush();
            }
            queue.slide();
            scout = 1;
        } else {
            edges_to_check -= scout;
            scout = top_down_step(g, p, queue);
            queue.slide();
        }
    }
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v)
        if (p[v] < -1) p[v] = -1;
    return parent;
}

/// GAP's "infinity" for distances: half the largest value, so that d + w never wraps.
template <class W>
constexpr W dist_inf = std::numeric_limits<W>::max() / 2;

template <class Index, class W>
void relax(graph_view<Index, W> const& g, Index u, W delta, W* dist,
           std::vector<std::vector<Index>>& bins) {
    W const du = std::atomic_ref<W>(dist[u]).load(std::memory_order_relaxed);
    for (Index k = g.row[u]; k < g.row[u + 1]; ++k) {
        Index const v = g.col[k];
        W const nd = du + g.weight[k];
        std::atomic_ref<W> dv(dist[v]);
        W old = dv.load(std::memory_order_relaxed);
        bool lowered = false;
        while (nd < old) {
            if (dv.compare_exchange_weak(old, nd)) {
                lowered = true;
                break;
            }
        }
        if (!lowered) continue;
        auto const b = static_cast<std::size_t>(nd / delta);
        if (b >= bins.size()) bins.resize(b + 1);
        bins[b].push_back(v);
    }
}

/// Delta-stepping distances from `source` (dist_inf<W> where unreached); weights >= 0, delta >= 1.
template <class Index, class W>
std::unique_ptr<W[]> delta_stepping(graph_view<Index, W> const& g, Index source, W delta) {
    constexpr std::size_t fuse_limit = 1000;
    constexpr std::size_t no_bin = std::numeric_limits<std::size_t>::max() / 2;
    auto const n = static_cast<std::int64_t>(g.n);
    auto dist = uninitialised<W>(g.n);
    W* d = dist.get();
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) d[v] = dist_inf<W>;
    d[source] = 0;
    auto frontier = uninitialised<Index>(std::max<std::size_t>(g.m, 1));
    std::size_t bin_index[2] = {0, no_bin};
    std::size_t tail[2] = {1, 0};
    frontier[0] = source;
#pragma omp parallel
    {
        std::vector<std::vector<Index>> bins;
        std::vector<Index> work;
        for (std::size_t iter = 0; bin_index[iter & 1] != no_bin; ++iter) {
            std::size_t& cur = bin_index[iter & 1];
            std::size_t& next = bin_index[(iter + 1) & 1];
            std::size_t& cur_tail = tail[iter & 1];
            std::size_t& next_tail = tail[(iter + 1) & 1];
            W const bin_floor = delta * static_cast<W>(cur);
            auto const len = static_cast<std::int64_t>(cur_tail);
#pragma omp for schedule(dynamic, 64) nowait
            for (std::int64_t i = 0; i < len; ++i) {
                Index const u = frontier[i];
                if (std::atomic_ref<W>(d[u]).load(std::memory_order_relaxed) >= bin_floor)
                    relax(g, u, delta, d, bins);
            }
            while (cur < bins.size() && !bins[cur].empty() && bins[cur].size() < fuse_limit) {
                work = bins[cur];
                bins[cur].clear();
                for (Index u : work) relax(g, u, delta, d, bins);
            }
            for (std::size_t b = cur; b < bins.size(); ++b)
                if (!bins[b].empty()) {
#pragma omp critical(gap_sssp_vote)
                    next = std::min(next, b);
                    break;
                }
#pragma omp barrier
#pragma omp single nowait
            {
                cur = no_bin;
                cur_tail = 0;
            }
            if (next < bins.size()) {
                auto& mine = bins[next];
                std::size_t const at =
                    std::atomic_ref<std::size_t>(next_tail).fetch_add(mine.size());
                std::copy(mine.begin(), mine.end(), frontier.get() + at);
                mine.clear();
            }
#pragma omp barrier
        }
    }
    return dist;
}


/// GAP's fixed seed for its random vertex picks (any fixed value would do).
inline constexpr std::uint64_t pick_seed = 27491095;

/// Uniformly random vertices with at least one edge, from a fixed seed.
template <class Index, class W>
class vertex_picker {
  public:
    explicit vertex_picker(graph_view<Index, W> const& g)
        : g_(g), rng_(pick_seed), pick_(0, static_cast<std::int64_t>(g.n) - 1) {}
    Index next() {
        for (;;) {
            auto const v = static_cast<std::size_t>(pick_(rng_));
            if (g_.degree(v) != 0) return static_cast<Index>(v);
        }
    }

  private:
    graph_view<Index, W> const& g_;
    std::mt19937 rng_;
    std::uniform_int_distribution<std::int64_t> pick_;
};

// ---- cc: Afforest

/// Hooks the larger of the roots of u and v under the smaller.
template <class Index>
void link(Index u, Index v, Index* comp) {
    auto at = [comp](Index x) {
        return std::atomic_ref<Index>(comp[x]).load(std::memory_order_relaxed);
    };
    Index p1 = at(u), p2 = at(v);
    while (p1 != p2) {
        Index const high = std::max(p1, p2), low = std::min(p1, p2);
        Index const p_high = at(high);
        if (p_high == low || (p_high == high && cas(comp[high], high, low))) return;
        p1 = at(at(high));
        p2 = at(low);
    }
}

template <class Index>
void compress(std::int64_t n, Index* comp) {
#pragma omp parallel for schedule(dynamic, 16384)
    for (std::int64_t v = 0; v < n; ++v) {
        std::atomic_ref<Index> c(comp[v]);
        for (;;) {
            Index const p = c.load(std::memory_order_relaxed);
            Index const gp = std::atomic_ref<Index>(comp[p]).load(std::memory_order_relaxed);
            if (p == gp) break;
            c.store(gp, std::memory_order_relaxed);
        }
    }
}

/// Component labels (a root vertex of each component).
template <class Index, class W>
std::unique_ptr<Index[]> afforest(graph_view<Index, W> const& g, int rounds = 2,
                                  int samples = 1024) {
    auto const n = static_cast<std::int64_t>(g.n);
    auto comp = uninitialised<Index>(g.n);
    Index* c = comp.get();
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) c[v] = static_cast<Index>(v);
    for (int r = 0; r < rounds; ++r) {
#pragma omp parallel for schedule(dynamic, 16384)
        for (std::int64_t u = 0; u < n; ++u)
            if (g.row[u] + r < g.row[u + 1]) link(static_cast<Index>(u), g.col[g.row[u] + r], c);
        compress(n, c);
    }
    std::mt19937 rng(pick_seed);
    std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
    std::unordered_map<Index, int> seen(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i) ++seen[c[pick(rng)]];
    Index big = c[0];
    int most = 0;
    for (auto const& [label, hits] : seen)
        if (hits > most) big = label, most = hits;
#pragma omp parallel for schedule(dynamic, 16384)
    for (std::int64_t u = 0; u < n; ++u) {
        if (std::atomic_ref<Index>(c[u]).load(std::memory_order_relaxed) == big) continue;
        for (Index k = g.row[u] + rounds; k < g.row[u + 1]; ++k)
            link(static_cast<Index>(u), g.col[k], c);
    }
    compress(n, c);
    return comp;
}

// ---- pr: pull-direction Jacobi PageRank

template <class Score>
struct pagerank_run {
    std::unique_ptr<Score[]> score;
    int iterations = 0;
    double error = 0;  ///< L1 change of the last iteration
};

/// For the undirected graphs here the in-neighbours are the out-neighbours.
template <class Score = float, class Index, class W>
pagerank_run<Score> pagerank(graph_view<Index, W> const& g, int max_iters = 20,
                             double epsilon = 1e-4, Score damping = Score(0.85)) {
    auto const n = static_cast<std::int64_t>(g.n);
    Score const init = Score(1) / static_cast<Score>(n);
    Score const base = (Score(1) - damping) / static_cast<Score>(n);
    pagerank_run<Score> r;
    r.score = uninitialised<Score>(g.n);
    auto contrib = uninitialised<Score>(g.n);
    Score* s = r.score.get();
    Score* c = contrib.get();
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) s[v] = init;
    for (int it = 1; it <= max_iters; ++it) {
        // A vertex without edges gets an infinite contribution that no vertex reads.
#pragma omp parallel for
        for (std::int64_t v = 0; v < n; ++v)
            c[v] = s[v] / static_cast<Score>(g.degree(static_cast<std::size_t>(v)));
        double error = 0;
#pragma omp parallel for reduction(+ : error) schedule(dynamic, 16384)
        for (std::int64_t u = 0; u < n; ++u) {
            Score in = 0;
            for (Index k = g.row[u]; k < g.row[u + 1]; ++k) in += c[g.col[k]];
            Score const old = s[u];
            s[u] = base + damping * in;
            error += std::fabs(static_cast<double>(s[u]) - static_cast<double>(old));
        }
        r.iterations = it;
        r.error = error;
        if (error < epsilon) break;
    }
    return r;
}

// ---- tc: ordered count with the relabelling heuristic

/// A CSR built here (the relabelled graph).
template <class Index>
struct owned_csr {
    std::unique_ptr<std::int64_t[]> row;
    std::unique_ptr<Index[]> col;
};

/// Sorted neighbour lists required; counts every triangle once as u > v > w.
template <class Offset, class Index>
std::uint64_t ordered_count(std::int64_t n, Offset const* row, Index const* col) {
    std::uint64_t total = 0;
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 64)
    for (std::int64_t u = 0; u < n; ++u) {
        for (Offset k = row[u]; k < row[u + 1]; ++k) {
            Index const v = col[k];
            if (v > u) break;
            Index const* it = col + row[v];
            for (Offset j = row[u]; j < row[u + 1]; ++j) {
                Index const w = col[j];
                if (w > v) break;
                while (*it < w) ++it;  // N(v) holds u > w: the scan stops inside N(v)
                total += *it == w;
            }
        }
    }
    return total;
}

template <class Index, class W>
bool worth_relabelling(graph_view<Index, W> const& g) {
    auto const undirected_edges = static_cast<std::int64_t>(g.m / 2);
    if (undirected_edges / static_cast<std::int64_t>(g.n) < 10) return false;
    vertex_picker<Index, W> pick(g);
    std::int64_t const count = std::min<std::int64_t>(1000, static_cast<std::int64_t>(g.n));
    std::vector<std::int64_t> deg(static_cast<std::size_t>(count));
    std::int64_t total = 0;
    for (auto& d : deg) total += d = g.degree(static_cast<std::size_t>(pick.next()));
    std::sort(deg.begin(), deg.end());
    double const mean = static_cast<double>(total) / static_cast<double>(count);
    return mean / 1.3 > static_cast<double>(deg[deg.size() / 2]);
}

/// The graph with vertex v renumbered by its rank in decreasing (degree, v) order, every
/// neighbour list sorted. The ranking is a parallel counting sort by degree.
template <class Index, class W>
owned_csr<Index> relabel_by_degree(graph_view<Index, W> const& g) {
    auto const n = static_cast<std::int64_t>(g.n);
    std::int64_t max_deg = 0;
#pragma omp parallel for reduction(max : max_deg)
    for (std::int64_t v = 0; v < n; ++v)
        max_deg = std::max(max_deg, g.degree(static_cast<std::size_t>(v)));
    int const threads = omp_get_max_threads();
    auto const buckets = static_cast<std::size_t>(max_deg) + 1;
    // count[t * buckets + (max_deg - d)]: vertices of degree d in thread t's block (static).
    std::vector<std::int64_t> count(static_cast<std::size_t>(threads) * buckets, 0);
    auto new_id = uninitialised<Index>(g.n);
    owned_csr<Index> r;
    r.row = uninitialised<std::int64_t>(g.n + 1);
    std::int64_t* row = r.row.get();
#pragma omp parallel num_threads(threads)
    {
        auto const t = static_cast<std::size_t>(omp_get_thread_num());
        std::int64_t* mine = count.data() + t * buckets;
        std::int64_t const lo = n * static_cast<std::int64_t>(t) / threads;
        std::int64_t const hi = n * static_cast<std::int64_t>(t + 1) / threads;
        // Descending ids within a degree: walk the block from its end.
        for (std::int64_t v = hi; v-- > lo;)
            ++mine[static_cast<std::size_t>(max_deg - g.degree(static_cast<std::size_t>(v)))];
#pragma omp barrier
#pragma omp single
        {
            std::int64_t at = 0;  // bucket-major, then thread order reversed (higher ids first)
            for (std::size_t b = 0; b < buckets; ++b)
                for (int u = threads; u-- > 0;) {
                    std::int64_t& x = count[static_cast<std::size_t>(u) * buckets + b];
                    std::int64_t const c = x;
                    x = at;
                    at += c;
                }
        }
        for (std::int64_t v = hi; v-- > lo;)
            new_id[v] = static_cast<Index>(
                mine[static_cast<std::size_t>(max_deg - g.degree(static_cast<std::size_t>(v)))]++);
#pragma omp barrier
#pragma omp for
        for (std::int64_t v = 0; v < n; ++v)
            row[new_id[v] + 1] = g.degree(static_cast<std::size_t>(v));
#pragma omp single
        {
            row[0] = 0;
            for (std::int64_t p = 0; p < n; ++p) row[p + 1] += row[p];
        }
    }
    r.col = uninitialised<Index>(static_cast<std::size_t>(row[n]));
    Index* col = r.col.get();
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t v = 0; v < n; ++v) {
        Index* w = col + row[new_id[v]];
        for (Index k = g.row[v]; k < g.row[v + 1]; ++k) *w++ = new_id[g.col[k]];
        std::sort(col + row[new_id[v]], w);
    }
    return r;
}

/// GAP's tc: relabel when worth it, then the ordered count. `relabelled` says which ran.
template <class Index, class W>
std::uint64_t triangle_count(graph_view<Index, W> const& g, bool* relabelled = nullptr) {
    bool const relabel = worth_relabelling(g);
    if (relabelled) *relabelled = relabel;
    auto const n = static_cast<std::int64_t>(g.n);
    if (!relabel) return ordered_count(n, g.row, g.col);
    auto const r = relabel_by_degree(g);
    return ordered_count(n, r.row.get(), r.col.get());
}

// ---- bc: Brandes with a successor bitmap

/// One search's forward pass: depths, path counts, successor edges marked in `succ`, and the
/// vertices in `queue` level by level, level l starting at depth_index[l].
template <class Index, class W>
void brandes_bfs(graph_view<Index, W> const& g, Index source, double* sigma, bitmap& succ,
                 std::vector<Index const*>& depth_index, sliding_queue<Index>& queue) {
    auto const n = static_cast<std::int64_t>(g.n);
    auto depth = uninitialised<Index>(g.n);
    Index* dp = depth.get();
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) dp[v] = -1;
    dp[source] = 0;
    sigma[source] = 1;
    queue.push(source);
    depth_index.push_back(queue.begin());
    queue.slide();
#pragma omp parallel
    {
        Index d = 0;
        queue_buffer<Index> local(queue);
        while (!queue.empty()) {
            ++d;
            Index const* q = queue.begin();
            auto const len = static_cast<std::int64_t>(queue.size());
#pragma omp for schedule(dynamic, 64) nowait
            for (std::int64_t i = 0; i < len; ++i) {
                Index const u = q[i];
                for (Index k = g.row[u]; k < g.row[u + 1]; ++k) {
                    Index const v = g.col[k];
                    std::atomic_ref<Index> dv(dp[v]);
                    if (dv.load(std::memory_order_relaxed) == -1 && cas(dp[v], Index(-1), d))
                        local.push(v);
                    if (dv.load(std::memory_order_relaxed) == d) {
                        succ.set_atomic(static_cast<std::size_t>(k));
                        std::atomic_ref<double>(sigma[v]).fetch_add(sigma[u],
                                                                    std::memory_order_relaxed);
                    }
                }
            }
            local.flush();
#pragma omp barrier
#pragma omp single
            {
                depth_index.push_back(queue.end());
                queue.slide();
            }
        }
    }
    depth_index.push_back(queue.end());
}

/// Betweenness from `count` sources (one search after another), every score divided by the
/// largest.
template <class Index, class W>
std::unique_ptr<double[]> brandes(graph_view<Index, W> const& g, Index const* sources,
                                  std::size_t count) {
    auto const n = static_cast<std::int64_t>(g.n);
    auto score = uninitialised<double>(g.n);
    auto sigma = uninitialised<double>(g.n);
    double* sc = score.get();
    double* sg = sigma.get();
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) sc[v] = 0;
    bitmap succ(g.m);
    std::vector<Index const*> depth_index;
    sliding_queue<Index> queue(g.n);
    for (std::size_t i = 0; i < count; ++i) {
#pragma omp parallel for
        for (std::int64_t v = 0; v < n; ++v) sg[v] = 0;
        depth_index.clear();
        queue.reset();
        succ.clear();
        brandes_bfs(g, sources[i], sg, succ, depth_index, queue);
        auto delta = uninitialised<double>(g.n);
        double* dl = delta.get();
#pragma omp parallel for
        for (std::int64_t v = 0; v < n; ++v) dl[v] = 0;
        for (auto l = static_cast<std::ptrdiff_t>(depth_index.size()) - 2; l >= 0; --l) {
            Index const* b = depth_index[static_cast<std::size_t>(l)];
            auto const len = depth_index[static_cast<std::size_t>(l) + 1] - b;
#pragma omp parallel for schedule(dynamic, 64)
            for (std::ptrdiff_t j = 0; j < len; ++j) {
                Index const u = b[j];
                double du = 0;
                for (Index k = g.row[u]; k < g.row[u + 1]; ++k)
                    if (succ.get(static_cast<std::size_t>(k)))
                        du += sg[u] / sg[g.col[k]] * (1 + dl[g.col[k]]);
                dl[u] = du;
                sc[u] += du;
            }
        }
    }
    double top = 0;
#pragma omp parallel for reduction(max : top)
    for (std::int64_t v = 0; v < n; ++v) top = std::max(top, sc[v]);
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) sc[v] /= top;
    return score;
}

}  // namespace kleene::bench::gap

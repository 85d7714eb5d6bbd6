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
//
// Allocations are uninitialised and filled in parallel, as in GAP (pvector).

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
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

}  // namespace kleene::bench::gap

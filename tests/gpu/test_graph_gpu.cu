// GPU BFS and SSSP (kleene/algorithms/cuda/graph.hpp) against plain host code written here: a queue
// BFS for the levels (every parent checked: one level up and joined by an edge), Dijkstra and
// Bellman-Ford for the distances. Directed graphs (with their transpose) and undirected ones,
// disconnected graphs, self-loops, deep paths, stars, power-law (Kronecker) graphs; forced push,
// forced pull and the automatic switch; negative weights and negative cycles. Suite `small` is what
// the compute-sanitizer runs use.

#define BOOST_TEST_MODULE graph_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <queue>
#include <random>
#include <span>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace {

using namespace kleene;
using cuda::bfs_direction;
using cuda::sssp_method;
using rng = std::mt19937_64;

using kleene::test::have_gpu;
using kleene::test::needs;

/// An edge list with weights.
struct edges {
    std::size_t n = 0;
    std::vector<std::int64_t> from, to, w;
    void add(std::int64_t u, std::int64_t v, std::int64_t wt = 1) {
        from.push_back(u);
        to.push_back(v);
        w.push_back(wt);
    }
    edges symmetric() const {
        edges e = *this;
        for (std::size_t k = 0; k < from.size(); ++k) e.add(to[k], from[k], w[k]);
        return e;
    }
    edges reversed() const {
        edges e;
        e.n = n;
        for (std::size_t k = 0; k < from.size(); ++k) e.add(to[k], from[k], w[k]);
        return e;
    }
};

/// CSR of the edge list (duplicates keep the smallest weight); `pattern`: no values (iso).
template <class T, class I>
csr_matrix<T, I> to_csr(edges const& e, bool pattern = false) {
    std::vector<I> ii(e.from.begin(), e.from.end()), jj(e.to.begin(), e.to.end());
    buffer<T> vv(pattern ? 0 : e.w.size());
    for (std::size_t k = 0; k < vv.size(); ++k) vv[k] = static_cast<T>(e.w[k]);
    return csr_matrix<T, I>::from_coo(e.n, e.n, ii, jj, std::span<T const>(vv.data(), vv.size()),
                                      duplicate_policy::min, std::is_same_v<T, bool> ? T(1) : T(3));
}

edges random_graph(std::size_t n, double mean_degree, rng& g, int wmin = 1, int wmax = 20) {
    edges e;
    e.n = n;
    std::poisson_distribution<int> d(mean_degree);
    std::uniform_int_distribution<int> w(wmin, wmax);
    for (std::size_t u = 0; u < n; ++u) {
        int const k = d(g);
        for (int i = 0; i < k; ++i) e.add(std::int64_t(u), std::int64_t(g() % n), w(g));
    }
    return e;
}

/// Graph500-style Kronecker (R-MAT 0.57/0.19/0.19/0.05) with shuffled labels.
edges kronecker(int scale, int edge_factor, rng& g, int wmax = 100) {
    edges e;
    e.n = std::size_t(1) << scale;
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::int64_t> perm(e.n);
    for (std::size_t i = 0; i < e.n; ++i) perm[i] = std::int64_t(i);
    std::shuffle(perm.begin(), perm.end(), g);
    for (std::size_t k = 0; k < (e.n * edge_factor); ++k) {
        std::int64_t r = 0, c = 0;
        for (int b = 0; b < scale; ++b) {
            double const x = u(g);
            int const q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
            r = 2 * r + (q >> 1);
            c = 2 * c + (q & 1);
        }
        e.add(perm[std::size_t(r)], perm[std::size_t(c)], 1 + int(g() % std::uint64_t(wmax)));
    }
    return e;
}

template <class T, class I>
std::vector<std::int64_t> ref_levels(csr_matrix<T, I> const& a, std::size_t s) {
    std::vector<std::int64_t> level(a.rows(), -1);
    std::deque<std::size_t> q{s};
    level[s] = 0;
    while (!q.empty()) {
        std::size_t const u = q.front();
        q.pop_front();
        for (auto v : a.row_cols(u))
            if (level[std::size_t(v)] < 0) {
                level[std::size_t(v)] = level[u] + 1;
                q.push_back(std::size_t(v));
            }
    }
    return level;
}

/// How many vertices each level of ref_levels holds (n + 1 entries, zero past the deepest).
inline std::vector<long long> level_sizes(std::vector<std::int64_t> const& level) {
    std::vector<long long> sizes(level.size() + 1, 0);
    for (auto l : level)
        if (l >= 0) ++sizes[std::size_t(l)];
    return sizes;
}

template <class T, class I>
cuda::bfs_run check_bfs(csr_matrix<T, I> const& a, csr_matrix<T, I> const& at, std::size_t s,
                        bfs_direction dir, bool parents, std::string const& what,
                        int pull_batch = cuda::bfs_tuning{}.pull_batch,
                        cuda::bfs_loop loop = cuda::bfs_loop::automatic,
                        long long block_edges = cuda::bfs_tuning{}.block_edges,
                        int async_warps = cuda::bfs_tuning{}.async_warps,
                        unsigned async_poll_ns = cuda::bfs_tuning{}.async_poll_ns,
                        bool profile = false, unsigned async_keep = cuda::bfs_tuning{}.async_keep,
                        long long block_frontier = cuda::bfs_tuning{}.async_block_frontier,
                        double block_level_us = cuda::bfs_tuning{}.async_block_level_us,
                        cuda::bfs_tuning const* cluster = nullptr) {
    auto const ad = a.to_device(), atd = at.to_device();
    cuda::bfs_tuning tuning;
    tuning.profile = profile;
    tuning.direction = dir;
    tuning.pull_batch = pull_batch;
    tuning.loop = loop;
    tuning.block_edges = block_edges;
    tuning.async_warps = async_warps;
    tuning.async_poll_ns = async_poll_ns;
    tuning.async_keep = async_keep;
    tuning.async_block_frontier = block_frontier;
    tuning.async_block_level_us = block_level_us;
    if (cluster) {  // the cluster after the block: its fields from *cluster
        tuning.async_cluster_blocks = cluster->async_cluster_blocks;
        tuning.async_cluster_frontier = cluster->async_cluster_frontier;
        tuning.async_cluster_queue = cluster->async_cluster_queue;
    }
    auto const run = cuda::bfs(ad, atd, s, parents, tuning);
    // The work list where asked for or where automatic picks it (few edges a vertex); Hopper
    // launches cooperative kernels: the device loop must not quietly become the host loop.
    bool const automatic = loop == cuda::bfs_loop::automatic && dir == bfs_direction::automatic;
    bool const async = loop == cuda::bfs_loop::async ||
                       (automatic && double(a.nnz()) <= tuning.async_degree * double(a.rows()));
    bool const device_loop = !async && (loop == cuda::bfs_loop::device || automatic);
    // The work list's method: its first levels (or all) in one block, unless switched off; a
    // level past block_frontier vertices goes on to the work list.
    BOOST_TEST((run.async || run.one_block) == async,
               what << ": async " << run.async << ", one block " << run.one_block);
    if (async && block_frontier == 0) BOOST_TEST(!run.one_block, what << ": one block, switched off");
    if (async && block_frontier > 0) BOOST_TEST(run.one_block, what << ": not in one block");
    BOOST_TEST(run.device_loop == device_loop, what << ": device_loop " << run.device_loop);
    auto const want = ref_levels(a, s);
    std::size_t bad_level = 0, bad_parent = 0;
    BOOST_TEST(run.level.size() == a.rows());
    for (std::size_t v = 0; v < std::min(run.level.size(), want.size()); ++v)
        bad_level += run.level[v] != want[v];
    if (parents) {
        BOOST_TEST(run.parent.size() == a.rows());
        for (std::size_t v = 0; v < std::min(run.parent.size(), want.size()); ++v) {
            std::int64_t const p = run.parent[v];
            if (want[v] < 0) bad_parent += p != -1;
            else if (v == s) bad_parent += p != std::int64_t(s);
            else
                bad_parent +=
                    !(p >= 0 && std::size_t(p) < a.rows() && want[std::size_t(p)] == want[v] - 1 &&
                      a.find(std::size_t(p), v) >= 0);
        }
    } else {
        BOOST_TEST(run.parent.empty());
    }
    std::int64_t const depth = *std::max_element(want.begin(), want.end());
    BOOST_TEST(run.levels == std::size_t(depth + 1), what << ": levels " << run.levels);
    if (!run.async && !run.one_block)
        BOOST_TEST(run.step_was_pull.size() == std::size_t(depth + 1), what << ": steps");
    else BOOST_TEST(run.step_was_pull.empty(), what << ": the work list has no steps");
    if (dir != bfs_direction::automatic)
        for (char p : run.step_was_pull)
            BOOST_TEST((p == (dir == bfs_direction::pull ? 1 : 0)), what);
    BOOST_TEST(run.seconds > 0.0);
    // The device loop's profile line comes from the kernel built with the clock reads, and only
    // when asked for.
    if (run.device_loop) {
        bool const profiled = std::any_of(run.notes.begin(), run.notes.end(), [](auto const& s) {
            return s.find("bfs: profile (") != std::string::npos;
        });
        BOOST_TEST(profiled == profile, what << ": profile line " << profiled);
    }
    BOOST_TEST(bad_level == 0u, what << " (" << typeid(T).name() << "/" << sizeof(I) * 8
                                     << "-bit, source " << s << ", direction " << int(dir)
                                     << "): " << bad_level << " wrong levels");
    BOOST_TEST(bad_parent == 0u, what << " (source " << s << ", direction " << int(dir)
                                      << ", pull batch " << pull_batch << "): " << bad_parent
                                      << " invalid parents");
    return run;
}

/// The host loop runs pull levels in gated batches, the device loop runs every level in one
/// kernel; neither the batch length nor the loop may change the answer or the per-level
/// directions the switching rule picks.
template <class T, class I>
void check_loops(csr_matrix<T, I> const& a, csr_matrix<T, I> const& at, std::size_t s,
                 std::string const& what) {
    for (auto dir : {bfs_direction::push, bfs_direction::pull, bfs_direction::automatic}) {
        auto const one = check_bfs(a, at, s, dir, true, what + ", host loop, pull batch 1", 1,
                                   cuda::bfs_loop::host);
        for (int batch : {2, 3, 64}) {
            auto const many =
                check_bfs(a, at, s, dir, true, what + ", host loop, pull batch", batch,
                          cuda::bfs_loop::host);
            BOOST_TEST((many.step_was_pull == one.step_was_pull),
                       what << ": directions with pull batch " << batch << " differ from batch 1");
        }
        // The device loop with small push levels in one block (by default, every push level that
        // fits, none) must take the host loop's directions too.
        // Each with and without the device-clock profile (kernels of their own).
        for (long long block_edges : {cuda::bfs_tuning{}.block_edges, 1ll << 40, 0ll})
            for (bool profile : {false, true}) {
                auto const loop = check_bfs(
                    a, at, s, dir, true,
                    what + ", device loop, block_edges " + std::to_string(block_edges) +
                        (profile ? ", profiled" : ""),
                    cuda::bfs_tuning{}.pull_batch, cuda::bfs_loop::device, block_edges,
                    cuda::bfs_tuning{}.async_warps, cuda::bfs_tuning{}.async_poll_ns, profile);
                BOOST_TEST((loop.step_was_pull == one.step_was_pull),
                           what << ": the device loop's directions differ from the host loop's"
                                << " (block_edges " << block_edges << ")");
            }
    }
}

/// The asynchronous work list pinned, whatever the degree: with and without parents, push or
/// automatic direction, one block a multiprocessor and many; pull refused.
template <class T, class I>
void check_async(csr_matrix<T, I> const& a, csr_matrix<T, I> const& at,
                 std::vector<std::size_t> const& sources, std::string const& what) {
    for (auto s : sources) {
        if (s >= a.rows()) continue;
        for (bool parents : {true, false})
            for (int warps : {1, 8, 32})
                for (unsigned poll : {0u, 256u})
                    check_bfs(a, at, s, parents ? bfs_direction::push : bfs_direction::automatic,
                              parents,
                              what + ", work list, " + std::to_string(warps) + " warps, poll " +
                                  std::to_string(poll),
                              cuda::bfs_tuning{}.pull_batch, cuda::bfs_loop::async,
                              cuda::bfs_tuning{}.block_edges, warps, poll);
        // A warp relaxing next what it lowered (none, one, up to a whole warp's worth).
        for (bool parents : {true, false})
            for (unsigned keep : {0u, 1u, 32u})
                check_bfs(a, at, s, parents ? bfs_direction::push : bfs_direction::automatic,
                          parents, what + ", work list, keep " + std::to_string(keep),
                          cuda::bfs_tuning{}.pull_batch, cuda::bfs_loop::async,
                          cuda::bfs_tuning{}.block_edges, cuda::bfs_tuning{}.async_warps,
                          cuda::bfs_tuning{}.async_poll_ns, false, keep);
    }
    // The first levels in one block: none (the work list from the source), the source's level
    // alone (every later level handed over), a few small levels, the default; without the
    // limit of time and without the cluster, so that the handover to the work list is where a
    // level outgrows the bound, exactly.
    cuda::bfs_tuning no_cluster;  // (the default is a cluster of 16 on Hopper)
    no_cluster.async_cluster_blocks = 0;
    for (auto s : sources) {
        if (s >= a.rows()) continue;
        for (bool parents : {true, false})
            for (long long bf : {0ll, 1ll, 7ll, cuda::bfs_tuning{}.async_block_frontier}) {
                auto const r = check_bfs(
                    a, at, s, parents ? bfs_direction::push : bfs_direction::automatic, parents,
                    what + ", work list, block frontier " + std::to_string(bf),
                    cuda::bfs_tuning{}.pull_batch, cuda::bfs_loop::async,
                    cuda::bfs_tuning{}.block_edges, cuda::bfs_tuning{}.async_warps,
                    cuda::bfs_tuning{}.async_poll_ns, false, cuda::bfs_tuning{}.async_keep, bf,
                    0.0, &no_cluster);
                BOOST_TEST(!r.cluster, what << ": a cluster, switched off");
                // A level larger than bf went on to the work list, and the notes say which.
                auto const sizes = level_sizes(ref_levels(a, s));
                bool const outgrown =
                    std::any_of(sizes.begin(), sizes.end(), [&](long long c) { return c > bf; });
                if (bf > 0) BOOST_TEST(r.async == outgrown, what << ": handed over " << r.async
                                                                << " with block frontier " << bf);
                bool const noted = std::any_of(r.notes.begin(), r.notes.end(), [](auto const& x) {
                    return x.find("in one block") != std::string::npos;
                });
                BOOST_TEST(noted == (bf > 0), what << ": the notes on one block");
            }
    }
    // The thread-block cluster after the block (Hopper): the block hands level 1 over (bound 1,
    // no time limit) to clusters of 16 and 2 blocks, which take every later level; a cluster
    // bound of 1 vertex hands its first level of more to the work list; a queue of 2 pairs a
    // block sends a level past it to the work list (or declines a larger frontier).
    int device = 0, major = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    struct cluster_case {
        int blocks;
        long long frontier, queue;
        char const* name;
    };
    for (auto const& cc : {cluster_case{16, 65536, 0, "16 blocks"}, cluster_case{2, 65536, 0, "2 blocks"},
                           cluster_case{16, 1, 0, "16 blocks, bound 1"},
                           cluster_case{4, 65536, 2, "4 blocks, queue 2"}}) {
        cuda::bfs_tuning ct;
        ct.async_cluster_blocks = cc.blocks;
        ct.async_cluster_frontier = cc.frontier;
        ct.async_cluster_queue = cc.queue;
        for (auto s : sources) {
            if (s >= a.rows()) continue;
            auto const sizes = level_sizes(ref_levels(a, s));
            for (bool parents : {true, false}) {
                auto const r = check_bfs(
                    a, at, s, bfs_direction::automatic, parents,
                    what + ", block frontier 1, cluster of " + cc.name,
                    cuda::bfs_tuning{}.pull_batch, cuda::bfs_loop::async,
                    cuda::bfs_tuning{}.block_edges, cuda::bfs_tuning{}.async_warps,
                    cuda::bfs_tuning{}.async_poll_ns, false, cuda::bfs_tuning{}.async_keep, 1,
                    0.0, &ct);
                bool const handed = std::any_of(sizes.begin(), sizes.end(), [](long long c) { return c > 1; });
                if (major < 9) {
                    BOOST_TEST(!r.cluster, what << ": a cluster below compute capability 9.0");
                    continue;
                }
                // The block hands over the first level of more than one vertex, level L; the
                // cluster runs when each owner's share of it fits its queue (all of it does
                // unless the queue is 2), and hands over the first later level of more than
                // its bound, or (queue 2) of more than 2 at some owner: checked as any level of
                // more than 2 vertices past L.
                std::size_t L = 0;
                while (L < sizes.size() && sizes[L] <= 1) ++L;
                bool const declined = cc.queue > 0 && handed && sizes[L] > cc.queue;
                BOOST_TEST(r.cluster == (handed && !declined),
                           what << ", " << cc.name << ": cluster " << r.cluster);
                bool later_big = false, later_over = false;
                for (std::size_t l = L + 1; l < sizes.size(); ++l) {
                    later_big |= sizes[l] > cc.frontier;
                    later_over |= sizes[l] > 2;
                }
                // (a level may also outgrow a block's queue: then the note says so)
                bool const queue_full = std::any_of(r.notes.begin(), r.notes.end(), [](auto const& x) {
                    return x.find("past a block's queue") != std::string::npos;
                });
                if (r.cluster && cc.queue == 0)
                    BOOST_TEST(r.async == (later_big || queue_full),
                               what << ", " << cc.name << ": work list " << r.async);
                if (r.cluster && later_big) BOOST_TEST(r.async, what << ", " << cc.name);
                if (r.cluster && cc.queue > 0 && !later_over)
                    BOOST_TEST(!r.async, what << ", " << cc.name << ": work list " << r.async);
                bool const noted = std::any_of(r.notes.begin(), r.notes.end(), [](auto const& x) {
                    return x.find("thread-block cluster of") != std::string::npos;
                });
                BOOST_TEST(noted == r.cluster, what << ", " << cc.name << ": the notes on the cluster");
            }
        }
    }
    // The limit of time: the defaults (the handover wherever the clock puts it; the answer is
    // checked all the same), and one cycle, which every level exceeds: the block decides after
    // level 1's time (a level late) and hands level 2 over, wherever the search has one.
    for (auto s : sources) {
        if (s >= a.rows()) continue;
        (void)check_bfs(a, at, s, bfs_direction::automatic, true, what + ", work list, defaults",
                        cuda::bfs_tuning{}.pull_batch, cuda::bfs_loop::async);
        auto const r = check_bfs(a, at, s, bfs_direction::automatic, false,
                                 what + ", work list, a block level of at most 1e-6 us",
                                 cuda::bfs_tuning{}.pull_batch, cuda::bfs_loop::async,
                                 cuda::bfs_tuning{}.block_edges, cuda::bfs_tuning{}.async_warps,
                                 cuda::bfs_tuning{}.async_poll_ns, false,
                                 cuda::bfs_tuning{}.async_keep, 1ll << 40, 1e-6);
        auto const want = ref_levels(a, s);
        bool const deep = std::count(want.begin(), want.end(), 2) > 0;
        BOOST_TEST((r.async || r.cluster) == deep,
                   what << ": handed over at level 2: " << r.async << ", " << r.cluster);
        bool const timed = std::any_of(r.notes.begin(), r.notes.end(), [](auto const& x) {
            return x.find("then level 2's") != std::string::npos &&
                   x.find("more than async_block_level_us") != std::string::npos;
        });
        BOOST_TEST(timed == deep, what << ": the notes on the limit of time");
    }
    cuda::bfs_tuning t;
    t.loop = cuda::bfs_loop::async;
    t.direction = bfs_direction::pull;
    BOOST_CHECK_THROW((void)cuda::bfs(a.to_device(), at.to_device(), 0, false, t),
                      invalid_argument);
    cuda::bfs_tuning k;
    k.async_keep = 33;  // more than a warp's lanes
    BOOST_CHECK_THROW((void)cuda::bfs(a.to_device(), at.to_device(), 0, false, k),
                      invalid_argument);
    cuda::bfs_tuning f;
    f.async_block_frontier = -1;
    BOOST_CHECK_THROW((void)cuda::bfs(a.to_device(), at.to_device(), 0, false, f),
                      invalid_argument);
    for (double us : {-1.0, 2e6, std::nan("")}) {
        cuda::bfs_tuning u;
        u.async_block_level_us = us;
        BOOST_CHECK_THROW((void)cuda::bfs(a.to_device(), at.to_device(), 0, false, u),
                          invalid_argument);
    }
    for (int blocks : {-1, 1, 3, 32}) {
        cuda::bfs_tuning u;
        u.async_cluster_blocks = blocks;
        BOOST_CHECK_THROW((void)cuda::bfs(a.to_device(), at.to_device(), 0, false, u),
                          invalid_argument);
    }
    {
        cuda::bfs_tuning u;
        u.async_cluster_frontier = -1;
        BOOST_CHECK_THROW((void)cuda::bfs(a.to_device(), at.to_device(), 0, false, u),
                          invalid_argument);
        u = {};
        u.async_cluster_queue = -1;
        BOOST_CHECK_THROW((void)cuda::bfs(a.to_device(), at.to_device(), 0, false, u),
                          invalid_argument);
    }
}

/// Every direction, with and without parents (`quick`: with), from a few sources.
template <class T, class I>
void bfs_all(edges const& e, bool symmetric, std::string const& what,
             std::vector<std::size_t> sources, bool quick = false) {
    auto const a = to_csr<T, I>(e, std::is_same_v<T, bool>);
    auto const at = symmetric ? a : to_csr<T, I>(e.reversed(), std::is_same_v<T, bool>);
    for (auto s : sources)
        for (auto dir : {bfs_direction::push, bfs_direction::pull, bfs_direction::automatic})
            for (bool parents : {true, false})
                if (s < a.rows() && (parents || !quick)) check_bfs(a, at, s, dir, parents, what);
    if (!sources.empty() && sources.front() < a.rows())
        check_loops(a, at, sources.front(), what);
    check_async(a, at, sources, what);
}

template <class T, class I>
void bfs_suite(bool big) {
    bool const quick = !big;
    rng g(7);
    auto const r = random_graph(301, 3.0, g);
    bfs_all<T, I>(r, false, "random directed",
                  big ? std::vector<std::size_t>{0, 17, 300} : std::vector<std::size_t>{17}, quick);
    bfs_all<T, I>(r.symmetric(), true, "random undirected", {0, 150}, quick);
    // Two components, isolated vertices and self-loops.
    edges d;
    d.n = 203;
    for (int k = 0; k < 300; ++k) d.add(std::int64_t(g() % 100), std::int64_t(g() % 100));
    for (int k = 0; k < 200; ++k) d.add(100 + std::int64_t(g() % 90), 100 + std::int64_t(g() % 90));
    for (int k = 0; k < 20; ++k)
        d.add(std::int64_t(g() % 203), std::int64_t(g() % 203));  // some cross
    for (std::int64_t v = 0; v < 203; v += 5) d.add(v, v);        // self-loops
    bfs_all<T, I>(d, false, "disconnected directed",
                  big ? std::vector<std::size_t>{0, 120, 202} : std::vector<std::size_t>{120},
                  quick);
    bfs_all<T, I>(d.symmetric(), true, "disconnected undirected", {3, 195}, quick);
    // A deep path and a star.
    edges p;
    p.n = big ? 1025 : 33;
    for (std::int64_t v = 0; v + 1 < std::int64_t(p.n); ++v) p.add(v, v + 1);
    bfs_all<T, I>(p, false, "path", {0, p.n / 2}, quick);
    edges st;
    st.n = 1000;
    for (std::int64_t v = 1; v < 1000; ++v) st.add(0, v);
    bfs_all<T, I>(st.symmetric(), true, "star", {0, 999}, quick);
    edges one;
    one.n = 1;
    bfs_all<T, I>(one, true, "single vertex", {0}, quick);
    // A grid with a few holes: the shape of a road network (high diameter, degree <= 4).
    edges grid;
    std::int64_t const side = big ? 300 : 40;
    grid.n = std::size_t(side * side);
    for (std::int64_t r = 0; r < side; ++r)
        for (std::int64_t c = 0; c < side; ++c) {
            if (g() % 10 == 0) continue;  // a missing road
            if (c + 1 < side) grid.add(r * side + c, r * side + c + 1);
            if (r + 1 < side) grid.add(r * side + c, (r + 1) * side + c);
        }
    bfs_all<T, I>(grid.symmetric(), true, "grid", {0, std::size_t(side * side / 2 + side / 2)},
                  quick);
    if (big) {  // frontiers past the single-block limits: many levels of thousands of vertices
        auto const wide = random_graph(60000, 1.5, g).symmetric();
        bfs_all<T, I>(wide, true, "wide random", {0, 59999});
    }
}

// ---- SSSP references --------------------------------------------------------------------------

template <class T, class I>
std::vector<T> dijkstra(csr_matrix<T, I> const& a, std::size_t s) {
    std::vector<T> d(a.rows(), infinity<T>());
    using item = std::pair<T, std::size_t>;
    std::priority_queue<item, std::vector<item>, std::greater<>> q;
    d[s] = T(0);
    q.emplace(T(0), s);
    while (!q.empty()) {
        auto [du, u] = q.top();
        q.pop();
        if (du > d[u]) continue;
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = std::size_t(a.col_idx()[k]);
            T const nd = T(du + a.value(k));
            if (nd < d[v]) {
                d[v] = nd;
                q.emplace(nd, v);
            }
        }
    }
    return d;
}

/// Bellman-Ford from s: n passes over every edge; `cycle` says whether pass n still improved.
template <class T, class I>
std::vector<T> bellman_ford(csr_matrix<T, I> const& a, std::size_t s, bool* cycle = nullptr) {
    std::size_t const n = a.rows();
    std::vector<T> d(n, infinity<T>());
    d[s] = T(0);
    bool changed = true;
    for (std::size_t pass = 0; pass < n && changed; ++pass) {
        changed = false;
        for (std::size_t u = 0; u < n; ++u) {
            if (d[u] == infinity<T>()) continue;
            for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
                auto const v = std::size_t(a.col_idx()[k]);
                T const nd = T(d[u] + a.value(k));
                if (nd < d[v]) d[v] = nd, changed = true;
            }
        }
    }
    if (cycle) *cycle = changed;
    return d;
}

/// The same search with small rounds in one block (the default), every round in one block where
/// it fits, and none.
template <class T, class I>
void check_sssp(csr_matrix<T, I> const& a, std::size_t s, sssp_method m, std::vector<T> const& want,
                std::string const& what, double delta = 0) {
    for (long long block_edges : {cuda::sssp_tuning{}.block_edges, 1ll << 40, 0ll}) {
    cuda::sssp_tuning tuning;
    tuning.method = m;
    tuning.delta = delta;
    tuning.block_edges = block_edges;
    // The work list ignores block_edges: vary its warps and what a warp keeps instead.
    tuning.async_warps = block_edges != 0 ? 8 : 2;
    unsigned const keep0 = cuda::sssp_tuning{}.async_keep;
    tuning.async_keep = block_edges == cuda::sssp_tuning{}.block_edges ? keep0
                        : block_edges != 0                             ? (keep0 == 32 ? 1u : 32u)
                        : keep0 == 0                                   ? 1u
                                                                       : 0u;
    auto const run = cuda::sssp(a.to_device(), s, tuning);
    if (m == sssp_method::async || m == sssp_method::delta_stepping ||
        m == sssp_method::bellman_ford)
        BOOST_TEST((run.method == m), what << ": ran method " << int(run.method));
    if (block_edges == 0) {  // the distances left on the device, in the caller's vector
        dense_vector<T, device> dist_d(a.rows());
        auto const on = cuda::sssp(a.to_device(), s, dist_d, tuning, default_context());
        BOOST_TEST(on.dist.empty(), what);
        auto const got = dist_d.to_host();
        std::size_t bad_d = 0;
        for (std::size_t v = 0; v < std::min(want.size(), got.size()); ++v)
            bad_d += !(got[v] == want[v]);
        BOOST_TEST(bad_d == 0u, what << " (method " << int(m) << ", source " << s << "): "
                                     << bad_d << " wrong distances on the device");
        dense_vector<T, device> wrong_size(a.rows() + 1);
        BOOST_CHECK_THROW((void)cuda::sssp(a.to_device(), s, wrong_size, tuning, default_context()),
                          dimension_mismatch);
    }
    std::size_t bad = 0;
    BOOST_TEST(run.dist.size() == a.rows());
    for (std::size_t v = 0; v < std::min(want.size(), run.dist.size()); ++v)
        bad += !(run.dist[v] == want[v]);
    BOOST_TEST(run.seconds > 0.0);
    BOOST_TEST(bad == 0u, what << " (" << typeid(T).name() << "/" << sizeof(I) * 8
                               << "-bit, method " << int(m) << ", source " << s
                               << ", block_edges " << block_edges << "): " << bad
                               << " wrong distances");
    }
}

/// Weights w0 + pot(u) - pot(v): some negative, no negative cycle (every cycle keeps its w0 sum).
edges with_potentials(edges e, rng& g) {
    std::vector<std::int64_t> pot(e.n);
    for (auto& x : pot) x = std::int64_t(g() % 15);
    for (std::size_t k = 0; k < e.from.size(); ++k)
        e.w[k] += pot[std::size_t(e.from[k])] - pot[std::size_t(e.to[k])];
    return e;
}

template <class T, class I>
void sssp_suite_small() {
    rng g(21);
    auto const e = random_graph(257, 3.0, g);
    auto const a = to_csr<T, I>(e);
    for (std::size_t s : {0u, 100u, 256u}) {
        auto const want = dijkstra(a, s);
        for (auto m : {sssp_method::automatic, sssp_method::bellman_ford,
                       sssp_method::delta_stepping, sssp_method::async})
            check_sssp(a, s, m, want, "random");
        check_sssp(a, s, sssp_method::delta_stepping, want, "random, delta 1", 1.0);
        check_sssp(a, s, sssp_method::delta_stepping, want, "random, delta 1000", 1000.0);
    }
    // Iso weights (3), self-loops, a disconnected part, a single vertex.
    auto const iso = to_csr<T, I>(e, true);
    check_sssp(iso, 5, sssp_method::automatic, dijkstra(iso, 5), "iso");
    check_sssp(iso, 5, sssp_method::bellman_ford, dijkstra(iso, 5), "iso");
    check_sssp(iso, 5, sssp_method::async, dijkstra(iso, 5), "iso");
    // Zero weights (a vertex reached again at the same distance).
    auto const z = to_csr<T, I>(random_graph(200, 3.0, g, 0, 3));
    for (auto m : {sssp_method::async, sssp_method::delta_stepping})
        check_sssp(z, 1, m, dijkstra(z, 1), "zero weights");
    edges d = random_graph(150, 2.0, g);
    d.n = 180;  // vertices 150..179: no edges out, some in
    for (int k = 0; k < 30; ++k) d.add(std::int64_t(g() % 150), 150 + std::int64_t(g() % 30), 2);
    for (std::int64_t v = 0; v < 180; v += 7) d.add(v, v, 4);
    auto const da = to_csr<T, I>(d);
    check_sssp(da, 0, sssp_method::automatic, dijkstra(da, 0), "disconnected");
    check_sssp(da, 170, sssp_method::bellman_ford, dijkstra(da, 170), "isolated source");
    check_sssp(da, 170, sssp_method::async, dijkstra(da, 170), "isolated source");
    check_sssp(da, 3, sssp_method::async, dijkstra(da, 3), "disconnected");
    edges one;
    one.n = 1;
    auto const oa = to_csr<T, I>(one);
    check_sssp(oa, 0, sssp_method::automatic, std::vector<T>{T(0)}, "single vertex");
    check_sssp(oa, 0, sssp_method::async, std::vector<T>{T(0)}, "single vertex");
    // Negative weights without a negative cycle.
    auto const neg = to_csr<T, I>(with_potentials(random_graph(200, 3.0, g), g));
    for (std::size_t s : {0u, 77u}) {
        auto const want = bellman_ford(neg, s);
        check_sssp(neg, s, sssp_method::automatic, want, "negative weights");
        check_sssp(neg, s, sssp_method::bellman_ford, want, "negative weights");
    }
    BOOST_CHECK_THROW(cuda::sssp(neg.to_device(), 0, {sssp_method::delta_stepping, 0}),
                      invalid_argument);
    BOOST_CHECK_THROW(cuda::sssp(neg.to_device(), 0, {sssp_method::async, 0}), invalid_argument);
    cuda::sssp_tuning k;
    k.async_keep = 33;  // more than a warp's lanes
    BOOST_CHECK_THROW(cuda::sssp(a.to_device(), 0, k), invalid_argument);
    // A negative cycle reachable from the source: the vertex named lies on a negative closed walk.
    edges c = random_graph(120, 2.0, g);
    c.add(0, 50, 1);
    c.add(50, 60, -4);
    c.add(60, 70, 1);
    c.add(70, 50, 1);
    auto const ca = to_csr<T, I>(c);
    for (auto m : {sssp_method::automatic, sssp_method::bellman_ford})
    for (long long block_edges : {cuda::sssp_tuning{}.block_edges, 0ll}) {
        bool thrown = false;
        try {
            (void)cuda::sssp(ca.to_device(), 0, {m, 0, block_edges});
        } catch (negative_cycle const& x) {
            thrown = true;
            bool walk = false;
            BOOST_TEST_REQUIRE((x.vertex() >= 0 && std::size_t(x.vertex()) < ca.rows()));
            auto const back = bellman_ford(ca, std::size_t(x.vertex()), &walk);
            BOOST_TEST((walk || back[std::size_t(x.vertex())] < T(0)),
                       "vertex " << x.vertex() << " is not on a negative cycle");
        }
        BOOST_TEST(thrown, "negative cycle not reported");
    }
    // A negative self-loop is a negative cycle too; one the source cannot reach is not an error.
    edges sl;
    sl.n = 4;
    sl.add(0, 1, 2);
    sl.add(1, 1, -1);
    BOOST_CHECK_THROW(cuda::sssp(to_csr<T, I>(sl).to_device(), 0, {}), negative_cycle);
    auto const sla = to_csr<T, I>(sl);
    check_sssp(sla, 2, sssp_method::automatic, bellman_ford(sla, 2), "unreachable negative cycle");
}

template <class T, class I>
void large_suite() {
    rng g(1234);
    auto const e = kronecker(14, 16, g);
    auto const und = e.symmetric();
    auto const a = to_csr<T, I>(und, std::is_same_v<T, bool>);
    // The highest-degree vertex as one source: a huge second level, where auto must pull.
    std::size_t hub = 0;
    for (std::size_t v = 0; v < a.rows(); ++v)
        if (a.row_end(v) - a.row_begin(v) > a.row_end(hub) - a.row_begin(hub)) hub = v;
    for (auto dir : {bfs_direction::push, bfs_direction::pull, bfs_direction::automatic})
        for (bool parents : {true, false})
            check_bfs(a, a, hub, dir, parents, "kronecker 14 undirected");
    check_loops(a, a, hub, "kronecker 14 undirected");
    {
        cuda::bfs_tuning t;
        auto const run = cuda::bfs(a.to_device(), a.to_device(), hub, true, t);
        BOOST_TEST((std::count(run.step_was_pull.begin(), run.step_was_pull.end(), 1) > 0),
                   "automatic never pulled on a power-law graph");
        BOOST_TEST((run.step_was_pull.front() == 0), "automatic pulled from a one-vertex frontier");
    }
    auto const da = to_csr<T, I>(e, std::is_same_v<T, bool>);
    auto const dat = to_csr<T, I>(e.reversed(), std::is_same_v<T, bool>);
    for (std::size_t s : {hub, std::size_t(12345)})
        for (auto dir : {bfs_direction::push, bfs_direction::pull, bfs_direction::automatic})
            check_bfs(da, dat, s, dir, true, "kronecker 14 directed");
    check_loops(da, dat, hub, "kronecker 14 directed");
    // The work list on a power-law graph: rows of thousands of edges split over a warp.
    check_async(a, a, {hub, 12345}, "kronecker 14 undirected");
    check_async(da, dat, {hub}, "kronecker 14 directed");
}

template <class T, class I>
void sssp_large() {
    rng g(4321);
    auto const e = kronecker(13, 16, g, 1000).symmetric();
    auto const a = to_csr<T, I>(e);
    for (std::size_t s : {0u, 4095u}) {
        auto const want = dijkstra(a, s);
        for (auto m : {sssp_method::automatic, sssp_method::bellman_ford,
                       sssp_method::delta_stepping, sssp_method::async})
            check_sssp(a, s, m, want, "kronecker 13");
        check_sssp(a, s, sssp_method::delta_stepping, want, "kronecker 13, delta 10", 10.0);
    }
    auto const road = random_graph(20000, 2.5, g, 1, 1000);  // long paths, many buckets
    auto const ra = to_csr<T, I>(road.symmetric());
    check_sssp(ra, 0, sssp_method::delta_stepping, dijkstra(ra, 0), "sparse random");
    check_sssp(ra, 0, sssp_method::async, dijkstra(ra, 0), "sparse random");
    check_sssp(ra, 0, sssp_method::automatic, dijkstra(ra, 0), "sparse random");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(small)

BOOST_AUTO_TEST_CASE(bfs_matches_queue_bfs) {
    if (!have_gpu(needs::minimal)) return;
    bfs_suite<bool, std::int32_t>(false);
    bfs_suite<float, std::int64_t>(false);
}

BOOST_AUTO_TEST_CASE(bfs_other_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(3);
    auto const e = random_graph(101, 2.0, g).symmetric();
    bfs_all<double, std::int32_t>(e, true, "double", {0});
    bfs_all<std::int64_t, std::int64_t>(e, true, "int64", {0});
    bfs_all<bool, std::int64_t>(e, true, "bool 64", {0});
}

// Results left on the device, in the caller's vectors (reused across calls): the same levels as
// the host results, valid parents, nothing in the run's host vectors; wrong sizes refused.
BOOST_AUTO_TEST_CASE(bfs_into_device_vectors) {
    if (!have_gpu(needs::minimal)) return;
    rng g(5);
    std::vector<std::pair<std::string, edges>> graphs;
    graphs.emplace_back("random undirected", random_graph(500, 3.0, g).symmetric());
    graphs.emplace_back("random directed", random_graph(400, 2.0, g));
    graphs.emplace_back("kronecker 12", kronecker(12, 16, g).symmetric());
    for (auto const& [what, e] : graphs) {
        auto const a = to_csr<bool, std::int32_t>(e, true);
        auto const at = to_csr<bool, std::int32_t>(e.reversed(), true);
        auto const ad = a.to_device(), atd = at.to_device();
        dense_vector<std::int64_t, device> level(a.rows()), parent(a.rows());
        for (auto loop : {cuda::bfs_loop::automatic, cuda::bfs_loop::async,
                          cuda::bfs_loop::device, cuda::bfs_loop::host})
            for (std::size_t s : {std::size_t(0), std::size_t(7)}) {
                cuda::bfs_tuning t;
                t.loop = loop;
                t.direction = loop == cuda::bfs_loop::async ? bfs_direction::push
                                                             : bfs_direction::automatic;
                auto const want = ref_levels(a, s);
                auto const run = cuda::bfs(ad, atd, s, level, &parent, t, default_context());
                BOOST_TEST(run.level.empty());
                BOOST_TEST(run.parent.empty());
                auto const lv = level.to_host(), pa = parent.to_host();
                std::size_t bad = 0;
                for (std::size_t v = 0; v < a.rows(); ++v) {
                    bad += lv[v] != want[v];
                    std::int64_t const p = pa[v];
                    if (want[v] < 0) bad += p != -1;
                    else if (v == s) bad += p != std::int64_t(s);
                    else
                        bad += !(p >= 0 && want[std::size_t(p)] == want[v] - 1 &&
                                 a.find(std::size_t(p), v) >= 0);
                }
                BOOST_TEST(bad == 0u, what << ", loop " << int(loop) << ", source " << s << ": "
                                           << bad << " wrong levels or parents on the device");
                std::int64_t const depth = *std::max_element(want.begin(), want.end());
                BOOST_TEST(run.levels == std::size_t(depth + 1), what << ": levels");
                // Levels only.
                auto const only = cuda::bfs(ad, atd, s, level, nullptr, t, default_context());
                auto const lv2 = level.to_host();
                BOOST_TEST(std::equal(lv2.begin(), lv2.end(), want.begin()), what << ": levels only");
                BOOST_TEST(only.levels == std::size_t(depth + 1));
            }
        dense_vector<std::int64_t, device> short_level(a.rows() - 1);
        BOOST_CHECK_THROW(
            (void)cuda::bfs(ad, atd, 0, short_level, &parent, cuda::bfs_tuning{}, default_context()),
            dimension_mismatch);
        BOOST_CHECK_THROW(
            (void)cuda::bfs(ad, atd, 0, level, &short_level, cuda::bfs_tuning{}, default_context()),
            dimension_mismatch);
    }
}

BOOST_AUTO_TEST_CASE(bfs_arguments_checked) {
    if (!have_gpu(needs::minimal)) return;
    rng g(4);
    auto const a = to_csr<float, std::int32_t>(random_graph(10, 2.0, g)).to_device();
    auto const b = to_csr<float, std::int32_t>(random_graph(11, 2.0, g)).to_device();
    BOOST_CHECK_THROW(cuda::bfs(a, a, 10, false), invalid_argument);
    BOOST_CHECK_THROW(cuda::bfs(a, b, 0, false), dimension_mismatch);
    for (int bad : {0, -1, 65}) {
        cuda::bfs_tuning t;
        t.pull_batch = bad;
        BOOST_CHECK_THROW(cuda::bfs(a, a, 0, false, t), invalid_argument);
    }
    BOOST_CHECK_THROW(cuda::sssp(a, 11), invalid_argument);
}

BOOST_AUTO_TEST_CASE(sssp_matches_dijkstra_and_bellman_ford) {
    if (!have_gpu(needs::minimal)) return;
    sssp_suite_small<float, std::int32_t>();
    sssp_suite_small<std::int64_t, std::int64_t>();
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(large)

BOOST_AUTO_TEST_CASE(bfs_kronecker) {
    if (!have_gpu(needs::minimal)) return;
    large_suite<bool, std::int32_t>();
    large_suite<float, std::int64_t>();
}

BOOST_AUTO_TEST_CASE(bfs_all_types) {
    if (!have_gpu(needs::minimal)) return;
    bfs_suite<bool, std::int32_t>(true);
    bfs_suite<float, std::int64_t>(true);
    bfs_suite<double, std::int64_t>(true);
    bfs_suite<std::int32_t, std::int32_t>(true);
    bfs_suite<std::int64_t, std::int32_t>(true);
    bfs_suite<bool, std::int64_t>(true);
}

BOOST_AUTO_TEST_CASE(sssp_all_types) {
    if (!have_gpu(needs::minimal)) return;
    sssp_suite_small<double, std::int64_t>();
    sssp_suite_small<std::int32_t, std::int32_t>();
    sssp_suite_small<float, std::int64_t>();
    sssp_suite_small<std::int64_t, std::int32_t>();
}

BOOST_AUTO_TEST_CASE(sssp_kronecker) {
    if (!have_gpu(needs::minimal)) return;
    sssp_large<float, std::int32_t>();
    sssp_large<std::int64_t, std::int64_t>();
    sssp_large<double, std::int32_t>();
    sssp_large<std::int32_t, std::int64_t>();
}

BOOST_AUTO_TEST_SUITE_END()

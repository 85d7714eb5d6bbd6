// A call's result to the host (kleene/cuda/result_copy.hpp): results of 4 MiB and more reach
// pageable host memory through the context's two page-locked buffers, filled by the DMA engine in
// turn while the host's threads copy out the other. Every byte is checked, for sizes around the
// chunk's edges, one chunk, many with a remainder, buffers that must grow, a destination that is
// already page-locked, and a context on a stream of its own; then an algorithm's large result,
// runs into the last result (storage kept; SSSP's also with the weights' summary given), and the
// context's memory pool the temporaries come from (its own, kept and trimmed; a caller's).
// A .cu suite: it calls the CUDA runtime itself, so it is built only with the CUDA backend.

#define BOOST_TEST_MODULE result_copy_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using namespace kleene;
using kleene::test::have_gpu;
using kleene::test::needs;

namespace {
/// n vertices joined in pairs (2v, 2v + 1), both directions, on the device.
csr_matrix<bool, std::int32_t, device> pairs_graph(std::size_t n) {
    std::vector<std::int32_t> from, to;
    for (std::size_t v = 0; v + 1 < n; v += 2) {
        from.push_back(std::int32_t(v));
        to.push_back(std::int32_t(v + 1));
        from.push_back(std::int32_t(v + 1));
        to.push_back(std::int32_t(v));
    }
    return csr_matrix<bool, std::int32_t>::from_coo(n, n, from, to, std::span<bool const>{},
                                                    duplicate_policy::last)
        .to_device();
}
}  // namespace

BOOST_AUTO_TEST_CASE(staged_copies_are_exact) {
    if (!have_gpu(needs::minimal)) return;
    std::size_t const most = (std::size_t(9) << 20) + 40;  // bytes
    std::vector<std::uint8_t> want(most);
    for (std::size_t i = 0; i < most; ++i) want[i] = std::uint8_t((i * 131 + i / 4099) & 0xff);
    void* dev = nullptr;
    BOOST_REQUIRE(cudaMalloc(&dev, most) == cudaSuccess);
    BOOST_REQUIRE(cudaMemcpy(dev, want.data(), most, cudaMemcpyHostToDevice) == cudaSuccess);
    cudaStream_t s = nullptr;
    BOOST_REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    for (bool own_stream : {false, true}) {
        context ctx;
        if (own_stream) ctx.set_stream(s);
        auto check = [&](std::size_t bytes, cuda::result_copy_options const& o,
                         std::string const& what) {
            std::vector<std::uint8_t> got(bytes + 16, 0xee);
            cuda::copy_result_to_host(got.data() + 8, dev, bytes, ctx, o);
            bool const same = std::equal(want.begin(), want.begin() + std::ptrdiff_t(bytes),
                                         got.begin() + 8);
            bool const fence = std::all_of(got.begin(), got.begin() + 8,
                                           [](std::uint8_t x) { return x == 0xee; }) &&
                               std::all_of(got.end() - 8, got.end(),
                                           [](std::uint8_t x) { return x == 0xee; });
            BOOST_TEST(same, what << ": " << bytes << " bytes differ");
            BOOST_TEST(fence, what << ": " << bytes << " bytes: written outside the result");
        };
        cuda::result_copy_options small;
        small.chunk = std::size_t(64) << 10;
        small.staged_from = 0;
        for (std::size_t bytes : {std::size_t(0), std::size_t(8), std::size_t(65536) - 8,
                                  std::size_t(65536), std::size_t(65536) + 8,
                                  std::size_t(131072), std::size_t(200000) + 8,
                                  (std::size_t(1) << 20) + 24})
            check(bytes, small, "64 KiB chunks");
        cuda::result_copy_options larger = small;
        larger.chunk = std::size_t(1) << 20;  // the buffers grow
        check((std::size_t(3) << 20) + 8, larger, "1 MiB chunks");
        check(most, {}, "default options");  // chunks of half the result, rounded up to 1 MiB
        check(std::size_t(4) << 20, {}, "two chunks of 2 MiB");
        cuda::result_copy_options one;
        one.staged_from = 0;
        one.chunk = std::size_t(1) << 20;
        check(std::size_t(1) << 20, one, "exactly one chunk");
        check((std::size_t(5) << 20) + 1, one, "five chunks and one byte");
        cuda::result_copy_options direct;
        direct.staged = false;
        check(most, direct, "direct");
        void* locked = nullptr;
        BOOST_REQUIRE(cudaHostAlloc(&locked, most, cudaHostAllocDefault) == cudaSuccess);
        cuda::copy_result_to_host(locked, dev, most, ctx);
        BOOST_TEST(std::memcmp(locked, want.data(), most) == 0, "page-locked destination");
        cudaFreeHost(locked);
    }
    cudaStreamDestroy(s);
    cudaFree(dev);
}

BOOST_AUTO_TEST_CASE(a_large_result_through_the_algorithms) {
    if (!have_gpu(needs::minimal)) return;
    // 2^20 vertices joined in pairs: 8 MiB of int64 labels, two chunks and a remainder-free end.
    std::size_t const n = std::size_t(1) << 20;
    auto const a = pairs_graph(n);
    for (auto kernel : {cuda::cc_kernel::afforest, cuda::cc_kernel::fastsv}) {
        auto const run = cuda::connected_components<std::int32_t>(a, kernel);
        BOOST_TEST(run.count == n / 2);
        BOOST_REQUIRE(run.component.size() == n);
        std::size_t wrong = 0;
        for (std::size_t v = 0; v < n; ++v)
            wrong += run.component[v] != std::int64_t(v & ~std::size_t(1));
        BOOST_TEST(wrong == 0u);
    }
}


BOOST_AUTO_TEST_CASE(runs_into_the_last_result_keep_its_storage) {
    if (!have_gpu(needs::minimal)) return;
    // Pairs joined: 2^20 vertices (8 MiB results, staged) and a smaller graph after it.
    auto const big = pairs_graph(std::size_t(1) << 20), small = pairs_graph(std::size_t(1) << 12);
    context ctx;
    std::vector<std::int64_t> const sources{0, 3, 1000};

    cuda::cc_run cc;
    cuda::pagerank_run pr;
    cuda::bfs_run bf;
    cuda::bc_run bc;
    for (auto const* g : {&big, &big, &small, &big}) {
        std::string const what = "n=" + std::to_string(g->rows());
        double const* pr_before = pr.rank.data();
        std::int64_t const* cc_before = cc.component.data();
        std::size_t const cc_capacity = cc.component.capacity();
        cuda::connected_components<std::int32_t>(cc, *g, cuda::cc_kernel::afforest, ctx);
        BOOST_TEST((cc.component == cuda::connected_components<std::int32_t>(
                                        *g, cuda::cc_kernel::afforest, ctx)
                                        .component),
                   what);
        if (cc_capacity >= g->rows())
            BOOST_TEST((cc.component.data() == cc_before), what << ": cc storage kept");
        std::size_t const pr_capacity = pr.rank.capacity();
        cuda::pagerank<std::int32_t>(pr, *g, *g, {}, cuda::pagerank_kernel::fused, ctx);
        auto const fresh_pr =
            cuda::pagerank<std::int32_t>(*g, *g, {}, cuda::pagerank_kernel::fused, ctx);
        BOOST_TEST((pr.rank == fresh_pr.rank), what);
        BOOST_TEST(pr.iterations == fresh_pr.iterations);
        if (pr_capacity >= g->rows())
            BOOST_TEST((pr.rank.data() == pr_before), what << ": pagerank storage kept");
        for (bool parents : {true, false, true}) {
            std::int64_t const* level_before = bf.level.data();
            std::size_t const level_capacity = bf.level.capacity();
            cuda::bfs<bool, std::int32_t>(bf, *g, *g, 3, parents, {}, ctx);
            auto const fresh = cuda::bfs<bool, std::int32_t>(*g, *g, 3, parents, {}, ctx);
            BOOST_TEST((bf.level == fresh.level), what);
            BOOST_TEST((bf.parent == fresh.parent), what);
            BOOST_TEST(bf.parent.size() == (parents ? g->rows() : 0u), what);
            BOOST_TEST(bf.levels == fresh.levels, what);
            if (level_capacity >= g->rows())
                BOOST_TEST((bf.level.data() == level_before), what << ": bfs storage kept");
        }
        cuda::betweenness<std::int32_t>(bc, *g, *g, sources, ctx);
        BOOST_TEST((bc.centrality == cuda::betweenness<std::int32_t>(*g, *g, sources, ctx)
                                         .centrality),
                   what);
        // Pairs: no vertex lies between two others.
        BOOST_TEST(std::all_of(bc.centrality.begin(), bc.centrality.end(),
                               [](double c) { return c == 0; }),
                   what);
    }
}

namespace {
/// The same pairs (2v, 2v + 1), weighted 1 + v mod 7 both ways, on the device.
csr_matrix<float, std::int32_t, device> weighted_pairs(std::size_t n) {
    std::vector<std::int32_t> from, to;
    std::vector<float> w;
    for (std::size_t v = 0; v + 1 < n; v += 2)
        for (int dir = 0; dir < 2; ++dir) {
            from.push_back(std::int32_t(v + dir));
            to.push_back(std::int32_t(v + 1 - dir));
            w.push_back(float(1 + v % 7));
        }
    return csr_matrix<float, std::int32_t>::from_coo(n, n, from, to, std::span<float const>(w),
                                                     duplicate_policy::last)
        .to_device();
}
/// A side x side grid, weights 1 + (u + 3v) mod 9 on the edge u -> v (not symmetric weights);
/// bool: the pattern alone.
template <class T = float>
csr_matrix<T, std::int32_t, device> weighted_grid(std::size_t side) {
    std::vector<std::int32_t> from, to;
    std::vector<T> w;
    auto edge = [&](std::size_t u, std::size_t v) {
        from.push_back(std::int32_t(u));
        to.push_back(std::int32_t(v));
        w.push_back(T(1 + (u + 3 * v) % 9));
    };
    for (std::size_t r = 0; r < side; ++r)
        for (std::size_t c = 0; c < side; ++c) {
            std::size_t const v = r * side + c;
            if (c + 1 < side) edge(v, v + 1), edge(v + 1, v);
            if (r + 1 < side) edge(v, v + side), edge(v + side, v);
        }
    std::size_t const n = side * side;
    std::span<T const> values;
    if constexpr (!std::is_same_v<T, bool>) values = std::span<T const>(w);
    return csr_matrix<T, std::int32_t>::from_coo(n, n, from, to, values, duplicate_policy::last)
        .to_device();
}
}  // namespace

// SSSP into the last run keeps the distances' storage and equals a fresh run; the weights' mean
// and minimum a caller knows (kleene::graph's summary) replace the call's own pass and change no
// distance; given half, or not finite, they are refused.
BOOST_AUTO_TEST_CASE(sssp_into_the_last_run_and_known_weights) {
    if (!have_gpu(needs::minimal)) return;
    auto const big = weighted_pairs(std::size_t(1) << 21);  // 8 MiB of distances: staged
    auto const grid = weighted_grid(64);
    context ctx;
    cuda::sssp_run<float> run;
    for (auto const* g : {&big, &big, &grid, &big}) {
        std::string const what = "n=" + std::to_string(g->rows());
        float const* before = run.dist.data();
        std::size_t const capacity = run.dist.capacity();
        cuda::sssp<float, std::int32_t>(run, *g, 5, {}, ctx);
        auto const fresh = cuda::sssp<float, std::int32_t>(*g, 5, {}, ctx);
        BOOST_REQUIRE(run.dist.size() == g->rows());
        BOOST_TEST((run.dist == fresh.dist), what);
        BOOST_TEST((run.method == fresh.method), what);
        if (capacity >= g->rows())
            BOOST_TEST((run.dist.data() == before), what << ": sssp storage kept");
        if (g == &big) {  // the pair (4, 5), weight 1 + 4 mod 7: nothing else is reached
            std::size_t wrong = 0;
            for (std::size_t v = 0; v < g->rows(); ++v)
                wrong += run.dist[v] != (v == 5 ? 0.0f : v == 4 ? 5.0f : infinity<float>());
            BOOST_TEST(wrong == 0u, what);
        }
        // The weights' summary given: the same distances, by every non-negative method.
        auto const host = g->to_host();
        double sum = 0, lo = infinity<double>();
        for (std::size_t e = 0; e < host.nnz(); ++e) {
            sum += host.values()[e];
            lo = std::min(lo, double(host.values()[e]));
        }
        for (auto method : {cuda::sssp_method::automatic, cuda::sssp_method::delta_stepping,
                            cuda::sssp_method::async}) {
            cuda::sssp_tuning known;
            known.method = method;
            known.weight_mean = sum / double(host.nnz());
            known.weight_min = lo;
            BOOST_TEST((cuda::sssp<float, std::int32_t>(*g, 5, known, ctx).dist == fresh.dist),
                       what << " method " << int(method));
        }
        // The given minimum is what the call uses: a negative one rules out all but
        // Bellman-Ford (which still finds the same distances on these non-negative weights).
        cuda::sssp_tuning negative;
        negative.weight_mean = sum / double(host.nnz());
        negative.weight_min = -1;
        auto const bf = cuda::sssp<float, std::int32_t>(*g, 5, negative, ctx);
        BOOST_TEST((bf.method == cuda::sssp_method::bellman_ford), what);
        BOOST_TEST((bf.dist == fresh.dist), what);
    }
    cuda::sssp_tuning half;
    half.weight_mean = 3;
    BOOST_CHECK_THROW((cuda::sssp<float, std::int32_t>(grid, 0, half, ctx)), invalid_argument);
    half.weight_min = infinity<double>();
    BOOST_CHECK_THROW((cuda::sssp<float, std::int32_t>(grid, 0, half, ctx)), invalid_argument);
}

// Betweenness with the scores left in the caller's device vector: equal to the host result's (to
// rounding), the run's host vector left empty; a vector of the wrong size is refused.
BOOST_AUTO_TEST_CASE(betweenness_into_a_device_vector) {
    if (!have_gpu(needs::minimal)) return;
    auto const grid = weighted_grid<bool>(48);
    context ctx;
    std::vector<std::int64_t> const sources{0, 47, 1200, 2303};
    auto const host = cuda::betweenness<std::int32_t>(grid, grid, sources, ctx);
    BOOST_REQUIRE(host.centrality.size() == grid.rows());
    BOOST_TEST(*std::max_element(host.centrality.begin(), host.centrality.end()) > 0.0);
    dense_vector<double, device> scores(grid.rows());
    for (int round = 0; round < 2; ++round) {  // the second into the same vector
        auto const run = cuda::betweenness<std::int32_t>(grid, grid, sources, scores, ctx);
        BOOST_TEST(run.centrality.empty());
        auto const got = scores.to_host();
        // The sums are atomic adds in no fixed order: equal to rounding, not to the bit.
        std::size_t off = 0;
        for (std::size_t v = 0; v < got.size(); ++v)
            off += !(std::abs(got[v] - host.centrality[v]) <=
                     1e-9 * std::max(1.0, std::abs(host.centrality[v])));
        BOOST_TEST(off == 0u, "round " << round);
    }
    auto const none = cuda::betweenness<std::int32_t>(grid, grid, {}, scores, ctx);
    BOOST_TEST(none.centrality.empty());
    auto const zeros = scores.to_host();
    BOOST_TEST(std::all_of(zeros.begin(), zeros.end(), [](double c) { return c == 0; }));
    dense_vector<double, device> wrong(grid.rows() - 1);
    BOOST_CHECK_THROW(cuda::betweenness<std::int32_t>(grid, grid, sources, wrong, ctx),
                      dimension_mismatch);
}

// The temporaries of the graph kernels come from the context's pool (kleene/cuda/memory_pool.hpp):
// the context's own keeps what a call frees for the next one until trimmed; a caller's pool is
// the one allocated from, and the context makes none of its own.
BOOST_AUTO_TEST_CASE(temporaries_come_from_the_contexts_pool) {
    if (!have_gpu(needs::minimal)) return;
    auto const a = pairs_graph(std::size_t(1) << 20);
    auto attribute = [](void* pool, cudaMemPoolAttr what) {
        std::uint64_t v = 0;  // a cuuint64_t, as the attributes are
        BOOST_REQUIRE(cudaMemPoolGetAttribute(static_cast<cudaMemPool_t>(pool), what, &v) ==
                      cudaSuccess);
        return std::uint64_t(v);
    };
    auto const want = cuda::connected_components<std::int32_t>(a, cuda::cc_kernel::afforest);
    {
        context ctx;
        void* const own = cuda::memory_pool(ctx);
        BOOST_REQUIRE(own != nullptr);
        BOOST_TEST(cuda::memory_pool(ctx) == own);  // made once
        BOOST_TEST(attribute(own, cudaMemPoolAttrUsedMemHigh) == 0u);
        auto const run = cuda::connected_components<std::int32_t>(a, cuda::cc_kernel::afforest, ctx);
        BOOST_TEST((run.component == want.component));
        BOOST_TEST(attribute(own, cudaMemPoolAttrUsedMemHigh) >= (std::uint64_t(1) << 22),
                   "the labels' 4 MiB came from the context's pool");
        BOOST_TEST(attribute(own, cudaMemPoolAttrUsedMemCurrent) == 0u);  // all freed ...
        BOOST_TEST(attribute(own, cudaMemPoolAttrReservedMemCurrent) > 0u);  // ... and kept
        // The size query: the peak a caller would reserve in a pool of its own.
        auto const u = cuda::pool_usage(ctx);
        BOOST_TEST(u.used_peak == attribute(own, cudaMemPoolAttrUsedMemHigh));
        BOOST_TEST(u.used_peak >= (std::uint64_t(1) << 22));
        BOOST_TEST(u.used == 0u);
        BOOST_TEST(u.reserved >= u.used_peak);
        BOOST_TEST(u.reserved_peak >= u.reserved);
        cuda::reset_memory_pool_peaks(ctx);
        BOOST_TEST(cuda::pool_usage(ctx).used_peak == 0u);  // nothing is out now
        (void)cuda::connected_components<std::int32_t>(a, cuda::cc_kernel::afforest, ctx);
        BOOST_TEST(cuda::pool_usage(ctx).used_peak == u.used_peak);  // the same call again
        cuda::trim_memory_pool(ctx);
        BOOST_TEST(attribute(own, cudaMemPoolAttrReservedMemCurrent) == 0u);
    }
    cudaMemPool_t mine = nullptr;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    BOOST_REQUIRE(cudaMemPoolCreate(&mine, &props) == cudaSuccess);
    {
        context ctx;
        ctx.set_memory_pool(mine);
        BOOST_TEST(cuda::memory_pool(ctx) == static_cast<void*>(mine));
        auto const run = cuda::connected_components<std::int32_t>(a, cuda::cc_kernel::fastsv, ctx);
        BOOST_TEST((run.component == want.component));
        BOOST_TEST(attribute(mine, cudaMemPoolAttrUsedMemHigh) >= (std::uint64_t(1) << 22),
                   "the labels' 4 MiB came from the caller's pool");
        cuda::trim_memory_pool(ctx);  // not the context's to trim: nothing happens
    }
    BOOST_TEST(cudaMemPoolDestroy(mine) == cudaSuccess);
}

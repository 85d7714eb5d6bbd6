// A call's result to the host (kleene/cuda/result_copy.hpp): results of 4 MiB and more reach
// pageable host memory through the context's two page-locked buffers, filled by the DMA engine in
// turn while the host's threads copy out the other. Every byte is checked, for sizes around the
// chunk's edges, one chunk, many with a remainder, buffers that must grow, a destination that is
// already page-locked, and a context on a stream of its own; then an algorithm's large result,
// runs into the last result (storage kept), and the context's memory pool the temporaries come
// from (its own, kept and trimmed; a caller's).
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

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
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

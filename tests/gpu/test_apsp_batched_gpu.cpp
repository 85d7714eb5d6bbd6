// Batched multi-source Bellman-Ford APSP on the GPU (cuda::apsp_bellman_ford) against the CPU's
// plain Floyd-Warshall: both steps (frontier, spmm), fp32 / fp64 / int32 values, int32 / int64
// indices, directed graphs with negative edges, undirected ones, disconnected parts and isolated
// vertices, iso matrices, n = 0, 1, 2, primes, batch sizes that do not divide n, int32 sums that
// saturate at the sentinel, and negative cycles (through a source of the batch, and reachable
// from the batch only, which takes the n-round limit).

#define BOOST_TEST_MODULE apsp_batched_gpu
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/cuda/apsp_batched.hpp>
#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/convert.hpp>
#include <kleene/cuda/runtime.hpp>
#include <random>
#include <type_traits>
#include <vector>

#include "gpu/apsp_reference.hpp"
#include "gpu/gpu_test.hpp"

namespace {

using namespace kleene;
using kleene::test::check_equal;
using kleene::test::have_gpu;
using kleene::test::needs;
using kleene::test::reference;

template <class T, class Index>
struct edges {
    std::vector<Index> ii, jj;
    std::vector<T> vv;
    void add(std::size_t i, std::size_t j, T w) {
        ii.push_back(static_cast<Index>(i));
        jj.push_back(static_cast<Index>(j));
        vv.push_back(w);
    }
    csr_matrix<T, Index> csr(std::size_t n) const {
        return csr_matrix<T, Index>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
    }
};

/// Directed, about `deg` out-edges a vertex. `negative`: weights w0(u,v) + pot(u) - pot(v) with
/// w0 in [0, 50] (negative edges, no negative cycle); else w0 in [1, 50].
template <class T, class Index = std::int32_t>
csr_matrix<T, Index> random_directed(std::size_t n, double deg, std::uint64_t seed, bool negative) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<int> pot(n);
    for (auto& x : pot) x = negative ? static_cast<int>(rng() % 20) : 0;
    double const p = n > 1 ? std::min(1.0, deg / static_cast<double>(n - 1)) : 0;
    edges<T, Index> e;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j && u(rng) < p)
                e.add(i, j, T(static_cast<int>(rng() % 50) + (negative ? 0 : 1) + pot[i] - pot[j]));
    return e.csr(n);
}

/// Undirected (both directions, one weight), weights in [0, 40]: zero-weight edges included.
template <class T, class Index = std::int32_t>
csr_matrix<T, Index> random_undirected(std::size_t n, double deg, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    double const p = n > 1 ? std::min(1.0, deg / static_cast<double>(n - 1)) : 0;
    edges<T, Index> e;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if (u(rng) < p) {
                T const w = T(static_cast<int>(rng() % 41));
                e.add(i, j, w);
                e.add(j, i, w);
            }
    return e.csr(n);
}

/// Two random parts with no edge between them (the second reaches nothing of the first) and
/// isolated vertices between and after them.
template <class T, class Index = std::int32_t>
csr_matrix<T, Index> disconnected(std::size_t part, std::uint64_t seed) {
    auto const a = random_directed<T, Index>(part, 3, seed, true);
    auto const b = random_directed<T, Index>(part, 2, seed + 1, false);
    std::size_t const off = part + 5, n = 2 * part + 9;
    edges<T, Index> e;
    for (std::size_t i = 0; i < part; ++i) {
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            e.add(i, static_cast<std::size_t>(a.col_idx()[k]), a.value(k));
        for (std::size_t k = b.row_begin(i); k < b.row_end(i); ++k)
            e.add(off + i, off + static_cast<std::size_t>(b.col_idx()[k]), b.value(k));
    }
    return e.csr(n);
}


constexpr cuda::bellman_ford_step steps[] = {cuda::bellman_ford_step::frontier,
                                             cuda::bellman_ford_step::spmm};

/// Every step and every batch size in `batches` (0: chosen) against the reference.
template <class T, class Index>
void check_all(csr_matrix<T, Index> const& a, std::vector<std::size_t> const& batches) {
    auto const want = reference(a);
    for (auto step : steps)
        for (std::size_t batch : batches)
            BOOST_TEST_CONTEXT("n=" << a.rows() << " nnz=" << a.nnz()
                                    << " step=" << cuda::to_string(step) << " batch=" << batch) {
                cuda::bellman_ford_options opt;
                opt.batch = batch;
                opt.step = step;
                check_equal(cuda::apsp_bellman_ford(a, opt), want);
            }
}

template <class T, class Index = std::int32_t>
void random_sizes() {
    for (std::size_t n : {1, 2, 3, 31, 97, 130, 257})
        for (bool negative : {false, true}) {
            auto const a = random_directed<T, Index>(n, 4, n * 13 + negative, negative);
            check_all(a, {0, 1, 7, 32, 100});
        }
}

/// Expects negative_cycle and returns the vertex it names (-1 if none was thrown).
template <class T, class Index>
std::int64_t cycle_vertex(csr_matrix<T, Index> const& a, cuda::bellman_ford_options const& opt) {
    try {
        (void)cuda::apsp_bellman_ford(a, opt);
    } catch (negative_cycle const& e) {
        return e.vertex();
    }
    BOOST_ERROR("no negative_cycle thrown");
    return -1;
}

}  // namespace

BOOST_AUTO_TEST_CASE(without_a_device_it_throws_no_device) {
    if (cuda::device_count() > 0) return;
    BOOST_TEST_MESSAGE("no CUDA device: checking that apsp_bellman_ford throws no_device");
    auto const a = random_directed<float>(10, 2, 1, false);
    BOOST_CHECK_THROW(cuda::apsp_bellman_ford(a), no_device);
}

BOOST_AUTO_TEST_CASE(directed_random_float) {
    if (!have_gpu(needs::minimal)) return;
    random_sizes<float>();
}

BOOST_AUTO_TEST_CASE(directed_random_double) {
    if (!have_gpu(needs::minimal)) return;
    random_sizes<double>();
}

BOOST_AUTO_TEST_CASE(directed_random_int32) {
    if (!have_gpu(needs::minimal)) return;
    random_sizes<std::int32_t>();
}

BOOST_AUTO_TEST_CASE(int64_indices) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {2, 61, 211}) {
        check_all(random_directed<float, std::int64_t>(n, 5, n, true), {0, 50});
        check_all(random_directed<std::int32_t, std::int64_t>(n, 3, n + 1, true), {0, 17});
    }
}

BOOST_AUTO_TEST_CASE(undirected) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {2, 53, 200}) {
        check_all(random_undirected<float>(n, 3, n), {0, 9, 64});
        check_all(random_undirected<double>(n, 30, n + 1), {0, 33});
        check_all(random_undirected<std::int32_t>(n, 1.5, n + 2), {0, 128});
    }
}

BOOST_AUTO_TEST_CASE(disconnected_parts) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t part : {1, 20, 101}) {
        check_all(disconnected<float>(part, part), {0, 3, 64});
        check_all(disconnected<std::int32_t>(part, part + 7), {0, 10});
    }
}

BOOST_AUTO_TEST_CASE(iso_matrix_and_edge_cases) {
    if (!have_gpu(needs::minimal)) return;
    // Iso weights (no value array): hop counts times 3.
    edges<float, std::int32_t> e;
    std::mt19937_64 rng(5);
    for (std::size_t k = 0; k < 300; ++k) e.add(rng() % 90, rng() % 90, 0.0f);
    auto const iso =
        csr_matrix<float>::from_coo(90, 90, e.ii, e.jj, {}, duplicate_policy::min, 3.0f);
    BOOST_TEST_REQUIRE(iso.is_iso());
    check_all(iso, {0, 13});
    // n = 0, a positive self-loop at n = 1, a non-square matrix.
    BOOST_TEST(cuda::apsp_bellman_ford(csr_matrix<double>(0, 0)).rows() == 0u);
    edges<double, std::int32_t> loop;
    loop.add(0, 0, 2.0);
    auto const one = cuda::apsp_bellman_ford(loop.csr(1));
    BOOST_TEST(one(0, 0) == 0.0);
    BOOST_CHECK_THROW(cuda::apsp_bellman_ford(csr_matrix<float>(3, 4)), dimension_mismatch);
    // Agrees with kleene::apsp on the CPU too, and the explain trace says what it did.
    auto const a = random_directed<float>(150, 6, 77, true);
    apsp_options cpu;
    cpu.device = device_choice::cpu;
    explain_trace trace;
    check_equal(cuda::apsp_bellman_ford(a, 40, &trace), apsp(a, cpu).dist);
    BOOST_TEST(trace.lines.size() == 2u);
    BOOST_TEST(trace.str().find("4 batches of 38 sources") != std::string::npos, trace.str());
}

BOOST_AUTO_TEST_CASE(int32_saturation) {
    if (!have_gpu(needs::minimal)) return;
    // A chain of weights near 2^31 / 3: three edges stay finite, four pass the sentinel and
    // saturate at numeric_limits<int32_t>::max(), which reads as "no path" (as in the CPU's
    // Floyd-Warshall); then the same with random shortcuts, some as heavy.
    std::mt19937_64 rng(11);
    for (std::size_t n : {5, 40, 131}) {
        edges<std::int32_t, std::int32_t> e;
        for (std::size_t i = 0; i + 1 < n; ++i)
            e.add(i, i + 1, 700'000'000 + static_cast<std::int32_t>(rng() % 1000));
        auto const chain = e.csr(n);
        auto const want = reference(chain);
        BOOST_TEST_REQUIRE(want(0, 3) > 2'100'000'000);
        BOOST_TEST_REQUIRE(want(0, 3) < infinity<std::int32_t>());
        BOOST_TEST_REQUIRE(want(0, 4) == infinity<std::int32_t>());
        check_all(chain, {0, 1, 4});
        for (std::size_t k = 0; k < n; ++k)
            e.add(rng() % n, rng() % n,
                  rng() % 3 ? 1'000'000'000 : static_cast<std::int32_t>(rng() % 100));
        check_all(e.csr(n), {0, 1, 4});
    }
}

BOOST_AUTO_TEST_CASE(negative_cycles) {
    if (!have_gpu(needs::minimal)) return;
    for (auto step : steps) {
        cuda::bellman_ford_options opt;
        opt.step = step;
        // A cycle 0 -> 1 -> 2 -> 0 of weight -15 in a random graph: found through a source.
        for (std::size_t n : {3, 70, 300}) {
            auto const g = random_directed<float>(n, 3, n, false);
            edges<float, std::int32_t> e;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t k = g.row_begin(i); k < g.row_end(i); ++k)
                    e.add(i, static_cast<std::size_t>(g.col_idx()[k]), g.value(k));
            for (std::size_t k = 0; k < 3; ++k) e.add(k, (k + 1) % 3, -100.0f);
            for (std::size_t batch : {0, 1, 64}) {
                opt.batch = batch;
                std::int64_t const v = cycle_vertex(e.csr(n), opt);
                BOOST_TEST((v >= 0 && v < std::int64_t(n)), "vertex " << v);
            }
        }
        // A negative self-loop.
        edges<std::int32_t, std::int64_t> self;
        self.add(0, 0, -1);
        opt.batch = 0;
        BOOST_TEST(cycle_vertex(self.csr(1), opt) == 0);
        // 0 -> 1 -> 2 -> 3 -> 1 (weight -1) with a tail 3 -> 4 -> ... -> 39 and no way back to 0:
        // batch 1 (source 0 alone) never sees a negative distance to itself, runs n rounds, and
        // the host search names a vertex on the cycle. With every source in one batch, vertices
        // 1..3 go negative first.
        edges<double, std::int32_t> tail;
        tail.add(0, 1, 1);
        tail.add(1, 2, 1);
        tail.add(2, 3, 1);
        tail.add(3, 1, -3);
        for (std::size_t v = 3; v + 1 < 40; ++v) tail.add(v, v + 1, 2);
        for (std::size_t batch : {1, 0}) {
            opt.batch = batch;
            std::int64_t const v = cycle_vertex(tail.csr(40), opt);
            BOOST_TEST((v >= 1 && v <= 3), "batch " << batch << ": vertex " << v);
        }
    }
}

// APSP and closure on the GPU against the CPU's plain Floyd-Warshall and Warshall: R-Kleene (with
// a small base so that the recursion runs several levels), blocked and naive Floyd-Warshall, fp32
// / fp64 / int32, sizes that are no multiple of any tile, negative edges, negative cycles, and the
// bit-packed closure. Suite `small` is what the compute-sanitizer runs use.

#define BOOST_TEST_MODULE apsp_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/apsp_reference.hpp"
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <kleene/cuda/runtime.hpp>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;

using kleene::test::check_equal;
using kleene::test::have_gpu;
using kleene::test::needs;
using kleene::test::reference;

/// Random graph: pot in [0, 20), w0 in [0, 50] (kleene::test::potential_graph).
template <class T>
csr_matrix<T> random_graph(std::size_t n, double p, std::uint64_t seed, bool cycle = false) {
    return kleene::test::potential_graph<T>(n, p, seed, 20, 50, cycle);
}


template <class T>
void run_sizes(std::vector<std::size_t> const& sizes) {
    for (std::size_t n : sizes) {
        for (double p : {0.02, 0.3}) {
            auto const a = random_graph<T>(n, p, n * 7 + static_cast<std::uint64_t>(p * 100));
            auto const want = reference(a);
            for (auto alg : {apsp_algorithm::rkleene, apsp_algorithm::blocked_fw, apsp_algorithm::fw}) {
                BOOST_TEST_CONTEXT("n=" << n << " p=" << p << " alg=" << to_string(alg)) {
                    apsp_options opt;
                    opt.algorithm = alg;
                    opt.device = device_choice::gpu;
                    check_equal(apsp(a, opt).dist, want);
                }
            }
            // Base 64: deep recursions; concurrent 0: the independent products one after the
            // other, 4096: on two streams (the default).
            for (std::size_t concurrent : {std::size_t(0), std::size_t(4096)})
                BOOST_TEST_CONTEXT("n=" << n << " p=" << p << " rkleene base 64, concurrent "
                                        << concurrent) {
                    dense_matrix<T> d = to_dense(a, infinity<T>());
                    for (std::size_t i = 0; i < n; ++i) d(i, i) = std::min(d(i, i), T(0));
                    auto dd = d.to_device();
                    rkleene(dd.view(), 64, concurrent);
                    check_equal(dd.to_host(), want);
                }
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(small)

BOOST_AUTO_TEST_CASE(apsp_matches_floyd_warshall) {
    if (!have_gpu(needs::minimal)) return;
    std::vector<std::size_t> const sizes = {1, 2, 3, 31, 64, 65, 97, 130, 257};
    run_sizes<float>(sizes);
    run_sizes<double>(sizes);
    run_sizes<std::int32_t>(sizes);
}

template <class T>
void negative_cycles() {
    for (std::size_t n : {3, 70, 300})
        for (auto alg : {apsp_algorithm::rkleene, apsp_algorithm::blocked_fw, apsp_algorithm::fw}) {
            auto const a = random_graph<T>(n, 0.05, n, true);
            apsp_options opt;
            opt.algorithm = alg;
            opt.device = device_choice::gpu;
            BOOST_CHECK_THROW(apsp(a, opt), negative_cycle);
        }
}

BOOST_AUTO_TEST_CASE(rkleene_runs_on_the_context_stream) {
    if (!have_gpu(needs::minimal)) return;
    // The input reaches the device matrix through work queued on the context's own stream (not
    // blocking, not the legacy one) behind a product of about 40 ms: R-Kleene must run on that
    // stream, after it (it ran on a stream of its own until the twenty-first session).
    std::size_t const n = 1024, big = 8192;
    auto const a = random_graph<float>(n, 0.05, 11);
    auto const want = reference(a);
    dense_matrix<float> d = to_dense(a, infinity<float>());
    for (std::size_t i = 0; i < n; ++i) d(i, i) = std::min(d(i, i), 0.0f);
    auto const src = d.to_device();
    auto dd = dense_matrix<float>(n, n, infinity<float>()).to_device();
    auto const x = dense_matrix<float>(big, big, 1.0f).to_device();
    auto y = dense_matrix<float>(big, big, 0.0f).to_device();
    cuda::stream const s;
    context ctx;
    ctx.set_stream(s.native());
    {
        // Every kernel loaded first: under CUDA's lazy loading a kernel's first launch may wait
        // for the device's work, which would hide a missing order.
        auto warm = src;
        rkleene(warm.view(), 64, 4096, &ctx);
        cuda::min_into<float>(warm.view(), src.view(), s);
        s.synchronize();
    }
    cuda::dense_gemm<min_plus<float>>(x.view(), x.view(), y.view(), false, s, &ctx);
    cuda::min_into<float>(dd.view(), src.view(), s);  // dd = the input, once the product is done
    rkleene(dd.view(), 64, 4096, &ctx);
    check_equal(dd.to_host(), want);
}

BOOST_AUTO_TEST_CASE(negative_cycle_detected) {
    if (!have_gpu(needs::minimal)) return;
    negative_cycles<float>();
    negative_cycles<std::int32_t>();  // int32 blocked FW: the DPX kernels (small weights)
}

// int32 blocked Floyd-Warshall: entries at the DPX kernels' range limits (+-2^28 / (n - 1)) and
// just past them (the exact kernels take over), sentinels included, against the CPU's
// Floyd-Warshall. `dag`: edges only from lower to higher index, so that the negative entries sit
// on no cycle; otherwise non-negative entries on a dense graph full of cycles.
BOOST_AUTO_TEST_CASE(int32_floyd_warshall_range) {
    if (!have_gpu(needs::minimal)) return;
    constexpr std::int32_t inf = std::numeric_limits<std::int32_t>::max();
    for (std::size_t n : {5, 70, 130})
        for (bool dag : {true, false})
            for (int past : {0, 1}) {
                std::int32_t const bound = (1 << 28) / static_cast<std::int32_t>(n - 1);
                std::mt19937_64 rng(n * 4 + (dag ? 2u : 0u) + static_cast<std::uint64_t>(past));
                dense_matrix<std::int32_t> h(n, n);
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t j = 0; j < n; ++j) {
                        auto const r = rng() % 10;
                        std::int32_t v = r < 3   ? inf
                                         : r < 6 ? bound - std::int32_t(rng() % 3)
                                         : r < 8 ? std::int32_t(rng() % 1000)
                                                 : (dag ? -bound + std::int32_t(rng() % 3) : 0);
                        if (dag && j <= i) v = inf;
                        h(i, j) = i == j ? 0 : v;
                    }
                h(0, n - 1) = dag ? -bound - past : bound + past;  // at or past the limit
                auto want = h;
                floyd_warshall(want.view());
                auto d = h.to_device();
                cuda::floyd_warshall_blocked<std::int32_t>(d.view());
                BOOST_TEST_CONTEXT("n=" << n << (dag ? " dag" : " cyclic")
                                        << (past ? " past the range" : " at the range limits")) {
                    check_equal(d.to_host(), want);
                }
            }
}

// Path sums past int32 on the GPU (path_weights.hpp): a distance past int32 is an error naming
// the type, never "no path"; a bound past int32 with every distance inside is computed in fp64 on
// the GPU and narrowed back exactly.
BOOST_AUTO_TEST_CASE(int32_path_sums_past_the_type) {
    if (!have_gpu(needs::minimal)) return;
    std::vector<std::int32_t> const ii{0, 1, 3}, jj{1, 2, 4}, over{2000000000, 2000000000, 5};
    auto const a = csr_matrix<std::int32_t>::from_coo(5, 5, ii, jj, over);
    for (auto alg : {apsp_algorithm::rkleene, apsp_algorithm::blocked_fw, apsp_algorithm::fw,
                     apsp_algorithm::bellman_ford}) {
        apsp_options o;
        o.device = device_choice::gpu;
        o.algorithm = alg;
        BOOST_CHECK_THROW(apsp(a, o), overflow_error);
    }
    std::vector<std::int32_t> const fits{1500000000, 600000000, 1000000000};  // bound 3.1e9
    auto const b = csr_matrix<std::int32_t>::from_coo(5, 5, ii, jj, fits);
    apsp_options o;
    o.device = device_choice::gpu;
    o.predecessors = true;
    explain_trace t;
    o.explain = &t;
    auto const r = apsp(b, o);
    BOOST_TEST((r.device == device_choice::gpu));
    BOOST_TEST(r.dist(0, 2) == 2100000000);
    BOOST_TEST(r.dist(3, 4) == 1000000000);
    BOOST_TEST(r.dist(0, 4) == std::numeric_limits<std::int32_t>::max());
    BOOST_TEST(r.pred(0, 2) == 1);
    bool widened = false;
    for (auto const& l : t.lines) widened = widened || l.find("computing in fp64") != std::string::npos;
    BOOST_TEST(widened);
}

BOOST_AUTO_TEST_CASE(closure_matches_cpu) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {1, 63, 64, 65, 200, 513, 1000, 1300}) {
        auto const a = random_graph<float>(n, 1.2 / static_cast<double>(n), n + 1);
        host_bits want = to_host_bits(a);
        closure_cpu(want);
        host_bits got = to_host_bits(a);
        closure_gpu(got);
        BOOST_TEST_CONTEXT("n=" << n) { BOOST_TEST((got.words == want.words)); }
    }
}

BOOST_AUTO_TEST_CASE(closure_condensation_matches_gpu_dense) {
    // The CPU's condensation against the GPU's dense R-Kleene through the public call, and the
    // automatic choice on a device host: a sparse graph stays on the CPU's condensation, and
    // the trace shows both estimates.
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {1, 65, 700, 2500}) {
        for (double d : {0.6, 1.2, 3.0}) {
            auto const a = random_graph<float>(n, d / static_cast<double>(n), n * 7 + 1);
            for (bool reflexive : {false, true}) {
                closure_options cpu{.reflexive = reflexive,
                                    .device = device_choice::cpu,
                                    .method = closure_method::condensation};
                closure_options gpu{.reflexive = reflexive,
                                    .device = device_choice::gpu,
                                    .method = closure_method::dense};
                auto const want = closure_bits(a, cpu);
                closure_result const got = closure_matrix(a, gpu);
                BOOST_TEST_CONTEXT("n=" << n << " d=" << d << " reflexive=" << reflexive) {
                    BOOST_TEST((got.device == device_choice::gpu));
                    auto const bits = got.format == output_choice::dense ? got.bits : [&] {
                        host_bits b{n, (n + 63) / 64,
                                    std::vector<std::uint64_t>(n * ((n + 63) / 64))};
                        for (std::size_t i = 0; i < n; ++i)
                            for (auto j : got.csr.row_cols(i))
                                b.set(i, static_cast<std::size_t>(j));
                        return b;
                    }();
                    BOOST_TEST((bits.words == want.words));
                }
            }
        }
    }
    std::vector<std::int32_t> const from{5}, to{77};
    auto const one = csr_matrix<bool>::from_coo(100000, 100000, from, to, {});
    explain_trace why;
    closure_result const r = closure_matrix(one, {.explain = &why});
    BOOST_TEST_CONTEXT(why.str()) {
        BOOST_TEST((r.method == closure_method::condensation));
        BOOST_TEST(r.pairs() == 1u);
        BOOST_TEST(why.str().find("dense R-Kleene on the GPU about") != std::string::npos);
    }
}

namespace {

/// The closure's rows as bits, whatever form the result holds.
host_bits as_bits(closure_result const& r, std::size_t n) {
    if (r.format == output_choice::dense) return r.bits;
    host_bits b{n, (n + 63) / 64, std::vector<std::uint64_t>(n * ((n + 63) / 64))};
    for (std::size_t i = 0; i < n; ++i)
        for (auto j : r.csr.row_cols(i)) b.set(i, static_cast<std::size_t>(j));
    return b;
}

/// Graphs that reach every path of the GPU's traversal: a chain (one entry a level), a star of
/// fan-out 100 (the whole-warp path for a degree past 32) into a DAG, cycles of 2 and 40 vertices
/// and self-loops (components of several vertices, cyclic components of one), isolated vertices.
csr_matrix<bool> shaped_graph(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::int32_t> r, c;
    auto add = [&](std::size_t u, std::size_t v) {
        r.push_back(static_cast<std::int32_t>(u % n));
        c.push_back(static_cast<std::int32_t>(v % n));
    };
    for (std::size_t v = 0; v + 1 < n / 4; ++v) add(v, v + 1);                 // chain
    for (std::size_t j = 0; j < 100; ++j) add(n / 4, n / 4 + 1 + j);          // star
    for (std::size_t j = 0; j < 3 * n / 4; ++j) {                             // DAG edges
        std::size_t const u = n / 4 + rng() % (n - n / 4), v = n / 4 + rng() % (n - n / 4);
        if (u != v) add(std::min(u, v), std::max(u, v));
    }
    add(n / 2, n / 2 + 1);  // a cycle of 2
    add(n / 2 + 1, n / 2);
    for (std::size_t j = 0; j < 40; ++j) add(3 * n / 4 + j, 3 * n / 4 + (j + 1) % 40);
    add(n / 3, n / 3);  // self-loops
    add(n - 1, n - 1);
    add(n / 4 - 1, 3 * n / 4);  // the chain into the 40-cycle
    // Shuffled labels, so that no graph arrives in topological order.
    std::vector<std::int32_t> perm(n);
    for (std::size_t v = 0; v < n; ++v) perm[v] = static_cast<std::int32_t>(v);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (auto& x : r) x = perm[static_cast<std::size_t>(x)];
    for (auto& x : c) x = perm[static_cast<std::size_t>(x)];
    return csr_matrix<bool>::from_coo(n, n, r, c, {}, duplicate_policy::last);
}

}  // namespace

BOOST_AUTO_TEST_CASE(closure_condensation_rows_on_gpu) {
    // The condensation's rows on the GPU against the CPU's, CSR and bits, plain and reflexive,
    // on random graphs (components of many sizes) and on shaped ones; then a device cap too small
    // for them: pinned to the GPU, out_of_memory; left to the model, the CPU's rows, said so.
    if (!have_gpu(needs::minimal)) return;
    std::vector<std::pair<std::string, csr_matrix<bool>>> graphs;
    graphs.emplace_back("empty n=1", csr_matrix<bool>(1, 1));
    for (std::size_t n : {2, 65, 700, 3000})
        for (double d : {0.6, 1.2, 3.0}) {
            auto const f = random_graph<float>(n, d / static_cast<double>(n), n * 13 + 5);
            std::vector<std::int32_t> r, c;
            for (std::size_t i = 0; i < n; ++i)
                for (auto j : f.row_cols(i)) {
                    r.push_back(static_cast<std::int32_t>(i));
                    c.push_back(static_cast<std::int32_t>(j));
                }
            graphs.emplace_back("random n=" + std::to_string(n) + " d=" + std::to_string(d),
                                csr_matrix<bool>::from_coo(n, n, r, c, {}));
        }
    for (std::size_t n : {300, 5000}) graphs.emplace_back("shaped n=" + std::to_string(n),
                                                           shaped_graph(n, n));
    for (auto const& [name, a] : graphs) {
        std::size_t const n = a.rows();
        for (bool reflexive : {false, true})
            for (auto format : {output_choice::csr, output_choice::dense}) {
                closure_options cpu{.reflexive = reflexive,
                                    .device = device_choice::cpu,
                                    .method = closure_method::condensation,
                                    .output_format = format};
                closure_options gpu = cpu;
                gpu.device = device_choice::gpu;
                explain_trace why;
                gpu.explain = &why;
                closure_result const want = closure_matrix(a, cpu);
                closure_result const got = closure_matrix(a, gpu);
                BOOST_TEST_CONTEXT(name << " reflexive=" << reflexive << " format="
                                        << (format == output_choice::csr ? "csr" : "bits")
                                        << "\n" << why.str()) {
                    BOOST_TEST((got.device == device_choice::gpu));
                    BOOST_TEST((got.format == format));
                    BOOST_TEST((got.method == closure_method::condensation));
                    BOOST_TEST(got.pairs() == want.pairs());
                    if (format == output_choice::csr) {
                        // Sorted rows, the same CSR arrays.
                        BOOST_TEST((std::vector<std::int64_t>(got.csr.row_ptr(),
                                                              got.csr.row_ptr() + n + 1) ==
                                    std::vector<std::int64_t>(want.csr.row_ptr(),
                                                              want.csr.row_ptr() + n + 1)));
                        BOOST_TEST((std::vector<std::int64_t>(
                                        got.csr.col_idx(), got.csr.col_idx() + got.csr.nnz()) ==
                                    std::vector<std::int64_t>(
                                        want.csr.col_idx(), want.csr.col_idx() + want.csr.nnz())));
                    }
                    BOOST_TEST((as_bits(got, n).words == as_bits(want, n).words));
                }
            }
    }
    auto const& big = graphs.back().second;
    closure_options tight{.device = device_choice::gpu,
                          .method = closure_method::condensation,
                          .max_device_bytes = 4096};
    BOOST_CHECK_THROW(closure_matrix(big, tight), out_of_memory);
    explain_trace why;
    closure_options fallback{.method = closure_method::condensation,
                             .max_device_bytes = 4096,
                             .explain = &why};
    closure_result const r = closure_matrix(big, fallback);
    BOOST_TEST_CONTEXT(why.str()) {
        BOOST_TEST((r.device == device_choice::cpu));
        closure_options cpu{.device = device_choice::cpu, .method = closure_method::condensation};
        BOOST_TEST(r.pairs() == closure_matrix(big, cpu).pairs());
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(large)

BOOST_AUTO_TEST_CASE(apsp_large) {
    if (!have_gpu(needs::minimal)) return;
    run_sizes<float>({1021, 1500});
    run_sizes<std::int32_t>({1021});
}

BOOST_AUTO_TEST_SUITE_END()

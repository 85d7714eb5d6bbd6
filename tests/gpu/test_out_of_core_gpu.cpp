// Out-of-core APSP and closure (apsp_out_of_core.hpp) against the CPU's plain Floyd-Warshall and
// Warshall and against the in-core GPU path: small device caps and pinned plans, so that every
// run has several rounds, ragged last blocks, tiles narrower than a block row, several passes a
// round, one or two panel buffers and two or three tile buffers; odd and prime n; fp32, fp64 and
// int32 (large weights that take the GEMM's exact saturating path, unreachable pairs at the
// INT_MAX sentinel); negative edges, negative cycles, predecessors, the bit-packed closure, the
// cap's parsing and the errors for a cap or a host too small. The same for the out-of-core
// R-Kleene: pinned tiles from 64 to 320, deep and shallow chunks, one and two output buffers,
// through apsp() pinned and automatic, and reproducible results with rounding sums. Both on a
// busy context stream: the run starts after the work queued there, and its buffers come from the
// context's pool. Suite `small` is what the compute-sanitizer runs use.

#define BOOST_TEST_MODULE out_of_core_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/apsp_out_of_core.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/host_copy.hpp>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/environment.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;

using kleene::test::have_gpu;
using kleene::test::needs;

/// Edge probability p, weights w0(u,v) + pot(u) - pot(v) with w0 in [0, 50] and pot in [0, 20):
/// negative edges, no negative cycle. `big` instead draws w0 in [2^29, 2^30) with pot = 0: every
/// entry is past the int32 GEMM's fast range ([-2^28, 2^28]), sums of two edges may and of four
/// always overflow and saturate at INT_MAX (non-negative weights: every order of the sums
/// saturates alike). `parts` keeps edges inside n / parts vertex groups (unreachable pairs);
/// `cycle` plants 0 -> 1 -> 2 -> 0 of weight -15.
template <class T>
csr_matrix<T> random_graph(std::size_t n, double p, std::uint64_t seed, bool cycle = false,
                           bool big = false, std::size_t parts = 1) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<int> pot(n);
    for (auto& x : pot) x = big ? 0 : static_cast<int>(rng() % 20);
    std::vector<std::int32_t> ii, jj;
    std::vector<T> vv;
    std::size_t const part = (n + parts - 1) / parts;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j && i / part == j / part && u(rng) < p) {
                ii.push_back(static_cast<std::int32_t>(i));
                jj.push_back(static_cast<std::int32_t>(j));
                double const w0 = big ? double(1 << 29) + double(rng() % (1u << 29))
                                      : double(rng() % 51);
                vv.push_back(T(w0 + pot[i] - pot[j]));
            }
    if (cycle && n >= 3)
        for (std::size_t k = 0; k < 3; ++k) {
            ii.push_back(static_cast<std::int32_t>(k));
            jj.push_back(static_cast<std::int32_t>((k + 1) % 3));
            vv.push_back(T(-5));
        }
    return csr_matrix<T>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
}

template <class T>
dense_matrix<T> start(csr_matrix<T> const& a) {
    dense_matrix<T> d = to_dense(a, infinity<T>());
    for (std::size_t i = 0; i < d.rows(); ++i) d(i, i) = std::min(d(i, i), T(0));
    return d;
}

template <class T>
dense_matrix<T> reference(csr_matrix<T> const& a) {
    dense_matrix<T> d = start(a);
    floyd_warshall(d.view());
    return d;
}

/// Integer-valued weights: every algorithm's fp sums are exact, so equality is exact.
template <class T>
void check_equal(dense_matrix<T> const& got, dense_matrix<T> const& want) {
    BOOST_TEST_REQUIRE(got.rows() == want.rows());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.rows(); ++i)
        for (std::size_t j = 0; j < want.cols(); ++j)
            if (!(got(i, j) == want(i, j)) && bad++ < 3)
                BOOST_TEST_MESSAGE("(" << i << "," << j << "): " << got(i, j) << " vs "
                                       << want(i, j));
    BOOST_TEST(bad == 0u);
}

/// Plans pinned through ooc_options: {block, width, pass_width, panels, tiles}.
struct pinned_plan {
    std::size_t block, width, pass_width;
    int panels, tiles;
};

/// The first `count` of these plans (the sanitizer's suite runs one or two).
std::vector<pinned_plan> plans_for(std::size_t n, std::size_t count = 7) {
    std::vector<pinned_plan> all = {
        {64, 128, 192, 1, 2},  // several passes a round, one panel buffer, two tile buffers
        {128, 320, 0, 2, 3},   // tile width no multiple of the block, look-ahead panel
        {64, 64, 0, 2, 3},     // many rounds, one-block tiles
        {64, 192, 0, 1, 2},    // tiles of three blocks
        {128, 128, 256, 1, 2}, // passes of two blocks
        {(n + 63) / 64 * 64, 64, 0, 1, 3},  // one round: the whole matrix is the diagonal block
        {128, 128, 320, 2, 3}, // a pass width of 2.5 blocks: rounded up to 3
    };
    all.resize(std::min(count, all.size()));
    return all;
}

template <class T>
void check_plans(csr_matrix<T> const& a, dense_matrix<T> const& want, std::size_t count = 7) {
    std::size_t const n = a.rows();
    for (auto const& pp : plans_for(n, count)) {
        BOOST_TEST_CONTEXT("n=" << n << " b=" << pp.block << " w=" << pp.width << " W="
                                << pp.pass_width << " panels=" << pp.panels
                                << " tiles=" << pp.tiles) {
            dense_matrix<T> d = start(a);
            ooc_options o;
            o.block = pp.block;
            o.width = pp.width;
            o.pass_width = pp.pass_width;
            o.panels = pp.panels;
            o.tiles = pp.tiles;
            ooc_report const rep = apsp_out_of_core(d.view(), o);
            BOOST_TEST(rep.plan.block == pp.block);
            BOOST_TEST(rep.rounds == (n + pp.block - 1) / pp.block);
            BOOST_TEST((rep.plan.pass_width == n || rep.plan.pass_width % pp.block == 0),
                       "pass width " << rep.plan.pass_width << " splits a diagonal block");
            check_equal(d, want);
        }
    }
}

/// Pinned R-Kleene plans: {tile, depth, output buffers}.
struct pinned_rk {
    std::size_t tile, depth;
    int tiles;
};

/// Tiles of one block down to many levels of recursion, ragged tiles (192 splits into parts
/// of 64-multiples), chunks deeper than the tile, one and two output buffers.
std::vector<pinned_rk> rk_plans_for(std::size_t count = 5) {
    std::vector<pinned_rk> all = {
        {64, 64, 1},    // blocks of 64 closed in core: the deepest recursion
        {192, 128, 2},  // tiles of 192: products of 128-256 split in ragged parts
        {128, 320, 1},  // chunks deeper than the tile (one chunk a product)
        {128, 64, 2},   // many chunks a product
        {320, 192, 1},  // tiles of 320
    };
    all.resize(std::min(count, all.size()));
    return all;
}

template <class T>
void check_rk_plans(csr_matrix<T> const& a, dense_matrix<T> const& want, std::size_t count = 5) {
    std::size_t const n = a.rows();
    for (auto const& pp : rk_plans_for(count)) {
        BOOST_TEST_CONTEXT("n=" << n << " R-Kleene tile=" << pp.tile << " depth=" << pp.depth
                                << " buffers=" << pp.tiles) {
            dense_matrix<T> d = start(a);
            ooc_options o;
            o.tile = pp.tile;
            o.depth = pp.depth;
            o.tiles = pp.tiles;
            ooc_report const rep = apsp_out_of_core(d.view(), o);
            BOOST_TEST((rep.plan.algorithm == ooc_algorithm::rkleene));
            BOOST_TEST(rep.plan.tile == std::min(pp.tile, (n + 63) / 64 * 64));
            BOOST_TEST(rep.plan.tiles == pp.tiles);
            // Blocks closed in core: one when the whole matrix fits a tile, else at least two.
            BOOST_TEST(rep.rounds >= (n > pp.tile ? 2u : 1u));
            check_equal(d, want);
        }
    }
}

/// Through apsp() on int32 weights whose true distances pass int32's range: in core and capped
/// (out of core, each algorithm), apsp() refuses with an overflow_error naming int32 rather than
/// returning saturated ("no path") entries. The kernels on raw views (check_plans) still saturate.
void check_capped_overflow(csr_matrix<std::int32_t> const& a) {
    std::size_t const n = a.rows();
    apsp_options opt;
    opt.device = device_choice::gpu;
    // apsp() widens such int32 weights to 8-byte sums before it plans: the cap is 60% of that.
    for (std::size_t cap : {std::size_t(0), n * n * sizeof(double) * 6 / 10})
        for (apsp_algorithm alg :
             {apsp_algorithm::rkleene, apsp_algorithm::blocked_fw, apsp_algorithm::automatic}) {
            opt.max_device_bytes = cap;
            opt.algorithm = alg;
            BOOST_TEST_CONTEXT("n=" << n << " cap=" << cap << " " << to_string(alg)) {
                bool thrown = false;
                try {
                    static_cast<void>(apsp(a, opt));
                } catch (overflow_error const& e) {
                    thrown = true;
                    BOOST_TEST(std::string(e.what()).find("int32") != std::string::npos, e.what());
                }
                BOOST_TEST(thrown, "no overflow_error for distances past int32's range");
            }
        }
}

/// Through apsp(): a cap of 60% of the matrix forces the out-of-core path (its smallest plan,
/// 64-row blocks, needs about 7 * 64^2 entries, so n >= 250 here), which the explain trace names;
/// the result equals the in-core GPU result and the CPU reference.
template <class T>
void check_capped(csr_matrix<T> const& a, dense_matrix<T> const& want, bool check_in_core) {
    std::size_t const n = a.rows();
    apsp_options opt;
    opt.device = device_choice::gpu;
    opt.algorithm = apsp_algorithm::rkleene;  // a dense algorithm: the one that goes out of core
    if (check_in_core) {
        BOOST_TEST_CONTEXT("n=" << n << " in core") { check_equal(apsp(a, opt).dist, want); }
    }
    opt.max_device_bytes = n * n * sizeof(T) * 6 / 10;
    // Pinned R-Kleene runs the out-of-core R-Kleene, pinned blocked-fw the out-of-core blocked
    // Floyd-Warshall; automatic takes the lower model and says so.
    for (apsp_algorithm alg :
         {apsp_algorithm::rkleene, apsp_algorithm::blocked_fw, apsp_algorithm::automatic}) {
        explain_trace trace;
        opt.explain = &trace;
        opt.algorithm = alg;
        BOOST_TEST_CONTEXT("n=" << n << " cap=" << opt.max_device_bytes << " "
                                << to_string(alg)) {
            auto const r = apsp(a, opt);
            check_equal(r.dist, want);
            BOOST_TEST(trace.str().find("out of core") != std::string::npos, trace.str());
            if (alg == apsp_algorithm::automatic) {
                BOOST_TEST(trace.str().find("modelled R-Kleene") != std::string::npos,
                           trace.str());
                BOOST_TEST((r.algorithm == apsp_algorithm::rkleene ||
                            r.algorithm == apsp_algorithm::blocked_fw));
            } else {
                BOOST_TEST((r.algorithm == alg));
            }
            bool const rk = r.algorithm == apsp_algorithm::rkleene;
            BOOST_TEST(trace.str().find(rk ? "R-Kleene: output tiles" : "block b=") !=
                           std::string::npos,
                       trace.str());
        }
    }
}

/// `count` pinned plans at every n; through apsp() with a cap where n >= 250.
template <class T>
void run_sizes(std::vector<std::size_t> const& sizes, std::vector<double> const& ps,
               std::size_t count) {
    for (std::size_t n : sizes)
        for (double p : ps) {
            auto const a = random_graph<T>(n, p, n * 11 + static_cast<std::uint64_t>(p * 100));
            auto const want = reference(a);
            if (n >= 250) check_capped(a, want, true);
            check_plans(a, want, count);
            check_rk_plans(a, want, count);
        }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(small)

BOOST_AUTO_TEST_CASE(parse_cap) {
    using detail::parse_bytes;
    BOOST_TEST(parse_bytes("4096", "x") == 4096u);
    BOOST_TEST(parse_bytes("64K", "x") == 65536u);
    BOOST_TEST(parse_bytes("3m", "x") == 3u << 20);
    BOOST_TEST(parse_bytes("60G", "x") == std::size_t{60} << 30);
    BOOST_TEST(parse_bytes("2GiB", "x") == std::size_t{2} << 30);
    BOOST_TEST(parse_bytes("1T", "x") == std::size_t{1} << 40);
    for (char const* bad : {"", "G", "12X", "1.5G", "-3", "99999999999999999999"})
        BOOST_CHECK_THROW(parse_bytes(bad, "x"), invalid_argument);
}

BOOST_AUTO_TEST_CASE(host_memory_too_small) {
    // 3 000 000^2 fp32 entries are 36 TB: a kleene::error before any allocation, on any host.
    csr_matrix<float> const a = csr_matrix<float>::from_coo(3000000, 3000000, {}, {}, {},
                                                            duplicate_policy::min);
    apsp_options opt;
    opt.device = device_choice::cpu;
    BOOST_CHECK_THROW(apsp(a, opt), error);
}

BOOST_AUTO_TEST_CASE(apsp_fp32) {
    if (!have_gpu(needs::minimal)) return;
    run_sizes<float>({257}, {0.05}, 2);
}

BOOST_AUTO_TEST_CASE(apsp_fp64_int32) {
    if (!have_gpu(needs::minimal)) return;
    run_sizes<double>({131}, {0.05}, 1);
    run_sizes<std::int32_t>({263}, {0.05}, 1);
}

BOOST_AUTO_TEST_CASE(int32_saturation) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {281}) {
        // Weights in [2^28, 2^29]: the exact saturating GEMM; three groups: INT_MAX pairs.
        auto const a = random_graph<std::int32_t>(n, 0.1, n, false, true, 3);
        auto const want = reference(a);
        std::size_t inf = 0, sat = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                inf += want(i, j) == infinity<std::int32_t>();
                sat += i / ((n + 2) / 3) == j / ((n + 2) / 3) &&
                       want(i, j) == infinity<std::int32_t>();
            }
        BOOST_TEST_MESSAGE("n=" << n << ": " << inf << " unreachable entries, " << sat
                                << " of them within a group (saturated)");
        BOOST_TEST(inf > 0u);
        BOOST_TEST(sat > 0u);
        check_capped_overflow(a);
        check_plans(a, want, 1);
        check_rk_plans(a, want, 2);
    }
}

BOOST_AUTO_TEST_CASE(negative_cycle_detected) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {70, 300}) {
        auto const a = random_graph<float>(n, 0.05, n, true);
        apsp_options opt;
        opt.device = device_choice::gpu;
        opt.max_device_bytes = 160 << 10;  // in core for n < 182
        BOOST_CHECK_THROW(apsp(a, opt), negative_cycle);
        dense_matrix<float> d = start(a);
        ooc_options o;
        o.block = 64;
        BOOST_CHECK_THROW(apsp_out_of_core(d.view(), o), negative_cycle);
        d = start(a);
        ooc_options r;
        r.tile = 64;
        BOOST_CHECK_THROW(apsp_out_of_core(d.view(), r), negative_cycle);
    }
    // A cycle only the last round sees: vertices n-1 -> n-2 -> n-1.
    std::size_t const n = 200;
    auto g = random_graph<float>(n, 0.02, 5);
    std::vector<std::int32_t> ii, jj;
    std::vector<float> vv;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = g.row_begin(i); k < g.row_end(i); ++k) {
            ii.push_back(static_cast<std::int32_t>(i));
            jj.push_back(g.col_idx()[k]);
            vv.push_back(g.value(k));
        }
    ii.insert(ii.end(), {static_cast<std::int32_t>(n - 1), static_cast<std::int32_t>(n - 2)});
    jj.insert(jj.end(), {static_cast<std::int32_t>(n - 2), static_cast<std::int32_t>(n - 1)});
    vv.insert(vv.end(), {-100.f, -100.f});
    auto const c = csr_matrix<float>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
    apsp_options opt;
    opt.device = device_choice::gpu;
    opt.max_device_bytes = 160 << 10;
    BOOST_CHECK_THROW(apsp(c, opt), negative_cycle);
    dense_matrix<float> d = start(c);
    ooc_options o;
    o.block = 64;
    BOOST_CHECK_THROW(apsp_out_of_core(d.view(), o), negative_cycle);
    // R-Kleene: the cycle crosses the top split only in the last block (and a 64-block one).
    for (std::size_t tile : {64, 128}) {
        d = start(c);
        ooc_options r;
        r.tile = tile;
        BOOST_CHECK_THROW(apsp_out_of_core(d.view(), r), negative_cycle);
    }
}

BOOST_AUTO_TEST_CASE(rkleene_reproducible) {
    if (!have_gpu(needs::minimal)) return;
    // Weights with fractions: sums round, so the order of the in-place products' reads would
    // show. Two runs of each plan must agree bit for bit, and stay within rounding of the
    // CPU's Floyd-Warshall.
    std::size_t const n = 333;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<float> w(0.01f, 10.f);
    std::vector<std::int32_t> ii, jj;
    std::vector<float> vv;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j && rng() % 16 == 0) {
                ii.push_back(static_cast<std::int32_t>(i));
                jj.push_back(static_cast<std::int32_t>(j));
                vv.push_back(w(rng));
            }
    auto const a = csr_matrix<float>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
    auto const want = reference(a);
    for (auto const& pp : rk_plans_for(3)) {
        BOOST_TEST_CONTEXT("tile=" << pp.tile << " depth=" << pp.depth) {
            std::array<dense_matrix<float>, 2> got;
            for (auto& g : got) {
                g = start(a);
                ooc_options o;
                o.tile = pp.tile;
                o.depth = pp.depth;
                o.tiles = pp.tiles;
                apsp_out_of_core(g.view(), o);
            }
            std::size_t differ = 0, far = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    differ += !(got[0](i, j) == got[1](i, j));
                    far += !(std::abs(got[0](i, j) - want(i, j)) <= 1e-4f * (1 + want(i, j)));
                }
            BOOST_TEST(differ == 0u);
            BOOST_TEST(far == 0u);
        }
    }
}

/// Every reconstructed path of a sample of pairs ends where it should and has the reported length.
void check_paths(csr_matrix<float> const& a, dense_matrix<float> const& dist,
                 dense_matrix<std::int32_t> const& pred) {
    std::size_t const n = a.rows();
    BOOST_TEST_REQUIRE(pred.rows() == n);
    for (std::size_t s = 0; s < n; s += 7)
        for (std::size_t t = 0; t < n; t += 5) {
            auto const p = path(dense_view<std::int32_t const>(pred.view()), s, t);
            if (dist(s, t) == infinity<float>()) {
                BOOST_TEST(p.empty());
                continue;
            }
            BOOST_TEST_REQUIRE(!p.empty());
            BOOST_TEST(static_cast<std::size_t>(p.front()) == s);
            BOOST_TEST(static_cast<std::size_t>(p.back()) == t);
            float len = 0;
            for (std::size_t q = 1; q < p.size(); ++q) {
                auto const u = static_cast<std::size_t>(p[q - 1]),
                           v = static_cast<std::size_t>(p[q]);
                float w = infinity<float>();
                for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k)
                    if (static_cast<std::size_t>(a.col_idx()[k]) == v) w = a.value(k);
                len += w;
            }
            BOOST_TEST(len == dist(s, t));
        }
}

BOOST_AUTO_TEST_CASE(runs_after_the_context_stream_from_its_pool) {
    if (!have_gpu(needs::minimal)) return;
    // apsp_out_of_core (blocked Floyd-Warshall and R-Kleene, pinned small plans) on a context
    // whose non-blocking stream is busy when the call is made: a min-plus product of 4096^3
    // (about 5 ms, while the run's first loads are queued within microseconds), then the copy of the input matrix into the (page-locked) host matrix. The
    // run's copies go on side streams forked from the context's stream (ooc_floyd_warshall.hpp),
    // so it must read that input, not the placeholder (no edges) the host matrix holds when the
    // call is made, and return with the result in place; its buffers come from the context's
    // pool (the used peak covers them) and all go back to it.
    std::size_t const n = 700;
    float const inf = infinity<float>();
    dense_matrix<float> input(n, n, inf);
    std::mt19937_64 rng(97);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i == j) input(i, j) = 0;
            else if (rng() % 50 == 0) input(i, j) = float(1 + rng() % 50);
    dense_matrix<float> want = input;  // integer sums: exact
    floyd_warshall(want.view());
    auto const input_d = input.to_device();
    std::size_t const g = 4096;
    dense_matrix<float> const ones(g, g, 1.0f);
    auto const ga = ones.to_device(), gb = ones.to_device();
    auto gc = ones.to_device();
    cuda::pinned_memory host(n * n * sizeof(float));
    auto* const d = static_cast<float*>(host.data());
    struct plan {
        char const* name;
        ooc_options o;
    };
    std::vector<plan> plans(2);
    plans[0].name = "blocked Floyd-Warshall";
    plans[0].o.block = 128;
    plans[0].o.width = 256;
    plans[0].o.panels = 2;
    plans[0].o.tiles = 3;
    plans[1].name = "R-Kleene";
    plans[1].o.tile = 128;
    plans[1].o.depth = 128;
    plans[1].o.tiles = 2;
    for (plan& p : plans) {
        p.o.pin_host = false;  // page-locked already
        BOOST_TEST_CONTEXT(p.name) {
            cuda::stream const s;
            context ctx;
            ctx.set_stream(s.native());
            p.o.ctx = &ctx;
            cuda::stream const on = cuda::stream::borrow(ctx.stream());
            auto busy_then_input = [&] {
                cuda::dense_gemm<min_plus<float>>(ga.view(), gb.view(), gc.view(), true, on, &ctx);
                cuda::copy_rows_async(d, n * sizeof(float), input_d.view().data, n * sizeof(float),
                                      n * sizeof(float), n, cuda::copy_kind::device_to_host, on);
            };
            // Once with everything loaded and waited for (lazy loading may wait for the device).
            busy_then_input();
            s.synchronize();
            (void)apsp_out_of_core(dense_view<float>{d, n, n, n}, p.o);
            std::size_t const held = cuda::pool_usage(ctx).used;
            // The plan reads the device's free memory, for which it trims the pool, which waits
            // for the context's stream: through apsp_out_of_core the run starts on an idle
            // stream. So the run alone too, its plan made before the stream is made busy: then
            // only the side streams' fork orders its loads after the input's copy.
            detail::device_budget const budget = detail::ooc_budget(p.o);
            bool const fw = p.o.tile == 0;
            ooc_plan const planned =
                fw ? detail::plan_floyd_warshall<detail::ooc_dense<float>>(n, budget, p.o)
                   : detail::plan_ooc_rkleene<float>(n, budget.bytes, p.o);
            for (bool const whole_call : {true, false}) {
                BOOST_TEST_CONTEXT((whole_call ? "apsp_out_of_core" : "the run alone")) {
                    for (std::size_t i = 0; i < n * n; ++i)
                        d[i] = i % (n + 1) == 0 ? 0.0f : inf;
                    cuda::reset_memory_pool_peaks(ctx);
                    busy_then_input();
                    dense_view<float> const dv{d, n, n, n};
                    ooc_report const rep =
                        whole_call ? apsp_out_of_core(dv, p.o)
                        : fw ? detail::run_out_of_core<detail::ooc_dense<float>>(d, n, n, p.o,
                                                                                planned, budget)
                             : detail::run_ooc_rkleene<float>(d, n, n, p.o, planned);
                    std::size_t wrong = 0, unreached = 0;
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t j = 0; j < n; ++j)
                            if (d[i * n + j] != want(i, j))
                                ++wrong, unreached += d[i * n + j] == inf;
                    BOOST_TEST(wrong == 0u, wrong << " of " << n * n << " entries wrong, "
                                                  << unreached << " of them at infinity");
                    // The buffers (less the GEMM's packed operand, in the context's workspace
                    // already, and the plan's 1 KiB allowance) came from the pool and went back.
                    BOOST_TEST((rep.plan.algorithm == (fw ? ooc_algorithm::floyd_warshall
                                                          : ooc_algorithm::rkleene)));
                    std::size_t const scratch =
                        fw ? cuda::dense_gemm_scratch_bytes(rep.plan.block, rep.plan.block,
                                                            rep.plan.width, sizeof(float))
                           : cuda::dense_gemm_scratch_bytes(rep.plan.tile, rep.plan.depth,
                                                            rep.plan.tile, sizeof(float));
                    auto const u = cuda::pool_usage(ctx);
                    BOOST_TEST_CONTEXT("plan " << rep.plan.device_bytes << " bytes, scratch "
                                               << scratch << ", pool peak " << u.used_peak
                                               << ", held " << held) {
                        BOOST_TEST((fw ? rep.rounds == (n + 127) / 128 : rep.rounds >= 2u));
                        BOOST_TEST(u.used_peak >= held + rep.plan.device_bytes - scratch - 1024);
                        BOOST_TEST(u.used == held);
                    }
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(predecessors_out_of_core) {
    if (!have_gpu(needs::minimal)) return;
    std::size_t const n = 211;
    auto const a = random_graph<float>(n, 0.05, 17);
    apsp_options opt;
    opt.device = device_choice::gpu;
    opt.algorithm = apsp_algorithm::rkleene;
    opt.predecessors = true;
    explain_trace in_trace;
    opt.explain = &in_trace;
    auto const in_core = apsp(a, opt);
    BOOST_TEST(in_trace.str().find("predecessors on the gpu") != std::string::npos, in_trace.str());
    explain_trace trace;
    opt.explain = &trace;
    opt.max_device_bytes = 160 << 10;
    auto const ooc = apsp(a, opt);
    BOOST_TEST(trace.str().find("out of core") != std::string::npos, trace.str());
    check_equal(ooc.dist, in_core.dist);
    // The in-core run rebuilds predecessors on the GPU, the out-of-core one on the host: each may
    // pick another tight edge, so both are checked for what they must be, not compared.
    BOOST_TEST(trace.str().find("predecessors on the cpu") != std::string::npos, trace.str());
    for (auto const* r : {&in_core, &ooc})
        check_paths(a, r->dist, r->pred);
}

BOOST_AUTO_TEST_CASE(cap_from_environment) {
    if (!have_gpu(needs::minimal)) return;
    std::size_t const n = 240;
    auto const a = random_graph<float>(n, 0.05, 3);
    auto const want = reference(a);
    // The library reads no environment: the variable reaches apsp through the context that
    // context_from_environment builds (as the CLI does), and only through it.
    ::setenv("KLEENE_MAX_DEVICE_BYTES", "160K", 1);
    context ctx = context_from_environment();
    ::unsetenv("KLEENE_MAX_DEVICE_BYTES");
    BOOST_TEST(ctx.tune.max_device_bytes == std::size_t(160) << 10);
    explain_trace trace;
    apsp_options opt;
    opt.device = device_choice::gpu;
    opt.algorithm = apsp_algorithm::rkleene;
    opt.explain = &trace;
    opt.ctx = &ctx;
    auto const r = apsp(a, opt);
    check_equal(r.dist, want);
    BOOST_TEST(trace.str().find("cap 160.0 KiB") != std::string::npos, trace.str());
    BOOST_TEST(trace.str().find("out of core") != std::string::npos, trace.str());
}

BOOST_AUTO_TEST_CASE(cap_too_small) {
    if (!have_gpu(needs::minimal)) return;
    auto const a = random_graph<float>(300, 0.05, 3);
    dense_matrix<float> d = start(a);
    ooc_options o;
    o.device_bytes = 4096;
    BOOST_CHECK_THROW(apsp_out_of_core(d.view(), o), error);
}

BOOST_AUTO_TEST_CASE(closure_out_of_core_matches_cpu) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {200, 513}) {
        auto const a = random_graph<float>(n, 1.2 / static_cast<double>(n), n + 1);
        host_bits want = to_host_bits(a);
        closure_cpu(want);
        // A cap of half the bit matrix (the smallest plan needs about 7 * 64 words).
        if (n >= 500) {
            BOOST_TEST_CONTEXT("n=" << n << " capped") {
                host_bits got = to_host_bits(a);
                explain_trace trace;
                closure_gpu(got, got.words.size() * 8 / 2, &trace);
                BOOST_TEST((got.words == want.words));
                BOOST_TEST(trace.str().find("out of core") != std::string::npos, trace.str());
            }
        }
        for (auto const& pp : plans_for(n, 1)) {
            BOOST_TEST_CONTEXT("n=" << n << " b=" << pp.block << " w=" << pp.width
                                    << " W=" << pp.pass_width) {
                host_bits got = to_host_bits(a);
                ooc_options o;
                o.block = pp.block;
                o.width = pp.width;
                o.pass_width = pp.pass_width;
                o.panels = pp.panels;
                o.tiles = pp.tiles;
                closure_out_of_core(got.words.data(), got.n, got.ld, o);
                BOOST_TEST((got.words == want.words));
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(large)

BOOST_AUTO_TEST_CASE(apsp_all_plans) {
    if (!have_gpu(needs::minimal)) return;
    run_sizes<float>({1, 2, 65, 97, 257, 300, 641}, {0.03, 0.3}, 7);
    run_sizes<double>({130, 263}, {0.03, 0.3}, 7);
    run_sizes<std::int32_t>({127, 193, 271}, {0.03, 0.3}, 7);
}

BOOST_AUTO_TEST_CASE(int32_saturation_all_plans) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {150, 389}) {
        auto const a = random_graph<std::int32_t>(n, 0.1, n + 5, false, true, 3);
        auto const want = reference(a);
        if (n >= 250) check_capped_overflow(a);
        check_plans(a, want);
        check_rk_plans(a, want);
    }
}

BOOST_AUTO_TEST_CASE(closure_all_plans) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {1, 65, 200, 513, 1000, 1300}) {
        auto const a = random_graph<float>(n, 1.2 / static_cast<double>(n), n + 3);
        host_bits want = to_host_bits(a);
        closure_cpu(want);
        for (auto const& pp : plans_for(n)) {
            BOOST_TEST_CONTEXT("n=" << n << " b=" << pp.block << " w=" << pp.width
                                    << " W=" << pp.pass_width) {
                host_bits got = to_host_bits(a);
                ooc_options o;
                o.block = pp.block;
                o.width = pp.width;
                o.pass_width = pp.pass_width;
                o.panels = pp.panels;
                o.tiles = pp.tiles;
                closure_out_of_core(got.words.data(), got.n, got.ld, o);
                BOOST_TEST((got.words == want.words));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(apsp_larger) {
    if (!have_gpu(needs::minimal)) return;
    for (std::size_t n : {1021, 1500}) {
        auto const a = random_graph<float>(n, 0.01, n);
        auto const want = reference(a);
        check_capped(a, want, true);
        dense_matrix<float> d = start(a);
        ooc_options o;
        o.block = 256;
        o.width = 640;
        apsp_out_of_core(d.view(), o);
        check_equal(d, want);
    }
    auto const a = random_graph<std::int32_t>(1100, 0.02, 9);
    check_capped(a, reference(a), true);
}

BOOST_AUTO_TEST_CASE(apsp_recursive_diagonal) {
    if (!have_gpu(needs::minimal)) return;
    // Diagonal blocks past 4096 rows close by R-Kleene (over blocked Floyd-Warshall) on the
    // side stream; the last block is 20 rows.
    std::size_t const n = 4500;
    auto const a = random_graph<float>(n, 0.002, 41);
    apsp_options opt;
    opt.device = device_choice::gpu;
    auto const want = apsp(a, opt).dist;
    dense_matrix<float> d = start(a);
    ooc_options o;
    o.block = 4480;
    o.width = 2048;
    apsp_out_of_core(d.view(), o);
    check_equal(d, want);
    // R-Kleene with tiles of 2048: the top products (2250) split into two ragged tiles each.
    d = start(a);
    ooc_options r;
    r.tile = 2048;
    r.depth = 512;
    r.tiles = 1;
    ooc_report const rep = apsp_out_of_core(d.view(), r);
    BOOST_TEST(rep.rounds == 4u);
    check_equal(d, want);
}

BOOST_AUTO_TEST_CASE(closure_larger) {
    if (!have_gpu(needs::minimal)) return;
    std::size_t const n = 5000;
    auto const a = random_graph<float>(n, 1.1 / static_cast<double>(n), 77);
    host_bits want = to_host_bits(a);
    closure_cpu(want);
    host_bits got = to_host_bits(a);
    explain_trace trace;
    closure_gpu(got, got.words.size() * 8 / 8, &trace);
    BOOST_TEST((got.words == want.words));
    BOOST_TEST(trace.str().find("out of core") != std::string::npos, trace.str());
}

// The in-core round trip's copies (cuda/host_copy.hpp): every pair of methods in and out, empty,
// under the direct-copy limit, exactly one staging chunk, and past two chunks with a ragged last.
BOOST_AUTO_TEST_CASE(host_copy_round_trips) {
    if (!have_gpu(needs::minimal)) return;
    using cuda::host_transfer;
    cuda::stream const s;
    std::array<std::array<std::size_t, 2>, 5> const shapes = {
        {{0, 0}, {3, 5}, {1024, 4095}, {4096, 4096}, {9001, 4099}}};
    for (auto const& [rows, cols] : shapes)
        for (host_transfer in : {host_transfer::staged, host_transfer::page_locked})
            for (host_transfer out : {host_transfer::staged, host_transfer::page_locked}) {
                dense_matrix<std::int32_t> h(rows, cols);
                std::mt19937 rng(static_cast<unsigned>(rows * 31 + cols));
                for (std::size_t i = 0; i < rows; ++i)
                    for (std::size_t j = 0; j < cols; ++j) h(i, j) = std::int32_t(rng());
                std::vector<std::int32_t> const want(h.data(), h.data() + rows * cols);
                dense_matrix<std::int32_t, device> d(rows, cols);
                cuda::host_copy(h.data(), rows, cols * sizeof(std::int32_t), in)
                    .to_device(d.data(), s);
                std::fill(h.data(), h.data() + rows * cols, -1);
                cuda::host_copy(h.data(), rows, cols * sizeof(std::int32_t), out)
                    .to_host(d.data(), s);
                BOOST_TEST((std::vector<std::int32_t>(h.data(), h.data() + rows * cols) == want),
                           rows << " x " << cols << " in " << int(in) << " out " << int(out));
            }
    // Page-locked by 1, 3 and 8 threads (ranges cut at 2 MiB boundaries), direct copies both
    // ways and rows copied back a part at a time; then the same object released twice.
    for (auto const& [rows, cols] : shapes)
        for (std::size_t threads : {1, 3, 8})
            for (bool ask_first : {false, true}) {
            dense_matrix<std::int32_t> h(rows, cols);
            for (std::size_t i = 0; i < rows * cols; ++i) h.data()[i] = std::int32_t(i % 1000003);
            std::vector<std::int32_t> const want(h.data(), h.data() + rows * cols);
            dense_matrix<std::int32_t, device> d(rows, cols);
            cuda::host_copy c(h.data(), rows, cols * sizeof(std::int32_t),
                              host_transfer::page_locked, threads);
            // Asked first, the matrix is locked before the copy in; else the copy in locks it,
            // each range copied as soon as it is locked.
            if (ask_first) BOOST_TEST_REQUIRE(c.direct());  // else page-locking failed here
            c.to_device(d.data(), s);
            BOOST_TEST_REQUIRE(c.direct());
            std::fill(h.data(), h.data() + rows * cols, -1);
            std::size_t const parts = std::min<std::size_t>(rows, 7);
            for (std::size_t q = 0; q < parts; ++q)
                c.to_host_async(d.data(), rows * q / parts, rows * (q + 1) / parts, s);
            s.synchronize();
            BOOST_TEST((std::vector<std::int32_t>(h.data(), h.data() + rows * cols) == want),
                       rows << " x " << cols << " by " << threads << " threads, in parts");
            BOOST_CHECK_THROW(c.to_host_async(d.data(), 1, rows + 1, s), invalid_argument);
            // Released range by range, each thread told which rows its range ends before.
            std::vector<std::size_t> ends;
            std::mutex m;
            c.release_after([&](std::size_t r) {
                std::lock_guard<std::mutex> g(m);
                ends.push_back(r);
            });
            if (rows * cols * sizeof(std::int32_t) >= cuda::host_copy::direct_below) {
                BOOST_TEST(!ends.empty());
                BOOST_TEST(std::ranges::max(ends) == rows);
            }
            // Copies still work (pageable now).
            std::fill(h.data(), h.data() + rows * cols, -1);
            c.to_host(d.data(), s);
            BOOST_TEST((std::vector<std::int32_t>(h.data(), h.data() + rows * cols) == want),
                       rows << " x " << cols << " after a partial release");
            c.release();
            c.release();
        }
    // Staged copies have no partial copy back.
    {
        std::size_t const rows = 4096, cols = 4096;
        dense_matrix<std::int32_t> h(rows, cols);
        dense_matrix<std::int32_t, device> d(rows, cols);
        cuda::host_copy c(h.data(), rows, cols * sizeof(std::int32_t), host_transfer::staged);
        BOOST_TEST(!c.direct());
        BOOST_CHECK_THROW(c.to_host_async(d.data(), 0, 1, s), invalid_argument);
        BOOST_TEST(!c.locked());
        BOOST_CHECK_THROW(c.block_async(d.data(), 16, 0, 1, 0, 16, cuda::copy_kind::host_to_device,
                                        s),
                          invalid_argument);
    }
}

// Blocks of a page-locked matrix (the streamed distributed Floyd-Warshall's loads and stores):
// a matrix of 807 MB locked in three ranges, so that blocks cross from one range to the next and
// rows straddle them; a small matrix locked on request; each block to a padded device buffer,
// checked there, cleared on the host and stored back.
BOOST_AUTO_TEST_CASE(host_copy_blocks) {
    if (!have_gpu(needs::minimal)) return;
    using cuda::copy_kind;
    cuda::stream const s;
    struct block {
        std::size_t r0, r1, c0, c1;
    };
    auto check = [&](std::size_t rows, std::size_t cols, std::vector<block> const& blocks) {
        dense_matrix<std::int32_t> h(rows, cols);
        for (std::size_t i = 0; i < rows * cols; ++i) h.data()[i] = std::int32_t(i % 999983);
        std::vector<std::int32_t> const want(h.data(), h.data() + rows * cols);
        cuda::host_copy c(h.data(), rows, cols * 4, cuda::host_transfer::page_locked, 8, true);
        BOOST_TEST_REQUIRE(c.locked());  // else page-locking failed here
        for (auto const& [r0, r1, c0, c1] : blocks) {
            std::size_t const w = c1 - c0, pitch = w + 3;  // elements
            dense_matrix<std::int32_t, device> d(std::max<std::size_t>(r1 - r0, 1), pitch);
            c.block_async(d.data(), pitch * 4, r0, r1, c0 * 4, w * 4, copy_kind::host_to_device, s);
            s.synchronize();
            std::vector<std::int32_t> got((r1 - r0) * pitch);
            if (!got.empty())
                cuda::copy_rows_async(got.data(), pitch * 4, d.data(), pitch * 4, w * 4, r1 - r0,
                                      copy_kind::device_to_host, s);
            s.synchronize();
            bool same = true;
            for (std::size_t i = r0; i < r1 && same; ++i)
                for (std::size_t j = c0; j < c1; ++j)
                    same = same && got[(i - r0) * pitch + (j - c0)] == want[i * cols + j];
            BOOST_TEST(same, "block rows [" << r0 << ", " << r1 << ") columns [" << c0 << ", "
                                            << c1 << ") of " << rows << " x " << cols
                                            << " on the device");
            for (std::size_t i = r0; i < r1; ++i)
                std::fill(h.data() + i * cols + c0, h.data() + i * cols + c1, -1);
            c.block_async(d.data(), pitch * 4, r0, r1, c0 * 4, w * 4, copy_kind::device_to_host, s);
            s.synchronize();
            BOOST_TEST((std::vector<std::int32_t>(h.data(), h.data() + rows * cols) == want),
                       "block rows [" << r0 << ", " << r1 << ") columns [" << c0 << ", " << c1
                                      << ") of " << rows << " x " << cols << " back on the host");
        }
        dense_matrix<std::int32_t, device> d(1, cols + 1);
        auto bad = [&](std::size_t r0, std::size_t r1, std::size_t b0, std::size_t w,
                       std::size_t pitch) {
            BOOST_CHECK_THROW(c.block_async(d.data(), pitch, r0, r1, b0, w,
                                            copy_kind::host_to_device, s),
                              invalid_argument);
        };
        bad(0, rows + 1, 0, 4, 4);         // past the last row
        bad(1, 0, 0, 4, 4);                // rows backwards
        bad(0, 1, cols * 4 - 4, 8, 8);     // past the row's end
        bad(0, 1, cols * 4 + 4, 0, 4);     // starts past the row
        bad(0, 1, 0, 8, 4);                // device rows narrower than the block
    };
    std::size_t const rows = 16411, cols = 12301;  // 807 MB: three locked ranges
    check(rows, cols,
          {{0, rows, 0, cols},           // all of it (one copy a range, straddling rows apart)
           {0, rows, 777, 777 + 513},    // a column band, every row
           {5000, 7049, 0, cols},        // a row band
           {3, rows - 2, cols - 37, cols},  // the last columns
           {rows / 3 - 2, rows / 3 + 50, 1, cols - 1},  // across the first cut
           {9, 9, 0, cols},              // no rows
           {0, rows, 5, 5}});            // no columns
    check(5, 7, {{0, 5, 0, 7}, {1, 4, 2, 5}});  // under direct_below: locked on request
    check(0, 0, {});
}

BOOST_AUTO_TEST_SUITE_END()

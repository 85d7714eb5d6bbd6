// Dense semiring GEMM and bit-packed Boolean products on the GPU against a plain host reference:
// every built-in semiring x type, sizes that are no multiple of any tile, views whose leading
// dimension exceeds their width, overwrite and accumulate forms. Suite `small` is what the
// compute-sanitizer runs use; `large` adds n ~ 1000.

#define BOOST_TEST_MODULE dense_gemm_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/context.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace kleene;

using kleene::test::have_gpu;

struct shape3 {
    std::size_t m, k, n;
};

std::vector<shape3> const small_shapes = {{1, 1, 1},    {7, 7, 7},    {33, 33, 33}, {1, 33, 7},
                                          {7, 1, 33},   {33, 7, 1},   {5, 0, 6},    {130, 257, 129},
                                          {129, 9, 200}};
std::vector<shape3> const large_shapes = {{1000, 1000, 1000}, {1023, 1023, 1023}, {1000, 77, 1023}};

template <class S>
constexpr bool zero_is_sentinel = std::is_same_v<typename S::add_monoid::op_type,
                                                 min_op<typename S::value_type>> ||
                                  std::is_same_v<typename S::add_monoid::op_type,
                                                 max_op<typename S::value_type>>;

/// Random non-zero values suited to S; about 10% are S::zero() where that is a sentinel (inf).
/// `wide` draws integers whose sums leave the fast path's range (and the opposite sentinel);
/// `nonnegative` draws floating values >= +0 (some exactly +0), the fp32 min_plus fast path's.
template <class S>
struct value_source {
    using T = typename S::value_type;
    std::mt19937_64& rng;
    std::size_t k;
    bool wide = false;
    bool nonnegative = false;

    T operator()() {
        std::uniform_real_distribution<double> u(0.0, 1.0);
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>) {
            double const p = std::min(0.5, 1.5 / std::sqrt(double(std::max<std::size_t>(k, 1))));
            if (u(rng) >= p) return T(0);
            if constexpr (std::is_same_v<T, bool>) return true;
            else return T(1 + rng() % 255);
        } else {
            if (zero_is_sentinel<S> && u(rng) < 0.1) return S::zero();
            if constexpr (std::is_floating_point_v<T>) {
                double const v = 0.25 + 7.75 * u(rng);
                if (nonnegative) return u(rng) < 0.02 ? T(0) : T(v);
                return T(rng() % 2 ? v : -v);
            } else {
                bool const small = std::is_same_v<S, plus_times<T>> || std::is_same_v<S, max_times<T>>;
                if (wide) {
                    double const r = u(rng);
                    if (r < 0.05) return std::numeric_limits<T>::lowest();
                    if (r < 0.10) return std::numeric_limits<T>::max();
                    T const big = std::numeric_limits<T>::max() / 2;
                    return T(big - T(rng() % 1000) * (rng() % 2 ? 1 : -1));
                }
                T const v = small ? T(1 + rng() % 9) : T(1 + rng() % 1000);
                return rng() % 2 ? v : T(-v);
            }
        }
    }
};

template <class T>
dense_matrix<T, host> random_parent(std::size_t rows, std::size_t cols, auto&& next,
                                    std::size_t extra_cols = 5) {
    // Room around the block so views have ld > cols and neighbours to leave untouched.
    dense_matrix<T, host> p(rows + 3, cols + extra_cols);
    for (std::size_t i = 0; i < p.rows(); ++i)
        for (std::size_t j = 0; j < p.cols(); ++j) p(i, j) = next();
    return p;
}

template <class S>
void reference(dense_view<typename S::value_type const, host> a,
               dense_view<typename S::value_type const, host> b,
               dense_view<typename S::value_type, host> c, bool accumulate) {
    using T = typename S::value_type;
#pragma omp parallel for schedule(dynamic, 4)
    for (std::size_t i = 0; i < c.rows; ++i) {
        for (std::size_t j = 0; j < c.cols; ++j) {
            // Dense operands hold zero() for an absent entry: an absent factor contributes nothing,
            // also where zero does not annihilate mul (pair, first, second, plus_min ...).
            T r = S::zero();
            for (std::size_t k = 0; k < a.cols; ++k) {
                T const x = a(i, k), y = b(k, j);
                if (x == S::zero() || y == S::zero()) continue;
                r = S::add(r, S::mul(x, y));
            }
            c(i, j) = accumulate ? S::add(c(i, j), r) : r;
        }
    }
}

/// What check_one draws: `wide` and `nonnegative` as in value_source; `poison_a` / `poison_b`
/// put one value (inside the operand's view, its last entry) into otherwise non-negative data.
struct draw {
    bool wide = false;
    bool nonnegative = false;
    std::optional<double> poison_a{};
    std::optional<double> poison_b{};
    /// The products run with this context's tuning (null: the default context's).
    context* ctx = nullptr;
};

/// `aligned_b`: B's rows start 16-byte aligned (its parent's width a multiple of 4, the view at
/// column 4), which sends 4-byte types down the staged kernel (packed A, cp.async); otherwise B
/// sits at column 1 and they take the checked kernel.
template <class S>
void check_one(shape3 s, bool accumulate, std::uint64_t seed, draw d, bool aligned_b = false) {
    using T = typename S::value_type;
    std::mt19937_64 rng(seed);
    value_source<S> next{rng, s.k, d.wide, d.nonnegative};
    auto ha = random_parent<T>(s.m, s.k, next);
    std::size_t const b_extra = aligned_b ? (s.n + 5 + 3) / 4 * 4 - s.n : 5;
    std::size_t const b_col = aligned_b ? 4 : 1;
    auto hb = random_parent<T>(s.k, s.n, next, b_extra);
    if (d.poison_a && s.m && s.k) ha(s.m, 1 + s.k) = T(*d.poison_a);
    if (d.poison_b && s.k && s.n) hb(1 + s.k, b_col + s.n - 1) = T(*d.poison_b);
    auto hc = random_parent<T>(s.m, s.n, next);  // overwrite form: every entry must be written
    auto da = ha.to_device();
    auto db = hb.to_device();
    auto dc = hc.to_device();
    if (aligned_b)
        BOOST_TEST_REQUIRE((reinterpret_cast<std::uintptr_t>(db.block(2, b_col, s.k, s.n).data) % 16 == 0));

    dense_view<T const, device> const va(da.block(1, 2, s.m, s.k));
    dense_view<T const, device> const vb(db.block(2, b_col, s.k, s.n));
    if (d.ctx) cuda::dense_gemm<S>(va, vb, dc.block(1, 3, s.m, s.n), accumulate, *d.ctx);
    else cuda::dense_gemm<S>(va, vb, dc.block(1, 3, s.m, s.n), accumulate);
    auto const got = dc.to_host();

    auto want = hc;
    reference<S>(ha.view().block(1, 2, s.m, s.k), hb.view().block(2, b_col, s.k, s.n),
                 want.block(1, 3, s.m, s.n), accumulate);

    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < want.rows(); ++i) {
        for (std::size_t j = 0; j < want.cols(); ++j) {
            T const g = got(i, j);
            T const w = want(i, j);
            bool ok = g == w;
            if constexpr (std::is_floating_point_v<T>) {
                if (!ok && std::is_same_v<S, plus_times<T>> && std::isfinite(w)) {
                    // FMA contraction and rounding: bound by k * eps * |a||b| (values <= 8).
                    double const eps = std::is_same_v<T, float> ? 1e-6 : 1e-14;
                    ok = std::abs(double(g) - double(w)) <= eps * 64.0 * double(s.k + 1);
                }
            }
            if (!ok && bad++ == 0)
                first = "(" + std::to_string(i) + ", " + std::to_string(j) + "): got " +
                        std::to_string(double(g)) + ", want " + std::to_string(double(w));
        }
    }
    BOOST_TEST(bad == 0u, "m=" << s.m << " k=" << s.k << " n=" << s.n << " accumulate="
                                << accumulate << (d.wide ? " wide" : "")
                                << (d.nonnegative ? " non-negative" : "")
                                << (d.poison_a ? " A poisoned with " + std::to_string(*d.poison_a) : "")
                                << (d.poison_b ? " B poisoned with " + std::to_string(*d.poison_b) : "")
                                << (aligned_b ? " aligned B" : "") << ": " << bad
                                << " wrong entries, first " << first);
}

template <class S>
void check_shapes(std::vector<shape3> const& shapes, draw d = {}) {
    std::uint64_t seed = 12345;
    constexpr bool staged = sizeof(typename S::value_type) == 4;
    for (auto const& s : shapes)
        for (bool accumulate : {false, true})
            for (bool aligned : {false, true})
                if (!aligned || staged) check_one<S>(s, accumulate, ++seed, d, aligned);
}

template <template <class> class SR>
void check_all_numeric(std::vector<shape3> const& shapes, draw d = {}) {
    check_shapes<SR<float>>(shapes, d);
    check_shapes<SR<double>>(shapes, d);
    check_shapes<SR<std::int32_t>>(shapes, d);
    check_shapes<SR<std::int64_t>>(shapes, d);
}

}  // namespace

/// plus_times over float and double through cuBLAS (the default) and through the generic kernel,
/// switched in the test's own context.
template <class F>
void with_and_without_cublas(context& ctx, F&& f) {
    for (bool blas : {true, false}) {
        ctx.tune.use_cublas = blas;
        BOOST_TEST_CONTEXT("cuBLAS " << (blas ? "on" : "off")) { f(); }
    }
}

/// Small products normally skip the checked policies (launch-bound); these tests want them, in
/// a context of their own.
struct checked_always {
    context ctx;
    checked_always() { ctx.tune.checked_min_updates = 0; }
    draw with(draw d = {}) {
        d.ctx = &ctx;
        return d;
    }
};

BOOST_FIXTURE_TEST_SUITE(small, checked_always)

BOOST_AUTO_TEST_CASE(plus_times_all_types) {
    if (have_gpu())
        with_and_without_cublas(ctx, [&] { check_all_numeric<plus_times>(small_shapes, with()); });
}
BOOST_AUTO_TEST_CASE(min_plus_all_types) { if (have_gpu()) check_all_numeric<min_plus>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(max_plus_all_types) { if (have_gpu()) check_all_numeric<max_plus>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(max_min_all_types) { if (have_gpu()) check_all_numeric<max_min>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(min_max_all_types) { if (have_gpu()) check_all_numeric<min_max>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(lor_land_all_types) {
    if (!have_gpu()) return;
    check_all_numeric<lor_land>(small_shapes, with());
    check_shapes<lor_land<bool>>(small_shapes, with());
    check_shapes<lor_land<std::uint8_t>>(small_shapes, with());
}
BOOST_AUTO_TEST_CASE(any_pair_all_types) {
    if (!have_gpu()) return;
    check_all_numeric<any_pair>(small_shapes, with());
    check_shapes<any_pair<bool>>(small_shapes, with());
    check_shapes<any_pair<std::uint8_t>>(small_shapes, with());
}
BOOST_AUTO_TEST_CASE(plus_pair_all_types) { if (have_gpu()) check_all_numeric<plus_pair>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(min_first_all_types) { if (have_gpu()) check_all_numeric<min_first>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(min_second_all_types) { if (have_gpu()) check_all_numeric<min_second>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(plus_min_all_types) { if (have_gpu()) check_all_numeric<plus_min>(small_shapes, with()); }
BOOST_AUTO_TEST_CASE(max_times_all_types) { if (have_gpu()) check_all_numeric<max_times>(small_shapes, with()); }

// Integer min_plus / max_plus with values past the DPX path's range and both sentinels: the
// exact saturating kernel must take over.
BOOST_AUTO_TEST_CASE(saturating_fallback) {
    if (!have_gpu()) return;
    check_shapes<min_plus<std::int32_t>>(small_shapes, with({.wide = true}));
    check_shapes<max_plus<std::int32_t>>(small_shapes, with({.wide = true}));
    check_shapes<min_plus<std::int64_t>>(small_shapes, with({.wide = true}));
}

// fp32 (and fp64) min_plus on non-negative data, the staged kernel's 3-input-min path, and one
// value it must refuse (negative, -0) in A or in B: the generic policy must take over, exactly.
BOOST_AUTO_TEST_CASE(nonnegative_min_plus) {
    if (!have_gpu()) return;
    check_shapes<min_plus<float>>(small_shapes, with({.nonnegative = true}));
    check_shapes<min_plus<double>>(small_shapes, with({.nonnegative = true}));
    for (double poison : {-1.5, -0.0}) {
        check_shapes<min_plus<float>>(small_shapes, with({.nonnegative = true, .poison_a = poison}));
        check_shapes<min_plus<float>>(small_shapes, with({.nonnegative = true, .poison_b = poison}));
    }
}

// min_plus / max_plus products of few blocks split k into partial products (split_k_blocks):
// shapes with few blocks and deep k (uneven last split, one-column B, k short of a split), on
// every policy (generic, int32 DPX and its saturating fallback, fp32 non-negative), with
// splitting on and off.
BOOST_AUTO_TEST_CASE(split_k) {
    if (!have_gpu()) return;
    std::vector<shape3> const shapes = {{64, 1000, 64}, {300, 5000, 129}, {129, 300, 1},
                                        {5, 257, 3},    {128, 255, 128},  {640, 2048, 384}};
    for (int blocks : {cuda::gemm_detail::max_split_k_blocks, 0}) {
        ctx.tune.split_k_blocks = blocks;
        BOOST_TEST_CONTEXT("split_k_blocks " << blocks) {
            check_shapes<min_plus<float>>(shapes, with());
            check_shapes<min_plus<float>>(shapes, with({.nonnegative = true}));
            check_shapes<min_plus<std::int32_t>>(shapes, with());
            check_shapes<min_plus<std::int32_t>>(shapes, with({.wide = true}));
            check_shapes<max_plus<std::int32_t>>(shapes, with());
            check_shapes<max_plus<float>>(shapes, with());
        }
    }
}

// A workspace the caller supplies, sized by dense_gemm_scratch_bytes, serves the staged kernel's
// packed A and split-k partials; one too small is refused before anything runs.
BOOST_AUTO_TEST_CASE(caller_workspace) {
    if (!have_gpu()) return;
    shape3 const s{300, 5000, 129};
    buffer<unsigned char, device> ws(cuda::dense_gemm_scratch_bytes(s.m, s.k, s.n, sizeof(float)));
    ctx.set_workspace(ws.data(), ws.size());
    check_shapes<min_plus<float>>({s}, with());
    check_shapes<min_plus<std::int32_t>>({s}, with());
    BOOST_TEST(ctx.workspace_bytes() == ws.size());
    ctx.set_workspace(ws.data(), 256);
    BOOST_CHECK_THROW(check_one<min_plus<float>>(s, false, 1, with(), true), invalid_argument);
    ctx.set_workspace(nullptr, 0);
}

BOOST_AUTO_TEST_CASE(bit_views_and_round_trip) {
    if (!have_gpu()) return;
    std::mt19937_64 rng(7);
    std::size_t const m = 70, k = 200, n = 130;
    auto bit = [&] { return std::uint8_t(rng() % 4 == 0); };
    auto const ha = random_parent<std::uint8_t>(m, k + 64, bit);
    auto const hb = random_parent<std::uint8_t>(k, n + 64, bit);
    auto hc = random_parent<std::uint8_t>(m + 1, n + 64, bit);
    auto const da = ha.to_device();
    auto const db = hb.to_device();
    auto const dc = hc.to_device();
    auto const pa = cuda::to_bits(da.view());
    auto const pb = cuda::to_bits(db.view());
    for (bool accumulate : {false, true}) {
        auto pc = cuda::to_bits(dc.view());
        // Column offset 64 (one word), row offset 1; C's view ends mid-word next to live bits.
        cuda::bool_gemm(pa.view().block(1, 64, m, k), pb.view().block(2, 64, k, n),
                        pc.view().block(1, 64, m, n), accumulate);
        auto const got = cuda::to_dense<std::uint8_t>(pc).to_host();
        auto want = hc;
        for (auto& v : want.storage()) v = v != 0;
        reference<lor_land<std::uint8_t>>(ha.view().block(1, 64, m, k),
                                          hb.view().block(2, 64, k, n),
                                          want.block(1, 64, m, n), accumulate);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < want.rows(); ++i)
            for (std::size_t j = 0; j < want.cols(); ++j) bad += got(i, j) != want(i, j);
        BOOST_TEST(bad == 0u, "accumulate=" << accumulate << ": " << bad << " wrong bits");
    }
}

BOOST_AUTO_TEST_CASE(errors_are_exceptions) {
    if (!have_gpu()) return;
    dense_matrix<float, device> a(4, 5), b(6, 7), c(4, 7);
    BOOST_CHECK_THROW(cuda::dense_gemm<min_plus<float>>(a.view(), b.view(), c.view(), false),
                      dimension_mismatch);
    dense_matrix<float, device> sq(8, 8);
    BOOST_CHECK_THROW(cuda::dense_gemm<min_plus<float>>(sq.view(), sq.view(), sq.view(), false),
                      invalid_argument);
    // Blocks that share entries with the output (C = sq's top-left 4 x 4 and A the 4 x 4 at
    // (2, 2)) are refused; side-by-side blocks of one row band share none and are accepted
    // (R-Kleene's in-place products): checked against the host product below.
    BOOST_CHECK_THROW(cuda::dense_gemm<min_plus<float>>(sq.block(2, 2, 4, 4), sq.block(4, 0, 4, 4),
                                                        sq.block(0, 0, 4, 4), false),
                      invalid_argument);
    {
        dense_matrix<float, host> hs(8, 8);
        for (std::size_t i = 0; i < 8; ++i)
            for (std::size_t j = 0; j < 8; ++j) hs(i, j) = float((i * 5 + j * 3) % 11);
        auto ds = hs.to_device();
        // C = the top-right 4 x 4, A = the top-left (same rows), B = the bottom-left.
        cuda::dense_gemm<min_plus<float>>(ds.block(0, 0, 4, 4), ds.block(4, 0, 4, 4),
                                          ds.block(0, 4, 4, 4), true);
        auto got = ds.to_host();
        for (std::size_t i = 0; i < 4; ++i)
            for (std::size_t j = 0; j < 4; ++j) {
                float want = hs(i, 4 + j);
                for (std::size_t k = 0; k < 4; ++k) want = std::min(want, hs(i, k) + hs(4 + k, j));
                BOOST_TEST(got(i, 4 + j) == want);
            }
    }
    // 2^22 x 2^22 floats = 64 TiB: a clear device_error, never a crash.
    BOOST_CHECK_THROW((dense_matrix<float, device>(std::size_t(1) << 22, std::size_t(1) << 22)),
                      device_error);
    // The device still works after the failed allocation.
    dense_matrix<float, host> h(3, 3, 1.0f);
    auto d = h.to_device();
    dense_matrix<float, device> out(3, 3);
    cuda::dense_gemm<plus_times<float>>(d.view(), d.view(), out.view(), false);
    BOOST_TEST(out.to_host()(2, 2) == 3.0f);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(large)

BOOST_AUTO_TEST_CASE(min_plus_large) { if (have_gpu()) check_all_numeric<min_plus>(large_shapes); }
BOOST_AUTO_TEST_CASE(nonnegative_min_plus_large) {
    if (have_gpu()) check_shapes<min_plus<float>>(large_shapes, {.nonnegative = true});
}
BOOST_AUTO_TEST_CASE(max_plus_int32_large) {
    if (have_gpu()) check_shapes<max_plus<std::int32_t>>(large_shapes);
}
BOOST_AUTO_TEST_CASE(plus_times_large) {
    if (!have_gpu()) return;
    context ctx;
    with_and_without_cublas(ctx, [&] {
        check_shapes<plus_times<float>>(large_shapes, {.ctx = &ctx});
        check_shapes<plus_times<double>>(large_shapes, {.ctx = &ctx});
    });
}
// k deep enough that the staged kernel packs A in several panels of C's rows (64 MiB each).
BOOST_AUTO_TEST_CASE(staged_panels) {
    if (!have_gpu()) return;
    for (bool acc : {false, true}) {
        check_one<min_plus<float>>({700, 30001, 37}, acc, 99, {}, true);
        check_one<min_plus<float>>({700, 30001, 37}, acc, 96, {.nonnegative = true}, true);
        check_one<min_plus<std::int32_t>>({700, 30001, 37}, acc, 98, {}, true);
        check_one<max_plus<std::int32_t>>({700, 30001, 37}, acc, 97, {.wide = true}, true);
    }
}
BOOST_AUTO_TEST_CASE(lor_land_large) {
    if (!have_gpu()) return;
    check_shapes<lor_land<bool>>(large_shapes);
    check_shapes<lor_land<std::uint8_t>>(large_shapes);
}

BOOST_AUTO_TEST_SUITE_END()

// The JIT on the device (kleene/cuda/jit.hpp): kernels NVRTC builds for a built-in semiring give
// exactly what the library's own instances give (SpMV with masks, accumulate and replace, long
// rows; the dense GEMM's staged and register paths, split k), a user semiring given as source
// text matches plain host loops, and the context / disk cache report where kernels came from.
// The semiring closure on the device (jit::closure, semiring_closure.hpp) equals the CPU's for a
// built-in and a source-text semiring, at sizes that make the recursion run.

#define BOOST_TEST_MODULE jit_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/algorithms/semiring_closure.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;
namespace jit = kleene::cuda::jit;
using kleene::test::have_gpu;
using kleene::test::needs;
using rng = std::mt19937_64;

/// max.times over float as source text: a semiring the library has no instance of.
jit::semiring_source max_times_source() {
    jit::semiring_source s;
    s.name = "max_times_user";
    s.value_type = "float";
    s.zero = "0.0f";
    s.one = "1.0f";
    s.add = "a > b ? a : b";
    s.mul = "a * b";
    s.idempotent_add = true;
    s.zero_annihilates = true;  // values are >= 0
    return s;
}

/// A rows x cols matrix; row i has Poisson(mean) entries, and every 97th row `long_len` of them
/// (SpMV's long-row path), values 1..9.
template <class T, class I>
csr_matrix<T, I> random_csr(std::size_t rows, std::size_t cols, double mean, std::size_t long_len,
                            rng& g) {
    std::poisson_distribution<int> d(mean);
    buffer<I> ptr(rows + 1);
    ptr[0] = 0;
    std::vector<I> col;
    std::vector<std::size_t> all(cols);
    for (std::size_t j = 0; j < cols; ++j) all[j] = j;
    for (std::size_t i = 0; i < rows; ++i) {
        std::size_t const len = std::min(cols, i % 97 == 5 ? long_len : std::size_t(d(g)));
        std::vector<std::size_t> pick;
        std::sample(all.begin(), all.end(), std::back_inserter(pick), len, g);
        for (auto j : pick) col.push_back(static_cast<I>(j));
        ptr[i + 1] = static_cast<I>(col.size());
    }
    buffer<I> c(col.size());
    std::copy(col.begin(), col.end(), c.begin());
    buffer<T> v(col.size());
    for (auto& x : v) x = T(1 + g() % 9);
    return csr_matrix<T, I>(rows, cols, std::move(ptr), std::move(c), std::move(v), T(1));
}

template <class T>
dense_vector<T> random_vector(std::size_t n, T zero, rng& g) {
    dense_vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = g() % 4 == 0 ? zero : T(1 + g() % 9);
    return v;
}

template <class T>
std::vector<T> host_of(dense_vector<T, device> const& v) {
    auto h = v.to_host();
    return std::vector<T>(h.begin(), h.end());
}

}  // namespace

BOOST_AUTO_TEST_CASE(spmv_builtin_through_the_jit_equals_the_instance) {
    if (!have_gpu(needs::minimal)) return;
    rng g(7);
    using S = min_plus<float>;
    using I = std::int32_t;
    auto const s = jit::builtin("min_plus", "float");
    for (std::size_t rows : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(20011)}) {
        auto const a = random_csr<float, I>(rows, 3001, 6.0, 2000, g);
        auto const ad = a.to_device();
        auto const u = random_vector<float>(a.cols(), S::zero(), g).to_device();
        auto const w0 = random_vector<float>(a.rows(), S::zero(), g);
        dense_vector<bool> mv(a.rows());
        for (std::size_t i = 0; i < a.rows(); ++i) mv[i] = g() % 3 != 0;
        auto const mvd = mv.to_device();
        for (int variant = 0; variant < 4; ++variant) {
            cuda::vector_mask m;
            if (variant >= 2) m = cuda::vector_mask(mask(mvd));
            cuda::sparse_options opt;
            opt.backend = cuda::sparse_backend::generic;
            opt.accumulate = variant % 2 == 1;
            opt.replace = variant == 3;
            auto want = w0.to_device();
            auto got = w0.to_device();
            cuda::spmv<S, I>(want, m, ad, u, opt);
            opt.backend = cuda::sparse_backend::automatic;
            jit::spmv<float, I>(got, m, ad, u, s, opt);
            BOOST_TEST((host_of(got) == host_of(want)), "rows " << rows << " variant " << variant);
        }
    }
}

BOOST_AUTO_TEST_CASE(spmv_user_semiring_matches_host_loops) {
    if (!have_gpu(needs::minimal)) return;
    rng g(11);
    auto const s = max_times_source();
    for (std::size_t rows : {std::size_t(1), std::size_t(777), std::size_t(5000)}) {
        auto const a = random_csr<float, std::int64_t>(rows, 900, 4.0, 700, g);
        auto const u = random_vector<float>(a.cols(), 0.0f, g);
        dense_vector<float, device> w(a.rows());
        jit::spmv<float, std::int64_t>(w, {}, a.to_device(), u.to_device(), s);
        auto const got = host_of(w);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < a.rows(); ++i) {
            float want = 0.0f;
            for (auto k = a.row_ptr()[i]; k < a.row_ptr()[i + 1]; ++k)
                want = std::max(want, a.values()[k] * u[std::size_t(a.col_idx()[k])]);
            bad += got[i] != want;
        }
        BOOST_TEST(bad == 0u, "rows " << rows);
        // max.times composed from semiring.hpp's operators by name: the same sums, except that
        // its zero is max's identity, -inf, where the source-text semiring's is 0 (empty rows).
        dense_vector<float, device> w2(a.rows());
        jit::spmv<float, std::int64_t>(w2, {}, a.to_device(), u.to_device(),
                                       jit::compose("max", "times", "float"));
        auto want2 = got;
        for (std::size_t i = 0; i < a.rows(); ++i)
            if (a.row_ptr()[i] == a.row_ptr()[i + 1]) want2[i] = -std::numeric_limits<float>::infinity();
        BOOST_TEST((host_of(w2) == want2), "compose rows " << rows);
    }
}

BOOST_AUTO_TEST_CASE(spgemm_through_the_jit) {
    if (!have_gpu(needs::minimal)) return;
    rng g(13);
    for (std::size_t n : {std::size_t(1), std::size_t(300), std::size_t(4000)}) {
        // Rows of every tier: Poisson(4) rows and every 97th row of 600 entries (products past
        // 4096: the global tier).
        auto const a = random_csr<float, std::int32_t>(n, n, 4.0, 600, g);
        auto const ad = a.to_device();
        // A built-in: the instance's result, entry for entry.
        {
            csr_matrix<float, std::int32_t, device> want, got;
            cuda::sparse_options opt;
            opt.backend = cuda::sparse_backend::generic;
            cuda::spgemm<min_plus<float>, std::int32_t>(want, ad, ad, opt);
            opt.backend = cuda::sparse_backend::automatic;
            jit::spgemm<float, std::int32_t>(got, ad, ad, jit::builtin("min_plus", "float"), opt);
            auto const w = want.to_host(), r = got.to_host();
            BOOST_TEST(r.nnz() == w.nnz());
            BOOST_TEST(std::equal(w.row_ptr(), w.row_ptr() + n + 1, r.row_ptr()), "n " << n);
            BOOST_TEST(std::equal(w.col_idx(), w.col_idx() + w.nnz(), r.col_idx()), "n " << n);
            BOOST_TEST(std::equal(w.values(), w.values() + w.nnz(), r.values()), "n " << n);
        }
        // The user's max.times: host loops (dense accumulator per row).
        {
            csr_matrix<float, std::int32_t, device> got;
            jit::spgemm<float, std::int32_t>(got, ad, ad, max_times_source());
            auto const r = got.to_host();
            std::size_t bad = 0;
            std::vector<float> acc(n);
            std::vector<char> seen(n);
            for (std::size_t i = 0; i < n; ++i) {
                std::fill(acc.begin(), acc.end(), 0.0f);
                std::fill(seen.begin(), seen.end(), char(0));
                for (auto ka = a.row_ptr()[i]; ka < a.row_ptr()[i + 1]; ++ka) {
                    auto const k = std::size_t(a.col_idx()[ka]);
                    for (auto kb = a.row_ptr()[k]; kb < a.row_ptr()[k + 1]; ++kb) {
                        auto const j = std::size_t(a.col_idx()[kb]);
                        acc[j] = std::max(acc[j], a.values()[ka] * a.values()[kb]);
                        seen[j] = 1;
                    }
                }
                std::size_t entries = 0;
                for (std::size_t j = 0; j < n; ++j) entries += seen[j];
                bad += entries != std::size_t(r.row_ptr()[i + 1] - r.row_ptr()[i]);
                for (auto k = r.row_ptr()[i]; k < r.row_ptr()[i + 1]; ++k) {
                    auto const j = std::size_t(r.col_idx()[k]);
                    bad += !seen[j] || r.values()[k] != acc[j];
                }
            }
            BOOST_TEST(bad == 0u, "max_times spgemm n " << n);
        }
    }
}

BOOST_AUTO_TEST_CASE(dense_gemm_through_the_jit) {
    if (!have_gpu(needs::minimal)) return;
    rng g(3);
    context ctx;
    ctx.tune.checked_min_updates = std::size_t(-1);  // the instance's generic path, as the JIT's
    struct shape {
        std::size_t m, k, n;
    };
    for (shape sh : {shape{1, 1, 1}, shape{130, 33, 70}, shape{256, 300, 256}, shape{64, 4096, 64}}) {
        for (bool aligned : {true, false}) {
            std::size_t const ldb = aligned ? (sh.n + 3) / 4 * 4 : sh.n + 1;
            dense_matrix<float> ha(sh.m, sh.k), hb(sh.k, ldb), hc(sh.m, sh.n);
            for (std::size_t i = 0; i < sh.m; ++i)
                for (std::size_t j = 0; j < sh.k; ++j) ha(i, j) = float(1 + g() % 9);
            for (std::size_t i = 0; i < sh.k; ++i)
                for (std::size_t j = 0; j < ldb; ++j) hb(i, j) = float(1 + g() % 9);
            auto const da = ha.to_device();
            auto const db = hb.to_device();
            auto const vb = dense_view<float const, device>(db.view().block(0, 0, sh.k, sh.n));
            auto const va = dense_view<float const, device>(da.view());
            // Built-in min_plus: exactly the instance's result.
            {
                auto want = hc.to_device();
                auto got = hc.to_device();
                cuda::dense_gemm<min_plus<float>>(va, vb, want.view(), false, ctx);
                jit::dense_gemm<float>(va, vb, got.view(), false, jit::builtin("min_plus", "float"),
                                       ctx);
                auto const w = want.to_host(), r = got.to_host();
                std::size_t bad = 0;
                for (std::size_t i = 0; i < sh.m; ++i)
                    for (std::size_t j = 0; j < sh.n; ++j) bad += w(i, j) != r(i, j);
                BOOST_TEST(bad == 0u, "min_plus " << sh.m << "x" << sh.k << "x" << sh.n << " aligned " << aligned);
            }
            // User max.times, accumulating into C: host loops.
            {
                dense_matrix<float> c0(sh.m, sh.n);
                for (std::size_t i = 0; i < sh.m; ++i)
                    for (std::size_t j = 0; j < sh.n; ++j) c0(i, j) = float(g() % 50);
                auto got = c0.to_device();
                jit::dense_gemm<float>(va, vb, got.view(), true, max_times_source(), ctx);
                auto const r = got.to_host();
                std::size_t bad = 0;
                for (std::size_t i = 0; i < sh.m; ++i)
                    for (std::size_t j = 0; j < sh.n; ++j) {
                        float want = c0(i, j);
                        for (std::size_t k = 0; k < sh.k; ++k) want = std::max(want, ha(i, k) * hb(k, j));
                        bad += r(i, j) != want;
                    }
                BOOST_TEST(bad == 0u, "max_times " << sh.m << "x" << sh.k << "x" << sh.n << " aligned " << aligned);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(reports_and_the_disk_cache) {
    if (!have_gpu(needs::minimal)) return;
    namespace fs = std::filesystem;
    fs::path const dir = fs::temp_directory_path() / ("kleene-jit-gpu-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    rng g(5);
    auto const a = random_csr<float, std::int32_t>(100, 100, 3.0, 10, g).to_device();
    auto const u = random_vector<float>(100, 0.0f, g).to_device();
    dense_vector<float, device> w(100);
    auto const s = max_times_source();
    jit::report r1, r2, r3;
    {
        context ctx;
        ctx.tune.jit_cache = dir.string();
        jit::spmv<float, std::int32_t>(w, {}, a, u, s, {.ctx = &ctx}, &r1);
        jit::spmv<float, std::int32_t>(w, {}, a, u, s, {.ctx = &ctx}, &r2);
    }
    context other;
    other.tune.jit_cache = dir.string();
    jit::spmv<float, std::int32_t>(w, {}, a, u, s, {.ctx = &other}, &r3);
    BOOST_TEST_MESSAGE(jit::describe(r1) << " | " << jit::describe(r2) << " | " << jit::describe(r3));
    BOOST_TEST((r1.from == jit::report::origin::compiled));
    BOOST_TEST((r2.from == jit::report::origin::memory));
    BOOST_TEST((r3.from == jit::report::origin::disk));
    BOOST_TEST(r1.key == r3.key);
    // The explain trace says where the kernels came from.
    explain_trace trace;
    jit::spmv<float, std::int32_t>(w, {}, a, u, s, {.ctx = &other, .explain = &trace});
    BOOST_TEST(trace.str().find("jit: kernels already loaded") != std::string::npos, trace.str());
    // The operands' type must be the semiring's.
    auto const wrong = jit::builtin("min_plus", "double");
    BOOST_CHECK_THROW((jit::spmv<float, std::int32_t>(w, {}, a, u, wrong)), kleene::invalid_argument);
    fs::remove_all(dir);
}

namespace {

/// The source-text max.times above as a host semiring object, for the CPU closure: zero 0, one 1.
struct host_max_times {
    using value_type = float;
    static constexpr bool idempotent_add = true;
    static constexpr bool has_terminal = false;
    static constexpr bool zero_annihilates = true;  // values are >= 0
    static constexpr float zero() { return 0.0f; }
    static constexpr float one() { return 1.0f; }
    static constexpr float terminal() { return 0.0f; }
    static constexpr float add(float a, float b) { return a > b ? a : b; }
    static constexpr float mul(float a, float b) { return a * b; }
};

/// n x n with about `degree` entries a row (else zero), values from draw.
template <class T, class Draw>
dense_matrix<T> random_graph(std::size_t n, double degree, T zero, Draw draw, rng& g) {
    dense_matrix<T> a(n, n, zero);
    std::uniform_real_distribution<double> u(0, 1);
    double const p = std::min(1.0, degree / double(std::max<std::size_t>(n, 1)));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (u(g) < p) a(i, j) = draw();
    return a;
}

/// The GPU closure of a over s against the CPU closure over host_s, reflexive and not, with the
/// default base and a small one; entries within rel (0: exactly).
template <class T, class H, class Draw>
void check_gpu_closure(jit::semiring_source const& s, H const& host_s, Draw draw, double rel,
                       context& ctx) {
    rng g(17);
    for (std::size_t n : {std::size_t(1), std::size_t(37), std::size_t(300), std::size_t(1000)})
        for (double degree : {2.0, 8.0})
            for (std::size_t base : {std::size_t(0), std::size_t(8)}) {
                if (n == 1000 && base == 8) continue;
                dense_matrix<T> const a = random_graph<T>(n, degree, host_s.zero(), draw, g);
                for (bool reflexive : {false, true}) {
                    dense_matrix<T> want = a;
                    semiring_closure(want.view(), host_s, {.reflexive = reflexive});
                    auto d = a.to_device();
                    explain_trace why;
                    semiring_closure(d.view(), s,
                                     {.reflexive = reflexive, .base = base, .ctx = &ctx,
                                      .explain = &why});
                    auto const got = d.to_host();
                    std::size_t bad = 0;
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t j = 0; j < n; ++j) {
                            double const x = double(got(i, j)), y = double(want(i, j));
                            bad += !(got(i, j) == want(i, j) ||
                                     (rel > 0 && std::abs(x - y) <= rel * std::max(1.0, std::abs(y))));
                        }
                    BOOST_TEST(bad == 0u, s.name << " n=" << n << " degree=" << degree << " base="
                                                 << base << (reflexive ? " reflexive" : "")
                                                 << "\n" << why.str());
                }
            }
}

}  // namespace

BOOST_AUTO_TEST_CASE(semiring_closure_through_the_jit) {
    if (!have_gpu(needs::minimal)) return;
    rng g(19);
    context ctx;
    // Built-ins: min_plus with integer weights (exact in float), max_min over int32.
    check_gpu_closure<float>(jit::builtin("min_plus", "float"), min_plus<float>{},
                             [&] { return float(1 + g() % 9); }, 0, ctx);
    check_gpu_closure<std::int32_t>(jit::builtin("max_min", "int32_t"), max_min<std::int32_t>{},
                                    [&] { return std::int32_t(g() % 1000); }, 0, ctx);
    check_gpu_closure<double>(jit::compose("min", "plus", "double"), min_plus<double>{},
                              [&] { return double(1 + g() % 20); }, 0, ctx);
    // The user's max.times as source text, probabilities in [0, 1] (products in other orders:
    // equal to a few ulps).
    std::uniform_real_distribution<float> u(0, 1);
    check_gpu_closure<float>(max_times_source(), host_max_times{}, [&] { return u(g); }, 1e-5,
                             ctx);
}

BOOST_AUTO_TEST_CASE(semiring_closure_through_the_jit_errors) {
    if (!have_gpu(needs::minimal)) return;
    context ctx;
    auto const s = jit::builtin("min_plus", "float");
    // A negative cycle 3 -> 4 -> 5 -> 3 (weight -1): vertex 3, the smallest on it.
    for (std::size_t base : {std::size_t(0), std::size_t(2)}) {
        dense_matrix<float> a(70, 70, infinity<float>());
        for (std::size_t v = 0; v + 1 < 70; ++v) a(v, v + 1) = 1;
        a(5, 3) = -3;
        auto d = a.to_device();
        try {
            semiring_closure(d.view(), s, {.base = base, .ctx = &ctx});
            BOOST_FAIL("a negative cycle must throw");
        } catch (negative_cycle const& e) {
            BOOST_TEST(e.vertex() == 3, e.what());
        }
    }
    // NaN named; not square; add not idempotent; a multiply without identity; the wrong type.
    dense_matrix<float> b(5, 5, 1.0f);
    b(2, 4) = std::numeric_limits<float>::quiet_NaN();
    auto db = b.to_device();
    try {
        semiring_closure(db.view(), s, {.ctx = &ctx});
        BOOST_FAIL("NaN must be refused");
    } catch (kleene::invalid_argument const& e) {
        BOOST_TEST(std::string(e.what()).find("(2, 4) is NaN") != std::string::npos, e.what());
    }
    dense_matrix<float, device> r(2, 3);
    BOOST_CHECK_THROW(semiring_closure(r.view(), s, {.ctx = &ctx}), dimension_mismatch);
    auto plus = max_times_source();
    plus.add = "a + b";
    plus.idempotent_add = false;
    BOOST_CHECK_THROW(semiring_closure(db.view(), plus, {.ctx = &ctx}), kleene::invalid_argument);
    BOOST_CHECK_THROW(semiring_closure(db.view(), jit::builtin("min_first", "float"), {.ctx = &ctx}),
                      kleene::invalid_argument);
    BOOST_CHECK_THROW(semiring_closure(db.view(), jit::builtin("min_plus", "double"), {.ctx = &ctx}),
                      kleene::invalid_argument);
    // n = 0 compiles nothing and returns.
    dense_matrix<float, device> e(0, 0);
    semiring_closure(e.view(), s, {.ctx = &ctx});
}

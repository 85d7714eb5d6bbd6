#define BOOST_TEST_MODULE mxm_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"
#include "gpu/ops_gpu_common.hpp"
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <typeinfo>

// kleene::mxm on device dense matrices (the GPU GEMM) against mxm on the host, through the public
// dispatch, for semirings whose zero annihilates and for ones where it does not (absent entries);
// and mxm of device CSR matrices into a device `matrix`, whose storage follows the density; and
// C<M> = A B' with B given as transpose(Bt): the masked dot products (cuda::masked_dot) and the
// model that picks them, against the same call on host containers.

using namespace kleene;

namespace {
using kleene::test::have_gpu;

template <class S>
dense_matrix<typename S::value_type> random_dense(std::size_t r, std::size_t c, std::mt19937& g) {
    using T = typename S::value_type;
    dense_matrix<T> d(r, c);
    std::uniform_int_distribution<int> v(1, 20);
    std::bernoulli_distribution absent(0.3);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) d(i, j) = absent(g) ? S::zero() : T(v(g));
    return d;
}

template <class S>
void check(std::size_t m, std::size_t k, std::size_t n, bool accumulate) {
    std::mt19937 g(m * 131 + k * 7 + n);
    auto const a = random_dense<S>(m, k, g), b = random_dense<S>(k, n, g);
    auto c = random_dense<S>(m, n, g);
    auto ad = a.to_device(), bd = b.to_device();
    auto cd = c.to_device();
    explain_trace why;
    options opt;
    opt.explain = &why;
    if (accumulate) {
        mxm(c, no_mask, typename S::add_monoid::op_type{}, a, b, S{});
        mxm(cd, no_mask, typename S::add_monoid::op_type{}, ad, bd, S{}, opt);
    } else {
        mxm(c, a, b, S{});
        mxm(cd, ad, bd, S{}, opt);
    }
    BOOST_TEST(why.str().find("GPU") != std::string::npos);
    auto const h = cd.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) bad += !(h(i, j) == c(i, j));
    BOOST_TEST(bad == 0u, "semiring " << typeid(S).name() << " " << m << "x" << k << "x" << n);
}
/// n x n, Poisson(per_row) distinct random columns a row, values 1..9.
csr_matrix<float, std::int32_t> random_csr(std::size_t n, double per_row, std::mt19937& g) {
    std::poisson_distribution<int> len(per_row);
    std::uniform_int_distribution<std::size_t> col(0, n - 1);
    std::uniform_int_distribution<int> val(1, 9);
    dense_matrix<float> d(n, n, min_plus<float>::zero());
    for (std::size_t i = 0; i < n; ++i)
        for (int k = len(g); k > 0; --k) d(i, col(g)) = float(val(g));
    return to_csr<float, std::int32_t>(d, min_plus<float>::zero());
}
}  // namespace

// Named `small`: bench/gpu/run.sh runs the `small` cases of every GPU suite under compute-sanitizer.
BOOST_AUTO_TEST_CASE(small) {
    if (!have_gpu()) return;
    for (bool acc : {false, true}) {
        check<min_plus<float>>(130, 77, 201, acc);
        check<min_plus<std::int32_t>>(64, 300, 33, acc);
        check<plus_times<double>>(50, 50, 50, acc);
        check<max_min<std::int64_t>>(17, 129, 65, acc);
        check<plus_pair<std::int32_t>>(40, 90, 70, acc);  // zero does not annihilate pair
        check<min_first<float>>(33, 45, 12, acc);
    }
}

namespace {
/// cuda::dense_gemm's sampled form against the host's product: C filled with a sentinel first;
/// a tile of C holding an entry the mask allows must hold the product in every entry, any other
/// tile the sentinel (`whole`: every tile computed, cuBLAS or a sub-block). The mask: tiles of
/// 128 x 128 below the diagonal of tiles, and one entry of tile (0, 1).
template <class S>
void check_sampled(std::size_t m, std::size_t k, std::size_t n, bool complemented, context& ctx,
                   bool whole = false) {
    using T = typename S::value_type;
    std::mt19937 g(m * 17 + k * 3 + n + complemented);
    auto const a = random_dense<S>(m, k, g), b = random_dense<S>(k, n, g);
    dense_matrix<T> want(m, n);
    mxm(want, a, b, S{});
    dense_matrix<std::uint8_t> flags(m, n);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            bool const allow = i / 128 > j / 128 || (i == 5 && j == 130);
            flags(i, j) = std::uint8_t(allow != complemented);  // complemented: the same tiles
        }
    T const sentinel = T(12345);
    auto const ad = a.to_device(), bd = b.to_device();
    auto const fd = flags.to_device();
    auto cd = dense_matrix<T>(m, n, sentinel).to_device();
    auto view = mask(fd);
    view.complemented = complemented;
    cuda::dense_gemm<S>(ad.view(), bd.view(), cd.view(), cuda::dense_mask(view, ctx), ctx);
    auto const got = cd.to_host();
    std::size_t bad = 0, live = 0, dead = 0;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            bool const tile_live = whole || i / 128 > j / 128 || (i / 128 == 0 && j / 128 == 1);
            (tile_live ? live : dead) += 1;
            bad += !(got(i, j) == (tile_live ? want(i, j) : sentinel));
        }
    BOOST_TEST(bad == 0u, typeid(S).name() << " " << m << "x" << k << "x" << n
                                           << (complemented ? " complemented" : "")
                                           << (whole ? " whole" : ""));
    BOOST_TEST(live > 0u);
    if (!whole) BOOST_TEST(dead > 0u);
}
}  // namespace

BOOST_AUTO_TEST_CASE(sampled_gemm_computes_the_masks_tiles) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    context ctx;
    ctx.tune.use_cublas = false;
    // The staged kernel (rows of B 16-byte aligned), the register-tiled one (n odd), integer
    // min_plus's range-checked kernels and split k (9 blocks, k of 33 tiles), double, and the
    // complemented mask.
    for (bool comp : {false, true}) {
        check_sampled<min_plus<float>>(300, 70, 260, comp, ctx);
        check_sampled<min_plus<float>>(300, 70, 259, comp, ctx);
        check_sampled<min_plus<std::int32_t>>(300, 1050, 260, comp, ctx);
        check_sampled<plus_times<double>>(260, 40, 390, comp, ctx);
        check_sampled<plus_times<float>>(390, 33, 300, comp, ctx);
    }
    ctx.tune.split_k_blocks = 0;
    check_sampled<min_plus<std::int32_t>>(300, 1050, 260, false, ctx);
    // cuBLAS computes all of C.
    context blas;
    blas.tune.use_cublas = true;
    check_sampled<plus_times<float>>(390, 33, 300, false, blas, true);
    // A mask of another size; a sub-block C is computed whole.
    dense_matrix<float, device> a(4, 3), b(3, 5), c(4, 5);
    dense_matrix<std::uint8_t, device> wrong(4, 6);
    BOOST_CHECK_THROW(cuda::dense_gemm<min_plus<float>>(a.view(), b.view(), c.view(),
                                                         cuda::dense_mask(mask(wrong), ctx), ctx),
                      dimension_mismatch);
    std::mt19937 g(3);
    auto const ah = random_dense<min_plus<float>>(200, 20, g);
    auto const bh = random_dense<min_plus<float>>(20, 300, g);
    dense_matrix<float> want(200, 300);
    mxm(want, ah, bh, min_plus<float>{});
    auto big = dense_matrix<float>(200, 400, 7.0f).to_device();
    dense_view<float, device> sub{big.data(), 200, 300, 400};
    auto const none = dense_matrix<std::uint8_t>(200, 300, std::uint8_t(0)).to_device();
    cuda::dense_gemm<min_plus<float>>(ah.to_device().view(), bh.to_device().view(), sub,
                                      cuda::dense_mask(mask(none), ctx), ctx);
    auto const back = big.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < 200; ++i)
        for (std::size_t j = 0; j < 400; ++j)
            bad += !(back(i, j) == (j < 300 ? want(i, j) : 7.0f));
    BOOST_TEST(bad == 0u);
}

namespace {
/// mxm(C<M>, accum, A, B) into a dense C holding c0, on the device against the host, for every
/// view of the mask mk (none, valued, structural, complemented), accumulator and replace; where a
/// mask is given, the device's trace must say `says`.
template <class S, class AH, class BH, class AD, class BD>
void check_masked_into_dense(AH const& a, BH const& b, AD const& ad, BD const& bd,
                             dense_matrix<typename S::value_type> const& c0,
                             dense_matrix<std::int32_t> const& mk,
                             dense_matrix<std::int32_t, device> const& mkd, std::string const& says) {
    kleene::test::for_all_write_backs<typename S::value_type>([&](auto kind, auto accum,
                                                                  bool replace) {
        options o;
        o.replace = replace;
        auto want = c0;
        auto got = c0.to_device();
        explain_trace why;
        kleene::test::with_mask(kind, mk, [&](auto mv) { mxm(want, mv, accum, a, b, S{}, o); });
        o.explain = &why;
        kleene::test::with_mask(kind, mkd, [&](auto mv) { mxm(got, mv, accum, ad, bd, S{}, o); });
        std::string const what = says + ": " + kleene::test::describe(kind, accum, replace);
        if (kind != kleene::test::mask_kind::none)
            BOOST_TEST((why.str().find(says) != std::string::npos), what << ": " << why.str());
        auto const h = got.to_host();
        std::size_t bad = 0;
        for (std::size_t q = 0; q < c0.rows() * c0.cols(); ++q)
            bad += !(h.data()[q] == want.data()[q]);
        BOOST_TEST(bad == 0u, what);
    });
}
}  // namespace

/// mxm into a dense C under a dense mask (the sampled GEMM, then the masked write-back) against the
/// host, for a mask whose allowed entries leave tiles empty, every mask kind and accumulator.
BOOST_AUTO_TEST_CASE(masked_dense_gemm_matches_the_host) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    std::mt19937 g(9);
    using S = min_plus<float>;
    std::size_t const m = 300, k = 40, n = 280;
    auto const a = random_dense<S>(m, k, g), b = random_dense<S>(k, n, g);
    auto const c0 = random_dense<S>(m, n, g);
    dense_matrix<std::int32_t> mk(m, n);
    std::uniform_int_distribution<int> v(0, 2);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) mk(i, j) = i / 128 >= j / 128 ? v(g) : 0;
    auto const ad = a.to_device(), bd = b.to_device();
    auto const mkd = mk.to_device();
    check_masked_into_dense<S>(a, b, ad, bd, c0, mk, mkd, "over the 128 x 128 tiles");
}

namespace {
/// m x k CSR of Poisson(per_row) distinct columns a row, values 1..9; rows in `long_rows` hold
/// `long_len` entries (past spmm's 1024: its long-row kernel).
csr_matrix<float, std::int32_t> random_csr(std::size_t m, std::size_t k, double per_row,
                                           std::mt19937& g, std::size_t long_rows = 0,
                                           std::size_t long_len = 0) {
    std::poisson_distribution<int> len(per_row);
    std::uniform_int_distribution<std::size_t> col(0, k - 1);
    std::uniform_int_distribution<int> val(1, 9);
    dense_matrix<float> d(m, k, min_plus<float>::zero());
    for (std::size_t i = 0; i < m; ++i) {
        std::size_t const want = i < long_rows ? long_len : std::size_t(len(g));
        for (std::size_t e = 0; e < want; ++e) d(i, i < long_rows ? e : col(g)) = float(val(g));
    }
    return to_csr<float, std::int32_t>(d, min_plus<float>::zero());
}

/// The flags of the sampled SpMM / spgemm_dense cases: rows i % 4 == 0 forbidden whole, the others
/// every other pass of 128 columns, four entries of five in it.
bool sample_allows(std::size_t i, std::size_t j) {
    return i % 4 != 0 && (j / 128 + i) % 2 == 0 && (i * 31 + j * 17) % 5 != 0;
}
}  // namespace

/// cuda::spmm and cuda::spgemm_dense sampled by a dense mask (sparse_options::sample) against the
/// host's product: the entries the mask allows hold the product (or C's value (+) it,
/// accumulating), the others keep C's value (spmm, and spgemm_dense accumulating: neither writes
/// them). Short and long rows (spmm's long-row kernel), complemented masks, a wrong-sized mask.
BOOST_AUTO_TEST_CASE(sampled_spmm_and_spgemm_dense_compute_the_masks_entries) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    using S = min_plus<float>;
    std::mt19937 g(12);
    std::size_t const m = 300, k = 1300, n = 390;
    auto const a = random_csr(m, k, 12.0, g, 6, 1200);
    auto const b = random_dense<S>(k, n, g);
    auto const bs = random_csr(k, n, 5.0, g);
    dense_matrix<float> want(m, n), want_s(m, n);
    mxm(want, a, b, S{});
    mxm(want_s, a, bs, S{});
    auto const c0 = random_dense<S>(m, n, g);
    auto const ad = a.to_device();
    auto const bd = b.to_device();
    auto const bsd = bs.to_device();
    float const sentinel = 12345.0f;
    for (bool comp : {false, true}) {
        dense_matrix<std::uint8_t> flags(m, n);
        std::size_t allowed = 0;
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                flags(i, j) = std::uint8_t(sample_allows(i, j) != comp);
                allowed += sample_allows(i, j);
            }
        BOOST_REQUIRE(allowed > 0u && allowed < m * n);
        auto const fd = flags.to_device();
        auto view = mask(fd);
        view.complemented = comp;
        cuda::dense_mask const dm(view);
        // form 0: spmm into C = sentinel; 1: spmm accumulating into c0; 2: spgemm_dense
        // accumulating into c0; 3: spgemm_dense (the entries outside the mask unspecified).
        for (int form = 0; form < 4; ++form) {
            bool const acc = form == 1 || form == 2;
            auto cd = (form == 0 ? dense_matrix<float>(m, n, sentinel) : c0).to_device();
            cuda::sparse_options o{.backend = cuda::sparse_backend::generic, .accumulate = acc};
            o.sample = &dm;
            if (form < 2) cuda::spmm<S, std::int32_t>(cd.view(), ad, bd.view(), o);
            else cuda::spgemm_dense<S, std::int32_t>(cd.view(), ad, bsd, o);
            auto const got = cd.to_host();
            auto const& w = form < 2 ? want : want_s;
            std::size_t bad = 0;
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    float const before = form == 0 ? sentinel : c0(i, j);
                    if (sample_allows(i, j))
                        bad += !(got(i, j) == (acc ? S::add(c0(i, j), w(i, j)) : w(i, j)));
                    else if (form != 3)
                        bad += !(got(i, j) == before);
                }
            BOOST_TEST(bad == 0u, "form " << form << (comp ? " complemented" : ""));
        }
    }
    // A mask of another size than C.
    auto const wrong = dense_matrix<std::uint8_t>(m, n + 1, std::uint8_t(1)).to_device();
    cuda::dense_mask const wm(mask(wrong));
    dense_matrix<float, device> cd(m, n);
    cuda::sparse_options o{.backend = cuda::sparse_backend::generic};
    o.sample = &wm;
    BOOST_CHECK_THROW((cuda::spmm<S, std::int32_t>(cd.view(), ad, bd.view(), o)),
                      dimension_mismatch);
    BOOST_CHECK_THROW((cuda::spgemm_dense<S, std::int32_t>(cd.view(), ad, bsd, o)),
                      dimension_mismatch);
}

/// mxm into a dense C under a dense mask with a CSR A: B dense (the sampled SpMM) and B CSR (the
/// sampled spgemm_dense), then the masked write-back, against the host for every mask kind and
/// accumulator; the trace says the product was sampled.
BOOST_AUTO_TEST_CASE(masked_spmm_and_spgemm_dense_match_the_host) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    std::mt19937 g(10);
    using S = min_plus<float>;
    std::size_t const m = 260, k = 90, n = 300;
    auto const a = random_csr(m, k, 9.0, g);
    auto const b = random_dense<S>(k, n, g);
    auto const bs = random_csr(k, n, 6.0, g);
    auto const c0 = random_dense<S>(m, n, g);
    dense_matrix<std::int32_t> mk(m, n);
    std::uniform_int_distribution<int> v(0, 2);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) mk(i, j) = sample_allows(i, j) ? v(g) : 0;
    auto const ad = a.to_device();
    auto const bd = b.to_device();
    auto const bsd = bs.to_device();
    auto const mkd = mk.to_device();
    check_masked_into_dense<S>(a, b, ad, bd, c0, mk, mkd, "of the entries the mask allows");
    check_masked_into_dense<S>(a, bs, ad, bsd, c0, mk, mkd,
                               "of the products into entries the mask allows");
}

/// C as an operand of its own product on the device (C = A C by the SpMM, C = C A and C = C C by
/// the GEMM, C<M> accumulated by the sampled SpMM) equals the host's product into a separate
/// matrix: mxm computes into a temporary first (the GEMM alone refuses an overlapping C).
BOOST_AUTO_TEST_CASE(c_as_an_operand_on_the_device) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    std::mt19937 g(12);
    using S = min_plus<float>;
    using add = typename S::add_monoid::op_type;
    std::size_t const n = 300;
    auto const a = random_csr(n, 6.0, g);
    auto const c0 = random_dense<S>(n, n, g);
    dense_matrix<std::int32_t> mk(n, n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) mk(i, j) = sample_allows(i, j) ? 1 : 0;
    auto const ad = a.to_device();
    auto const mkd = mk.to_device();
    // host(ref, before) into a separate output against dev(x) with x also the input, from x0.
    auto const check_from = [](std::string const& what, auto const& x0, auto host, auto dev) {
        auto ref = x0;
        auto const before = x0;
        host(ref, before);
        auto xd = x0.to_device();
        dev(xd);
        kleene::test::check_same(ref, xd, what);
    };
    auto const check = [&](std::string const& what, auto host, auto dev) {
        check_from(what, c0, host, dev);
    };
    check("C = A C", [&](auto& c, auto const& x) { mxm(c, a, x, S{}); },
          [&](auto& c) { mxm(c, ad, c, S{}); });
    check("C = C A", [&](auto& c, auto const& x) { mxm(c, x, a, S{}); },
          [&](auto& c) { mxm(c, c, ad, S{}); });
    check("C = C C", [&](auto& c, auto const& x) { mxm(c, x, x, S{}); },
          [&](auto& c) { mxm(c, c, c, S{}); });
    check("C<M> min= A C", [&](auto& c, auto const& x) { mxm(c, mask(mk), add{}, a, x, S{}); },
          [&](auto& c) { mxm(c, mask(mkd), add{}, ad, c, S{}); });
    // The other operations with C as an input: element-wise, hence safe in place, or through
    // their own temporaries.
    check("C = C min C", [&](auto& c, auto const& x) { ewise_add(c, add{}, x, x); },
          [&](auto& c) { ewise_add(c, add{}, c, c); });
    check("C<C> = C + C", [&](auto& c, auto const& x) {
        ewise_mult(c, mask(x), no_accum, plus_op<float>{}, x, x);
    }, [&](auto& c) { ewise_mult(c, mask(c), no_accum, plus_op<float>{}, c, c); });
    auto const plus1 = bind_second(plus_op<float>{}, 1.0f);
    check("C = C + 1", [&](auto& c, auto const& x) { apply(c, plus1, x); },
          [&](auto& c) { apply(c, plus1, c); });
    check("C = C'", [&](auto& c, auto const& x) { transpose(c, x); },
          [&](auto& c) { transpose(c, c); });
    std::vector<std::int64_t> rev(n);
    for (std::size_t i = 0; i < n; ++i) rev[i] = std::int64_t(n - 1 - i);
    check("C = C(rev, rev)", [&](auto& c, auto const& x) { extract(c, x, rev, rev); },
          [&](auto& c) { extract(c, c, rev, rev); });
    check("C(rev, rev) = C", [&](auto& c, auto const& x) { assign(c, x, rev, rev); },
          [&](auto& c) { assign(c, c, rev, rev); });
    // w as the input of its own product (w = A w: the SpMV writes w while other rows read u).
    dense_vector<float> w0(n), wm(n);
    for (std::size_t i = 0; i < n; ++i) {
        w0[i] = i % 3 == 0 ? S::zero() : float(i % 17);
        wm[i] = float(i % 2);
    }
    auto const wmd = wm.to_device();
    auto const check_w = [&](std::string const& what, auto host, auto dev) {
        check_from(what, w0, host, dev);
    };
    check_w("w = A w", [&](auto& w, auto const& u) { mxv(w, a, u, S{}); },
            [&](auto& w) { mxv(w, ad, w, S{}); });
    check_w("w = w A", [&](auto& w, auto const& u) { vxm(w, u, a, S{}); },
            [&](auto& w) { vxm(w, w, ad, S{}); });
    check_w("w<m> min= A w", [&](auto& w, auto const& u) { mxv(w, mask(wm), add{}, a, u, S{}); },
            [&](auto& w) { mxv(w, mask(wmd), add{}, ad, w, S{}); });
}

BOOST_AUTO_TEST_CASE(device_mxm_shape_error) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    dense_matrix<float, device> a(3, 4), b(5, 2), c(3, 2);
    BOOST_CHECK_THROW(mxm(c, a, b, min_plus<float>{}), dimension_mismatch);
    options cpu;
    cpu.device = device_choice::cpu;
    dense_matrix<float, device> b2(4, 2);
    BOOST_CHECK_THROW(mxm(c, a, b2, min_plus<float>{}, cpu), invalid_argument);
}

/// mxm into a device `matrix`: the output's storage follows the estimated density (computed on
/// the GPU, equal to the host's estimate), the trace says which and why, pins win, and both
/// storages hold the host product's entries.
BOOST_AUTO_TEST_CASE(device_csr_output_follows_density) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    std::mt19937 g(21);
    using S = min_plus<float>;
    struct input {
        std::size_t n;
        double per_row;
        bool dense;
    };
    for (auto [n, per_row, want_dense] : {input{300, 2.0, false}, input{300, 40.0, true}}) {
        auto const a = random_csr(n, per_row, g);
        auto const ad = a.to_device();
        csr_matrix<float, std::int32_t> host_c(n, n);
        mxm(host_c, a, a, S{});
        for (auto fmt : {output_choice::automatic, output_choice::csr, output_choice::dense}) {
            explain_trace trace;
            options opt;
            opt.explain = &trace;
            opt.output_format = fmt;
            matrix<float, std::int32_t, device> c;
            mxm(c, ad, ad, S{}, opt);
            bool const expect_dense = fmt == output_choice::automatic ? want_dense
                                                                      : fmt == output_choice::dense;
            BOOST_TEST(c.is_dense() == expect_dense);
            std::string const text = trace.str();
            BOOST_TEST((text.find("on the GPU: estimated output density") != std::string::npos),
                       text);
            BOOST_TEST((text.find(expect_dense ? "dense output" : "csr output") !=
                        std::string::npos),
                       text);
            BOOST_TEST((text.find(expect_dense ? "spgemm_dense" : "cuda spgemm (") !=
                        std::string::npos),
                       text);
            auto const got = c.to_host().to_csr();
            BOOST_TEST(got.nnz() == host_c.nnz());
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t k = host_c.row_begin(i); k < host_c.row_end(i); ++k) {
                    auto const at = got.find(i, std::size_t(host_c.col_idx()[k]));
                    bad += at < 0 || !(got.value(std::size_t(at)) == host_c.value(k));
                }
            BOOST_TEST(bad == 0u);
        }
        // The device estimate is the host's formula.
        double host_est = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double f = 0;
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
                auto const j = std::size_t(a.col_idx()[k]);
                f += double(a.row_end(j) - a.row_begin(j));
            }
            host_est += 1.0 - std::exp(-f / double(n));
        }
        host_est /= double(n);
        BOOST_TEST(cuda::product_density(ad, ad) == host_est, boost::test_tools::tolerance(1e-9));
        BOOST_TEST(((host_est >= options{}.dense_output_threshold) == want_dense));
    }
}

// ---- masked dot products: C<M> accum= A (+).(x) transpose(Bt) -------------------------------------

namespace {
namespace kt = kleene::test;
using kleene::test::needs;

/// Bt with its columns moved right by `shift` into `cols` columns: rows that meet none of A's when
/// A's columns are all below `shift`.
template <class T, class I>
csr_matrix<T, I> shifted(csr_matrix<T, I> const& m, std::size_t shift, std::size_t cols) {
    buffer<I> ptr(m.rows() + 1), col(m.nnz());
    buffer<T> val(m.nnz());
    for (std::size_t i = 0; i <= m.rows(); ++i) ptr[i] = m.row_ptr()[i];
    for (std::size_t q = 0; q < m.nnz(); ++q) {
        col[q] = static_cast<I>(std::size_t(m.col_idx()[q]) + shift);
        val[q] = m.value(q);
    }
    return csr_matrix<T, I>(m.rows(), cols, std::move(ptr), std::move(col), std::move(val));
}

/// A mask allowing every entry of an m x n output (values 0, 1 or 2: a valued view allows 2/3).
template <class I>
csr_matrix<std::int32_t, I> full_mask(std::size_t m, std::size_t n, kt::rng& g) {
    dense_matrix<std::int32_t> d(m, n);
    for (std::size_t q = 0; q < m * n; ++q) d.data()[q] = std::int32_t(g() % 3);
    return to_csr<std::int32_t, I>(d, std::int32_t(-1));  // -1: none absent
}

/// f(kernel, vh, vd, accum, replace, how) for `pin` and automatic, valued and structural views
/// vh / vd of the host and device masks, replace or not, every accumulator; `how` names the case.
template <class T, class I, class F>
void for_each_masked_case(kernel_choice pin, csr_matrix<std::int32_t, I> const& msk,
                          csr_matrix<std::int32_t, I, device> const& md, std::string const& what,
                          F&& f) {
    for (auto kernel : {pin, kernel_choice::automatic})
        for (bool structural : {false, true})
            for (bool replace : {false, true})
                kt::for_each(kt::accums<T>(), [&](auto accum) {
                    std::string const how =
                        what + (kernel == kernel_choice::automatic ? " automatic" : " pinned") +
                        (structural ? " structural" : " valued") + " accum " +
                        typeid(accum).name() + (replace ? " replace" : "");
                    BOOST_TEST_CHECKPOINT(how);
                    auto vh = mask(msk);
                    auto vd = mask(md);
                    vh.structural = vd.structural = structural;
                    f(kernel, vh, vd, accum, replace, how);
                });
}

/// C<M> accum= A (+).(x) transpose(Bt) on device containers against the same call on host
/// containers, entry by entry: valued and structural masks, no accumulator, plus and min, replace
/// or not, kernel masked_dot pinned and automatic. `want_dot`: what the automatic choice must be
/// (-1: either). Returns how many of the host results had entries (so a caller can make sure the
/// comparisons were not all of empty matrices).
template <class S, class I>
std::size_t masked_dot_matches_host(csr_matrix<typename S::value_type, I> const& a,
                                    csr_matrix<typename S::value_type, I> const& bt,
                                    csr_matrix<std::int32_t, I> const& msk, kt::rng& g,
                                    std::string const& what, int want_dot = -1) {
    using T = typename S::value_type;
    auto const c0 = kt::random_csr<T, I>(a.rows(), bt.rows(), 2.0, g);
    auto const ad = a.to_device(), btd = bt.to_device();
    auto const md = msk.to_device();
    std::size_t nonempty = 0;
    for_each_masked_case<T>(
        kernel_choice::masked_dot, msk, md, what,
        [&](kernel_choice kernel, auto const& vh, auto const& vd, auto accum, bool replace,
            std::string const& how) {
            options o;
            o.kernel = kernel;
            o.replace = replace;
            csr_matrix<T, I> want = c0;
            mxm(want, vh, accum, a, transpose(bt), S{}, o);
            explain_trace why;
            o.explain = &why;
            auto got = c0.to_device();
            mxm(got, vd, accum, ad, transpose(btd), S{}, o);
            bool const dot = why.str().find("cuda masked_dot (") != std::string::npos;
            if (kernel == kernel_choice::masked_dot) {
                BOOST_TEST(dot, how << ": " << why.str());
                BOOST_TEST((why.str().find("[pinned]") != std::string::npos), why.str());
            } else {
                BOOST_TEST(
                    dot != (why.str().find("masked_dot not taken (about") != std::string::npos),
                    why.str());
                if (want_dot >= 0) BOOST_TEST(dot == (want_dot == 1), how << ": " << why.str());
            }
            kt::check_same(want, got, how);
            nonempty += want.nnz() > 0;
            if constexpr (std::is_same_v<decltype(accum), no_accum_t>) {
                // Into an empty C (the product is then the result, without a merge).
                csr_matrix<T, I> want_new(a.rows(), bt.rows());
                mxm(want_new, vh, accum, a, transpose(bt), S{}, o);
                csr_matrix<T, I, device> got_new(a.rows(), bt.rows());
                mxm(got_new, vd, accum, ad, transpose(btd), S{}, o);
                kt::check_same(want_new, got_new, how + ", empty C");
            }
        });
    return nonempty;
}

/// Random A (m x k) and Bt (n x k) with small integer values and a random mask (a tenth of the
/// rows empty in each; with k > 500, three rows of k / 2 entries, whose pairs are queued for
/// lane groups), and the other cases: a mask with every entry, an empty mask, rows that never
/// meet.
template <class S, class I>
void masked_dot_shapes() {
    using T = typename S::value_type;
    kt::rng g(sizeof(T) * 10 + sizeof(I));
    struct shape {
        std::size_t m, k, n;
        double mean_a, mean_b;
    };
    std::size_t nonempty = 0;
    for (auto const& s : {shape{1, 1, 1, 1, 1}, shape{7, 5, 3, 2, 2}, shape{60, 40, 90, 6, 9},
                          shape{90, 700, 70, 12, 40}}) {
        std::string const what = kt::dims(s.m, s.k) + " x " + kt::dims(s.n, s.k) + "'";
        auto const a = kt::random_csr<T, I>(s.m, s.k, s.mean_a, g);
        auto const bt = kt::random_csr<T, I>(s.n, s.k, s.mean_b, g);
        nonempty += masked_dot_matches_host<S, I>(a, bt, kt::random_csr_mask<I>(s.m, s.n, g), g,
                                                  what + ", random mask");
        // Every entry allowed: the three long rows of A against Bt's (merged by lane groups)
        // and against the others (searched).
        nonempty +=
            masked_dot_matches_host<S, I>(a, bt, full_mask<I>(s.m, s.n, g), g, what + ", full mask");
        masked_dot_matches_host<S, I>(a, bt, csr_matrix<std::int32_t, I>(s.m, s.n), g,
                                      what + ", empty mask");
        // A's columns below k / 2, Bt's above: no row of A meets a row of Bt.
        if (s.k >= 2) {
            auto const half = kt::random_csr<T, I>(s.n, s.k / 2, s.mean_b, g);
            auto const a_low = kt::random_csr<T, I>(s.m, s.k / 2, s.mean_a, g);
            csr_matrix<T, I> const a_wide(s.m, s.k, a_low.row_ptr_storage(),
                                          a_low.col_idx_storage(), a_low.values_storage());
            masked_dot_matches_host<S, I>(a_wide, shifted(half, s.k / 2, s.k),
                                          full_mask<I>(s.m, s.n, g), g, what + ", rows never meet");
        }
    }
    BOOST_TEST(nonempty > 8u);  // the comparisons saw entries
}
}  // namespace

/// Rows of A long enough to be hashed (cuda::masked_dot's masked_dot_hashed: A(i,:) past 256
/// entries, its mask row at least a 32nd as long): three rows of 6,000 entries (three tables
/// each), mask rows of 1,500 entries (past a block's tile, so a row spans blocks and a block's
/// tile spans rows) and rows of Bt as long as A's; then rows of A of about 300 entries against
/// rows of Bt of 500, longer than A's (those entries stay with the dot products' own kernels).
template <class S, class I>
void masked_dot_hashed_rows() {
    using T = typename S::value_type;
    kt::rng g(sizeof(T) * 10 + sizeof(I) + 7);
    std::size_t nonempty = 0;
    auto const a = kt::random_csr<T, I>(40, 12000, 20, g);
    auto const bt = kt::random_csr<T, I>(1500, 12000, 30, g);
    nonempty += masked_dot_matches_host<S, I>(a, bt, full_mask<I>(40, 1500, g), g,
                                              "hashed rows of 6000, full mask");
    nonempty += masked_dot_matches_host<S, I>(a, bt, kt::random_csr_mask<I>(40, 1500, g), g,
                                              "hashed rows of 6000, random mask");
    auto const a2 = kt::random_csr<T, I>(300, 1000, 300, g);
    auto const bt2 = kt::random_csr<T, I>(600, 1000, 40, g);
    nonempty += masked_dot_matches_host<S, I>(a2, bt2, full_mask<I>(300, 600, g), g,
                                              "hashed rows of 300, rows of Bt of 500");
    BOOST_TEST(nonempty >= 3u);
}

BOOST_AUTO_TEST_CASE(masked_dot_hashed_rows_match_the_host) {
    if (!have_gpu(needs::minimal)) return;
    masked_dot_hashed_rows<plus_times<double>, std::int32_t>();
    masked_dot_hashed_rows<min_plus<float>, std::int32_t>();
    masked_dot_hashed_rows<plus_times<std::int64_t>, std::int64_t>();
}

BOOST_AUTO_TEST_CASE(masked_dot_matches_the_host) {
    if (!have_gpu(needs::minimal)) return;
    masked_dot_shapes<plus_times<float>, std::int32_t>();
    masked_dot_shapes<plus_times<double>, std::int32_t>();
    masked_dot_shapes<plus_times<std::int32_t>, std::int32_t>();
    masked_dot_shapes<plus_times<std::int64_t>, std::int32_t>();
    masked_dot_shapes<min_plus<float>, std::int32_t>();
    masked_dot_shapes<min_plus<double>, std::int32_t>();
    masked_dot_shapes<min_plus<std::int32_t>, std::int32_t>();
    masked_dot_shapes<min_plus<std::int64_t>, std::int32_t>();
    masked_dot_shapes<plus_times<float>, std::int64_t>();
    masked_dot_shapes<min_plus<std::int64_t>, std::int64_t>();
}

// ---- the masked Gustavson: C<M> accum= A (+).(x) B ----------------------------------------------

namespace {
/// C<M> accum= A (+).(x) B on device containers against the same call on host containers, entry
/// by entry (valued and structural masks, every accumulator, replace or not, kernel
/// gustavson_hash pinned and automatic), and the trace naming masked_saxpy. Returns how many of
/// the host results had entries.
template <class S, class I>
std::size_t masked_saxpy_matches_host(csr_matrix<typename S::value_type, I> const& a,
                                      csr_matrix<typename S::value_type, I> const& b,
                                      csr_matrix<std::int32_t, I> const& msk, kt::rng& g,
                                      std::string const& what) {
    using T = typename S::value_type;
    auto const c0 = kt::random_csr<T, I>(a.rows(), b.cols(), 2.0, g);
    auto const ad = a.to_device(), bd = b.to_device();
    auto const md = msk.to_device();
    std::size_t nonempty = 0;
    for_each_masked_case<T>(kernel_choice::gustavson_hash, msk, md, what,
                            [&](kernel_choice kernel, auto const& vh, auto const& vd, auto accum,
                                bool replace, std::string const& how) {
                                options oh;
                                oh.replace = replace;
                                csr_matrix<T, I> want = c0;
                                mxm(want, vh, accum, a, b, S{}, oh);
                                options o = oh;
                                o.kernel = kernel;
                                explain_trace why;
                                o.explain = &why;
                                auto got = c0.to_device();
                                mxm(got, vd, accum, ad, bd, S{}, o);
                                BOOST_TEST(
                                    (why.str().find("cuda masked_saxpy (") != std::string::npos),
                                    how << ": " << why.str());
                                kt::check_same(want, got, how);
                                nonempty += want.nnz() > 0;
                            });
    return nonempty;
}

/// Shapes for every tier: mask rows of a few entries (a warp a row), up to 512 and 4096 (more
/// warps, larger tables in shared memory), past 4096 (a table in global memory), and rows whose
/// products far outnumber their mask entries; a full mask, an empty one, rows of A that meet no
/// row of B.
template <class S, class I>
void masked_saxpy_shapes() {
    using T = typename S::value_type;
    kt::rng g(sizeof(T) * 7 + sizeof(I));
    struct shape {
        std::size_t m, k, n;
        double mean_a, mean_b;
    };
    std::size_t nonempty = 0;
    for (auto const& s : {shape{1, 1, 1, 1, 1}, shape{7, 5, 3, 2, 2}, shape{60, 40, 90, 6, 9},
                          shape{40, 300, 2000, 20, 300}, shape{3, 200, 12000, 60, 900}}) {
        std::string const what = kt::dims(s.m, s.k) + " x " + kt::dims(s.k, s.n);
        auto const a = kt::random_csr<T, I>(s.m, s.k, s.mean_a, g);
        auto const b = kt::random_csr<T, I>(s.k, s.n, s.mean_b, g);
        nonempty += masked_saxpy_matches_host<S, I>(a, b, kt::random_csr_mask<I>(s.m, s.n, g), g,
                                                    what + ", random mask");
        if (s.m * s.n <= 40000)
            nonempty += masked_saxpy_matches_host<S, I>(a, b, full_mask<I>(s.m, s.n, g), g,
                                                        what + ", full mask");
        masked_saxpy_matches_host<S, I>(a, b, csr_matrix<std::int32_t, I>(s.m, s.n), g,
                                        what + ", empty mask");
    }
    // Mask rows of 6,000 entries (the global tier), two thirds of them allowed when valued: rows
    // of A of 30 entries (one block's chunk) and of about 1,500 (three chunks over three blocks).
    {
        auto const a = kt::random_csr<T, I>(4, 50, 30, g);
        auto const b = kt::random_csr<T, I>(50, 6000, 2000, g);
        nonempty += masked_saxpy_matches_host<S, I>(a, b, full_mask<I>(4, 6000, g), g,
                                                    "4 x 50 x 6000, full mask (global tables)");
        auto const a2 = kt::random_csr<T, I>(3, 2000, 1500, g);
        auto const b2 = kt::random_csr<T, I>(2000, 6000, 5, g);
        nonempty += masked_saxpy_matches_host<S, I>(a2, b2, full_mask<I>(3, 6000, g), g,
                                                    "3 x 2000 x 6000, full mask (chunks)");
    }
    // Short mask rows but more than 2^18 products a row: the global tier too.
    {
        auto const a = kt::random_csr<T, I>(2, 6000, 5000, g);
        auto const b = kt::random_csr<T, I>(6000, 200, 100, g);
        nonempty += masked_saxpy_matches_host<S, I>(a, b, kt::random_csr_mask<I>(2, 200, g), g,
                                                    "2 x 6000 x 200, many products");
    }
    // A's columns below 20, B's rows there empty (its entries in rows 20..39): no product at all.
    {
        auto const a_low = kt::random_csr<T, I>(30, 20, 5, g);
        csr_matrix<T, I> const a_wide(30, 40, a_low.row_ptr_storage(), a_low.col_idx_storage(),
                                      a_low.values_storage());
        auto const top = kt::random_csr<T, I>(20, 20, 5, g);
        buffer<I> ptr(41);
        for (std::size_t i = 0; i <= 40; ++i) ptr[i] = i <= 20 ? I(0) : top.row_ptr()[i - 20];
        csr_matrix<T, I> const b_high(40, 20, std::move(ptr), top.col_idx_storage(),
                                      top.values_storage());
        masked_saxpy_matches_host<S, I>(a_wide, b_high, full_mask<I>(30, 20, g), g, "no products");
    }
    BOOST_TEST(nonempty > 8u);  // the comparisons saw entries
}
}  // namespace

BOOST_AUTO_TEST_CASE(masked_saxpy_matches_the_host) {
    if (!have_gpu(needs::minimal)) return;
    masked_saxpy_shapes<plus_times<float>, std::int32_t>();
    masked_saxpy_shapes<plus_times<double>, std::int32_t>();
    masked_saxpy_shapes<plus_times<std::int64_t>, std::int32_t>();
    masked_saxpy_shapes<min_plus<float>, std::int32_t>();
    masked_saxpy_shapes<min_plus<std::int32_t>, std::int32_t>();
    masked_saxpy_shapes<plus_times<double>, std::int64_t>();
}

/// What the masked Gustavson refuses: a complemented mask when pinned (automatic: the whole
/// product, merged), the pin without a mask, an absent mask and other shapes in
/// the backend call, cuSPARSE.
BOOST_AUTO_TEST_CASE(masked_saxpy_errors) {
    if (!have_gpu(needs::minimal)) return;
    using S = min_plus<float>;
    using I = std::int32_t;
    kt::rng g(5);
    auto const a = kt::random_csr<float, I>(20, 20, 4, g).to_device();
    auto const msk = kt::random_csr_mask<I>(20, 20, g).to_device();
    csr_matrix<float, I, device> c(20, 20);
    options pin;
    pin.kernel = kernel_choice::gustavson_hash;
    BOOST_CHECK_THROW(mxm(c, complement(structure(msk)), no_accum, a, a, S{}, pin),
                      invalid_argument);
    BOOST_CHECK_THROW(mxm(c, no_mask, no_accum, a, a, S{}, pin), invalid_argument);
    csr_matrix<float, I, device> c2(20, 20);
    explain_trace why;
    mxm(c2, complement(structure(msk)), no_accum, a, a, S{}, {.explain = &why});
    BOOST_TEST(why.str().find("masked_saxpy") == std::string::npos, why.str());
    auto const host = a.to_host();
    csr_matrix<float, I> want(20, 20);
    mxm(want, complement(structure(msk.to_host())), no_accum, host, host, S{});
    kt::check_same(want, c2, "complemented mask, automatic");

    csr_matrix<float, I, device> t;
    BOOST_CHECK_THROW((cuda::masked_saxpy<S, I>(t, cuda::csr_mask<I>{}, a, a)), invalid_argument);
    cuda::csr_mask<I> const m(structure(msk));
    csr_matrix<float, I, device> wide(21, 20);
    BOOST_CHECK_THROW((cuda::masked_saxpy<S, I>(t, m, a, wide)), dimension_mismatch);
    cuda::sparse_options vendor;
    vendor.backend = cuda::sparse_backend::cusparse;
    BOOST_CHECK_THROW((cuda::masked_saxpy<S, I>(t, m, a, a, vendor)), invalid_argument);
}

// ---- masked products with a dense B: C<M> accum= A (+).(x) B, A CSR or dense ---------------

namespace {
/// C<M> accum= A (+).(x) B with a dense B on device containers against the same call on host
/// containers, entry by entry, for a CSR A and the same A dense (valued and structural masks,
/// every accumulator, replace or not, kernel masked_dot pinned and automatic), and the same dense A
/// times B as CSR; the trace naming masked_spmm / masked_gemm / masked_dot_dense where pinned.
/// Returns how many host results had entries.
template <class S, class I>
std::size_t masked_dense_matches_host(csr_matrix<typename S::value_type, I> const& a,
                                      dense_matrix<typename S::value_type> const& b,
                                      csr_matrix<std::int32_t, I> const& msk, kt::rng& g,
                                      std::string const& what) {
    using T = typename S::value_type;
    auto const c0 = kt::random_csr<T, I>(a.rows(), b.cols(), 2.0, g);
    auto const a_dense = to_dense(a, S::zero());
    auto const b_csr = to_csr<T, I>(b, S::zero());
    auto const ad = a.to_device();
    auto const add = a_dense.to_device();
    auto const bd = b.to_device();
    auto const bcd = b_csr.to_device();
    auto const md = msk.to_device();
    std::size_t nonempty = 0;
    for_each_masked_case<T>(kernel_choice::masked_dot, msk, md, what,
                            [&](kernel_choice kernel, auto const& vh, auto const& vd, auto accum,
                                bool replace, std::string const& how) {
                                options oh;
                                oh.replace = replace;
                                csr_matrix<T, I> want = c0;
                                mxm(want, vh, accum, a, b, S{}, oh);
                                nonempty += want.nnz() > 0;
                                options o = oh;
                                o.kernel = kernel;
                                for (int form = 0; form < 3; ++form) {
                                    // CSR A, dense A (dense B), dense A and CSR B.
                                    std::string const h = how + (form == 0   ? ", CSR A"
                                                                 : form == 1 ? ", dense A"
                                                                             : ", dense A, CSR B");
                                    BOOST_TEST_CHECKPOINT(h);
                                    explain_trace why;
                                    o.explain = &why;
                                    auto got = c0.to_device();
                                    if (form == 0)
                                        mxm(got, vd, accum, ad, bd, S{}, o);
                                    else if (form == 1)
                                        mxm(got, vd, accum, add, bd, S{}, o);
                                    else
                                        mxm(got, vd, accum, add, bcd, S{}, o);
                                    char const* name = form == 0   ? "cuda masked_spmm ("
                                                       : form == 1 ? "cuda masked_gemm ("
                                                                   : "cuda masked_dot_dense (";
                                    if (kernel == kernel_choice::masked_dot)
                                        BOOST_TEST((why.str().find(name) != std::string::npos),
                                                   h << ": " << why.str());
                                    if (form < 2) {
                                        kt::check_same(want, got, h);
                                    } else {
                                        csr_matrix<T, I> want_b = c0;
                                        mxm(want_b, vh, accum, a_dense, b_csr, S{}, oh);
                                        kt::check_same(want_b, got, h);
                                    }
                                }
                            });
    return nonempty;
}

/// Shapes: one entry; mask rows of a few entries (a warp a row, lanes idle); rows of A longer
/// than 32 (several rounds of shuffles); mask rows of 6,000 entries (188 chunks a row); a full
/// mask, an empty one, a k of zero.
template <class S, class I>
void masked_dense_shapes() {
    using T = typename S::value_type;
    kt::rng g(sizeof(T) * 11 + sizeof(I));
    struct shape {
        std::size_t m, k, n;
        double mean_a;
    };
    std::size_t nonempty = 0;
    for (auto const& s : {shape{1, 1, 1, 1}, shape{7, 5, 3, 2}, shape{60, 40, 90, 6},
                          shape{40, 300, 200, 100}, shape{3, 50, 6000, 20}, shape{5, 0, 7, 1}}) {
        std::string const what = kt::dims(s.m, s.k) + " x " + kt::dims(s.k, s.n);
        auto const a = kt::random_csr<T, I>(s.m, s.k, s.mean_a, g);
        auto const b = kt::random_dense<T>(s.k, s.n, S::zero(), g);
        nonempty += masked_dense_matches_host<S, I>(a, b, kt::random_csr_mask<I>(s.m, s.n, g), g,
                                                    what + ", random mask");
        if (s.m * s.n <= 20000)
            nonempty += masked_dense_matches_host<S, I>(a, b, full_mask<I>(s.m, s.n, g), g,
                                                        what + ", full mask");
        masked_dense_matches_host<S, I>(a, b, csr_matrix<std::int32_t, I>(s.m, s.n), g,
                                        what + ", empty mask");
    }
    BOOST_TEST(nonempty > 8u);  // the comparisons saw entries
}
}  // namespace

BOOST_AUTO_TEST_CASE(masked_dense_matches_the_host) {
    if (!have_gpu(needs::minimal)) return;
    masked_dense_shapes<plus_times<float>, std::int32_t>();
    masked_dense_shapes<plus_times<double>, std::int32_t>();
    masked_dense_shapes<plus_times<std::int64_t>, std::int32_t>();
    masked_dense_shapes<min_plus<float>, std::int32_t>();
    masked_dense_shapes<min_plus<std::int32_t>, std::int32_t>();
    masked_dense_shapes<plus_times<double>, std::int64_t>();
}

/// What the masked products with a dense B refuse: a complemented mask when pinned (automatic:
/// the whole product, merged, the same result); an absent mask, other shapes and cuSPARSE in the
/// backend calls. A sparse mask over a large product is taken automatically, a full one is not.
BOOST_AUTO_TEST_CASE(masked_dense_errors_and_choice) {
    if (!have_gpu(needs::minimal)) return;
    using S = plus_times<float>;
    using I = std::int32_t;
    kt::rng g(8);
    auto const a = kt::random_csr<float, I>(30, 20, 4, g);
    auto const b = kt::random_dense<float>(20, 25, 0.f, g);
    auto const msk = kt::random_csr_mask<I>(30, 25, g);
    auto const ad = a.to_device();
    auto const bd = b.to_device();
    auto const md = msk.to_device();
    csr_matrix<float, I, device> c(30, 25);
    options pin;
    pin.kernel = kernel_choice::masked_dot;
    BOOST_CHECK_THROW(mxm(c, complement(structure(md)), no_accum, ad, bd, S{}, pin),
                      invalid_argument);
    explain_trace why;
    mxm(c, complement(structure(md)), no_accum, ad, bd, S{}, {.explain = &why});
    BOOST_TEST(why.str().find("masked_spmm") == std::string::npos, why.str());
    csr_matrix<float, I> want(30, 25);
    mxm(want, complement(structure(msk)), no_accum, a, b, S{});
    kt::check_same(want, c, "complemented mask, automatic");

    csr_matrix<float, I, device> t;
    BOOST_CHECK_THROW((cuda::masked_spmm<S, I>(t, cuda::csr_mask<I>{}, ad, bd.view())),
                      invalid_argument);
    cuda::csr_mask<I> const m(structure(md));
    auto const wide = kt::random_dense<float>(21, 25, 0.f, g).to_device();
    BOOST_CHECK_THROW((cuda::masked_spmm<S, I>(t, m, ad, wide.view())), dimension_mismatch);
    auto const a_dense = to_dense(a, 0.f).to_device();
    BOOST_CHECK_THROW((cuda::masked_gemm<S, I>(t, m, a_dense.view(), wide.view())),
                      dimension_mismatch);
    // masked_dot_dense: Bt must have A's columns (20) and the mask's columns (25) as its rows.
    auto const bt_wrong = kt::random_csr<float, I>(25, 21, 3, g).to_device();
    BOOST_CHECK_THROW((cuda::masked_dot_dense<S, I>(t, m, a_dense.view(), bt_wrong)),
                      dimension_mismatch);
    auto const bt_ok = kt::random_csr<float, I>(25, 20, 3, g).to_device();
    BOOST_CHECK_THROW((cuda::masked_dot_dense<S, I>(t, cuda::csr_mask<I>{}, a_dense.view(), bt_ok)),
                      invalid_argument);
    cuda::sparse_options vendor;
    vendor.backend = cuda::sparse_backend::cusparse;
    BOOST_CHECK_THROW((cuda::masked_spmm<S, I>(t, m, ad, bd.view(), vendor)), invalid_argument);
    // The work sum: the mask's row lengths times A's.
    double want_work = 0;
    for (std::size_t i = 0; i < msk.rows(); ++i) {
        auto const mi = std::count_if(msk.values() + msk.row_begin(i),
                                      msk.values() + msk.row_end(i), [](auto v) { return v != 0; });
        want_work += double(mi) * double(a.row_end(i) - a.row_begin(i));
    }
    cuda::csr_mask<I> const valued(mask(md));
    BOOST_TEST(cuda::masked_spmm_work<I>(ad.row_ptr(), valued) == want_work);

    // The choice: 2,000 x 64 dense A and 64 x 2,000 B under 3 entries a row (taken) and a full
    // mask (not taken).
    auto const big_a = kt::random_dense<float>(2000, 64, 0.f, g).to_device();
    auto const big_b = kt::random_dense<float>(64, 2000, 0.f, g).to_device();
    for (bool sparse : {true, false}) {
        auto const mh = sparse ? kt::random_csr_mask<I>(2000, 2000, g)
                               : full_mask<I>(2000, 2000, g);
        auto const mdev = mh.to_device();
        explain_trace w2;
        csr_matrix<float, I, device> c2(2000, 2000), whole(2000, 2000);
        mxm(c2, structure(mdev), no_accum, big_a, big_b, S{}, {.explain = &w2});
        BOOST_TEST((w2.str().find("cuda masked_gemm (") != std::string::npos) == sparse, w2.str());
        BOOST_TEST((w2.str().find("dense B not taken (about") != std::string::npos) == !sparse,
                   w2.str());
        mxm(whole, structure(mdev), no_accum, big_a, big_b, S{},
            {.kernel = kernel_choice::dense_gemm});
        kt::check_same(whole.to_host(), c2, sparse ? "sparse mask" : "full mask");
    }
    // Into a dense C (masked_dense_model.hpp's dense-C weights: both sides make m x n entries,
    // the masked side 0.27 ms more once a call): 8,192 x 64 x 8,192 under 3 entries a row
    // (taken), under 1,024 a row (not taken), and the small product above under 3 a row (not
    // taken: the masked side's own steps outweigh a product of 2,000^2).
    auto const a8 = kt::random_dense<float>(8192, 64, 0.f, g).to_device();
    auto const b8 = kt::random_dense<float>(64, 8192, 0.f, g).to_device();
    for (int form = 0; form < 3; ++form) {
        std::size_t const n = form < 2 ? 8192 : 2000;
        auto const mh = form == 1 ? kt::random_csr<std::int32_t, I>(n, n, 1024.0, g)
                                  : kt::random_csr_mask<I>(n, n, g);
        auto const mdev = mh.to_device();
        explain_trace w2;
        dense_matrix<float, device> c2(n, n), whole(n, n);
        auto const& x = form < 2 ? a8 : big_a;
        auto const& y = form < 2 ? b8 : big_b;
        mxm(c2, structure(mdev), no_accum, x, y, S{}, {.explain = &w2});
        bool const taken = form == 0;
        BOOST_TEST((w2.str().find("cuda masked_gemm (") != std::string::npos) == taken, w2.str());
        BOOST_TEST((w2.str().find("dense B not taken (about") != std::string::npos) == !taken,
                   w2.str());
        mxm(whole, structure(mdev), no_accum, x, y, S{}, {.kernel = kernel_choice::dense_gemm});
        kt::check_same(whole.to_host(), c2, "dense C, form " + std::to_string(form));
    }
}

/// The automatic choice both ways, said in the trace with both numbers: a mask of about one entry
/// a row over a product of long rows takes the dot products; a full mask over rows that never
/// meet (no multiply-adds, so only the transpose against the merges) does not. The device sums
/// are the host model's (kleene::detail::masked_dot_costs) where no row of A is hashed (rows of
/// at most about 60 entries here); with hashed rows, each of their entries costs a step an entry
/// of Bt(j,:) plus one.
BOOST_AUTO_TEST_CASE(masked_dot_choice_follows_the_model) {
    if (!have_gpu(needs::minimal)) return;
    using S = plus_times<double>;
    using I = std::int32_t;
    kt::rng g(77);
    auto const a = kt::random_csr<double, I>(300, 300, 30, g);
    auto const bt = kt::random_csr<double, I>(300, 300, 30, g);
    auto const sparse = kt::random_csr_mask<I>(300, 300, g);
    BOOST_TEST((masked_dot_matches_host<S, I>(a, bt, sparse, g, "sparse mask", 1) > 0u));
    auto const half = kt::random_csr<double, I>(300, 150, 15, g);
    auto const low = kt::random_csr<double, I>(300, 150, 15, g);
    csr_matrix<double, I> const a_low(300, 300, low.row_ptr_storage(), low.col_idx_storage(),
                                      low.values_storage());
    masked_dot_matches_host<S, I>(a_low, shifted(half, 150, 300), full_mask<I>(300, 300, g), g,
                                  "full mask, rows never meet", 0);

    auto const md = sparse.to_device();
    cuda::csr_mask<I> const m(structure(md));
    auto const w = cuda::masked_dot_costs(a.to_device(), bt.to_device(), m);
    auto const [dot, saxpy] = kleene::detail::masked_dot_costs(a, bt, sparse);
    BOOST_TEST(w.dot == dot, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(w.flops == saxpy - 4.0 * double(bt.nnz()));
    BOOST_TEST(w.flops > 0);
    kleene::detail::gpu_masked_dot_rating const r{w.dot, w.flops, bt.nnz()};
    BOOST_TEST(r.dot_wins());

    // Three rows of A of 600 entries under mask rows of 300 (hashed: past 256 entries, the mask
    // row at least a 32nd as long), against rows of Bt of up to 600 (no longer: hashed too).
    auto const a_long = kt::random_csr<double, I>(40, 1200, 10, g);
    auto const bt_long = kt::random_csr<double, I>(300, 1200, 20, g);
    auto const full = full_mask<I>(40, 300, g);
    double want = 0;
    std::size_t hashed = 0;
    for (std::size_t i = 0; i < full.rows(); ++i) {
        double const la = double(a_long.row_end(i) - a_long.row_begin(i));
        double const mi = double(full.row_end(i) - full.row_begin(i));
        for (auto e = full.row_begin(i); e < full.row_end(i); ++e) {
            auto const j = std::size_t(full.col_idx()[e]);
            double const lb = double(bt_long.row_end(j) - bt_long.row_begin(j));
            bool const h = lb <= la && la > double(kleene::detail::dot_hash_min) &&
                           mi * double(kleene::detail::dot_hash_ratio) >= la;
            hashed += h;
            want += h ? lb + 1 : kleene::detail::dot_steps(la, lb);
        }
    }
    BOOST_TEST(hashed >= 900u);  // three rows of 300
    auto const fd = full.to_device();
    cuda::csr_mask<I> const mf(structure(fd));
    auto const wl = cuda::masked_dot_costs(a_long.to_device(), bt_long.to_device(), mf);
    BOOST_TEST(wl.dot == want, boost::test_tools::tolerance(1e-9));
}

/// What the masked dot products refuse, and how: a complemented mask, B not given transposed, no
/// mask (mxm's pin); an absent mask, other shapes, cuSPARSE (the backend call itself).
BOOST_AUTO_TEST_CASE(masked_dot_errors) {
    if (!have_gpu(needs::minimal)) return;
    using S = min_plus<float>;
    using I = std::int32_t;
    kt::rng g(3);
    auto const a = kt::random_csr<float, I>(20, 20, 4, g).to_device();
    auto const msk = kt::random_csr_mask<I>(20, 20, g).to_device();
    csr_matrix<float, I, device> c(20, 20);
    options pin;
    pin.kernel = kernel_choice::masked_dot;
    BOOST_CHECK_THROW(mxm(c, complement(structure(msk)), no_accum, a, transpose(a), S{}, pin),
                      invalid_argument);
    BOOST_CHECK_THROW(mxm(c, structure(msk), no_accum, a, a, S{}, pin), invalid_argument);
    BOOST_CHECK_THROW(mxm(c, no_mask, no_accum, a, transpose(a), S{}, pin), invalid_argument);
    csr_matrix<float, I, device> wide(20, 21);
    BOOST_CHECK_THROW(mxm(c, structure(msk), no_accum, a, transpose(wide), S{}, pin),
                      dimension_mismatch);
    // The complemented mask is served, automatically, by the old path.
    csr_matrix<float, I, device> c2(20, 20);
    explain_trace why;
    mxm(c2, complement(structure(msk)), no_accum, a, transpose(a), S{}, {.explain = &why});
    BOOST_TEST(why.str().find("masked_dot") == std::string::npos, why.str());

    csr_matrix<float, I, device> t;
    BOOST_CHECK_THROW((cuda::masked_dot<S, I>(t, cuda::csr_mask<I>{}, a, a)), invalid_argument);
    cuda::csr_mask<I> const m(structure(msk));
    BOOST_CHECK_THROW((cuda::masked_dot<S, I>(t, m, a, wide)), dimension_mismatch);
    cuda::sparse_options vendor;
    vendor.backend = cuda::sparse_backend::cusparse;
    BOOST_CHECK_THROW((cuda::masked_dot<S, I>(t, m, a, a, vendor)), invalid_argument);
    cuda::csr_mask<I> const comp(complement(structure(msk)));
    BOOST_CHECK_THROW((cuda::masked_dot<S, I>(t, comp, a, a)), invalid_argument);
}

/// plus_pair (triangle counting's semiring): where this build leaves it out of the CUDA backend
/// (minimal), automatic takes the old path (the JIT's SpGEMM) and says so, and the pin throws
/// missing_instance; where it is built, both run the dot products. Either way the host's result.
BOOST_AUTO_TEST_CASE(masked_dot_left_out_pair) {
    if (!have_gpu(needs::minimal)) return;
    using S = plus_pair<double>;
    using I = std::int32_t;
    kt::rng g(9);
    auto const a = kt::random_csr<double, I>(50, 40, 6, g);
    auto const bt = kt::random_csr<double, I>(60, 40, 6, g);
    auto const msk = kt::random_csr_mask<I>(50, 60, g);
    csr_matrix<double, I> want(50, 60);
    mxm(want, structure(msk), no_accum, a, transpose(bt), S{});
    auto const ad = a.to_device(), btd = bt.to_device();
    auto const md = msk.to_device();
    csr_matrix<double, I, device> got(50, 60);
    explain_trace why;
    mxm(got, structure(md), no_accum, ad, transpose(btd), S{}, {.explain = &why});
    kt::check_same(want, got, "plus_pair automatic");
    options pin;
    pin.kernel = kernel_choice::masked_dot;
    if constexpr (cuda::sparse_left_out<S, I>) {
        BOOST_TEST((why.str().find("masked_dot not taken (this semiring") != std::string::npos),
                   why.str());
        try {
            mxm(got, structure(md), no_accum, ad, transpose(btd), S{}, pin);
            BOOST_FAIL("expected missing_instance");
        } catch (missing_instance const& e) {
            BOOST_TEST((std::string(e.what()).find("masked_dot for plus_pair over fp64") !=
                        std::string::npos),
                       e.what());
        }
    } else {
        csr_matrix<double, I, device> pinned(50, 60);
        mxm(pinned, structure(md), no_accum, ad, transpose(btd), S{}, pin);
        kt::check_same(want, pinned, "plus_pair pinned");
    }
}

/// Semirings whose mul is not commutative keep A's value on the left (builtin pairs).
BOOST_AUTO_TEST_CASE(masked_dot_keeps_the_operand_order) {
    if (!have_gpu()) return;
    kt::rng g(17);
    using I = std::int64_t;
    auto const a = kt::random_csr<float, I>(40, 700, 20, g);
    auto const bt = kt::random_csr<float, I>(30, 700, 20, g);
    BOOST_TEST((masked_dot_matches_host<min_first<float>, I>(a, bt, full_mask<I>(40, 30, g), g,
                                                             "min_first") > 0u));
    BOOST_TEST((masked_dot_matches_host<min_second<float>, I>(a, bt, full_mask<I>(40, 30, g), g,
                                                              "min_second") > 0u));
}

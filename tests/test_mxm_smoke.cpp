#define BOOST_TEST_MODULE mxm_smoke
#include <boost/test/unit_test.hpp>
#include <kleene/kleene.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace kleene;

namespace {
csr_matrix<float> random_csr(std::size_t r, std::size_t c, double p, std::mt19937& g) {
    std::vector<int> I, J;
    std::vector<float> V;
    std::bernoulli_distribution keep(p);
    std::uniform_int_distribution<int> val(1, 9);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j)
            if (keep(g)) {
                I.push_back(int(i));
                J.push_back(int(j));
                V.push_back(float(val(g)));
            }
    return csr_matrix<float>::from_coo(r, c, I, J, V);
}

/// Entries where x and y differ (dense, one shape).
std::size_t differences(dense_matrix<float> const& x, dense_matrix<float> const& y) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.rows(); ++i)
        for (std::size_t j = 0; j < x.cols(); ++j) bad += !(x(i, j) == y(i, j));
    return bad;
}
std::size_t differences(dense_vector<float> const& x, dense_vector<float> const& y) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) bad += !(x[i] == y[i]);
    return bad;
}

/// f(x, x), the output also the input, against f(y, x0) into a separate output, both from x0.
template <class X, class F>
void check_self_input(std::string const& what, X const& x0, F f) {
    X self = x0, separate = x0;
    X const before = x0;
    f(self, self);
    f(separate, before);
    BOOST_TEST(differences(self, separate) == 0u, what);
}
}  // namespace

BOOST_AUTO_TEST_CASE(all_storage_pairs_agree) {
    std::mt19937 g(7);
    using S = min_plus<float>;
    for (auto [m, k, n] : {std::tuple{1, 1, 1}, {7, 5, 3}, {40, 33, 50}, {0, 3, 2}, {3, 0, 4}}) {
        auto a = random_csr(m, k, 0.3, g);
        auto b = random_csr(k, n, 0.3, g);
        auto ad = to_dense<S>(a);
        auto bd = to_dense<S>(b);
        csr_matrix<float> c1;
        c1 = csr_matrix<float>(m, n);
        mxm(c1, a, b, S{});
        dense_matrix<float> ref(m, n);
        mxm(ref, ad, bd, S{});
        BOOST_TEST(to_dense<S>(c1).storage().size() == ref.storage().size());
        auto c1d = to_dense<S>(c1);
        for (std::size_t x = 0; x < ref.storage().size(); ++x) BOOST_TEST(c1d.data()[x] == ref.data()[x]);
        dense_matrix<float> c2(m, n), c3(m, n), c4(m, n);
        mxm(c2, a, bd, S{});
        mxm(c3, ad, b, S{});
        mxm(c4, a, b, S{});
        for (std::size_t x = 0; x < ref.storage().size(); ++x) {
            BOOST_TEST(c2.data()[x] == ref.data()[x]);
            BOOST_TEST(c3.data()[x] == ref.data()[x]);
            BOOST_TEST(c4.data()[x] == ref.data()[x]);
        }
    }
}

BOOST_AUTO_TEST_CASE(shape_errors_name_both_shapes) {
    csr_matrix<float> a(3, 4), b(5, 2), c(3, 2);
    try {
        mxm(c, a, b, min_plus<float>{});
        BOOST_FAIL("expected dimension_mismatch");
    } catch (dimension_mismatch const& e) {
        std::string w = e.what();
        BOOST_TEST(w.find("3x4") != std::string::npos);
        BOOST_TEST(w.find("5x2") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(output_format_follows_density) {
    std::mt19937 g(11);
    using S = plus_times<float>;
    for (double p : {0.02, 0.5}) {
        auto a = random_csr(60, 70, p, g);
        auto b = random_csr(70, 50, p, g);
        matrix<float> c;
        explain_trace why;
        options opt;
        opt.explain = &why;
        mxm(c, a, b, S{}, opt);
        BOOST_TEST(c.is_dense() == (p > 0.1), why.str());
        csr_matrix<float> ref(60, 50);
        mxm(ref, a, b, S{});
        auto const got = c.to_csr();
        BOOST_TEST(got.nnz() == ref.nnz());
        for (std::size_t k = 0; k < ref.nnz() && k < got.nnz(); ++k) {
            BOOST_TEST(got.col_idx()[k] == ref.col_idx()[k]);
            BOOST_TEST(got.value(k) == ref.value(k));
        }
        opt.output_format = output_choice::csr;
        mxm(c, a, b, S{}, opt);
        BOOST_TEST(!c.is_dense());
    }
}

BOOST_AUTO_TEST_CASE(explain_and_pinning) {
    std::mt19937 g(5);
    using S = min_plus<float>;
    auto a = random_csr(30, 30, 0.2, g);
    csr_matrix<float> c1(30, 30), c2(30, 30);
    explain_trace why;
    options opt;
    opt.explain = &why;
    opt.kernel = kernel_choice::gustavson_hash;
    mxm(c1, a, a, S{}, opt);
    BOOST_TEST(why.str().find("gustavson_hash") != std::string::npos);
    BOOST_TEST(why.str().find("[pinned]") != std::string::npos);
    opt.kernel = kernel_choice::gustavson_dense;
    mxm(c2, a, a, S{}, opt);
    BOOST_TEST(c1.nnz() == c2.nnz());
    for (std::size_t k = 0; k < c1.nnz(); ++k) BOOST_TEST(c1.value(k) == c2.value(k));
    opt.kernel = kernel_choice::dense_gemm;  // not a sparse x sparse kernel
    BOOST_CHECK_THROW(mxm(c1, a, a, S{}, opt), invalid_argument);
}

/// The masked dot products' cost model (kleene/detail/masked_dot_model.hpp), host side: the merge
/// steps of one dot product, the host sums of C<M> = A B' (the GPU suite checks that the device
/// computes the same sums) and the GPU's rating of them, which the explain trace shows.
BOOST_AUTO_TEST_CASE(masked_dot_model) {
    using kleene::detail::dot_steps;
    BOOST_TEST(dot_steps(0, 5) == 1);
    BOOST_TEST(dot_steps(3, 4) == 7);          // merged: both lengths
    BOOST_TEST(dot_steps(16, 256) == 272);     // 16 x 16 is not below 256: still merged
    BOOST_TEST(dot_steps(2, 100) == dot_steps(100, 2));
    BOOST_TEST(dot_steps(2, 100) == 2 * (1 + std::log2(100.0)));  // searched

    // A: rows {0, 1}, {1, 2, 3}; Bt: rows {1}, {}, {0, 1, 2, 3}; M: (0, 0), (0, 2), (1, 1), (1, 2).
    auto const a = csr_matrix<float>::from_coo(2, 4, std::vector<int>{0, 0, 1, 1, 1},
                                               std::vector<int>{0, 1, 1, 2, 3}, {});
    auto const bt = csr_matrix<float>::from_coo(3, 4, std::vector<int>{0, 2, 2, 2, 2},
                                                std::vector<int>{1, 0, 1, 2, 3}, {});
    auto const m = csr_matrix<float>::from_coo(2, 3, std::vector<int>{0, 0, 1, 1},
                                               std::vector<int>{0, 2, 1, 2}, {});
    auto const [dot, saxpy] = kleene::detail::masked_dot_costs(a, bt, m);
    // (0,0): 2 + 1; (0,2): 2 + 4; (1,1): an empty row, 1; (1,2): 3 + 4.
    BOOST_TEST(dot == 17);
    // Columns of A: 1, 2, 1, 1; of Bt: 1, 2, 1, 1; transpose 4 x 5 entries.
    BOOST_TEST(saxpy == 20 + 1 + 4 + 1 + 1);

    kleene::detail::gpu_masked_dot_rating const cheap{17, 7, 5};
    BOOST_TEST(cheap.other() == 20 + kleene::detail::gpu_saxpy_steps * 7);
    BOOST_TEST(cheap.dot_wins());
    BOOST_TEST(cheap.text().find("about 17 merge steps against") == 0, cheap.text());
    BOOST_TEST(cheap.text().find("masked Gustavson (7 multiply-adds)") != std::string::npos,
               cheap.text());
    kleene::detail::gpu_masked_dot_rating const dear{1e6, 10, 5};
    BOOST_TEST(!dear.dot_wins());
    // However large the unmasked product, neither path makes it: the steps alone decide.
    kleene::detail::gpu_masked_dot_rating const huge{1e12, 3e9, 5};
    BOOST_TEST(!huge.dot_wins());

    // The CPU's multiply-adds weigh 2.5 steps where C's columns' accumulator leaves the caches:
    // at 5 bytes a column (a float and a flag) 1,000,000 columns (4.8 MiB) stay at 1, 2,000,000
    // (9.5 MiB) weigh 2.5. A: one row {0}; Bt: rows 0..3 hold column 0; M: (0, 0).
    for (int const columns : {1000000, 2000000}) {
        auto const a1 = csr_matrix<float>::from_coo(1, 1, std::vector<int>{0},
                                                    std::vector<int>{0}, {});
        auto const bt1 = csr_matrix<float>::from_coo(std::size_t(columns), 1,
                                                     std::vector<int>{0, 1, 2, 3},
                                                     std::vector<int>{0, 0, 0, 0}, {});
        auto const m1 = csr_matrix<float>::from_coo(1, std::size_t(columns), std::vector<int>{0},
                                                    std::vector<int>{0}, {});
        auto const [d1, s1] = kleene::detail::masked_dot_costs(a1, bt1, m1);
        BOOST_TEST(d1 == 2);
        BOOST_TEST(s1 == 16 + 4 * (columns == 1000000 ? 1.0 : 2.5), columns);
    }

    // On host containers the same C<M> = A B' through both kernels (pinned).
    csr_matrix<float> b(4, 3), c1(2, 3), c2(2, 3);
    transpose(b, bt);
    mxm(c1, structure(m), no_accum, a, transpose(bt), plus_times<float>{},
        {.kernel = kernel_choice::masked_dot});
    mxm(c2, structure(m), no_accum, a, b, plus_times<float>{});
    BOOST_TEST(c1.nnz() == 3u);  // (1,1) meets an empty row; the others share columns
    BOOST_TEST_REQUIRE(c1.nnz() == c2.nnz());
    for (std::size_t k = 0; k < c1.nnz(); ++k) {
        BOOST_TEST(c1.col_idx()[k] == c2.col_idx()[k]);
        BOOST_TEST(c1.value(k) == c2.value(k));
    }
    BOOST_TEST(c1.value(2) == 3);  // row 1 of A meets Bt's row 2 at three columns
}

/// C as an operand of its own product (C = A C, C = C A, C = C C; masked by itself or another
/// mask, accumulating, replacing) equals the product written into a separate matrix: the kernels
/// write C's rows while later rows still read the operand, so mxm runs on a copy of C.
BOOST_AUTO_TEST_CASE(c_as_an_operand_equals_a_separate_output) {
    std::mt19937 g(11);
    using S = min_plus<float>;
    std::size_t const n = 70;
    auto const a = random_csr(n, n, 0.1, g);
    auto const ad = to_dense<S>(a);
    auto const c0 = to_dense<S>(random_csr(n, n, 0.5, g));
    dense_matrix<float> m(n, n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) m(i, j) = j <= i ? 1.0f : 0.0f;
    options rep;
    rep.replace = true;
    auto const check = [&](std::string const& what, auto f) { check_self_input(what, c0, f); };
    check("C = A C", [&](auto& c, auto const& x) { mxm(c, a, x, S{}); });
    check("C = C A", [&](auto& c, auto const& x) { mxm(c, x, a, S{}); });
    check("C = C C", [&](auto& c, auto const& x) { mxm(c, x, x, S{}); });
    check("C = C Ad", [&](auto& c, auto const& x) { mxm(c, x, ad, S{}); });
    check("C min= A C",
          [&](auto& c, auto const& x) { mxm(c, no_mask, min_op<float>{}, a, x, S{}); });
    check("C<M> = A C", [&](auto& c, auto const& x) { mxm(c, mask(m), no_accum, a, x, S{}); });
    check("C<C> = A C", [&](auto& c, auto const& x) { mxm(c, mask(x), no_accum, a, x, S{}); });
    check("C<!M, replace> min= C A", [&](auto& c, auto const& x) {
        mxm(c, complement(mask(m)), min_op<float>{}, x, a, S{}, rep);
    });
}

/// w as the input of its own product (w = A w by the pull SpMV, w = w A, through A', dense A,
/// accumulating, masked by itself) equals the product written into a separate vector.
BOOST_AUTO_TEST_CASE(w_as_the_input_equals_a_separate_output) {
    std::mt19937 g(13);
    using S = min_plus<float>;
    std::size_t const n = 90;
    auto const a = random_csr(n, n, 0.08, g);
    auto const ad = to_dense<S>(a);
    dense_vector<float> w0(n), m(n);
    for (std::size_t i = 0; i < n; ++i) {
        w0[i] = i % 3 == 0 ? S::zero() : float(i % 17);
        m[i] = float(i % 2);
    }
    auto const check = [&](std::string const& what, auto f) { check_self_input(what, w0, f); };
    check("w = A w", [&](auto& w, auto const& u) { mxv(w, a, u, S{}); });
    check("w min= A w",
          [&](auto& w, auto const& u) { mxv(w, no_mask, min_op<float>{}, a, u, S{}); });
    check("w = w A", [&](auto& w, auto const& u) { vxm(w, u, a, S{}); });
    check("w = w A'", [&](auto& w, auto const& u) { vxm(w, u, transpose(a), S{}); });
    check("w = Ad w", [&](auto& w, auto const& u) { mxv(w, ad, u, S{}); });
    check("w<m> = A w", [&](auto& w, auto const& u) { mxv(w, mask(m), no_accum, a, u, S{}); });
    check("w<w> = A w", [&](auto& w, auto const& u) { mxv(w, mask(u), no_accum, a, u, S{}); });
}

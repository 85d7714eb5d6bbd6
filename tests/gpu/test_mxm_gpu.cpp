#define BOOST_TEST_MODULE mxm_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

#include <cmath>
#include <random>
#include <string>

// kleene::mxm on device dense matrices (the GPU GEMM) against mxm on the host, through the public
// dispatch, for semirings whose zero annihilates and for ones where it does not (absent entries);
// and mxm of device CSR matrices into a device `matrix`, whose storage follows the density.

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

BOOST_AUTO_TEST_CASE(device_mxm_shape_error) {
    if (!have_gpu()) return;
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
    if (!have_gpu()) return;
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

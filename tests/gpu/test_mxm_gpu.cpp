#define BOOST_TEST_MODULE mxm_gpu
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

#include <random>

// kleene::mxm on device dense matrices (the GPU GEMM) against mxm on the host, through the public
// dispatch, for semirings whose zero annihilates and for ones where it does not (absent entries).

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

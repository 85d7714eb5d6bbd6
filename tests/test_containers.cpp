#define BOOST_TEST_MODULE containers
#include <boost/test/unit_test.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

BOOST_AUTO_TEST_CASE(coo_roundtrip) {
    std::vector<int> i{2, 0, 0, 1}, j{1, 2, 0, 1};
    std::vector<double> v{4, 2, 1, 3};
    auto a = kleene::csr_matrix<double>::from_coo(3, 3, i, j, v);
    BOOST_TEST(a.nnz() == 4u);
    BOOST_TEST(a.col_idx()[0] == 0);
    BOOST_TEST(a.value(1) == 2.0);
}

BOOST_AUTO_TEST_CASE(coo_duplicates) {
    std::vector<int> i{0, 0, 1}, j{1, 1, 0};
    std::vector<double> v{4, 2, 1};
    BOOST_CHECK_THROW(kleene::csr_matrix<double>::from_coo(2, 2, i, j, v), kleene::invalid_argument);
    auto s = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::sum);
    BOOST_TEST(s.nnz() == 2u);
    BOOST_TEST(s.value(0) == 6.0);
    auto m = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::min);
    BOOST_TEST(m.value(0) == 2.0);
    auto l = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::last);
    BOOST_TEST(l.value(0) == 2.0);
    auto x = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::max);
    BOOST_TEST(x.value(0) == 4.0);
}

BOOST_AUTO_TEST_CASE(coo_out_of_range) {
    std::vector<int> i{0, 2}, j{1, 0};
    std::vector<float> v{1, 1};
    BOOST_CHECK_THROW(kleene::csr_matrix<float>::from_coo(2, 2, i, j, v), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(validate_rejects_unsorted) {
    kleene::buffer<int> p{0, 2}, c{1, 0};
    kleene::buffer<float> v{1, 2};
    BOOST_CHECK_THROW(kleene::csr_matrix<float>(1, 2, p, c, v), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(dense_views_and_conversions) {
    using S = kleene::min_plus<float>;
    kleene::dense_matrix<float> d(3, 4, kleene::infinity<float>());
    d(0, 1) = 2;
    d(2, 3) = -1;
    auto blk = d.block(1, 1, 2, 3);
    BOOST_TEST(blk(1, 2) == -1.0f);
    BOOST_TEST(blk.ld == 4u);
    BOOST_CHECK_THROW(d.block(2, 2, 2, 2), kleene::dimension_mismatch);
    auto c = kleene::to_csr<S>(d);
    BOOST_TEST(c.nnz() == 2u);
    auto back = kleene::to_dense<S>(c);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) BOOST_TEST(back(i, j) == d(i, j));
    kleene::dense_vector<float> x{kleene::infinity<float>(), 3, kleene::infinity<float>()};
    auto sx = kleene::to_sparse<S>(x);
    BOOST_TEST(sx.nnz() == 1u);
    BOOST_TEST(sx.indices()[0] == 1);
}

BOOST_AUTO_TEST_CASE(device_without_gpu_is_an_error) {
    if (kleene::cuda::device_count() > 0) return;  // only meaningful on a machine without a GPU
    kleene::dense_matrix<float> d(2, 2, 1.0f);
    BOOST_CHECK_THROW(d.to_device(), kleene::no_device);
}

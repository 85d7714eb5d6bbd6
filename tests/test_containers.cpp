#define BOOST_TEST_MODULE containers
#include <boost/test/unit_test.hpp>
#include <kleene/kleene.hpp>

BOOST_AUTO_TEST_CASE(coo_roundtrip) {
    std::vector<int> i{2, 0, 0, 1}, j{1, 2, 0, 1};
    std::vector<double> v{4, 2, 1, 3};
    auto a = kleene::csr_matrix<double>::from_coo(3, 3, i, j, v);
    BOOST_TEST(a.nnz() == 4u);
    BOOST_TEST(a.col_idx()[0] == 0);
    BOOST_TEST(a.value(1) == 2.0);
}

#define BOOST_TEST_MODULE transpose
#include "reduce_transpose_common.hpp"

// transpose (as an operation and as a view feeding mxm, mxv and vxm) against
// SuiteSparse:GraphBLAS.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(transpose_every_storage_and_mask) {
    std::mt19937 g(4);
    transpose_case<double>(g, false);
    transpose_case<i32>(g, false);
    transpose_case<bool>(g, false);
    transpose_case<float>(g, true);
}

BOOST_AUTO_TEST_CASE(transposed_views_in_products) {
    std::mt19937 g(5);
    product_views<plus_times<double>>(g);
    product_views<min_first<i32>>(g);  // first/second: the operand order matters
    product_views<min_second<i64>>(g);
    product_views<lor_land<bool>>(g);
}

BOOST_AUTO_TEST_CASE(views_are_traced_and_not_materialised_for_vectors) {
    std::mt19937 g(6);
    auto const a = random_csr<double>(30, 20, 0.2, false, g);
    sparse_vector<double> u(30), w(20);
    explain_trace t;
    options o;
    o.explain = &t;
    mxv(w, transpose(a), u, plus_times<double>{}, o);
    BOOST_TEST(t.str().find("no transpose materialised") != std::string::npos, t.str());
    BOOST_TEST(t.str().find("spmspv_push") != std::string::npos, t.str());
    csr_matrix<double> c(20, 20);
    t.lines.clear();
    mxm(c, transpose(a), a, plus_times<double>{}, o);
    BOOST_TEST(t.str().find("transpose materialised") != std::string::npos, t.str());
    BOOST_TEST(&transpose(transpose(a)) == &a);
    csr_matrix<double> wrong(30, 20);
    BOOST_CHECK_THROW(transpose(wrong, a), dimension_mismatch);
}

#define BOOST_TEST_MODULE ewise_semirings
#include "ewise_common.hpp"

// ewise_add and ewise_mult with semirings, a user operator and an explicit absent value against
// SuiteSparse:GraphBLAS; shape checks and the explain trace.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(semirings_use_add_for_union_and_mul_for_intersection) {
    std::mt19937 g(3);
    both(plus_times<double>{}, g, false);
    both(min_plus<i32>{}, g, false);  // mul is saturating plus: a user operator to GraphBLAS
    both(max_min<float>{}, g, false);
}

BOOST_AUTO_TEST_CASE(user_operator_and_explicit_absent_value) {
    std::mt19937 g(4);
    both(absdiff_op<double>{}, g, false);
    both(with_absent(times_op<i64>{}, i64(0)), g, false);
}

BOOST_AUTO_TEST_CASE(shapes_are_checked_and_the_trace_names_the_kernel) {
    csr_matrix<double> a(3, 4), b(4, 3), c(3, 4);
    BOOST_CHECK_THROW(ewise_add(c, plus_monoid<double>{}, a, b), dimension_mismatch);
    csr_matrix<double> c2(4, 4);
    BOOST_CHECK_THROW(ewise_mult(c2, times_op<double>{}, a, a), dimension_mismatch);
    explain_trace t;
    options o;
    o.explain = &t;
    ewise_add(c, plus_monoid<double>{}, a, transpose(b), o);
    BOOST_TEST(t.str().find("transpose materialised") != std::string::npos, t.str());
    BOOST_TEST(t.str().find("csr row merge") != std::string::npos, t.str());
}

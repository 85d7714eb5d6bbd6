#define BOOST_TEST_MODULE apply_unary
#include "apply_select_common.hpp"

// apply with unary operators (built-in and user) against SuiteSparse:GraphBLAS, every storage.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(unary_operators) {
    std::mt19937 g(1);
    apply_case(identity_op<double>{}, g, false);
    apply_case(ainv_op<i32>{}, g, false);
    apply_case(abs_op<float>{}, g, false);
    apply_case(minv_op<double>{}, g, false);
    apply_case(lnot_op<bool>{}, g, false);
    apply_case(one_op<i64>{}, g, false);
    apply_case(square_op<i64>{}, g, false);
}

#define BOOST_TEST_MODULE apply_bound
#include "apply_select_common.hpp"

// apply with bound binary operators, and apply under every mask / accumulator / replace case,
// against SuiteSparse:GraphBLAS.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(bound_binary_operators) {
    std::mt19937 g(2);
    apply_case(bind_first(plus_op<double>{}, 2.5), g, false);
    apply_case(bind_second(min_op<i32>{}, 3), g, false);
    apply_case(bind_first(second_op<float>{}, 7.f), g, false);
    apply_case(bind_second(first_op<i64>{}, i64(-4)), g, false);
    apply_case(with_absent(bind_second(times_op<double>{}, 0.5), 0.0), g, false);
}

BOOST_AUTO_TEST_CASE(apply_every_mask_accumulator_and_replace) {
    std::mt19937 g(3);
    apply_case(ainv_op<double>{}, g, true);
    apply_case(bind_second(max_op<i32>{}, 0), g, true);
}

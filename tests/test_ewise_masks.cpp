#define BOOST_TEST_MODULE ewise_masks
#include "ewise_common.hpp"

// ewise_add and ewise_mult on matrices and vectors under every mask / accumulator / replace case,
// against SuiteSparse:GraphBLAS.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(every_mask_accumulator_and_replace) {
    std::mt19937 g(5);
    both(plus_monoid<double>{}, g, true);
    both(min_monoid<i32>{}, g, true);
    both(second_op<float>{}, g, true);
    both(lor_monoid<bool>{}, g, true);
}

BOOST_AUTO_TEST_CASE(vectors_every_mask_accumulator_and_replace) {
    std::mt19937 g(6);
    vectors<true>(plus_monoid<double>{}, g);
    vectors<false>(plus_monoid<double>{}, g);
    vectors<true>(first_op<i32>{}, g);
    vectors<false>(min_plus<i64>{}, g);
    vectors<true>(lor_monoid<bool>{}, g);
}

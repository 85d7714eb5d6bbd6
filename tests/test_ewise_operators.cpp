#define BOOST_TEST_MODULE ewise_operators
#include "ewise_common.hpp"

// ewise_add and ewise_mult with monoids and binary operators (commutative or not) against
// SuiteSparse:GraphBLAS: CSR, dense and transposed operands.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(monoids_and_operators_every_storage) {
    std::mt19937 g(1);
    both(plus_monoid<double>{}, g, false);
    both(min_monoid<float>{}, g, false);
    both(times_op<i32>{}, g, false);
    both(max_op<i64>{}, g, false);
    both(lor_monoid<bool>{}, g, false);
    both(land_op<bool>{}, g, false);
}

BOOST_AUTO_TEST_CASE(non_commutative_operators_keep_a_then_b) {
    std::mt19937 g(2);
    both(first_op<double>{}, g, false);
    both(second_op<i32>{}, g, false);
    both(pair_op<float>{}, g, false);
}

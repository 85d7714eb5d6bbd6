#define BOOST_TEST_MODULE reduce
#include "reduce_transpose_common.hpp"

// reduce (rows, columns through a transposed view, to a scalar) against SuiteSparse:GraphBLAS.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(reduce_with_every_monoid) {
    std::mt19937 g(1);
    reduce_case(plus_monoid<double>{}, g, false);
    reduce_case(plus_monoid<i64>{}, g, false);
    reduce_case(times_monoid<i32>{}, g, false);
    reduce_case(min_monoid<float>{}, g, false);
    reduce_case(max_monoid<i32>{}, g, false);
    reduce_case(lor_monoid<bool>{}, g, false);
    reduce_case(land_monoid<bool>{}, g, false);
    reduce_case(min_plus<double>{}, g, false);  // a semiring reduces with its add
}

struct max_abs_monoid {  // a user monoid: max of absolute values
    using value_type = i32;
    static constexpr bool idempotent = true;
    static constexpr bool has_terminal = false;
    static constexpr i32 identity() { return 0; }
    static constexpr i32 terminal() { return 0; }
    static constexpr i32 apply(i32 a, i32 b) {
        i32 const x = a < 0 ? -a : a, y = b < 0 ? -b : b;
        return x < y ? y : x;
    }
};

BOOST_AUTO_TEST_CASE(reduce_user_monoid_and_every_mask) {
    std::mt19937 g(2);
    reduce_case(max_abs_monoid{}, g, false);
    reduce_case(plus_monoid<double>{}, g, true);
    reduce_case(min_monoid<i64>{}, g, true);
}

BOOST_AUTO_TEST_CASE(reduce_scalar_accumulates_and_empty_gives_identity) {
    csr_matrix<double> e(3, 4);
    BOOST_TEST(reduce(plus_monoid<double>{}, e) == 0.0);
    BOOST_TEST(reduce(min_monoid<double>{}, e) == infinity<double>());
    double s = 5;
    std::mt19937 g(3);
    auto const a = random_csr<double>(20, 30, 0.3, false, g);
    reduce(s, plus_op<double>{}, plus_monoid<double>{}, a);
    BOOST_TEST(s == 5 + grb::reduce(plus_monoid<double>{}, a), boost::test_tools::tolerance(1e-12));
    dense_vector<double> w(4, 0.0);
    BOOST_CHECK_THROW(reduce(w, plus_monoid<double>{}, a), dimension_mismatch);
}

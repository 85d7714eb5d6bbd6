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

BOOST_AUTO_TEST_CASE(reduce_any_to_a_scalar_reads_a_value) {
    // `any` makes every value terminal; fewer than 16 entries once reduced to its identity
    // without reading one (found by the Python suite).
    for (std::size_t n : {1u, 3u, 15u, 16u, 17u, 40u}) {
        buffer<std::int32_t> ptr(2), col(n);
        buffer<std::int32_t> val(n);
        ptr[0] = 0;
        ptr[1] = static_cast<std::int32_t>(n);
        for (std::size_t k = 0; k < n; ++k) {
            col[k] = static_cast<std::int32_t>(k);
            val[k] = static_cast<std::int32_t>(k + 4);
        }
        csr_matrix<std::int32_t> a(1, n, std::move(ptr), std::move(col), std::move(val));
        std::int32_t const s = reduce(any_monoid<std::int32_t>{}, a);
        BOOST_TEST((s >= 4 && s < static_cast<std::int32_t>(n) + 4), "n " << n << ": " << s);
    }
}

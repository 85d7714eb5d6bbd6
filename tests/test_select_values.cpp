#define BOOST_TEST_MODULE select_values
#include "apply_select_common.hpp"

// select with value and user predicates, select under every mask / accumulator / replace case,
// against SuiteSparse:GraphBLAS; iso input and shape checks.

using namespace ops_test;

struct odd_sum {  // a user predicate: (i + j) odd and a positive value
    template <class T>
    bool operator()(T v, std::size_t i, std::size_t j) const {
        return (i + j) % 2 == 1 && v > T(0);
    }
};

BOOST_AUTO_TEST_CASE(value_and_user_predicates) {
    std::mt19937 g(5);
    select_case<double>(value_gt{0.5}, g, false);
    select_case<i32>(value_eq{3}, g, false);
    select_case<i32>(value_ne{3}, g, false);
    select_case<float>(value_lt{-1.f}, g, false);
    select_case<i64>(value_le{i64(2)}, g, false);
    select_case<i64>(value_ge{i64(2)}, g, false);
    select_case<bool>(value_eq{true}, g, false);
    select_case<double>(odd_sum{}, g, false);
    auto upper_positive = [](i32 v, std::size_t i, std::size_t j) { return j > i && v > 0; };
    select_case<i32>(upper_positive, g, false);
}

BOOST_AUTO_TEST_CASE(select_every_mask_accumulator_and_replace) {
    std::mt19937 g(6);
    select_case<double>(tril{-1}, g, true);
    select_case<i32>(value_ge{0}, g, true);
}

BOOST_AUTO_TEST_CASE(iso_input_stays_iso_and_shapes_are_checked) {
    buffer<i32> p{0, 2, 3}, c{0, 2, 1};
    csr_matrix<double> iso(2, 3, p, c, buffer<double>{}, 4.0);
    csr_matrix<double> out;
    out = csr_matrix<double>(2, 3);
    apply(out, bind_second(times_op<double>{}, 0.5), iso);
    BOOST_TEST(out.is_iso());
    BOOST_TEST(out.iso_value() == 2.0);
    csr_matrix<double> wrong(3, 3);
    BOOST_CHECK_THROW(apply(wrong, ainv_op<double>{}, iso), dimension_mismatch);
    BOOST_CHECK_THROW(select(wrong, tril{}, iso), dimension_mismatch);
}

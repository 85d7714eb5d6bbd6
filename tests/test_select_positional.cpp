#define BOOST_TEST_MODULE select_positional
#include "apply_select_common.hpp"

// select with positional predicates (tril, triu, diag, offdiag, row and column bounds) against
// SuiteSparse:GraphBLAS, every storage.

using namespace ops_test;

BOOST_AUTO_TEST_CASE(positional_predicates) {
    std::mt19937 g(4);
    for (std::int64_t k : {0, 2, -3}) {
        select_case<double>(tril{k}, g, false);
        select_case<i32>(triu{k}, g, false);
        select_case<float>(diag{k}, g, false);
        select_case<i64>(offdiag{k}, g, false);
    }
    select_case<double>(row_le{5}, g, false);
    select_case<double>(row_gt{5}, g, false);
    select_case<i32>(col_le{3}, g, false);
    select_case<i32>(col_gt{3}, g, false);
}

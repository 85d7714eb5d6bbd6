#define BOOST_TEST_MODULE mxv_graphblas
#include "mxv_common.hpp"

// mxv and vxm against SuiteSparse:GraphBLAS, no mask: many semirings and types, every storage.

using namespace mxv_test;

using plain_semirings =
    std::tuple<plus_times<float>, plus_times<double>, plus_times<i32>, plus_times<i64>,
               min_plus<float>, min_plus<double>, min_plus<i32>, min_plus<i64>, max_plus<double>,
               max_min<float>, min_max<i32>, lor_land<bool>, any_pair<bool>, any_pair<i64>,
               plus_pair<i32>, plus_pair<float>, min_first<double>, min_first<bool>,
               min_second<float>, min_second<i32>, plus_min<float>, max_times<i64>>;

BOOST_AUTO_TEST_CASE_TEMPLATE(mxv_vxm_match_graphblas, S, plain_semirings) {
    std::mt19937_64 g(21);
    for (auto const& s : shapes) all_storages<S, no_accum_t, false>(s, g);
}

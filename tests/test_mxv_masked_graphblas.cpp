#define BOOST_TEST_MODULE mxv_masked_graphblas
#include "mxv_common.hpp"

// mxv and vxm against SuiteSparse:GraphBLAS under every mask / accumulator / replace case, and
// the pinned push and pull kernels with the explain trace.

using namespace mxv_test;

using masked_cases =
    std::tuple<std::pair<plus_times<float>, plus_op<float>>, std::pair<min_plus<i64>, min_op<i64>>,
               std::pair<any_pair<bool>, lor_op<bool>>,
               std::pair<min_second<double>, first_op<double>>>;

BOOST_AUTO_TEST_CASE_TEMPLATE(mxv_vxm_masks_accumulators_replace_match_graphblas, Case,
                              masked_cases) {
    std::mt19937_64 g(22);
    for (auto const& s : shapes)
        all_storages<typename Case::first_type, typename Case::second_type, true>(s, g);
}

BOOST_AUTO_TEST_CASE(pinned_vector_kernels_and_explain) {
    using S = min_plus<float>;
    std::mt19937_64 g(23);
    for (auto const& s : shapes) {
        auto const a = grb::random_csr<float>(s.m, s.n, s.density, g, s.holes);
        auto const u = grb::random_sparse_vector<float>(s.n, s.vdensity, g);
        auto const ul = grb::random_sparse_vector<float>(s.m, s.vdensity, g);
        auto const msk = grb::random_sparse_vector<float>(s.m, 0.5, g);
        auto const mskl = grb::random_sparse_vector<float>(s.n, 0.5, g);
        explain_trace trace;
        options opt;
        opt.explain = &trace;
        opt.kernel = kernel_choice::spmv_pull;
        all_write_backs<S, min_op<float>, false>(sparse_vector<float>(s.m), msk, a, u, opt,
                                                 describe(s) + " pinned spmv_pull");
        for (auto const& line : trace.lines)
            BOOST_TEST(line.find("spmv_pull") != std::string::npos, line);
        trace.lines.clear();
        opt.kernel = kernel_choice::spmspv_push;
        all_write_backs<S, min_op<float>, true>(dense_vector<float>(s.n, infinity<float>()), mskl,
                                                a, ul, opt, describe(s) + " pinned spmspv_push");
        BOOST_TEST(!trace.lines.empty());
        for (auto const& line : trace.lines)
            BOOST_TEST(line.find("spmspv_push") != std::string::npos, line);
    }
    // The wrong direction's kernel is refused with a message.
    csr_matrix<float> a(3, 3);
    sparse_vector<float> u(3), w(3);
    options opt;
    opt.kernel = kernel_choice::spmspv_push;
    BOOST_CHECK_THROW(mxv(w, a, u, S{}, opt), kleene::invalid_argument);
    opt.kernel = kernel_choice::spmv_pull;
    BOOST_CHECK_THROW(vxm(w, u, a, S{}, opt), kleene::invalid_argument);
}

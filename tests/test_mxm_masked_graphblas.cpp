#define BOOST_TEST_MODULE mxm_masked_graphblas
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/kleene.hpp>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// kleene's mxm against SuiteSparse:GraphBLAS with masks, accumulators and replace on every storage
// pair, pinned Gustavson kernels, and the explain trace.

using namespace kleene;
namespace grb = kleene::graphblas;
using i32 = std::int32_t;
using i64 = std::int64_t;

namespace {

struct shape3 {
    std::size_t m, k, n;
    double density;
    bool holes;  // empty every 5th row and every 7th column
};

std::vector<shape3> const mask_shapes = {
    {0, 0, 0, 0.5, false},    {1, 1, 1, 1.0, false},      {6, 4, 9, 0.5, false},
    {37, 23, 41, 0.15, true}, {120, 80, 100, 0.05, true},
};

template <class S>
double tolerance() {
    using T = typename S::value_type;
    if constexpr (std::is_floating_point_v<T> && !S::idempotent_add)
        return std::is_same_v<T, float> ? 1e-5 : 1e-12;
    else
        return 0.0;
}

template <class K>
char const* storage_name() {
    if constexpr (requires(K k) { k.nnz(); })
        return "csr";
    else
        return "dense";
}

/// Runs C<mask> accum= A*B through kleene and through GraphBLAS from the same C and compares.
template <class S, class C, class Mask, class Accum, class A, class B>
void check_mxm(C const& c0, Mask const& mask, Accum accum, A const& a, B const& b, options opt,
               std::string const& what) {
    BOOST_TEST_CHECKPOINT(what);
    C got = c0, want = c0;
    mxm(got, mask, accum, a, b, S{}, opt);
    opt.explain = nullptr;
    grb::mxm(want, mask, accum, a, b, S{}, opt);
    auto const r = grb::compare(got, want, tolerance<S>());
    BOOST_TEST(r.ok(), what << ": " << r.summary());
}

std::string describe(shape3 const& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.k) + " * " + std::to_string(s.k) + "x" +
           std::to_string(s.n) + (s.holes ? " (empty rows/cols)" : "");
}

}  // namespace

// ---- masks, accumulators, replace -------------------------------------------------------------

namespace {
/// Every mask kind (none, valued, structural, complemented of each; CSR or dense storage), with and
/// without the accumulator, replace on and off, for output C of storage CMat from A and B.
template <class S, class Accum, class CMat, class A, class B>
void all_write_backs(CMat const& c0, csr_matrix<typename S::value_type> const& msk, A const& a,
                     B const& b, options opt, std::string const& what) {
    using T = typename S::value_type;
    auto const mskd = to_dense(msk, T(0));
    std::string const where =
        what + " " + storage_name<A>() + " x " + storage_name<B>() + " -> " + storage_name<CMat>();
    for (bool replace : {false, true}) {
        opt.replace = replace;
        std::string const r = replace ? " replace" : "";
        check_mxm<S>(c0, no_mask, no_accum, a, b, opt, where + " no mask" + r);
        check_mxm<S>(c0, no_mask, Accum{}, a, b, opt, where + " no mask, accum" + r);
        for (int kind = 0; kind < 4; ++kind) {
            bool const structural = kind & 1, comp = kind & 2;
            auto const set = [&](auto v) {
                v.structural = structural;
                v.complemented = comp;
                return v;
            };
            std::string const k = std::string(comp ? " complemented" : "") +
                                  (structural ? " structural" : " valued") + " mask" + r;
            check_mxm<S>(c0, set(mask(msk)), no_accum, a, b, opt, where + k + " (csr)");
            check_mxm<S>(c0, set(mask(msk)), Accum{}, a, b, opt, where + k + " (csr), accum");
            check_mxm<S>(c0, set(mask(mskd)), no_accum, a, b, opt, where + k + " (dense)");
            check_mxm<S>(c0, set(mask(mskd)), Accum{}, a, b, opt, where + k + " (dense), accum");
        }
    }
}

template <class S, class Accum>
void masked_storage_pairs(shape3 const& s, std::mt19937_64& g) {
    using T = typename S::value_type;
    auto const a = grb::random_csr<T>(s.m, s.k, s.density, g, s.holes);
    auto const b = grb::random_csr<T>(s.k, s.n, s.density, g, s.holes);
    auto const c = grb::random_csr<T>(s.m, s.n, 0.3, g, false);
    auto const msk = grb::random_mask<T>(s.m, s.n, g);
    auto const ad = to_dense<S>(a);
    auto const bd = to_dense<S>(b);
    auto const cd = to_dense<S>(c);
    std::string const what = describe(s);
    all_write_backs<S, Accum>(c, msk, a, b, {}, what);
    all_write_backs<S, Accum>(cd, msk, a, b, {}, what);
    all_write_backs<S, Accum>(c, msk, a, bd, {}, what);
    all_write_backs<S, Accum>(cd, msk, a, bd, {}, what);
    all_write_backs<S, Accum>(c, msk, ad, b, {}, what);
    all_write_backs<S, Accum>(cd, msk, ad, b, {}, what);
    all_write_backs<S, Accum>(c, msk, ad, bd, {}, what);
    all_write_backs<S, Accum>(cd, msk, ad, bd, {}, what);
}
}  // namespace

using masked_cases =
    std::tuple<std::pair<plus_times<double>, plus_op<double>>,
               std::pair<min_plus<i32>, min_op<i32>>, std::pair<lor_land<bool>, lor_op<bool>>,
               std::pair<min_first<float>, second_op<float>>,
               std::pair<max_plus<i64>, plus_op<i64>>>;

BOOST_AUTO_TEST_CASE_TEMPLATE(masks_accumulators_replace_match_graphblas, Case, masked_cases) {
    std::mt19937_64 g(99);
    for (auto const& s : mask_shapes)
        masked_storage_pairs<typename Case::first_type, typename Case::second_type>(s, g);
}

// ---- pinned Gustavson kernels and the explain trace ---------------------------------------------

BOOST_AUTO_TEST_CASE(pinned_gustavson_kernels_match_graphblas_and_explain_names_them) {
    using S = min_plus<float>;
    using T = float;
    std::mt19937_64 g(5);
    for (auto const& s : {shape3{1, 1, 1, 1.0, false}, shape3{60, 70, 80, 0.1, true},
                          shape3{200, 150, 300, 0.2, false}}) {
        auto const a = grb::random_csr<T>(s.m, s.k, s.density, g, s.holes);
        auto const b = grb::random_csr<T>(s.k, s.n, s.density, g, s.holes);
        auto const c = grb::random_csr<T>(s.m, s.n, 0.2, g, false);
        auto const msk = grb::random_mask<T>(s.m, s.n, g);
        auto const cd = to_dense<S>(c);
        for (auto kernel : {kernel_choice::gustavson_dense, kernel_choice::gustavson_hash}) {
            std::string const name(to_string(kernel));
            explain_trace trace;
            options opt;
            opt.kernel = kernel;
            opt.explain = &trace;
            all_write_backs<S, min_op<T>>(c, msk, a, b, opt, describe(s) + " " + name);
            all_write_backs<S, min_op<T>>(cd, msk, a, b, opt, describe(s) + " " + name);
            BOOST_TEST(!trace.lines.empty());
            for (auto const& line : trace.lines)
                BOOST_TEST(line.find(name) != std::string::npos,
                           "explain line '" << line << "' does not name " << name);
        }
    }
}

BOOST_AUTO_TEST_CASE(automatic_choice_explains_and_matches_graphblas) {
    using S = plus_times<double>;
    std::mt19937_64 g(8);
    // Few entries per row and very many columns: the dispatcher picks the hash accumulator.
    auto const a = grb::random_csr<double>(50, 40, 0.1, g, false);
    std::vector<i32> ii, jj;
    std::vector<double> vv;
    std::uniform_int_distribution<i32> col(0, 299999);
    for (i32 i = 0; i < 40; ++i)
        for (int e = 0; e < 3; ++e) {
            ii.push_back(i);
            jj.push_back(col(g));
            vv.push_back(1.5 + e);
        }
    auto const b = csr_matrix<double>::from_coo(40, 300000, ii, jj, vv, duplicate_policy::sum);
    explain_trace trace;
    options opt;
    opt.explain = &trace;
    check_mxm<S>(csr_matrix<double>(50, 300000), no_mask, no_accum, a, b, opt, "wide hash");
    BOOST_TEST_REQUIRE(trace.lines.size() == 1u);
    BOOST_TEST(trace.lines[0].find("gustavson_hash") != std::string::npos, trace.lines[0]);

    trace.lines.clear();
    auto const sq = grb::random_csr<double>(100, 100, 0.05, g, false);
    check_mxm<S>(csr_matrix<double>(100, 100), no_mask, no_accum, sq, sq, opt, "square dense acc");
    BOOST_TEST(trace.lines.at(0).find("gustavson_dense") != std::string::npos, trace.lines[0]);

    trace.lines.clear();
    auto const sqd = to_dense<S>(sq);
    check_mxm<S>(dense_matrix<double>(100, 100, 0.0), no_mask, no_accum, sqd, sqd, opt, "gemm");
    BOOST_TEST(trace.lines.at(0).find("dense_gemm") != std::string::npos, trace.lines[0]);
    trace.lines.clear();
    check_mxm<S>(dense_matrix<double>(100, 100, 0.0), no_mask, no_accum, sq, sqd, opt, "spmm");
    BOOST_TEST(trace.lines.at(0).find("csr_dense") != std::string::npos, trace.lines[0]);
    trace.lines.clear();
    check_mxm<S>(dense_matrix<double>(100, 100, 0.0), no_mask, no_accum, sqd, sq, opt, "dense csr");
    BOOST_TEST(trace.lines.at(0).find("dense_csr") != std::string::npos, trace.lines[0]);
}

BOOST_AUTO_TEST_CASE(a_pin_the_storage_cannot_honour_is_an_error) {
    csr_matrix<float> a(3, 3), b(3, 3), c(3, 3);
    options opt;
    opt.kernel = kernel_choice::dense_gemm;
    BOOST_CHECK_THROW(mxm(c, a, b, min_plus<float>{}, opt), kleene::invalid_argument);
    dense_matrix<float> ad(3, 3, 1.f), bd(3, 3, 1.f), cd(3, 3);
    opt.kernel = kernel_choice::gustavson_hash;
    BOOST_CHECK_THROW(mxm(cd, ad, bd, min_plus<float>{}, opt), kleene::invalid_argument);
}

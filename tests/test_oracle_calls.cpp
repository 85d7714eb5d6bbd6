#define BOOST_TEST_MODULE oracle_calls
// Proof that the oracle is SuiteSparse:GraphBLAS. This binary is linked with -Wl,--wrap=NAME for
// every GrB function the oracle layer calls (tests/CMakeLists.txt): each call goes through a
// wrapper below that counts it and forwards to the library. Every case calls one entry point of
// kleene::graphblas and requires that its GrB function ran exactly once; a call that ended in
// kleene's own implementation (as the unmasked products did before argument-dependent lookup was
// ruled out) leaves the count unchanged and fails. The second part shows the products' values
// differ where the libraries are known to differ: SuiteSparse's int32 PLUS wraps, kleene's
// saturates at its infinity.

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/graphblas/bfs.hpp>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/graphblas/operations.hpp>
#include <kleene/kleene.hpp>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace kleene;
namespace grb = kleene::graphblas;
using i32 = std::int32_t;
using i64 = std::int64_t;

namespace oracle_calls {
std::map<std::string, int>& counts() {
    static std::map<std::string, int> c;
    return c;
}
int count(std::string const& name) {
    auto const it = counts().find(name);
    return it == counts().end() ? 0 : it->second;
}
}  // namespace oracle_calls

#define KLEENE_COUNTED(name, params, args)     \
    extern "C" GrB_Info __real_##name params;  \
    extern "C" GrB_Info __wrap_##name params { \
        ++oracle_calls::counts()[#name];       \
        return __real_##name args;             \
    }

using M = GrB_Matrix;
using V = GrB_Vector;
using B = GrB_BinaryOp;
using D = GrB_Descriptor;
using X = GrB_Index;
KLEENE_COUNTED(GrB_mxm, (M c, M m, B ac, GrB_Semiring s, M a, M b, D d), (c, m, ac, s, a, b, d))
KLEENE_COUNTED(GrB_mxv, (V w, V m, B ac, GrB_Semiring s, M a, V u, D d), (w, m, ac, s, a, u, d))
KLEENE_COUNTED(GrB_vxm, (V w, V m, B ac, GrB_Semiring s, V u, M a, D d), (w, m, ac, s, u, a, d))
KLEENE_COUNTED(GrB_Matrix_eWiseAdd_BinaryOp, (M c, M m, B ac, B op, M a, M b, D d),
               (c, m, ac, op, a, b, d))
KLEENE_COUNTED(GrB_Matrix_eWiseMult_BinaryOp, (M c, M m, B ac, B op, M a, M b, D d),
               (c, m, ac, op, a, b, d))
KLEENE_COUNTED(GrB_Vector_eWiseAdd_BinaryOp, (V c, V m, B ac, B op, V a, V b, D d),
               (c, m, ac, op, a, b, d))
KLEENE_COUNTED(GrB_Vector_eWiseMult_BinaryOp, (V c, V m, B ac, B op, V a, V b, D d),
               (c, m, ac, op, a, b, d))
KLEENE_COUNTED(GrB_Matrix_apply, (M c, M m, B ac, GrB_UnaryOp op, M a, D d), (c, m, ac, op, a, d))
KLEENE_COUNTED(GrB_Vector_apply, (V c, V m, B ac, GrB_UnaryOp op, V a, D d), (c, m, ac, op, a, d))
KLEENE_COUNTED(GrB_Matrix_apply_BinaryOp1st_Scalar, (M c, M m, B ac, B op, GrB_Scalar x, M a, D d),
               (c, m, ac, op, x, a, d))
KLEENE_COUNTED(GrB_Matrix_apply_BinaryOp2nd_Scalar, (M c, M m, B ac, B op, M a, GrB_Scalar y, D d),
               (c, m, ac, op, a, y, d))
KLEENE_COUNTED(GrB_Vector_apply_BinaryOp1st_Scalar, (V c, V m, B ac, B op, GrB_Scalar x, V a, D d),
               (c, m, ac, op, x, a, d))
KLEENE_COUNTED(GrB_Vector_apply_BinaryOp2nd_Scalar, (V c, V m, B ac, B op, V a, GrB_Scalar y, D d),
               (c, m, ac, op, a, y, d))
KLEENE_COUNTED(GrB_Matrix_select_Scalar,
               (M c, M m, B ac, GrB_IndexUnaryOp op, M a, GrB_Scalar y, D d),
               (c, m, ac, op, a, y, d))
KLEENE_COUNTED(GrB_Vector_select_Scalar,
               (V c, V m, B ac, GrB_IndexUnaryOp op, V a, GrB_Scalar y, D d),
               (c, m, ac, op, a, y, d))
KLEENE_COUNTED(GrB_Matrix_reduce_Monoid, (V w, V m, B ac, GrB_Monoid mon, M a, D d),
               (w, m, ac, mon, a, d))
#define KLEENE_COUNTED_REDUCE(SUFFIX, T)                                                \
    KLEENE_COUNTED(GrB_Matrix_reduce_##SUFFIX, (T * s, B ac, GrB_Monoid mon, M a, D d), \
                   (s, ac, mon, a, d))                                                  \
    KLEENE_COUNTED(GrB_Vector_reduce_##SUFFIX, (T * s, B ac, GrB_Monoid mon, V a, D d), \
                   (s, ac, mon, a, d))
KLEENE_COUNTED_REDUCE(BOOL, bool)
KLEENE_COUNTED_REDUCE(FP32, float)
KLEENE_COUNTED_REDUCE(FP64, double)
KLEENE_COUNTED_REDUCE(INT32, i32)
KLEENE_COUNTED_REDUCE(INT64, i64)
KLEENE_COUNTED(GrB_transpose, (M c, M m, B ac, M a, D d), (c, m, ac, a, d))
KLEENE_COUNTED(GrB_Matrix_extract, (M c, M m, B ac, M a, X const* i, X ni, X const* j, X nj, D d),
               (c, m, ac, a, i, ni, j, nj, d))
KLEENE_COUNTED(GrB_Vector_extract, (V c, V m, B ac, V a, X const* i, X ni, D d),
               (c, m, ac, a, i, ni, d))
KLEENE_COUNTED(GrB_Col_extract, (V c, V m, B ac, M a, X const* i, X ni, X j, D d),
               (c, m, ac, a, i, ni, j, d))
KLEENE_COUNTED(GrB_Matrix_assign, (M c, M m, B ac, M a, X const* i, X ni, X const* j, X nj, D d),
               (c, m, ac, a, i, ni, j, nj, d))
KLEENE_COUNTED(GrB_Matrix_assign_Scalar,
               (M c, M m, B ac, GrB_Scalar x, X const* i, X ni, X const* j, X nj, D d),
               (c, m, ac, x, i, ni, j, nj, d))
KLEENE_COUNTED(GrB_Vector_assign, (V c, V m, B ac, V a, X const* i, X ni, D d),
               (c, m, ac, a, i, ni, d))
KLEENE_COUNTED(GrB_Vector_assign_Scalar, (V c, V m, B ac, GrB_Scalar x, X const* i, X ni, D d),
               (c, m, ac, x, i, ni, d))
KLEENE_COUNTED(GrB_Matrix_kronecker_BinaryOp, (M c, M m, B ac, B op, M a, M b, D d),
               (c, m, ac, op, a, b, d))

namespace {

/// Runs f() and requires that it called GrB function `name` exactly once.
template <class F>
void expect_one(std::string const& name, std::string const& what, F&& f) {
    int const before = oracle_calls::count(name);
    f();
    BOOST_TEST(oracle_calls::count(name) - before == 1, what << ": " << name << " ran "
                                                             << oracle_calls::count(name) - before
                                                             << " times, expected once");
}

struct operands {
    std::mt19937_64 g{5};
    csr_matrix<double> a = grb::random_csr<double>(12, 9, 0.3, g);
    csr_matrix<double> b = grb::random_csr<double>(9, 12, 0.3, g);
    csr_matrix<double> a2 = grb::random_csr<double>(12, 9, 0.3, g);
    csr_matrix<double> mask12 = grb::random_csr<double>(12, 12, 0.5, g);
    csr_matrix<double> mask129 = grb::random_csr<double>(12, 9, 0.5, g);
    sparse_vector<double> u9 = grb::random_sparse_vector<double>(9, 0.5, g);
    sparse_vector<double> v9 = grb::random_sparse_vector<double>(9, 0.5, g);
    sparse_vector<double> u12 = grb::random_sparse_vector<double>(12, 0.5, g);
    sparse_vector<double> m12 = grb::random_sparse_vector<double>(12, 0.5, g);
    sparse_vector<double> m9 = grb::random_sparse_vector<double>(9, 0.5, g);
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_wrappers_count) {
    // A direct call goes through the wrapper: the counting itself works.
    grb::ensure_initialized();
    GrB_Matrix c = nullptr;
    BOOST_REQUIRE(GrB_Matrix_new(&c, GrB_FP64, 2, 2) == GrB_SUCCESS);
    expect_one("GrB_transpose", "direct call", [&] {
        BOOST_REQUIRE(GrB_transpose(c, nullptr, nullptr, c, nullptr) == GrB_SUCCESS);
    });
    GrB_Matrix_free(&c);
}

BOOST_AUTO_TEST_CASE(products_reach_graphblas) {
    operands o;
    using S = min_plus<double>;
    csr_matrix<double> c(12, 12);
    sparse_vector<double> w12(12), w9(9);
    dense_matrix<double> cd(12, 12, S::zero());
    expect_one("GrB_mxm", "mxm", [&] { grb::mxm(c, o.a, o.b, S{}); });
    expect_one("GrB_mxm", "mxm into dense", [&] { grb::mxm(cd, o.a, o.b, S{}); });
    expect_one("GrB_mxm", "mxm no_mask no_accum",
               [&] { grb::mxm(c, no_mask, no_accum, o.a, o.b, S{}); });
    expect_one("GrB_mxm", "mxm masked",
               [&] { grb::mxm(c, structure(o.mask12), min_op<double>{}, o.a, o.b, S{}); });
    expect_one("GrB_mxm", "mxm with transposed views",
               [&] { grb::mxm(c, o.a, transpose(o.a2), S{}); });
    expect_one("GrB_mxv", "mxv", [&] { grb::mxv(w12, o.a, o.u9, S{}); });
    expect_one("GrB_mxv", "mxv masked",
               [&] { grb::mxv(w12, complement(mask(o.m12)), no_accum, o.a, o.u9, S{}); });
    expect_one("GrB_mxv", "mxv of a transposed view",
               [&] { grb::mxv(w9, transpose(o.a), o.u12, S{}); });
    expect_one("GrB_vxm", "vxm", [&] { grb::vxm(w9, o.u12, o.a, S{}); });
    expect_one("GrB_vxm", "vxm masked",
               [&] { grb::vxm(w9, mask(o.m9), min_op<double>{}, o.u12, o.a, S{}); });
}

BOOST_AUTO_TEST_CASE(elementwise_reach_graphblas) {
    operands o;
    csr_matrix<double> c(12, 9);
    sparse_vector<double> w(9);
    expect_one("GrB_Matrix_eWiseAdd_BinaryOp", "ewise_add",
               [&] { grb::ewise_add(c, plus_op<double>{}, o.a, o.a2); });
    expect_one("GrB_Matrix_eWiseAdd_BinaryOp", "ewise_add masked", [&] {
        grb::ewise_add(c, mask(o.mask129), plus_op<double>{}, min_op<double>{}, o.a, o.a2);
    });
    expect_one("GrB_Matrix_eWiseMult_BinaryOp", "ewise_mult",
               [&] { grb::ewise_mult(c, times_op<double>{}, o.a, o.a2); });
    expect_one("GrB_Matrix_eWiseMult_BinaryOp", "ewise_mult masked", [&] {
        grb::ewise_mult(c, structure(o.mask129), no_accum, times_op<double>{}, o.a, o.a2);
    });
    expect_one("GrB_Vector_eWiseAdd_BinaryOp", "vector ewise_add",
               [&] { grb::ewise_add(w, plus_op<double>{}, o.u9, o.v9); });
    expect_one("GrB_Vector_eWiseMult_BinaryOp", "vector ewise_mult",
               [&] { grb::ewise_mult(w, no_mask, no_accum, times_op<double>{}, o.u9, o.v9); });
}

BOOST_AUTO_TEST_CASE(apply_and_select_reach_graphblas) {
    operands o;
    csr_matrix<double> c(12, 9);
    sparse_vector<double> w(9);
    expect_one("GrB_Matrix_apply", "apply", [&] { grb::apply(c, ainv_op<double>{}, o.a); });
    expect_one("GrB_Matrix_apply", "apply masked",
               [&] { grb::apply(c, mask(o.mask129), plus_op<double>{}, abs_op<double>{}, o.a); });
    expect_one("GrB_Vector_apply", "vector apply", [&] { grb::apply(w, ainv_op<double>{}, o.u9); });
    expect_one("GrB_Matrix_apply_BinaryOp1st_Scalar", "apply bound first",
               [&] { grb::apply(c, bind_first(plus_op<double>{}, 2.0), o.a); });
    expect_one("GrB_Matrix_apply_BinaryOp2nd_Scalar", "apply bound second",
               [&] { grb::apply(c, bind_second(times_op<double>{}, 2.0), o.a); });
    expect_one("GrB_Vector_apply_BinaryOp1st_Scalar", "vector apply bound first",
               [&] { grb::apply(w, bind_first(plus_op<double>{}, 2.0), o.u9); });
    expect_one("GrB_Vector_apply_BinaryOp2nd_Scalar", "vector apply bound second",
               [&] { grb::apply(w, bind_second(times_op<double>{}, 2.0), o.u9); });
    expect_one("GrB_Matrix_select_Scalar", "select", [&] { grb::select(c, tril{0}, o.a); });
    expect_one("GrB_Matrix_select_Scalar", "select masked", [&] {
        grb::select(c, complement(o.mask129), no_accum, value_gt<double>{1.0}, o.a);
    });
    expect_one("GrB_Vector_select_Scalar", "vector select",
               [&] { grb::select(w, value_le<double>{2.0}, o.u9); });
}

BOOST_AUTO_TEST_CASE(reduce_reaches_graphblas) {
    operands o;
    sparse_vector<double> w(12);
    expect_one("GrB_Matrix_reduce_Monoid", "reduce rows",
               [&] { grb::reduce(w, plus_monoid<double>{}, o.a); });
    expect_one("GrB_Matrix_reduce_Monoid", "reduce rows masked",
               [&] { grb::reduce(w, mask(o.m12), max_op<double>{}, min_monoid<double>{}, o.a); });
    sparse_vector<double> wc(9);
    expect_one("GrB_Matrix_reduce_Monoid", "reduce columns (transposed view)",
               [&] { grb::reduce(wc, plus_monoid<double>{}, transpose(o.a)); });
    expect_one("GrB_Matrix_reduce_FP64", "reduce matrix to a scalar",
               [&] { (void)grb::reduce(plus_monoid<double>{}, o.a); });
    expect_one("GrB_Vector_reduce_FP64", "reduce vector to a scalar",
               [&] { (void)grb::reduce(max_monoid<double>{}, o.u9); });
    std::mt19937_64 g(9);
    auto const ai = grb::random_csr<i32>(7, 5, 0.5, g);
    auto const al = grb::random_csr<i64>(7, 5, 0.5, g);
    auto const af = grb::random_csr<float>(7, 5, 0.5, g);
    auto const ab = grb::random_csr<bool>(7, 5, 0.5, g);
    expect_one("GrB_Matrix_reduce_INT32", "int32 scalar",
               [&] { (void)grb::reduce(plus_monoid<i32>{}, ai); });
    expect_one("GrB_Matrix_reduce_INT64", "int64 scalar",
               [&] { (void)grb::reduce(plus_monoid<i64>{}, al); });
    expect_one("GrB_Matrix_reduce_FP32", "fp32 scalar",
               [&] { (void)grb::reduce(min_monoid<float>{}, af); });
    expect_one("GrB_Matrix_reduce_BOOL", "bool scalar",
               [&] { (void)grb::reduce(lor_monoid<bool>{}, ab); });
}

BOOST_AUTO_TEST_CASE(transpose_extract_assign_kronecker_reach_graphblas) {
    operands o;
    csr_matrix<double> t(9, 12);
    expect_one("GrB_transpose", "transpose", [&] { grb::transpose(t, o.a); });
    expect_one("GrB_transpose", "transpose masked",
               [&] { grb::transpose(t, structure(o.b), no_accum, o.a); });
    std::vector<i32> rows{1, 3, 5}, cols{0, 2};
    csr_matrix<double> e(3, 2);
    expect_one("GrB_Matrix_extract", "extract", [&] {
        grb::extract(e, o.a, std::span<i32 const>(rows), std::span<i32 const>(cols));
    });
    sparse_vector<double> ev(3);
    expect_one("GrB_Vector_extract", "vector extract",
               [&] { grb::extract(ev, o.u9, std::span<i32 const>(rows)); });
    expect_one("GrB_Col_extract", "column extract",
               [&] { grb::extract(ev, o.a, std::span<i32 const>(rows), 4); });
    csr_matrix<double> c = o.a;
    csr_matrix<double> small(3, 2);
    small = grb::random_csr<double>(3, 2, 0.7, o.g);
    expect_one("GrB_Matrix_assign", "assign", [&] {
        grb::assign(c, small, std::span<i32 const>(rows), std::span<i32 const>(cols));
    });
    expect_one("GrB_Matrix_assign_Scalar", "assign a scalar", [&] {
        grb::assign(c, no_mask, no_accum, 7.0, std::span<i32 const>(rows),
                    std::span<i32 const>(cols));
    });
    sparse_vector<double> w = o.u9;
    auto const sv = grb::random_sparse_vector<double>(3, 0.7, o.g);
    expect_one("GrB_Vector_assign", "vector assign",
               [&] { grb::assign(w, sv, std::span<i32 const>(rows)); });
    expect_one("GrB_Vector_assign_Scalar", "vector assign a scalar",
               [&] { grb::assign(w, no_mask, no_accum, 2.5, std::span<i32 const>(rows)); });
    csr_matrix<double> k(12 * 9, 9 * 12);
    expect_one("GrB_Matrix_kronecker_BinaryOp", "kronecker",
               [&] { grb::kronecker(k, times_op<double>{}, o.a, o.b); });
}

BOOST_AUTO_TEST_CASE(bfs_oracle_runs_graphblas) {
    // A directed path 0 -> 1 -> 2 -> 3 and an isolated vertex 4.
    std::vector<i32> const ii{0, 1, 2}, jj{1, 2, 3};
    auto const a = csr_matrix<bool>::from_coo(5, 5, ii, jj, std::span<bool const>{});
    int const before = oracle_calls::count("GrB_vxm") + oracle_calls::count("GrB_mxv");
    grb::bfs_oracle const oracle(a, false);
    auto const r = oracle.run(0, true);
    BOOST_TEST(oracle_calls::count("GrB_vxm") + oracle_calls::count("GrB_mxv") - before >= 3);
    BOOST_TEST(r.level == (std::vector<i64>{0, 1, 2, 3, -1}), boost::test_tools::per_element());
    BOOST_TEST(r.parent == (std::vector<i64>{0, 0, 1, 2, -1}), boost::test_tools::per_element());
    BOOST_TEST(grb::valid_bfs_tree(a, 0, r.level, r.parent));
    // The tree checker refuses a parent with no edge, a parent on the wrong level, an orphan.
    BOOST_TEST(!grb::valid_bfs_tree(a, 0, r.level, std::vector<i64>{0, 0, 0, 2, -1}));
    BOOST_TEST(!grb::valid_bfs_tree(a, 0, r.level, std::vector<i64>{0, 0, 1, 1, -1}));
    BOOST_TEST(!grb::valid_bfs_tree(a, 0, r.level, std::vector<i64>{0, 0, 1, 2, 3}));
    BOOST_TEST(!grb::valid_bfs_tree(a, 0, r.level, std::vector<i64>{0, 0, 1, 7, -1}));
}

// ---- values that differ ------------------------------------------------------------------------
// A = the 3x3 graph 1 -> 2 -> 3 with both weights 2e9. Over min_plus<int32>, SuiteSparse computes
// C(1,3) = 2e9 + 2e9 wrapped to -294967296; kleene saturates to infinity (INT32_MAX). The oracle
// must show SuiteSparse's value.

namespace {
csr_matrix<i32> overflow_graph() {
    std::vector<i32> const ii{0, 1}, jj{1, 2}, vv{2000000000, 2000000000};
    return csr_matrix<i32>::from_coo(3, 3, ii, jj, vv);
}
constexpr i32 wrapped = static_cast<i32>(std::uint32_t(4000000000u));
}  // namespace

BOOST_AUTO_TEST_CASE(mxm_values_are_graphblas_values) {
    using S = min_plus<i32>;
    auto const a = overflow_graph();
    csr_matrix<i32> mine(3, 3), theirs(3, 3), theirs_masked(3, 3);
    kleene::mxm(mine, a, a, S{});
    grb::mxm(theirs, a, a, S{});
    // Masked, through the other entry point: the mask admits (0, 2) only.
    std::vector<i32> const mi{0}, mj{2}, mv{1};
    auto const m = csr_matrix<i32>::from_coo(3, 3, mi, mj, mv);
    grb::mxm(theirs_masked, mask(m), no_accum, a, a, S{});
    BOOST_REQUIRE(theirs_masked.nnz() == 1u);
    BOOST_TEST(theirs_masked.values()[0] == wrapped);
    BOOST_TEST(wrapped == -294967296);
    BOOST_TEST(mine.find(0, 2) >= 0);
    BOOST_TEST(mine.value(std::size_t(mine.find(0, 2))) == infinity<i32>());
    BOOST_REQUIRE(theirs.find(0, 2) >= 0);
    BOOST_TEST(theirs.value(std::size_t(theirs.find(0, 2))) == wrapped);
    BOOST_TEST(!grb::compare(mine, theirs).ok());
}

BOOST_AUTO_TEST_CASE(mxv_vxm_values_are_graphblas_values) {
    using S = min_plus<i32>;
    auto const a = overflow_graph();
    // u = (.., 2e9 at vertex 1, ..): (A u)(0) = A(0,1) + u(1) overflows; (u' A)(2) likewise.
    sparse_vector<i32> const u(3, buffer<i32>{1}, buffer<i32>{2000000000});
    sparse_vector<i32> mine(3), theirs(3);
    kleene::mxv(mine, a, u, S{});
    grb::mxv(theirs, a, u, S{});
    BOOST_REQUIRE(theirs.nnz() == 1u);
    BOOST_TEST(theirs.values()[0] == wrapped);
    BOOST_TEST(!grb::compare(mine, theirs).ok());
    sparse_vector<i32> mine2(3), theirs2(3);
    kleene::vxm(mine2, u, a, S{});
    grb::vxm(theirs2, no_mask, no_accum, u, a, S{});
    BOOST_REQUIRE(theirs2.nnz() == 1u);
    BOOST_TEST(theirs2.values()[0] == wrapped);
    BOOST_TEST(!grb::compare(mine2, theirs2).ok());
}

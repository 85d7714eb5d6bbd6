#define BOOST_TEST_MODULE mxm_graphblas
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/kleene.hpp>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// kleene's mxm against SuiteSparse:GraphBLAS on random inputs: every storage pair, every
// mask/accumulator/replace combination, pinned kernels, and the explain trace.

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

// 0x0, 1x1, degenerate inner/outer dimensions, rectangular, empty rows and columns, a few hundred.
std::vector<shape3> const plain_shapes = {
    {0, 0, 0, 0.5, false},    {1, 1, 1, 1.0, false},      {0, 3, 2, 0.5, false},
    {3, 0, 4, 0.5, false},    {4, 5, 0, 0.5, false},      {1, 7, 1, 0.6, false},
    {7, 1, 5, 0.6, false},    {13, 17, 11, 0.3, true},    {40, 33, 50, 0.1, true},
    {64, 64, 64, 0.5, false}, {150, 90, 200, 0.03, true}, {230, 260, 210, 0.02, false},
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
    C got = c0, want = c0;
    mxm(got, mask, accum, a, b, S{}, opt);
    opt.explain = nullptr;
    grb::mxm(want, mask, accum, a, b, S{}, opt);
    auto const r = grb::compare(got, want, tolerance<S>());
    BOOST_TEST(r.ok(), what << ": " << r.summary());
}

template <class S, class C, class A, class B>
void check_plain(A const& a, B const& b, std::string const& what) {
    using T = typename S::value_type;
    C c0;
    if constexpr (std::is_same_v<C, dense_matrix<T>>)
        c0 = C(a.rows(), b.cols(), T(S::zero()));
    else
        c0 = C(a.rows(), b.cols());
    check_mxm<S>(
        c0, no_mask, no_accum, a, b, options{},
        what + " " + storage_name<A>() + " x " + storage_name<B>() + " -> " + storage_name<C>());
}

/// Every storage pair of the operands and both outputs.
template <class S>
void all_storage_pairs(csr_matrix<typename S::value_type> const& a,
                       csr_matrix<typename S::value_type> const& b, std::string const& what) {
    using T = typename S::value_type;
    auto const ad = to_dense<S>(a);
    auto const bd = to_dense<S>(b);
    check_plain<S, csr_matrix<T>>(a, b, what);
    check_plain<S, dense_matrix<T>>(a, b, what);
    check_plain<S, csr_matrix<T>>(a, bd, what);
    check_plain<S, dense_matrix<T>>(a, bd, what);
    check_plain<S, csr_matrix<T>>(ad, b, what);
    check_plain<S, dense_matrix<T>>(ad, b, what);
    check_plain<S, csr_matrix<T>>(ad, bd, what);
    check_plain<S, dense_matrix<T>>(ad, bd, what);
}

std::string describe(shape3 const& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.k) + " * " + std::to_string(s.k) + "x" +
           std::to_string(s.n) + (s.holes ? " (empty rows/cols)" : "");
}

}  // namespace

// ---- the mapping itself -----------------------------------------------------------------------

struct gf2 {  // a user-defined semiring: GF(2) on int32 (xor, and)
    using value_type = i32;
    static constexpr bool idempotent_add = false;
    static constexpr bool has_terminal = false;
    static constexpr i32 zero() { return 0; }
    static constexpr i32 one() { return 1; }
    static constexpr i32 terminal() { return 0; }
    static constexpr i32 add(i32 a, i32 b) { return a ^ b; }
    static constexpr i32 mul(i32 a, i32 b) { return a & b; }
};

static_assert(grb::has_grb_semiring<min_plus<float>>);
static_assert(grb::has_grb_semiring<any_pair<bool>>);
static_assert(grb::has_grb_semiring<lor_land<bool>>);
static_assert(!grb::has_grb_semiring<lor_land<i32>>);
static_assert(!grb::has_grb_semiring<min_plus<bool>>);
static_assert(!grb::has_grb_semiring<gf2>);
static_assert(grb::has_grb_binary_op<min_op<i64>>);
static_assert(grb::has_grb_binary_op<plus_sat_op<float>>);
static_assert(!grb::has_grb_binary_op<plus_sat_op<i32>>);

BOOST_AUTO_TEST_CASE(semiring_mapping_names_the_builtins) {
    grb::ensure_initialized();
    BOOST_TEST(grb::grb_semiring<min_plus<float>>() == GrB_MIN_PLUS_SEMIRING_FP32);
    BOOST_TEST(grb::grb_semiring<plus_times<double>>() == GrB_PLUS_TIMES_SEMIRING_FP64);
    BOOST_TEST(grb::grb_semiring<plus_pair<i32>>() == GxB_PLUS_PAIR_INT32);
    BOOST_TEST(grb::grb_semiring<any_pair<bool>>() == GxB_ANY_PAIR_BOOL);
    BOOST_TEST(grb::grb_semiring<min_first<i64>>() == GrB_MIN_FIRST_SEMIRING_INT64);
    BOOST_TEST(grb::grb_semiring<lor_land<bool>>() == GrB_LOR_LAND_SEMIRING_BOOL);
    BOOST_TEST(grb::grb_accum<plus_op<float>>() == GrB_PLUS_FP32);
    BOOST_TEST(grb::grb_accum<no_accum_t>() == nullptr);
    BOOST_TEST(grb::library_version().find("SuiteSparse:GraphBLAS 7.") == 0u);
}

// ---- the bridge's conversions round-trip
// ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(conversions_round_trip) {
    std::mt19937_64 g(11);
    auto const a = grb::random_csr<double>(37, 23, 0.2, g, true);
    auto const back = grb::csr_from_grb<double>(grb::to_grb(a).get());
    BOOST_TEST(grb::compare(back, a).ok());
    auto const back64 = grb::csr_from_grb<double, i64>(grb::to_grb(a).get());
    BOOST_TEST(back64.nnz() == a.nnz());

    auto const d = to_dense(a, -1.0);
    auto const gd = grb::to_grb(d, -1.0);
    BOOST_TEST(gd.nvals() == a.nnz());
    BOOST_TEST(grb::compare(grb::dense_from_grb<double>(gd.get(), -1.0), d).ok());
    BOOST_TEST(grb::compare(grb::csr_from_grb<double>(gd.get()), a).ok());
    BOOST_TEST(grb::to_grb_full(d).nvals() == 37u * 23u);

    // An iso (pattern) matrix keeps its value; an empty one stays empty.
    buffer<i32> p{0, 1, 3}, c{2, 0, 1};
    csr_matrix<i32> iso(2, 3, p, c, buffer<i32>{}, 5);
    auto const iso_back = grb::csr_from_grb<i32>(grb::to_grb(iso).get());
    BOOST_TEST(iso_back.nnz() == 3u);
    BOOST_TEST(iso_back.value(2) == 5);
    BOOST_TEST(grb::to_grb(csr_matrix<bool>(0, 0)).nvals() == 0u);

    sparse_vector<float> v(6, buffer<i32>{1, 4}, buffer<float>{2.5f, -1.f});
    auto const vd = grb::dense_from_grb<float>(grb::to_grb(v).get(), 9.f);
    BOOST_TEST(vd[0] == 9.f);
    BOOST_TEST(vd[4] == -1.f);
    BOOST_TEST(grb::compare(grb::sparse_from_grb<float>(grb::to_grb(vd, 9.f).get()), v).ok());

    // Asking for the wrong value type is an error, not a reinterpretation.
    BOOST_CHECK_THROW(grb::csr_from_grb<float>(grb::to_grb(a).get()), kleene::error);
}

BOOST_AUTO_TEST_CASE(compare_reports_structure_and_values) {
    buffer<i32> p{0, 2}, c{0, 1};
    csr_matrix<float> x(1, 3, p, c, buffer<float>{1.f, 2.f});
    csr_matrix<float> y(1, 3, buffer<i32>{0, 2}, buffer<i32>{0, 2}, buffer<float>{1.f, 2.f});
    auto const r = grb::compare(x, y);
    BOOST_TEST(!r.ok());
    BOOST_TEST(r.mismatches == 2u);  // (0,1) only in x, (0,2) only in y
    csr_matrix<float> z(1, 3, buffer<i32>{0, 2}, buffer<i32>{0, 1}, buffer<float>{1.f, 2.0001f});
    BOOST_TEST(!grb::compare(x, z).ok());
    BOOST_TEST(grb::compare(x, z, 1e-3).ok());
    BOOST_TEST(!grb::compare(x, csr_matrix<float>(3, 1)).ok());
}

// ---- every storage pair, many semirings and types, no mask -------------------------------------

using plain_semirings =
    std::tuple<plus_times<float>, plus_times<double>, plus_times<i32>, plus_times<i64>,
               min_plus<float>, min_plus<double>, min_plus<i32>, min_plus<i64>, max_plus<float>,
               max_plus<i64>, max_min<double>, max_min<i32>, min_max<float>, min_max<i64>,
               lor_land<bool>, any_pair<bool>, any_pair<float>, plus_pair<i32>, plus_pair<double>,
               min_first<float>, min_first<bool>, min_second<i64>, plus_min<i32>,
               max_times<double>>;

BOOST_AUTO_TEST_CASE_TEMPLATE(mxm_matches_graphblas, S, plain_semirings) {
    using T = typename S::value_type;
    std::mt19937_64 g(1234);
    for (auto const& s : plain_shapes) {
        auto const a = grb::random_csr<T>(s.m, s.k, s.density, g, s.holes);
        auto const b = grb::random_csr<T>(s.k, s.n, s.density, g, s.holes);
        all_storage_pairs<S>(a, b, describe(s));
    }
}

// ---- the oracle can fail
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_wrong_result_is_caught) {
    std::mt19937_64 g(3);
    auto const a = grb::random_csr<float>(30, 30, 0.2, g, false);
    csr_matrix<float> got(30, 30), want(30, 30);
    mxm(got, a, a, min_plus<float>{});
    grb::mxm(want, a, a, max_plus<float>{});  // a different semiring: values must differ
    BOOST_TEST(!grb::compare(got, want).ok());
    grb::mxm(want, a, a, min_plus<float>{});
    BOOST_TEST_REQUIRE(grb::compare(got, want).ok());
    BOOST_TEST_REQUIRE(got.nnz() > 0u);
    got.values()[got.nnz() / 2] += 1.f;
    auto const r = grb::compare(got, want);
    BOOST_TEST(r.mismatches == 1u);
}

// Known divergence, kept visible: a result equal to the semiring's zero that passes through one of
// kleene's dense temporaries (CSR x dense, dense x CSR, dense x dense into a CSR output) is taken
// for "absent", where GraphBLAS keeps the entry. Here true AND false = false, the zero of lor_land.
// The test asserts the difference (README, "Dense storage has no absent marker"): it also proves
// that the unmasked oracle call runs SuiteSparse (before the fix it ran kleene, and both sides
// agreed). When kleene keeps such entries, turn the assertions around.
BOOST_AUTO_TEST_CASE(zero_valued_result_through_a_dense_temporary) {
    using S = lor_land<bool>;
    dense_matrix<bool> a(1, 1, true);
    csr_matrix<bool> b(1, 1, buffer<i32>{0, 1}, buffer<i32>{0}, buffer<bool>{false});
    csr_matrix<bool> got(1, 1), want(1, 1);
    mxm(got, a, b, S{});
    grb::mxm(want, a, b, S{});
    BOOST_TEST(got.nnz() == 0u);
    BOOST_REQUIRE(want.nnz() == 1u);
    BOOST_TEST(want.value(0) == false);
    auto const r = grb::compare(got, want);
    BOOST_TEST(!r.ok());
    BOOST_TEST(r.summary() == "1 of 1 entries differ; (0, 0): got absent, want false");
}

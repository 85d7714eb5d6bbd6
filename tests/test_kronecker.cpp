#define BOOST_TEST_MODULE kronecker
#include "ops_common.hpp"

// kronecker against SuiteSparse:GraphBLAS: operators, monoids, semirings (mul), every storage
// combination, transposed views, every mask/accumulator/replace case.

using namespace ops_test;

namespace {

struct kshape {
    std::size_t ma, na, mb, nb;
};
std::vector<kshape> const kshapes = {{0, 0, 2, 3}, {1, 1, 1, 1}, {2, 3, 0, 4},
                                     {3, 2, 4, 5}, {7, 5, 6, 9}, {12, 10, 9, 11}};

template <class Op>
void kron_case(Op const& op, std::mt19937& g, bool all_masks) {
    using T = typename std::remove_cvref_t<decltype(unwrap_absent(op))>::value_type;
    T const absent = absent_of(op);
    for (auto const& s : kshapes) {
        auto const a = random_csr<T>(s.ma, s.na, 0.4, false, g);
        auto const b = random_csr<T>(s.mb, s.nb, 0.4, false, g);
        std::size_t const m = s.ma * s.mb, n = s.na * s.nb;
        auto const c0 = random_csr<T>(m, n, 0.1, false, g);
        auto const mk = random_mask<T>(m, n, g);
        std::string const w = std::to_string(s.ma) + "x" + std::to_string(s.na) + " (x) " +
                              std::to_string(s.mb) + "x" + std::to_string(s.nb);
        auto one = [&](auto const& c, auto const& x, auto const& y, std::string const& what) {
            auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                kleene::kronecker(out, mask, accum, op, x, y, o);
            };
            auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                grb::kronecker(out, mask, accum, op, x, y, o);
            };
            if (all_masks)
                check_all(c, mk, plus_op<T>{}, k, gr, "kronecker " + what);
            else
                check_plain(c, k, gr, "kronecker " + what);
        };
        one(c0, a, b, w + " csr, csr -> csr");
        one(to_dense(c0, absent), a, to_dense(b, absent), w + " csr, dense -> dense");
        one(c0, to_dense(a, absent), b, w + " dense, csr -> csr");
        auto const at = random_csr<T>(s.na, s.ma, 0.4, false, g);
        one(c0, transpose(at), b, w + " csr', csr -> csr");
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(operators_monoids_semirings) {
    std::mt19937 g(1);
    kron_case(times_op<double>{}, g, false);
    kron_case(plus_monoid<i32>{}, g, false);
    kron_case(first_op<i64>{}, g, false);
    kron_case(second_op<float>{}, g, false);
    kron_case(plus_times<double>{}, g, false);
    kron_case(lor_land<bool>{}, g, false);
    kron_case(min_plus<i32>{}, g, false);
}

BOOST_AUTO_TEST_CASE(every_mask_accumulator_and_replace) {
    std::mt19937 g(2);
    kron_case(times_op<double>{}, g, true);
    kron_case(min_monoid<i32>{}, g, true);
}

BOOST_AUTO_TEST_CASE(shapes_are_checked) {
    csr_matrix<double> a(2, 3), b(4, 5), c(8, 14);
    BOOST_CHECK_THROW(kronecker(c, times_op<double>{}, a, b), dimension_mismatch);
    csr_matrix<double> ok(8, 15);
    kronecker(ok, times_op<double>{}, a, b);
    BOOST_TEST(ok.nnz() == 0u);
    // A shape whose product passes 64 bits: refused before any work (rows 2^40 x 2^40 wrap to 0,
    // which a 0 x 0 output would otherwise match). Dense operands of no columns hold no entries.
    dense_matrix<double> wide(std::size_t(1) << 40, 0), out(0, 0);
    BOOST_CHECK_THROW(kronecker(out, times_op<double>{}, wide, wide), overflow_error);
}

#define BOOST_TEST_MODULE reduce_transpose
#include "ops_common.hpp"

// reduce (rows, columns through a transposed view, to a scalar) and transpose (as an operation
// and as a view feeding mxm, mxv and vxm) against SuiteSparse:GraphBLAS.

using namespace ops_test;

namespace {

template <class Mon>
void reduce_case(Mon const& mon, std::mt19937& g, bool all_masks) {
    using T = typename std::remove_cvref_t<decltype(unwrap_absent(mon))>::value_type;
    T const absent = absent_of(mon);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const ad = to_dense(a, absent);
        std::string const w = describe(s);
        auto one = [&](auto const& in, std::size_t n, std::string const& what) {
            auto const w0 = random_sparse_vector<T>(n, 0.3, g, absent);
            auto const m = random_sparse_vector<T>(n, 0.5, g, T(1));
            auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                kleene::reduce(out, mask, accum, mon, in, o);
            };
            auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                grb::reduce(out, mask, accum, mon, in, o);
            };
            // (SuiteSparse:GraphBLAS 7.4 reports a dimension mismatch for a masked reduction of
            // a 0x0 matrix, so that one runs unmasked.)
            if (all_masks && (s.m > 0 || s.n > 0)) {
                check_all(w0, m, plus_op<T>{}, k, gr, "reduce " + what);
                check_all(to_dense(w0, absent), m, plus_op<T>{}, k, gr, "reduce -> dense " + what);
            } else {
                check_plain(w0, k, gr, "reduce " + what);
                check_plain(to_dense(w0, absent), k, gr, "reduce -> dense " + what);
            }
        };
        one(a, s.m, w + " rows of csr");
        one(ad, s.m, w + " rows of dense");
        one(transpose(a), s.n, w + " columns of csr");
        one(transpose(ad), s.n, w + " columns of dense");
        // To a scalar.
        T const want = grb::reduce(mon, a);
        double const tol = tolerance<T>() * 100;
        auto close = [&](T got) {
            if constexpr (std::is_floating_point_v<T>)
                return got == want || std::abs(double(got) - double(want)) <= tol * (1 + std::abs(double(want)));
            else
                return got == want;
        };
        auto show = [](T x) { return +x; };
        BOOST_TEST(close(kleene::reduce(mon, a)),
                   "reduce to scalar " << w << ": " << show(kleene::reduce(mon, a)) << " vs "
                                       << show(want));
        BOOST_TEST(close(kleene::reduce(mon, ad)), "reduce dense to scalar " << w);
        BOOST_TEST(close(kleene::reduce(mon, transpose(a))), "reduce transposed to scalar " << w);
        auto const u = random_sparse_vector<T>(s.n, 0.5, g, absent);
        T const want_u = grb::reduce(mon, u);
        auto close_u = [&](T got) {
            if constexpr (std::is_floating_point_v<T>)
                return got == want_u || std::abs(double(got) - double(want_u)) <= tol * (1 + std::abs(double(want_u)));
            else return got == want_u;
        };
        BOOST_TEST(close_u(kleene::reduce(mon, u)), "reduce vector " << w);
        BOOST_TEST(close_u(kleene::reduce(mon, to_dense(u, absent))), "reduce dense vector " << w);
    }
}

template <class T>
void transpose_case(std::mt19937& g, bool all_masks) {
    T const absent = T(0);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const ad = to_dense(a, absent);
        auto const c0 = random_csr<T>(s.n, s.m, 0.2, false, g);
        auto const m = random_mask<T>(s.n, s.m, g);
        auto one = [&](auto const& c, auto const& in, std::string const& what) {
            auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                kleene::transpose(out, mask, accum, in, o, absent);
            };
            auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                grb::transpose(out, mask, accum, in, o, absent);
            };
            if (all_masks)
                check_all(c, m, plus_op<T>{}, k, gr, "transpose " + what);
            else
                check_plain(c, k, gr, "transpose " + what);
        };
        std::string const w = describe(s);
        one(c0, a, w + " csr -> csr");
        one(to_dense(c0, absent), a, w + " csr -> dense");
        one(c0, ad, w + " dense -> csr");
        one(to_dense(c0, absent), ad, w + " dense -> dense");
        auto const at = random_csr<T>(s.n, s.m, s.density, s.holes, g);
        one(c0, transpose(at), w + " transpose of a view -> csr");
    }
}

/// Reference for the products with a transposed operand: the same product on A' materialised.
template <class S>
void product_views(std::mt19937& g) {
    using T = typename S::value_type;
    T const zero = S::zero();
    for (auto const& s : shapes) {
        // No stored zero in A: its dense copy below must hold the same entries.
        auto const a = random_csr_without<T>(zero, s.m, s.n, s.density, s.holes, g);
        csr_matrix<T> at(s.n, s.m);
        kleene::transpose(at, a);
        auto const u = random_sparse_vector<T>(s.m, 0.4, g, zero);
        auto const v = random_sparse_vector<T>(s.n, 0.4, g, zero);
        auto const mv = random_sparse_vector<T>(s.n, 0.5, g, T(1));
        std::string const w = describe(s);
        // mxv(A', u) == vxm(u, A), with and without a mask and accumulator.
        auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
            kleene::mxv(out, mask, accum, transpose(a), u, S{}, o);
        };
        auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
            grb::mxv(out, mask, accum, at, u, S{}, o);
        };
        check_all(random_sparse_vector<T>(s.n, 0.3, g, zero), mv, plus_op<T>{}, k, gr,
                  "mxv(transpose(A), u) " + w);
        auto kd = [&](auto& out, auto const& mask, auto accum, options const& o) {
            kleene::mxv(out, mask, accum, transpose(to_dense(a, zero)), to_dense(u, zero), S{}, o);
        };
        check_plain(dense_vector<T>(s.n, zero), kd, gr, "mxv(transpose(dense A), u) " + w);
        // vxm(v, A') == mxv(A, v).
        auto k2 = [&](auto& out, auto const& mask, auto accum, options const& o) {
            kleene::vxm(out, mask, accum, v, transpose(a), S{}, o);
        };
        auto g2 = [&](auto& out, auto const& mask, auto accum, options const& o) {
            grb::vxm(out, mask, accum, v, at, S{}, o);
        };
        check_plain(sparse_vector<T>(s.m), k2, g2, "vxm(v, transpose(A)) " + w);
        options pin;
        pin.kernel = kernel_choice::spmv_pull;
        sparse_vector<T> got(s.n), want(s.n);
        kleene::mxv(got, transpose(a), u, S{}, pin);
        grb::mxv(want, at, u, S{});
        BOOST_TEST(grb::compare(got, want, tolerance<T>()).ok(), "pinned pull " << w);
        // mxm(A', B) and mxm(B, A'): materialised.
        auto const b = random_csr_without<T>(zero, s.m, s.n, s.density, s.holes, g);
        csr_matrix<T> c1(s.n, s.n), c2(s.n, s.n), c3(s.m, s.m), c4(s.m, s.m);
        kleene::mxm(c1, transpose(a), b, S{});
        grb::mxm(c2, at, b, S{});
        BOOST_TEST(grb::compare(c1, c2, tolerance<T>()).ok(),
                   "mxm(A', B) " << w << ": " << grb::compare(c1, c2, tolerance<T>()).summary());
        kleene::mxm(c3, b, transpose(to_dense(a, zero)), S{});
        grb::mxm(c4, b, at, S{});
        BOOST_TEST(grb::compare(c3, c4, tolerance<T>()).ok(),
                   "mxm(B, dense A') " << w << ": " << grb::compare(c3, c4, tolerance<T>()).summary());
    }
}

}  // namespace

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

BOOST_AUTO_TEST_CASE(transpose_every_storage_and_mask) {
    std::mt19937 g(4);
    transpose_case<double>(g, false);
    transpose_case<i32>(g, false);
    transpose_case<bool>(g, false);
    transpose_case<float>(g, true);
}

BOOST_AUTO_TEST_CASE(transposed_views_in_products) {
    std::mt19937 g(5);
    product_views<plus_times<double>>(g);
    product_views<min_first<i32>>(g);  // first/second: the operand order matters
    product_views<min_second<i64>>(g);
    product_views<lor_land<bool>>(g);
}

BOOST_AUTO_TEST_CASE(views_are_traced_and_not_materialised_for_vectors) {
    std::mt19937 g(6);
    auto const a = random_csr<double>(30, 20, 0.2, false, g);
    sparse_vector<double> u(30), w(20);
    explain_trace t;
    options o;
    o.explain = &t;
    mxv(w, transpose(a), u, plus_times<double>{}, o);
    BOOST_TEST(t.str().find("no transpose materialised") != std::string::npos, t.str());
    BOOST_TEST(t.str().find("spmspv_push") != std::string::npos, t.str());
    csr_matrix<double> c(20, 20);
    t.lines.clear();
    mxm(c, transpose(a), a, plus_times<double>{}, o);
    BOOST_TEST(t.str().find("transpose materialised") != std::string::npos, t.str());
    BOOST_TEST(&transpose(transpose(a)) == &a);
    csr_matrix<double> wrong(30, 20);
    BOOST_CHECK_THROW(transpose(wrong, a), dimension_mismatch);
}

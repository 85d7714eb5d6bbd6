#pragma once
// reduce and transpose against SuiteSparse:GraphBLAS: the drivers shared by test_reduce.cpp and
// test_transpose.cpp (one suite was one translation unit too heavy to build under the sanitizers).

#include "ops_common.hpp"

namespace ops_test {

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

}  // namespace ops_test

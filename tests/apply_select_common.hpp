#pragma once
// apply and select against SuiteSparse:GraphBLAS: the drivers shared by test_apply_*.cpp and
// test_select_*.cpp (one suite was one translation unit too heavy to build under the sanitizers).

#include "ops_common.hpp"

namespace ops_test {

template <class T>
struct square_op {  // a user unary operator
    using value_type = T;
    static constexpr T apply(T a) { return T(a * a); }
};

template <class C, class Op, class A>
void run_apply(C const& c0, csr_matrix<typename C::value_type> const& m, Op const& op, A const& a,
               bool all_masks, std::string const& what) {
    using T = typename C::value_type;
    auto k = [&](C& c, auto const& mask, auto accum, options const& o) {
        kleene::apply(c, mask, accum, op, a, o);
    };
    auto g = [&](C& c, auto const& mask, auto accum, options const& o) {
        grb::apply(c, mask, accum, op, a, o);
    };
    if (all_masks)
        check_all(c0, m, plus_op<T>{}, k, g, "apply " + what);
    else
        check_plain(c0, k, g, "apply " + what);
}

template <class C, class P, class A>
void run_select(C const& c0, csr_matrix<typename C::value_type> const& m, P const& p, A const& a,
                typename C::value_type absent, bool all_masks, std::string const& what) {
    using T = typename C::value_type;
    auto k = [&](C& c, auto const& mask, auto accum, options const& o) {
        kleene::select(c, mask, accum, p, a, o, absent);
    };
    auto g = [&](C& c, auto const& mask, auto accum, options const& o) {
        grb::select(c, mask, accum, p, a, o, absent);
    };
    if (all_masks)
        check_all(c0, m, plus_op<T>{}, k, g, "select " + what);
    else
        check_plain(c0, k, g, "select " + what);
}

template <class Op>
void apply_case(Op const& op, std::mt19937& g, bool all_masks) {
    using T = typename std::remove_cvref_t<decltype(unwrap_absent(op))>::value_type;
    T const absent = absent_of(op);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const c0 = random_csr<T>(s.m, s.n, 0.2, false, g);
        auto const m = random_mask<T>(s.m, s.n, g);
        auto const ad = to_dense(a, absent), cd = to_dense(c0, absent);
        auto const at = random_csr<T>(s.n, s.m, s.density, s.holes, g);
        std::string const w = describe(s);
        run_apply(c0, m, op, a, all_masks, w + " csr -> csr");
        run_apply(cd, m, op, a, all_masks, w + " csr -> dense");
        run_apply(c0, m, op, ad, all_masks, w + " dense -> csr");
        run_apply(cd, m, op, ad, all_masks, w + " dense -> dense");
        run_apply(c0, m, op, transpose(at), all_masks, w + " csr' -> csr");
    }
    for (std::size_t n : {0, 1, 9, 200}) {
        auto const u = random_sparse_vector<T>(n, 0.4, g, absent);
        auto const w0 = random_sparse_vector<T>(n, 0.3, g, absent);
        auto const m = random_sparse_vector<T>(n, 0.5, g, T(1));
        auto kv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            kleene::apply(w, mask, accum, op, u, o);
        };
        auto gv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            grb::apply(w, mask, accum, op, u, o);
        };
        check_all(w0, m, plus_op<T>{}, kv, gv, "apply vector " + std::to_string(n));
        check_all(to_dense(w0, absent), m, plus_op<T>{}, kv, gv,
                  "apply vector -> dense " + std::to_string(n));
    }
}

template <class T, class P>
void select_case(P const& p, std::mt19937& g, bool all_masks) {
    T const absent = T(0);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const c0 = random_csr<T>(s.m, s.n, 0.2, false, g);
        auto const m = random_mask<T>(s.m, s.n, g);
        auto const ad = to_dense(a, absent), cd = to_dense(c0, absent);
        auto const at = random_csr<T>(s.n, s.m, s.density, s.holes, g);
        std::string const w = describe(s);
        run_select(c0, m, p, a, absent, all_masks, w + " csr -> csr");
        run_select(cd, m, p, a, absent, all_masks, w + " csr -> dense");
        run_select(c0, m, p, ad, absent, all_masks, w + " dense -> csr");
        run_select(cd, m, p, ad, absent, all_masks, w + " dense -> dense");
        run_select(c0, m, p, transpose(at), absent, all_masks, w + " csr' -> csr");
    }
    for (std::size_t n : {0, 1, 9, 200}) {
        auto const u = random_sparse_vector<T>(n, 0.4, g, absent);
        auto const w0 = random_sparse_vector<T>(n, 0.3, g, absent);
        auto const m = random_sparse_vector<T>(n, 0.5, g, T(1));
        auto kv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            kleene::select(w, mask, accum, p, u, o, absent);
        };
        auto gv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            grb::select(w, mask, accum, p, u, o, absent);
        };
        check_all(w0, m, plus_op<T>{}, kv, gv, "select vector " + std::to_string(n));
    }
}

}  // namespace ops_test

#pragma once
// ewise_add and ewise_mult against SuiteSparse:GraphBLAS: the drivers shared by test_ewise_*.cpp
// (one suite was one translation unit too heavy to build under the sanitizers).
// (any is left out: which operand it returns is unspecified, and the two libraries differ.)

#include "ops_common.hpp"

namespace ops_test {

/// |a - b|: a user-defined operator (GraphBLAS gets it as a user-defined binary operator).
template <class T>
struct absdiff_op {
    using value_type = T;
    static constexpr T apply(T a, T b) { return a < b ? T(b - a) : T(a - b); }
};

template <bool Union, class C, class Op, class A, class B>
auto kleene_call(Op const& op, A const& a, B const& b) {
    return [&op, &a, &b](C& c, auto const& mask, auto accum, options const& o) {
        if constexpr (Union)
            kleene::ewise_add(c, mask, accum, op, a, b, o);
        else
            kleene::ewise_mult(c, mask, accum, op, a, b, o);
    };
}
template <bool Union, class C, class Op, class A, class B>
auto grb_call(Op const& op, A const& a, B const& b) {
    return [&op, &a, &b](C& c, auto const& mask, auto accum, options const& o) {
        if constexpr (Union)
            grb::ewise_add(c, mask, accum, op, a, b, o);
        else
            grb::ewise_mult(c, mask, accum, op, a, b, o);
    };
}

template <bool Union, class C, class Op, class A, class B, class M>
void run(C const& c0, M const& m, Op const& op, A const& a, B const& b, bool all_masks,
         std::string const& what) {
    using T = typename C::value_type;
    auto k = kleene_call<Union, C>(op, a, b);
    auto g = grb_call<Union, C>(op, a, b);
    std::string const name = std::string(Union ? "ewise_add " : "ewise_mult ") + what;
    if constexpr (std::is_same_v<M, dense_matrix<T>>)
        check_all2(c0, m, full_csr(m), plus_op<T>{}, k, g, name);
    else if constexpr (std::is_same_v<M, dense_vector<T>>)
        check_all2(c0, m, full_sparse(m), plus_op<T>{}, k, g, name);
    else if (all_masks)
        check_all(c0, m, plus_op<T>{}, k, g, name);
    else
        check_plain(c0, k, g, name);
}

/// Every storage combination of A, B and C for one operator.
template <bool Union, class Op>
void matrices(Op const& op, std::mt19937& g, bool all_masks) {
    using T = typename std::remove_cvref_t<decltype(unwrap_absent(op))>::value_type;
    T const absent = absent_of(op);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const b = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const c0 = random_csr<T>(s.m, s.n, 0.2, false, g);
        auto const m = random_mask<T>(s.m, s.n, g);
        auto const ad = to_dense(a, absent), bd = to_dense(b, absent), cd = to_dense(c0, absent);
        std::string const w = describe(s);
        run<Union>(c0, m, op, a, b, all_masks, w + " csr, csr -> csr");
        run<Union>(cd, m, op, a, b, all_masks, w + " csr, csr -> dense");
        run<Union>(c0, m, op, ad, b, all_masks, w + " dense, csr -> csr");
        run<Union>(cd, m, op, a, bd, all_masks, w + " csr, dense -> dense");
        run<Union>(cd, m, op, ad, bd, all_masks, w + " dense, dense -> dense");
        run<Union>(c0, m, op, ad, bd, all_masks, w + " dense, dense -> csr");
        // Transposed views: A' and B' are n x m.
        auto const at = random_csr<T>(s.n, s.m, s.density, s.holes, g);
        auto const bt = random_csr<T>(s.n, s.m, s.density, s.holes, g);
        run<Union>(c0, m, op, transpose(at), b, all_masks, w + " csr', csr -> csr");
        run<Union>(cd, m, op, a, transpose(to_dense(bt, absent)), false,
                   w + " csr, dense' -> dense");
        if (all_masks) {
            auto const md = to_dense(m, T(0));
            run<Union>(c0, md, op, a, b, true, w + " csr, csr -> csr, dense mask");
        }
    }
}

template <bool Union, class Op>
void vectors(Op const& op, std::mt19937& g) {
    using T = typename std::remove_cvref_t<decltype(unwrap_absent(op))>::value_type;
    T const absent = absent_of(op);
    for (std::size_t n : {0, 1, 7, 64, 300}) {
        auto const u = random_sparse_vector<T>(n, 0.4, g, absent);
        auto const v = random_sparse_vector<T>(n, 0.4, g, absent);
        auto const w0 = random_sparse_vector<T>(n, 0.3, g, absent);
        auto const m = random_sparse_vector<T>(n, 0.5, g, T(1));
        auto const ud = to_dense(u, absent), wd = to_dense(w0, absent);
        std::string const w = "vector " + std::to_string(n);
        run<Union>(w0, m, op, u, v, true, w + " sparse, sparse -> sparse");
        run<Union>(wd, m, op, ud, v, true, w + " dense, sparse -> dense");
        run<Union>(w0, to_dense(m, T(0)), op, u, ud, true,
                   w + " sparse, dense -> sparse, dense mask");
    }
}

template <class Op>
void both(Op const& op, std::mt19937& g, bool all_masks) {
    matrices<true>(op, g, all_masks);
    matrices<false>(op, g, all_masks);
}

}  // namespace ops_test

#pragma once
// The drivers shared by test_mxv_graphblas.cpp and test_mxv_masked_graphblas.cpp (one suite was
// one translation unit too heavy to build under the sanitizers).
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/kleene.hpp>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// kleene's mxv and vxm against SuiteSparse:GraphBLAS on random inputs: CSR or dense matrix, sparse
// or dense input and output vectors, every mask/accumulator/replace combination, pinned kernels.

namespace mxv_test {

using namespace kleene;
namespace grb = kleene::graphblas;
using i32 = std::int32_t;
using i64 = std::int64_t;

struct shape2 {
    std::size_t m, n;
    double density, vdensity;
    bool holes;
};

std::vector<shape2> const shapes = {
    {0, 0, 0.5, 0.5, false},  {1, 1, 1.0, 1.0, false},       {0, 5, 0.5, 0.5, false},
    {5, 0, 0.5, 0.5, false},  {1, 9, 0.5, 0.5, false},       {17, 3, 0.4, 0.6, true},
    {60, 45, 0.1, 0.3, true}, {250, 300, 0.03, 0.02, false}, {300, 200, 0.05, 0.9, true},
};

template <class S>
double tolerance() {
    using T = typename S::value_type;
    if constexpr (std::is_floating_point_v<T> && !S::idempotent_add)
        return std::is_same_v<T, float> ? 1e-5 : 1e-12;
    else
        return 0.0;
}

inline std::string describe(shape2 const& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.n) + (s.holes ? " (empty rows/cols)" : "");
}

template <class S, class W, class Mask, class Accum, class A, class U>
void check_mxv(W const& w0, Mask const& mask, Accum accum, A const& a, U const& u, options opt,
               std::string const& what) {
    W got = w0, want = w0;
    mxv(got, mask, accum, a, u, S{}, opt);
    opt.explain = nullptr;
    grb::mxv(want, mask, accum, a, u, S{}, opt);
    auto const r = grb::compare(got, want, tolerance<S>());
    BOOST_TEST(r.ok(), "mxv " << what << ": " << r.summary());
}

template <class S, class W, class Mask, class Accum, class U, class A>
void check_vxm(W const& w0, Mask const& mask, Accum accum, U const& u, A const& a, options opt,
               std::string const& what) {
    W got = w0, want = w0;
    vxm(got, mask, accum, u, a, S{}, opt);
    opt.explain = nullptr;
    grb::vxm(want, mask, accum, u, a, S{}, opt);
    auto const r = grb::compare(got, want, tolerance<S>());
    BOOST_TEST(r.ok(), "vxm " << what << ": " << r.summary());
}

/// Every mask (none; sparse or dense; valued or structural; complemented or not) x accumulator x
/// replace, for mxv when `left` is false, vxm when it is true.
template <class S, class Accum, bool Left, class W, class A, class U>
void all_write_backs(W const& w0, sparse_vector<typename S::value_type> const& msk, A const& a,
                     U const& u, options opt, std::string const& what) {
    using T = typename S::value_type;
    auto const mskd = to_dense(msk, T(0));
    auto run = [&](auto const& m, auto acc, std::string const& how) {
        if constexpr (Left)
            check_vxm<S>(w0, m, acc, u, a, opt, what + how);
        else
            check_mxv<S>(w0, m, acc, a, u, opt, what + how);
    };
    for (bool replace : {false, true}) {
        opt.replace = replace;
        std::string const r = replace ? " replace" : "";
        run(no_mask, no_accum, " no mask" + r);
        run(no_mask, Accum{}, " no mask, accum" + r);
        for (int kind = 0; kind < 4; ++kind) {
            auto const set = [&](auto v) {
                v.structural = kind & 1;
                v.complemented = kind & 2;
                return v;
            };
            std::string const k = std::string(kind & 2 ? " complemented" : "") +
                                  (kind & 1 ? " structural" : " valued") + " mask" + r;
            run(set(mask(msk)), no_accum, k + " (sparse)");
            run(set(mask(msk)), Accum{}, k + " (sparse), accum");
            run(set(mask(mskd)), no_accum, k + " (dense)");
            run(set(mask(mskd)), Accum{}, k + " (dense), accum");
        }
    }
}

/// Both matrix storages x both input vector storages x both output vector storages.
template <class S, class Accum, bool Masks>
void all_storages(shape2 const& s, std::mt19937_64& g, options opt = {}) {
    using T = typename S::value_type;
    auto const a = grb::random_csr<T>(s.m, s.n, s.density, g, s.holes);
    auto const ad = to_dense<S>(a);
    for (bool left : {false, true}) {
        std::size_t const in = left ? s.m : s.n, out = left ? s.n : s.m;
        auto const u = grb::random_sparse_vector<T>(in, s.vdensity, g);
        auto const ud = to_dense<S>(u);
        auto const w = grb::random_sparse_vector<T>(out, 0.3, g);
        auto const wd = to_dense<S>(w);
        auto const msk = grb::random_sparse_vector<T>(out, 0.5, g);
        std::string const what = describe(s);
        auto go = [&](auto const& w0, auto const& mat, auto const& vec, std::string const& st) {
            if constexpr (Masks) {
                if (left)
                    all_write_backs<S, Accum, true>(w0, msk, mat, vec, opt, what + st);
                else
                    all_write_backs<S, Accum, false>(w0, msk, mat, vec, opt, what + st);
            } else {
                if (left)
                    check_vxm<S>(w0, no_mask, no_accum, vec, mat, opt, what + st);
                else
                    check_mxv<S>(w0, no_mask, no_accum, mat, vec, opt, what + st);
            }
        };
        go(w, a, u, " csr, sparse u, sparse w");
        go(wd, a, u, " csr, sparse u, dense w");
        go(w, a, ud, " csr, dense u, sparse w");
        go(wd, a, ud, " csr, dense u, dense w");
        go(w, ad, u, " dense, sparse u, sparse w");
        go(wd, ad, u, " dense, sparse u, dense w");
        go(w, ad, ud, " dense, dense u, sparse w");
        go(wd, ad, ud, " dense, dense u, dense w");
    }
}

}  // namespace mxv_test

#pragma once
// Shared by the tests of the GraphBLAS operations beyond mxm: random inputs, and a driver that
// runs one operation through kleene and through SuiteSparse:GraphBLAS from the same output,
// under every mask / accumulator / replace combination, and compares entry by entry.

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/graphblas/operations.hpp>
#include <kleene/kleene.hpp>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ops_test {

using namespace kleene;
namespace grb = kleene::graphblas;
using i32 = std::int32_t;
using i64 = std::int64_t;

struct shape2 {
    std::size_t m, n;
    double density;
    bool holes;  // empty every 5th row and every 7th column
};

// 0x0, 1x1, empty dimensions, rectangular, empty rows and columns, a few hundred.
inline std::vector<shape2> const shapes = {
    {0, 0, 0.5, false},   {1, 1, 1.0, false},    {0, 5, 0.5, false},      {6, 0, 0.5, false},
    {1, 9, 0.6, false},   {7, 1, 0.6, false},    {13, 17, 0.3, true},     {40, 33, 0.15, true},
    {64, 64, 0.5, false}, {150, 90, 0.04, true}, {230, 210, 0.02, false},
};
/// Fewer, for the combinations that multiply (every mask kind times storage kinds).
inline std::vector<shape2> const mask_shapes = {
    {0, 0, 0.5, false},  {1, 1, 1.0, false},    {6, 9, 0.5, false},
    {37, 23, 0.2, true}, {120, 80, 0.05, true},
};

template <class T>
T random_value(std::mt19937& g) {
    if constexpr (std::is_same_v<T, bool>)
        return std::bernoulli_distribution(0.7)(g);
    else if constexpr (std::is_floating_point_v<T>)
        return std::uniform_real_distribution<T>(-4, 4)(g);
    else
        return std::uniform_int_distribution<T>(-9, 9)(g);
}

template <class T, class Index = i32>
csr_matrix<T, Index> random_csr(std::size_t r, std::size_t c, double p, bool holes,
                                std::mt19937& g) {
    std::vector<Index> ii, jj;
    std::vector<T> vv;
    std::bernoulli_distribution keep(p);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) {
            if (holes && (i % 5 == 3 || j % 7 == 2)) continue;
            if (!keep(g)) continue;
            ii.push_back(Index(i));
            jj.push_back(Index(j));
            vv.push_back(random_value<T>(g));
        }
    buffer<T> vals(vv.size());
    std::copy(vv.begin(), vv.end(), vals.data());
    return csr_matrix<T, Index>::from_coo(r, c, ii, jj,
                                          std::span<T const>(vals.data(), vals.size()));
}

/// CSR with no stored value equal to `absent`, so that it converts to dense and back unchanged.
template <class T>
csr_matrix<T> random_csr_without(T absent, std::size_t r, std::size_t c, double p, bool holes,
                                 std::mt19937& g) {
    auto a = random_csr<T>(r, c, p, holes, g);
    for (std::size_t k = 0; k < a.nnz(); ++k)
        if (a.values()[k] == absent) {
            if constexpr (std::is_same_v<T, bool>)
                a.values()[k] = !absent;
            else
                a.values()[k] = T(absent + T(1));
        }
    return a;
}

/// A mask with stored zeros, so that valued and structural masks differ.
template <class T>
csr_matrix<T> random_mask(std::size_t r, std::size_t c, std::mt19937& g) {
    auto m = random_csr<T>(r, c, 0.4, false, g);
    std::bernoulli_distribution zero(0.3);
    for (std::size_t k = 0; k < m.nnz(); ++k)
        if (zero(g)) m.values()[k] = T(0);
    return m;
}

template <class T>
sparse_vector<T> random_sparse_vector(std::size_t n, double p, std::mt19937& g, T absent) {
    std::vector<i32> idx;
    std::vector<T> vals;
    std::bernoulli_distribution keep(p);
    for (std::size_t i = 0; i < n; ++i)
        if (keep(g)) {
            T v = random_value<T>(g);
            if (v == absent) {
                if constexpr (std::is_same_v<T, bool>)
                    v = !absent;
                else
                    v = T(absent + T(1));
            }
            idx.push_back(i32(i));
            vals.push_back(v);
        }
    buffer<i32> bi(idx.size());
    buffer<T> bv(vals.size());
    std::copy(idx.begin(), idx.end(), bi.data());
    std::copy(vals.begin(), vals.end(), bv.data());
    return {n, std::move(bi), std::move(bv)};
}

template <class T>
double tolerance() {
    if constexpr (std::is_same_v<T, float>)
        return 1e-5;
    else if constexpr (std::is_same_v<T, double>)
        return 1e-12;
    else
        return 0.0;
}

inline std::string describe(shape2 const& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.n) + (s.holes ? " (empty rows/cols)" : "");
}

/// Runs k(out, mask, accum, options) and g(out, ...) from the same c0 and compares, for no mask
/// and every mask kind of `m` (valued, structural, complemented), without and with `accum`,
/// with and without replace.
template <class C, class MK, class MG, class Accum, class K, class G>
void check_all2(C const& c0, MK const& mk, MG const& mg, Accum accum, K&& k, G&& g,
                std::string const& what) {
    using T = typename C::value_type;
    // `mask` maps a mask container to the mask view under test.
    auto one = [&](auto const& mask, auto acc, bool replace, char const* how) {
        options o;
        o.replace = replace;
        C got = c0, want = c0;
        k(got, mask(mk), acc, o);
        g(want, mask(mg), acc, o);
        auto const r = grb::compare(got, want, tolerance<T>());
        BOOST_TEST(r.ok(),
                   what << " [" << how << (replace ? ", replace" : "") << "]: " << r.summary());
    };
    auto masks = [&](auto acc, char const* plain, char const* valued, char const* structural,
                     char const* comp, char const* comp_structural) {
        one([](auto const&) { return no_mask; }, acc, false, plain);
        for (bool replace : {false, true}) {
            one([](auto const& m) { return mask(m); }, acc, replace, valued);
            one([](auto const& m) { return structure(m); }, acc, replace, structural);
            one([](auto const& m) { return complement(m); }, acc, replace, comp);
            one([](auto const& m) { return complement(structure(m)); }, acc, replace,
                comp_structural);
        }
    };
    masks(no_accum, "no mask", "mask", "structural mask", "complemented mask",
          "complemented structural mask");
    masks(accum, "accum", "mask, accum", "structural mask, accum", "complemented mask, accum",
          "complemented structural mask, accum");
}

template <class C, class M, class Accum, class K, class G>
void check_all(C const& c0, M const& m, Accum accum, K&& k, G&& g, std::string const& what) {
    check_all2(c0, m, m, accum, k, g, what);
}

/// A dense mask as GraphBLAS sees it: every entry stored. (SuiteSparse:GraphBLAS 7.4 crashes in
/// GB_subassign_08n on some full masks with an accumulator, so the oracle gets this CSR copy.)
template <class T>
csr_matrix<T> full_csr(dense_matrix<T> const& d) {
    std::vector<i32> ii, jj;
    std::vector<T> vv;
    for (std::size_t i = 0; i < d.rows(); ++i)
        for (std::size_t j = 0; j < d.cols(); ++j) {
            ii.push_back(i32(i));
            jj.push_back(i32(j));
            vv.push_back(d(i, j));
        }
    buffer<T> vals(vv.size());
    std::copy(vv.begin(), vv.end(), vals.data());
    return csr_matrix<T>::from_coo(d.rows(), d.cols(), ii, jj,
                                   std::span<T const>(vals.data(), vals.size()));
}
template <class T>
sparse_vector<T> full_sparse(dense_vector<T> const& d) {
    buffer<i32> idx(d.size());
    buffer<T> vals(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) {
        idx[i] = i32(i);
        vals[i] = d[i];
    }
    return {d.size(), std::move(idx), std::move(vals)};
}

/// The plain operation only (no mask, no accumulator).
template <class C, class K, class G>
void check_plain(C const& c0, K&& k, G&& g, std::string const& what) {
    using T = typename C::value_type;
    C got = c0, want = c0;
    k(got, no_mask, no_accum, options{});
    g(want, no_mask, no_accum, options{});
    auto const r = grb::compare(got, want, tolerance<T>());
    BOOST_TEST(r.ok(), what << ": " << r.summary());
}

}  // namespace ops_test

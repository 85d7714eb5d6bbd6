// The GPU reduce, transpose, extract and assign (kleene/cuda/reduce_transpose.hpp,
// kleene/cuda/extract_assign.hpp) against the CPU operations on the same random inputs: CSR (both
// index types, iso inputs, empty and long rows) and dense matrices and vectors, sizes 0, 1, odd
// and 1000 x 777, index lists with repeats and out of order (distinct for assign), empty lists,
// every mask kind x accumulator x replace; CSR assign with an A (iso or not) and a scalar, and
// with every accumulator of the device ewise layer. The columns of a matrix (reduce of
// transpose(A)) and A(I, j) / A'(I, j) into a dense vector: CSR and dense, empty columns, tall and
// wide shapes. Values are small integers, so every result is exact. A .cpp (host code only): the
// CPU operations it compares with need OpenMP. Shared inputs and checks: gpu/ops_gpu_common.hpp.
// It calls only the backend's operations, which every instance set keeps: its cases run in a
// minimal build too.

#define BOOST_TEST_MODULE structure_gpu

#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"
#include "gpu/ops_gpu_common.hpp"

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/extract_assign.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/extract_assign.hpp>
#include <kleene/operators.hpp>
#include <kleene/reduce.hpp>
#include <kleene/semiring.hpp>
#include <kleene/transpose.hpp>
#include <kleene/vector.hpp>

#include <boost/mpl/list.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <typeinfo>
#include <utility>
#include <vector>

namespace {

using namespace kleene;
using namespace kleene::test;
using kleene::test::have_gpu;

// ---- index selections ---------------------------------------------------------------------------

/// Index selections of a dimension n: all, a range, an empty list, and (n > 0) a sorted and an
/// unsorted list with repeats (extract) or without (assign: `distinct`).
std::vector<std::pair<std::string, index_selection>> selections(std::size_t n, rng& g,
                                                                bool distinct) {
    std::vector<std::pair<std::string, index_selection>> s;
    s.emplace_back("all", index_selection(all_indices));
    s.emplace_back("range", index_selection(index_range{n / 3, n - n / 4}));
    s.emplace_back("empty", index_selection(std::vector<std::int64_t>{}));
    if (n == 0) return s;
    std::vector<std::int64_t> list;
    if (distinct) {
        std::vector<std::int64_t> all(n);
        std::iota(all.begin(), all.end(), std::int64_t(0));
        std::sample(all.begin(), all.end(), std::back_inserter(list), (n + 1) / 2, g);
    } else {
        for (std::size_t k = 0; k < n / 2 + 3; ++k) list.push_back(std::int64_t(g() % n));
    }
    std::shuffle(list.begin(), list.end(), g);
    s.emplace_back("unsorted", index_selection(list));
    std::sort(list.begin(), list.end());
    s.emplace_back("sorted", index_selection(list));
    return s;
}

std::size_t selected(index_selection const& s, std::size_t n) {
    return s.resolve(n, "test").size;
}

// ---- transpose ----------------------------------------------------------------------------------

template <class T, class I>
void transpose_csr_case(std::size_t rows, std::size_t cols, bool iso, bool masked, rng& g) {
    auto const a = random_csr<T, I>(rows, cols, 3.0, g, iso);
    auto const ad = a.to_device();
    std::string const where = std::string("transpose csr ") + typeid(T).name() + " " +
                              typeid(I).name() + " " + dims(rows, cols) + (iso ? " iso" : "");
    {
        csr_matrix<T, I> want(cols, rows);
        csr_matrix<T, I, device> got(cols, rows);
        kleene::transpose(want, a);
        cuda::transpose(got, ad);
        check_same(want, got, where);
    }
    if (!masked) return;
    auto const c0 = random_csr<T, I>(cols, rows, 3.0, g);
    auto const c0d = c0.to_device();
    auto const m = random_csr_mask<I>(cols, rows, g);
    auto const md = m.to_device();
    for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        auto want = c0;
        auto got = c0d;
        with_mask(k, m, [&](auto mk) { kleene::transpose(want, mk, accum, a, opt); });
        cuda::transpose(got, gpu_csr_mask(k, md), accum, ad, opt);
        check_same(want, got, where + describe(k, accum, replace));
    });
}

template <class T>
void transpose_dense_case(std::size_t rows, std::size_t cols, bool masked, T absent, rng& g) {
    auto const a = random_dense<T>(rows, cols, absent, g);
    auto const ad = a.to_device();
    std::string const where = std::string("transpose dense ") + typeid(T).name() + " " +
                              dims(rows, cols) + " absent " + std::to_string(double(absent));
    auto const c0 = random_dense<T>(cols, rows, absent, g);
    {
        auto want = c0;
        auto got = c0.to_device();
        kleene::transpose(want, a, {}, absent);
        cuda::transpose(got, ad, {}, absent);
        check_same(want, got, where);
    }
    if (!masked) return;
    auto const m = random_mask(cols, rows, g);
    auto const md = m.to_device();
    for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        auto want = c0;
        auto got = c0.to_device();
        with_mask(k, m, [&](auto mk) { kleene::transpose(want, mk, accum, a, opt, absent); });
        cuda::transpose(got, gpu_dense_mask(k, md), accum, ad, opt, absent);
        check_same(want, got, where + describe(k, accum, replace));
    });
}

// ---- reduce -------------------------------------------------------------------------------------

template <class T>
auto monoids() {
    return std::tuple{plus_monoid<T>{}, times_monoid<T>{}, min_monoid<T>{}, max_monoid<T>{}};
}

/// Rows (Columns: the columns, through the view transpose(A)) of a CSR and of a dense matrix into
/// a dense vector, for monoid mon; rows also to scalars, columns also in the plain form.
template <class T, class I, bool Columns = false, class Mon>
void reduce_case(Mon const& mon, std::size_t rows, std::size_t cols, bool iso, bool masked,
                 rng& g) {
    bool const times = std::is_same_v<Mon, times_monoid<T>>;
    int const top = times ? 2 : 9;  // products of up to cols / 2 factors stay exact (or all inf)
    T const absent = absent_of(mon);
    auto const in = [](auto const& m) -> decltype(auto) {
        if constexpr (Columns) return kleene::transpose(m);
        else return (m);
    };
    std::size_t const out = Columns ? cols : rows;
    auto const a = random_csr<T, I>(rows, cols, 3.0, g, iso, top);
    auto const ad = a.to_device();
    auto const b = random_dense<T>(rows, cols, absent, g, top);
    auto const bd = b.to_device();
    auto const w0 = random_vector<T>(out, absent, g);
    auto const mv = random_mask(out, g);
    auto const mvd = mv.to_device();
    std::string const where = std::string(Columns ? "reduce columns " : "reduce ") +
                              typeid(Mon).name() + " " + typeid(I).name() + " " +
                              dims(rows, cols) + (iso ? " iso" : "");
    auto run = [&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        std::string const what = where + describe(k, accum, replace);
        auto want = w0;
        auto got = w0.to_device();
        with_mask(k, mv, [&](auto mk) { kleene::reduce(want, mk, accum, mon, in(a), opt); });
        cuda::reduce(got, gpu_dense_mask(k, mvd), accum, mon, in(ad), opt);
        check_same(want, got, "csr " + what);
        want = w0;
        got = w0.to_device();
        with_mask(k, mv, [&](auto mk) { kleene::reduce(want, mk, accum, mon, in(b), opt); });
        cuda::reduce(got, gpu_dense_mask(k, mvd), accum, mon, in(bd), opt);
        check_same(want, got, "dense " + what);
    };
    if (masked) for_all_write_backs<T>(run);
    else run(mask_kind::none, no_accum, false);
    if constexpr (Columns) {
        dense_vector<T> want(cols);
        dense_vector<T, device> got(cols);
        kleene::reduce(want, mon, in(a));
        cuda::reduce(got, mon, in(ad));
        check_same(want, got, where + " csr, plain form");
        kleene::reduce(want, mon, in(b));
        cuda::reduce(got, mon, in(bd));
        check_same(want, got, where + " dense, plain form");
    } else {
        // Scalars: products only on small inputs (the whole matrix's product overflows otherwise).
        if (times && rows * cols > 64) return;
        BOOST_TEST_INFO(where);
        BOOST_TEST(cuda::reduce(mon, ad) == kleene::reduce(mon, a));
        BOOST_TEST(cuda::reduce(mon, bd) == kleene::reduce(mon, b));
        auto const u = random_vector<T>(rows, absent, g);
        BOOST_TEST(cuda::reduce(mon, u.to_device()) == kleene::reduce(mon, u));
        T s_want = T(4), s_got = T(4);
        kleene::reduce(s_want, plus_op<T>{}, mon, a);
        cuda::reduce(s_got, plus_op<T>{}, mon, ad);
        BOOST_TEST(s_got == s_want);
    }
}

// ---- extract ------------------------------------------------------------------------------------

/// w = A(I, j) against the CPU for an operand (host and device: a matrix or a transposed view)
/// with n rows and m columns: every selection of its rows x three columns, then (masked) every
/// mask kind x accumulator x replace on unsorted indices with repeats.
template <class T, class H, class D>
void extract_column_check(H const& host, D const& dev, std::size_t n, std::size_t m, bool masked,
                          T absent, std::string const& where, rng& g) {
    if (m == 0) return;
    auto const is = selections(n, g, false);
    for (auto const& [iname, isel] : is)
        for (std::size_t j : {std::size_t(0), m / 2, m - 1}) {
            auto const w0 = random_vector<T>(selected(isel, n), absent, g);
            auto want = w0;
            auto got = w0.to_device();
            kleene::extract(want, host, isel, j, {}, absent);
            cuda::extract(got, dev, isel, j, {}, absent);
            check_same(want, got, where + " I " + iname + " j " + std::to_string(j));
        }
    if (!masked || n == 0) return;
    auto const& isel = is[3].second;  // unsorted, repeats
    std::size_t const nr = selected(isel, n);
    auto const w0 = random_vector<T>(nr, absent, g);
    auto const mv = random_mask(nr, g);
    auto const mvd = mv.to_device();
    for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        auto want = w0;
        auto got = w0.to_device();
        with_mask(k, mv, [&](auto mk) {
            kleene::extract(want, mk, accum, host, isel, m / 2, opt, absent);
        });
        cuda::extract(got, gpu_dense_mask(k, mvd), accum, dev, isel, m / 2, opt, absent);
        check_same(want, got, where + " masked" + describe(k, accum, replace));
    });
}

/// A(I, j) and A'(I, j) of a CSR (index type I) and of a dense matrix into a dense vector.
template <class T, class I>
void extract_column_case(std::size_t rows, std::size_t cols, bool iso, bool masked, T absent,
                         rng& g) {
    auto const a = random_csr<T, I>(rows, cols, 3.0, g, iso);
    auto const ad = a.to_device();
    auto const b = random_dense<T>(rows, cols, absent, g);
    auto const bd = b.to_device();
    std::string const where = std::string("extract column ") + typeid(T).name() + " " +
                              typeid(I).name() + " " + dims(rows, cols) + (iso ? " iso" : "") +
                              " absent " + std::to_string(double(absent));
    extract_column_check<T>(a, ad, rows, cols, masked, absent, where + " csr", g);
    extract_column_check<T>(kleene::transpose(a), kleene::transpose(ad), cols, rows, masked,
                            absent, where + " csr transposed", g);
    extract_column_check<T>(b, bd, rows, cols, masked, absent, where + " dense", g);
    extract_column_check<T>(kleene::transpose(b), kleene::transpose(bd), cols, rows, masked,
                            absent, where + " dense transposed", g);
}


template <class T, class I>
void extract_csr_case(std::size_t rows, std::size_t cols, bool iso, bool masked, rng& g) {
    auto const a = random_csr<T, I>(rows, cols, 3.0, g, iso);
    auto const ad = a.to_device();
    auto const is = selections(rows, g, false);
    auto const js = selections(cols, g, false);
    std::string const where = std::string("extract csr ") + typeid(T).name() + " " +
                              typeid(I).name() + " " + dims(rows, cols) + (iso ? " iso" : "");
    for (auto const& [iname, isel] : is)
        for (auto const& [jname, jsel] : js) {
            std::size_t const nr = selected(isel, rows), nc = selected(jsel, cols);
            csr_matrix<T, I> want(nr, nc);
            csr_matrix<T, I, device> got(nr, nc);
            kleene::extract(want, a, isel, jsel);
            cuda::extract(got, ad, isel, jsel);
            check_same(want, got, where + " I " + iname + " J " + jname);
        }
    if (!masked || rows == 0 || cols == 0) return;
    auto const& isel = is.back().second;   // sorted, repeats
    auto const& jsel = js[3].second;       // unsorted, repeats
    std::size_t const nr = selected(isel, rows), nc = selected(jsel, cols);
    auto const c0 = random_csr<T, I>(nr, nc, 2.0, g);
    auto const c0d = c0.to_device();
    auto const m = random_csr_mask<I>(nr, nc, g);
    auto const md = m.to_device();
    for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        auto want = c0;
        auto got = c0d;
        with_mask(k, m, [&](auto mk) { kleene::extract(want, mk, accum, a, isel, jsel, opt); });
        cuda::extract(got, gpu_csr_mask(k, md), accum, ad, isel, jsel, opt);
        check_same(want, got, where + " masked" + describe(k, accum, replace));
    });
}

template <class T>
void extract_dense_case(std::size_t rows, std::size_t cols, bool masked, rng& g) {
    T const absent = T(0);
    auto const a = random_dense<T>(rows, cols, absent, g);
    auto const ad = a.to_device();
    auto const u = random_vector<T>(rows, absent, g);
    auto const ud = u.to_device();
    auto const is = selections(rows, g, false);
    auto const js = selections(cols, g, false);
    std::string const where =
        std::string("extract dense ") + typeid(T).name() + " " + dims(rows, cols);
    for (auto const& [iname, isel] : is) {
        std::size_t const nr = selected(isel, rows);
        for (auto const& [jname, jsel] : js) {
            std::size_t const nc = selected(jsel, cols);
            auto const c0 = random_dense<T>(nr, nc, absent, g);
            auto want = c0;
            auto got = c0.to_device();
            kleene::extract(want, a, isel, jsel);
            cuda::extract(got, ad, isel, jsel);
            check_same(want, got, where + " I " + iname + " J " + jname);
        }
        auto const w0 = random_vector<T>(nr, absent, g);
        auto want = w0;
        auto got = w0.to_device();
        kleene::extract(want, u, isel);
        cuda::extract(got, ud, isel);
        check_same(want, got, where + " vector I " + iname);
    }
    if (!masked || rows == 0 || cols == 0) return;
    auto const& isel = is[3].second;  // unsorted, repeats
    auto const& jsel = js[1].second;  // range
    std::size_t const nr = selected(isel, rows), nc = selected(jsel, cols);
    auto const c0 = random_dense<T>(nr, nc, absent, g);
    auto const m = random_mask(nr, nc, g);
    auto const md = m.to_device();
    auto const w0 = random_vector<T>(nr, absent, g);
    auto const mv = random_mask(nr, g);
    auto const mvd = mv.to_device();
    for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        std::string const what = where + " masked" + describe(k, accum, replace);
        auto want = c0;
        auto got = c0.to_device();
        with_mask(k, m, [&](auto mk) { kleene::extract(want, mk, accum, a, isel, jsel, opt); });
        cuda::extract(got, gpu_dense_mask(k, md), accum, ad, isel, jsel, opt);
        check_same(want, got, what);
        auto wantv = w0;
        auto gotv = w0.to_device();
        with_mask(k, mv, [&](auto mk) { kleene::extract(wantv, mk, accum, u, isel, opt); });
        cuda::extract(gotv, gpu_dense_mask(k, mvd), accum, ud, isel, opt);
        check_same(wantv, gotv, "vector " + what);
    });
}

// ---- assign -------------------------------------------------------------------------------------

template <class T>
void assign_dense_case(std::size_t rows, std::size_t cols, bool masked, T absent, rng& g) {
    auto const c0 = random_dense<T>(rows, cols, absent, g);
    auto const w0 = random_vector<T>(rows, absent, g);
    auto const is = selections(rows, g, true);
    auto const js = selections(cols, g, true);
    std::string const where = std::string("assign dense ") + typeid(T).name() + " " +
                              dims(rows, cols) + " absent " + std::to_string(double(absent));
    T const x = T(7);
    for (auto const& [iname, isel] : is) {
        std::size_t const nr = selected(isel, rows);
        for (auto const& [jname, jsel] : js) {
            std::size_t const nc = selected(jsel, cols);
            auto const a = random_dense<T>(nr, nc, absent, g);
            std::string const what = where + " I " + iname + " J " + jname;
            auto want = c0;
            auto got = c0.to_device();
            kleene::assign(want, a, isel, jsel, {}, absent);
            cuda::assign(got, a.to_device(), isel, jsel, {}, absent);
            check_same(want, got, what);
            want = c0;
            got = c0.to_device();
            kleene::assign(want, x, isel, jsel, {}, absent);
            cuda::assign(got, x, isel, jsel, {}, absent);
            check_same(want, got, what + " scalar");
        }
        auto const u = random_vector<T>(nr, absent, g);
        auto want = w0;
        auto got = w0.to_device();
        kleene::assign(want, u, isel, {}, absent);
        cuda::assign(got, u.to_device(), isel, {}, absent);
        check_same(want, got, where + " vector I " + iname);
        want = w0;
        got = w0.to_device();
        kleene::assign(want, x, isel, {}, absent);
        cuda::assign(got, x, isel, {}, absent);
        check_same(want, got, where + " vector scalar I " + iname);
    }
    if (!masked || rows == 0 || cols == 0) return;
    auto const& isel = is[3].second;  // unsorted
    auto const& jsel = js[4].second;  // sorted
    std::size_t const nr = selected(isel, rows), nc = selected(jsel, cols);
    auto const a = random_dense<T>(nr, nc, absent, g);
    auto const ad = a.to_device();
    auto const u = random_vector<T>(nr, absent, g);
    auto const ud = u.to_device();
    auto const m = random_mask(rows, cols, g);
    auto const md = m.to_device();
    auto const mv = random_mask(rows, g);
    auto const mvd = mv.to_device();
    for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        std::string const what = where + " masked" + describe(k, accum, replace);
        auto want = c0;
        auto got = c0.to_device();
        with_mask(k, m, [&](auto mk) {
            kleene::assign(want, mk, accum, a, isel, jsel, opt, absent);
        });
        cuda::assign(got, gpu_dense_mask(k, md), accum, ad, isel, jsel, opt, absent);
        check_same(want, got, what);
        want = c0;
        got = c0.to_device();
        with_mask(k, m, [&](auto mk) {
            kleene::assign(want, mk, accum, x, isel, jsel, opt, absent);
        });
        cuda::assign(got, gpu_dense_mask(k, md), accum, x, isel, jsel, opt, absent);
        check_same(want, got, what + " scalar");
        auto wantv = w0;
        auto gotv = w0.to_device();
        with_mask(k, mv, [&](auto mk) { kleene::assign(wantv, mk, accum, u, isel, opt, absent); });
        cuda::assign(gotv, gpu_dense_mask(k, mvd), accum, ud, isel, opt, absent);
        check_same(wantv, gotv, "vector " + what);
        wantv = w0;
        gotv = w0.to_device();
        with_mask(k, mv, [&](auto mk) { kleene::assign(wantv, mk, accum, x, isel, opt, absent); });
        cuda::assign(gotv, gpu_dense_mask(k, mvd), accum, x, isel, opt, absent);
        check_same(wantv, gotv, "vector scalar " + what);
    });
}

/// CSR assign: every pair of selections (distinct indices) with an A and with a scalar, then
/// (masked) every mask kind x accumulator x replace on three pairs and C = C (aliased source).
template <class T, class I>
void assign_csr_case(std::size_t rows, std::size_t cols, bool iso, bool masked, rng& g) {
    auto const c0 = random_csr<T, I>(rows, cols, 3.0, g);
    auto const c0d = c0.to_device();
    auto const is = selections(rows, g, true);
    auto const js = selections(cols, g, true);
    std::string const where = std::string("assign csr ") + typeid(T).name() + " " +
                              typeid(I).name() + " " + dims(rows, cols) + (iso ? " iso" : "");
    T const x = T(7);
    for (auto const& [iname, isel] : is)
        for (auto const& [jname, jsel] : js) {
            std::size_t const nr = selected(isel, rows), nc = selected(jsel, cols);
            auto const a = random_csr<T, I>(nr, nc, 2.0, g, iso);
            std::string const what = where + " I " + iname + " J " + jname;
            auto want = c0;
            auto got = c0d;
            kleene::assign(want, a, isel, jsel);
            cuda::assign(got, a.to_device(), isel, jsel);
            check_same(want, got, what);
            want = c0;
            got = c0d;
            kleene::assign(want, x, isel, jsel);
            cuda::assign(got, x, isel, jsel);
            check_same(want, got, what + " scalar");
        }
    if (!masked || rows == 0 || cols == 0) return;
    auto const m = random_csr_mask<I>(rows, cols, g);
    auto const md = m.to_device();
    std::size_t const pairs[][2] = {{3, 4}, {4, 3}, {1, 0}};  // unsorted x sorted, ..., range x all
    for (auto const& [pi, pj] : pairs) {
        auto const& [iname, isel] = is[pi];
        auto const& [jname, jsel] = js[pj];
        std::size_t const nr = selected(isel, rows), nc = selected(jsel, cols);
        auto const a = random_csr<T, I>(nr, nc, 2.0, g, iso);
        auto const ad = a.to_device();
        for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
            options opt;
            opt.replace = replace;
            std::string const what =
                where + " I " + iname + " J " + jname + " masked" + describe(k, accum, replace);
            auto want = c0;
            auto got = c0d;
            with_mask(k, m, [&](auto mk) { kleene::assign(want, mk, accum, a, isel, jsel, opt); });
            cuda::assign(got, gpu_csr_mask(k, md), accum, ad, isel, jsel, opt);
            check_same(want, got, what);
            want = c0;
            got = c0d;
            with_mask(k, m, [&](auto mk) { kleene::assign(want, mk, accum, x, isel, jsel, opt); });
            cuda::assign(got, gpu_csr_mask(k, md), accum, x, isel, jsel, opt);
            check_same(want, got, what + " scalar");
        });
    }
    auto const src = c0;
    auto want = c0;
    auto got = c0d;
    kleene::assign(want, kleene::mask(m), plus_op<T>{}, src, all_indices, all_indices);
    cuda::assign(got, kleene::mask(md), plus_op<T>{}, got, all_indices, all_indices);
    check_same(want, got, where + " C = C");
}

/// Every accumulator of the device ewise layer (the CSR assign's set besides none).
template <class T>
auto ewise_accums() {
    return std::tuple{plus_op<T>{}, times_op<T>{}, min_op<T>{},
                      max_op<T>{},  first_op<T>{}, second_op<T>{}};
}

/// CSR assign with every ewise accumulator: an A (iso or not) and a scalar, on four pairs of
/// selections, every mask kind x replace.
template <class T, class I>
void assign_csr_accum_case(std::size_t rows, std::size_t cols, bool iso, rng& g) {
    auto const c0 = random_csr<T, I>(rows, cols, 3.0, g);
    auto const c0d = c0.to_device();
    auto const is = selections(rows, g, true);
    auto const js = selections(cols, g, true);
    auto const m = random_csr_mask<I>(rows, cols, g);
    auto const md = m.to_device();
    std::string const where = std::string("assign csr accum ") + typeid(T).name() + " " +
                              typeid(I).name() + " " + dims(rows, cols) + (iso ? " iso" : "");
    T const x = T(7);
    std::size_t const pairs[][2] = {{3, 4}, {4, 3}, {0, 1}, {1, 0}};  // needs rows, cols > 0
    for_each(ewise_accums<T>(), [&](auto accum) {
        for (auto const& [pi, pj] : pairs) {
            auto const& [iname, isel] = is[pi];
            auto const& [jname, jsel] = js[pj];
            auto const a = random_csr<T, I>(selected(isel, rows), selected(jsel, cols), 2.0, g,
                                            iso);
            auto const ad = a.to_device();
            for (auto k : all_masks)
                for (bool replace : {false, true}) {
                    options opt;
                    opt.replace = replace;
                    std::string const what =
                        where + " I " + iname + " J " + jname + describe(k, accum, replace);
                    auto want = c0;
                    auto got = c0d;
                    with_mask(k, m, [&](auto mk) {
                        kleene::assign(want, mk, accum, a, isel, jsel, opt);
                    });
                    cuda::assign(got, gpu_csr_mask(k, md), accum, ad, isel, jsel, opt);
                    check_same(want, got, what);
                    want = c0;
                    got = c0d;
                    with_mask(k, m, [&](auto mk) {
                        kleene::assign(want, mk, accum, x, isel, jsel, opt);
                    });
                    cuda::assign(got, gpu_csr_mask(k, md), accum, x, isel, jsel, opt);
                    check_same(want, got, what + " scalar");
                }
        }
    });
}

shape_list const small_shapes = {{0, 0}, {1, 1}, {0, 5}, {5, 0}, {7, 5}, {40, 33}};

}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(transpose_csr, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(1);
    for (auto [r, c] : small_shapes) {
        bool const masked = r * c > 0;
        transpose_csr_case<T, std::int32_t>(r, c, false, masked, g);
        transpose_csr_case<T, std::int64_t>(r, c, true, masked, g);
    }
    transpose_csr_case<T, std::int32_t>(1000, 777, false, false, g);
    transpose_csr_case<T, std::int64_t>(1000, 777, true, false, g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(transpose_dense, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(2);
    for (auto [r, c] : small_shapes) transpose_dense_case<T>(r, c, r * c > 0, T(0), g);
    transpose_dense_case<T>(33, 65, true, T(5), g);
    transpose_dense_case<T>(1000, 777, false, T(0), g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(reduce_rows_and_scalars, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(3);
    for_each(monoids<T>(), [&](auto mon) {
        for (auto [r, c] : shape_list{{0, 0}, {1, 1}, {7, 5}, {40, 15}}) {
            reduce_case<T, std::int32_t>(mon, r, c, false, true, g);
            reduce_case<T, std::int64_t>(mon, r, c, true, false, g);
        }
        reduce_case<T, std::int32_t>(mon, 1000, 777, false, false, g);
        reduce_case<T, std::int64_t>(mon, 1000, 777, true, false, g);
    });
    // A semiring's add and a with_absent-wrapped monoid.
    rng h(4);
    auto const a = random_csr<T, std::int32_t>(50, 40, 3.0, h);
    auto const b = random_dense<T>(50, 40, T(0), h);
    dense_vector<T> want(50);
    dense_vector<T, device> got(50);
    kleene::reduce(want, min_plus<T>{}, a);
    cuda::reduce(got, min_plus<T>{}, a.to_device());
    check_same(want, got, "reduce min_plus rows");
    auto const op = with_absent(max_monoid<T>{}, T(0));
    kleene::reduce(want, op, b);
    cuda::reduce(got, op, b.to_device());
    check_same(want, got, "reduce max with absent 0 rows");
    BOOST_TEST(cuda::reduce(op, b.to_device()) == kleene::reduce(op, b));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(extract_csr, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(5);
    for (auto [r, c] : small_shapes) {
        extract_csr_case<T, std::int32_t>(r, c, false, true, g);
        extract_csr_case<T, std::int64_t>(r, c, true, true, g);
    }
    extract_csr_case<T, std::int32_t>(1000, 777, false, false, g);
    extract_csr_case<T, std::int64_t>(1000, 777, true, false, g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(extract_dense, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(6);
    for (auto [r, c] : small_shapes) extract_dense_case<T>(r, c, true, g);
    extract_dense_case<T>(1000, 777, false, g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(assign_dense, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(7);
    for (auto [r, c] : small_shapes) assign_dense_case<T>(r, c, true, T(0), g);
    assign_dense_case<T>(31, 17, true, T(9), g);
    assign_dense_case<T>(1000, 777, false, T(0), g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(assign_csr, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(9);
    for (auto [r, c] : small_shapes) {
        assign_csr_case<T, std::int32_t>(r, c, false, true, g);
        assign_csr_case<T, std::int64_t>(r, c, true, true, g);
    }
    assign_csr_case<T, std::int32_t>(1000, 777, false, true, g);
    assign_csr_case<T, std::int64_t>(1000, 777, true, false, g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(reduce_columns, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(10);
    for_each(monoids<T>(), [&](auto mon) {
        // {3, 40}: most columns empty; {0, 5}: every column empty.
        for (auto [r, c] : shape_list{{0, 0}, {1, 1}, {0, 5}, {5, 0}, {7, 5}, {3, 40}, {40, 15}}) {
            reduce_case<T, std::int32_t, true>(mon, r, c, false, true, g);
            reduce_case<T, std::int64_t, true>(mon, r, c, true, false, g);
        }
        if (std::is_same_v<decltype(mon), times_monoid<T>>) return;  // long products overflow
        // Tall: several row chunks per column (64 rows each), 1000 x 777: many column tiles.
        reduce_case<T, std::int32_t, true>(mon, 5000, 3, false, true, g);
        reduce_case<T, std::int64_t, true>(mon, 5000, 3, true, false, g);
        reduce_case<T, std::int32_t, true>(mon, 1000, 777, false, false, g);
        reduce_case<T, std::int64_t, true>(mon, 777, 1000, true, false, g);
    });
    // A semiring's add and a with_absent-wrapped monoid.
    rng h(11);
    auto const a = random_csr<T, std::int32_t>(50, 40, 3.0, h);
    auto const b = random_dense<T>(50, 40, T(0), h);
    dense_vector<T> want(40);
    dense_vector<T, device> got(40);
    kleene::reduce(want, min_plus<T>{}, kleene::transpose(a));
    cuda::reduce(got, min_plus<T>{}, kleene::transpose(a.to_device()));
    check_same(want, got, "reduce min_plus columns");
    auto const op = with_absent(max_monoid<T>{}, T(0));
    auto const bd = b.to_device();
    kleene::reduce(want, op, kleene::transpose(b));
    cuda::reduce(got, op, kleene::transpose(bd));
    check_same(want, got, "reduce max with absent 0 columns");
    // To a scalar through the view: the entries of A, as on the CPU.
    auto const ad = a.to_device();
    BOOST_TEST(cuda::reduce(min_plus<T>{}, kleene::transpose(ad)) ==
               kleene::reduce(min_plus<T>{}, kleene::transpose(a)));
    BOOST_TEST(cuda::reduce(op, kleene::transpose(bd)) == kleene::reduce(op, kleene::transpose(b)));
    T s_got = T(1), s_want = T(1);
    cuda::reduce(s_got, plus_op<T>{}, max_monoid<T>{}, kleene::transpose(ad));
    kleene::reduce(s_want, plus_op<T>{}, max_monoid<T>{}, kleene::transpose(a));
    BOOST_TEST(s_got == s_want);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(extract_column, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(12);
    for (auto [r, c] : small_shapes) {
        extract_column_case<T, std::int32_t>(r, c, false, true, T(0), g);
        extract_column_case<T, std::int64_t>(r, c, true, true, T(0), g);
    }
    // absent 5: stored CSR entries equal to it (values 1..9, iso 3 not) are entries of A(I, j).
    extract_column_case<T, std::int32_t>(3, 40, false, true, T(5), g);
    extract_column_case<T, std::int64_t>(40, 3, false, true, T(5), g);
    extract_column_case<T, std::int32_t>(1000, 777, false, false, T(0), g);
    extract_column_case<T, std::int64_t>(777, 1000, true, false, T(0), g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(assign_csr_every_accumulator, T, value_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(13);
    for (auto [r, c] : shape_list{{1, 1}, {7, 5}, {5, 7}, {40, 33}, {33, 40}}) {
        assign_csr_accum_case<T, std::int32_t>(r, c, false, g);
        assign_csr_accum_case<T, std::int64_t>(r, c, true, g);
    }
    assign_csr_accum_case<T, std::int32_t>(300, 200, false, g);
}

BOOST_AUTO_TEST_CASE(column_errors) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(14);
    auto const a = random_csr<float, std::int32_t>(6, 4, 2.0, g).to_device();
    auto const d = random_dense<float>(6, 4, 0.0f, g).to_device();
    dense_vector<float, device> w2(2), w3(3), w4(4), w6(6);
    BOOST_CHECK_THROW(cuda::reduce(w6, plus_monoid<float>{}, kleene::transpose(a)),
                      dimension_mismatch);
    BOOST_CHECK_THROW(cuda::reduce(w6, plus_monoid<float>{}, kleene::transpose(d)),
                      dimension_mismatch);
    BOOST_CHECK_THROW(cuda::reduce(w4, cuda::dense_mask(kleene::mask(w6)), no_accum,
                                   plus_monoid<float>{}, kleene::transpose(a)),
                      dimension_mismatch);
    BOOST_CHECK_NO_THROW(cuda::reduce(w4, plus_monoid<float>{}, kleene::transpose(a)));
    BOOST_CHECK_NO_THROW(cuda::reduce(w4, plus_monoid<float>{}, kleene::transpose(d)));
    try {
        cuda::reduce(w6, plus_monoid<float>{}, kleene::transpose(a));
    } catch (dimension_mismatch const& e) {
        BOOST_TEST(std::string(e.what()).find("4x6") != std::string::npos);
    }
    BOOST_CHECK_THROW((cuda::extract(w2, a, {0, 1}, 4)), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(w2, d, {0, 1}, 4)), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(w2, kleene::transpose(a), {0, 1}, 6)), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(w2, kleene::transpose(d), {0, 4}, 1)), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(w2, a, {0, 6}, 1)), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(w3, a, {0, 1}, 1)), dimension_mismatch);
    BOOST_CHECK_THROW((cuda::extract(w3, d, all_indices, 1)), dimension_mismatch);
    BOOST_CHECK_THROW((cuda::extract(w2, cuda::dense_mask(kleene::mask(w3)), no_accum, d, {0, 1},
                                     1)),
                      dimension_mismatch);
    BOOST_CHECK_NO_THROW((cuda::extract(w6, a, all_indices, 3)));
    BOOST_CHECK_NO_THROW((cuda::extract(w4, kleene::transpose(d), all_indices, 5)));
}

BOOST_AUTO_TEST_CASE(errors) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(8);
    auto const a = random_csr<float, std::int32_t>(6, 4, 2.0, g).to_device();
    auto const d = random_dense<float>(6, 4, 0.0f, g).to_device();
    dense_vector<float, device> w5(5), w6(6);
    BOOST_CHECK_THROW(cuda::reduce(w5, plus_monoid<float>{}, a), dimension_mismatch);
    BOOST_CHECK_THROW(cuda::reduce(w5, plus_monoid<float>{}, d), dimension_mismatch);
    BOOST_CHECK_THROW(cuda::reduce(w6, cuda::dense_mask(kleene::mask(w5)), no_accum,
                                   plus_monoid<float>{}, d),
                      dimension_mismatch);
    csr_matrix<float, std::int32_t, device> c64(6, 4), c46(4, 6);
    BOOST_CHECK_THROW(cuda::transpose(c64, a), dimension_mismatch);
    BOOST_CHECK_NO_THROW(cuda::transpose(c46, a));
    dense_matrix<float, device> d64(6, 4), d46(4, 6), d22(2, 2);
    BOOST_CHECK_THROW(cuda::transpose(d64, d), dimension_mismatch);
    BOOST_CHECK_NO_THROW(cuda::transpose(d46, d));
    csr_matrix<float, std::int32_t, device> c22(2, 2);
    BOOST_CHECK_THROW((cuda::extract(c22, a, {0, 6}, {1, 2})), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(c22, a, {0, 1}, index_range{3, 5})), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(c22, a, {0, 1, 2}, {1, 2})), dimension_mismatch);
    BOOST_CHECK_NO_THROW((cuda::extract(c22, a, {5, 5}, {3, 0})));
    BOOST_CHECK_THROW((cuda::extract(d22, d, {0, -1}, {1, 2})), invalid_argument);
    BOOST_CHECK_THROW((cuda::extract(d22, d, all_indices, {1, 2})), dimension_mismatch);
    BOOST_CHECK_THROW((cuda::extract(w5, w6, {0, 1})), dimension_mismatch);
    BOOST_CHECK_THROW((cuda::assign(d64, d22, {0, 0}, {1, 2})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(d64, d22, {0, 1, 2}, {1, 2})), dimension_mismatch);
    BOOST_CHECK_THROW((cuda::assign(d64, d22, {0, 6}, {1, 2})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(d64, 1.0f, {0, 1}, {4})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(w6, w5, {0, 1})), dimension_mismatch);
    BOOST_CHECK_NO_THROW((cuda::assign(w6, 2.0f, {3, 1})));
    // CSR assign: repeated and outside indices, region and mask shapes.
    auto const a22 = random_csr<float, std::int32_t>(2, 2, 2.0, g).to_device();
    BOOST_CHECK_THROW((cuda::assign(c64, a22, {0, 0}, {1, 2})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(c64, a22, {0, 1}, {3, 3})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(c64, a22, {0, 6}, {1, 2})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(c64, a22, {0, 1, 2}, {1, 2})), dimension_mismatch);
    BOOST_CHECK_THROW((cuda::assign(c64, a22, all_indices, {1, 2})), dimension_mismatch);
    BOOST_CHECK_THROW((cuda::assign(c64, 1.0f, {0, 1}, {4})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(c64, 1.0f, {2, 2}, {0})), invalid_argument);
    BOOST_CHECK_THROW((cuda::assign(c64, kleene::mask(a22), no_accum, 1.0f, {0}, {0})),
                      dimension_mismatch);
    try {
        cuda::assign(c64, a22, {0, 1, 2}, {1, 2});
    } catch (dimension_mismatch const& e) {
        std::string const msg = e.what();
        BOOST_TEST(msg.find("3x2") != std::string::npos);
        BOOST_TEST(msg.find("2x2") != std::string::npos);
    }
    BOOST_CHECK_NO_THROW((cuda::assign(c64, a22, {5, 0}, {3, 1})));
    BOOST_CHECK_NO_THROW((cuda::assign(c64, kleene::mask(a), plus_op<float>{}, 2.0f, {4, 2},
                                       index_range{1, 3})));
}

BOOST_AUTO_TEST_CASE(no_device_is_a_clear_skip) {
    // Runs everywhere: on a machine without a device the cases above return at once.
    if (!have_gpu(kleene::test::needs::minimal))
        BOOST_TEST_MESSAGE("structure_gpu: no CUDA device, GPU cases skipped");
    BOOST_TEST(true);
}

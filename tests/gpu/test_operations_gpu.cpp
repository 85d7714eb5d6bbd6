// The GPU element-wise operations (kleene/cuda/operations.hpp) against the CPU operations of
// lib/ops/include/kleene on the same random inputs: ewise_add / ewise_mult, apply and select on CSR
// (both index types, iso inputs, empty and long rows; with every CSR mask kind, accumulator and
// replace into an output that already has entries) and ewise / apply on dense matrices and
// vectors (every mask kind, the accumulators, replace). Values are small integers, so every
// result is exact. Suite `small` is the fast subset. A .cpp (host code only): the CPU operations
// it compares with need OpenMP, which nvcc-compiled test files do not get. It calls only the
// backend's operations, which every instance set keeps: its cases run in a minimal build too.

#define BOOST_TEST_MODULE operations_gpu

#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"
#include "gpu/ops_gpu_common.hpp"

#include <kleene/apply.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/ewise.hpp>
#include <kleene/operators.hpp>
#include <kleene/select.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <boost/mpl/list.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

namespace {

using namespace kleene;
using namespace kleene::test;
using kleene::test::have_gpu;
using kleene::test::needs;
template <class T>
auto ewise_ops() {
    return std::tuple{plus_op<T>{}, times_op<T>{}, min_op<T>{}, max_op<T>{}, first_op<T>{},
                      second_op<T>{}};
}
/// Fewer operators where every mask x accumulator x replace combination runs.
template <class T>
auto masked_ewise_ops() {
    return std::tuple{plus_op<T>{}, min_op<T>{}, second_op<T>{}};
}
template <class T>
auto apply_ops() {
    return std::tuple{identity_op<T>{},
                      ainv_op<T>{},
                      abs_op<T>{},
                      one_op<T>{},
                      minv_op<T>{},
                      bind_second(plus_op<T>{}, T(4)),
                      bind_second(times_op<T>{}, T(3)),
                      bind_second(min_op<T>{}, T(5)),
                      bind_second(max_op<T>{}, T(5))};
}


// ---- CSR ----------------------------------------------------------------------------------------

template <class T, class I>
void ewise_csr_case(std::size_t rows, std::size_t cols, double mean, bool iso_a, bool iso_b,
                    rng& g) {
    auto const a = random_csr<T, I>(rows, cols, mean, g, iso_a);
    auto const b = random_csr<T, I>(rows, cols, mean, g, iso_b);
    auto const ad = a.to_device();
    auto const bd = b.to_device();
    std::string const where = std::string(typeid(T).name()) + " " + typeid(I).name() + " " +
                              dims(rows, cols) + (iso_a ? " iso A" : "") + (iso_b ? " iso B" : "");
    for_each(ewise_ops<T>(), [&](auto op) {
        std::string const what = where + " " + typeid(op).name();
        csr_matrix<T, I> want(rows, cols);
        csr_matrix<T, I, device> got(rows, cols);
        kleene::ewise_add(want, op, a, b);
        cuda::ewise_add(got, op, ad, bd);
        check_same(want, got, "ewise_add " + what);
        kleene::ewise_mult(want, op, a, b);
        cuda::ewise_mult(got, op, ad, bd);
        check_same(want, got, "ewise_mult " + what);
    });
}

template <class T, class I>
void apply_csr_case(std::size_t rows, std::size_t cols, double mean, bool iso, rng& g) {
    auto const a = random_csr<T, I>(rows, cols, mean, g, iso);
    auto const ad = a.to_device();
    for_each(apply_ops<T>(), [&](auto op) {
        csr_matrix<T, I> want(rows, cols);
        csr_matrix<T, I, device> got(rows, cols);
        kleene::apply(want, op, a);
        cuda::apply(got, op, ad);
        check_same(want, got,
                   std::string("apply ") + typeid(op).name() + " " + dims(rows, cols) +
                       (iso ? " iso" : ""));
    });
}

template <class T>
auto select_preds() {
    return std::tuple{tril{0},        tril{-2},      triu{0},       triu{3},       diag{0},
                      diag{-1},       offdiag{0},    value_eq<T>{T(3)}, value_ne<T>{T(3)},
                      value_lt<T>{T(5)}, value_le<T>{T(5)}, value_gt<T>{T(5)}, value_ge<T>{T(5)}};
}

template <class T, class I>
void select_csr_case(std::size_t rows, std::size_t cols, double mean, bool iso, rng& g) {
    auto const a = random_csr<T, I>(rows, cols, mean, g, iso);
    auto const ad = a.to_device();
    int n = 0;
    for_each(select_preds<T>(), [&](auto pred) {
        csr_matrix<T, I> want(rows, cols);
        csr_matrix<T, I, device> got(rows, cols);
        kleene::select(want, pred, a);
        cuda::select(got, pred, ad);
        check_same(want, got,
                   std::string("select #") + std::to_string(n++) + " " + typeid(T).name() + " " +
                       dims(rows, cols) + (iso ? " iso" : ""));
    });
}

/// Every mask kind x accumulator x replace on CSR: ewise_add, ewise_mult, apply and select into
/// an output that already has entries, against the CPU with the same host mask.
template <class T, class I>
void masked_csr_case(std::size_t rows, std::size_t cols, rng& g) {
    auto const a = random_csr<T, I>(rows, cols, 3.0, g);
    auto const b = random_csr<T, I>(rows, cols, 3.0, g, true);
    auto const c0 = random_csr<T, I>(rows, cols, 3.0, g);
    auto const m = random_csr_mask<I>(rows, cols, g);
    auto const ad = a.to_device(), bd = b.to_device(), c0d = c0.to_device();
    auto const md = m.to_device();
    for (auto k : all_masks)
        for (bool replace : {false, true})
            for_each(accums<T>(), [&](auto accum) {
                options opt;
                opt.replace = replace;
                std::string const what = std::string(typeid(T).name()) + " " + typeid(I).name() +
                                         " accum " + typeid(accum).name() + " mask " +
                                         std::to_string(int(k)) + (replace ? " replace " : " ") +
                                         dims(rows, cols);
                cuda::csr_mask<I> gm;
                with_mask(k, md, [&](auto mk) {
                    if constexpr (!std::is_same_v<decltype(mk), no_mask_t>)
                        gm = cuda::csr_mask<I>(mk);
                });
                auto run = [&](std::string const& name, auto&& cpu, auto&& gpu) {
                    auto want = c0;
                    auto got = c0d;
                    with_mask(k, m, [&](auto mk) { cpu(want, mk); });
                    gpu(got);
                    check_same(want, got, name + " " + what);
                };
                run("ewise_add plus", [&](auto& c, auto mk) {
                    kleene::ewise_add(c, mk, accum, plus_op<T>{}, a, b, opt);
                }, [&](auto& c) { cuda::ewise_add(c, gm, accum, plus_op<T>{}, ad, bd, opt); });
                run("ewise_mult min", [&](auto& c, auto mk) {
                    kleene::ewise_mult(c, mk, accum, min_op<T>{}, a, b, opt);
                }, [&](auto& c) { cuda::ewise_mult(c, gm, accum, min_op<T>{}, ad, bd, opt); });
                auto const f = bind_second(times_op<T>{}, T(3));
                run("apply times 3", [&](auto& c, auto mk) {
                    kleene::apply(c, mk, accum, f, a, opt);
                }, [&](auto& c) { cuda::apply(c, gm, accum, f, ad, opt); });
                run("select tril", [&](auto& c, auto mk) {
                    kleene::select(c, mk, accum, tril{0}, a, opt);
                }, [&](auto& c) { cuda::select(c, gm, accum, tril{0}, ad, opt); });
            });
}

// ---- dense --------------------------------------------------------------------------------------

/// Every mask kind x accumulator x replace for one op, on a matrix and a vector.
template <bool Union, class T, class Op>
void ewise_dense_case(Op op, std::size_t rows, std::size_t cols, rng& g, bool all_combinations) {
    T const absent = absent_of(op);
    auto const a = random_dense<T>(rows, cols, absent, g);
    auto const b = random_dense<T>(rows, cols, absent, g);
    auto const c0 = random_dense<T>(rows, cols, absent, g);
    auto const m = random_mask(rows, cols, g);
    auto const u = random_vector<T>(rows, absent, g);
    auto const v = random_vector<T>(rows, absent, g);
    auto const w0 = random_vector<T>(rows, absent, g);
    auto const mv = random_mask(rows, g);
    auto const ad = a.to_device(), bd = b.to_device();
    auto const md = m.to_device();
    auto const ud = u.to_device(), vd = v.to_device();
    auto const mvd = mv.to_device();
    auto run = [&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        std::string const what = std::string(Union ? "ewise_add " : "ewise_mult ") +
                                 typeid(T).name() + " " + typeid(Op).name() + " accum " +
                                 typeid(accum).name() + " mask " + std::to_string(int(k)) +
                                 (replace ? " replace " : " ") + dims(rows, cols);
        // matrix
        auto want = c0;
        auto got = c0.to_device();
        cuda::dense_mask gm;
        with_mask(k, m, [&](auto mk) {
            if constexpr (Union) kleene::ewise_add(want, mk, accum, op, a, b, opt);
            else kleene::ewise_mult(want, mk, accum, op, a, b, opt);
        });
        with_mask(k, md, [&](auto mk) {
            if constexpr (!std::is_same_v<decltype(mk), no_mask_t>) gm = mk;
        });
        if constexpr (Union) cuda::ewise_add(got, gm, accum, op, ad, bd, opt);
        else cuda::ewise_mult(got, gm, accum, op, ad, bd, opt);
        auto const got_h = got.to_host();
        check_same(want.data(), got_h.data(), rows * cols, what);
        // vector
        auto wantv = w0;
        auto gotv = w0.to_device();
        cuda::dense_mask gmv;
        with_mask(k, mv, [&](auto mk) {
            if constexpr (Union) kleene::ewise_add(wantv, mk, accum, op, u, v, opt);
            else kleene::ewise_mult(wantv, mk, accum, op, u, v, opt);
        });
        with_mask(k, mvd, [&](auto mk) {
            if constexpr (!std::is_same_v<decltype(mk), no_mask_t>) gmv = mk;
        });
        if constexpr (Union) cuda::ewise_add(gotv, gmv, accum, op, ud, vd, opt);
        else cuda::ewise_mult(gotv, gmv, accum, op, ud, vd, opt);
        auto const gotv_h = gotv.to_host();
        check_same(wantv.data(), gotv_h.data(), rows, "vector " + what);
    };
    if (!all_combinations) {
        run(mask_kind::none, no_accum, false);
        return;
    }
    for (auto k : all_masks)
        for (bool replace : {false, true}) for_each(accums<T>(), [&](auto acc) { run(k, acc, replace); });
}

template <class T, class Op>
void apply_dense_case(Op op, std::size_t rows, std::size_t cols, rng& g) {
    T const absent = absent_of(op);
    auto const a = random_dense<T>(rows, cols, absent, g);
    auto const c0 = random_dense<T>(rows, cols, absent, g);
    auto const m = random_mask(rows, cols, g);
    auto const u = random_vector<T>(rows, absent, g);
    auto const w0 = random_vector<T>(rows, absent, g);
    auto const mv = random_mask(rows, g);
    auto const ad = a.to_device();
    auto const md = m.to_device();
    auto const ud = u.to_device();
    auto const mvd = mv.to_device();
    for (auto k : all_masks)
        for (bool replace : {false, true})
            for_each(accums<T>(), [&](auto accum) {
                options opt;
                opt.replace = replace;
                std::string const what = std::string("apply ") + typeid(T).name() + " " +
                                         typeid(Op).name() + " accum " + typeid(accum).name() +
                                         " mask " + std::to_string(int(k)) +
                                         (replace ? " replace " : " ") + dims(rows, cols);
                auto want = c0;
                auto got = c0.to_device();
                cuda::dense_mask gm;
                with_mask(k, m, [&](auto mk) { kleene::apply(want, mk, accum, op, a, opt); });
                with_mask(k, md, [&](auto mk) {
                    if constexpr (!std::is_same_v<decltype(mk), no_mask_t>) gm = mk;
                });
                cuda::apply(got, gm, accum, op, ad, opt);
                auto const got_h = got.to_host();
                check_same(want.data(), got_h.data(), rows * cols, what);

                auto wantv = w0;
                auto gotv = w0.to_device();
                cuda::dense_mask gmv;
                with_mask(k, mv, [&](auto mk) { kleene::apply(wantv, mk, accum, op, u, opt); });
                with_mask(k, mvd, [&](auto mk) {
                    if constexpr (!std::is_same_v<decltype(mk), no_mask_t>) gmv = mk;
                });
                cuda::apply(gotv, gmv, accum, op, ud, opt);
                auto const gotv_h = gotv.to_host();
                check_same(wantv.data(), gotv_h.data(), rows, "vector " + what);
            });
}

template <class T>
void ewise_dense_all(std::vector<std::pair<std::size_t, std::size_t>> const& shapes, rng& g) {
    for (auto [r, c] : shapes) {
        for_each(ewise_ops<T>(), [&](auto op) {
            ewise_dense_case<true, T>(op, r, c, g, false);
            ewise_dense_case<false, T>(op, r, c, g, false);
        });
        for_each(masked_ewise_ops<T>(), [&](auto op) {
            ewise_dense_case<true, T>(op, r, c, g, true);
            ewise_dense_case<false, T>(op, r, c, g, true);
        });
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(small)

BOOST_AUTO_TEST_CASE_TEMPLATE(ewise_csr_small, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(1);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{0, 0}, {1, 1}, {7, 5}, {40, 33}}) {
        ewise_csr_case<T, std::int32_t>(r, c, 2.0, false, false, g);
        ewise_csr_case<T, std::int64_t>(r, c, 2.0, false, true, g);
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(ewise_dense_small, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(2);
    ewise_dense_all<T>({{0, 0}, {1, 1}, {7, 5}}, g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(apply_small, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(3);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{0, 0}, {1, 1}, {9, 6}}) {
        apply_csr_case<T, std::int32_t>(r, c, 2.0, false, g);
        apply_csr_case<T, std::int64_t>(r, c, 2.0, true, g);
        for_each(apply_ops<T>(), [&](auto op) { apply_dense_case<T>(op, r, c, g); });
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(select_small, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(4);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{0, 0}, {1, 1}, {9, 6}, {6, 9}}) {
        select_csr_case<T, std::int32_t>(r, c, 3.0, false, g);
        select_csr_case<T, std::int64_t>(r, c, 3.0, true, g);
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(masked_csr_small, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(5);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{0, 0}, {1, 1}, {9, 6}, {40, 33}}) {
        masked_csr_case<T, std::int32_t>(r, c, g);
        masked_csr_case<T, std::int64_t>(r, c, g);
    }
}

BOOST_AUTO_TEST_CASE(empty_device_csr) {
    if (!have_gpu(needs::minimal)) return;
    csr_matrix<float, std::int64_t, device> e;
    BOOST_TEST(e.rows() == 0u);
    csr_matrix<double, std::int32_t, device> d(5, 7);
    auto const h = d.to_host();
    BOOST_TEST(h.rows() == 5u);
    BOOST_TEST(h.cols() == 7u);
    BOOST_TEST(h.nnz() == 0u);
    for (std::size_t i = 0; i <= 5; ++i) BOOST_TEST(h.row_ptr()[i] == 0);
}

BOOST_AUTO_TEST_CASE(shape_mismatch_throws) {
    if (!have_gpu(needs::minimal)) return;
    dense_matrix<float, device> a(3, 4), b(4, 3), c(3, 4);
    BOOST_CHECK_THROW(cuda::ewise_add(c, plus_op<float>{}, a, b), dimension_mismatch);
    csr_matrix<float> h(3, 4), h2(4, 3);
    csr_matrix<float, std::int32_t, device> cd(3, 4), wrong(2, 2);
    BOOST_CHECK_THROW(cuda::ewise_mult(cd, plus_op<float>{}, h.to_device(), h2.to_device()),
                      dimension_mismatch);
    // the output must already have the operands' shape, as on the CPU
    BOOST_CHECK_THROW(cuda::apply(wrong, identity_op<float>{}, h.to_device()), dimension_mismatch);
    BOOST_CHECK_THROW(cuda::select(wrong, tril{0}, h.to_device()), dimension_mismatch);
    csr_matrix<std::int32_t> hm(4, 3);
    auto const hmd = hm.to_device();
    BOOST_CHECK_THROW(cuda::apply(cd, cuda::csr_mask<std::int32_t>(kleene::mask(hmd)), no_accum,
                                  identity_op<float>{}, h.to_device()),
                      dimension_mismatch);
    dense_vector<std::int32_t> mh(5, 1);
    auto const md = mh.to_device();
    BOOST_CHECK_THROW(cuda::apply(c, cuda::dense_mask(kleene::mask(md)), no_accum,
                                  identity_op<float>{}, a),
                      dimension_mismatch);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(large)

BOOST_AUTO_TEST_CASE_TEMPLATE(ewise_csr_large, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(11);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{1000, 1}, {513, 2000}, {3001, 777}}) {
        for (bool iso : {false, true}) {
            ewise_csr_case<T, std::int32_t>(r, c, 6.0, iso, false, g);
            ewise_csr_case<T, std::int64_t>(r, c, 6.0, false, iso, g);
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(ewise_dense_large, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(12);
    ewise_dense_all<T>({{1, 1000}, {257, 129}, {1000, 333}}, g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(apply_large, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(13);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{513, 2000}, {2000, 300}}) {
        apply_csr_case<T, std::int32_t>(r, c, 6.0, false, g);
        apply_csr_case<T, std::int64_t>(r, c, 6.0, true, g);
        for_each(apply_ops<T>(), [&](auto op) { apply_dense_case<T>(op, r, c, g); });
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(masked_csr_large, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(15);
    masked_csr_case<T, std::int32_t>(513, 2000, g);
    masked_csr_case<T, std::int64_t>(2000, 300, g);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(select_large, T, value_types) {
    if (!have_gpu(needs::minimal)) return;
    rng g(14);
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{513, 2000}, {2000, 300}}) {
        select_csr_case<T, std::int32_t>(r, c, 8.0, false, g);
        select_csr_case<T, std::int64_t>(r, c, 8.0, true, g);
    }
}

BOOST_AUTO_TEST_SUITE_END()

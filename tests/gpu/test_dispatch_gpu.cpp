// One operation set for host and device (issue 21): every kleene:: operation called with device
// containers runs on the GPU and gives the host's answer. Each case is one generic function
// written once and called twice, with host containers and with their device copies, with the
// same mask views (mask, structure, complement), accumulators and replace; the device result
// must equal the host's exactly (small integer values). Also: the explain trace names the CUDA
// kernel, device=cpu is refused for device containers, shapes are checked.

#define BOOST_TEST_MODULE dispatch_gpu

#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"
#include "gpu/ops_gpu_common.hpp"

#include <kleene/apply.hpp>
#include <kleene/convert.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/ewise.hpp>
#include <kleene/extract_assign.hpp>
#include <kleene/kronecker.hpp>
#include <kleene/mxm.hpp>
#include <kleene/reduce.hpp>
#include <kleene/select.hpp>
#include <kleene/semiring.hpp>
#include <kleene/transpose.hpp>
#include <kleene/vector.hpp>

#include <boost/mpl/list.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace kleene;
using namespace kleene::test;
using kleene::test::have_gpu;

using dispatch_types = boost::mpl::list<float, std::int64_t>;

template <class X>
auto dev(X const& x) {
    return x.to_device();
}

/// Runs body(C, mask view, accum, replace) on the host output and on a device copy, for every
/// mask kind, accumulator and replace, and compares.
template <class T, class CH, class MH, class Body>
void host_and_device(std::string const& name, CH const& c0, MH const& m, Body&& body) {
    auto const md = dev(m);
    for_all_write_backs<T>([&](mask_kind k, auto accum, bool replace) {
        options opt;
        opt.replace = replace;
        CH ch = c0;
        auto cd = dev(c0);
        with_mask(k, m, [&](auto mh) { body(ch, mh, accum, opt); });
        with_mask(k, md, [&](auto mdv) { body(cd, mdv, accum, opt); });
        check_same(ch, cd, name + describe(k, accum, replace));
    });
}

BOOST_AUTO_TEST_CASE_TEMPLATE(mxm_every_storage_with_masks, T, dispatch_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(11);
    using I = std::int32_t;
    std::size_t const m = 37, k = 29, n = 41;
    auto const a = random_csr<T, I>(m, k, 4, g);
    auto const b = random_csr<T, I>(k, n, 4, g);
    auto const ad = random_dense<T>(m, k, T(0), g);
    auto const bd = random_dense<T>(k, n, T(0), g);
    auto const a_d = dev(a), b_d = dev(b), ad_d = dev(ad), bd_d = dev(bd);
    auto const c_csr = random_csr<T, I>(m, n, 3, g);
    auto const c_dense = random_dense<T>(m, n, T(0), g);
    auto const mask_csr = random_csr_mask<I>(m, n, g);
    auto const mask_dense = random_mask(m, n, g);
    // The same code for both spaces: the containers' space picks the kernels.
    auto const product = [&](auto& c, auto const& mk, auto accum, options const& opt,
                             auto const& x, auto const& y) {
        mxm(c, mk, accum, x, y, plus_times<T>{}, opt);
    };
    host_and_device<T>("mxm csr x csr -> csr", c_csr, mask_csr,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
                               product(c, mk, accum, opt, a, b);
                           else
                               product(c, mk, accum, opt, a_d, b_d);
                       });
    host_and_device<T>("mxm csr x csr -> dense", c_dense, mask_dense,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
                               product(c, mk, accum, opt, a, b);
                           else
                               product(c, mk, accum, opt, a_d, b_d);
                       });
    host_and_device<T>("mxm dense x dense -> dense", c_dense, mask_dense,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
                               mxm(c, mk, accum, ad, bd, min_plus<T>{}, opt);
                           else
                               mxm(c, mk, accum, ad_d, bd_d, min_plus<T>{}, opt);
                       });
    host_and_device<T>("mxm csr x dense -> dense", c_dense, mask_dense,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
                               product(c, mk, accum, opt, a, bd);
                           else
                               product(c, mk, accum, opt, a_d, bd_d);
                       });
    host_and_device<T>("mxm dense x csr -> dense", c_dense, mask_dense,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
                               product(c, mk, accum, opt, ad, b);
                           else
                               product(c, mk, accum, opt, ad_d, b_d);
                       });
    host_and_device<T>("mxm dense x dense -> csr", c_csr, mask_csr,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
                               mxm(c, mk, accum, ad, bd, min_plus<T>{}, opt);
                           else
                               mxm(c, mk, accum, ad_d, bd_d, min_plus<T>{}, opt);
                       });
    host_and_device<T>("mxm csr x dense -> csr", c_csr, mask_csr,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
                               product(c, mk, accum, opt, a, bd);
                           else
                               product(c, mk, accum, opt, a_d, bd_d);
                       });
    // A transposed operand is made on the device.
    auto const bt = random_csr<T, I>(n, k, 4, g);
    csr_matrix<T, I> ch(m, n);
    mxm(ch, a, transpose(bt), plus_times<T>{});
    csr_matrix<T, I, device> cd(m, n);
    explain_trace trace;
    mxm(cd, a_d, transpose(dev(bt)), plus_times<T>{}, {.explain = &trace});
    check_same(ch, cd, "mxm with a transposed device operand");
    BOOST_TEST(trace.str().find("transpose made on the device") != std::string::npos);
    BOOST_TEST(trace.str().find("cuda spgemm") != std::string::npos);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(mxv_and_vxm, T, dispatch_types) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(12);
    using I = std::int32_t;
    std::size_t const m = 300, n = 200;
    auto const a = random_csr<T, I>(m, n, 5, g);
    auto const ad = random_dense<T>(m, n, T(0), g);
    auto const u = random_vector<T>(n, T(0), g);
    auto const ut = random_vector<T>(m, T(0), g);
    auto const w0 = random_vector<T>(m, T(0), g);
    auto const wt0 = random_vector<T>(n, T(0), g);
    auto const mk = random_mask(m, g);
    auto const mkt = random_mask(n, g);
    auto const a_d = dev(a), ad_d = dev(ad), u_d = dev(u), ut_d = dev(ut);
    host_and_device<T>("mxv csr", w0, mk, [&](auto& w, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
            mxv(w, msk, accum, a, u, plus_times<T>{}, opt);
        else
            mxv(w, msk, accum, a_d, u_d, plus_times<T>{}, opt);
    });
    host_and_device<T>("mxv dense", w0, mk, [&](auto& w, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
            mxv(w, msk, accum, ad, u, min_plus<T>{}, opt);
        else
            mxv(w, msk, accum, ad_d, u_d, min_plus<T>{}, opt);
    });
    host_and_device<T>("vxm dense u, csr A", wt0, mkt,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               vxm(w, msk, accum, ut, a, plus_times<T>{}, opt);
                           else
                               vxm(w, msk, accum, ut_d, a_d, plus_times<T>{}, opt);
                       });
    host_and_device<T>("vxm dense u, dense A", wt0, mkt,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               vxm(w, msk, accum, ut, ad, min_plus<T>{}, opt);
                           else
                               vxm(w, msk, accum, ut_d, ad_d, min_plus<T>{}, opt);
                       });
    // Transpose views: on the host mxv(A') runs as vxm(A) and vxm(A') as mxv(A), mul's operands
    // swapped; on the device mxv makes A' there and vxm with a dense u runs spmv on A itself.
    auto const a_t = random_csr<T, I>(n, m, 5, g);
    auto const a_t_d = dev(a_t);
    host_and_device<T>("mxv transpose of csr", w0, mk,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               mxv(w, msk, accum, transpose(a_t), u, min_plus<T>{}, opt);
                           else
                               mxv(w, msk, accum, transpose(a_t_d), u_d, min_plus<T>{}, opt);
                       });
    host_and_device<T>("vxm dense u, transpose of csr", wt0, mkt,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               vxm(w, msk, accum, ut, transpose(a_t), plus_times<T>{}, opt);
                           else
                               vxm(w, msk, accum, ut_d, transpose(a_t_d), plus_times<T>{}, opt);
                       });
    {
        explain_trace trace;
        dense_vector<T, device> w(n);
        vxm(w, ut_d, transpose(a_t_d), plus_times<T>{}, {.explain = &trace});
        BOOST_TEST(trace.str().find("no transpose made") != std::string::npos, trace.str());
    }
    // A sparse u is made dense on the device.
    auto const us = to_sparse<T, I>(u, T(0));
    auto const us_d = us.to_device();
    host_and_device<T>("mxv csr, sparse u", w0, mk, [&](auto& w, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
            mxv(w, msk, accum, a, us, plus_times<T>{}, opt);
        else
            mxv(w, msk, accum, a_d, us_d, plus_times<T>{}, opt);
    });
    // The push: a sparse frontier times CSR, into a sparse vector, with a mask and replace.
    buffer<I> fi(4);
    buffer<T> fv(4);
    I const at[] = {1, 7, 50, 299};
    for (std::size_t q = 0; q < 4; ++q) {
        fi[q] = at[q];
        fv[q] = T(q + 1);
    }
    sparse_vector<T, I> f(m, std::move(fi), std::move(fv));
    auto const vm = random_mask(n, g);
    sparse_vector<T, I> wh(n);
    vxm(wh, complement(mask(vm)), no_accum, f, a, min_plus<T>{}, {.replace = true});
    sparse_vector<T, I, device> wd(n);
    vxm(wd, complement(mask(dev(vm))), no_accum, dev(f), a_d, min_plus<T>{}, {.replace = true});
    auto const got = wd.to_host();
    BOOST_TEST_REQUIRE(got.nnz() == wh.nnz());
    for (std::size_t q = 0; q < wh.nnz(); ++q) {
        BOOST_TEST(got.indices()[q] == wh.indices()[q]);
        BOOST_TEST(got.values()[q] == wh.values()[q]);
    }
    // Entries of a sparse w outside the mask cannot be kept on the device: refused, not dropped.
    BOOST_CHECK_THROW(vxm(wd, mask(dev(vm)), no_accum, dev(f), a_d, min_plus<T>{}), invalid_argument);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(elementwise_apply_select, T, dispatch_types) {
    // The operations' family only, which the minimal instance set keeps (gpu_test.hpp).
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(13);
    using I = std::int64_t;
    std::size_t const m = 45, n = 38;
    auto const a = random_csr<T, I>(m, n, 6, g), b = random_csr<T, I>(m, n, 6, g);
    auto const ad = random_dense<T>(m, n, T(0), g), bd = random_dense<T>(m, n, T(0), g);
    auto const a_d = dev(a), b_d = dev(b), ad_d = dev(ad), bd_d = dev(bd);
    auto const c0 = random_csr<T, I>(m, n, 3, g);
    auto const cd0 = random_dense<T>(m, n, T(0), g);
    auto const mcsr = random_csr_mask<I>(m, n, g);
    auto const mdense = random_mask(m, n, g);
    host_and_device<T>("ewise_add csr", c0, mcsr, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
            ewise_add(c, msk, accum, max_op<T>{}, a, b, opt);
        else
            ewise_add(c, msk, accum, max_op<T>{}, a_d, b_d, opt);
    });
    host_and_device<T>("ewise_mult dense", cd0, mdense, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
            ewise_mult(c, msk, accum, plus_times<T>{}, ad, bd, opt);
        else
            ewise_mult(c, msk, accum, plus_times<T>{}, ad_d, bd_d, opt);
    });
    host_and_device<T>("apply csr", c0, mcsr, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
            apply(c, msk, accum, bind_second(times_op<T>{}, T(3)), a, opt);
        else
            apply(c, msk, accum, bind_second(times_op<T>{}, T(3)), a_d, opt);
    });
    host_and_device<T>("apply dense", cd0, mdense, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
            apply(c, msk, accum, ainv_op<T>{}, ad, opt);
        else
            apply(c, msk, accum, ainv_op<T>{}, ad_d, opt);
    });
    host_and_device<T>("select csr", c0, mcsr, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
            select(c, msk, accum, value_gt<T>{T(4)}, a, opt);
        else
            select(c, msk, accum, value_gt<T>{T(4)}, a_d, opt);
    });
}

BOOST_AUTO_TEST_CASE_TEMPLATE(reduce_transpose_extract_assign, T, dispatch_types) {
    // The operations' family only, which the minimal instance set keeps (gpu_test.hpp).
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(14);
    using I = std::int32_t;
    std::size_t const m = 52, n = 31;
    auto const a = random_csr<T, I>(m, n, 5, g);
    auto const ad = random_dense<T>(m, n, T(0), g);
    auto const a_d = dev(a), ad_d = dev(ad);
    auto const w0 = random_vector<T>(m, T(0), g);
    auto const mk = random_mask(m, g);
    host_and_device<T>("reduce rows csr", w0, mk, [&](auto& w, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
            reduce(w, msk, accum, plus_monoid<T>{}, a, opt);
        else
            reduce(w, msk, accum, plus_monoid<T>{}, a_d, opt);
    });
    BOOST_TEST(reduce(max_monoid<T>{}, a_d) == reduce(max_monoid<T>{}, a));
    BOOST_TEST(reduce(plus_monoid<T>{}, ad_d) == reduce(plus_monoid<T>{}, ad));

    auto const ct0 = random_csr<T, I>(n, m, 3, g);
    auto const mt = random_csr_mask<I>(n, m, g);
    host_and_device<T>("transpose csr", ct0, mt, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
            transpose(c, msk, accum, a, opt);
        else
            transpose(c, msk, accum, a_d, opt);
    });

    std::vector<std::int64_t> rows{3, 0, 17, 17, 40}, cols{2, 9, 30};
    auto const ce0 = random_csr<T, I>(5, 3, 1, g);
    auto const me = random_csr_mask<I>(5, 3, g);
    host_and_device<T>("extract csr", ce0, me, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
            extract(c, msk, accum, a, rows, cols, opt);
        else
            extract(c, msk, accum, a_d, rows, cols, opt);
    });
    auto const src = random_dense<T>(3, 2, T(0), g);
    auto const src_d = dev(src);
    auto const mdense = random_mask(m, n, g);
    std::vector<std::int64_t> ar{5, 1, 44}, ac{30, 0};
    host_and_device<T>("assign dense", ad, mdense, [&](auto& c, auto const& msk, auto accum, options const& opt) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
            assign(c, msk, accum, src, ar, ac, opt);
        else
            assign(c, msk, accum, src_d, ar, ac, opt);
    });
}

BOOST_AUTO_TEST_CASE_TEMPLATE(extract_assign_every_form, T, dispatch_types) {
    // extract and assign are one body each for both spaces: every form on the device against the
    // host (the operations' family only, which the minimal instance set keeps; gpu_test.hpp).
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(17);
    using I = std::int32_t;
    std::size_t const m = 40, n = 27;
    auto const a = random_csr<T, I>(m, n, 4, g);
    auto const ad = random_dense<T>(m, n, T(0), g);
    auto const u = random_vector<T>(m, T(0), g);
    auto const a_d = dev(a), ad_d = dev(ad), u_d = dev(u);
    std::vector<std::int64_t> rows{3, 0, 17, 17, 39}, rows_t{3, 0, 17, 17, 26}, cols{2, 26, 9};
    host_and_device<T>("extract dense", random_dense<T>(5, 3, T(0), g), random_mask(5, 3, g),
                       [&](auto& c, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
                               extract(c, msk, accum, ad, rows, cols, opt);
                           else
                               extract(c, msk, accum, ad_d, rows, cols, opt);
                       });
    auto const w5 = random_vector<T>(5, T(0), g);
    auto const m5 = random_mask(5, g);
    host_and_device<T>("extract vector", w5, m5,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               extract(w, msk, accum, u, rows, opt);
                           else
                               extract(w, msk, accum, u_d, rows, opt);
                       });
    host_and_device<T>("extract column csr", w5, m5,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               extract(w, msk, accum, a, rows, 8, opt);
                           else
                               extract(w, msk, accum, a_d, rows, 8, opt);
                       });
    host_and_device<T>("extract column dense", w5, m5,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               extract(w, msk, accum, ad, rows, 26, opt);
                           else
                               extract(w, msk, accum, ad_d, rows, 26, opt);
                       });
    host_and_device<T>("extract row csr", w5, m5,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               extract(w, msk, accum, transpose(a), rows_t, 30, opt);
                           else
                               extract(w, msk, accum, transpose(a_d), rows_t, 30, opt);
                       });
    host_and_device<T>("extract row dense", w5, m5,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               extract(w, msk, accum, transpose(ad), rows_t, 0, opt);
                           else
                               extract(w, msk, accum, transpose(ad_d), rows_t, 0, opt);
                       });

    std::vector<std::int64_t> ar{5, 1, 39}, ac{20, 0};
    auto const src = random_csr<T, I>(3, 2, 1, g);
    auto const src_d = dev(src);
    auto const mcsr = random_csr_mask<I>(m, n, g);
    auto const mdense = random_mask(m, n, g);
    host_and_device<T>(
        "assign csr", a, mcsr, [&](auto& c, auto const& msk, auto accum, options const& opt) {
            if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
                assign(c, msk, accum, src, ar, ac, opt);
            else
                assign(c, msk, accum, src_d, ar, ac, opt);
        });
    // The scalar forms: the same call for both spaces.
    auto const scalar = [&](auto& c, auto const& msk, auto accum, options const& opt) {
        assign(c, msk, accum, T(7), ar, ac, opt);
    };
    host_and_device<T>("assign scalar csr", a, mcsr, scalar);
    host_and_device<T>("assign scalar dense", ad, mdense, scalar);
    auto const u3 = random_vector<T>(3, T(0), g);
    auto const u3_d = dev(u3);
    auto const mu = random_mask(m, g);
    host_and_device<T>("assign vector", u, mu,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(w)>, dense_vector<T>>)
                               assign(w, msk, accum, u3, ar, opt);
                           else
                               assign(w, msk, accum, u3_d, ar, opt);
                       });
    host_and_device<T>("assign vector scalar", u, mu,
                       [&](auto& w, auto const& msk, auto accum, options const& opt) {
                           assign(w, msk, accum, T(5), ar, opt);
                       });

    // The short forms.
    dense_vector<T> wh(5);
    dense_vector<T, device> wd(5);
    extract(wh, transpose(a), rows_t, 30);
    extract(wd, transpose(a_d), rows_t, 30);
    check_same(wh, wd, "extract row csr, no mask");
    extract(wh, u, rows);
    extract(wd, u_d, rows);
    check_same(wh, wd, "extract vector, no mask");
    auto uh = u;
    auto ud = dev(u);
    assign(uh, u3, ar);
    assign(ud, u3_d, ar);
    assign(uh, T(2), std::vector<std::int64_t>{7, 8});
    assign(ud, T(2), std::vector<std::int64_t>{7, 8});
    check_same(uh, ud, "assign vector and scalar, no mask");
    auto ch = a;
    auto cd = dev(a);
    assign(ch, src, ar, ac);
    assign(cd, src_d, ar, ac);
    assign(ch, T(3), index_range{10, 12}, all_indices);
    assign(cd, T(3), index_range{10, 12}, all_indices);
    check_same(ch, cd, "assign csr and scalar, no mask");

    // The shared checks, before the backend: the host's messages; device=cpu refused; the trace.
    auto const message = [](auto&& f) {
        try {
            f();
        } catch (std::exception const& e) {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    csr_matrix<T, I, device> c22(2, 2);
    dense_vector<T, device> w2(2);
    BOOST_TEST(message([&] {
                   extract(c22, a_d, {0, 40}, {1, 2});
               }) == "extract: row indices: index 40 is outside 0..39");
    BOOST_CHECK_THROW(extract(c22, a_d, {0, 1, 2}, {1, 2}), dimension_mismatch);
    BOOST_CHECK_THROW(extract(w2, a_d, {0, 1}, n), invalid_argument);
    BOOST_CHECK_THROW(extract(w2, u_d, {0, 1, 2}), dimension_mismatch);
    BOOST_TEST(message([&] {
                   assign(cd, T(1), {2, 2}, {0});
               }).find("assign: row indices: index 2 appears twice") == 0u);
    BOOST_CHECK_THROW(assign(cd, src_d, {1, 2}, {0, 1}), dimension_mismatch);
    BOOST_CHECK_THROW(assign(ud, T(1), {0, 40}), invalid_argument);
    BOOST_CHECK_THROW(extract(c22, a_d, {0, 1}, {1, 2}, {.device = device_choice::cpu}),
                      invalid_argument);
    BOOST_CHECK_THROW(assign(ud, u3_d, ar, {.device = device_choice::cpu}), invalid_argument);
    explain_trace trace;
    extract(c22, a_d, {0, 1}, {1, 2}, {.explain = &trace});
    assign(ud, T(4), ar, {.explain = &trace});
    BOOST_TEST(trace.str().find("extract: device csr") != std::string::npos);
    BOOST_TEST(trace.str().find(": cuda, csr rows") != std::string::npos);
    BOOST_TEST(
        trace.str().find("assign: a scalar into 3 entries of device dense vector 40: cuda") !=
        std::string::npos);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(kronecker_csr_and_dense, T, dispatch_types) {
    // The operations' family only, which the minimal instance set keeps (gpu_test.hpp).
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(16);
    using I = std::int64_t;
    auto const a = random_csr<T, I>(7, 5, 2, g), b = random_csr<T, I>(6, 9, 3, g);
    auto const ad = random_dense<T>(4, 3, T(0), g), bd = random_dense<T>(5, 6, T(0), g);
    auto const a_d = dev(a), b_d = dev(b), ad_d = dev(ad), bd_d = dev(bd);
    host_and_device<T>("kronecker csr", random_csr<T, I>(42, 45, 4, g), random_csr_mask<I>(42, 45, g),
                       [&](auto& c, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, csr_matrix<T, I>>)
                               kronecker(c, msk, accum, times_op<T>{}, a, b, opt);
                           else
                               kronecker(c, msk, accum, times_op<T>{}, a_d, b_d, opt);
                       });
    host_and_device<T>("kronecker dense", random_dense<T>(20, 18, T(0), g), random_mask(20, 18, g),
                       [&](auto& c, auto const& msk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, dense_matrix<T>>)
                               kronecker(c, msk, accum, plus_times<T>{}, ad, bd, opt);
                           else
                               kronecker(c, msk, accum, plus_times<T>{}, ad_d, bd_d, opt);
                       });
}

/// The options of one call with kernel `pin` where a mask is given and not complemented (the
/// masked products' pins refuse the rest).
template <class Mk>
options pinned_where_masked(options o, Mk const& mk, kernel_choice pin) {
    if constexpr (!std::is_same_v<Mk, no_mask_t>)
        if (!mk.complemented) o.kernel = pin;
    return o;
}

BOOST_AUTO_TEST_CASE_TEMPLATE(dense_outputs_take_csr_masks, T, dispatch_types) {
    // A dense output on the device takes a CSR mask (its flags made dense on the device) in every
    // operation, as on the host; mxm under one (not complemented) runs the masked products into a
    // CSR result, made dense and written back (automatic and pinned).
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(19);
    using I = std::int32_t;
    std::size_t const m = 37, k = 29, n = 41;
    auto const a = random_csr<T, I>(m, k, 4, g);
    auto const b = random_csr<T, I>(k, n, 4, g);
    auto const bt = random_csr<T, I>(n, k, 4, g);
    auto const ad = random_dense<T>(m, k, T(0), g);
    auto const bd = random_dense<T>(k, n, T(0), g);
    auto const a_d = dev(a), b_d = dev(b), bt_d = dev(bt), ad_d = dev(ad), bd_d = dev(bd);
    auto const c0 = random_dense<T>(m, n, T(0), g);
    auto const msk = random_csr_mask<I>(m, n, g);
    auto const msk64 = random_csr_mask<std::int64_t>(m, n, g);  // not A's index type
    using H = dense_matrix<T>;
    auto const product = [&](std::string const& name, auto const& mask_h, kernel_choice pin,
                             auto const& x, auto const& y, auto const& xd, auto const& yd) {
        for (bool pinned : {false, true})
            host_and_device<T>(name + (pinned ? " pinned" : ""), c0, mask_h,
                               [&](auto& c, auto const& mk, auto accum, options const& opt) {
                                   options const o =
                                       pinned ? pinned_where_masked(opt, mk, pin) : opt;
                                   if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                                       mxm(c, mk, accum, x, y, plus_times<T>{}, o);
                                   else
                                       mxm(c, mk, accum, xd, yd, plus_times<T>{}, o);
                               });
    };
    product("mxm csr x csr -> dense, csr mask", msk, kernel_choice::gustavson_hash, a, b, a_d, b_d);
    product("mxm csr x csr' -> dense, csr mask", msk, kernel_choice::masked_dot, a, transpose(bt),
            a_d, transpose(bt_d));
    product("mxm csr x dense -> dense, csr mask", msk, kernel_choice::masked_dot, a, bd, a_d, bd_d);
    product("mxm dense x dense -> dense, csr mask", msk, kernel_choice::masked_dot, ad, bd, ad_d,
            bd_d);
    product("mxm dense x csr -> dense, csr mask", msk, kernel_choice::masked_dot, ad, b, ad_d, b_d);
    // A mask of another index type than A's: the whole product, then the masked write-back.
    host_and_device<T>("mxm csr x csr -> dense, int64 csr mask", c0, msk64,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               mxm(c, mk, accum, a, b, plus_times<T>{}, opt);
                           else
                               mxm(c, mk, accum, a_d, b_d, plus_times<T>{}, opt);
                       });
    // The trace: the masked products into a CSR result, then C's write-back.
    auto const md = dev(msk);
    for (auto [pin, want] : {std::pair{kernel_choice::gustavson_hash, "cuda masked_saxpy ("},
                             std::pair{kernel_choice::masked_dot, "cuda masked_spmm ("}}) {
        explain_trace why;
        dense_matrix<T, device> c = dev(c0);
        options o{.kernel = pin, .explain = &why};
        if (pin == kernel_choice::gustavson_hash)
            mxm(c, structure(md), plus_op<T>{}, a_d, b_d, plus_times<T>{}, o);
        else
            mxm(c, structure(md), plus_op<T>{}, a_d, bd_d, plus_times<T>{}, o);
        BOOST_TEST((why.str().find(want) != std::string::npos), why.str());
        BOOST_TEST((why.str().find("made dense, then the masked write-back into C") !=
                    std::string::npos),
                   why.str());
    }

    // The other operations with a dense output.
    auto const e1 = random_dense<T>(m, n, T(0), g), e2 = random_dense<T>(m, n, T(0), g);
    auto const e1_d = dev(e1), e2_d = dev(e2);
    host_and_device<T>("ewise_add dense, csr mask", c0, msk,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               ewise_add(c, mk, accum, max_op<T>{}, e1, e2, opt);
                           else
                               ewise_add(c, mk, accum, max_op<T>{}, e1_d, e2_d, opt);
                       });
    host_and_device<T>("ewise_mult dense, csr mask", c0, msk,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               ewise_mult(c, mk, accum, plus_times<T>{}, e1, e2, opt);
                           else
                               ewise_mult(c, mk, accum, plus_times<T>{}, e1_d, e2_d, opt);
                       });
    host_and_device<T>("apply dense, csr mask", c0, msk,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               apply(c, mk, accum, ainv_op<T>{}, e1, opt);
                           else
                               apply(c, mk, accum, ainv_op<T>{}, e1_d, opt);
                       });
    auto const tsrc = random_dense<T>(n, m, T(0), g);
    auto const tsrc_d = dev(tsrc);
    host_and_device<T>("transpose dense, csr mask", c0, msk,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               transpose(c, mk, accum, tsrc, opt);
                           else
                               transpose(c, mk, accum, tsrc_d, opt);
                       });
    std::vector<std::int64_t> rows{3, 0, 17, 17, 36}, cols{2, 28, 9};
    host_and_device<T>("extract dense, csr mask", random_dense<T>(5, 3, T(0), g),
                       random_csr_mask<I>(5, 3, g),
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               extract(c, mk, accum, ad, rows, cols, opt);
                           else
                               extract(c, mk, accum, ad_d, rows, cols, opt);
                       });
    auto const src = random_dense<T>(3, 2, T(0), g);
    auto const src_d = dev(src);
    std::vector<std::int64_t> ar{5, 1, 34}, ac{30, 0};
    host_and_device<T>("assign dense, csr mask", c0, msk,
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               assign(c, mk, accum, src, ar, ac, opt);
                           else
                               assign(c, mk, accum, src_d, ar, ac, opt);
                       });
    auto const ka = random_dense<T>(4, 3, T(0), g), kb = random_dense<T>(5, 6, T(0), g);
    auto const ka_d = dev(ka), kb_d = dev(kb);
    host_and_device<T>("kronecker dense, csr mask", random_dense<T>(20, 18, T(0), g),
                       random_csr_mask<I>(20, 18, g),
                       [&](auto& c, auto const& mk, auto accum, options const& opt) {
                           if constexpr (std::is_same_v<std::decay_t<decltype(c)>, H>)
                               kronecker(c, mk, accum, plus_times<T>{}, ka, kb, opt);
                           else
                               kronecker(c, mk, accum, plus_times<T>{}, ka_d, kb_d, opt);
                       });
}

BOOST_AUTO_TEST_CASE_TEMPLATE(conversions_on_the_device, T, dispatch_types) {
    // The operations' family only, which the minimal instance set keeps (gpu_test.hpp).
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(17);
    for (auto [rows, cols] : shape_list{{0, 0}, {1, 1}, {7, 0}, {33, 31}, {5, 700}, {300, 65}}) {
        auto const a = random_csr<T, std::int64_t>(rows, cols, 4, g);
        auto const d = to_dense(a.to_device(), T(0));
        check_same(to_dense(a, T(0)), d, "to_dense " + dims(rows, cols));
        auto const back = to_csr<T, std::int64_t>(d, T(0));
        check_same(to_csr<T, std::int64_t>(to_dense(a, T(0)), T(0)), back,
                   "to_csr " + dims(rows, cols));
        auto const v = to_sparse<T, std::int32_t>(random_vector<T>(rows, T(0), g), T(0));
        check_same(to_dense(v, T(-1)), to_dense(v.to_device(), T(-1)),
                   "sparse vector to_dense " + std::to_string(rows));
    }
}

BOOST_AUTO_TEST_CASE(refusals_and_trace) {
    if (!have_gpu(kleene::test::needs::minimal)) return;
    rng g(15);
    auto const a = random_csr<float, std::int32_t>(20, 30, 3, g).to_device();
    auto const b = random_csr<float, std::int32_t>(30, 10, 3, g).to_device();
    csr_matrix<float, std::int32_t, device> c(20, 10);
    BOOST_CHECK_THROW(mxm(c, a, b, plus_times<float>{}, {.device = device_choice::cpu}),
                      invalid_argument);
    csr_matrix<float, std::int32_t, device> wrong(20, 11);
    BOOST_CHECK_THROW(mxm(wrong, a, b, plus_times<float>{}), dimension_mismatch);
    BOOST_CHECK_THROW(ewise_add(c, plus_op<float>{}, a, a), dimension_mismatch);
    auto const mk = random_csr_mask<std::int32_t>(21, 10, g).to_device();
    BOOST_CHECK_THROW(mxm(c, mask(mk), no_accum, a, b, plus_times<float>{}), dimension_mismatch);
    explain_trace trace;
    dense_vector<float, device> w(20);
    dense_vector<float, device> u = dense_vector<float>(30, 1.0f).to_device();
    mxv(w, a, u, plus_times<float>{}, {.explain = &trace});
    BOOST_TEST(trace.str().find("cuda spmv") != std::string::npos);
}

}  // namespace

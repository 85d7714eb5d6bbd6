// The GPU sparse products (kleene/cuda/sparse.hpp) against plain host loops written here: SpMV
// (masks, accumulate, replace), SpMSpV, SpMM and SpGEMM over every instantiated semiring x type x
// index type, on random and power-law matrices (empty rows, rows of thousands of entries, sizes
// 0, 1 and odd), iso matrices, and the cuSPARSE backend beside the generic one. Values are small
// integers, so every sum is exact whatever order the GPU adds in. Suite `small` is what the
// compute-sanitizer runs use.

#define BOOST_TEST_MODULE sparse_gpu

#pragma nv_diag_suppress 554  // dense_view<T const> conversion: see dense_gemm.cuh
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/instance_lists.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

namespace {

using namespace kleene;
using cuda::sparse_backend;
using cuda::sparse_options;

using kleene::test::have_gpu;

using rng = std::mt19937_64;

template <class T>
T some_value(rng& g) {
    if constexpr (std::is_same_v<T, bool>) return true;
    else return T(1 + static_cast<int>(g() % 9));
}

/// A rows x cols matrix whose row i has lens[i] distinct random columns (capped at cols).
template <class T, class I>
csr_matrix<T, I> from_lengths(std::size_t rows, std::size_t cols, std::vector<std::size_t> lens,
                              rng& g, bool iso = false) {
    buffer<I> ptr(rows + 1);
    ptr[0] = 0;
    std::vector<I> col;
    std::vector<std::size_t> all(cols);
    std::iota(all.begin(), all.end(), std::size_t(0));
    for (std::size_t i = 0; i < rows; ++i) {
        std::size_t const len = std::min(lens[i], cols);
        std::vector<std::size_t> pick;
        pick.reserve(len);
        std::sample(all.begin(), all.end(), std::back_inserter(pick), len, g);
        for (auto j : pick) col.push_back(static_cast<I>(j));
        ptr[i + 1] = static_cast<I>(col.size());
    }
    buffer<I> c(col.size());
    std::copy(col.begin(), col.end(), c.begin());
    buffer<T> v(iso ? 0 : col.size());
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = some_value<T>(g);
    return csr_matrix<T, I>(rows, cols, std::move(ptr), std::move(c), std::move(v),
                            std::is_same_v<T, bool> ? T(1) : T(2));
}

template <class T, class I>
csr_matrix<T, I> random_csr(std::size_t rows, std::size_t cols, double mean, rng& g,
                            bool iso = false) {
    std::poisson_distribution<int> d(mean);
    std::vector<std::size_t> lens(rows);
    for (auto& l : lens) l = static_cast<std::size_t>(d(g));
    return from_lengths<T, I>(rows, cols, lens, g, iso);
}

/// Power-law rows: a tenth empty, most short (geometric, mean ~4), and `heavy` rows of the given
/// lengths spread over the matrix (rows of thousands of entries).
template <class T, class I>
csr_matrix<T, I> power_law_csr(std::size_t rows, std::size_t cols,
                               std::vector<std::size_t> const& heavy, rng& g) {
    std::geometric_distribution<int> d(0.2);
    std::vector<std::size_t> lens(rows);
    for (auto& l : lens) l = g() % 10 == 0 ? 0 : static_cast<std::size_t>(d(g));
    for (std::size_t h = 0; h < heavy.size() && rows > 0; ++h) lens[(h * 7919) % rows] = heavy[h];
    return from_lengths<T, I>(rows, cols, lens, g);
}

/// Dense vector entries: a value, or zero() (absent) with probability 0.3.
template <class S>
std::vector<typename S::value_type> random_dense(std::size_t n, rng& g) {
    std::vector<typename S::value_type> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = g() % 10 < 3 ? S::zero() : some_value<typename S::value_type>(g);
    return v;
}

template <class T>
dense_vector<T, device> to_device(std::vector<T> const& v) {
    dense_vector<T> h(v.size());
    std::copy(v.begin(), v.end(), h.begin());
    return h.to_device();
}
template <class T>
std::vector<T> to_host(dense_vector<T, device> const& v) {
    auto h = v.to_host();
    return std::vector<T>(h.begin(), h.end());
}

template <class S>
std::string name() {
    return std::string(typeid(S).name());
}

// ---- host references ----------------------------------------------------------------------------

/// GraphBLAS write-back of one dense entry: w<m, replace> accum= t.
template <class S>
typename S::value_type combine(bool allowed, bool replace, bool accumulate,
                               typename S::value_type w, bool has_t, typename S::value_type t) {
    using T = typename S::value_type;
    bool const has_w = !(w == S::zero());
    if (!allowed) return replace ? S::zero() : w;
    if (!accumulate) return has_t ? t : S::zero();
    if (has_w && has_t) return S::add(w, t);
    if (has_t) return t;
    return has_w ? w : T(S::zero());
}

/// w<mask> accum= A u, dense u (zero() entries absent), dense w.
template <class S, class I>
std::vector<typename S::value_type> ref_spmv(csr_matrix<typename S::value_type, I> const& a,
                                             std::vector<typename S::value_type> const& u,
                                             std::vector<typename S::value_type> w,
                                             std::vector<char> const* allowed, bool replace,
                                             bool accumulate) {
    using T = typename S::value_type;
    for (std::size_t i = 0; i < a.rows(); ++i) {
        T t = S::zero();
        bool has = false;
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            T const x = u[a.col_idx()[k]];
            if (x == S::zero()) continue;
            t = has ? S::add(t, S::mul(a.value(k), x)) : S::mul(a.value(k), x);
            has = true;
        }
        w[i] = combine<S>(!allowed || (*allowed)[i], replace, accumulate, w[i], has, t);
    }
    return w;
}

/// u A restricted to the mask: sparse u (stored entries present whatever their value).
template <class S, class I>
std::map<I, typename S::value_type> ref_spmspv(csr_matrix<typename S::value_type, I> const& a,
                                               std::vector<I> const& ui,
                                               std::vector<typename S::value_type> const& uv,
                                               std::vector<char> const* allowed) {
    std::map<I, typename S::value_type> out;
    for (std::size_t f = 0; f < ui.size(); ++f) {
        auto const r = static_cast<std::size_t>(ui[f]);
        for (std::size_t k = a.row_begin(r); k < a.row_end(r); ++k) {
            I const j = a.col_idx()[k];
            if (allowed && !(*allowed)[static_cast<std::size_t>(j)]) continue;
            auto const p = S::mul(uv[f], a.value(k));
            auto it = out.find(j);
            if (it == out.end()) out.emplace(j, p);
            else it->second = S::add(it->second, p);
        }
    }
    return out;
}

/// C (+)= A B, B dense with zero() entries absent.
template <class S, class I>
std::vector<typename S::value_type> ref_spmm(csr_matrix<typename S::value_type, I> const& a,
                                             std::vector<typename S::value_type> const& b,
                                             std::size_t n, std::vector<typename S::value_type> c,
                                             bool accumulate) {
    using T = typename S::value_type;
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t j = 0; j < n; ++j) {
            T t = S::zero();
            bool has = false;
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
                T const x = b[std::size_t(a.col_idx()[k]) * n + j];
                if (x == S::zero()) continue;
                t = has ? S::add(t, S::mul(a.value(k), x)) : S::mul(a.value(k), x);
                has = true;
            }
            c[i * n + j] = combine<S>(true, false, accumulate, c[i * n + j], has, t);
        }
    return c;
}

template <class S, class I>
std::vector<std::map<I, typename S::value_type>> ref_spgemm(
    csr_matrix<typename S::value_type, I> const& a,
    csr_matrix<typename S::value_type, I> const& b) {
    std::vector<std::map<I, typename S::value_type>> rows(a.rows());
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t ka = a.row_begin(i); ka < a.row_end(i); ++ka) {
            auto const k = static_cast<std::size_t>(a.col_idx()[ka]);
            for (std::size_t kb = b.row_begin(k); kb < b.row_end(k); ++kb) {
                auto const p = S::mul(a.value(ka), b.value(kb));
                auto [it, fresh] = rows[i].emplace(b.col_idx()[kb], p);
                if (!fresh) it->second = S::add(it->second, p);
            }
        }
    return rows;
}

// ---- checks
// ---------------------------------------------------------------------------------------

template <class T>
std::size_t count_diff(std::vector<T> const& got, std::vector<T> const& want) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i) bad += !(got[i] == want[i]);
    return bad + (got.size() != want.size() ? 1 : 0);
}

enum class mask_kind {
    none,
    valued,
    structural_sparse,
    complemented_valued,
    complemented_structural
};

/// Every mask kind with every (accumulate, replace) pair; `quick`: one pair per mask kind.
template <class S, class I>
void check_spmv(csr_matrix<typename S::value_type, I> const& a, rng& g, sparse_backend backend,
                std::string const& what, bool quick = false) {
    using T = typename S::value_type;
    auto const ad = a.to_device();
    auto const u = random_dense<S>(a.cols(), g);
    auto const ud = to_device(u);
    for (mask_kind mk : {mask_kind::none, mask_kind::valued, mask_kind::structural_sparse,
                         mask_kind::complemented_valued, mask_kind::complemented_structural}) {
        if (backend == sparse_backend::cusparse && mk != mask_kind::none) continue;
        for (int flags = 0; flags < 4; ++flags) {
            if (quick && flags != int(mk) % 4) continue;
            bool const accumulate = flags & 1, replace = flags & 2;
            if (backend == sparse_backend::cusparse && replace) continue;
            auto const w0 = random_dense<S>(a.rows(), g);
            auto wd = to_device(w0);
            // The mask: a dense bool vector (valued) or a sparse one (structural: its stored
            // entries, some of them false).
            std::vector<char> allowed(a.rows(), 1);
            dense_vector<bool> mv(a.rows());
            std::vector<std::int32_t> mi;
            for (std::size_t i = 0; i < a.rows(); ++i) {
                mv[i] = g() % 2 == 0;
                if (g() % 3 == 0) mi.push_back(static_cast<std::int32_t>(i));
            }
            buffer<std::int32_t> sidx(mi.size());
            buffer<float> sval(mi.size());
            for (std::size_t k = 0; k < mi.size(); ++k) {
                sidx[k] = mi[k];
                sval[k] = float(g() % 2);  // zero values still count for a structural mask
            }
            sparse_vector<float, std::int32_t> ms(a.rows(), std::move(sidx), std::move(sval));
            auto const mvd = mv.to_device();
            auto const msd = ms.to_device();
            cuda::vector_mask m;
            switch (mk) {
                case mask_kind::none: break;
                case mask_kind::valued:
                    m = cuda::vector_mask(mask(mvd));
                    for (std::size_t i = 0; i < a.rows(); ++i) allowed[i] = mv[i];
                    break;
                case mask_kind::complemented_valued:
                    m = cuda::vector_mask(complement(mask(mvd)));
                    for (std::size_t i = 0; i < a.rows(); ++i) allowed[i] = !mv[i];
                    break;
                case mask_kind::structural_sparse:
                case mask_kind::complemented_structural: {
                    bool const c = mk == mask_kind::complemented_structural;
                    m = c ? cuda::vector_mask(complement(structure(msd)))
                          : cuda::vector_mask(structure(msd));
                    std::fill(allowed.begin(), allowed.end(), char(c));
                    for (auto i : mi) allowed[std::size_t(i)] = !c;
                    break;
                }
            }
            sparse_options opt;
            opt.backend = backend;
            opt.accumulate = accumulate;
            opt.replace = replace;
            auto const ran = cuda::spmv<S, I>(wd, m, ad, ud, opt);
            if (backend != sparse_backend::automatic) BOOST_TEST((ran == backend));
            auto const want = ref_spmv<S, I>(a, u, w0, mk == mask_kind::none ? nullptr : &allowed,
                                             replace, accumulate);
            std::size_t const bad = count_diff(to_host(wd), want);
            BOOST_TEST(bad == 0u, "spmv " << name<S>() << " " << what << " mask " << int(mk)
                                          << " acc " << accumulate << " replace " << replace << ": "
                                          << bad << " wrong entries");
        }
    }
}

template <class S, class I>
void check_spmspv(csr_matrix<typename S::value_type, I> const& a, rng& g, std::string const& what,
                  bool quick = false) {
    using T = typename S::value_type;
    auto const ad = a.to_device();
    for (double fill : {0.0, 0.02, 0.3, 1.0}) {
        for (bool masked : {false, true}) {
            if (quick && masked != (fill == 0.02)) continue;
            std::vector<I> ui;
            std::vector<T> uv;
            for (std::size_t i = 0; i < a.rows(); ++i)
                if (double(g() % 1000) < fill * 1000) {
                    ui.push_back(static_cast<I>(i));
                    // Some stored entries equal zero(): stored means present.
                    uv.push_back(g() % 5 == 0 ? S::zero() : some_value<T>(g));
                }
            buffer<I> bi(ui.size());
            buffer<T> bv(uv.size());
            std::copy(ui.begin(), ui.end(), bi.begin());
            std::copy(uv.begin(), uv.end(), bv.begin());
            sparse_vector<T, I> u(a.rows(), std::move(bi), std::move(bv));
            auto const udev = u.to_device();
            std::vector<char> allowed(a.cols(), 1);
            dense_vector<std::int32_t> mv(a.cols());
            for (std::size_t j = 0; j < a.cols(); ++j) {
                mv[j] = static_cast<std::int32_t>(g() % 3);
                allowed[j] = mv[j] == 0;  // the complement of a valued mask
            }
            auto const mvd = mv.to_device();
            cuda::vector_mask m =
                masked ? cuda::vector_mask(complement(mask(mvd))) : cuda::vector_mask();
            sparse_vector<T, I, device> w;
            cuda::spmspv<S, I>(w, m, udev, ad);
            auto const h = w.to_host();  // validates sorted, unique, in range
            auto const want = ref_spmspv<S, I>(a, ui, uv, masked ? &allowed : nullptr);
            std::size_t bad = h.nnz() == want.size() ? 0 : 1 + std::max(h.nnz(), want.size());
            if (bad == 0) {
                std::size_t k = 0;
                for (auto const& [j, v] : want) {
                    bad += !(h.indices()[k] == j && h.values()[k] == v);
                    ++k;
                }
            }
            BOOST_TEST(bad == 0u, "spmspv " << name<S>() << " " << what << " fill " << fill
                                            << " masked " << masked << ": " << bad << " wrong (got "
                                            << h.nnz() << " entries, want " << want.size() << ")");
        }
    }
}

template <class S, class I>
void check_spmm(csr_matrix<typename S::value_type, I> const& a, std::size_t n, rng& g,
                sparse_backend backend, std::string const& what) {
    using T = typename S::value_type;
    auto const ad = a.to_device();
    auto const b = random_dense<S>(a.cols() * n, g);
    dense_matrix<T> bh(a.cols(), n);
    std::copy(b.begin(), b.end(), bh.data());
    auto const bd = bh.to_device();
    for (bool accumulate : {false, true}) {
        auto const c0 = random_dense<S>(a.rows() * n, g);
        dense_matrix<T> ch(a.rows(), n);
        std::copy(c0.begin(), c0.end(), ch.data());
        auto cd = ch.to_device();
        sparse_options opt;
        opt.backend = backend;
        opt.accumulate = accumulate;
        auto const ran = cuda::spmm<S, I>(cd.view(), ad, bd.view(), opt);
        if (backend != sparse_backend::automatic) BOOST_TEST((ran == backend));
        auto const got_h = cd.to_host();
        std::vector<T> got(got_h.data(), got_h.data() + a.rows() * n);
        std::size_t const bad = count_diff(got, ref_spmm<S, I>(a, b, n, c0, accumulate));
        BOOST_TEST(bad == 0u, "spmm " << name<S>() << " " << what << " n " << n << " acc "
                                      << accumulate << ": " << bad << " wrong entries");
    }
}

/// The same product into a dense output (absent entries zero()), overwritten and accumulated,
/// inside a wider view (leading dimension larger than its width).
template <class S, class I>
void check_spgemm_dense(csr_matrix<typename S::value_type, I> const& a,
                        csr_matrix<typename S::value_type, I> const& b,
                        csr_matrix<typename S::value_type, I, device> const& ad,
                        csr_matrix<typename S::value_type, I, device> const& bd,
                        std::vector<std::map<I, typename S::value_type>> const& want,
                        std::string const& what) {
    using T = typename S::value_type;
    std::size_t const m = a.rows(), n = b.cols(), ld = n + 3;
    rng g(m * 131 + n);
    for (bool accumulate : {false, true}) {
        dense_matrix<T> start(m, ld);
        for (std::size_t k = 0; k < m * ld; ++k) start.data()[k] = some_value<T>(g);
        auto cd = start.to_device();
        dense_view<T, device> const view{cd.data(), m, n, ld};
        sparse_options opt;
        opt.accumulate = accumulate;
        auto const ran = cuda::spgemm_dense<S, I>(view, ad, bd, opt);
        BOOST_TEST((ran == sparse_backend::generic));
        auto const c = cd.to_host();
        std::size_t bad = 0;
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < ld; ++j) {
                T const old = start.data()[i * ld + j];
                T expect = old;  // columns past n: untouched
                if (j < n) {
                    auto const it = want[i].find(I(j));
                    if (it == want[i].end()) expect = accumulate ? old : S::zero();
                    else expect = accumulate ? S::add(old, it->second) : it->second;
                }
                bad += !(c.data()[i * ld + j] == expect);
            }
        }
        BOOST_TEST(bad == 0u, "spgemm_dense " << name<S>() << " " << what
                                              << (accumulate ? " accumulate" : " overwrite")
                                              << ": " << bad << " wrong entries");
    }
}

template <class S, class I>
void check_spgemm(csr_matrix<typename S::value_type, I> const& a,
                  csr_matrix<typename S::value_type, I> const& b, sparse_backend backend,
                  std::string const& what) {
    auto const ad = a.to_device();
    auto const bd = b.to_device();
    auto cd = csr_matrix<typename S::value_type, I>()
                  .to_device();  // (no default constructor on the device)
    sparse_options opt;
    opt.backend = backend;
    auto const ran = cuda::spgemm<S, I>(cd, ad, bd, opt);
    if (backend != sparse_backend::automatic) BOOST_TEST((ran == backend));
    BOOST_TEST(cd.rows() == a.rows());
    BOOST_TEST(cd.cols() == b.cols());
    auto const c = cd.to_host();
    c.validate();  // sorted, unique, in range
    auto const want = ref_spgemm<S, I>(a, b);
    std::size_t bad = 0, nnz = 0;
    for (std::size_t i = 0; i < a.rows(); ++i) {
        nnz += want[i].size();
        if (c.row_end(i) - c.row_begin(i) != want[i].size()) {
            ++bad;
            continue;
        }
        std::size_t k = c.row_begin(i);
        for (auto const& [j, v] : want[i]) {
            bad += !(c.col_idx()[k] == j && c.value(k) == v);
            ++k;
        }
    }
    BOOST_TEST(c.nnz() == nnz);
    BOOST_TEST(bad == 0u,
               "spgemm " << name<S>() << " " << what << ": " << bad << " wrong rows/entries");
    check_spgemm_dense<S, I>(a, b, ad, bd, want, what);
}

// ---- drivers
// --------------------------------------------------------------------------------------

/// Every product over S on matrices of both index types; `big` adds the power-law sizes.
template <class S, class I>
void products(bool big, std::uint64_t seed) {
    using T = typename S::value_type;
    rng g(seed);
    auto const shapes =
        big ? std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 3},   {3, 0},    {1, 1},
                                                               {7, 5}, {33, 65}, {257, 129}}
            : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 1}, {7, 5}, {33, 65}};
    auto const gen = sparse_backend::generic;
    for (auto [r, c] : shapes) {
        std::string const what = std::to_string(r) + "x" + std::to_string(c);
        auto const a = random_csr<T, I>(r, c, 3.0, g);
        check_spmv<S, I>(a, g, gen, what, !big);
        check_spmspv<S, I>(a, g, what, !big);
        check_spmm<S, I>(a, 5, g, gen, what);
        auto const b = random_csr<T, I>(c, r + 2, 2.5, g);
        check_spgemm<S, I>(a, b, gen, what);
    }
    // Iso (pattern) matrices.
    {
        auto const a = random_csr<T, I>(65, 70, 4.0, g, true);
        auto const b = random_csr<T, I>(70, 33, 3.0, g, true);
        check_spmv<S, I>(a, g, gen, "iso", !big);
        check_spmspv<S, I>(a, g, "iso", !big);
        check_spmm<S, I>(a, 3, g, gen, "iso");
        check_spgemm<S, I>(a, b, gen, "iso");
    }
    // Power-law rows: long rows take the split paths (spmv > 64 x lanes, spmm > 1024 entries,
    // spgemm rows of more than 4096 products use global hash tables).
    {
        std::size_t const rows = big ? 3001 : 601, cols = big ? 9001 : 2001;
        std::vector<std::size_t> heavy =
            big ? std::vector<std::size_t>{9000, 5000, 2100, 1100, 700, 700, 300}
                : std::vector<std::size_t>{2000, 1500, 600, 300};
        auto const a = power_law_csr<T, I>(rows, cols, heavy, g);
        check_spmv<S, I>(a, g, gen, "power-law", !big);
        check_spmspv<S, I>(a, g, "power-law", !big);
        for (std::size_t n :
             big ? std::vector<std::size_t>{1, 33, 130} : std::vector<std::size_t>{3})
            check_spmm<S, I>(a, n, g, gen, "power-law");
        // A (rows x cols) times B (cols x cols'): B's heavy rows make A's rows long in products.
        auto const b = power_law_csr<T, I>(cols, big ? 2999 : 999, heavy, g);
        check_spgemm<S, I>(a, b, gen, "power-law");
        // Few columns: rows with many products but small tables.
        auto const b_narrow = power_law_csr<T, I>(cols, 17, heavy, g);
        check_spgemm<S, I>(a, b_narrow, gen, "power-law x 17 columns");
    }
}

// Every pair the library builds (KLEENE_SPARSE_INSTANCES, generated from the instance registry
// for this build's KLEENE_INSTANCES), once for each index type.
template <class S, class I>
struct sparse_instance {
    using semiring = S;
    using index = I;
};
template <class Unused, class... Ts>
using without_first = std::tuple<Ts...>;
#define KLEENE_TEST_SPARSE_INSTANCE(S, T, Index, ...) , sparse_instance<S<T>, Index>
using built_instances = without_first<void KLEENE_SPARSE_INSTANCES(KLEENE_TEST_SPARSE_INSTANCE)>;
#undef KLEENE_TEST_SPARSE_INSTANCE

template <class S, class I>
void products_one(bool big) {
    BOOST_TEST_CONTEXT(name<S>() << " " << sizeof(I) * 8 << "-bit") {
        products<S, I>(big, 13);
    }
}

/// cuSPARSE and `automatic` beside the generic kernels (plus_times over float, double).
template <class T, class I>
void vendor(bool big) {
    using S = plus_times<T>;
    rng g(99);
    std::size_t const rows = big ? 5001 : 301, cols = big ? 4003 : 299;
    auto const a = power_law_csr<T, I>(rows, cols, {cols, cols / 2, 700}, g);
    for (auto backend : {sparse_backend::cusparse, sparse_backend::automatic}) {
        check_spmv<S, I>(a, g, backend, "vendor");
        check_spmm<S, I>(a, 37, g, backend, "vendor");
        auto const b = power_law_csr<T, I>(cols, 257, {257, 100}, g);
        if (std::is_same_v<I, std::int32_t> || backend == sparse_backend::automatic)
            check_spgemm<S, I>(a, b, backend, "vendor");
    }
    // cuSPARSE cannot mask or take iso matrices; asking for it anyway is an error, not a fallback.
    auto const ad = a.to_device();
    auto const iso = random_csr<T, I>(rows, cols, 3, g, true).to_device();
    dense_vector<T, device> u(cols), w(rows);
    dense_vector<bool> mh(rows, true);
    auto const md = mh.to_device();
    sparse_options opt;
    opt.backend = sparse_backend::cusparse;
    BOOST_CHECK_THROW((cuda::spmv<S, I>(w, cuda::vector_mask(mask(md)), ad, u, opt)),
                      invalid_argument);
    BOOST_CHECK_THROW((cuda::spmv<S, I>(w, {}, iso, u, opt)), invalid_argument);
    dense_vector<T, device> u2(cols), w2(rows);
    BOOST_CHECK_THROW((cuda::spmv<min_plus<T>, I>(w2, {}, ad, u2, opt)), invalid_argument);
}

}  // namespace

namespace test_types {
using f32 = float;
using f64 = double;
using i32 = std::int32_t;
using i64 = std::int64_t;
}  // namespace test_types
using namespace test_types;

// A fast subset (every product, every kernel path, a few semirings and types); `large` runs every
// instantiated semiring x type on bigger inputs, and cuSPARSE (kept out of `small`: racecheck
// reports hazards inside cuSPARSE's own SpMV kernel, which would fail the sanitizer stage).
BOOST_AUTO_TEST_SUITE(small)

#define KLEENE_TEST_PRODUCTS(S, T, I)                \
    BOOST_AUTO_TEST_CASE(products_##S##_##T##_##I) { \
        if (!have_gpu()) return;                     \
        products_one<S<T>, I>(false);                \
    }
KLEENE_TEST_PRODUCTS(plus_times, f32, i32)
KLEENE_TEST_PRODUCTS(plus_times, f32, i64)
KLEENE_TEST_PRODUCTS(min_plus, i32, i32)
KLEENE_TEST_PRODUCTS(max_plus, f64, i64)
KLEENE_TEST_PRODUCTS(min_first, i64, i32)
KLEENE_TEST_PRODUCTS(any_pair, bool, i64)
KLEENE_TEST_PRODUCTS(lor_land, bool, i32)

BOOST_AUTO_TEST_CASE(shapes_are_checked) {
    if (!have_gpu()) return;
    rng g(5);
    auto const a = random_csr<float, std::int32_t>(10, 12, 2, g).to_device();
    dense_vector<float, device> u(11), w(10), w_ok(10), u_ok(12);
    BOOST_CHECK_THROW((cuda::spmv<plus_times<float>, std::int32_t>(w, {}, a, u)),
                      dimension_mismatch);
    dense_vector<bool> mh(9, true);
    auto const md = mh.to_device();
    BOOST_CHECK_THROW(
        (cuda::spmv<plus_times<float>, std::int32_t>(w_ok, cuda::vector_mask(mask(md)), a, u_ok)),
        dimension_mismatch);
    auto const sq = random_csr<float, std::int32_t>(10, 10, 2, g).to_device();
    BOOST_CHECK_THROW((cuda::spmv<plus_times<float>, std::int32_t>(w_ok, {}, sq, w_ok)),
                      invalid_argument);
    auto c = csr_matrix<float, std::int32_t>().to_device();
    BOOST_CHECK_THROW((cuda::spgemm<plus_times<float>, std::int32_t>(c, a, a)), dimension_mismatch);
    dense_matrix<float, device> bm(11, 4), cm(10, 4);
    BOOST_CHECK_THROW((cuda::spmm<plus_times<float>, std::int32_t>(cm.view(), a, bm.view())),
                      dimension_mismatch);
    dense_matrix<float, device> cw(10, 11);
    BOOST_CHECK_THROW((cuda::spgemm_dense<plus_times<float>, std::int32_t>(cw.view(), a, a)),
                      dimension_mismatch);
    BOOST_CHECK_THROW((cuda::product_density(a, a)), dimension_mismatch);
    sparse_options vendor_opt;
    vendor_opt.backend = sparse_backend::cusparse;
    dense_matrix<float, device> cs(10, 10);
    BOOST_CHECK_THROW(
        (cuda::spgemm_dense<plus_times<float>, std::int32_t>(cs.view(), sq, sq, vendor_opt)),
        invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(large)

// Every pair the library builds (built_instances), once for each index type.
BOOST_AUTO_TEST_CASE_TEMPLATE(products_built, P, built_instances) {
    if (!have_gpu()) return;
    using S = typename P::semiring;
    using I = typename P::index;
    BOOST_TEST_CONTEXT(name<S>()) { products<S, I>(true, sizeof(I) == 4 ? 11 : 12); }
}

BOOST_AUTO_TEST_CASE(cusparse_backend_big) {
    if (!have_gpu()) return;
    vendor<float, std::int32_t>(true);
    vendor<double, std::int32_t>(true);
    vendor<float, std::int64_t>(true);
    vendor<double, std::int64_t>(true);
}

BOOST_AUTO_TEST_SUITE_END()

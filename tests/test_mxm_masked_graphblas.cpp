#define BOOST_TEST_MODULE mxm_masked_graphblas
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cstdint>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/kleene.hpp>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// kleene's mxm against SuiteSparse:GraphBLAS with masks, accumulators and replace on every storage
// pair, pinned Gustavson kernels, and the explain trace.

using namespace kleene;
namespace grb = kleene::graphblas;
using i32 = std::int32_t;
using i64 = std::int64_t;

namespace {

struct shape3 {
    std::size_t m, k, n;
    double density;
    bool holes;  // empty every 5th row and every 7th column
};

std::vector<shape3> const mask_shapes = {
    {0, 0, 0, 0.5, false},    {1, 1, 1, 1.0, false},      {6, 4, 9, 0.5, false},
    {37, 23, 41, 0.15, true}, {120, 80, 100, 0.05, true},
};

template <class S>
double tolerance() {
    using T = typename S::value_type;
    if constexpr (std::is_floating_point_v<T> && !S::idempotent_add)
        return std::is_same_v<T, float> ? 1e-5 : 1e-12;
    else
        return 0.0;
}

template <class K>
char const* storage_name() {
    if constexpr (requires(K k) { k.nnz(); })
        return "csr";
    else
        return "dense";
}

/// Runs C<mask> accum= A*B through kleene and through GraphBLAS from the same C and compares.
template <class S, class C, class Mask, class Accum, class A, class B>
void check_mxm(C const& c0, Mask const& mask, Accum accum, A const& a, B const& b, options opt,
               std::string const& what) {
    BOOST_TEST_CHECKPOINT(what);
    C got = c0, want = c0;
    mxm(got, mask, accum, a, b, S{}, opt);
    opt.explain = nullptr;
    grb::mxm(want, mask, accum, a, b, S{}, opt);
    auto const r = grb::compare(got, want, tolerance<S>());
    BOOST_TEST(r.ok(), what << ": " << r.summary());
}

std::string describe(shape3 const& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.k) + " * " + std::to_string(s.k) + "x" +
           std::to_string(s.n) + (s.holes ? " (empty rows/cols)" : "");
}

}  // namespace

// ---- masks, accumulators, replace -------------------------------------------------------------

namespace {
/// Every mask kind (none, valued, structural, complemented of each; CSR or dense storage), with and
/// without the accumulator, replace on and off, for output C of storage CMat from A and B.
template <class S, class Accum, class CMat, class A, class B>
void all_write_backs(CMat const& c0, csr_matrix<typename S::value_type> const& msk, A const& a,
                     B const& b, options opt, std::string const& what) {
    using T = typename S::value_type;
    auto const mskd = to_dense(msk, T(0));
    std::string const where =
        what + " " + storage_name<A>() + " x " + storage_name<B>() + " -> " + storage_name<CMat>();
    for (bool replace : {false, true}) {
        opt.replace = replace;
        std::string const r = replace ? " replace" : "";
        check_mxm<S>(c0, no_mask, no_accum, a, b, opt, where + " no mask" + r);
        check_mxm<S>(c0, no_mask, Accum{}, a, b, opt, where + " no mask, accum" + r);
        for (int kind = 0; kind < 4; ++kind) {
            bool const structural = kind & 1, comp = kind & 2;
            auto const set = [&](auto v) {
                v.structural = structural;
                v.complemented = comp;
                return v;
            };
            std::string const k = std::string(comp ? " complemented" : "") +
                                  (structural ? " structural" : " valued") + " mask" + r;
            check_mxm<S>(c0, set(mask(msk)), no_accum, a, b, opt, where + k + " (csr)");
            check_mxm<S>(c0, set(mask(msk)), Accum{}, a, b, opt, where + k + " (csr), accum");
            check_mxm<S>(c0, set(mask(mskd)), no_accum, a, b, opt, where + k + " (dense)");
            check_mxm<S>(c0, set(mask(mskd)), Accum{}, a, b, opt, where + k + " (dense), accum");
        }
    }
}

template <class S, class Accum>
void masked_storage_pairs(shape3 const& s, std::mt19937_64& g) {
    using T = typename S::value_type;
    auto const a = grb::random_csr<T>(s.m, s.k, s.density, g, s.holes);
    auto const b = grb::random_csr<T>(s.k, s.n, s.density, g, s.holes);
    auto const c = grb::random_csr<T>(s.m, s.n, 0.3, g, false);
    auto const msk = grb::random_mask<T>(s.m, s.n, g);
    auto const ad = to_dense<S>(a);
    auto const bd = to_dense<S>(b);
    auto const cd = to_dense<S>(c);
    std::string const what = describe(s);
    all_write_backs<S, Accum>(c, msk, a, b, {}, what);
    all_write_backs<S, Accum>(cd, msk, a, b, {}, what);
    all_write_backs<S, Accum>(c, msk, a, bd, {}, what);
    all_write_backs<S, Accum>(cd, msk, a, bd, {}, what);
    all_write_backs<S, Accum>(c, msk, ad, b, {}, what);
    all_write_backs<S, Accum>(cd, msk, ad, b, {}, what);
    all_write_backs<S, Accum>(c, msk, ad, bd, {}, what);
    all_write_backs<S, Accum>(cd, msk, ad, bd, {}, what);
}
}  // namespace

using masked_cases =
    std::tuple<std::pair<plus_times<double>, plus_op<double>>,
               std::pair<min_plus<i32>, min_op<i32>>, std::pair<lor_land<bool>, lor_op<bool>>,
               std::pair<min_first<float>, second_op<float>>,
               std::pair<max_plus<i64>, plus_op<i64>>>;

BOOST_AUTO_TEST_CASE_TEMPLATE(masks_accumulators_replace_match_graphblas, Case, masked_cases) {
    std::mt19937_64 g(99);
    for (auto const& s : mask_shapes)
        masked_storage_pairs<typename Case::first_type, typename Case::second_type>(s, g);
}

// ---- the dense GEMM sampled by the mask's blocks ----------------------------------------------

namespace {
/// An m x n mask of the entries (i, j) with allow(i, j), values 0, 1 or 2 (a valued view allows
/// two thirds of them; the zeros are stored, so a structural view allows them all).
template <class T, class F>
csr_matrix<T> mask_where(std::size_t m, std::size_t n, F allow, std::mt19937_64& g) {
    std::vector<i32> ii, jj;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (allow(i, j)) ii.push_back(i32(i)), jj.push_back(i32(j));
    std::unique_ptr<T[]> vv(new T[ii.size()]);  // not std::vector: bool
    for (std::size_t q = 0; q < ii.size(); ++q) vv[q] = T(g() % 3);
    return csr_matrix<T>::from_coo(m, n, ii, jj, std::span<T const>(vv.get(), ii.size()),
                                   duplicate_policy::last);
}
}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(dense_gemm_under_a_mask_skips_blocks_and_matches_graphblas, Case,
                              masked_cases) {
    // 520 x 520 has 3 x 3 blocks of 256 (the last 8 wide): a lower triangle reaches 6 of them
    // (its complement 6 too), a corner of 200 x 200 one, so the GEMM computes only those
    // (cpu/dense_gemm_sampled.hpp); the corner's complement reaches all 9, computed whole.
    using S = typename Case::first_type;
    using Accum = typename Case::second_type;
    using T = typename S::value_type;
    std::mt19937_64 g(123);
    std::size_t const m = 520, k = 8, n = 520;
    auto const ad = to_dense<S>(grb::random_csr<T>(m, k, 0.5, g, false));
    auto const bd = to_dense<S>(grb::random_csr<T>(k, n, 0.5, g, false));
    auto const c = grb::random_csr<T>(m, n, 0.3, g, false);
    auto const cd = to_dense<S>(c);
    auto const tri = mask_where<T>(m, n, [](std::size_t i, std::size_t j) { return j <= i; }, g);
    auto const corner =
        mask_where<T>(m, n, [](std::size_t i, std::size_t j) { return i < 200 && j < 200; }, g);
    all_write_backs<S, Accum>(cd, tri, ad, bd, {}, "triangle");
    options rep;
    rep.replace = true;
    check_mxm<S>(c, mask(tri), Accum{}, ad, bd, rep, "triangle into CSR C, accum, replace");
    check_mxm<S>(cd, mask(to_dense(corner, T(0))), Accum{}, ad, bd, {}, "corner, accum");
    check_mxm<S>(cd, complement(mask(to_dense(corner, T(0)))), no_accum, ad, bd, rep,
                 "complemented corner, replace");
    auto const trace = [&](auto const& mk) {
        explain_trace why;
        dense_matrix<T> out = cd;
        mxm(out, mk, no_accum, ad, bd, S{}, {.explain = &why});
        return why.str();
    };
    auto const tri_d = to_dense(tri, T(0)), corner_d = to_dense(corner, T(0));
    std::string const t1 = trace(mask(tri_d)), t2 = trace(mask(corner_d)),
                      t3 = trace(complement(mask(corner_d))), t4 = trace(structure(tri_d));
    BOOST_TEST((t1.find("dense_gemm over the 6 of 9 blocks") != std::string::npos), t1);
    BOOST_TEST((t2.find("dense_gemm over the 1 of 9 blocks") != std::string::npos), t2);
    // 8 of 9 blocks, and a structural view of a dense mask (every entry): the whole GEMM.
    BOOST_TEST((t3.find("blocks of 256") == std::string::npos), t3);
    BOOST_TEST((t4.find("blocks of 256") == std::string::npos), t4);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(csr_dense_under_a_mask_computes_each_rows_span_and_matches_graphblas,
                              Case, masked_cases) {
    // CSR A times dense B under a mask: the SpMM computes each row of the temporary only from its
    // first to its last allowed column (cpu::allowed_spans), then the masked write-back. A lower
    // triangle, a band, a corner and its complement, valued and structural, CSR and dense masks,
    // into dense and CSR C, against SuiteSparse.
    using S = typename Case::first_type;
    using Accum = typename Case::second_type;
    using T = typename S::value_type;
    std::mt19937_64 g(321);
    std::size_t const m = 300, k = 20, n = 300;
    auto const a = grb::random_csr<T>(m, k, 0.2, g, false);
    auto const bd = to_dense<S>(grb::random_csr<T>(k, n, 0.5, g, false));
    auto const c = grb::random_csr<T>(m, n, 0.3, g, false);
    auto const cd = to_dense<S>(c);
    auto const tri = mask_where<T>(m, n, [](std::size_t i, std::size_t j) { return j <= i; }, g);
    auto const band = mask_where<T>(
        m, n, [](std::size_t i, std::size_t j) { return (i > j ? i - j : j - i) < 25; }, g);
    auto const corner =
        mask_where<T>(m, n, [](std::size_t i, std::size_t j) { return i < 100 && j < 100; }, g);
    all_write_backs<S, Accum>(cd, tri, a, bd, {}, "triangle");
    check_mxm<S>(cd, mask(band), Accum{}, a, bd, {}, "band, accum");
    check_mxm<S>(cd, structure(to_dense(band, T(0))), no_accum, a, bd, {}, "band (dense)");
    options rep;
    rep.replace = true;
    check_mxm<S>(c, mask(tri), Accum{}, a, bd, rep, "triangle into CSR C, accum, replace");
    check_mxm<S>(cd, complement(mask(to_dense(corner, T(0)))), no_accum, a, bd, rep,
                 "complemented corner, replace");
    check_mxm<S>(cd, complement(structure(corner)), Accum{}, a, bd, {},
                 "complemented structural corner, accum");
    auto const trace = [&](auto const& mk) {
        explain_trace why;
        dense_matrix<T> out = cd;
        mxm(out, mk, no_accum, a, bd, S{},
            {.kernel = kernel_choice::csr_dense, .explain = &why});
        return why.str();
    };
    std::string const t1 = trace(structure(corner)), t2 = trace(complement(structure(corner))),
                      t3 = trace(structure(to_dense(tri, T(0))));
    // 100 x 100 of 300 x 300; its complement: 100 rows of 200 and 200 of 300; a structural view
    // of a dense mask allows every entry.
    BOOST_TEST((t1.find("first to the last entry the mask allows (11% of C)") !=
                std::string::npos),
               t1);
    BOOST_TEST((t2.find("(89% of C)") != std::string::npos), t2);
    BOOST_TEST((t3.find("(100% of C)") != std::string::npos), t3);
}

// ---- pinned Gustavson kernels and the explain trace ---------------------------------------------

BOOST_AUTO_TEST_CASE(pinned_gustavson_kernels_match_graphblas_and_explain_names_them) {
    using S = min_plus<float>;
    using T = float;
    std::mt19937_64 g(5);
    for (auto const& s : {shape3{1, 1, 1, 1.0, false}, shape3{60, 70, 80, 0.1, true},
                          shape3{200, 150, 300, 0.2, false}}) {
        auto const a = grb::random_csr<T>(s.m, s.k, s.density, g, s.holes);
        auto const b = grb::random_csr<T>(s.k, s.n, s.density, g, s.holes);
        auto const c = grb::random_csr<T>(s.m, s.n, 0.2, g, false);
        auto const msk = grb::random_mask<T>(s.m, s.n, g);
        auto const cd = to_dense<S>(c);
        for (auto kernel : {kernel_choice::gustavson_dense, kernel_choice::gustavson_hash}) {
            std::string const name(to_string(kernel));
            explain_trace trace;
            options opt;
            opt.kernel = kernel;
            opt.explain = &trace;
            all_write_backs<S, min_op<T>>(c, msk, a, b, opt, describe(s) + " " + name);
            all_write_backs<S, min_op<T>>(cd, msk, a, b, opt, describe(s) + " " + name);
            BOOST_TEST(!trace.lines.empty());
            for (auto const& line : trace.lines)
                BOOST_TEST(line.find(name) != std::string::npos,
                           "explain line '" << line << "' does not name " << name);
        }
    }
}

BOOST_AUTO_TEST_CASE(automatic_choice_explains_and_matches_graphblas) {
    using S = plus_times<double>;
    std::mt19937_64 g(8);
    // Few entries per row and very many columns: the dispatcher picks the hash accumulator.
    auto const a = grb::random_csr<double>(50, 40, 0.1, g, false);
    std::vector<i32> ii, jj;
    std::vector<double> vv;
    std::uniform_int_distribution<i32> col(0, 299999);
    for (i32 i = 0; i < 40; ++i)
        for (int e = 0; e < 3; ++e) {
            ii.push_back(i);
            jj.push_back(col(g));
            vv.push_back(1.5 + e);
        }
    auto const b = csr_matrix<double>::from_coo(40, 300000, ii, jj, vv, duplicate_policy::sum);
    explain_trace trace;
    options opt;
    opt.explain = &trace;
    check_mxm<S>(csr_matrix<double>(50, 300000), no_mask, no_accum, a, b, opt, "wide hash");
    BOOST_TEST_REQUIRE(trace.lines.size() == 1u);
    BOOST_TEST(trace.lines[0].find("gustavson_hash") != std::string::npos, trace.lines[0]);

    trace.lines.clear();
    auto const sq = grb::random_csr<double>(100, 100, 0.05, g, false);
    check_mxm<S>(csr_matrix<double>(100, 100), no_mask, no_accum, sq, sq, opt, "square dense acc");
    BOOST_TEST(trace.lines.at(0).find("gustavson_dense") != std::string::npos, trace.lines[0]);

    trace.lines.clear();
    auto const sqd = to_dense<S>(sq);
    check_mxm<S>(dense_matrix<double>(100, 100, 0.0), no_mask, no_accum, sqd, sqd, opt, "gemm");
    BOOST_TEST(trace.lines.at(0).find("dense_gemm") != std::string::npos, trace.lines[0]);
    trace.lines.clear();
    check_mxm<S>(dense_matrix<double>(100, 100, 0.0), no_mask, no_accum, sq, sqd, opt, "spmm");
    BOOST_TEST(trace.lines.at(0).find("csr_dense") != std::string::npos, trace.lines[0]);
    trace.lines.clear();
    check_mxm<S>(dense_matrix<double>(100, 100, 0.0), no_mask, no_accum, sqd, sq, opt, "dense csr");
    BOOST_TEST(trace.lines.at(0).find("dense_csr") != std::string::npos, trace.lines[0]);
}

BOOST_AUTO_TEST_CASE(a_pin_the_storage_cannot_honour_is_an_error) {
    csr_matrix<float> a(3, 3), b(3, 3), c(3, 3);
    options opt;
    opt.kernel = kernel_choice::dense_gemm;
    BOOST_CHECK_THROW(mxm(c, a, b, min_plus<float>{}, opt), kleene::invalid_argument);
    dense_matrix<float> ad(3, 3, 1.f), bd(3, 3, 1.f), cd(3, 3);
    opt.kernel = kernel_choice::gustavson_hash;
    BOOST_CHECK_THROW(mxm(cd, ad, bd, min_plus<float>{}, opt), kleene::invalid_argument);
}

// ---- masked dot products: C<M> = A B' with B given as transpose(Bt) ---------------------------

namespace {
/// kleene's C<M> accum= A (+).(x) transpose(Bt) (masked dot products, pinned and automatic)
/// against GraphBLAS's mxm on the materialised B, for valued and structural CSR masks, with and
/// without the accumulator and replace; complemented masks take Gustavson (and the masked_dot
/// pin is refused for them).
template <class S, class Accum>
void masked_dot_cases(shape3 const& s, std::mt19937_64& g) {
    using T = typename S::value_type;
    auto const a = grb::random_csr<T>(s.m, s.k, s.density, g, s.holes);
    auto const bt = grb::random_csr<T>(s.n, s.k, s.density, g, s.holes);
    csr_matrix<T> b(s.k, s.n);
    transpose(b, bt);
    auto const c0 = grb::random_csr<T>(s.m, s.n, 0.3, g, false);
    auto const msk = grb::random_mask<T>(s.m, s.n, g);
    for (auto kernel : {kernel_choice::masked_dot, kernel_choice::automatic})
        for (bool replace : {false, true})
            for (int kind = 0; kind < 4; ++kind) {
                bool const structural = kind & 1, comp = kind & 2;
                auto v = mask(msk);
                v.structural = structural;
                v.complemented = comp;
                options opt;
                opt.kernel = kernel;
                opt.replace = replace;
                std::string const what =
                    describe(s) + (kernel == kernel_choice::masked_dot ? " pinned" : " auto") +
                    (replace ? " replace" : "") + (comp ? " complemented" : "") +
                    (structural ? " structural" : " valued");
                BOOST_TEST_CHECKPOINT(what);
                for (int with_accum = 0; with_accum <= 1; ++with_accum) {
                    csr_matrix<T> got = c0, want = c0;
                    auto run = [&](auto accum) {
                        if (comp && kernel == kernel_choice::masked_dot) {
                            BOOST_CHECK_THROW(mxm(got, v, accum, a, transpose(bt), S{}, opt),
                                              invalid_argument);
                            return false;
                        }
                        mxm(got, v, accum, a, transpose(bt), S{}, opt);
                        options ref;
                        ref.replace = replace;
                        grb::mxm(want, v, accum, a, b, S{}, ref);
                        return true;
                    };
                    bool const ran = with_accum ? run(Accum{}) : run(no_accum);
                    if (!ran) continue;
                    auto const r = grb::compare(got, want, tolerance<S>());
                    BOOST_TEST(r.ok(), what << (with_accum ? ", accum" : "") << ": " << r.summary());
                }
            }
}
}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(masked_dot_products_match_graphblas, Case, masked_cases) {
    using S = typename Case::first_type;
    using Accum = typename Case::second_type;
    std::mt19937_64 g(4242);
    for (auto const& s : mask_shapes) masked_dot_cases<S, Accum>(s, g);
}

/// Rows of A of about 600 entries (half of 1,200 columns) under mask rows of about 30: hashed
/// (kleene::detail::hashed_entry: past 256 entries, the mask row at least a 32nd as long) where
/// Bt(j,:), as long on average, is no longer; merged where it is longer. Every semiring of the
/// list, pinned and automatic, against GraphBLAS.
BOOST_AUTO_TEST_CASE_TEMPLATE(masked_dot_hashed_rows_match_graphblas, Case, masked_cases) {
    using S = typename Case::first_type;
    using Accum = typename Case::second_type;
    std::mt19937_64 g(4343);
    for (auto const& s : {shape3{30, 1200, 100, 0.5, true}, shape3{8, 3000, 100, 0.3, false}})
        masked_dot_cases<S, Accum>(s, g);
}

BOOST_AUTO_TEST_CASE(masked_dot_is_chosen_for_a_sparse_mask_and_explained) {
    // C<M> = L plus_pair U' (U = L', the GraphBLAS way to count triangles) on a random undirected
    // graph of 1,000 vertices with 40 hubs, numbered at random. With M = L the transpose and the
    // masked Gustavson are rated cheaper (and are: bench in docs/lab/performance-history.md,
    // 2026-11-29); with M every 50th entry of L the dot products are, and are taken; with a full
    // mask they are not. Every choice gives the pinned kernels' result.
    std::mt19937_64 g(7);
    std::size_t const n = 1000;
    std::vector<std::size_t> id(n);
    for (std::size_t v = 0; v < n; ++v) id[v] = v;
    std::shuffle(id.begin(), id.end(), g);
    std::vector<std::int32_t> ii, jj;
    auto edge = [&](std::size_t x, std::size_t y) {
        if (x == y) return;
        x = id[x];
        y = id[y];
        ii.push_back(static_cast<std::int32_t>(x)), jj.push_back(static_cast<std::int32_t>(y));
        ii.push_back(static_cast<std::int32_t>(y)), jj.push_back(static_cast<std::int32_t>(x));
    };
    for (std::size_t e = 0; e < 8 * n; ++e) edge(g() % n, g() % n);
    for (std::size_t h = 0; h < 40; ++h)
        for (std::size_t v = 0; v < n; v += 3) edge(h, v);
    auto const a = csr_matrix<std::int64_t>::from_coo(n, n, ii, jj, {}, duplicate_policy::last);
    csr_matrix<std::int64_t> l(n, n), u(n, n), sparse(n, n);
    select(l, tril{-1}, a);
    transpose(u, l);
    select(sparse, [](std::int64_t, std::size_t i, std::size_t j) { return (i + 7 * j) % 50 == 0; },
           l);
    BOOST_TEST(sparse.nnz() > 0u);
    auto const full = to_csr<std::int64_t, std::int32_t>(
        dense_matrix<std::int64_t>(n, n, std::int64_t(1)), std::int64_t(0));
    struct case_t {
        csr_matrix<std::int64_t> const* m;
        char const* name;
        bool dot;
    } const cases[] = {{&sparse, "every 50th entry of L", true}, {&full, "full", false}};
    for (auto const& cs : cases) {
        BOOST_TEST_CONTEXT(cs.name) {
            explain_trace why;
            csr_matrix<std::int64_t> c(n, n), dot(n, n), gus(n, n);
            mxm(c, structure(*cs.m), no_accum, l, transpose(u), plus_pair<std::int64_t>{},
                {.explain = &why});
            BOOST_TEST((why.str().find("masked_dot (") != std::string::npos) == cs.dot, why.str());
            BOOST_TEST((why.str().find("masked_dot not taken") != std::string::npos) == !cs.dot,
                       why.str());
            mxm(dot, structure(*cs.m), no_accum, l, transpose(u), plus_pair<std::int64_t>{},
                {.kernel = kernel_choice::masked_dot});
            mxm(gus, structure(*cs.m), no_accum, l, l, plus_pair<std::int64_t>{},
                {.kernel = kernel_choice::gustavson_dense});
            BOOST_TEST(grb::compare(c, gus, 0.0).ok());
            BOOST_TEST(grb::compare(dot, gus, 0.0).ok());
            BOOST_TEST(reduce(plus_monoid<std::int64_t>{}, gus) > 0);
        }
    }
}

// ---- masked products with a dense B: C<M> = A B, A CSR or dense -------------------------------

namespace {
/// kleene's C<M> accum= A (+).(x) B with a dense B under a CSR mask (the masked products,
/// cpu::masked_dense, pinned and automatic), and with a dense A and a CSR B (cpu::masked_dense_bt),
/// against GraphBLAS, for CSR and dense A and C, valued
/// and structural masks, with and without the accumulator and replace; a complemented mask takes
/// the whole product (the masked_dot pin is refused for it).
template <class S, class Accum>
void masked_dense_cases(shape3 const& s, std::mt19937_64& g) {
    using T = typename S::value_type;
    auto const a = grb::random_csr<T>(s.m, s.k, s.density, g, s.holes);
    auto const ad = to_dense<S>(a);
    auto const b = grb::random_csr<T>(s.k, s.n, 0.6, g, s.holes);
    auto const bd = to_dense<S>(b);
    auto const c0 = grb::random_csr<T>(s.m, s.n, 0.3, g, false);
    auto const cd0 = to_dense<S>(c0);
    auto const msk = grb::random_mask<T>(s.m, s.n, g);
    for (auto kernel : {kernel_choice::masked_dot, kernel_choice::automatic})
        for (bool replace : {false, true})
            for (int kind = 0; kind < 4; ++kind) {
                bool const structural = kind & 1, comp = kind & 2;
                auto v = mask(msk);
                v.structural = structural;
                v.complemented = comp;
                options opt;
                opt.kernel = kernel;
                opt.replace = replace;
                std::string const what =
                    describe(s) + (kernel == kernel_choice::masked_dot ? " pinned" : " auto") +
                    (replace ? " replace" : "") + (comp ? " complemented" : "") +
                    (structural ? " structural" : " valued");
                auto one = [&](auto const& c_start, auto const& a_op, auto const& b_op,
                               auto accum, std::string const& where) {
                    BOOST_TEST_CHECKPOINT(where);
                    auto got = c_start, want = c_start;
                    if (comp && kernel == kernel_choice::masked_dot) {
                        BOOST_CHECK_THROW(mxm(got, v, accum, a_op, b_op, S{}, opt),
                                          invalid_argument);
                        return;
                    }
                    explain_trace why;
                    options o = opt;
                    o.explain = &why;
                    mxm(got, v, accum, a_op, b_op, S{}, o);
                    if (kernel == kernel_choice::masked_dot)
                        BOOST_TEST((why.str().find("masked_dense (") != std::string::npos ||
                                    why.str().find("masked_dense_bt (") != std::string::npos),
                                   where << ": " << why.str());
                    options ref;
                    ref.replace = replace;
                    grb::mxm(want, v, accum, a_op, b_op, S{}, ref);
                    auto const r = grb::compare(got, want, tolerance<S>());
                    BOOST_TEST(r.ok(), where << ": " << r.summary());
                };
                for (int with_accum = 0; with_accum <= 1; ++with_accum) {
                    std::string const w = what + (with_accum ? ", accum" : "");
                    auto run = [&](auto accum) {
                        one(c0, a, bd, accum, w + " csr x dense -> csr");
                        one(c0, ad, bd, accum, w + " dense x dense -> csr");
                        one(cd0, a, bd, accum, w + " csr x dense -> dense");
                        one(cd0, ad, bd, accum, w + " dense x dense -> dense");
                        one(c0, ad, b, accum, w + " dense x csr -> csr");
                        one(cd0, ad, b, accum, w + " dense x csr -> dense");
                    };
                    if (with_accum) run(Accum{});
                    else run(no_accum);
                }
            }
}
}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(masked_dense_products_match_graphblas, Case, masked_cases) {
    using S = typename Case::first_type;
    using Accum = typename Case::second_type;
    std::mt19937_64 g(5151);
    for (auto const& s : mask_shapes) masked_dense_cases<S, Accum>(s, g);
    // Chunks of 256 mask entries: mask rows of about 450 entries.
    masked_dense_cases<S, Accum>(shape3{3, 70, 1500, 0.5, true}, g);
}

BOOST_AUTO_TEST_CASE(masked_dense_is_chosen_for_a_sparse_mask_and_drops_zero_sums) {
    // C<M> = A B with A 1,500 x 32 dense, B 32 x 1,500 dense: under a mask of 3 entries a row the
    // masked products are rated cheaper and taken; under a full mask (of a 1,500 x 200 product)
    // they are not. Both give the pinned whole product's result.
    std::mt19937_64 g(11);
    std::size_t const n = 1500, k = 32;
    std::uniform_int_distribution<int> d(-3, 3);
    dense_matrix<double> a(n, k), b(k, n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < k; ++j) a(i, j) = d(g), b(j, i) = d(g);
    std::vector<std::int32_t> ii, jj;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t r = 0; r < 3; ++r)
            ii.push_back(std::int32_t(i)), jj.push_back(std::int32_t(g() % n));
    auto const sparse =
        csr_matrix<double>::from_coo(n, n, ii, jj, {}, duplicate_policy::last);
    for (bool sparse_mask : {true, false}) {
        BOOST_TEST_CONTEXT((sparse_mask ? "sparse mask" : "full mask")) {
            csr_matrix<double> full_m;
            if (!sparse_mask)
                full_m = to_csr<double, std::int32_t>(dense_matrix<double>(n, 200, 1.0), 0.0);
            // The full mask over the first 200 columns of a narrower product.
            dense_matrix<double> b2(k, sparse_mask ? n : 200);
            for (std::size_t q = 0; q < k; ++q)
                for (std::size_t j = 0; j < b2.cols(); ++j) b2(q, j) = b(q, j);
            auto const& m = sparse_mask ? sparse : full_m;
            explain_trace why;
            csr_matrix<double> c(n, b2.cols()), whole(n, b2.cols());
            mxm(c, structure(m), no_accum, a, b2, plus_times<double>{}, {.explain = &why});
            BOOST_TEST((why.str().find("masked_dense (") != std::string::npos) == sparse_mask,
                       why.str());
            BOOST_TEST((why.str().find("dense B not taken") != std::string::npos) == !sparse_mask,
                       why.str());
            mxm(whole, structure(m), no_accum, a, b2, plus_times<double>{},
                {.kernel = kernel_choice::dense_gemm});
            BOOST_TEST(grb::compare(c, whole, 0.0).ok());
            BOOST_TEST(c.nnz() > 0u);
        }
    }
    // A dense A and a CSR B (a tenth of B's entries): under the sparse mask B is transposed and
    // the masked products taken, with the pinned whole product's (dense_csr) result.
    {
        auto const bc = to_csr<double, std::int32_t>(b, 0.0);
        csr_matrix<double> b_sparse(k, n);
        select(b_sparse, [](double, std::size_t i, std::size_t j) { return (i + j) % 10 == 0; },
               bc);
        explain_trace why;
        csr_matrix<double> c(n, n), whole(n, n);
        mxm(c, structure(sparse), no_accum, a, b_sparse, plus_times<double>{}, {.explain = &why});
        BOOST_TEST(why.str().find("masked_dense_bt (") != std::string::npos, why.str());
        mxm(whole, structure(sparse), no_accum, a, b_sparse, plus_times<double>{},
            {.kernel = kernel_choice::dense_csr});
        BOOST_TEST(grb::compare(c, whole, 0.0).ok());
        BOOST_TEST(c.nnz() > 0u);
    }
    // A sum that cancels to zero is left out, as the whole product into a dense temporary leaves it.
    dense_matrix<std::int64_t> a1(1, 2), b1(2, 2);
    a1(0, 0) = 1, a1(0, 1) = 1;
    b1(0, 0) = 1, b1(1, 0) = -1, b1(0, 1) = 2, b1(1, 1) = 3;
    auto const m1 = to_csr<std::int64_t, std::int32_t>(dense_matrix<std::int64_t>(1, 2, 1), 0);
    for (auto kernel : {kernel_choice::masked_dot, kernel_choice::dense_gemm}) {
        csr_matrix<std::int64_t> c1(1, 2);
        mxm(c1, mask(m1), no_accum, a1, b1, plus_times<std::int64_t>{}, {.kernel = kernel});
        BOOST_TEST(c1.nnz() == 1u);
        BOOST_TEST(to_dense(c1, std::int64_t(0))(0, 1) == 5);
    }
}

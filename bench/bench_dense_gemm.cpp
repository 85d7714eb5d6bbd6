// Dense x dense semiring GEMM: kleene::cpu::dense_gemm against SuiteSparse:GraphBLAS GrB_mxm on
// the same full n x n random matrices. Prints the median time of several runs after a warm-up,
// G updates/s (n^3 / t) and kleene's speedup, and checks that the two products agree.
//
//   OMP_NUM_THREADS=2 bench_dense_gemm [n ...] [--runs R] [--no-graphblas] [--masked]
//   (default n = 1024)
// --masked: instead, fp32 min_plus C<M> = A B into a dense C through kleene::mxm under a dense
// mask M (mask_shapes.hpp: full, lower triangle, a band of 512, diagonal blocks of 1024): A dense
// (the GEMM sampled by M's 256 x 256 blocks, cpu/dense_gemm_sampled.hpp) and A CSR of 32 entries
// a row (the SpMM over each row's columns from its first to its last allowed entry), each beside
// the whole product into a temporary (made each call, as mxm makes its own) and the same masked
// write-back (kleene::apply), and SuiteSparse's GrB_mxm with the same mask; results compared.

#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/kleene.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/convert.hpp>
#include <kleene/semiring.hpp>

extern "C" {
#include <GraphBLAS.h>
}

#include "mask_shapes.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using kleene::dense_matrix;
using kleene::graphblas::check;

template <class F>
double median_seconds(int runs, F&& f) {
    f();  // warm-up: page faults, thread start, caches
    std::vector<double> t;
    for (int r = 0; r < runs; ++r) {
        auto const t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class T>
dense_matrix<T> random_matrix(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    dense_matrix<T> m(n, n);
    for (std::size_t i = 0; i < n * n; ++i) {
        if constexpr (std::is_floating_point_v<T>)
            m.data()[i] = T(std::uniform_real_distribution<double>(0, 100)(rng));
        else
            m.data()[i] = T(std::uniform_int_distribution<int>(0, 1000)(rng));
    }
    return m;
}

/// A full GrB_Matrix holding a copy of m (packed by row: GraphBLAS takes ownership of the copy).
template <class T>
GrB_Matrix to_graphblas(dense_matrix<T> const& m, GrB_Type type) {
    GrB_Matrix g = nullptr;
    check(GrB_Matrix_new(&g, type, m.rows(), m.cols()), "GrB_Matrix_new");
    GrB_Index const bytes = m.rows() * m.cols() * sizeof(T);
    void* values = std::malloc(bytes);
    std::memcpy(values, m.data(), bytes);
    check(GxB_Matrix_pack_FullR(g, &values, bytes, false, nullptr), "GxB_Matrix_pack_FullR");
    return g;
}

template <class T>
std::vector<T> tuples(GrB_Matrix c, GrB_Index nvals, GrB_Index* i, GrB_Index* j) {
    std::vector<T> x(nvals);
    GrB_Index n = nvals;
    if constexpr (std::is_same_v<T, float>)
        check(GrB_Matrix_extractTuples_FP32(i, j, x.data(), &n, c), "extractTuples");
    else if constexpr (std::is_same_v<T, double>)
        check(GrB_Matrix_extractTuples_FP64(i, j, x.data(), &n, c), "extractTuples");
    else
        check(GrB_Matrix_extractTuples_INT32(i, j, x.data(), &n, c), "extractTuples");
    return x;
}

/// Entries of the GraphBLAS product that differ from kleene's (relative error `rel` allowed);
/// a missing entry counts as a difference.
template <class T>
std::size_t count_differences(GrB_Matrix c, dense_matrix<T> const& expect, double rel) {
    GrB_Index nvals = 0;
    check(GrB_Matrix_nvals(&nvals, c), "GrB_Matrix_nvals");
    std::vector<GrB_Index> i(nvals), j(nvals);
    std::vector<T> const x = tuples<T>(c, nvals, i.data(), j.data());
    std::size_t bad = expect.rows() * expect.cols() - nvals;
    for (GrB_Index e = 0; e < nvals; ++e) {
        double const want = double(expect(i[e], j[e]));
        double const got = double(x[e]);
        if (rel > 0 ? std::abs(got - want) > rel * std::max(1.0, std::abs(want)) : got != want)
            ++bad;
    }
    return bad;
}

struct options {
    std::vector<std::size_t> sizes;
    int runs = 5;
    bool graphblas = true;
    bool masked = false;
};

/// n x n CSR of `per_row` random columns a row (values as random_matrix's).
kleene::csr_matrix<float> random_csr(std::size_t n, std::size_t per_row, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::int32_t> ii, jj;
    std::vector<float> vv;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t e = 0; e < per_row; ++e) {
            ii.push_back(std::int32_t(i));
            jj.push_back(std::int32_t(rng() % n));
            vv.push_back(float(std::uniform_real_distribution<double>(0, 100)(rng)));
        }
    return kleene::csr_matrix<float>::from_coo(n, n, ii, jj, vv, kleene::duplicate_policy::last);
}

/// fp32 min_plus under dense masks (--masked), A dense (the sampled GEMM) and A CSR of 32 entries
/// a row (the SpMM over each row's span of allowed columns); returns the entries that differ.
std::size_t run_masked(std::size_t n, options const& opt) {
    using S = kleene::min_plus<float>;
    float const inf = S::zero();
    auto const a = random_matrix<float>(n, 1);
    auto const a_csr = random_csr(n, 32, 3);
    auto const b = random_matrix<float>(n, 2);
    int const runs = n >= 2048 ? std::min(opt.runs, 3) : opt.runs;
    std::size_t wrong = 0;
    for (auto const& sh : kleene::bench::mask_shapes) {
        dense_matrix<float> m(n, n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) m(i, j) = sh.allow(i, j) ? 1.0f : 0.0f;
        auto const one = [&](char const* what, auto const& a_op, GrB_Matrix ga) {
            dense_matrix<float> c(n, n, inf), c2(n, n, inf);
            double const sampled = median_seconds(runs, [&] {
                kleene::mxm(c, kleene::mask(m), kleene::no_accum, a_op, b, S{});
            });
            double const whole = median_seconds(runs, [&] {
                dense_matrix<float> t(n, n);  // as mxm's own temporary: made each call
                kleene::mxm(t, a_op, b, S{});
                kleene::apply(c2, kleene::mask(m), kleene::no_accum,
                              kleene::with_absent(kleene::identity_op<float>{}, inf), t);
            });
            std::size_t bad = 0;
            for (std::size_t q = 0; q < n * n; ++q) bad += !(c.data()[q] == c2.data()[q]);
            fmt::print("{:>5}  min_plus fp32 {}, dense mask: {:<23} sampled {:9.2f} ms  whole "
                       "{:9.2f} ms ({:.2f}x)",
                       n, what, sh.name, sampled * 1e3, whole * 1e3, whole / sampled);
            if (opt.graphblas) {
                GrB_Matrix gb = to_graphblas(b, GrB_FP32);
                GrB_Matrix gm = to_graphblas(m, GrB_FP32), gc = nullptr;
                check(GrB_Matrix_new(&gc, GrB_FP32, n, n), "GrB_Matrix_new");
                double const t_grb = median_seconds(runs, [&] {
                    check(GrB_Matrix_clear(gc), "GrB_Matrix_clear");
                    check(GrB_mxm(gc, gm, nullptr, GrB_MIN_PLUS_SEMIRING_FP32, ga, gb, nullptr),
                          "GrB_mxm");
                    check(GrB_Matrix_wait(gc, GrB_MATERIALIZE), "GrB_Matrix_wait");
                });
                GrB_Index nvals = 0;
                check(GrB_Matrix_nvals(&nvals, gc), "GrB_Matrix_nvals");
                std::vector<GrB_Index> gi(nvals), gj(nvals);
                std::vector<float> const x = tuples<float>(gc, nvals, gi.data(), gj.data());
                std::size_t ours = 0;
                for (std::size_t q = 0; q < n * n; ++q) ours += !(c.data()[q] == inf);
                bad += ours != nvals;
                for (GrB_Index e = 0; e < nvals; ++e) bad += !(x[e] == c(gi[e], gj[e]));
                fmt::print("   SuiteSparse {:9.2f} ms ({:.2f}x kleene's sampled time)",
                           t_grb * 1e3, t_grb / sampled);
                GrB_Matrix_free(&gb);
                GrB_Matrix_free(&gm);
                GrB_Matrix_free(&gc);
            }
            fmt::print("   {}\n", bad == 0 ? std::string("results agree")
                                            : fmt::format("{} ENTRIES DIFFER", bad));
            wrong += bad;
        };
        GrB_Matrix ga = opt.graphblas ? to_graphblas(a, GrB_FP32) : nullptr;
        one("dense A (GEMM)", a, ga);
        if (ga) GrB_Matrix_free(&ga);
        kleene::graphblas::matrix const gcsr =
            opt.graphblas ? kleene::graphblas::to_grb(a_csr) : kleene::graphblas::matrix();
        one("CSR A of 32 a row (SpMM)", a_csr, gcsr.get());
    }
    return wrong;
}

template <kleene::semiring_type S>
void run_case(std::size_t n, char const* name, GrB_Type type, GrB_Semiring semiring,
              options const& opt, double rel) {
    using T = typename S::value_type;
    auto const a = random_matrix<T>(n, 1);
    auto const b = random_matrix<T>(n, 2);
    dense_matrix<T> c(n, n);
    int const runs = n >= 2048 ? std::min(opt.runs, 3) : opt.runs;
    double const updates = double(n) * double(n) * double(n);

    double const t_kleene = median_seconds(
        runs, [&] { kleene::cpu::dense_gemm<S>(a.view(), b.view(), c.view(), false); });
    fmt::print("{:>5}  {:<16} kleene {:9.2f} ms {:7.2f} G/s", n, name, t_kleene * 1e3,
               updates / t_kleene * 1e-9);
    if (!opt.graphblas) {
        fmt::print("\n");
        return;
    }

    GrB_Matrix ga = to_graphblas(a, type);
    GrB_Matrix gb = to_graphblas(b, type);
    GrB_Matrix gc = nullptr;
    check(GrB_Matrix_new(&gc, type, n, n), "GrB_Matrix_new");
    double const t_grb = median_seconds(runs, [&] {
        check(GrB_mxm(gc, nullptr, nullptr, semiring, ga, gb, nullptr), "GrB_mxm");
        check(GrB_Matrix_wait(gc, GrB_MATERIALIZE), "GrB_Matrix_wait");
    });
    std::size_t const bad = count_differences(gc, c, rel);
    fmt::print("   SuiteSparse {:9.2f} ms {:6.2f} G/s   speedup {:6.1f}x   {}\n", t_grb * 1e3,
               updates / t_grb * 1e-9, t_grb / t_kleene,
               bad == 0 ? std::string("results agree") : fmt::format("{} ENTRIES DIFFER", bad));
    GrB_Matrix_free(&ga);
    GrB_Matrix_free(&gb);
    GrB_Matrix_free(&gc);
    if (bad != 0) std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    options opt;
    for (int i = 1; i < argc; ++i) {
        std::string const arg = argv[i];
        if (arg == "--runs" && i + 1 < argc)
            opt.runs = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--no-graphblas")
            opt.graphblas = false;
        else if (arg == "--masked")
            opt.masked = true;
        else if (!arg.empty() && std::isdigit(static_cast<unsigned char>(arg[0])))
            opt.sizes.push_back(std::stoul(arg));
        else {
            fmt::print(stderr, "usage: {} [n ...] [--runs R] [--no-graphblas] [--masked]\n",
                       argv[0]);
            return 2;
        }
    }
    if (opt.sizes.empty()) opt.sizes = {1024};
    kleene::graphblas::ensure_initialized();
    int threads = 0;
    GxB_Global_Option_get(GxB_GLOBAL_NTHREADS, &threads);
    fmt::print("dense x dense semiring GEMM, median of {} runs after a warm-up; {} threads; {}\n",
               opt.runs, threads, kleene::graphblas::library_version());
    if (opt.masked) {
        std::size_t wrong = 0;
        for (std::size_t n : opt.sizes) wrong += run_masked(n, opt);
        return wrong ? 1 : 0;
    }
    for (std::size_t n : opt.sizes) {
        run_case<kleene::min_plus<float>>(n, "min_plus fp32", GrB_FP32, GrB_MIN_PLUS_SEMIRING_FP32,
                                          opt, 0);
        run_case<kleene::min_plus<double>>(n, "min_plus fp64", GrB_FP64, GrB_MIN_PLUS_SEMIRING_FP64,
                                           opt, 0);
        run_case<kleene::min_plus<std::int32_t>>(n, "min_plus int32", GrB_INT32,
                                                 GrB_MIN_PLUS_SEMIRING_INT32, opt, 0);
        run_case<kleene::plus_times<float>>(n, "plus_times fp32", GrB_FP32,
                                            GrB_PLUS_TIMES_SEMIRING_FP32, opt, 1e-4);
    }
}

// kleene's CPU products against SuiteSparse:GraphBLAS, in one process, on the same inputs: sparse
// x sparse mxm (C = A*A) on a uniform random matrix and an R-MAT power-law matrix, dense x dense
// min_plus, and CSR x dense vector mxv. Each timing is the median of --runs runs after one warm-up;
// the two results are compared entry by entry before anything is printed.
//
//   bench_cpu_vs_graphblas [--threads N] [--runs R] [--n N] [--per-row K] [--scale S]
//                          [--edge-factor E] [--dense-n N]

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/kleene.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "timing.hpp"

using namespace kleene;
using kleene::bench::median_ms;
namespace grb = kleene::graphblas;

namespace {

struct config {
    int threads = omp_get_max_threads();
    int runs = 5;
    std::size_t n = 100000;        // uniform matrix: n x n
    std::size_t per_row = 10;      // uniform matrix: entries per row
    int scale = 16;                // R-MAT: 2^scale vertices
    std::size_t edge_factor = 16;  // R-MAT: edges = edge_factor * 2^scale (before deduplication)
    std::size_t dense_n = 1024;
};


csr_matrix<double> uniform_matrix(std::size_t n, std::size_t per_row, std::mt19937_64& g) {
    std::vector<std::int32_t> ii, jj;
    std::vector<double> vv;
    std::uniform_int_distribution<std::int32_t> col(0, static_cast<std::int32_t>(n - 1));
    std::uniform_real_distribution<double> val(0.5, 4);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t e = 0; e < per_row; ++e) {
            ii.push_back(static_cast<std::int32_t>(i));
            jj.push_back(col(g));
            vv.push_back(val(g));
        }
    return csr_matrix<double>::from_coo(n, n, ii, jj, vv, duplicate_policy::last);
}

/// R-MAT (Chakrabarti et al.): each edge picks a quadrant with probabilities a, b, c, d at every
/// level, giving a power-law degree distribution. Duplicates are merged.
csr_matrix<double> rmat_matrix(int scale, std::size_t edges, std::mt19937_64& g) {
    // Milder than Graph500's 0.57/0.19/0.19: squaring that at 1M entries takes minutes on 2 cores.
    double const a = 0.5, b = 0.2, c = 0.2;
    std::size_t const n = std::size_t(1) << scale;
    std::vector<std::int32_t> ii, jj;
    std::vector<double> vv;
    std::uniform_real_distribution<double> u(0, 1), val(0.5, 4);
    for (std::size_t e = 0; e < edges; ++e) {
        std::int32_t i = 0, j = 0;
        for (int l = 0; l < scale; ++l) {
            double const r = u(g);
            i = 2 * i + (r >= a + b);
            j = 2 * j + ((r >= a && r < a + b) || r >= a + b + c);
        }
        ii.push_back(i);
        jj.push_back(j);
        vv.push_back(val(g));
    }
    return csr_matrix<double>::from_coo(n, n, ii, jj, vv, duplicate_policy::last);
}

template <class T>
csr_matrix<T> cast(csr_matrix<double> const& a) {
    buffer<T> v(a.nnz());
    for (std::size_t k = 0; k < a.nnz(); ++k) v[k] = static_cast<T>(a.value(k));
    return {a.rows(), a.cols(), a.row_ptr_storage(), a.col_idx_storage(), std::move(v), T(1), true};
}

/// Multiply-adds of A*A (the work of Gustavson's algorithm).
std::int64_t square_flops(csr_matrix<double> const& a) {
    std::int64_t f = 0;
    for (std::size_t k = 0; k < a.nnz(); ++k) {
        auto const j = static_cast<std::size_t>(a.col_idx()[k]);
        f += static_cast<std::int64_t>(a.row_end(j) - a.row_begin(j));
    }
    return f;
}

struct row {
    std::string op;
    double kleene_ms, grb_ms;
    std::string agree;
};

void require(grb::comparison const& r, std::string const& what) {
    if (!r.ok()) {
        fmt::print(stderr, "{}: kleene and SuiteSparse disagree: {}\n", what, r.summary());
        std::exit(1);
    }
}

template <class S>
row bench_mxm(std::string const& name, csr_matrix<typename S::value_type> const& a, int runs) {
    using T = typename S::value_type;
    double const tol = S::idempotent_add ? 0.0 : 1e-9;
    csr_matrix<T> c(a.rows(), a.cols());
    double const k = median_ms(runs, [&] { mxm(c, a, a, S{}); });
    grb::matrix const ga = grb::to_grb(a);
    grb::matrix gc(grb::grb_type<T>(), a.rows(), a.cols());
    double const s = median_ms(runs, [&] {
        grb::check(GrB_mxm(gc.get(), nullptr, nullptr, grb::grb_semiring<S>(), ga.get(), ga.get(),
                           nullptr),
                   "GrB_mxm");
        gc.wait();
    });
    require(grb::compare(c, grb::csr_from_grb<T>(gc.get()), tol), name);
    return {name + fmt::format(" ({} entries out)", c.nnz()), k, s, "yes"};
}

template <class S>
row bench_mxv(std::string const& name, csr_matrix<typename S::value_type> const& a, int runs) {
    using T = typename S::value_type;
    double const tol = S::idempotent_add ? 0.0 : 1e-9;
    std::mt19937_64 g(7);
    dense_vector<T> u(a.cols());
    for (auto& x : u) x = grb::random_value<T>(g);
    dense_vector<T> w(a.rows());
    double const k = median_ms(runs, [&] { mxv(w, a, u, S{}); });
    grb::matrix const ga = grb::to_grb(a);
    grb::vector const gu = grb::to_grb_full(u);
    grb::vector gw(grb::grb_type<T>(), a.rows());
    double const s = median_ms(runs, [&] {
        grb::check(GrB_mxv(gw.get(), nullptr, nullptr, grb::grb_semiring<S>(), ga.get(), gu.get(),
                           nullptr),
                   "GrB_mxv");
        gw.wait();
    });
    require(grb::compare(w, grb::dense_from_grb<T>(gw.get(), S::zero()), tol), name);
    return {name, k, s, "yes"};
}

row bench_dense(std::size_t n, int runs) {
    using S = min_plus<float>;
    std::mt19937_64 g(9);
    dense_matrix<float> a(n, n), b(n, n), c(n, n);
    for (std::size_t x = 0; x < n * n; ++x) {
        a.data()[x] = grb::random_value<float>(g);
        b.data()[x] = grb::random_value<float>(g);
    }
    double const k = median_ms(runs, [&] { mxm(c, a, b, S{}); });
    grb::matrix const ga = grb::to_grb_full(a), gb = grb::to_grb_full(b);
    grb::matrix gc(grb::grb_type<float>(), n, n);
    double const s = median_ms(runs, [&] {
        grb::check(GrB_mxm(gc.get(), nullptr, nullptr, grb::grb_semiring<S>(), ga.get(), gb.get(),
                           nullptr),
                   "GrB_mxm");
        gc.wait();
    });
    std::string const name = fmt::format("mxm min_plus<float> dense {0}x{0} x dense", n);
    require(grb::compare(c, grb::dense_from_grb<float>(gc.get(), S::zero())), name);
    return {name, k, s, "yes"};
}

}  // namespace

int main(int argc, char** argv) {
    config cfg;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string_view const opt = argv[i];
        long const v = std::strtol(argv[i + 1], nullptr, 10);
        if (opt == "--threads")
            cfg.threads = int(v);
        else if (opt == "--runs")
            cfg.runs = int(v);
        else if (opt == "--n")
            cfg.n = std::size_t(v);
        else if (opt == "--per-row")
            cfg.per_row = std::size_t(v);
        else if (opt == "--scale")
            cfg.scale = int(v);
        else if (opt == "--edge-factor")
            cfg.edge_factor = std::size_t(v);
        else if (opt == "--dense-n")
            cfg.dense_n = std::size_t(v);
        else {
            fmt::print(stderr, "unknown option {}\n", opt);
            return 2;
        }
    }
    omp_set_num_threads(cfg.threads);
    grb::ensure_initialized();
    grb::check(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, cfg.threads), "GxB_Global_Option_set");

    std::mt19937_64 g(2026);
    auto const uni = uniform_matrix(cfg.n, cfg.per_row, g);
    auto const rmat = rmat_matrix(cfg.scale, cfg.edge_factor << cfg.scale, g);
    fmt::print("{}, {} threads, median of {} runs after a warm-up\n", grb::library_version(),
               cfg.threads, cfg.runs);
    fmt::print(
        "uniform: {0}x{0}, {1} entries, A*A {2} multiply-adds; R-MAT: scale {3} ({4}x{4}), {5} "
        "entries, A*A {6} multiply-adds\n\n",
        uni.rows(), uni.nnz(), square_flops(uni), cfg.scale, rmat.rows(), rmat.nnz(),
        square_flops(rmat));
    fmt::print(
        "| operation | kleene ms | SuiteSparse ms | kleene / SuiteSparse | results agree |\n");
    fmt::print("|---|---:|---:|---:|---|\n");
    std::fflush(stdout);

    struct printer {
        void push_back(row const& r) const {
            fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} | {} |\n", r.op, r.kleene_ms, r.grb_ms,
                       r.kleene_ms / r.grb_ms, r.agree);
            std::fflush(stdout);
        }
    } rows;
    rows.push_back(
        bench_mxm<plus_times<double>>("mxm plus_times<double> uniform A*A", uni, cfg.runs));
    rows.push_back(bench_mxm<min_plus<double>>("mxm min_plus<double> uniform A*A", uni, cfg.runs));
    rows.push_back(
        bench_mxm<plus_times<double>>("mxm plus_times<double> R-MAT A*A", rmat, cfg.runs));
    rows.push_back(bench_mxm<min_plus<double>>("mxm min_plus<double> R-MAT A*A", rmat, cfg.runs));
    rows.push_back(bench_dense(cfg.dense_n, cfg.runs));
    rows.push_back(
        bench_mxv<plus_times<double>>("mxv plus_times<double> uniform x dense u", uni, cfg.runs));
    rows.push_back(
        bench_mxv<min_plus<double>>("mxv min_plus<double> uniform x dense u", uni, cfg.runs));
    rows.push_back(
        bench_mxv<plus_times<double>>("mxv plus_times<double> R-MAT x dense u", rmat, cfg.runs));
    rows.push_back(
        bench_mxv<min_plus<double>>("mxv min_plus<double> R-MAT x dense u", rmat, cfg.runs));
    auto const rmat_f = cast<float>(rmat);
    rows.push_back(bench_mxm<min_plus<float>>("mxm min_plus<float> R-MAT A*A", rmat_f, cfg.runs));
    return 0;
}

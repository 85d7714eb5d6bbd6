// ewise_add, apply, reduce and transpose: kleene against SuiteSparse:GraphBLAS in the same
// process on the same inputs (random CSR, double, about 1M entries). Times are the best of
// several repetitions, GraphBLAS's pending work finished (GrB_wait) inside the timed region.
//
//   bench_ops_vs_graphblas [rows] [entries per row] [repetitions]

#include <kleene/graphblas/c_api.hpp>
#include <kleene/graphblas/graphblas.hpp>
#include <kleene/kleene.hpp>

#include "timing.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using namespace kleene;
namespace grb = kleene::graphblas;

csr_matrix<double> random_matrix(std::size_t n, std::size_t per_row, std::uint32_t seed) {
    std::mt19937 g(seed);
    std::uniform_int_distribution<std::int32_t> col(0, std::int32_t(n) - 1);
    std::uniform_real_distribution<double> val(-1, 1);
    std::vector<std::int32_t> ii, jj;
    std::vector<double> vv;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < per_row; ++k) {
            ii.push_back(std::int32_t(i));
            jj.push_back(col(g));
            vv.push_back(val(g));
        }
    return csr_matrix<double>::from_coo(n, n, ii, jj, vv, duplicate_policy::last);
}

using bench::best_ms;

void check(GrB_Info info, char const* what) {
    grb::check(int(info), what);
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t const n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    std::size_t const per_row = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10;
    int const reps = argc > 3 ? std::atoi(argv[3]) : 10;
    grb::ensure_initialized();
    auto const a = random_matrix(n, per_row, 1);
    auto const b = random_matrix(n, per_row, 2);
    grb::matrix const ga = grb::to_grb(a), gb = grb::to_grb(b);
    ga.wait();
    gb.wait();
    fmt::print("{}x{} double, A {} entries, B {} entries, {} threads, {}, best of {}\n\n", n, n,
               a.nnz(), b.nnz(), omp_get_max_threads(), grb::library_version(), reps);
    fmt::print("| operation | kleene ms | SuiteSparse ms | ratio kleene/SuiteSparse |\n");
    fmt::print("|---|---:|---:|---:|\n");
    auto row = [](char const* name, double k, double s) {
        fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} |\n", name, k, s, k / s);
    };

    {  // C = A + B
        csr_matrix<double> c(n, n);
        double const k = best_ms(reps, [&] { ewise_add(c, plus_op<double>{}, a, b); });
        double const s = best_ms(reps, [&] {
            grb::matrix gc(GrB_FP64, n, n);
            check(GrB_Matrix_eWiseAdd_BinaryOp(gc.get(), nullptr, nullptr, GrB_PLUS_FP64, ga.get(),
                                               gb.get(), nullptr),
                  "GrB_eWiseAdd");
            gc.wait();
        });
        row("ewise_add (plus), A + B", k, s);
    }
    {  // C = -A
        csr_matrix<double> c(n, n);
        double const k = best_ms(reps, [&] { apply(c, ainv_op<double>{}, a); });
        double const s = best_ms(reps, [&] {
            grb::matrix gc(GrB_FP64, n, n);
            check(GrB_Matrix_apply(gc.get(), nullptr, nullptr, GrB_AINV_FP64, ga.get(), nullptr),
                  "GrB_apply");
            gc.wait();
        });
        row("apply (ainv), -A", k, s);
        double const k2 = best_ms(reps, [&] { apply(c, bind_second(times_op<double>{}, 2.0), a); });
        double const s2 = best_ms(reps, [&] {
            grb::matrix gc(GrB_FP64, n, n);
            check(GrB_Matrix_apply_BinaryOp2nd_FP64(gc.get(), nullptr, nullptr, GrB_TIMES_FP64,
                                                    ga.get(), 2.0, nullptr),
                  "GrB_apply");
            gc.wait();
        });
        row("apply (times, bound 2.0), A * 2", k2, s2);
    }
    {  // w = row sums of A; s = sum of A
        dense_vector<double> w(n, 0.0);
        double const k = best_ms(reps, [&] { reduce(w, plus_monoid<double>{}, a); });
        double const s = best_ms(reps, [&] {
            grb::vector gw(GrB_FP64, n);
            check(GrB_Matrix_reduce_Monoid(gw.get(), nullptr, nullptr, GrB_PLUS_MONOID_FP64,
                                           ga.get(), nullptr),
                  "GrB_reduce");
            gw.wait();
        });
        row("reduce rows (plus) to a vector", k, s);
        double sum = 0, gsum = 0;
        double const k2 = best_ms(reps, [&] { sum = reduce(plus_monoid<double>{}, a); });
        double const s2 = best_ms(reps, [&] {
            check(GrB_Matrix_reduce_FP64(&gsum, nullptr, GrB_PLUS_MONOID_FP64, ga.get(), nullptr),
                  "GrB_reduce");
        });
        row("reduce all (plus) to a scalar", k2, s2);
        if (std::abs(sum - gsum) > 1e-6 * (1 + std::abs(gsum))) {
            fmt::print("scalar sums differ: {} vs {}\n", sum, gsum);
            return 1;
        }
    }
    {  // C = A'
        csr_matrix<double> c(n, n);
        double const k = best_ms(reps, [&] { transpose(c, a); });
        double const s = best_ms(reps, [&] {
            grb::matrix gc(GrB_FP64, n, n);
            check(GrB_transpose(gc.get(), nullptr, nullptr, ga.get(), nullptr), "GrB_transpose");
            gc.wait();
        });
        row("transpose, A'", k, s);
        // The result is checked once, outside the timings.
        grb::matrix gc(GrB_FP64, n, n);
        check(GrB_transpose(gc.get(), nullptr, nullptr, ga.get(), nullptr), "GrB_transpose");
        if (!grb::compare(c, grb::csr_from_grb<double>(gc.get())).ok()) {
            fmt::print("transpose results differ\n");
            return 1;
        }
    }
    return 0;
}

// Triangles through the public masked mxm (issue "The second floor", item 5, CPU side): LAGraph's
// Sandia L.U' method, C<L> = L (+.pair) U' with L's structure as the mask, then the sum of C,
// on a Kronecker graph. Beside it, on the same matrices and threads:
//   - kleene's mxm with the mask (automatic: masked dot products or masked Gustavson, by the cost
//     model the explain trace shows), and each pinned;
//   - the old way: the whole product L (+.pair) U' unmasked, then merged through L (ewise_mult);
//   - SuiteSparse:GraphBLAS's masked mxm (GrB_mxm, structural mask, U transposed by the
//     descriptor), then GrB_reduce;
//   - kleene's dedicated triangle_count.
// Every count is checked against triangle_count. Times: best of R, in ms.
//
//   bench_masked_tc [--scale S] [--edge-factor E] [--runs R] [--threads N] [--no-unmasked]

#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/triangles.hpp>
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
#include <string>
#include <vector>

namespace {

using namespace kleene;
namespace grb = kleene::graphblas;
using Index = std::int32_t;

using bench::best_ms;

void check(GrB_Info info, char const* what) { grb::check(int(info), what); }

}  // namespace

int main(int argc, char** argv) {
    int scale = 16, runs = 3, threads = 0;
    double edge_factor = 16;
    bool unmasked = true;
    for (int i = 1; i < argc; ++i) {
        std::string const o = argv[i];
        auto next = [&] {
            if (i + 1 >= argc) {
                fmt::print(stderr, "{} needs a value\n", o);
                std::exit(1);
            }
            return argv[++i];
        };
        if (o == "--scale") scale = std::atoi(next());
        else if (o == "--edge-factor") edge_factor = std::atof(next());
        else if (o == "--runs") runs = std::max(1, std::atoi(next()));
        else if (o == "--threads") threads = std::atoi(next());
        else if (o == "--no-unmasked") unmasked = false;
        else {
            fmt::print(stderr, "unknown option {}\n", o);
            return 1;
        }
    }
    if (scale < 1 || scale > 30) {
        fmt::print(stderr, "--scale must be in [1, 30]\n");
        return 1;
    }
    if (threads > 0) omp_set_num_threads(threads);
    grb::ensure_initialized();

    kronecker_options ko;
    ko.scale = scale;
    ko.edge_factor = edge_factor;
    ko.undirected = true;
    ko.weights = weight_range::integers(1, 1);
    auto const a = kronecker_graph<double, Index>(ko);
    csr_matrix<double, Index> l(a.rows(), a.cols()), u(a.rows(), a.cols());
    select(l, no_mask, no_accum, tril{-1}, a);  // strictly below the diagonal
    select(u, no_mask, no_accum, triu{1}, a);
    fmt::print("Kronecker scale {} (edge factor {}): {} vertices, {} entries; L {} entries; "
               "{} threads; {}; best of {}\n\n",
               scale, edge_factor, a.rows(), a.nnz(), l.nnz(), omp_get_max_threads(),
               grb::library_version(), runs);

    tc_options to;
    to.device = device_choice::cpu;
    to.symmetric = true;
    std::uint64_t want = 0;
    double const t_tc = best_ms(runs, [&] { want = triangle_count(a, to).triangles; });

    int failures = 0;
    fmt::print("| method | ms | triangles | kernel |\n|---|---:|---:|---|\n");
    auto row = [&](char const* what, double ms, double count, std::string const& how) {
        bool const ok = count == static_cast<double>(want);
        failures += !ok;
        fmt::print("| {} | {:.1f} | {:.0f}{} | {} |\n", what, ms, count, ok ? "" : " WRONG", how);
    };
    row("kleene triangle_count (dedicated)", t_tc, static_cast<double>(want), "fused");

    plus_pair<double> const s;
    auto masked = [&](kernel_choice k, char const* what) {
        csr_matrix<double, Index> c(l.rows(), l.cols());
        double count = 0;
        options o;
        o.kernel = k;
        double const ms = best_ms(runs, [&] {
            mxm(c, structure(l), no_accum, l, transpose(u), s, o);
            count = reduce(plus_monoid<double>{}, c);
        });
        explain_trace why;
        o.explain = &why;
        mxm(c, structure(l), no_accum, l, transpose(u), s, o);
        // The cost model's line where there is one, else the kernel's.
        std::string how = why.lines.empty() ? std::string("?") : why.lines.back();
        for (auto const& line : why.lines)
            if (line.find("masked_dot") != std::string::npos) how = line;
        if (auto const p = how.find(": masked_dot"); p != std::string::npos) how = how.substr(p + 2);
        else if (auto const q = how.find(": gustavson"); q != std::string::npos) how = how.substr(q + 2);
        if (how.size() > 110) how = how.substr(0, 110) + "...";
        row(what, ms, count, how);
    };
    masked(kernel_choice::automatic, "kleene mxm C<L> = L +.pair U', automatic");
    masked(kernel_choice::masked_dot, "kleene mxm, masked dot pinned");
    masked(kernel_choice::gustavson_dense, "kleene mxm, masked Gustavson pinned");

    if (unmasked) {
        csr_matrix<double, Index> t(l.rows(), l.cols()), c(l.rows(), l.cols());
        double count = 0;
        double const ms = best_ms(runs, [&] {
            mxm(t, l, transpose(u), s);
            ewise_mult(c, first_op<double>{}, t, l);
            count = reduce(plus_monoid<double>{}, c);
        });
        row("kleene, the whole product then merged through L (old)", ms, count,
            std::to_string(t.nnz()) + " entries in the whole product");
    }

    {
        grb::matrix const gl = grb::to_grb(l), gu = grb::to_grb(u);
        gl.wait();
        gu.wait();
        double count = 0;
        double const ms = best_ms(runs, [&] {
            grb::matrix gc(GrB_FP64, l.rows(), l.cols());
            check(GrB_mxm(gc.get(), gl.get(), nullptr, GxB_PLUS_PAIR_FP64, gl.get(), gu.get(),
                          GrB_DESC_ST1),
                  "GrB_mxm");
            check(GrB_Matrix_reduce_FP64(&count, nullptr, GrB_PLUS_MONOID_FP64, gc.get(), nullptr),
                  "GrB_reduce");
        });
        row("SuiteSparse GrB_mxm C<L> = L +.pair U', then reduce", ms, count,
            "GrB_DESC_ST1 (structural mask, U transposed)");
    }
    return failures ? 1 : 0;
}

// Triangles through the public masked mxm (issue "The second floor", item 5): LAGraph's Sandia
// L.U' method, C<L> = L (+.pair) U' with L's structure as the mask, then the sum of C, on a
// Kronecker graph. Every count is checked against triangle_count. Times: best of R, in ms.
//
// On the CPU (the default), on the same matrices and threads:
//   - kleene's mxm with the mask (automatic: masked dot products or masked Gustavson, by the cost
//     model the explain trace shows), and each pinned;
//   - the old way: the whole product L (+.pair) U' unmasked, then merged through L (ewise_mult);
//   - SuiteSparse:GraphBLAS's masked mxm (GrB_mxm, structural mask, U transposed by the
//     descriptor), then GrB_reduce;
//   - kleene's dedicated triangle_count.
// With --device gpu, on device containers (each call returns with its work done; times are the
// host's clock around the call and the reduce):
//   - kleene's mxm C<L> = L (+.pair) transpose(U) automatic (the device cost model, in the trace)
//     and with the masked dot products pinned, and the masked Gustavson pinned (gustavson_hash:
//     U' made on the device, then each row's products looked up in its mask row);
//   - the old path: U' made on the device, the whole product (SpGEMM, unmasked), then applied
//     through L's structure;
//   - the dedicated GPU triangle count (triangle_count on the device graph: its own choice of
//     relabelling, and the original numbering, which the mxm rows keep);
//   - with --relabel, the mxm rows again on the graph renumbered by increasing degree (LAGraph's
//     presort for L.U'; the renumbering, on the host, is not timed); with --relabel-decreasing,
//     by decreasing degree: L then keeps each vertex's neighbours of higher degree, the lists the
//     dedicated kernel intersects (its U on its increasing numbering), so the masked dot products
//     do its intersections (LAGraph sorts that way for U.L', the mirror image of L.U').
// plus_pair has no device instance in a KLEENE_INSTANCES=minimal build: there the GPU rows use
// plus_times over L's values, all one (the same counts), and say so.
//
//   bench_masked_tc [--scale S] [--edge-factor E] [--runs R] [--threads N] [--no-unmasked]
//                   [--device cpu|gpu] [--relabel] [--relabel-decreasing]
//                   [--rows tc,auto,dot,gustavson,graphblas]
//
// --relabel on the CPU: every row again on the graph renumbered by increasing degree (SuiteSparse
// on the same renumbered matrices); --relabel-decreasing the same by decreasing degree. --rows (CPU): only the rows named (all by default; the
// triangle count is run once regardless, for the count every row is checked against).

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
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace kleene;
namespace grb = kleene::graphblas;
using Index = std::int32_t;

using bench::best_ms;

void check(GrB_Info info, char const* what) { grb::check(int(info), what); }

/// The line of an explain trace that names `what` (the last one), else its last line, cut short.
std::string trace_line(explain_trace const& why, char const* what) {
    std::string how = why.lines.empty() ? std::string("?") : why.lines.back();
    for (auto const& line : why.lines)
        if (line.find(what) != std::string::npos) how = line;
    if (auto const p = how.find(": cuda "); p != std::string::npos) how = how.substr(p + 2);
    else if (auto const q = how.find(what); q != std::string::npos) how = how.substr(q);
    if (how.size() > 160) how = how.substr(0, 160) + "...";
    return how;
}

/// A with its vertices renumbered by increasing degree, or decreasing (ties by number either
/// way), on the host.
csr_matrix<double, Index> by_degree(csr_matrix<double, Index> const& a, bool decreasing = false) {
    std::size_t const n = a.rows();
    std::vector<Index> order(n), id(n);
    std::iota(order.begin(), order.end(), Index(0));
    std::stable_sort(order.begin(), order.end(), [&](Index x, Index y) {
        auto const dx = a.row_end(std::size_t(x)) - a.row_begin(std::size_t(x));
        auto const dy = a.row_end(std::size_t(y)) - a.row_begin(std::size_t(y));
        return decreasing ? dx > dy : dx < dy;
    });
    for (std::size_t r = 0; r < n; ++r) id[std::size_t(order[r])] = Index(r);
    std::vector<Index> ii(a.nnz()), jj(a.nnz());
    std::vector<double> vv(a.nnz());
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            ii[k] = id[i];
            jj[k] = id[std::size_t(a.col_idx()[k])];
            vv[k] = a.value(k);
        }
    return csr_matrix<double, Index>::from_coo(n, n, ii, jj, vv);
}

/// The GPU rows (--device gpu): S is plus_pair, or plus_times where this build has no device
/// plus_pair (L's values are all one, so the counts agree).
template <class S>
int gpu_rows(csr_matrix<double, Index> const& a, csr_matrix<double, Index> const& l,
             csr_matrix<double, Index> const& u, int runs, bool unmasked, bool relabel,
             bool relabel_decreasing) {
    int failures = 0;
    auto const ad = a.to_device();
    tc_options to;
    to.device = device_choice::gpu;
    to.symmetric = true;
    std::uint64_t want = 0;
    explain_trace tc_why;
    to.explain = &tc_why;
    double const t_tc = best_ms(runs, [&] { want = triangle_count(ad, to).triangles; });
    std::string const tc_how = trace_line(tc_why, "relabel");
    to.relabel = tc_relabel::never;
    std::uint64_t plain = 0;
    double const t_plain = best_ms(runs, [&] { plain = triangle_count(ad, to).triangles; });

    fmt::print("| method | ms | triangles | kernel |\n|---|---:|---:|---|\n");
    auto row = [&](std::string const& what, double ms, double count, std::string const& how) {
        bool const ok = count == static_cast<double>(want);
        failures += !ok;
        fmt::print("| {} | {:.2f} | {:.0f}{} | {} |\n", what, ms, count, ok ? "" : " WRONG", how);
    };
    row("kleene triangle_count on the GPU (dedicated)", t_tc, double(want), tc_how);
    row("kleene triangle_count on the GPU, original numbering", t_plain, double(plain),
        "tc_relabel::never (the numbering the mxm rows below use)");

    auto masked_rows = [&](csr_matrix<double, Index> const& l, csr_matrix<double, Index> const& u,
                           std::string const& graph) {
        auto const ld = l.to_device(), ud = u.to_device();
        auto masked = [&](kernel_choice k, std::string const& what) {
            double count = 0;
            options o;
            o.kernel = k;
            double const ms = best_ms(runs, [&] {
                csr_matrix<double, Index, device> c(l.rows(), l.cols());
                mxm(c, structure(ld), no_accum, ld, transpose(ud), S{}, o);
                count = reduce(plus_monoid<double>{}, c);
            });
            explain_trace why;
            o.explain = &why;
            csr_matrix<double, Index, device> c(l.rows(), l.cols());
            mxm(c, structure(ld), no_accum, ld, transpose(ud), S{}, o);
            std::string how =
                trace_line(why, k == kernel_choice::gustavson_hash ? "masked_saxpy" : "masked_dot");
            // Automatic: the model's numbers too, where the dot products were taken.
            if (k == kernel_choice::automatic)
                for (auto const& line : why.lines)
                    if (line.find("not taken") != std::string::npos)
                        how = line.substr(line.find("masked_dot"));
            row(what + graph, ms, count, how);
        };
        // A row that cannot run (a product past the index type) says so; the others go on.
        for (auto [k, what] :
             {std::pair{kernel_choice::automatic,
                        "kleene mxm C<L> = L (+.pair) U' on the GPU, automatic"},
              std::pair{kernel_choice::masked_dot, "kleene mxm, masked dot pinned"},
              std::pair{kernel_choice::gustavson_hash,
                        "kleene mxm, masked Gustavson pinned (U' made on the device)"}}) {
            try {
                masked(k, what);
            } catch (std::exception const& e) {
                fmt::print("| {}{} | - | - | did not run: {} |\n", what, graph, e.what());
            }
        }
        if (!unmasked) return;
        // The old path: U' on the device, the whole product, then the masked merge through L.
        double count = 0;
        explain_trace why;
        try {
            double const ms = best_ms(runs, [&] {
                csr_matrix<double, Index, device> ut(u.cols(), u.rows()), t(l.rows(), l.cols()),
                    c(l.rows(), l.cols());
                transpose(ut, ud);
                options o;
                why.lines.clear();
                o.explain = &why;
                mxm(t, ld, ut, S{}, o);  // unmasked (a masked mxm would take the masked Gustavson)
                apply(c, structure(ld), no_accum, identity_op<double>{}, t, o);
                count = reduce(plus_monoid<double>{}, c);
            });
            row("kleene, U' made, the whole product, then merged through L (old)" + graph, ms,
                count, trace_line(why, "spgemm"));
        } catch (std::exception const& e) {
            fmt::print("| kleene, the whole product then merged (old){} | - | - | did not run: {} "
                       "|\n",
                       graph, e.what());
        }
    };
    masked_rows(l, u, "");
    for (bool const decreasing : {false, true}) {
        if (!(decreasing ? relabel_decreasing : relabel)) continue;
        auto const r = by_degree(a, decreasing);
        csr_matrix<double, Index> rl(r.rows(), r.cols()), ru(r.rows(), r.cols());
        select(rl, no_mask, no_accum, tril{-1}, r);
        select(ru, no_mask, no_accum, triu{1}, r);
        masked_rows(rl, ru, decreasing ? ", graph renumbered by decreasing degree"
                                       : ", graph renumbered by degree");
    }
    return failures;
}

/// Which CPU rows to run (--rows; all by default).
struct cpu_row_set {
    bool tc = true, automatic = true, dot = true, gustavson = true, graphblas = true;
};

/// The CPU rows on one numbering of the graph: kleene's masked mxm (automatic, each kernel
/// pinned), the old unmasked path, SuiteSparse's GrB_mxm; each count checked against `want`.
/// Returns the number of wrong counts.
int cpu_rows(csr_matrix<double, Index> const& l, csr_matrix<double, Index> const& u, int runs,
             bool unmasked, cpu_row_set const& rows, std::uint64_t want,
             std::string const& graph) {
    int failures = 0;
    auto row = [&](std::string const& what, double ms, double count, std::string const& how) {
        bool const ok = count == static_cast<double>(want);
        failures += !ok;
        fmt::print("| {}{} | {:.1f} | {:.0f}{} | {} |\n", what, graph, ms, count,
                   ok ? "" : " WRONG", how);
    };
    plus_pair<double> const s;
    auto masked = [&](kernel_choice k, char const* what) {
        csr_matrix<double, Index> c(l.rows(), l.cols());
        double count = 0;
        options o;
        o.kernel = k;
        // The first run carries the trace (its lines cost nothing next to the product), so
        // that the row needs no run of its own for it.
        explain_trace why;
        bool first = true;
        double const ms = best_ms(runs, [&] {
            o.explain = first ? &why : nullptr;
            first = false;
            mxm(c, structure(l), no_accum, l, transpose(u), s, o);
            count = reduce(plus_monoid<double>{}, c);
        });
        // The cost model's line where there is one, else the kernel's.
        std::string how = why.lines.empty() ? std::string("?") : why.lines.back();
        for (auto const& line : why.lines)
            if (line.find("masked_dot") != std::string::npos) how = line;
        if (auto const p = how.find(": masked_dot"); p != std::string::npos) how = how.substr(p + 2);
        else if (auto const q = how.find(": gustavson"); q != std::string::npos) how = how.substr(q + 2);
        if (how.size() > 110) how = how.substr(0, 110) + "...";
        row(what, ms, count, how);
    };
    if (rows.automatic)
        masked(kernel_choice::automatic, "kleene mxm C<L> = L +.pair U', automatic");
    if (rows.dot) masked(kernel_choice::masked_dot, "kleene mxm, masked dot pinned");
    if (rows.gustavson)
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

    if (rows.graphblas) {
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
    return failures;
}

}  // namespace

int main(int argc, char** argv) {
    int scale = 16, runs = 3, threads = 0;
    double edge_factor = 16;
    bool unmasked = true, gpu = false, relabel = false, relabel_decreasing = false;
    cpu_row_set rows;
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
        else if (o == "--relabel") relabel = true;
        else if (o == "--relabel-decreasing") relabel_decreasing = true;
        else if (o == "--rows") {
            rows = cpu_row_set{false, false, false, false, false};
            std::string const list = std::string(next()) + ",";
            for (std::size_t b = 0, e; (e = list.find(',', b)) != std::string::npos; b = e + 1) {
                std::string const r = list.substr(b, e - b);
                if (r == "tc") rows.tc = true;
                else if (r == "auto") rows.automatic = true;
                else if (r == "dot") rows.dot = true;
                else if (r == "gustavson") rows.gustavson = true;
                else if (r == "graphblas") rows.graphblas = true;
                else {
                    fmt::print(stderr, "--rows takes tc,auto,dot,gustavson,graphblas, not {}\n", r);
                    return 1;
                }
            }
        }
        else if (o == "--device") {
            std::string const d = next();
            if (d != "cpu" && d != "gpu") {
                fmt::print(stderr, "--device takes cpu or gpu, not {}\n", d);
                return 1;
            }
            gpu = d == "gpu";
        } else {
            fmt::print(stderr, "unknown option {}\n", o);
            return 1;
        }
    }
    if (scale < 1 || scale > 30) {
        fmt::print(stderr, "--scale must be in [1, 30]\n");
        return 1;
    }
    if (threads > 0) omp_set_num_threads(threads);
    if (gpu && cuda::device_count() == 0) {
        fmt::print("bench_masked_tc --device gpu: no CUDA device, nothing measured\n");
        return 0;
    }
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

    if (gpu) {
        using pair = plus_pair<double>;
        constexpr bool have_pair = !cuda::sparse_left_out<pair, Index>;
        fmt::print("GPU: {}{}\n\n", cuda::device_description(cuda::current_device()),
                   have_pair ? ""
                             : "; plus_pair has no device instance in this build (KLEENE_INSTANCES="
                               KLEENE_INSTANCE_SET "): the mxm rows use plus_times over L's "
                               "values, all one (the same counts)");
        using S = std::conditional_t<have_pair, pair, plus_times<double>>;
        return gpu_rows<S>(a, l, u, runs, unmasked, relabel, relabel_decreasing) ? 1 : 0;
    }

    tc_options to;
    to.device = device_choice::cpu;
    to.symmetric = true;
    std::uint64_t want = 0;
    double t_tc = 0;
    if (rows.tc) t_tc = best_ms(runs, [&] { want = triangle_count(a, to).triangles; });
    else want = triangle_count(a, to).triangles;  // the count every row is checked against

    fmt::print("| method | ms | triangles | kernel |\n|---|---:|---:|---|\n");
    int failures = 0;
    if (rows.tc) {
        fmt::print("| {} | {:.1f} | {} | {} |\n", "kleene triangle_count (dedicated)", t_tc, want,
                   "fused");
    }
    failures += cpu_rows(l, u, runs, unmasked, rows, want, "");
    for (bool const decreasing : {false, true}) {
        if (!(decreasing ? relabel_decreasing : relabel)) continue;
        auto const r = by_degree(a, decreasing);
        csr_matrix<double, Index> rl(r.rows(), r.cols()), ru(r.rows(), r.cols());
        select(rl, no_mask, no_accum, tril{-1}, r);
        select(ru, no_mask, no_accum, triu{1}, r);
        failures += cpu_rows(rl, ru, runs, unmasked, rows, want,
                             decreasing ? ", graph renumbered by decreasing degree"
                                        : ", graph renumbered by degree");
    }
    return failures ? 1 : 0;
}

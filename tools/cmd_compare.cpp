// `kleene compare mxm A B --semiring NAME [--type T]`: the same product through kleene and through
// SuiteSparse:GraphBLAS, compared entry by entry (structure and values). Exit 0 when they agree,
// 1 when they differ or the input is invalid.

#include "commands.hpp"
#include "progress.hpp"
#include "semiring_dispatch.hpp"

#include <kleene/graphblas/compare.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/ops.hpp>
#include <kleene/graphblas/traits.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/kleene.hpp>

#include <fmt/core.h>

#include <chrono>
#include <memory>
#include <string>

namespace kleene::tools {
namespace {

struct compare_args {
    std::string a, b, semiring = "plus_times", type;
    double rel_tol = -1;  // < 0: exact for min/max semirings, 1e-6 (fp32) / 1e-12 (fp64) for plus
};

double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_compare(compare_args const& args, global_options const& g) {
    std::string type = args.type;
    if (type.empty()) {
        auto const h = io::read_matrix_market_header(args.a);
        type = h.field == io::mm_field::integer || h.field == io::mm_field::pattern ? "int64" : "fp64";
    }
    dispatch_semiring(args.semiring, type, [&](auto s) {
        using S = decltype(s);
        using T = typename S::value_type;
        if constexpr (!graphblas::has_grb_semiring<S>) {
            throw command_failed("SuiteSparse:GraphBLAS has no built-in " + args.semiring + " over " +
                                 type + ": nothing to compare with");
        } else {
            progress p(g.quiet || g.json);
            auto const a = in_phase(p, "reading " + args.a, [&] { return io::read_matrix_market<T>(args.a); });
            auto const b = in_phase(p, "reading " + args.b, [&] { return io::read_matrix_market<T>(args.b); });
            csr_matrix<T> mine(a.rows(), b.cols()), theirs(a.rows(), b.cols());
            auto t0 = std::chrono::steady_clock::now();
            in_phase(p, "kleene product", [&] { mxm(mine, a, b, s); });
            double const t_kleene = seconds(t0);
            graphblas::ensure_initialized();
            t0 = std::chrono::steady_clock::now();
            in_phase(p, "SuiteSparse:GraphBLAS product", [&] { graphblas::mxm(theirs, a, b, s); });
            double const t_grb = seconds(t0);
            double tol = args.rel_tol;
            if (tol < 0) {
                bool const exact = std::is_integral_v<T> || S::idempotent_add;
                tol = exact ? 0.0 : (sizeof(T) == 4 ? 1e-5 : 1e-12);
            }
            auto const cmp = in_phase(p, "comparing", [&] { return graphblas::compare(mine, theirs, tol); });
            p.done();
            if (g.json) {
                fmt::print(
                    "{{\"operation\": \"mxm\", \"semiring\": \"{}\", \"type\": \"{}\", \"rows\": {}, "
                    "\"cols\": {}, \"entries\": {}, \"compared\": {}, \"mismatches\": {}, "
                    "\"equal\": {}, \"kleene_ms\": {:.3f}, \"graphblas_ms\": {:.3f}}}\n",
                    args.semiring, type, mine.rows(), mine.cols(), mine.nnz(), cmp.compared,
                    cmp.mismatches, cmp.ok() ? "true" : "false", t_kleene * 1e3, t_grb * 1e3);
            } else if (!g.quiet) {
                fmt::print("kleene mxm {}.{}: {}x{}, {} entries, {:.3f} ms\n", args.semiring, type,
                           mine.rows(), mine.cols(), mine.nnz(), t_kleene * 1e3);
                fmt::print("{}: {} entries, {:.3f} ms\n", graphblas::library_version(), theirs.nnz(),
                           t_grb * 1e3);
                fmt::print("{}\n", cmp.ok() ? fmt::format("equal: {} entries compared (structure and "
                                                          "values, relative tolerance {})",
                                                          cmp.compared, tol)
                                            : "DIFFERENT: " + cmp.summary());
            }
            if (!cmp.ok()) throw command_failed("kleene and SuiteSparse:GraphBLAS differ: " + cmp.summary());
        }
    });
}

}  // namespace

void add_compare_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("compare", "run an operation in kleene and in SuiteSparse:GraphBLAS and compare");
    cmd->require_subcommand(1);
    auto* mxm_cmd = cmd->add_subcommand("mxm", "C = A (+).(x) B in both libraries");
    auto args = std::make_shared<compare_args>();
    mxm_cmd->add_option("A", args->a, "left operand (.mtx)")->required();
    mxm_cmd->add_option("B", args->b, "right operand (.mtx)")->required();
    mxm_cmd->add_option("-s,--semiring", args->semiring, "a built-in semiring SuiteSparse also has")
        ->capture_default_str();
    mxm_cmd->add_option("-t,--type", args->type, "fp32, fp64, int32, int64 or bool (default: from the file)");
    mxm_cmd->add_option("--rel-tol", args->rel_tol, "relative tolerance for values (default: exact for "
                                                    "integers and min/max semirings, 1e-5 fp32, 1e-12 fp64)");
    mxm_cmd->add_flag("--json", g.json, "one JSON object on stdout");
    mxm_cmd->add_flag("-q,--quiet", g.quiet, "no report; the exit code says it");
    mxm_cmd->callback([args, &g] { run_compare(*args, g); });
}

}  // namespace kleene::tools

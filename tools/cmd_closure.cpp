// `kleene closure FILE --output R.mtx [--reflexive] [--device D]`: the transitive closure (pairs
// joined by a path of one edge or more) as a pattern Matrix Market file.

#include "commands.hpp"
#include "files.hpp"
#include "progress.hpp"
#ifdef KLEENE_HAVE_MPI
#include "mpi/distributed.hpp"
#endif

#include <kleene/algorithms/closure.hpp>
#include <kleene/io/matrix_market.hpp>

#include <fmt/core.h>

#include <chrono>
#include <memory>
#include <string>

namespace kleene::tools {
namespace {

struct closure_args {
    std::string input, output, device = "auto";
    bool reflexive = false;
    bool explain = false;
    bool distributed = false, no_lookahead = false;
    std::string layout_dir;  // --distributed-output
    std::size_t block = 0;
    std::string local_blocks = "auto";
    double rank_timeout = 60;
    std::string inject_fault;
};

void run_closure(closure_args const& args, global_options const& g) {
#ifdef KLEENE_HAVE_MPI
    if (args.output.empty() == args.layout_dir.empty())
        throw usage_error("closure: name the output: -o FILE, or --distributed-output DIR under mpirun");
    if (g.mpi && (mpi_size(*g.mpi) > 1 || args.distributed || !args.layout_dir.empty())) {
        distributed_args d;
        d.input = args.input;
        d.output = args.output;
        d.layout_dir = args.layout_dir;
        d.device = args.device;
        d.block = args.block;
        d.lookahead = !args.no_lookahead;
        d.local_blocks = args.local_blocks;
        d.explain = args.explain;
        d.reflexive = args.reflexive;
        d.rank_timeout = args.rank_timeout;
        d.inject_fault = args.inject_fault;
        run_closure_distributed(d, g);
        return;
    }
#endif
    if (args.distributed || !args.layout_dir.empty() || args.local_blocks != "auto" ||
        !args.inject_fault.empty())
        throw usage_error(
            "closure: --distributed, --distributed-output, --local-blocks and --inject-fault need "
            "an MPI launcher (mpirun) and a build with MPI");
    io::read_options ro;
    ro.pattern_only = true;
    ro.duplicates = duplicate_policy::last;
    output_set outs(g.temps);
    outs.add(args.output);
    input const in(args.input);
    progress p(g.quiet);
    auto const a =
        in_phase(p, "reading " + in.name(), [&] { return in.matrix<std::uint8_t>(ro); });
    explain_trace trace;
    closure_options opt;
    opt.reflexive = args.reflexive;
    opt.device = parse_device(args.device);
    opt.explain = &trace;
    opt.ctx = &g.context();
    auto const t0 = std::chrono::steady_clock::now();
    auto const r = in_phase(p, "closure", [&] { return closure(a, opt); });
    double const secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
    io::write_options wo;
    wo.pattern = true;
    in_phase(p, "writing " + args.output, [&] {
        io::write_matrix_market(outs[0], r, wo);
        outs.commit();
    });
    if (!g.quiet && args.output != "-")
        fmt::print("closure: {} vertices, {} edges: {} pairs, {:.3f} ms ({})\n", a.rows(), a.nnz(),
                   r.nnz(), secs * 1e3, args.output);
}

}  // namespace

void add_closure_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("closure", "transitive closure (lor_land) of a graph");
    auto args = std::make_shared<closure_args>();
    cmd->add_option("FILE", args->input, "adjacency matrix (.mtx, - for stdin; values are ignored)")
        ->required();
    cmd->add_option("-o,--output", args->output, "closure (.mtx, pattern)")
        ->check(output_name());
    cmd->add_flag("--reflexive", args->reflexive, "also every (i, i)");
    cmd->add_option("--device", args->device, "auto, cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    cmd->add_flag("--explain", args->explain, "print the device choice on stderr");
    cmd->add_flag("--distributed", args->distributed,
                  "under mpirun: the distributed path also with one rank");
    cmd->add_option("--distributed-output", args->layout_dir,
                    "under mpirun: instead of -o, every rank writes its own blocks to the new "
                    "directory DIR (a manifest and one .kbin a rank; kleene convert DIR joins it)");
    cmd->add_option("--block", args->block, "distributed: block size of the 2D block-cyclic layout")
        ->check(CLI::Range(std::size_t(1), std::size_t(1) << 20));
    cmd->add_flag("--no-lookahead", args->no_lookahead,
                  "distributed: run the steps one after the other");
    add_local_blocks_option(cmd, args->local_blocks);
    add_fault_options(cmd, args->rank_timeout, args->inject_fault);
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
    cmd->callback([args, &g] { run_closure(*args, g); });
}

}  // namespace kleene::tools

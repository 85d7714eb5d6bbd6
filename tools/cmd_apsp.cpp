// `kleene apsp FILE --output D.mtx [--algorithm A] [--device D] [--type T] [--paths P.mtx]`: all-pairs
// shortest path distances of a weighted graph (pattern files: weight 1; symmetric files:
// undirected), written as a coordinate Matrix Market file without the unreachable pairs.

#include "commands.hpp"
#include "finite_weights.hpp"
#include "files.hpp"
#include "progress.hpp"
#ifdef KLEENE_HAVE_MPI
#include "mpi/distributed.hpp"
#endif

#include <kleene/algorithms/apsp.hpp>
#include <kleene/io/matrix_market.hpp>

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace kleene::tools {
namespace {

#ifdef KLEENE_HAVE_MPI
/// Whether two directory names mean the same place (trailing separators, '.', '..' and links).
bool same_path(std::string const& a, std::string const& b) {
    namespace fs = std::filesystem;
    auto norm = [](std::string const& p) {
        std::error_code ec;
        fs::path q = fs::weakly_canonical(fs::absolute(p, ec), ec);
        if (ec) q = fs::path(p).lexically_normal();
        while (!q.has_filename() && q.has_relative_path()) q = q.parent_path();
        return q;
    };
    return norm(a) == norm(b);
}
#endif

struct apsp_args {
    std::string input, output, paths, algorithm = "auto", device = "auto", type;
    bool explain = false;
    bool distributed = false, no_lookahead = false;
    std::string layout_dir;  // --distributed-output
    std::size_t block = 0;
    std::string local_blocks = "auto";
    read_flags read;
    double rank_timeout = 60;
    std::string inject_fault;
};

apsp_algorithm parse_algorithm(std::string const& s) {
    if (s == "rkleene") return apsp_algorithm::rkleene;
    if (s == "blocked-fw") return apsp_algorithm::blocked_fw;
    if (s == "fw") return apsp_algorithm::fw;
    if (s == "johnson") return apsp_algorithm::johnson;
    if (s == "bellman-ford") return apsp_algorithm::bellman_ford;
    return apsp_algorithm::automatic;
}

template <class T>
void run_typed(apsp_args const& args, input const& in, output_set& outs, global_options const& g) {
    progress p(g.quiet);
    auto const a = in_phase(p, "reading " + in.name(), [&] { return in.matrix<T>(); });
    require_finite_weights(a, in.name(), "apsp");
    explain_trace trace;
    apsp_options opt;
    opt.algorithm = parse_algorithm(args.algorithm);
    opt.device = parse_device(args.device);
    opt.predecessors = !args.paths.empty();
    opt.explain = &trace;
    opt.ctx = &g.context();
    auto const t0 = std::chrono::steady_clock::now();
    apsp_result<T> r;
    try {
        r = in_phase(p, "shortest paths", [&] { return apsp(a, opt); });
    } catch (negative_cycle const& e) {
        throw command_failed("negative cycle through vertex " + std::to_string(e.vertex() + 1) +
                             " (1-based): shortest paths are undefined");
    }
    double const secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
    p.phase("writing " + args.output);
    auto const d = to_csr<T>(r.dist, infinity<T>());
    if (!args.paths.empty()) {
        // 1-based predecessor ids; pairs without a predecessor (i == j, unreachable) are absent.
        dense_matrix<std::int32_t> p(r.pred.rows(), r.pred.cols());
        for (std::size_t i = 0; i < p.rows(); ++i)
            for (std::size_t j = 0; j < p.cols(); ++j) p(i, j) = r.pred(i, j) + 1;
        io::write_matrix_market(outs[1], to_csr<std::int32_t>(p, 0));
    }
    io::write_matrix_market(outs[0], d);
    outs.commit();
    p.done();
    if (!g.quiet && args.output != "-")
        fmt::print("apsp: {} vertices, {} edges, {} on {}: {} reachable pairs, {:.3f} ms ({})\n",
                   a.rows(), a.nnz(), to_string(r.algorithm),
                   r.device == device_choice::gpu ? "gpu" : "cpu", d.nnz(), secs * 1e3, args.output);
}

void run_apsp(apsp_args const& args, global_options const& g) {
#ifdef KLEENE_HAVE_MPI
    if (args.output.empty() == args.layout_dir.empty())
        throw usage_error("apsp: name the output: -o FILE, or --distributed-output DIR under mpirun");
    if (g.mpi && (mpi_size(*g.mpi) > 1 || args.distributed || !args.layout_dir.empty())) {
        if (!args.layout_dir.empty() && args.paths == "-")
            throw usage_error("apsp: with --distributed-output, --paths names a directory for "
                              "the predecessors' layout, not standard output");
        if (!args.layout_dir.empty() && !args.paths.empty() &&
            same_path(args.layout_dir, args.paths))
            throw usage_error("apsp: --paths and --distributed-output name the same directory; "
                              "the predecessors are a layout of their own");
        if (args.algorithm != "auto" && args.algorithm != "blocked-fw")
            throw usage_error("apsp: under MPI the algorithm is the distributed blocked-fw");
        distributed_args d;
        d.input = args.input;
        d.output = args.output;
        d.layout_dir = args.layout_dir;
        d.paths = args.paths;
        d.type = args.type;
        d.device = args.device;
        d.block = args.block;
        d.lookahead = !args.no_lookahead;
        d.local_blocks = args.local_blocks;
        d.explain = args.explain;
        d.read = args.read;
        d.rank_timeout = args.rank_timeout;
        d.inject_fault = args.inject_fault;
        run_apsp_distributed(d, g);
        return;
    }
#endif
    if (args.distributed || !args.layout_dir.empty() || args.local_blocks != "auto" ||
        !args.inject_fault.empty())
        throw usage_error(
            "apsp: --distributed, --distributed-output, --local-blocks and --inject-fault need an "
            "MPI launcher (mpirun) and a build with MPI");
    // Both outputs are opened before the input is read (a bad path fails first) and appear
    // together: a failure on one leaves neither.
    output_set outs(g.temps);
    outs.add(args.output);
    if (!args.paths.empty()) outs.add(args.paths);
    input const in(args.input, &args.read);
    std::string type = args.type;
    {
        auto const& h = in.facts();
        if (type.empty()) type = h.integral ? "int32" : "fp64";
        // The n x n result must fit before the graph is read (n = 1518500250 wraps n * n * 8 in
        // 64 bits; reading its row pointers alone takes a minute).
        double const n = static_cast<double>(h.rows);
        double const per = (type == "fp64" ? 8.0 : 4.0) + (args.paths.empty() ? 0.0 : 4.0);
        detail::require_host_memory(("apsp: the " + std::to_string(h.rows) + "x" +
                                     std::to_string(h.cols) + " distance matrix")
                                        .c_str(),
                                    n * n * per);
    }
    if (type == "fp32") run_typed<float>(args, in, outs, g);
    else if (type == "fp64") run_typed<double>(args, in, outs, g);
    else run_typed<std::int32_t>(args, in, outs, g);
}

}  // namespace

void add_apsp_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("apsp", "all-pairs shortest paths (min_plus closure) of a graph");
    auto args = std::make_shared<apsp_args>();
    cmd->add_option("FILE", args->input,
                    "weighted adjacency matrix (.mtx, .kbin, .el; - for stdin)")
        ->required();
    cmd->add_option("-o,--output", args->output, "distances (.mtx)")->check(output_name());
    cmd->add_option("--algorithm", args->algorithm, "auto, rkleene, blocked-fw, fw, johnson (CPU) or bellman-ford (GPU)")
        ->check(one_of({"auto", "rkleene", "blocked-fw", "fw", "johnson", "bellman-ford"}))
        ->capture_default_str();
    cmd->add_option("--device", args->device, "auto, cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    cmd->add_option("-t,--type", args->type, "fp32, fp64 or int32 (default: int32 for integer and "
                                             "pattern files, else fp64)")
        ->check(one_of({"fp32", "fp64", "int32"}));
    cmd->add_option("--paths", args->paths,
                    "also write the predecessor matrix (.mtx, 1-based ids); written together "
                    "with the distances, or neither is. With --distributed-output, a second "
                    "layout directory (every rank its own blocks; kleene convert joins it)")
        ->check(output_name());
    cmd->add_flag("--explain", args->explain, "print the algorithm and device choice on stderr");
    cmd->add_flag("--distributed", args->distributed,
                  "under mpirun: the distributed path also with one rank (it runs whenever there "
                  "are more)");
    cmd->add_option("--distributed-output", args->layout_dir,
                    "under mpirun: instead of -o, every rank writes its own blocks to the new "
                    "directory DIR (a manifest and one .kbin a rank; kleene convert DIR joins it)");
    cmd->add_option("--block", args->block,
                    "distributed: block size of the 2D block-cyclic layout (default: 64 on the "
                    "CPU, up to 2048 on GPUs)")
        ->check(CLI::Range(std::size_t(1), std::size_t(1) << 20));
    cmd->add_flag("--no-lookahead", args->no_lookahead,
                  "distributed: run the steps one after the other (for comparison)");
    add_local_blocks_option(cmd, args->local_blocks);
    add_read_options(cmd, args->read, "min", "the lightest of parallel edges");
    add_fault_options(cmd, args->rank_timeout, args->inject_fault);
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
    cmd->callback([args, &g] { run_apsp(*args, g); });
}

}  // namespace kleene::tools

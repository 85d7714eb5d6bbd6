// `kleene closure FILE --output R.mtx [--reflexive] [--method M] [--device D]`: the transitive
// closure (pairs joined by a path of one edge or more) as a pattern Matrix Market file. The
// library's model picks the method and whether the result is held as CSR or as bits (written a
// block of rows at a time); a result past memory fails before the work, with its estimate.

#include "commands.hpp"
#include "files.hpp"
#include "progress.hpp"
#ifdef KLEENE_HAVE_MPI
#include "mpi/distributed.hpp"
#endif

#include <kleene/algorithms/closure.hpp>
#include <kleene/io/matrix_market.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>

#include <sys/statvfs.h>

namespace kleene::tools {
namespace {

struct closure_args {
    std::string input, output, device = "auto", method = "auto";
    bool reflexive = false;
    bool explain = false;
    bool distributed = false, no_lookahead = false;
    std::string layout_dir;  // --distributed-output
    std::size_t block = 0;
    std::string local_blocks = "auto";
    read_flags read;
    double rank_timeout = 60;
    std::string inject_fault;
};

closure_method parse_method(std::string const& s) {
    if (s == "condensation") return closure_method::condensation;
    if (s == "dense") return closure_method::dense;
    return closure_method::automatic;
}

/// A bit result written a block of rows at a time (each block made CSR), so that writing needs
/// no CSR copy of a dense result: the bytes are write_matrix_market's.
void write_bits(io::output_file& out, host_bits const& b, std::size_t pairs) {
    io::write_options wo;
    wo.pattern = true;
    io::write_coordinate_header<bool>(out, b.n, b.n, pairs, true, wo);
    // Blocks of at most 2^19 words: a full block's CSR is 256 MiB of column indices.
    std::size_t const block =
        std::max<std::size_t>(1, (std::size_t(1) << 19) / std::max<std::size_t>(b.ld, 1));
    for (std::size_t r0 = 0; r0 < b.n; r0 += block)
        io::write_coordinate_rows(out, detail::bits_to_csr(b, r0, block), r0, true);
}

/// Refuses, before the work, a result whose Matrix Market file cannot fit the free space of the
/// output's file system: a line takes at least two ids of n's digits and two separators.
void check_room(io::output_file const& out, std::size_t n, double pairs, bool exact) {
    if (out.direct()) return;  // stdout, a device, a FIFO: no file to fill
    struct statvfs fs {};
    std::string dir = std::filesystem::path(out.target()).parent_path().string();
    if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) != 0) return;
    double const room = double(fs.f_bavail) * double(fs.f_frsize);
    double const line = 2.0 * double(std::to_string(n).size()) + 2;
    // An estimate is refused only when half of it does not fit (it may be high by that much).
    if ((exact ? pairs : pairs / 2) * line <= room) return;
    throw command_failed("closure: the result has " + std::string(exact ? "" : "about ") +
                         fmt::format("{:.3g}", pairs) + " pairs (" +
                         (exact ? "counted" : "estimated") +
                         "): its Matrix Market file needs at least " +
                         detail::format_bytes(pairs * line) + ", more than the " +
                         detail::format_bytes(room) + " free where " + out.path() +
                         " goes; nothing was written");
}

template <class Index>
void run_indexed(closure_args const& args, input const& in, output_set& outs,
                 global_options const& g) {
    io::read_options ro;
    ro.pattern_only = true;
    progress p(g.quiet);
    auto const a =
        in_phase(p, "reading " + in.name(), [&] { return in.matrix<std::uint8_t, Index>(ro); });
    explain_trace trace;
    closure_options opt;
    opt.reflexive = args.reflexive;
    opt.device = parse_device(args.device);
    opt.method = parse_method(args.method);
    opt.explain = &trace;
    opt.ctx = &g.context();
    opt.on_estimate = [&](double pairs, bool exact) { check_room(outs[0], a.rows(), pairs, exact); };
    auto const t0 = std::chrono::steady_clock::now();
    closure_result r;
    try {
        r = in_phase(p, "closure", [&] { return closure_matrix(a, opt); });
    } catch (...) {
        if (args.explain)
            for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
        throw;
    }
    double const secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
    std::size_t const pairs = r.pairs();
    in_phase(p, "writing " + args.output, [&] {
        if (r.format == output_choice::csr) {
            io::write_options wo;
            wo.pattern = true;
            io::write_matrix_market(outs[0], r.csr, wo);
        } else {
            write_bits(outs[0], r.bits, pairs);
        }
        outs.commit();
    });
    if (!g.quiet && args.output != "-")
        fmt::print("closure: {} vertices, {} edges: {} pairs, {:.3f} ms ({})\n", a.rows(), a.nnz(),
                   pairs, secs * 1e3, args.output);
}

void run_closure(closure_args const& args, global_options const& g) {
#ifdef KLEENE_HAVE_MPI
    if (args.output.empty() == args.layout_dir.empty())
        throw usage_error(
            "closure: name the output: -o FILE, or --distributed-output DIR under mpirun");
    if (g.mpi && (mpi_size(*g.mpi) > 1 || args.distributed || !args.layout_dir.empty())) {
        if (args.method != "auto")
            throw usage_error("closure: under MPI the method is the distributed dense one");
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
        d.read = args.read;
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
    if (args.method == "condensation" && args.device == "gpu")
        throw usage_error(
            "closure: --method condensation runs on the CPU; the GPU runs --method "
            "dense");
    output_set outs(g.temps);
    outs.add(args.output);
    input const in(args.input, &args.read);
    auto const lim = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
    auto const& f = in.facts();
    if (f.rows > lim || f.cols > lim || f.entries > lim / 2)
        run_indexed<std::int64_t>(args, in, outs, g);
    else
        run_indexed<std::int32_t>(args, in, outs, g);
}

}  // namespace

void add_closure_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("closure", "transitive closure (lor_land) of a graph");
    auto args = std::make_shared<closure_args>();
    cmd->add_option("FILE", args->input,
                    "adjacency matrix (.mtx, .kbin, .el; - for stdin; values are ignored)")
        ->required();
    cmd->add_option("-o,--output", args->output, "closure (.mtx, pattern)")->check(output_name());
    cmd->add_flag("--reflexive", args->reflexive, "also every (i, i)");
    cmd->add_option("--device", args->device, "auto, cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    cmd->add_option("--method", args->method,
                    "auto, condensation (strongly connected components and the DAG between them, "
                    "CPU: time follows the graph and the result) or dense (the whole n x n bit "
                    "matrix: Warshall on the CPU, R-Kleene on the GPU)")
        ->check(one_of({"auto", "condensation", "dense"}))
        ->capture_default_str();
    cmd->add_flag("--explain", args->explain,
                  "print the components, the estimated size, the method, output and device "
                  "choices and their times on stderr");
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
    add_read_options(cmd, args->read, "last", "values are ignored");
    add_fault_options(cmd, args->rank_timeout, args->inject_fault);
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
    cmd->callback([args, &g] { run_closure(*args, g); });
}

}  // namespace kleene::tools

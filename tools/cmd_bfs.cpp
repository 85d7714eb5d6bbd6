// `kleene bfs FILE --source S --output V.mtx [--parents] [--device D] [--direction D] [--explain]`:
// breadth-first search from a 1-based source, written as a coordinate Matrix Market n x 1 vector
// of the reached vertices: their levels (0 at the source), or with --parents their 1-based parents
// (the source is its own). Edges are the file's entries (values ignored); symmetric files are
// undirected, and then pull steps read the matrix itself instead of a transpose.

#include "commands.hpp"
#include "files.hpp"
#include "progress.hpp"

#include <kleene/algorithms/bfs.hpp>
#include <kleene/io/matrix_market.hpp>

#include <fmt/core.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace kleene::tools {
namespace {

struct bfs_args {
    std::string input, output, device = "auto", direction = "auto";
    std::int64_t source = 0;
    bool parents = false, explain = false;
    read_flags read;
};

template <class Index>
void run_indexed(bfs_args const& args, input const& in, output_set& outs, bool symmetric,
                 global_options const& g) {
    io::read_options ro;
    ro.pattern_only = true;
    progress p(g.quiet);
    auto const a =
        in_phase(p, "reading " + in.name(), [&] { return in.matrix<bool, Index>(ro); });
    if (a.rows() != a.cols())
        throw command_failed("bfs: the adjacency matrix must be square, not " +
                             std::to_string(a.rows()) + "x" + std::to_string(a.cols()));
    auto const n = static_cast<std::int64_t>(a.rows());
    if (args.source < 1 || args.source > n)
        throw command_failed("bfs: source " + std::to_string(args.source) + " is not in 1.." +
                             std::to_string(n));
    explain_trace trace;
    bfs_options opt;
    opt.device = parse_device(args.device);
    opt.direction = args.direction == "push"   ? bfs_direction::push
                    : args.direction == "pull" ? bfs_direction::pull
                                               : bfs_direction::automatic;
    opt.parents = args.parents;
    opt.symmetric = symmetric;
    opt.explain = &trace;
    opt.ctx = &g.context();
    auto const t0 = std::chrono::steady_clock::now();
    bfs_result const r =
        in_phase(p, "bfs", [&] { return bfs(a, static_cast<std::size_t>(args.source - 1), opt); });
    double const secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);

    std::size_t reached = 0;
    std::int64_t depth = 0;
    for (std::int64_t l : r.level)
        if (l >= 0) {
            ++reached;
            depth = std::max(depth, l);
        }
    buffer<Index> idx(reached);
    buffer<std::int64_t> val(reached);
    std::size_t w = 0;
    for (std::size_t v = 0; v < r.level.size(); ++v)
        if (r.level[v] >= 0) {
            idx[w] = static_cast<Index>(v);
            val[w++] = args.parents ? r.parent[v] + 1 : r.level[v];
        }
    in_phase(p, "writing " + args.output, [&] {
        io::write_matrix_market(
            outs[0], sparse_vector<std::int64_t, Index>(a.rows(), std::move(idx), std::move(val)));
        outs.commit();
    });
    if (!g.quiet && args.output != "-")
        fmt::print(
            "bfs: {} vertices, {} edges, source {} on {}: {} reached in {} levels, {:.3f} ms "
            "({})\n",
            a.rows(), a.nnz(), args.source, r.device == device_choice::gpu ? "gpu" : "cpu", reached,
            depth + 1, secs * 1e3, args.output);
}

void run_bfs(bfs_args const& args, global_options const& g) {
    output_set outs(g.temps);
    outs.add(args.output);
    input const in(args.input, &args.read);
    // The header says whether the graph is undirected and whether 32-bit indices hold it.
    auto const& h = in.facts();
    bool const symmetric = h.symmetric;
    auto const lim = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
    bool const wide = h.rows > lim || h.cols > lim || h.entries > lim / 2;
    if (wide)
        run_indexed<std::int64_t>(args, in, outs, symmetric, g);
    else
        run_indexed<std::int32_t>(args, in, outs, symmetric, g);
}

}  // namespace

void add_bfs_command(CLI::App& app, global_options& g) {
    auto* cmd =
        app.add_subcommand("bfs", "breadth-first search levels (or parents) from one vertex");
    auto args = std::make_shared<bfs_args>();
    cmd->add_option("FILE", args->input,
                    "adjacency matrix (.mtx, .kbin, .el; - for stdin; values ignored)")
        ->required();
    cmd->add_option("-s,--source", args->source, "source vertex (1-based)")
        ->required()
        ->check(integer_in());
    cmd->add_option("-o,--output", args->output,
                    "levels or parents of the reached vertices (.mtx vector)")
        ->required()
        ->check(output_name());
    cmd->add_flag("--parents", args->parents,
                  "write each reached vertex's 1-based BFS parent instead of its level");
    cmd->add_option("--device", args->device, "auto, cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    cmd->add_option("--direction", args->direction,
                    "auto (push/pull by frontier size), push or pull")
        ->check(one_of({"auto", "push", "pull"}))
        ->capture_default_str();
    cmd->add_flag("--explain", args->explain,
                  "print the device and per-level push/pull choice on stderr");
    add_read_options(cmd, args->read, "last", "values are ignored");
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
    cmd->callback([args, &g] { run_bfs(*args, g); });
}

}  // namespace kleene::tools

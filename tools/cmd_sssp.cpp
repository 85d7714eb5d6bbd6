// `kleene sssp FILE --source S --output D.mtx [--method M] [--delta W] [--device D] [--type T]`:
// single-source shortest path distances from a 1-based source, written as a coordinate Matrix
// Market n x 1 vector of the reachable vertices (pattern files: weight 1; symmetric files:
// undirected; parallel edges keep the smallest weight).

#include "commands.hpp"
#include "finite_weights.hpp"
#include "files.hpp"
#include "progress.hpp"
#include "usage.hpp"

#include <kleene/algorithms/sssp.hpp>
#include <kleene/io/matrix_market.hpp>

#include <fmt/core.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace kleene::tools {
namespace {

struct sssp_args {
    std::string input, output, device = "auto", method = "auto", type;
    std::int64_t source = 0;
    double delta = 0;
    bool explain = false;
    read_flags read;
};

template <class T, class Index>
void run_typed(sssp_args const& args, input const& in, output_set& outs, global_options const& g) {
    progress p(g.quiet);
    auto const a = in_phase(p, "reading " + in.name(), [&] { return in.matrix<T, Index>(); });
    require_finite_weights(a, in.name(), "sssp");
    if (a.rows() != a.cols())
        throw command_failed("sssp: the adjacency matrix must be square, not " +
                             std::to_string(a.rows()) + "x" + std::to_string(a.cols()));
    auto const n = static_cast<std::int64_t>(a.rows());
    if (args.source < 1 || args.source > n)
        throw command_failed("sssp: source " + std::to_string(args.source) + " is not in 1.." +
                             std::to_string(n));
    explain_trace trace;
    sssp_options opt;
    opt.device = parse_device(args.device);
    opt.method = args.method == "bellman-ford"     ? sssp_method::bellman_ford
                 : args.method == "delta-stepping" ? sssp_method::delta_stepping
                 : args.method == "async"          ? sssp_method::async
                                                   : sssp_method::automatic;
    opt.delta = args.delta;
    opt.explain = &trace;
    opt.ctx = &g.context();
    auto const t0 = std::chrono::steady_clock::now();
    sssp_result<T> r;
    try {
        r = in_phase(p, "sssp", [&] { return sssp(a, static_cast<std::size_t>(args.source - 1), opt); });
    } catch (negative_cycle const& e) {
        throw command_failed("negative cycle through vertex " + std::to_string(e.vertex() + 1) +
                             " (1-based): shortest paths are undefined");
    }
    double const secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);

    std::size_t reached = 0;
    for (T const& d : r.dist) reached += !(d == infinity<T>());
    buffer<Index> idx(reached);
    buffer<T> val(reached);
    std::size_t w = 0;
    for (std::size_t v = 0; v < r.dist.size(); ++v)
        if (!(r.dist[v] == infinity<T>())) {
            idx[w] = static_cast<Index>(v);
            val[w++] = r.dist[v];
        }
    in_phase(p, "writing " + args.output, [&] {
        io::write_matrix_market(outs[0],
                                sparse_vector<T, Index>(a.rows(), std::move(idx), std::move(val)));
        outs.commit();
    });
    if (!g.quiet && args.output != "-")
        fmt::print(
            "sssp: {} vertices, {} edges, source {}, {} on {}: {} reachable, {:.3f} ms ({})\n",
            a.rows(), a.nnz(), args.source, to_string(r.method),
            r.device == device_choice::gpu ? "gpu" : "cpu", reached, secs * 1e3, args.output);
}

template <class Index>
void run_indexed(sssp_args const& args, std::string const& type, input const& in,
                 output_set& outs, global_options const& g) {
    if (type == "fp32")
        run_typed<float, Index>(args, in, outs, g);
    else if (type == "fp64")
        run_typed<double, Index>(args, in, outs, g);
    else if (type == "int32")
        run_typed<std::int32_t, Index>(args, in, outs, g);
    else
        run_typed<std::int64_t, Index>(args, in, outs, g);
}

void run_sssp(sssp_args const& args, global_options const& g) {
    output_set outs(g.temps);
    outs.add(args.output);
    input const in(args.input, &args.read);
    // Integer and pattern files: int64 distances (no overflow on long paths); real files: fp64.
    auto const& h = in.facts();
    std::string type = args.type;
    if (type.empty()) type = h.integral ? "int64" : "fp64";
    auto const lim = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
    bool const wide = h.rows > lim || h.cols > lim || h.entries > lim / 2;
    if (wide)
        run_indexed<std::int64_t>(args, type, in, outs, g);
    else
        run_indexed<std::int32_t>(args, type, in, outs, g);
}

}  // namespace

void add_sssp_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("sssp", "single-source shortest path distances from one vertex");
    auto args = std::make_shared<sssp_args>();
    cmd->add_option("FILE", args->input,
                    "weighted adjacency matrix (.mtx, .kbin, .el; - for stdin)")
        ->required();
    cmd->add_option("-s,--source", args->source, "source vertex (1-based)")
        ->required()
        ->check(integer_in());
    cmd->add_option("-o,--output", args->output,
                    "distances of the reachable vertices (.mtx vector)")
        ->required()
        ->check(output_name());
    cmd->add_option(
           "--method", args->method,
           "auto (delta-stepping unless a weight is negative; on the GPU the asynchronous work "
           "list on graphs of few edges a vertex), bellman-ford, delta-stepping or async (GPU)")
        ->check(one_of({"auto", "bellman-ford", "delta-stepping", "async"}))
        ->capture_default_str();
    cmd->add_option("--delta", args->delta, "delta-stepping bucket width (0: from the weights)")
        ->check(number_at_least(0));
    cmd->add_option("--device", args->device, "auto, cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    cmd->add_option("-t,--type", args->type,
                    "fp32, fp64, int32 or int64 (default: int64 for integer "
                    "and pattern files, else fp64)")
        ->check(one_of({"fp32", "fp64", "int32", "int64"}));
    cmd->add_flag("--explain", args->explain, "print the method and device choice on stderr");
    add_read_options(cmd, args->read, "min", "the lightest of parallel edges");
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
    cmd->callback([args, &g] { run_sssp(*args, g); });
}

}  // namespace kleene::tools

// `kleene tc FILE [--method auto|fused|mxm] [--relabel auto|always|never] [--device D]
// [--explain] [--json]`: the number of triangles of an undirected graph (a symmetric pattern;
// self-loops ignored), exact in 64 bits.

#include "graph_command.hpp"

#include <kleene/algorithms/triangles.hpp>

namespace kleene::tools {
namespace {

struct tc_args : graph_args {
    std::string method = "auto", relabel = "auto";
};

void run_tc(tc_args const& args, global_options const& g) {
    with_graph(args, "tc", g, [&](auto const& a, bool symmetric, std::string const& name) {
        explain_trace trace;
        tc_options opt;
        opt.device = parse_device(args.device);
        opt.method = args.method == "fused" ? tc_method::fused
                     : args.method == "mxm" ? tc_method::mxm
                                            : tc_method::automatic;
        opt.relabel = args.relabel == "always"  ? tc_relabel::always
                      : args.relabel == "never" ? tc_relabel::never
                                                : tc_relabel::automatic;
        opt.symmetric = symmetric;
        opt.explain = &trace;
        auto const t0 = std::chrono::steady_clock::now();
        tc_result r;
        try {
            r = triangle_count(a, opt);
        } catch (invalid_argument const& e) {
            if (symmetric) throw;
            throw command_failed(std::string(e.what()) + " (" + name +
                                 " is a general matrix: triangles need an undirected graph, a "
                                 "symmetric file or one that stores both directions)");
        }
        double const ms = ms_since(t0);
        print_trace(args, trace);
        print_summary("tc",
                      {item("vertices", a.rows()), item("edges", a.nnz()),
                       item("device", device_name(r.device)), item("method", to_string(r.method)),
                       item("relabelled", r.relabelled ? "yes" : "no"),
                       item("triangles", r.triangles), item("ms", ms)},
                      g);
    });
}

}  // namespace

void add_tc_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("tc", "count the triangles of an undirected graph");
    auto args = std::make_shared<tc_args>();
    add_graph_options(cmd, *args, g, nullptr, false);
    cmd->add_option("--method", args->method, "auto, fused (row intersections) or mxm (masked L.U')")
        ->check(one_of({"auto", "fused", "mxm"}))
        ->capture_default_str();
    cmd->add_option("--relabel", args->relabel, "renumber vertices by degree first: auto, always, never")
        ->check(one_of({"auto", "always", "never"}))
        ->capture_default_str();
    cmd->callback([args, &g] { run_tc(*args, g); });
}

}  // namespace kleene::tools

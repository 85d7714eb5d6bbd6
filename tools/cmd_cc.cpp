// `kleene cc FILE [-o C.mtx] [--method auto|afforest|fastsv] [--device D] [--explain] [--json]`:
// connected components (weakly connected for a directed file), written as an n x 1 vector giving
// each vertex the 1-based number of the smallest vertex of its component.

#include "graph_command.hpp"

#include <kleene/algorithms/components.hpp>

#include <algorithm>

namespace kleene::tools {
namespace {

struct cc_args : graph_args {
    std::string method = "auto";
};

void run_cc(cc_args const& args, global_options const& g) {
    if (g.json && args.output == "-")
        throw usage_error("--json and -o - both write to standard output; name a file for -o");
    output_set outs(g.temps);
    if (!args.output.empty()) outs.add(args.output);
    with_graph(args, "cc", g, [&](auto const& a, bool symmetric, std::string const&) {
        using Index = typename std::decay_t<decltype(a)>::index_type;
        explain_trace trace;
        cc_options opt;
        opt.device = parse_device(args.device);
        opt.method = args.method == "afforest" ? cc_method::afforest
                     : args.method == "fastsv" ? cc_method::fastsv
                                               : cc_method::automatic;
        opt.symmetric = symmetric;
        opt.explain = &trace;
        auto const t0 = std::chrono::steady_clock::now();
        cc_result const r = connected_components(a, opt);
        double const ms = ms_since(t0);
        print_trace(args, trace);
        std::size_t const n = a.rows();
        std::vector<std::size_t> size(n, 0);
        for (std::int64_t c : r.component) ++size[static_cast<std::size_t>(c)];
        std::size_t const largest = n ? *std::max_element(size.begin(), size.end()) : 0;
        if (!args.output.empty()) {
            std::vector<std::int64_t> one_based(n);
            for (std::size_t v = 0; v < n; ++v) one_based[v] = r.component[v] + 1;
            write_vertex_vector<std::int64_t, Index>(outs[0], n, one_based,
                                                     [](std::size_t) { return true; });
            outs.commit();
        }
        print_summary("cc",
                      {item("vertices", n), item("edges", a.nnz()), item("device", device_name(r.device)),
                       item("method", to_string(r.method)), item("components", r.count),
                       item("largest", largest), item("iterations", r.iterations), item("ms", ms)},
                      g);
    });
}

}  // namespace

void add_cc_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand(
        "cc", "connected components (weakly connected for a directed graph)");
    auto args = std::make_shared<cc_args>();
    add_graph_options(cmd, *args, g,
                      "component of every vertex: the 1-based smallest vertex in it (.mtx vector)",
                      false);
    cmd->add_option("--method", args->method, "auto, afforest or fastsv")
        ->check(one_of({"auto", "afforest", "fastsv"}))
        ->capture_default_str();
    cmd->callback([args, &g] { run_cc(*args, g); });
}

}  // namespace kleene::tools

// `kleene pagerank FILE [-o R.mtx] [--damping D] [--tolerance T] [--max-iterations K]
// [--dangling gap|redistribute] [--method auto|gauss-seidel|fused|semiring]
// [--contributions auto|double|float] [--relaxation W]
// [--device D] [--explain] [--json]`:
// PageRank of every vertex (the GAP benchmark's definition by default: the rank of vertices
// without out-edges is lost; --dangling redistribute spreads it evenly, as networkx does), written
// as an n x 1 real vector.

#include "graph_command.hpp"

#include <kleene/algorithms/pagerank.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kleene::tools {
namespace {

struct pagerank_args : graph_args {
    std::string method = "auto", dangling = "gap", contributions = "auto";
    double damping = 0.85, tolerance = 1e-4, relaxation = 0;
    int max_iterations = 100;
};

void run_pagerank(pagerank_args const& args, global_options const& g) {
    if (g.json && args.output == "-")
        throw usage_error("--json and -o - both write to standard output; name a file for -o");
    output_set outs(g.temps);
    if (!args.output.empty()) outs.add(args.output);
    with_graph(args, "pagerank", g, [&](auto const& a, bool symmetric, std::string const&) {
        using Index = typename std::decay_t<decltype(a)>::index_type;
        explain_trace trace;
        pagerank_options opt;
        opt.damping = args.damping;
        opt.tolerance = args.tolerance;
        opt.max_iterations = args.max_iterations;
        opt.dangling = args.dangling == "redistribute" ? pagerank_dangling::redistribute
                                                       : pagerank_dangling::gap;
        opt.method = args.method == "fused"          ? pagerank_method::fused
                     : args.method == "semiring"     ? pagerank_method::semiring
                     : args.method == "gauss-seidel" ? pagerank_method::gauss_seidel
                                                     : pagerank_method::automatic;
        opt.contributions = args.contributions == "double"  ? pagerank_contributions::as_double
                            : args.contributions == "float" ? pagerank_contributions::as_float
                                                            : pagerank_contributions::automatic;
        opt.relaxation = args.relaxation;
        opt.symmetric = symmetric;
        opt.device = parse_device(args.device);
        opt.explain = &trace;
        auto const t0 = std::chrono::steady_clock::now();
        pagerank_result const r = pagerank(a, opt);
        double const ms = ms_since(t0);
        print_trace(args, trace);
        std::size_t const n = a.rows();
        if (!args.output.empty()) {
            write_vertex_vector<double, Index>(outs[0], n, r.rank, [](std::size_t) { return true; });
            outs.commit();
        }
        double sum = 0, top = 0;
        std::size_t top_vertex = 0;
        for (std::size_t v = 0; v < n; ++v) {
            sum += r.rank[v];
            if (r.rank[v] > top) top = r.rank[v], top_vertex = v + 1;
        }
        print_summary("pagerank",
                      {item("vertices", n), item("edges", a.nnz()), item("device", device_name(r.device)),
                       item("method", to_string(r.method)), item("iterations", r.iterations),
                       item("relaxation", r.relaxation), item("relaxed_from", r.relaxed_from),
                       item("converged", r.converged ? "yes" : "no"), item("change", r.change),
                       item("sum", sum), item("top_vertex", top_vertex), item("top_rank", top),
                       item("ms", ms)},
                      g);
        if (!r.converged)
            fmt::print(stderr,
                       "kleene: warning: pagerank did not reach the tolerance {} in {} iterations "
                       "(last change {:.3g})\n",
                       args.tolerance, r.iterations, r.change);
    });
}

}  // namespace

void add_pagerank_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("pagerank", "PageRank of every vertex (GAP's definition)");
    auto args = std::make_shared<pagerank_args>();
    add_graph_options(cmd, *args, g, "rank of every vertex (.mtx vector)", false);
    cmd->add_option("--damping", args->damping, "damping factor, in [0, 1)")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                char* end = nullptr;
                double const v = s.empty() ? std::nan("") : std::strtod(s.c_str(), &end);
                if (s.empty() || end != s.c_str() + s.size() || !(v >= 0 && v < 1))
                    return "expected a number in [0, 1), got '" + s + "'";
                return {};
            },
            "in [0, 1)"))
        ->capture_default_str();
    cmd->add_option("--tolerance", args->tolerance,
                    "stop when the L1 change of the ranks is below this")
        ->check(number_at_least(0, true))
        ->capture_default_str();
    cmd->add_option("--max-iterations", args->max_iterations, "at most this many steps")
        ->check(integer_in(1, 1000000))
        ->capture_default_str();
    cmd->add_option("--dangling", args->dangling,
                    "rank of vertices without out-edges: gap (lost, GAP's definition) or "
                    "redistribute (spread evenly)")
        ->check(one_of({"gap", "redistribute"}))
        ->capture_default_str();
    cmd->add_option("--method", args->method,
                    "auto (CPU: gauss-seidel, GPU: fused), gauss-seidel (in place within blocks "
                    "of rows; the GPU runs fused), fused (Jacobi) or semiring (plus_times mxv)")
        ->check(one_of({"auto", "gauss-seidel", "fused", "semiring"}))
        ->capture_default_str();
    cmd->add_option("--contributions", args->contributions,
                    "precision of the CPU pass's contributions rank / out-degree: auto (float "
                    "when the tolerance is at least 1.19e-5), double or float")
        ->check(one_of({"auto", "double", "float"}))
        ->capture_default_str();
    cmd->add_option("--relaxation", args->relaxation,
                    "over-relaxation of the CPU's Gauss-Seidel pass: 0 (auto: on an undirected "
                    "graph, 2 / (1 + sqrt(1 - damping^2)) once the changes shrink slowly), 1 "
                    "(none, GAP's pass), or a weight in (1, 2) from the first step")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                char* end = nullptr;
                double const v = s.empty() ? std::nan("") : std::strtod(s.c_str(), &end);
                if (s.empty() || end != s.c_str() + s.size() || !(v == 0 || (v >= 1 && v < 2)))
                    return "expected 0 or a number in [1, 2), got '" + s + "'";
                return {};
            },
            "0 or in [1, 2)"))
        ->capture_default_str();
    cmd->callback([args, &g] { run_pagerank(*args, g); });
}

}  // namespace kleene::tools

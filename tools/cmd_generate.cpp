// `kleene generate kronecker --scale S [--edge-factor E] ... --output G.mtx` and
// `kleene generate uniform --vertices N --edges M ... --output G.mtx`: random graphs as Matrix
// Market files (Graph500 Kronecker; Erdős–Rényi G(n, m)). The same options and seed give the same
// file whatever the number of threads. Parallel edges become one (the smallest weight); self-loops
// are dropped unless --self-loops; --undirected writes a symmetric file. Without --weights the file
// is a pattern.

#include "commands.hpp"
#include "files.hpp"
#include "progress.hpp"

#include <kleene/algorithms/generate.hpp>
#include <kleene/io/matrix_market.hpp>

#include <fmt/core.h>

#include <chrono>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace kleene::tools {
namespace {

struct generate_args {
    std::string output, weights, type;
    int scale = 0;
    double edge_factor = 16;
    std::size_t vertices = 0, edges = 0;
    std::uint64_t seed = 1;
    bool undirected = false, self_loops = false;
};

/// "lo,hi" -> the range; nullopt when malformed.
std::optional<weight_range> parse_range(std::string const& s) {
    auto const comma = s.find(',');
    if (comma == std::string::npos) return std::nullopt;
    try {
        std::size_t used = 0;
        weight_range r;
        std::string const lo = s.substr(0, comma), hi = s.substr(comma + 1);
        r.lo = std::stod(lo, &used);
        if (used != lo.size()) return std::nullopt;
        r.hi = std::stod(hi, &used);
        if (used != hi.size() || !(r.lo <= r.hi) || !std::isfinite(r.lo) || !std::isfinite(r.hi))
            return std::nullopt;
        // Integer bounds exactly (int64 ones past 2^53 are not doubles).
        std::int64_t ilo = 0, ihi = 0;
        auto const a = std::from_chars(lo.data(), lo.data() + lo.size(), ilo);
        auto const b = std::from_chars(hi.data(), hi.data() + hi.size(), ihi);
        if (a.ec == std::errc() && a.ptr == lo.data() + lo.size() && b.ec == std::errc() &&
            b.ptr == hi.data() + hi.size())
            return ilo <= ihi ? std::optional(weight_range::integers(ilo, ihi)) : std::nullopt;
        return r;
    } catch (std::exception const&) {
        return std::nullopt;
    }
}

template <class T, class Index>
void run_typed(bool kronecker, generate_args const& args, global_options const& g) {
    output_set outs(g.temps);
    outs.add(args.output);
    auto const t0 = std::chrono::steady_clock::now();
    std::optional<weight_range> const w =
        args.weights.empty() ? std::nullopt : parse_range(args.weights);
    csr_matrix<T, Index> a;
    progress p(g.quiet);
    p.phase("generating");
    if (kronecker) {
        kronecker_options o;
        o.scale = args.scale;
        o.edge_factor = args.edge_factor;
        o.seed = args.seed;
        o.undirected = args.undirected;
        o.remove_self_loops = !args.self_loops;
        o.weights = w;
        a = kronecker_graph<T, Index>(o);
    } else {
        uniform_options o;
        o.vertices = args.vertices;
        o.edges = args.edges;
        o.seed = args.seed;
        o.undirected = args.undirected;
        o.self_loops = args.self_loops;
        o.weights = w;
        a = uniform_graph<T, Index>(o);
    }
    double const secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    io::write_options wo;
    wo.symmetry = args.undirected ? io::mm_symmetry::symmetric : io::mm_symmetry::general;
    wo.comment =
        kronecker
            ? fmt::format(" kleene generate kronecker --scale {} --edge-factor {} --seed {}{}{}{}",
                          args.scale, args.edge_factor, args.seed,
                          args.undirected ? " --undirected" : "",
                          args.self_loops ? " --self-loops" : "",
                          args.weights.empty() ? "" : " --weights " + args.weights)
            : fmt::format(" kleene generate uniform --vertices {} --edges {} --seed {}{}{}{}",
                          args.vertices, args.edges, args.seed,
                          args.undirected ? " --undirected" : "",
                          args.self_loops ? " --self-loops" : "",
                          args.weights.empty() ? "" : " --weights " + args.weights);
    in_phase(p, "writing " + args.output, [&] {
        io::write_matrix_market(outs[0], a, wo);
        outs.commit();
    });
    if (!g.quiet && args.output != "-")
        fmt::print("generate: {} graph, {} vertices, {} entries{}, {:.3f} ms ({})\n",
                   kronecker ? "Kronecker" : "uniform", a.rows(), a.nnz(),
                   args.undirected ? " (both directions)" : "", secs * 1e3, args.output);
}

template <class Index>
void run_indexed(bool kronecker, generate_args const& args, std::string const& type,
                 global_options const& g) {
    if (type == "pattern")
        run_typed<bool, Index>(kronecker, args, g);
    else if (type == "fp32")
        run_typed<float, Index>(kronecker, args, g);
    else if (type == "fp64")
        run_typed<double, Index>(kronecker, args, g);
    else if (type == "int32")
        run_typed<std::int32_t, Index>(kronecker, args, g);
    else
        run_typed<std::int64_t, Index>(kronecker, args, g);
}

void run_generate(bool kronecker, generate_args const& args, global_options const& g) {
    std::string type = args.type;
    if (args.weights.empty()) {
        if (!type.empty())
            throw command_failed("generate: --type " + type + " needs --weights lo,hi");
        type = "pattern";
    } else if (type.empty()) {
        // Integer bounds: integer weights; otherwise real ones.
        auto const r = parse_range(args.weights);
        type = (r && std::floor(r->lo) == r->lo && std::floor(r->hi) == r->hi) ? "int64" : "fp64";
    }
    // 64-bit indices once the stored entries could pass 2^31 - 1.
    double const lim = static_cast<double>(std::numeric_limits<std::int32_t>::max());
    double const vertices =
        kronecker ? std::ldexp(1.0, std::min(args.scale, 62)) : static_cast<double>(args.vertices);
    double const entries =
        (kronecker ? args.edge_factor * vertices : static_cast<double>(args.edges)) *
        (args.undirected ? 2 : 1);
    if (vertices > lim || entries > lim)
        run_indexed<std::int64_t>(kronecker, args, type, g);
    else
        run_indexed<std::int32_t>(kronecker, args, type, g);
}

void add_common(CLI::App* cmd, generate_args& args, global_options& g) {
    cmd->add_option("-o,--output", args.output, "the graph (.mtx)")->required()->check(output_name());
    cmd->add_option("--seed", args.seed, "random seed (same seed, same graph)")
        ->check(unsigned_integer())
        ->capture_default_str();
    cmd->add_option("--weights", args.weights,
                    "lo,hi: uniform random weights (integer bounds: integer weights)")
        ->check([](std::string const& s) {
            return parse_range(s) ? std::string() : "expected lo,hi with lo <= hi, got '" + s + "'";
        });
    cmd->add_option("-t,--type", args.type, "weight type: fp32, fp64, int32 or int64")
        ->check(one_of({"fp32", "fp64", "int32", "int64"}));
    cmd->add_flag("--undirected", args.undirected, "store both directions (a symmetric file)");
    cmd->add_flag("--self-loops", args.self_loops, "keep self-loops (dropped by default)");
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
}

}  // namespace

void add_generate_command(CLI::App& app, global_options& g) {
    auto* cmd =
        app.add_subcommand("generate", "random graphs: Graph500 Kronecker or uniform G(n, m)");
    cmd->require_subcommand(1);
    auto args = std::make_shared<generate_args>();

    auto* kron = cmd->add_subcommand("kronecker", "Graph500 Kronecker graph (A=0.57, B=C=0.19)");
    kron->add_option("--scale", args->scale, "2^scale vertices")
        ->required()
        ->check(integer_in(0, 40));
    kron->add_option("--edge-factor", args->edge_factor, "edges generated per vertex")
        ->check(number_at_least(0, true))
        ->capture_default_str();
    add_common(kron, *args, g);
    kron->callback([args, &g] { run_generate(true, *args, g); });

    auto* uni =
        cmd->add_subcommand("uniform", "Erdős–Rényi G(n, m): m distinct edges uniformly at random");
    uni->add_option("--vertices", args->vertices, "number of vertices")
        ->required()
        ->check(unsigned_integer());
    uni->add_option("--edges", args->edges, "number of distinct edges (undirected: pairs)")
        ->required()
        ->check(unsigned_integer());
    add_common(uni, *args, g);
    uni->callback([args, &g] { run_generate(false, *args, g); });
}

}  // namespace kleene::tools

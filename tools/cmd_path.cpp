// `kleene path FILE --from I --to J [--type T] [--device D]`: one shortest path (1-based vertex ids)
// and its length.

#include "commands.hpp"
#include "finite_weights.hpp"
#include "files.hpp"

#include <kleene/algorithms/apsp.hpp>
#include <kleene/io/matrix_market.hpp>

#include <fmt/core.h>

#include <memory>
#include <string>

namespace kleene::tools {
namespace {

struct path_args {
    std::string input, type, device = "auto";
    std::int64_t from = 0, to = 0;
    read_flags read;
};

template <class T>
void run_typed(path_args const& args, input const& in, global_options const& g) {
    auto const a = in.matrix<T>();
    require_finite_weights(a, in.name(), "path");
    auto const n = static_cast<std::int64_t>(a.rows());
    for (std::int64_t v : {args.from, args.to})
        if (v < 1 || v > n)
            throw command_failed("path: vertex " + std::to_string(v) + " is not in 1.." +
                                 std::to_string(n));
    apsp_options opt;
    opt.predecessors = true;
    opt.device = parse_device(args.device);
    opt.ctx = &g.context();
    apsp_result<T> r;
    try {
        r = apsp(a, opt);
    } catch (negative_cycle const& e) {
        throw command_failed("negative cycle through vertex " + std::to_string(e.vertex() + 1) +
                             " (1-based): shortest paths are undefined");
    }
    auto const i = static_cast<std::size_t>(args.from - 1);
    auto const j = static_cast<std::size_t>(args.to - 1);
    auto const p = path(dense_view<std::int32_t const>(r.pred.view()), i, j);
    if (p.empty()) {
        fmt::print("no path from {} to {}\n", args.from, args.to);
        return;
    }
    std::string s;
    for (auto v : p) s += (s.empty() ? "" : " ") + std::to_string(v + 1);
    fmt::print("path: {}\nlength: {}\n", s, r.dist(i, j));
}

void run_path(path_args const& args, global_options const& g) {
    input const in(args.input, &args.read);
    std::string type = args.type;
    if (type.empty()) type = in.facts().integral ? "int32" : "fp64";
    if (type == "fp32") run_typed<float>(args, in, g);
    else if (type == "fp64") run_typed<double>(args, in, g);
    else run_typed<std::int32_t>(args, in, g);
}

}  // namespace

void add_path_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("path", "one shortest path between two vertices");
    auto args = std::make_shared<path_args>();
    cmd->add_option("FILE", args->input,
                    "weighted adjacency matrix (.mtx, .kbin, .el; - for stdin)")
        ->required();
    cmd->add_option("--from", args->from, "first vertex (1-based)")->required()->check(integer_in());
    cmd->add_option("--to", args->to, "last vertex (1-based)")->required()->check(integer_in());
    cmd->add_option("-t,--type", args->type, "fp32, fp64 or int32")
        ->check(one_of({"fp32", "fp64", "int32"}));
    cmd->add_option("--device", args->device, "auto, cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    add_read_options(cmd, args->read, "min", "the lightest of parallel edges");
    cmd->callback([args, &g] { run_path(*args, g); });
}

}  // namespace kleene::tools

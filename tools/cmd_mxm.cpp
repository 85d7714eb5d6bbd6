// `kleene mxm A B --semiring NAME [--type T] --output C`: a sparse product of two matrix files
// (.mtx, .kbin or edge lists), written as a Matrix Market file.

#include "commands.hpp"
#include "files.hpp"
#include "progress.hpp"
#include "semiring_dispatch.hpp"

#include <kleene/io/matrix_market.hpp>
#include <kleene/kleene.hpp>

#include <fmt/core.h>

#include <chrono>
#include <string>

namespace kleene::tools {
namespace {

struct mxm_args {
    std::string a, b, output, semiring = "plus_times", type, kernel = "auto", device = "auto";
    bool explain = false;
    read_flags read;
};

/// The type a product runs in when --type is not given: the inputs' natural type, widened.
std::string default_type(input const& a, input const& b) {
    return a.facts().integral && b.facts().integral ? "int64" : "fp64";
}

kernel_choice parse_kernel(std::string const& k) {
    if (k == "gustavson_dense") return kernel_choice::gustavson_dense;
    if (k == "gustavson_hash") return kernel_choice::gustavson_hash;
    return kernel_choice::automatic;  // --kernel is checked while parsing
}

void run_mxm(mxm_args const& args, global_options const& g) {
    if (args.device == "gpu")
        throw command_failed("mxm --device gpu: the GPU backend has no sparse x sparse product yet; "
                             "use --device cpu or auto");
    if (args.a == "-" && args.b == "-")
        throw usage_error("A and B are both '-': standard input can be read once");
    output_set outs(g.temps);
    outs.add(args.output);
    input const ia(args.a, &args.read), ib(args.b, &args.read);
    std::string const type = args.type.empty() ? default_type(ia, ib) : args.type;
    dispatch_semiring(args.semiring, type, [&](auto s) {
        using S = decltype(s);
        using T = typename S::value_type;
        progress p(g.quiet);
        auto const a = in_phase(p, "reading " + ia.name(), [&] { return ia.matrix<T>(); });
        auto const b = in_phase(p, "reading " + ib.name(), [&] { return ib.matrix<T>(); });
        csr_matrix<T> c(a.rows(), b.cols());
        explain_trace trace;
        options opt;
        opt.kernel = parse_kernel(args.kernel);
        opt.explain = &trace;
        opt.ctx = &g.context();
        auto const t0 = std::chrono::steady_clock::now();
        in_phase(p, "product", [&] { mxm(c, a, b, s, opt); });
        double const secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        in_phase(p, "writing " + args.output, [&] {
            io::write_matrix_market(outs[0], c);
            outs.commit();
        });
        if (args.explain)
            for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
        if (!g.quiet && args.output != "-")
            fmt::print("C = A {}.{} B: {}x{}, {} entries, {:.3f} ms ({})\n", args.semiring, type,
                       c.rows(), c.cols(), c.nnz(), secs * 1e3, args.output);
    });
}

}  // namespace

void add_mxm_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("mxm", "C = A (+).(x) B over a semiring, from matrix files");
    auto args = std::make_shared<mxm_args>();
    cmd->add_option("A", args->a, "left operand (.mtx, .kbin, .el; - for stdin)")->required();
    cmd->add_option("B", args->b, "right operand (.mtx, .kbin, .el; - for stdin)")->required();
    cmd->add_option("-o,--output", args->output, "result file (.mtx, - for stdout)")
        ->required()
        ->check(output_name());
    cmd->add_option("-s,--semiring", args->semiring, "plus_times, min_plus, max_plus, max_min, min_max, lor_land, any_pair, plus_pair, min_first, min_second, plus_min, max_times")
        ->check(one_of(semiring_names))
        ->capture_default_str();
    cmd->add_option("-t,--type", args->type, "fp32, fp64, int32, int64 or bool (default: from the files)")
        ->check(one_of(type_names));
    cmd->add_option("--kernel", args->kernel, "auto, gustavson_dense or gustavson_hash")
        ->check(one_of({"auto", "gustavson_dense", "gustavson_hash"}))
        ->capture_default_str();
    cmd->add_option("--device", args->device, "auto, cpu or gpu")->check(one_of({"auto", "cpu", "gpu"}))->capture_default_str();
    cmd->add_flag("--explain", args->explain, "print the kernel choice on stderr");
    add_read_options(cmd, args->read, "error", "a product has no policy of its own");
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
    cmd->callback([args, &g] { run_mxm(*args, g); });
}

}  // namespace kleene::tools

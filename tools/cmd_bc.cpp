// `kleene bc FILE (--sources 1,5,9 | --sample K [--seed X]) [-o B.mtx] [--normalize]
// [--method auto|direct|semiring] [--device D] [--explain] [--json]`: betweenness centrality by
// Brandes' algorithm over unweighted shortest paths from a batch of sources (1-based), summed;
// written as an n x 1 real vector. --sample picks K distinct vertices with out-edges at random.

#include "graph_command.hpp"

#include <kleene/algorithms/centrality.hpp>

#include <algorithm>
#include <charconv>

namespace kleene::tools {
namespace {

struct bc_args : graph_args {
    std::string method = "auto", sources;
    std::int64_t sample = 0;
    std::uint64_t seed = 1;
    bool normalize = false;
};

std::vector<std::int64_t> parse_sources(std::string const& list, std::size_t n) {
    std::vector<std::int64_t> out;
    std::size_t pos = 0;
    while (pos <= list.size()) {
        std::size_t const end = std::min(list.find(',', pos), list.size());
        std::int64_t v = 0;
        auto const r = std::from_chars(list.data() + pos, list.data() + end, v);
        if (r.ec != std::errc{} || r.ptr != list.data() + end)
            throw usage_error("--sources: expected 1-based vertex numbers separated by commas, got '" +
                              list + "'");
        if (v < 1 || static_cast<std::uint64_t>(v) > n)
            throw command_failed("bc: source " + std::to_string(v) + " is not in 1.." +
                                 std::to_string(n));
        out.push_back(v - 1);
        pos = end + 1;
    }
    return out;
}

template <class Index>
std::vector<std::int64_t> sample_sources(csr_matrix<bool, Index> const& a, std::size_t k,
                                         std::uint64_t seed) {
    std::vector<std::int64_t> candidates;
    for (std::size_t v = 0; v < a.rows(); ++v)
        if (a.row_end(v) > a.row_begin(v)) candidates.push_back(static_cast<std::int64_t>(v));
    if (candidates.size() < k)
        throw command_failed("bc: --sample " + std::to_string(k) + " but only " +
                             std::to_string(candidates.size()) + " vertices have out-edges");
    // A partial Fisher-Yates shuffle driven by a counter hash: the same seed, the same sources.
    std::uint64_t state = seed;
    for (std::size_t i = 0; i < k; ++i) {
        std::uint64_t x = (state += 0x9e3779b97f4a7c15ull);
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        std::swap(candidates[i], candidates[i + x % (candidates.size() - i)]);
    }
    candidates.resize(k);
    return candidates;
}

void run_bc(bc_args const& args, global_options const& g) {
    if (g.json && args.output == "-")
        throw usage_error("--json and -o - both write to standard output; name a file for -o");
    if (args.sources.empty() == (args.sample == 0))
        throw usage_error("bc: give either --sources or --sample");
    output_set outs(g.temps);
    if (!args.output.empty()) outs.add(args.output);
    with_graph(args, "bc", g, [&](auto const& a, bool symmetric, std::string const&) {
        using Index = typename std::decay_t<decltype(a)>::index_type;
        auto const src = args.sources.empty()
                             ? sample_sources(a, static_cast<std::size_t>(args.sample), args.seed)
                             : parse_sources(args.sources, a.rows());
        explain_trace trace;
        bc_options opt;
        opt.method = args.method == "direct"     ? bc_method::direct
                     : args.method == "semiring" ? bc_method::semiring
                                                 : bc_method::automatic;
        opt.normalize = args.normalize;
        opt.symmetric = symmetric;
        opt.device = parse_device(args.device);
        opt.explain = &trace;
        auto const t0 = std::chrono::steady_clock::now();
        bc_result const r = betweenness(a, std::span<std::int64_t const>(src), opt);
        double const ms = ms_since(t0);
        print_trace(args, trace);
        std::size_t const n = a.rows();
        if (!args.output.empty()) {
            write_vertex_vector<double, Index>(outs[0], n, r.centrality,
                                               [](std::size_t) { return true; });
            outs.commit();
        }
        double top = 0;
        std::size_t top_vertex = 0;
        for (std::size_t v = 0; v < n; ++v)
            if (r.centrality[v] > top) top = r.centrality[v], top_vertex = v + 1;
        print_summary("bc",
                      {item("vertices", n), item("edges", a.nnz()), item("device", device_name(r.device)),
                       item("method", to_string(r.method)), item("sources", src.size()),
                       item("top_vertex", top_vertex), item("top_score", top), item("ms", ms)},
                      g);
    });
}

}  // namespace

void add_bc_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("bc", "betweenness centrality from a batch of sources (Brandes)");
    auto args = std::make_shared<bc_args>();
    add_graph_options(cmd, *args, g, "centrality of every vertex (.mtx vector)", false);
    cmd->add_option("--sources", args->sources, "1-based sources, comma separated (e.g. 1,5,9)");
    cmd->add_option("--sample", args->sample, "this many random sources with out-edges")
        ->check(integer_in(1, std::numeric_limits<std::int32_t>::max()));
    cmd->add_option("--seed", args->seed, "seed of --sample")->check(unsigned_integer());
    cmd->add_flag("--normalize", args->normalize, "divide by the largest score (as GAP does)");
    cmd->add_option("--method", args->method, "auto, direct or semiring (batched mxm)")
        ->check(one_of({"auto", "direct", "semiring"}))
        ->capture_default_str();
    cmd->callback([args, &g] { run_bc(*args, g); });
}

}  // namespace kleene::tools

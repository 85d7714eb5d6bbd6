#pragma once
// What the graph-kernel commands (cc, tc, pagerank, bc) share: the graph file (any format the tool
// reads, files.hpp) read as its pattern with the index width its sizes need, the common options
// (--device, --explain, --json, -q, the reading options), the one-line summary or JSON object, and
// the output vector.

#include "commands.hpp"
#include "files.hpp"
#include "progress.hpp"
#include "usage.hpp"

#include <kleene/algorithms/bfs.hpp>
#include <kleene/io/binary.hpp>
#include <kleene/io/file_format.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/io/value_type.hpp>

#include <fmt/core.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <span>
#include <vector>

namespace kleene::tools {

struct graph_args {
    std::string input, output, device = "auto";
    bool explain = false;
    read_flags read;
};

/// One key of the summary: printed as `key value` in the text line and `"key": value` in JSON.
struct summary_item {
    std::string key;
    std::string value;  // already formatted; strings are quoted by the JSON writer
    bool is_string = false;
};

inline summary_item item(std::string key, std::string value) {
    return {std::move(key), std::move(value), true};
}
inline summary_item item(std::string key, char const* value) {
    return {std::move(key), value, true};
}
template <class N>
summary_item item(std::string key, N number) {
    if constexpr (std::is_floating_point_v<N>) return {std::move(key), fmt::format("{:.6g}", number)};
    else return {std::move(key), std::to_string(number)};
}

/// Prints `cmd: k v, k v, ...` (unless quiet) or one JSON object on stdout.
void print_summary(std::string const& cmd, std::vector<summary_item> const& items,
                   global_options const& g);

/// Registers FILE, -o (when `output_help` is given), --device, --explain, --json, -q.
void add_graph_options(CLI::App* cmd, graph_args& args, global_options& g,
                       char const* output_help, bool output_required);

/// Calls f(a, symmetric, name) with the graph's pattern as csr_matrix<bool, Index> (Index int32
/// when the sizes fit, else int64), read from any format the tool reads (files.hpp). Symmetric:
/// the Matrix Market header says so, or an edge list read --undirected (a .kbin carries no
/// symmetry; the kernels check or symmetrise). Values are ignored.
template <class F>
void with_graph(graph_args const& args, std::string const& cmd, global_options const& g, F&& f) {
    progress p(g.quiet || g.json);
    auto const lim = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
    input const in(args.input, &args.read);
    auto const& h = in.facts();
    auto run = [&](auto index_tag) {
        using Index = decltype(index_tag);
        io::read_options ro;
        ro.pattern_only = true;
        auto const a =
            in_phase(p, "reading " + in.name(), [&] { return in.matrix<bool, Index>(ro); });
        if (a.rows() != a.cols())
            throw command_failed(cmd + ": the adjacency matrix must be square, not " +
                                 std::to_string(a.rows()) + "x" + std::to_string(a.cols()));
        p.done();
        f(a, h.symmetric, in.name());
    };
    if (h.rows > lim || h.cols > lim || h.entries > lim / 2)
        run(std::int64_t{});
    else run(std::int32_t{});
}

/// Writes values[v] for every vertex v with keep(v), as an n x 1 coordinate vector (1-based rows).
template <class V, class Index, class Keep>
void write_vertex_vector(io::output_file& out, std::size_t n, std::span<V const> values, Keep keep) {
    std::size_t count = 0;
    for (std::size_t v = 0; v < n; ++v) count += keep(v) ? 1 : 0;
    buffer<Index> idx(count);
    buffer<V> val(count);
    std::size_t w = 0;
    for (std::size_t v = 0; v < n; ++v)
        if (keep(v)) {
            idx[w] = static_cast<Index>(v);
            val[w++] = values[v];
        }
    io::write_matrix_market(out, sparse_vector<V, Index>(n, std::move(idx), std::move(val)));
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

inline void print_trace(graph_args const& args, explain_trace const& trace) {
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
}

inline char const* device_name(device_choice d) { return d == device_choice::gpu ? "gpu" : "cpu"; }

}  // namespace kleene::tools

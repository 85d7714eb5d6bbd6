// `kleene demo`: BFS levels and shortest-path distances from vertex 1 on a small embedded graph.

#include "commands.hpp"

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

#include <fmt/core.h>
#include <omp.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kleene::tools {
namespace {

// A small road-network-like directed graph (1-based vertices, weights in km).
struct edge {
    int from, to;
    float weight;
};
constexpr edge demo_edges[] = {
    {1, 2, 7},  {1, 3, 9},  {1, 6, 14}, {2, 3, 10}, {2, 4, 15}, {3, 4, 11}, {3, 6, 2},
    {4, 5, 6},  {6, 5, 9},  {5, 7, 3},  {7, 8, 4},  {8, 5, 2},  {6, 8, 20}, {9, 10, 1},
};
constexpr int demo_vertices = 10;

void run_demo(global_options const& g, std::string const& where) {
    std::vector<int> ii, jj;
    std::vector<float> w;
    for (auto const& e : demo_edges) {
        ii.push_back(e.from - 1);
        jj.push_back(e.to - 1);
        w.push_back(e.weight);
    }
    auto const a = csr_matrix<float>::from_coo(demo_vertices, demo_vertices, ii, jj, w);

    explain_trace trace;
    options opt;
    opt.explain = &trace;
    auto const levels = bfs_levels(a, 0, opt);
    int const gpus = cuda::device_count();
    bool const use_gpu = where == "gpu" || (where == "auto" && gpus > 0);
    if (use_gpu) cuda::require_device();  // --device gpu without a GPU: an error, not a fallback
    dense_vector<float> dist;
    if (use_gpu) {
        // All-pairs distances by repeated min.+ squaring of (A with a zero diagonal) on the GPU;
        // row 1 is the answer. ceil(log2(n)) squarings cover paths of up to n - 1 edges.
        using S = min_plus<float>;
        auto d = to_dense<S>(a);
        for (int v = 0; v < demo_vertices; ++v) d(v, v) = 0.0f;
        auto dd = d.to_device();
        dense_matrix<float, device> sq(demo_vertices, demo_vertices);
        for (int len = 1; len < demo_vertices - 1; len *= 2) {
            mxm(sq, dd, dd, S{}, opt);
            std::swap(sq, dd);
        }
        auto const h = dd.to_host();
        dist = dense_vector<float>(demo_vertices);
        for (int v = 0; v < demo_vertices; ++v) dist[v] = h(0, v);
    } else {
        dist = sssp_bellman_ford(a, 0, opt);
    }

    fmt::print("kleene demo: a {}-vertex directed graph with {} weighted edges (embedded)\n",
               demo_vertices, a.nnz());
    fmt::print("BFS levels: CPU ({} OpenMP threads, vector x matrix products over any.pair)\n",
               omp_get_max_threads());
    if (use_gpu)
        fmt::print("distances:  GPU {} (repeated min.+ squaring, dense GEMM)\n",
                   cuda::device_description(0));
    else
        fmt::print("distances:  CPU (Bellman-Ford, vector x matrix products over min.+){}\n",
                   gpus > 0 ? "" : "; no CUDA device present");
    fmt::print("\n{:>6}  {:>9}  {:>14}\n", "vertex", "BFS level", "distance from 1");
    for (int v = 0; v < demo_vertices; ++v) {
        std::string const lv = levels[v] < 0 ? "unreached" : std::to_string(levels[v]);
        std::string const dv = dist[v] == infinity<float>() ? "unreachable" : fmt::format("{:g}", dist[v]);
        fmt::print("{:>6}  {:>9}  {:>14}\n", v + 1, lv, dv);
    }
    if (!g.quiet) {
        fmt::print("\nkernels (explain trace, first product of each kind):\n");
        std::vector<std::string> seen;
        for (auto const& line : trace.lines) {
            // One line per (operation, kernel): "vxm" + "spmspv_push".
            std::size_t const k = line.find(": ", line.find(": ") + 2) + 2;
            std::string const head = line.substr(0, 3) + line.substr(k, line.find(' ', k) - k);
            bool dup = false;
            for (auto const& s : seen) dup |= s == head;
            if (!dup) {
                seen.push_back(head);
                fmt::print("  {}\n", line);
            }
        }
    }
}

}  // namespace

void add_demo_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand("demo", "BFS levels and shortest-path distances from vertex 1 on a small embedded graph");
    auto device = std::make_shared<std::string>("auto");
    cmd->add_flag("-q,--quiet", g.quiet, "only the table");
    cmd->add_option("--device", *device, "auto (the GPU when present), cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    cmd->callback([&g, device] { run_demo(g, *device); });
}

}  // namespace kleene::tools

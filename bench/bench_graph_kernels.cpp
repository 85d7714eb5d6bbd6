// The six GAP kernels on one generated graph, CPU and GPU, one line per kernel and device.
//
//   bench_graph_kernels [--scale S] [--edge-factor E] [--uniform] [--device cpu|gpu|both]
//                       [--sources K] [--bc-sources B] [--runs R] [--threads N] [--seed X]
//                       [--kernels bfs,sssp,cc,pagerank,tc,bc] [--explain]
//
// The graph is GAP's: a Graph500 Kronecker graph (or a uniform one of the same size with
// --uniform), 2^S vertices, E * 2^S generated edges, symmetrised, self-loops dropped, int32
// weights uniform in [1, 255] for SSSP. BFS (with parents) and SSSP run from K random sources of
// degree > 0 (the median is reported, as GAP's trials); CC, PageRank (tolerance 1e-4, GAP's
// definition), TC and BC (one batch of B sources) run R times (median). GPU lines time the device
// kernels alone (events, the graph already on the device) and, in `call ms`, the whole call with
// the result copied back. GTEPS = stored entries (both directions) / time, per source for BFS and
// SSSP and per source of the batch for BC. Every answer is checked CPU against GPU where both ran.

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <kleene/cuda/runtime.hpp>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace kleene;
using Index = std::int32_t;
using clock_type = std::chrono::steady_clock;

struct config {
    int scale = 18;
    double edge_factor = 16;
    bool uniform = false;
    bool cpu = true, gpu = true;
    int sources = 64;
    int bc_sources = 4;
    int runs = 5;
    int threads = 0;
    std::uint64_t seed = 1;
    std::string kernels = "bfs,sssp,cc,pagerank,tc,bc";
    bool explain = false;  // print the GPU runs' notes (their phases and choices)
    bool wants(std::string const& k) const {
        return ("," + kernels + ",").find("," + k + ",") != std::string::npos;
    }
};

void print_notes(std::vector<std::string> const& notes) {
    for (auto const& s : notes) fmt::print("    {}\n", s);
}

double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    if (x.empty()) return 0;
    return x.size() % 2 ? x[x.size() / 2] : 0.5 * (x[x.size() / 2 - 1] + x[x.size() / 2]);
}

template <class F>
double ms_of(F&& f) {
    auto const t0 = clock_type::now();
    f();
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

void line(char const* kernel, char const* device, double ms, double call_ms, double gteps,
          std::string const& answer) {
    fmt::print("{:<9} {:<4} {:>10.3f} {:>10} {:>8} {}\n", kernel, device, ms,
               call_ms > 0 ? fmt::format("{:.3f}", call_ms) : "-",
               gteps > 0 ? fmt::format("{:.2f}", gteps) : "-", answer);
    std::fflush(stdout);
}

[[noreturn]] void fail(std::string const& what) {
    fmt::print(stderr, "bench_graph_kernels: MISMATCH: {}\n", what);
    std::exit(1);
}

config parse(int argc, char** argv) {
    config c;
    for (int i = 1; i < argc; ++i) {
        std::string const o = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                fmt::print(stderr, "{} needs a value\n", o);
                std::exit(2);
            }
            return argv[++i];
        };
        if (o == "--scale")
            c.scale = std::stoi(value());
        else if (o == "--edge-factor")
            c.edge_factor = std::stod(value());
        else if (o == "--uniform")
            c.uniform = true;
        else if (o == "--device") {
            auto const d = value();
            c.cpu = d == "cpu" || d == "both";
            c.gpu = d == "gpu" || d == "both";
        } else if (o == "--sources")
            c.sources = std::stoi(value());
        else if (o == "--bc-sources")
            c.bc_sources = std::stoi(value());
        else if (o == "--runs")
            c.runs = std::stoi(value());
        else if (o == "--threads")
            c.threads = std::stoi(value());
        else if (o == "--seed")
            c.seed = std::stoull(value());
        else if (o == "--kernels")
            c.kernels = value();
        else if (o == "--explain")
            c.explain = true;
        else {
            fmt::print(stderr, "unknown option {}\n", o);
            std::exit(2);
        }
    }
    if (c.scale < 1 || c.scale > 30 || c.sources < 1 || c.bc_sources < 1 || c.runs < 1) {
        fmt::print(stderr, "bad option value\n");
        std::exit(2);
    }
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    config const cfg = parse(argc, argv);
    if (cfg.threads > 0) omp_set_num_threads(cfg.threads);
    bool const gpu = cfg.gpu && cuda::device_count() > 0;
    if (cfg.gpu && !gpu) fmt::print("no GPU: the GPU lines are skipped\n");

    csr_matrix<std::int32_t, Index> w;
    auto const gen_ms = ms_of([&] {
        if (cfg.uniform) {
            uniform_options uo;
            uo.vertices = std::size_t(1) << cfg.scale;
            uo.edges = static_cast<std::size_t>(cfg.edge_factor * double(uo.vertices));
            uo.seed = cfg.seed;
            uo.undirected = true;
            uo.weights = weight_range::integers(1, 255);
            w = uniform_graph<std::int32_t, Index>(uo);
        } else {
            kronecker_options ko;
            ko.scale = cfg.scale;
            ko.edge_factor = cfg.edge_factor;
            ko.seed = cfg.seed;
            ko.undirected = true;
            ko.weights = weight_range::integers(1, 255);
            w = kronecker_graph<std::int32_t, Index>(ko);
        }
    });
    auto const a = pattern_of(w);
    std::size_t const n = a.rows();
    double const m = static_cast<double>(a.nnz());
    fmt::print(
        "graph: {} scale {}, {} vertices, {} stored entries (symmetric), weights int32 "
        "[1, 255], generated in {:.0f} ms; {} CPU threads{}\n",
        cfg.uniform ? "uniform" : "Kronecker", cfg.scale, n, a.nnz(), gen_ms, omp_get_max_threads(),
        gpu ? ", GPU: yes" : "");

    std::vector<std::size_t> src;
    for (std::uint64_t k = 0; src.size() < static_cast<std::size_t>(cfg.sources); ++k) {
        std::uint64_t x = (cfg.seed + k) * 0x9e3779b97f4a7c15ull;
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 29;
        std::size_t const s = static_cast<std::size_t>(x % n);
        if (a.row_end(s) > a.row_begin(s)) src.push_back(s);
        if (k > 1000 * static_cast<std::uint64_t>(cfg.sources)) break;
    }
    std::vector<std::int64_t> bc_src(
        src.begin(), src.begin() + std::min<std::size_t>(src.size(), cfg.bc_sources));

    fmt::print("\n{:<9} {:<4} {:>10} {:>10} {:>8} {}\n", "kernel", "dev", "ms", "call ms", "GTEPS",
               "answer");

    std::optional<csr_matrix<bool, Index, device>> ad;
    std::optional<csr_matrix<std::int32_t, Index, device>> wd;
    if (gpu) {
        ad.emplace(a.to_device());
        wd.emplace(w.to_device());
    }

    if (cfg.wants("bfs")) {
        // ---- BFS (parents) ----
        std::vector<std::int64_t> cpu_levels;  // of src[0], to check the GPU
        if (cfg.cpu) {
            bfs_options o;
            o.device = device_choice::cpu;
            o.parents = true;
            o.symmetric = true;
            std::vector<double> t;
            std::size_t reached = 0;
            for (std::size_t k = 0; k < src.size(); ++k) {
                bfs_result r;
                t.push_back(ms_of([&] { r = bfs(a, src[k], o); }));
                if (k == 0) {
                    cpu_levels.assign(r.level.begin(), r.level.end());
                    reached = static_cast<std::size_t>(std::count_if(
                        r.level.begin(), r.level.end(), [](auto l) { return l >= 0; }));
                }
            }
            double const ms = median(t);
            line("bfs", "cpu", ms, 0, m / (ms * 1e6),
                 fmt::format("{} reached from the first source", reached));
        }
        if (gpu) {
            std::vector<double> t, call;
            for (std::size_t k = 0; k < src.size(); ++k) {
                cuda::bfs_run r;
                call.push_back(ms_of([&] { r = cuda::bfs<bool, Index>(*ad, *ad, src[k], true); }));
                t.push_back(r.seconds * 1e3);
                if (k == 0 && !cpu_levels.empty() && r.level != cpu_levels)
                    fail("bfs levels, GPU vs CPU");
            }
            double const ms = median(t);
            line("bfs", "gpu", ms, median(call), m / (ms * 1e6), "levels equal the CPU's");
        }
    }

    if (cfg.wants("sssp")) {
        // ---- SSSP (delta-stepping, delta chosen from the weights) ----
        std::vector<std::int32_t> cpu_dist;
        if (cfg.cpu) {
            sssp_options o;
            o.device = device_choice::cpu;
            std::vector<double> t;
            for (std::size_t k = 0; k < src.size(); ++k) {
                sssp_result<std::int32_t> r;
                t.push_back(ms_of([&] { r = sssp(w, src[k], o); }));
                if (k == 0) cpu_dist = r.dist;
            }
            double const ms = median(t);
            std::int32_t far = 0;
            for (auto d : cpu_dist)
                if (d != infinity<std::int32_t>()) far = std::max(far, d);
            line("sssp", "cpu", ms, 0, m / (ms * 1e6),
                 fmt::format("eccentricity of the first source {}", far));
        }
        if (gpu) {
            std::vector<double> t, call;
            for (std::size_t k = 0; k < src.size(); ++k) {
                cuda::sssp_run<std::int32_t> r;
                call.push_back(ms_of([&] { r = cuda::sssp<std::int32_t, Index>(*wd, src[k]); }));
                t.push_back(r.seconds * 1e3);
                if (k == 0 && !cpu_dist.empty() && r.dist != cpu_dist)
                    fail("sssp distances, GPU vs CPU");
            }
            double const ms = median(t);
            line("sssp", "gpu", ms, median(call), m / (ms * 1e6), "distances equal the CPU's");
        }
    }

    if (cfg.wants("cc")) {
        // ---- connected components ----
        std::vector<std::int64_t> cpu_comp;
        if (cfg.cpu) {
            cc_options o;
            o.device = device_choice::cpu;
            o.symmetric = true;
            std::vector<double> t;
            cc_result r;
            for (int k = 0; k < cfg.runs; ++k)
                t.push_back(ms_of([&] { r = connected_components(a, o); }));
            cpu_comp.assign(r.component.begin(), r.component.end());
            line("cc", "cpu", median(t), 0, 0,
                 fmt::format("{} components ({}, {} rounds)", r.count, to_string(r.method),
                             r.iterations));
        }
        if (gpu) {
            for (auto kernel : {cuda::cc_kernel::afforest, cuda::cc_kernel::fastsv}) {
                std::vector<double> t, call;
                cuda::cc_run r;
                for (int k = 0; k < cfg.runs; ++k) {
                    call.push_back(
                        ms_of([&] { r = cuda::connected_components<Index>(*ad, kernel); }));
                    t.push_back(r.seconds * 1e3);
                }
                if (!cpu_comp.empty() && r.component != cpu_comp) fail("cc labels, GPU vs CPU");
                line("cc", "gpu", median(t), median(call), 0,
                     fmt::format("{} components ({}, {} rounds)", r.count,
                                 kernel == cuda::cc_kernel::afforest ? "afforest" : "fastsv",
                                 r.iterations));
            }
        }
    }

    if (cfg.wants("pagerank")) {
        // ---- PageRank (GAP definition, tolerance 1e-4) ----
        std::vector<double> cpu_rank;
        if (cfg.cpu) {
            pagerank_options o;
            o.device = device_choice::cpu;
            o.symmetric = true;
            std::vector<double> t;
            pagerank_result r;
            for (int k = 0; k < cfg.runs; ++k) t.push_back(ms_of([&] { r = pagerank(a, o); }));
            cpu_rank.assign(r.rank.begin(), r.rank.end());
            line("pagerank", "cpu", median(t), 0, 0,
                 fmt::format("{} iterations ({}), change {:.2e}", r.iterations, to_string(r.method),
                             r.change));
        }
        if (gpu) {
            for (auto kernel : {cuda::pagerank_kernel::fused, cuda::pagerank_kernel::semiring}) {
                std::vector<double> t, call;
                cuda::pagerank_run r;
                for (int k = 0; k < cfg.runs; ++k) {
                    call.push_back(ms_of([&] { r = cuda::pagerank<Index>(*ad, *ad, {}, kernel); }));
                    t.push_back(r.seconds * 1e3);
                }
                if (!cpu_rank.empty()) {
                    double diff = 0;
                    for (std::size_t v = 0; v < n; ++v) diff += std::abs(r.rank[v] - cpu_rank[v]);
                    if (diff > 1e-3)
                        fail(fmt::format("pagerank: L1 difference GPU vs CPU {:.3e}", diff));
                }
                line("pagerank", "gpu", median(t), median(call), 0,
                     fmt::format("{} iterations ({}), change {:.2e}", r.iterations,
                                 kernel == cuda::pagerank_kernel::fused ? "fused" : "semiring",
                                 r.change));
            }
        }
    }

    if (cfg.wants("tc")) {
        // ---- triangle counting ----
        std::uint64_t cpu_triangles = 0;
        bool have_cpu_tc = false;
        if (cfg.cpu) {
            tc_options o;
            o.device = device_choice::cpu;
            o.symmetric = true;
            std::vector<double> t;
            tc_result r;
            for (int k = 0; k < cfg.runs; ++k)
                t.push_back(ms_of([&] { r = triangle_count(a, o); }));
            cpu_triangles = r.triangles;
            have_cpu_tc = true;
            line("tc", "cpu", median(t), 0, 0,
                 fmt::format("{} triangles ({}{})", r.triangles, to_string(r.method),
                             r.relabelled ? ", relabelled" : ""));
        }
        if (gpu) {
            std::vector<double> t, call;
            cuda::tc_run r;
            for (int k = 0; k < cfg.runs; ++k) {
                call.push_back(ms_of([&] { r = cuda::triangle_count<Index>(*ad, true); }));
                t.push_back(r.seconds * 1e3);
            }
            if (have_cpu_tc && r.triangles != cpu_triangles) fail("triangle count, GPU vs CPU");
            line("tc", "gpu", median(t), median(call), 0,
                 fmt::format("{} triangles{}", r.triangles, r.relabelled ? " (relabelled)" : ""));
            if (cfg.explain) print_notes(r.notes);
        }
    }

    if (cfg.wants("bc")) {
        // ---- betweenness centrality (one batch) ----
        std::vector<double> cpu_bc;
        double const bc_edges = m * static_cast<double>(bc_src.size());
        if (cfg.cpu) {
            bc_options o;
            o.device = device_choice::cpu;
            o.symmetric = true;
            std::vector<double> t;
            bc_result r;
            for (int k = 0; k < cfg.runs; ++k)
                t.push_back(ms_of([&] { r = betweenness(a, bc_src, o); }));
            cpu_bc = r.centrality;
            double const top = cpu_bc.empty() ? 0 : *std::max_element(cpu_bc.begin(), cpu_bc.end());
            line("bc", "cpu", median(t), 0, bc_edges / (median(t) * 1e6),
                 fmt::format("{} sources ({}), largest score {:.6g}", bc_src.size(),
                             to_string(r.method), top));
        }
        if (gpu) {
            std::vector<double> t, call;
            cuda::bc_run r;
            for (int k = 0; k < cfg.runs; ++k) {
                call.push_back(ms_of([&] { r = cuda::betweenness<Index>(*ad, *ad, bc_src); }));
                t.push_back(r.seconds * 1e3);
            }
            if (!cpu_bc.empty())
                for (std::size_t v = 0; v < n; ++v)
                    if (std::abs(r.centrality[v] - cpu_bc[v]) >
                        1e-6 * std::max(1.0, std::abs(cpu_bc[v])))
                        fail(fmt::format("bc of vertex {}: GPU {} CPU {}", v, r.centrality[v],
                                         cpu_bc[v]));
            line("bc", "gpu", median(t), median(call), bc_edges / (median(t) * 1e6),
                 fmt::format("{} sources, equal to the CPU's", bc_src.size()));
            if (cfg.explain) print_notes(r.notes);
        }
    }
    return 0;
}

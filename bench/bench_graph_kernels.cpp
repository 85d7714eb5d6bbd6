// The six GAP kernels on one graph, CPU and GPU, one line per kernel and device.
//
//   bench_graph_kernels [--scale S] [--edge-factor E] [--uniform] [--graph FILE]
//                       [--device cpu|gpu|both] [--sources K] [--sources-file F]
//                       [--write-sources F] [--bc-sources B] [--runs R] [--threads N] [--seed X]
//                       [--kernels bfs,sssp,cc,pagerank,tc,bc] [--explain] [--per-source]
//                       [--serial-edges N] [--gpu-block-edges N] [--write-sg PREFIX]
//                       [--delta D] [--alpha A] [--beta B] [--gpu-async-degree D]
//                       [--gpu-async-warps K] [--gpu-async-poll NS] [--gpu-async-keep K]
//                       [--gpu-block-frontier V] [--gpu-block-level-us T] [--gpu-cluster-blocks C]
//                       [--reuse-results]
//                       [--free-results] [--keep-pool] [--default-pool]
//                       [--pr-block-rows N] [--pr-schedule auto|handed-out|owned]
//                       [--pr-method auto|gauss-seidel|fused|semiring] [--pr-relaxation W]
//
// The graph is GAP's: a Graph500 Kronecker graph (or a uniform one of the same size with
// --uniform), 2^S vertices, E * 2^S generated edges, symmetrised, self-loops dropped, int32
// weights uniform in [1, 255] for SSSP; or --graph FILE, any file the `kleene` tool reads (.mtx,
// .kbin, an edge list), read with int32 weights (a pattern file weighs 1 an edge), self-loops
// dropped and symmetrised when it is not symmetric already (said on the graph line), so that the
// road networks of shared/data/road and the peers' inputs are measured by the same program.
// BFS (parents, GAP's output; the CPU is timed without levels) and SSSP run from K random
// sources of degree > 0, or from the 0-based vertices of --sources-file (one a line;
// --write-sources writes the ones used, for the peers); the median is reported, as GAP's trials.
// CC, PageRank (tolerance 1e-4, GAP's definition), TC and BC (one batch of the first B sources)
// run R times (median). GPU lines time the device kernels alone (events, the graph already on the
// device) and, in `call ms`, the whole call with the result copied back; BFS has a second GPU line
// with its results left on the device. GTEPS = stored entries (both directions) / time, per source
// for BFS and SSSP and per source of the batch for BC. `steps` is the kernel's own count: BFS levels of the
// first source, SSSP rounds (CPU: barrier-separated rounds; GPU: relaxation rounds), CC rounds,
// PageRank iterations. Every answer is checked CPU against GPU where both ran. --write-sg writes
// the graph as PREFIX.sg and PREFIX.wsg, the GAP reference's serialized format (undirected: a
// flag byte, int64 entry and vertex counts, int64 row offsets, int32 neighbours, or neighbour and
// weight pairs), so that bench/peers/run.sh runs the peer on the very graph measured here.
// --gpu-async-degree, --gpu-async-warps, --gpu-async-poll and --gpu-async-keep set the GPU BFS's
// and SSSP's choice of the asynchronous work list (0: never), its warps a multiprocessor, its idle
// warps' pause between polls and the lowered vertices a warp relaxes next itself.
// --gpu-block-frontier V: the GPU BFS's first levels in one block while they hold at most V
// vertices (bfs_tuning::async_block_frontier; 0: the work list from the source) and take at most
// T us a level on average (--gpu-block-level-us, bfs_tuning::async_block_level_us; 0: no limit);
// --gpu-cluster-blocks C: the levels after the block's in a thread-block cluster of C blocks
// (bfs_tuning::async_cluster_blocks; 0: the work list takes over from the block).
// --gpu-bc-loop chained|cooperative|both sets GPU betweenness's level loop on graphs of at most 8
// edges a vertex (tuning::bc_loop; both: a line for each).
// --gpu-tc-relabel auto|always|never|both: the GPU triangle count's renumbering by degree (auto:
// the rule triangle_count applies, tc_relabel::automatic; both: a line for each).
// --reuse-results runs the CPU's CC and PageRank, and the GPU's BFS, SSSP, CC, PageRank and BC,
// into the previous run's result (connected_components(r, a, o), pagerank(r, a, o),
// cuda::bfs(run, ...), cuda::sssp(run, ...), ...): its storage is reused, so the
// runs after the first fault in no new pages for the result. Without it every run makes a fresh
// result, whose first touch (8 bytes a vertex) is part of the time; the GAP reference's trials get
// their (4-byte) outputs from the allocator's reused memory (0 new page faults a trial at steady
// state, measured on NY, NE and uniform 20), so --reuse-results is the like-for-like comparison.
// --free-results releases the previous run's result before each timed run (outside the time), as
// the GAP reference's harness does between its trials: the new result may then take its pages.
// --default-pool has the contexts allocate their temporaries from the device's default pool
// (context::set_memory_pool) instead of each context's own, which keeps what a call frees.
// --keep-pool lets the device's default memory pool keep the memory the library's temporaries
// free (cudaMemPoolAttrReleaseThreshold; by default it goes back to the driver at each
// synchronisation and the next call maps it again): the share of a GPU call's time that is
// mapping memory.
// --pool-keep BYTES (or `all`) sets what the contexts' own pools keep of the memory the calls free
// (context::set_memory_pool_keep; default kleene::cuda::default_memory_pool_keep); the end of a
// GPU run prints the pools' peaks (cuda::pool_usage).
// --pr-block-rows sets the CPU PageRank's Gauss-Seidel block rows (0: automatic),
// --pr-schedule its pagerank_options::schedule (how the blocks go to the threads), --pr-method
// its method, --pr-relaxation its pagerank_options::relaxation (0: automatic, 1: none, (1, 2):
// that weight from the first step).

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/io/binary.hpp>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/file_format.hpp>
#include <kleene/io/matrix_market.hpp>
#include <optional>
#include <string>
#include <vector>
#if KLEENE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

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
    std::string graph;          // a file instead of a generated graph
    std::string sources_file;   // sources to use (0-based, one a line)
    std::string write_sources;  // where to write the sources used
    long long serial_edges = -1;     // CPU BFS: bfs_options::serial_edges (-1: default)
    long long gpu_block_edges = -1;  // GPU BFS: bfs_tuning::block_edges (-1: default)
    std::string write_sg;            // PREFIX of the .sg / .wsg copies for the GAP reference
    double delta = 0;                // SSSP bucket width, CPU and GPU (0: automatic)
    double alpha = 0, beta = 0;      // BFS direction switches, CPU and GPU (0: the defaults)
    std::string gpu_bc_loop = "auto";  // auto, chained, cooperative, both
    std::string gpu_tc_relabel = "auto";  // auto (the library's degree rule), always, never, both
    double gpu_async_degree = -1;    // GPU BFS and SSSP: async_degree (-1: default; 0: never)
    int gpu_async_warps = 0;         // GPU BFS and SSSP: async_warps (0: default)
    long long gpu_async_poll = -1;   // GPU BFS and SSSP: async_poll_ns (-1: default)
    long long gpu_async_keep = -1;   // GPU BFS and SSSP: async_keep (-1: default)
    long long gpu_block_frontier = -1;  // GPU BFS: async_block_frontier (-1: default)
    double gpu_block_level_us = -1;     // GPU BFS: async_block_level_us (-1: default)
    int gpu_cluster_blocks = -1;        // GPU BFS: async_cluster_blocks (-1: default)
    bool explain = false;  // print the runs' notes (GPU: each run's; CPU: one more, untimed run)
    bool per_source = false;  // GPU BFS: each source's kernel time, not only the median
    bool reuse_results = false;  // CPU cc and pagerank: each run into the last run's result
    bool free_results = false;
    bool keep_pool = false;  // the device's default memory pool keeps freed memory (experiment)
    bool default_pool = false;  // the contexts allocate from the device's default pool
    std::optional<std::size_t> pool_keep;  // context::set_memory_pool_keep (unset: the default)
    long long pr_block_rows = 0;  // CPU PageRank: pagerank_options::gauss_seidel_block_rows
    std::string pr_schedule = "auto";  // CPU PageRank: pagerank_options::schedule
    std::string pr_method = "auto";    // CPU PageRank: pagerank_options::method
    double pr_relaxation = 0;          // CPU PageRank: pagerank_options::relaxation
    bool wants(std::string const& k) const {
        return ("," + kernels + ",").find("," + k + ",") != std::string::npos;
    }
};

void print_notes(std::vector<std::string> const& notes) {
    for (auto const& s : notes) fmt::print("    {}\n", s);
}

/// One more, untimed run with a trace in o.explain, and its lines printed.
template <class Options, class Run>
void print_explained(Options& o, Run&& run) {
    explain_trace trace;
    o.explain = &trace;
    run();
    o.explain = nullptr;
    print_notes(trace.lines);
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
          long long steps, std::string const& answer) {
    fmt::print("{:<9} {:<4} {:>10.3f} {:>10} {:>8} {:>7} {}\n", kernel, device, ms,
               call_ms > 0 ? fmt::format("{:.3f}", call_ms) : "-",
               gteps > 0 ? fmt::format("{:.2f}", gteps) : "-",
               steps >= 0 ? std::to_string(steps) : "-", answer);
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
        else if (o == "--per-source")
            c.per_source = true;
        else if (o == "--reuse-results")
            c.reuse_results = true;
        else if (o == "--free-results")
            c.free_results = true;
        else if (o == "--keep-pool")
            c.keep_pool = true;
        else if (o == "--default-pool")
            c.default_pool = true;
        else if (o == "--pool-keep") {
            std::string const v = value();
            c.pool_keep = v == "all" ? std::numeric_limits<std::size_t>::max()
                                     : static_cast<std::size_t>(std::stoull(v));
        }
        else if (o == "--pr-block-rows")
            c.pr_block_rows = std::stoll(value());
        else if (o == "--pr-schedule")
            c.pr_schedule = value();
        else if (o == "--pr-method")
            c.pr_method = value();
        else if (o == "--pr-relaxation")
            c.pr_relaxation = std::stod(value());
        else if (o == "--graph")
            c.graph = value();
        else if (o == "--sources-file")
            c.sources_file = value();
        else if (o == "--write-sources")
            c.write_sources = value();
        else if (o == "--serial-edges")
            c.serial_edges = std::stoll(value());
        else if (o == "--gpu-block-edges")
            c.gpu_block_edges = std::stoll(value());
        else if (o == "--write-sg")
            c.write_sg = value();
        else if (o == "--alpha")
            c.alpha = std::stod(value());
        else if (o == "--beta")
            c.beta = std::stod(value());
        else if (o == "--delta")
            c.delta = std::stod(value());
        else if (o == "--gpu-async-degree")
            c.gpu_async_degree = std::stod(value());
        else if (o == "--gpu-async-warps")
            c.gpu_async_warps = std::stoi(value());
        else if (o == "--gpu-tc-relabel")
            c.gpu_tc_relabel = value();
        else if (o == "--gpu-bc-loop")
            c.gpu_bc_loop = value();
        else if (o == "--gpu-async-poll")
            c.gpu_async_poll = std::stoll(value());
        else if (o == "--gpu-async-keep")
            c.gpu_async_keep = std::stoll(value());
        else if (o == "--gpu-block-frontier")
            c.gpu_block_frontier = std::stoll(value());
        else if (o == "--gpu-block-level-us")
            c.gpu_block_level_us = std::stod(value());
        else if (o == "--gpu-cluster-blocks")
            c.gpu_cluster_blocks = std::stoi(value());
        else {
            fmt::print(stderr, "unknown option {}\n", o);
            std::exit(2);
        }
    }
    if (c.pr_method != "auto" && c.pr_method != "gauss-seidel" && c.pr_method != "fused" &&
        c.pr_method != "semiring") {
        fmt::print(stderr, "--pr-method: auto, gauss-seidel, fused or semiring, not {}\n",
                   c.pr_method);
        std::exit(2);
    }
    if (c.pr_schedule != "auto" && c.pr_schedule != "handed-out" && c.pr_schedule != "owned") {
        fmt::print(stderr, "--pr-schedule: auto, handed-out or owned, not {}\n", c.pr_schedule);
        std::exit(2);
    }
    if (c.scale < 1 || c.scale > 30 || c.sources < 1 || c.bc_sources < 1 || c.runs < 1) {
        fmt::print(stderr, "bad option value\n");
        std::exit(2);
    }
    return c;
}


/// The graph of --graph: int32 weights (a pattern file weighs 1 an edge), no self-loops,
/// symmetric (A min A' when the file is not).
csr_matrix<std::int32_t, Index> read_graph(std::string const& path, std::string& made) {
    auto const format = io::format_from_extension(path);
    csr_matrix<std::int32_t, Index> g;
    if (format == io::file_format::binary) {
        g = io::read_binary<std::int32_t, Index>(path);
    } else if (format == io::file_format::edge_list) {
        io::edge_list_options eo;
        eo.duplicates = duplicate_policy::min;
        g = io::read_edge_list<std::int32_t, Index>(path, eo);
    } else {
        io::read_options ro;
        ro.duplicates = duplicate_policy::min;
        g = io::read_matrix_market<std::int32_t, Index>(path, ro);
    }
    if (g.rows() != g.cols())
        throw dimension_mismatch(path + ": the graph must be square, not " +
                                 std::to_string(g.rows()) + " x " + std::to_string(g.cols()));
    std::size_t const n = g.rows();
    std::vector<Index> ii, jj;
    std::vector<std::int32_t> vv;
    std::size_t loops = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = g.row_begin(i); k < g.row_end(i); ++k) {
            auto const j = static_cast<std::size_t>(g.col_idx()[k]);
            if (j == i) {
                ++loops;
                continue;
            }
            ii.push_back(static_cast<Index>(i));
            jj.push_back(static_cast<Index>(j));
            vv.push_back(g.value(k));
        }
    auto const t = cpu::transpose_csr(pattern_of(g));
    bool symmetric = t.nnz() == g.nnz();
    for (std::size_t i = 0; symmetric && i < n; ++i)
        symmetric = g.row_end(i) - g.row_begin(i) == t.row_end(i) - t.row_begin(i) &&
                    std::equal(g.col_idx() + g.row_begin(i), g.col_idx() + g.row_end(i),
                               t.col_idx() + t.row_begin(i));
    std::size_t const stored = ii.size();
    if (!symmetric)
        for (std::size_t k = 0; k < stored; ++k) {
            ii.push_back(jj[k]);
            jj.push_back(ii[k]);
            vv.push_back(vv[k]);
        }
    made = fmt::format("{} ({}{}{})", path, g.is_iso() ? "pattern: weights 1" : "int32 weights",
                       loops ? fmt::format(", {} self-loops dropped", loops) : std::string(),
                       symmetric ? "" : ", symmetrised (A min A')");
    return csr_matrix<std::int32_t, Index>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
}

/// The GAP reference's serialized graph (see the top of the file): PREFIX.sg, PREFIX.wsg.
void write_serialized(std::string const& prefix, csr_matrix<std::int32_t, Index> const& w) {
    for (bool weighted : {false, true}) {
        std::string const path = prefix + (weighted ? ".wsg" : ".sg");
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) throw invalid_argument("cannot write " + path);
        bool const directed = false;
        auto const edges = static_cast<std::int64_t>(w.nnz());
        auto const n = static_cast<std::int64_t>(w.rows());
        std::vector<std::int64_t> offsets(w.rows() + 1);
        for (std::size_t i = 0; i <= w.rows(); ++i)
            offsets[i] = static_cast<std::int64_t>(w.row_ptr()[i]);
        bool ok = std::fwrite(&directed, sizeof directed, 1, f) == 1 &&
                  std::fwrite(&edges, sizeof edges, 1, f) == 1 &&
                  std::fwrite(&n, sizeof n, 1, f) == 1 &&
                  std::fwrite(offsets.data(), sizeof(std::int64_t), offsets.size(), f) ==
                      offsets.size();
        if (weighted) {
            std::vector<std::int32_t> pairs(2 * w.nnz());
            for (std::size_t k = 0; k < w.nnz(); ++k) {
                pairs[2 * k] = static_cast<std::int32_t>(w.col_idx()[k]);
                pairs[2 * k + 1] = w.value(k);
            }
            ok = ok && std::fwrite(pairs.data(), sizeof(std::int32_t), pairs.size(), f) == pairs.size();
        } else {
            std::vector<std::int32_t> cols(w.col_idx(), w.col_idx() + w.nnz());
            ok = ok && std::fwrite(cols.data(), sizeof(std::int32_t), cols.size(), f) == cols.size();
        }
        ok = std::fclose(f) == 0 && ok;
        if (!ok) throw invalid_argument("writing " + path + " failed");
    }
}

/// 0-based vertices, one a line (blank lines and lines starting with '#' skipped).
std::vector<std::size_t> read_sources(std::string const& path, std::size_t n) {
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (!f) throw invalid_argument("cannot open the sources file " + path);
    std::vector<std::size_t> src;
    char buf[256];
    for (int line = 1; std::fgets(buf, sizeof buf, f); ++line) {
        std::string s(buf);
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
        if (s.empty() || s[0] == '#') continue;
        char* end = nullptr;
        unsigned long long const v = std::strtoull(s.c_str(), &end, 10);
        if (*end != '\0' || v >= n || s[0] == '-') {
            std::fclose(f);
            throw invalid_argument(fmt::format("{}:{}: '{}' is not a vertex of a {}-vertex graph",
                                               path, line, s, n));
        }
        src.push_back(static_cast<std::size_t>(v));
    }
    std::fclose(f);
    return src;
}

}  // namespace

int bench_main(int argc, char** argv) {
    config const cfg = parse(argc, argv);
    if (cfg.threads > 0) omp_set_num_threads(cfg.threads);
    bool const gpu = cfg.gpu && cuda::device_count() > 0;
#if KLEENE_HAVE_CUDA
    if (gpu && cfg.keep_pool) {
        // The library's temporaries come from the device's default pool (cudaMallocAsync), which
        // by default hands freed memory back to the driver at every synchronisation: the next
        // call maps it again. Here it keeps up to all of it (a process-wide setting: the
        // benchmark's own, never the library's).
        cudaMemPool_t pool = nullptr;
        std::uint64_t keep = ~std::uint64_t(0);
        if (cudaDeviceGetDefaultMemPool(&pool, 0) != cudaSuccess ||
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
            fmt::print(stderr, "bench_graph_kernels: --keep-pool: the pool's threshold not set\n");
            return 1;
        }
        fmt::print("the device's default memory pool keeps freed memory (--keep-pool)\n");
    }
    cudaMemPool_t device_pool = nullptr;
    if (gpu && cfg.default_pool) {
        // The contexts' temporaries from the device's default pool (as cudaMallocAsync), not
        // from each context's own pool: the A/B of the context's pool.
        if (cudaDeviceGetDefaultMemPool(&device_pool, 0) != cudaSuccess) {
            fmt::print(stderr, "bench_graph_kernels: --default-pool: no default pool\n");
            return 1;
        }
        default_context().set_memory_pool(device_pool);
        fmt::print("the contexts allocate from the device's default pool (--default-pool)\n");
    }
    if (gpu) default_context().set_memory_pool_keep(cfg.pool_keep);
#else
    void* device_pool = nullptr;
#endif
    if (cfg.gpu && !gpu) fmt::print("no GPU: the GPU lines are skipped\n");

    csr_matrix<std::int32_t, Index> w;
    std::string made;  // how the graph came to be, for the graph line
    auto const gen_ms = ms_of([&] {
        if (!cfg.graph.empty()) {
            w = read_graph(cfg.graph, made);
        } else if (cfg.uniform) {
            uniform_options uo;
            uo.vertices = std::size_t(1) << cfg.scale;
            uo.edges = static_cast<std::size_t>(cfg.edge_factor * double(uo.vertices));
            uo.seed = cfg.seed;
            uo.undirected = true;
            uo.weights = weight_range::integers(1, 255);
            w = uniform_graph<std::int32_t, Index>(uo);
            made = fmt::format("uniform scale {}, weights int32 [1, 255]", cfg.scale);
        } else {
            kronecker_options ko;
            ko.scale = cfg.scale;
            ko.edge_factor = cfg.edge_factor;
            ko.seed = cfg.seed;
            ko.undirected = true;
            ko.weights = weight_range::integers(1, 255);
            w = kronecker_graph<std::int32_t, Index>(ko);
            made = fmt::format("Kronecker scale {}, weights int32 [1, 255]", cfg.scale);
        }
    });
    if (!cfg.write_sg.empty()) write_serialized(cfg.write_sg, w);
    auto const a = pattern_of(w);
    std::size_t const n = a.rows();
    double const m = static_cast<double>(a.nnz());
    fmt::print("graph: {}, {} vertices, {} stored entries (symmetric), made in {:.0f} ms; {} CPU "
               "threads{}\n",
               made, n, a.nnz(), gen_ms, omp_get_max_threads(), gpu ? ", GPU: yes" : "");

    std::vector<std::size_t> src;
    if (!cfg.sources_file.empty()) {
        src = read_sources(cfg.sources_file, n);
    } else {
        for (std::uint64_t k = 0; src.size() < static_cast<std::size_t>(cfg.sources); ++k) {
            std::uint64_t x = (cfg.seed + k) * 0x9e3779b97f4a7c15ull;
            x ^= x >> 31;
            x *= 0xbf58476d1ce4e5b9ull;
            x ^= x >> 29;
            std::size_t const s = static_cast<std::size_t>(x % n);
            if (a.row_end(s) > a.row_begin(s)) src.push_back(s);
            if (k > 1000 * static_cast<std::uint64_t>(cfg.sources)) break;
        }
    }
    if (src.empty()) {
        fmt::print(stderr, "bench_graph_kernels: no source of degree > 0\n");
        return 2;
    }
    if (!cfg.write_sources.empty()) {
        std::FILE* f = std::fopen(cfg.write_sources.c_str(), "w");
        if (!f) {
            fmt::print(stderr, "bench_graph_kernels: cannot write {}\n", cfg.write_sources);
            return 2;
        }
        for (auto s : src) fmt::print(f, "{}\n", s);
        std::fclose(f);
    }
    std::vector<std::int64_t> bc_src(
        src.begin(), src.begin() + std::min<std::size_t>(src.size(), cfg.bc_sources));

    fmt::print("\n{:<9} {:<4} {:>10} {:>10} {:>8} {:>7} {}\n", "kernel", "dev", "ms", "call ms",
               "GTEPS", "steps", "answer");

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
            o.serial_edges = cfg.serial_edges;
            o.alpha = cfg.alpha;
            o.beta = cfg.beta;
            // Timed: parents only, the GAP reference's output; the first source's levels come
            // from one more, untimed search (the check against the GPU).
            o.levels = false;
            std::vector<double> t;
            std::size_t reached = 0;
            long long levels = 0;
            for (std::size_t k = 0; k < src.size(); ++k) {
                bfs_result r;
                t.push_back(ms_of([&] { r = bfs(a, src[k], o); }));
                if (k == 0) {
                    bfs_options lo = o;
                    lo.levels = true;
                    if (cfg.explain) print_explained(lo, [&] { r = bfs(a, src[k], lo); });
                    else r = bfs(a, src[k], lo);
                    cpu_levels.assign(r.level.begin(), r.level.end());
                    reached = static_cast<std::size_t>(std::count_if(
                        r.level.begin(), r.level.end(), [](auto l) { return l >= 0; }));
                    levels = *std::max_element(r.level.begin(), r.level.end()) + 1;
                }
            }
            double const ms = median(t);
            line("bfs", "cpu", ms, 0, m / (ms * 1e6), levels,
                 fmt::format("{} reached from the first source", reached));
        }
        if (gpu) {
            std::vector<double> t, call;
            long long levels = 0;
            cuda::bfs_tuning tuning;
            if (cfg.gpu_block_edges >= 0) tuning.block_edges = cfg.gpu_block_edges;
            if (cfg.alpha > 0) tuning.alpha = cfg.alpha;
            if (cfg.beta > 0) tuning.beta = cfg.beta;
            if (cfg.gpu_async_degree >= 0) tuning.async_degree = cfg.gpu_async_degree;
            if (cfg.gpu_async_warps > 0) tuning.async_warps = cfg.gpu_async_warps;
            if (cfg.gpu_async_poll >= 0) tuning.async_poll_ns = unsigned(cfg.gpu_async_poll);
            if (cfg.gpu_async_keep >= 0) tuning.async_keep = unsigned(cfg.gpu_async_keep);
            if (cfg.gpu_block_frontier >= 0) tuning.async_block_frontier = cfg.gpu_block_frontier;
            if (cfg.gpu_block_level_us >= 0) tuning.async_block_level_us = cfg.gpu_block_level_us;
            if (cfg.gpu_cluster_blocks >= 0) tuning.async_cluster_blocks = cfg.gpu_cluster_blocks;
            cuda::bfs_run r;
            for (std::size_t k = 0; k < src.size(); ++k) {
                // The first source's search keeps the device-clock profile for the explain
                // trace (a kernel of its own, bfs_tuning::profile); the others run without it.
                cuda::bfs_tuning tk = tuning;
                tk.profile = cfg.explain && k == 0;
                call.push_back(ms_of([&] {
                    if (cfg.reuse_results)
                        cuda::bfs<bool, Index>(r, *ad, *ad, src[k], true, tk, default_context());
                    else
                        r = cuda::bfs<bool, Index>(*ad, *ad, src[k], true, tk);
                }));
                t.push_back(r.seconds * 1e3);
                if (k == 0) {
                    levels = static_cast<long long>(r.levels);
                    if (!cpu_levels.empty() && r.level != cpu_levels)
                        fail("bfs levels, GPU vs CPU");
                    if (cfg.explain) print_notes(r.notes);
                }
            }
            if (cfg.per_source)
                for (std::size_t k = 0; k < src.size(); ++k)
                    fmt::print("bfs gpu source {}: {:.3f} ms\n", src[k], t[k]);
            double const ms = median(t);
            line("bfs", "gpu", ms, median(call), m / (ms * 1e6), levels,
                 cpu_levels.empty() ? "levels not checked (no CPU run)" : "levels equal the CPU's");
            // The same searches with levels and parents left on the device (the caller's
            // vectors, reused): the call without the copy back.
            dense_vector<std::int64_t, device> level_d(ad->rows()), parent_d(ad->rows());
            std::vector<double> td, calld;
            for (std::size_t k = 0; k < src.size(); ++k) {
                cuda::bfs_run r;
                calld.push_back(ms_of([&] {
                    r = cuda::bfs<bool, Index>(*ad, *ad, src[k], level_d, &parent_d, tuning,
                                               default_context());
                }));
                td.push_back(r.seconds * 1e3);
                if (k == 0 && !cpu_levels.empty()) {
                    auto const lv = level_d.to_host();
                    if (!std::equal(lv.begin(), lv.end(), cpu_levels.begin()))
                        fail("bfs levels on the device, GPU vs CPU");
                }
            }
            double const msd = median(td);
            line("bfs", "gpu", msd, median(calld), m / (msd * 1e6), levels,
                 "results left on the device (call: no copy back)");
        }
    }

    if (cfg.wants("sssp")) {
        // ---- SSSP (delta-stepping, delta chosen from the weights) ----
        std::vector<std::int32_t> cpu_dist;
        if (cfg.cpu) {
            sssp_options o;
            o.device = device_choice::cpu;
            o.delta = cfg.delta;
            std::vector<double> t;
            long long rounds = 0;
            for (std::size_t k = 0; k < src.size(); ++k) {
                sssp_result<std::int32_t> r;
                t.push_back(ms_of([&] { r = sssp(w, src[k], o); }));
                if (k == 0) {
                    cpu_dist = r.dist;
                    rounds = static_cast<long long>(r.rounds);
                }
            }
            double const ms = median(t);
            std::int32_t far = 0;
            for (auto d : cpu_dist)
                if (d != infinity<std::int32_t>()) far = std::max(far, d);
            line("sssp", "cpu", ms, 0, m / (ms * 1e6), rounds,
                 fmt::format("eccentricity of the first source {}", far));
        }
        if (gpu) {
            std::vector<double> t, call;
            long long rounds = 0;
            cuda::sssp_tuning tuning;
            tuning.delta = cfg.delta;
            // The weights' summary, as a kleene::graph keeps it and sssp() on a graph hands it
            // to the device search: the call skips its own pass over the weights.
            detail::weight_summary const ws = detail::summarise_weights(w);
            tuning.weight_mean = ws.mean;
            tuning.weight_min = ws.min;
            if (cfg.gpu_async_degree >= 0) tuning.async_degree = cfg.gpu_async_degree;
            if (cfg.gpu_async_warps > 0) tuning.async_warps = cfg.gpu_async_warps;
            if (cfg.gpu_async_poll >= 0) tuning.async_poll_ns = unsigned(cfg.gpu_async_poll);
            if (cfg.gpu_async_keep >= 0) tuning.async_keep = unsigned(cfg.gpu_async_keep);
            cuda::sssp_run<std::int32_t> r;
            for (std::size_t k = 0; k < src.size(); ++k) {
                call.push_back(ms_of([&] {
                    if (cfg.reuse_results)
                        cuda::sssp<std::int32_t, Index>(r, *wd, src[k], tuning, default_context());
                    else
                        r = cuda::sssp<std::int32_t, Index>(*wd, src[k], tuning);
                }));
                t.push_back(r.seconds * 1e3);
                if (k == 0) {
                    rounds = static_cast<long long>(r.rounds);
                    if (!cpu_dist.empty() && r.dist != cpu_dist) fail("sssp distances, GPU vs CPU");
                    if (cfg.explain && !r.notes.empty()) print_notes({r.notes});
                }
            }
            double const ms = median(t);
            line("sssp", "gpu", ms, median(call), m / (ms * 1e6), rounds,
                 cpu_dist.empty() ? "weights' summary given, distances not checked (no CPU run)"
                                  : "weights' summary given, distances equal the CPU's");
            // The same searches with the distances left on the device (the caller's vector).
            dense_vector<std::int32_t, device> dist_d(wd->rows());
            std::vector<double> td, calld;
            for (std::size_t k = 0; k < src.size(); ++k) {
                cuda::sssp_run<std::int32_t> r;
                calld.push_back(ms_of([&] {
                    r = cuda::sssp<std::int32_t, Index>(*wd, src[k], dist_d, tuning,
                                                        default_context());
                }));
                td.push_back(r.seconds * 1e3);
                if (k == 0 && !cpu_dist.empty()) {
                    auto const dd = dist_d.to_host();
                    if (!std::equal(dd.begin(), dd.end(), cpu_dist.begin()))
                        fail("sssp distances on the device, GPU vs CPU");
                }
            }
            double const msd = median(td);
            line("sssp", "gpu", msd, median(calld), m / (msd * 1e6), rounds,
                 "results left on the device (call: no copy back)");
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
            for (int k = 0; k < cfg.runs; ++k) {
                if (cfg.free_results) r = cc_result{};
                t.push_back(ms_of([&] {
                    if (cfg.reuse_results) connected_components(r, a, o);
                    else r = connected_components(a, o);
                }));
            }
            if (cfg.explain) print_explained(o, [&] { r = connected_components(a, o); });
            cpu_comp.assign(r.component.begin(), r.component.end());
            line("cc", "cpu", median(t), 0, 0, r.iterations,
                 fmt::format("{} components ({}, {} rounds)", r.count, to_string(r.method),
                             r.iterations));
        }
        if (gpu) {
            for (auto kernel : {cuda::cc_kernel::afforest, cuda::cc_kernel::fastsv}) {
                std::vector<double> t, call;
                cuda::cc_run r;
                for (int k = 0; k < cfg.runs; ++k) {
                    call.push_back(ms_of([&] {
                        if (cfg.reuse_results)
                            cuda::connected_components<Index>(r, *ad, kernel, default_context());
                        else
                            r = cuda::connected_components<Index>(*ad, kernel);
                    }));
                    t.push_back(r.seconds * 1e3);
                }
                if (!cpu_comp.empty() && r.component != cpu_comp) fail("cc labels, GPU vs CPU");
                line("cc", "gpu", median(t), median(call), 0, r.iterations,
                     fmt::format("{} components ({}, {} rounds)", r.count,
                                 kernel == cuda::cc_kernel::afforest ? "afforest" : "fastsv",
                                 r.iterations));
            }
            // Afforest with the labels left on the device (the caller's vector).
            dense_vector<std::int64_t, device> comp_d(ad->rows());
            std::vector<double> t, call;
            cuda::cc_run r;
            for (int k = 0; k < cfg.runs; ++k) {
                call.push_back(ms_of([&] {
                    r = cuda::connected_components<Index>(*ad, comp_d, cuda::cc_kernel::afforest,
                                                          default_context());
                }));
                t.push_back(r.seconds * 1e3);
            }
            if (!cpu_comp.empty()) {
                auto const cd = comp_d.to_host();
                if (!std::equal(cd.begin(), cd.end(), cpu_comp.begin()))
                    fail("cc labels on the device, GPU vs CPU");
            }
            line("cc", "gpu", median(t), median(call), 0, r.iterations,
                 "afforest, results left on the device (call: no copy back)");
        }
    }

    if (cfg.wants("pagerank")) {
        // ---- PageRank (GAP definition, tolerance 1e-4) ----
        std::vector<double> cpu_rank;
        if (cfg.cpu) {
            pagerank_options o;
            o.device = device_choice::cpu;
            o.symmetric = true;
            o.gauss_seidel_block_rows = static_cast<std::size_t>(std::max(0LL, cfg.pr_block_rows));
            o.schedule = cfg.pr_schedule == "owned"        ? pagerank_schedule::owned
                         : cfg.pr_schedule == "handed-out" ? pagerank_schedule::handed_out
                                                           : pagerank_schedule::automatic;
            o.method = cfg.pr_method == "gauss-seidel" ? pagerank_method::gauss_seidel
                       : cfg.pr_method == "fused"      ? pagerank_method::fused
                       : cfg.pr_method == "semiring"   ? pagerank_method::semiring
                                                       : pagerank_method::automatic;
            o.relaxation = cfg.pr_relaxation;
            std::vector<double> t;
            pagerank_result r;
            for (int k = 0; k < cfg.runs; ++k) {
                if (cfg.free_results) r = pagerank_result{};
                t.push_back(ms_of([&] {
                    if (cfg.reuse_results) pagerank(r, a, o);
                    else r = pagerank(a, o);
                }));
            }
            if (cfg.explain) print_explained(o, [&] { r = pagerank(a, o); });
            cpu_rank.assign(r.rank.begin(), r.rank.end());
            // The five highest ranks' vertices, to set beside the GAP reference's.
            std::vector<std::size_t> top(n);
            for (std::size_t v = 0; v < n; ++v) top[v] = v;
            std::size_t const k = std::min<std::size_t>(5, n);
            std::partial_sort(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(k), top.end(),
                              [&](std::size_t x, std::size_t y) { return cpu_rank[x] > cpu_rank[y]; });
            std::string tops;
            for (std::size_t i = 0; i < k; ++i) tops += (i ? "," : "") + std::to_string(top[i]);
            line("pagerank", "cpu", median(t), 0, 0, r.iterations,
                 fmt::format("{} iterations ({}{}), change {:.2e}, top {}", r.iterations,
                             to_string(r.method),
                             r.relaxed_from > 0 ? fmt::format(", over-relaxed by {:.3g} from {}",
                                                              r.relaxation, r.relaxed_from)
                                                : std::string(),
                             r.change, tops));
        }
        if (gpu) {
            // The library's automatic method first (pagerank.hpp: Jacobi where the degrees are
            // skewed, else Gauss-Seidel), then the other two kernels.
            bool const skewed =
                double(cuda::max_row_entries<Index>(*ad, default_context())) >
                64.0 * double(ad->nnz()) / double(std::max<std::size_t>(n, 1));
            auto const chosen =
                skewed ? cuda::pagerank_kernel::fused : cuda::pagerank_kernel::gauss_seidel;
            auto const name_of = [](cuda::pagerank_kernel k) {
                return k == cuda::pagerank_kernel::fused          ? "fused"
                       : k == cuda::pagerank_kernel::gauss_seidel ? "gauss-seidel"
                                                                  : "semiring";
            };
            for (auto kernel : {chosen,
                                skewed ? cuda::pagerank_kernel::gauss_seidel
                                       : cuda::pagerank_kernel::fused,
                                cuda::pagerank_kernel::semiring}) {
                std::vector<double> t, call;
                // One untimed call first: the first kernel measured would otherwise pay the
                // fresh result pages alone (NY, 2026-11-29: a call of 2.4 ms around 0.53).
                cuda::pagerank_run r = cuda::pagerank<Index>(*ad, *ad, {}, kernel);
                for (int k = 0; k < cfg.runs; ++k) {
                    call.push_back(ms_of([&] {
                        if (cfg.reuse_results)
                            cuda::pagerank<Index>(r, *ad, *ad, {}, kernel, default_context());
                        else
                            r = cuda::pagerank<Index>(*ad, *ad, {}, kernel);
                    }));
                    t.push_back(r.seconds * 1e3);
                }
                if (!cpu_rank.empty()) {
                    double diff = 0;
                    for (std::size_t v = 0; v < n; ++v) diff += std::abs(r.rank[v] - cpu_rank[v]);
                    if (diff > 1e-3)
                        fail(fmt::format("pagerank: L1 difference GPU vs CPU {:.3e}", diff));
                }
                line("pagerank", "gpu", median(t), median(call), 0, r.iterations,
                     fmt::format("{} iterations ({}{}), change {:.2e}", r.iterations,
                                 name_of(kernel), kernel == chosen ? ", automatic" : "",
                                 r.change));
            }
            // The automatic method with the ranks left on the device (the caller's vector).
            dense_vector<double, device> rank_d(ad->rows());
            std::vector<double> t, call;
            cuda::pagerank_run r =
                cuda::pagerank<Index>(*ad, *ad, {}, chosen, rank_d, default_context());
            for (int k = 0; k < cfg.runs; ++k) {
                call.push_back(ms_of([&] {
                    r = cuda::pagerank<Index>(*ad, *ad, {}, chosen, rank_d, default_context());
                }));
                t.push_back(r.seconds * 1e3);
            }
            if (!cpu_rank.empty()) {
                auto const rd = rank_d.to_host();
                double diff = 0;
                for (std::size_t v = 0; v < n; ++v) diff += std::abs(rd[v] - cpu_rank[v]);
                if (diff > 1e-3)
                    fail(fmt::format("pagerank on the device: L1 difference GPU vs CPU {:.3e}",
                                     diff));
            }
            line("pagerank", "gpu", median(t), median(call), 0, r.iterations,
                 fmt::format("{}, automatic, results left on the device (call: no copy back)",
                             name_of(chosen)));
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
            line("tc", "cpu", median(t), 0, 0, -1,
                 fmt::format("{} triangles ({}{})", r.triangles, to_string(r.method),
                             r.relabelled ? ", relabelled" : ""));
        }
        std::string why;
        bool const rule = detail::skewed_degrees(std::size_t(n), a.row_ptr(), why);
        std::vector<bool> relabels;
        if (cfg.gpu_tc_relabel == "auto") relabels = {rule};
        if (cfg.gpu_tc_relabel == "always" || cfg.gpu_tc_relabel == "both") relabels.push_back(true);
        if (cfg.gpu_tc_relabel == "never" || cfg.gpu_tc_relabel == "both") relabels.push_back(false);
        if (relabels.empty()) throw invalid_argument("--gpu-tc-relabel: " + cfg.gpu_tc_relabel);
        for (bool const relabel : relabels) {
            if (!gpu) break;
            std::vector<double> t, call;
            cuda::tc_run r;
            for (int k = 0; k < cfg.runs; ++k) {
                call.push_back(ms_of([&] { r = cuda::triangle_count<Index>(*ad, relabel); }));
                t.push_back(r.seconds * 1e3);
            }
            if (have_cpu_tc && r.triangles != cpu_triangles) fail("triangle count, GPU vs CPU");
            line("tc", "gpu", median(t), median(call), 0, -1,
                 fmt::format("{} triangles ({}; the rule: {})", r.triangles,
                             r.relabelled ? "relabelled" : "original numbering", why));
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
            cpu_bc.assign(r.centrality.begin(), r.centrality.end());
            double const top = cpu_bc.empty() ? 0 : *std::max_element(cpu_bc.begin(), cpu_bc.end());
            line("bc", "cpu", median(t), 0, bc_edges / (median(t) * 1e6), -1,
                 fmt::format("{} sources ({}), largest score {:.6g}", bc_src.size(),
                             to_string(r.method), top));
        }
        std::vector<std::pair<std::string, bc_level_loop>> loops;
        if (cfg.gpu_bc_loop == "auto") loops = {{"", bc_level_loop::automatic}};
        if (cfg.gpu_bc_loop == "chained" || cfg.gpu_bc_loop == "both")
            loops.push_back({"chained levels, ", bc_level_loop::chained});
        if (cfg.gpu_bc_loop == "cooperative" || cfg.gpu_bc_loop == "both")
            loops.push_back({"cooperative kernel, ", bc_level_loop::cooperative});
        if (loops.empty()) throw invalid_argument("--gpu-bc-loop: " + cfg.gpu_bc_loop);
        for (auto const& [loop_name, loop] : loops) {
            if (!gpu) break;
            context bc_ctx;
            bc_ctx.tune.bc_loop = loop;
            if (device_pool) bc_ctx.set_memory_pool(device_pool);
            bc_ctx.set_memory_pool_keep(cfg.pool_keep);
            std::vector<double> t, call;
            cuda::bc_run r;
            for (int k = 0; k < cfg.runs; ++k) {
                call.push_back(ms_of([&] {
                    if (cfg.reuse_results) cuda::betweenness<Index>(r, *ad, *ad, bc_src, bc_ctx);
                    else r = cuda::betweenness<Index>(*ad, *ad, bc_src, bc_ctx);
                }));
                t.push_back(r.seconds * 1e3);
            }
            if (!cpu_bc.empty())
                for (std::size_t v = 0; v < n; ++v)
                    if (std::abs(r.centrality[v] - cpu_bc[v]) >
                        1e-6 * std::max(1.0, std::abs(cpu_bc[v])))
                        fail(fmt::format("bc of vertex {}: GPU {} CPU {}", v, r.centrality[v],
                                         cpu_bc[v]));
            line("bc", "gpu", median(t), median(call), bc_edges / (median(t) * 1e6), -1,
                 fmt::format("{}{} sources, equal to the CPU's", loop_name, bc_src.size()));
            if (cfg.explain) print_notes(r.notes);
            // The same batches with the scores left on the device (the caller's vector).
            dense_vector<double, device> scores(n);
            std::vector<double> td, calld;
            for (int k = 0; k < cfg.runs; ++k) {
                calld.push_back(ms_of([&] {
                    r = cuda::betweenness<Index>(*ad, *ad, bc_src, scores, bc_ctx);
                }));
                td.push_back(r.seconds * 1e3);
            }
            if (!cpu_bc.empty()) {
                auto const got = scores.to_host();
                for (std::size_t v = 0; v < n; ++v)
                    if (std::abs(got[v] - cpu_bc[v]) > 1e-6 * std::max(1.0, std::abs(cpu_bc[v])))
                        fail(fmt::format("bc on the device of vertex {}: GPU {} CPU {}", v,
                                         got[v], cpu_bc[v]));
            }
            line("bc", "gpu", median(td), median(calld), bc_edges / (median(td) * 1e6), -1,
                 fmt::format("{}results left on the device (call: no copy back)", loop_name));
            auto const u = cuda::pool_usage(bc_ctx);
            fmt::print("pool of bc's context: used peak {:.1f} MiB, reserved now {:.1f} MiB\n",
                       double(u.used_peak) / (1 << 20), double(u.reserved) / (1 << 20));
        }
    }
#if KLEENE_HAVE_CUDA
    if (gpu && !device_pool) {
        auto const u = cuda::pool_usage(default_context());
        fmt::print("pool of the default context (keeps {}): used peak {:.1f} MiB, reserved peak "
                   "{:.1f} MiB, reserved now {:.1f} MiB\n",
                   cfg.pool_keep ? std::to_string(*cfg.pool_keep) : std::string("the default"),
                   double(u.used_peak) / (1 << 20), double(u.reserved_peak) / (1 << 20),
                   double(u.reserved) / (1 << 20));
    }
#endif
    return 0;
}

int main(int argc, char** argv) {
    try {
        return bench_main(argc, argv);
    } catch (std::exception const& e) {
        fmt::print(stderr, "bench_graph_kernels: {}\n", e.what());
        return 1;
    }
}

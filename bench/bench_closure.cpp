// Transitive closure of large sparse graphs (issue 41): the condensation method (closure.hpp) on
// generated graphs, one line each, time beside the size of the result.
//
//   bench_closure [--n N] [--runs R] [--threads T] [--only NAME,...] [--write DIR] [--explain]
//
// Graphs (vertex ids shuffled, so that no graph arrives in topological order):
//   one-edge     100,000 vertices and one edge (the goal: under 0.1 s);
//   dag-global   a random sparse DAG of N vertices, mean out-degree 4: 4N random pairs of
//                vertices, each an edge from the lower to the higher (about 3.7e8 pairs in the
//                closure at N = 10^6: a path climbs fast, so reach stays far below N^2);
//   dag-bB       the same inside blocks of B vertices: smaller closures, growing with B;
//   dag-local    a DAG whose edges join each vertex to 4 of the next 8: every vertex reaches all
//                later ones, N^2 / 2 pairs, refused before the work with the estimate stated;
//   sccs-bB      N vertices, mean out-degree 4: four strongly connected components of 2,000
//                vertices (a cycle and random chords), the rest a block DAG as above, 2,000 edges
//                into the components and 200 out of them.
// `--write DIR` writes each graph as DIR/NAME.kbin and its closure as DIR/NAME.closure.kbin, for
// bench/closure_peers.py (networkx's transitive_closure_dag and a SciPy BFS from every vertex on
// the same graph, their answers compared with kleene's). ns/pair is the whole call's time over
// the pairs of the result; cpu ms the process's CPU time for the call (all threads): on a shared
// machine the wall time also counts other programs' turns.

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <kleene/algorithms/closure.hpp>
#include <kleene/io/binary.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;
using Index = std::int32_t;

struct config {
    std::size_t n = 1000000;
    int runs = 3;
    int threads = 0;
    std::string only;
    std::string write;
    bool explain = false;
    bool wants(std::string const& name) const {
        return only.empty() || ("," + only + ",").find("," + name + ",") != std::string::npos;
    }
};

struct edges {
    std::size_t n = 0;
    std::vector<Index> from, to;
    void add(std::size_t u, std::size_t v) {
        from.push_back(static_cast<Index>(u));
        to.push_back(static_cast<Index>(v));
    }
};

csr_matrix<bool, Index> shuffled_matrix(edges e, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Index> p(e.n);
    for (std::size_t v = 0; v < e.n; ++v) p[v] = static_cast<Index>(v);
    std::shuffle(p.begin(), p.end(), rng);
    for (auto& u : e.from) u = p[static_cast<std::size_t>(u)];
    for (auto& v : e.to) v = p[static_cast<std::size_t>(v)];
    return csr_matrix<bool, Index>::from_coo(e.n, e.n, e.from, e.to, {}, duplicate_policy::last);
}

/// Random pairs (lower, higher) inside blocks of `block` vertices of [v0, v1), degree per vertex.
void add_block_dag(edges& e, std::size_t v0, std::size_t v1, std::size_t block, double degree,
                   std::mt19937_64& rng) {
    for (std::size_t b0 = v0; b0 < v1; b0 += block) {
        std::size_t const b = std::min(block, v1 - b0);
        if (b < 2) continue;
        auto const count = static_cast<std::size_t>(degree * double(b));
        for (std::size_t k = 0; k < count; ++k) {
            std::size_t x = rng() % b, y = rng() % b;
            if (x == y) continue;
            e.add(b0 + std::min(x, y), b0 + std::max(x, y));
        }
    }
}

edges block_dag(std::size_t n, std::size_t block, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    edges e{n, {}, {}};
    add_block_dag(e, 0, n, block, 4, rng);
    return e;
}

edges few_sccs(std::size_t n, std::size_t block, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    edges e{n, {}, {}};
    std::size_t const count = 4, size = 2000, scc_end = count * size;
    for (std::size_t c = 0; c < count; ++c) {
        std::size_t const s0 = c * size;
        for (std::size_t v = 0; v < size; ++v) {
            e.add(s0 + v, s0 + (v + 1) % size);
            for (int k = 0; k < 3; ++k) e.add(s0 + v, s0 + rng() % size);
        }
    }
    add_block_dag(e, scc_end, n, block, 4, rng);
    for (int k = 0; k < 2000; ++k) e.add(scc_end + rng() % (n - scc_end), rng() % scc_end);
    for (int k = 0; k < 200; ++k) e.add(rng() % scc_end, scc_end + rng() % (n - scc_end));
    return e;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void run(config const& cfg, std::string const& name, csr_matrix<bool, Index> const& a) {
    closure_options opt;
    opt.device = device_choice::cpu;
    explain_trace why;
    opt.explain = &why;
    std::vector<double> ms, cpu;
    closure_result r;
    for (int k = 0; k < cfg.runs; ++k) {
        why = {};
        auto const t0 = std::chrono::steady_clock::now();
        std::clock_t const c0 = std::clock();
        try {
            r = closure_matrix(a, opt);
        } catch (out_of_memory const& e) {
            double const t =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            fmt::print("{:<12} {:>9} {:>9}  refused in {:.1f} ms: {}\n", name, a.rows(), a.nnz(), t,
                       e.what());
            return;
        }
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        cpu.push_back(double(std::clock() - c0) * 1e3 / CLOCKS_PER_SEC);
    }
    std::size_t const pairs = r.pairs();
    double const t = median(ms);
    fmt::print("{:<12} {:>9} {:>9} {:>9} {:>12} {:>10.1f} {:>10.1f} {:>8.2f}  {} {} {}\n", name,
               a.rows(), a.nnz(), r.components, pairs, t, median(cpu),
               pairs ? t * 1e6 / double(pairs) : 0.0,
               r.format == output_choice::csr ? "csr" : "bits", to_string(r.reach),
               fmt::format("(estimate {:.3g})", r.estimated_pairs));
    if (cfg.explain) fmt::print("{}", why.str());
    if (!cfg.write.empty()) {
        io::write_binary(cfg.write + "/" + name + ".kbin", a);
        io::write_binary(cfg.write + "/" + name + ".closure.kbin",
                         r.format == output_choice::csr ? r.csr : detail::bits_to_csr(r.bits));
    }
}

}  // namespace

int main(int argc, char** argv) {
    config cfg;
    for (int i = 1; i < argc; ++i) {
        std::string const a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                fmt::print(stderr, "bench_closure: {} needs a value\n", a);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--n")
            cfg.n = std::stoull(next());
        else if (a == "--runs")
            cfg.runs = std::max(1, std::stoi(next()));
        else if (a == "--threads")
            cfg.threads = std::stoi(next());
        else if (a == "--only")
            cfg.only = next();
        else if (a == "--write")
            cfg.write = next();
        else if (a == "--explain")
            cfg.explain = true;
        else {
            fmt::print(stderr,
                       "usage: bench_closure [--n N] [--runs R] [--threads T] [--only NAME,...] "
                       "[--write DIR] [--explain]\n");
            return 2;
        }
    }
    if (cfg.threads > 0) omp_set_num_threads(cfg.threads);
    fmt::print("closure, condensation method, {} threads; ms: median of {}\n",
               omp_get_max_threads(), cfg.runs);
    fmt::print("{:<12} {:>9} {:>9} {:>9} {:>12} {:>10} {:>10} {:>8}  {}\n", "graph", "n", "edges",
               "sccs", "pairs", "ms", "cpu ms", "ns/pair", "output reach");
    if (cfg.wants("one-edge")) {
        edges e{100000, {}, {}};
        e.add(123, 45678);
        run(cfg, "one-edge", shuffled_matrix(e, 1));
    }
    for (std::size_t b : {16, 64, 256})
        if (cfg.wants("dag-b" + std::to_string(b)))
            run(cfg, "dag-b" + std::to_string(b), shuffled_matrix(block_dag(cfg.n, b, b), 2));
    for (std::size_t b : {16, 64})
        if (cfg.wants("sccs-b" + std::to_string(b)))
            run(cfg, "sccs-b" + std::to_string(b), shuffled_matrix(few_sccs(cfg.n, b, b), 3));
    if (cfg.wants("dag-local")) {
        std::mt19937_64 rng(5);
        edges e{cfg.n, {}, {}};
        for (std::size_t v = 0; v + 1 < cfg.n; ++v) {
            e.add(v, v + 1);
            for (int k = 0; k < 3; ++k) e.add(v, std::min(cfg.n - 1, v + 1 + rng() % 8));
        }
        run(cfg, "dag-local", shuffled_matrix(e, 5));
    }
    if (cfg.wants("dag-global"))
        run(cfg, "dag-global", shuffled_matrix(block_dag(cfg.n, cfg.n, 4), 4));
    return 0;
}

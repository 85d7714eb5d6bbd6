// Johnson vs R-Kleene on sparse graphs (issue 6): for each n and average out-degree d (4 .. 64), a
// random directed graph with n*d edges, integer weights in [1, 100]; times the whole apsp() call
// (dense set-up, transfers and the write-back included, as a user pays it) for Johnson on the CPU,
// R-Kleene on the CPU and R-Kleene on the GPU, and says which is fastest. Runs whose estimate
// (from the cost model in apsp.hpp) passes MAX_S seconds are skipped. Prints RESULT lines:
//   RESULT sparse n=.. deg=.. algo=johnson|rkleene device=cpu|gpu s=.. check=ok|BAD|-
// Usage: bench_apsp_sparse [sizes...]   (env: DEGREES="4 8 16 32 64", MAX_S=20)
//
// BF_BATCHES="0 256 1024" also times the batched multi-source Bellman-Ford on the GPU
// (cuda::apsp_bellman_ford, whole call: transpose, copies, write-back) on the same graphs, once
// per batch size (0: chosen) and step in BF_STEPS (default "frontier"; "frontier spmm" adds the
// generic-SpMM step), and prints, besides its RESULT lines (the same fields, then the batch asked
// for, the sources per batch, the step, and the rounds in all / most in a batch), one line per
// graph with the two GPU times, for setting the crossover:
//   GPU n=.. deg=.. rkleene=.. bellman-ford=.. (batch .., step ..) faster=rkleene|bellman-ford
// CPU=0 skips the CPU runs; REPS=k keeps the best of k runs of each candidate (default 1).

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/cuda/apsp_batched.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/environment.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace kleene;

csr_matrix<float> random_sparse(std::size_t n, std::size_t deg, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::int32_t> ii, jj;
    std::vector<float> vv;
    ii.reserve(n * deg);
    jj.reserve(n * deg);
    vv.reserve(n * deg);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t e = 0; e < deg; ++e) {
            ii.push_back(static_cast<std::int32_t>(i));
            jj.push_back(static_cast<std::int32_t>(rng() % n));
            vv.push_back(static_cast<float>(1 + rng() % 100));
        }
    return csr_matrix<float>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
}

std::vector<std::size_t> parse_list(char const* s, std::vector<std::size_t> fallback) {
    if (!s) return fallback;
    std::vector<std::size_t> v;
    std::istringstream in(s);
    for (std::size_t x; in >> x;) v.push_back(x);
    return v;
}

std::vector<std::string> parse_words(char const* s, std::vector<std::string> fallback) {
    if (!s) return fallback;
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string x; in >> x;) v.push_back(x);
    return v;
}

bool equal_dist(dense_matrix<float> const& a, dense_matrix<float> const& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t j = 0; j < a.cols(); ++j)
            if (!(a(i, j) == b(i, j))) return false;
    return true;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    // The bench's tuning (KLEENE_OOC_PROFILE, KLEENE_OOC_TIMELINE, KLEENE_OOC_ALGORITHM, ...:
    // kleene/environment.hpp) in this thread's default context, which the calls below use.
    default_context().tune = context_from_environment().tune;
    std::vector<std::size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::stoul(argv[i]));
    if (sizes.empty()) sizes = {2048, 4096, 8192};
    auto const degrees = parse_list(std::getenv("DEGREES"), {4, 8, 16, 32, 64});
    double const max_s = std::getenv("MAX_S") ? std::atof(std::getenv("MAX_S")) : 20.0;
    bool const gpu = cuda::device_count() > 0;
    bool const run_cpu = !std::getenv("CPU") || std::atoi(std::getenv("CPU")) != 0;
    std::size_t const reps = std::max(1, std::getenv("REPS") ? std::atoi(std::getenv("REPS")) : 1);
    bool const bf = gpu && std::getenv("BF_BATCHES");
    auto const bf_batches = parse_list(std::getenv("BF_BATCHES"), {0});
    std::vector<cuda::bellman_ford_step> bf_steps;
    for (auto const& w : parse_words(std::getenv("BF_STEPS"), {"frontier"}))
        bf_steps.push_back(w == "spmm" ? cuda::bellman_ford_step::spmm
                                       : cuda::bellman_ford_step::frontier);
    if (bf) (void)cuda::apsp_bellman_ford(random_sparse(64, 4, 1));  // warm-up
    std::printf("threads %d, %s\n", cpu::max_threads(),
                gpu ? cuda::device_description().c_str() : "no GPU");
    apsp_cost_model const model;
    for (std::size_t n : sizes)
        for (std::size_t deg : degrees) {
            auto const a = random_sparse(n, deg, n * 131 + deg);
            double const nd = double(n), m = double(a.nnz()), threads = cpu::max_threads();
            double const est_johnson =
                nd * (m + nd) * std::log2(nd + 2) * model.johnson_s_per_edge / threads;
            double const est_cpu = nd * nd * nd / (model.cpu_updates_per_s_per_thread * threads);
            struct candidate {
                apsp_algorithm alg;
                device_choice dev;
                double estimate;
            };
            std::vector<candidate> cands;
            if (run_cpu)
                cands = {{apsp_algorithm::johnson, device_choice::cpu, est_johnson},
                         {apsp_algorithm::rkleene, device_choice::cpu, est_cpu}};
            if (gpu) cands.push_back({apsp_algorithm::rkleene, device_choice::gpu, 0});
            dense_matrix<float> reference;
            std::string best;
            double best_s = 1e300;
            double gpu_rkleene_s = 0;
            for (auto const& c : cands) {
                char const* dev = c.dev == device_choice::gpu ? "gpu" : "cpu";
                if (c.estimate > max_s) {
                    std::printf("RESULT sparse n=%zu deg=%zu algo=%s device=%s s=skipped (estimate %.0f s)\n",
                                n, deg, std::string(to_string(c.alg)).c_str(), dev, c.estimate);
                    continue;
                }
                apsp_options opt;
                opt.algorithm = c.alg;
                opt.device = c.dev;
                if (c.dev == device_choice::gpu) (void)apsp(random_sparse(64, 4, 1), opt);  // warm-up
                apsp_result<float> r;
                double s = 1e300;
                for (std::size_t rep = 0; rep < reps; ++rep) {
                    auto const t0 = std::chrono::steady_clock::now();
                    r = apsp(a, opt);
                    s = std::min(s, seconds_since(t0));
                }
                if (c.dev == device_choice::gpu) gpu_rkleene_s = s;
                char const* check = "-";
                if (reference.rows() == 0) {
                    reference = std::move(r.dist);
                } else {
                    bool same = true;
                    for (std::size_t i = 0; i < n && same; ++i)
                        for (std::size_t j = 0; j < n && same; ++j) same = reference(i, j) == r.dist(i, j);
                    check = same ? "ok" : "BAD";
                }
                std::string const name = std::string(to_string(c.alg)) + "/" + dev;
                if (s < best_s) {
                    best_s = s;
                    best = name;
                }
                std::printf("RESULT sparse n=%zu deg=%zu algo=%s device=%s s=%.4f check=%s\n", n,
                            deg, std::string(to_string(c.alg)).c_str(), dev, s, check);
                std::fflush(stdout);
            }
            double bf_best_s = 1e300;
            std::string bf_best;
            for (std::size_t batch : bf ? bf_batches : std::vector<std::size_t>{})
                for (auto step : bf_steps) {
                    cuda::bellman_ford_options opt;
                    opt.batch = batch;
                    opt.step = step;
                    dense_matrix<float> d;
                    double s = 1e300;
                    explain_trace trace;
                    for (std::size_t rep = 0; rep < reps; ++rep) {
                        trace.lines.clear();
                        opt.explain = &trace;
                        auto const t0 = std::chrono::steady_clock::now();
                        d = cuda::apsp_bellman_ford(a, opt);
                        s = std::min(s, seconds_since(t0));
                    }
                    std::size_t rounds = 0, most = 0, sources = 0;
                    if (trace.lines.size() == 2) {
                        auto const at = trace.lines[0].find("batches of ");
                        if (at != std::string::npos)
                            sources = std::strtoul(trace.lines[0].c_str() + at + 11, nullptr, 10);
                        (void)std::sscanf(trace.lines[1].c_str(),
                                          "apsp_bellman_ford: %zu rounds in all, %zu", &rounds,
                                          &most);
                    }
                    char const* check = "-";
                    if (reference.rows() == 0) {
                        reference = std::move(d);
                    } else {
                        check = equal_dist(reference, d) ? "ok" : "BAD";
                    }
                    std::printf(
                        "RESULT sparse n=%zu deg=%zu algo=bellman-ford device=gpu s=%.4f "
                        "check=%s batch=%zu sources=%zu step=%s rounds=%zu/%zu\n",
                        n, deg, s, check, batch, sources, std::string(to_string(step)).c_str(),
                        rounds, most);
                    std::fflush(stdout);
                    std::string const what =
                        "batch " + std::to_string(batch) + ", step " + std::string(to_string(step));
                    if (s < bf_best_s) {
                        bf_best_s = s;
                        bf_best = what;
                    }
                    if (s < best_s) {
                        best_s = s;
                        best = "bellman-ford/gpu (" + what + ")";
                    }
                }
            if (bf)
                std::printf("GPU n=%zu deg=%zu rkleene=%.4f bellman-ford=%.4f (%s) faster=%s\n", n,
                            deg, gpu_rkleene_s, bf_best_s, bf_best.c_str(),
                            bf_best_s < gpu_rkleene_s ? "bellman-ford" : "rkleene");
            std::printf("BEST n=%zu deg=%zu %s %.4f s\n", n, deg, best.c_str(), best_s);
        }
}

// APSP and closure timings on the GPU (issue 6): R-Kleene, blocked and naive Floyd-Warshall on
// dense random graphs (weights uniform in [1, 100], integers, so every algorithm's fp32 result is
// exact and comparable), int32 / fp64 R-Kleene, bit-packed closure (about 2/n of the bits set),
// and CPU R-Kleene at small n. Prints one RESULT line per measurement:
//   RESULT algo=.. type=.. n=.. ms=.. tups=.. pct=.. ceiling=.. check=ok|BAD|-
// Usage: bench_apsp_gpu [sizes...]   (env: CPU_MAX, NAIVE_MAX, FP64_MAX, CLOSURE_SIZES,
//                                     RKLEENE_BASES, RKLEENE_CONCURRENT, SPLIT_K_BLOCKS)

#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/environment.hpp>

#include <cuda_runtime.h>

#include "bench_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace kleene;

using bench::check;
using bench::mix;

template <class T>
dense_matrix<T> random_dense(std::size_t n, std::uint64_t seed) {
    dense_matrix<T> a(n, n);
    bench::fill_random_dense(a, seed);
    return a;
}

/// Median of `reps` CUDA-event timings of run(d) on a fresh copy of `src` each time (ms).
template <class T>
double time_gpu(dense_matrix<T, device> const& src, dense_matrix<T, device>& d, int reps,
                std::function<void(dense_view<T, device>)> const& run) {
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<double> ms;
    for (int r = 0; r < reps + 1; ++r) {  // the first is the warm-up
        check(cudaMemcpy(d.data(), src.data(), src.rows() * src.cols() * sizeof(T),
                         cudaMemcpyDeviceToDevice),
              "cudaMemcpy");
        check(cudaEventRecord(e0), "cudaEventRecord");
        run(d.view());
        check(cudaEventRecord(e1), "cudaEventRecord");
        check(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float t = 0;
        check(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime");
        if (r > 0) ms.push_back(t);
    }
    check(cudaEventDestroy(e0), "cudaEventDestroy");
    check(cudaEventDestroy(e1), "cudaEventDestroy");
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

void report(char const* algo, char const* type, std::size_t n, double ms, double ceiling,
            char const* chk, double updates_factor = 1.0) {
    double const nd = static_cast<double>(n);
    double const tups = nd * nd * nd * updates_factor / (ms * 1e-3) / 1e12;
    std::printf("RESULT algo=%s type=%s n=%zu ms=%.3f tups=%.3f pct=%.1f ceiling=%.1f check=%s\n",
                algo, type, n, ms, tups, ceiling > 0 ? 100 * tups / ceiling : 0.0, ceiling, chk);
    std::fflush(stdout);
}

template <class T>
bool same(dense_matrix<T> const& a, dense_matrix<T> const& b) {
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t j = 0; j < a.cols(); ++j)
            if (!(a(i, j) == b(i, j))) return false;
    return true;
}

std::size_t env_size(char const* name, std::size_t dflt) {
    char const* v = std::getenv(name);
    return v ? static_cast<std::size_t>(std::atoll(v)) : dflt;
}

std::vector<std::size_t> env_sizes(char const* name) {
    std::vector<std::size_t> v;
    if (char const* s = std::getenv(name)) {
        std::istringstream in(s);
        for (std::size_t x; in >> x;) v.push_back(x);
    }
    return v;
}

template <class T>
void bench_type(char const* type, std::vector<std::size_t> const& sizes, double ceiling,
                bool all_algorithms, std::size_t max_n) {
    std::size_t const naive_max = env_size("NAIVE_MAX", 4096);
    std::size_t const cpu_max = env_size("CPU_MAX", 2048);
    for (std::size_t n : sizes) {
        if (n > max_n) continue;
        int const reps = n >= 8192 ? 3 : 5;
        dense_matrix<T> const h = random_dense<T>(n, 12345 + n);
        dense_matrix<T, device> const src = h.to_device();
        dense_matrix<T, device> d(n, n);
        double const t_rk = time_gpu<T>(src, d, reps, [](dense_view<T, device> v) { rkleene(v); });
        dense_matrix<T> const rk = d.to_host();
        report("rkleene", type, n, t_rk, ceiling, "-");
        // RKLEENE_BASES="512 1024 2048": the same with other base-case sizes (blocked FW below).
        for (std::size_t base : env_sizes("RKLEENE_BASES")) {
            double const t = time_gpu<T>(src, d, reps, [base](dense_view<T, device> v) { rkleene(v, base); });
            std::string const name = "rkleene-base" + std::to_string(base);
            report(name.c_str(), type, n, t, ceiling, same(rk, d.to_host()) ? "ok" : "BAD");
        }
        // RKLEENE_CONCURRENT="0 8192 16384": other limits for the two-stream product pairs.
        for (std::size_t conc : env_sizes("RKLEENE_CONCURRENT")) {
            double const t = time_gpu<T>(src, d, reps, [conc](dense_view<T, device> v) {
                rkleene(v, rkleene_gpu_base, conc);
            });
            std::string const name = "rkleene-concurrent" + std::to_string(conc);
            report(name.c_str(), type, n, t, ceiling, same(rk, d.to_host()) ? "ok" : "BAD");
        }
        if (!all_algorithms) continue;
        double const t_bfw = time_gpu<T>(src, d, reps, [](dense_view<T, device> v) {
            cuda::floyd_warshall_blocked<T>(v);
        });
        dense_matrix<T> const bfw = d.to_host();
        report("blocked-fw", type, n, t_bfw, ceiling, same(rk, bfw) ? "ok" : "BAD");
        if (n <= naive_max) {
            double const t_nv = time_gpu<T>(src, d, n > 2048 ? 1 : 3, [](dense_view<T, device> v) {
                cuda::floyd_warshall_naive<T>(v);
            });
            report("naive-fw", type, n, t_nv, ceiling, same(rk, d.to_host()) ? "ok" : "BAD");
        }
        if (n <= cpu_max) {
            dense_matrix<T> c = h;
            auto const t0 = std::chrono::steady_clock::now();
            rkleene(c.view());
            double const ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            report("cpu-rkleene", type, n, ms, 0, same(rk, c) ? "ok" : "BAD");
        }
    }
}

void bench_closure(std::vector<std::size_t> const& sizes) {
    for (std::size_t n : sizes) {
        // About 2 edges a row: a giant strongly connected part, so the closure is dense.
        host_bits a{n, (n + 63) / 64, {}};
        a.words.assign(n * a.ld, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (int e = 0; e < 2; ++e) a.set(i, mix(i * 2 + static_cast<std::size_t>(e) + 7) % n);
        cuda::bit_matrix src(n, n);
        detail::copy_bytes<device, host>(src.data(), a.words.data(), a.words.size() * 8);
        cuda::bit_matrix d(n, n);
        cudaEvent_t e0, e1;
        check(cudaEventCreate(&e0), "cudaEventCreate");
        check(cudaEventCreate(&e1), "cudaEventCreate");
        std::vector<double> ms;
        int const reps = n >= 32768 ? 3 : 5;
        for (int r = 0; r < reps + 1; ++r) {
            check(cudaMemcpy(d.data(), src.data(), a.words.size() * 8, cudaMemcpyDeviceToDevice),
                  "cudaMemcpy");
            check(cudaEventRecord(e0), "cudaEventRecord");
            rkleene(d);
            check(cudaEventRecord(e1), "cudaEventRecord");
            check(cudaEventSynchronize(e1), "cudaEventSynchronize");
            float t = 0;
            check(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime");
            if (r > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        char const* chk = "-";
        if (n <= 8192) {
            host_bits got = a;
            detail::copy_bytes<host, device>(got.words.data(), d.data(), got.words.size() * 8);
            closure_cpu(a);
            chk = got.words == a.words ? "ok" : "BAD";
        }
        report("closure-bits", "bool", n, ms[ms.size() / 2], 520.7, chk);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (cuda::device_count() == 0) {
        std::printf("no CUDA device\n");
        return 0;
    }
    std::printf("device: %s\n", cuda::device_description().c_str());
    // The bench's tuning: the KLEENE_* variables, and SPLIT_K_BLOCKS (0: no split over k), in
    // this thread's default context, which the calls below use.
    default_context().tune = context_from_environment().tune;
    if (char const* v = std::getenv("SPLIT_K_BLOCKS")) default_context().tune.split_k_blocks = std::atoi(v);
    std::vector<std::size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(static_cast<std::size_t>(std::atoll(argv[i])));
    if (sizes.empty()) sizes = {512, 1024, 2048, 4096, 8192, 16384};
    bench_type<float>("fp32", sizes, 15.1, true, 1u << 30);
    bench_type<std::int32_t>("int32", sizes, 16.6, false, 1u << 30);
    bench_type<double>("fp64", sizes, 0, false, env_size("FP64_MAX", 8192));
    std::vector<std::size_t> cs = env_sizes("CLOSURE_SIZES");
    if (!std::getenv("CLOSURE_SIZES")) cs = {4096, 8192, 16384, 32768, 65536};
    bench_closure(cs);
    return 0;
}

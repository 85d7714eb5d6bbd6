// Out-of-core APSP (issue 8) against in-core APSP at the same n, and one large run.
//
//   bench_out_of_core_gpu [n ...]           (default 16384)
//     For each n (fp32; TYPES="fp32 int32" adds int32): a dense random graph (weights 1..100,
//     integers, so every result is exact and compared entry by entry with the in-core one);
//     the in-core rate (R-Kleene on the device: kernels only, and the whole call from the host
//     matrix with its copies, as apsp() runs it); then the out-of-core rate with device caps of
//     bytes/2, bytes/4, bytes/8 (the matrix 2x, 4x, 8x the cap), timed over the whole call
//     (page-locking included, and also shown apart). OOC_RATIOS="2 4 8" sets the ratios.
//     SWEEP="2048 1024/4224/0/1/3 fw rk rk:4096/640/1" also runs those plans at each cap:
//     blocked Floyd-Warshall's block[/width[/pass width[/panel buffers[/tile buffers]]]] or
//     R-Kleene's rk:tile[/depth[/output buffers]], 0 = chosen; `fw` and `rk` alone: that
//     algorithm's chosen plan (the first run, always made, is the automatic choice). Link
//     bandwidth (pinned, each direction and both at once) and the cost of cudaHostRegister are
//     measured first, and strided loads by row width (mode=copy2d). KLEENE_OOC_PROFILE=1 adds a
//     `mode=profile` line per R-Kleene run (busy time by kind of work; KLEENE_OOC_TIMELINE=file
//     dumps every span).
//   bench_out_of_core_gpu large [cap] [n]   (defaults 60G and 150000)
//     apsp() on a random graph of n vertices and 16 out-edges each (weights 1..100) with
//     max_device_bytes = cap, the whole call timed (dense conversion, page-locking, rounds), and
//     three rows checked against Dijkstra on the host.
//   CLOSURE_N=65536: also the bit-packed closure at that n, in core and at the three caps.
//
// Prints RESULT lines: RESULT mode=.. type=.. n=.. ms=.. tups=.. [cap=.. ratio=..] ...

#include <kleene/environment.hpp>
#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/apsp_out_of_core.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <kleene/cuda/runtime.hpp>

#include <cuda_runtime.h>

#include "bench_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <vector>

namespace {

using namespace kleene;
using clk = std::chrono::steady_clock;

double since(clk::time_point t0) { return std::chrono::duration<double>(clk::now() - t0).count(); }

using bench::check;
using bench::mix;

template <class T>
void copy_matrix(dense_matrix<T>& dst, dense_matrix<T> const& src) {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < src.rows(); ++i)
        std::memcpy(dst.data() + i * src.cols(), src.data() + i * src.cols(),
                    src.cols() * sizeof(T));
}

template <class T>
std::size_t differences(dense_matrix<T> const& a, dense_matrix<T> const& b) {
    std::size_t bad = 0;
    std::size_t const n = a.rows();
#pragma omp parallel for schedule(static) reduction(+ : bad)
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) bad += !(a(i, j) == b(i, j));
    return bad;
}

double tups(std::size_t n, double s) {
    double const nd = double(n);
    return nd * nd * nd / s / 1e12;
}

/// Pinned host <-> device bandwidth, each direction alone and both at once; cudaHostRegister.
void measure_link() {
    std::size_t const bytes = std::size_t{512} << 20;
    void *h1 = nullptr, *h2 = nullptr, *d1 = nullptr, *d2 = nullptr;
    check(cudaHostAlloc(&h1, bytes, cudaHostAllocDefault), "cudaHostAlloc");
    check(cudaHostAlloc(&h2, bytes, cudaHostAllocDefault), "cudaHostAlloc");
    std::memset(h1, 1, bytes);
    std::memset(h2, 2, bytes);
    check(cudaMalloc(&d1, bytes), "cudaMalloc");
    check(cudaMalloc(&d2, bytes), "cudaMalloc");
    cudaStream_t s1, s2;
    check(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "stream");
    check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "stream");
    auto run = [&](bool up, bool down) {
        double best = 1e30;
        for (int r = 0; r < 4; ++r) {
            check(cudaDeviceSynchronize(), "sync");
            auto const t0 = clk::now();
            if (up) check(cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1), "h2d");
            if (down) check(cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s2), "d2h");
            check(cudaDeviceSynchronize(), "sync");
            best = std::min(best, since(t0));
        }
        return double(bytes) / best / 1e9;
    };
    double const up = run(true, false), down = run(false, true);
    double const both = run(true, true);
    std::printf("RESULT mode=link h2d_GBs=%.1f d2h_GBs=%.1f both_each_GBs=%.1f\n", up, down, both);
    check(cudaFreeHost(h1), "free");
    check(cudaFreeHost(h2), "free");
    check(cudaFree(d1), "free");
    check(cudaFree(d2), "free");
    check(cudaStreamDestroy(s1), "stream");
    check(cudaStreamDestroy(s2), "stream");

    // cudaHostRegister of touched pageable memory, the way apsp_out_of_core pins the matrix.
    for (std::size_t gib : {1, 8}) {
        std::size_t const rb = gib << 30;
        dense_matrix<float> m(rb / sizeof(float), 1);
        std::memset(m.data(), 0, rb);
        auto t0 = clk::now();
        check(cudaHostRegister(m.data(), rb, cudaHostRegisterDefault), "cudaHostRegister");
        double const reg = since(t0);
        if (gib == 1) {
            // Blocks of a registered matrix with 64 KiB rows (n = 16384 fp32) to the device,
            // 16 MiB each, by row width: what the out-of-core chunk loads do.
            std::size_t const pitch = 64 << 10, total = 16 << 20;
            void* d = nullptr;
            check(cudaMalloc(&d, total), "cudaMalloc");
            cudaStream_t sa, sb;
            check(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking), "stream");
            check(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking), "stream");
            std::size_t const rows_all = rb / pitch;
            for (std::size_t width : {1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 64 << 10}) {
                // First touches of rows not copied before (cold), then the same rows again
                // (warm, best of 3), then the warm rows split between two streams.
                std::size_t const rows = total / width;
                std::size_t next = 0;
                auto copy = [&](std::size_t row0, std::size_t nrows, void* dst, cudaStream_t st) {
                    check(cudaMemcpy2DAsync(dst, width,
                                            reinterpret_cast<char*>(m.data()) + row0 * pitch,
                                            pitch, width, nrows, cudaMemcpyHostToDevice, st),
                          "cudaMemcpy2DAsync");
                };
                double cold = 1e30, warm = 1e30, two = 1e30;
                for (int r = 0; r < 2 && next + rows <= rows_all; ++r, next += rows) {
                    t0 = clk::now();
                    copy(next, rows, d, sa);
                    check(cudaStreamSynchronize(sa), "sync");
                    cold = std::min(cold, since(t0));
                }
                for (int r = 0; r < 3; ++r) {
                    t0 = clk::now();
                    copy(0, rows, d, sa);
                    check(cudaStreamSynchronize(sa), "sync");
                    warm = std::min(warm, since(t0));
                    t0 = clk::now();
                    copy(0, rows / 2, d, sa);
                    copy(rows / 2, rows - rows / 2, static_cast<char*>(d) + rows / 2 * width, sb);
                    check(cudaDeviceSynchronize(), "sync");
                    two = std::min(two, since(t0));
                }
                std::printf("RESULT mode=copy2d row_KiB=%zu cold_GBs=%.1f warm_GBs=%.1f "
                            "two_streams_GBs=%.1f\n",
                            width >> 10, double(total) / cold / 1e9, double(total) / warm / 1e9,
                            double(total) / two / 1e9);
            }
            check(cudaStreamDestroy(sa), "stream");
            check(cudaStreamDestroy(sb), "stream");
            check(cudaFree(d), "free");
        }
        t0 = clk::now();
        check(cudaHostUnregister(m.data()), "cudaHostUnregister");
        double const unreg = since(t0);
        std::printf("RESULT mode=register GiB=%zu register_s=%.3f GBs=%.1f unregister_s=%.3f\n",
                    gib, reg, double(rb) / reg / 1e9, unreg);
    }
    std::fflush(stdout);
}

std::vector<double> ratios() {
    std::vector<double> r;
    char const* v = std::getenv("OOC_RATIOS");
    std::string s = v ? v : "2 4 8";
    for (std::size_t p = 0; p < s.size();) {
        std::size_t q = s.find(' ', p);
        if (q == std::string::npos) q = s.size();
        if (q > p) r.push_back(std::stod(s.substr(p, q - p)));
        p = q + 1;
    }
    return r;
}

struct plan_spec {
    ooc_algorithm algorithm = ooc_algorithm::automatic;
    std::size_t block = 0, width = 0, pass_width = 0;
    int panels = 0, tiles = 0;
    std::size_t tile = 0, depth = 0;
};

std::vector<plan_spec> sweep_specs() {
    std::vector<plan_spec> out{plan_spec{}};
    char const* v = std::getenv("SWEEP");
    std::string s = v ? v : "";
    for (std::size_t p = 0; p < s.size();) {
        std::size_t q = s.find(' ', p);
        if (q == std::string::npos) q = s.size();
        if (q > p) {
            std::string tok = s.substr(p, q - p);
            unsigned long long f[5] = {0, 0, 0, 0, 0};
            if (tok.rfind("rk", 0) == 0) {  // rk[:tile[/depth[/buffers]]]
                if (tok.size() > 3)
                    std::sscanf(tok.c_str() + 3, "%llu/%llu/%llu", &f[0], &f[1], &f[2]);
                plan_spec sp;
                sp.algorithm = ooc_algorithm::rkleene;
                sp.tile = f[0];
                sp.depth = f[1];
                sp.tiles = int(f[2]);
                out.push_back(sp);
            } else {  // fw, or block[/width[/pass width[/panels[/tiles]]]]
                if (tok != "fw")
                    std::sscanf(tok.c_str(), "%llu/%llu/%llu/%llu/%llu", &f[0], &f[1], &f[2],
                                &f[3], &f[4]);
                out.push_back({ooc_algorithm::floyd_warshall, f[0], f[1], f[2], int(f[3]),
                               int(f[4])});
            }
        }
        p = q + 1;
    }
    return out;
}

template <class T>
void bench_n(char const* type, std::size_t n) {
    std::size_t const bytes = n * n * sizeof(T);
    dense_matrix<T> h(n, n);
    bench::fill_random_dense(h, 12345 + n);
    // In core, kernels only: R-Kleene on a device copy, CUDA events, median of 3 after a warm-up.
    dense_matrix<T> in_core(n, n);
    double kernels = 0;
    {
        dense_matrix<T, device> src = h.to_device();
        dense_matrix<T, device> d(n, n);
        cudaEvent_t e0, e1;
        check(cudaEventCreate(&e0), "event");
        check(cudaEventCreate(&e1), "event");
        std::vector<double> ms;
        for (int r = 0; r < 4; ++r) {
            check(cudaMemcpy(d.data(), src.data(), bytes, cudaMemcpyDeviceToDevice), "copy");
            check(cudaEventRecord(e0), "record");
            rkleene(d.view());
            check(cudaEventRecord(e1), "record");
            check(cudaEventSynchronize(e1), "sync");
            float t = 0;
            check(cudaEventElapsedTime(&t, e0, e1), "elapsed");
            if (r > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        kernels = ms[1] / 1e3;
        in_core = d.to_host();
        std::printf("RESULT mode=incore-kernels type=%s n=%zu ms=%.1f tups=%.3f\n", type, n,
                    kernels * 1e3, tups(n, kernels));
        check(cudaEventDestroy(e0), "event");
        check(cudaEventDestroy(e1), "event");
    }
    // In core, the whole call as apsp() makes it: page-lock the host matrix, copy in, R-Kleene,
    // copy out into it (detail::round_trip_on_device).
    double whole = 0;
    {
        dense_matrix<T> back(n, n);
        copy_matrix(back, h);
        auto const t0 = clk::now();
        detail::round_trip_on_device(back, [](dense_view<T, device> v) { rkleene(v); });
        whole = since(t0);
        std::printf("RESULT mode=incore-whole type=%s n=%zu ms=%.1f tups=%.3f check=%s\n", type, n,
                    whole * 1e3, tups(n, whole), differences(back, in_core) ? "BAD" : "ok");
    }
    std::fflush(stdout);
    dense_matrix<T> d(n, n);
    for (double ratio : ratios()) {
        auto const cap = static_cast<std::size_t>(double(bytes) / ratio);
        for (plan_spec const& sp : sweep_specs()) {
            copy_matrix(d, h);
            ooc_options o;
            o.device_bytes = cap;
            o.block = sp.block;
            o.width = sp.width;
            o.pass_width = sp.pass_width;
            o.panels = sp.panels;
            o.tiles = sp.tiles;
            o.algorithm = sp.algorithm;
            o.tile = sp.tile;
            o.depth = sp.depth;
            explain_trace trace;
            o.explain = &trace;
            auto const t0 = clk::now();
            ooc_report rep;
            try {
                rep = apsp_out_of_core(d.view(), o);
            } catch (error const& e) {
                std::printf("RESULT mode=ooc type=%s n=%zu ratio=%g block=%zu error=\"%s\"\n", type,
                            n, ratio, sp.block, e.what());
                continue;
            }
            double const s = since(t0);
            std::size_t const bad = differences(d, in_core);
            std::printf("RESULT mode=ooc type=%s n=%zu ratio=%g cap_MiB=%.0f ms=%.1f run_ms=%.1f "
                        "pin_ms=%.1f tups=%.3f run_tups=%.3f of_kernels=%.2f of_whole=%.2f "
                        "run_of_kernels=%.2f pinned=%d check=%s plan=\"%s\"\n",
                        type, n, ratio, double(cap) / (1 << 20), s * 1e3, rep.run_seconds * 1e3,
                        rep.pin_seconds * 1e3, tups(n, s), tups(n, rep.run_seconds), kernels / s,
                        whole / s, kernels / rep.run_seconds, int(rep.pinned), bad ? "BAD" : "ok",
                        rep.plan.str().c_str());
            if (!rep.profile.empty())  // KLEENE_OOC_PROFILE=1
                std::printf("RESULT mode=profile ratio=%g busy=\"%s\"\n", ratio,
                            rep.profile.c_str());
            std::fflush(stdout);
        }
    }
}

void bench_closure(std::size_t n) {
    host_bits a{n, (n + 63) / 64, {}};
    a.words.assign(n * a.ld, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (int e = 0; e < 2; ++e) a.set(i, mix(i * 2 + static_cast<std::size_t>(e) + 7) % n);
    host_bits ref = a;
    auto t0 = clk::now();
    closure_gpu(ref);
    double const in_core = since(t0);
    double const nd = double(n);
    std::printf("RESULT mode=closure-incore-whole n=%zu ms=%.1f Tbit_updates=%.1f\n", n,
                in_core * 1e3, nd * nd * nd / in_core / 1e12);
    std::size_t const bytes = a.words.size() * 8;
    for (double ratio : ratios()) {
        host_bits b = a;
        ooc_options o;
        o.device_bytes = static_cast<std::size_t>(double(bytes) / ratio);
        t0 = clk::now();
        ooc_report const rep = closure_out_of_core(b.words.data(), b.n, b.ld, o);
        double const s = since(t0);
        std::printf("RESULT mode=closure-ooc n=%zu ratio=%g ms=%.1f run_ms=%.1f pin_ms=%.1f "
                    "Tbit_updates=%.1f of_incore=%.2f check=%s plan=\"%s\"\n",
                    n, ratio, s * 1e3, rep.run_seconds * 1e3, rep.pin_seconds * 1e3,
                    nd * nd * nd / s / 1e12, in_core / s, b.words == ref.words ? "ok" : "BAD",
                    rep.plan.str().c_str());
        std::fflush(stdout);
    }
}

/// Dijkstra from s over the CSR graph (non-negative weights).
std::vector<float> dijkstra(csr_matrix<float> const& a, std::size_t s) {
    std::vector<float> d(a.rows(), infinity<float>());
    using item = std::pair<float, std::size_t>;
    std::priority_queue<item, std::vector<item>, std::greater<>> q;
    d[s] = 0;
    q.push({0.f, s});
    while (!q.empty()) {
        auto const [du, u] = q.top();
        q.pop();
        if (du > d[u]) continue;
        for (std::size_t k = a.row_begin(u); k < a.row_end(u); ++k) {
            auto const v = static_cast<std::size_t>(a.col_idx()[k]);
            float const nv = du + a.value(k);
            if (nv < d[v]) {
                d[v] = nv;
                q.push({nv, v});
            }
        }
    }
    return d;
}

int large(std::size_t cap, std::size_t n) {
    std::size_t const deg = 16;
    std::vector<std::int32_t> ii(n * deg), jj(n * deg);
    std::vector<float> vv(n * deg);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t e = 0; e < deg; ++e) {
            std::uint64_t const r = mix(i * deg + e + 99);
            ii[i * deg + e] = static_cast<std::int32_t>(i);
            jj[i * deg + e] = static_cast<std::int32_t>(r % n);
            vv[i * deg + e] = float(1 + (r >> 40) % 100);
        }
    auto const a = csr_matrix<float>::from_coo(n, n, ii, jj, vv, duplicate_policy::min);
    apsp_options opt;
    opt.device = device_choice::gpu;
    opt.max_device_bytes = cap;
    // ALG=rkleene (default): the dense path, out of core past the cap (what issue 8 measures:
    // the out-of-core R-Kleene); ALG=blocked-fw: the out-of-core blocked Floyd-Warshall;
    // ALG=auto: the cost model's choice (the batched Bellman-Ford for this sparse graph);
    // ALG=bellman-ford pins that.
    std::string const alg = std::getenv("ALG") ? std::getenv("ALG") : "rkleene";
    opt.algorithm = alg == "auto"           ? apsp_algorithm::automatic
                    : alg == "bellman-ford" ? apsp_algorithm::bellman_ford
                    : alg == "blocked-fw"   ? apsp_algorithm::blocked_fw
                                            : apsp_algorithm::rkleene;
    explain_trace trace;
    opt.explain = &trace;
    std::printf("large: n=%zu, %zu edges, cap %s, host matrix %s\n", n, a.nnz(),
                detail::mib(double(cap)).c_str(), detail::mib(double(n) * double(n) * 4).c_str());
    std::fflush(stdout);
    auto const t0 = clk::now();
    auto const r = apsp(a, opt);
    double const s = since(t0);
    std::printf("%s", trace.str().c_str());
    std::size_t bad = 0;
    for (std::size_t src : {std::size_t{0}, n / 2, n - 1}) {
        auto const want = dijkstra(a, src);
        for (std::size_t j = 0; j < n; ++j) bad += !(r.dist(src, j) == want[j]);
    }
    std::printf("RESULT mode=large type=fp32 n=%zu cap_GiB=%.1f alg=%s s=%.1f tups=%.3f check=%s\n",
                n, double(cap) / double(1ull << 30), std::string(to_string(r.algorithm)).c_str(), s,
                tups(n, s), bad ? "BAD" : "ok");
    return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    // The bench's tuning (KLEENE_OOC_PROFILE, KLEENE_OOC_TIMELINE, KLEENE_OOC_ALGORITHM, ...:
    // kleene/environment.hpp) in this thread's default context, which the calls below use.
    default_context().tune = context_from_environment().tune;
    if (cuda::device_count() == 0) {
        std::printf("no CUDA device\n");
        return 0;
    }
    std::printf("device: %s\n", cuda::device_description().c_str());
    try {
        if (argc >= 2 && std::string(argv[1]) == "large") {
            std::size_t const cap =
                argc >= 3 ? detail::parse_bytes(argv[2], "cap") : std::size_t{60} << 30;
            std::size_t const n = argc >= 4 ? std::stoull(argv[3]) : 150000;
            return large(cap, n);
        }
        std::vector<std::size_t> sizes;
        for (int i = 1; i < argc; ++i) sizes.push_back(std::stoull(argv[i]));
        if (sizes.empty()) sizes = {16384};
        std::string const types = std::getenv("TYPES") ? std::getenv("TYPES") : "fp32";
        measure_link();
        for (std::size_t n : sizes) {
            if (types.find("fp32") != std::string::npos) bench_n<float>("fp32", n);
            if (types.find("int32") != std::string::npos) bench_n<std::int32_t>("int32", n);
        }
        if (char const* v = std::getenv("CLOSURE_N")) bench_closure(std::stoull(v));
    } catch (std::exception const& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}

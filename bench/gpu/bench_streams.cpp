// Two contexts on two streams (issue "The second floor", item 2b): independent work submitted
// from two host threads, each with its own kleene::context on its own non-blocking stream, against
// the same work done by one thread alone. When every launch goes to the context's stream and no
// call synchronizes the device, the two run side by side, and both take well under twice one
// (small, latency-bound calls leave most of the GPU idle).
//
//   bench_streams [--reps 200] [--scale 16] [--gemm-n 512]
//
// Per workload: time of one thread doing `reps` calls, of two threads doing `reps` calls each at
// once (wall time from the start of both to the end of both), and their ratio (2.0: no overlap,
// 1.0: full overlap). Lines starting with RESULT are for scripts.

#include <kleene/algorithms/generate.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include "bench_common.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace kleene;

/// One worker: its own stream and context, and a call to repeat.
struct worker {
    cudaStream_t stream = nullptr;
    context ctx;
    std::function<void(context&)> call;
    worker() {
        bench::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        ctx.set_stream(stream);
    }
    ~worker() { cudaStreamDestroy(stream); }
    worker(worker const&) = delete;
    worker& operator=(worker const&) = delete;
    void run(int reps) {
        for (int r = 0; r < reps; ++r) call(ctx);
    }
};

double seconds_of(std::function<void()> const& f) {
    auto const t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void measure(char const* name, worker& a, worker& b, int reps) {
    a.run(3);  // warm-up: scratch, handles, modules
    b.run(3);
    double const one = seconds_of([&] { a.run(reps); });
    double const two = seconds_of([&] {
        std::thread t([&] { b.run(reps); });
        a.run(reps);
        t.join();
    });
    std::printf("RESULT streams %s reps %d one_ms %.2f two_ms %.2f ratio %.2f per_call_us %.1f\n",
                name, reps, one * 1e3, two * 1e3, two / one, one / reps * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 200, scale = 16;
    std::size_t n = 512;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string const k = argv[i];
        if (k == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
        else if (k == "--scale") scale = std::atoi(argv[i + 1]);
        else if (k == "--gemm-n") n = std::strtoull(argv[i + 1], nullptr, 10);
        else {
            std::fprintf(stderr, "bench_streams: unknown option %s\n", k.c_str());
            return 1;
        }
    }
    // SpMV (min_plus, the generic kernel) on two Kronecker graphs.
    {
        kronecker_options opt;
        opt.scale = scale;
        opt.undirected = true;
        opt.weights = weight_range(1, 100);
        auto const g1 = kronecker_graph<float, std::int32_t>(opt).to_device();
        opt.seed = 2;
        auto const g2 = kronecker_graph<float, std::int32_t>(opt).to_device();
        dense_vector<float, device> u1(g1.cols()), w1(g1.rows()), u2(g2.cols()), w2(g2.rows());
        worker a, b;
        auto spmv = [](auto const& g, auto& w, auto const& u) {
            return [&g, &w, &u](context& ctx) {
                cuda::sparse_options o;
                o.ctx = &ctx;
                o.backend = cuda::sparse_backend::generic;
                cuda::spmv<min_plus<float>, std::int32_t>(w, {}, g, u, o);
            };
        };
        a.call = spmv(g1, w1, u1);
        b.call = spmv(g2, w2, u2);
        std::printf("spmv: kron scale %d, %zu entries\n", scale, g1.nnz());
        measure("spmv_min_plus", a, b, reps);
    }
    // Dense min_plus GEMM, n x n.
    if (n > 0) {
        dense_matrix<float> h(n, n);
        bench::fill_random_dense(h, 3);
        auto const x = h.to_device(), y = h.to_device();
        dense_matrix<float, device> c1(n, n), c2(n, n);
        worker a, b;
        a.call = [&](context& ctx) { cuda::dense_gemm<min_plus<float>>(x.view(), x.view(), c1.view(), false, ctx); };
        b.call = [&](context& ctx) { cuda::dense_gemm<min_plus<float>>(y.view(), y.view(), c2.view(), false, ctx); };
        std::printf("gemm: min_plus n %zu\n", n);
        measure("gemm_min_plus", a, b, std::max(1, reps / 4));
    }
    return 0;
}

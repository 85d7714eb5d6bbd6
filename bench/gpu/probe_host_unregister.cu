// Does cudaHostUnregister wait for the device? A probe for the distributed Floyd-Warshall's
// release of its page-locked blocks (docs/distributed.md, "Not done"): each rank's release ended
// about 0.3 s after its compute stream, as if it waited for the device to go idle.
//
//   nvcc -O2 -std=c++17 -o probe bench/gpu/probe_host_unregister.cu && ./probe [GiB] [spin ms]
//
// Page-locks GiB of touched host memory (2 MiB-aligned, madvise huge pages), then times
// cudaHostUnregister (1) with the device idle, (2) while a kernel spins for `spin ms` on a stream
// of its own, and (3) how long a kernel launch and a 4 KiB copy on a third stream take while (2)'s
// release is in progress on another thread. One line per measurement; nothing is checked.

#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <cuda_runtime.h>

#define CHECK(x)                                                                    \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));           \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

__global__ void spin(long long cycles) {
    long long const t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

__global__ void nop() {}

namespace {

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t const gib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4;
    double const spin_ms = argc > 2 ? std::atof(argv[2]) : 1000;
    std::size_t const bytes = gib << 30;
    void* p = std::aligned_alloc(std::size_t(2) << 20, bytes);
    if (!p) return 1;
    madvise(p, bytes, MADV_HUGEPAGE);
    std::memset(p, 1, bytes);
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    long long const cycles = static_cast<long long>(spin_ms * clock_khz);
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    void* d = nullptr;
    CHECK(cudaMalloc(&d, 4096));
    CHECK(cudaFree(nullptr));

    for (int round = 0; round < 2; ++round) {
        auto t0 = std::chrono::steady_clock::now();
        CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
        std::printf("round %d: register %zu GiB: %.3f s\n", round, gib, since(t0));
        t0 = std::chrono::steady_clock::now();
        CHECK(cudaHostUnregister(p));
        std::printf("round %d: unregister, device idle: %.3f s\n", round, since(t0));

        CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
        CHECK(cudaDeviceSynchronize());
        auto const k0 = std::chrono::steady_clock::now();
        spin<<<1, 1, 0, s1>>>(cycles);
        CHECK(cudaGetLastError());
        double unregister_s = 0, unregister_start = 0;
        std::thread releaser([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            unregister_start = since(k0);
            auto const u0 = std::chrono::steady_clock::now();
            CHECK(cudaHostUnregister(p));
            unregister_s = since(u0);
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        auto const l0 = std::chrono::steady_clock::now();
        nop<<<1, 1, 0, s2>>>();
        CHECK(cudaGetLastError());
        double const launch_s = since(l0);
        auto const c0 = std::chrono::steady_clock::now();
        CHECK(cudaMemcpyAsync(d, p, 4096, cudaMemcpyHostToDevice, s2));
        CHECK(cudaStreamSynchronize(s2));
        double const copy_s = since(c0);
        releaser.join();
        CHECK(cudaStreamSynchronize(s1));
        double const kernel_end = since(k0);
        std::printf(
            "round %d: spin kernel %.0f ms ended at %.3f s; unregister started at %.3f s, took "
            "%.3f s (ended at %.3f s); meanwhile a launch took %.6f s, a 4 KiB copy + sync on "
            "another stream %.6f s\n",
            round, spin_ms, kernel_end, unregister_start, unregister_s,
            unregister_start + unregister_s, launch_s, copy_s);
    }
    std::free(p);
    return 0;
}

// A call's result from the device to the host: the last step of every graph kernel that returns
// host vectors (kleene/cuda/result_copy.hpp). For each size, the median of --runs copies of
// device memory into
//   link       page-locked host memory (cudaHostAlloc): the host link's rate, the floor;
//   pageable   a std::vector-like result by one cudaMemcpyAsync (the driver's staging), fresh
//              each time (as a call's new result) or reused (already touched);
//   staged     the same through the context's two page-locked buffers (the library's way), with
//              chunks of --chunks MiB;
//   touch      only the first touch of a fresh result's pages by the context's threads (no copy):
//              what a fresh result costs before any byte moves; with and without the
//              transparent huge-page advice that kleene's result vectors give.
//
//   bench_result_copy [--mib 32,64] [--runs 9] [--chunks 2,4,8,16] [--threads N]

#include <kleene/context.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/vector_for_overwrite.hpp>

#include <cuda_runtime.h>

#include "../timing.hpp"
#include "bench_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using kleene::bench::check;
using kleene::bench::median_ms;

/// One byte of every 4 KiB page of a fresh array written, by all threads: its first touch alone.
void touch_pages(void* data, std::size_t bytes) {
    auto* p = static_cast<char*>(data);
    std::int64_t const pages = static_cast<std::int64_t>(bytes >> 12);
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < pages; ++k) p[k << 12] = 1;
}

std::vector<std::size_t> list_of(char const* s) {
    std::vector<std::size_t> v;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) v.push_back(std::stoull(item));
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> mibs{32, 64};
    std::vector<std::size_t> chunks{2, 4, 8, 16};
    int runs = 9;
    int threads = 0;
    for (int i = 1; i < argc; ++i) {
        std::string const a = argv[i];
        auto next = [&]() -> char const* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_result_copy: %s needs a value\n", a.c_str());
                std::exit(1);
            }
            return argv[++i];
        };
        if (a == "--mib") mibs = list_of(next());
        else if (a == "--chunks") chunks = list_of(next());
        else if (a == "--runs") runs = std::max(1, std::atoi(next()));
        else if (a == "--threads") threads = std::atoi(next());
        else {
            std::fprintf(stderr,
                         "usage: bench_result_copy [--mib 32,64] [--runs 9] [--chunks 2,4,8,16] "
                         "[--threads N]\n");
            return 1;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("bench_result_copy: no CUDA device\n");
        return 0;
    }
    kleene::context ctx;
    cudaStream_t st;
    check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
    ctx.set_stream(st);
    if (threads > 0) ctx.set_threads(threads);
    std::printf("%-34s %8s %10s %9s\n", "copy", "MiB", "median ms", "GB/s");
    auto report = [](std::string const& what, std::size_t mib, double ms) {
        double const gb = double(mib) * 1048576.0 / 1e9;
        std::printf("%-34s %8zu %10.3f %9.2f\n", what.c_str(), mib, ms, gb / (ms / 1e3));
    };
    for (std::size_t mib : mibs) {
        std::size_t const bytes = mib << 20;
        std::size_t const n = bytes / sizeof(std::int64_t);
        void* dev = nullptr;
        check(cudaMalloc(&dev, bytes), "cudaMalloc");
        check(cudaMemset(dev, 0x5a, bytes), "cudaMemset");
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        void* pinned = nullptr;
        check(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault), "cudaHostAlloc");
        report("link (page-locked destination)", mib, median_ms(runs, [&] {
                   kleene::cuda::copy_result_to_host(pinned, dev, bytes, ctx);
               }));
        kleene::cuda::result_copy_options direct;
        direct.staged = false;
        report("pageable, fresh result", mib, median_ms(runs, [&] {
                   kleene::vector_for_overwrite<std::int64_t> r(n);
                   kleene::cuda::copy_result_to_host(r.data(), dev, bytes, ctx, direct);
               }));
        kleene::vector_for_overwrite<std::int64_t> kept(n, 0);
        report("pageable, reused result", mib, median_ms(runs, [&] {
                   kleene::cuda::copy_result_to_host(kept.data(), dev, bytes, ctx, direct);
               }));
        report("touch only, fresh result", mib, median_ms(runs, [&] {
                   kleene::vector_for_overwrite<std::int64_t> r(n);
                   touch_pages(r.data(), bytes);
               }));
        // The same fresh result without the transparent huge-page advice vector_for_overwrite
        // gives arrays of 4 MiB and more (new[]: 4 KiB pages unless the system's THP is
        // "always").
        report("touch only, fresh, no huge-page advice", mib, median_ms(runs, [&] {
                   std::unique_ptr<std::int64_t[]> r(new std::int64_t[n]);
                   touch_pages(r.get(), bytes);
               }));
        report("staged (default), fresh, no advice", mib, median_ms(runs, [&] {
                   std::unique_ptr<std::int64_t[]> r(new std::int64_t[n]);
                   kleene::cuda::copy_result_to_host(r.get(), dev, bytes, ctx);
               }));
        for (std::size_t c : chunks) {
            kleene::cuda::result_copy_options staged;
            staged.chunk = c << 20;
            staged.staged_from = 0;
            report("staged " + std::to_string(c) + " MiB, fresh result", mib, median_ms(runs, [&] {
                       kleene::vector_for_overwrite<std::int64_t> r(n);
                       kleene::cuda::copy_result_to_host(r.data(), dev, bytes, ctx, staged);
                   }));
            report("staged " + std::to_string(c) + " MiB, reused result", mib,
                   median_ms(runs, [&] {
                       kleene::cuda::copy_result_to_host(kept.data(), dev, bytes, ctx, staged);
                   }));
        }
        // The copies are right: every byte of the last one as the device holds it.
        for (std::size_t i = 0; i < n; ++i)
            if (kept[i] != 0x5a5a5a5a5a5a5a5aLL) {
                std::fprintf(stderr, "bench_result_copy: wrong value at %zu\n", i);
                return 1;
            }
        check(cudaFreeHost(pinned), "cudaFreeHost");
        check(cudaFree(dev), "cudaFree");
    }
    return 0;
}

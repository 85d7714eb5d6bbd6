// Tile-depth and integer-instruction variants of the GPU semiring GEMM, built side by side with
// different -D values (lab/gemm_variants.sh): KLEENE_GEMM_BLOCK_K (shared-memory stage
// depth for 4-byte types) and KLEENE_GEMM_INT_DPX (int32 min_plus through VIADDMNMX or
// IADD + IMNMX). Prints time, T updates/s and a checksum that must agree across variants.

#include <kleene/cuda/dense_gemm.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace kleene;

namespace {
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <class T>
void run(char const* name, std::size_t n) {
    using S = min_plus<T>;
    dense_matrix<T> a(n, n), b(n, n);
    for (std::size_t i = 0; i < n * n; ++i) {
        std::uint64_t r = mix(i), q = mix(i + n * n);
        a.data()[i] = r % 20 == 0 ? infinity<T>() : T(1 + (r >> 32) % 1000);
        b.data()[i] = q % 20 == 0 ? infinity<T>() : T(1 + (q >> 32) % 1000);
    }
    auto ad = a.to_device(), bd = b.to_device();
    dense_matrix<T, device> cd(n, n);
    cuda::dense_gemm<S>(ad.view(), bd.view(), cd.view(), false);  // warm-up
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> ms;
    for (int rep = 0; rep < 5; ++rep) {
        cudaEventRecord(e0);
        cuda::dense_gemm<S>(ad.view(), bd.view(), cd.view(), false);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    auto const c = cd.to_host();
    double sum = 0;
    for (std::size_t i = 0; i < n * n; ++i) sum += double(c.data()[i]) * double(1 + i % 7);
    double const t = ms[ms.size() / 2];
    std::printf("variant bk=%d dpx=%d %-6s n=%5zu %9.3f ms %6.2f T/s checksum %.6e\n",
                KLEENE_GEMM_BLOCK_K, KLEENE_GEMM_INT_DPX, name, n, t,
                double(n) * n * n / (t * 1e-3) / 1e12, sum);
}
}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::size_t const n = std::strtoull(argv[i], nullptr, 10);
        run<float>("fp32", n);
        run<std::int32_t>("int32", n);
    }
}

// Latency of one step of a dependent chain, the bound of the GPU BFS / SSSP work list on road
// networks (docs/performance.md: about 4 us a step through global memory). A step: wait for the
// previous step's hand-off, read one adjacency entry (global memory, L2-resident; its index
// depends on the previous step), lower a label with atomic min, hand off to the next step's warp.
// Three ways, each L steps dealt round-robin to W warps (one active lane each):
//   smem:   the warps of one block; labels and hand-off flags in shared memory;
//   block:  the warps of one block; labels and flags in global memory;
//   grid:   one warp in each of W blocks (other multiprocessors); labels and flags in global
//           memory (what the work list pays at every step).
// Prints ns a step (kernel time / L, CUDA events, median of 5). A lab tool, not a benchmark of
// kleene: lab/road_regions.py says how many steps of a road network's chains would cross regions.
//   nvcc -O3 -arch=sm_90 -std=c++17 lab/chain_latency.cu -o chain_latency && ./chain_latency
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#define CHECK(x)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::printf("%s: %s\n", #x, cudaGetErrorString(e_));                           \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

constexpr int N = 4096;  // labels and adjacency entries

__device__ __forceinline__ int load_acquire(int const* p) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_release(int* p, int v) {
    asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Flags hold the step number + 1 that may go next, and the value handed on (the last index).
__global__ void chain_smem(int const* __restrict__ adj, int steps, int* out) {
    __shared__ int label[N];
    __shared__ volatile int turn;  // the step that may run now
    __shared__ volatile int carry;
    int const w = threadIdx.x / 32, warps = blockDim.x / 32;
    for (int i = threadIdx.x; i < N; i += blockDim.x) label[i] = 1 << 30;
    if (threadIdx.x == 0) turn = 0, carry = 0;
    __syncthreads();
    if (threadIdx.x % 32) return;
    for (int s = w; s < steps; s += warps) {
        while (turn != s) {
        }
        int const v = adj[(carry + s) & (N - 1)];
        atomicMin(&label[v], s);
        carry = v;
        __threadfence_block();
        turn = s + 1;
    }
    if (w == 0) out[0] = label[0];
}

__global__ void chain_global(int const* __restrict__ adj, int steps, int* label, int* turn,
                             int* carry, int warps_per_block) {
    int const lane = threadIdx.x % 32;
    if (lane) return;
    int const w = blockIdx.x * warps_per_block + threadIdx.x / 32;
    int const warps = gridDim.x * warps_per_block;
    for (int s = w; s < steps; s += warps) {
        while (load_acquire(turn) != s) {
        }
        int const c = *(volatile int*)carry;
        int const v = adj[(c + s) & (N - 1)];
        atomicMin(&label[v], s);
        *(volatile int*)carry = v;
        store_release(turn, s + 1);
    }
}

int main(int argc, char** argv) {
    int const steps = argc > 1 ? std::atoi(argv[1]) : 20000;
    std::vector<int> h(N);
    std::iota(h.begin(), h.end(), 0);
    std::shuffle(h.begin(), h.end(), std::mt19937(7));
    int *adj, *label, *turn, *carry, *out;
    CHECK(cudaMalloc(&adj, N * sizeof(int)));
    CHECK(cudaMalloc(&label, N * sizeof(int)));
    CHECK(cudaMalloc(&turn, 256));
    CHECK(cudaMalloc(&carry, 256));
    CHECK(cudaMalloc(&out, 256));
    CHECK(cudaMemcpy(adj, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    auto time = [&](auto launch) {
        std::vector<float> t;
        for (int r = 0; r < 6; ++r) {
            CHECK(cudaMemset(label, 0x3f, N * sizeof(int)));
            CHECK(cudaMemset(turn, 0, 256));
            CHECK(cudaMemset(carry, 0, 256));
            CHECK(cudaEventRecord(a));
            launch();
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            CHECK(cudaGetLastError());
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            if (r) t.push_back(ms);  // the first run warms up
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2] * 1e6 / steps;
    };
    for (int warps : {2, 8, 32}) {
        double const s = time([&] { chain_smem<<<1, 32 * warps>>>(adj, steps, out); });
        double const g1 = time([&] {
            chain_global<<<1, 32 * warps>>>(adj, steps, label, turn, carry, warps);
        });
        double const gw = time([&] {
            chain_global<<<warps, 32>>>(adj, steps, label, turn, carry, 1);
        });
        std::printf("%2d warps: %6.0f ns a step in shared memory (one block), %6.0f ns through "
                    "global memory in one block, %6.0f ns through global memory across %d "
                    "blocks\n",
                    warps, s, g1, gw, warps);
    }
    int o = 0;
    CHECK(cudaMemcpy(&o, out, sizeof o, cudaMemcpyDeviceToHost));
    std::printf("(steps %d; check %d)\n", steps, o);
    return 0;
}

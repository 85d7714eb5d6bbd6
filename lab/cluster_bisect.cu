// The library's bfs_cluster (algorithms/cuda/src/graph_bfs_block.cuh) run from the source in the
// lab's harness (region_sssp.cu's kernel 8 harness: the same graph reader, fill, timing, one
// launch a run), to tell its kernel from its surroundings in the library (twenty-seventh
// session: inside the library the cluster took NE about 0.5 us a level more than kernel 8; in
// this harness 0.3 us, the kernel's own; the kernel was then rebuilt on kernel 8's structure).
// --sorted sorts each row's columns (the library's CSR has them sorted; the lab's reader keeps
// the file's order). Levels checked against a host BFS on every source.
//
//   nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Ilib/core/include -Ilib/backend/common/include -Ilib/backend/cuda/include \
//        -Isemirings/include -Ibuild-gpu/generated/include lab/cluster_bisect.cu -o cluster_bisect
//   ./cluster_bisect road_NE.mtx SOURCES_FILE [--runs 5] [--sorted] [--clusters 16]
#include "../algorithms/cuda/src/graph_bfs_block.cuh"
#include "mtx_graph.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t const e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                          \
            std::printf("cuda: %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

namespace bb = kleene::cuda::bfs_block_detail;

__global__ void fill_levels(int* level, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        level[i] = 0x7fffffff;
}
__global__ void seed(int* order, int* order_parent, long long* starts, int source) {
    order[0] = source;
    order_parent[0] = source;
    starts[0] = 0;
    starts[1] = 1;  // the block writes its levels' ends, the handed-over one's too
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::printf("usage: cluster_bisect GRAPH.mtx SOURCES [--runs R] [--sorted] [--clusters C]\n");
        return 1;
    }
    int runs = 5, C = 16;
    bool sorted = false;
    for (int i = 3; i < argc; ++i) {
        std::string const o = argv[i];
        if (o == "--runs") runs = std::atoi(argv[++i]);
        else if (o == "--sorted") sorted = true;
        else if (o == "--clusters") C = std::atoi(argv[++i]);
    }
    auto g = read_mtx<int>(argv[1]);
    if (sorted)
        for (int v = 0; v < g.n; ++v) std::sort(g.col.begin() + g.ptr[v], g.col.begin() + g.ptr[v + 1]);
    std::vector<int> sources;
    {
        std::ifstream f(argv[2]);
        int s;
        while (f >> s) sources.push_back(s);
    }
    int const n = g.n;
    int *dptr, *dcol, *dlevel, *dparent, *dorder, *dopar, *dpv, *dpp, *dpl, *dpc;
    bb::queued_vertex<int>* dspill;
    long long* dstarts;
    unsigned long long* dspill_count;
    bb::block_outcome *dout, *dout0;
    CHECK(cudaMalloc(&dptr, sizeof(int) * (n + 1)));
    CHECK(cudaMalloc(&dcol, sizeof(int) * g.col.size()));
    CHECK(cudaMalloc(&dlevel, sizeof(int) * n));
    CHECK(cudaMalloc(&dparent, sizeof(int) * n));
    CHECK(cudaMalloc(&dorder, sizeof(int) * n));
    CHECK(cudaMalloc(&dopar, sizeof(int) * n));
    CHECK(cudaMalloc(&dspill, sizeof(bb::queued_vertex<int>) * std::size_t(n)));
    std::int64_t const part = bb::cluster_part(n, C);
    CHECK(cudaMalloc(&dpv, sizeof(int) * C * part));
    CHECK(cudaMalloc(&dpp, sizeof(int) * C * part));
    CHECK(cudaMalloc(&dpl, sizeof(int) * C * part));
    CHECK(cudaMalloc(&dpc, sizeof(int) * C));
    bb::cluster_parts<int> const parts{dpv, dpp, dpl, dpc, part};
    CHECK(cudaMalloc(&dstarts, sizeof(long long) * (n + 2)));
    CHECK(cudaMalloc(&dspill_count, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&dout, sizeof(bb::block_outcome)));
    CHECK(cudaMalloc(&dout0, sizeof(bb::block_outcome)));
    bb::block_outcome const one{0, 1, 1, 1, 1, 0};  // the block's level 0, handed over
    CHECK(cudaMemcpy(dout0, &one, sizeof one, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dptr, g.ptr.data(), sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcol, g.col.data(), sizeof(int) * g.col.size(), cudaMemcpyHostToDevice));
    int optin = 0;
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    std::size_t const room = std::size_t(optin) - 1024;
    auto const kernel = bb::bfs_cluster<int>;
    long long const qcap = (room - bb::cluster_bytes(n, C, 0, sizeof(int))) / (4 * sizeof(int));
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(room)));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(unsigned(C));
    cfg.blockDim = dim3(bb::block_threads);
    cfg.dynamicSmemBytes = bb::cluster_bytes(n, C, qcap, sizeof(int));
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = unsigned(C);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<double> medians;
    std::vector<int> got(n);
    int bad = 0;
    for (int s : sources) {
        std::vector<float> ms;
        for (int r = 0; r < runs; ++r) {
            CHECK(cudaEventRecord(e0));
            fill_levels<<<264, 512>>>(dlevel, n);
            seed<<<1, 1>>>(dorder, dopar, dstarts, s);
            CHECK(cudaMemsetAsync(dspill_count, 0, sizeof(unsigned long long)));
            CHECK(cudaLaunchKernelEx(&cfg, kernel, (int const*)dptr, (int const*)dcol, std::int64_t(n),
                                     dorder, dopar, (long long const*)dstarts, parts, dspill, dspill_count,
                                     0, 1ll, int(qcap), 0ll, dout));
            // The source (the block's order, here a search of one level) and the cluster's levels.
            bb::finish_levels<int><<<1, 32>>>(dorder, dopar, dstarts, dout0, 0, dlevel, dparent);
            bb::finish_cluster<int><<<264, 512>>>(parts, C, dorder, dopar, dout, dlevel, dparent);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaGetLastError());
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        bb::block_outcome o{};
        CHECK(cudaMemcpy(&o, dout, sizeof o, cudaMemcpyDeviceToHost));
        std::printf("  source %d: %.3f ms, %d levels%s\n", s, ms[ms.size() / 2], o.levels,
                    o.handed_over ? " HANDED OVER" : "");
        medians.push_back(ms[ms.size() / 2]);
        // The host's BFS.
        std::vector<int> want(n, 0x7fffffff), q{s};
        want[s] = 0;
        for (std::size_t h = 0; h < q.size(); ++h)
            for (int k = g.ptr[q[h]]; k < g.ptr[q[h] + 1]; ++k)
                if (want[g.col[k]] == 0x7fffffff) want[g.col[k]] = want[q[h]] + 1, q.push_back(g.col[k]);
        CHECK(cudaMemcpy(got.data(), dlevel, sizeof(int) * n, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int v = 0; v < n; ++v) wrong += got[v] != want[v];
        if (wrong) std::printf("  CHECK source %d: %d levels wrong\n", s, wrong);
        bad += wrong != 0;
    }
    std::sort(medians.begin(), medians.end());
    std::printf("RESULT library bfs_cluster in the lab C=%d%s: median %.3f ms (sources %.3f-%.3f)\n", C,
                sorted ? " sorted rows" : "", medians[medians.size() / 2], medians.front(),
                medians.back());
    std::printf("%s\n", bad ? "CHECK FAILED" : "all levels equal");
    return bad ? 1 : 0;
}

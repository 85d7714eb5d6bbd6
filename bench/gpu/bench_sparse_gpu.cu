// GPU graph and sparse benchmarks on Graph500-style Kronecker graphs generated on the device:
// BFS in GTEPS (undirected edges of the traversed component / time, and the Graph500
// reference's count of generated tuples in the component / time; median over 64
// random sources of degree > 0; median and harmonic mean), with the forced-push and forced-pull
// times beside the automatic switch; SpMV and SpMM (plus_times float) and SpGEMM (A x A) with
// kleene's kernels beside cuSPARSE on the same matrices.
//
//   bench_sparse_gpu [scale ...]          BFS / SpMV / SpMM scales (default 20 21 22)
//   KLEENE_SPGEMM_SCALES="12 14"          SpGEMM scales (edge factor 8)
//   KLEENE_BFS_SOURCES=64                 sources per scale
//   KLEENE_BFS_ONLY=1                     the BFS measurements alone
//
// The graph: 16 x 2^scale edges drawn from the R-MAT initiator (0.57, 0.19, 0.19, 0.05), labels
// permuted at random, made undirected, self-loops and duplicates removed. Lines starting with
// RESULT are for scripts; a table comes last.

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// No `using namespace kleene`: kleene::cuda would then collide with libcu++'s ::cuda in the code
// nvcc generates for CUB's kernels.
using kleene::buffer;
using kleene::csr_matrix;
using kleene::dense_matrix;
using kleene::dense_vector;
using kleene::device;
using kleene::min_plus;
using kleene::plus_times;
namespace kc = kleene::cuda;
using graph = csr_matrix<float, std::int32_t, device>;

__host__ __device__ std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
__device__ double uniform(std::uint64_t seed, std::uint64_t i) {
    return double(mix(seed ^ mix(i)) >> 11) * 0x1.0p-53;
}

__global__ void random_keys(std::uint64_t seed, std::uint32_t n, std::uint64_t* keys,
                            std::uint32_t* ids) {
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        keys[i] = mix(seed + i);
        ids[i] = i;
    }
}

/// The e-th generated R-MAT edge (A, B, C = 0.57, 0.19, 0.19), its labels permuted.
__device__ void rmat_edge(int scale, std::uint64_t seed, std::uint64_t e,
                          std::uint32_t const* __restrict__ perm, std::uint64_t& pu,
                          std::uint64_t& pv) {
    std::uint32_t u = 0, v = 0;
    for (int b = 0; b < scale; ++b) {
        double const x = uniform(seed, e * 64 + std::uint64_t(b));
        unsigned const q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
        u = 2 * u + (q >> 1);
        v = 2 * v + (q & 1);
    }
    pu = perm[u];
    pv = perm[v];
}

/// Both directions of each R-MAT edge as (u << 32 | v); self-loops become ~0 (dropped later).
__global__ void kronecker_edges(int scale, std::uint64_t m, std::uint64_t seed,
                                std::uint32_t const* __restrict__ perm,
                                std::uint64_t* __restrict__ keys) {
    for (std::uint64_t e = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; e < m;
         e += std::uint64_t(gridDim.x) * blockDim.x) {
        std::uint64_t pu = 0, pv = 0;
        rmat_edge(scale, seed, e, perm, pu, pv);
        keys[2 * e] = pu == pv ? ~0ull : (pu << 32 | pv);
        keys[2 * e + 1] = pu == pv ? ~0ull : (pv << 32 | pu);
    }
}

/// The generated edge tuples counted at their first endpoint, self-loops and repeats included:
/// what the Graph500 reference counts as traversed ("they're part of the input data").
__global__ void kronecker_tuple_counts(int scale, std::uint64_t m, std::uint64_t seed,
                                       std::uint32_t const* __restrict__ perm,
                                       unsigned long long* __restrict__ counts) {
    for (std::uint64_t e = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; e < m;
         e += std::uint64_t(gridDim.x) * blockDim.x) {
        std::uint64_t pu = 0, pv = 0;
        rmat_edge(scale, seed, e, perm, pu, pv);
        atomicAdd(counts + pu, 1ull);
    }
}

__global__ void csr_from_keys(std::uint64_t const* __restrict__ keys, std::uint64_t nnz,
                              std::uint32_t n, std::int32_t* __restrict__ row_ptr,
                              std::int32_t* __restrict__ col, float* __restrict__ val,
                              std::uint64_t seed) {
    std::uint64_t const stride = std::uint64_t(gridDim.x) * blockDim.x;
    std::uint64_t const t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
    for (std::uint64_t k = t; k < nnz; k += stride) {
        col[k] = static_cast<std::int32_t>(keys[k] & 0xffffffffu);
        val[k] = float(0.25 + 0.75 * uniform(seed, k));
    }
    for (std::uint64_t r = t; r <= n; r += stride) {  // row_ptr[r] = first key with row >= r
        std::uint64_t lo = 0, hi = nnz;
        std::uint64_t const target = r << 32;
        while (lo < hi) {
            std::uint64_t const mid = (lo + hi) / 2;
            if (keys[mid] < target) lo = mid + 1;
            else hi = mid;
        }
        row_ptr[r] = static_cast<std::int32_t>(lo);
    }
}

/// The graph (undirected, self-loops and repeated edges removed); with `tuples`, also each
/// vertex's count of generated edge tuples (kronecker_tuple_counts) for the Graph500 TEPS count.
graph kronecker_graph(int scale, int edge_factor, std::uint64_t seed,
                      std::vector<std::uint64_t>* tuples = nullptr) {
    std::uint32_t const n = 1u << scale;
    std::uint64_t const m = std::uint64_t(edge_factor) * n;
    std::size_t bytes = 0;
    // A random permutation of the labels.
    buffer<std::uint64_t, device> pk(n), pk2(n);
    buffer<std::uint32_t, device> ids(n), perm(n);
    random_keys<<<1024, 256>>>(seed, n, pk.data(), ids.data());
    KLEENE_CUDA_CHECK_LAUNCH("random_keys");
    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, pk.data(), pk2.data(),
                                                      ids.data(), perm.data(), n));
    buffer<unsigned char, device> tmp(bytes);
    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, pk.data(), pk2.data(),
                                                      ids.data(), perm.data(), n));
    buffer<std::uint64_t, device> keys(2 * m), sorted(2 * m);
    kronecker_edges<<<4096, 256>>>(scale, m, seed * 7 + 1, perm.data(), keys.data());
    KLEENE_CUDA_CHECK_LAUNCH("kronecker_edges");
    if (tuples) {
        buffer<unsigned long long, device> counts(n);
        KLEENE_CUDA_CHECK(cudaMemset(counts.data(), 0, n * sizeof(unsigned long long)));
        kronecker_tuple_counts<<<4096, 256>>>(scale, m, seed * 7 + 1, perm.data(), counts.data());
        KLEENE_CUDA_CHECK_LAUNCH("kronecker_tuple_counts");
        tuples->resize(n);
        KLEENE_CUDA_CHECK(cudaMemcpy(tuples->data(), counts.data(), n * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost));
    }
    KLEENE_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys.data(), sorted.data(), 2 * m));
    tmp = buffer<unsigned char, device>(bytes);
    KLEENE_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(tmp.data(), bytes, keys.data(), sorted.data(), 2 * m));
    buffer<std::uint64_t, device> count(1);
    KLEENE_CUDA_CHECK(
        cub::DeviceSelect::Unique(nullptr, bytes, sorted.data(), keys.data(), count.data(), 2 * m));
    tmp = buffer<unsigned char, device>(bytes);
    KLEENE_CUDA_CHECK(cub::DeviceSelect::Unique(tmp.data(), bytes, sorted.data(), keys.data(),
                                                count.data(), 2 * m));
    std::uint64_t nnz = 0, last = 0;
    KLEENE_CUDA_CHECK(cudaMemcpy(&nnz, count.data(), sizeof nnz, cudaMemcpyDeviceToHost));
    KLEENE_CUDA_CHECK(
        cudaMemcpy(&last, keys.data() + nnz - 1, sizeof last, cudaMemcpyDeviceToHost));
    if (last == ~0ull) --nnz;
    buffer<std::int32_t, device> row_ptr(n + 1), col(nnz);
    buffer<float, device> val(nnz);
    csr_from_keys<<<4096, 256>>>(keys.data(), nnz, n, row_ptr.data(), col.data(), val.data(),
                                 seed + 3);
    KLEENE_CUDA_CHECK_LAUNCH("csr_from_keys");
    KLEENE_CUDA_CHECK(cudaDeviceSynchronize());
    return graph(n, n, std::move(row_ptr), std::move(col), std::move(val), 1.0f, true);
}

template <class T>
std::vector<T> host_copy(buffer<T, device> const& b) {
    std::vector<T> h(b.size());
    if (!h.empty())
        KLEENE_CUDA_CHECK(
            cudaMemcpy(h.data(), b.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty()      ? 0
           : v.size() % 2 ? v[v.size() / 2]
                          : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct timer {
    cudaEvent_t a = nullptr, b = nullptr;
    timer() {
        KLEENE_CUDA_CHECK(cudaEventCreate(&a));
        KLEENE_CUDA_CHECK(cudaEventCreate(&b));
    }
    ~timer() {
        (void)cudaEventDestroy(a);
        (void)cudaEventDestroy(b);
    }
    template <class F>
    double ms(F&& f) {
        KLEENE_CUDA_CHECK(cudaEventRecord(a));
        f();
        KLEENE_CUDA_CHECK(cudaEventRecord(b));
        KLEENE_CUDA_CHECK(cudaEventSynchronize(b));
        float t = 0;
        KLEENE_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
        return t;
    }
    /// Median of `reps` runs after one warm-up.
    template <class F>
    double median_ms(int reps, F&& f) {
        f();
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) t.push_back(ms(f));
        return median(t);
    }
};

std::vector<std::int64_t> host_bfs(std::vector<std::int32_t> const& ptr,
                                   std::vector<std::int32_t> const& col, std::size_t s) {
    std::vector<std::int64_t> level(ptr.size() - 1, -1);
    std::vector<std::size_t> q{s};
    level[s] = 0;
    for (std::size_t h = 0; h < q.size(); ++h) {
        std::size_t const u = q[h];
        for (std::int32_t k = ptr[u]; k < ptr[u + 1]; ++k)
            if (level[std::size_t(col[std::size_t(k)])] < 0) {
                level[std::size_t(col[std::size_t(k)])] = level[u] + 1;
                q.push_back(std::size_t(col[std::size_t(k)]));
            }
    }
    return level;
}

struct summary_row {
    std::string what;
    std::string value;
};
std::vector<summary_row> summary;

void bfs_bench(graph const& a, int scale, int sources, std::vector<std::uint64_t> const& tuples) {
    auto const ptr = host_copy(a.row_ptr_storage());
    auto const col = host_copy(a.col_idx_storage());
    std::size_t const n = a.rows();
    std::mt19937_64 g(std::uint64_t(scale) * 1000 + 7);
    std::vector<std::size_t> src;
    while (int(src.size()) < sources) {
        std::size_t const s = g() % n;
        if (ptr[s + 1] > ptr[s]) src.push_back(s);
    }
    std::vector<double> teps, teps500, secs;
    std::string steps_of_median;
    int validated = 0, bad = 0;
    std::vector<std::pair<double, std::string>> runs;
    bool device_loop = true;  // every run was one cooperative kernel
    for (std::size_t i = 0; i < src.size(); ++i) {
        auto const run = kc::bfs(a, a, src[i], true);
        device_loop = device_loop && run.device_loop;
        // Graph500: undirected edges with both ends in the traversed component.
        std::uint64_t deg = 0;
        for (std::size_t v = 0; v < n; ++v)
            if (run.level[v] >= 0) deg += std::uint64_t(ptr[v + 1] - ptr[v]);
        double const m = double(deg) / 2;
        teps.push_back(m / run.seconds);
        // The Graph500 reference's count: generated tuples in the component, self-loops and
        // repeats included.
        std::uint64_t m500 = 0;
        for (std::size_t v = 0; v < n; ++v)
            if (run.level[v] >= 0) m500 += tuples[v];
        teps500.push_back(double(m500) / run.seconds);
        secs.push_back(run.seconds);
        std::string steps;
        for (char p : run.step_was_pull) steps += p ? 'L' : 'H';  // puLl / pusH
        runs.emplace_back(run.seconds, steps);
        if (i < 2) {  // validate: levels against a host BFS, every parent one level up and adjacent
            auto const want = host_bfs(ptr, col, src[i]);
            for (std::size_t v = 0; v < n; ++v) {
                if (run.level[v] != want[v]) {
                    ++bad;
                    continue;
                }
                if (want[v] <= 0) continue;
                std::int64_t const p = run.parent[v];
                bool ok = p >= 0 && std::size_t(p) < n && want[std::size_t(p)] == want[v] - 1;
                if (ok)
                    ok = std::binary_search(col.begin() + ptr[std::size_t(p)],
                                            col.begin() + ptr[std::size_t(p) + 1], std::int32_t(v));
                bad += !ok;
            }
            ++validated;
        }
    }
    std::sort(runs.begin(), runs.end());
    steps_of_median = runs[runs.size() / 2].second;
    double hm = 0;
    for (double t : teps) hm += 1.0 / t;
    hm = double(teps.size()) / hm;
    double const med = median(teps);
    // KLEENE_BFS_SWEEP="alpha:beta[:pull_batch[:host|device|loop4]] ...": the median GTEPS of
    // the same sources under other switching constants, pull batches or loops (to set
    // bfs_tuning's defaults from measurements).
    if (char const* sweep = std::getenv("KLEENE_BFS_SWEEP")) {
        std::istringstream in(sweep);
        for (std::string pair; in >> pair;) {
            auto const colon = pair.find(':');
            if (colon == std::string::npos) continue;
            kc::bfs_tuning t;
            t.alpha = std::atof(pair.substr(0, colon).c_str());
            t.beta = std::atof(pair.substr(colon + 1).c_str());
            auto const colon2 = pair.find(':', colon + 1);
            if (colon2 != std::string::npos) t.pull_batch = std::atoi(pair.substr(colon2 + 1).c_str());
            // A fourth field: "host" the host loop, "device" the device loop, "loop4" the device
            // loop at 4 blocks a SM, "device0" the device loop without block 0's small levels
            // (block_edges 0: the kernel built without them).
            auto const colon3 = colon2 == std::string::npos ? colon2 : pair.find(':', colon2 + 1);
            std::string const how = colon3 == std::string::npos ? "" : pair.substr(colon3 + 1);
            t.loop = how == "host" ? kc::bfs_loop::host
                     : how == "device" || how == "loop4" || how == "device0"
                         ? kc::bfs_loop::device
                         : kc::bfs_loop::automatic;
            if (how == "device0") t.block_edges = 0;
            t.loop_blocks = how == "loop4" ? 4 : 2;
            std::vector<double> sweep_teps, sweep_500, sweep_s;
            for (std::size_t i = 0; i < src.size(); ++i) {
                auto const run = kc::bfs(a, a, src[i], true, t);
                std::uint64_t deg = 0, m500 = 0;
                for (std::size_t v = 0; v < n; ++v)
                    if (run.level[v] >= 0) {
                        deg += std::uint64_t(ptr[v + 1] - ptr[v]);
                        m500 += tuples[v];
                    }
                sweep_teps.push_back(double(deg) / 2 / run.seconds);
                sweep_500.push_back(double(m500) / run.seconds);
                sweep_s.push_back(run.seconds);
            }
            std::printf(
                "SWEEP scale=%d alpha=%g beta=%g pull_batch=%d loop=%s median_gteps=%.1f "
                "g500_gteps=%.1f ms=%.4f\n",
                scale, t.alpha, t.beta, t.pull_batch,
                how.empty() ? "automatic" : how.c_str(),
                median(sweep_teps) / 1e9,
                median(sweep_500) / 1e9, median(sweep_s) * 1e3);
        }
    }
    // Forced directions on the first 8 sources, for comparison.
    std::vector<double> push_s, pull_s;
    for (std::size_t i = 0; i < std::min<std::size_t>(8, src.size()); ++i) {
        kc::bfs_tuning t;
        t.direction = kc::bfs_direction::push;
        push_s.push_back(kc::bfs(a, a, src[i], true, t).seconds);
        t.direction = kc::bfs_direction::pull;
        pull_s.push_back(kc::bfs(a, a, src[i], true, t).seconds);
    }
    double const med500 = median(teps500);
    std::printf(
        "BFS scale %d: %d sources, median %.1f GTEPS (harmonic mean %.1f; %.1f counting the "
        "generated tuples as the Graph500 reference does), median %.3f ms, "
        "steps of the median run %s (H push, L pull); forced push median %.3f ms, forced pull "
        "median %.3f ms (8 sources); %d runs validated, %d bad vertices\n",
        scale, sources, med / 1e9, hm / 1e9, med500 / 1e9, median(secs) * 1e3,
        steps_of_median.c_str(), median(push_s) * 1e3, median(pull_s) * 1e3, validated, bad);
    std::printf(
        "RESULT kind=bfs scale=%d gteps=%.2f hmean_gteps=%.2f g500_gteps=%.2f ms=%.4f "
        "push_ms=%.4f pull_ms=%.4f bad=%d loop=%s\n",
        scale, med / 1e9, hm / 1e9, med500 / 1e9, median(secs) * 1e3, median(push_s) * 1e3,
        median(pull_s) * 1e3, bad, device_loop ? "device" : "host");
    char line[256];
    std::snprintf(line, sizeof line,
                  "%.1f GTEPS median (%.1f Graph500 count), %.3f ms, %s loop; push-only %.3f ms, "
                  "pull-only %.3f ms%s",
                  med / 1e9, med500 / 1e9, median(secs) * 1e3, device_loop ? "device" : "host",
                  median(push_s) * 1e3, median(pull_s) * 1e3, bad ? "  WRONG" : "");
    summary.push_back({"BFS scale " + std::to_string(scale), line});
}

/// SSSP on the same graph (weights in [0.25, 1]): delta-stepping and Bellman-Ford, 4 sources.
void sssp_bench(graph const& a, int scale) {
    auto const ptr = host_copy(a.row_ptr_storage());
    std::mt19937_64 g(std::uint64_t(scale) * 77 + 1);
    std::vector<double> ds, bf;
    std::size_t reached = 0;
    for (int i = 0; i < 4; ++i) {
        std::size_t s = g() % a.rows();
        while (ptr[s + 1] == ptr[s]) s = g() % a.rows();
        kc::sssp_tuning t;
        t.method = kc::sssp_method::delta_stepping;
        auto const r1 = kc::sssp(a, s, t);
        t.method = kc::sssp_method::bellman_ford;
        auto const r2 = kc::sssp(a, s, t);
        ds.push_back(r1.seconds);
        bf.push_back(r2.seconds);
        std::size_t same = 0;
        reached = 0;
        for (std::size_t v = 0; v < a.rows(); ++v) {
            reached += r1.dist[v] < std::numeric_limits<float>::infinity();
            same += std::fabs(r1.dist[v] - r2.dist[v]) <=
                        1e-4f * std::max(1.0f, std::fabs(r2.dist[v])) ||
                    r1.dist[v] == r2.dist[v];
        }
        if (same != a.rows())
            std::printf(
                "SSSP scale %d source %zu: delta-stepping and Bellman-Ford differ at %zu "
                "vertices\n",
                scale, s, a.rows() - same);
    }
    std::printf(
        "SSSP scale %d: delta-stepping median %.3f ms, Bellman-Ford median %.3f ms (4 sources, %zu "
        "vertices reached)\n",
        scale, median(ds) * 1e3, median(bf) * 1e3, reached);
    std::printf("RESULT kind=sssp scale=%d delta_ms=%.4f bellman_ford_ms=%.4f\n", scale,
                median(ds) * 1e3, median(bf) * 1e3);
    char line[256];
    std::snprintf(line, sizeof line, "delta-stepping %.3f ms, Bellman-Ford %.3f ms (median of 4)",
                  median(ds) * 1e3, median(bf) * 1e3);
    summary.push_back({"SSSP f32 scale " + std::to_string(scale), line});
}

template <class S>
double spmv_ms(graph const& a, dense_vector<float, device> const& x, dense_vector<float, device>& y,
               kc::sparse_backend b) {
    kc::sparse_options opt;
    opt.backend = b;
    timer t;
    return t.median_ms(20, [&] { kc::spmv<S, std::int32_t>(y, {}, a, x, opt); });
}

void spmv_bench(graph const& a, int scale) {
    std::size_t const n = a.rows();
    std::vector<float> xh(n);
    std::mt19937 g(5);
    for (auto& v : xh) v = float(g() % 1000) / 1000.0f + 0.001f;
    dense_vector<float> xv(n);
    std::copy(xh.begin(), xh.end(), xv.begin());
    auto const x = xv.to_device();
    dense_vector<float, device> y1(n), y2(n), y3(n);
    double const gen = spmv_ms<plus_times<float>>(a, x, y1, kc::sparse_backend::generic);
    double const vend = spmv_ms<plus_times<float>>(a, x, y2, kc::sparse_backend::cusparse);
    double const mp = spmv_ms<min_plus<float>>(a, x, y3, kc::sparse_backend::generic);
    auto const h1 = y1.to_host(), h2 = y2.to_host();
    double diff = 0;
    for (std::size_t i = 0; i < n; ++i)
        diff = std::max(
            diff, double(std::fabs(h1[i] - h2[i])) / std::max(1e-30, double(std::fabs(h2[i]))));
    double const flop = 2.0 * double(a.nnz());
    std::printf(
        "SpMV scale %d (nnz %zu): generic %.3f ms %.1f GFLOP/s, cuSPARSE %.3f ms %.1f GFLOP/s, "
        "min_plus generic %.3f ms; max relative difference %.2e\n",
        scale, a.nnz(), gen, flop / gen / 1e6, vend, flop / vend / 1e6, mp, diff);
    std::printf(
        "RESULT kind=spmv scale=%d nnz=%zu generic_ms=%.4f cusparse_ms=%.4f min_plus_ms=%.4f "
        "rel_diff=%.2e\n",
        scale, a.nnz(), gen, vend, mp, diff);
    char line[256];
    std::snprintf(line, sizeof line,
                  "generic %.1f, cuSPARSE %.1f GFLOP/s (%.3f / %.3f ms); min_plus %.3f ms",
                  flop / gen / 1e6, flop / vend / 1e6, gen, vend, mp);
    summary.push_back({"SpMV f32 scale " + std::to_string(scale), line});

    // SpMM with 32 dense columns.
    std::size_t const k = 32;
    dense_matrix<float> bh(n, k);
    for (std::size_t i = 0; i < n * k; ++i) bh.data()[i] = float(g() % 1000) / 1000.0f + 0.001f;
    auto const b = bh.to_device();
    dense_matrix<float, device> c1(n, k), c2(n, k);
    timer t;
    kc::sparse_options o1, o2;
    o1.backend = kc::sparse_backend::generic;
    o2.backend = kc::sparse_backend::cusparse;
    double const g_ms = t.median_ms(
        5, [&] { kc::spmm<plus_times<float>, std::int32_t>(c1.view(), a, b.view(), o1); });
    double const v_ms = t.median_ms(
        5, [&] { kc::spmm<plus_times<float>, std::int32_t>(c2.view(), a, b.view(), o2); });
    double const f2 = 2.0 * double(a.nnz()) * double(k);
    std::printf(
        "SpMM scale %d x %zu columns: generic %.3f ms %.1f GFLOP/s, cuSPARSE %.3f ms %.1f "
        "GFLOP/s\n",
        scale, k, g_ms, f2 / g_ms / 1e6, v_ms, f2 / v_ms / 1e6);
    std::printf("RESULT kind=spmm scale=%d cols=%zu generic_ms=%.4f cusparse_ms=%.4f\n", scale, k,
                g_ms, v_ms);
    std::snprintf(line, sizeof line, "generic %.1f, cuSPARSE %.1f GFLOP/s (%.3f / %.3f ms)",
                  f2 / g_ms / 1e6, f2 / v_ms / 1e6, g_ms, v_ms);
    summary.push_back({"SpMM f32 x32 scale " + std::to_string(scale), line});
}

void spgemm_bench(int scale) {
    auto const a = kronecker_graph(scale, 8, 99 + std::uint64_t(scale));
    auto const ptr = host_copy(a.row_ptr_storage());
    auto const col = host_copy(a.col_idx_storage());
    double flops = 0;
    for (std::size_t i = 0; i + 1 < ptr.size(); ++i)
        for (std::int32_t k = ptr[i]; k < ptr[i + 1]; ++k) {
            auto const c = std::size_t(col[std::size_t(k)]);
            flops += double(ptr[c + 1] - ptr[c]);
        }
    timer t;
    graph c1 = csr_matrix<float, std::int32_t>().to_device(), c2 = c1;
    kc::sparse_options o1, o2;
    o1.backend = kc::sparse_backend::generic;
    o2.backend = kc::sparse_backend::cusparse;
    double const g_ms =
        t.median_ms(3, [&] { kc::spgemm<plus_times<float>, std::int32_t>(c1, a, a, o1); });
    double v_ms = -1;
    std::string vendor_note;
    try {
        v_ms = t.median_ms(3, [&] { kc::spgemm<plus_times<float>, std::int32_t>(c2, a, a, o2); });
    } catch (std::exception const& e) {
        vendor_note = std::string(" (cuSPARSE failed: ") + e.what() + ")";
    }
    bool same = v_ms < 0 || (c1.nnz() == c2.nnz() &&
                             host_copy(c1.col_idx_storage()) == host_copy(c2.col_idx_storage()));
    std::printf(
        "SpGEMM A x A, Kronecker scale %d edge factor 8 (nnz %zu, %.3g products, C nnz %zu): "
        "generic %.2f ms "
        "%.2f GFLOP/s, cuSPARSE %.2f ms %.2f GFLOP/s%s; same pattern: %s\n",
        scale, a.nnz(), flops, c1.nnz(), g_ms, 2 * flops / g_ms / 1e6, v_ms, 2 * flops / v_ms / 1e6,
        vendor_note.c_str(), same ? "yes" : "NO");
    std::printf(
        "RESULT kind=spgemm scale=%d products=%.0f c_nnz=%zu generic_ms=%.4f cusparse_ms=%.4f "
        "same=%d\n",
        scale, flops, c1.nnz(), g_ms, v_ms, same ? 1 : 0);
    char line[256];
    std::snprintf(line, sizeof line, "generic %.2f, cuSPARSE %.2f GFLOP/s (%.2f / %.2f ms)%s",
                  2 * flops / g_ms / 1e6, 2 * flops / v_ms / 1e6, g_ms, v_ms,
                  same ? "" : "  DIFFERENT");
    summary.push_back({"SpGEMM f32 A*A scale " + std::to_string(scale), line});
}

std::vector<int> ints(char const* s, std::vector<int> fallback) {
    if (!s) return fallback;
    std::vector<int> v;
    std::istringstream in(s);
    for (int x; in >> x;) v.push_back(x);
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (kc::device_count() == 0) {
            std::printf("no CUDA device\n");
            return 0;
        }
        std::printf("device: %s\n", kc::device_description().c_str());
        std::vector<int> scales;
        for (int i = 1; i < argc; ++i) scales.push_back(std::atoi(argv[i]));
        if (scales.empty()) scales = {20, 21, 22};
        int const sources = ints(std::getenv("KLEENE_BFS_SOURCES"), {64}).front();
        // KLEENE_BFS_ONLY=1: the BFS measurements alone (no SSSP, SpMV, SpMM, SpGEMM).
        bool const bfs_only = std::getenv("KLEENE_BFS_ONLY") != nullptr;
        for (int scale : scales) {
            std::size_t free = 0, total = 0;
            KLEENE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
            // Generation needs 4 x 8 bytes per directed edge (keys, sorted copy, CUB temp).
            double const need = 32.0 * 2 * 16 * double(1u << scale) * 1.2;
            if (need > double(free)) {
                std::printf("scale %d skipped: needs about %.1f GB, %.1f GB free\n", scale,
                            need / 1e9, double(free) / 1e9);
                continue;
            }
            auto const t0 = std::chrono::steady_clock::now();
            std::vector<std::uint64_t> tuples;
            auto const a = kronecker_graph(scale, 16, 1 + std::uint64_t(scale), &tuples);
            double const gen_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf(
                "graph scale %d: %zu vertices, %zu stored entries (%zu undirected edges), "
                "generated in %.2f s\n",
                scale, a.rows(), a.nnz(), a.nnz() / 2, gen_s);
            std::fflush(stdout);
            bfs_bench(a, scale, sources, tuples);
            std::fflush(stdout);
            if (bfs_only) continue;
            sssp_bench(a, scale);
            std::fflush(stdout);
            spmv_bench(a, scale);
            std::fflush(stdout);
        }
        std::vector<int> const spgemm_scales =
            bfs_only ? std::vector<int>{} : ints(std::getenv("KLEENE_SPGEMM_SCALES"), {12, 14});
        for (int scale : spgemm_scales) {
            spgemm_bench(scale);
            std::fflush(stdout);
        }
        std::printf("\n%-28s %s\n", "benchmark", "result");
        for (auto const& r : summary) std::printf("%-28s %s\n", r.what.c_str(), r.value.c_str());
    } catch (std::exception const& e) {
        std::fprintf(stderr, "bench_sparse_gpu: %s\n", e.what());
        return 1;
    }
    return 0;
}

// Shortcuts for a road network's SSSP (issue 38): the GPU work list is bound by the depth of its
// chains (NE's shortest paths are 1,427 edges deep, about 4 us a step), not by its work. Edges
// from each vertex to its rho nearest vertices, weighted with their exact distance, leave every
// distance as it was and make the shortest paths fewer edges deep. This counts, on the CPU, what
// that costs (edges added) and what it buys (the least number of edges of a shortest path to the
// farthest vertex, over a few sources), checks the distances against the original graph's, and
// writes the augmented graph as a Matrix Market file that bench_graph_kernels reads.
//
//   g++ -O3 -std=c++17 -fopenmp lab/road_shortcuts.cpp -o road_shortcuts
//   ./road_shortcuts road_NE.mtx --rho 0,4,8,16 [--sources 4] [--write PREFIX]
// (PREFIX_rho<k>.mtx for each rho > 0.) No kleene headers.
#include "mtx_graph.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

using u32 = unsigned;
using u64 = unsigned long long;
constexpr u64 INF = ~0ull;

using csr = lab_csr<long long>;

// Distances and, among shortest paths, the fewest edges (Dijkstra on (distance, edges)).
static void dijkstra_hops(csr const& g, int s, std::vector<u64>& d, std::vector<int>& hops) {
    d.assign(g.n, INF);
    hops.assign(g.n, 0);
    using K = std::pair<std::pair<u64, int>, int>;
    std::priority_queue<K, std::vector<K>, std::greater<K>> pq;
    d[s] = 0;
    pq.push({{0, 0}, s});
    while (!pq.empty()) {
        auto [key, u] = pq.top();
        pq.pop();
        if (key.first != d[u] || key.second != hops[u]) continue;
        for (long long k = g.ptr[u]; k < g.ptr[u + 1]; ++k) {
            int const v = g.col[k];
            u64 const nd = d[u] + g.w[k];
            int const nh = hops[u] + 1;
            if (nd < d[v] || (nd == d[v] && nh < hops[v])) {
                d[v] = nd, hops[v] = nh;
                pq.push({{nd, nh}, v});
            }
        }
    }
}

// The graph with an edge from each vertex to each of its rho nearest (ties by id), weighted with
// the distance, where it shortens the direct edge or there is none; symmetric (both directions,
// the lighter of two kept).
static csr shortcuts(csr const& g, int rho, long long& added) {
    int const threads = omp_get_max_threads();
    std::vector<std::vector<std::pair<std::pair<int, int>, u32>>> found(threads);
#pragma omp parallel
    {
        int const t = omp_get_thread_num();
        std::vector<u64> d(g.n, INF);
        std::vector<int> touched;
        using K = std::pair<u64, int>;
#pragma omp for schedule(dynamic, 1024)
        for (int u = 0; u < g.n; ++u) {
            std::priority_queue<K, std::vector<K>, std::greater<K>> pq;
            d[u] = 0;
            touched.push_back(u);
            pq.push({0, u});
            int settled = 0;
            while (!pq.empty() && settled <= rho) {
                auto [du, x] = pq.top();
                pq.pop();
                if (du != d[x]) continue;
                ++settled;
                if (x != u && x > u) found[t].push_back({{u, x}, u32(du)});
                for (long long k = g.ptr[x]; k < g.ptr[x + 1]; ++k) {
                    int const v = g.col[k];
                    u64 const nd = du + g.w[k];
                    if (nd < d[v]) {
                        if (d[v] == INF) touched.push_back(v);
                        d[v] = nd;
                        pq.push({nd, v});
                    }
                }
            }
            for (int v : touched) d[v] = INF;
            touched.clear();
        }
    }
    // Merge with the original edges (lower weight wins), both directions.
    std::vector<std::pair<std::pair<int, int>, u32>> all;
    for (int u = 0; u < g.n; ++u)
        for (long long k = g.ptr[u]; k < g.ptr[u + 1]; ++k)
            if (g.col[k] > u) all.push_back({{u, g.col[k]}, g.w[k]});
    long long const original = (long long)all.size();
    for (auto& f : found) all.insert(all.end(), f.begin(), f.end());
    std::sort(all.begin(), all.end());
    std::vector<std::pair<std::pair<int, int>, u32>> uniq;
    for (auto& e : all)
        if (uniq.empty() || uniq.back().first != e.first) uniq.push_back(e);
        else uniq.back().second = std::min(uniq.back().second, e.second);
    added = (long long)uniq.size() - original;
    csr h;
    h.n = g.n;
    h.ptr.assign(g.n + 1, 0);
    for (auto& e : uniq) ++h.ptr[e.first.first + 1], ++h.ptr[e.first.second + 1];
    for (int i = 0; i < g.n; ++i) h.ptr[i + 1] += h.ptr[i];
    h.col.resize(2 * uniq.size());
    h.w.resize(2 * uniq.size());
    std::vector<long long> at(h.ptr.begin(), h.ptr.end() - 1);
    for (auto& e : uniq) {
        int const a = e.first.first, b = e.first.second;
        h.col[at[a]] = b, h.w[at[a]++] = e.second;
        h.col[at[b]] = a, h.w[at[b]++] = e.second;
    }
    return h;
}

static void write_mtx(csr const& g, std::string const& path) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) std::printf("cannot write %s\n", path.c_str()), std::exit(1);
    long long nz = 0;
    for (int u = 0; u < g.n; ++u)
        for (long long k = g.ptr[u]; k < g.ptr[u + 1]; ++k) nz += g.col[k] < u;
    std::fprintf(f, "%%%%MatrixMarket matrix coordinate integer symmetric\n%d %d %lld\n", g.n, g.n, nz);
    for (int u = 0; u < g.n; ++u)
        for (long long k = g.ptr[u]; k < g.ptr[u + 1]; ++k)
            if (g.col[k] < u) std::fprintf(f, "%d %d %u\n", u + 1, g.col[k] + 1, g.w[k]);
    std::fclose(f);
}

int main(int argc, char** argv) {
    if (argc < 2) return std::printf("usage: road_shortcuts GRAPH.mtx [--rho 0,4,8] [--sources K] [--write PREFIX]\n"), 1;
    std::vector<int> rhos = {0, 4, 8, 16};
    int nsrc = 4;
    std::string prefix;
    for (int i = 2; i < argc; ++i) {
        std::string o = argv[i];
        if (o == "--rho") {
            rhos.clear();
            std::string v = argv[++i];
            for (std::size_t p = 0; p < v.size();) {
                std::size_t q = v.find(',', p);
                if (q == std::string::npos) q = v.size();
                rhos.push_back(std::stoi(v.substr(p, q - p)));
                p = q + 1;
            }
        } else if (o == "--sources") nsrc = std::stoi(argv[++i]);
        else if (o == "--write") prefix = argv[++i];
        else return std::printf("unknown option %s\n", o.c_str()), 1;
    }
    csr const g = read_mtx<long long>(argv[1]);
    std::mt19937 rng(7);
    std::vector<int> src = {0};
    while (int(src.size()) < nsrc) src.push_back(int(rng() % g.n));
    std::vector<std::vector<u64>> ref(src.size());
    std::vector<int> hops;
    for (std::size_t i = 0; i < src.size(); ++i) dijkstra_hops(g, src[i], ref[i], hops);
    std::printf("%s: n=%d, %zu undirected edges\n", argv[1], g.n, g.col.size() / 2);
    for (int rho : rhos) {
        auto const t0 = std::chrono::steady_clock::now();
        long long added = 0;
        csr const h = rho > 0 ? shortcuts(g, rho, added) : g;
        double const secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        int worst = 0;
        double mean_depth = 0;
        long long wrong = 0;
        std::vector<u64> d;
        for (std::size_t i = 0; i < src.size(); ++i) {
            dijkstra_hops(h, src[i], d, hops);
            for (int v = 0; v < g.n; ++v) wrong += d[v] != ref[i][v];
            int const depth = *std::max_element(hops.begin(), hops.end());
            worst = std::max(worst, depth);
            mean_depth += depth;
        }
        std::printf("rho %2d: %lld edges added (%.2fx the entries), %.2f s on %d threads; shortest "
                    "paths at most %.0f edges deep on average over %zu sources (worst %d); %lld "
                    "distances differ from the original graph's\n",
                    rho, added, double(h.col.size()) / double(g.col.size()), secs,
                    omp_get_max_threads(), mean_depth / double(src.size()), src.size(), worst, wrong);
        std::fflush(stdout);
        if (!prefix.empty() && rho > 0) write_mtx(h, prefix + "_rho" + std::to_string(rho) + ".mtx");
    }
    return 0;
}

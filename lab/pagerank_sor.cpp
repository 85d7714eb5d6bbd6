// Gauss-Seidel PageRank with successive over-relaxation, one thread, outside the library: the
// steps to an L1 change below the tolerance and the ranks' L1 distance from the fixed point (the
// same pass run to 1e-13), for fixed weights and for the automatic rule pagerank.hpp took from
// it (w = 1 until a step's change is at least `switch` of the one before, from the third step and
// with more than 3 further steps foreseen at that rate; then 2 / (1 + sqrt(1 - d^2))).
//
//   g++ -O3 -march=native -o /tmp/pagerank_sor lab/pagerank_sor.cpp
//   /tmp/pagerank_sor ROAD.mtx | kron SCALE | urand SCALE  [--rates]
//
// kron / urand: Graph500-style generators written here (edge factor 16, undirected; Kronecker
// a = 0.57, b = c = 0.19, ids shuffled). --rates prints each plain step's change over the one
// before. Results of 2026-12-01 (build machine): docs/lab/performance-history.md, twenty-eighth
// session.
#include "mtx_graph.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

struct graph {
    int n = 0;
    std::vector<std::int64_t> p;
    std::vector<int> j;
};

graph from_pairs(int n, std::vector<std::pair<int, int>>& e) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    graph g;
    g.n = n;
    g.p.assign(std::size_t(n) + 1, 0);
    g.j.resize(e.size());
    for (auto const& x : e) ++g.p[std::size_t(x.first) + 1];
    for (int i = 0; i < n; ++i) g.p[std::size_t(i) + 1] += g.p[std::size_t(i)];
    for (std::size_t k = 0; k < e.size(); ++k) g.j[k] = e[k].second;
    return g;
}

graph generated(int scale, bool kron, std::uint64_t seed) {
    int const n = 1 << scale;
    long const m = 16L * n;
    std::vector<std::pair<int, int>> e;
    e.reserve(std::size_t(2 * m));
    std::uint64_t x = seed;
    auto rnd = [&] {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        return x;
    };
    auto u01 = [&] { return double(rnd() >> 11) * (1.0 / 9007199254740992.0); };
    for (long k = 0; k < m; ++k) {
        int a = 0, b = 0;
        if (kron) {
            for (int l = 0; l < scale; ++l) {
                double const r = u01();
                int const q = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
                a = 2 * a + (q >> 1), b = 2 * b + (q & 1);
            }
        } else {
            a = int(rnd() % std::uint64_t(n)), b = int(rnd() % std::uint64_t(n));
        }
        if (a == b) continue;
        e.push_back({a, b}), e.push_back({b, a});
    }
    if (kron) {
        std::vector<int> perm(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) perm[std::size_t(i)] = i;
        for (int i = n - 1; i > 0; --i) std::swap(perm[std::size_t(i)], perm[rnd() % std::uint64_t(i + 1)]);
        for (auto& y : e) y = {perm[std::size_t(y.first)], perm[std::size_t(y.second)]};
    }
    return from_pairs(n, e);
}

graph read(char const* path) {
    auto const c = read_mtx<std::int64_t>(path);  // both directions already
    graph g;
    g.n = c.n;
    g.p = c.ptr;
    g.j = c.col;
    return g;
}

struct run {
    std::vector<double> rank;
    int steps = 0, switched = 0;
    double ms = 0;
};

// w > 0: that weight from the first step; w == 0: the automatic rule with threshold `sw`.
run pagerank(graph const& g, double w_fixed, double sw, double tol, bool rates) {
    int const n = g.n;
    double const d = 0.85;
    run r;
    r.rank.assign(std::size_t(n), 1.0 / n);
    std::vector<float> c(static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v) {
        auto const deg = g.p[std::size_t(v) + 1] - g.p[std::size_t(v)];
        c[std::size_t(v)] = deg ? float(r.rank[std::size_t(v)] / double(deg)) : 0.f;
    }
    double w = w_fixed > 0 ? w_fixed : 1.0, prev = 0;
    auto const t0 = std::chrono::steady_clock::now();
    for (int it = 1; it <= 1000; ++it) {
        double const base = (1 - d) / n;
        double ch = 0;
        for (int v = 0; v < n; ++v) {
            double s = 0;
            for (auto k = g.p[std::size_t(v)]; k < g.p[std::size_t(v) + 1]; ++k)
                s += c[std::size_t(g.j[std::size_t(k)])];
            double const old = r.rank[std::size_t(v)];
            double const x = old + w * (base + d * s - old);
            ch += std::fabs(x - old);
            r.rank[std::size_t(v)] = x;
            auto const deg = g.p[std::size_t(v) + 1] - g.p[std::size_t(v)];
            c[std::size_t(v)] = deg ? float(x / double(deg)) : 0.f;
        }
        r.steps = it;
        if (rates && prev > 0) std::printf("%.3f ", ch / prev);
        if (ch < tol) break;
        if (w_fixed == 0 && w == 1 && it >= 3 && ch < prev && ch >= sw * prev &&
            std::log(tol / ch) / std::log(ch / prev) > 3) {
            w = 2 / (1 + std::sqrt(1 - d * d));
            r.switched = it + 1;
        }
        prev = ch;
    }
    if (rates) std::printf("\n");
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return std::printf("usage: pagerank_sor ROAD.mtx | kron S | urand S [--rates]\n"), 2;
    std::string const what = argv[1];
    graph const g = what == "kron"    ? generated(std::atoi(argv[2]), true, 7)
                    : what == "urand" ? generated(std::atoi(argv[2]), false, 7)
                                      : read(argv[1]);
    bool const rates = std::strcmp(argv[argc - 1], "--rates") == 0;
    std::printf("%s: n=%d entries=%zu\n", what.c_str(), g.n, g.j.size());
    auto const fixed = pagerank(g, 1.0, 0, 1e-13, false);
    auto dist = [&](run const& r) {
        double s = 0;
        for (int v = 0; v < g.n; ++v) s += std::fabs(r.rank[std::size_t(v)] - fixed.rank[std::size_t(v)]);
        return s;
    };
    if (rates) pagerank(g, 1.0, 0, 1e-4, true);
    for (double w : {1.0, 1.1, 1.2, 1.25, 1.3, 1.35, 1.4, 1.5}) {
        auto const r = pagerank(g, w, 0, 1e-4, false);
        std::printf("w = %.2f: %2d steps, %8.1f ms, L1 from the fixed point %.3g\n", w, r.steps,
                    r.ms, dist(r));
    }
    for (double sw : {0.4, 0.5, 0.6}) {
        auto const r = pagerank(g, 0, sw, 1e-4, false);
        std::printf("automatic (switch at %.1f): %2d steps (relaxed from %d), %8.1f ms, L1 from "
                    "the fixed point %.3g\n",
                    sw, r.steps, r.switched, r.ms, dist(r));
    }
}

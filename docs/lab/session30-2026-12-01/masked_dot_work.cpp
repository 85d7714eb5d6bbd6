// Lab tool (session 30): the masked dot products' work in C<L> = L U' against the triangle
// count's on Kronecker graphs renumbered by degree, by the GPU kernels' classes.
#include <kleene/algorithms/generate.hpp>
#include <kleene/kleene.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>
using namespace kleene;
using Index = std::int32_t;
struct csr { std::vector<std::int64_t> p; std::vector<Index> c; };
static csr by_degree(csr_matrix<double, Index> const& a, bool dec, bool lower) {
    std::size_t n = a.rows();
    std::vector<Index> order(n), id(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](Index x, Index y) {
        auto dx = a.row_end(x) - a.row_begin(x), dy = a.row_end(y) - a.row_begin(y);
        return dec ? dx > dy : dx < dy; });
    for (std::size_t r = 0; r < n; ++r) id[order[r]] = Index(r);
    std::vector<std::vector<Index>> rows(n);
    for (std::size_t i = 0; i < n; ++i)
        for (auto k = a.row_begin(i); k < a.row_end(i); ++k) {
            Index u = id[i], v = id[a.col_idx()[k]];
            if (lower ? v < u : v > u) rows[u].push_back(v);
        }
    csr m; m.p.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) { std::sort(rows[i].begin(), rows[i].end()); m.p[i + 1] = m.p[i] + rows[i].size(); }
    m.c.reserve(m.p[n]);
    for (auto& r : rows) { m.c.insert(m.c.end(), r.begin(), r.end()); std::vector<Index>().swap(r); }
    return m;
}
static csr as_is(csr_matrix<double, Index> const& a, bool lower) {
    csr m; std::size_t n = a.rows(); m.p.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) { for (auto k = a.row_begin(i); k < a.row_end(i); ++k) { Index v = a.col_idx()[k]; if (lower ? v < Index(i) : v > Index(i)) m.c.push_back(v); } m.p[i + 1] = m.c.size(); }
    return m;
}
struct tally { double n = 0, steps = 0; };
static double lg(double x) { return std::log2(std::max(2.0, x)); }
// cost of one thread's dot: merge or searches
static double lane_cost(double la, double lb) {
    if (la + lb <= 96) return std::min(la + lb, 2 * std::min(la, lb) + 0.0 + std::max(la,lb)); // merge ~ la+lb
    return std::min(la, lb) * lg(std::max(la, lb));
}
static void report(char const* name, tally const* t, int k) {
    char const* cls[] = {"empty", "thread merge", "thread search", "queued merge", "queued search"};
    double tot = 0; for (int i = 0; i < k; ++i) tot += t[i].steps;
    std::printf("%s: total %.3e steps\n", name, tot);
    for (int i = 0; i < k; ++i) std::printf("  %-14s %12.0f pairs %.3e steps (%.1f%%)\n", cls[i], t[i].n, t[i].steps, 100 * t[i].steps / tot);
}
int main(int argc, char** argv) {
    int scale = argc > 1 ? std::atoi(argv[1]) : 20;
    bool dec = argc > 2 && argv[2][0] == 'd'; bool orig = argc > 2 && argv[2][0] == 'o';
    kronecker_options ko; ko.scale = scale; ko.edge_factor = 16; ko.undirected = true;
    ko.weights = weight_range::integers(1, 1);
    auto a = kronecker_graph<double, Index>(ko);
    std::printf("scale %d, %zu entries, %s numbering\n", scale, a.nnz(), dec ? "decreasing" : "increasing");
    csr L = orig ? as_is(a, true) : by_degree(a, dec, true), U = orig ? as_is(a, false) : by_degree(a, dec, false);
    std::size_t n = a.rows();
    // product: mask entries (i,j) of L: A = L(i,:), Bt = U(j,:)
    tally pt[5]; double H[4] = {128, 512, 2048, 8192}, heavy_steps[4] = {}, heavy_n[4] = {};
    std::vector<double> row_cost(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (auto e = L.p[i]; e < L.p[i + 1]; ++e) {
            Index j = L.c[e];
            auto a0 = L.p[i], a1 = L.p[i + 1], b0 = U.p[j], b1 = U.p[j + 1];
            double la = a1 - a0, lb = b1 - b0; int c; double s;
            if (la == 0 || lb == 0) { c = 0; s = 0; }
            else if (la + lb <= 96) { c = 1; s = la + lb; }
            else if (std::min(la, lb) <= 8) { c = 2; s = std::min(la, lb) * lg(std::max(la, lb)); }
            else {
                // cut to (j, i)
                auto ca0 = std::upper_bound(L.c.begin() + a0, L.c.begin() + a1, j) - L.c.begin();
                auto cb1 = std::lower_bound(U.c.begin() + b0, U.c.begin() + b1, Index(i)) - U.c.begin();
                double ca = a1 - ca0, cb = cb1 - b0;
                double len = std::max(ca, cb), sh = std::min(ca, cb);
                if (sh == 0) { c = 3; s = 4 * lg(la) ; }
                else if (len <= 1.5 * sh * lg(len / 8)) { c = 3; s = ca + cb + 4 * lg(la); }
                else { c = 4; s = sh * lg(len / 8) + 4 * lg(la); }
            }
            pt[c].n++; pt[c].steps += s; row_cost[i] += s;
            for (int h = 0; h < 4; ++h) if (la > H[h] && lb <= la) { heavy_steps[h] += s; heavy_n[h]++; }
        }
    report("masked dot C<L> = L U'", pt, 5);
    {   // the GPU model's steps with hashed rows (lb + 1 where A(i,:) > 256, mask row >= la/32, lb <= la)
        double model = 0, old = 0, hashed = 0, hashed_n = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double la = L.p[i + 1] - L.p[i], mi = la;
            for (auto e = L.p[i]; e < L.p[i + 1]; ++e) {
                Index j = L.c[e]; double lb = U.p[j + 1] - U.p[j];
                double lo = std::min(la, lb), hi = std::max(la, lb);
                double ds = lo == 0 ? 1 : (lo * 16 < hi ? lo * (1 + std::log2(hi)) : la + lb);
                old += ds;
                bool h = lb <= la && la > 256 && mi * 32 >= la; model += h ? lb + 1 : ds; if (h) { hashed += lb + 1; hashed_n++; }
            }
        }
        std::printf("  GPU model: old steps %.4e, with hashed rows %.4e (hashed entries %.0f: %.4e; the others %.4e)\n", old, model, hashed_n, hashed, model - hashed);
    }
    for (int h = 0; h < 4; ++h) std::printf("  rows of A longer than %.0f (entries with lb <= la): %.0f entries, %.3e steps now\n", H[h], heavy_n[h], heavy_steps[h]);
    {
        double pa = 0, pb = 0, pmin = 0, heavy_b = 0, heavy_entries = 0; std::vector<double> lens;
        for (std::size_t i = 0; i < n; ++i) {
            bool heavy = L.p[i + 1] - L.p[i] > 1024;
            for (auto e = L.p[i]; e < L.p[i + 1]; ++e) {
                Index j = L.c[e];
                auto a0 = L.p[i], a1 = L.p[i + 1], b0 = U.p[j], b1 = U.p[j + 1];
                auto ca0 = std::upper_bound(L.c.begin() + a0, L.c.begin() + a1, j) - L.c.begin();
                auto cb1 = std::lower_bound(U.c.begin() + b0, U.c.begin() + b1, Index(i)) - U.c.begin();
                double ca = a1 - ca0, cb = cb1 - b0;
                pa += ca; pb += cb; pmin += std::min(ca, cb);
                if (heavy) { heavy_b += cb; heavy_entries++; }
            }
        }
        std::printf("  cut sums: A side %.3e, Bt side %.3e, min %.3e; rows of A > 1024: %.0f mask entries, Bt side %.3e\n", pa, pb, pmin, heavy_entries, heavy_b);
        std::vector<double> rl; for (std::size_t i = 0; i < n; ++i) rl.push_back(L.p[i+1]-L.p[i]);
        std::sort(rl.rbegin(), rl.rend());
        std::printf("  longest L rows: %.0f %.0f %.0f; 100th %.0f; 1000th %.0f; 10000th %.0f\n", rl[0], rl[1], rl[2], rl[99], rl[999], rl[9999]);
    }
    // rows by cost: top rows' share
    std::vector<double> rc = row_cost; std::sort(rc.rbegin(), rc.rend());
    double tot = std::accumulate(rc.begin(), rc.end(), 0.0), acc = 0;
    for (std::size_t k = 0, mark = 10; k < rc.size() && mark <= 1000000; ++k) {
        acc += rc[k]; if (k + 1 == mark) { std::printf("  top %zu mask rows: %.1f%% of steps\n", mark, 100 * acc / tot); mark *= 10; }
    }
    // TC on the same numbering (increasing: U; i.e. entries (u,v) of U: U(u,>v) ∩ U(v))
    csr const& T = dec ? L : U;  // the count's short-row orientation
    tally tt[5];
    for (std::size_t u = 0; u < n; ++u)
        for (auto k = T.p[u]; k < T.p[u + 1]; ++k) {
            Index v = T.c[k];
            double la = T.p[u + 1] - (k + 1), lb = T.p[v + 1] - T.p[v]; int c; double s;
            if (la <= 0 || lb <= 0) { c = 0; s = 0; }
            else if (la + lb <= 96) { c = 1; s = la + lb; }
            else if (std::min(la, lb) <= 8) { c = 2; s = std::min(la, lb) * lg(std::max(la, lb)); }
            else { double len = std::max(la, lb), sh = std::min(la, lb);
                if (len <= 1.5 * sh * lg(len / 8)) { c = 3; s = la + lb; } else { c = 4; s = sh * lg(len / 8); } }
            tt[c].n++; tt[c].steps += s;
        }
    report("triangle count (its orientation)", tt, 5);
    { double smin = 0, ssum = 0;
      for (std::size_t u = 0; u < n; ++u) for (auto k = T.p[u]; k < T.p[u + 1]; ++k) { Index v = T.c[k];
        double la = T.p[u + 1] - (k + 1), lb = T.p[v + 1] - T.p[v]; smin += std::min(la, lb); ssum += la + lb; }
      std::printf("  sums: min %.3e, both %.3e\n", smin, ssum); }
}

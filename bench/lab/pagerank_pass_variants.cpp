// Lab tool (eighteenth session, 2026-11-30; not built by CMake, not part of kleene): what the CPU
// Gauss-Seidel PageRank pass's gap to the GAP reference on road networks is made of. Reads a
// symmetric .mtx (lower triangle) or gapbs's .sg, builds the symmetric CSR (int32), runs variants
// of the in-place pull pass for a fixed number of sweeps, medians of R runs. Each variant differs
// in one thing from kleene's pass (detail::pagerank_pull<true, true> with float contributions):
// the sum's type, the rank's type, the division, the store. Results: docs/lab/session18-2026-11-30.
//   g++ -O3 -fopenmp -std=c++20 bench/lab/pagerank_pass_variants.cpp -o prlab
//   OMP_NUM_THREADS=16 ./prlab FILE.sg [sweeps 18] [runs 9] [V0,V10,...]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <omp.h>

struct csr {
    int n = 0;
    std::vector<int> p, j;
};

// gapbs's serialized graph (.sg, undirected): bool directed, int64 edges, int64 nodes, int64
// offsets[n + 1], int32 neighbours[edges].
csr read_sg(char const* path) {
    std::ifstream f(path, std::ios::binary);
    bool directed = false;
    std::int64_t m = 0, n = 0;
    f.read(reinterpret_cast<char*>(&directed), sizeof directed);
    f.read(reinterpret_cast<char*>(&m), sizeof m);
    f.read(reinterpret_cast<char*>(&n), sizeof n);
    std::vector<std::int64_t> off(n + 1);
    f.read(reinterpret_cast<char*>(off.data()), (n + 1) * sizeof(std::int64_t));
    csr a;
    a.n = int(n);
    a.p.resize(n + 1);
    for (std::int64_t i = 0; i <= n; ++i) a.p[i] = int(off[i]);
    a.j.resize(off[n]);
    f.read(reinterpret_cast<char*>(a.j.data()), off[n] * sizeof(int));
    if (directed || !f) std::fprintf(stderr, "%s: directed or short\n", path);
    return a;
}

csr read(char const* path) {
    if (std::string(path).ends_with(".sg")) return read_sg(path);
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    while (f.peek() == '%') std::getline(f, line);
    long n, m, nz;
    f >> n >> m >> nz;
    std::vector<std::pair<int, int>> e;
    e.reserve(2 * nz);
    for (long k = 0; k < nz; ++k) {
        long r, c, w;
        f >> r >> c >> w;
        if (r == c) continue;
        e.push_back({int(r - 1), int(c - 1)});
        e.push_back({int(c - 1), int(r - 1)});
    }
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    csr a;
    a.n = int(n);
    a.p.assign(n + 1, 0);
    for (auto [r, c] : e) ++a.p[r + 1];
    for (long i = 0; i < n; ++i) a.p[i + 1] += a.p[i];
    a.j.resize(e.size());
    for (std::size_t k = 0; k < e.size(); ++k) a.j[k] = e[k].second;
    return a;
}

template <class T>
T load(T* p) { return std::atomic_ref<T>(*p).load(std::memory_order_relaxed); }
template <class T>
void store(T* p, T v) { std::atomic_ref<T>(*p).store(v, std::memory_order_relaxed); }
// kleene's pr_store_relaxed (session 18): one movss from the vector register.
inline void store_asm(float* p, float v) { asm volatile("movss %1, %0" : "=m"(*p) : "x"(v)); }

// Sum: the row's accumulator; Rank: the rank array's type; Recip: share = x * (1 / deg) (the
// division off the chain) or x / deg; Atomic: relaxed atomic_ref loads/stores of the contributions
// or plain ones (a data race, as GAP's pr.cc has); FloatChain: a row's rank and share computed in
// float; TwoSums: a row summed in two chains; Jacobi: new shares into a second array; AsmStore:
// the share stored by one movss (kleene's pr_store_relaxed). chunk: rows a dynamic chunk (0: 256
// blocks of equal rows).
template <class Sum, class Rank, bool Recip, bool Atomic, bool FloatChain, bool TwoSums = false,
          bool Jacobi = false, bool AsmStore = false>
double run(csr const& a, int sweeps, long chunk, std::vector<double>& out) {
    int const n = a.n;
    int const* p = a.p.data();
    int const* j = a.j.data();
    std::vector<Rank> rank(n);
    std::vector<float> c(n), c2(Jacobi ? n : 0);
    double const d = 0.85, base = (1 - d) / n;
    for (int v = 0; v < n; ++v) {
        rank[v] = Rank(1.0 / n);
        int const deg = p[v + 1] - p[v];
        c[v] = deg ? float(1.0 / n / deg) : 0.f;
    }
    Rank* const r = rank.data();
    float* cc = c.data();
    float* cn = Jacobi ? c2.data() : cc;
    long const ch = chunk > 0 ? chunk : (n + 255) / 256;
    auto t0 = std::chrono::steady_clock::now();
    double change = 0;
    for (int it = 0; it < sweeps; ++it) {
        change = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : change)
        for (long b = 0; b < (n + ch - 1) / ch; ++b) {
            long const lo = b * ch, hi = std::min<long>(n, lo + ch);
            int row = p[lo];
            for (long v = lo; v < hi; ++v) {
                int const row_end = p[v + 1];
                Sum s = 0;
                if constexpr (TwoSums) {
                    Sum s1 = 0;
                    int k = row;
                    for (; k + 1 < row_end; k += 2) {
                        s += Sum(Atomic ? load(cc + j[k]) : cc[j[k]]);
                        s1 += Sum(Atomic ? load(cc + j[k + 1]) : cc[j[k + 1]]);
                    }
                    if (k < row_end) s += Sum(Atomic ? load(cc + j[k]) : cc[j[k]]);
                    s += s1;
                } else {
                    for (int k = row; k < row_end; ++k) {
                        float const x = Atomic ? load(cc + j[k]) : cc[j[k]];
                        s += Sum(x);
                    }
                }
                row = row_end;
                int const deg = row_end - p[v];
                if constexpr (FloatChain) {
                    float const x = float(base) + float(d) * float(s);
                    change += std::fabs(double(x) - double(r[v]));
                    r[v] = Rank(x);
                    float const share = Recip ? x * (deg ? 1.f / float(deg) : 0.f)
                                              : (deg ? x / float(deg) : 0.f);
                    if (Atomic) store(cn + v, share);
                    else cn[v] = share;
                } else {
                    double const x = base + d * double(s);
                    change += std::abs(x - double(r[v]));
                    r[v] = Rank(x);
                    float const share =
                        float(Recip ? x * (deg ? 1.0 / deg : 0.0) : (deg ? x / deg : 0.0));
                    if (AsmStore) store_asm(cn + v, share);
                    else if (Atomic) store(cn + v, share);
                    else cn[v] = share;
                }
            }
        }
        if (Jacobi) std::swap(cc, cn);
    }
    double const ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.assign(rank.begin(), rank.end());
    (void)change;
    return ms;
}

std::string only;  // argv[4]: the variants to run (their names' first word, comma-separated)
template <class F>
void report(char const* name, csr const& a, int sweeps, int runs, long chunk, F f,
            std::vector<double> const* ref) {
    std::string const id = std::string(name).substr(0, std::string(name).find(' '));
    if (!only.empty() && ("," + only + ",").find("," + id + ",") == std::string::npos) return;
    std::vector<double> t, out;
    for (int k = 0; k < runs; ++k) t.push_back(f(a, sweeps, chunk, out));
    std::sort(t.begin(), t.end());
    double l1 = 0;
    if (ref)
        for (std::size_t v = 0; v < out.size(); ++v) l1 += std::fabs(out[v] - (*ref)[v]);
    std::printf("%-44s chunk %-6ld threads %2d  %8.3f ms  (min %.3f)  L1 vs V0 %.2e\n", name, chunk,
                omp_get_max_threads(), t[t.size() / 2], t[0], l1);
    std::fflush(stdout);
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    csr const a = read(argv[1]);
    int const sweeps = argc > 2 ? std::atoi(argv[2]) : 18;
    int const runs = argc > 3 ? std::atoi(argv[3]) : 9;
    if (argc > 4) only = argv[4];
    std::printf("%s: n %d, entries %zu, %d sweeps, %d runs\n", argv[1], a.n, a.j.size(), sweeps,
                runs);
    std::vector<double> ref;
    run<double, double, true, true, false>(a, sweeps, 0, ref);
    bool const long_rows = a.j.size() >= 8 * std::size_t(a.n);
    for (long chunk : {0L, 16384L}) {
        report("V0 kleene GS: sum double, rank double, recip", a, sweeps, runs, chunk,
               run<double, double, true, true, false>, &ref);
        report("V1 sum float", a, sweeps, runs, chunk, run<float, double, true, true, false>,
               &ref);
        report("V2 sum float, chain float", a, sweeps, runs, chunk,
               run<float, double, true, true, true>, &ref);
        report("V3 sum float, chain float, rank float", a, sweeps, runs, chunk,
               run<float, float, true, true, true>, &ref);
        report("V4 = V3 with x / deg (GAP's division)", a, sweeps, runs, chunk,
               run<float, float, false, true, true>, &ref);
        report("V5 = V4 with plain stores (GAP's race)", a, sweeps, runs, chunk,
               run<float, float, false, false, true>, &ref);
        report("V6 = V0 with plain stores", a, sweeps, runs, chunk,
               run<double, double, true, false, false>, &ref);
        report("V7 = V0 with rank float", a, sweeps, runs, chunk,
               run<double, float, true, true, false>, &ref);
        report("V10 = V0 with kleene's asm store", a, sweeps, runs, chunk,
               run<double, double, true, true, false, false, false, true>, &ref);
        if (long_rows) {
            report("V8 = V0 two sums", a, sweeps, runs, chunk,
                   run<double, double, true, true, false, true>, &ref);
            report("V9 = V3 two sums", a, sweeps, runs, chunk,
                   run<float, float, true, true, true, true>, &ref);
            report("J0 Jacobi (kleene fused): two sums, double", a, sweeps, runs, chunk,
                   run<double, double, true, false, false, true, true>, nullptr);
            report("J1 Jacobi, float sums, float chain", a, sweeps, runs, chunk,
                   run<float, double, true, false, true, true, true>, nullptr);
        }
    }
}

#pragma once
// A symmetric Matrix Market graph (the road networks as shared/data/road/to_mtx.py writes them:
// the lower triangle, 1-based, integer weights) read into a CSR holding both directions, for the
// lab's standalone programs (no kleene headers). Offset: the row pointers' type.
#include <cstdio>
#include <cstdlib>
#include <vector>

template <class Offset>
struct lab_csr {
    int n = 0;
    std::vector<Offset> ptr;
    std::vector<int> col;
    std::vector<unsigned> w;
};

template <class Offset>
lab_csr<Offset> read_mtx(char const* path) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) std::printf("cannot open %s\n", path), std::exit(1);
    char line[512];
    long long n = 0, m = 0, nz = 0;
    while (std::fgets(line, sizeof line, f)) {
        if (line[0] == '%') continue;
        std::sscanf(line, "%lld %lld %lld", &n, &m, &nz);
        break;
    }
    std::vector<int> r(nz), c(nz);
    std::vector<unsigned> w(nz);
    for (long long i = 0; i < nz; ++i) {
        long long a, b, x = 1;
        if (std::fscanf(f, "%lld %lld %lld", &a, &b, &x) < 2) std::printf("short file\n"), std::exit(1);
        r[i] = int(a - 1), c[i] = int(b - 1), w[i] = unsigned(x);
    }
    std::fclose(f);
    lab_csr<Offset> g;
    g.n = int(n);
    g.ptr.assign(n + 1, 0);
    for (long long i = 0; i < nz; ++i) ++g.ptr[r[i] + 1], ++g.ptr[c[i] + 1];
    for (long long i = 0; i < n; ++i) g.ptr[i + 1] += g.ptr[i];
    g.col.resize(2 * nz);
    g.w.resize(2 * nz);
    std::vector<Offset> at(g.ptr.begin(), g.ptr.end() - 1);
    for (long long i = 0; i < nz; ++i) {
        g.col[at[r[i]]] = c[i], g.w[at[r[i]]++] = w[i];
        g.col[at[c[i]]] = r[i], g.w[at[c[i]]++] = w[i];
    }
    return g;
}

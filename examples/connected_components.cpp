// Connected components by label propagation: every vertex starts with its own number as label,
// and each round takes the smallest label among itself and its neighbours, one min-second
// product (w_i = min over neighbours k of f_k) and an element-wise min. When nothing changes,
// the vertices whose label is their own number are the roots, one per component.

#include <cstdint>
#include <cstdio>
#include <kleene/kleene.hpp>
#include <numeric>
#include <random>
#include <vector>

namespace {

/// Components by union-find, to check the answer.
std::size_t count_components(std::size_t n, std::vector<std::int32_t> const& ii,
                             std::vector<std::int32_t> const& jj) {
    std::vector<std::size_t> parent(n);
    std::iota(parent.begin(), parent.end(), std::size_t(0));
    auto find = [&](std::size_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    std::size_t count = n;
    for (std::size_t k = 0; k < ii.size(); ++k) {
        std::size_t const x = find(std::size_t(ii[k])), y = find(std::size_t(jj[k]));
        if (x != y) parent[x] = y, --count;
    }
    return count;
}

}  // namespace

int main() {
    using namespace kleene;
    using T = std::int32_t;
    // A graph of 12 random pieces of different sizes and densities, plus isolated vertices.
    std::mt19937 gen(7);
    std::vector<std::int32_t> ii, jj;
    std::size_t n = 0;
    for (int piece = 0; piece < 12; ++piece) {
        std::size_t const size = 1 + gen() % 40;
        std::bernoulli_distribution edge(piece % 2 ? 0.08 : 0.3);
        for (std::size_t x = 0; x < size; ++x)
            for (std::size_t y = x + 1; y < size; ++y)
                if (edge(gen)) {
                    ii.push_back(T(n + x)), jj.push_back(T(n + y));
                    ii.push_back(T(n + y)), jj.push_back(T(n + x));
                }
        n += size;
    }
    n += 5;  // isolated vertices
    auto const a = csr_matrix<T>::from_coo(n, n, ii, jj, {}, duplicate_policy::error, T(1));

    dense_vector<T> f(n);
    std::iota(f.begin(), f.end(), T(0));
    dense_vector<T> w(n, infinity<T>());
    int rounds = 0;
    for (bool changed = true; changed; ++rounds) {
        mxv(w, a, f, min_second<T>{});  // the smallest neighbour label
        dense_vector<T> next(n);
        ewise_add(next, min_monoid<T>{}, f, w);
        changed = false;
        for (std::size_t i = 0; i < n; ++i) changed |= next[i] != f[i];
        f = std::move(next);
    }
    // Roots: the labels that are their own vertex number.
    sparse_vector<T> roots(n);
    select(
        roots, [](T label, std::size_t i, std::size_t) { return label == T(i); }, f, {},
        infinity<T>());
    std::size_t const want = count_components(n, ii, jj);
    std::printf("%zu vertices, %zu edges: %zu components after %d rounds (union-find: %zu)\n", n,
                a.nnz() / 2, roots.nnz(), rounds, want);
    return roots.nnz() == want ? 0 : 1;
}

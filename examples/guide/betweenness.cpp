// docs/guide.md, "betweenness": Brandes' sums over a batch of sources. On a path of n vertices
// with every vertex a source, vertex v lies on 2 v (n - 1 - v) of the ordered shortest paths.
#include <kleene/algorithms/centrality.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    std::size_t const n = 6;
    std::vector<std::int32_t> from, to;
    for (std::int32_t v = 0; v + 1 < std::int32_t(n); ++v)
        from.push_back(v), to.push_back(v + 1), from.push_back(v + 1), to.push_back(v);
    auto const a = csr_matrix<bool>::from_coo(n, n, from, to, {});

    std::vector<std::int64_t> const sources{0, 1, 2, 3, 4, 5};
    explain_trace why;
    bc_result const r = betweenness(a, sources, {.symmetric = true, .explain = &why});
    std::printf("%s", why.str().c_str());
    bool ok = r.centrality.size() == n;
    for (std::size_t v = 0; v < n && ok; ++v) {
        double const want = 2.0 * double(v) * double(n - 1 - v);
        std::printf("vertex %zu: %g (want %g)\n", v, r.centrality[v], want);
        ok &= r.centrality[v] == want;
    }
    // normalize divides by the largest score (GAP's reference): the middle vertices get 1.
    auto const nr = betweenness(a, sources, {.normalize = true, .symmetric = true});
    return ok && nr.centrality[2] == 1.0 && nr.centrality[3] == 1.0 ? 0 : 1;
}

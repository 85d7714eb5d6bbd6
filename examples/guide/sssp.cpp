// docs/guide.md, "sssp": single-source shortest paths, delta-stepping or Bellman-Ford.
#include <kleene/algorithms/sssp.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // Weighted edges: the direct 0->1 (4) is longer than 0->2->1 (1 + 2); vertex 4 is unreachable.
    std::vector<std::int32_t> const from{0, 0, 2, 1, 2}, to{1, 2, 1, 3, 3};
    std::vector<float> const w{4, 1, 2, 1, 5};
    auto const a = csr_matrix<float>::from_coo(5, 5, from, to, w);

    explain_trace why;
    sssp_result<float> const r = sssp(a, 0, {.parents = true, .explain = &why});
    std::printf("%s", why.str().c_str());
    for (std::size_t v = 0; v < 5; ++v)
        std::printf("vertex %zu: distance %g, parent %lld\n", v, static_cast<double>(r.dist[v]),
                    static_cast<long long>(r.parent[v]));

    // The same with the method pinned (Bellman-Ford also accepts negative weights).
    auto const bf = sssp(a, 0, {.method = sssp_method::bellman_ford});

    bool const ok = r.dist == std::vector<float>{0, 3, 1, 4, infinity<float>()} &&
                    bf.dist == r.dist && r.parent[1] == 2 && r.parent[3] == 1 && r.parent[4] == -1;
    return ok ? 0 : 1;
}

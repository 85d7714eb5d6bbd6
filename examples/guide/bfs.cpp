// docs/guide.md, "bfs": levels and parents of a direction-optimising breadth-first search.
#include <kleene/algorithms/bfs.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // 0->1, 0->2, 1->3, 2->3, 3->4; vertex 5 has no in-edge. A pattern matrix: every entry true.
    std::vector<std::int32_t> const from{0, 0, 1, 2, 3}, to{1, 2, 3, 3, 4};
    auto const a = csr_matrix<bool>::from_coo(6, 6, from, to, {});

    explain_trace why;
    bfs_result const r = bfs(a, 0, {.parents = true, .explain = &why});
    std::printf("%s", why.str().c_str());
    for (std::size_t v = 0; v < 6; ++v)
        std::printf("vertex %zu: level %lld, parent %lld\n", v, static_cast<long long>(r.level[v]),
                    static_cast<long long>(r.parent[v]));

    // Unreached vertices hold -1; the source is its own parent; 3's parent is 1 or 2.
    bool const ok = r.level == std::vector<std::int64_t>{0, 1, 1, 2, 3, -1} && r.parent[0] == 0 &&
                    r.parent[1] == 0 && r.parent[2] == 0 && (r.parent[3] == 1 || r.parent[3] == 2) &&
                    r.parent[4] == 3 && r.parent[5] == -1;
    return ok ? 0 : 1;
}

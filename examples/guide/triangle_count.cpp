// docs/guide.md, "triangle_count": an exact 64-bit count on an undirected graph.
#include <kleene/algorithms/triangles.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // A clique on 0..3 (4 triangles), a triangle 4 5 6 and a bridge 3 - 4: 5 triangles.
    std::vector<std::int32_t> from, to;
    auto edge = [&](std::int32_t u, std::int32_t v) {
        from.push_back(u), to.push_back(v), from.push_back(v), to.push_back(u);
    };
    for (std::int32_t u = 0; u < 4; ++u)
        for (std::int32_t v = u + 1; v < 4; ++v) edge(u, v);
    edge(4, 5), edge(5, 6), edge(4, 6), edge(3, 4);
    auto const a = csr_matrix<bool>::from_coo(7, 7, from, to, {});

    explain_trace why;
    tc_result const r = triangle_count(a, {.explain = &why});
    std::printf("%s%llu triangles\n", why.str().c_str(), static_cast<unsigned long long>(r.triangles));

    // A pattern that is not symmetric is refused with a kleene::invalid_argument.
    bool refused = false;
    try {
        std::vector<std::int32_t> const i{0}, j{1};
        triangle_count(csr_matrix<bool>::from_coo(2, 2, i, j, {}));
    } catch (invalid_argument const& e) {
        std::printf("refused: %s\n", e.what());
        refused = true;
    }
    auto const mxm_way = triangle_count(a, {.method = tc_method::mxm});
    return r.triangles == 5 && mxm_way.triangles == 5 && refused ? 0 : 1;
}

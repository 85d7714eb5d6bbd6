// docs/guide.md, "apsp": all-pairs shortest distances, the algorithm chosen by a cost model.
#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // A directed ring 0->1->...->7->0 of weight 1 with two chords 0->4 (2) and 5->1 (-1).
    std::size_t const n = 8;
    std::vector<std::int32_t> from, to;
    std::vector<std::int32_t> w;
    for (std::int32_t v = 0; v < 8; ++v) from.push_back(v), to.push_back((v + 1) % 8), w.push_back(1);
    from.push_back(0), to.push_back(4), w.push_back(2);
    from.push_back(5), to.push_back(1), w.push_back(-1);
    auto const a = csr_matrix<std::int32_t>::from_coo(n, n, from, to, w);

    explain_trace why;
    apsp_result<std::int32_t> const r = apsp(a, {.explain = &why});
    std::printf("%s", why.str().c_str());  // n, estimates of each candidate, the choice
    std::printf("ran %s on the %s\n", std::string(to_string(r.algorithm)).c_str(),
                r.device == device_choice::gpu ? "gpu" : "cpu");
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) std::printf(" %3d", r.dist(i, j));
        std::printf("\n");
    }

    // Each row must equal a single-source search from that vertex (Bellman-Ford: negative edge).
    bool ok = true;
    for (std::size_t s = 0; s < n; ++s) {
        auto const one = sssp(a, s, {.method = sssp_method::bellman_ford});
        for (std::size_t j = 0; j < n; ++j) ok &= one.dist[j] == r.dist(s, j);
    }
    return ok ? 0 : 1;
}

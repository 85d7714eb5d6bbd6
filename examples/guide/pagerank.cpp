// docs/guide.md, "pagerank": GAP's definition (damping 0.85) on a star, checked against the
// closed form: centre (1 + 3d) / (4 (1 + d)), each leaf (1 - centre) / 3.
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/kleene.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // Undirected star: 0 - 1, 0 - 2, 0 - 3 (both directions stored).
    std::vector<std::int32_t> const from{0, 1, 0, 2, 0, 3}, to{1, 0, 2, 0, 3, 0};
    auto const a = csr_matrix<bool>::from_coo(4, 4, from, to, {});

    explain_trace why;
    pagerank_options opt;
    opt.tolerance = 1e-10;
    opt.max_iterations = 1000;
    opt.symmetric = true;  // A == A': no transpose is made
    opt.explain = &why;
    pagerank_result const r = pagerank(a, opt);
    std::printf("%s%d steps, converged %d:", why.str().c_str(), r.iterations, int(r.converged));
    for (double x : r.rank) std::printf(" %.6f", x);
    std::printf("\n");

    double const d = opt.damping, centre = (1 + 3 * d) / (4 * (1 + d)), leaf = (1 - centre) / 3;
    bool ok = r.converged && std::abs(r.rank[0] - centre) < 1e-8;
    for (int v = 1; v < 4; ++v) ok &= std::abs(r.rank[v] - leaf) < 1e-8;
    return ok ? 0 : 1;
}

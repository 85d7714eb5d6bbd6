// docs/guide.md, "paths": one shortest path out of the predecessor matrix.
#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // 0->1 (1), 1->2 (1), 0->2 (5), 2->3 (2), 1->3 (7): the shortest 0 -> 3 is 0 1 2 3, length 4.
    std::vector<std::int32_t> const from{0, 1, 0, 2, 1}, to{1, 2, 2, 3, 3};
    std::vector<double> const w{1, 1, 5, 2, 7};
    auto const a = csr_matrix<double>::from_coo(4, 4, from, to, w);

    apsp_result<double> const r = apsp(a, {.predecessors = true});
    std::vector<std::int64_t> const p = path(r.pred.view(), 0, 3);
    std::printf("0 -> 3, length %g:", r.dist(0, 3));
    for (std::int64_t v : p) std::printf(" %lld", static_cast<long long>(v));
    std::printf("\n");

    // 3 reaches nothing: the path from 3 to 0 is empty.
    bool const ok = p == std::vector<std::int64_t>{0, 1, 2, 3} && r.dist(0, 3) == 4 &&
                    path(r.pred.view(), 3, 0).empty();
    return ok ? 0 : 1;
}

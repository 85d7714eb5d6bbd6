// docs/guide.md, "connected_components": Afforest or FastSV, each vertex named by the smallest
// vertex of its component.
#include <kleene/algorithms/components.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // Directed edges 0->1, 2->1, 3->4, 6->5: weak components {0,1,2}, {3,4}, {5,6}, {7}.
    std::vector<std::int32_t> const from{0, 2, 3, 6}, to{1, 1, 4, 5};
    auto const a = csr_matrix<bool>::from_coo(8, 8, from, to, {});

    explain_trace why;
    cc_result const r = connected_components(a, {.explain = &why});
    std::printf("%s%zu components:", why.str().c_str(), r.count);
    for (std::int64_t c : r.component) std::printf(" %lld", static_cast<long long>(c));
    std::printf("\n");

    auto const fastsv = connected_components(a, {.method = cc_method::fastsv});
    bool const ok = r.count == 4 &&
                    r.component == std::vector<std::int64_t>{0, 0, 0, 3, 3, 5, 5, 7} &&
                    fastsv.component == r.component;
    return ok ? 0 : 1;
}

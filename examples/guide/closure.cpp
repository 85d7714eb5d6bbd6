// docs/guide.md, "closure": which vertex reaches which (transitive closure over or.and).
#include <kleene/algorithms/closure.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    // 0->1->2->3 and 4->0; 5 is alone.
    std::vector<std::int32_t> const from{0, 1, 2, 4}, to{1, 2, 3, 0};
    auto const a = csr_matrix<bool>::from_coo(6, 6, from, to, {});

    explain_trace why;
    // R(i, j) is stored when a path of one edge or more leads from i to j; reflexive adds (i, i).
    csr_matrix<bool, std::int64_t> const r = closure(a, {.explain = &why});
    std::printf("%s", why.str().c_str());
    for (std::size_t i = 0; i < r.rows(); ++i) {
        std::printf("%zu reaches:", i);
        for (std::int64_t j : r.row_cols(i)) std::printf(" %lld", static_cast<long long>(j));
        std::printf("\n");
    }
    bool const ok = r.nnz() == 3 + 2 + 1 + 4 && r.find(4, 3) >= 0 && r.find(3, 0) < 0 &&
                    r.find(0, 0) < 0 && r.row_cols(5).empty();
    auto const rr = closure(a, {.reflexive = true});
    return ok && rr.nnz() == r.nnz() + 6 ? 0 : 1;
}

// docs/guide.md, "closure": which vertex reaches which (transitive closure over or.and).
#include <cstdint>
#include <cstdio>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/scc.hpp>
#include <kleene/kleene.hpp>
#include <vector>

int main() {
    using namespace kleene;
    // 0->1->2->3 and 4->0; 5 is alone; 6 <-> 7 is a cycle.
    std::vector<std::int32_t> const from{0, 1, 2, 4, 6, 7}, to{1, 2, 3, 0, 7, 6};
    auto const a = csr_matrix<bool>::from_coo(8, 8, from, to, {});

    explain_trace why;
    // R(i, j) is stored when a path of one edge or more leads from i to j; reflexive adds (i, i).
    csr_matrix<bool, std::int64_t> const r = closure(a, {.explain = &why});
    std::printf("%s", why.str().c_str());
    for (std::size_t i = 0; i < r.rows(); ++i) {
        std::printf("%zu reaches:", i);
        for (std::int64_t j : r.row_cols(i)) std::printf(" %lld", static_cast<long long>(j));
        std::printf("\n");
    }
    bool const ok = r.nnz() == 3 + 2 + 1 + 4 + 4 && r.find(4, 3) >= 0 && r.find(3, 0) < 0 &&
                    r.find(0, 0) < 0 && r.find(6, 6) >= 0 && r.row_cols(5).empty();
    auto const rr = closure(a, {.reflexive = true});

    // The components behind it: {6, 7} is one, every other vertex its own; sinks are numbered
    // first, so an edge between components goes to a smaller label.
    scc_result<std::int32_t> const c = strongly_connected_components(a);
    bool const scc_ok = c.count == 7 && c.label[6] == c.label[7] && c.label[3] < c.label[2];

    // The same closure as CSR or as bits, whichever is smaller for the estimated pairs: here bits
    // (8 rows of one 64-bit word, 64 bytes, against 184 bytes of CSR).
    closure_result const m = closure_matrix(a);
    bool const m_ok = m.format == output_choice::dense && m.bits.test(4, 3) && m.pairs() == r.nnz();
    return ok && scc_ok && m_ok && rr.nnz() == r.nnz() + 6 ? 0 : 1;
}

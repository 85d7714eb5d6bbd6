#include <kleene/graphblas/operations.hpp>

namespace kleene::graphblas {

GrB_Descriptor descriptor(bool replace, bool structural, bool complemented, bool t0, bool t1) {
    // Indexed by replace, structural, complemented, transpose A, transpose B: the predefined ones.
    GrB_Descriptor const table[2][2][2][2][2] = {
        {{{{nullptr, GrB_DESC_T1}, {GrB_DESC_T0, GrB_DESC_T0T1}},
          {{GrB_DESC_C, GrB_DESC_CT1}, {GrB_DESC_CT0, GrB_DESC_CT0T1}}},
         {{{GrB_DESC_S, GrB_DESC_ST1}, {GrB_DESC_ST0, GrB_DESC_ST0T1}},
          {{GrB_DESC_SC, GrB_DESC_SCT1}, {GrB_DESC_SCT0, GrB_DESC_SCT0T1}}}},
        {{{{GrB_DESC_R, GrB_DESC_RT1}, {GrB_DESC_RT0, GrB_DESC_RT0T1}},
          {{GrB_DESC_RC, GrB_DESC_RCT1}, {GrB_DESC_RCT0, GrB_DESC_RCT0T1}}},
         {{{GrB_DESC_RS, GrB_DESC_RST1}, {GrB_DESC_RST0, GrB_DESC_RST0T1}},
          {{GrB_DESC_RSC, GrB_DESC_RSCT1}, {GrB_DESC_RSCT0, GrB_DESC_RSCT0T1}}}},
    };
    return table[replace][structural][complemented][t0][t1];
}

std::vector<GrB_Index> index_array(cpu::resolved_indices const& r) {
    std::vector<GrB_Index> out;
    out.reserve(r.size + 1);  // data() is never null: GraphBLAS rejects a null list, even an empty one
    out.resize(r.size);
    for (std::size_t k = 0; k < r.size; ++k) out[k] = r[k];
    return out;
}

}  // namespace kleene::graphblas

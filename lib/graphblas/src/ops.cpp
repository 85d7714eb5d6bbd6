#include <kleene/graphblas/ops.hpp>

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

}  // namespace kleene::graphblas

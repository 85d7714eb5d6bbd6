#include <kleene/graphblas/ops.hpp>

namespace kleene::graphblas {

GrB_Descriptor descriptor(bool replace, bool structural, bool complemented) {
    // Indexed by replace, structural, complemented; GraphBLAS's predefined descriptors.
    GrB_Descriptor const table[2][2][2] = {
        {{nullptr, GrB_DESC_C}, {GrB_DESC_S, GrB_DESC_SC}},
        {{GrB_DESC_R, GrB_DESC_RC}, {GrB_DESC_RS, GrB_DESC_RSC}},
    };
    return table[replace][structural][complemented];
}

}  // namespace kleene::graphblas

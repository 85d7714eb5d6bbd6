#include <kleene/graphblas/operations.hpp>

namespace kleene::graphblas {

std::vector<GrB_Index> index_array(resolved_indices const& r) {
    std::vector<GrB_Index> out;
    out.reserve(r.size + 1);  // data() is never null: GraphBLAS rejects a null list, even an empty one
    out.resize(r.size);
    for (std::size_t k = 0; k < r.size; ++k) out[k] = r[k];
    return out;
}

}  // namespace kleene::graphblas

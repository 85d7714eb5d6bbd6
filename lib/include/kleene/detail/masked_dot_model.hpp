#pragma once
// The cost model behind mxm's choice of masked dot products for C<M> = A (+).(x) Bt' (B given as
// transpose(Bt), M a CSR mask): the dot products' merge steps (one dot product per entry of M)
// against the path that makes B and runs Gustavson. The CPU's rating (transpose.hpp) and the
// GPU's (mxm.hpp, on device containers; cuda::masked_dot_costs computes the sums there) share it.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <kleene/semiring.hpp>  // KLEENE_HD
#include <string>

namespace kleene::detail {

/// A dot product whose rows differ in length by more than this factor searches the longer row
/// for each entry of the shorter instead of merging them.
inline constexpr std::size_t dot_gallop_ratio = 16;

/// Merge steps of a dot product of rows of la and lb entries (the model of mxm's choice).
KLEENE_HD inline double dot_steps(double la, double lb) {
    double const lo = la < lb ? la : lb, hi = la < lb ? lb : la;
    if (lo == 0) return 1;
    if (lo * double(dot_gallop_ratio) < hi) return lo * (1 + ::log2(hi));
    return la + lb;
}

/// On the GPU the other path is the transpose of Bt, the whole product (not masked) and the
/// merge through the mask: the product's count and numeric passes each insert every
/// multiply-add into a hash table, and its entries are then sorted and merged, so a multiply-add
/// is rated this many merge steps of the dot products (an estimate, not yet fitted to device
/// times: bench_masked_tc --device gpu prints both sums beside the times).
inline constexpr double gpu_product_steps = 3;

/// The GPU's rating of C<M> = A (+).(x) Bt': `dot` merge steps of the masked dot products
/// against the transpose (4 steps an entry of Bt, as on the CPU) and gpu_product_steps a
/// multiply-add of the whole product (`flops` of them).
struct gpu_masked_dot_rating {
    double dot = 0;
    double flops = 0;
    std::size_t bt_entries = 0;

    double other() const { return 4.0 * double(bt_entries) + gpu_product_steps * flops; }
    bool dot_wins() const { return dot < other(); }
    std::string text() const {
        return "about " + std::to_string(static_cast<long long>(dot)) + " merge steps against " +
               std::to_string(static_cast<long long>(other())) +
               " for the transpose and the whole product (" +
               std::to_string(static_cast<long long>(flops)) + " multiply-adds)";
    }
};

}  // namespace kleene::detail

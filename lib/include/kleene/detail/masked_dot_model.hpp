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
/// The whole product may also not be possible: its entries (at most `flops`) past what the
/// index type holds (`index_max`) make the SpGEMM refuse (Kronecker scale 22's L U' renumbered by
/// degree: 7.2e9 entries, H200, 2026-11-29), and the dot products are taken whatever the steps.
struct gpu_masked_dot_rating {
    double dot = 0;
    double flops = 0;
    std::size_t bt_entries = 0;
    double index_max = 0;  ///< 0: no limit

    double other() const { return 4.0 * double(bt_entries) + gpu_product_steps * flops; }
    bool product_may_overflow() const { return index_max > 0 && flops > index_max; }
    bool dot_wins() const { return dot < other() || product_may_overflow(); }
    std::string text() const {
        return "about " + std::to_string(static_cast<long long>(dot)) + " merge steps against " +
               std::to_string(static_cast<long long>(other())) +
               " for the transpose and the whole product (" +
               std::to_string(static_cast<long long>(flops)) + " multiply-adds" +
               (product_may_overflow() ? ", more than the index type holds: the whole product "
                                         "may not be possible"
                                       : "") +
               ")";
    }
};

/// On the CPU, Gustavson's multiply-adds against the dot products' merge steps cost alike while
/// its dense accumulator (a row of C a thread: columns x (value + flag)) stays in the caches, and
/// 2.5 times more once it does not: 16 threads of the H200 host, Kronecker scale 22 (4,194,304
/// columns, 38 MB a thread), masked dot 33.1 s for 147.6 G steps against Gustavson 46.2 s for
/// 86.1 G multiply-adds (0.22 against 0.54 ns); the 2-core build machine, scale 18 (2.4 MB),
/// 2.56 s for 3.39 G steps against 1.21 s for 1.68 G (0.76 against 0.72 ns). The bound lies
/// between the two measured sizes.
inline constexpr double cpu_accumulator_cached_bytes = 8.0 * (1 << 20);
inline constexpr double cpu_uncached_madd_steps = 2.5;
inline double cpu_madd_weight(double columns, double value_bytes) {
    return columns * (value_bytes + 1) > cpu_accumulator_cached_bytes ? cpu_uncached_madd_steps
                                                                       : 1.0;
}

}  // namespace kleene::detail

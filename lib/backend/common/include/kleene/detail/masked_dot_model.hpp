#pragma once
// The cost model behind mxm's choice of masked dot products for C<M> = A (+).(x) Bt' (B given as
// transpose(Bt), M a CSR mask): the dot products' merge steps (one dot product per entry of M)
// against the path that makes B and runs Gustavson (on the GPU the masked one). The CPU's rating (transpose.hpp) and the
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

/// On the GPU the other path is the transpose of Bt and the masked Gustavson (cuda::masked_saxpy:
/// each multiply-add a lookup in its row's mask table, in shared memory unless the row is long,
/// and an atomic add where it is there), a multiply-add rated this many merge steps of the dot
/// products. Measured on Kronecker scale 22's C<L> = L U' (H200, 2026-12-01, bench_masked_tc
/// --device gpu --relabel; four products a lane at once, a filter before the global tables):
/// renumbered by degree 380 ms for 2.89e10 multiply-adds against the dot products' 208 ms for
/// 1.34e11 steps (8.4 steps a multiply-add); as generated 1,210 ms for 8.6e10 against 502 for
/// 1.48e11 (4.1). The dot products were faster in both; any weight above 4.1 keeps them there
/// (10: the first version's fit, kept).
inline constexpr double gpu_saxpy_steps = 10;

/// The GPU's rating of C<M> = A (+).(x) Bt': `dot` merge steps of the masked dot products
/// against the transpose (4 steps an entry of Bt, as on the CPU) and gpu_saxpy_steps a
/// multiply-add (`flops` of them) of the masked Gustavson. Neither makes the unmasked product.
struct gpu_masked_dot_rating {
    double dot = 0;
    double flops = 0;
    std::size_t bt_entries = 0;

    double other() const { return 4.0 * double(bt_entries) + gpu_saxpy_steps * flops; }
    bool dot_wins() const { return dot < other(); }
    std::string text() const {
        return "about " + std::to_string(static_cast<long long>(dot)) + " merge steps against " +
               std::to_string(static_cast<long long>(other())) +
               " for the transpose and the masked Gustavson (" +
               std::to_string(static_cast<long long>(flops)) + " multiply-adds)";
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

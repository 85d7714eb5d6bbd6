#pragma once
// The cost model behind mxm's choice of masked dot products for C<M> = A (+).(x) Bt' (B given as
// transpose(Bt), M a CSR mask): the dot products' merge steps (one dot product per entry of M)
// against the path that makes B and runs Gustavson (on the GPU the masked one). The CPU's rating
// (mxm.hpp's masked_dot_costs) and the GPU's (on device containers; cuda::masked_dot_costs
// computes the sums there) share it, and both backends' kernels share the rule for hashed rows.

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

/// Hashed rows: where A(i,:) is longer than dot_hash_min entries and its mask row holds at least
/// one entry per dot_hash_ratio of them, the dot products of the row's entries whose row of Bt is
/// no longer than A(i,:) look Bt(j,:)'s entries up in an index of A(i,:) (the CPU: a dense array
/// of positions a thread; the GPU: a hash table in shared memory, a chunk at a time) instead of
/// merging or searching: a lookup an entry of Bt(j,:). On a graph numbered by increasing degree,
/// C<L> = L U' does nearly all its work in the hubs' long rows of L.
inline constexpr std::int64_t dot_hash_min = 256;
inline constexpr std::int64_t dot_hash_ratio = 32;
KLEENE_HD inline bool hashed_row(std::int64_t a_len, std::int64_t m_len) {
    return a_len > dot_hash_min && m_len * dot_hash_ratio >= a_len;
}
KLEENE_HD inline bool hashed_entry(std::int64_t a_len, std::int64_t bt_len, std::int64_t m_len) {
    return bt_len <= a_len && hashed_row(a_len, m_len);
}

/// The model's steps of the mask entry (i, j) whose mask row holds m_len entries: a hashed entry
/// a step an entry of Bt(j,:) plus one, the others dot_steps.
KLEENE_HD inline double entry_steps(std::int64_t a_len, std::int64_t bt_len, std::int64_t m_len) {
    return hashed_entry(a_len, bt_len, m_len) ? double(bt_len) + 1
                                              : dot_steps(double(a_len), double(bt_len));
}

/// On the GPU the other path is the transpose of Bt and the masked Gustavson (cuda::masked_saxpy:
/// each multiply-add a lookup in its row's mask table, in shared memory unless the row is long,
/// and an atomic add where it is there), a multiply-add rated this many steps of the dot
/// products. The device's steps (cuda::masked_dot_costs) count an entry of a hashed row of A
/// (masked_dot.cuh: the entries of Bt(j,:) looked up in a table of A(i,:)) as its row of Bt's
/// length plus one, the others as dot_steps. Fitted on Kronecker scale 22's C<L> = L U' (H200,
/// 2026-12-01, session 30, call B, bench_masked_tc --device gpu --relabel and the lab's direct
/// calls): renumbered by degree 2.09e9 merge steps and 1.35e10 hashed ones in 68 ms (plus_pair)
/// and 88 ms (plus_times); as generated 7.37e10 and 1.29e10 in 286 and 397 ms: about 3.1 (4.4)
/// ps a merge step and 4.6 (5.9) a hashed one, close enough to rate them alike. The masked
/// Gustavson: 2.89e10 multiply-adds in 293 (382) ms, 8.58e10 in 1,062 (1,214): 10.1-14.1 ps, 3.0
/// to 4.0 steps. (Before the hashed rows, with every entry dot_steps: 4.1 and 8.4, and 10 kept.)
inline constexpr double gpu_saxpy_steps = 3.5;

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

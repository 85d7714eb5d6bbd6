#pragma once
// The CPU's dense GEMM sampled by a mask, for C<M> = A (x) B into a temporary that the masked
// write-back then reads through M (kleene::mxm, a dense A and B under a mask): C is cut into
// blocks of sampled_block x sampled_block; live_blocks finds those holding an entry M allows
// (valued or structural, complemented or not: cpu/mask.hpp's rules), and dense_gemm_blocks
// computes only those, each by dense_gemm on its rows of A and columns of B on one thread, the
// blocks dealt out to the threads as they finish (a triangle or a band leaves the threads of
// fixed tiles idle). The other blocks keep what C held.

#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/cpu/mask.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kleene::cpu {

/// The blocks' side: large enough that packing A's and B's parts costs little beside a block's
/// multiply-adds (2 / 256 of them), small enough that a triangle or a band leaves most blocks
/// out.
inline constexpr std::size_t sampled_block = 256;

/// Which blocks of an m x n C hold an entry the mask allows: live[rb * cols + cb] != 0.
struct gemm_blocks {
    std::size_t block = sampled_block;
    std::size_t rows = 0, cols = 0;  // blocks down and across
    std::vector<std::uint8_t> live;
    std::size_t count = 0;  // live blocks
};

/// The blocks of an m x n C that `mask` (a mask view of a host dense or CSR matrix) allows an
/// entry of; each block row's mask rows read by one thread.
template <class Mask>
gemm_blocks live_blocks(Mask const& mask, std::size_t m, std::size_t n,
                        std::size_t block = sampled_block) {
    gemm_blocks g;
    g.block = block;
    g.rows = (m + block - 1) / block;
    g.cols = (n + block - 1) / block;
    g.live.assign(g.rows * g.cols, 0);
    exception_carrier failure;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t rb = 0; rb < g.rows; ++rb) {
        failure.run([&] {
            auto rows = make_mask_rows(mask, n);
            std::uint8_t* const live = g.live.data() + rb * g.cols;
            for (std::size_t i = rb * block; i < std::min(m, (rb + 1) * block); ++i) {
                rows.select_row(i);
                // A block found live is not read again: a full mask costs a row a block.
                for (std::size_t cb = 0; cb < g.cols; ++cb) {
                    if (live[cb]) continue;
                    for (std::size_t j = cb * block; j < std::min(n, (cb + 1) * block); ++j)
                        if (rows.allowed(j)) {
                            live[cb] = 1;
                            break;
                        }
                }
            }
        });
    }
    failure.rethrow("the mask's blocks");
    g.count = static_cast<std::size_t>(std::count(g.live.begin(), g.live.end(), std::uint8_t(1)));
    return g;
}

/// C = A (x) B in the live blocks of C (live_blocks over C's shape); the other entries of C are
/// not written.
template <semiring_type S>
void dense_gemm_blocks(dense_view<typename S::value_type const> a,
                       dense_view<typename S::value_type const> b,
                       dense_view<typename S::value_type> c, gemm_blocks const& blocks) {
    if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols ||
        blocks.rows != (c.rows + blocks.block - 1) / blocks.block ||
        blocks.cols != (c.cols + blocks.block - 1) / blocks.block)
        throw dimension_mismatch("dense_gemm_blocks: A is " + kleene::detail::shape(a.rows, a.cols) +
                                 ", B is " + kleene::detail::shape(b.rows, b.cols) + ", C is " +
                                 kleene::detail::shape(c.rows, c.cols) + ", the blocks " +
                                 kleene::detail::shape(blocks.rows, blocks.cols));
    std::vector<std::size_t> todo;
    todo.reserve(blocks.count);
    for (std::size_t q = 0; q < blocks.live.size(); ++q)
        if (blocks.live[q]) todo.push_back(q);
    std::size_t const bs = blocks.block;
    exception_carrier failure;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t t = 0; t < todo.size(); ++t) {
        failure.run([&] {
            std::size_t const r0 = todo[t] / blocks.cols * bs, c0 = todo[t] % blocks.cols * bs;
            std::size_t const rows = std::min(bs, c.rows - r0), cols = std::min(bs, c.cols - c0);
            // Inside the parallel region dense_gemm runs on this thread alone.
            dense_gemm<S>({a.data + r0 * a.ld, rows, a.cols, a.ld},
                          {b.data + c0, b.rows, cols, b.ld},
                          {c.data + r0 * c.ld + c0, rows, cols, c.ld}, false);
        });
    }
    failure.rethrow("the sampled dense product");
}

}  // namespace kleene::cpu

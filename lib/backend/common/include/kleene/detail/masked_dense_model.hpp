#pragma once
// The cost model behind mxm's choice of the masked products with a dense B (cpu::masked_dense,
// cuda::masked_spmm and cuda::masked_gemm: the sampled products, "SDDMM") for C<M> = A (+).(x) B
// under a CSR mask M that is not complemented, A dense or CSR: one product of A(i,:) and B(:,j)
// for each entry (i, j) M allows, against the whole product into a dense temporary (the GEMM, or
// the SpMM for a CSR A) and the masked write-back of its m x n entries.
//
// Counted in the GEMM's multiply-adds: the masked products' work is the sum over M's entries
// (i, j) of A(i,:)'s length (k for a dense A), each a load of B(k, j) at the row's scattered
// columns, weighted `gather_dense` for a dense A (B's rows read in order, k of them) and
// `gather_csr` for a CSR A (B's rows A(i,:) names, each read at a few columns: a cache line, or
// a sector, a load once B has left the caches); the whole product's multiply-adds weigh 1 for
// the GEMM (its tiles in registers) and `spmm` for the SpMM (a row of B streamed an entry of A);
// its m x n entries, made, then read by the write-back (on the GPU made CSR first), weigh `out`
// each. Into a dense C on the GPU both sides make m x n entries (the masked side its CSR result
// made dense), so `out` is the difference, and the masked side's own steps (its count read back,
// its result's arrays) cost `fixed` more. The constants of each backend are fitted on its
// measurements (the comments at each).

#include <string>

namespace kleene::detail {

struct masked_dense_weights {
    double gather_dense;  // a multiply-add of the masked products, A dense
    double gather_csr;    // a multiply-add of the masked products, A CSR
    double spmm;          // a multiply-add of the whole SpMM (CSR A)
    double out;           // an entry of the whole product's dense temporary
    double fixed = 0;     // the masked side's cost beyond its multiply-adds, once a call
};

/// The CPU (blocked, register-tiled dense_gemm; csr_dense; cpu::write_back of the dense
/// temporary). Fitted on the build machine (2 cores, Debian gcc 12, 2026-12-01, session 31:
/// bench_masked_dense, float plus_times, 2,000 x 2,000 products; checked on an H200 host's 16
/// cores in call B, where the choice turns within 25% of the measured crossover): the GEMM 0.054 ns a
/// multiply-add, the dense temporary and its write-back 3.6 ns an entry, the SpMM 0.24 ns; the
/// masked products 0.61-0.71 ns a multiply-add for a dense A (k = 64, 256), 2-7 ns for a CSR A
/// of 16 entries a row over a B of 4,000 x 2,000 (a cache miss a load).
inline constexpr masked_dense_weights cpu_masked_dense{12.0, 60.0, 4.5, 67.0};

/// The CPU's whole dense x CSR product (dense_csr: each A(i,k) times B's row k, scattered into
/// C's row) a multiply-add, against the same GEMM units; the masked products with a dense A and a
/// CSR B (masked_dense_bt, on B's transpose) rate theirs as gather_csr. Fitted on the build machine
/// (2026-12-01, session 31: bench_masked_dense --b-deg 16, 4,000^3): dense_csr 0.94 ns a
/// multiply-add, the masked products 2.7 ns.
inline constexpr double cpu_dense_csr_madd = 17.0;

/// The GPU (dense_gemm at the chip's rate; the SpMM; the dense temporary made CSR and merged).
/// Fitted on an H200 (2026-12-01, session 31, calls A and B: bench_masked_dense --device gpu,
/// float plus_times): the GEMM (cuBLAS) 0.046 ps a multiply-add (16,384^2 x 256 less x 64); the
/// dense temporary made CSR and merged 46 ps an entry (12.5 ms of a 16,384^2 product's 13-27,
/// more as the mask's entries, merged, grow); the SpMM 0.42 ps; the masked products 2.8-7.5 ps a
/// multiply-add for a dense A (k = 64, 256), 3.7-8.8 for a CSR A of 16 and 64 entries a row over
/// B of 65,536 x 256 and x 1,024. The gathers are rated 40 and 60 rather than their 60-160 so
/// that the choice turns where the measurements do (the merge of the mask's entries, which the
/// whole path pays too, is not counted): at 12% of a 16,384^2 product the masked products took
/// 7.8 ms against 26 (k = 64) and 23 against 27 (k = 256).
inline constexpr masked_dense_weights gpu_masked_dense{40.0, 60.0, 9.0, 1000.0};
/// The GPU into a dense C: the masked products' CSR result made dense (to_dense) and the whole
/// product's dense temporary written back through the mask's flags (made dense from the CSR
/// mask). Fitted on an H200 (2026-12-02, session 32, call B: bench_masked_dense --device gpu
/// --dense-c, float plus_times, replace; the crossovers of dense A k = 64 and 256 under
/// 16,384^2 masks, CSR A of 16 and 64 entries a row): the whole side's write-back 10.8 ps an
/// entry against the masked side's 7.7 (out: the difference, 68 GEMM multiply-adds at 0.046 ps),
/// the masked side 0.27 ms more once a call (fixed), and its products about 10 ps a multiply-add
/// for a dense A and a CSR A alike (217); the SpMM as above. The runs vary by up to 1 ms a call
/// (the 1 GiB results' allocations), so the choice near a crossover is a coin toss within that.
inline constexpr masked_dense_weights gpu_masked_dense_into_dense{217.0, 217.0, 9.0, 68.0,
                                                                   5.9e9};
/// A dense A times a CSR B on the GPU (cuda::masked_dot_dense on B's transpose) is rated with
/// gather_csr against B made dense (k x n entries, `out` each) and the GEMM; its masked side is
/// estimated from B's mean column length. Measured in call D: 0.5-10.9 ms against 178-224.

/// The two sides of the choice, in the whole product's multiply-adds, and the trace's words.
struct masked_dense_rating {
    double masked = 0;  // gather x (the sum over M's entries of A(i,:)'s length)
    double whole = 0;   // the whole product's multiply-adds (weighted) + out x m x n
    bool masked_wins() const { return masked < whole; }
    std::string text() const {
        return "about " + std::to_string(static_cast<long long>(masked)) +
               " multiply-adds' worth for the mask's entries against " +
               std::to_string(static_cast<long long>(whole)) +
               " for the whole product and its write-back";
    }
};

/// madds_masked: the sum over M's entries of A(i,:)'s length; madds_whole: the whole product's
/// multiply-adds (m n k for a dense A, nnz(A) n for a CSR A); entries: m n.
inline masked_dense_rating rate_masked_dense(masked_dense_weights const& w, bool csr_a,
                                             double madds_masked, double madds_whole,
                                             double entries) {
    return {(csr_a ? w.gather_csr : w.gather_dense) * madds_masked + w.fixed,
            (csr_a ? w.spmm : 1.0) * madds_whole + w.out * entries};
}

}  // namespace kleene::detail

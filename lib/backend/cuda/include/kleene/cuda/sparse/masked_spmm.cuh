#pragma once
// Masked products with a dense B (sparse.hpp: masked_spmm for a CSR A, masked_gemm for a dense A):
// T<M> = A (+).(x) B, one product of A(i,:) and B(:,j) for each entry (i, j) of the CSR mask M
// (the sampled products, "SDDMM"), instead of the whole m x n product and a masked write-back.
//  - The mask's rows are cut into chunks of up to 32 entries; a warp takes a chunk (found by a
//    binary search of the chunks' scan), a lane an entry (i, j): the warp walks A(i,:) 32 entries
//    at a time, each lane loading one and the shuffles handing them round, and every lane adds
//    mul(A(i,k), B(k,j)) for its j. B's row k is read at the chunk's columns.
//  - masked_dot_dense (A dense, B CSR given as its transpose Bt): a thread per mask entry, dealt in
//    tiles of equal counts, walks Bt(j,:) and reads A(i,:) at its columns.
//  - Each entry gets its value and a flag (a product, not equal to zero()) in M's layout; the
//    flags' scan gives T's row pointers and the positions its entries are packed to
//    (masked_entries, masked_dot.cuh). On the context's stream; the host waits once (T's
//    entry count).

#include <kleene/cuda/sparse/common.cuh>
#include <kleene/cuda/sparse/masked_dot.cuh>

#include <cstdint>
#include <string>

namespace kleene::cuda {
namespace sparse_detail {

inline constexpr int mspmm_threads = 256;

template <class T, class Index>
struct mspmm_args {
    Index const* a_ptr;  // null: A dense
    Index const* a_col;
    T const* a_val;  // CSR values (null: iso) or the dense rows
    T a_iso;
    std::int64_t lda;  // dense A: its leading dimension; k: its columns
    std::int64_t k;
    T const* b;
    std::int64_t ldb;
    Index const* m_ptr;
    Index const* m_col;
    Index const* chunk_off;  // rows + 1: the first chunk of each row
    std::int64_t rows;
    T* val;
    Index* hit;
};

/// A warp a chunk of up to 32 entries of one mask row, a lane an entry.
template <class S, class Index>
__global__ void __launch_bounds__(mspmm_threads)
    masked_spmm_kernel(mspmm_args<typename S::value_type, Index> p) {
    using T = typename S::value_type;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const chunks = p.chunk_off[p.rows];
    std::int64_t const warps = std::int64_t(gridDim.x) * (mspmm_threads / 32);
    for (std::int64_t c = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; c < chunks;
         c += warps) {
        // The row of chunk c: the last i with chunk_off[i] <= c.
        std::int64_t const i = detail::first_above(p.chunk_off, 0, p.rows + 1, Index(c)) - 1;
        std::int64_t const e = std::int64_t(p.m_ptr[i]) + (c - p.chunk_off[i]) * 32 + lane;
        bool const mine = e < p.m_ptr[i + 1];
        std::int64_t const j = mine ? std::int64_t(p.m_col[e]) : 0;
        std::int64_t a0, a1;
        if (p.a_ptr) {
            a0 = p.a_ptr[i];
            a1 = p.a_ptr[i + 1];
        } else {
            a0 = i * p.lda;
            a1 = a0 + p.k;
        }
        T acc = S::zero();
        bool any = false;
        for (std::int64_t kb = a0; kb < a1; kb += 32) {
            Index my_k = 0;
            T my_v = S::zero();
            if (kb + lane < a1) {
                if (p.a_ptr) {
                    my_k = p.a_col[kb + lane];
                    my_v = value_at(p.a_val, p.a_iso, kb + lane);
                } else {
                    my_k = static_cast<Index>(kb + lane - a0);
                    my_v = p.a_val[kb + lane];
                }
            }
            int const cnt = static_cast<int>(a1 - kb < 32 ? a1 - kb : 32);
#pragma unroll 4
            for (int t = 0; t < cnt; ++t) {
                Index const kk = detail::shfl(0xffffffffu, my_k, t);
                T const av = detail::shfl(0xffffffffu, my_v, t);
                if (!p.a_ptr && skip_operand<S>(av)) continue;  // a dense A's absent entry
                if (mine) {
                    T const bv = p.b[std::int64_t(kk) * p.ldb + j];
                    if (!skip_operand<S>(bv)) {
                        T const x = S::mul(av, bv);
                        acc = any ? S::add(acc, x) : x;
                        any = true;
                    }
                }
            }
        }
        if (mine) {
            bool const kept = any && !(acc == S::zero());
            p.hit[e] = kept ? 1 : 0;
            if (kept) p.val[e] = acc;
        }
    }
}

/// chunks[i] = the 32-entry chunks of mask row i (chunks[rows] = 0, for the scan).
template <class Index>
__global__ void masked_spmm_chunks(Index const* __restrict__ m_ptr, std::int64_t rows,
                                   Index* __restrict__ chunks) {
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= rows;
         i += std::int64_t(gridDim.x) * blockDim.x)
        chunks[i] = i < rows ? static_cast<Index>((m_ptr[i + 1] - m_ptr[i] + 31) / 32) : Index(0);
}

template <class S, class Index>
void masked_dense_generic(char const* op, context& ctx,
                          csr_matrix<typename S::value_type, Index, device>& t,
                          csr_mask<Index> const& mask,
                          csr_matrix<typename S::value_type, Index, device> const* a_csr,
                          dense_view<typename S::value_type const, device> a_dense,
                          dense_view<typename S::value_type const, device> b,
                          sparse_options const& opt) {
    using T = typename S::value_type;
    std::size_t const m_rows = a_csr ? a_csr->rows() : a_dense.rows;
    std::size_t const k = a_csr ? a_csr->cols() : a_dense.cols;
    if (!mask.active() || mask.complemented())
        throw invalid_argument(std::string(op) + ": T<M> = A B needs a mask M that is " +
                               (mask.active() ? "not complemented" : "given") +
                               " (its entries are the products computed)");
    if (k != b.rows || mask.rows() != m_rows || mask.cols() != b.cols)
        throw dimension_mismatch(std::string(op) + ": A (" +
                                 kleene::detail::shape(m_rows, k) + ") times B (" +
                                 kleene::detail::shape(b.rows, b.cols) + ") under a mask of " +
                                 kleene::detail::shape(mask.rows(), mask.cols()));
    if (opt.backend == sparse_backend::cusparse)
        no_cusparse(op, "masked products with a dense B");
    cudaStream_t const st = stream_of(ctx);
    auto const rows = static_cast<std::int64_t>(m_rows);
    std::size_t const entries = mask.nnz();
    masked_entries<T, Index>(
        st, mask, m_rows, b.cols, k == 0 || (a_csr && a_csr->nnz() == 0), t,
        [&](T* val, Index* flags) {
            detail::stream_buffer<Index> chunk_off(std::size_t(rows) + 1, st);
            masked_spmm_chunks<Index>
                <<<detail::blocks_for(std::size_t(rows) + 1, 256), 256, 0, st>>>(
                    mask.row_ptr(), rows, chunk_off.data());
            KLEENE_CUDA_CHECK_LAUNCH("masked_spmm_chunks");
            exclusive_sum_in_place(chunk_off.data(), std::size_t(rows) + 1, st);
            mspmm_args<T, Index> const p{a_csr ? a_csr->row_ptr() : nullptr,
                                         a_csr ? a_csr->col_idx() : nullptr,
                                         a_csr ? a_csr->values() : a_dense.data,
                                         a_csr ? a_csr->iso_value() : T{},
                                         static_cast<std::int64_t>(a_dense.ld),
                                         static_cast<std::int64_t>(k),
                                         b.data,
                                         static_cast<std::int64_t>(b.ld),
                                         mask.row_ptr(),
                                         mask.col_idx(),
                                         chunk_off.data(),
                                         rows,
                                         val,
                                         flags};
            // At most one warp a chunk: the entries over 32, plus a row's last partial chunk.
            std::size_t const most =
                entries / 32 + std::min<std::size_t>(entries, std::size_t(rows));
            masked_spmm_kernel<S, Index>
                <<<detail::blocks_for(most * 32, mspmm_threads, detail::persistent_blocks(8)),
                   mspmm_threads, 0, st>>>(p);
            KLEENE_CUDA_CHECK_LAUNCH("masked_spmm_kernel");
        });
}

template <class T, class Index>
struct mdot_dense_args {
    T const* a;  // dense A's rows
    std::int64_t lda;
    Index const* bt_ptr;
    Index const* bt_col;
    T const* bt_val;  // null: iso
    T bt_iso;
    Index const* m_ptr;
    Index const* m_col;
    std::int64_t rows;
    T* val;
    Index* hit;
};

/// A thread per mask entry (i, j), dealt in tiles of equal counts: the sum over Bt(j,:)'s entries
/// (k, v) of mul(A(i,k), v), A(i,:) read at Bt(j,:)'s columns (its row shared, in cache, by the
/// neighbouring threads of the same mask row).
template <class S, class Index>
__global__ void __launch_bounds__(mspmm_threads)
    masked_dot_dense_kernel(mdot_dense_args<typename S::value_type, Index> p) {
    using T = typename S::value_type;
    detail::for_each_frontier_edge<mspmm_threads, 4>(p.m_ptr, p.rows, [&](std::int64_t i, Index r) {
        std::int64_t const e = std::int64_t(p.m_ptr[i]) + r;
        std::int64_t const j = p.m_col[e];
        T const* ar = p.a + i * p.lda;
        T acc = S::zero();
        bool any = false;
        for (std::int64_t q = p.bt_ptr[j]; q < p.bt_ptr[j + 1]; ++q) {
            T const x = ar[p.bt_col[q]];
            if (skip_operand<S>(x)) continue;  // a dense A's absent entry
            T const y = S::mul(x, value_at(p.bt_val, p.bt_iso, q));
            acc = any ? S::add(acc, y) : y;
            any = true;
        }
        bool const kept = any && !(acc == S::zero());
        p.hit[e] = kept ? 1 : 0;
        if (kept) p.val[e] = acc;
    });
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
void masked_dot_dense(csr_matrix<typename S::value_type, Index, device>& t,
                      csr_mask<Index> const& mask,
                      dense_view<typename S::value_type const, device> a,
                      csr_matrix<typename S::value_type, Index, device> const& bt,
                      sparse_options const& opt) {
    using T = typename S::value_type;
    if (!mask.active() || mask.complemented())
        throw invalid_argument(std::string("masked_dot_dense: T<M> = A Bt' needs a mask M that "
                                           "is ") +
                               (mask.active() ? "not complemented" : "given") +
                               " (its entries are the products computed)");
    if (a.cols != bt.cols() || mask.rows() != a.rows || mask.cols() != bt.rows())
        throw dimension_mismatch("masked_dot_dense: A (" +
                                 kleene::detail::shape(a.rows, a.cols) +
                                 ") times the transpose of Bt (" +
                                 kleene::detail::shape(bt.rows(), bt.cols()) +
                                 ") under a mask of " +
                                 kleene::detail::shape(mask.rows(), mask.cols()));
    if (opt.backend == sparse_backend::cusparse)
        sparse_detail::no_cusparse("masked_dot_dense", "masked products with a dense A");
    cudaStream_t const st = sparse_detail::stream_of(resolve(opt.ctx));
    sparse_detail::masked_entries<T, Index>(
        st, mask, a.rows, bt.rows(), bt.nnz() == 0, t, [&](T* val, Index* flags) {
            sparse_detail::mdot_dense_args<T, Index> const p{a.data,
                                                             static_cast<std::int64_t>(a.ld),
                                                             bt.row_ptr(),
                                                             bt.col_idx(),
                                                             bt.values(),
                                                             bt.iso_value(),
                                                             mask.row_ptr(),
                                                             mask.col_idx(),
                                                             static_cast<std::int64_t>(a.rows),
                                                             val,
                                                             flags};
            sparse_detail::masked_dot_dense_kernel<S, Index>
                <<<detail::blocks_for(mask.nnz(), sparse_detail::mspmm_threads * 4,
                                      detail::persistent_blocks(8)),
                   sparse_detail::mspmm_threads, 0, st>>>(p);
            KLEENE_CUDA_CHECK_LAUNCH("masked_dot_dense_kernel");
        });
}

template <semiring_type S, index_type Index>
void masked_spmm(csr_matrix<typename S::value_type, Index, device>& t, csr_mask<Index> const& mask,
                 csr_matrix<typename S::value_type, Index, device> const& a,
                 dense_view<typename S::value_type const, device> b, sparse_options const& opt) {
    sparse_detail::masked_dense_generic<S, Index>("masked_spmm", resolve(opt.ctx), t, mask, &a, {},
                                                  b, opt);
}

template <semiring_type S, index_type Index>
void masked_gemm(csr_matrix<typename S::value_type, Index, device>& t, csr_mask<Index> const& mask,
                 dense_view<typename S::value_type const, device> a,
                 dense_view<typename S::value_type const, device> b, sparse_options const& opt) {
    sparse_detail::masked_dense_generic<S, Index>("masked_gemm", resolve(opt.ctx), t, mask,
                                                  nullptr, a, b, opt);
}

}  // namespace kleene::cuda

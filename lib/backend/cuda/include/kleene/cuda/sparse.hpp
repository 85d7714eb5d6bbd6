#pragma once
// Sparse products on the GPU over any semiring, on device containers: the CUDA backend that
// kleene::mxm, mxv and vxm (mxm.hpp) call for device operands (use those; these stay callable for
// code that wants one kernel and its sparse_options):
//
//   spmv    w<mask, replace> (+)= A (+).(x) u     CSR x dense vector (pull: a dot product per row)
//   spmspv  w<mask>           = u (+).(x) A        sparse vector x CSR (push: the rows of A that u
//                                                  names are scattered; load-balanced over edges)
//   spmm    C (+)= A (+).(x) B                     CSR x dense row-major -> dense row-major
//   spgemm  C = A (+).(x) B                        CSR x CSR -> CSR (sorted columns)
//   spgemm_dense  C (+)= A (+).(x) B               CSR x CSR -> dense row-major
//   masked_dot    T<M> = A (+).(x) Bt'              CSR x CSR' -> CSR, a dot product per entry of
//                                                  the CSR mask M (masked_dot_costs: its model)
//   masked_saxpy  T<M> = A (+).(x) B               CSR x CSR -> CSR, Gustavson with each row's
//                                                  products looked up in its mask row
//   masked_spmm   T<M> = A (+).(x) B               CSR x dense -> CSR, a product per entry of M
//   masked_gemm   T<M> = A (+).(x) B               dense x dense -> CSR, the same ("SDDMM")
//   masked_dot_dense  T<M> = A (+).(x) Bt'         dense x CSR' -> CSR, the same
//
// product_density(A, B) estimates the share of A B's entries that are stored (the estimate behind
// mxm's choice of a CSR or a dense output, lib/ops/include/kleene/mxm.hpp), on the device.
//
// Dense objects hold the semiring's zero where an entry is absent: a dense u or B entry equal to
// zero() contributes nothing (this matters only where zero does not annihilate mul, e.g. pair,
// first, second); a dense output entry with no contribution is zero(). Stored CSR and sparse-vector
// entries are present whatever their value. mul's left operand comes from the left factor.
//
// Load balance: spmv gives each warp 32 consecutive rows and walks their entries 32 at a time
// whatever the row lengths (a segmented reduction by row), so short and empty rows waste no lanes;
// rows of more than 256 entries (spmv) or 1024 (spmm) are cut into equal slices, numbered by a
// CUB scan, that many blocks or warps share (their partial sums meet in a semiring atomic), so
// power-law inputs do not serialise on their hubs. spmspv walks the frontier's edges in equal
// tiles (a CUB scan of the degrees, then a binary search per edge). spgemm counts each row's
// products, bins rows by that count, and accumulates each row in a hash table in shared memory
// (or, for the longest rows, in global memory), a count pass and a numeric pass around a CUB scan,
// then a CUB segmented sort of the columns. masked_dot gives each mask entry a thread, found by
// tiles of equal counts of entries, which merges the two rows or searches the longer for the
// shorter's entries; pairs of long rows are queued, sorted by Bt's row, for groups of 8 lanes.
//
// plus_times over float and double can also run through cuSPARSE's generic API (SpMV, SpMM,
// SpGEMM) behind the same calls: sparse_options::backend picks; each call returns the backend that
// ran. Scratch, the cuSPARSE handle and the stream come from the context (sparse_options::ctx,
// spmspv's and product_density's ctx; null: default_context()). Calls are synchronous with
// respect to the host and run on the context's stream (spmv's generic kernels: still on the
// legacy default stream); they throw kleene::device_error on CUDA failures,
// kleene::dimension_mismatch on shapes. In a build without CUDA they throw kleene::no_device.
// Compiled instances: the registry's set of this build
// (kleene/instance_lists.hpp, KLEENE_INSTANCES); a registry pair left out throws
// kleene::missing_instance. A user-defined semiring needs its translation unit compiled by nvcc
// with <kleene/cuda/sparse.cuh>.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/detail/sparse_instances.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// Which implementation computes a product.
enum class sparse_backend : std::uint8_t {
    automatic,  ///< cuSPARSE where it can run the call and cusparse_default says so; else generic
    generic,    ///< kleene's semiring kernels
    cusparse,   ///< NVIDIA cuSPARSE (plus_times over float / double only)
};

inline std::string_view to_string(sparse_backend b) {
    switch (b) {
        case sparse_backend::automatic: return "automatic";
        case sparse_backend::generic: return "generic";
        case sparse_backend::cusparse: return "cusparse";
    }
    return "unknown";
}

/// Whether cuSPARSE computes products over S (its arithmetic is plus_times).
template <class S>
inline constexpr bool cusparse_has =
    std::is_same_v<S, plus_times<float>> || std::is_same_v<S, plus_times<double>>;

/// Whether `automatic` picks cuSPARSE where it can run the call: cuSPARSE measured faster for
/// plus_times SpMV, for SpMM up to Kronecker scale 22 and for SpGEMM at scale 14 (bench_sparse_gpu;
/// docs/performance.md, "Sparse operations on the GPU against cuSPARSE"). An automatic SpGEMM
/// that cuSPARSE cannot finish (its work buffers do not fit) runs the generic kernel instead.
struct cusparse_default {
    static constexpr bool spmv = true;
    static constexpr bool spmm = true;
    static constexpr bool spgemm = true;
};

struct sparse_options {
    sparse_backend backend = sparse_backend::automatic;
    /// spmv, spmm: the output keeps its entries and the product is added with the semiring's add.
    bool accumulate = false;
    /// spmv: entries outside the mask become absent (zero) instead of keeping their value.
    bool replace = false;
    /// Scratch and the cuSPARSE handle (null: default_context()).
    context* ctx = nullptr;
    /// When set, a product served by the JIT (kleene/cuda/jit.hpp) appends where its kernels
    /// came from and what compiling or loading them cost.
    explain_trace* explain = nullptr;
    /// spmm, spgemm_dense: a dense mask over C (C.rows x C.cols flags, kept alive by the caller
    /// for the call). When set and active, the generic kernels compute only the entries of C it
    /// allows, and C's other entries are unspecified after the call (mxm reads the result back
    /// through the same mask); spmm skips a pass of 128 columns of a row the mask wholly forbids,
    /// spgemm_dense every product into a forbidden entry. cuSPARSE's SpMM computes all of C. A
    /// mask of another size is a dimension_mismatch.
    dense_mask const* sample = nullptr;
};

// vector_mask (the byte-flag mask over an output vector): kleene/cuda/mask.hpp.

/// w<mask, replace> (+)= A (+).(x) u, dense u and w (pull). Returns the backend that ran.
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY sparse_backend spmv(dense_vector<typename S::value_type, device>& w,
                                        vector_mask const& mask,
                                        csr_matrix<typename S::value_type, Index, device> const& a,
                                        dense_vector<typename S::value_type, device> const& u,
                                        sparse_options const& opt = {}) KLEENE_DEVICE_VALUE;

/// w<mask> = u (+).(x) A, sparse u and w (push; w's indices sorted). w is replaced.
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY void spmspv(sparse_vector<typename S::value_type, Index, device>& w,
                                vector_mask const& mask,
                                sparse_vector<typename S::value_type, Index, device> const& u,
                                csr_matrix<typename S::value_type, Index, device> const& a,
                                context* ctx = nullptr) KLEENE_DEVICE_BODY;

/// C (+)= A (+).(x) B: A CSR m x k, B dense k x n, C dense m x n (row-major views on the device;
/// only the entries a mask allows with opt.sample).
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY sparse_backend spmm(dense_view<typename S::value_type, device> c,
                                        csr_matrix<typename S::value_type, Index, device> const& a,
                                        dense_view<typename S::value_type const, device> b,
                                        sparse_options const& opt = {}) KLEENE_DEVICE_VALUE;

/// C = A (+).(x) B, CSR x CSR -> CSR with sorted columns; C is replaced. cuSPARSE runs only for
/// 32-bit indices (its SpGEMM has no others).
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY sparse_backend
spgemm(csr_matrix<typename S::value_type, Index, device>& c,
       csr_matrix<typename S::value_type, Index, device> const& a,
       csr_matrix<typename S::value_type, Index, device> const& b,
       sparse_options const& opt = {}) KLEENE_DEVICE_VALUE;

/// C (+)= A (+).(x) B: A and B CSR, C dense m x n (row-major view on the device; entries with
/// no product are zero(), or keep their value with opt.accumulate). A warp per row of A adds the
/// products into C's row in place (Gustavson with the dense row as accumulator; with opt.sample
/// only the products into entries the mask allows). Generic kernel only: asking for cuSPARSE is
/// an error.
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY sparse_backend
spgemm_dense(dense_view<typename S::value_type, device> c,
             csr_matrix<typename S::value_type, Index, device> const& a,
             csr_matrix<typename S::value_type, Index, device> const& b,
             sparse_options const& opt = {}) KLEENE_DEVICE_VALUE;

/// T<M> = A (+).(x) Bt' by masked dot products (SuiteSparse:GraphBLAS's "dot3"): for each entry
/// (i, j) that M allows (not complemented), T(i,j) = the sum over k of mul(A(i,k), Bt(j,k)) where
/// A's row i and Bt's row j meet; no entry where they do not. A is m x k, Bt n x k (B's columns
/// as rows), M m x n; T (replaced) is m x n, sorted, its pattern a subset of M's. The work follows
/// M's entries and the rows they pair, whatever the size of the unmasked product. Generic kernel
/// only (asking for cuSPARSE is an error). mxm (mxm.hpp) picks it for C<M> = A B' by
/// masked_dot_costs and merges T into C.
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY void masked_dot(csr_matrix<typename S::value_type, Index, device>& t,
                                    csr_mask<Index> const& mask,
                                    csr_matrix<typename S::value_type, Index, device> const& a,
                                    csr_matrix<typename S::value_type, Index, device> const& bt,
                                    sparse_options const& opt = {}) KLEENE_DEVICE_BODY;

/// T<M> = A (+).(x) B, masked Gustavson: A m x k, B k x n, M m x n (not complemented); T
/// (replaced) is m x n, sorted, its pattern a subset of M's. Each row's products are looked up in
/// a hash table of its mask row (shared memory, or global memory for mask rows past 4096 entries)
/// and accumulated only there: the unmasked product's multiply-adds, none of its entries outside
/// M kept. Generic kernel only (asking for cuSPARSE is an error). mxm (mxm.hpp) takes it for a
/// masked device product of CSR matrices (for C<M> = A B' where the model rates it below the
/// masked dot products, B made on the device first) and merges T into C.
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY void masked_saxpy(csr_matrix<typename S::value_type, Index, device>& t,
                                      csr_mask<Index> const& mask,
                                      csr_matrix<typename S::value_type, Index, device> const& a,
                                      csr_matrix<typename S::value_type, Index, device> const& b,
                                      sparse_options const& opt = {}) KLEENE_DEVICE_BODY;

/// T<M> = A (+).(x) B with B dense (k x n, row-major) under a CSR mask M (not complemented): for
/// each entry (i, j) M allows, T(i,j) = the sum over A(i,:)'s entries (masked_spmm: A CSR m x k)
/// or over every k (masked_gemm: A dense m x k) of mul(A(i,k), B(k,j)), the sampled products
/// ("SDDMM"). Dense operands hold zero() where absent, as for the whole product (spmm,
/// dense_gemm): an entry of a dense operand equal to zero() adds nothing where zero does not
/// annihilate, and an entry of T equal to zero() is left out, so T is the whole product's entries
/// inside M. T (replaced) is m x n, sorted, its pattern a subset of M's; the work is the sum over
/// M's entries of A(i,:)'s length, whatever m x n is (the whole product's dense temporary may not
/// fit). A warp takes up to 32 entries of one mask row, a lane each, and walks A(i,:) 32 entries
/// at a time (shuffled to the lanes). Generic kernels only (asking for cuSPARSE is an error). mxm
/// (mxm.hpp) takes them for C<M> = A B with a dense B, a CSR mask and a CSR C where
/// kleene/detail/masked_dense_model.hpp rates them below the whole product (masked_spmm_work:
/// the sum), or kernel masked_dot pins them.
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY void masked_spmm(csr_matrix<typename S::value_type, Index, device>& t,
                                     csr_mask<Index> const& mask,
                                     csr_matrix<typename S::value_type, Index, device> const& a,
                                     dense_view<typename S::value_type const, device> b,
                                     sparse_options const& opt = {}) KLEENE_DEVICE_BODY;
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY void masked_gemm(csr_matrix<typename S::value_type, Index, device>& t,
                                     csr_mask<Index> const& mask,
                                     dense_view<typename S::value_type const, device> a,
                                     dense_view<typename S::value_type const, device> b,
                                     sparse_options const& opt = {}) KLEENE_DEVICE_BODY;

/// T<M> = A (+).(x) Bt' with A dense (m x k) and Bt CSR (n x k, B's columns as rows) under a CSR
/// mask M (not complemented): for each entry (i, j) M allows, the sum over Bt(j,:)'s entries
/// (k, v) of mul(A(i,k), v); an entry of A equal to zero() adds nothing where zero does not
/// annihilate, an entry of T equal to zero() is left out (as masked_gemm). A thread per mask
/// entry. mxm takes it for C<M> = A B with a dense A and a CSR B (B' made on the device) where
/// the model rates it below B made dense and the GEMM, or kernel masked_dot pins it.
template <semiring_type S, index_type Index>
KLEENE_DEVICE_ENTRY void masked_dot_dense(csr_matrix<typename S::value_type, Index, device>& t,
                                          csr_mask<Index> const& mask,
                                          dense_view<typename S::value_type const, device> a,
                                          csr_matrix<typename S::value_type, Index, device> const& bt,
                                          sparse_options const& opt = {}) KLEENE_DEVICE_BODY;

/// The sum over M's entries (i, j) of A(i,:)'s length (a_ptr: A's m + 1 row pointers): the work
/// of masked_spmm, on the device.
template <index_type Index>
KLEENE_DEVICE_ENTRY double masked_spmm_work(Index const* a_ptr, csr_mask<Index> const& m,
                                            context* ctx = nullptr) KLEENE_DEVICE_VALUE;

/// The sums of masked_dot's cost model (kleene/detail/masked_dot_model.hpp), on the device from
/// the patterns: dot = the sum over M's entries (i, j) of dot_steps(|A(i,:)|, |Bt(j,:)|), flops =
/// the sum over k of |A(:,k)| |Bt(:,k)| (the unmasked product's multiply-adds).
struct masked_dot_work {
    double dot = 0;
    double flops = 0;
};
template <index_type Index>
KLEENE_DEVICE_ENTRY masked_dot_work masked_dot_costs(Index const* a_ptr, Index const* a_col,
                                                     std::size_t a_nnz, Index const* bt_ptr,
                                                     Index const* bt_col, std::size_t bt_nnz,
                                                     std::size_t k, csr_mask<Index> const& m,
                                                     context* ctx = nullptr) KLEENE_DEVICE_VALUE;
template <class T, index_type Index>
masked_dot_work masked_dot_costs(csr_matrix<T, Index, device> const& a,
                                 csr_matrix<T, Index, device> const& bt,
                                 csr_mask<Index> const& m, context* ctx = nullptr) {
    if (a.cols() != bt.cols() || m.rows() != a.rows() || m.cols() != bt.rows())
        throw dimension_mismatch("masked_dot_costs: A is " +
                                 kleene::detail::shape(a.rows(), a.cols()) + ", Bt " +
                                 kleene::detail::shape(bt.rows(), bt.cols()) + ", the mask " +
                                 kleene::detail::shape(m.rows(), m.cols()));
    return masked_dot_costs<Index>(a.row_ptr(), a.col_idx(), a.nnz(), bt.row_ptr(), bt.col_idx(),
                                   bt.nnz(), a.cols(), m, ctx);
}

/// The mean over A's rows of 1 - exp(-f_i / n), f_i the multiplications of row i of A B and n its
/// columns: the expected share of a row of a random product that is stored (patterns only).
template <index_type Index>
KLEENE_DEVICE_ENTRY double product_density(Index const* a_ptr, Index const* a_col, std::size_t rows,
                                           Index const* b_ptr, std::size_t cols,
                                           context* ctx = nullptr) KLEENE_DEVICE_VALUE;
template <class T, index_type Index>
double product_density(csr_matrix<T, Index, device> const& a, csr_matrix<T, Index, device> const& b,
                       context* ctx = nullptr) {
    if (a.cols() != b.rows())
        throw dimension_mismatch("product_density: A has " + std::to_string(a.cols()) +
                                 " columns, B " + std::to_string(b.rows()) + " rows");
    return product_density<Index>(a.row_ptr(), a.col_idx(), a.rows(), b.row_ptr(), b.cols(), ctx);
}

#if defined(KLEENE_HAVE_CUDA)
// The registry's pairs this build leaves out: they throw missing_instance
// (lib/backend/cuda/src/missing.cpp).
KLEENE_SPARSE_MISSING(KLEENE_SPARSE_MISSING_DECLARATION)
#endif

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

#pragma once
// Dense semiring GEMM on the GPU: C = A (x) B or C = C (+) A (x) B over any semiring, on row-major
// device views with leading dimensions (sub-blocks of larger matrices work in place).
//
// Semantics, for every (i, j): r = zero(); for k = 0..K-1 in order, skipping k where A(i,k) or
// B(k,j) is zero() (absent in dense storage; this matters only where zero does not annihilate
// mul, see dense_safe in semiring.hpp): r = add(r, mul(A(i,k), B(k,j)));
// then C(i,j) = accumulate ? add(C(i,j), r) : r. Kernels may reorder the k loop only where add is
// exact and order-free (min, max, or, and integer +); floating-point plus_times may contract
// a*b + r into one FMA.
//
// Integer min_plus / max_plus keep numeric_limits<T>::max() (resp. lowest()) as the +inf (resp.
// -inf) sentinel and saturate exactly as plus_sat_op does: inf + w == inf. When every finite
// entry of A and B lies in [-2^28, 2^28] for int32 or [-2^60, 2^60] for int64, a fast path runs
// (int32: Hopper DPX __viaddmin_s32 / __viaddmax_s32) whose sums cannot overflow: int32 with
// 16-byte aligned B rows packs A with its finite entries shifted by -2^30 (+2^30 for max) and its
// sentinel as 0, so B's sentinel is summed as it is; otherwise both sentinels are re-encoded on
// load as 2^30 - 1 (2^62 - 1). Results past the finite range decode back to the sentinel. Any
// other input (larger values, the opposite sentinel) runs the exact saturating kernel instead, so
// the result always equals the CPU semiring's. Below tuning::checked_min_updates updates the
// exact kernel runs directly.
//
// 4-byte types with 16-byte aligned B rows (data and leading dimension) run the staged kernel: A
// packed k-major into device scratch (dense_gemm_scratch_bytes, at most 64 MiB a call: the
// context's workspace, caller-supplied or grown and kept, or the call's own), then a
// cp.async pipeline; other views run the checked kernel. Both give the same results. min_plus and
// max_plus products of few blocks (a 1024 x 1024 product fills half of an H100) split k into
// partial products, added up by one more kernel (tuning::split_k_blocks; up to 8 MiB more
// scratch).
//
// fp32 min_plus on non-negative data (every entry of A and B in [+0, +inf], no NaN) takes two k
// steps a 3-input integer min on the bit patterns (same results as fminf); a check picks it on
// the device, as for the integer fast path. plus_times over float and double calls cuBLAS
// (tuning::use_cublas, through the context's handle); its summation order differs from the
// generic kernel's.
//
// lor_land over bool / uint8 runs on bit-packed copies (bit_matrix.hpp); results are 0 or 1.
//
// The calls without a stream are synchronous with respect to the host: the four-argument one runs
// with the calling thread's default_context() (context.hpp), the one with a context on that
// context's stream (null: the legacy default stream), with its workspace, cuBLAS handle and
// tuning. The overload that takes a cuda::stream (stream.hpp) only enqueues the work on that
// stream and returns: the views must stay valid, and their memory unchanged by other streams,
// until the stream has run it (the caller orders that with events). Tuning, the cuBLAS handle and
// the scratch come from `ctx` (null: the default context): on ctx's own stream its workspace and
// range-check int, as the synchronous forms; on another stream an int and the packed A for that
// product alone, from ctx's pool on that stream and released there behind it, so products on
// different streams never share them. lor_land over bool / uint8 has the first two forms only.
// C must not overlap A or B (invalid_argument). Failures throw kleene::device_error.

#include <kleene/context.hpp>
#include <kleene/cuda/dense_gemm/tiles.hpp>
#include <kleene/cuda/detail/gemm_instances.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

class stream;
class dense_mask;

template <semiring_type S>
KLEENE_DEVICE_ENTRY void dense_gemm(dense_view<typename S::value_type const, device> a,
                                    dense_view<typename S::value_type const, device> b,
                                    dense_view<typename S::value_type, device> c,
                                    bool accumulate) KLEENE_DEVICE_BODY;

/// The same product with the resources and tuning of `ctx`, on its stream (synchronous).
template <semiring_type S>
KLEENE_DEVICE_ENTRY void dense_gemm(dense_view<typename S::value_type const, device> a,
                                    dense_view<typename S::value_type const, device> b,
                                    dense_view<typename S::value_type, device> c, bool accumulate,
                                    context& ctx) KLEENE_DEVICE_BODY;

/// C = A (x) B in the 128 x 128 tiles of C that hold an entry `sample` allows (kleene/cuda/
/// mask.hpp; complemented or not); the other tiles are not computed and keep what C held, except
/// where cuBLAS runs (plus_times over float and double, tuning::use_cublas), which computes all
/// of C, and where C is a sub-block of a larger matrix (C.ld > C.cols), computed whole too. For a
/// product that a masked write-back then reads through the same mask (kleene::mxm). On ctx's
/// stream (synchronous); the mask's size must be C's. Without a caller-supplied workspace it
/// packs A whole (up to gemm_detail::sampled_pack_cap_bytes, from the context's pool for the
/// call), so that the live tiles of all of C's rows run at once; with one, in the usual panels.
template <semiring_type S>
KLEENE_DEVICE_ENTRY void dense_gemm(dense_view<typename S::value_type const, device> a,
                                    dense_view<typename S::value_type const, device> b,
                                    dense_view<typename S::value_type, device> c,
                                    dense_mask const& sample, context& ctx) KLEENE_DEVICE_BODY;

/// The same product, enqueued on `s` (asynchronous; see above).
template <semiring_type S>
KLEENE_DEVICE_ENTRY void dense_gemm(dense_view<typename S::value_type const, device> a,
                                    dense_view<typename S::value_type const, device> b,
                                    dense_view<typename S::value_type, device> c, bool accumulate,
                                    stream const& s, context* ctx = nullptr) KLEENE_DEVICE_BODY;

// Boolean or-and products run on bit-packed copies (bit_matrix.cu).
template <>
KLEENE_DEVICE_ENTRY void dense_gemm<lor_land<bool>>(dense_view<bool const, device> a,
                                                    dense_view<bool const, device> b,
                                                    dense_view<bool, device> c,
                                                    bool accumulate) KLEENE_DEVICE_BODY;
template <>
KLEENE_DEVICE_ENTRY void dense_gemm<lor_land<std::uint8_t>>(
    dense_view<std::uint8_t const, device> a, dense_view<std::uint8_t const, device> b,
    dense_view<std::uint8_t, device> c, bool accumulate) KLEENE_DEVICE_BODY;
template <>
KLEENE_DEVICE_ENTRY void dense_gemm<lor_land<bool>>(dense_view<bool const, device> a,
                                                    dense_view<bool const, device> b,
                                                    dense_view<bool, device> c, bool accumulate,
                                                    context& ctx) KLEENE_DEVICE_BODY;
template <>
KLEENE_DEVICE_ENTRY void dense_gemm<lor_land<std::uint8_t>>(
    dense_view<std::uint8_t const, device> a, dense_view<std::uint8_t const, device> b,
    dense_view<std::uint8_t, device> c, bool accumulate, context& ctx) KLEENE_DEVICE_BODY;

#if defined(KLEENE_HAVE_CUDA)
// The registry's pairs this build leaves out: they throw missing_instance
// (lib/backend/cuda/src/missing.cpp).
KLEENE_GEMM_MISSING(KLEENE_GEMM_MISSING_DECLARATION)
#endif

/// Device scratch of an m x k x n product (4-byte types with 16-byte aligned B rows): A packed
/// transposed, k padded to 32, in panels of C's rows that keep it under 64 MiB; and for products
/// of few blocks that split k, room for their partial products (at most 8 MiB). Callers that
/// budget device memory (apsp's in-core test, the out-of-core plan) add this per stream; it
/// never decreases as m, k or n grow, so the largest product's bounds every smaller one's.
namespace gemm_detail {
inline constexpr std::size_t pack_cap_bytes = std::size_t(64) << 20;
/// The sampled form's packed A (all of it where it fits, so that few panels run one after
/// another) at most this much, taken from the context's pool for the call.
inline constexpr std::size_t sampled_pack_cap_bytes = std::size_t(1) << 30;
/// Which 128 x 128 tiles of C the kernels compute: those with live[ti * ld + tj] != 0 (a device
/// array, one byte a tile), or every one (live null); and the packed A's cap a panel (the staged
/// path's panels of C's rows run one after another, so a sampled product, whose live tiles may be
/// few a panel, packs all of A at once where its scratch allows).
struct gemm_tiles {
    std::uint8_t const* live = nullptr;
    std::size_t ld = 0;
    std::size_t pack_cap = pack_cap_bytes;
};
/// Rows of C a panel takes for a k-deep product with m rows (a multiple of 128, at least 128,
/// at most 65535 x 32 for the packing grid), its packed A at most `cap` bytes.
inline std::size_t panel_rows(std::size_t m, std::size_t k, std::size_t elem,
                              std::size_t cap = pack_cap_bytes) {
    std::size_t const k_pad = (k + staged_k - 1) / staged_k * staged_k;
    std::size_t const m_pad = (m + pack_block_m - 1) / pack_block_m * pack_block_m;
    std::size_t const most = std::size_t(65535) * 32 / pack_block_m * pack_block_m;
    std::size_t const fit =
        k_pad == 0 ? m_pad : cap / (k_pad * elem) / pack_block_m * pack_block_m;
    return std::clamp<std::size_t>(std::min(m_pad, fit), pack_block_m, most);
}
/// Bytes of the packed A (a multiple of 256, where the partial products start).
inline std::size_t packed_a_bytes(std::size_t m, std::size_t k, std::size_t elem,
                                  std::size_t cap = pack_cap_bytes) {
    std::size_t const k_pad = (k + staged_k - 1) / staged_k * staged_k;
    return (k_pad * panel_rows(m, k, elem, cap) * elem + 255) / 256 * 256;
}
/// min_plus and max_plus products (their add is exact in any order) of at most split_k_blocks / 2
/// blocks of 128 x 128 split k so that about split_k_blocks blocks run: a 1024 x 1024 product
/// has 64 blocks, half of an H100's 132 SMs. The splits' partial products go to scratch, and one
/// more kernel adds them up. The context's tuning::split_k_blocks sets that number, at most
/// max_split_k_blocks; 0 turns splitting off (tests run both).
inline constexpr int max_split_k_blocks = 128;
/// How an m x k x n product splits k: `parts` ranges of `tiles` k tiles each (parts == 1: no
/// split), with at most `cap` blocks in all.
struct k_split {
    int parts = 1;
    int tiles = 0;
};
inline k_split plan_k_split(std::size_t m, std::size_t k, std::size_t n, std::size_t elem,
                            int cap, std::size_t pack_cap = pack_cap_bytes) {
    cap = std::min(cap, max_split_k_blocks);
    std::size_t const blocks = (n + pack_block_m - 1) / pack_block_m *
                               (panel_rows(m, k, elem, pack_cap) / pack_block_m);
    std::size_t const k_tiles = (k + staged_k - 1) / staged_k;
    if (blocks == 0 || blocks * 2 > static_cast<std::size_t>(std::max(cap, 0)) || k_tiles < 8)
        return {};
    std::size_t const want = std::min(static_cast<std::size_t>(cap) / blocks, k_tiles / 4);
    std::size_t const tiles = (k_tiles + want - 1) / want;
    return {static_cast<int>((k_tiles + tiles - 1) / tiles), static_cast<int>(tiles)};
}
/// Bytes of the partial products of an m x k x n product split as s (plan_k_split).
inline std::size_t split_partials_bytes(k_split s, std::size_t m, std::size_t k, std::size_t n,
                                        std::size_t elem, std::size_t pack_cap = pack_cap_bytes) {
    return s.parts > 1
               ? std::size_t(s.parts) * std::min(m, panel_rows(m, k, elem, pack_cap)) * n * elem
               : 0;
}
/// An upper bound of split_partials_bytes for any cap that never decreases with m, k or n:
/// parts <= k / 128 and parts x blocks <= max_split_k_blocks.
inline std::size_t split_partials_bound(std::size_t m, std::size_t k, std::size_t n,
                                        std::size_t elem) {
    auto const pad = [](std::size_t x) { return (x + pack_block_m - 1) / pack_block_m * pack_block_m; };
    std::size_t const most = std::size_t(max_split_k_blocks) * pack_block_m * pack_block_m;
    std::size_t const k_pad = (k + staged_k - 1) / staged_k * staged_k;
    return std::min(most, k_pad / (4 * staged_k) * pad(m) * pad(n)) * elem;
}
/// The cuBLAS products (dense_gemm_cublas.cu) with ctx's handle (created on first use);
/// `stream` is a cudaStream_t (null: legacy). tuning::use_cublas decides whether they run.
void blas_gemm(dense_view<float const, device> a, dense_view<float const, device> b,
               dense_view<float, device> c, bool accumulate, void* stream, context& ctx);
void blas_gemm(dense_view<double const, device> a, dense_view<double const, device> b,
               dense_view<double, device> c, bool accumulate, void* stream, context& ctx);
}  // namespace gemm_detail
inline std::size_t dense_gemm_scratch_bytes(std::size_t m, std::size_t k, std::size_t n,
                                            std::size_t elem_size) {
    if (elem_size != 4) return 0;
    return gemm_detail::packed_a_bytes(m, k, elem_size) +
           gemm_detail::split_partials_bound(m, k, n, elem_size);
}

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

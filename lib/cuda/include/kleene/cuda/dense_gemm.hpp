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
// entry of A, B (and C when accumulating) lies in [-2^28, 2^28] for int32 or [-2^60, 2^60] for
// int64, a fast path runs (int32: Hopper DPX __viaddmin_s32 / __viaddmax_s32): the sentinel is
// re-encoded on load as 2^30 - 1 (2^62 - 1), finite sums cannot overflow, and results at or above
// that code minus the range bound decode back to the sentinel. Any other input (larger values, the
// opposite sentinel) runs the exact saturating kernel instead, so the result always equals the CPU
// semiring's.
//
// lor_land over bool / uint8 runs on bit-packed copies (bit_matrix.hpp); results are 0 or 1.
//
// The four-argument calls are synchronous with respect to the host and run on the legacy default
// stream. The overload that takes a cuda::stream (stream.hpp) only enqueues the work on that
// stream and returns: the views must stay valid, and their memory unchanged by other streams,
// until the stream has run it (the caller orders that with events). It uses the stream's own
// scratch int for the integer range check, so products on different streams never share one.
// C must not overlap A or B (invalid_argument). Failures throw kleene::device_error.

#include <kleene/dense_matrix.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cstdint>

namespace kleene::cuda {

class stream;

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, bool accumulate);

/// The same product, enqueued on `s` (asynchronous; see above).
template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, bool accumulate, stream const& s);

// Boolean or-and products run on bit-packed copies (bit_matrix.cu).
template <>
void dense_gemm<lor_land<bool>>(dense_view<bool const, device> a, dense_view<bool const, device> b,
                                dense_view<bool, device> c, bool accumulate);
template <>
void dense_gemm<lor_land<std::uint8_t>>(dense_view<std::uint8_t const, device> a,
                                        dense_view<std::uint8_t const, device> b,
                                        dense_view<std::uint8_t, device> c, bool accumulate);

}  // namespace kleene::cuda

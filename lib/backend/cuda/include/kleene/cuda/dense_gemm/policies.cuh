#pragma once
// The dense GEMM's policies (dense_gemm.cuh): the block tile's shape, what one update of the
// per-thread tile computes for a semiring (generic, ranged integer, shifted DPX, non-negative
// fp32 min), and the traits that say which path and policy a semiring may take. Device code and
// constants only: NVRTC compiles it too (the JIT, kleene/cuda/jit.hpp).

// nvcc warns (#554) that dense_view<T const>'s conversion to itself, already excluded by its
// requires clause, "will not be called"; true and harmless.
#if !defined(__CUDACC_RTC__)
#pragma nv_diag_suppress 554
#endif

#include <kleene/cuda/dense_gemm/tiles.hpp>
#include <kleene/semiring.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace kleene::cuda::gemm_detail {

inline constexpr int threads = 256;
inline constexpr int block_m = 128;
inline constexpr int block_n = 128;
// k-depth of a shared-memory stage: deeper stages mean fewer barriers per update; 8-byte types
// stay at 8 so that two stages fit the 48 KB of static shared memory.
#ifndef KLEENE_GEMM_BLOCK_K
#define KLEENE_GEMM_BLOCK_K 16
#endif
template <class T>
inline constexpr int block_k = sizeof(T) <= 4 ? KLEENE_GEMM_BLOCK_K : 8;
// A is staged transposed (k-major); the pad makes its transposing stores conflict-free and keeps
// each k row 16-byte aligned.
inline constexpr int a_pad = 4;

template <class S, class T = typename S::value_type>
inline constexpr bool is_float_min_plus =
    std::is_floating_point_v<T> && std::is_same_v<S, min_plus<T>>;
template <class S, class T = typename S::value_type>
inline constexpr bool is_float_max_plus =
    std::is_floating_point_v<T> && std::is_same_v<S, max_plus<T>>;

/// r = add(r, mul(a, b)) exactly as the semiring defines it. For floating min_plus / max_plus the
/// running value starts at +-inf and is never NaN, so fmin/fmax (one FMNMX) agree with min_op.
template <class S>
struct generic_policy {
    using T = typename S::value_type;
    __device__ static T load(T v) { return v; }
    __device__ static T init() { return S::zero(); }
    __device__ static T update(T r, T a, T b) {
        if constexpr (is_float_min_plus<S>) {
            if constexpr (std::is_same_v<T, float>) return fminf(r, a + b);
            else return fmin(r, a + b);
        } else if constexpr (is_float_max_plus<S>) {
            if constexpr (std::is_same_v<T, float>) return fmaxf(r, a + b);
            else return fmax(r, a + b);
        } else {
            return S::add(r, S::mul(a, b));
        }
    }
    __device__ static T finish(T r) { return r; }
};

/// Integer min_plus (Max = false) / max_plus (Max = true) on inputs whose finite entries lie in
/// [-bound, bound]: the sentinel is re-encoded as +-code, so sums never overflow and saturation
/// is a compare at the end (see dense_gemm.hpp).
// One DPX VIADDMNMX per update, or plain IADD + IMNMX (GPU.md measures 16.6 and 20.9 T updates/s
// for the two in a register-resident loop); bench/gpu/run.sh times both.
#ifndef KLEENE_GEMM_INT_DPX
#define KLEENE_GEMM_INT_DPX 1
#endif
template <class T, bool Max>
struct ranged_policy {
    static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>);
    static constexpr T bound = sizeof(T) == 4 ? T(1) << 28 : T(1) << 60;
    static constexpr T code = sizeof(T) == 4 ? (T(1) << 30) - 1 : (T(1) << 62) - 1;
    // Finite results lie in [-2 bound, 2 bound]; a sum holding the code lies beyond code - bound.
    static constexpr T threshold = code - bound;
    static_assert(2 * bound < threshold);
    static constexpr T sentinel = Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();

    /// Whether the policy takes v: the sentinel, or a finite entry in [-bound, bound].
    __device__ static bool in_range(T v) { return v == sentinel || (v >= -bound && v <= bound); }
    __device__ static T load(T v) { return v == sentinel ? (Max ? -code : code) : v; }
    __device__ static T init() { return Max ? -code : code; }
    __device__ static T update(T r, T a, T b) {
        if constexpr (sizeof(T) == 4 && KLEENE_GEMM_INT_DPX) {
            if constexpr (Max) return __viaddmax_s32(a, b, r);
            else return __viaddmin_s32(a, b, r);
        } else {
            T const s = a + b;
            if constexpr (Max) return s > r ? s : r;
            else return s < r ? s : r;
        }
    }
    __device__ static T finish(T r) {
        if constexpr (Max) return r <= -threshold ? sentinel : r;
        else return r >= threshold ? sentinel : r;
    }
};

template <class S>
inline constexpr bool has_ranged_path =
    (std::is_same_v<typename S::value_type, std::int32_t> ||
     std::is_same_v<typename S::value_type, std::int64_t>) &&
    (std::is_same_v<S, min_plus<typename S::value_type>> ||
     std::is_same_v<S, max_plus<typename S::value_type>>);

template <class P>
inline constexpr bool has_pairs = requires { requires P::pairs; };

/// The staged kernel's integer min_plus (Max = false) / max_plus path. B is read raw, so its
/// sentinel (INT_MAX / INT_MIN) meets the packed A unchanged: A's finite entries (in [-bound,
/// bound]) are shifted by -shift (+shift for max) and its sentinel becomes 0. Then every sum fits
/// 32 bits (0 + INT_MAX = INT_MAX; a shifted entry + INT_MAX stays below it), finite sums lie at or
/// below -2^29 (at or above 2^29 for max), sums involving a sentinel above it (below it), and
/// finish shifts back. A's padding (k past K) is 0, B's zero-filled rows there add 0: "infinite".
/// The range (bound), the sentinel and the DPX update are ranged_policy's.
template <bool Max>
struct shifted_policy : ranged_policy<std::int32_t, Max> {
    using T = std::int32_t;
    using base = ranged_policy<T, Max>;
    using base::bound;
    using base::in_range;
    using base::sentinel;
    static constexpr T shift = T(1) << 30;
    static constexpr T limit = T(1) << 29;
    __device__ static T pack(T v) { return v == sentinel ? 0 : (Max ? v + shift : v - shift); }
    __device__ static T pad() { return 0; }
    __device__ static T init() { return sentinel; }
    __device__ static T finish(T r) {
        if constexpr (Max) return r < limit ? sentinel : r - shift;
        else return r > -limit ? sentinel : r + shift;
    }
};

/// The staged kernel's path for every other semiring: A packed unchanged, padded with zero()
/// (which adds nothing: zero (x) 0 is zero for the semirings here, and dense_safe skips it).
template <class S>
struct staged_generic_policy : generic_policy<S> {
    using T = typename S::value_type;
    __device__ static bool in_range(T) { return true; }
    __device__ static T pack(T v) { return v; }
    __device__ static T pad() { return S::zero(); }
};

/// The staged kernel's fp32 min_plus path for non-negative data (every entry of A and B in
/// [+0, +inf], no NaN, no -0: the usual shortest-path weights). On those bit patterns IEEE order
/// equals signed-integer order, so two k steps take one 3-input integer min (VIMNMX3, ALU pipe)
/// beside their two FADDs (FMA pipe), instead of two FMNMX on the ALU pipe: the ALU pipe, the
/// limit of the generic path, then carries half the work (lab/gemm_lab.cu "min3"; rates in
/// docs/performance.md). Sums of such entries stay in range, and
/// results are bit-identical to fminf's. Anything else (a negative entry, -0, NaN) sets the
/// flag and the generic policy runs instead.
struct nonnegative_min_policy : staged_generic_policy<min_plus<float>> {
    static constexpr bool pairs = true;
    __device__ static bool in_range(float v) {
        int const bits = __float_as_int(v);
        return bits >= 0 && bits <= 0x7f800000;
    }
    __device__ static float update2(float r, float a0, float b0, float a1, float b1) {
        return __int_as_float(
            __vimin3_s32(__float_as_int(r), __float_as_int(a0 + b0), __float_as_int(a1 + b1)));
    }
};

/// The staged kernel's checked policy for S: data in its range run through it, the rest through
/// staged_generic_policy (void: none, the generic policy always runs).
template <class S>
struct checked_staged {
    using type = void;
};
template <>
struct checked_staged<min_plus<std::int32_t>> {
    using type = shifted_policy<false>;
};
template <>
struct checked_staged<max_plus<std::int32_t>> {
    using type = shifted_policy<true>;
};
template <>
struct checked_staged<min_plus<float>> {
    using type = nonnegative_min_policy;
};
template <class S>
using checked_staged_t = typename checked_staged<S>::type;

/// Whether products over S need the per-stream device flag (a checked policy picks on the device).
template <class S>
inline constexpr bool needs_flag =
    has_ranged_path<S> || !std::is_void_v<checked_staged_t<S>>;

inline constexpr int staged_stages = 3;  // stages in flight (staged_k, panel_rows: dense_gemm.hpp)
static_assert(pack_block_m == block_m);

template <class T>
inline constexpr bool has_staged_path = sizeof(T) == 4 && !std::is_same_v<T, bool>;

template <class T>
constexpr std::size_t staged_smem_bytes() {
    return std::size_t(staged_stages) * staged_k * (block_m + block_n) * sizeof(T);
}

/// Semirings whose add is exact in any order (min, max): their products may split k.
template <class S, class T = typename S::value_type>
inline constexpr bool splits_k = std::is_same_v<S, min_plus<T>> || std::is_same_v<S, max_plus<T>>;

template <class S>
inline constexpr bool has_blas_path =
    std::is_same_v<S, plus_times<float>> || std::is_same_v<S, plus_times<double>>;

}  // namespace kleene::cuda::gemm_detail

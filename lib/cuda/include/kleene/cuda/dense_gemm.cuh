#pragma once
// The kernel template behind dense_gemm (dense_gemm.hpp). Code compiled by nvcc may include this
// and call kleene::cuda::dense_gemm<my_semiring>(a, b, c, accumulate) for a semiring of its own;
// the built-in semirings are instantiated in lib/cuda/src.
//
// Layers: a per-thread 8 x 8 register tile (policy::update) in a 128 x 128 block tile, and a host
// launcher that picks the kernel and policy and checks every call (enqueue / run). Two kernels:
//  - staged_kernel (4-byte types, B's rows 16-byte aligned): A is first packed k-major into
//    device scratch (transposed, encoded by the policy, k padded to the stage depth; in panels
//    of C's rows so the scratch stays under pack_cap_bytes), then a 3-stage cp.async pipeline
//    of 32-deep k tiles feeds shared memory with no register staging and no bounds checks in the
//    loop (B's edges are zero-filled by the copies). Chosen from the variants of
//    lab/gemm_lab.cu ("asyncT32"), the fastest there for fp32 and int32 (rates:
//    docs/performance.md). Checked policies (checked_staged) take
//    data in a range where a cheaper update is exact: int32 min_plus / max_plus (shifted
//    encoding, DPX) and fp32 min_plus on non-negative data (two k steps a 3-input integer min);
//    a device flag set by the packing and a range check of B falls back to the generic policy.
//  - gemm_kernel (any type, any alignment): 128 x 128 x 16 (8 for 8-byte types) stages through
//    shared memory with a register prefetch of the next k slice and checked loads.

// nvcc warns (#554) that dense_view<T const>'s conversion to itself, already excluded by its
// requires clause, "will not be called"; true and harmless.
#pragma nv_diag_suppress 554

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/range_check.cuh>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/context.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
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

// Thread (ty, tx) of the 16 x 16 grid owns rows ty*4 + {0..3} and 64 + ty*4 + {0..3} of the block
// tile, and the same pattern of columns: its shared-memory reads are two 16-byte vectors per
// operand, broadcast or contiguous across the warp.
__device__ inline int tile_offset(int t, int i) { return (i < 4 ? 0 : 64) + t * 4 + (i & 3); }

/// The thread's 8 x 8 accumulators, shared by both kernels: start, one k step (a_k, b_k: row k of
/// the block's A and B tiles in shared memory, 128 entries each), and the store into C.
template <class P, class T>
__device__ __forceinline__ void init_tile(T (&acc)[8][8]) {
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = P::init();
}
/// The thread's 8 entries of row k of the A and B tiles.
template <class T>
__device__ __forceinline__ void load_fragments(T (&fa)[8], T (&fb)[8], T const* a_k, T const* b_k,
                                               int tx, int ty) {
#pragma unroll
    for (int i = 0; i < 8; ++i) fa[i] = a_k[tile_offset(ty, i)];
#pragma unroll
    for (int j = 0; j < 8; ++j) fb[j] = b_k[tile_offset(tx, j)];
}
template <class P, class T>
__device__ __forceinline__ void update_tile(T (&acc)[8][8], T const* a_k, T const* b_k, int tx,
                                            int ty) {
    T fa[8], fb[8];
    load_fragments(fa, fb, a_k, b_k, tx, ty);
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = P::update(acc[i][j], fa[i], fb[j]);
}
/// Two k steps at once through P::update2 (policies with `pairs`): rows k and k + 1 of the tiles.
template <class P, class T>
__device__ __forceinline__ void update_tile2(T (&acc)[8][8], T const* a_k, T const* a_k1,
                                             T const* b_k, T const* b_k1, int tx, int ty) {
    T fa[8], fa1[8], fb[8], fb1[8];
    load_fragments(fa, fb, a_k, b_k, tx, ty);
    load_fragments(fa1, fb1, a_k1, b_k1, tx, ty);
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = P::update2(acc[i][j], fa[i], fb[j], fa1[i], fb1[j]);
}
template <class P>
inline constexpr bool has_pairs = requires { requires P::pairs; };

/// C = [C (+)] finish(acc) for the block at (m0, n0) of an m x n C, inside its bounds.
template <class S, class P, class T>
__device__ __forceinline__ void store_tile(T const (&acc)[8][8], T* c, std::int64_t ldc, int m,
                                           int n, int m0, int n0, int tx, int ty, bool accumulate) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int const r = m0 + tile_offset(ty, i);
        if (r >= m) continue;
        T* row = c + std::int64_t(r) * ldc;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            int const col = n0 + tile_offset(tx, j);
            if (col >= n) continue;
            T const v = P::finish(acc[i][j]);
            row[col] = accumulate ? S::add(row[col], v) : v;
        }
    }
}

/// C = [C (+)] A (x) B for one 128 x 128 block of C. Runs only when run_flag is null or
/// *run_flag == run_when (two policies can be launched back to back; the data picks one).
template <class S, class P>
__global__ void __launch_bounds__(threads, sizeof(typename S::value_type) <= 4 ? 2 : 1)
    gemm_kernel(typename S::value_type const* __restrict__ a, std::int64_t lda,
                typename S::value_type const* __restrict__ b, std::int64_t ldb,
                typename S::value_type* __restrict__ c, std::int64_t ldc, int m, int n, int k,
                bool accumulate, int const* run_flag, int run_when) {
    using T = typename S::value_type;
    if (run_flag && *run_flag != run_when) return;

    constexpr int bk = block_k<T>;
    __shared__ __align__(16) T as[2][bk][block_m + a_pad];
    __shared__ __align__(16) T bs[2][bk][block_n];

    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 16;
    int const ty = tid / 16;
    int const m0 = static_cast<int>(blockIdx.y) * block_m;
    int const n0 = static_cast<int>(blockIdx.x) * block_n;

    // Global -> register staging. A: element (a_row + a_step i, a_col), so that consecutive
    // threads read consecutive k of one row; B: element (b_row + 8 (i / 4), b_col + 32 (i % 4)),
    // a warp reading 32 consecutive columns.
    constexpr int a_loads = block_m * bk / threads;
    constexpr int a_step = threads / bk;
    constexpr int b_loads = block_n * bk / threads;
    constexpr int b_chunks = block_n / 32;
    constexpr int b_step = threads / 32;
    int const a_col = tid % bk;
    int const a_row = tid / bk;
    int const b_col = tid % 32;
    int const b_row = tid / 32;
    T ra[a_loads];
    T rb[b_loads];
    auto load_tile = [&](int k0) {
#pragma unroll
        for (int i = 0; i < a_loads; ++i) {
            int const r = m0 + a_row + a_step * i;
            int const ka = k0 + a_col;
            ra[i] = (r < m && ka < k) ? P::load(a[r * lda + ka]) : P::init();
        }
#pragma unroll
        for (int i = 0; i < b_loads; ++i) {
            int const kb = k0 + b_row + b_step * (i / b_chunks);
            int const col = n0 + b_col + 32 * (i % b_chunks);
            rb[i] = (kb < k && col < n) ? P::load(b[kb * ldb + col]) : P::init();
        }
    };
    auto stage_tile = [&](int buf) {
#pragma unroll
        for (int i = 0; i < a_loads; ++i) as[buf][a_col][a_row + a_step * i] = ra[i];
#pragma unroll
        for (int i = 0; i < b_loads; ++i)
            bs[buf][b_row + b_step * (i / b_chunks)][b_col + 32 * (i % b_chunks)] = rb[i];
    };

    T acc[8][8];
    init_tile<P>(acc);
    auto step = [&](int buf, int kk) { update_tile<P>(acc, as[buf][kk], bs[buf][kk], tx, ty); };

    int const k_tiles = (k + bk - 1) / bk;
    if (k_tiles > 0) {
        load_tile(0);
        stage_tile(0);
    }
    __syncthreads();
    for (int t = 0; t < k_tiles; ++t) {
        int const cur = t & 1;
        if (t + 1 < k_tiles) load_tile((t + 1) * bk);
        int const k_left = k - t * bk;
        if (k_left >= bk) {
#pragma unroll
            for (int kk = 0; kk < bk; ++kk) step(cur, kk);
        } else {
#pragma unroll 1
            for (int kk = 0; kk < k_left; ++kk) step(cur, kk);
        }
        // The other buffer was last read before the previous barrier: safe to overwrite.
        if (t + 1 < k_tiles) stage_tile(cur ^ 1);
        __syncthreads();
    }
    store_tile<S, P>(acc, c, ldc, m, n, m0, n0, tx, ty, accumulate);
}

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

__device__ __forceinline__ unsigned smem_address(void const* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
/// 16 bytes global -> shared, asynchronous; bytes past src_bytes are zero-filled (none read).
__device__ __forceinline__ void cp_async16(unsigned dst, void const* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// out (k_pad x m_pitch, k-major) = P::pack of rows [0, rows) of A (rows x k), transposed through
/// 32 x 33 shared tiles; past k or rows: P::pad(). Sets *flag when an entry is out of P's range.
template <class P, class T>
__global__ void pack_a_kernel(T const* __restrict__ a, std::int64_t lda, int rows, int k,
                              T* __restrict__ out, std::int64_t ldo, int* flag,
                              int const* run_flag, int run_when) {
    if (run_flag && *run_flag != run_when) return;
    __shared__ T tile[32][33];
    int const k0 = static_cast<int>(blockIdx.x) * 32;
    int const r0 = static_cast<int>(blockIdx.y) * 32;
    int const tx = static_cast<int>(threadIdx.x);
    bool bad = false;
    for (int j = static_cast<int>(threadIdx.y); j < 32; j += 8) {
        int const r = r0 + j, kk = k0 + tx;
        T v = P::pad();
        if (r < rows && kk < k) {
            T const x = a[std::int64_t(r) * lda + kk];
            bad |= !P::in_range(x);
            v = P::pack(x);
        }
        tile[j][tx] = v;
    }
    if (flag && __syncthreads_or(bad) && tx == 0 && threadIdx.y == 0) *flag = 1;
    if (!flag) __syncthreads();
    for (int j = static_cast<int>(threadIdx.y); j < 32; j += 8)
        out[std::int64_t(k0 + j) * ldo + r0 + tx] = tile[tx][j];
}

/// C = [C (+)] A (x) B for one 128 x 128 block of a panel of C, A packed k-major (`at`, k_pad
/// rows of pitch ldat, k_pad a multiple of staged_k). B's rows must be 16-byte aligned; columns
/// past n and rows past k arrive as zeros and touch only outputs that are not stored.
/// Split over k (partials non-null): block z takes k tiles [z * split_tiles, (z + 1) *
/// split_tiles) and writes its m x n product to partials + z * m * n (pitch n), for
/// combine_partials to add up.
template <class S, class P>
__global__ void __launch_bounds__(threads, 2)
    staged_kernel(typename S::value_type const* __restrict__ at, std::int64_t ldat,
                  typename S::value_type const* __restrict__ b, std::int64_t ldb,
                  typename S::value_type* __restrict__ c, std::int64_t ldc, int m, int n, int k,
                  int k_pad, bool accumulate, int const* run_flag, int run_when,
                  typename S::value_type* __restrict__ partials, int split_tiles) {
    using T = typename S::value_type;
    if (run_flag && *run_flag != run_when) return;
    constexpr int bk = staged_k;
    constexpr int a_elems = bk * block_m;
    constexpr int stage_elems = a_elems + bk * block_n;
    constexpr unsigned stage_bytes = stage_elems * sizeof(T);
    extern __shared__ __align__(16) unsigned char staged_smem[];
    T const* const smem = reinterpret_cast<T const*>(staged_smem);

    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 16;
    int const ty = tid / 16;
    int const m0 = static_cast<int>(blockIdx.y) * block_m;
    int const n0 = static_cast<int>(blockIdx.x) * block_n;

    // Copies: thread tid takes rows tid / 16 + 16 r and 4-wide column chunks (tid % 16) * 4 + 64 c
    // of each k tile (a warp reads 2 x 256 contiguous bytes a pass).
    int const row = tid / 16;
    int const col = (tid % 16) * 4;
    unsigned const s_off = static_cast<unsigned>((row * block_m + col) * sizeof(T));
    T const* const ga = at + std::int64_t(row) * ldat + m0 + col;
    T const* const gb = b + std::int64_t(row) * ldb + n0 + col;
    int b_bytes[2];
#pragma unroll
    for (int cc = 0; cc < 2; ++cc) {
        int const left = n - (n0 + col + 64 * cc);
        b_bytes[cc] = left >= 4 ? 16 : left > 0 ? left * int(sizeof(T)) : 0;
    }
    unsigned const s0 = smem_address(staged_smem);
    auto issue = [&](int stage, int t) {
        unsigned const base = s0 + unsigned(stage) * stage_bytes;
        std::int64_t const k0 = std::int64_t(t) * bk;
#pragma unroll
        for (int r = 0; r < bk / 16; ++r) {
#pragma unroll
            for (int cc = 0; cc < 2; ++cc)
                cp_async16(base + s_off + unsigned((r * 16 * block_m + cc * 64) * sizeof(T)),
                           ga + (k0 + r * 16) * ldat + cc * 64, 16);
            bool const k_ok = k0 + row + r * 16 < k;
#pragma unroll
            for (int cc = 0; cc < 2; ++cc) {
                int const bytes = k_ok ? b_bytes[cc] : 0;
                cp_async16(base + unsigned(a_elems * sizeof(T)) + s_off +
                               unsigned((r * 16 * block_n + cc * 64) * sizeof(T)),
                           bytes ? static_cast<void const*>(gb + (k0 + r * 16) * ldb + cc * 64)
                                 : static_cast<void const*>(b),
                           bytes);
            }
        }
    };

    T acc[8][8];
    init_tile<P>(acc);
    auto compute = [&](int stage) {
        T const* const sa = smem + stage * stage_elems;
        T const* const sb = sa + a_elems;
        if constexpr (has_pairs<P>) {
#pragma unroll
            for (int kk = 0; kk < bk; kk += 2)
                update_tile2<P>(acc, sa + kk * block_m, sa + (kk + 1) * block_m,
                                sb + kk * block_n, sb + (kk + 1) * block_n, tx, ty);
        } else {
#pragma unroll
            for (int kk = 0; kk < bk; ++kk)
                update_tile<P>(acc, sa + kk * block_m, sb + kk * block_n, tx, ty);
        }
    };

    int const t0 = partials ? static_cast<int>(blockIdx.z) * split_tiles : 0;
    int const k_tiles = partials ? min(k_pad / bk - t0, split_tiles) : k_pad / bk;
#pragma unroll
    for (int st = 0; st < staged_stages - 1; ++st) {
        if (st < k_tiles) issue(st, t0 + st);
        cp_async_commit();
    }
    int rd = 0;
    int wr = staged_stages - 1;
    for (int t = 0; t < k_tiles; ++t) {
        cp_async_wait<staged_stages - 2>();
        __syncthreads();  // tile t has landed for everyone; stage wr (tile t - 1) is no longer read
        if (t + staged_stages - 1 < k_tiles) issue(wr, t0 + t + staged_stages - 1);
        cp_async_commit();
        compute(rd);
        rd = rd + 1 == staged_stages ? 0 : rd + 1;
        wr = wr + 1 == staged_stages ? 0 : wr + 1;
    }
    cp_async_wait<0>();
    if (partials)
        store_tile<S, P>(acc, partials + std::int64_t(blockIdx.z) * m * n, n, m, n, m0, n0, tx,
                         ty, false);
    else
        store_tile<S, P>(acc, c, ldc, m, n, m0, n0, tx, ty, accumulate);
}

/// C = [C (+)] the (+)-sum of `split` m x n partial products (pitch n, one after another).
template <class S>
__global__ void combine_partials(typename S::value_type* __restrict__ c, std::int64_t ldc,
                                 typename S::value_type const* __restrict__ partials, int split,
                                 int m, int n, bool accumulate) {
    std::int64_t const plane = std::int64_t(m) * n;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < plane;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        typename S::value_type v = partials[e];
        for (int z = 1; z < split; ++z) v = S::add(v, partials[z * plane + e]);
        typename S::value_type& out = c[(e / n) * ldc + e % n];
        out = accumulate ? S::add(out, v) : v;
    }
}

template <class T>
void check_shapes(dense_view<T const, device> a, dense_view<T const, device> b,
                  dense_view<T, device> c) {
    if (a.cols != b.rows || a.rows != c.rows || b.cols != c.cols)
        throw dimension_mismatch("dense_gemm: A is " + kleene::detail::shape(a.rows, a.cols) +
                                 ", B is " + kleene::detail::shape(b.rows, b.cols) + ", C is " +
                                 kleene::detail::shape(c.rows, c.cols));
    constexpr std::size_t int_max = std::numeric_limits<int>::max();
    if (a.rows > int_max || a.cols > int_max || b.cols > int_max)
        throw invalid_argument("dense_gemm: dimensions past 2^31 - 1 are not supported");
    if (kleene::detail::views_overlap(c, a) || kleene::detail::views_overlap(c, b))
        throw invalid_argument("dense_gemm: C shares entries with A or B (write into a separate "
                               "matrix)");
}

template <class S, class P>
void launch_gemm(dense_view<typename S::value_type const, device> a,
                 dense_view<typename S::value_type const, device> b,
                 dense_view<typename S::value_type, device> c, bool accumulate, int const* run_flag,
                 int run_when, cudaStream_t st) {
    dim3 const grid(static_cast<unsigned>((c.cols + block_n - 1) / block_n),
                    static_cast<unsigned>((c.rows + block_m - 1) / block_m));
    if (grid.y > 65535)
        throw invalid_argument("dense_gemm: more than 65535 * 128 rows are not supported");
    gemm_kernel<S, P><<<grid, threads, 0, st>>>(
        a.data, static_cast<std::int64_t>(a.ld), b.data, static_cast<std::int64_t>(b.ld), c.data,
        static_cast<std::int64_t>(c.ld), static_cast<int>(c.rows), static_cast<int>(c.cols),
        static_cast<int>(a.cols), accumulate, run_flag, run_when);
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::gemm_detail::gemm_kernel");
}

/// P's range (P::in_range) as the shared range check's predicate.
template <class P>
struct in_policy_range {
    template <class T>
    __device__ bool operator()(T v) const {
        return P::in_range(v);
    }
};
template <class P, class T>
void launch_range_check(dense_view<T const, device> v, int* flag, cudaStream_t st) {
    kleene::cuda::detail::launch_range_check(v, in_policy_range<P>{}, flag, st);
}

/// The staged kernel over S with policy P, its shared-memory attribute set. Set on every call,
/// not once per process: each translation unit that instantiates the kernel registers its own
/// copy, and an attribute set on one copy does not reach the others (a static "done" flag shared
/// between them let ooc's launches fail with cudaErrorInvalidValue).
template <class S, class P>
auto staged_kernel_ready() {
    using T = typename S::value_type;
    auto kernel = staged_kernel<S, P>;
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(staged_smem_bytes<T>())));
    return kernel;
}

/// Whether B can be copied 16 bytes at a time: every row 16-byte aligned.
template <class T>
bool rows_aligned(dense_view<T const, device> v) {
    return reinterpret_cast<std::uintptr_t>(v.data) % 16 == 0 && (v.ld * sizeof(T)) % 16 == 0;
}

/// Device scratch that grows on demand; the stream is synchronised before a buffer that earlier
/// products may still read is freed.
inline void* grow_scratch(buffer<unsigned char, device>& b, std::size_t bytes, cudaStream_t st) {
    if (b.size() < bytes) {
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        b = buffer<unsigned char, device>();
        b = buffer<unsigned char, device>(bytes);
    }
    return b.data();
}

/// Semirings whose add is exact in any order (min, max): their products may split k.
template <class S, class T = typename S::value_type>
inline constexpr bool splits_k = std::is_same_v<S, min_plus<T>> || std::is_same_v<S, max_plus<T>>;

/// The staged path: per panel of C's rows, pack A, then the product. Integer min_plus / max_plus
/// checks B's range first and A's while packing; out of range, a repacked A and the generic
/// policy run instead (the flag picks on the device, no host round trip). With ks.parts > 1 the
/// product splits k, its partial products after the packed A in scratch.
template <semiring_type S>
void enqueue_staged(dense_view<typename S::value_type const, device> a,
                    dense_view<typename S::value_type const, device> b,
                    dense_view<typename S::value_type, device> c, bool accumulate,
                    cudaStream_t st, int* flag, void* scratch, k_split ks,
                    std::size_t checked_min_updates) {
    using T = typename S::value_type;
    using G = staged_generic_policy<S>;
    using R = checked_staged_t<S>;
    constexpr bool checked = !std::is_void_v<R>;
    std::size_t const m = c.rows, n = c.cols, k = a.cols;
    std::size_t const k_pad = (k + staged_k - 1) / staged_k * staged_k;
    std::size_t const pr = panel_rows(m, k, sizeof(T));
    T* const at = static_cast<T*>(scratch);
    int const split = ks.parts;
    T* const partials = split > 1 ? reinterpret_cast<T*>(static_cast<unsigned char*>(scratch) +
                                                        packed_a_bytes(m, k, sizeof(T)))
                                  : nullptr;
    // The checked path costs four launches more (flag, B's check, two kernels that return at
    // once); below checked_min_updates they would outweigh what it saves.
    bool const use_checked = checked && double(m) * double(n) * double(k) >=
                                            static_cast<double>(checked_min_updates);
    if constexpr (checked) {
        if (use_checked) {
            KLEENE_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), st));
            launch_range_check<R, T>(b, flag, st);
        }
    }
    for (std::size_t r0 = 0; r0 < m; r0 += pr) {
        std::size_t const rows = std::min(pr, m - r0);
        std::size_t const pitch = (rows + block_m - 1) / block_m * block_m;
        auto pack = [&](auto policy, int* set_flag, int const* run_flag) {
            using P = decltype(policy);
            if (k_pad == 0) return;
            dim3 const grid(static_cast<unsigned>(k_pad / 32), static_cast<unsigned>(pitch / 32));
            pack_a_kernel<P, T><<<grid, dim3(32, 8), 0, st>>>(
                a.data + r0 * a.ld, static_cast<std::int64_t>(a.ld), static_cast<int>(rows),
                static_cast<int>(k), at, static_cast<std::int64_t>(pitch), set_flag, run_flag, 1);
            KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::gemm_detail::pack_a_kernel");
        };
        auto product = [&](auto policy, int const* run_flag, int run_when) {
            using P = decltype(policy);
            auto kernel = staged_kernel_ready<S, P>();
            dim3 const grid(static_cast<unsigned>((n + block_n - 1) / block_n),
                            static_cast<unsigned>(pitch / block_m), static_cast<unsigned>(split));
            kernel<<<grid, threads, staged_smem_bytes<T>(), st>>>(
                at, static_cast<std::int64_t>(pitch), b.data, static_cast<std::int64_t>(b.ld),
                c.data + r0 * c.ld, static_cast<std::int64_t>(c.ld), static_cast<int>(rows),
                static_cast<int>(n), static_cast<int>(k), static_cast<int>(k_pad), accumulate,
                run_flag, run_when, partials, ks.tiles);
            KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::gemm_detail::staged_kernel");
        };
        auto combine = [&] {
            if (!partials) return;
            std::size_t const entries = rows * n;
            combine_partials<S><<<kleene::cuda::detail::blocks_for(entries, threads, 4096), threads, 0, st>>>(
                c.data + r0 * c.ld, static_cast<std::int64_t>(c.ld), partials, split,
                static_cast<int>(rows), static_cast<int>(n), accumulate);
            KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::gemm_detail::combine_partials");
        };
        if constexpr (checked) {
            if (use_checked) {
                pack(R{}, flag, nullptr);
                pack(G{}, nullptr, flag);  // runs only when a range check failed
                product(R{}, flag, 0);
                product(G{}, flag, 1);
                combine();
                continue;
            }
        }
        pack(G{}, nullptr, nullptr);
        product(G{}, nullptr, 0);
        combine();
    }
}

template <class S>
inline constexpr bool has_blas_path =
    std::is_same_v<S, plus_times<float>> || std::is_same_v<S, plus_times<double>>;

/// Enqueues the product on st; `flag` is a device int that only this stream's work touches;
/// `scratch(bytes)` returns device scratch for the packed A (asked for only when it is needed, so
/// a bad call throws before anything is allocated); ctx gives the tuning and the cuBLAS handle.
template <semiring_type S, class Scratch>
void enqueue(dense_view<typename S::value_type const, device> a,
             dense_view<typename S::value_type const, device> b,
             dense_view<typename S::value_type, device> c, bool accumulate, cudaStream_t st,
             int* flag, Scratch&& scratch, context& ctx) {
    tuning const& tune = ctx.tune;
    using T = typename S::value_type;
    check_shapes<T>(a, b, c);
    if (c.rows == 0 || c.cols == 0) return;
    if constexpr (has_blas_path<S>) {
        if (tune.use_cublas) {
            blas_gemm(a, b, c, accumulate, st, ctx);
            return;
        }
    }
    if constexpr (has_staged_path<T>) {
        if (rows_aligned<T>(b)) {
            // Few blocks and an add exact in any order: split k (tuning::split_k_blocks).
            k_split const ks = splits_k<S> ? plan_k_split(c.rows, a.cols, c.cols, sizeof(T),
                                                          tune.split_k_blocks)
                                           : k_split{};
            void* const p = scratch(packed_a_bytes(c.rows, a.cols, sizeof(T)) +
                                    split_partials_bytes(ks, c.rows, a.cols, c.cols, sizeof(T)));
            enqueue_staged<S>(a, b, c, accumulate, st, flag, p, ks, tune.checked_min_updates);
            return;
        }
    }
    if constexpr (has_ranged_path<S>) {
        constexpr bool is_max = std::is_same_v<S, max_plus<T>>;
        using ranged = ranged_policy<T, is_max>;
        KLEENE_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), st));
        launch_range_check<ranged, T>(a, flag, st);
        launch_range_check<ranged, T>(b, flag, st);
        if (accumulate) launch_range_check<ranged, T>(dense_view<T const, device>(c), flag, st);
        // Both launch; each returns at once unless the flag selects it. No host round trip.
        launch_gemm<S, ranged>(a, b, c, accumulate, flag, 0, st);
        launch_gemm<S, generic_policy<S>>(a, b, c, accumulate, flag, 1, st);
    } else {
        (void)flag;
        launch_gemm<S, generic_policy<S>>(a, b, c, accumulate, nullptr, 0, st);
    }
}

/// The packed A's scratch from ctx: the caller's workspace when it supplied one (too small is
/// an error: the library never allocates behind a supplied workspace), else the context's own.
inline void* context_workspace(context& ctx, std::size_t bytes, cudaStream_t st) {
    if (void* const w = ctx.supplied_workspace()) {
        if (bytes > ctx.workspace_bytes())
            throw invalid_argument("dense_gemm: the context's workspace holds " +
                                   std::to_string(ctx.workspace_bytes()) + " bytes, this product needs " +
                                   std::to_string(bytes) + " (cuda::dense_gemm_scratch_bytes)");
        return w;
    }
    return grow_scratch(ctx.state().workspace, bytes, st);
}

/// Synchronous product with ctx's stream, workspace, flag, cuBLAS handle and tuning.
template <semiring_type S>
void run(dense_view<typename S::value_type const, device> a,
         dense_view<typename S::value_type const, device> b,
         dense_view<typename S::value_type, device> c, bool accumulate, context& ctx) {
    auto const st = static_cast<cudaStream_t>(ctx.stream());
    enqueue<S>(a, b, c, accumulate, st,
               needs_flag<S> ? kleene::cuda::detail::context_flag(ctx) : nullptr,
               [&](std::size_t bytes) { return context_workspace(ctx, bytes, st); }, ctx);
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace kleene::cuda::gemm_detail

namespace kleene::cuda {

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, bool accumulate) {
    // Dense storage holds zero() where an entry is absent; where zero does not annihilate mul
    // (pair, first, second) the kernel must not multiply by it, exactly as on the CPU.
    gemm_detail::run<dense_safe<S>>(a, b, c, accumulate, default_context());
}

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, bool accumulate, context& ctx) {
    gemm_detail::run<dense_safe<S>>(a, b, c, accumulate, ctx);
}

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, bool accumulate, stream const& s,
                context* ctx) {
    using P = dense_safe<S>;
    gemm_detail::enqueue<P>(a, b, c, accumulate, static_cast<cudaStream_t>(s.native()),
                            gemm_detail::needs_flag<P> ? s.scratch_int() : nullptr,
                            [&s](std::size_t bytes) { return s.scratch_bytes(bytes); },
                            resolve(ctx));
}

}  // namespace kleene::cuda

// gemm_lab: standalone experiment for the dense min-plus GEMM (fp32 min(c, a + b), int32
// __viaddmin_s32 and int16 pairs through __viaddmin_s16x2), n x n x n, row-major, C = A min.+ B
// (overwrite form). No kleene headers.
// Built and run by lab/gemm_lab.sh. Every variant's whole result is compared on the device
// with a naive reference kernel.
//
// Variants (all 256 threads; tiles in the comment above each kernel):
//   base      the current kleene kernel: 128x128x16, 8x8 a thread, A transposed in shared memory,
//             scalar checked LDG into 16 staging registers, 2 blocks/SM. Any M, N, K.
//   fast      base's layout; whole interior tiles: LDG.128 from two 32-bit offsets, no checks,
//             staging split in 4 (fp32) or 2 (int32) parts, STG.128; partial K tile padded with
//             infinity; edge blocks in a second (checked) kernel on a side stream. Any M, N, K.
//   async     cp.async 4-stage pipeline (BK 16), A m-major in shared memory (pitch 20), fragments
//             read along k (LDS.128 int32, LDS.64 fp32). n % 128.
//   asyncT    A transposed on the device first (timed; ~0.2 ms at 8192), then cp.async of k-major
//             tiles, 4 stages x BK 16; asyncT32: 3 stages x BK 32. n % 128.
//   min3      asyncT with two k steps an update: r = vimin3(r, a0+b0, a1+b1) (VIMNMX3, one 3-input
//             min per two updates). fp32 through the bit patterns: NON-NEGATIVE INPUTS ONLY (IEEE
//             order = signed-int order for +0..+inf); int32: ptxas turns it back into 2 VIADDMNMX.
//             min3_32: 3 stages x BK 32.
//   wide      16x8 a thread, block 256x128, 1 block/SM (8 warps), A transposed, cp.async. n % 256.
//   warp      CUTLASS-SIMT-like: warp tile 32x64, lanes 4x8, 8x8 a lane as 4x4 quadrants (every
//             LDS.128 of a warp one wavefront), fast's LDG.128 staging. n % 128.
//   mbar      no __syncthreads in the loop: per-stage "full" (cp.async.mbarrier.arrive.noinc) and
//             "empty" mbarriers, 4 stages, tile t+2 issued while t is computed, warp layout of
//             "warp", A transposed. mbar3: with min3's update. n % 128.
// "n % 128" variants are lab-only and are skipped (with the reason) at other sizes.
//
// int16 (LAB_TYPES=int16; variants asyncT and asyncT32 only, n % 256): A, B, C are int16 n x n.
// __viaddmin_s16x2(a, b, c) is, per 16-bit half, min(a + b, c) with a WRAPPING add (crt header:
// add.s16x2 then min.s16x2 on sm_90; PTX has .sat only for add.s32) and a signed min. B and C
// are read as n x n/2 words of two adjacent columns (low half = even column); A is first
// transposed on the device into n x n words holding dup16(A(i, k)) = A(i, k) in both halves
// (launch_dup_transpose, timed with the product), so the loop is async's int32 loop on words
// (a block: 128 rows x 128 words = 256 int16 columns) with one VIADDMNMX.S16x2 per two updates.
// T updates/s count each int16 update once. Encoding: finite weights in [-4096, 4095],
// infinity = 16383 (2^14 - 1): finite sums lie in [-8192, 8190], inf + finite >= 12287, inf + inf
// = 32766 <= 32767, so no add wraps; a result >= 12287 (s16_threshold) means "no path", and the
// kernel's epilogue canonicalizes it to exactly 16383 (__vcmpges2 + LOP3, ~5 instructions a word,
// once), so the output is a valid input of the next product. A library would also have to keep
// finite results (path lengths) within [-4096, 4095], e.g. by checking the range of the inputs'
// finite entries like ranged_policy. Inputs here: 1..1000, 5% infinity, and every 61st row of A
// entirely infinite (so that "no path" results occur); the reference sums in int32 and compares
// exactly after the same canonicalization.
//
// Measured on an H200 (132 SMs; lab/gemm_lab.sh 1000 1002 4096 8192; no mismatch anywhere),
// T updates/s, median of 5:
//   variant   fp32 4096  fp32 8192  int32 4096  int32 8192  regs     spill(B) blocks/SM
//                                                            (fp32/int32)
//   base        11.40      11.51      14.21       14.36      128/120  8/0    2
//   fast        12.26      12.39      15.27       15.43      128/127  8/0    2
//   async       12.54      12.66      14.96       15.09      128/128  8/0    2
//   asyncT      13.13      13.29      15.54       15.74      128/125  0      2
//   asyncT32    13.27      13.47      15.60       15.79      128/127  0      2
//   min3 (*)    15.59      15.76      15.47       15.67      128/123  0      2
//   min3_32 (*) 15.79      15.96      15.66       15.82      128/125  0      2
//   wide        12.35      12.79      15.29       15.39      225/229  0      1
//   warp        12.30      12.43      15.30       15.44      128/123  16/0   2
//   mbar        13.04      13.21      15.56       15.68      128/125  0      2
//   mbar3 (*)   15.85      16.03      15.50       15.66      128/123  0      2
//   (*) fp32 valid for non-negative inputs only. Register-resident loops in the same run: fp32
//   FADD+FMNMX 15.43, int32 VIADDMNMX 16.47. base int32 here is 14.36, not the library's 12.2:
//   the lab feeds already-encoded inputs, so base has no per-element sentinel re-encoding
//   (ranged_policy::load, ISETP + SEL on the ALU pipe) and no run_flag / finish / accumulate.
//   ncu (n = 4096): int32 asyncT keeps the ALU pipe 98% busy (VIADDMNMX is ALU-only, 16 lanes):
//   it is at the pipe's limit; base int32 93.7% with 8% of its ALU work being bounds checks and
//   addresses. fp32 asyncT32: ALU 84%, issue 87%, stalls mostly math-pipe throttle (FMNMX waits
//   for the ALU) and not-selected. fp32 min3_32: ALU 52%, issue 79%, stalls not-selected 1.9,
//   math-pipe throttle 0.95, dispatch 0.67 cycles an issue: issue-limited by stalls, not by a pipe.
//
// Main-loop SASS per 8-deep k slice (cuobjdump -sass of this file, nvcc 13.0, sm_90; static counts
// over the innermost loop body containing the updates, divided by its k depth / 8: base and
// fast-edge include the one-step loop for a partial k tile, fast and warp the not-taken tail-tile
// loads (16 scalar LDG, BSSY/BSYNC, ISETPs), so executed "other" is lower there; LDGSTS =
// cp.async; "ALU int": the part of "other" on the ALU pipe (ISETP LOP3 IADD3 LEA SHF VIADD SEL
// PLOP3), which VIADDMNMX and FMNMX / VIMNMX3 also need):
//   variant    type   updates                 LDS.128  LDG  LDGSTS  LDL/STL  other (ALU int)
//   base       fp32   544 FADD+544 FMNMX         34     8      0       1    116.5 (47.5)
//   base       int32  544 VIADDMNMX              34     8      0       0    118.5 (44)
//   fast       fp32   512 FADD+512 FMNMX         32     7      0     0.5    63.75 (28.25)
//   fast       int32  512 VIADDMNMX              32     7      0       0    50.75 (18.75)
//   fast-edge  fp32   544 FADD+544 FMNMX         34     8      0       2      121 (48)
//   fast-edge  int32  544 VIADDMNMX              34     8      0       0      117 (43)
//   async      fp32   512 FADD+512 FMNMX         32     0      2     0.5     22.5 (5.5)
//   async      int32  512 VIADDMNMX              32     0      2       0       22 (5)
//   asyncT     fp32   512 FADD+512 FMNMX         32     0      2       0     19.5 (6.5)
//   asyncT     int32  512 VIADDMNMX              32     0      2       0     13.5 (6.5)
//   asyncT32   fp32   512 FADD+512 FMNMX         32     0      2       0     11.5 (4)
//   asyncT32   int32  512 VIADDMNMX              32     0      2       0     9.25 (3.75)
//   min3       fp32   512 FADD+256 VIMNMX3       32     0      2       0     19.5 (5.5)
//   min3       int32  512 VIADDMNMX              32     0      2       0     13.5 (6.5)
//   min3_32    fp32   512 FADD+256 VIMNMX3       32     0      2       0    19.25 (3.75)
//   min3_32    int32  512 VIADDMNMX              32     0      2       0      9.5 (3.75)
//   wide       fp32   1024 FADD+1024 FMNMX       48     0      3       0     20.5 (7.5)
//   wide       int32  1024 VIADDMNMX             48     0      3       0     20.5 (7.5)
//   warp       fp32   512 FADD+512 FMNMX         32     7      0     0.5    64.25 (29.5)
//   warp       int32  512 VIADDMNMX              32     7      0       0       49 (18.25)
//   mbar       fp32   512 FADD+512 FMNMX         32     0      2       0       31 (7)
//   mbar       int32  512 VIADDMNMX              32     0      2       0       28 (7)
//   mbar3      fp32   512 FADD+256 VIMNMX3       32     0      2       0     29.5 (7)
//   mbar3      int32  512 VIADDMNMX              32     0      2       0     28.5 (7)
//   asyncT     int16  512 VIADDMNMX.S16x2        32     0      2       0       20 (5)
//   asyncT32   int16  512 VIADDMNMX.S16x2        32     0      2       0    10.75 (3.5)
// (int16 rows: 1024 updates per 8 k; counted by decoding the cubin, as no cuobjdump was at hand;
// the decoder reproduces the int32 asyncT / asyncT32 rows above exactly. int16 asyncT32: 112
// registers, asyncT 109, no spills. The epilogue adds ~330 instructions a thread, once.)
// fp32 spills (LDL/STL above): 8 B in base (as in the library) and fast, 16 B in warp, 8 B in
// async; 1 (2 in base) LDL per 16 k a thread in their main loops; the int32 kernels and the
// other fp32 kernels have none. ptxas sits at the 128-register cap of 2 blocks/SM there.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#define CK(call)                                                                            \
    do {                                                                                    \
        cudaError_t const e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                            \
            std::fprintf(stderr, "CUDA error in %s\n  at %s:%d: %s\n", #call, __FILE__,     \
                         __LINE__, cudaGetErrorString(e_));                                 \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

namespace {

using i16 = std::int16_t;
using i32 = std::int32_t;
using i64 = std::int64_t;
using u32 = std::uint32_t;

// int32 encoding: inputs in [1, 1000], "infinity" = 2^30 - 1, so that sums never overflow; a
// result at or above int_threshold means infinity.
constexpr i32 int_inf = (1 << 30) - 1;
constexpr i32 int_threshold = int_inf - (1 << 28);

// int16 encoding (see the header): finite values in [-4096, 4095], "infinity" = 2^14 - 1; a sum
// at or above s16_threshold means infinity. inf + inf = 32766 and finite sums stay in int16, so
// the wrapping 16-bit add of __viaddmin_s16x2 never wraps. The int16 kernels canonicalize their
// results (>= s16_threshold -> s16_inf), so a product can feed the next one.
constexpr i32 s16_inf = (1 << 14) - 1;
constexpr i32 s16_threshold = s16_inf - (1 << 12);
constexpr i32 s16_finite_min = -(1 << 12);
constexpr i32 s16_finite_max = (1 << 12) - 1;
static_assert(s16_inf + s16_inf <= 32767);
static_assert(s16_finite_max + s16_finite_max < s16_threshold);
static_assert(s16_inf + s16_finite_min >= s16_threshold);
static_assert(s16_finite_min + s16_finite_min >= -32768);
// Both 16-bit halves of a word set to x.
__host__ __device__ constexpr u32 dup16(i32 x) {
    return (static_cast<u32>(x) & 0xffffu) * 0x10001u;
}

// ------------------------------------------------------------------------------------------------
// Element types
// ------------------------------------------------------------------------------------------------

template <class T>
struct elem;

template <>
struct elem<float> {
    using vec = float4;
    static constexpr char const* name = "fp32";
    __device__ static float inf() { return __int_as_float(0x7f800000); }
    __device__ static float upd(float r, float a, float b) { return fminf(r, a + b); }
    // min(r, a0 + b0, a1 + b1) through one 3-input signed-int min on the bit patterns: valid only
    // for non-negative operands (for +0 .. +inf, IEEE order equals signed-int order of the bits).
    __device__ static float upd2(float r, float a0, float b0, float a1, float b1) {
        return __int_as_float(
            __vimin3_s32(__float_as_int(r), __float_as_int(a0 + b0), __float_as_int(a1 + b1)));
    }
    __device__ static bool same(float x, float ref) { return x == ref; }
};

template <>
struct elem<i32> {
    using vec = int4;
    static constexpr char const* name = "int32";
    __device__ static i32 inf() { return int_inf; }
    __device__ static i32 upd(i32 r, i32 a, i32 b) { return __viaddmin_s32(a, b, r); }
    __device__ static i32 upd2(i32 r, i32 a0, i32 b0, i32 a1, i32 b1) {
        return __vimin3_s32(r, a0 + b0, a1 + b1);
    }
    __device__ static bool same(i32 x, i32 ref) {
        return x == ref || (x >= int_threshold && ref >= int_threshold);
    }
};

// int16 matrices (host side: inputs, reference, comparison). The kernels see them as the 32-bit
// words of elem<u32>.
template <>
struct elem<i16> {
    static constexpr char const* name = "int16";
    __device__ static i16 inf() { return static_cast<i16>(s16_inf); }
    // Results are canonical (infinity exactly s16_inf): exact comparison.
    __device__ static bool same(i16 x, i16 ref) { return x == ref; }
};

// Two int16 values in one word (low half: the even column). upd: one VIADDMNMX.S16x2, two
// min-plus updates; a is A(i, k) in both halves (dup16), b two adjacent columns of B's row k.
template <>
struct elem<u32> {
    using vec = uint4;
    __device__ static u32 inf() { return dup16(s16_inf); }
    __device__ static u32 upd(u32 r, u32 a, u32 b) { return __viaddmin_s16x2(a, b, r); }
    // Per half: x >= s16_threshold ? s16_inf : x (VSETP/PRMT or similar + LOP3; epilogue only).
    __device__ static u32 finish(u32 x) {
        u32 const m = __vcmpges2(x, dup16(s16_threshold));
        return (x & ~m) | (dup16(s16_inf) & m);
    }
};

template <class T>
using vec_t = typename elem<T>::vec;

template <class T>
__device__ __forceinline__ void ld4(T* d, T const* s) {
    vec_t<T> const v = *reinterpret_cast<vec_t<T> const*>(s);
    d[0] = v.x;
    d[1] = v.y;
    d[2] = v.z;
    d[3] = v.w;
}
template <class T>
__device__ __forceinline__ vec_t<T> ldg4(T const* p) {
    return __ldg(reinterpret_cast<vec_t<T> const*>(p));
}
template <class T>
__device__ __forceinline__ void st4(T* p, T const* s) {
    vec_t<T> v;
    v.x = s[0];
    v.y = s[1];
    v.z = s[2];
    v.w = s[3];
    *reinterpret_cast<vec_t<T>*>(p) = v;
}

__device__ __forceinline__ unsigned smem_u32(void const* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(unsigned dst, void const* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
    asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(bar)
                 : "memory");
}
// The mbarrier's phase completes once every earlier cp.async of this thread has landed.
__device__ __forceinline__ void cp_async_mbar_arrive(unsigned bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n"
        " .reg .pred p;\n"
        "WAIT_%=:\n"
        " mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n"
        " @!p bra WAIT_%=;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

// acc[i][j] = min(acc[i][j], fa[i] + fb[j]) for an I x J register tile.
template <class T, int I, int J>
__device__ __forceinline__ void outer(T (&acc)[I][J], T const* fa, T const* fb) {
#pragma unroll
    for (int i = 0; i < I; ++i)
#pragma unroll
        for (int j = 0; j < J; ++j) acc[i][j] = elem<T>::upd(acc[i][j], fa[i], fb[j]);
}
// Two k steps at once through upd2 (one 3-input min per two updates).
template <class T, int I, int J>
__device__ __forceinline__ void outer2(T (&acc)[I][J], T const* fa0, T const* fb0, T const* fa1,
                                       T const* fb1) {
#pragma unroll
    for (int i = 0; i < I; ++i)
#pragma unroll
        for (int j = 0; j < J; ++j)
            acc[i][j] = elem<T>::upd2(acc[i][j], fa0[i], fb0[j], fa1[i], fb1[j]);
}
template <class T, int I, int J>
__device__ __forceinline__ void fill_acc(T (&acc)[I][J]) {
#pragma unroll
    for (int i = 0; i < I; ++i)
#pragma unroll
        for (int j = 0; j < J; ++j) acc[i][j] = elem<T>::inf();
}

// Thread t of a 16-wide grid owns rows (or columns) t*4 + {0..3} and 64 + t*4 + {0..3}.
__device__ __forceinline__ int tile_offset(int t, int i) {
    return (i < 4 ? 0 : 64) + t * 4 + (i & 3);
}

// ------------------------------------------------------------------------------------------------
// base: the current kleene kernel (dense_gemm.cuh gemm_kernel, block_k 16), generic bounds checks
// on every element, register prefetch of the next k slice, A transposed in shared memory.
// ------------------------------------------------------------------------------------------------
namespace base {
constexpr int threads = 256;
constexpr int block_m = 128;
constexpr int block_n = 128;
constexpr int bk = 16;
constexpr int a_pad = 4;

template <class T>
__global__ void __launch_bounds__(threads, 2)
    kernel(T const* __restrict__ a, i64 lda, T const* __restrict__ b, i64 ldb, T* __restrict__ c,
           i64 ldc, int m, int n, int k) {
    using E = elem<T>;
    __shared__ __align__(16) T as[2][bk][block_m + a_pad];
    __shared__ __align__(16) T bs[2][bk][block_n];

    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 16;
    int const ty = tid / 16;
    int const m0 = static_cast<int>(blockIdx.y) * block_m;
    int const n0 = static_cast<int>(blockIdx.x) * block_n;

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
            ra[i] = (r < m && ka < k) ? a[r * lda + ka] : E::inf();
        }
#pragma unroll
        for (int i = 0; i < b_loads; ++i) {
            int const kb = k0 + b_row + b_step * (i / b_chunks);
            int const col = n0 + b_col + 32 * (i % b_chunks);
            rb[i] = (kb < k && col < n) ? b[kb * ldb + col] : E::inf();
        }
    };
    auto store_tile = [&](int buf) {
#pragma unroll
        for (int i = 0; i < a_loads; ++i) as[buf][a_col][a_row + a_step * i] = ra[i];
#pragma unroll
        for (int i = 0; i < b_loads; ++i)
            bs[buf][b_row + b_step * (i / b_chunks)][b_col + 32 * (i % b_chunks)] = rb[i];
    };

    T acc[8][8];
    fill_acc(acc);

    auto step = [&](int buf, int kk) {
        T fa[8];
        T fb[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) fa[i] = as[buf][kk][tile_offset(ty, i)];
#pragma unroll
        for (int j = 0; j < 8; ++j) fb[j] = bs[buf][kk][tile_offset(tx, j)];
        outer(acc, fa, fb);
    };

    int const k_tiles = (k + bk - 1) / bk;
    if (k_tiles > 0) {
        load_tile(0);
        store_tile(0);
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
        if (t + 1 < k_tiles) store_tile(cur ^ 1);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int const r = m0 + tile_offset(ty, i);
        if (r >= m) continue;
        T* row = c + r * ldc;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            int const col = n0 + tile_offset(tx, j);
            if (col >= n) continue;
            row[col] = acc[i][j];
        }
    }
}
}  // namespace base

// Global -> shared staging through registers for fast and warp (interior blocks only): the
// A tile (128 rows x 16 k, m-major in global memory) is stored transposed into as[16][132], the
// B tile (16 x 128) straight into bs[16][128]. Four 16-byte pieces a thread, each an immediate
// offset from one of two 32-bit offsets off block-uniform bases (so the per-thread state is 3
// registers, not 3 64-bit pointers; needs K * ldb < 2^32, checked on the host): 0: A row a_row,
// k a_k..a_k+3; 1: k a_k+8..; 2: B row b_row, columns b_col..b_col+3; 3: columns b_col+64... A
// lane pair reads 32 contiguous bytes of an A row (one sector), a warp 16 rows; its transposing
// stores hit 32 distinct banks (k rows 4 apart in pitch 132 are 16 banks apart). A warp reads 2 B
// rows x 256 contiguous bytes a piece. A k tile's pieces are loaded and stored in Parts groups
// spread over its 16 steps, so only 16 / Parts staging registers are live.
template <class T>
struct vec_stager {
    using V = vec_t<T>;
    static constexpr int bk = 16;
    static constexpr int pitch_a = 128 + 4;
    T const* a_blk;  // block-uniform bases (uniform registers), 32-bit per-thread offsets
    T const* b_blk;
    unsigned a_off;
    unsigned b_off;
    unsigned b_tile;
    int sa;  // element offset of piece 0 in as[buf]
    int sb;  // element offset of piece 2 in bs[buf]

    __device__ __forceinline__ vec_stager(T const* a, i64 lda, T const* b, i64 ldb, int m0, int n0,
                                          int tid) {
        int const lane = tid % 32;
        int const warp = tid / 32;
        int const a_row = warp * 16 + lane / 2;
        int const a_k = (lane & 1) * 4;
        int const b_row = tid / 16;
        int const b_col = (tid % 16) * 4;
        a_blk = a + m0 * lda;
        b_blk = b + n0;
        a_off = static_cast<unsigned>(a_row * lda + a_k);
        b_off = static_cast<unsigned>(b_row * ldb + b_col);
        b_tile = static_cast<unsigned>(bk * ldb);
        sa = a_k * pitch_a + a_row;
        sb = b_row * 128 + b_col;
    }
    __device__ __forceinline__ V load(int piece) const {
        switch (piece) {
            case 0: return ldg4(a_blk + a_off);
            case 1: return ldg4(a_blk + a_off + 8);
            case 2: return ldg4(b_blk + b_off);
            default: return ldg4(b_blk + b_off + 64);
        }
    }
    __device__ __forceinline__ void store(T (*as)[pitch_a], T (*bs)[128], int piece,
                                          V const& v) const {
        if (piece < 2) {
            T* d = &as[0][0] + sa + 8 * piece * pitch_a;
            d[0] = v.x;
            d[pitch_a] = v.y;
            d[2 * pitch_a] = v.z;
            d[3 * pitch_a] = v.w;
        } else {
            *reinterpret_cast<V*>(&bs[0][0] + sb + 64 * (piece - 2)) = v;
        }
    }
    // Piece of a partial last k tile holding k_left < 16 k values: A elements past k_left and B
    // rows past k_left read as infinity (A through scalar loads: a row's end may end the matrix).
    __device__ __forceinline__ V load_tail(int piece, int k_left) const {
        T const inf = elem<T>::inf();
        V v;
        if (piece < 2) {
            int const k0 = (static_cast<int>(threadIdx.x) & 1) * 4 + 8 * piece;
            T const* p = a_blk + a_off + 8 * piece;
            v.x = k0 + 0 < k_left ? p[0] : inf;
            v.y = k0 + 1 < k_left ? p[1] : inf;
            v.z = k0 + 2 < k_left ? p[2] : inf;
            v.w = k0 + 3 < k_left ? p[3] : inf;
        } else if (static_cast<int>(threadIdx.x) / 16 < k_left) {
            v = ldg4(b_blk + b_off + 64 * (piece - 2));
        } else {
            v.x = v.y = v.z = v.w = inf;
        }
        return v;
    }
    __device__ __forceinline__ void advance() {
        a_off += bk;
        b_off += b_tile;
    }
};

// The register-staged main loop shared by fast (interior) and warp over all of K: double-buffered
// as / bs, one barrier per k tile; step(buf, kk) does one k step. A partial last k tile is loaded
// through load_tail (infinity padding) and computed whole: min(r, inf + b) = r, also for the int32
// code (2^30 - 1 + 1000 does not overflow). (Measured: this form, with the tail's loads inside the
// loop, ran 1-2% faster than a separate tail step after the loop: ptxas allocates that worse.)
// The loop body is instantiated for both buffers so that shared addresses are immediates.
template <class T, int Parts, class Step>
__device__ __forceinline__ void staged_loop(vec_stager<T>& st, T (*as)[16][132], T (*bs)[16][128],
                                            int k, Step&& step) {
    using V = vec_t<T>;
    constexpr int per = 4 / Parts;
    constexpr int steps = 16 / Parts;
    int const k_tiles = (k + 15) / 16;
    int const k_last = k - (k_tiles - 1) * 16;  // 1..16
    if (k_tiles <= 0) return;
#pragma unroll
    for (int q = 0; q < 4; ++q)
        st.store(as[0], bs[0], q, k_tiles == 1 ? st.load_tail(q, k_last) : st.load(q));
    st.advance();
    __syncthreads();
    // Two k tiles an iteration, so that the buffer of each is a compile-time constant.
    auto tile = [&](auto cur_c, int t) {
        constexpr int cur = decltype(cur_c)::value;
        bool const more = t + 1 < k_tiles;
        bool const tail = t + 2 == k_tiles && k_last < 16;
#pragma unroll
        for (int part = 0; part < Parts; ++part) {
            V r[per];
            if (more) {
#pragma unroll
                for (int u = 0; u < per; ++u)
                    r[u] = tail ? st.load_tail(part * per + u, k_last) : st.load(part * per + u);
            }
#pragma unroll
            for (int kk = part * steps; kk < (part + 1) * steps; ++kk) step(cur, kk);
            if (more) {
#pragma unroll
                for (int u = 0; u < per; ++u)
                    st.store(as[cur ^ 1], bs[cur ^ 1], part * per + u, r[u]);
            }
        }
        if (more) st.advance();
        __syncthreads();
    };
    for (int t = 0; t < k_tiles; t += 2) {
        tile(std::integral_constant<int, 0>{}, t);
        if (t + 1 < k_tiles) tile(std::integral_constant<int, 1>{}, t + 1);
    }
}

// fp32 needs registers for its FADD results: stage a quarter tile at a time there.
template <class T>
inline constexpr int stage_parts = std::is_same_v<T, float> ? 4 : 2;

// ------------------------------------------------------------------------------------------------
// fast: base's tiles and thread layout, plus an interior fast path. A block whose 128 x 128 tile
// lies inside C, given 16-byte-loadable rows (Vec, checked on the host), loads each whole k tile
// with 4 LDG.128 a thread through incrementally advanced pointers, no bounds checks (vec_stager /
// staged_loop), then a partial last k tile (K % 16 != 0) through checked loads, and stores C with
// STG.128. Edge blocks take a checked path (base's element mapping, same kernel, block-uniform
// branch). Fragments are read with explicit LDS.128. Any M, N, K.
// ------------------------------------------------------------------------------------------------
namespace fast {
constexpr int threads = 256;
constexpr int bm = 128;
constexpr int bn = 128;
constexpr int bk = 16;
constexpr int a_pad = 4;

// Interior = true: a 2D grid over the fx x fy whole 128 x 128 tiles of C (rows 16-byte loadable).
// Interior = false: every load checked; a 1D grid over the blocks outside those tiles: first the
// right strip (columns fx.., all rows), then the bottom strip (rows fy.., columns < fx); with
// fx = fy = 0 that is all of C. Two kernels rather than one with a branch: with both paths in
// one kernel ptxas spilled 30-70 bytes in fp32 (8 bytes apart).
template <class T, bool Interior>
__global__ void __launch_bounds__(threads, 2)
    kernel(T const* __restrict__ a, i64 lda, T const* __restrict__ b, i64 ldb, T* __restrict__ c,
           i64 ldc, int m, int n, int k, int fx, int fy) {
    using E = elem<T>;
    __shared__ __align__(16) T as[2][bk][bm + a_pad];
    __shared__ __align__(16) T bs[2][bk][bn];

    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 16;
    int const ty = tid / 16;
    int bx = static_cast<int>(blockIdx.x);
    int by = static_cast<int>(blockIdx.y);
    if constexpr (!Interior) {
        int const ex = (n + bn - 1) / bn - fx;
        int const gy = (m + bm - 1) / bm;
        int id = static_cast<int>(blockIdx.x);
        if (id < ex * gy) {
            bx = fx + id % ex;
            by = id / ex;
        } else {
            id -= ex * gy;
            bx = id % fx;
            by = fy + id / fx;
        }
    }
    int const m0 = by * bm;
    int const n0 = bx * bn;

    T acc[8][8];
    fill_acc(acc);

    auto step = [&](int buf, int kk) {
        T fa[8];
        T fb[8];
        T const* pa = &as[buf][kk][0] + ty * 4;
        T const* pb = &bs[buf][kk][0] + tx * 4;
        ld4(fa, pa);
        ld4(fa + 4, pa + 64);
        ld4(fb, pb);
        ld4(fb + 4, pb + 64);
        outer(acc, fa, fb);
    };

    // Checked loads (base's element mapping), split like staged_loop: A's 8 values are loaded at
    // the start of a k tile and stored after step 8, B's then and stored at the end, so only 8
    // staging registers are live (base keeps 16 and spills in fp32).
    constexpr int a_loads = bm * bk / threads;
    constexpr int a_step = threads / bk;
    constexpr int b_loads = bn * bk / threads;
    constexpr int b_chunks = bn / 32;
    constexpr int b_step = threads / 32;
    static_assert(a_loads == 8 && b_loads == 8);
    int const a_col = tid % bk;
    int const a_row = tid / bk;
    int const b_col = tid % 32;
    int const b_row = tid / 32;
    T r8[8];
    auto load_a = [&](int k0) {
#pragma unroll
        for (int i = 0; i < a_loads; ++i) {
            int const r = m0 + a_row + a_step * i;
            int const ka = k0 + a_col;
            r8[i] = (r < m && ka < k) ? a[r * lda + ka] : E::inf();
        }
    };
    auto load_b = [&](int k0) {
#pragma unroll
        for (int i = 0; i < b_loads; ++i) {
            int const kb = k0 + b_row + b_step * (i / b_chunks);
            int const col = n0 + b_col + 32 * (i % b_chunks);
            r8[i] = (kb < k && col < n) ? b[kb * ldb + col] : E::inf();
        }
    };
    auto store_a = [&](int buf) {
#pragma unroll
        for (int i = 0; i < a_loads; ++i) as[buf][a_col][a_row + a_step * i] = r8[i];
    };
    auto store_b = [&](int buf) {
#pragma unroll
        for (int i = 0; i < b_loads; ++i)
            bs[buf][b_row + b_step * (i / b_chunks)][b_col + 32 * (i % b_chunks)] = r8[i];
    };

    if constexpr (Interior) {
        vec_stager<T> st(a, lda, b, ldb, m0, n0, tid);
        staged_loop<T, stage_parts<T>>(st, as, bs, k, step);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            T* row = c + (m0 + tile_offset(ty, i)) * ldc + n0;
            st4(row + tx * 4, acc[i]);
            st4(row + 64 + tx * 4, acc[i] + 4);
        }
    } else {
        int const k_tiles = (k + bk - 1) / bk;
        if (k_tiles > 0) {
            load_a(0);
            store_a(0);
            load_b(0);
            store_b(0);
        }
        __syncthreads();
        for (int t = 0; t < k_tiles; ++t) {
            int const cur = t & 1;
            bool const more = t + 1 < k_tiles;
            int const k_next = (t + 1) * bk;
            int const k_left = k - t * bk;
            if (more) load_a(k_next);
            if (k_left >= bk) {
#pragma unroll
                for (int kk = 0; kk < bk / 2; ++kk) step(cur, kk);
                if (more) {
                    store_a(cur ^ 1);
                    load_b(k_next);
                }
#pragma unroll
                for (int kk = bk / 2; kk < bk; ++kk) step(cur, kk);
            } else {
                // Last tile (more is false).
#pragma unroll 1
                for (int kk = 0; kk < k_left; ++kk) step(cur, kk);
            }
            if (more) store_b(cur ^ 1);
            __syncthreads();
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            int const r = m0 + tile_offset(ty, i);
            if (r >= m) continue;
            T* row = c + r * ldc;
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                int const col = n0 + tile_offset(tx, j);
                if (col >= n) continue;
                row[col] = acc[i][j];
            }
        }
    }
}
}  // namespace fast

// cp.async copies of one k tile of a Rows x Cols row-major global tile into a shared tile of row
// pitch Cols (Cols a multiple of 64): thread tid takes rows tid / 16 + 16 r and columns
// (tid % 16) * 4 + 64 c, so that a warp reads 2 x 256 contiguous bytes a pass and every chunk of
// a thread is an immediate offset from one pointer (plus 16 ld per extra row pass): few registers.
template <class T, int Rows, int Cols, int Threads = 256>
struct kmajor_copier {
    static_assert(Threads == 256 && Rows % 16 == 0 && Cols % 64 == 0);
    T const* g;
    i64 ld;
    unsigned s;  // byte offset of the thread's first chunk in the tile
    __device__ __forceinline__ kmajor_copier(T const* tile0, i64 ld_, int tid) : ld(ld_) {
        int const row = tid / 16;
        int const col = (tid % 16) * 4;
        g = tile0 + row * ld + col;
        s = static_cast<unsigned>((row * Cols + col) * sizeof(T));
    }
    // Issues the copies into the tile at shared byte address dst, then moves down Rows rows.
    __device__ __forceinline__ void issue(unsigned dst) {
#pragma unroll
        for (int r = 0; r < Rows / 16; ++r)
#pragma unroll
            for (int c = 0; c < Cols / 64; ++c)
                cp_async16(dst + s + (r * 16 * Cols + c * 64) * sizeof(T),
                           g + r * 16 * ld + c * 64);
        g += Rows * ld;
    }
};

// The same for an m-major A tile, 128 rows x 16 k into shared rows of pitch 20: thread tid
// takes row tid / 4 (+ 64) and k (tid % 4) * 4, so a warp reads 8 rows x 64 contiguous bytes.
// (A lane pair per row, 32 bytes, ran 5% slower.)
template <class T, int BK>
struct mmajor_copier {
    static_assert(BK == 16);
    T const* g;
    i64 ld;
    unsigned s;
    __device__ __forceinline__ mmajor_copier(T const* tile0, i64 ld_, int tid) : ld(ld_) {
        int const row = tid / 4;
        int const col = (tid % 4) * 4;
        g = tile0 + row * ld + col;
        s = static_cast<unsigned>((row * (BK + 4) + col) * sizeof(T));
    }
    __device__ __forceinline__ void issue(unsigned dst) {
        cp_async16(dst + s, g);
        cp_async16(dst + s + 64 * (BK + 4) * sizeof(T), g + 64 * ld);
        g += BK;
    }
};

// ------------------------------------------------------------------------------------------------
// async: cp.async (16-byte, .cg) multi-stage pipeline into dynamic shared memory, no register
// staging; one __syncthreads per k tile. 128 x 128 block tile, 256 threads, 8 x 8 per thread
// (base's layout), 2 blocks/SM. Lab only: M, N multiples of 128, K of BK, 16-byte rows.
//   AT = false ("async"): A stays m-major in shared memory (row pitch BK + 4 words, so the two
//     rows a warp reads per LDS.128 sit in different bank quads); a thread reads 8 rows x 4 k with
//     8 LDS.128 per 4 k steps (int32), or 8 rows x 2 k with 8 LDS.64 per 2 k steps (fp32, whose
//     FADD results need the registers).
//   AT = true ("asyncT"): A is first transposed on the device (timed with the product); both tiles
//     are then k-major rows copied straight, and fragments are read as in base.
//   Min3 ("min3", with AT): two k steps per update through upd2 (one 3-input min per two updates;
//     fp32 through the bit patterns, which needs non-negative inputs: the lab's are).
//   T = u32 (int16 asyncT / asyncT32): words of two int16 columns; A^T holds dup16(A(i, k)), so
//     the loop is int32's with VIADDMNMX.S16x2 (a block covers 128 rows x 256 int16 columns).
// ------------------------------------------------------------------------------------------------
namespace async {
constexpr int threads = 256;
constexpr int bm = 128;
constexpr int bn = 128;

template <bool AT, int BK>
struct cfg {
    static constexpr int a_elems = AT ? BK * bm : bm * (BK + 4);
    static constexpr int b_elems = BK * bn;
    static constexpr int stage_elems = a_elems + b_elems;
};

template <class T, bool AT, bool Min3, int BK, int Stages>
__global__ void __launch_bounds__(threads, 2)
    kernel(T const* __restrict__ a, i64 lda, T const* __restrict__ b, i64 ldb, T* __restrict__ c,
           i64 ldc, int /*m*/, int /*n*/, int k) {
    using C = cfg<AT, BK>;
    static_assert(BK % 4 == 0 && (bm * BK / 4) % threads == 0);
    static_assert(!Min3 || AT);
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* const smem = reinterpret_cast<T*>(smem_raw);

    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 16;
    int const ty = tid / 16;
    int const m0 = static_cast<int>(blockIdx.y) * bm;
    int const n0 = static_cast<int>(blockIdx.x) * bn;

    using a_copier = std::conditional_t<AT, kmajor_copier<T, BK, bm>, mmajor_copier<T, BK>>;
    a_copier ca(AT ? a + m0 : a + m0 * lda, lda, tid);
    kmajor_copier<T, BK, bn> cb(b + n0, ldb, tid);
    unsigned const s0 = smem_u32(smem);
    constexpr unsigned stage_bytes = C::stage_elems * sizeof(T);
    auto issue = [&](int stage) {
        unsigned const base = s0 + stage * stage_bytes;
        ca.issue(base);
        cb.issue(base + C::a_elems * sizeof(T));
    };

    T acc[8][8];
    fill_acc(acc);

    auto compute = [&](int stage) {
        T const* const sA = smem + stage * C::stage_elems;
        T const* const sB = sA + C::a_elems;
        if constexpr (AT && !Min3) {
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                T fa[8];
                T fb[8];
                ld4(fa, sA + kk * bm + ty * 4);
                ld4(fa + 4, sA + kk * bm + 64 + ty * 4);
                ld4(fb, sB + kk * bn + tx * 4);
                ld4(fb + 4, sB + kk * bn + 64 + tx * 4);
                outer(acc, fa, fb);
            }
        } else if constexpr (AT && Min3) {
#pragma unroll
            for (int kk = 0; kk < BK; kk += 2) {
                T fa0[8], fb0[8], fa1[8], fb1[8];
                ld4(fa0, sA + kk * bm + ty * 4);
                ld4(fa0 + 4, sA + kk * bm + 64 + ty * 4);
                ld4(fb0, sB + kk * bn + tx * 4);
                ld4(fb0 + 4, sB + kk * bn + 64 + tx * 4);
                ld4(fa1, sA + (kk + 1) * bm + ty * 4);
                ld4(fa1 + 4, sA + (kk + 1) * bm + 64 + ty * 4);
                ld4(fb1, sB + (kk + 1) * bn + tx * 4);
                ld4(fb1 + 4, sB + (kk + 1) * bn + 64 + tx * 4);
                outer2(acc, fa0, fb0, fa1, fb1);
            }
        } else {
            // fp32 needs registers for the FADD results: read 2 k values (LDS.64) per row there.
            constexpr int kg = std::is_same_v<T, float> ? 2 : 4;
#pragma unroll
            for (int kq = 0; kq < BK; kq += kg) {
                T fa[8][kg];
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    T const* src = sA + tile_offset(ty, i) * (BK + 4) + kq;
                    if constexpr (kg == 4) {
                        ld4(fa[i], src);
                    } else {
                        float2 const v = *reinterpret_cast<float2 const*>(src);
                        fa[i][0] = v.x;
                        fa[i][1] = v.y;
                    }
                }
#pragma unroll
                for (int kk = 0; kk < kg; ++kk) {
                    T fb[8];
                    ld4(fb, sB + (kq + kk) * bn + tx * 4);
                    ld4(fb + 4, sB + (kq + kk) * bn + 64 + tx * 4);
                    T col[8];
#pragma unroll
                    for (int i = 0; i < 8; ++i) col[i] = fa[i][kk];
                    outer(acc, col, fb);
                }
            }
        }
    };

    int const k_tiles = k / BK;
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
        if (s < k_tiles) issue(s);
        cp_async_commit();
    }
    int rd = 0;
    int wr = Stages - 1;
    for (int t = 0; t < k_tiles; ++t) {
        cp_async_wait<Stages - 2>();
        __syncthreads();  // tile t visible to all; stage wr (tile t - 1) no longer read
        if (t + Stages - 1 < k_tiles) issue(wr);
        cp_async_commit();
        compute(rd);
        rd = rd + 1 == Stages ? 0 : rd + 1;
        wr = wr + 1 == Stages ? 0 : wr + 1;
    }

    if constexpr (std::is_same_v<T, u32>) {  // int16 pairs: canonical infinity
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[i][j] = elem<u32>::finish(acc[i][j]);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        T* row = c + (m0 + tile_offset(ty, i)) * ldc + n0;
        st4(row + tx * 4, acc[i]);
        st4(row + 64 + tx * 4, acc[i] + 4);
    }
}
}  // namespace async

// ------------------------------------------------------------------------------------------------
// wide: 16 x 8 per thread (128 accumulators), block 256 x 128, 256 threads, 1 block/SM (8 warps),
// A transposed first (timed), cp.async pipeline of Stages k tiles as in asyncT. Per k: 4 + 2
// LDS.128 for 128 updates (base: 4 for 64). Lab only: M % 256, N % 128, K % BK.
// ------------------------------------------------------------------------------------------------
namespace wide {
constexpr int threads = 256;
constexpr int bm = 256;
constexpr int bn = 128;

template <int BK>
struct cfg {
    static constexpr int a_elems = BK * bm;
    static constexpr int b_elems = BK * bn;
    static constexpr int stage_elems = a_elems + b_elems;
};

template <class T, int BK, int Stages>
__global__ void __launch_bounds__(threads, 1)
    kernel(T const* __restrict__ at, i64 ldat, T const* __restrict__ b, i64 ldb,
           T* __restrict__ c, i64 ldc, int /*m*/, int /*n*/, int k) {
    using C = cfg<BK>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* const smem = reinterpret_cast<T*>(smem_raw);

    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 16;
    int const ty = tid / 16;
    int const m0 = static_cast<int>(blockIdx.y) * bm;
    int const n0 = static_cast<int>(blockIdx.x) * bn;

    kmajor_copier<T, BK, bm> ca(at + m0, ldat, tid);
    kmajor_copier<T, BK, bn> cb(b + n0, ldb, tid);
    unsigned const s0 = smem_u32(smem);
    constexpr unsigned stage_bytes = C::stage_elems * sizeof(T);
    auto issue = [&](int stage) {
        unsigned const base = s0 + stage * stage_bytes;
        ca.issue(base);
        cb.issue(base + C::a_elems * sizeof(T));
    };

    T acc[16][8];
    fill_acc(acc);
    auto compute = [&](int stage) {
        T const* const sA = smem + stage * C::stage_elems;
        T const* const sB = sA + C::a_elems;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            T fa[16];
            T fb[8];
#pragma unroll
            for (int q = 0; q < 4; ++q) ld4(fa + 4 * q, sA + kk * bm + 64 * q + ty * 4);
            ld4(fb, sB + kk * bn + tx * 4);
            ld4(fb + 4, sB + kk * bn + 64 + tx * 4);
            outer(acc, fa, fb);
        }
    };

    int const k_tiles = k / BK;
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
        if (s < k_tiles) issue(s);
        cp_async_commit();
    }
    int rd = 0;
    int wr = Stages - 1;
    for (int t = 0; t < k_tiles; ++t) {
        cp_async_wait<Stages - 2>();
        __syncthreads();
        if (t + Stages - 1 < k_tiles) issue(wr);
        cp_async_commit();
        compute(rd);
        rd = rd + 1 == Stages ? 0 : rd + 1;
        wr = wr + 1 == Stages ? 0 : wr + 1;
    }

#pragma unroll
    for (int i = 0; i < 16; ++i) {
        T* row = c + (m0 + 64 * (i / 4) + ty * 4 + (i % 4)) * ldc + n0;
        st4(row + tx * 4, acc[i]);
        st4(row + 64 + tx * 4, acc[i] + 4);
    }
}
}  // namespace wide

// ------------------------------------------------------------------------------------------------
// warp: CUTLASS-SIMT-like warp tiling. Block 128 x 128 x 16, 8 warps as 4 (m) x 2 (n), warp tile
// 32 x 64, lanes 4 (m) x 8 (n), lane tile 8 x 8 as 2 x 2 quadrants of 4 x 4 (rows lm*4 + {0..3}
// and +16, columns ln*4 + {0..3} and +32). Each LDS.128 of a warp touches 4 (A) or 8 (B)
// contiguous 16-byte words: one shared-memory wavefront each (base: 1 for A, 2 for B). Global
// loads as fast's interior path (LDG.128, register staging, conflict-free transposing stores),
// 2 blocks/SM. Lab only: M, N multiples of 128, K of 16, 16-byte rows.
// ------------------------------------------------------------------------------------------------
namespace warp {
constexpr int threads = 256;
constexpr int bm = 128;
constexpr int bn = 128;
constexpr int bk = 16;
constexpr int a_pad = 4;

template <class T>
__global__ void __launch_bounds__(threads, 2)
    kernel(T const* __restrict__ a, i64 lda, T const* __restrict__ b, i64 ldb, T* __restrict__ c,
           i64 ldc, int /*m*/, int /*n*/, int k) {
    __shared__ __align__(16) T as[2][bk][bm + a_pad];
    __shared__ __align__(16) T bs[2][bk][bn];

    int const tid = static_cast<int>(threadIdx.x);
    int const lane = tid % 32;
    int const warp = tid / 32;
    int const m0 = static_cast<int>(blockIdx.y) * bm;
    int const n0 = static_cast<int>(blockIdx.x) * bn;
    int const row0 = (warp >> 1) * 32 + (lane >> 3) * 4;  // + {0..3}, + 16 + {0..3}
    int const col0 = (warp & 1) * 64 + (lane & 7) * 4;    // + {0..3}, + 32 + {0..3}

    T acc[8][8];
    fill_acc(acc);

    auto step = [&](int buf, int kk) {
        T fa[8];
        T fb[8];
        ld4(fa, &as[buf][kk][row0]);
        ld4(fa + 4, &as[buf][kk][row0 + 16]);
        ld4(fb, &bs[buf][kk][col0]);
        ld4(fb + 4, &bs[buf][kk][col0 + 32]);
        outer(acc, fa, fb);
    };

    vec_stager<T> st(a, lda, b, ldb, m0, n0, tid);
    staged_loop<T, stage_parts<T>>(st, as, bs, k, step);

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        T* row = c + (m0 + row0 + (i & 3) + (i < 4 ? 0 : 16)) * ldc + n0;
        st4(row + col0, acc[i]);
        st4(row + col0 + 32, acc[i] + 4);
    }
}
}  // namespace warp

// ------------------------------------------------------------------------------------------------
// mbar: no __syncthreads in the main loop. A transposed first (timed); cp.async into Stages
// shared stages; each stage has a "full" mbarrier (256 cp.async.mbarrier.arrive.noinc, one a
// thread, complete when every thread's copies have landed) and an "empty" mbarrier (256 plain
// arrives after the stage was read). Tile t + Dist is issued while tile t is computed, so a warp
// may run up to Stages - Dist tiles ahead of the slowest warp instead of meeting it at a barrier
// every tile. Warp tiling as in "warp". 2 blocks/SM. Lab only: M, N % 128, K % BK. Min3 ("mbar3"):
// two k steps per update through upd2, as in min3.
// ------------------------------------------------------------------------------------------------
namespace mbar {
constexpr int threads = 256;
constexpr int bm = 128;
constexpr int bn = 128;

template <int BK>
struct cfg {
    static constexpr int a_elems = BK * bm;
    static constexpr int b_elems = BK * bn;
    static constexpr int stage_elems = a_elems + b_elems;
};

template <class T, bool Min3, int BK, int Stages, int Dist>
__global__ void __launch_bounds__(threads, 2)
    kernel(T const* __restrict__ at, i64 ldat, T const* __restrict__ b, i64 ldb,
           T* __restrict__ c, i64 ldc, int /*m*/, int /*n*/, int k) {
    static_assert((Stages & (Stages - 1)) == 0 && Dist >= 1 && Dist < Stages);
    static_assert(BK % 2 == 0);
    using C = cfg<BK>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* const smem = reinterpret_cast<T*>(smem_raw);
    unsigned const s0 = smem_u32(smem);
    constexpr unsigned stage_bytes = C::stage_elems * sizeof(T);
    unsigned const full0 = s0 + Stages * stage_bytes;  // Stages x 8 bytes, then empty
    unsigned const empty0 = full0 + Stages * 8;

    int const tid = static_cast<int>(threadIdx.x);
    int const lane = tid % 32;
    int const warp = tid / 32;
    int const m0 = static_cast<int>(blockIdx.y) * bm;
    int const n0 = static_cast<int>(blockIdx.x) * bn;
    int const row0 = (warp >> 1) * 32 + (lane >> 3) * 4;
    int const col0 = (warp & 1) * 64 + (lane & 7) * 4;

    if (tid == 0) {
#pragma unroll
        for (int s = 0; s < Stages; ++s) {
            mbar_init(full0 + 8 * s, threads);
            mbar_init(empty0 + 8 * s, threads);
        }
    }
    __syncthreads();

    kmajor_copier<T, BK, bm> ca(at + m0, ldat, tid);
    kmajor_copier<T, BK, bn> cb(b + n0, ldb, tid);

    // Issues tile tp into stage tp % Stages, first waiting until every thread has read the tile
    // that stage held (tp - Stages).
    auto produce = [&](int tp) {
        int const s = tp & (Stages - 1);
        if (tp >= Stages) mbar_wait(empty0 + 8 * s, ((tp / Stages) - 1) & 1);
        unsigned const base = s0 + s * stage_bytes;
        ca.issue(base);
        cb.issue(base + C::a_elems * sizeof(T));
        cp_async_mbar_arrive(full0 + 8 * s);
    };

    T acc[8][8];
    fill_acc(acc);

    int const k_tiles = k / BK;
    for (int t = 0; t < Dist && t < k_tiles; ++t) produce(t);
    for (int t = 0; t < k_tiles; ++t) {
        if (t + Dist < k_tiles) produce(t + Dist);
        int const s = t & (Stages - 1);
        mbar_wait(full0 + 8 * s, (t / Stages) & 1);
        T const* const sA = smem + s * C::stage_elems;
        T const* const sB = sA + C::a_elems;
        if constexpr (Min3) {
#pragma unroll
            for (int kk = 0; kk < BK; kk += 2) {
                T fa0[8], fb0[8], fa1[8], fb1[8];
                ld4(fa0, sA + kk * bm + row0);
                ld4(fa0 + 4, sA + kk * bm + row0 + 16);
                ld4(fb0, sB + kk * bn + col0);
                ld4(fb0 + 4, sB + kk * bn + col0 + 32);
                ld4(fa1, sA + (kk + 1) * bm + row0);
                ld4(fa1 + 4, sA + (kk + 1) * bm + row0 + 16);
                ld4(fb1, sB + (kk + 1) * bn + col0);
                ld4(fb1 + 4, sB + (kk + 1) * bn + col0 + 32);
                outer2(acc, fa0, fb0, fa1, fb1);
            }
        } else {
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                T fa[8];
                T fb[8];
                ld4(fa, sA + kk * bm + row0);
                ld4(fa + 4, sA + kk * bm + row0 + 16);
                ld4(fb, sB + kk * bn + col0);
                ld4(fb + 4, sB + kk * bn + col0 + 32);
                outer(acc, fa, fb);
            }
        }
        mbar_arrive(empty0 + 8 * s);
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        T* row = c + (m0 + row0 + (i & 3) + (i < 4 ? 0 : 16)) * ldc + n0;
        st4(row + col0, acc[i]);
        st4(row + col0 + 32, acc[i] + 4);
    }
}
}  // namespace mbar

// ------------------------------------------------------------------------------------------------
// Helpers: transpose, inputs, reference, comparison
// ------------------------------------------------------------------------------------------------

// out (cols x rows, leading dimension ldo) = convert(in)^T (in: rows x cols, leading dimension
// ldi), entry by entry.
struct same_value {
    template <class T>
    __device__ T operator()(T v) const { return v; }
};
// int16 -> both halves of a word: the broadcast operand of __viaddmin_s16x2.
struct dup_value {
    __device__ u32 operator()(i16 v) const { return dup16(v); }
};
template <class In, class Out, class Convert = same_value>
__global__ void transpose_kernel(In const* __restrict__ in, i64 ldi, Out* __restrict__ out,
                                 i64 ldo, int rows, int cols) {
    __shared__ Out tile[32][33];
    int const c0 = static_cast<int>(blockIdx.x) * 32;
    int const r0 = static_cast<int>(blockIdx.y) * 32;
    int const tx = static_cast<int>(threadIdx.x);
    for (int j = static_cast<int>(threadIdx.y); j < 32; j += 8) {
        int const r = r0 + j;
        int const cc = c0 + tx;
        if (r < rows && cc < cols) tile[j][tx] = Convert{}(in[r * ldi + cc]);
    }
    __syncthreads();
    for (int j = static_cast<int>(threadIdx.y); j < 32; j += 8) {
        int const orow = c0 + j;
        int const ocol = r0 + tx;
        if (orow < cols && ocol < rows) out[orow * ldo + ocol] = tile[tx][j];
    }
}

template <class T>
void launch_transpose(T const* in, T* out, int n, cudaStream_t st) {
    dim3 const grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((n + 31) / 32));
    transpose_kernel<T, T><<<grid, dim3(32, 8), 0, st>>>(in, n, out, n, n, n);
}

// int16 A (n x n) -> out (n x n words, k-major): out[k * n + i] = dup16(A(i, k)). Reads n^2
// int16, writes n^2 words (~0.1 ms at n = 8192).
void launch_dup_transpose(i16 const* in, u32* out, int n, cudaStream_t st) {
    dim3 const grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((n + 31) / 32));
    transpose_kernel<i16, u32, dup_value><<<grid, dim3(32, 8), 0, st>>>(in, n, out, n, n, n);
}

__host__ __device__ inline std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Values 1..1000, 5% infinity (+inf / int_inf / s16_inf). inf_rows > 0 (int16's A): every
// inf_rows-th row (of n) entirely infinite, so that some results are "no path".
template <class T>
__global__ void fill_kernel(T* p, std::size_t count, std::uint64_t seed, int n = 0,
                            int inf_rows = 0) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        std::uint64_t const r = mix(i + seed);
        bool const inf_row = inf_rows > 0 && (i / n) % inf_rows == inf_rows - 1;
        p[i] = inf_row || r % 20 == 0 ? elem<T>::inf() : static_cast<T>(1 + (r >> 32) % 1000);
    }
}

// One thread per output, plain min(r, a + b) (no DPX, no fminf). int16: sums in int32 (exact,
// no 16-bit arithmetic), then canonicalized like the int16 kernels' results.
template <class T>
__global__ void reference_kernel(T const* __restrict__ a, T const* __restrict__ b,
                                 T* __restrict__ c, int n) {
    int const col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    int const row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (row >= n || col >= n) return;
    constexpr bool s16 = std::is_same_v<T, i16>;
    using S = std::conditional_t<s16, i32, T>;
    T const* ar = a + static_cast<i64>(row) * n;
    T const* bc = b + col;
    S r = s16 ? S(s16_inf) : S(elem<T>::inf());
    for (int kk = 0; kk < n; ++kk) {
        S const s = S(ar[kk]) + S(bc[static_cast<i64>(kk) * n]);
        r = s < r ? s : r;
    }
    if constexpr (s16) r = r >= s16_threshold ? s16_inf : r;
    c[static_cast<i64>(row) * n + col] = static_cast<T>(r);
}

// out[0] += mismatches, out[1] = min(first mismatching index).
template <class T>
__global__ void compare_kernel(T const* __restrict__ x, T const* __restrict__ ref,
                               std::size_t count, unsigned long long* out) {
    unsigned long long local = 0;
    unsigned long long first = ~0ull;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        if (!elem<T>::same(x[i], ref[i])) {
            ++local;
            first = first < i ? first : i;
        }
    }
    if (local) {
        atomicAdd(&out[0], local);
        atomicMin(&out[1], first);
    }
}

// ------------------------------------------------------------------------------------------------
// Register-resident ceilings, measured in the same run (every update has its own add; one
// operand advances by one add per step so that nothing can be hoisted):
//   0: fp32 FADD + FMNMX, 24 accumulators; 1: int32 VIADDMNMX, 24 accumulators;
//   2: fp32 FADD + FADD + VIMNMX3 (two updates), 16 accumulators. Not a ceiling: measured at
//      15.0 T on an H200 while the min3 GEMMs ran at 16.0 (issue ~70%; VIMNMX3 reads 3 fresh
//      registers, none from the reuse cache); the pipes would allow about 21 T.
//   3: int16x2 __viaddmin_s16x2 (VIADDMNMX.S16x2, two updates each), 24 accumulator words.
// ------------------------------------------------------------------------------------------------
constexpr int ceiling_updates_per_step(int mode) {
    return mode == 2 ? 32 : mode == 3 ? 48 : 24;
}

template <int Mode>
__global__ void __launch_bounds__(256, 4) ceiling_kernel(float* out, int iters) {
    int const tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if constexpr (Mode == 3) {
        u32 r[24];
        u32 a[24];
#pragma unroll
        for (int i = 0; i < 24; ++i) {
            a[i] = dup16((tid + 7 * i) % 1000 + 1);
            r[i] = dup16(s16_inf);
        }
        u32 b = dup16(tid % 13);
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
#pragma unroll
            for (int u = 0; u < 4; ++u) {
#pragma unroll
                for (int i = 0; i < 24; ++i) r[i] = __viaddmin_s16x2(a[i], b, r[i]);
                b += 0x00030003u;  // both halves + 3 (wraps: values do not matter here)
            }
        }
        u32 sum = 0;
#pragma unroll
        for (int i = 0; i < 24; ++i) sum ^= r[i];
        out[tid] = static_cast<float>(sum);
    } else if constexpr (Mode == 1) {
        i32 r[24];
        i32 a[24];
#pragma unroll
        for (int i = 0; i < 24; ++i) {
            a[i] = (tid + 7 * i) % 1000 + 1;
            r[i] = int_inf;
        }
        i32 b = tid % 13;
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
#pragma unroll
            for (int u = 0; u < 4; ++u) {
#pragma unroll
                for (int i = 0; i < 24; ++i) r[i] = __viaddmin_s32(a[i], b, r[i]);
                b += 3;
            }
        }
        i32 sum = 0;
#pragma unroll
        for (int i = 0; i < 24; ++i) sum ^= r[i];
        out[tid] = static_cast<float>(sum);
    } else if constexpr (Mode == 0) {
        float r[24];
        float a[24];
#pragma unroll
        for (int i = 0; i < 24; ++i) {
            a[i] = static_cast<float>((tid + 7 * i) % 1000 + 1);
            r[i] = __int_as_float(0x7f800000);
        }
        float b = static_cast<float>(tid % 13);
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
#pragma unroll
            for (int u = 0; u < 4; ++u) {
#pragma unroll
                for (int i = 0; i < 24; ++i) r[i] = fminf(r[i], a[i] + b);
                b += 1.0f;
            }
        }
        float sum = 0;
#pragma unroll
        for (int i = 0; i < 24; ++i) sum += r[i];
        out[tid] = sum;
    } else {
        float r[16];
        float a[32];
#pragma unroll
        for (int i = 0; i < 32; ++i) a[i] = static_cast<float>((tid + 7 * i) % 1000 + 1);
#pragma unroll
        for (int i = 0; i < 16; ++i) r[i] = __int_as_float(0x7f800000);
        float b = static_cast<float>(tid % 13);
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
#pragma unroll
            for (int u = 0; u < 4; ++u) {
#pragma unroll
                for (int i = 0; i < 16; ++i)
                    r[i] = elem<float>::upd2(r[i], a[i], b, a[i + 16], b);
                b += 1.0f;
            }
        }
        float sum = 0;
#pragma unroll
        for (int i = 0; i < 16; ++i) sum += r[i];
        out[tid] = sum;
    }
}

// ------------------------------------------------------------------------------------------------
// Variants (host side)
// ------------------------------------------------------------------------------------------------

template <class T>
struct args {
    T const* a;
    T const* b;
    T* c;
    T* work;  // n x n scratch (A transposed)
    int n;
    cudaStream_t st;
};

bool vec_ok(void const* p, int ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
}

template <class T>
struct v_base {
    static constexpr char const* name = "base";
    static void const* kernel() { return reinterpret_cast<void const*>(&base::kernel<T>); }
    static constexpr int threads = base::threads;
    static constexpr std::size_t smem = 0;
    static std::string unsupported(args<T> const&) { return {}; }
    static void launch(args<T> const& x) {
        dim3 const grid(static_cast<unsigned>((x.n + 127) / 128),
                        static_cast<unsigned>((x.n + 127) / 128));
        base::kernel<T><<<grid, threads, 0, x.st>>>(x.a, x.n, x.b, x.n, x.c, x.n, x.n, x.n, x.n);
    }
};

// Interior kernel over the whole 128 x 128 tiles; the checked kernel over the rest (one launch,
// on a second stream so that it runs beside the interior kernel, joined back by an event); all
// checked when rows are not 16-byte loadable or K * ldb >= 2^32.
template <class T>
struct v_fast {
    static constexpr char const* name = "fast";
    static void const* kernel() { return reinterpret_cast<void const*>(&fast::kernel<T, true>); }
    static constexpr int threads = fast::threads;
    static constexpr std::size_t smem = 0;
    static std::string unsupported(args<T> const&) { return {}; }
    static void launch(args<T> const& x) {
        static cudaStream_t side = nullptr;
        static cudaEvent_t fork = nullptr;
        static cudaEvent_t join = nullptr;
        if (!side) {
            CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
            CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
            CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
        }
        int const m = x.n, n = x.n, k = x.n;
        int const lda = x.n, ldb = x.n, ldc = x.n;
        int const gx = (n + 127) / 128;
        int const gy = (m + 127) / 128;
        bool const offsets_fit = std::size_t(k) * ldb < (std::size_t(1) << 32);
        bool const vec = vec_ok(x.a, lda) && vec_ok(x.b, ldb) && vec_ok(x.c, ldc) && offsets_fit;
        int const fx = vec ? n / 128 : 0;
        int const fy = vec ? m / 128 : 0;
        int const edge = gx * gy - fx * fy;
        bool const both = fx * fy > 0 && edge > 0;
        if (both) {
            CK(cudaEventRecord(fork, x.st));
            CK(cudaStreamWaitEvent(side, fork, 0));
        }
        if (edge > 0)
            fast::kernel<T, false><<<static_cast<unsigned>(edge), threads, 0, both ? side : x.st>>>(
                x.a, lda, x.b, ldb, x.c, ldc, m, n, k, fx, fy);
        if (fx * fy > 0)
            fast::kernel<T, true><<<dim3(static_cast<unsigned>(fx), static_cast<unsigned>(fy)),
                                    threads, 0, x.st>>>(x.a, lda, x.b, ldb, x.c, ldc, m, n, k, fx,
                                                        fy);
        if (both) {
            CK(cudaEventRecord(join, side));
            CK(cudaStreamWaitEvent(x.st, join, 0));
        }
    }
};

// async family: Name, AT, Min3, BK, Stages.
template <class T, bool AT, bool Min3, int BK, int Stages>
struct v_async_impl {
    static constexpr auto kern = &async::kernel<T, AT, Min3, BK, Stages>;
    static void const* kernel() { return reinterpret_cast<void const*>(kern); }
    static constexpr int threads = async::threads;
    static constexpr std::size_t smem =
        std::size_t(Stages) * async::cfg<AT, BK>::stage_elems * sizeof(T);
    static std::string unsupported(args<T> const& x) {
        if (x.n % 128 != 0 || x.n % BK != 0) return "needs n % 128 == 0";
        if (!vec_ok(x.a, x.n) || !vec_ok(x.b, x.n) || !vec_ok(x.c, x.n))
            return "needs 16-byte rows";
        return {};
    }
    static void launch(args<T> const& x) {
        dim3 const grid(static_cast<unsigned>(x.n / 128), static_cast<unsigned>(x.n / 128));
        T const* a = x.a;
        if constexpr (AT) {
            launch_transpose(x.a, x.work, x.n, x.st);
            a = x.work;
        }
        kern<<<grid, threads, smem, x.st>>>(a, x.n, x.b, x.n, x.c, x.n, x.n, x.n, x.n);
    }
};
template <class T>
struct v_async : v_async_impl<T, false, false, 16, 4> {
    static constexpr char const* name = "async";
};
template <class T>
struct v_asyncT : v_async_impl<T, true, false, 16, 4> {
    static constexpr char const* name = "asyncT";
};
template <class T>
struct v_min3 : v_async_impl<T, true, true, 16, 4> {
    static constexpr char const* name = "min3";
};
template <class T>
struct v_asyncT32 : v_async_impl<T, true, false, 32, 3> {
    static constexpr char const* name = "asyncT32";
};
template <class T>
struct v_min3_32 : v_async_impl<T, true, true, 32, 3> {
    static constexpr char const* name = "min3_32";
};

// int16 (T = i16 matrices): async's kernel on words of two int16 columns (T = u32 there): A
// dup-transposed into work (n x n words, timed), B and C read as n x n/2 words. Named like the
// int32 kernels they mirror. Lab only: n % 256 (128 rows x 128 words a block).
template <class T, int BK, int Stages>
struct v_s16_impl {
    static_assert(std::is_same_v<T, i16>);
    static constexpr auto kern = &async::kernel<u32, true, false, BK, Stages>;
    static void const* kernel() { return reinterpret_cast<void const*>(kern); }
    static constexpr int threads = async::threads;
    static constexpr std::size_t smem =
        std::size_t(Stages) * async::cfg<true, BK>::stage_elems * sizeof(u32);
    static std::string unsupported(args<T> const& x) {
        if (x.n % 256 != 0) return "needs n % 256 == 0";
        if (!vec_ok(x.a, x.n) || !vec_ok(x.b, x.n / 2) || !vec_ok(x.c, x.n / 2) ||
            !vec_ok(x.work, x.n))
            return "needs 16-byte rows";
        return {};
    }
    static void launch(args<T> const& x) {
        int const w = x.n / 2;  // words a row of B and C
        dim3 const grid(static_cast<unsigned>(w / async::bn),
                        static_cast<unsigned>(x.n / async::bm));
        u32* const at = reinterpret_cast<u32*>(x.work);
        launch_dup_transpose(x.a, at, x.n, x.st);
        kern<<<grid, threads, smem, x.st>>>(at, x.n, reinterpret_cast<u32 const*>(x.b), w,
                                            reinterpret_cast<u32*>(x.c), w, x.n, w, x.n);
    }
};
template <class T>
struct v_s16_asyncT : v_s16_impl<T, 16, 4> {
    static constexpr char const* name = "asyncT";
};
template <class T>
struct v_s16_asyncT32 : v_s16_impl<T, 32, 3> {
    static constexpr char const* name = "asyncT32";
};

template <class T>
struct v_wide {
    static constexpr char const* name = "wide";
    static constexpr int bk = 16;
    static constexpr int stages = 4;
    static constexpr auto kern = &wide::kernel<T, bk, stages>;
    static void const* kernel() { return reinterpret_cast<void const*>(kern); }
    static constexpr int threads = wide::threads;
    static constexpr std::size_t smem =
        std::size_t(stages) * wide::cfg<bk>::stage_elems * sizeof(T);
    static std::string unsupported(args<T> const& x) {
        if (x.n % 256 != 0) return "needs n % 256 == 0";
        if (!vec_ok(x.a, x.n) || !vec_ok(x.b, x.n) || !vec_ok(x.c, x.n))
            return "needs 16-byte rows";
        return {};
    }
    static void launch(args<T> const& x) {
        dim3 const grid(static_cast<unsigned>(x.n / wide::bn),
                        static_cast<unsigned>(x.n / wide::bm));
        launch_transpose(x.a, x.work, x.n, x.st);
        kern<<<grid, threads, smem, x.st>>>(x.work, x.n, x.b, x.n, x.c, x.n, x.n, x.n, x.n);
    }
};

template <class T>
struct v_warp {
    static constexpr char const* name = "warp";
    static void const* kernel() { return reinterpret_cast<void const*>(&warp::kernel<T>); }
    static constexpr int threads = warp::threads;
    static constexpr std::size_t smem = 0;
    static std::string unsupported(args<T> const& x) {
        if (x.n % 128 != 0) return "needs n % 128 == 0";
        if (!vec_ok(x.a, x.n) || !vec_ok(x.b, x.n) || !vec_ok(x.c, x.n))
            return "needs 16-byte rows";
        return {};
    }
    static void launch(args<T> const& x) {
        dim3 const grid(static_cast<unsigned>(x.n / 128), static_cast<unsigned>(x.n / 128));
        warp::kernel<T><<<grid, threads, 0, x.st>>>(x.a, x.n, x.b, x.n, x.c, x.n, x.n, x.n, x.n);
    }
};

template <class T, bool Min3>
struct v_mbar_impl {
    static constexpr int bk = 16;
    static constexpr int stages = 4;
    static constexpr int dist = 2;
    static constexpr auto kern = &mbar::kernel<T, Min3, bk, stages, dist>;
    static void const* kernel() { return reinterpret_cast<void const*>(kern); }
    static constexpr int threads = mbar::threads;
    static constexpr std::size_t smem =
        std::size_t(stages) * mbar::cfg<bk>::stage_elems * sizeof(T) + 2 * stages * 8;
    static std::string unsupported(args<T> const& x) {
        if (x.n % 128 != 0) return "needs n % 128 == 0";
        if (!vec_ok(x.a, x.n) || !vec_ok(x.b, x.n) || !vec_ok(x.c, x.n))
            return "needs 16-byte rows";
        return {};
    }
    static void launch(args<T> const& x) {
        dim3 const grid(static_cast<unsigned>(x.n / 128), static_cast<unsigned>(x.n / 128));
        launch_transpose(x.a, x.work, x.n, x.st);
        kern<<<grid, threads, smem, x.st>>>(x.work, x.n, x.b, x.n, x.c, x.n, x.n, x.n, x.n);
    }
};
template <class T>
struct v_mbar : v_mbar_impl<T, false> {
    static constexpr char const* name = "mbar";
};
template <class T>
struct v_mbar3 : v_mbar_impl<T, true> {
    static constexpr char const* name = "mbar3";
};

// ------------------------------------------------------------------------------------------------
// Harness
// ------------------------------------------------------------------------------------------------

struct result {
    std::string variant;
    std::string type;
    int n = 0;
    double ms = 0;
    double tps = 0;
    long long mismatches = -1;
    std::string note;
};
std::vector<result> results;

void print_table() {
    std::printf("\n%-8s %-6s %6s %10s %8s %11s  %s\n", "variant", "type", "n", "ms", "T/s",
                "mismatches", "note");
    for (auto const& r : results) {
        if (r.mismatches < 0)
            std::printf("%-8s %-6s %6d %10s %8s %11s  %s\n", r.variant.c_str(), r.type.c_str(),
                        r.n, "-", "-", "-", r.note.c_str());
        else
            std::printf("%-8s %-6s %6d %10.3f %8.2f %11lld  %s\n", r.variant.c_str(),
                        r.type.c_str(), r.n, r.ms, r.tps, r.mismatches, r.note.c_str());
    }
    std::fflush(stdout);
}

bool selected(char const* env, char const* name) {
    char const* list = std::getenv(env);
    if (!list || !*list) return true;
    std::string const l = std::string(",") + list + ",";
    return l.find(std::string(",") + name + ",") != std::string::npos;
}

int reps_from_env() {
    char const* v = std::getenv("LAB_REPS");
    int const r = v ? std::atoi(v) : 5;
    return r >= 1 && r <= 100 ? r : 5;
}

// A failure after a launch went through (an illegal address, say) leaves the context unusable:
// print what was measured and stop.
void sync_or_die(char const* what) {
    cudaError_t const e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        std::printf("FATAL: %s: %s\n", what, cudaGetErrorString(e));
        print_table();
        std::exit(1);
    }
}

template <class T>
struct buffers {
    T* a;
    T* b;
    T* c;
    T* ref;
    T* work;
    unsigned long long* counters;
};

template <class T, template <class> class V>
void run_variant(buffers<T> const& buf, int n, cudaStream_t st) {
    using VT = V<T>;
    result res;
    res.variant = VT::name;
    res.type = elem<T>::name;
    res.n = n;
    if (!selected("LAB_VARIANTS", VT::name)) return;
    args<T> const x{buf.a, buf.b, buf.c, buf.work, n, st};
    std::string const why = VT::unsupported(x);
    if (!why.empty()) {
        std::printf("  %-8s skipped: %s\n", VT::name, why.c_str());
        res.note = "skipped: " + why;
        results.push_back(res);
        return;
    }
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, VT::kernel()));
    if (VT::smem > 0) {
        cudaError_t e = cudaFuncSetAttribute(VT::kernel(),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(VT::smem));
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(VT::kernel(), cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared);
        if (e != cudaSuccess) {
            std::printf("  %-8s cannot set %zu bytes of shared memory: %s\n", VT::name, VT::smem,
                        cudaGetErrorString(e));
            (void)cudaGetLastError();
            res.note = std::string("smem attribute failed: ") + cudaGetErrorString(e);
            results.push_back(res);
            return;
        }
    }
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, VT::kernel(), VT::threads,
                                                     VT::smem));
    std::printf("  %-8s %3d regs, %4zu B local (spills), %6zu B static + %6zu B dynamic smem, "
                "%d blocks/SM (%d warps)\n",
                VT::name, attr.numRegs, attr.localSizeBytes, attr.sharedSizeBytes, VT::smem,
                blocks, blocks * VT::threads / 32);
    if (attr.localSizeBytes > 0) res.note = "LOCAL MEMORY ";
    if (blocks == 0) {
        std::printf("  %-8s cannot run: 0 blocks/SM\n", VT::name);
        res.note += "0 blocks/SM";
        results.push_back(res);
        return;
    }

    std::size_t const count = std::size_t(n) * n;
    CK(cudaMemsetAsync(buf.c, 0xff, count * sizeof(T), st));  // NaN / -1: catches unwritten C
    VT::launch(x);                                             // warm-up
    cudaError_t const e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::printf("  %-8s launch failed: %s\n", VT::name, cudaGetErrorString(e));
        res.note += std::string("launch failed: ") + cudaGetErrorString(e);
        results.push_back(res);
        sync_or_die(VT::name);
        return;
    }
    sync_or_die(VT::name);

    int const reps = reps_from_env();
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto& v : ev) CK(cudaEventCreate(&v));
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(ev[2 * r], st));
        VT::launch(x);
        CK(cudaGetLastError());
        CK(cudaEventRecord(ev[2 * r + 1], st));
    }
    sync_or_die(VT::name);
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; ++r) CK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
    for (auto& v : ev) CK(cudaEventDestroy(v));
    std::vector<float> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    res.ms = sorted[reps / 2];
    res.tps = double(n) * n * n / (res.ms * 1e-3) / 1e12;

    CK(cudaMemsetAsync(buf.counters, 0, sizeof(unsigned long long), st));
    CK(cudaMemsetAsync(buf.counters + 1, 0xff, sizeof(unsigned long long), st));
    compare_kernel<T><<<1024, 256, 0, st>>>(buf.c, buf.ref, count, buf.counters);
    CK(cudaGetLastError());
    unsigned long long h[2];
    CK(cudaMemcpyAsync(h, buf.counters, sizeof h, cudaMemcpyDeviceToHost, st));
    sync_or_die("compare");
    res.mismatches = static_cast<long long>(h[0]);
    std::printf("  %-8s %9.3f ms %7.2f T/s  (runs:", VT::name, res.ms, res.tps);
    for (float v : ms) std::printf(" %.3f", v);
    std::printf(")  mismatches %llu", h[0]);
    if (h[0]) {
        T got, want;
        CK(cudaMemcpy(&got, buf.c + h[1], sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&want, buf.ref + h[1], sizeof(T), cudaMemcpyDeviceToHost));
        std::printf("  first at (%llu, %llu): got %.9g want %.9g", h[1] / n, h[1] % n,
                    double(got), double(want));
        res.note += "WRONG";
    }
    std::printf("\n");
    std::fflush(stdout);
    results.push_back(res);
}

template <int Mode>
double ceiling(float* out, int sms, cudaStream_t st) {
    constexpr int iters = 16384;  // x 4 steps a thread
    int const blocks = sms * 4;
    ceiling_kernel<Mode><<<blocks, 256, 0, st>>>(out, iters);  // warm-up
    CK(cudaGetLastError());
    sync_or_die("ceiling");
    std::vector<float> ms;
    for (int r = 0; r < 3; ++r) {
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaEventRecord(e0, st));
        ceiling_kernel<Mode><<<blocks, 256, 0, st>>>(out, iters);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1, st));
        sync_or_die("ceiling");
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
    }
    std::sort(ms.begin(), ms.end());
    double const updates = double(blocks) * 256 * iters * 4 * ceiling_updates_per_step(Mode);
    return updates / (ms[1] * 1e-3) / 1e12;
}

template <class T>
void run_type(buffers<T> const& buf, int n, cudaStream_t st) {
    if (!selected("LAB_TYPES", elem<T>::name)) return;
    std::size_t const count = std::size_t(n) * n;
    std::printf("\n== %s n = %d\n", elem<T>::name, n);
    constexpr bool s16 = std::is_same_v<T, i16>;
    fill_kernel<T><<<2048, 256, 0, st>>>(buf.a, count, 0, n, s16 ? 61 : 0);
    CK(cudaGetLastError());
    fill_kernel<T><<<2048, 256, 0, st>>>(buf.b, count, count);
    CK(cudaGetLastError());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0, st));
    dim3 const rgrid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((n + 7) / 8));
    reference_kernel<T><<<rgrid, dim3(32, 8), 0, st>>>(buf.a, buf.b, buf.ref, n);
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1, st));
    sync_or_die("reference");
    float ref_ms = 0;
    CK(cudaEventElapsedTime(&ref_ms, e0, e1));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::printf("  reference %.1f ms\n", ref_ms);

    if constexpr (s16) {
        run_variant<T, v_s16_asyncT>(buf, n, st);
        run_variant<T, v_s16_asyncT32>(buf, n, st);
    } else {
        run_variant<T, v_base>(buf, n, st);
        run_variant<T, v_fast>(buf, n, st);
        run_variant<T, v_async>(buf, n, st);
        run_variant<T, v_asyncT>(buf, n, st);
        run_variant<T, v_asyncT32>(buf, n, st);
        run_variant<T, v_min3>(buf, n, st);
        run_variant<T, v_min3_32>(buf, n, st);
        run_variant<T, v_wide>(buf, n, st);
        run_variant<T, v_warp>(buf, n, st);
        run_variant<T, v_mbar>(buf, n, st);
        run_variant<T, v_mbar3>(buf, n, st);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i) {
        int const v = std::atoi(argv[i]);
        if (v <= 0 || v > 32768) {
            std::fprintf(stderr, "usage: %s [n ...] (1 <= n <= 32768)\n", argv[0]);
            return 2;
        }
        sizes.push_back(v);
    }
    if (sizes.empty()) sizes = {4096, 8192};

    int dev = 0;
    CK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    std::printf("device %s, sm_%d%d, %d SMs, %d MHz, %zu KB smem/SM, %d regs/SM\n", prop.name,
                prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
                prop.sharedMemPerMultiprocessor / 1024, prop.regsPerMultiprocessor);
    if (prop.major != 9)
        std::printf("warning: built for sm_90 only; this device is sm_%d%d\n", prop.major,
                    prop.minor);

    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    int const nmax = *std::max_element(sizes.begin(), sizes.end());
    std::size_t const bytes = std::max<std::size_t>(std::size_t(nmax) * nmax * 4, 4 << 20);
    void* p[5];
    for (auto& q : p) CK(cudaMalloc(&q, bytes));
    unsigned long long* counters;
    CK(cudaMalloc(&counters, 2 * sizeof(unsigned long long)));

    if (selected("LAB_VARIANTS", "ceilings")) {
        float* out = static_cast<float*>(p[0]);
        int const sms = prop.multiProcessorCount;
        double const c0 = ceiling<0>(out, sms, st);
        double const c1 = ceiling<1>(out, sms, st);
        double const c2 = ceiling<2>(out, sms, st);
        double const c3 = ceiling<3>(out, sms, st);
        std::printf("register-resident loops (T updates/s): fp32 FADD+FMNMX %.2f, int32 VIADDMNMX "
                    "%.2f, fp32 FADD+FADD+VIMNMX3 %.2f (the last is no ceiling), int16x2 "
                    "VIADDMNMX.S16x2 %.2f (2 updates an instruction)\n",
                    c0, c1, c2, c3);
    }
    for (int n : sizes) {
        buffers<float> const bf{static_cast<float*>(p[0]), static_cast<float*>(p[1]),
                                static_cast<float*>(p[2]), static_cast<float*>(p[3]),
                                static_cast<float*>(p[4]), counters};
        run_type<float>(bf, n, st);
        buffers<i32> const bi{static_cast<i32*>(p[0]), static_cast<i32*>(p[1]),
                              static_cast<i32*>(p[2]), static_cast<i32*>(p[3]),
                              static_cast<i32*>(p[4]), counters};
        run_type<i32>(bi, n, st);
        buffers<i16> const bs{static_cast<i16*>(p[0]), static_cast<i16*>(p[1]),
                              static_cast<i16*>(p[2]), static_cast<i16*>(p[3]),
                              static_cast<i16*>(p[4]), counters};
        run_type<i16>(bs, n, st);
    }
    print_table();
    for (auto& q : p) CK(cudaFree(q));
    CK(cudaFree(counters));
    CK(cudaStreamDestroy(st));
    bool bad = false;
    for (auto const& r : results)
        if (r.mismatches > 0) bad = true;
    return bad ? 3 : 0;
}

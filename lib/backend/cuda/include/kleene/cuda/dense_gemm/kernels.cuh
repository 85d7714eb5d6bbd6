#pragma once
// The dense GEMM's device code (dense_gemm.cuh): the per-thread 8 x 8 register tile, the
// register-prefetch gemm_kernel, the packing of A, the cp.async staged_kernel and the split-k
// combine. Each is a template over the semiring and a policy (policies.cuh). NVRTC compiles this
// header too (the JIT, kleene/cuda/jit.hpp).

#include <kleene/cuda/dense_gemm/policies.cuh>

#if !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>
#endif

#include <cstddef>
#include <cstdint>

namespace kleene::cuda::gemm_detail {

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

/// Whether the block at (by, bx) of the grid computes its tile of C: `live` null (every tile), or
/// its byte (row by of the tiles, pitch live_ld) not zero (a mask allows an entry of the tile).
__device__ __forceinline__ bool tile_is_live(std::uint8_t const* live, std::int64_t live_ld,
                                             unsigned by, unsigned bx) {
    return live == nullptr || live[std::int64_t(by) * live_ld + bx] != 0;
}

/// C = [C (+)] A (x) B for one 128 x 128 block of C. Runs only when run_flag is null or
/// *run_flag == run_when (two policies can be launched back to back; the data picks one), and
/// only for a live tile (tile_is_live).
template <class S, class P>
__global__ void __launch_bounds__(threads, sizeof(typename S::value_type) <= 4 ? 2 : 1)
    gemm_kernel(typename S::value_type const* __restrict__ a, std::int64_t lda,
                typename S::value_type const* __restrict__ b, std::int64_t ldb,
                typename S::value_type* __restrict__ c, std::int64_t ldc, int m, int n, int k,
                bool accumulate, int const* run_flag, int run_when,
                std::uint8_t const* __restrict__ live, std::int64_t live_ld) {
    using T = typename S::value_type;
    if (run_flag && *run_flag != run_when) return;
    if (!tile_is_live(live, live_ld, blockIdx.y, blockIdx.x)) return;

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
/// combine_partials to add up. Only live tiles are computed (tile_is_live; `live` for this panel).
template <class S, class P>
__global__ void __launch_bounds__(threads, 2)
    staged_kernel(typename S::value_type const* __restrict__ at, std::int64_t ldat,
                  typename S::value_type const* __restrict__ b, std::int64_t ldb,
                  typename S::value_type* __restrict__ c, std::int64_t ldc, int m, int n, int k,
                  int k_pad, bool accumulate, int const* run_flag, int run_when,
                  typename S::value_type* __restrict__ partials, int split_tiles,
                  std::uint8_t const* __restrict__ live, std::int64_t live_ld) {
    using T = typename S::value_type;
    if (run_flag && *run_flag != run_when) return;
    if (!tile_is_live(live, live_ld, blockIdx.y, blockIdx.x)) return;
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

/// C = [C (+)] the (+)-sum of `split` m x n partial products (pitch n, one after another), in
/// the live tiles only (tile_is_live; `live` for this panel).
template <class S>
__global__ void combine_partials(typename S::value_type* __restrict__ c, std::int64_t ldc,
                                 typename S::value_type const* __restrict__ partials, int split,
                                 int m, int n, bool accumulate,
                                 std::uint8_t const* __restrict__ live, std::int64_t live_ld) {
    std::int64_t const plane = std::int64_t(m) * n;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < plane;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        if (live != nullptr &&
            !tile_is_live(live, live_ld, unsigned(e / n / block_m), unsigned(e % n / block_n)))
            continue;
        typename S::value_type v = partials[e];
        for (int z = 1; z < split; ++z) v = S::add(v, partials[z * plane + e]);
        typename S::value_type& out = c[(e / n) * ldc + e % n];
        out = accumulate ? S::add(out, v) : v;
    }
}

/// live[ti * tiles_n + tj] = whether the mask's flags (m x n, row major; `comp`: complemented)
/// allow an entry of C's 128 x 128 tile (ti, tj): a block a tile. (A template: this header is
/// compiled into several translation units.)
template <class Flag>
__global__ void live_tiles_kernel(Flag const* __restrict__ flags, bool comp, int m, int n,
                                  std::uint8_t* __restrict__ live, int tiles_n) {
    int const ti = static_cast<int>(blockIdx.y), tj = static_cast<int>(blockIdx.x);
    int const r_end = min(m, (ti + 1) * block_m), c0 = tj * block_n;
    int const c_end = min(n, c0 + block_n);
    bool any = false;
    // 8 threads a row, 16 columns each: a warp reads 4 rows of the tile.
    for (int r = ti * block_m + static_cast<int>(threadIdx.x) / 8; r < r_end && !any;
         r += static_cast<int>(blockDim.x) / 8) {
        std::uint8_t const* row = flags + std::int64_t(r) * n;
        for (int j = c0 + static_cast<int>(threadIdx.x % 8); j < c_end; j += 8)
            any |= (row[j] != 0) != comp;
    }
    any = __syncthreads_or(any);
    if (threadIdx.x == 0) live[std::int64_t(ti) * tiles_n + tj] = any ? 1 : 0;
}

}  // namespace kleene::cuda::gemm_detail

#pragma once
// The kernel template behind dense_gemm (dense_gemm.hpp). Code compiled by nvcc may include this
// and call kleene::cuda::dense_gemm<my_semiring>(a, b, c, accumulate) for a semiring of its own;
// the built-in semirings are instantiated in lib/cuda/src.
//
// Layers: a per-thread 8 x 8 register tile (policy::update), a 128 x 128 x 8 block tile staged
// through shared memory with a register prefetch of the next k slice (gemm_kernel), and a host
// launcher that picks the policy and checks every call (run).

// nvcc warns (#554) that dense_view<T const>'s conversion to itself, already excluded by its
// requires clause, "will not be called"; true and harmless.
#pragma nv_diag_suppress 554

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <algorithm>
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
    auto store_tile = [&](int buf) {
#pragma unroll
        for (int i = 0; i < a_loads; ++i) as[buf][a_col][a_row + a_step * i] = ra[i];
#pragma unroll
        for (int i = 0; i < b_loads; ++i)
            bs[buf][b_row + b_step * (i / b_chunks)][b_col + 32 * (i % b_chunks)] = rb[i];
    };

    T acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = P::init();

    auto step = [&](int buf, int kk) {
        T fa[8];
        T fb[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) fa[i] = as[buf][kk][tile_offset(ty, i)];
#pragma unroll
        for (int j = 0; j < 8; ++j) fb[j] = bs[buf][kk][tile_offset(tx, j)];
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[i][j] = P::update(acc[i][j], fa[i], fb[j]);
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
        // The other buffer was last read before the previous barrier: safe to overwrite.
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
            T const v = P::finish(acc[i][j]);
            row[col] = accumulate ? S::add(row[col], v) : v;
        }
    }
}

/// Sets *flag when a finite entry (not the sentinel) lies outside [-bound, bound].
template <class T>
__global__ void range_check_kernel(T const* __restrict__ p, std::int64_t ld, int rows, int cols,
                                   T sentinel, T bound, int* flag) {
    for (int r = static_cast<int>(blockIdx.y); r < rows; r += static_cast<int>(gridDim.y)) {
        T const* row = p + r * ld;
        for (int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j < cols;
             j += static_cast<int>(gridDim.x * blockDim.x)) {
            T const v = row[j];
            if (v != sentinel && (v < -bound || v > bound)) *flag = 1;
        }
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
    auto bytes = [](auto v) -> std::pair<char const*, char const*> {
        auto const* p = reinterpret_cast<char const*>(v.data);
        if (v.rows == 0 || v.cols == 0) return {p, p};
        return {p, p + ((v.rows - 1) * v.ld + v.cols) * sizeof(T)};
    };
    auto overlap = [](auto x, auto y) { return x.first < y.second && y.first < x.second; };
    auto const cb = bytes(c);
    if (overlap(cb, bytes(a)) || overlap(cb, bytes(b)))
        throw invalid_argument("dense_gemm: C overlaps A or B (write into a separate matrix)");
}

/// One device int per host thread for the range check's verdict.
inline int* scratch_flag() {
    thread_local buffer<int, device> flag(1);
    return flag.data();
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

template <class T>
void launch_range_check(dense_view<T const, device> v, T sentinel, T bound, int* flag,
                        cudaStream_t st) {
    if (v.rows == 0 || v.cols == 0) return;
    dim3 const grid(static_cast<unsigned>(std::min<std::size_t>((v.cols + 255) / 256, 16)),
                    static_cast<unsigned>(std::min<std::size_t>(v.rows, 8192)));
    range_check_kernel<T><<<grid, 256, 0, st>>>(v.data, static_cast<std::int64_t>(v.ld),
                                                 static_cast<int>(v.rows), static_cast<int>(v.cols),
                                                 sentinel, bound, flag);
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::gemm_detail::range_check_kernel");
}

/// Enqueues the product on st; `flag` is a device int that only this stream's work touches.
template <semiring_type S>
void enqueue(dense_view<typename S::value_type const, device> a,
             dense_view<typename S::value_type const, device> b,
             dense_view<typename S::value_type, device> c, bool accumulate, cudaStream_t st,
             int* flag) {
    using T = typename S::value_type;
    check_shapes<T>(a, b, c);
    if (c.rows == 0 || c.cols == 0) return;
    if constexpr (has_ranged_path<S>) {
        constexpr bool is_max = std::is_same_v<S, max_plus<T>>;
        using ranged = ranged_policy<T, is_max>;
        KLEENE_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), st));
        launch_range_check<T>(a, ranged::sentinel, ranged::bound, flag, st);
        launch_range_check<T>(b, ranged::sentinel, ranged::bound, flag, st);
        if (accumulate) launch_range_check<T>(c, ranged::sentinel, ranged::bound, flag, st);
        // Both launch; each returns at once unless the flag selects it. No host round trip.
        launch_gemm<S, ranged>(a, b, c, accumulate, flag, 0, st);
        launch_gemm<S, generic_policy<S>>(a, b, c, accumulate, flag, 1, st);
    } else {
        (void)flag;
        launch_gemm<S, generic_policy<S>>(a, b, c, accumulate, nullptr, 0, st);
    }
}

template <semiring_type S>
void run(dense_view<typename S::value_type const, device> a,
         dense_view<typename S::value_type const, device> b,
         dense_view<typename S::value_type, device> c, bool accumulate) {
    check_shapes<typename S::value_type>(a, b, c);  // before the scratch allocation
    if (c.rows == 0 || c.cols == 0) return;
    enqueue<S>(a, b, c, accumulate, nullptr, has_ranged_path<S> ? scratch_flag() : nullptr);
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

}  // namespace kleene::cuda::gemm_detail

namespace kleene::cuda {

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, bool accumulate) {
    // Dense storage holds zero() where an entry is absent; where zero does not annihilate mul
    // (pair, first, second) the kernel must not multiply by it, exactly as on the CPU.
    gemm_detail::run<dense_safe<S>>(a, b, c, accumulate);
}

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, bool accumulate, stream const& s) {
    using P = dense_safe<S>;
    gemm_detail::check_shapes<typename S::value_type>(a, b, c);  // before the scratch allocation
    if (c.rows == 0 || c.cols == 0) return;
    gemm_detail::enqueue<P>(a, b, c, accumulate, static_cast<cudaStream_t>(s.native()),
                            gemm_detail::has_ranged_path<P> ? s.scratch_int() : nullptr);
}

}  // namespace kleene::cuda

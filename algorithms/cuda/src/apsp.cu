// Floyd-Warshall kernels (blocked and naive), the small elementwise helpers of R-Kleene, and the
// bit-packed Warshall base case of the Boolean closure (apsp.hpp). The synchronous calls run on
// their context's stream and wait for it; the others enqueue on the cuda::stream they are given.

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/range_check.cuh>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace kleene::cuda {
namespace {

constexpr int threads = 256;
// Round width and tile side: 64 for 4-byte types; 32 for 8-byte ones (static shared memory).
template <class T>
constexpr int tile = sizeof(T) <= 4 ? 64 : 32;

/// min(c, a + b) as min_plus<T> defines it. The running value is never NaN, so fminf / fmin (one
/// FMNMX for fp32) agree with min_op even when a + b is inf - inf.
template <class T>
__device__ __forceinline__ T relax(T c, T a, T b) {
    if constexpr (std::is_same_v<T, float>) return fminf(c, a + b);
    else if constexpr (std::is_same_v<T, double>) return fmin(c, a + b);
    else return min_plus<T>::add(c, min_plus<T>::mul(a, b));
}

/// How the blocked Floyd-Warshall kernels see entries: load (global -> working value), relax1
/// (the diagonal tile's sequential steps), relax (the products of phases 2 and 3), store (working value ->
/// global). exact_fw is min_plus<T> as defined.
template <class T>
struct exact_fw {
    __device__ static T load(T v) { return v; }
    __device__ static T relax1(T c, T a, T b) { return relax(c, a, b); }
    __device__ static T relax(T c, T a, T b) { return kleene::cuda::relax(c, a, b); }
    __device__ static T store(T v) { return v; }
};

/// int32 on an m x m block whose finite entries lie in [-2^28 / (m - 1), 2^28 / (m - 1)]
/// (in_dpx_fw_range, checked on the device): one DPX __viaddmin_s32 per update instead of the saturating add's
/// dozen instructions. Without a negative cycle every value Floyd-Warshall forms is then the
/// length of a path of at most m - 1 entries, in [-2^28, 2^28], and every candidate sum lies in
/// [-2^29, 2^29]. The sentinel is loaded as `code` = 2^30 - 1: a sum with it is at least
/// code - 2^28 = `top` (stored back as the sentinel from there up) and at most 2^31 - 2, so nothing
/// wraps. On a negative cycle values may fall without bound: stores clamp at -2^30 (no sum of two
/// loads wraps) and the diagonal tile's closure, whose steps compound, clamps every step; a
/// clamped value is already negative, so a negative diagonal stays negative and the cycle is
/// still reported.
struct dpx_int32_fw {
    static constexpr int code = (1 << 30) - 1;
    static constexpr int top = code - (1 << 28);
    static constexpr int floor = -(1 << 30);
    static constexpr int path_bound = 1 << 28;
    __device__ static int load(int v) { return v == std::numeric_limits<int>::max() ? code : v; }
    __device__ static int relax1(int c, int a, int b) { return max(__viaddmin_s32(a, b, c), floor); }
    __device__ static int relax(int c, int a, int b) { return __viaddmin_s32(a, b, c); }
    __device__ static int store(int v) {
        return v >= top ? std::numeric_limits<int>::max() : max(v, floor);
    }
};

/// dpx_int32_fw's range for an m x m block: finite entries within +-path_bound / (m - 1) (the
/// opposite sentinel, INT_MIN, is outside it).
struct in_dpx_fw_range {
    int bound;
    explicit in_dpx_fw_range(int m) : bound(dpx_int32_fw::path_bound / std::max(m - 1, 1)) {}
    __device__ bool operator()(int v) const {
        return v == std::numeric_limits<int>::max() || (v <= bound && v >= -bound);
    }
};

template <class T, int R>
struct alignas(R * sizeof(T)) vec {
    T v[R];
};

/// Runs f(P{}) or, when pick is set and *pick != 0, f(Q{}): the int32 kernels carry both the DPX
/// and the exact policy, and the range check's device flag picks one (one launch a phase, no host
/// round trip). Other types pass P = Q and no flag.
template <class P, class Q, class F>
__device__ __forceinline__ void with_policy(int const* pick, F&& f) {
    if constexpr (std::is_same_v<P, Q>) f(P{});
    else if (pick && *pick) f(Q{});
    else f(P{});
}

/// Thread (ty, tx)'s entries of the shared tile t: rows ty + 16 i, columns tx + 16 j.
template <class T, int RT>
__device__ __forceinline__ void load_owned(T const (*t)[tile<T> + 1], T (&c)[RT][RT]) {
    int const tx = static_cast<int>(threadIdx.x) % 16;
    int const ty = static_cast<int>(threadIdx.x) / 16;
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
        for (int j = 0; j < RT; ++j) c[i][j] = t[ty + 16 * i][tx + 16 * j];
}

/// Closes the kb x kb tile d in shared memory (Floyd-Warshall over its own vertices), with one
/// barrier a step. Thread (ty, tx) keeps rows ty + 16 a and columns tx + 16 b in registers. Step k
/// leaves row k and column k unwritten: without a negative cycle d[k][k] >= 0 and they would not
/// change, so the result is Floyd-Warshall's; with one, every value is still at most the length of
/// every simple path it stands for, so a cycle's diagonal still goes negative (its largest vertex
/// h closes it in step h through the other cycle vertex's entries). Nothing a step reads is
/// written in that step. On return every entry is P::load(P::store(value)), the value a later
/// kernel would load, and the thread's own entries are in c.
template <class T, class P, int RT>
__device__ __forceinline__ void close_tile(T (*d)[tile<T> + 1], int kb, T (&c)[RT][RT]) {
    int const tx = static_cast<int>(threadIdx.x) % 16;
    int const ty = static_cast<int>(threadIdx.x) / 16;
    load_owned(d, c);
    for (int k = 0; k < kb; ++k) {
        T x[RT], y[RT];
#pragma unroll
        for (int i = 0; i < RT; ++i) x[i] = d[ty + 16 * i][k];
#pragma unroll
        for (int j = 0; j < RT; ++j) y[j] = d[k][tx + 16 * j];
#pragma unroll
        for (int i = 0; i < RT; ++i)
#pragma unroll
            for (int j = 0; j < RT; ++j)
                if (ty + 16 * i != k && tx + 16 * j != k) {
                    c[i][j] = P::relax1(c[i][j], x[i], y[j]);
                    d[ty + 16 * i][tx + 16 * j] = c[i][j];
                }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
        for (int j = 0; j < RT; ++j) {
            c[i][j] = P::load(P::store(c[i][j]));
            d[ty + 16 * i][tx + 16 * j] = c[i][j];
        }
    __syncthreads();
}

/// Writes thread (ty, tx)'s entries c[i][j] (rows ty + 16 i, columns tx + 16 j of the nr x nc
/// tile at (r0, c0)) back through P::store.
template <class P, class T, int RT>
__device__ __forceinline__ void store_owned(T const (&c)[RT][RT], T* a, std::int64_t ld, int r0,
                                            int c0, int nr, int nc) {
    int const tx = static_cast<int>(threadIdx.x) % 16;
    int const ty = static_cast<int>(threadIdx.x) / 16;
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
        for (int j = 0; j < RT; ++j) {
            int const gi = ty + 16 * i, gj = tx + 16 * j;
            if (gi < nr && gj < nc) a[(r0 + gi) * ld + c0 + gj] = P::store(c[i][j]);
        }
}

// Phases 1 and 2 of round r in one launch: every block closes the diagonal tile D in its own
// shared memory (the same computation, so the same values); block (r, 0) writes D back, and the
// other blocks update the tiles of row r (blockIdx.y == 0) and column r (== 1) against it:
// S = min(S, D (x) S) for the row, min(S, S (x) D) for the column. D is closed, so this one
// product equals Floyd-Warshall's k-by-k sweep over the tile. Thread (ty, tx) owns rows
// ty + 16 i and columns tx + 16 j of the tile.
template <class T, class P, class Q>
__global__ void __launch_bounds__(threads)
    fw_diagonal_and_panels(T* __restrict__ a, std::int64_t ld, int n, int r, int const* pick) {
    constexpr int tl = tile<T>;
    constexpr int rt = tl / 16;
    int const t = static_cast<int>(blockIdx.x);
    bool const row = blockIdx.y == 0;
    if (t == r && !row) return;
    __shared__ T d[tl][tl + 1];
    __shared__ T s[tl][tl + 1];
    with_policy<P, Q>(pick, [&](auto policy) {
        using Pol = decltype(policy);
        int const k0 = r * tl;
        int const kb = min(tl, n - k0);
        int const r0 = row ? k0 : t * tl;
        int const c0 = row ? t * tl : k0;
        int const nr = min(tl, n - r0);
        int const nc = min(tl, n - c0);
        T const inf = Pol::load(infinity<T>());
        for (int e = static_cast<int>(threadIdx.x); e < tl * tl; e += threads) {
            int const i = e / tl, j = e % tl;
            d[i][j] = (i < kb && j < kb) ? Pol::load(a[(k0 + i) * ld + k0 + j]) : inf;
            if (t != r) s[i][j] = (i < nr && j < nc) ? Pol::load(a[(r0 + i) * ld + c0 + j]) : inf;
        }
        __syncthreads();
        // Block (r, 0) keeps the closed D (its tile, r0 = c0 = k0, is D); the others multiply.
        T c[rt][rt];
        close_tile<T, Pol>(d, kb, c);
        if (t != r) {
            int const tx = static_cast<int>(threadIdx.x) % 16;
            int const ty = static_cast<int>(threadIdx.x) / 16;
            load_owned(s, c);
#pragma unroll 4
            for (int k = 0; k < kb; ++k) {
                T x[rt], y[rt];
#pragma unroll
                for (int i = 0; i < rt; ++i) x[i] = row ? d[ty + 16 * i][k] : s[ty + 16 * i][k];
#pragma unroll
                for (int j = 0; j < rt; ++j) y[j] = row ? s[k][tx + 16 * j] : d[k][tx + 16 * j];
#pragma unroll
                for (int i = 0; i < rt; ++i)
#pragma unroll
                    for (int j = 0; j < rt; ++j) c[i][j] = Pol::relax(c[i][j], x[i], y[j]);
            }
        }
        store_owned<Pol>(c, a, ld, r0, c0, nr, nc);
    });
}

// Phase 3: every other tile, a rank-kb min-plus update from its column-r and row-r tiles. Thread
// (ty, tx) owns rows ty + 16 i and columns tx + 16 j; the row panel is stored with those
// columns adjacent (one vector load per k), the column panel k-major with an odd pitch
// (conflict-free transposing stores, broadcast reads).
template <class T, class P, class Q>
__global__ void __launch_bounds__(threads)
    fw_phase3(T* __restrict__ a, std::int64_t ld, int n, int r, int const* pick) {
    constexpr int tl = tile<T>;
    int const ti = static_cast<int>(blockIdx.y);
    int const tj = static_cast<int>(blockIdx.x);
    if (ti == r || tj == r) return;
    __shared__ T as[tl][tl + 1];
    __shared__ __align__(32) T bs[tl][tl];
    with_policy<P, Q>(pick, [&](auto policy) {
        using Pol = decltype(policy);
        int const k0 = r * tl;
        int const kb = min(tl, n - k0);
        int const i0 = ti * tl;
        int const j0 = tj * tl;
        constexpr int rt = tl / 16;  // rows (and columns) per thread
        T const inf = Pol::load(infinity<T>());
        int const tid = static_cast<int>(threadIdx.x);
        for (int e = tid; e < tl * tl; e += threads) {
            int const p = e / tl, q = e % tl;
            as[q][p] = (i0 + p < n && q < kb) ? Pol::load(a[(i0 + p) * ld + k0 + q]) : inf;
            bs[p][(q % 16) * rt + q / 16] =
                (p < kb && j0 + q < n) ? Pol::load(a[(k0 + p) * ld + j0 + q]) : inf;
        }
        int const tx = tid % 16;
        int const ty = tid / 16;
        T c[rt][rt];
#pragma unroll
        for (int i = 0; i < rt; ++i)
#pragma unroll
            for (int j = 0; j < rt; ++j) {
                int const gi = i0 + ty + 16 * i, gj = j0 + tx + 16 * j;
                c[i][j] = (gi < n && gj < n) ? Pol::load(a[gi * ld + gj]) : inf;
            }
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < kb; ++k) {
            T av[rt];
#pragma unroll
            for (int i = 0; i < rt; ++i) av[i] = as[k][ty + 16 * i];
            vec<T, rt> const bv = *reinterpret_cast<vec<T, rt> const*>(&bs[k][tx * rt]);
#pragma unroll
            for (int i = 0; i < rt; ++i)
#pragma unroll
                for (int j = 0; j < rt; ++j) c[i][j] = Pol::relax(c[i][j], av[i], bv.v[j]);
        }
        store_owned<Pol>(c, a, ld, i0, j0, min(tl, n - i0), min(tl, n - j0));
    });
}

template <class T>
__global__ void fw_naive_step(T* __restrict__ a, std::int64_t ld, int n, int k) {
    int const j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= n) return;
    for (int i = static_cast<int>(blockIdx.y); i < n; i += static_cast<int>(gridDim.y)) {
        T* row = a + i * ld;
        T const old = row[j];
        T const v = relax(old, row[k], a[k * ld + j]);
        if (v < old) row[j] = v;
    }
}

template <class T>
__global__ void min_into_kernel(T* __restrict__ dst, std::int64_t ldd, T const* __restrict__ src,
                                std::int64_t lds, int rows, int cols) {
    for (int i = static_cast<int>(blockIdx.y); i < rows; i += static_cast<int>(gridDim.y))
        for (int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j < cols;
             j += static_cast<int>(gridDim.x * blockDim.x)) {
            T const s = src[i * lds + j];
            T& d = dst[i * ldd + j];
            if (s < d) d = s;
        }
}

template <class T>
__global__ void diagonal_kernel(T* a, std::int64_t ld, int n) {
    int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n && T(0) < a[i * ld + i]) a[i * ld + i] = T(0);
}

template <class T>
__global__ void negative_diagonal_kernel(T const* a, std::int64_t ld, int n,
                                         unsigned long long* first) {
    int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n && a[i * ld + i] < T(0)) atomicMin(first, static_cast<unsigned long long>(i));
}

// One thread per row; row i changes only through thread i, and row k does not change in step k.
__global__ void __launch_bounds__(512)
    bit_warshall_kernel(std::uint64_t* a, std::int64_t ld, int n) {
    constexpr int max_words = static_cast<int>(bit_warshall_max / 64);
    __shared__ std::uint64_t s[bit_warshall_max][max_words];
    int const i = static_cast<int>(threadIdx.x);
    int const nw = (n + 63) / 64;
    std::uint64_t const tail = n % 64 ? (std::uint64_t{1} << (n % 64)) - 1 : ~std::uint64_t{0};
    if (i < n)
        for (int w = 0; w < nw; ++w) s[i][w] = a[i * ld + w] & (w == nw - 1 ? tail : ~0ull);
    __syncthreads();
    for (int k = 0; k < n; ++k) {
        if (i < n && ((s[i][k / 64] >> (k % 64)) & 1u))
            for (int w = 0; w < nw; ++w) {
                std::uint64_t const v = s[i][w] | s[k][w];
                if (v != s[i][w]) s[i][w] = v;
            }
        __syncthreads();
    }
    if (i < n)
        for (int w = 0; w < nw; ++w) {
            std::uint64_t const keep = w == nw - 1 ? tail : ~0ull;
            a[i * ld + w] = (s[i][w] & keep) | (a[i * ld + w] & ~keep);
        }
}

__global__ void or_into_kernel(std::uint64_t* dst, std::int64_t ldd, std::uint64_t const* src,
                               std::int64_t lds, int rows, int cols) {
    int const nw = (cols + 63) / 64;
    std::uint64_t const tail = cols % 64 ? (std::uint64_t{1} << (cols % 64)) - 1 : ~0ull;
    for (int i = static_cast<int>(blockIdx.y); i < rows; i += static_cast<int>(gridDim.y))
        for (int w = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); w < nw;
             w += static_cast<int>(gridDim.x * blockDim.x))
            dst[i * ldd + w] |= src[i * lds + w] & (w == nw - 1 ? tail : ~0ull);
}

__global__ void bit_diagonal_kernel(std::uint64_t* a, std::int64_t ld, int n) {
    int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) a[i * ld + i / 64] |= std::uint64_t{1} << (i % 64);
}

unsigned clamp_grid(std::size_t n, std::size_t cap) {
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min(n, cap)));
}

/// Blocks of a kernel with a thread per diagonal entry of an n x n view.
unsigned diagonal_grid(std::size_t n) { return clamp_grid((n + threads - 1) / threads, 1u << 30); }

void check_square(char const* what, std::size_t rows, std::size_t cols) {
    if (rows != cols)
        throw dimension_mismatch(std::string(what) + ": the matrix must be square, not " +
                                 kleene::detail::shape(rows, cols));
    if (rows > static_cast<std::size_t>(std::numeric_limits<int>::max()) / 2)
        throw invalid_argument(std::string(what) + ": n past 2^30 is not supported");
}

cudaStream_t native(stream const& s) { return static_cast<cudaStream_t>(s.native()); }
cudaStream_t native(context const& ctx) { return static_cast<cudaStream_t>(ctx.stream()); }
void sync(cudaStream_t st) { KLEENE_CUDA_CHECK(cudaStreamSynchronize(st)); }

/// The rounds of the blocked Floyd-Warshall, two launches a round, with policy P, or Q where
/// pick is set and *pick != 0.
template <class T, class P, class Q = P>
void enqueue_fw_rounds(dense_view<T, device> a, cudaStream_t st, int const* pick) {
    int const n = static_cast<int>(a.rows);
    constexpr int tl = tile<T>;
    int const tiles = (n + tl - 1) / tl;
    auto const ld = static_cast<std::int64_t>(a.ld);
    for (int r = 0; r < tiles; ++r) {
        fw_diagonal_and_panels<T, P, Q><<<dim3(static_cast<unsigned>(tiles), 2), threads, 0, st>>>(
            a.data, ld, n, r, pick);
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::fw_diagonal_and_panels");
        if (tiles == 1) break;
        fw_phase3<T, P, Q><<<dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(tiles)),
                             threads, 0, st>>>(a.data, ld, n, r, pick);
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::fw_phase3");
    }
}

/// int32 checks the block's range first; its kernels carry the DPX and the exact policy, and the
/// flag (a device int only this stream's work touches) picks one: no host round trip. Other
/// types run exact_fw.
template <class T>
void enqueue_floyd_warshall_blocked(dense_view<T, device> a, cudaStream_t st, int* flag) {
    check_square("floyd_warshall_blocked", a.rows, a.cols);
    if (a.rows == 0) return;
    if constexpr (std::is_same_v<T, std::int32_t>) {
        KLEENE_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), st));
        detail::launch_range_check(dense_view<T const, device>(a),
                                   in_dpx_fw_range(static_cast<int>(a.rows)), flag, st);
        enqueue_fw_rounds<T, dpx_int32_fw, exact_fw<T>>(a, st, flag);
    } else {
        (void)flag;
        enqueue_fw_rounds<T, exact_fw<T>>(a, st, nullptr);
    }
}

template <class T>
void enqueue_min_into(dense_view<T, device> dst, dense_view<T const, device> src, cudaStream_t st) {
    if (dst.rows != src.rows || dst.cols != src.cols)
        throw dimension_mismatch("min_into: " + kleene::detail::shape(dst.rows, dst.cols) +
                                 " and " + kleene::detail::shape(src.rows, src.cols));
    if (dst.rows == 0 || dst.cols == 0) return;
    dim3 const grid(clamp_grid((dst.cols + threads - 1) / threads, 64),
                    clamp_grid(dst.rows, 16384));
    min_into_kernel<T><<<grid, threads, 0, st>>>(dst.data, static_cast<std::int64_t>(dst.ld),
                                                 src.data, static_cast<std::int64_t>(src.ld),
                                                 static_cast<int>(dst.rows),
                                                 static_cast<int>(dst.cols));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::min_into_kernel");
}

void enqueue_bit_warshall(bit_view<std::uint64_t> a, cudaStream_t st) {
    check_square("bit_warshall", a.rows, a.cols);
    if (a.rows > bit_warshall_max)
        throw invalid_argument("bit_warshall: block of " + std::to_string(a.rows) +
                               " rows is larger than 512");
    if (a.rows == 0) return;
    bit_warshall_kernel<<<1, static_cast<unsigned>(bit_warshall_max), 0, st>>>(
        a.data, static_cast<std::int64_t>(a.ld), static_cast<int>(a.rows));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::bit_warshall_kernel");
}

void enqueue_or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src,
                     cudaStream_t st) {
    if (dst.rows != src.rows || dst.cols != src.cols)
        throw dimension_mismatch("or_into: " + kleene::detail::shape(dst.rows, dst.cols) + " and " +
                                 kleene::detail::shape(src.rows, src.cols));
    if (dst.rows == 0 || dst.cols == 0) return;
    std::size_t const nw = (dst.cols + 63) / 64;
    dim3 const grid(clamp_grid((nw + threads - 1) / threads, 64), clamp_grid(dst.rows, 16384));
    or_into_kernel<<<grid, threads, 0, st>>>(
        dst.data, static_cast<std::int64_t>(dst.ld), src.data, static_cast<std::int64_t>(src.ld),
        static_cast<int>(dst.rows), static_cast<int>(dst.cols));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::or_into_kernel");
}

}  // namespace

template <class T>
void floyd_warshall_blocked(dense_view<T, device> a, context& ctx) {
    enqueue_floyd_warshall_blocked<T>(a, native(ctx), detail::context_flag(ctx));
    sync(native(ctx));
}

template <class T>
void floyd_warshall_blocked(dense_view<T, device> a, stream const& s, context* ctx) {
    context& x = resolve(ctx);
    cudaStream_t const st = native(s);
    if (st == native(x)) {
        enqueue_floyd_warshall_blocked<T>(a, st, detail::context_flag(x));
        return;
    }
    // Another stream: a flag for this call, from the context's pool on that stream.
    detail::stream_buffer<int> flag(1, detail::device_stream(st, detail::stream_of(x).pool));
    enqueue_floyd_warshall_blocked<T>(a, st, flag.data());
}

template <class T>
void floyd_warshall_naive(dense_view<T, device> a, context& ctx) {
    check_square("floyd_warshall_naive", a.rows, a.cols);
    int const n = static_cast<int>(a.rows);
    if (n == 0) return;
    cudaStream_t const st = native(ctx);
    dim3 const grid(static_cast<unsigned>((n + threads - 1) / threads), clamp_grid(n, 65535));
    for (int k = 0; k < n; ++k) {
        fw_naive_step<T><<<grid, threads, 0, st>>>(a.data, static_cast<std::int64_t>(a.ld), n, k);
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::fw_naive_step");
    }
    sync(st);
}

template <class T>
void min_into(dense_view<T, device> dst, dense_view<T const, device> src, context& ctx) {
    enqueue_min_into<T>(dst, src, native(ctx));
    sync(native(ctx));
}

template <class T>
void min_into(dense_view<T, device> dst, dense_view<T const, device> src, stream const& s) {
    enqueue_min_into<T>(dst, src, native(s));
}

template <class T>
void closure_diagonal(dense_view<T, device> a, context& ctx) {
    check_square("closure_diagonal", a.rows, a.cols);
    if (a.rows == 0) return;
    cudaStream_t const st = native(ctx);
    diagonal_kernel<T><<<diagonal_grid(a.rows), threads, 0, st>>>(
        a.data, static_cast<std::int64_t>(a.ld), static_cast<int>(a.rows));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::diagonal_kernel");
    sync(st);
}

template <class T>
std::int64_t first_negative_diagonal(dense_view<T const, device> a, context& ctx) {
    check_square("first_negative_diagonal", a.rows, a.cols);
    if (a.rows == 0) return -1;
    detail::device_stream const st = detail::stream_of(ctx);  // the flag from the context's pool
    detail::stream_buffer<unsigned long long> first(1, st);
    // ~0: no negative diagonal entry yet.
    KLEENE_CUDA_CHECK(cudaMemsetAsync(first.data(), 0xff, sizeof(unsigned long long), st));
    negative_diagonal_kernel<T><<<diagonal_grid(a.rows), threads, 0, st>>>(
        a.data, static_cast<std::int64_t>(a.ld), static_cast<int>(a.rows), first.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::negative_diagonal_kernel");
    unsigned long long const v = detail::read_one(first.data(), st);
    return v == ~0ull ? -1 : static_cast<std::int64_t>(v);
}

void bit_warshall(bit_view<std::uint64_t> a, context& ctx) {
    enqueue_bit_warshall(a, native(ctx));
    sync(native(ctx));
}

void bit_warshall(bit_view<std::uint64_t> a, stream const& s) {
    enqueue_bit_warshall(a, native(s));
}

void or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src, context& ctx) {
    enqueue_or_into(dst, src, native(ctx));
    sync(native(ctx));
}

void or_into(bit_view<std::uint64_t> dst, bit_view<std::uint64_t const> src, stream const& s) {
    enqueue_or_into(dst, src, native(s));
}

void set_bit_diagonal(bit_view<std::uint64_t> a, context& ctx) {
    check_square("set_bit_diagonal", a.rows, a.cols);
    if (a.rows == 0) return;
    cudaStream_t const st = native(ctx);
    bit_diagonal_kernel<<<diagonal_grid(a.rows), threads, 0, st>>>(
        a.data, static_cast<std::int64_t>(a.ld), static_cast<int>(a.rows));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::bit_diagonal_kernel");
    sync(st);
}

std::size_t free_device_memory() noexcept {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return free;
}

#define KLEENE_APSP_INSTANTIATE(T)                                                                 \
    template void floyd_warshall_blocked<T>(dense_view<T, device>, context&);                     \
    template void floyd_warshall_blocked<T>(dense_view<T, device>, stream const&, context*);      \
    template void floyd_warshall_naive<T>(dense_view<T, device>, context&);                       \
    template void min_into<T>(dense_view<T, device>, dense_view<T const, device>, context&);      \
    template void min_into<T>(dense_view<T, device>, dense_view<T const, device>, stream const&); \
    template void closure_diagonal<T>(dense_view<T, device>, context&);                           \
    template std::int64_t first_negative_diagonal<T>(dense_view<T const, device>, context&);
KLEENE_APSP_INSTANTIATE(float)
KLEENE_APSP_INSTANTIATE(double)
KLEENE_APSP_INSTANTIATE(std::int32_t)
#undef KLEENE_APSP_INSTANTIATE

}  // namespace kleene::cuda

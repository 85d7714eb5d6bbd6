#pragma once
// Dense x dense semiring GEMM on the CPU, in the style of BLIS: C is cut into one tile per thread;
// each thread packs KC x NC panels of B and MC x KC blocks of A into contiguous buffers and sweeps
// them with an MR x NR register-tiled micro-kernel. The micro-kernel is plain C++ over the
// semiring's add and mul, which GCC vectorises (vminps/vaddps for min_plus<float>, ...).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>
#include <string>
#include <type_traits>

#if defined(_OPENMP)
#include <omp.h>
#define KLEENE_CPU_SIMD _Pragma("omp simd")
#else
#define KLEENE_CPU_SIMD
#endif
#define KLEENE_CPU_UNROLL _Pragma("GCC unroll 16")

namespace kleene::cpu {

namespace detail {

/// Tile sizes for value type T, for 256-bit vectors and 16 vector registers (AVX2): the MR x NR
/// accumulator tile takes 2 * MR = 12 registers, a row of the B sliver 2 more, a broadcast of A
/// one.
template <class T>
struct gemm_shape {
    static constexpr std::size_t vector_bytes = 32;
    static constexpr std::size_t mr = 6;
    static constexpr std::size_t nr =
        sizeof(T) <= 8 && vector_bytes % sizeof(T) == 0 ? 2 * vector_bytes / sizeof(T) : 4;
    // A KC x NR sliver of B (16 KiB) stays in L1 while the MR-row slivers of A stream past it.
    static constexpr std::size_t kc = std::max<std::size_t>(16, 16384 / (nr * sizeof(T)));
    // An MC x KC block of A (<= 128 KiB) stays in L2 while the B slivers stream past it.
    static constexpr std::size_t mc =
        std::max<std::size_t>(mr, std::min<std::size_t>(512, 131072 / (kc * sizeof(T))) / mr * mr);
    // A KC x NC panel of B (<= 4 MiB) stays in L3.
    static constexpr std::size_t nc =
        std::max<std::size_t>(nr, (4u << 20) / (kc * sizeof(T)) / nr * nr);
};

/// c[0..MR) x [0..NR) (rows ldc apart) = (load_c ? c : zero) (+) sum over k of a[k] (x) b[k], where
/// the packed sliver a holds MR values per k and b holds NR values per k. Not inlined: inside the
/// macro kernel GCC 12 turned the int32 min_plus loop scalar (0.4 instead of 1.3 G updates/s).
template <semiring_type S, std::size_t MR, std::size_t NR>
[[gnu::noinline]] void gemm_micro_kernel(std::size_t kc, typename S::value_type const* a,
                                         typename S::value_type const* b, typename S::value_type* c,
                                         std::size_t ldc, bool load_c) {
    using T = typename S::value_type;
    // `omp simd` on the NR loop makes GCC 12 vectorise it and keep acc in registers across k; left
    // to itself it scalarises acc (96 scalars) and no longer finds the vectors.
    T acc[MR][NR];
    if (load_c) {
        for (std::size_t i = 0; i < MR; ++i)
            for (std::size_t j = 0; j < NR; ++j) acc[i][j] = c[i * ldc + j];
    } else {
        for (std::size_t i = 0; i < MR; ++i)
            for (std::size_t j = 0; j < NR; ++j) acc[i][j] = S::zero();
    }
    for (std::size_t k = 0; k < kc; ++k, a += MR, b += NR) {
        KLEENE_CPU_UNROLL
        for (std::size_t i = 0; i < MR; ++i) {
            T const ai = a[i];
            KLEENE_CPU_SIMD
            for (std::size_t j = 0; j < NR; ++j) acc[i][j] = S::add(acc[i][j], S::mul(ai, b[j]));
        }
    }
    for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t j = 0; j < NR; ++j) c[i * ldc + j] = acc[i][j];
}

/// Packs rows [0, m) x cols [0, kc) of `a` (rows lda apart) as MR-row slivers, k-major inside a
/// sliver. Rows past m repeat row m - 1, so the padded lanes compute a real product, never
/// a value that could overflow or trap.
template <std::size_t MR, class T>
void pack_a(T const* a, std::size_t lda, std::size_t m, std::size_t kc, T* out) {
    for (std::size_t r0 = 0; r0 < m; r0 += MR, out += MR * kc) {
        for (std::size_t i = 0; i < MR; ++i) {
            T const* src = a + std::min(r0 + i, m - 1) * lda;
            for (std::size_t k = 0; k < kc; ++k) out[k * MR + i] = src[k];
        }
    }
}

/// Packs rows [0, kc) x cols [0, n) of `b` (rows ldb apart) as NR-column slivers, k-major inside
/// a sliver; columns past n repeat column n - 1.
template <std::size_t NR, class T>
void pack_b(T const* b, std::size_t ldb, std::size_t kc, std::size_t n, T* out) {
    for (std::size_t j0 = 0; j0 < n; j0 += NR, out += NR * kc) {
        std::size_t const w = std::min(NR, n - j0);
        for (std::size_t k = 0; k < kc; ++k) {
            T const* src = b + k * ldb + j0;
            T* dst = out + k * NR;
            if (w == NR) {
                std::memcpy(dst, src, NR * sizeof(T));
            } else {
                for (std::size_t j = 0; j < NR; ++j) dst[j] = src[std::min(j, w - 1)];
            }
        }
    }
}

/// C[0, m) x [0, n) (rows ldc apart) = (load_c ? C : zero) (+) packed A (m x kc) (x) packed B.
template <semiring_type S, std::size_t MR, std::size_t NR>
void gemm_macro_kernel(std::size_t m, std::size_t n, std::size_t kc,
                       typename S::value_type const* ap, typename S::value_type const* bp,
                       typename S::value_type* c, std::size_t ldc, bool load_c) {
    using T = typename S::value_type;
    for (std::size_t j0 = 0; j0 < n; j0 += NR) {
        std::size_t const nr = std::min(NR, n - j0);
        T const* b = bp + j0 * kc;
        for (std::size_t i0 = 0; i0 < m; i0 += MR) {
            std::size_t const mr = std::min(MR, m - i0);
            T const* a = ap + i0 * kc;
            T* ct = c + i0 * ldc + j0;
            if (mr == MR && nr == NR) {
                gemm_micro_kernel<S, MR, NR>(kc, a, b, ct, ldc, load_c);
                continue;
            }
            // Edge tile: run the full kernel on a local copy, write back the part inside C.
            T tmp[MR * NR];
            std::fill(tmp, tmp + MR * NR, S::zero());
            if (load_c)
                for (std::size_t i = 0; i < mr; ++i)
                    for (std::size_t j = 0; j < nr; ++j) tmp[i * NR + j] = ct[i * ldc + j];
            gemm_micro_kernel<S, MR, NR>(kc, a, b, tmp, NR, load_c);
            for (std::size_t i = 0; i < mr; ++i)
                for (std::size_t j = 0; j < nr; ++j) ct[i * ldc + j] = tmp[i * NR + j];
        }
    }
}

/// One part of an even split of `count` units into `parts`: [begin, end) of part p.
inline std::size_t split_point(std::size_t count, std::size_t parts, std::size_t p) {
    return count * p / parts;
}

/// How C is cut into tiles, one per thread: mt row parts x nt column parts.
struct gemm_tiling {
    std::size_t mt = 1;
    std::size_t nt = 1;
};

/// Uses as many threads as the slivers allow; among the splits that do, the one whose tiles have
/// the least rows + columns (the least packing per tile).
inline gemm_tiling choose_tiling(std::size_t threads, std::size_t m_slivers, std::size_t n_slivers,
                                 std::size_t mr, std::size_t nr) {
    gemm_tiling best;
    std::size_t best_tiles = 0;
    std::size_t best_cost = 0;
    for (std::size_t mt = 1; mt <= threads; ++mt) {
        std::size_t const nt = std::min(threads / mt, n_slivers);
        if (mt > m_slivers || nt == 0) continue;
        std::size_t const tiles = mt * nt;
        std::size_t const cost = (m_slivers + mt - 1) / mt * mr + (n_slivers + nt - 1) / nt * nr;
        if (tiles > best_tiles || (tiles == best_tiles && cost < best_cost)) {
            best = {mt, nt};
            best_tiles = tiles;
            best_cost = cost;
        }
    }
    return best;
}

inline std::string view_shape(std::size_t rows, std::size_t cols, std::size_t ld) {
    return kleene::detail::shape(rows, cols) + " (ld " + std::to_string(ld) + ")";
}

template <class T>
void check_view(char const* name, dense_view<T> const& v) {
    if (v.rows > 1 && v.ld < v.cols)
        throw invalid_argument(std::string("dense_gemm: ") + name + " is " +
                               view_shape(v.rows, v.cols, v.ld) +
                               ": the leading dimension must be at least the number of columns");
}


}  // namespace detail

/// C = A (x) B when `accumulate` is false, C = C (+) A (x) B when true, over semiring S, for
/// row-major views with leading dimensions >= their widths. C must not share an element with A or
/// B (invalid_argument). Runs on omp_get_max_threads() threads (one when called inside a parallel
/// region or when the product is small).
template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const> a,
                dense_view<typename S::value_type const> b, dense_view<typename S::value_type> c,
                bool accumulate) {
    using T = typename S::value_type;
    using shape = detail::gemm_shape<T>;
    constexpr std::size_t MR = shape::mr;
    constexpr std::size_t NR = shape::nr;

    if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols)
        throw dimension_mismatch("dense_gemm: A is " + kleene::detail::shape(a.rows, a.cols) +
                                 ", B is " + kleene::detail::shape(b.rows, b.cols) + ", C is " +
                                 kleene::detail::shape(c.rows, c.cols) +
                                 ": need A.cols == B.rows, C = A.rows x B.cols");
    detail::check_view("A", a);
    detail::check_view("B", b);
    detail::check_view("C", c);
    if (kleene::detail::views_overlap(c, a) || kleene::detail::views_overlap(c, b))
        throw invalid_argument("dense_gemm: C overlaps A or B (write into a separate matrix)");

    std::size_t const m = a.rows;
    std::size_t const n = b.cols;
    std::size_t const k = a.cols;
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!accumulate)
            for (std::size_t i = 0; i < m; ++i) std::fill(c.row(i), c.row(i) + n, S::zero());
        return;
    }

    std::size_t const m_slivers = (m + MR - 1) / MR;
    std::size_t const n_slivers = (n + NR - 1) / NR;
    std::size_t threads = 1;
#if defined(_OPENMP)
    // Below ~1M updates a second thread costs more to wake than it saves.
    if (!omp_in_parallel() && m * n * k >= (std::size_t{1} << 20))
        threads = static_cast<std::size_t>(omp_get_max_threads());
#endif
    detail::gemm_tiling const tiling = detail::choose_tiling(threads, m_slivers, n_slivers, MR, NR);
    std::size_t const tiles = tiling.mt * tiling.nt;

    auto run_tile = [&](std::size_t t) {
        std::size_t const tm = t / tiling.nt;
        std::size_t const tn = t % tiling.nt;
        std::size_t const row0 = detail::split_point(m_slivers, tiling.mt, tm) * MR;
        std::size_t const row1 =
            std::min(m, detail::split_point(m_slivers, tiling.mt, tm + 1) * MR);
        std::size_t const col0 = detail::split_point(n_slivers, tiling.nt, tn) * NR;
        std::size_t const col1 =
            std::min(n, detail::split_point(n_slivers, tiling.nt, tn + 1) * NR);
        std::size_t const kc_max = std::min(k, shape::kc);
        std::size_t const mc_max = std::min(row1 - row0, shape::mc);
        std::size_t const nc_max = std::min(col1 - col0, shape::nc);
        buffer<T> a_pack(kc_max * ((mc_max + MR - 1) / MR * MR));
        buffer<T> b_pack(kc_max * ((nc_max + NR - 1) / NR * NR));
        for (std::size_t j0 = col0; j0 < col1; j0 += shape::nc) {
            std::size_t const nc = std::min(shape::nc, col1 - j0);
            for (std::size_t p0 = 0; p0 < k; p0 += shape::kc) {
                std::size_t const kc = std::min(shape::kc, k - p0);
                detail::pack_b<NR>(b.data + p0 * b.ld + j0, b.ld, kc, nc, b_pack.data());
                for (std::size_t i0 = row0; i0 < row1; i0 += shape::mc) {
                    std::size_t const mc = std::min(shape::mc, row1 - i0);
                    detail::pack_a<MR>(a.data + i0 * a.ld + p0, a.ld, mc, kc, a_pack.data());
                    detail::gemm_macro_kernel<S, MR, NR>(mc, nc, kc, a_pack.data(), b_pack.data(),
                                                         c.data + i0 * c.ld + j0, c.ld,
                                                         accumulate || p0 > 0);
                }
            }
        }
    };

    if (tiles == 1) {
        run_tile(0);
        return;
    }
#if defined(_OPENMP)
    // An exception must not leave the parallel region (std::terminate): keep the first, rethrow.
    std::exception_ptr failure;
    int const team = static_cast<int>(tiles);
#pragma omp parallel for num_threads(team) schedule(static, 1)
    for (std::size_t t = 0; t < tiles; ++t) {
        try {
            run_tile(t);
        } catch (...) {
#pragma omp critical(kleene_dense_gemm_failure)
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
#endif
}

}  // namespace kleene::cpu

#undef KLEENE_CPU_SIMD
#undef KLEENE_CPU_UNROLL

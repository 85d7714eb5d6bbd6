// Dense semiring GEMM on the GPU: time and updates per second (n^3 / t) for fp32, fp64 and int32
// min_plus, the bit-packed Boolean product and plus_times (cuBLAS and the generic kernel), beside
// the ceilings of /work/shared/GPU.md (fp32 plus_times: the FMA ceiling, no tensor cores).
// Usage: bench_gemm_gpu [--masked] [n ...]   (default 1024 2048 4096 8192 16384; env
// SPLIT_K_BLOCKS sets tuning::split_k_blocks, 0 = no split over k)
// --masked: instead, fp32 min_plus C<M> = A B through kleene::mxm into a dense C under a dense
// mask M (full, lower triangle, a band of 512, diagonal blocks of 1024; the share of C's 128 x 128
// tiles holding an allowed entry printed), each product against the whole product into a
// temporary (made in each call, as mxm makes its own) and the same masked write-back
// (kleene::apply), the results compared entry by entry: dense A and B (the sampled GEMM: only
// those tiles computed; and with the caller's workspace, where A is packed in panels), CSR A of
// 32 entries a row and dense B (the sampled SpMM: a row's passes of 128 columns the mask forbids
// skipped, no column it forbids read or written), CSR A of 16 a row and CSR B of 16 or 128 (the
// sampled spgemm_dense: no product into an entry the mask forbids).
// Random inputs (never zeros), one warm-up, median of several runs timed with CUDA events, and
// 64 entries of every result checked against a host computation.

#include <kleene/environment.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/kleene.hpp>
#include <kleene/semiring.hpp>

#include "../mask_shapes.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace kleene;

void check(cudaError_t e, char const* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// Weights in [1, 100] (5% absent: infinity); `mixed_signs`: every other entry negated, which
/// keeps fp32 off its non-negative fast path.
template <class T>
dense_matrix<T, host> random_matrix(std::size_t n, std::uint64_t seed, bool mixed_signs = false) {
    dense_matrix<T, host> m(n, n);
    T* p = m.data();
#pragma omp parallel for
    for (std::size_t i = 0; i < n * n; ++i) {
        std::uint64_t const r = splitmix(seed * 0x100000000ull + i);
        if (r % 20 == 0) p[i] = infinity<T>();  // 5% absent edges
        else if constexpr (std::is_floating_point_v<T>) p[i] = T(1.0 + double(r >> 11) * 0x1p-53 * 99.0);
        else p[i] = T(1 + (r >> 32) % 1000);
        if (mixed_signs && i % 2 && p[i] != infinity<T>()) p[i] = -p[i];
    }
    return m;
}

template <class F>
double median_ms(std::size_t n, F&& run) {
    int const reps = n >= 16384 ? 3 : n >= 8192 ? 3 : 5;
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    run();  // warm-up
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        check(cudaEventRecord(start), "cudaEventRecord");
        run();
        check(cudaEventRecord(stop), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float t = 0;
        check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
        ms.push_back(t);
    }
    check(cudaEventDestroy(start), "cudaEventDestroy");
    check(cudaEventDestroy(stop), "cudaEventDestroy");
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

struct row {
    std::string kind;
    std::size_t n;
    double ms;
    double ceiling;  // T updates/s, 0 when GPU.md has none
    std::size_t wrong;
};

template <class T>
row bench_min_plus(std::string kind, std::size_t n, double ceiling, bool mixed_signs = false) {
    auto const ha = random_matrix<T>(n, 1, mixed_signs);
    auto const hb = random_matrix<T>(n, 2, mixed_signs);
    auto const da = ha.to_device();
    auto const db = hb.to_device();
    dense_matrix<T, device> dc(n, n);
    double const ms = median_ms(n, [&] {
        cuda::dense_gemm<min_plus<T>>(da.view(), db.view(), dc.view(), false);
    });
    auto const hc = dc.to_host();
    std::size_t wrong = 0;
    for (std::uint64_t s = 0; s < 64; ++s) {
        std::size_t const i = splitmix(s * 2 + 11) % n;
        std::size_t const j = splitmix(s * 2 + 12) % n;
        T r = min_plus<T>::zero();
        for (std::size_t k = 0; k < n; ++k)
            r = min_plus<T>::add(r, min_plus<T>::mul(ha(i, k), hb(k, j)));
        wrong += hc(i, j) != r;
    }
    return {kind, n, ms, ceiling, wrong};
}

/// plus_times over T through cuBLAS (`blas`) or the generic kernel; 64 entries checked against
/// the host sum with a relative tolerance (the summation orders differ).
template <class T>
row bench_plus_times(std::string kind, std::size_t n, bool blas, double ceiling) {
    auto const ha = random_matrix<T>(n, 5);
    auto const hb = random_matrix<T>(n, 6);
    dense_matrix<T, host> fa(n, n), fb(n, n);  // finite values: +inf would make every sum inf
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            fa(i, j) = ha(i, j) == infinity<T>() ? T(0.5) : ha(i, j) / T(100);
            fb(i, j) = hb(i, j) == infinity<T>() ? T(0.5) : hb(i, j) / T(100);
        }
    auto const da = fa.to_device();
    auto const db = fb.to_device();
    dense_matrix<T, device> dc(n, n);
    context ctx;  // cuBLAS on or off here only
    ctx.tune = default_context().tune;
    ctx.tune.use_cublas = blas;
    double const ms = median_ms(n, [&] {
        cuda::dense_gemm<plus_times<T>>(da.view(), db.view(), dc.view(), false, ctx);
    });
    auto const hc = dc.to_host();
    std::size_t wrong = 0;
    for (std::uint64_t s = 0; s < 64; ++s) {
        std::size_t const i = splitmix(s * 2 + 31) % n;
        std::size_t const j = splitmix(s * 2 + 32) % n;
        double r = 0;
        for (std::size_t k = 0; k < n; ++k) r += double(fa(i, k)) * double(fb(k, j));
        wrong += std::abs(double(hc(i, j)) - r) > 1e-4 * r;
    }
    return {kind, n, ms, ceiling, wrong};
}

row bench_bits(std::size_t n) {
    std::size_t const words = (n + 63) / 64;
    auto make = [&](std::uint64_t seed) {
        std::vector<std::uint64_t> h(n * words);
#pragma omp parallel for
        for (std::size_t i = 0; i < h.size(); ++i) {
            // Sparse enough that products are not all ones: about 1.5 / sqrt(n) of bits set.
            std::uint64_t w = 0;
            std::uint64_t const cut = std::uint64_t(1.5 / std::sqrt(double(n)) * 65536.0);
            for (int b = 0; b < 64; ++b)
                if ((splitmix(seed * 0x100000000000ull + i * 64 + std::uint64_t(b)) & 0xffff) < cut)
                    w |= std::uint64_t(1) << b;
            if (i % words == words - 1 && n % 64 != 0) w &= (std::uint64_t(1) << (n % 64)) - 1;
            h[i] = w;
        }
        return h;
    };
    auto const ha = make(3);
    auto const hb = make(4);
    cuda::bit_matrix a(n, n), b(n, n), c(n, n);
    check(cudaMemcpy(a.data(), ha.data(), ha.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(b.data(), hb.data(), hb.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
    double const ms = median_ms(n, [&] { cuda::bool_gemm(a, b, c, false); });
    std::vector<std::uint64_t> hc(n * words);
    check(cudaMemcpy(hc.data(), c.data(), hc.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
    auto bit = [&](std::vector<std::uint64_t> const& m, std::size_t i, std::size_t j) {
        return (m[i * words + j / 64] >> (j % 64)) & 1;
    };
    std::size_t wrong = 0;
    for (std::uint64_t s = 0; s < 64; ++s) {
        std::size_t const i = splitmix(s * 2 + 21) % n;
        std::size_t const j = splitmix(s * 2 + 22) % n;
        std::uint64_t r = 0;
        for (std::size_t k = 0; k < n && !r; ++k) r = bit(ha, i, k) & bit(hb, k, j);
        wrong += bit(hc, i, j) != r;
    }
    return {"bool or.and (bit-packed)", n, ms, 520.7, wrong};
}

/// n x n CSR with `per_row` random distinct columns a row, weights in [1, 100).
csr_matrix<float, std::int32_t> random_csr(std::size_t n, std::size_t per_row, std::uint64_t seed) {
    std::vector<std::int32_t> ii, jj;
    std::vector<float> vv;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t e = 0; e < per_row; ++e) {
            std::uint64_t const r = splitmix(seed * 0x100000000ull + i * per_row + e);
            ii.push_back(std::int32_t(i));
            jj.push_back(std::int32_t(r % n));
            vv.push_back(float(1.0 + double(r >> 11) * 0x1p-53 * 99.0));
        }
    return csr_matrix<float, std::int32_t>::from_coo(n, n, ii, jj, vv, duplicate_policy::last);
}

/// One sampled product (into c1) against the whole one and the same write-back; the results
/// compared, the entries that differ returned.
template <class A, class B>
std::size_t sampled_against_whole(char const* kind, char const* shape, std::size_t n,
                                  double share, dense_matrix<std::uint8_t, device> const& dm,
                                  A const& a, B const& b, dense_matrix<float, device>& c1) {
    dense_matrix<float, device> c2(n, n);
    double const sampled = median_ms(n, [&] {
        mxm(c1, mask(dm), no_accum, a, b, min_plus<float>{});
    });
    double const whole = median_ms(n, [&] {
        dense_matrix<float, device> t(n, n);  // as mxm's own temporary: made each call
        mxm(t, a, b, min_plus<float>{});
        apply(c2, mask(dm), no_accum, with_absent(identity_op<float>{}, infinity<float>()), t);
    });
    auto const h1 = c1.to_host(), h2 = c2.to_host();
    std::size_t bad = 0;
    for (std::size_t q = 0; q < n * n; ++q) bad += !(h1.data()[q] == h2.data()[q]);
    std::printf("RESULT kind=\"fp32 min_plus %s, dense mask: %s\" n=%zu live_tiles=%.3f "
                "sampled_ms=%.3f whole_ms=%.3f speedup=%.2f wrong=%zu\n",
                kind, shape, n, share, sampled, whole, whole / sampled, bad);
    std::fflush(stdout);
    return bad;
}

/// fp32 min_plus under dense masks of several shapes (--masked): sampled against whole.
std::size_t bench_masked(std::size_t n) {
    auto const sa = random_csr(n, 32, 3).to_device();
    auto const sb = random_csr(n, 16, 4).to_device();
    auto const sc = random_csr(n, 16, 5).to_device();
    auto const sd = random_csr(n, 128, 6).to_device();
    auto const ha = random_matrix<float>(n, 1);
    auto const hb = random_matrix<float>(n, 2);
    auto const da = ha.to_device();
    auto const db = hb.to_device();
    std::size_t wrong = 0;
    for (auto const& sh : bench::mask_shapes) {
        dense_matrix<std::uint8_t, host> hm(n, n);
        std::size_t const tiles = (n + 127) / 128;
        std::vector<char> live(tiles * tiles, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                hm(i, j) = sh.allow(i, j) ? 1 : 0;
                if (hm(i, j)) live[(i / 128) * tiles + j / 128] = 1;
            }
        double share = 0;
        for (char x : live) share += x;
        share /= double(live.size());
        auto const dm = hm.to_device();
        dense_matrix<float, device> c1(n, n);
        wrong += sampled_against_whole("dense x dense (GEMM)", sh.name, n, share, dm, da, db, c1);
        // With the caller's workspace (dense_gemm_scratch_bytes) the staged kernel packs A in
        // panels of C's rows, run one after another.
        context supplied;
        supplied.tune = default_context().tune;
        void* ws = nullptr;
        std::size_t const ws_bytes = cuda::dense_gemm_scratch_bytes(n, n, n, sizeof(float));
        check(cudaMalloc(&ws, ws_bytes), "cudaMalloc");
        supplied.set_workspace(ws, ws_bytes);
        dense_matrix<float, device> c3(n, n);
        double const panels = median_ms(n, [&] {
            mxm(c3, mask(dm), no_accum, da, db, min_plus<float>{}, {.ctx = &supplied});
        });
        auto const h1 = c1.to_host(), h3 = c3.to_host();
        check(cudaFree(ws), "cudaFree");
        std::size_t bad = 0;
        for (std::size_t q = 0; q < n * n; ++q) bad += !(h3.data()[q] == h1.data()[q]);
        wrong += bad;
        std::printf("RESULT kind=\"fp32 min_plus dense x dense (GEMM), dense mask: %s, the caller's "
                    "workspace (panels)\" n=%zu sampled_panels_ms=%.3f wrong=%zu\n",
                    sh.name, n, panels, bad);
        std::fflush(stdout);
        wrong += sampled_against_whole("CSR x dense (SpMM, 32 a row)", sh.name, n, share, dm, sa, db,
                                       c1);
        wrong += sampled_against_whole("CSR x CSR (spgemm_dense, 16 a row)", sh.name, n, share, dm,
                                       sb, sc, c1);
        wrong += sampled_against_whole("CSR x CSR (spgemm_dense, 16 and 128 a row)", sh.name, n,
                                       share, dm, sb, sd, c1);
    }
    return wrong;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> sizes;
    bool masked = false;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--masked") masked = true;
        else sizes.push_back(std::stoul(argv[i]));
    }
    if (sizes.empty()) sizes = {1024, 2048, 4096, 8192, 16384};
    if (cuda::device_count() == 0) {
        std::puts("no CUDA device: nothing to measure");
        return 0;
    }
    if (masked) {
        std::printf("device: %s\n", cuda::device_description().c_str());
        std::size_t wrong = 0;
        for (std::size_t n : sizes) wrong += bench_masked(n);
        if (wrong) std::printf("FAILED: %zu entries differ between sampled and whole\n", wrong);
        return wrong ? 1 : 0;
    }
    std::printf("device: %s\n", cuda::device_description().c_str());
    // The bench's tuning: the KLEENE_* variables, and SPLIT_K_BLOCKS (0: no split over k), in
    // this thread's default context, which the products below use.
    default_context().tune = context_from_environment().tune;
    if (char const* v = std::getenv("SPLIT_K_BLOCKS")) default_context().tune.split_k_blocks = std::atoi(v);
    std::vector<row> rows;
    for (std::size_t n : sizes) {
        rows.push_back(bench_min_plus<float>("fp32 min_plus", n, 15.1));
        rows.push_back(bench_min_plus<float>("fp32 min_plus, mixed signs", n, 15.1, true));
        rows.push_back(bench_min_plus<double>("fp64 min_plus", n, 0.0));
        rows.push_back(bench_min_plus<std::int32_t>("int32 min_plus (DPX)", n, 16.6));
        rows.push_back(bench_bits(n));
        rows.push_back(bench_plus_times<float>("fp32 plus_times, cuBLAS", n, true, 29.5));
        rows.push_back(bench_plus_times<float>("fp32 plus_times, generic kernel", n, false, 29.5));
        rows.push_back(bench_plus_times<double>("fp64 plus_times, cuBLAS", n, true, 0.0));
        for (auto it = rows.end() - 8; it != rows.end(); ++it) {
            double const t = double(it->n) * double(it->n) * double(it->n) / (it->ms * 1e-3) / 1e12;
            std::printf("RESULT kind=\"%s\" n=%zu ms=%.3f tups=%.2f ceiling=%.1f pct=%.1f wrong=%zu\n",
                        it->kind.c_str(), it->n, it->ms, t, it->ceiling,
                        it->ceiling > 0 ? 100.0 * t / it->ceiling : 0.0, it->wrong);
            std::fflush(stdout);
        }
    }
    std::size_t wrong = 0;
    for (auto const& r : rows) wrong += r.wrong;
    if (wrong) std::printf("FAILED: %zu spot-checked entries differ from the host\n", wrong);
    return wrong ? 1 : 0;
}

#pragma once
// The dense GEMM's host side (dense_gemm.cuh): shape checks, the choice of kernel and policy,
// scratch, the launches (enqueue, run) and the public kleene::cuda::dense_gemm templates.

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/dense_gemm/kernels.cuh>
#include <kleene/cuda/dense_gemm/policies.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/range_check.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/mask.hpp>
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

/// The register-tiled gemm_kernel (compiled ahead of time, or by the JIT: jit.hpp) over one grid
/// covering C, on st; only C's live tiles where `tiles` has a map (gemm_tiles).
template <class T>
void launch_gemm_with(void const* kernel, dense_view<T const, device> a, dense_view<T const, device> b,
                      dense_view<T, device> c, bool accumulate, int const* run_flag, int run_when,
                      cudaStream_t st, gemm_tiles tiles = {}) {
    dim3 const grid(static_cast<unsigned>((c.cols + block_n - 1) / block_n),
                    static_cast<unsigned>((c.rows + block_m - 1) / block_m));
    if (grid.y > 65535)
        throw invalid_argument("dense_gemm: more than 65535 * 128 rows are not supported");
    T const* ad = a.data;
    T const* bd = b.data;
    T* cd = c.data;
    auto lda = static_cast<std::int64_t>(a.ld), ldb = static_cast<std::int64_t>(b.ld),
         ldc = static_cast<std::int64_t>(c.ld);
    int m = static_cast<int>(c.rows), n = static_cast<int>(c.cols), k = static_cast<int>(a.cols);
    std::uint8_t const* live = tiles.live;
    auto live_ld = static_cast<std::int64_t>(tiles.ld);
    void* args[] = {&ad,       &lda,      &bd,   &ldb,    &cd,      &ldc, &m,
                    &n,        &k,        &accumulate,   &run_flag, &run_when, &live, &live_ld};
    KLEENE_CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(threads), args, 0, st));
}

template <class S, class P>
void launch_gemm(dense_view<typename S::value_type const, device> a,
                 dense_view<typename S::value_type const, device> b,
                 dense_view<typename S::value_type, device> c, bool accumulate, int const* run_flag,
                 int run_when, cudaStream_t st, gemm_tiles tiles) {
    launch_gemm_with<typename S::value_type>(reinterpret_cast<void const*>(&gemm_kernel<S, P>), a,
                                             b, c, accumulate, run_flag, run_when, st, tiles);
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

/// One policy's kernels of the staged path: the packing of A and the product (its shared-memory
/// attribute set), compiled ahead of time (staged_kernels_of) or by the JIT.
struct staged_kernels {
    void const* pack = nullptr;
    void const* product = nullptr;
};

/// Sets the staged kernel's dynamic shared-memory size. On every call, not once per process:
/// each translation unit that instantiates the kernel registers its own copy, and an attribute
/// set on one copy does not reach the others (a static "done" flag shared between them let ooc's
/// launches fail with cudaErrorInvalidValue).
template <class T>
void allow_staged_smem(void const* product) {
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(product, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(staged_smem_bytes<T>())));
}

/// The staged kernel over S with policy P, its shared-memory attribute set.
template <class S, class P>
auto staged_kernel_ready() {
    auto kernel = staged_kernel<S, P>;
    allow_staged_smem<typename S::value_type>(reinterpret_cast<void const*>(kernel));
    return kernel;
}

template <class S, class P>
staged_kernels staged_kernels_of() {
    return {reinterpret_cast<void const*>(&pack_a_kernel<P, typename S::value_type>),
            reinterpret_cast<void const*>(staged_kernel_ready<S, P>())};
}

/// Whether B can be copied 16 bytes at a time: every row 16-byte aligned.
template <class T>
bool rows_aligned(dense_view<T const, device> v) {
    return reinterpret_cast<std::uintptr_t>(v.data) % 16 == 0 && (v.ld * sizeof(T)) % 16 == 0;
}

using kleene::cuda::detail::grow_scratch;  // the context's scratch, in stream order

/// The staged path: per panel of C's rows, pack A, then the product. With `checked` (a policy
/// with a range: integer min_plus / max_plus, fp32 non-negative min_plus), `check_b` tests B's
/// range first and the checked packing A's; out of range, a repacked A and the generic kernels
/// run instead (the flag picks on the device, no host round trip). With ks.parts > 1 the product
/// splits k, its partial products after the packed A in scratch, added up by `combine`. The
/// kernels come compiled ahead of time (enqueue_staged) or from the JIT (jit.hpp).
template <class T, class CheckB>
void enqueue_staged_with(dense_view<T const, device> a, dense_view<T const, device> b,
                         dense_view<T, device> c, bool accumulate, cudaStream_t st, int* flag,
                         void* scratch, k_split ks, staged_kernels const* checked,
                         CheckB const& check_b, staged_kernels const& generic,
                         void const* combine, gemm_tiles tiles = {}) {
    std::size_t const m = c.rows, n = c.cols, k = a.cols;
    std::size_t const k_pad = (k + staged_k - 1) / staged_k * staged_k;
    std::size_t const pr = panel_rows(m, k, sizeof(T), tiles.pack_cap);
    T* at = static_cast<T*>(scratch);
    int split = ks.parts;
    T* partials = split > 1 ? reinterpret_cast<T*>(static_cast<unsigned char*>(scratch) +
                                                  packed_a_bytes(m, k, sizeof(T),
                                                                 tiles.pack_cap))
                            : nullptr;
    if (checked) {
        KLEENE_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), st));
        check_b(b, flag, st);
    }
    for (std::size_t r0 = 0; r0 < m; r0 += pr) {
        std::size_t const rows = std::min(pr, m - r0);
        std::size_t const pitch = (rows + block_m - 1) / block_m * block_m;
        T const* a_panel = a.data + r0 * a.ld;
        T* c_panel = c.data + r0 * c.ld;
        auto lda = static_cast<std::int64_t>(a.ld), ldb = static_cast<std::int64_t>(b.ld),
             ldc = static_cast<std::int64_t>(c.ld), ldat = static_cast<std::int64_t>(pitch);
        int rows_i = static_cast<int>(rows), n_i = static_cast<int>(n), k_i = static_cast<int>(k),
            k_pad_i = static_cast<int>(k_pad), split_tiles = ks.tiles;
        // The panel's rows of the live-tile map (r0 is a multiple of the tile's 128 rows).
        std::uint8_t const* live =
            tiles.live ? tiles.live + r0 / block_m * tiles.ld : nullptr;
        auto live_ld = static_cast<std::int64_t>(tiles.ld);
        auto pack = [&](staged_kernels const& kernels, int* set_flag, int const* run_flag) {
            if (k_pad == 0) return;
            int run_when = 1;
            void* args[] = {&a_panel, &lda, &rows_i, &k_i, &at, &ldat, &set_flag, &run_flag, &run_when};
            dim3 const grid(static_cast<unsigned>(k_pad / 32), static_cast<unsigned>(pitch / 32));
            KLEENE_CUDA_CHECK(cudaLaunchKernel(kernels.pack, grid, dim3(32, 8), args, 0, st));
        };
        auto product = [&](staged_kernels const& kernels, int const* run_flag, int run_when) {
            T const* bd = b.data;
            T const* at_c = at;
            void* args[] = {&at_c,     &ldat,     &bd,          &ldb,  &c_panel, &ldc,
                            &rows_i,   &n_i,      &k_i,         &k_pad_i, &accumulate, &run_flag,
                            &run_when, &partials, &split_tiles, &live, &live_ld};
            dim3 const grid(static_cast<unsigned>((n + block_n - 1) / block_n),
                            static_cast<unsigned>(pitch / block_m), static_cast<unsigned>(split));
            KLEENE_CUDA_CHECK(cudaLaunchKernel(kernels.product, grid, dim3(threads), args,
                                               staged_smem_bytes<T>(), st));
        };
        auto combine_panel = [&] {
            if (!partials) return;
            std::size_t const entries = rows * n;
            T const* parts = partials;
            void* args[] = {&c_panel, &ldc,        &parts, &split, &rows_i,
                            &n_i,     &accumulate, &live,  &live_ld};
            KLEENE_CUDA_CHECK(cudaLaunchKernel(
                combine, dim3(kleene::cuda::detail::blocks_for(entries, threads, 4096)),
                dim3(threads), args, 0, st));
        };
        if (checked) {
            pack(*checked, flag, nullptr);
            pack(generic, nullptr, flag);  // runs only when a range check failed
            product(*checked, flag, 0);
            product(generic, flag, 1);
        } else {
            pack(generic, nullptr, nullptr);
            product(generic, nullptr, 0);
        }
        combine_panel();
    }
}

/// The staged path over S with the kernels compiled ahead of time: checked_staged_t<S>'s policy
/// when S has one and the product is large enough for its four extra launches (fewer than
/// checked_min_updates updates: they would outweigh what it saves), else the generic one.
template <semiring_type S>
void enqueue_staged(dense_view<typename S::value_type const, device> a,
                    dense_view<typename S::value_type const, device> b,
                    dense_view<typename S::value_type, device> c, bool accumulate,
                    cudaStream_t st, int* flag, void* scratch, k_split ks,
                    std::size_t checked_min_updates, gemm_tiles tiles) {
    using T = typename S::value_type;
    using G = staged_generic_policy<S>;
    using R = checked_staged_t<S>;
    staged_kernels const generic = staged_kernels_of<S, G>();
    auto const combine = reinterpret_cast<void const*>(&combine_partials<S>);
    if constexpr (!std::is_void_v<R>) {
        bool const use_checked = double(c.rows) * double(c.cols) * double(a.cols) >=
                                 static_cast<double>(checked_min_updates);
        if (use_checked) {
            staged_kernels const checked = staged_kernels_of<S, R>();
            enqueue_staged_with<T>(
                a, b, c, accumulate, st, flag, scratch, ks, &checked,
                [](dense_view<T const, device> v, int* f, cudaStream_t s) {
                    launch_range_check<R, T>(v, f, s);
                },
                generic, combine, tiles);
            return;
        }
    }
    enqueue_staged_with<T>(
        a, b, c, accumulate, st, flag, scratch, ks, nullptr,
        [](dense_view<T const, device>, int*, cudaStream_t) {}, generic, combine, tiles);
}

/// Enqueues the product on st; `flag` is a device int that only this stream's work touches;
/// `scratch(bytes)` returns device scratch for the packed A (asked for only when it is needed, so
/// a bad call throws before anything is allocated); ctx gives the tuning and the cuBLAS handle.
/// With a map of live tiles (gemm_tiles) the kernels compute only those (cuBLAS: all of C).
template <semiring_type S, class Scratch>
void enqueue(dense_view<typename S::value_type const, device> a,
             dense_view<typename S::value_type const, device> b,
             dense_view<typename S::value_type, device> c, bool accumulate, cudaStream_t st,
             int* flag, Scratch&& scratch, context& ctx, gemm_tiles tiles = {}) {
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
                                                          tune.split_k_blocks, tiles.pack_cap)
                                           : k_split{};
            void* const p =
                scratch(packed_a_bytes(c.rows, a.cols, sizeof(T), tiles.pack_cap) +
                        split_partials_bytes(ks, c.rows, a.cols, c.cols, sizeof(T),
                                             tiles.pack_cap));
            enqueue_staged<S>(a, b, c, accumulate, st, flag, p, ks, tune.checked_min_updates,
                              tiles);
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
        launch_gemm<S, ranged>(a, b, c, accumulate, flag, 0, st, tiles);
        launch_gemm<S, generic_policy<S>>(a, b, c, accumulate, flag, 1, st, tiles);
    } else {
        (void)flag;
        launch_gemm<S, generic_policy<S>>(a, b, c, accumulate, nullptr, 0, st, tiles);
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
    // From the context's pool, on st (the context's stream, or the one a caller's product runs on).
    return grow_scratch(ctx.state().workspace, bytes,
                        kleene::cuda::detail::device_stream(
                            st, static_cast<cudaMemPool_t>(cuda::memory_pool(ctx))));
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
    kleene::cuda::detail::end_of_call(st);
}

/// A scratch callback for enqueue: `bytes` from the pool on ds for this product only, held by
/// `owner` (released on ds behind the product when it goes).
inline auto call_scratch(kleene::cuda::detail::stream_buffer<unsigned char>& owner,
                         kleene::cuda::detail::device_stream ds) {
    return [&owner, ds](std::size_t bytes) {
        owner = kleene::cuda::detail::stream_buffer<unsigned char>(bytes, ds);
        return static_cast<void*>(owner.data());
    };
}

/// The product into C's tiles that `sample` allows an entry of (the live-tile map made on ctx's
/// stream, from its pool), then as run().
template <semiring_type S>
void run_sampled(dense_view<typename S::value_type const, device> a,
                 dense_view<typename S::value_type const, device> b,
                 dense_view<typename S::value_type, device> c, dense_mask const& sample,
                 context& ctx) {
    using T = typename S::value_type;
    check_shapes<T>(a, b, c);
    sample.require_size(c.rows, c.cols, "dense_gemm");
    if (!sample.active() || c.rows == 0 || c.cols == 0 || c.ld != c.cols) {
        // No mask, nothing to compute, or C a sub-block (the flags are C's own rows): all of C.
        run<S>(a, b, c, false, ctx);
        return;
    }
    auto const st = static_cast<cudaStream_t>(ctx.stream());
    std::size_t const tiles_m = (c.rows + block_m - 1) / block_m;
    std::size_t const tiles_n = (c.cols + block_n - 1) / block_n;
    if (tiles_m > 65535)
        throw invalid_argument("dense_gemm: more than 65535 * 128 rows are not supported");
    kleene::cuda::detail::device_stream const ds(
        st, static_cast<cudaMemPool_t>(cuda::memory_pool(ctx)));
    kleene::cuda::detail::stream_buffer<std::uint8_t> live(tiles_m * tiles_n, ds);
    kleene::cuda::detail::order_after(sample.stream(), st);
    live_tiles_kernel<std::uint8_t>
        <<<dim3(static_cast<unsigned>(tiles_n), static_cast<unsigned>(tiles_m)), threads, 0, st>>>(
            sample.flags(), sample.complemented(), static_cast<int>(c.rows),
            static_cast<int>(c.cols), live.data(), static_cast<int>(tiles_n));
    KLEENE_CUDA_CHECK_LAUNCH("live_tiles_kernel");
    int* const flag = needs_flag<S> ? kleene::cuda::detail::context_flag(ctx) : nullptr;
    gemm_tiles tiles{live.data(), tiles_n};
    kleene::cuda::detail::stream_buffer<unsigned char> scratch;
    if (ctx.supplied_workspace()) {
        // The caller's workspace holds dense_gemm_scratch_bytes: the usual panels.
        enqueue<S>(a, b, c, false, st, flag,
                   [&](std::size_t bytes) { return context_workspace(ctx, bytes, st); }, ctx,
                   tiles);
    } else {
        // All of A packed at once (one panel, so that every live tile runs in one launch), up to
        // sampled_pack_cap_bytes, in scratch from the pool for this call only.
        std::size_t const k_pad = (a.cols + staged_k - 1) / staged_k * staged_k;
        std::size_t const m_pad = (c.rows + block_m - 1) / block_m * block_m;
        tiles.pack_cap =
            std::max(pack_cap_bytes, std::min(k_pad * m_pad * sizeof(T), sampled_pack_cap_bytes));
        enqueue<S>(a, b, c, false, st, flag, call_scratch(scratch, ds), ctx, tiles);
    }
    kleene::cuda::detail::end_of_call(st);
}

}  // namespace kleene::cuda::gemm_detail

namespace kleene::cuda {

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device> a,
                dense_view<typename S::value_type const, device> b,
                dense_view<typename S::value_type, device> c, dense_mask const& sample,
                context& ctx) {
    gemm_detail::run_sampled<dense_safe<S>>(a, b, c, sample, ctx);
}

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
    context& x = resolve(ctx);
    auto const st = static_cast<cudaStream_t>(s.native());
    if (st == static_cast<cudaStream_t>(x.stream())) {
        // The context's own stream: its workspace and flag, as the synchronous form (no wait).
        gemm_detail::enqueue<P>(
            a, b, c, accumulate, st,
            gemm_detail::needs_flag<P> ? kleene::cuda::detail::context_flag(x) : nullptr,
            [&](std::size_t bytes) { return gemm_detail::context_workspace(x, bytes, st); }, x);
        return;
    }
    // Another stream: the flag and the packed operand for this product only, from the context's
    // pool on that stream, released there behind it.
    detail::device_stream const ds(st, static_cast<cudaMemPool_t>(cuda::memory_pool(x)));
    detail::stream_buffer<int> flag;
    if constexpr (gemm_detail::needs_flag<P>) flag = detail::stream_buffer<int>(1, ds);
    detail::stream_buffer<unsigned char> scratch;
    gemm_detail::enqueue<P>(a, b, c, accumulate, st, flag.data(),
                            gemm_detail::call_scratch(scratch, ds), x);
}

}  // namespace kleene::cuda

// The JIT's semiring closure (jit::closure, kleene/cuda/jit.hpp): R-Kleene's recursion
// (kleene/detail/rkleene_recursion.hpp) run on the host, enqueuing on the context's stream the
// JIT's dense GEMM for the products and the closure family's kernels (closure_kernels.cuh) for
// the base case, the adds of products into their targets, the NaN scans and the diagonal. The
// checks' flags come back in one read at the end, the call's only wait.

#pragma nv_diag_suppress 554  // see dense_gemm/policies.cuh

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/closure_kernels.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/detail/jit_modules.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/detail/rkleene_recursion.hpp>
#include <kleene/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace kleene::cuda::jit {
static_assert(closure_block_side == std::size_t(closure_detail::block_side),
              "jit.hpp's closure_block_side is the base kernel's block side");
namespace {

/// A built-in or composed semiring whose multiply has no identity (first, second, pair): its
/// `one` means nothing. Source text is the user's word.
bool multiply_without_identity(semiring_source const& s) {
    for (char const* m : {"first", "second", "pair"})
        if (s.builtin_type.find(std::string("_") + m + "<") != std::string::npos ||
            s.builtin_type.find(std::string("::") + m + "_op<") != std::string::npos)
            return true;
    return false;
}

/// The closure family's kernels, in jit_modules.hpp's order.
struct closure_kernels {
    void const* close_block;
    void const* add_into;
    void const* finish_diagonal;
    void const* find_nan;
};

unsigned grid_for(std::size_t items) {
    return cuda::detail::blocks_for(items, closure_detail::threads,
                                    cuda::detail::persistent_blocks(8));
}

/// rkleene_recurse's backend: base cases by close_block, products by the JIT's GEMM (through
/// the workspace and add_into where the target is an operand).
template <class T>
struct closure_backend {
    using view = dense_view<T, device>;
    std::size_t base_size;
    semiring_source const* s;
    context* ctx;
    closure_kernels k;
    view ws;
    cudaStream_t st;

    static std::size_t split(std::size_t n) { return n / 2; }
    void base(view a) const {
        T* p = a.data;
        auto ld = static_cast<std::int64_t>(a.ld);
        int n = static_cast<int>(a.rows);
        void* args[] = {&p, &ld, &n};
        KLEENE_CUDA_CHECK(cudaLaunchKernel(k.close_block, dim3(1),
                                           dim3(closure_detail::block_threads), args, 0, st));
    }
    void mul_add(view c, view x, view y, bool disjoint) const {
        if (disjoint) {
            detail::enqueue_dense_gemm<T>(x, y, c, true, *s, *ctx, nullptr);
            return;
        }
        view const t{ws.data, c.rows, c.cols, ws.ld};
        detail::enqueue_dense_gemm<T>(x, y, t, false, *s, *ctx, nullptr);
        T* cp = c.data;
        T const* tp = t.data;
        auto ldc = static_cast<std::int64_t>(c.ld), ldt = static_cast<std::int64_t>(t.ld);
        auto rows = static_cast<std::int64_t>(c.rows), cols = static_cast<std::int64_t>(c.cols);
        void* args[] = {&cp, &ldc, &tp, &ldt, &rows, &cols};
        KLEENE_CUDA_CHECK(cudaLaunchKernel(k.add_into, dim3(grid_for(c.rows * c.cols)),
                                           dim3(closure_detail::threads), args, 0, st));
    }
};

/// find_nan over a into *flag (set to ~0 first), on st.
template <class T>
void scan_nan(closure_kernels const& k, dense_view<T, device> a, unsigned long long* flag,
              cudaStream_t st) {
    KLEENE_CUDA_CHECK(cudaMemsetAsync(flag, 0xff, sizeof(unsigned long long), st));
    if constexpr (std::is_floating_point_v<T>) {
        T const* p = a.data;
        auto ld = static_cast<std::int64_t>(a.ld);
        auto rows = static_cast<std::int64_t>(a.rows), cols = static_cast<std::int64_t>(a.cols);
        void* args[] = {&p, &ld, &rows, &cols, &flag};
        KLEENE_CUDA_CHECK(cudaLaunchKernel(k.find_nan, dim3(grid_for(a.rows * a.cols)),
                                           dim3(closure_detail::threads), args, 0, st));
    }
}

}  // namespace

template <class T>
void closure(dense_view<T, device> a, semiring_source const& s, bool reflexive, context& ctx,
             std::size_t base, report* r) {
    detail::check_value_type(s, detail::cpp_name<T>(), "closure");
    if (a.rows != a.cols)
        throw dimension_mismatch("semiring_closure: the matrix must be square, not " +
                                 kleene::detail::shape(a.rows, a.cols));
    if (!s.idempotent_add)
        throw invalid_argument(
            "semiring_closure: the add of " + s.name +
            " is not idempotent (x (+) x != x, as plus and times; semiring_source::idempotent_add "
            "is false): the closure sums paths that R-Kleene and Floyd-Warshall reach more than "
            "once, so it runs over idempotent adds only (min, max, lor, land, any)");
    if (multiply_without_identity(s))
        throw invalid_argument("semiring_closure: the multiply of " + s.name +
                               " has no identity (first, second, pair), which the closure's "
                               "one (the empty path, and its cycle test) needs");
    std::size_t const n = a.rows;
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw invalid_argument("semiring_closure: dimensions past 2^31 - 1 are not supported");
    if (n == 0) return;
    auto const& ks = detail::kernels(ctx, family::closure, s, "int32_t", r);
    closure_kernels const k{ks[0], ks[1], ks[2], ks[3]};
    // The context's stream, and its pool for the flags and the workspace.
    cuda::detail::device_stream const st = cuda::detail::stream_of(ctx);
    if (base == 0 || base > closure_block_side) base = closure_block_side;

    // flags: the input's first NaN, the result's first NaN, the first vertex the check refuses.
    cuda::detail::stream_buffer<unsigned long long> flags(3, st);
    scan_nan(k, a, flags.data(), st);

    using backend = closure_backend<T>;
    std::size_t const w = kleene::detail::rkleene_workspace_side<backend>(n, base);
    cuda::detail::stream_buffer<T> ws(w * w, st);
    backend be{base, &s, &ctx, k, dense_view<T, device>{ws.data(), w, w, w}, st};
    kleene::detail::rkleene_recurse(be, a);

    scan_nan(k, a, flags.data() + 1, st);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(flags.data() + 2, 0xff, sizeof(unsigned long long), st));
    {
        T* p = a.data;
        auto ld = static_cast<std::int64_t>(a.ld);
        auto nn = static_cast<std::int64_t>(n);
        int refl = reflexive ? 1 : 0;
        unsigned long long* first = flags.data() + 2;
        void* args[] = {&p, &ld, &nn, &refl, &first};
        KLEENE_CUDA_CHECK(cudaLaunchKernel(k.finish_diagonal, dim3(grid_for(n)),
                                           dim3(closure_detail::threads), args, 0, st));
    }
    unsigned long long found[3];
    KLEENE_CUDA_CHECK(
        cudaMemcpyAsync(found, flags.data(), sizeof found, cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    constexpr auto none = ~0ull;
    for (int which = 0; which < 2; ++which)
        if (found[which] != none)
            throw invalid_argument(kleene::detail::closure_nan_message(
                found[which] / n, found[which] % n, which == 1));
    if (found[2] != none) {
        auto const v = static_cast<std::int64_t>(found[2]);
        T d{};  // finish_diagonal left the refused entry as it was
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(&d, a.data + found[2] * a.ld + found[2], sizeof(T),
                                          cudaMemcpyDeviceToHost, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        throw negative_cycle(v, kleene::detail::closure_cycle_message(
                                    v, s.one, kleene::detail::closure_value_text(d), s.name));
    }
}

#define KLEENE_JIT_CLOSURE(T)                                                                      \
    template void closure<T>(dense_view<T, device>, semiring_source const&, bool, context&,       \
                             std::size_t, report*);
KLEENE_JIT_CLOSURE(float)
KLEENE_JIT_CLOSURE(double)
KLEENE_JIT_CLOSURE(std::int32_t)
KLEENE_JIT_CLOSURE(std::int64_t)
#undef KLEENE_JIT_CLOSURE

}  // namespace kleene::cuda::jit

#pragma once
// R-Kleene (Buluc, Gilbert, Budak: "Solving path problems on the GPU", Figure 3): the closure of a
// square matrix in place, by recursion on its 2 x 2 blocks (floor/ceil split):
//   A11 = A11*; A12 += A11 A12; A21 += A21 A11; A22 += A21 A12;
//   A22 = A22*; A21 += A22 A21; A12 += A12 A22; A11 += A12 A21
// ("+=" is the semiring's add). With a zero (one()) diagonal set beforehand this is the reflexive
// closure A* (APSP over min_plus); without it, over lor_land, it is A+ (paths of one edge or
// more): every step is then X (+)= Y Z, which also equals the star form's X = Y Z where Y or Z has
// an identity diagonal. Work: n^3 updates, as Floyd-Warshall, but almost all in large GEMMs.
//
// A22 += A21 A12 and A11 += A12 A21 accumulate in place (their inputs share no element with the
// output). The other four read their output: the product goes into a workspace tile and is then
// added into its target. Memory cost: one ceil(n/2) x ceil(n/2) workspace (25% of the matrix) on
// top of the matrix itself. The GPU recursion enqueues everything on one stream (no host
// synchronisation until the end). The recursion itself is kleene/detail/rkleene_recursion.hpp's
// (shared with the semiring closure, semiring_closure.hpp, and the JIT's jit::closure).

#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/rkleene_recursion.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace kleene {

namespace detail {

template <class T>
struct rkleene_cpu_backend {
    using S = min_plus<T>;
    std::size_t base_size;
    dense_matrix<T> ws;
    step_hook const* on_step = nullptr;  // before each base case and product
    static std::size_t split(std::size_t n) { return n / 2; }
    void base(dense_view<T> a) const {
        if (on_step) detail::step(*on_step);
        floyd_warshall_blocked(a);
    }
    void mul_add(dense_view<T> c, dense_view<T> x, dense_view<T> y, bool disjoint) {
        if (on_step) detail::step(*on_step);
        if (disjoint) {
            cpu::dense_gemm<S>(x, y, c, true);
            return;
        }
        dense_view<T> const t{ws.data(), c.rows, c.cols, ws.ld()};
        cpu::dense_gemm<S>(x, y, t, false);
#pragma omp parallel for schedule(static) if (c.rows * c.cols >= (1u << 16))
        for (std::size_t i = 0; i < c.rows; ++i)
            for (std::size_t j = 0; j < c.cols; ++j) c(i, j) = S::add(c(i, j), t(i, j));
    }
};

/// The GPU recursion, enqueued on stream s: blocked Floyd-Warshall base cases, workspace ws.
/// With a side stream (and its workspace side_ws), independent pairs of products that fit
/// side_ws run concurrently: small products fill few of the GPU's SMs.
template <class T>
struct rkleene_gpu_backend {
    using view = dense_view<T, device>;
    std::size_t base_size;
    view ws;
    cuda::stream const* s;
    cuda::stream const* side = nullptr;
    view side_ws{};
    cuda::event* fork = nullptr;
    cuda::event* join = nullptr;
    context* ctx = nullptr;  // tuning and scratch (null: default_context())

    static std::size_t split(std::size_t n) { return n / 2; }
    void base(view a) const { cuda::floyd_warshall_blocked<T>(a, *s, ctx); }
    /// c (+)= x (x) y on stream st, through workspace w unless c shares nothing with x and y.
    void product(view c, view x, view y, bool disjoint, view w, cuda::stream const& st) const {
        if (disjoint) {
            cuda::dense_gemm<min_plus<T>>(x, y, c, true, st, ctx);
            return;
        }
        view const t{w.data, c.rows, c.cols, w.ld};
        cuda::dense_gemm<min_plus<T>>(x, y, t, false, st, ctx);
        cuda::min_into<T>(c, t, st);
    }
    void mul_add(view c, view x, view y, bool disjoint) const {
        product(c, x, y, disjoint, ws, *s);
    }
    void mul_add_pair(view c1, view x1, view y1, view c2, view x2, view y2) const {
        if (!side || c2.rows > side_ws.rows || c2.cols > side_ws.cols) {
            mul_add(c1, x1, y1, false);
            mul_add(c2, x2, y2, false);
            return;
        }
        fork->record(*s);
        side->wait(*fork);
        product(c2, x2, y2, false, side_ws, *side);
        product(c1, x1, y1, false, ws, *s);
        join->record(*side);
        s->wait(*join);
    }
};

/// The Boolean recursion on bit-packed views, enqueued on stream s: Warshall on blocks of at most
/// base_size, or-and products through the workspace ws (the out-of-core closure's diagonal blocks
/// too, ooc_floyd_warshall.hpp).
struct rkleene_bits_backend {
    std::size_t base_size = cuda::bit_warshall_max;
    cuda::bit_view<std::uint64_t> ws;
    cuda::stream const* s;
    /// Splits at a multiple of 64: bit views start columns at whole words.
    static std::size_t split(std::size_t n) { return std::max<std::size_t>(64, n / 2 / 64 * 64); }
    void base(cuda::bit_view<std::uint64_t> a) const { cuda::bit_warshall(a, *s); }
    void mul_add(cuda::bit_view<std::uint64_t> c, cuda::bit_view<std::uint64_t> x,
                 cuda::bit_view<std::uint64_t> y, bool) const {
        cuda::bit_view<std::uint64_t> const t{ws.data, c.rows, c.cols, ws.ld};
        cuda::bool_gemm(x, y, t, false, *s);
        cuda::or_into(c, t, *s);
    }
};

}  // namespace detail

/// Default base-case sizes (blocked Floyd-Warshall below them).
inline constexpr std::size_t rkleene_cpu_base = 256;
inline constexpr std::size_t rkleene_gpu_base = 1024;
/// GPU: subproblems up to this size run their two independent products concurrently (a second
/// stream and a second workspace of (size / 2 + 1)^2 entries, at most 256 MiB for 4-byte types);
/// 0 turns it off. 16384 was the fastest of 0, 4096, 8192 and 16384 at n = 16384 (bench_apsp_gpu
/// RKLEENE_CONCURRENT): the paired top-level products fill the tail of each other's last wave.
inline constexpr std::size_t rkleene_gpu_concurrent = 16384;

/// min_plus closure in place on the CPU, over the CPU GEMM. The diagonal must already hold
/// min(a(i,i), 0). on_step runs before each product and base case.
template <class T>
void rkleene(dense_view<T> a, std::size_t base = rkleene_cpu_base, step_hook const& on_step = {}) {
    detail::require_square("rkleene", a.rows, a.cols);
    base = std::max<std::size_t>(base, 1);
    std::size_t const w = detail::rkleene_workspace_side<detail::rkleene_cpu_backend<T>>(a.rows, base);
    detail::rkleene_cpu_backend<T> be{base, dense_matrix<T>(w, w), &on_step};
    detail::rkleene_recurse(be, a);
}

/// Device memory the GPU rkleene takes beside the matrix: its workspaces and the GEMMs' packed
/// operands, for the main stream and (subproblems up to `concurrent`) the side stream.
template <class T>
std::size_t rkleene_gpu_extra_bytes(std::size_t n, std::size_t base = rkleene_gpu_base,
                                    std::size_t concurrent = rkleene_gpu_concurrent) {
    using backend = detail::rkleene_gpu_backend<T>;
    base = std::max<std::size_t>(base, 64);
    std::size_t const w = detail::rkleene_workspace_side<backend>(n, base);
    std::size_t const side_w =
        std::min(w, detail::rkleene_workspace_side<backend>(std::min(n, concurrent), base));
    return (w * w + side_w * side_w) * sizeof(T) + cuda::dense_gemm_scratch_bytes(w, w, w, sizeof(T)) +
           cuda::dense_gemm_scratch_bytes(side_w, side_w, side_w, sizeof(T));
}

/// The same on the GPU: host-side recursion over device views, the GPU GEMM for the six
/// products, the blocked Floyd-Warshall kernel as the base case; all enqueued on the context's
/// stream (ctx, or the calling thread's default_context()), after the work queued there before,
/// with the two independent products of small subproblems on a second stream forked from it and
/// joined back by events; returns once the context's stream has done the work.
template <class T>
void rkleene(dense_view<T, device> a, std::size_t base = rkleene_gpu_base,
             std::size_t concurrent = rkleene_gpu_concurrent, context* ctx = nullptr) {
    detail::require_square("rkleene", a.rows, a.cols);
    base = std::max<std::size_t>(base, 64);
    using backend = detail::rkleene_gpu_backend<T>;
    std::size_t const w = detail::rkleene_workspace_side<backend>(a.rows, base);
    std::size_t const side_w =
        std::min(w, detail::rkleene_workspace_side<backend>(std::min(a.rows, concurrent), base));
    context& c = resolve(ctx);
    cuda::stream const s = cuda::stream::borrow(c.stream());
    {
        // The workspaces from the context's pool on its stream, released there behind the work
        // before the wait below (the pool hands back what it does not keep at that wait).
        cuda::temporary_matrix<T> const ws(w, w, c);
        cuda::temporary_matrix<T> const side_ws(side_w, side_w, c);
        backend be{base, ws.view(), &s};
        be.ctx = &c;
        std::optional<cuda::stream> side;
        cuda::event fork, join;
        // The side stream's work is joined back by the recursion; after a failure it may not be:
        // it must be done before the side workspace is released on the context's stream.
        struct side_done {
            std::optional<cuda::stream>& side;
            ~side_done() {
                if (side) {
                    try {
                        side->synchronize();
                    } catch (...) {  // already failing: that error is the one reported
                    }
                }
            }
        } const wait_side{side};
        if (side_w > 0) {
            side.emplace();
            be.side = &*side;
            be.side_ws = side_ws.view();
            be.fork = &fork;
            be.join = &join;
        }
        detail::rkleene_recurse(be, a);
    }
    cuda::return_temporaries(c);
}

/// Boolean closure A+ in place on a bit-packed device view (bool_gemm products, Warshall on
/// blocks of at most 512 as the base case), enqueued on the context's stream (ctx, or the calling
/// thread's default_context()) after the work queued there; the workspace, one bit matrix of the
/// larger half, a temporary of the context's pool. Returns once that stream has done the work.
inline void rkleene(cuda::bit_view<std::uint64_t> a, context* ctx = nullptr) {
    detail::require_square("rkleene", a.rows, a.cols);
    std::size_t const w =
        detail::rkleene_workspace_side<detail::rkleene_bits_backend>(a.rows, cuda::bit_warshall_max);
    context& c = resolve(ctx);
    cuda::stream const s = cuda::stream::borrow(c.stream());
    {
        std::size_t const ld = (w + cuda::bits_per_word - 1) / cuda::bits_per_word;
        cuda::temporary_matrix<std::uint64_t> const ws(w, ld, c);
        detail::rkleene_bits_backend const be{cuda::bit_warshall_max, {ws.data(), w, w, ld}, &s};
        detail::rkleene_recurse(be, a);
    }
    cuda::return_temporaries(c);
}
inline void rkleene(cuda::bit_matrix& a, context* ctx = nullptr) { rkleene(a.view(), ctx); }

}  // namespace kleene

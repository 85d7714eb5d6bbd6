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
// Every product goes into a workspace tile and is then added into its target: the GPU products
// refuse an output whose address range overlaps an input's, and two blocks of one row band
// always do. Memory cost: one ceil(n/2) x ceil(n/2) workspace (25% of the matrix) on top of the
// matrix itself. The CPU backend writes A22 and A11 directly (their inputs share no element).

#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/cuda/apsp.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kleene {

namespace detail {

/// The recursion, over a backend with split(n), base(view), and mul_add(c, x, y, disjoint):
/// c (+)= x (x) y, where `disjoint` says c shares no element with x or y.
template <class Backend, class View>
void rkleene_recurse(Backend& be, View a) {
    std::size_t const n = a.rows;
    if (n <= be.base_size) {
        be.base(a);
        return;
    }
    std::size_t const n1 = be.split(n);
    std::size_t const n2 = n - n1;
    View const a11 = a.block(0, 0, n1, n1);
    View const a12 = a.block(0, n1, n1, n2);
    View const a21 = a.block(n1, 0, n2, n1);
    View const a22 = a.block(n1, n1, n2, n2);
    rkleene_recurse(be, a11);
    be.mul_add(a12, a11, a12, false);
    be.mul_add(a21, a21, a11, false);
    be.mul_add(a22, a21, a12, true);
    rkleene_recurse(be, a22);
    be.mul_add(a21, a22, a21, false);
    be.mul_add(a12, a12, a22, false);
    be.mul_add(a11, a12, a21, true);
}

template <class T>
struct rkleene_cpu_backend {
    using S = min_plus<T>;
    std::size_t base_size;
    dense_matrix<T> ws;
    static std::size_t split(std::size_t n) { return n / 2; }
    void base(dense_view<T> a) const { floyd_warshall_blocked(a); }
    void mul_add(dense_view<T> c, dense_view<T> x, dense_view<T> y, bool disjoint) {
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

template <class T>
struct rkleene_gpu_backend {
    std::size_t base_size;
    dense_matrix<T, device> ws;
    static std::size_t split(std::size_t n) { return n / 2; }
    void base(dense_view<T, device> a) const { cuda::floyd_warshall_blocked<T>(a); }
    void mul_add(dense_view<T, device> c, dense_view<T, device> x, dense_view<T, device> y, bool) {
        dense_view<T, device> const t{ws.data(), c.rows, c.cols, ws.ld()};
        cuda::dense_gemm<min_plus<T>>(x, y, t, false);
        cuda::min_into<T>(c, t);
    }
};

struct rkleene_bits_backend {
    std::size_t base_size = cuda::bit_warshall_max;
    cuda::bit_matrix ws;
    /// Splits at a multiple of 64: bit views start columns at whole words.
    static std::size_t split(std::size_t n) { return std::max<std::size_t>(64, n / 2 / 64 * 64); }
    void base(cuda::bit_view<std::uint64_t> a) const { cuda::bit_warshall(a); }
    void mul_add(cuda::bit_view<std::uint64_t> c, cuda::bit_view<std::uint64_t> x,
                 cuda::bit_view<std::uint64_t> y, bool) {
        cuda::bit_view<std::uint64_t> const t{ws.data(), c.rows, c.cols, ws.ld()};
        cuda::bool_gemm(x, y, t, false);
        cuda::or_into(c, t);
    }
};

/// The largest block a product of the recursion writes: max(n1, n2) of the top split.
template <class Backend>
std::size_t rkleene_workspace_side(std::size_t n, std::size_t base_size) {
    if (n <= base_size) return 0;
    std::size_t const n1 = Backend::split(n);
    return std::max(n1, n - n1);
}

}  // namespace detail

/// Default base-case sizes (blocked Floyd-Warshall below them).
inline constexpr std::size_t rkleene_cpu_base = 256;
inline constexpr std::size_t rkleene_gpu_base = 256;

/// min_plus closure in place on the CPU, over the CPU GEMM. The diagonal must already hold
/// min(a(i,i), 0).
template <class T>
void rkleene(dense_view<T> a, std::size_t base = rkleene_cpu_base) {
    detail::require_square("rkleene", a.rows, a.cols);
    base = std::max<std::size_t>(base, 1);
    std::size_t const w = detail::rkleene_workspace_side<detail::rkleene_cpu_backend<T>>(a.rows, base);
    detail::rkleene_cpu_backend<T> be{base, dense_matrix<T>(w, w)};
    detail::rkleene_recurse(be, a);
}

/// The same on the GPU: host-side recursion over device views, the GPU GEMM for the six
/// products, the blocked Floyd-Warshall kernel as the base case.
template <class T>
void rkleene(dense_view<T, device> a, std::size_t base = rkleene_gpu_base) {
    detail::require_square("rkleene", a.rows, a.cols);
    base = std::max<std::size_t>(base, 64);
    std::size_t const w = detail::rkleene_workspace_side<detail::rkleene_gpu_backend<T>>(a.rows, base);
    detail::rkleene_gpu_backend<T> be{base, dense_matrix<T, device>(w, w)};
    detail::rkleene_recurse(be, a);
}

/// Boolean closure A+ in place on a bit-packed device matrix (bool_gemm products, Warshall on
/// blocks of at most 512 as the base case). Workspace: one bit matrix of the larger half.
inline void rkleene(cuda::bit_matrix& a) {
    detail::require_square("rkleene", a.rows(), a.cols());
    std::size_t const w =
        detail::rkleene_workspace_side<detail::rkleene_bits_backend>(a.rows(), cuda::bit_warshall_max);
    detail::rkleene_bits_backend be;
    if (w > 0) be.ws = cuda::bit_matrix(w, w);
    detail::rkleene_recurse(be, a.view());
}

}  // namespace kleene

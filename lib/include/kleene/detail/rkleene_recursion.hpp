#pragma once
// R-Kleene's recursion on a square matrix's 2 x 2 blocks, over a backend that supplies the base
// case and the products (the algorithm and its invariants: kleene/algorithms/rkleene.hpp). Here,
// below the algorithms, so that lib/cuda's JIT closure (jit::closure) runs the same recursion as
// the host and GPU rkleene and the semiring closure of kleene/algorithms/semiring_closure.hpp.

#include <cstddef>

namespace kleene::detail {

/// Two products that read their outputs and are independent of each other: the backend's
/// mul_add_pair where it has one (the GPU runs them on two streams), else one after the other.
template <class Backend, class View>
void rkleene_pair(Backend& be, View c1, View x1, View y1, View c2, View x2, View y2) {
    if constexpr (requires { be.mul_add_pair(c1, x1, y1, c2, x2, y2); }) {
        be.mul_add_pair(c1, x1, y1, c2, x2, y2);
    } else {
        be.mul_add(c1, x1, y1, false);
        be.mul_add(c2, x2, y2, false);
    }
}

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
    rkleene_pair(be, a12, a11, a12, a21, a21, a11);
    be.mul_add(a22, a21, a12, true);
    rkleene_recurse(be, a22);
    rkleene_pair(be, a21, a22, a21, a12, a12, a22);
    be.mul_add(a11, a12, a21, true);
}

/// The largest block a product of the recursion writes: max(n1, n2) of the top split.
template <class Backend>
std::size_t rkleene_workspace_side(std::size_t n, std::size_t base_size) {
    if (n <= base_size) return 0;
    std::size_t const n1 = Backend::split(n);
    return n - n1 > n1 ? n - n1 : n1;
}

}  // namespace kleene::detail

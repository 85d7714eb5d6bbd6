#pragma once
// R-Kleene's recursion on a square matrix's 2 x 2 blocks, over a backend that supplies the base
// case and the products (the algorithm and its invariants: kleene/algorithms/rkleene.hpp). Here,
// below the algorithms, so that lib/backend/cuda's JIT closure (jit::closure) runs the same
// recursion as the host and GPU rkleene and the semiring closure of
// kleene/algorithms/semiring_closure.hpp.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

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

// ---- the semiring closure's refusals, worded once for the CPU and the JIT (GPU) -----------------

/// A value in a message: %.9g for floating point, as is otherwise.
template <class T>
std::string closure_value_text(T v) {
    if constexpr (std::is_same_v<T, bool>) {
        return v ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
        return buf;
    } else {
        return std::to_string(v);
    }
}

/// Entry (i, j) is NaN in the input, or (made) came out NaN.
inline std::string closure_nan_message(std::size_t i, std::size_t j, bool made) {
    return "semiring_closure: entry (" + std::to_string(i) + ", " + std::to_string(j) + ") " +
           (made ? "came out NaN: the semiring's operations made it (inf - inf, 0 * inf) from the "
                   "input's values"
                 : "is NaN: the closure takes numbers and infinities (an absent entry is the "
                   "semiring's zero)");
}

/// Vertex v's diagonal entry (d) after the closure is not absorbed by one: add(one, d) != one.
/// `one` as text, or empty where the caller does not know its value.
inline std::string closure_cycle_message(std::int64_t v, std::string const& one,
                                         std::string const& d, std::string const& semiring) {
    return "semiring_closure: vertex " + std::to_string(v) + " lies on a cycle that one" +
           (one.empty() ? std::string() : " (" + one + ")") +
           " does not absorb: its diagonal entry came out " + d + " and add(one, it) != one over " +
           semiring +
           " (for min.plus a negative cycle, for max.times one heavier than 1, where paths around "
           "it improve without end); the closure is computed only where one absorbs every cycle";
}

}  // namespace kleene::detail

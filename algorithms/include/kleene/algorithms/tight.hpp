#pragma once
// The tight-edge test of predecessor reconstruction, shared by the host (paths.hpp) and the device
// (algorithms/cuda/src/paths.cu): edge (u, v) of weight w lies on a shortest s -> v path when
// d(s,u) + w == d(s,v). Integers compare exactly (saturating min_plus); floating-point sums count
// as tight within a relative 1e-5 (fp32: 1e-4).

#include <kleene/semiring.hpp>

#include <math.h>

#include <type_traits>

namespace kleene::detail {

template <class T>
KLEENE_HD bool tight(T du, T w, T dv) {
    if constexpr (std::is_floating_point_v<T>) {
        double const tol = std::is_same_v<T, float> ? 1e-4 : 1e-5;
        double const s = double(du) + double(w);
        return fabs(s - double(dv)) <= tol * (fabs(double(du)) + fabs(double(w)) + fabs(double(dv)) + 1.0);
    } else {
        return min_plus<T>::mul(du, w) == dv;
    }
}

}  // namespace kleene::detail

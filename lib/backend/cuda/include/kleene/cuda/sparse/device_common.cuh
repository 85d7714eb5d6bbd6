#pragma once
// The device side the sparse products share, without host code: NVRTC compiles it too (the JIT,
// kleene/cuda/jit.hpp). The mask as a kernel reads it, the semiring's add as a functor, and the
// absent-operand and terminal tests.

#include <kleene/cuda/detail/device_functions.cuh>
#include <kleene/semiring.hpp>

#include <cstdint>

namespace kleene::cuda::sparse_detail {

using detail::atomic_add;
using detail::value_at;

/// The mask as a kernel reads it (flags == nullptr: no mask).
struct mask_ref {
    std::uint8_t const* flags = nullptr;
    bool complemented = false;
    __device__ __forceinline__ bool allows(std::int64_t i) const {
        return !flags || ((flags[i] != 0) != complemented);
    }
};

template <class S>
struct add_fn {
    using T = typename S::value_type;
    __device__ __forceinline__ T operator()(T a, T b) const { return S::add(a, b); }
};

template <class S>
__device__ __forceinline__ bool skip_operand(typename S::value_type x) {
    // Dense operands hold zero() where absent; that matters only where zero does not annihilate.
    if constexpr (zero_annihilates<S>()) return false;
    else return x == S::zero();
}

template <class S>
__device__ __forceinline__ bool stops(typename S::value_type acc) {
    if constexpr (!S::has_terminal) return false;
    else return !(acc == S::zero()) && is_terminal<S>(acc);
}

}  // namespace kleene::cuda::sparse_detail

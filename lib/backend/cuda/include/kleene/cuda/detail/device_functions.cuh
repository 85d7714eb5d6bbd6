#pragma once
// Device functions without host code, shared by the kernels compiled ahead of time (through
// device.cuh) and by the JIT (NVRTC compiles this header too, kleene/cuda/jit.hpp): semiring
// atomics, shuffles of any value type, the iso-aware value of a CSR entry, a binary search.
// Only <cstdint>, <type_traits> and kleene/semiring.hpp: nothing NVRTC lacks.

#include <kleene/semiring.hpp>

#include <cstdint>
#include <type_traits>

namespace kleene::cuda::detail {

template <class To, class From>
__host__ __device__ __forceinline__ To bits_as(From f) {
    static_assert(sizeof(To) == sizeof(From));
    To t;
    memcpy(&t, &f, sizeof(To));
    return t;
}

/// Entry k's value of a CSR matrix that may be iso (values == nullptr).
template <class T, class I>
__device__ __forceinline__ T value_at(T const* __restrict__ values, T iso, I k) {
    return values ? values[k] : iso;
}

// ---- shuffles of any value type -----------------------------------------------------------------

template <class T>
__device__ __forceinline__ T shfl(unsigned mask, T v, int src, int width = 32) {
    if constexpr (sizeof(T) < 4) return T(__shfl_sync(mask, int(v), src, width));
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return T(__shfl_sync(mask, static_cast<long long>(v), src, width));
    else return __shfl_sync(mask, v, src, width);
}
template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, T v, unsigned delta, int width = 32) {
    if constexpr (sizeof(T) < 4) return T(__shfl_up_sync(mask, int(v), delta, width));
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return T(__shfl_up_sync(mask, static_cast<long long>(v), delta, width));
    else return __shfl_up_sync(mask, v, delta, width);
}
template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, T v, unsigned delta, int width = 32) {
    if constexpr (sizeof(T) < 4) return T(__shfl_down_sync(mask, int(v), delta, width));
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return T(__shfl_down_sync(mask, static_cast<long long>(v), delta, width));
    else return __shfl_down_sync(mask, v, delta, width);
}

// ---- atomics ------------------------------------------------------------------------------------

/// *p = f(*p) atomically for 4- and 8-byte values (CAS loop); stops without writing when f leaves
/// the value unchanged (min / max that lose touch memory once).
template <class T, class F>
__device__ __forceinline__ void atomic_update(T* p, F const& f) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8,
                  "kleene: a generic GPU atomic needs a 4- or 8-byte value type");
    using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    W* w = reinterpret_cast<W*>(p);
    W old = *reinterpret_cast<W volatile*>(w);
    while (true) {
        W const desired = bits_as<W>(f(bits_as<T>(old)));
        if (desired == old) return;
        W const seen = atomicCAS(w, old, desired);
        if (seen == old) return;
        old = seen;
    }
}

/// Whether S's additive monoid is built on Op (plus_op, min_op, ...).
template <class S, template <class> class Op>
constexpr bool add_is() {
    if constexpr (requires { typename S::add_monoid::op_type; })
        return std::is_same_v<typename S::add_monoid::op_type, Op<typename S::value_type>>;
    else return false;
}

/// *p = S::add(*p, v) atomically. lor is an idempotent store (racing writers agree); any keeps a
/// value already there, as any_op does (a CAS from zero; for 1-byte types, where CAS would touch
/// the neighbours, a store of a non-zero v: racing writers may then leave any of their values);
/// plus, min and max use the hardware atomics where they exist.
template <class S>
__device__ __forceinline__ void atomic_add(typename S::value_type* p, typename S::value_type v) {
    using T = typename S::value_type;
    if constexpr (add_is<S, any_op>() && sizeof(T) == 1) {
        if (v != T(0)) *p = v;
    } else if constexpr (add_is<S, any_op>()) {
        if (v != T(0)) atomic_update(p, [v](T c) { return c == T(0) ? v : c; });
    } else if constexpr (add_is<S, lor_op>()) {
        if (v != T(0)) *p = T(1);
    } else if constexpr (add_is<S, plus_op>() &&
                         (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::int32_t>)) {
        atomicAdd(p, v);
    } else if constexpr (add_is<S, plus_op>() &&
                         (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>)) {
        atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    } else if constexpr (add_is<S, min_op>() && std::is_same_v<T, std::int32_t>) {
        atomicMin(p, v);
    } else if constexpr (add_is<S, min_op>() && std::is_same_v<T, std::int64_t>) {
        atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v));
    } else if constexpr (add_is<S, max_op>() && std::is_same_v<T, std::int32_t>) {
        atomicMax(p, v);
    } else if constexpr (add_is<S, max_op>() && std::is_same_v<T, std::int64_t>) {
        atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v));
    } else {
        atomic_update(p, [v](T c) { return S::add(c, v); });
    }
}

/// *p = min(*p, v); returns true when v was smaller than the value seen (this thread improved it).
template <class T>
__device__ __forceinline__ bool atomic_min_improves(T* p, T v) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
        return atomicMin(p, v) > v;
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        return atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v)) > v;
    } else {
        using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
        W* w = reinterpret_cast<W*>(p);
        W old = *reinterpret_cast<W volatile*>(w);
        while (v < bits_as<T>(old)) {
            W const seen = atomicCAS(w, old, bits_as<W>(v));
            if (seen == old) return true;
            old = seen;
        }
        return false;
    }
}

// ---- search -----------------------------------------------------------------------------------

/// The last k in [lo, hi] with offs[k] <= e (offs non-decreasing, offs[lo] <= e).
template <class Off>
__device__ __forceinline__ std::int64_t last_at_most(Off const* offs, std::int64_t lo,
                                                     std::int64_t hi, Off e) {
    while (lo < hi) {
        std::int64_t const mid = lo + (hi - lo + 1) / 2;
        if (offs[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/// The first position in [lo, hi) of the sorted col whose element is at least x (hi if none).
template <class Index>
__device__ __forceinline__ std::int64_t first_at_least(Index const* __restrict__ col,
                                                       std::int64_t lo, std::int64_t hi, Index x) {
    while (lo < hi) {
        std::int64_t const mid = lo + (hi - lo) / 2;
        if (col[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// The first position in [lo, hi) of the sorted col whose element is above x (hi if none).
template <class Index>
__device__ __forceinline__ std::int64_t first_above(Index const* __restrict__ col, std::int64_t lo,
                                                    std::int64_t hi, Index x) {
    while (lo < hi) {
        std::int64_t const mid = lo + (hi - lo) / 2;
        if (col[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

}  // namespace kleene::cuda::detail

#pragma once
// What the operations' one bodies need for device containers (lib/ops): the value types,
// operators and accumulators the CUDA backend's operations are built for, the static checks on a
// device output, the device=cpu refusal, the mask of device containers as the backend reads it
// (device_mask), and KLEENE_NO_MIXED_SPACES, the compile-time refusal of a call that mixes host
// and device containers (no operation copies behind your back). The traits they stand on are
// kleene/detail/spaces.hpp (lib/core).

#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/detail/spaces.hpp>
#include <kleene/error.hpp>
#include <kleene/instance_lists.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>

#include <string>
#include <type_traits>

namespace kleene::detail {

/// The value types the CUDA backend's operations are built for (the registry's KLEENE_OPS_TYPES).
#define KLEENE_GPU_VALUE_TYPE(U) || std::is_same_v<T, U>
template <class T>
inline constexpr bool gpu_value = false KLEENE_OPS_TYPES(KLEENE_GPU_VALUE_TYPE);
#undef KLEENE_GPU_VALUE_TYPE

/// The binary operator the CUDA backend runs for an ewise or kronecker operator: a semiring's add
/// (Add) or mul, a monoid's operator, or the operator itself (with_absent unwrapped).
template <bool Add, class Op>
constexpr auto backend_binary_op(Op const& op_in) {
    auto const& op = unwrap_absent(op_in);
    using O = std::remove_cvref_t<decltype(op)>;
    if constexpr (Add && requires { typename O::add_monoid::op_type; })
        return typename O::add_monoid::op_type{};
    else if constexpr (!Add && requires { typename O::mul_op; })
        return typename O::mul_op{};
    else if constexpr (monoid_type<O> && requires { typename O::op_type; })
        return typename O::op_type{};
    else if constexpr (Add)
        return add_operator(op);
    else
        return mul_operator(op);
}

/// The binary operators the backend's ewise and kronecker kernels are built for.
template <class Bin, class T>
inline constexpr bool gpu_ewise_op =
    std::is_same_v<Bin, plus_op<T>> || std::is_same_v<Bin, times_op<T>> ||
    std::is_same_v<Bin, min_op<T>> || std::is_same_v<Bin, max_op<T>> ||
    std::is_same_v<Bin, first_op<T>> || std::is_same_v<Bin, second_op<T>>;

/// The accumulators of a dense output on the device: none, plus, min.
template <class Accum, class T>
inline constexpr bool gpu_dense_accum = std::is_same_v<Accum, no_accum_t> ||
                                        std::is_same_v<Accum, plus_op<T>> ||
                                        std::is_same_v<Accum, min_op<T>>;
/// The accumulators of a CSR output on the device: none or an ewise operator.
template <class Accum, class T>
inline constexpr bool gpu_csr_accum =
    gpu_dense_accum<Accum, T> || std::is_same_v<Accum, times_op<T>> ||
    std::is_same_v<Accum, max_op<T>> || std::is_same_v<Accum, first_op<T>> ||
    std::is_same_v<Accum, second_op<T>>;

/// The static checks every device operation makes on its output, value type and accumulator.
template <class C, class Accum>
constexpr void check_device_output() {
    using T = typename C::value_type;
    static_assert(gpu_value<T>,
                  "kleene: operations on device containers are built for float, double, int32 and "
                  "int64 values");
    if constexpr (is_csr<C>)
        static_assert(gpu_csr_accum<Accum, T>,
                      "kleene: on the device a CSR output accumulates with none, plus, times, min, "
                      "max, first or second");
    else
        static_assert(gpu_dense_accum<Accum, T>,
                      "kleene: on the device a dense output accumulates with none, plus or min");
}

/// Refuses device=cpu for device containers (the CPU never reads device memory behind the
/// caller's back) and records the backend call in the explain trace.
inline void device_call(char const* op, options const& opt, std::string const& what) {
    if (opt.device == device_choice::cpu)
        throw invalid_argument(std::string(op) +
                               ": device=cpu was asked for device containers; copy them with "
                               "to_host() first");
    if (opt.explain) opt.explain->add(std::string(op) + ": " + what);
}

/// The mask view `mask` of device containers as the CUDA backend reads it for output C: a
/// csr_mask (a device CSR mask with C's index type) for a CSR C, a dense_mask (a dense or CSR
/// device matrix, a dense device vector or a device sparse vector) for a dense C; made on ctx's
/// stream (null: default_context()'s).
template <class C, class Mask>
auto device_mask(Mask const& mask, context* ctx) {
    if constexpr (is_csr<C>) {
        using I = typename C::index_type;
        if constexpr (std::is_same_v<Mask, no_mask_t>) {
            return cuda::csr_mask<I>{};
        } else {
            using M = std::remove_cvref_t<decltype(*mask.m)>;
            static_assert(is_csr<M>,
                          "kleene: a CSR output on the device takes a mask that is a device CSR "
                          "matrix");
            if constexpr (is_csr<M>)
                static_assert(std::is_same_v<typename M::index_type, I>,
                              "kleene: the mask of a CSR output on the device has the output's "
                              "index type");
            return cuda::csr_mask<I>(mask, resolve(ctx));
        }
    } else {
        if constexpr (std::is_same_v<Mask, no_mask_t>) {
            return cuda::dense_mask{};
        } else {
            using M = std::remove_cvref_t<decltype(*mask.m)>;
            static_assert(is_dense<M> || is_csr<M> || is_dense_vec<M> || is_sparse_vec<M>,
                          "kleene: a dense output on the device takes a mask that is a dense or "
                          "CSR device matrix, or a dense or sparse device vector");
            return cuda::dense_mask(mask, resolve(ctx));
        }
    }
}

}  // namespace kleene::detail

/// Declares the catch-all overload of operation NAME that matches only calls mixing host and
/// device containers, and refuses them at compile time with a message naming NAME.
#define KLEENE_NO_MIXED_SPACES(NAME)                                                          \
    template <class... Args>                                                                  \
        requires ::kleene::detail::mixed_spaces<Args...>                                      \
    void NAME(Args&&...) {                                                                    \
        static_assert(::kleene::detail::never<Args...>,                             \
                      "kleene::" #NAME ": the containers of one call live in different memory " \
                      "spaces (host and device); move them with to_device() or to_host() "     \
                      "first: no operation copies behind your back");                         \
    }

#pragma once
// Where the public operations (mxm.hpp, ewise.hpp, apply.hpp, select.hpp, reduce.hpp,
// transpose.hpp, extract_assign.hpp, kronecker.hpp) send a call: host containers to the CPU
// kernels (lib/cpu), device containers to the CUDA backend (lib/cuda, kleene::cuda::), chosen at
// compile time from the containers' memory space. What is here:
//
//   space_of_t<X>            host, device, or void (X is not a container: an operator, a scalar)
//   device_matrix / device_vector / device_operand   the device containers an operation takes
//   device_mask<C>(mask, ctx) a mask view of device containers as the backend reads it
//   KLEENE_NO_MIXED_SPACES   a compile-time error, naming the operation, when one call mixes
//                            host and device containers (no operation copies behind your back)

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/instance_lists.hpp>
#include <kleene/matrix.hpp>
#include <kleene/memory.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/transposed.hpp>
#include <kleene/vector.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace kleene::detail {

template <class X>
struct space_of {
    using type = void;
};
template <class T, class I, class S>
struct space_of<csr_matrix<T, I, S>> {
    using type = S;
};
template <class T, class S>
struct space_of<dense_matrix<T, S>> {
    using type = S;
};
template <class T, class S>
struct space_of<dense_vector<T, S>> {
    using type = S;
};
template <class T, class I, class S>
struct space_of<sparse_vector<T, I, S>> {
    using type = S;
};
template <class T, class I, class S>
struct space_of<matrix<T, I, S>> {
    using type = S;
};
template <class M>
struct space_of<transposed<M>> : space_of<M> {};
template <class M>
struct space_of<mask_view<M>> : space_of<M> {};

template <class X>
using space_of_t = typename space_of<std::remove_cvref_t<X>>::type;

template <class... X>
inline constexpr bool any_host = (std::is_same_v<space_of_t<X>, host> || ...);
template <class... X>
inline constexpr bool any_device = (std::is_same_v<space_of_t<X>, device> || ...);

/// One call names containers in host memory and in device memory.
template <class... X>
concept mixed_spaces = any_host<X...> && any_device<X...>;

template <class...>
inline constexpr bool never = false;

/// The one family of container traits: what a container stores (is_csr, is_dense, is_dense_vec,
/// is_sparse_vec: a CSR matrix, a dense matrix, a dense vector, a sparse vector, in either space)
/// and where it lives (space_of_t above, in_space below). An operation's one body dispatches on
/// the space once and on the storage once; the concepts below say which containers a space's
/// operations take.
template <class X>
inline constexpr bool is_csr = false;
template <class T, class I, class Space>
inline constexpr bool is_csr<csr_matrix<T, I, Space>> = true;
template <class X>
inline constexpr bool is_dense = false;
template <class T, class Space>
inline constexpr bool is_dense<dense_matrix<T, Space>> = true;
template <class X>
inline constexpr bool is_dense_vec = false;
template <class T, class Space>
inline constexpr bool is_dense_vec<dense_vector<T, Space>> = true;
template <class X>
inline constexpr bool is_sparse_vec = false;
template <class T, class I, class Space>
inline constexpr bool is_sparse_vec<sparse_vector<T, I, Space>> = true;

/// Whether X is a container (or a transpose view or mask of one) in Space.
template <class X, class Space>
inline constexpr bool in_space = std::is_same_v<space_of_t<X>, Space>;

template <class M>
concept host_matrix = (is_csr<M> || is_dense<M>) && in_space<M, host>;
template <class V>
concept host_vector = (is_sparse_vec<V> || is_dense_vec<V>) && in_space<V, host>;

template <class M>
concept device_matrix = (is_csr<M> || is_dense<M>) && in_space<M, device>;
template <class V>
concept device_vector = (is_dense_vec<V> || is_sparse_vec<V>) && in_space<V, device>;
/// A device matrix or the view transpose(A) of one.
template <class M>
concept device_operand = device_matrix<M> || (is_transposed<M> && requires {
    requires device_matrix<std::remove_cvref_t<decltype(*std::declval<M>().m)>>;
});

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
/// csr_mask (a device CSR mask with C's index type) for a CSR C, a dense_mask (a dense device
/// matrix or vector, or a device sparse vector) for a dense C; made on ctx's stream (null:
/// default_context()'s).
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
            static_assert(is_dense<M> || is_dense_vec<M> || is_sparse_vec<M>,
                          "kleene: a dense output on the device takes a mask that is a dense "
                          "device matrix or vector or a device sparse vector");
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

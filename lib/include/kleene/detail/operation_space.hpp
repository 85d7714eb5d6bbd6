#pragma once
// What one operation body needs to serve host and device containers alike (issue 39, item 6: one
// body per operation, its checks, trace and dispatch written once): the operands' descriptions for
// messages, the entry into the containers' space (the CPU's thread scope, or the GPU's device=cpu
// refusal), and an operand as a matrix of that space (a transpose view made, said in the trace).
// The bodies using it so far: apply, select, reduce, kronecker, transpose, ewise_add, ewise_mult,
// extract and assign. The other operations (mxm, mxv, vxm) still have a host and a device overload
// each.

#include <kleene/cpu/transpose.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/spaces.hpp>
#include <kleene/transposed.hpp>

#include <string>
#include <type_traits>

namespace kleene::detail {

/// A matrix operand: a host matrix or a transposed view of one.
template <class M>
concept matrix_operand = host_matrix<M> ||
    (is_transposed<M>&& host_matrix<std::remove_cvref_t<decltype(*std::declval<M>().m)>>);

template <class M>
std::string describe_operand(M const& a) {
    if constexpr (is_transposed<M>)
        return "transpose of " + describe(*a.m);
    else
        return describe(a);
}

/// A' as a new matrix of A's storage.
template <host_matrix M>
M transposed_copy(M const& a) {
    if constexpr (is_csr<M>)
        return cpu::transpose_csr(a);
    else
        return cpu::transpose_dense(a.view());
}

/// The operand as a host matrix: itself, or its transposed view materialised (traced).
template <host_matrix M>
M const& materialize(M const& a, options const&, char const*) {
    return a;
}
template <host_matrix M>
M materialize(transposed<M> const& t, options const& opt, char const* op) {
    trace(opt, std::string(op) + ": " + describe_operand(t) + ": transpose materialised");
    return transposed_copy(*t.m);
}

/// Whether X is a container (or a transpose view of one) in Space.
template <class X, class Space>
inline constexpr bool in_space = std::is_same_v<space_of_t<X>, Space>;

/// A container or operand of either space, for messages ("csr 3 x 4 (5 entries)", "device dense
/// 3 x 4", "transpose of ...").
template <class X>
std::string describe_any(X const& x) {
    if constexpr (in_space<X, device>)
        return describe_device(x);
    else if constexpr (is_transposed<X>)
        return describe_operand(x);
    else
        return describe(x);
}

/// No scope: the device's work runs on the context's stream, not on the host's threads.
struct no_scope {};

/// Enters op's space for output C: host containers check that the GPU was not asked for and run
/// with the context's threads (the returned scope); device containers refuse device=cpu and say
/// `device_what` in the trace.
template <class C>
[[nodiscard]] auto enter_space(char const* op, options const& opt, std::string const& device_what) {
    if constexpr (in_space<C, device>) {
        device_call(op, opt, device_what);
        return no_scope{};
    } else {
        return check_host(op, opt);
    }
}

/// An operand as a matrix of its own space: itself, or the transpose a view names, made there
/// (traced). Vectors are themselves.
template <class X>
decltype(auto) materialize_any(X const& x, options const& opt, char const* op) {
    if constexpr (device_operand<X>)
        return materialize_device(x, opt, op);
    else if constexpr (matrix_operand<X>)
        return materialize(x, opt, op);
    else
        return (x);
}

}  // namespace kleene::detail

#pragma once
// What one operation body needs to serve host and device containers alike (issue 39, item 6: one
// body per operation, its checks, trace and dispatch written once): the operands' descriptions for
// messages, the entry into the containers' space (the CPU's thread scope, or the GPU's device=cpu
// refusal), and an operand as a matrix of that space (a transpose view made, said in the trace).
// The bodies using it so far: apply (apply.hpp) and select (select.hpp). The other operations
// still have a host and a device overload each.

#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/spaces.hpp>
#include <kleene/transpose.hpp>

#include <string>
#include <type_traits>

namespace kleene::detail {

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
    if constexpr (in_space<X, device> && (device_matrix<X> || device_operand<X>))
        return materialize_device(x, opt, op);
    else if constexpr (in_space<X, host> && matrix_operand<X>)
        return materialize(x, opt, op);
    else
        return (x);
}

}  // namespace kleene::detail

#pragma once
// Run-time names to compile-time semiring types, for the command line: `--semiring min_plus
// --type fp32` becomes a call f(min_plus<float>{}). The names and the pairs built come from the
// instance registry (kleene/instances.hpp, cmake/instances.cmake).

#include "commands.hpp"

#include <kleene/instances.hpp>
#include <kleene/semiring.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kleene::tools {

#define KLEENE_TOOLS_NAME(X, name, ...) name,
/// Value types the command line accepts.
inline constexpr std::string_view type_names[] = {KLEENE_REGISTRY_TYPES(KLEENE_TOOLS_NAME)};
/// Semirings the command line accepts (dispatch_semiring_of).
inline constexpr std::string_view semiring_names[] = {KLEENE_REGISTRY_SEMIRINGS(KLEENE_TOOLS_NAME)};
#undef KLEENE_TOOLS_NAME

/// Calls f(S{}) for the semiring `name` over T; false for a name it does not know. A pair this
/// build leaves out (KLEENE_INSTANCES=minimal) throws kleene::missing_instance.
template <class T, class F>
bool dispatch_semiring_of(std::string_view name, std::string_view type, F&& f) {
    auto const r = instances::visit_semiring<T>(name, f);
    if (r == instances::lookup::not_built)
        instances::throw_not_built(name, type, "the command line");
    if (r == instances::lookup::not_offered)
        throw command_failed("semiring " + std::string(name) + " is not offered over " +
                             std::string(type) + " (use " + instances::semirings_over<T>(false) +
                             ")");
    return r == instances::lookup::found;
}

/// Calls f(S{}) for the semiring `name` over `type`; throws command_failed for unknown names.
template <class F>
void dispatch_semiring(std::string_view name, std::string_view type, F&& f) {
    bool found = false;
    bool known_type = false;
#define KLEENE_TOOLS_TYPE(U, tname, numpy)              \
    if (type == tname) {                                \
        known_type = true;                              \
        found = dispatch_semiring_of<U>(name, type, f); \
    }
    KLEENE_REGISTRY_TYPES(KLEENE_TOOLS_TYPE)
#undef KLEENE_TOOLS_TYPE
    if (!known_type)
        throw command_failed("unknown type '" + std::string(type) + "' (" +
                             instances::name_list(false) + ")");
    if (!found)
        throw command_failed("unknown semiring '" + std::string(name) + "' (" +
                             instances::name_list(true) + ")");
}

/// Binary operators by name, for the element-wise commands.
inline constexpr std::string_view op_names[] = {"plus", "times", "min", "max", "first",
                                                "second", "pair", "lor", "land"};

/// Calls f(Op{}) for the binary operator `name` over T; lor and land only over bool.
template <class T, class F>
void dispatch_op(std::string_view name, F&& f) {
    if (name == "plus") return f(plus_op<T>{});
    if (name == "times") return f(times_op<T>{});
    if (name == "min") return f(min_op<T>{});
    if (name == "max") return f(max_op<T>{});
    if (name == "first") return f(first_op<T>{});
    if (name == "second") return f(second_op<T>{});
    if (name == "pair") return f(pair_op<T>{});
    if constexpr (std::is_same_v<T, bool>) {
        if (name == "lor") return f(lor_op<T>{});
        if (name == "land") return f(land_op<T>{});
    }
    throw command_failed("operator " + std::string(name) + " is not offered over this type");
}

/// Monoids by name, for the reductions.
inline constexpr std::string_view monoid_names[] = {"plus", "times", "min", "max", "lor", "land"};

template <class T, class F>
void dispatch_monoid(std::string_view name, F&& f) {
    if (name == "plus") return f(plus_monoid<T>{});
    if (name == "times") return f(times_monoid<T>{});
    if (name == "min") return f(min_monoid<T>{});
    if (name == "max") return f(max_monoid<T>{});
    if constexpr (std::is_same_v<T, bool>) {
        if (name == "lor") return f(lor_monoid<T>{});
        if (name == "land") return f(land_monoid<T>{});
    }
    throw command_failed("monoid " + std::string(name) + " is not offered over this type");
}

/// Calls f(T{}) for the value type `type` (one of type_names).
template <class F>
void dispatch_type(std::string_view type, F&& f) {
#define KLEENE_TOOLS_TYPE(U, tname, numpy) \
    if (type == tname) return f(U{});
    KLEENE_REGISTRY_TYPES(KLEENE_TOOLS_TYPE)
#undef KLEENE_TOOLS_TYPE
    throw command_failed("unknown type '" + std::string(type) + "' (" +
                         instances::name_list(false) + ")");
}

}  // namespace kleene::tools

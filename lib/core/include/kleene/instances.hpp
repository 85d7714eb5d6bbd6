#pragma once
// The instance registry by name (docs/architecture.md, "Instances"): the semirings and value types
// kleene names, and the (semiring, type) pairs this build dispatches to from a name. The command
// line (tools/semiring_dispatch.hpp) and the Python module (python/src/products.hpp) share it; the
// lists are generated from cmake/instances.cmake into kleene/instance_lists.hpp.

#include <cstdint>
#include <kleene/error.hpp>
#include <kleene/instance_lists.hpp>
#include <kleene/semiring.hpp>
#include <string>
#include <string_view>
#include <type_traits>

namespace kleene::instances {

/// The set this kleene was built with: "minimal", "builtin" or "all" (KLEENE_INSTANCES).
inline constexpr std::string_view set = KLEENE_INSTANCE_SET;

struct semiring_name {
    std::string_view name, add, multiply;
};
/// Every semiring kleene names, in the registry's order.
inline constexpr semiring_name semirings[] = {
#define KLEENE_INSTANCES_SEMIRING(S, name, add, mul) {name, add, mul},
    KLEENE_REGISTRY_SEMIRINGS(KLEENE_INSTANCES_SEMIRING)
#undef KLEENE_INSTANCES_SEMIRING
};

struct type_name {
    std::string_view name, numpy;
};
/// The value types kleene names ("fp32" on the command line, "float32" in NumPy).
inline constexpr type_name types[] = {
#define KLEENE_INSTANCES_TYPE(T, name, numpy) {name, numpy},
    KLEENE_REGISTRY_TYPES(KLEENE_INSTANCES_TYPE)
#undef KLEENE_INSTANCES_TYPE
};

/// "plus_times, min_plus, ...": every semiring's name, or (false) every type's ("fp32, ...").
inline std::string name_list(bool semiring_names) {
    std::string list;
    auto add = [&](std::string_view n) {
        if (!list.empty()) list += ", ";
        list += n;
    };
    if (semiring_names)
        for (auto const& s : semirings) add(s.name);
    else
        for (auto const& t : types) add(t.name);
    return list;
}

/// How looking a semiring up by name over a type ended.
enum class lookup : std::uint8_t {
    found,             ///< f was called
    not_built,         ///< builtin has the pair, this build (KLEENE_INSTANCES) does not
    not_offered,       ///< a known semiring that kleene does not offer over this type
    unknown_semiring,  ///< no semiring of that name
};

/// Calls f(S{}) for the semiring `name` over T when this build dispatches to it by name.
template <class T, class F>
lookup visit_semiring(std::string_view name, F&& f) {
#define KLEENE_INSTANCES_VISIT(S, U, sname, tname) \
    if constexpr (std::is_same_v<T, U>) {          \
        if (name == sname) {                       \
            f(S<U>{});                             \
            return lookup::found;                  \
        }                                          \
    }
    KLEENE_HOST_INSTANCES(KLEENE_INSTANCES_VISIT)
#undef KLEENE_INSTANCES_VISIT
#define KLEENE_INSTANCES_MISSING(S, U, sname, tname, wanted) \
    if constexpr (std::is_same_v<T, U>) {                    \
        if (name == sname) return lookup::not_built;         \
    }
    KLEENE_HOST_MISSING(KLEENE_INSTANCES_MISSING)
#undef KLEENE_INSTANCES_MISSING
    for (auto const& s : semirings)
        if (s.name == name) return lookup::not_offered;
    return lookup::unknown_semiring;
}

/// "lor_land, any_pair": the semirings over T that this build dispatches to by name (built_only)
/// or that builtin has.
template <class T>
std::string semirings_over(bool built_only) {
    std::string names;
    auto add = [&](std::string_view n) {
        if (!names.empty()) names += ", ";
        names += n;
    };
#define KLEENE_INSTANCES_NAME(S, U, sname, ...) \
    if constexpr (std::is_same_v<T, U>) add(sname);
    KLEENE_HOST_INSTANCES(KLEENE_INSTANCES_NAME)
    if (!built_only) {
        KLEENE_HOST_MISSING(KLEENE_INSTANCES_NAME)
    }
#undef KLEENE_INSTANCES_NAME
    return names;
}

/// Throws missing_instance for the semiring `name` over the type `type` (a lookup::not_built):
/// `part` is the program that dispatches ("the command line", "the Python module").
[[noreturn]] inline void throw_not_built(std::string_view name, std::string_view type,
                                         char const* part) {
    detail::throw_missing_instance("semiring " + std::string(name) + " over " + std::string(type),
                                   "builtin", part);
}

}  // namespace kleene::instances

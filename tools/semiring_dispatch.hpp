#pragma once
// Run-time names to compile-time semiring types, for the command line: `--semiring min_plus
// --type fp32` becomes a call f(min_plus<float>{}). Only the combinations listed here are built.

#include "commands.hpp"

#include <kleene/semiring.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kleene::tools {

/// Value types the command line accepts.
inline constexpr std::string_view type_names[] = {"fp32", "fp64", "int32", "int64", "bool"};
/// Semirings the command line accepts (dispatch_semiring_of).
inline constexpr std::string_view semiring_names[] = {
    "plus_times", "min_plus",   "max_plus",   "max_min",  "min_max",  "lor_land",
    "any_pair",   "plus_pair",  "min_first",  "min_second", "plus_min", "max_times"};

template <class T, class F>
bool dispatch_semiring_of(std::string_view name, F&& f) {
    if (name == "plus_times") return f(plus_times<T>{}), true;
    if (name == "min_plus") return f(min_plus<T>{}), true;
    if (name == "max_plus") return f(max_plus<T>{}), true;
    if (name == "max_min") return f(max_min<T>{}), true;
    if (name == "min_max") return f(min_max<T>{}), true;
    if (name == "lor_land") return f(lor_land<T>{}), true;
    if (name == "any_pair") return f(any_pair<T>{}), true;
    if (name == "plus_pair") return f(plus_pair<T>{}), true;
    if (name == "min_first") return f(min_first<T>{}), true;
    if (name == "min_second") return f(min_second<T>{}), true;
    if (name == "plus_min") return f(plus_min<T>{}), true;
    if (name == "max_times") return f(max_times<T>{}), true;
    return false;
}

/// Calls f(S{}) for the semiring `name` over `type`; throws command_failed for unknown names.
/// Boolean values take the semirings that are meaningful on them: lor_land and any_pair.
template <class F>
void dispatch_semiring(std::string_view name, std::string_view type, F&& f) {
    bool found = false;
    if (type == "fp32") found = dispatch_semiring_of<float>(name, f);
    else if (type == "fp64") found = dispatch_semiring_of<double>(name, f);
    else if (type == "int32") found = dispatch_semiring_of<std::int32_t>(name, f);
    else if (type == "int64") found = dispatch_semiring_of<std::int64_t>(name, f);
    else if (type == "bool") {
        if (name == "lor_land") f(lor_land<bool>{}), found = true;
        else if (name == "any_pair") f(any_pair<bool>{}), found = true;
        else throw command_failed("semiring " + std::string(name) +
                                  " is not offered over bool (use lor_land or any_pair)");
    } else {
        throw command_failed("unknown type '" + std::string(type) +
                             "' (fp32, fp64, int32, int64, bool)");
    }
    if (!found)
        throw command_failed("unknown semiring '" + std::string(name) +
                             "' (plus_times, min_plus, max_plus, max_min, min_max, lor_land, "
                             "any_pair, plus_pair, min_first, min_second, plus_min, max_times)");
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
    if (type == "fp32") return f(float{});
    if (type == "fp64") return f(double{});
    if (type == "int32") return f(std::int32_t{});
    if (type == "int64") return f(std::int64_t{});
    if (type == "bool") return f(bool{});
    throw command_failed("unknown type '" + std::string(type) +
                         "' (fp32, fp64, int32, int64, bool)");
}

}  // namespace kleene::tools

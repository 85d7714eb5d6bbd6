// The message of a registry pair this build left out (kleene/error.hpp), and a check that
// semiring.hpp's names (a header below the generated ones) are the registry's.

#include <kleene/error.hpp>
#include <kleene/instance_lists.hpp>
#include <kleene/semiring.hpp>
#include <string>
#include <string_view>

namespace kleene::detail {

void throw_missing_instance(std::string const& what, char const* wanted, char const* part) {
    throw missing_instance(what + " is not compiled into " + part +
                           " of this kleene (built with KLEENE_INSTANCES=" KLEENE_INSTANCE_SET
                           "): rebuild kleene with -DKLEENE_INSTANCES=" +
                           wanted + " (docs/architecture.md, \"Instances\")");
}

namespace {
#define KLEENE_REGISTRY_NAME(S, name, add, mul) name,
constexpr std::string_view registry_names[] = {KLEENE_REGISTRY_SEMIRINGS(KLEENE_REGISTRY_NAME)};
#undef KLEENE_REGISTRY_NAME

constexpr bool same_names() {
    if (std::size(registry_names) != std::size(builtin_semiring_names)) return false;
    for (std::size_t i = 0; i < std::size(registry_names); ++i)
        if (registry_names[i] != builtin_semiring_names[i]) return false;
    return true;
}
static_assert(same_names(),
              "semiring.hpp's builtin_semiring_names must list cmake/instances.cmake's "
              "KLEENE_SEMIRINGS, in order");
}  // namespace

}  // namespace kleene::detail

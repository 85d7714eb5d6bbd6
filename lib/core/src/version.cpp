#include <kleene/version.hpp>

namespace kleene {
std::string_view version() noexcept { return "0.1.0"; }
}  // namespace kleene

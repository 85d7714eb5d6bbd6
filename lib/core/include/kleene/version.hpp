#pragma once
// The library's version (lib/core/src/version.cpp).

#include <string_view>

namespace kleene {

/// kleene's version, "major.minor.patch".
std::string_view version() noexcept;

}  // namespace kleene

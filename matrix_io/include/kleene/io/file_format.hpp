#pragma once
// Which reader a file needs, from its extension (.mtx, .kbin, .txt/.el) or a --from/--to name.

#include <optional>
#include <string>
#include <string_view>

namespace kleene::io {

enum class file_format { matrix_market, binary, edge_list };

/// By extension; "-" and unknown extensions give nullopt.
std::optional<file_format> format_from_extension(std::string const& path);
/// "mtx", "kbin", "el" (also "txt", "edges", "binary", "mm").
std::optional<file_format> format_from_name(std::string_view name);
std::string_view to_string(file_format f) noexcept;

}  // namespace kleene::io

#include <kleene/error.hpp>
#include <kleene/io/file_format.hpp>
#include <kleene/io/finite.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>

#include "io_detail.hpp"

namespace kleene::io {

namespace {
/// "nan", "-inf", "+Infinity", "NaN(0x1)": what from_chars and strtod read as non-finite.
bool nonfinite_token(std::string_view t) {
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
    if (t.size() < 3) return false;
    auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    std::string const head{low(t[0]), low(t[1]), low(t[2])};
    return head == "nan" || head == "inf";
}
}  // namespace

void throw_nonfinite_value(std::string const& path, std::string_view what, std::size_t row,
                           std::size_t col) {
    std::string const entry = "entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) + ")";
    std::string const need = std::string(what) + " needs finite edge weights (leave an absent edge out)";
    auto const fmt = format_from_extension(path);
    if (path != "-" && fmt != file_format::binary) {
        std::ifstream in(path);
        std::string line;
        std::uint64_t no = 0;
        while (std::getline(in, line)) {
            ++no;
            std::size_t p = line.find_first_not_of(" \t\r");
            if (p == std::string::npos || line[p] == '%' || line[p] == '#') continue;
            while (p < line.size()) {
                std::size_t const e = std::min(line.find_first_of(" \t\r", p), line.size());
                std::string_view const tok(line.data() + p, e - p);
                if (nonfinite_token(tok))
                    throw parse_error(path, no, "value " + detail::quote(tok) + " is not a finite number: " + need);
                p = line.find_first_not_of(" \t\r", e);
                if (p == std::string::npos) break;
            }
        }
    }
    throw error(path + ": " + entry + " is not a finite number: " + need);
}

}  // namespace kleene::io

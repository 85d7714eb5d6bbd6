#pragma once
// Byte counts as people write them: "4096", "64K", "512M", "60G", "1T" (K, M, G, T: powers of
// 1024; an optional trailing B or iB). Used by the CLI and context_from_environment().

#include <kleene/error.hpp>

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace kleene::detail {

/// The bytes `s` names; invalid_argument naming `what` when it is not a byte count.
inline std::size_t parse_bytes(std::string_view s, char const* what) {
    auto bad = [&] {
        return invalid_argument(std::string(what) + ": '" + std::string(s) +
                                "' is not a byte count (digits with an optional K, M, G or T)");
    };
    std::size_t i = 0;
    unsigned long long v = 0;
    if (s.empty()) throw bad();
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
        if (v > (std::numeric_limits<unsigned long long>::max() - 9) / 10) throw bad();
        v = v * 10 + static_cast<unsigned>(s[i] - '0');
    }
    if (i == 0) throw bad();
    std::string_view rest = s.substr(i);
    int shift = 0;
    if (!rest.empty()) {
        switch (rest[0] | 0x20) {
            case 'k': shift = 10; break;
            case 'm': shift = 20; break;
            case 'g': shift = 30; break;
            case 't': shift = 40; break;
            case 'b': break;
            default: throw bad();
        }
        if (shift) rest.remove_prefix(1);
        if (rest == "i" || rest == "iB" || rest == "ib") rest = {};
        if (rest == "B" || rest == "b") rest = {};
        if (!rest.empty()) throw bad();
    }
    if (shift && v > (std::numeric_limits<unsigned long long>::max() >> shift)) throw bad();
    return static_cast<std::size_t>(v << shift);
}

}  // namespace kleene::detail

#pragma once
// CLI11 validators for kleene's options. They run on the text as given, while the command line is
// parsed (before any input is read), and their messages quote it; CLI11 puts the option's name in
// front: "--threads: expected an integer >= 0, got '-1'". main() prints them as usage errors.

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <kleene/algorithms/distributed/faults.hpp>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace kleene::tools {

/// One of `names`.
template <class Names>
CLI::Validator one_of(Names const& names) {
    std::vector<std::string> list(std::begin(names), std::end(names));
    std::string joined;
    for (auto const& n : list) joined += (joined.empty() ? "" : ", ") + n;
    return CLI::Validator(
        [list, joined](std::string& s) -> std::string {
            for (auto const& n : list)
                if (s == n) return {};
            return "'" + s + "' is not one of " + joined;
        },
        "{" + joined + "}");
}
inline CLI::Validator one_of(std::initializer_list<char const*> names) {
    return one_of(std::vector<std::string>(names.begin(), names.end()));
}

/// A whole decimal integer in [lo, hi] (64-bit by default).
inline CLI::Validator integer_in(std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                                 std::int64_t hi = std::numeric_limits<std::int64_t>::max()) {
    using lim = std::numeric_limits<std::int64_t>;
    std::string const want =
        hi == lim::max() ? (lo == lim::min() ? "an integer" : "an integer >= " + std::to_string(lo))
                         : "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    return CLI::Validator(
        [lo, hi, want](std::string& s) -> std::string {
            std::int64_t v = 0;
            char const* b = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);
            auto const r = std::from_chars(b, s.data() + s.size(), v);
            if (r.ec != std::errc{} || r.ptr != s.data() + s.size() || v < lo || v > hi)
                return "expected " + want + ", got '" + s + "'";
            return {};
        },
        want.substr(want.find(' ') + 1));
}

/// A whole decimal integer from 0 to 2^64 - 1.
inline CLI::Validator unsigned_integer() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            std::uint64_t v = 0;
            char const* b = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);
            auto const r = std::from_chars(b, s.data() + s.size(), v);
            if (r.ec != std::errc{} || r.ptr != s.data() + s.size())
                return "expected an integer >= 0, got '" + s + "'";
            return {};
        },
        "integer >= 0");
}

/// A finite number >= lo (> lo when strict).
inline CLI::Validator number_at_least(double lo, bool strict = false) {
    std::string const want = std::string("a number ") + (strict ? "> " : ">= ") + CLI::detail::to_string(lo);
    return CLI::Validator(
        [lo, strict, want](std::string& s) -> std::string {
            char* end = nullptr;
            double const v = s.empty() ? std::nan("") : std::strtod(s.c_str(), &end);
            if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < lo ||
                (strict && v == lo))
                return "expected " + want + ", got '" + s + "'";
            return {};
        },
        want.substr(2));
}

/// --local-blocks of the distributed apsp and closure (distributed::options::blocks).
inline void add_local_blocks_option(CLI::App* cmd, std::string& where) {
    cmd->add_option("--local-blocks", where,
                    "distributed, GPUs: where each rank's blocks live during the steps: device "
                    "(on its GPU), streamed (on the host, page-locked, streamed through the GPU "
                    "every step: out of core) or auto (streamed where they do not fit)")
        ->check(CLI::IsMember({"auto", "device", "streamed"}))
        ->capture_default_str();
}

/// --rank-timeout of the distributed apsp and closure (distributed::options::timeout), and the
/// tests' --inject-fault (options::fault), hidden from --help.
inline void add_fault_options(CLI::App* cmd, double& timeout, std::string& fault) {
    cmd->add_option("--rank-timeout", timeout,
                    "distributed: seconds a rank waits for the others within the steps, on top "
                    "of ten times its longest step so far, before it ends the job (a rank is "
                    "stuck or lost); 0: no limit")
        ->check(number_at_least(0))
        ->capture_default_str();
    cmd->add_option("--inject-fault", fault,
                    "tests: KIND:RANK:STEP fails that rank at that step (docs/distributed.md)")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                try {
                    distributed::parse_fault_plan(s);
                    return {};
                } catch (std::exception const& e) {
                    return e.what();
                }
            },
            "KIND:RANK:STEP"))
        ->group("");
}

/// An output file name: "-" (standard output) or a non-empty path.
inline CLI::Validator output_name() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            return s.empty() ? "the output file name is empty ('')" : std::string();
        },
        "");
}

}  // namespace kleene::tools

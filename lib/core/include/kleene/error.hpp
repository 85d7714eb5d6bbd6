#pragma once
// The kleene exception family. Every failure a user can cause is one of these, with a message
// that says what to change: shapes for mismatches, file and line for parse errors, the CUDA call
// for device failures.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace kleene {

class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Operand shapes do not fit the operation.
class dimension_mismatch : public error {
public:
    using error::error;
};

/// An argument is out of range or otherwise invalid (index past a dimension, bad option).
class invalid_argument : public error {
public:
    using error::error;
};

/// A combination of kleene's instance registry (semiring, value type, index type) that this build
/// did not compile ahead of time (KLEENE_INSTANCES; docs/architecture.md, "Instances"). The message
/// names it and the instance set that has it.
class missing_instance : public invalid_argument {
public:
    using invalid_argument::invalid_argument;
};

/// A file or stream could not be parsed; the message carries the file name and line ("file:line:
/// what"; line 0, for files without lines such as .kbin, gives "file: what").
class parse_error : public error {
public:
    parse_error(std::string const& file, std::uint64_t line, std::string const& what)
        : error(file + (line ? ":" + std::to_string(line) : std::string()) + ": " + what),
          file_(file),
          line_(line) {}
    std::string const& file() const noexcept { return file_; }
    std::uint64_t line() const noexcept { return line_; }

private:
    std::string file_;
    std::uint64_t line_;
};

/// Reading or writing a file failed at the operating-system level.
class io_error : public error {
public:
    using error::error;
};

/// Host memory could not be had: a size past what 64 bits address, more than the system has
/// available, or an allocation the system refused. The message says what and how much.
class out_of_memory : public error {
public:
    out_of_memory(std::string const& what, long double bytes) : error(what), bytes_(bytes) {}
    /// The request in bytes (it may exceed 2^64).
    long double bytes() const noexcept { return bytes_; }

private:
    long double bytes_;
};

/// A CUDA call failed; the message names the call and CUDA's error string.
class device_error : public error {
public:
    using error::error;
};

/// The GPU was asked for but there is none (or kleene was built without CUDA).
class no_device : public device_error {
public:
    using device_error::device_error;
};

/// A result does not fit its value type (a shortest distance past int32's range, a size past
/// size_t). The message names the type.
class overflow_error : public error {
public:
    using error::error;
};

/// An APSP input has a cycle of negative weight; more generally (semiring_closure), a cycle whose
/// weight w improves on the semiring's one (add(one, w) != one), so that no closure exists.
class negative_cycle : public error {
public:
    explicit negative_cycle(std::int64_t vertex)
        : error("negative cycle through vertex " + std::to_string(vertex)), vertex_(vertex) {}
    /// The same with the caller's message (which names the vertex).
    negative_cycle(std::int64_t vertex, std::string const& what) : error(what), vertex_(vertex) {}
    std::int64_t vertex() const noexcept { return vertex_; }

private:
    std::int64_t vertex_;
};

namespace detail {
/// Throws missing_instance: `what` ("kleene::cuda::spmv for max_times over int32 with int32
/// indices") is not compiled into `part` ("the CUDA backend") of this build, and
/// KLEENE_INSTANCES=`wanted` has it (lib/core/src/instances.cpp).
[[noreturn]] void throw_missing_instance(std::string const& what, char const* wanted,
                                         char const* part);

inline std::string shape(std::size_t rows, std::size_t cols) {
    return std::to_string(rows) + "x" + std::to_string(cols);
}
/// 512 B, 1.5 KiB, 22.4 GiB, 16.0 EiB (binary units; long double, so sizes past 2^64 print too).
inline std::string format_bytes(long double bytes) {
    char const* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    int u = 0;
    while (bytes >= 1024 && u < 8) {
        bytes /= 1024;
        ++u;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0Lf %s" : "%.1Lf %s", bytes, units[u]);
    return buf;
}
}  // namespace detail

}  // namespace kleene

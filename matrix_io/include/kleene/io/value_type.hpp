#pragma once
// The element types kleene's readers and writers know, named as LAGraph's `%%GraphBLAS type` line
// names them, and a visitor that turns a run-time type into a template argument.

#include <cstdint>
#include <kleene/error.hpp>
#include <string>
#include <string_view>
#include <type_traits>

namespace kleene::io {

enum class value_type : std::uint8_t {
    bool_,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float32,
    float64,
};

template <class T>
struct type_tag {
    using type = T;
};

template <class T>
inline constexpr bool is_io_value_type =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
constexpr value_type value_type_of() {
    static_assert(is_io_value_type<T>, "kleene::io has no file type for this element type");
    if constexpr (std::is_same_v<T, bool>)
        return value_type::bool_;
    else if constexpr (std::is_same_v<T, std::int8_t>)
        return value_type::int8;
    else if constexpr (std::is_same_v<T, std::int16_t>)
        return value_type::int16;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return value_type::int32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return value_type::int64;
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return value_type::uint8;
    else if constexpr (std::is_same_v<T, std::uint16_t>)
        return value_type::uint16;
    else if constexpr (std::is_same_v<T, std::uint32_t>)
        return value_type::uint32;
    else if constexpr (std::is_same_v<T, std::uint64_t>)
        return value_type::uint64;
    else if constexpr (std::is_same_v<T, float>)
        return value_type::float32;
    else
        return value_type::float64;
}

/// The C type name LAGraph writes after `%%GraphBLAS type` ("bool", "int8_t", ..., "double").
std::string_view to_string(value_type t) noexcept;
/// Parses a C type name ("int32_t") or a GraphBLAS name ("GrB_INT32"), case-insensitively.
/// Returns false for unknown names.
bool parse_value_type(std::string_view name, value_type& out) noexcept;
bool is_integral(value_type t) noexcept;

/// Calls f(type_tag<T>{}) with the T that `t` names.
template <class F>
decltype(auto) visit_value_type(value_type t, F&& f) {
    switch (t) {
        case value_type::bool_:
            return f(type_tag<bool>{});
        case value_type::int8:
            return f(type_tag<std::int8_t>{});
        case value_type::int16:
            return f(type_tag<std::int16_t>{});
        case value_type::int32:
            return f(type_tag<std::int32_t>{});
        case value_type::int64:
            return f(type_tag<std::int64_t>{});
        case value_type::uint8:
            return f(type_tag<std::uint8_t>{});
        case value_type::uint16:
            return f(type_tag<std::uint16_t>{});
        case value_type::uint32:
            return f(type_tag<std::uint32_t>{});
        case value_type::uint64:
            return f(type_tag<std::uint64_t>{});
        case value_type::float32:
            return f(type_tag<float>{});
        case value_type::float64:
            break;
    }
    return f(type_tag<double>{});
}

}  // namespace kleene::io

/// Every element type the readers and writers are instantiated for.
#define KLEENE_IO_FOR_EACH_VALUE_TYPE(X)                                           \
    X(bool)                                                                        \
    X(std::int8_t) X(std::int16_t) X(std::int32_t) X(std::int64_t) X(std::uint8_t) \
        X(std::uint16_t) X(std::uint32_t) X(std::uint64_t) X(float) X(double)

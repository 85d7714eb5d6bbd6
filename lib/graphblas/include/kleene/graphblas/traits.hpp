#pragma once
// What SuiteSparse:GraphBLAS calls kleene's value types, semirings and binary operators. Each
// mapping is a table of addresses of GraphBLAS's built-in objects (one column per value type);
// a null entry means GraphBLAS has no built-in, and asking for it fails to compile.

#include <cstdint>
#include <kleene/graphblas/c_api.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <type_traits>

namespace kleene::graphblas {

/// The value types the bridge converts.
template <class T>
inline constexpr bool is_grb_value =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool>;

namespace detail {
/// The entry of a per-type table for value type T: fp32, fp64, int32, int64, bool.
template <class T, class P>
constexpr P const* pick(P const* fp32, P const* fp64, P const* i32, P const* i64, P const* b) {
    if constexpr (std::is_same_v<T, float>)
        return fp32;
    else if constexpr (std::is_same_v<T, double>)
        return fp64;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return i32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return i64;
    else if constexpr (std::is_same_v<T, bool>)
        return b;
    else
        return nullptr;
}
/// Whether the entry pick<T> chooses exists, decided from the table's argument types (nullptr
/// or an address), never by comparing an address with nullptr: GCC does not fold that into a
/// constant under -fsanitize=undefined (an extern object's address).
template <class T>
constexpr bool pick_present(bool fp32, bool fp64, bool i32, bool i64, bool b) {
    if constexpr (std::is_same_v<T, float>)
        return fp32;
    else if constexpr (std::is_same_v<T, double>)
        return fp64;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return i32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return i64;
    else if constexpr (std::is_same_v<T, bool>)
        return b;
    else
        return false;
}
#define KLEENE_GRB_PRESENT(x) (!std::is_null_pointer_v<decltype(x)>)
}  // namespace detail

template <class T>
GrB_Type grb_type() {
    static_assert(is_grb_value<T>,
                  "kleene::graphblas: the bridge converts float, double, int32, int64 and bool");
    return *detail::pick<T, GrB_Type>(&GrB_FP32, &GrB_FP64, &GrB_INT32, &GrB_INT64, &GrB_BOOL);
}

// ---- semirings ----------------------------------------------------------------------------------
// Boolean rows follow GraphBLAS's renaming (plus = lor, times = min = land, max = lor), which is
// also what kleene's operators compute on bool.

/// Address of the GraphBLAS built-in equal to kleene semiring S, or nullptr when there is none.
template <class S>
inline constexpr GrB_Semiring const* grb_semiring_ptr = nullptr;
template <class S>
inline constexpr bool grb_semiring_present = false;

#define KLEENE_GRB_SEMIRING(kleene_name, fp32, fp64, i32, i64, b)                               \
    template <class T>                                                                          \
    inline constexpr GrB_Semiring const* grb_semiring_ptr<kleene_name<T>> =                     \
        detail::pick<T, GrB_Semiring>(fp32, fp64, i32, i64, b);                                 \
    template <class T>                                                                          \
    inline constexpr bool grb_semiring_present<kleene_name<T>> = detail::pick_present<T>(       \
        KLEENE_GRB_PRESENT(fp32), KLEENE_GRB_PRESENT(fp64), KLEENE_GRB_PRESENT(i32),            \
        KLEENE_GRB_PRESENT(i64), KLEENE_GRB_PRESENT(b));

KLEENE_GRB_SEMIRING(plus_times, &GrB_PLUS_TIMES_SEMIRING_FP32, &GrB_PLUS_TIMES_SEMIRING_FP64,
                    &GrB_PLUS_TIMES_SEMIRING_INT32, &GrB_PLUS_TIMES_SEMIRING_INT64,
                    &GxB_LOR_LAND_BOOL)
// GraphBLAS's integer PLUS wraps where kleene's plus_sat_op keeps the infinity sentinel: the two
// agree only on integer inputs free of sentinels whose sums do not overflow.
KLEENE_GRB_SEMIRING(min_plus, &GrB_MIN_PLUS_SEMIRING_FP32, &GrB_MIN_PLUS_SEMIRING_FP64,
                    &GrB_MIN_PLUS_SEMIRING_INT32, &GrB_MIN_PLUS_SEMIRING_INT64, nullptr)
KLEENE_GRB_SEMIRING(max_plus, &GrB_MAX_PLUS_SEMIRING_FP32, &GrB_MAX_PLUS_SEMIRING_FP64,
                    &GrB_MAX_PLUS_SEMIRING_INT32, &GrB_MAX_PLUS_SEMIRING_INT64, nullptr)
KLEENE_GRB_SEMIRING(max_min, &GrB_MAX_MIN_SEMIRING_FP32, &GrB_MAX_MIN_SEMIRING_FP64,
                    &GrB_MAX_MIN_SEMIRING_INT32, &GrB_MAX_MIN_SEMIRING_INT64, &GxB_LOR_LAND_BOOL)
KLEENE_GRB_SEMIRING(min_max, &GrB_MIN_MAX_SEMIRING_FP32, &GrB_MIN_MAX_SEMIRING_FP64,
                    &GrB_MIN_MAX_SEMIRING_INT32, &GrB_MIN_MAX_SEMIRING_INT64, &GxB_LAND_LOR_BOOL)
KLEENE_GRB_SEMIRING(lor_land, nullptr, nullptr, nullptr, nullptr, &GrB_LOR_LAND_SEMIRING_BOOL)
KLEENE_GRB_SEMIRING(any_pair, &GxB_ANY_PAIR_FP32, &GxB_ANY_PAIR_FP64, &GxB_ANY_PAIR_INT32,
                    &GxB_ANY_PAIR_INT64, &GxB_ANY_PAIR_BOOL)
KLEENE_GRB_SEMIRING(plus_pair, &GxB_PLUS_PAIR_FP32, &GxB_PLUS_PAIR_FP64, &GxB_PLUS_PAIR_INT32,
                    &GxB_PLUS_PAIR_INT64, &GxB_LOR_PAIR_BOOL)
KLEENE_GRB_SEMIRING(min_first, &GrB_MIN_FIRST_SEMIRING_FP32, &GrB_MIN_FIRST_SEMIRING_FP64,
                    &GrB_MIN_FIRST_SEMIRING_INT32, &GrB_MIN_FIRST_SEMIRING_INT64,
                    &GxB_LAND_FIRST_BOOL)
KLEENE_GRB_SEMIRING(min_second, &GrB_MIN_SECOND_SEMIRING_FP32, &GrB_MIN_SECOND_SEMIRING_FP64,
                    &GrB_MIN_SECOND_SEMIRING_INT32, &GrB_MIN_SECOND_SEMIRING_INT64,
                    &GxB_LAND_SECOND_BOOL)
KLEENE_GRB_SEMIRING(plus_min, &GrB_PLUS_MIN_SEMIRING_FP32, &GrB_PLUS_MIN_SEMIRING_FP64,
                    &GrB_PLUS_MIN_SEMIRING_INT32, &GrB_PLUS_MIN_SEMIRING_INT64, &GxB_LOR_LAND_BOOL)
KLEENE_GRB_SEMIRING(max_times, &GrB_MAX_TIMES_SEMIRING_FP32, &GrB_MAX_TIMES_SEMIRING_FP64,
                    &GrB_MAX_TIMES_SEMIRING_INT32, &GrB_MAX_TIMES_SEMIRING_INT64,
                    &GxB_LOR_LAND_BOOL)
#undef KLEENE_GRB_SEMIRING

/// Whether GraphBLAS has a built-in semiring equal to kleene semiring S.
template <class S>
inline constexpr bool has_grb_semiring = grb_semiring_present<S>;

/// The GraphBLAS built-in semiring equal to S.
template <class S>
GrB_Semiring grb_semiring() {
    static_assert(
        has_grb_semiring<S>,
        "kleene::graphblas: SuiteSparse:GraphBLAS has no built-in semiring for this kleene "
        "semiring and value type (user-defined semirings need a reference implementation)");
    return *grb_semiring_ptr<S>;
}

// ---- binary operators (accumulators)
// --------------------------------------------------------------

template <class Op>
inline constexpr GrB_BinaryOp const* grb_binary_op_ptr = nullptr;
template <class Op>
inline constexpr bool grb_binary_op_present = false;

#define KLEENE_GRB_BINARY_OP(kleene_name, name)                                                 \
    template <class T>                                                                          \
    inline constexpr GrB_BinaryOp const* grb_binary_op_ptr<kleene_name<T>> =                    \
        detail::pick<T, GrB_BinaryOp>(&name##_FP32, &name##_FP64, &name##_INT32, &name##_INT64, \
                                      &name##_BOOL);                                            \
    template <class T>                                                                          \
    inline constexpr bool grb_binary_op_present<kleene_name<T>> =                               \
        detail::pick_present<T>(true, true, true, true, true);

KLEENE_GRB_BINARY_OP(plus_op, GrB_PLUS)
KLEENE_GRB_BINARY_OP(times_op, GrB_TIMES)
KLEENE_GRB_BINARY_OP(min_op, GrB_MIN)
KLEENE_GRB_BINARY_OP(max_op, GrB_MAX)
KLEENE_GRB_BINARY_OP(first_op, GrB_FIRST)
KLEENE_GRB_BINARY_OP(second_op, GrB_SECOND)
KLEENE_GRB_BINARY_OP(pair_op, GxB_PAIR)
KLEENE_GRB_BINARY_OP(any_op, GxB_ANY)
#undef KLEENE_GRB_BINARY_OP

// Saturating plus equals IEEE plus on floating point only.
template <class T>
inline constexpr GrB_BinaryOp const* grb_binary_op_ptr<plus_sat_op<T>> =
    detail::pick<T, GrB_BinaryOp>(&GrB_PLUS_FP32, &GrB_PLUS_FP64, nullptr, nullptr, nullptr);
template <class T>
inline constexpr bool grb_binary_op_present<plus_sat_op<T>> =
    detail::pick_present<T>(true, true, false, false, false);
template <class T>
inline constexpr GrB_BinaryOp const* grb_binary_op_ptr<lor_op<T>> =
    detail::pick<T, GrB_BinaryOp>(nullptr, nullptr, nullptr, nullptr, &GrB_LOR);
template <class T>
inline constexpr bool grb_binary_op_present<lor_op<T>> =
    detail::pick_present<T>(false, false, false, false, true);
template <class T>
inline constexpr GrB_BinaryOp const* grb_binary_op_ptr<land_op<T>> =
    detail::pick<T, GrB_BinaryOp>(nullptr, nullptr, nullptr, nullptr, &GrB_LAND);
template <class T>
inline constexpr bool grb_binary_op_present<land_op<T>> =
    detail::pick_present<T>(false, false, false, false, true);

template <class Op>
inline constexpr bool has_grb_binary_op =
    std::is_same_v<Op, no_accum_t> || grb_binary_op_present<Op>;

/// The GraphBLAS accumulator for kleene accumulator Op (GrB_NULL for no_accum).
template <class Op>
GrB_BinaryOp grb_accum() {
    static_assert(has_grb_binary_op<Op>,
                  "kleene::graphblas: SuiteSparse:GraphBLAS has no built-in binary operator for "
                  "this kleene accumulator and value type");
    if constexpr (std::is_same_v<Op, no_accum_t>)
        return nullptr;
    else
        return *grb_binary_op_ptr<Op>;
}

}  // namespace kleene::graphblas

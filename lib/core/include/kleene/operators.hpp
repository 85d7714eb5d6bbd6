#pragma once
// The operators the element-wise operations take beyond semiring.hpp's: unary operators for
// apply, binary operators bound to a scalar, the binary operator that a monoid or semiring stands
// for, and the value that stands for "no entry" in dense objects.
//
// Absent value. A dense object stores every position, so an operation reading or writing one
// needs the value that means "absent" there (an entry equal to it is no entry). An operation
// takes it from its operator: a semiring's zero (as mxm does), a monoid's identity, a binary
// operator's identity when it has one (plus: 0, min: +inf, max: -inf, lor: false), else T(0)
// (first, second, pair, any, unary operators, predicates, user operators without identity()).
// `with_absent(op, x)` states it for any operator; operations without an operator (transpose,
// extract, assign) take it as their last argument, T(0) by default.

#include <concepts>
#include <cstddef>
#include <kleene/semiring.hpp>
#include <type_traits>

namespace kleene {

// ---- unary operators --------------------------------------------------------------------------
// A unary operator is a type with value_type and apply(T) -> T (static or not; stateful ones work).

template <class T>
struct identity_op {
    using value_type = T;
    KLEENE_HD static constexpr T apply(T a) { return a; }
};

/// Additive inverse, -a (the identity on bool, as in GraphBLAS).
template <class T>
struct ainv_op {
    using value_type = T;
    KLEENE_HD static constexpr T apply(T a) {
        if constexpr (std::is_same_v<T, bool>)
            return a;
        else
            return T(-a);
    }
};

template <class T>
struct abs_op {
    using value_type = T;
    KLEENE_HD static constexpr T apply(T a) {
        if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>)
            return a;
        else
            return a < T(0) ? T(-a) : a;
    }
};

/// Multiplicative inverse, 1/a. Integers divide as GraphBLAS does (1/0 is the largest value,
/// 1/1 == 1, 1/-1 == -1, otherwise 0); on bool it is true.
template <class T>
struct minv_op {
    using value_type = T;
    KLEENE_HD static constexpr T apply(T a) {
        if constexpr (std::is_same_v<T, bool>)
            return true;
        else if constexpr (std::is_floating_point_v<T>)
            return T(1) / a;
        else if (a == T(0))
            return detail::max_value<T>();
        else
            return T(T(1) / a);
    }
};

/// Logical not: 1 where a == 0, else 0.
template <class T>
struct lnot_op {
    using value_type = T;
    KLEENE_HD static constexpr T apply(T a) { return T(a == T(0)); }
};

/// The constant 1 (turns values into a pattern).
template <class T>
struct one_op {
    using value_type = T;
    KLEENE_HD static constexpr T apply(T) { return T(1); }
};

template <class Op>
concept unary_op_type = requires(Op const& op, typename Op::value_type a) {
    typename Op::value_type;
    { op.apply(a) } -> std::convertible_to<typename Op::value_type>;
};

// ---- binary operators bound to a scalar ---------------------------------------------------------

/// op(x, a): a binary operator whose first operand is the scalar x.
template <binary_op_type Op>
struct bound_first {
    using value_type = typename Op::value_type;
    using op_type = Op;
    Op op;
    value_type x;
    KLEENE_HD constexpr value_type apply(value_type a) const { return op.apply(x, a); }
};

/// op(a, y): a binary operator whose second operand is the scalar y.
template <binary_op_type Op>
struct bound_second {
    using value_type = typename Op::value_type;
    using op_type = Op;
    Op op;
    value_type y;
    KLEENE_HD constexpr value_type apply(value_type a) const { return op.apply(a, y); }
};

template <binary_op_type Op>
constexpr bound_first<Op> bind_first(Op op, typename Op::value_type x) {
    return {op, x};
}
template <binary_op_type Op>
constexpr bound_second<Op> bind_second(Op op, typename Op::value_type y) {
    return {op, y};
}

// ---- a semiring's add and mul as binary operators -----------------------------------------------

template <semiring_type S>
struct semiring_add {
    using value_type = typename S::value_type;
    using semiring = S;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr value_type identity() { return S::zero(); }
    KLEENE_HD static constexpr value_type apply(value_type a, value_type b) { return S::add(a, b); }
};

template <semiring_type S>
struct semiring_mul {
    using value_type = typename S::value_type;
    using semiring = S;
    static constexpr bool has_identity = false;
    KLEENE_HD static constexpr value_type identity() { return S::one(); }
    KLEENE_HD static constexpr value_type apply(value_type a, value_type b) { return S::mul(a, b); }
};

// ---- the absent value ---------------------------------------------------------------------------

/// Op, with `absent` standing for "no entry" in the dense objects the operation touches.
template <class Op>
struct absent_as {
    using value_type = typename Op::value_type;
    Op op;
    value_type absent;
};

template <class Op>
constexpr absent_as<Op> with_absent(Op op, typename Op::value_type absent) {
    return {op, absent};
}

template <class Op>
inline constexpr bool is_bound = false;
template <class Op>
inline constexpr bool is_bound<bound_first<Op>> = true;
template <class Op>
inline constexpr bool is_bound<bound_second<Op>> = true;

template <class Op>
inline constexpr bool is_absent_as = false;
template <class Op>
inline constexpr bool is_absent_as<absent_as<Op>> = true;

/// The absent value an operation given `op` uses for dense objects (see the top of this file).
template <class Op>
constexpr typename Op::value_type absent_of(Op const& op) {
    using T = typename Op::value_type;
    if constexpr (is_absent_as<Op>) {
        return op.absent;
    } else if constexpr (is_bound<Op>) {
        return absent_of(op.op);
    } else if constexpr (semiring_type<Op>) {
        return Op::zero();
    } else if constexpr (monoid_type<Op>) {
        return Op::identity();
    } else if constexpr (requires {
                             Op::has_identity;
                             Op::identity();
                         }) {
        if constexpr (Op::has_identity)
            return Op::identity();
        else
            return T(0);
    } else {
        return T(0);
    }
}

/// The operator inside `absent_as`, or op itself.
template <class Op>
constexpr auto const& unwrap_absent(Op const& op) {
    if constexpr (is_absent_as<Op>)
        return op.op;
    else
        return op;
}

namespace detail {
/// The binary operator ewise_add uses: a semiring's add, else the operator (or monoid) itself.
template <class Op>
constexpr auto add_operator(Op const& op) {
    if constexpr (semiring_type<Op>)
        return semiring_add<Op>{};
    else
        return op;
}
/// The binary operator ewise_mult and kronecker use: a semiring's mul, else the operator itself.
template <class Op>
constexpr auto mul_operator(Op const& op) {
    if constexpr (semiring_type<Op>)
        return semiring_mul<Op>{};
    else
        return op;
}
}  // namespace detail

/// What ewise_add, ewise_mult and kronecker accept as their operator.
template <class Op>
concept ewise_operator = binary_op_type<Op> || semiring_type<Op> ||
    (is_absent_as<Op>&& requires(Op const& op) {
        requires binary_op_type<std::remove_cvref_t<decltype(op.op)>> ||
            semiring_type<std::remove_cvref_t<decltype(op.op)>>;
    });

}  // namespace kleene

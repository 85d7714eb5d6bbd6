#pragma once
// Monoids, binary operators and semirings. Every operator is a small struct with static constexpr
// members usable in host and device code, carrying its traits (identity, idempotence, terminal).

#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>
#if !defined(__CUDACC_RTC__)  // NVRTC (the JIT, kleene/cuda/jit.hpp) has no <string_view>
#include <string_view>
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define KLEENE_HD __host__ __device__
#else
#define KLEENE_HD
#endif

namespace kleene {

namespace detail {
template <class T>
KLEENE_HD constexpr T max_value() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
}
template <class T>
KLEENE_HD constexpr T min_value() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
}
template <class>
inline constexpr bool dependent_false = false;
/// Integer + and * wrap modulo 2^bits, as SuiteSparse's do, without the undefined behaviour of
/// signed overflow: they are computed in an unsigned type at least as wide as unsigned int (narrower
/// unsigned types would promote to int and overflow there).
template <class T>
inline constexpr bool wraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
}  // namespace detail

/// The "infinity" of a value type: +inf for floating point, the largest value for integers.
/// Integer min_plus treats it as a sentinel: inf + w == inf (see plus_sat_op).
template <class T>
KLEENE_HD constexpr T infinity() { return detail::max_value<T>(); }

// ---- binary operators -------------------------------------------------------------------------
// `has_identity` tells whether identity() is meaningful (first/second/pair have none).

template <class T>
struct plus_op {
    using value_type = T;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr T identity() { return T(0); }
    KLEENE_HD static constexpr T apply(T a, T b) {
        if constexpr (detail::wraps<T>) return T(detail::wrap_t<T>(a) + detail::wrap_t<T>(b));
        else return T(a + b);
    }
};

/// Addition that keeps the +/-infinity sentinels of integer types: inf + w == inf, -inf + w ==
/// -inf, and a finite sum that overflows clamps to the sentinel. inf + -inf is the semiring's
/// zero, which must annihilate: +inf for min_plus, -inf for max_plus (LowWins). Floating point
/// uses IEEE rules.
template <class T, bool LowWins = false>
struct plus_sat_op {
    using value_type = T;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr T identity() { return T(0); }
    // Branch-free (selects only), so that vectorised GEMM loops stay vectorised.
    KLEENE_HD static constexpr T apply(T a, T b) {
        if constexpr (std::is_floating_point_v<T>) {
            return a + b;
        } else {
            using U = std::make_unsigned_t<T>;
            constexpr T hi = detail::max_value<T>();
            T const s = T(U(a) + U(b));  // wrap-around sum
            T r;
            if constexpr (std::is_signed_v<T>) {
                constexpr T lo = detail::min_value<T>();
                bool const overflow = ((a ^ s) & (b ^ s)) < 0;
                r = overflow ? (a < 0 ? lo : hi) : s;
                bool const has_lo = (a == lo) | (b == lo), has_hi = (a == hi) | (b == hi);
                if constexpr (LowWins) return has_lo ? lo : has_hi ? hi : r;
                else return has_hi ? hi : has_lo ? lo : r;
            } else {
                r = s < a ? hi : s;
                return (a == hi) | (b == hi) ? hi : r;
            }
        }
    }
};

template <class T>
struct times_op {
    using value_type = T;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr T identity() { return T(1); }
    KLEENE_HD static constexpr T apply(T a, T b) {
        if constexpr (detail::wraps<T>) return T(detail::wrap_t<T>(a) * detail::wrap_t<T>(b));
        else return T(a * b);
    }
};

template <class T>
struct min_op {
    using value_type = T;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr T identity() { return detail::max_value<T>(); }
    KLEENE_HD static constexpr T apply(T a, T b) { return b < a ? b : a; }
};

template <class T>
struct max_op {
    using value_type = T;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr T identity() { return detail::min_value<T>(); }
    KLEENE_HD static constexpr T apply(T a, T b) { return a < b ? b : a; }
};

template <class T>
struct land_op {
    using value_type = T;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr T identity() { return T(1); }
    KLEENE_HD static constexpr T apply(T a, T b) { return T((a != T(0)) & (b != T(0))); }
};

template <class T>
struct lor_op {
    using value_type = T;
    static constexpr bool has_identity = true;
    KLEENE_HD static constexpr T identity() { return T(0); }
    KLEENE_HD static constexpr T apply(T a, T b) { return T((a != T(0)) | (b != T(0))); }
};

template <class T>
struct first_op {
    using value_type = T;
    static constexpr bool has_identity = false;
    KLEENE_HD static constexpr T identity() { return T(1); }
    KLEENE_HD static constexpr T apply(T a, T) { return a; }
};

template <class T>
struct second_op {
    using value_type = T;
    static constexpr bool has_identity = false;
    KLEENE_HD static constexpr T identity() { return T(1); }
    KLEENE_HD static constexpr T apply(T, T b) { return b; }
};

/// pair(a, b) == 1: the product only records that both entries exist.
template <class T>
struct pair_op {
    using value_type = T;
    static constexpr bool has_identity = false;
    KLEENE_HD static constexpr T identity() { return T(1); }
    KLEENE_HD static constexpr T apply(T, T) { return T(1); }
};

/// any(a, b) returns one of its arguments; which one is unspecified (GraphBLAS ANY). It returns b
/// when a is the placeholder identity 0, so that a sum folded from zero() keeps a real term.
template <class T>
struct any_op {
    using value_type = T;
    static constexpr bool has_identity = false;
    KLEENE_HD static constexpr T identity() { return T(0); }
    KLEENE_HD static constexpr T apply(T a, T b) { return a == T(0) ? b : a; }
};

// ---- monoids ----------------------------------------------------------------------------------
// A monoid is an associative, commutative operator with an identity. `terminal` is an absorbing
// value (min: -inf, lor: true, any: every value) that lets a reduction stop early.

template <class Op, bool Idempotent, bool HasTerminal, bool AnyTerminal = false>
struct monoid {
    using value_type = typename Op::value_type;
    using op_type = Op;
    static constexpr bool idempotent = Idempotent;
    static constexpr bool has_terminal = HasTerminal;
    /// true when every value is terminal (any): the first value found ends the reduction.
    static constexpr bool any_terminal = AnyTerminal;
    KLEENE_HD static constexpr value_type identity() { return Op::identity(); }
    KLEENE_HD static constexpr value_type terminal() {
        if constexpr (std::is_same_v<Op, min_op<value_type>>) return detail::min_value<value_type>();
        else if constexpr (std::is_same_v<Op, max_op<value_type>>) return detail::max_value<value_type>();
        else if constexpr (std::is_same_v<Op, lor_op<value_type>>) return value_type(1);
        else if constexpr (std::is_same_v<Op, land_op<value_type>>) return value_type(0);
        else return Op::identity();
    }
    KLEENE_HD static constexpr value_type apply(value_type a, value_type b) { return Op::apply(a, b); }
};

template <class T>
using plus_monoid = monoid<plus_op<T>, false, false>;
template <class T>
using times_monoid = monoid<times_op<T>, false, false>;
template <class T>
using min_monoid = monoid<min_op<T>, true, true>;
template <class T>
using max_monoid = monoid<max_op<T>, true, true>;
template <class T>
using lor_monoid = monoid<lor_op<T>, true, true>;
template <class T>
using land_monoid = monoid<land_op<T>, true, true>;
template <class T>
using any_monoid = monoid<any_op<T>, true, true, true>;

template <class M>
concept monoid_type = requires(typename M::value_type a) {
    typename M::value_type;
    { M::identity() } -> std::convertible_to<typename M::value_type>;
    { M::apply(a, a) } -> std::convertible_to<typename M::value_type>;
    { M::idempotent } -> std::convertible_to<bool>;
    { M::has_terminal } -> std::convertible_to<bool>;
};

template <class Op>
concept binary_op_type = requires(typename Op::value_type a) {
    typename Op::value_type;
    { Op::apply(a, a) } -> std::convertible_to<typename Op::value_type>;
};

// ---- semirings --------------------------------------------------------------------------------

/// A semiring built from an additive monoid and a multiplicative operator. zero() is the identity
/// of add (and, for the built-ins, the annihilator of mul where the operator has one).
template <monoid_type AddMonoid, binary_op_type MulOp>
    requires std::same_as<typename AddMonoid::value_type, typename MulOp::value_type>
struct semiring {
    using value_type = typename AddMonoid::value_type;
    using add_monoid = AddMonoid;
    using mul_op = MulOp;
    static constexpr bool idempotent_add = AddMonoid::idempotent;
    static constexpr bool has_terminal = AddMonoid::has_terminal;
    static constexpr bool any_terminal = AddMonoid::any_terminal;
    KLEENE_HD static constexpr value_type zero() { return AddMonoid::identity(); }
    KLEENE_HD static constexpr value_type one() { return MulOp::identity(); }
    KLEENE_HD static constexpr value_type terminal() { return AddMonoid::terminal(); }
    KLEENE_HD static constexpr value_type add(value_type a, value_type b) {
        return AddMonoid::apply(a, b);
    }
    KLEENE_HD static constexpr value_type mul(value_type a, value_type b) {
        return MulOp::apply(a, b);
    }
};

/// What the host kernels need of a semiring: its operations called on an object, so that they
/// may depend on the object's state (runtime_semiring.hpp chooses them at run time). Static
/// members satisfy it too; the traits are static, read at compile time (conservative values are
/// always correct: no idempotence, a terminal test that the object answers).
template <class S>
concept semiring_object = requires(S const& s, typename S::value_type a) {
    typename S::value_type;
    { s.zero() } -> std::convertible_to<typename S::value_type>;
    { s.one() } -> std::convertible_to<typename S::value_type>;
    { s.add(a, a) } -> std::convertible_to<typename S::value_type>;
    { s.mul(a, a) } -> std::convertible_to<typename S::value_type>;
    { S::idempotent_add } -> std::convertible_to<bool>;
    { S::has_terminal } -> std::convertible_to<bool>;
    { s.terminal() } -> std::convertible_to<typename S::value_type>;
};

/// What any semiring type, built-in or user-defined, must provide everywhere (the device kernels
/// and the JIT included): the operations as static members, the type is the semiring.
template <class S>
concept semiring_type = semiring_object<S> && requires(typename S::value_type a) {
    { S::zero() } -> std::convertible_to<typename S::value_type>;
    { S::one() } -> std::convertible_to<typename S::value_type>;
    { S::add(a, a) } -> std::convertible_to<typename S::value_type>;
    { S::mul(a, a) } -> std::convertible_to<typename S::value_type>;
    { S::terminal() } -> std::convertible_to<typename S::value_type>;
};

/// Terminal-value test shared by the kernels: true when a sum can no longer change.
template <semiring_type S>
KLEENE_HD constexpr bool is_terminal(typename S::value_type v) {
    if constexpr (!S::has_terminal) return false;
    else if constexpr (requires { S::any_terminal; } && S::any_terminal) return true;
    else return v == S::terminal();
}

/// The same test on a semiring object: the object answers when it can (a run-time semiring).
template <semiring_object S>
KLEENE_HD constexpr bool is_terminal(S const& s, typename S::value_type v) {
    if constexpr (requires { s.is_terminal(v); }) return s.is_terminal(v);
    else return is_terminal<S>(v);
}

namespace detail {
template <class Add, class Mul>
constexpr bool known_annihilating() {
    using T = typename Mul::value_type;
    using op = typename Add::op_type;
    return (std::is_same_v<op, plus_op<T>> && std::is_same_v<Mul, times_op<T>>) ||
           (std::is_same_v<op, min_op<T>> && std::is_same_v<Mul, plus_sat_op<T>>) ||
           (std::is_same_v<op, max_op<T>> && std::is_same_v<Mul, plus_sat_op<T, true>>) ||
           (std::is_same_v<op, max_op<T>> && std::is_same_v<Mul, min_op<T>>) ||
           (std::is_same_v<op, min_op<T>> && std::is_same_v<Mul, max_op<T>>) ||
           (std::is_same_v<op, lor_op<T>> && std::is_same_v<Mul, land_op<T>>);
}
}  // namespace detail

/// Whether mul(zero, x) == mul(x, zero) == zero for every x. Dense storage writes an absent entry
/// as zero, so a dense kernel may multiply by zero freely only when zero annihilates; otherwise
/// (pair, first, second, plus_min, ...) the kernel runs through `absent_aware<S>`. Known for the
/// built-ins; a user semiring states it with a static constexpr bool `zero_annihilates`, and
/// without one it is taken as false (always correct, a little slower).
template <semiring_object S>
constexpr bool zero_annihilates() {
    if constexpr (requires { S::zero_annihilates; }) return S::zero_annihilates;
    else if constexpr (requires { typename S::add_monoid; typename S::mul_op; })
        return detail::known_annihilating<typename S::add_monoid, typename S::mul_op>();
    else return false;
}

/// S with a mul that treats zero (absent) operands as absent: mul(zero, x) == zero.
template <semiring_type S>
struct absent_aware : S {
    using value_type = typename S::value_type;
    static constexpr bool zero_annihilates = true;
    KLEENE_HD static constexpr value_type mul(value_type a, value_type b) {
        return (a == S::zero() || b == S::zero()) ? S::zero() : S::mul(a, b);
    }
};

/// The semiring a dense kernel should run: S itself when zero annihilates, else `absent_aware<S>`.
template <semiring_type S>
using dense_safe = std::conditional_t<zero_annihilates<S>(), S, absent_aware<S>>;

template <class T>
using plus_times = semiring<plus_monoid<T>, times_op<T>>;
template <class T>
using min_plus = semiring<min_monoid<T>, plus_sat_op<T>>;
template <class T>
using max_plus = semiring<max_monoid<T>, plus_sat_op<T, true>>;
template <class T>
using max_min = semiring<max_monoid<T>, min_op<T>>;
template <class T>
using min_max = semiring<min_monoid<T>, max_op<T>>;
template <class T>
using lor_land = semiring<lor_monoid<T>, land_op<T>>;
template <class T>
using any_pair = semiring<any_monoid<T>, pair_op<T>>;
template <class T>
using plus_pair = semiring<plus_monoid<T>, pair_op<T>>;
template <class T>
using min_first = semiring<min_monoid<T>, first_op<T>>;
template <class T>
using min_second = semiring<min_monoid<T>, second_op<T>>;
template <class T>
using plus_min = semiring<plus_monoid<T>, min_op<T>>;
template <class T>
using max_times = semiring<max_monoid<T>, times_op<T>>;

#if !defined(__CUDACC_RTC__)
/// Names of the built-in semirings, as the command line spells them.
inline constexpr std::string_view builtin_semiring_names[] = {
    "plus_times", "min_plus", "max_plus",  "max_min",   "min_max",  "lor_land",
    "any_pair",   "plus_pair", "min_first", "min_second", "plus_min", "max_times"};
#endif

}  // namespace kleene

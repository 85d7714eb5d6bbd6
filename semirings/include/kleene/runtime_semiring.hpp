#pragma once
// A semiring composed at run time from semiring.hpp's operators: the additive monoid and the
// multiplicative operator are chosen by value (an enum each), so one instantiation of a kernel per
// value type serves every composition, where `semiring<M, Op>` needs one per pair. It is what the
// Python module runs on the CPU for a composition it has no compiled instance of
// (kleene.Semiring(add="max", multiply="first")); the GPU builds such a semiring with the JIT
// (jit::compose, the same composition rules).
//
//   kleene::runtime_semiring<float> s(kleene::add_kind::max, kleene::mul_kind::first);
//   kleene::mxm(C, A, B, s);                     // host CSR operands (semiring_object)
//
// The operations and traits are those of `semiring<add monoid, mul operator>` exactly (plus as the
// multiply is plus_sat_op, -inf winning under max, as jit::compose and max_plus have it). The
// kernels read the static traits at compile time, so those are the conservative ones (not
// idempotent; a terminal test the object answers; zero not annihilating), each always correct;
// traits() holds the composition's own. Only the host kernels that take the semiring as an object
// run it (kleene::mxm on CSR, mxv, vxm); the dense GEMM and the device kernels take static types.

#include <kleene/semiring.hpp>
#include <optional>
#include <string_view>

namespace kleene {

/// The additive monoids a composition takes (semiring.hpp's *_monoid).
enum class add_kind { plus, times, min, max, lor, land, any };
/// The multiplicative operators a composition takes (semiring.hpp's *_op).
enum class mul_kind { plus, times, min, max, land, lor, first, second, pair };

inline constexpr std::string_view add_kind_names[] = {"plus", "times", "min", "max",
                                                      "lor",  "land",  "any"};
inline constexpr std::string_view mul_kind_names[] = {"plus", "times", "min",    "max", "land",
                                                      "lor",  "first", "second", "pair"};

inline std::optional<add_kind> parse_add_kind(std::string_view name) {
    for (std::size_t k = 0; k < std::size(add_kind_names); ++k)
        if (add_kind_names[k] == name) return static_cast<add_kind>(k);
    return std::nullopt;
}
inline std::optional<mul_kind> parse_mul_kind(std::string_view name) {
    for (std::size_t k = 0; k < std::size(mul_kind_names); ++k)
        if (mul_kind_names[k] == name) return static_cast<mul_kind>(k);
    return std::nullopt;
}

template <class T>
class runtime_semiring {
  public:
    using value_type = T;
    static constexpr bool idempotent_add = false;
    static constexpr bool has_terminal = true;
    static constexpr bool zero_annihilates = false;

    /// The composition's own traits, as semiring<M, Op> and zero_annihilates<> give them.
    struct trait_values {
        T zero{}, one{}, terminal{};
        bool idempotent_add = false;
        bool has_terminal = false;
        bool any_terminal = false;
        bool zero_annihilates = false;
    };

    runtime_semiring(add_kind add, mul_kind mul) : add_(add), mul_(mul) {
        visit_add(add, [&](auto m) {
            visit_mul<decltype(m)>(mul, [&](auto op) {
                using S = semiring<decltype(m), decltype(op)>;
                traits_ = {S::zero(),
                           S::one(),
                           S::terminal(),
                           S::idempotent_add,
                           S::has_terminal,
                           S::any_terminal,
                           kleene::zero_annihilates<S>()};
            });
        });
    }

    add_kind add_operator() const { return add_; }
    mul_kind mul_operator() const { return mul_; }
    trait_values const& traits() const { return traits_; }

    T zero() const { return traits_.zero; }
    T one() const { return traits_.one; }
    T terminal() const { return traits_.terminal; }
    bool is_terminal(T v) const {
        return traits_.has_terminal && (traits_.any_terminal || v == traits_.terminal);
    }

    T add(T a, T b) const {
        switch (add_) {
            case add_kind::plus:
                return plus_op<T>::apply(a, b);
            case add_kind::times:
                return times_op<T>::apply(a, b);
            case add_kind::min:
                return min_op<T>::apply(a, b);
            case add_kind::max:
                return max_op<T>::apply(a, b);
            case add_kind::lor:
                return lor_op<T>::apply(a, b);
            case add_kind::land:
                return land_op<T>::apply(a, b);
            case add_kind::any:
                break;
        }
        return any_op<T>::apply(a, b);
    }

    T mul(T a, T b) const {
        switch (mul_) {
            case mul_kind::plus:
                return add_ == add_kind::max ? plus_op_t<true>::apply(a, b)
                                             : plus_op_t<false>::apply(a, b);
            case mul_kind::times:
                return times_op<T>::apply(a, b);
            case mul_kind::min:
                return min_op<T>::apply(a, b);
            case mul_kind::max:
                return max_op<T>::apply(a, b);
            case mul_kind::land:
                return land_op<T>::apply(a, b);
            case mul_kind::lor:
                return lor_op<T>::apply(a, b);
            case mul_kind::first:
                return a;
            case mul_kind::second:
                return b;
            case mul_kind::pair:
                break;
        }
        return T(1);
    }

  private:
    /// plus as a multiply: saturating at the integer infinities (bool has no make_unsigned: plain).
    template <bool LowWins>
    using plus_op_t =
        std::conditional_t<std::is_same_v<T, bool>, plus_op<T>, plus_sat_op<T, LowWins>>;

    template <class F>
    static void visit_add(add_kind k, F&& f) {
        switch (k) {
            case add_kind::plus:
                return f(plus_monoid<T>{});
            case add_kind::times:
                return f(times_monoid<T>{});
            case add_kind::min:
                return f(min_monoid<T>{});
            case add_kind::max:
                return f(max_monoid<T>{});
            case add_kind::lor:
                return f(lor_monoid<T>{});
            case add_kind::land:
                return f(land_monoid<T>{});
            case add_kind::any:
                return f(any_monoid<T>{});
        }
    }
    template <class M, class F>
    static void visit_mul(mul_kind k, F&& f) {
        constexpr bool low = std::is_same_v<M, max_monoid<T>>;
        switch (k) {
            case mul_kind::plus:
                return f(plus_op_t<low>{});
            case mul_kind::times:
                return f(times_op<T>{});
            case mul_kind::min:
                return f(min_op<T>{});
            case mul_kind::max:
                return f(max_op<T>{});
            case mul_kind::land:
                return f(land_op<T>{});
            case mul_kind::lor:
                return f(lor_op<T>{});
            case mul_kind::first:
                return f(first_op<T>{});
            case mul_kind::second:
                return f(second_op<T>{});
            case mul_kind::pair:
                return f(pair_op<T>{});
        }
    }

    add_kind add_;
    mul_kind mul_;
    trait_values traits_;
};

}  // namespace kleene

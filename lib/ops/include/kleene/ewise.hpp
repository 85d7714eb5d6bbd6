#pragma once
// Element-wise operations, GraphBLAS style.
//
//   ewise_add(C, mask, accum, op, A, B, options)    C<mask, replace> accum= A (+) B   (union)
//   ewise_mult(C, mask, accum, op, A, B, options)   C<mask, replace> accum= A (x) B (intersection)
//
// and the same on vectors (w, u, v). op is a binary operator, a monoid, or a semiring (ewise_add
// uses its add, ewise_mult its mul), optionally wrapped as with_absent(op, x). Where only one
// operand has an entry, ewise_add copies it; op(a, b) always takes a from A and b from B. Inputs
// may be CSR, dense or transposed views (materialised); dense objects hold the absent value of
// operators.hpp where an entry is absent.

#include <kleene/cpu/elementwise.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/operation_space.hpp>
#include <kleene/operators.hpp>
#include <kleene/transpose.hpp>
#include <string>
#include <type_traits>

namespace kleene {

namespace detail {
template <class... Containers, class Op>
constexpr void check_value_types(Op const&) {
    using T = typename Op::value_type;
    static_assert((std::is_same_v<typename Containers::value_type, T> && ...),
                  "kleene: the containers' value types must equal the operator's value_type");
}

template <class Op>
std::string op_kind() {
    if constexpr (semiring_type<Op>)
        return "semiring";
    else if constexpr (monoid_type<Op>)
        return "monoid";
    else
        return "binary operator";
}

/// What ewise_add and ewise_mult take: an output and two inputs of one space: host matrices (the
/// inputs possibly transpose views) or vectors; device matrices (possibly views) or vectors.
template <class C, class A, class B>
concept ewise_operands =
    (host_matrix<C> && matrix_operand<A> && matrix_operand<B>) ||
    (host_vector<C> && host_vector<A> && host_vector<B>) ||
    (device_matrix<C> && device_operand<A> && device_operand<B>) ||
    (device_vector<C> && device_vector<A> && device_vector<B>);

/// ewise_add (Union) and ewise_mult: one body for host and device containers: the checks, the
/// trace and the choice by space and storage. Host: dense by dense into dense element by element,
/// CSR by CSR a row merge (count then fill), otherwise row by row through a dense workspace, then
/// the mask and accumulator; vectors element by element. Device (the CUDA backend,
/// cuda/operations.hpp; all CSR with one index type, all dense, or dense vectors; the operators
/// plus, times, min, max, first, second, or a monoid's or semiring's own): a row merge (count,
/// then fill) or element by element, on the context's stream.
template <bool Union, class C, class Mask, class Accum, class Op, class A, class B>
void ewise(char const* name, C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in,
           B const& b_in, options const& opt) {
    auto const& op0 = unwrap_absent(op_in);
    using Op0 = std::remove_cvref_t<decltype(op0)>;
    check_value_types<C, A, B>(op0);
    using T = typename C::value_type;
    constexpr bool on_device = in_space<C, device>;
    if constexpr (on_device) check_device_output<C, Accum>();
    if (rows_of(a_in) != rows_of(b_in) || cols_of(a_in) != cols_of(b_in))
        throw dimension_mismatch(std::string(name) + ": A (" + describe(a_in) + ") and B (" +
                                 describe(b_in) + ") differ in shape");
    if (rows_of(c) != rows_of(a_in) || cols_of(c) != cols_of(a_in))
        throw dimension_mismatch(std::string(name) + ": output is " + describe(c) +
                                 " but A and B are " + shape(rows_of(a_in), cols_of(a_in)));
    check_mask(name, mask, c);
    [[maybe_unused]] auto const scope = enter_space<C>(name, opt, "on the GPU");
    T const absent = absent_of(op_in);
    auto&& a = materialize_any(a_in, opt, name);
    auto&& b = materialize_any(b_in, opt, name);
    using MA = std::remove_cvref_t<decltype(a)>;
    using MB = std::remove_cvref_t<decltype(b)>;
    if constexpr (on_device) {
        // The backend takes the binary operator: a monoid's or a semiring's own (add for the
        // union, mul for the intersection), the absent value kept.
        auto const bin = backend_binary_op<Union>(op_in);
        static_assert(gpu_ewise_op<std::remove_cvref_t<decltype(bin)>, T>,
                      "kleene: element-wise operations on the device are built for plus, times, "
                      "min, max, first and second");
        auto const wrapped = with_absent(bin, absent);
        if constexpr (device_vector<C>) {
            static_assert(is_dense_vec<C> && is_dense_vec<MA> &&
                              is_dense_vec<MB>,
                          "kleene: element-wise operations on device vectors take dense vectors");
            trace(opt, std::string(name) + ": device dense vectors, element by element");
        } else {
            static_assert((is_csr<C> && is_csr<MA> && is_csr<MB>) ||
                              (is_dense<C> && is_dense<MA> && is_dense<MB>),
                          "kleene: element-wise operations on the device take operands and an "
                          "output that are all CSR (with one index type) or all dense");
            trace(opt, std::string(name) + ": " + describe(a) + ", " + describe(b) +
                           (is_csr<MA> ? ": cuda row merge (count, then fill)"
                                              : ": cuda element by element"));
        }
        auto const m = device_mask<C>(mask, opt.ctx);
        if constexpr (Union)
            cuda::ewise_add(c, m, accum, wrapped, a, b, opt);
        else
            cuda::ewise_mult(c, m, accum, wrapped, a, b, opt);
    } else {
        auto const op = [&] {
            if constexpr (Union)
                return add_operator(op0);
            else
                return mul_operator(op0);
        }();
        if constexpr (host_vector<C>) {
            trace(opt, std::string(name) + ": " + describe(a) + ", " + describe(b) +
                           ": vectors, element by element");
            auto const t = cpu::ewise_vector<Union>(op, load_vector(a, absent),
                                                    load_vector(b, absent));
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
        } else {
            constexpr bool plain =
                std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
            std::string const what = std::string(name) + ": " + describe(a) + ", " +
                                     describe(b) + " (" + op_kind<Op0>() + "): ";
            if constexpr (is_dense<MA> && is_dense<MB> && is_dense<C> && plain) {
                trace(opt, what + "dense, element by element into C");
                cpu::ewise_dense<Union>(op, a, b, c, absent);
            } else if constexpr (is_csr<MA> && is_csr<MB>) {
                trace(opt, what + (Union ? "csr row merge (union" : "csr row merge (intersection") +
                               ", count then fill)" + (plain ? "" : ", then mask/accumulate"));
                auto t = cpu::ewise_csr<Union>(op, a, b);
                detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "ewise");
            } else {
                trace(opt, what + "row by row through a dense workspace, then mask/accumulate");
                using Index = typename std::conditional_t<is_csr<C>, C, csr_matrix<T>>::index_type;
                auto const t = cpu::ewise_rows<Union, Index>(op, a, b, absent);
                cpu::write_back(c, mask, accum, t, opt.replace, absent);
            }
        }
    }
}
}  // namespace detail

/// C<mask, replace> accum= A (+) B: the union of the structures, op(a, b) where both exist; and
/// w<mask, replace> accum= u (+) v. Host or device containers, one space a call (detail::ewise).
template <class C, mask_type Mask, accumulator_type Accum, ewise_operator Op, class A, class B>
    requires detail::ewise_operands<C, A, B>
void ewise_add(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
               options const& opt = {}) {
    detail::ewise<true>("ewise_add", c, mask, accum, op, a, b, opt);
}
template <class C, ewise_operator Op, class A, class B>
    requires detail::ewise_operands<C, A, B>
void ewise_add(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    detail::ewise<true>("ewise_add", c, no_mask, no_accum, op, a, b, opt);
}

/// C<mask, replace> accum= A (x) B: the intersection of the structures, op(a, b); and
/// w<mask, replace> accum= u (x) v. Host or device containers, one space a call.
template <class C, mask_type Mask, accumulator_type Accum, ewise_operator Op, class A, class B>
    requires detail::ewise_operands<C, A, B>
void ewise_mult(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
                options const& opt = {}) {
    detail::ewise<false>("ewise_mult", c, mask, accum, op, a, b, opt);
}
template <class C, ewise_operator Op, class A, class B>
    requires detail::ewise_operands<C, A, B>
void ewise_mult(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    detail::ewise<false>("ewise_mult", c, no_mask, no_accum, op, a, b, opt);
}

KLEENE_NO_MIXED_SPACES(ewise_add)
KLEENE_NO_MIXED_SPACES(ewise_mult)

}  // namespace kleene

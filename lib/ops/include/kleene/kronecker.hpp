#pragma once
// kronecker: the Kronecker product, GraphBLAS style.
//
//   kronecker(C, mask, accum, op, A, B, options)   C<mask, replace> accum= kron(A, B)
//
// C(ia * mb + ib, ja * nb + jb) = op(A(ia, ja), B(ib, jb)) for B of size mb x nb, where both
// entries exist. op is a binary operator, a monoid, or a semiring (its mul), optionally wrapped
// as with_absent(op, x); dense objects hold the absent value of operators.hpp.

#include <kleene/cpu/kronecker.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/operation_space.hpp>
#include <kleene/operators.hpp>
#include <kleene/transpose.hpp>
#include <limits>
#include <string>
#include <type_traits>

namespace kleene {

namespace detail {
/// What kronecker takes: an output and two operands of one space (host matrices, or device
/// matrices; an operand possibly a transpose view).
template <class C, class A, class B>
concept kronecker_operands = (host_matrix<C> && matrix_operand<A> && matrix_operand<B>) ||
                             (device_matrix<C> && device_operand<A> && device_operand<B>);
}  // namespace detail

/// C<mask, replace> accum= kron(A, B): host or device containers (one space a call), one body: the
/// checks (the shapes, their 64-bit product, an index type that holds the result), the trace and
/// the choice by space and storage. Host: row by row (rows of A times rows of B), then the mask and
/// accumulator (cpu::write_back). Device (the CUDA backend; all CSR with one index type, or all
/// dense; operators plus, times, min, max, first, second, or a semiring's mul): CSR a count and a
/// fill pass, one thread a row of C, columns sorted; dense one thread an entry, the mask and
/// accumulator applied in place.
template <class C, mask_type Mask, accumulator_type Accum, ewise_operator Op, class A, class B>
    requires detail::kronecker_operands<C, A, B>
void kronecker(C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in, B const& b_in,
               options const& opt = {}) {
    using T = typename C::value_type;
    constexpr bool on_device = detail::in_space<C, device>;
    auto const op = [&] {
        if constexpr (on_device) return detail::backend_binary_op<false>(op_in);
        else return detail::mul_operator(unwrap_absent(op_in));
    }();
    using O = std::remove_cvref_t<decltype(op)>;
    static_assert(std::is_same_v<typename A::value_type, T> &&
                      std::is_same_v<typename B::value_type, T> &&
                      std::is_same_v<typename O::value_type, T>,
                  "kronecker: the inputs', the output's and the operator's value types must be equal");
    if constexpr (on_device) {
        static_assert(detail::gpu_ewise_op<O, T>,
                      "kleene: kronecker on the device is built for plus, times, min, max, first and "
                      "second");
        detail::check_device_output<C, Accum>();
    }
    std::size_t const rows = a_in.rows() * b_in.rows(), cols = a_in.cols() * b_in.cols();
    if ((b_in.rows() && rows / b_in.rows() != a_in.rows()) ||
        (b_in.cols() && cols / b_in.cols() != a_in.cols()))
        throw overflow_error("kronecker: the shape of kron(A, B) overflows 64 bits");
    if (c.rows() != rows || c.cols() != cols)
        throw dimension_mismatch("kronecker: output C is " + detail::describe(c) +
                                 " but kron(A, B) of A (" + detail::describe(a_in) +
                                 ") and B (" + detail::describe(b_in) + ") is " +
                                 detail::shape(rows, cols));
    detail::check_mask("kronecker", mask, c);
    [[maybe_unused]] auto const scope = detail::enter_space<C>("kronecker", opt, "on the GPU");
    T const absent = absent_of(op_in);
    auto&& a = detail::materialize_any(a_in, opt, "kronecker");
    auto&& b = detail::materialize_any(b_in, opt, "kronecker");
    using MA = std::remove_cvref_t<decltype(a)>;
    using MB = std::remove_cvref_t<decltype(b)>;
    if constexpr (detail::is_csr<C> && detail::is_csr<MA> && detail::is_csr<MB>) {
        // A CSR result of CSR operands: its entries and shape in C's index type.
        using Index = typename C::index_type;
        auto const fits = [](std::size_t x) {
            return x <= std::size_t(std::numeric_limits<Index>::max());
        };
        std::size_t const an = a.nnz(), bn = b.nnz(), nnz = an * bn;
        if ((bn && nnz / bn != an) || !fits(nnz) || !fits(rows) || !fits(cols))
            throw overflow_error("kronecker: kron(A, B) (" + detail::shape(rows, cols) + ", " +
                                 std::to_string(an) + " x " + std::to_string(bn) +
                                 " entries) does not fit the index type of " +
                                 std::to_string(sizeof(Index) * 8) + " bits");
    }
    if constexpr (on_device) {
        static_assert((detail::is_csr<C> && std::is_same_v<C, MA> && std::is_same_v<C, MB>) ||
                          (detail::is_dense<C> && detail::is_dense<MA> &&
                           detail::is_dense<MB>),
                      "kleene: kronecker on the device takes operands and an output that are all "
                      "CSR (one index type) or all dense");
        context& ctx = resolve(opt.ctx);
        if constexpr (detail::is_csr<C>) {
            detail::trace(opt, "kronecker: " + detail::describe(a) + " x " +
                                   detail::describe(b) +
                                   ": cuda, a thread a row of C (count, then fill)");
            auto t = cuda::detail::kronecker_csr(ctx, op, a, b);
            detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "kronecker");
        } else {
            detail::trace(opt, "kronecker: " + detail::describe(a) + " x " +
                                   detail::describe(b) + ": cuda, a thread an entry of C");
            cuda::detail::kronecker_dense(ctx, c.data(), detail::device_mask<C>(mask, &ctx), accum,
                                          op, a.data(), a.rows(), a.cols(), b.data(), b.rows(),
                                          b.cols(), absent, opt.replace);
        }
    } else {
        detail::trace(opt, "kronecker: " + detail::describe(a) + " x " + detail::describe(b) +
                               ": row by row (rows of A times rows of B)");
        if constexpr (detail::is_csr<C>) {
            auto t = cpu::kronecker<typename C::index_type>(op, a, b, absent);
            detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "kronecker");
        } else {
            auto const t = cpu::kronecker<std::int64_t>(op, a, b, absent);
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
        }
    }
}
template <class C, ewise_operator Op, class A, class B>
    requires detail::kronecker_operands<C, A, B>
void kronecker(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    kronecker(c, no_mask, no_accum, op, a, b, opt);
}

KLEENE_NO_MIXED_SPACES(kronecker)

}  // namespace kleene

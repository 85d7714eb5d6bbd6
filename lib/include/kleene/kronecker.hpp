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
#include <kleene/operators.hpp>
#include <kleene/transpose.hpp>
#include <limits>
#include <string>
#include <type_traits>

namespace kleene {

/// C<mask, replace> accum= kron(A, B).
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::matrix_operand A, detail::matrix_operand B>
void kronecker(C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in, B const& b_in,
               options const& opt = {}) {
    using T = typename C::value_type;
    auto const op = detail::mul_operator(unwrap_absent(op_in));
    static_assert(
        std::is_same_v<typename A::value_type, T> && std::is_same_v<typename B::value_type, T> &&
            std::is_same_v<typename decltype(op)::value_type, T>,
        "kronecker: the inputs', the output's and the operator's value types must be equal");
    if (c.rows() != a_in.rows() * b_in.rows() || c.cols() != a_in.cols() * b_in.cols())
        throw dimension_mismatch(
            "kronecker: output C is " + detail::describe(c) + " but kron(A, B) of A (" +
            detail::describe_operand(a_in) + ") and B (" + detail::describe_operand(b_in) +
            ") is " + detail::shape(a_in.rows() * b_in.rows(), a_in.cols() * b_in.cols()));
    detail::check_mask("kronecker", mask, c);
    auto const omp_scope = detail::check_host("kronecker", opt);
    T const absent = absent_of(op_in);
    auto&& a = detail::materialize(a_in, opt, "kronecker");
    auto&& b = detail::materialize(b_in, opt, "kronecker");
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    detail::trace(opt, "kronecker: " + detail::describe(a) + " x " + detail::describe(b) +
                           ": row by row (rows of A times rows of B)");
    if constexpr (detail::is_csr<C>) {
        auto t = cpu::kronecker<typename C::index_type>(op, a, b, absent);
        if constexpr (plain)
            c = std::move(t);
        else
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
    } else {
        auto const t = cpu::kronecker<std::int64_t>(op, a, b, absent);
        cpu::write_back(c, mask, accum, t, opt.replace, absent);
    }
}
template <detail::host_matrix C, ewise_operator Op, detail::matrix_operand A,
          detail::matrix_operand B>
void kronecker(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    kronecker(c, no_mask, no_accum, op, a, b, opt);
}

// ---- on device containers -----------------------------------------------------------------------

/// C<mask, replace> accum= kron(A, B) on device containers (all CSR with one index type, or all
/// dense): the host's call and semantics, run by the CUDA backend (CSR: a count and a fill pass,
/// one thread a row of C, columns sorted; dense: one thread an entry, the mask and accumulator
/// applied in place). Operators plus, times, min, max, first, second, or a semiring's mul.
template <detail::device_matrix C, mask_type Mask, accumulator_type Accum, ewise_operator Op,
          detail::device_operand A, detail::device_operand B>
void kronecker(C& c, Mask const& mask, Accum accum, Op const& op_in, A const& a_in, B const& b_in,
               options const& opt = {}) {
    using T = typename C::value_type;
    auto const op0 = detail::backend_binary_op<false>(op_in);
    using Op0 = std::remove_cvref_t<decltype(op0)>;
    static_assert(std::is_same_v<typename A::value_type, T> &&
                      std::is_same_v<typename B::value_type, T> &&
                      std::is_same_v<typename Op0::value_type, T>,
                  "kronecker: the inputs', the output's and the operator's value types must be equal");
    static_assert(detail::gpu_ewise_op<Op0, T>,
                  "kleene: kronecker on the device is built for plus, times, min, max, first and "
                  "second");
    detail::check_device_output<C, Accum>();
    std::size_t const rows = a_in.rows() * b_in.rows(), cols = a_in.cols() * b_in.cols();
    if ((b_in.rows() && rows / b_in.rows() != a_in.rows()) ||
        (b_in.cols() && cols / b_in.cols() != a_in.cols()))
        throw overflow_error("kronecker: the shape of kron(A, B) overflows 64 bits");
    if (c.rows() != rows || c.cols() != cols)
        throw dimension_mismatch("kronecker: output C is " + detail::describe_device(c) +
                                 " but kron(A, B) of A (" + detail::describe_device(a_in) +
                                 ") and B (" + detail::describe_device(b_in) + ") is " +
                                 detail::shape(rows, cols));
    detail::check_mask("kronecker", mask, c);
    detail::device_call("kronecker", opt, "on the GPU");
    auto&& a = detail::materialize_device(a_in, opt, "kronecker");
    auto&& b = detail::materialize_device(b_in, opt, "kronecker");
    using MA = std::remove_cvref_t<decltype(a)>;
    using MB = std::remove_cvref_t<decltype(b)>;
    static_assert((detail::is_device_csr<C> && std::is_same_v<C, MA> && std::is_same_v<C, MB>) ||
                      (detail::is_device_dense<C> && detail::is_device_dense<MA> &&
                       detail::is_device_dense<MB>),
                  "kleene: kronecker on the device takes operands and an output that are all CSR "
                  "(one index type) or all dense");
    if constexpr (detail::is_device_csr<C>) {
        using Index = typename C::index_type;
        auto const fits = [](std::size_t x) {
            return x <= std::size_t(std::numeric_limits<Index>::max());
        };
        std::size_t const nnz = a.nnz() * b.nnz();
        if ((b.nnz() && nnz / b.nnz() != a.nnz()) || !fits(nnz) || !fits(rows) || !fits(cols))
            throw overflow_error("kronecker: kron(A, B) (" + detail::shape(rows, cols) + ", " +
                                 std::to_string(a.nnz()) + " x " + std::to_string(b.nnz()) +
                                 " entries) does not fit the index type of " +
                                 std::to_string(sizeof(Index) * 8) + " bits");
        detail::trace(opt, "kronecker: " + detail::describe_device(a) + " x " +
                               detail::describe_device(b) +
                               ": cuda, a thread a row of C (count, then fill)");
        context& ctx = resolve(opt.ctx);
        auto t = cuda::detail::kronecker_csr(ctx, op0, a, b);
        if constexpr (std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>)
            c = std::move(t);
        else
            cuda::detail::write_back_csr(ctx, "kronecker", c, detail::device_mask<C>(mask, &ctx),
                                         accum, std::move(t), opt.replace);
    } else {
        detail::trace(opt, "kronecker: " + detail::describe_device(a) + " x " +
                               detail::describe_device(b) + ": cuda, a thread an entry of C");
        cuda::detail::kronecker_dense(resolve(opt.ctx), c.data(),
                                      detail::device_mask<C>(mask, opt.ctx), accum, op0, a.data(),
                                      a.rows(), a.cols(), b.data(), b.rows(), b.cols(),
                                      T(absent_of(op_in)), opt.replace);
    }
}
template <detail::device_matrix C, ewise_operator Op, detail::device_operand A,
          detail::device_operand B>
void kronecker(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    kronecker(c, no_mask, no_accum, op, a, b, opt);
}

KLEENE_NO_MIXED_SPACES(kronecker)

}  // namespace kleene

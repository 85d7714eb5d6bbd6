#pragma once
// kleene's element-wise operations, apply, select, reduce, transpose, extract, assign and
// kronecker computed by SuiteSparse:GraphBLAS: the signatures of the kleene headers, kleene
// containers in and out, the same absent values for dense objects (operators.hpp). Transposed
// views become GraphBLAS's transpose descriptors. kleene operators map to GraphBLAS built-ins
// where there is one; any other stateless operator (a user type with static apply, a captureless
// lambda predicate) becomes a GraphBLAS user-defined operator that calls it, so the oracle covers
// user operators too. Only options.replace and options.explain (the GrB call and its time, see
// ops.hpp) are read. Calls between oracle functions are qualified, as in ops.hpp.
//
// kleene operators, monoids and select predicates as GraphBLAS objects: operators.hpp.

#include <kleene/extract_assign.hpp>
#include <kleene/graphblas/c_api.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/convert.hpp>
#include <kleene/graphblas/operators.hpp>
#include <kleene/graphblas/ops.hpp>
#include <kleene/graphblas/traits.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/reduce.hpp>
#include <kleene/select.hpp>
#include <kleene/semiring.hpp>
#include <kleene/transpose.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace kleene::graphblas {

/// The indices as GraphBLAS wants them.
std::vector<GrB_Index> index_array(resolved_indices const& r);

namespace detail {

// ---- operands ---------------------------------------------------------------------------------

/// The output of a call whose result is a C scalar: nothing to wait for.
struct no_wait {
    void wait() const noexcept {}
};

template <class A, class T>
matrix operand(A const& a, T absent) {
    return to_grb(product_operand<A>::base(a), absent);
}

template <class Mask>
bool structural(Mask const& mask) {
    if constexpr (mask_traits<Mask>::present)
        return mask.structural;
    else
        return false;
}
template <class Mask>
bool complemented(Mask const& mask) {
    if constexpr (mask_traits<Mask>::present)
        return mask.complemented;
    else
        return false;
}
template <class Mask>
GrB_Descriptor desc(Mask const& mask, bool replace, bool t0 = false, bool t1 = false) {
    return descriptor(replace, structural(mask), complemented(mask), t0, t1);
}
template <class H>
auto get(std::optional<H> const& h) {
    return h ? h->get() : nullptr;
}
}  // namespace detail

// ---- ewise ------------------------------------------------------------------------------------

template <bool Union, class C, class Mask, class Accum, class Op, class A, class B>
void ewise(C& c, Mask const& mask, Accum, Op const& op_in, A const& a, B const& b,
           options const& opt = {}) {
    using Op0 = std::remove_cvref_t<decltype(unwrap_absent(op_in))>;
    using T = typename C::value_type;
    T const absent = absent_of(op_in);
    GrB_BinaryOp const op = detail::ewise_op<Union, Op0>();
    if constexpr (requires { c.rows(); }) {
        matrix gc = to_grb(c, absent);
        matrix const ga = detail::operand(a, absent), gb = detail::operand(b, absent);
        auto const gm = detail::mask_handle<matrix>(mask);
        GrB_Descriptor const d =
            detail::desc(mask, opt.replace, detail::product_operand<A>::transposed,
                         detail::product_operand<B>::transposed);
        if constexpr (Union)
            detail::timed(opt, "GrB_Matrix_eWiseAdd_BinaryOp", gc, [&] {
                return GrB_Matrix_eWiseAdd_BinaryOp(gc.get(), detail::get(gm), grb_accum<Accum>(),
                                                    op, ga.get(), gb.get(), d);
            });
        else
            detail::timed(opt, "GrB_Matrix_eWiseMult_BinaryOp", gc, [&] {
                return GrB_Matrix_eWiseMult_BinaryOp(gc.get(), detail::get(gm), grb_accum<Accum>(),
                                                     op, ga.get(), gb.get(), d);
            });
        c = from_grb<C>(gc.get(), absent);
    } else {
        vector gc = to_grb(c, absent);
        vector const ga = to_grb(a, absent), gb = to_grb(b, absent);
        auto const gm = detail::mask_handle<vector>(mask);
        GrB_Descriptor const d = detail::desc(mask, opt.replace);
        if constexpr (Union)
            detail::timed(opt, "GrB_Vector_eWiseAdd_BinaryOp", gc, [&] {
                return GrB_Vector_eWiseAdd_BinaryOp(gc.get(), detail::get(gm), grb_accum<Accum>(),
                                                    op, ga.get(), gb.get(), d);
            });
        else
            detail::timed(opt, "GrB_Vector_eWiseMult_BinaryOp", gc, [&] {
                return GrB_Vector_eWiseMult_BinaryOp(gc.get(), detail::get(gm), grb_accum<Accum>(),
                                                     op, ga.get(), gb.get(), d);
            });
        c = from_grb<C>(gc.get(), absent);
    }
}
template <class C, class Mask, class Accum, class Op, class A, class B>
void ewise_add(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
               options const& opt = {}) {
    kleene::graphblas::ewise<true>(c, mask, accum, op, a, b, opt);
}
template <class C, class Mask, class Accum, class Op, class A, class B>
void ewise_mult(C& c, Mask const& mask, Accum accum, Op const& op, A const& a, B const& b,
                options const& opt = {}) {
    kleene::graphblas::ewise<false>(c, mask, accum, op, a, b, opt);
}

// ---- apply and select -------------------------------------------------------------------------

template <class C, class Mask, class Accum, class Op, class A>
void apply(C& c, Mask const& mask, Accum, Op const& op_in, A const& a, options const& opt = {}) {
    using T = typename C::value_type;
    using Op0 = std::remove_cvref_t<decltype(unwrap_absent(op_in))>;
    auto const& op = unwrap_absent(op_in);
    T const absent = absent_of(op_in);
    constexpr bool is_matrix = requires {
        c.rows();
    };
    using handle = std::conditional_t<is_matrix, matrix, vector>;
    handle gc = to_grb(c, absent);
    handle const ga = [&] {
        if constexpr (is_matrix)
            return detail::operand(a, absent);
        else
            return to_grb(a, absent);
    }();
    auto const gm = detail::mask_handle<handle>(mask);
    GrB_Descriptor const d =
        detail::desc(mask, opt.replace, detail::product_operand<A>::transposed);
    GrB_BinaryOp const accum = grb_accum<Accum>();
    detail::timed(opt, "GrB_apply", gc, [&] {
        GrB_Info info;
        if constexpr (is_bound<Op0>) {
            GrB_BinaryOp const bop = detail::binary_op<typename Op0::op_type>();
            if constexpr (requires { op.x; }) {
                // A is GraphBLAS's second input here: its transpose flag is INP1.
                GrB_Descriptor const d1 =
                    detail::desc(mask, opt.replace, false, detail::product_operand<A>::transposed);
                detail::scalar<T> const x(op.x);
                if constexpr (is_matrix)
                    info = GrB_Matrix_apply_BinaryOp1st_Scalar(gc.get(), detail::get(gm), accum,
                                                               bop, x.s, ga.get(), d1);
                else
                    info = GrB_Vector_apply_BinaryOp1st_Scalar(gc.get(), detail::get(gm), accum,
                                                               bop, x.s, ga.get(), d1);
            } else {
                detail::scalar<T> const y(op.y);
                if constexpr (is_matrix)
                    info = GrB_Matrix_apply_BinaryOp2nd_Scalar(gc.get(), detail::get(gm), accum,
                                                               bop, ga.get(), y.s, d);
                else
                    info = GrB_Vector_apply_BinaryOp2nd_Scalar(gc.get(), detail::get(gm), accum,
                                                               bop, ga.get(), y.s, d);
            }
        } else {
            GrB_UnaryOp const uop = detail::unary_op<Op0>();
            if constexpr (is_matrix)
                info = GrB_Matrix_apply(gc.get(), detail::get(gm), accum, uop, ga.get(), d);
            else
                info = GrB_Vector_apply(gc.get(), detail::get(gm), accum, uop, ga.get(), d);
        }
        return info;
    });
    c = from_grb<C>(gc.get(), absent);
}

template <class C, class Mask, class Accum, class Pred, class A>
void select(C& c, Mask const& mask, Accum, Pred const& pred, A const& a, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    constexpr bool is_matrix = requires {
        c.rows();
    };
    using handle = std::conditional_t<is_matrix, matrix, vector>;
    handle gc = to_grb(c, absent);
    handle const ga = [&] {
        if constexpr (is_matrix)
            return detail::operand(a, absent);
        else
            return to_grb(a, absent);
    }();
    auto const gm = detail::mask_handle<handle>(mask);
    GrB_Descriptor const d =
        detail::desc(mask, opt.replace, detail::product_operand<A>::transposed);
    auto const p = detail::grb_predicate<T>(pred);
    if constexpr (is_matrix)
        detail::timed(opt, "GrB_Matrix_select_Scalar", gc, [&] {
            return GrB_Matrix_select_Scalar(gc.get(), detail::get(gm), grb_accum<Accum>(), p.op,
                                            ga.get(), p.thunk(), d);
        });
    else
        detail::timed(opt, "GrB_Vector_select_Scalar", gc, [&] {
            return GrB_Vector_select_Scalar(gc.get(), detail::get(gm), grb_accum<Accum>(), p.op,
                                            ga.get(), p.thunk(), d);
        });
    c = from_grb<C>(gc.get(), absent);
}

// ---- reduce -----------------------------------------------------------------------------------

/// w<mask> accum= row reductions of A (column reductions for a transposed view).
template <class W, class Mask, class Accum, class Op, class A>
void reduce(W& w, Mask const& mask, Accum, Op const& op_in, A const& a, options const& opt = {}) {
    using T = typename W::value_type;
    using Op0 = std::remove_cvref_t<decltype(unwrap_absent(op_in))>;
    T const absent = absent_of(op_in);
    vector gw = to_grb(w, absent);
    matrix const ga = detail::operand(a, absent);
    auto const gm = detail::mask_handle<vector>(mask);
    detail::timed(opt, "GrB_Matrix_reduce_Monoid", gw, [&] {
        return GrB_Matrix_reduce_Monoid(
            gw.get(), detail::get(gm), grb_accum<Accum>(), detail::monoid<Op0>(), ga.get(),
            detail::desc(mask, opt.replace, detail::product_operand<A>::transposed));
    });
    w = from_grb<W>(gw.get(), absent);
}

/// The reduction of every entry to a scalar (the monoid's identity when there is none).
template <class Op, class A>
typename Op::value_type reduce(Op const& op_in, A const& a, options const& opt = {}) {
    using T = typename Op::value_type;
    using Op0 = std::remove_cvref_t<decltype(unwrap_absent(op_in))>;
    T const absent = absent_of(op_in);
    GrB_Monoid const mon = detail::monoid<Op0>();
    T s{};
    detail::timed(opt, "GrB_reduce (to a scalar)", detail::no_wait{}, [&] {
        GrB_Info info;
        if constexpr (requires { a.rows(); }) {
            matrix const ga = detail::operand(a, absent);
            if constexpr (std::is_same_v<T, bool>)
                info = GrB_Matrix_reduce_BOOL(&s, nullptr, mon, ga.get(), nullptr);
            else if constexpr (std::is_same_v<T, float>)
                info = GrB_Matrix_reduce_FP32(&s, nullptr, mon, ga.get(), nullptr);
            else if constexpr (std::is_same_v<T, double>)
                info = GrB_Matrix_reduce_FP64(&s, nullptr, mon, ga.get(), nullptr);
            else if constexpr (std::is_same_v<T, std::int32_t>)
                info = GrB_Matrix_reduce_INT32(&s, nullptr, mon, ga.get(), nullptr);
            else
                info = GrB_Matrix_reduce_INT64(&s, nullptr, mon, ga.get(), nullptr);
        } else {
            vector const ga = to_grb(a, absent);
            if constexpr (std::is_same_v<T, bool>)
                info = GrB_Vector_reduce_BOOL(&s, nullptr, mon, ga.get(), nullptr);
            else if constexpr (std::is_same_v<T, float>)
                info = GrB_Vector_reduce_FP32(&s, nullptr, mon, ga.get(), nullptr);
            else if constexpr (std::is_same_v<T, double>)
                info = GrB_Vector_reduce_FP64(&s, nullptr, mon, ga.get(), nullptr);
            else if constexpr (std::is_same_v<T, std::int32_t>)
                info = GrB_Vector_reduce_INT32(&s, nullptr, mon, ga.get(), nullptr);
            else
                info = GrB_Vector_reduce_INT64(&s, nullptr, mon, ga.get(), nullptr);
        }
        return info;
    });
    return s;
}

// ---- transpose, extract, assign, kronecker ------------------------------------------------------

template <class C, class Mask, class Accum, class A>
void transpose(C& c, Mask const& mask, Accum, A const& a, options const& opt = {},
               std::type_identity_t<typename C::value_type> absent = {}) {
    matrix gc = to_grb(c, absent);
    matrix const ga = detail::operand(a, absent);
    auto const gm = detail::mask_handle<matrix>(mask);
    detail::timed(opt, "GrB_transpose", gc, [&] {
        return GrB_transpose(
            gc.get(), detail::get(gm), grb_accum<Accum>(), ga.get(),
            detail::desc(mask, opt.replace, detail::product_operand<A>::transposed));
    });
    c = from_grb<C>(gc.get(), absent);
}

template <class C, class Mask, class Accum, class A>
void extract(C& c, Mask const& mask, Accum, A const& a, index_selection const& rows,
             index_selection const& cols, options const& opt = {},
             std::type_identity_t<typename C::value_type> absent = {}) {
    matrix gc = to_grb(c, absent);
    matrix const ga = detail::operand(a, absent);
    auto const gm = detail::mask_handle<matrix>(mask);
    auto const ri = rows.resolve(a.rows(), "extract"), rj = cols.resolve(a.cols(), "extract");
    auto const gi = index_array(ri), gj = index_array(rj);
    detail::timed(opt, "GrB_Matrix_extract", gc, [&] {
        return GrB_Matrix_extract(
            gc.get(), detail::get(gm), grb_accum<Accum>(), ga.get(), gi.data(), gi.size(),
            gj.data(), gj.size(),
            detail::desc(mask, opt.replace, detail::product_operand<A>::transposed));
    });
    c = from_grb<C>(gc.get(), absent);
}
template <class W, class Mask, class Accum, class U>
void extract(W& w, Mask const& mask, Accum, U const& u, index_selection const& rows,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    vector gw = to_grb(w, absent);
    vector const gu = to_grb(u, absent);
    auto const gm = detail::mask_handle<vector>(mask);
    auto const gi = index_array(rows.resolve(u.size(), "extract"));
    detail::timed(opt, "GrB_Vector_extract", gw, [&] {
        return GrB_Vector_extract(gw.get(), detail::get(gm), grb_accum<Accum>(), gu.get(),
                                  gi.data(), gi.size(), detail::desc(mask, opt.replace));
    });
    w = from_grb<W>(gw.get(), absent);
}
template <class W, class Mask, class Accum, class A>
void extract(W& w, Mask const& mask, Accum, A const& a, index_selection const& rows,
             std::size_t col, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    vector gw = to_grb(w, absent);
    matrix const ga = detail::operand(a, absent);
    auto const gm = detail::mask_handle<vector>(mask);
    auto const gi = index_array(rows.resolve(a.rows(), "extract"));
    detail::timed(opt, "GrB_Col_extract", gw, [&] {
        return GrB_Col_extract(
            gw.get(), detail::get(gm), grb_accum<Accum>(), ga.get(), gi.data(), gi.size(), col,
            detail::desc(mask, opt.replace, detail::product_operand<A>::transposed));
    });
    w = from_grb<W>(gw.get(), absent);
}

/// C<mask, replace>(I, J) accum= A (a matrix or a transposed view) or the scalar x.
template <class C, class Mask, class Accum, class A>
void assign(C& c, Mask const& mask, Accum, A const& a, index_selection const& rows,
            index_selection const& cols, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    matrix gc = to_grb(c, absent);
    auto const gm = detail::mask_handle<matrix>(mask);
    auto const gi = index_array(rows.resolve(c.rows(), "assign"));
    auto const gj = index_array(cols.resolve(c.cols(), "assign"));
    if constexpr (std::is_convertible_v<A, T>) {
        detail::scalar<T> const x(a);
        detail::timed(opt, "GrB_Matrix_assign_Scalar", gc, [&] {
            return GrB_Matrix_assign_Scalar(gc.get(), detail::get(gm), grb_accum<Accum>(), x.s,
                                            gi.data(), gi.size(), gj.data(), gj.size(),
                                            detail::desc(mask, opt.replace));
        });
    } else {
        matrix const ga = detail::operand(a, absent);
        detail::timed(opt, "GrB_Matrix_assign", gc, [&] {
            return GrB_Matrix_assign(
                gc.get(), detail::get(gm), grb_accum<Accum>(), ga.get(), gi.data(), gi.size(),
                gj.data(), gj.size(),
                detail::desc(mask, opt.replace, detail::product_operand<A>::transposed));
        });
    }
    c = from_grb<C>(gc.get(), absent);
}
/// w<mask, replace>(I) accum= u (a vector) or the scalar x.
template <class W, class Mask, class Accum, class U>
void assign(W& w, Mask const& mask, Accum, U const& u, index_selection const& rows,
            options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    using T = typename W::value_type;
    vector gw = to_grb(w, absent);
    auto const gm = detail::mask_handle<vector>(mask);
    auto const gi = index_array(rows.resolve(w.size(), "assign"));
    if constexpr (std::is_convertible_v<U, T>) {
        detail::scalar<T> const x(u);
        detail::timed(opt, "GrB_Vector_assign_Scalar", gw, [&] {
            return GrB_Vector_assign_Scalar(gw.get(), detail::get(gm), grb_accum<Accum>(), x.s,
                                            gi.data(), gi.size(), detail::desc(mask, opt.replace));
        });
    } else {
        vector const gu = to_grb(u, absent);
        detail::timed(opt, "GrB_Vector_assign", gw, [&] {
            return GrB_Vector_assign(gw.get(), detail::get(gm), grb_accum<Accum>(), gu.get(),
                                     gi.data(), gi.size(), detail::desc(mask, opt.replace));
        });
    }
    w = from_grb<W>(gw.get(), absent);
}

template <class C, class Mask, class Accum, class Op, class A, class B>
void kronecker(C& c, Mask const& mask, Accum, Op const& op_in, A const& a, B const& b,
               options const& opt = {}) {
    using T = typename C::value_type;
    using Op0 = std::remove_cvref_t<decltype(unwrap_absent(op_in))>;
    T const absent = absent_of(op_in);
    matrix gc = to_grb(c, absent);
    matrix const ga = detail::operand(a, absent), gb = detail::operand(b, absent);
    auto const gm = detail::mask_handle<matrix>(mask);
    detail::timed(opt, "GrB_Matrix_kronecker_BinaryOp", gc, [&] {
        return GrB_Matrix_kronecker_BinaryOp(
            gc.get(), detail::get(gm), grb_accum<Accum>(), detail::ewise_op<false, Op0>(), ga.get(),
            gb.get(),
            detail::desc(mask, opt.replace, detail::product_operand<A>::transposed,
                         detail::product_operand<B>::transposed));
    });
    c = from_grb<C>(gc.get(), absent);
}

// ---- without mask or accumulator ----------------------------------------------------------------
// The forms of kleene's public headers that take neither. Every call is qualified (see ops.hpp):
// an unqualified one would let argument-dependent lookup pick kleene's own operation.

namespace detail {
template <class C>
concept grb_matrix_out = requires(C const& c) {
    c.rows();
};
template <class W>
concept grb_vector_out = requires(W const& w) {
    w.size();
}
&&!grb_matrix_out<W>;
}  // namespace detail

template <class C, class Op, class A, class B>
void ewise_add(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    kleene::graphblas::ewise<true>(c, no_mask, no_accum, op, a, b, opt);
}
template <class C, class Op, class A, class B>
void ewise_mult(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    kleene::graphblas::ewise<false>(c, no_mask, no_accum, op, a, b, opt);
}
template <class C, class Op, class A>
void apply(C& c, Op const& op, A const& a, options const& opt = {}) {
    kleene::graphblas::apply(c, no_mask, no_accum, op, a, opt);
}
template <class C, class Pred, class A>
void select(C& c, Pred const& pred, A const& a, options const& opt = {},
            std::type_identity_t<typename C::value_type> absent = {}) {
    kleene::graphblas::select(c, no_mask, no_accum, pred, a, opt, absent);
}
template <detail::grb_vector_out W, class Op, class A>
void reduce(W& w, Op const& op, A const& a, options const& opt = {}) {
    kleene::graphblas::reduce(w, no_mask, no_accum, op, a, opt);
}
template <detail::grb_matrix_out C, class A>
void transpose(C& c, A const& a, options const& opt = {},
               std::type_identity_t<typename C::value_type> absent = {}) {
    kleene::graphblas::transpose(c, no_mask, no_accum, a, opt, absent);
}
template <detail::grb_matrix_out C, class A>
void extract(C& c, A const& a, index_selection const& rows, index_selection const& cols,
             options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    kleene::graphblas::extract(c, no_mask, no_accum, a, rows, cols, opt, absent);
}
template <detail::grb_vector_out W, class U>
requires detail::grb_vector_out<U>
void extract(W& w, U const& u, index_selection const& rows, options const& opt = {},
             std::type_identity_t<typename W::value_type> absent = {}) {
    kleene::graphblas::extract(w, no_mask, no_accum, u, rows, opt, absent);
}
template <detail::grb_vector_out W, class A>
requires detail::grb_matrix_out<A>
void extract(W& w, A const& a, index_selection const& rows, std::size_t col,
             options const& opt = {}, std::type_identity_t<typename W::value_type> absent = {}) {
    kleene::graphblas::extract(w, no_mask, no_accum, a, rows, col, opt, absent);
}
template <detail::grb_matrix_out C, class A>
void assign(C& c, A const& a, index_selection const& rows, index_selection const& cols,
            options const& opt = {}, std::type_identity_t<typename C::value_type> absent = {}) {
    kleene::graphblas::assign(c, no_mask, no_accum, a, rows, cols, opt, absent);
}
template <detail::grb_vector_out W, class U>
void assign(W& w, U const& u, index_selection const& rows, options const& opt = {},
            std::type_identity_t<typename W::value_type> absent = {}) {
    kleene::graphblas::assign(w, no_mask, no_accum, u, rows, opt, absent);
}
template <class C, class Op, class A, class B>
void kronecker(C& c, Op const& op, A const& a, B const& b, options const& opt = {}) {
    kleene::graphblas::kronecker(c, no_mask, no_accum, op, a, b, opt);
}

}  // namespace kleene::graphblas

#pragma once
// kleene's element-wise operations, apply, select, reduce, transpose, extract, assign and
// kronecker computed by SuiteSparse:GraphBLAS: the signatures of the kleene headers, kleene
// containers in and out, the same absent values for dense objects (operators.hpp). Transposed
// views become GraphBLAS's transpose descriptors. kleene operators map to GraphBLAS built-ins
// where there is one; any other stateless operator (a user type with static apply, a captureless
// lambda predicate) becomes a GraphBLAS user-defined operator that calls it, so the oracle covers
// user operators too. Only options.replace and options.explain (the GrB call and its time, see
// ops.hpp) are read. Calls between oracle functions are qualified, as in ops.hpp.

#include <kleene/extract_assign.hpp>
#include <kleene/graphblas/c_api.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/convert.hpp>
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
std::vector<GrB_Index> index_array(cpu::resolved_indices const& r);

namespace detail {

// ---- operators --------------------------------------------------------------------------------

template <class Op>
void binary_fn(void* z, void const* x, void const* y) {
    using T = typename Op::value_type;
    *static_cast<T*>(z) = Op::apply(*static_cast<T const*>(x), *static_cast<T const*>(y));
}
template <class Op>
void unary_fn(void* z, void const* x) {
    using T = typename Op::value_type;
    *static_cast<T*>(z) = Op{}.apply(*static_cast<T const*>(x));
}
template <class P, class T>
void index_unary_fn(void* z, void const* x, GrB_Index i, GrB_Index j, void const*) {
    *static_cast<bool*>(z) = P{}(*static_cast<T const*>(x), std::size_t(i), std::size_t(j));
}

/// The GraphBLAS binary operator for kleene operator Op: a built-in, else a user-defined one.
template <class Op>
GrB_BinaryOp binary_op() {
    using T = typename Op::value_type;
    if constexpr (requires { typename Op::op_type; } && monoid_type<Op>) {
        return binary_op<typename Op::op_type>();
    } else if constexpr (grb_binary_op_present<Op>) {
        return *grb_binary_op_ptr<Op>;
    } else {
        static GrB_BinaryOp const op = [] {
            ensure_initialized();
            GrB_BinaryOp o = nullptr;
            check(GrB_BinaryOp_new(&o, &binary_fn<Op>, grb_type<T>(), grb_type<T>(), grb_type<T>()),
                  "GrB_BinaryOp_new");
            return o;
        }();
        return op;
    }
}

/// The operator ewise_add (Union) or ewise_mult / kronecker use for Op.
template <bool Add, class Op>
GrB_BinaryOp ewise_op() {
    if constexpr (semiring_type<Op>) {
        if constexpr (requires {
                          typename Op::add_monoid::op_type;
                          typename Op::mul_op;
                      }) {
            if constexpr (Add)
                return binary_op<typename Op::add_monoid::op_type>();
            else
                return binary_op<typename Op::mul_op>();
        } else if constexpr (Add) {
            return binary_op<semiring_add<Op>>();
        } else {
            return binary_op<semiring_mul<Op>>();
        }
    } else {
        return binary_op<Op>();
    }
}

template <class T>
GrB_Monoid const* builtin_monoid(GrB_Monoid const* fp32, GrB_Monoid const* fp64,
                                 GrB_Monoid const* i32, GrB_Monoid const* i64) {
    return kleene::graphblas::detail::pick<T, GrB_Monoid>(fp32, fp64, i32, i64, nullptr);
}

/// The GraphBLAS monoid for a kleene monoid (or a semiring's add).
template <class Mon>
GrB_Monoid monoid() {
    using T = typename Mon::value_type;
    if constexpr (semiring_type<Mon>) {
        if constexpr (requires { typename Mon::add_monoid; })
            return monoid<typename Mon::add_monoid>();
        else
            return monoid<kleene::detail::add_monoid_of<Mon>>();
    } else {
        GrB_Monoid const* builtin = nullptr;
        if constexpr (std::is_same_v<Mon, plus_monoid<T>>)
            builtin = builtin_monoid<T>(&GrB_PLUS_MONOID_FP32, &GrB_PLUS_MONOID_FP64,
                                        &GrB_PLUS_MONOID_INT32, &GrB_PLUS_MONOID_INT64);
        else if constexpr (std::is_same_v<Mon, times_monoid<T>>)
            builtin = builtin_monoid<T>(&GrB_TIMES_MONOID_FP32, &GrB_TIMES_MONOID_FP64,
                                        &GrB_TIMES_MONOID_INT32, &GrB_TIMES_MONOID_INT64);
        else if constexpr (std::is_same_v<Mon, min_monoid<T>>)
            builtin = builtin_monoid<T>(&GrB_MIN_MONOID_FP32, &GrB_MIN_MONOID_FP64,
                                        &GrB_MIN_MONOID_INT32, &GrB_MIN_MONOID_INT64);
        else if constexpr (std::is_same_v<Mon, max_monoid<T>>)
            builtin = builtin_monoid<T>(&GrB_MAX_MONOID_FP32, &GrB_MAX_MONOID_FP64,
                                        &GrB_MAX_MONOID_INT32, &GrB_MAX_MONOID_INT64);
        else if constexpr (std::is_same_v<Mon, any_monoid<T>>)
            builtin = builtin_monoid<T>(&GxB_ANY_FP32_MONOID, &GxB_ANY_FP64_MONOID,
                                        &GxB_ANY_INT32_MONOID, &GxB_ANY_INT64_MONOID);
        if (builtin) return *builtin;
        static GrB_Monoid const m = [] {
            GrB_Monoid o = nullptr;
            GrB_BinaryOp const op = binary_op<Mon>();
            T const id = Mon::identity();
            if constexpr (std::is_same_v<T, bool>)
                check(GrB_Monoid_new_BOOL(&o, op, id), "GrB_Monoid_new");
            else if constexpr (std::is_same_v<T, float>)
                check(GrB_Monoid_new_FP32(&o, op, id), "GrB_Monoid_new");
            else if constexpr (std::is_same_v<T, double>)
                check(GrB_Monoid_new_FP64(&o, op, id), "GrB_Monoid_new");
            else if constexpr (std::is_same_v<T, std::int32_t>)
                check(GrB_Monoid_new_INT32(&o, op, id), "GrB_Monoid_new");
            else
                check(GrB_Monoid_new_INT64(&o, op, id), "GrB_Monoid_new");
            return o;
        }();
        return m;
    }
}

/// The GraphBLAS unary operator for a kleene unary operator.
template <class Op>
GrB_UnaryOp unary_op() {
    using T = typename Op::value_type;
    auto pick = [](GrB_UnaryOp const* fp32, GrB_UnaryOp const* fp64, GrB_UnaryOp const* i32,
                   GrB_UnaryOp const* i64, GrB_UnaryOp const* b) {
        return kleene::graphblas::detail::pick<T, GrB_UnaryOp>(fp32, fp64, i32, i64, b);
    };
    GrB_UnaryOp const* builtin = nullptr;
    if constexpr (std::is_same_v<Op, identity_op<T>>)
        builtin = pick(&GrB_IDENTITY_FP32, &GrB_IDENTITY_FP64, &GrB_IDENTITY_INT32,
                       &GrB_IDENTITY_INT64, &GrB_IDENTITY_BOOL);
    else if constexpr (std::is_same_v<Op, ainv_op<T>>)
        builtin =
            pick(&GrB_AINV_FP32, &GrB_AINV_FP64, &GrB_AINV_INT32, &GrB_AINV_INT64, &GrB_AINV_BOOL);
    else if constexpr (std::is_same_v<Op, abs_op<T>>)
        builtin = pick(&GrB_ABS_FP32, &GrB_ABS_FP64, &GrB_ABS_INT32, &GrB_ABS_INT64, &GrB_ABS_BOOL);
    else if constexpr (std::is_same_v<Op, minv_op<T>>)
        builtin =
            pick(&GrB_MINV_FP32, &GrB_MINV_FP64, &GrB_MINV_INT32, &GrB_MINV_INT64, &GrB_MINV_BOOL);
    else if constexpr (std::is_same_v<Op, lnot_op<T>>)
        builtin = pick(&GxB_LNOT_FP32, &GxB_LNOT_FP64, &GxB_LNOT_INT32, &GxB_LNOT_INT64, &GrB_LNOT);
    else if constexpr (std::is_same_v<Op, one_op<T>>)
        builtin = pick(&GxB_ONE_FP32, &GxB_ONE_FP64, &GxB_ONE_INT32, &GxB_ONE_INT64, &GxB_ONE_BOOL);
    if (builtin) return *builtin;
    static GrB_UnaryOp const op = [] {
        ensure_initialized();
        GrB_UnaryOp o = nullptr;
        check(GrB_UnaryOp_new(&o, &unary_fn<Op>, grb_type<T>(), grb_type<T>()), "GrB_UnaryOp_new");
        return o;
    }();
    return op;
}

template <class T>
struct scalar {
    GrB_Scalar s = nullptr;
    explicit scalar(T x) {
        ensure_initialized();
        check(GrB_Scalar_new(&s, grb_type<T>()), "GrB_Scalar_new");
        GrB_Info info;
        if constexpr (std::is_same_v<T, bool>)
            info = GrB_Scalar_setElement_BOOL(s, x);
        else if constexpr (std::is_same_v<T, float>)
            info = GrB_Scalar_setElement_FP32(s, x);
        else if constexpr (std::is_same_v<T, double>)
            info = GrB_Scalar_setElement_FP64(s, x);
        else if constexpr (std::is_same_v<T, std::int32_t>)
            info = GrB_Scalar_setElement_INT32(s, x);
        else
            info = GrB_Scalar_setElement_INT64(s, x);
        check(info, "GrB_Scalar_setElement");
    }
    scalar(scalar const&) = delete;
    scalar& operator=(scalar const&) = delete;
    ~scalar() { GrB_Scalar_free(&s); }
};

/// An index-unary operator and its thunk for a kleene predicate.
template <class T>
struct predicate {
    GrB_IndexUnaryOp op;
    scalar<T> thunk_t;
    scalar<std::int64_t> thunk_i;
    bool integer_thunk;
    GrB_Scalar thunk() const { return integer_thunk ? thunk_i.s : thunk_t.s; }
};

template <class T, class P>
predicate<T> grb_predicate(P const& p) {
    auto pick = [](GrB_IndexUnaryOp const* fp32, GrB_IndexUnaryOp const* fp64,
                   GrB_IndexUnaryOp const* i32, GrB_IndexUnaryOp const* i64,
                   GrB_IndexUnaryOp const* b) {
        return *kleene::graphblas::detail::pick<T, GrB_IndexUnaryOp>(fp32, fp64, i32, i64, b);
    };
#define KLEENE_GRB_POS(kind, grb)          \
    if constexpr (std::is_same_v<P, kind>) \
        return {grb, scalar<T>(T(0)), scalar<std::int64_t>(p.k), true};
    KLEENE_GRB_POS(tril, GrB_TRIL)
    KLEENE_GRB_POS(triu, GrB_TRIU)
    KLEENE_GRB_POS(diag, GrB_DIAG)
    KLEENE_GRB_POS(offdiag, GrB_OFFDIAG)
    KLEENE_GRB_POS(row_le, GrB_ROWLE)
    KLEENE_GRB_POS(row_gt, GrB_ROWGT)
    KLEENE_GRB_POS(col_le, GrB_COLLE)
    KLEENE_GRB_POS(col_gt, GrB_COLGT)
#undef KLEENE_GRB_POS
#define KLEENE_GRB_VALUE(kind, grb)                                                      \
    if constexpr (std::is_same_v<P, kind<T>>)                                            \
        return {pick(&grb##_FP32, &grb##_FP64, &grb##_INT32, &grb##_INT64, &grb##_BOOL), \
                scalar<T>(p.x), scalar<std::int64_t>(0), false};
    KLEENE_GRB_VALUE(value_eq, GrB_VALUEEQ)
    KLEENE_GRB_VALUE(value_ne, GrB_VALUENE)
    KLEENE_GRB_VALUE(value_lt, GrB_VALUELT)
    KLEENE_GRB_VALUE(value_le, GrB_VALUELE)
    KLEENE_GRB_VALUE(value_gt, GrB_VALUEGT)
    KLEENE_GRB_VALUE(value_ge, GrB_VALUEGE)
#undef KLEENE_GRB_VALUE
    static GrB_IndexUnaryOp const op = [] {
        ensure_initialized();
        GrB_IndexUnaryOp o = nullptr;
        GxB_index_unary_function const f = &index_unary_fn<P, T>;
        check(GrB_IndexUnaryOp_new(&o, f, GrB_BOOL, grb_type<T>(), grb_type<T>()),
              "GrB_IndexUnaryOp_new");
        return o;
    }();
    return {op, scalar<T>(T(0)), scalar<std::int64_t>(0), false};
}

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

#pragma once
// kleene operators as GraphBLAS objects, for the oracle's operations (operations.hpp): a built-in
// binary or unary operator, monoid or index-unary operator where GraphBLAS has one, else a
// user-defined one that calls the kleene operator; GrB_Scalar holders; select predicates.

#include <kleene/graphblas/c_api.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/convert.hpp>
#include <kleene/graphblas/traits.hpp>
#include <kleene/operators.hpp>
#include <kleene/reduce.hpp>
#include <kleene/select.hpp>
#include <kleene/semiring.hpp>

#include <cstdint>
#include <type_traits>

namespace kleene::graphblas::detail {

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

}  // namespace kleene::graphblas::detail

#pragma once
// The GraphBLAS operations beside the products, for one value type T: ewise_add, ewise_mult,
// kronecker, apply, select, reduce, transpose, extract and assign (lib/ops/include/kleene/*.hpp).
// operations<T> (operations_impl.hpp) runs them on host matrices and device_operations<T>
// (operations_device_impl.hpp) on device ones; products_<type>.cpp and products_device_<type>.cpp
// instantiate them beside the products of the same type, so that no translation unit is added.
//
// What is instantiated, to keep the module's build time bounded: each operation once per value
// type in its plain form (no mask, no accumulator), and once per operator only where kleene's
// API takes the operator as a type with a static apply (ewise_add, ewise_mult, kronecker, the
// reduce monoids); apply's operators and select's predicates are one functor each that switches
// on the name (`unary_by_name`, `predicate_by_name`). The mask, the accumulator and replace are
// then one write-back, C<mask, replace> accum= T, as GraphBLAS defines every operation's last
// step: Z = C accum T through ewise_add (its operators' instances again), then C<mask, replace> =
// Z through one masked kleene::apply of the identity (assign keeps GrB_assign's region
// semantics, see operations_impl.hpp). Host operands are CSR with int32 indices (dense ones are
// read with the absent value as no entry) and host results CSR; Python passes vectors as n x 1
// matrices.

#include <kleene/index_selection.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "products.hpp"

namespace kleene::python {

/// Where an operation's result T goes: C<mask, replace> accum= T, C being `out` (or empty).
struct write_args {
    std::optional<matrix_handle> out;
    std::optional<matrix_handle> mask;
    bool structural = false;
    bool complemented = false;
    std::string accum;  // "" for none
    bool replace = false;
};

/// One operation's arguments besides its operands.
struct op_args {
    char const* what = "";  // the operation's name, for messages
    std::string name;       // the operator, monoid or predicate ("plus", "tril", ...)
    std::string bind;       // apply: "first" / "second" binds `scalar` to that operand of `name`
    py::object scalar;      // apply's bound scalar, select's thunk, assign's scalar (else None)
    py::object absent;      // the value of no entry in dense objects; None: the operator's own
    write_args write;
};

/// Results are (storage, absent): the matrix and the value that stands for no entry in it where
/// it is dense (what Python fills a vector's missing entries with).
template <class T>
struct operations {
    static py::tuple ewise(bool add, matrix_handle const& a, matrix_handle const& b,
                           op_args const& args);
    static py::tuple kronecker(matrix_handle const& a, matrix_handle const& b, op_args const& args);
    static py::tuple apply(matrix_handle const& a, op_args const& args);
    static py::tuple select(matrix_handle const& a, op_args const& args);
    /// The (+) of each row (of each column when `columns`), as a rows x 1 matrix.
    static py::tuple reduce(matrix_handle const& a, bool columns, op_args const& args);
    /// The (+) of every entry; args.scalar is the previous value that accum combines with.
    static py::object reduce_scalar(matrix_handle const& a, op_args const& args);
    static py::tuple transpose(matrix_handle const& a, op_args const& args);
    static py::tuple extract(matrix_handle const& a, index_selection const& rows,
                             index_selection const& cols, op_args const& args);
    /// C<mask, replace>(I, J) accum= A (or args.scalar when `a` is empty); C is args.write.out.
    static py::tuple assign(std::optional<matrix_handle> const& a, index_selection const& rows,
                            index_selection const& cols, op_args const& args);
};

/// The same on device matrices (float32, float64, int32, int64; CSR with int32 indices or dense),
/// where lib/backend/cuda has the operation and the operator.
template <class T>
struct device_operations {
    static py::tuple ewise(bool add, matrix_handle const& a, matrix_handle const& b,
                           op_args const& args);
    static py::tuple kronecker(matrix_handle const& a, matrix_handle const& b, op_args const& args);
    static py::tuple apply(matrix_handle const& a, op_args const& args);
    static py::tuple select(matrix_handle const& a, op_args const& args);
    static py::tuple reduce(matrix_handle const& a, bool columns, op_args const& args);
    static py::object reduce_scalar(matrix_handle const& a, op_args const& args);
    static py::tuple transpose(matrix_handle const& a, op_args const& args);
    static py::tuple extract(matrix_handle const& a, index_selection const& rows,
                             index_selection const& cols, op_args const& args);
    static py::tuple assign(std::optional<matrix_handle> const& a, index_selection const& rows,
                            index_selection const& cols, op_args const& args);
};

// ---- operators by name --------------------------------------------------------------------------

/// The binary operators of ewise_add, ewise_mult, kronecker and apply's bound forms.
enum class binary_kind { plus, times, min, max, first, second, pair, any, lor, land };
binary_kind parse_binary(std::string_view name, char const* what);

/// Calls f(Op{}) for the binary operator b over T.
template <class T, class F>
decltype(auto) visit_binary(binary_kind b, F&& f) {
    switch (b) {
        case binary_kind::plus:
            return f(plus_op<T>{});
        case binary_kind::times:
            return f(times_op<T>{});
        case binary_kind::min:
            return f(min_op<T>{});
        case binary_kind::max:
            return f(max_op<T>{});
        case binary_kind::first:
            return f(first_op<T>{});
        case binary_kind::second:
            return f(second_op<T>{});
        case binary_kind::pair:
            return f(pair_op<T>{});
        case binary_kind::any:
            return f(any_op<T>{});
        case binary_kind::lor:
            return f(lor_op<T>{});
        case binary_kind::land:
            break;
    }
    return f(land_op<T>{});
}

/// The monoids of reduce.
enum class monoid_kind { plus, times, min, max, lor, land, any };
monoid_kind parse_monoid(std::string_view name, char const* what);

template <class T, class F>
decltype(auto) visit_monoid(monoid_kind m, F&& f) {
    switch (m) {
        case monoid_kind::plus:
            return f(plus_monoid<T>{});
        case monoid_kind::times:
            return f(times_monoid<T>{});
        case monoid_kind::min:
            return f(min_monoid<T>{});
        case monoid_kind::max:
            return f(max_monoid<T>{});
        case monoid_kind::lor:
            return f(lor_monoid<T>{});
        case monoid_kind::land:
            return f(land_monoid<T>{});
        case monoid_kind::any:
            break;
    }
    return f(any_monoid<T>{});
}

/// apply's unary operators (operators.hpp).
enum class unary_kind { identity, ainv, abs, minv, lnot, one };
unary_kind parse_unary(std::string_view name);

/// select's predicates (select.hpp).
enum class select_kind {
    tril,
    triu,
    diag,
    offdiag,
    row_le,
    row_gt,
    col_le,
    col_gt,
    value_eq,
    value_ne,
    value_lt,
    value_le,
    value_gt,
    value_ge
};
select_kind parse_select(std::string_view name);
inline bool is_value_predicate(select_kind k) {
    return k >= select_kind::value_eq;
}

/// apply's operator: a unary operator, or a binary one with its first or second operand bound
/// to x (bind_first / bind_second), chosen by name at run time so that kleene::apply is
/// instantiated once per value type.
template <class T>
struct unary_by_name {
    using value_type = T;
    enum class form { unary, first, second } how = form::unary;
    unary_kind u = unary_kind::identity;
    binary_kind b = binary_kind::plus;
    T x{};

    T apply(T a) const {
        if (how == form::unary) {
            switch (u) {
                case unary_kind::identity:
                    return identity_op<T>::apply(a);
                case unary_kind::ainv:
                    return ainv_op<T>::apply(a);
                case unary_kind::abs:
                    return abs_op<T>::apply(a);
                case unary_kind::minv:
                    return minv_op<T>::apply(a);
                case unary_kind::lnot:
                    return lnot_op<T>::apply(a);
                case unary_kind::one:
                    break;
            }
            return one_op<T>::apply(a);
        }
        return visit_binary<T>(b, [&](auto op) {
            return how == form::first ? bind_first(op, x).apply(a) : bind_second(op, x).apply(a);
        });
    }
};

/// select's predicate, chosen by name at run time (one kleene::select per value type).
template <class T>
struct predicate_by_name {
    select_kind kind = select_kind::tril;
    std::int64_t k = 0;  // the position predicates' offset
    T x{};               // the value predicates' operand

    bool operator()(T v, std::size_t i, std::size_t j) const {
        switch (kind) {
            case select_kind::tril:
                return tril{k}(v, i, j);
            case select_kind::triu:
                return triu{k}(v, i, j);
            case select_kind::diag:
                return diag{k}(v, i, j);
            case select_kind::offdiag:
                return offdiag{k}(v, i, j);
            case select_kind::row_le:
                return row_le{k}(v, i, j);
            case select_kind::row_gt:
                return row_gt{k}(v, i, j);
            case select_kind::col_le:
                return col_le{k}(v, i, j);
            case select_kind::col_gt:
                return col_gt{k}(v, i, j);
            case select_kind::value_eq:
                return value_eq<T>{x}(v, i, j);
            case select_kind::value_ne:
                return value_ne<T>{x}(v, i, j);
            case select_kind::value_lt:
                return value_lt<T>{x}(v, i, j);
            case select_kind::value_le:
                return value_le<T>{x}(v, i, j);
            case select_kind::value_gt:
                return value_gt<T>{x}(v, i, j);
            case select_kind::value_ge:
                break;
        }
        return value_ge<T>{x}(v, i, j);
    }
};

/// The shapes of an operation's result and of its out and mask agree; dimension_mismatch names
/// the operation otherwise.
void check_write_shapes(char const* what, std::size_t rows, std::size_t cols, write_args const& w);

}  // namespace kleene::python

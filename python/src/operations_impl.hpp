#pragma once
// The bodies of operations<T> (operations.hpp) on host matrices, included by products_<type>.cpp.
// Each operation computes its result T plainly into a new CSR matrix (kleene's call without mask
// or accumulator), then `finish` writes it: C<mask, replace> accum= T.

#include "operations.hpp"
#include "products_impl.hpp"

namespace kleene::python {

namespace op_detail {

using product_detail::csr_operand;
using product_detail::mask_of;
template <class T>
using csr = host_csr<T, i32>;

/// A Python number as T; InvalidArgument naming `what` otherwise.
template <class T>
T scalar_of(py::handle h, std::string const& what) {
    try {
        return h.cast<T>();
    } catch (py::cast_error const&) {
        throw invalid_argument(what + " must be a number that converts to " + dtype_name<T>() +
                               ", not " + std::string(py::str(py::repr(h))));
    }
}

/// The caller's absent value, or the operator's own.
template <class T>
T absent_or(op_args const& args, T own) {
    return args.absent.is_none() ? own : scalar_of<T>(args.absent, "absent");
}

template <class T>
py::tuple result(csr<T>&& t, T absent) {
    return py::make_tuple(matrix_handle::of(std::move(t)), absent);
}

/// C<mask, replace> accum= t, C being args.write.out or an empty matrix of t's shape, in
/// GraphBLAS's two steps: Z = C accum t (their union, through ewise_add with the accumulator,
/// whose instances ewise_add's operators already are), then C<mask, replace> = Z (one kleene::apply
/// of the identity under the mask), or C = Z without a mask.
template <class T>
py::tuple finish(char const* what, csr<T>&& t, T absent, write_args const& w) {
    check_write_shapes(what, t.rows(), t.cols(), w);
    if (!w.out && !w.mask && w.accum.empty()) return result(std::move(t), absent);
    csr<T> c = w.out ? csr<T>(*csr_operand<T, i32>(*w.out, absent, "out", what).p)
                     : csr<T>(t.rows(), t.cols());
    csr<T> z(t.rows(), t.cols());
    if (w.accum.empty()) {
        z = std::move(t);
    } else {
        dispatch_accum<T>(w.accum, [&](auto accum) {
            py::gil_scoped_release release;
            kleene::ewise_add(z, accum, c, t);
        });
    }
    if (!w.mask) return result(std::move(z), absent);
    csr<bool> const m = mask_of<i32>(*w.mask);
    options opt;
    opt.replace = w.replace;
    {
        py::gil_scoped_release release;
        kleene::apply(c, mask_view<csr<bool>>{&m, w.structural, w.complemented}, no_accum,
                      identity_op<T>{}, z, opt);
    }
    return result(std::move(c), absent);
}

/// A sparse vector as an n x 1 matrix (Python's vectors).
template <class T>
csr<T> column_of(sparse_vector<T, i32> const& w) {
    std::size_t const n = w.size();
    buffer<i32> ptr(n + 1, 0), col(w.nnz(), 0);
    for (std::size_t k = 0; k < w.nnz(); ++k) ptr[static_cast<std::size_t>(w.indices()[k]) + 1] = 1;
    for (std::size_t i = 0; i < n; ++i) ptr[i + 1] += ptr[i];
    return {n, 1, std::move(ptr), std::move(col), buffer<T>(w.value_storage()), T(1), true};
}

template <class T>
unary_by_name<T> unary_of(op_args const& args) {
    unary_by_name<T> f;
    if (args.bind.empty()) {
        f.u = parse_unary(args.name);
        return f;
    }
    using form = typename unary_by_name<T>::form;
    f.how = args.bind == "first" ? form::first : form::second;
    f.b = parse_binary(args.name, "apply");
    f.x = scalar_of<T>(args.scalar, std::string("apply: the bound ") +
                                        (args.bind == "first" ? "left" : "right") + " operand");
    return f;
}

/// C++'s absent value of apply's operator: 0 for a unary one, the binary operator's for a bound
/// one (absent_of(bind_second(op, y)) == absent_of(op)).
template <class T>
T apply_absent(unary_by_name<T> const& f) {
    if (f.how == unary_by_name<T>::form::unary) return T(0);
    return visit_binary<T>(f.b, [](auto op) { return T(absent_of(op)); });
}

template <class T>
predicate_by_name<T> predicate_of(op_args const& args) {
    predicate_by_name<T> p;
    p.kind = parse_select(args.name);
    if (is_value_predicate(p.kind)) {
        if (args.scalar.is_none())
            throw invalid_argument("select " + args.name +
                                   ": the value to compare with is missing (thunk=)");
        p.x = scalar_of<T>(args.scalar, "select " + args.name + ": the value");
    } else if (!args.scalar.is_none()) {
        p.k = scalar_of<std::int64_t>(args.scalar, "select " + args.name + ": the offset k");
    }
    return p;
}

}  // namespace op_detail

template <class T>
py::tuple operations<T>::ewise(bool add, matrix_handle const& a, matrix_handle const& b,
                               op_args const& args) {
    using namespace op_detail;
    binary_kind const k = parse_binary(args.name, args.what);
    T const absent = absent_or(args, visit_binary<T>(k, [](auto op) { return T(absent_of(op)); }));
    csr_operand<T, i32> x(a, absent, "A", args.what), y(b, absent, "B", args.what);
    csr<T> t(x.p->rows(), x.p->cols());
    visit_binary<T>(k, [&](auto op) {
        py::gil_scoped_release release;
        if (add)
            kleene::ewise_add(t, op, *x.p, *y.p);
        else
            kleene::ewise_mult(t, op, *x.p, *y.p);
    });
    return finish(args.what, std::move(t), absent, args.write);
}

template <class T>
py::tuple operations<T>::kronecker(matrix_handle const& a, matrix_handle const& b,
                                   op_args const& args) {
    using namespace op_detail;
    binary_kind const k = parse_binary(args.name, args.what);
    T const absent = absent_or(args, visit_binary<T>(k, [](auto op) { return T(absent_of(op)); }));
    csr_operand<T, i32> x(a, absent, "A", args.what), y(b, absent, "B", args.what);
    auto const& p = *x.p;
    auto const& q = *y.p;
    // The result has int32 indices: its dimensions and entries must fit them.
    auto const fits = [](std::size_t u, std::size_t v) {
        return v == 0 || u <= std::size_t(std::numeric_limits<i32>::max()) / v;
    };
    if (!fits(p.rows(), q.rows()) || !fits(p.cols(), q.cols()) || !fits(p.nnz(), q.nnz()))
        throw overflow_error("kronecker: kron(A, B) of A (" + detail::describe(p) + ") and B (" +
                             detail::describe(q) + ") does not fit int32 indices");
    csr<T> t(p.rows() * q.rows(), p.cols() * q.cols());
    visit_binary<T>(k, [&](auto op) {
        py::gil_scoped_release release;
        kleene::kronecker(t, op, p, q);
    });
    return finish(args.what, std::move(t), absent, args.write);
}

template <class T>
py::tuple operations<T>::apply(matrix_handle const& a, op_args const& args) {
    using namespace op_detail;
    auto const f = unary_of<T>(args);
    T const absent = absent_or(args, apply_absent(f));
    csr_operand<T, i32> x(a, absent, "A", args.what);
    csr<T> t(x.p->rows(), x.p->cols());
    {
        py::gil_scoped_release release;
        kleene::apply(t, f, *x.p);
    }
    return finish(args.what, std::move(t), absent, args.write);
}

template <class T>
py::tuple operations<T>::select(matrix_handle const& a, op_args const& args) {
    using namespace op_detail;
    auto const pred = predicate_of<T>(args);
    T const absent = absent_or(args, T(0));
    csr_operand<T, i32> x(a, absent, "A", args.what);
    csr<T> t(x.p->rows(), x.p->cols());
    {
        py::gil_scoped_release release;
        kleene::select(t, pred, *x.p);
    }
    return finish(args.what, std::move(t), absent, args.write);
}

template <class T>
py::tuple operations<T>::reduce(matrix_handle const& a, bool columns, op_args const& args) {
    using namespace op_detail;
    monoid_kind const k = parse_monoid(args.name, args.what);
    T const absent = absent_or(args, visit_monoid<T>(k, [](auto m) { return T(absent_of(m)); }));
    csr_operand<T, i32> x(a, absent, "A", args.what);
    // A sparse w: a row without entries gives no entry, whatever the identity's value.
    sparse_vector<T, i32> w(columns ? x.p->cols() : x.p->rows());
    visit_monoid<T>(k, [&](auto m) {
        py::gil_scoped_release release;
        if (columns)
            kleene::reduce(w, m, kleene::transpose(*x.p));
        else
            kleene::reduce(w, m, *x.p);
    });
    return finish(args.what, column_of(w), absent, args.write);
}

template <class T>
py::object operations<T>::reduce_scalar(matrix_handle const& a, op_args const& args) {
    using namespace op_detail;
    monoid_kind const k = parse_monoid(args.name, args.what);
    T const absent = absent_or(args, visit_monoid<T>(k, [](auto m) { return T(absent_of(m)); }));
    csr_operand<T, i32> x(a, absent, "A", args.what);
    T r = visit_monoid<T>(k, [&](auto m) {
        py::gil_scoped_release release;
        return T(kleene::reduce(m, *x.p));
    });
    if (!args.write.accum.empty()) {  // s accum= r, as kleene::reduce(s, accum, monoid, A)
        T const s = scalar_of<T>(args.scalar, "reduce: out");
        dispatch_accum<T>(args.write.accum, [&](auto op) { r = T(op.apply(s, r)); });
    }
    return py::cast(r);
}

template <class T>
py::tuple operations<T>::transpose(matrix_handle const& a, op_args const& args) {
    using namespace op_detail;
    T const absent = absent_or(args, T(0));
    csr_operand<T, i32> x(a, absent, "A", args.what);
    csr<T> t(x.p->cols(), x.p->rows());
    {
        py::gil_scoped_release release;
        kleene::transpose(t, *x.p);
    }
    return finish(args.what, std::move(t), absent, args.write);
}

template <class T>
py::tuple operations<T>::extract(matrix_handle const& a, index_selection const& rows,
                                 index_selection const& cols, op_args const& args) {
    using namespace op_detail;
    T const absent = absent_or(args, T(0));
    csr_operand<T, i32> x(a, absent, "A", args.what);
    std::size_t const m = rows.resolve(x.p->rows(), "extract: row indices").size;
    std::size_t const n = cols.resolve(x.p->cols(), "extract: column indices").size;
    csr<T> t(m, n);
    {
        py::gil_scoped_release release;
        kleene::extract(t, *x.p, rows, cols);
    }
    return finish(args.what, std::move(t), absent, args.write);
}

/// GrB_assign: Z = C with the region C(I, J) replaced by S (A, or the scalar in every position),
/// then C<mask, replace> = Z, the mask and replace applying to all of C. With an accumulator the
/// region is replaced by C(I, J) accum S (their union, accum where both have an entry), which
/// keeps the region's entries that S lacks, as kleene::assign with the accumulator does; the
/// accumulators are ewise_add's operators, built once for both.
template <class T>
py::tuple operations<T>::assign(std::optional<matrix_handle> const& a, index_selection const& rows,
                                index_selection const& cols, op_args const& args) {
    using namespace op_detail;
    write_args const& w = args.write;
    T const absent = absent_or(args, T(0));
    csr_operand<T, i32> c(*w.out, absent, "out", args.what);
    std::size_t const m = rows.resolve(c.p->rows(), "assign: row indices").size;
    std::size_t const n = cols.resolve(c.p->cols(), "assign: column indices").size;
    csr<T> s(m, n);
    if (a) {
        csr_operand<T, i32> src(*a, absent, "A", args.what);
        if (src.p->rows() != m || src.p->cols() != n)
            throw dimension_mismatch("assign: the region C(I, J) is " + detail::shape(m, n) +
                                     " but A is " + detail::describe(*src.p));
        s = *src.p;
    } else {
        kleene::assign(s, scalar_of<T>(args.scalar, "assign: the value"), all_indices, all_indices);
    }
    csr<T> z = *c.p;
    {
        py::gil_scoped_release release;
        if (!w.accum.empty()) {
            csr<T> region(m, n), merged(m, n);
            kleene::extract(region, z, rows, cols);
            dispatch_accum<T>(w.accum, [&](auto op) { kleene::ewise_add(merged, op, region, s); });
            s = std::move(merged);
        }
        kleene::assign(z, s, rows, cols);
    }
    if (!w.mask) return result(std::move(z), absent);
    write_args masked = w;
    masked.accum.clear();
    return finish(args.what, std::move(z), absent, masked);
}

}  // namespace kleene::python

#pragma once
// The bodies of device_operations<T> (operations.hpp) through kleene's device overloads, included
// by products_device_<type>.cpp. Without the CUDA backend nothing here is instantiated: a device
// matrix cannot exist then, and the calls raise kleene.NoDevice.
//
// As on the host, each operation computes its result plainly (CSR from CSR operands, dense from
// dense ones, as lib/backend/cuda's operations take them), then device_detail::write_back (the
// products' write-back, products_device_impl.hpp) writes it into `out` under the mask with the
// accumulator. What lib/backend/cuda builds (operations.hpp, reduce_transpose.hpp,
// extract_assign.hpp): ewise_add, ewise_mult and kronecker with plus, times, min, max, first,
// second; apply with identity, ainv, abs, one, minv and plus, times, min, max bound to the second operand; select
// on CSR with tril, triu, diag, offdiag and the value comparisons; reduce with the monoids plus,
// times, min, max; transpose, extract and assign on CSR or dense. Anything else is refused with
// kleene.InvalidArgument saying so.

#include "operations.hpp"
#include "products_device_impl.hpp"

namespace kleene::python {

#if defined(KLEENE_HAVE_CUDA)
namespace device_op_detail {

using device_detail::dcsr;
using device_detail::ddense;
using device_detail::with_operand;

template <class T>
T absent_or(op_args const& args, T own) {
    if (args.absent.is_none()) return own;
    try {
        return args.absent.cast<T>();
    } catch (py::cast_error const&) {
        throw invalid_argument(std::string("absent must be a number that converts to ") +
                               dtype_name<T>());
    }
}

template <class T>
T scalar_of(py::handle h, std::string const& what) {
    try {
        return h.cast<T>();
    } catch (py::cast_error const&) {
        throw invalid_argument(what + " must be a number that converts to " + dtype_name<T>());
    }
}

template <class M>
py::tuple result(M&& t, typename std::decay_t<M>::value_type absent) {
    return py::make_tuple(matrix_handle::of(std::forward<M>(t)), absent);
}

/// C<mask, replace> accum= t on the device, C being args.write.out (its storage kept) or a new
/// matrix of t's storage.
template <class T, class Tmp>
py::tuple finish(char const* what, Tmp&& t, T absent, write_args const& w) {
    using M = std::decay_t<Tmp>;
    check_write_shapes(what, t.rows(), t.cols(), w);
    if (!w.out && !w.mask && w.accum.empty()) return result(std::move(t), absent);
    product_args pa;
    pa.mask = w.mask;
    pa.structural = w.structural;
    pa.complemented = w.complemented;
    options opt;
    opt.replace = w.replace;
    auto into = [&](auto c) {
        {
            py::gil_scoped_release release;
            device_detail::write_back<T>(c, std::move(t), absent, pa, w.accum, opt, what);
        }
        return result(std::move(c), absent);
    };
    if (w.out) {
        // The output's storage is immutable (views may share it): C starts as a copy.
        if (auto const* c = std::get_if<dcsr<T>>(w.out->s.get())) return into(dcsr<T>(*c));
        if (auto const* d = std::get_if<ddense<T>>(w.out->s.get())) return into(ddense<T>(*d));
        with_operand<T>(*w.out, "out", [](auto const&) {});  // throws, saying why
    }
    if constexpr (is_device_csr<M>)
        return into(dcsr<T>(t.rows(), t.cols()));
    else
        return into(dense_matrix<T>(t.rows(), t.cols(), absent).to_device());
}

/// Calls f(a, b) with both operands as device CSR or both dense; a mix is refused.
template <class T, class F>
void with_pair(char const* what, matrix_handle const& ah, matrix_handle const& bh, F&& f) {
    with_operand<T>(ah, "A", [&](auto const& a) {
        with_operand<T>(bh, "B", [&](auto const& b) {
            using A = std::decay_t<decltype(a)>;
            using B = std::decay_t<decltype(b)>;
            if constexpr (is_device_csr<A> == is_device_csr<B>)
                f(a, b);
            else
                throw invalid_argument(std::string(what) +
                                       " on the GPU takes A and B both CSR or both dense (convert "
                                       "one on the host with to_csr() or to_dense())");
        });
    });
}

template <class T>
[[noreturn]] void refuse_operator(char const* what, std::string const& name, char const* built) {
    throw invalid_argument(std::string(what) + " on the GPU: lib/backend/cuda builds " + built + ", not " +
                           name);
}

inline constexpr char const* gpu_binary_ops = "plus, times, min, max, first and second";

}  // namespace device_op_detail
#endif

template <class T>
py::tuple device_operations<T>::ewise(bool add, matrix_handle const& ah, matrix_handle const& bh,
                                      op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    binary_kind const k = parse_binary(args.name, args.what);
    std::optional<py::tuple> out;
    visit_binary<T>(k, [&](auto op) {
        using Op = decltype(op);
        if constexpr (!detail::gpu_ewise_op<Op, T>) {
            refuse_operator<T>(args.what, args.name, gpu_binary_ops);
        } else {
            T const absent = absent_or(args, T(absent_of(op)));
            with_pair<T>(args.what, ah, bh, [&](auto const& a, auto const& b) {
                using A = std::decay_t<decltype(a)>;
                A c(a.rows(), a.cols());
                {
                    py::gil_scoped_release release;
                    if (add)
                        kleene::ewise_add(c, with_absent(op, absent), a, b);
                    else
                        kleene::ewise_mult(c, with_absent(op, absent), a, b);
                }
                out = finish(args.what, std::move(c), absent, args.write);
            });
        }
    });
    return *out;
#else
    (void)add, (void)ah, (void)bh;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

template <class T>
py::tuple device_operations<T>::kronecker(matrix_handle const& ah, matrix_handle const& bh,
                                          op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    binary_kind const k = parse_binary(args.name, args.what);
    std::optional<py::tuple> out;
    visit_binary<T>(k, [&](auto op) {
        using Op = decltype(op);
        if constexpr (!detail::gpu_ewise_op<Op, T>) {
            refuse_operator<T>(args.what, args.name, gpu_binary_ops);
        } else {
            T const absent = absent_or(args, T(absent_of(op)));
            with_pair<T>(args.what, ah, bh, [&](auto const& a, auto const& b) {
                using A = std::decay_t<decltype(a)>;
                A c(a.rows() * b.rows(), a.cols() * b.cols());
                {
                    py::gil_scoped_release release;
                    kleene::kronecker(c, with_absent(op, absent), a, b);
                }
                out = finish(args.what, std::move(c), absent, args.write);
            });
        }
    });
    return *out;
#else
    (void)ah, (void)bh;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

namespace device_op_detail {
#if defined(KLEENE_HAVE_CUDA)
/// Calls f(op, absent) with apply's operator as the type lib/backend/cuda builds it for.
template <class T, class F>
void visit_gpu_unary(op_args const& args, F&& f) {
    constexpr char const* built =
        "identity, ainv, abs, one, minv and plus, times, min, max bound to the second operand "
        "(right=)";
    if (args.bind.empty()) {
        switch (parse_unary(args.name)) {
            case unary_kind::identity:
                return f(identity_op<T>{}, T(0));
            case unary_kind::ainv:
                return f(ainv_op<T>{}, T(0));
            case unary_kind::abs:
                return f(abs_op<T>{}, T(0));
            case unary_kind::minv:
                return f(minv_op<T>{}, T(0));
            case unary_kind::one:
                return f(one_op<T>{}, T(0));
            case unary_kind::lnot:
                break;
        }
        refuse_operator<T>("apply", args.name, built);
    }
    binary_kind const b = parse_binary(args.name, "apply");
    if (args.bind != "second") refuse_operator<T>("apply", args.name + " bound first", built);
    T const y = scalar_of<T>(args.scalar, "apply: the bound right operand");
    visit_binary<T>(b, [&](auto op) {
        using Op = decltype(op);
        if constexpr (detail::gpu_apply_op<bound_second<Op>, T>)
            f(bind_second(op, y), T(absent_of(op)));
        else
            refuse_operator<T>("apply", args.name, built);
    });
}

/// Calls f(pred) with select's predicate as the type lib/backend/cuda builds it for.
template <class T, class F>
void visit_gpu_predicate(op_args const& args, F&& f) {
    select_kind const kind = parse_select(args.name);
    if (is_value_predicate(kind)) {
        if (args.scalar.is_none())
            throw invalid_argument("select " + args.name +
                                   ": the value to compare with is missing (thunk=)");
        T const x = scalar_of<T>(args.scalar, "select " + args.name + ": the value");
        switch (kind) {
            case select_kind::value_eq:
                return f(value_eq<T>{x});
            case select_kind::value_ne:
                return f(value_ne<T>{x});
            case select_kind::value_lt:
                return f(value_lt<T>{x});
            case select_kind::value_le:
                return f(value_le<T>{x});
            case select_kind::value_gt:
                return f(value_gt<T>{x});
            default:
                return f(value_ge<T>{x});
        }
    }
    std::int64_t const k =
        args.scalar.is_none() ? 0 : scalar_of<std::int64_t>(args.scalar, "select: the offset k");
    switch (kind) {
        case select_kind::tril:
            return f(tril{k});
        case select_kind::triu:
            return f(triu{k});
        case select_kind::diag:
            return f(diag{k});
        case select_kind::offdiag:
            return f(offdiag{k});
        default:
            break;
    }
    refuse_operator<T>("select", args.name, "tril, triu, diag, offdiag and value_eq ... value_ge");
}
#endif
}  // namespace device_op_detail

template <class T>
py::tuple device_operations<T>::apply(matrix_handle const& ah, op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    std::optional<py::tuple> out;
    visit_gpu_unary<T>(args, [&](auto op, T own) {
        T const absent = absent_or(args, own);
        with_operand<T>(ah, "A", [&](auto const& a) {
            using A = std::decay_t<decltype(a)>;
            A c(a.rows(), a.cols());
            {
                py::gil_scoped_release release;
                kleene::apply(c, with_absent(op, absent), a);
            }
            out = finish(args.what, std::move(c), absent, args.write);
        });
    });
    return *out;
#else
    (void)ah;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

template <class T>
py::tuple device_operations<T>::select(matrix_handle const& ah, op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    std::optional<py::tuple> out;
    T const absent = absent_or(args, T(0));
    visit_gpu_predicate<T>(args, [&](auto const& pred) {
        with_operand<T>(ah, "A", [&](auto const& a) {
            using A = std::decay_t<decltype(a)>;
            if constexpr (!is_device_csr<A>) {
                throw invalid_argument(
                    "select on the GPU takes a CSR matrix (lib/backend/cuda filters "
                    "CSR only): build it with to_csr() before to_device()");
            } else {
                A c(a.rows(), a.cols());
                {
                    py::gil_scoped_release release;
                    kleene::select(c, pred, a);
                }
                out = finish(args.what, std::move(c), absent, args.write);
            }
        });
    });
    return *out;
#else
    (void)ah;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

namespace device_op_detail {
#if defined(KLEENE_HAVE_CUDA)
/// Calls f(monoid) for the monoids lib/backend/cuda's reduce is built for.
template <class T, class F>
void visit_gpu_monoid(op_args const& args, F&& f) {
    visit_monoid<T>(parse_monoid(args.name, args.what), [&](auto m) {
        if constexpr (cuda::detail::gpu_monoid<decltype(m)>)
            f(m);
        else
            refuse_operator<T>(args.what, args.name, "the monoids plus, times, min and max");
    });
}
#endif
}  // namespace device_op_detail

template <class T>
py::tuple device_operations<T>::reduce(matrix_handle const& ah, bool columns, op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    std::optional<py::tuple> out;
    visit_gpu_monoid<T>(args, [&](auto m) {
        T const absent = absent_or(args, T(absent_of(m)));
        with_operand<T>(ah, "A", [&](auto const& a) {
            dense_vector<T, device> w(columns ? a.cols() : a.rows());
            {
                py::gil_scoped_release release;
                if (columns)
                    kleene::reduce(w, with_absent(m, absent), kleene::transpose(a));
                else
                    kleene::reduce(w, with_absent(m, absent), a);
            }
            ddense<T> t;  // the vector as an n x 1 matrix (its buffer moved, not copied)
            std::size_t const n = w.size();
            t.adopt(n, 1, std::move(w.storage()));
            out = finish(args.what, std::move(t), absent, args.write);
        });
    });
    return *out;
#else
    (void)ah, (void)columns;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

template <class T>
py::object device_operations<T>::reduce_scalar(matrix_handle const& ah, op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    std::optional<T> r;
    visit_gpu_monoid<T>(args, [&](auto m) {
        T const absent = absent_or(args, T(absent_of(m)));
        with_operand<T>(ah, "A", [&](auto const& a) {
            py::gil_scoped_release release;
            r = T(kleene::reduce(with_absent(m, absent), a));
        });
    });
    if (!args.write.accum.empty()) {
        T const s = scalar_of<T>(args.scalar, "reduce: out");
        dispatch_accum<T>(args.write.accum, [&](auto op) { r = T(op.apply(s, *r)); });
    }
    return py::cast(*r);
#else
    (void)ah;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

template <class T>
py::tuple device_operations<T>::transpose(matrix_handle const& ah, op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    T const absent = absent_or(args, T(0));
    std::optional<py::tuple> out;
    with_operand<T>(ah, "A", [&](auto const& a) {
        using A = std::decay_t<decltype(a)>;
        A c(a.cols(), a.rows());
        {
            py::gil_scoped_release release;
            if constexpr (is_device_csr<A>)
                kleene::transpose(c, a);
            else
                kleene::transpose(c, a, options{}, absent);
        }
        out = finish(args.what, std::move(c), absent, args.write);
    });
    return *out;
#else
    (void)ah;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

template <class T>
py::tuple device_operations<T>::extract(matrix_handle const& ah, index_selection const& rows,
                                        index_selection const& cols, op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    T const absent = absent_or(args, T(0));
    std::optional<py::tuple> out;
    with_operand<T>(ah, "A", [&](auto const& a) {
        using A = std::decay_t<decltype(a)>;
        A c(rows.resolve(a.rows(), "extract: row indices").size,
            cols.resolve(a.cols(), "extract: column indices").size);
        {
            py::gil_scoped_release release;
            kleene::extract(c, a, rows, cols, options{}, absent);
        }
        out = finish(args.what, std::move(c), absent, args.write);
    });
    return *out;
#else
    (void)ah, (void)rows, (void)cols;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

/// GrB_assign as on the host (operations_impl.hpp): the region replaced by S (with an
/// accumulator, by C(I, J) accum S through ewise_add), then C<mask, replace> = Z.
template <class T>
py::tuple device_operations<T>::assign(std::optional<matrix_handle> const& ah,
                                       index_selection const& rows, index_selection const& cols,
                                       op_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_op_detail;
    write_args const& w = args.write;
    T const absent = absent_or(args, T(0));
    std::optional<py::tuple> out;
    with_operand<T>(*w.out, "out", [&](auto const& c) {
        using C = std::decay_t<decltype(c)>;
        std::size_t const m = rows.resolve(c.rows(), "assign: row indices").size;
        std::size_t const n = cols.resolve(c.cols(), "assign: column indices").size;
        C s(m, n);
        if (ah) {
            with_operand<T>(*ah, "A", [&](auto const& a) {
                using A = std::decay_t<decltype(a)>;
                if constexpr (!std::is_same_v<A, C>) {
                    throw invalid_argument(
                        "assign on the GPU takes A of out's storage (both CSR "
                        "or both dense)");
                } else {
                    if (a.rows() != m || a.cols() != n)
                        throw dimension_mismatch("assign: the region C(I, J) is " +
                                                 detail::shape(m, n) + " but A is " +
                                                 detail::shape(a.rows(), a.cols()));
                    s = a;
                }
            });
        } else {
            T const x = scalar_of<T>(args.scalar, "assign: the value");
            py::gil_scoped_release release;
            kleene::assign(s, x, all_indices, all_indices, options{}, absent);
        }
        C z = c;
        if (!w.accum.empty()) {
            binary_kind const k = parse_binary(w.accum, "assign: accum");
            visit_binary<T>(k, [&](auto op) {
                using Op = decltype(op);
                if constexpr (!detail::gpu_ewise_op<Op, T>) {
                    refuse_operator<T>("assign", "accum=" + w.accum, gpu_binary_ops);
                } else {
                    py::gil_scoped_release release;
                    C region(m, n), merged(m, n);
                    kleene::extract(region, z, rows, cols, options{}, absent);
                    kleene::ewise_add(merged, with_absent(op, absent), region, s);
                    s = std::move(merged);
                }
            });
        }
        {
            py::gil_scoped_release release;
            kleene::assign(z, s, rows, cols, options{}, absent);
        }
        if (!w.mask) {
            out = result(std::move(z), absent);
        } else {
            write_args masked = w;
            masked.accum.clear();
            out = finish(args.what, std::move(z), absent, masked);
        }
    });
    return *out;
#else
    (void)ah, (void)rows, (void)cols;
    throw no_device(std::string(args.what) + ": kleene was built without the CUDA backend");
#endif
}

}  // namespace kleene::python

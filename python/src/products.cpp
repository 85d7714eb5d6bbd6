// Binds mxm, mxv and vxm, and the other GraphBLAS operations (operations.hpp): the value type of
// A picks products<T> / operations<T> (products_<type>.cpp) for host matrices, device_products<T>
// / device_operations<T> (products_device_<type>.cpp) for device ones. All operands of one call
// live in one memory space: a mix is refused (kleene.SpaceMismatch), never copied.

#include "products.hpp"

#include "operations.hpp"

namespace kleene::python {

kernel_choice parse_kernel(std::string_view k) {
    if (k == "auto") return kernel_choice::automatic;
    if (k == "dense_gemm") return kernel_choice::dense_gemm;
    if (k == "csr_dense") return kernel_choice::csr_dense;
    if (k == "dense_csr") return kernel_choice::dense_csr;
    if (k == "gustavson_dense") return kernel_choice::gustavson_dense;
    if (k == "gustavson_hash") return kernel_choice::gustavson_hash;
    if (k == "spmv_pull") return kernel_choice::spmv_pull;
    if (k == "spmspv_push") return kernel_choice::spmspv_push;
    throw invalid_argument("unknown kernel " + std::string(k) +
                           " (auto, dense_gemm, csr_dense, dense_csr, gustavson_dense, "
                           "gustavson_hash, spmv_pull, spmspv_push)");
}

semiring_spec parse_semiring_spec(py::handle h) {
    semiring_spec spec;
    if (py::isinstance<py::str>(h)) {
        spec.name = h.cast<std::string>();
        return spec;
    }
    auto const t = h.cast<py::tuple>();
    auto const kind = t[0].cast<std::string>();
    if (kind == "compose" && t.size() == 3) {
        spec.add = t[1].cast<std::string>();
        spec.mul = t[2].cast<std::string>();
        spec.name = spec.add + "." + spec.mul;
        spec.composed = true;
        return spec;
    }
    if (kind == "source" && t.size() == 12) {
        cuda::jit::semiring_source src;
        src.name = t[1].cast<std::string>();
        src.value_type = t[2].cast<std::string>();
        src.zero = t[3].cast<std::string>();
        src.one = t[4].cast<std::string>();
        src.add = t[5].cast<std::string>();
        src.mul = t[6].cast<std::string>();
        src.terminal = t[7].cast<std::string>();
        src.idempotent_add = t[8].cast<bool>();
        src.zero_annihilates = t[9].cast<bool>();
        src.preamble = t[10].cast<std::string>();
        spec.name = src.name;
        spec.add = src.add;  // what accum=True names (semiring.py's Semiring.add)
        spec.zero = py::reinterpret_borrow<py::object>(t[11]);
        spec.source = std::move(src);
        return spec;
    }
    throw invalid_argument("a semiring is a name, (\"compose\", add, mul) or a source semiring");
}

namespace {

std::string value_dtype(matrix_handle const& m) {
    return m.visit([](auto const& a) -> std::string {
        return dtype_name<typename std::decay_t<decltype(a)>::value_type>();
    });
}

bool on_device(matrix_handle const& m) {
    return m.visit([](auto const& a) {
        using M = std::decay_t<decltype(a)>;
        return is_device_csr<M> || is_device_dense<M>;
    });
}

/// A vector argument in device memory: anything with __cuda_array_interface__ (CuPy, PyTorch,
/// kleene.DeviceArray); NumPy arrays and lists are host vectors.
bool on_device(py::handle v) {
    return !v.is_none() && !py::isinstance<py::array>(v) &&
           py::hasattr(v, "__cuda_array_interface__");
}

char const* space(bool device) { return device ? "device" : "host"; }

/// Refuses `what` when it lives in the other memory space than A (or than `first`).
void same_space(char const* op, bool a_device, bool device, char const* what,
                char const* first = "A") {
    if (device == a_device) return;
    throw space_mismatch(std::string(op) + ": " + first + " is in " + space(a_device) +
                         " memory but " + what + " is in " + space(device) +
                         " memory; move one with " + (a_device ? "to_device()" : "to_host()") +
                         " or " + (a_device ? "to_host()" : "to_device()") +
                         " first (kleene does not copy between host and device behind your back)");
}

}  // namespace

// Bool products on the device: lib/backend/cuda builds its write-back, masks and conversions for
// the numeric types only.
template <>
struct device_products<bool> {
    [[noreturn]] static void refuse(char const* op) {
        throw invalid_argument(std::string(op) +
                               " on the GPU: bool values are not offered there (float32, "
                               "float64, int32, int64); convert with astype() on the host");
    }
    static py::tuple mxm(matrix_handle const&, matrix_handle const&, product_args const&) {
        refuse("mxm");
    }
    static py::tuple mxv(matrix_handle const&, py::handle, vector_args const&) { refuse("mxv"); }
    static py::tuple vxm(py::handle, matrix_handle const&, vector_args const&) { refuse("vxm"); }
};

// Bool on the device: lib/backend/cuda builds its operations for the numeric types only.
template <>
struct device_operations<bool> {
    [[noreturn]] static void refuse(op_args const& args) {
        throw invalid_argument(std::string(args.what) +
                               " on the GPU: bool values are not offered there (float32, "
                               "float64, int32, int64); convert with astype() on the host");
    }
    static py::tuple ewise(bool, matrix_handle const&, matrix_handle const&, op_args const& a) {
        refuse(a);
    }
    static py::tuple kronecker(matrix_handle const&, matrix_handle const&, op_args const& a) {
        refuse(a);
    }
    static py::tuple apply(matrix_handle const&, op_args const& a) { refuse(a); }
    static py::tuple select(matrix_handle const&, op_args const& a) { refuse(a); }
    static py::tuple reduce(matrix_handle const&, bool, op_args const& a) { refuse(a); }
    static py::object reduce_scalar(matrix_handle const&, op_args const& a) { refuse(a); }
    static py::tuple transpose(matrix_handle const&, op_args const& a) { refuse(a); }
    static py::tuple extract(matrix_handle const&, index_selection const&, index_selection const&,
                             op_args const& a) {
        refuse(a);
    }
    static py::tuple assign(std::optional<matrix_handle> const&, index_selection const&,
                            index_selection const&, op_args const& a) {
        refuse(a);
    }
};

// ---- the operations' names ----------------------------------------------------------------------

binary_kind parse_binary(std::string_view name, char const* what) {
    return parse_choice<binary_kind>(name, std::string(what) + ": the operator",
                                     {{"plus", binary_kind::plus},
                                      {"times", binary_kind::times},
                                      {"min", binary_kind::min},
                                      {"max", binary_kind::max},
                                      {"first", binary_kind::first},
                                      {"second", binary_kind::second},
                                      {"pair", binary_kind::pair},
                                      {"any", binary_kind::any},
                                      {"lor", binary_kind::lor},
                                      {"land", binary_kind::land}});
}

monoid_kind parse_monoid(std::string_view name, char const* what) {
    return parse_choice<monoid_kind>(name, std::string(what) + ": the monoid",
                                     {{"plus", monoid_kind::plus},
                                      {"times", monoid_kind::times},
                                      {"min", monoid_kind::min},
                                      {"max", monoid_kind::max},
                                      {"lor", monoid_kind::lor},
                                      {"land", monoid_kind::land},
                                      {"any", monoid_kind::any}});
}

unary_kind parse_unary(std::string_view name) {
    return parse_choice<unary_kind>(
        name, "apply: the unary operator (or a binary one, plus, times, ..., with left= or right=)",
        {{"identity", unary_kind::identity},
         {"ainv", unary_kind::ainv},
         {"abs", unary_kind::abs},
         {"minv", unary_kind::minv},
         {"lnot", unary_kind::lnot},
         {"one", unary_kind::one}});
}

select_kind parse_select(std::string_view name) {
    return parse_choice<select_kind>(name, "select: the predicate",
                                     {{"tril", select_kind::tril},
                                      {"triu", select_kind::triu},
                                      {"diag", select_kind::diag},
                                      {"offdiag", select_kind::offdiag},
                                      {"row_le", select_kind::row_le},
                                      {"row_gt", select_kind::row_gt},
                                      {"col_le", select_kind::col_le},
                                      {"col_gt", select_kind::col_gt},
                                      {"value_eq", select_kind::value_eq},
                                      {"value_ne", select_kind::value_ne},
                                      {"value_lt", select_kind::value_lt},
                                      {"value_le", select_kind::value_le},
                                      {"value_gt", select_kind::value_gt},
                                      {"value_ge", select_kind::value_ge}});
}

namespace {

std::pair<std::size_t, std::size_t> shape_of(matrix_handle const& m) {
    return m.visit([](auto const& a) { return std::pair{a.rows(), a.cols()}; });
}

/// None: every index (GrB_ALL); (begin, end): a range; else a sequence of integers.
index_selection indices_of(py::handle h) {
    if (h.is_none()) return all_indices;
    if (py::isinstance<py::tuple>(h)) {
        auto const t = h.cast<py::tuple>();
        if (t.size() != 2) throw invalid_argument("an index range is (begin, end)");
        return index_range{t[0].cast<std::size_t>(), t[1].cast<std::size_t>()};
    }
    auto const list = as_array<std::int64_t>(h);
    if (list.ndim() != 1) throw invalid_argument("indices must be a one-dimensional sequence");
    return std::vector<std::int64_t>(list.data(), list.data() + list.size());
}

/// The checks and dispatch every operation shares: one memory space for all its matrices, A's
/// value type picking operations<T> or device_operations<T>.
template <class F>
decltype(auto) dispatch_operation(
    char const* op, matrix_handle const& a,
    std::initializer_list<std::pair<matrix_handle const*, char const*>> others, F&& f) {
    bool const device = on_device(a);
    for (auto const& [h, what] : others)
        if (h) same_space(op, device, on_device(*h), what);
    return dispatch_dtype(value_dtype(a), [&](auto t) { return f(t, device); });
}

op_args make_args(char const* what, std::string name, py::object absent,
                  std::optional<matrix_handle> out, std::optional<matrix_handle> mask,
                  bool structural, bool complemented, std::string accum, bool replace) {
    op_args args;
    args.what = what;
    args.name = std::move(name);
    args.absent = std::move(absent);
    args.write = {std::move(out), std::move(mask),  structural,
                  complemented,   std::move(accum), replace};
    return args;
}

template <class Handle>
matrix_handle const* ptr(Handle const& h) {
    return h ? &*h : nullptr;
}

}  // namespace

void check_write_shapes(char const* what, std::size_t rows, std::size_t cols, write_args const& w) {
    for (auto const& [h, name] : {std::pair{&w.out, "out"}, std::pair{&w.mask, "the mask"}}) {
        if (!*h) continue;
        auto const [r, c] = shape_of(**h);
        if (r != rows || c != cols)
            throw dimension_mismatch(std::string(what) + ": " + name + " is " +
                                     detail::shape(r, c) + " but the result is " +
                                     detail::shape(rows, cols));
    }
}

void bind_operations(py::module_& m) {
    // The write arguments every operation ends with: out, mask, structural, complemented,
    // accum, replace (ops.py passes them in this order).
#define KLEENE_PY_WRITE_PARAMS                                                            \
    std::optional<matrix_handle> out, std::optional<matrix_handle> mask, bool structural, \
        bool complemented, std::string accum, bool replace
#define KLEENE_PY_WRITE_ARGS \
    std::move(out), std::move(mask), structural, complemented, std::move(accum), replace
    m.def("_ewise", [](matrix_handle const& a, matrix_handle const& b, bool add, std::string op,
                       py::object absent, KLEENE_PY_WRITE_PARAMS) {
        char const* what = add ? "ewise_add" : "ewise_mult";
        auto args = make_args(what, std::move(op), std::move(absent), KLEENE_PY_WRITE_ARGS);
        return dispatch_operation(
            what, a, {{&b, "B"}, {ptr(args.write.out), "out"}, {ptr(args.write.mask), "the mask"}},
            [&](auto t, bool device) {
                using T = decltype(t);
                return device ? device_operations<T>::ewise(add, a, b, args)
                              : operations<T>::ewise(add, a, b, args);
            });
    });
    m.def("_kronecker", [](matrix_handle const& a, matrix_handle const& b, std::string op,
                           py::object absent, KLEENE_PY_WRITE_PARAMS) {
        auto args = make_args("kronecker", std::move(op), std::move(absent), KLEENE_PY_WRITE_ARGS);
        return dispatch_operation(
            args.what, a,
            {{&b, "B"}, {ptr(args.write.out), "out"}, {ptr(args.write.mask), "the mask"}},
            [&](auto t, bool device) {
                using T = decltype(t);
                return device ? device_operations<T>::kronecker(a, b, args)
                              : operations<T>::kronecker(a, b, args);
            });
    });
    m.def("_apply", [](matrix_handle const& a, std::string op, std::string bind, py::object scalar,
                       py::object absent, KLEENE_PY_WRITE_PARAMS) {
        auto args = make_args("apply", std::move(op), std::move(absent), KLEENE_PY_WRITE_ARGS);
        args.bind = std::move(bind);
        args.scalar = std::move(scalar);
        return dispatch_operation(
            args.what, a, {{ptr(args.write.out), "out"}, {ptr(args.write.mask), "the mask"}},
            [&](auto t, bool device) {
                using T = decltype(t);
                return device ? device_operations<T>::apply(a, args)
                              : operations<T>::apply(a, args);
            });
    });
    m.def("_select", [](matrix_handle const& a, std::string op, py::object thunk, py::object absent,
                        KLEENE_PY_WRITE_PARAMS) {
        auto args = make_args("select", std::move(op), std::move(absent), KLEENE_PY_WRITE_ARGS);
        args.scalar = std::move(thunk);
        return dispatch_operation(
            args.what, a, {{ptr(args.write.out), "out"}, {ptr(args.write.mask), "the mask"}},
            [&](auto t, bool device) {
                using T = decltype(t);
                return device ? device_operations<T>::select(a, args)
                              : operations<T>::select(a, args);
            });
    });
    m.def("_reduce", [](matrix_handle const& a, std::string monoid, bool columns, py::object absent,
                        KLEENE_PY_WRITE_PARAMS) {
        auto args = make_args("reduce", std::move(monoid), std::move(absent), KLEENE_PY_WRITE_ARGS);
        return dispatch_operation(
            args.what, a, {{ptr(args.write.out), "out"}, {ptr(args.write.mask), "the mask"}},
            [&](auto t, bool device) {
                using T = decltype(t);
                return device ? device_operations<T>::reduce(a, columns, args)
                              : operations<T>::reduce(a, columns, args);
            });
    });
    m.def("_reduce_scalar", [](matrix_handle const& a, std::string monoid, py::object absent,
                               py::object out, std::string accum) {
        auto args = make_args("reduce", std::move(monoid), std::move(absent), std::nullopt,
                              std::nullopt, false, false, std::move(accum), false);
        args.scalar = std::move(out);
        return dispatch_operation(args.what, a, {}, [&](auto t, bool device) {
            using T = decltype(t);
            return device ? device_operations<T>::reduce_scalar(a, args)
                          : operations<T>::reduce_scalar(a, args);
        });
    });
    m.def("_transpose", [](matrix_handle const& a, py::object absent, KLEENE_PY_WRITE_PARAMS) {
        auto args = make_args("transpose", "", std::move(absent), KLEENE_PY_WRITE_ARGS);
        return dispatch_operation(
            args.what, a, {{ptr(args.write.out), "out"}, {ptr(args.write.mask), "the mask"}},
            [&](auto t, bool device) {
                using T = decltype(t);
                return device ? device_operations<T>::transpose(a, args)
                              : operations<T>::transpose(a, args);
            });
    });
    m.def("_extract", [](matrix_handle const& a, py::object rows, py::object cols,
                         py::object absent, KLEENE_PY_WRITE_PARAMS) {
        auto args = make_args("extract", "", std::move(absent), KLEENE_PY_WRITE_ARGS);
        index_selection const i = indices_of(rows), j = indices_of(cols);
        return dispatch_operation(
            args.what, a, {{ptr(args.write.out), "out"}, {ptr(args.write.mask), "the mask"}},
            [&](auto t, bool device) {
                using T = decltype(t);
                return device ? device_operations<T>::extract(a, i, j, args)
                              : operations<T>::extract(a, i, j, args);
            });
    });
    m.def("_assign",
          [](matrix_handle const& c, std::optional<matrix_handle> a, py::object scalar,
             py::object rows, py::object cols, py::object absent, std::optional<matrix_handle> mask,
             bool structural, bool complemented, std::string accum, bool replace) {
              auto args = make_args("assign", "", std::move(absent), c, std::move(mask), structural,
                                    complemented, std::move(accum), replace);
              args.scalar = std::move(scalar);
              index_selection const i = indices_of(rows), j = indices_of(cols);
              // C's value type picks the instance: A is C's or refused; C is "out" in messages.
              bool const device = on_device(c);
              if (a) same_space("assign", device, on_device(*a), "A", "out");
              if (args.write.mask)
                  same_space("assign", device, on_device(*args.write.mask), "the mask", "out");
              return dispatch_dtype(value_dtype(c), [&](auto t) {
                  using T = decltype(t);
                  return device ? device_operations<T>::assign(a, i, j, args)
                                : operations<T>::assign(a, i, j, args);
              });
          });
#undef KLEENE_PY_WRITE_PARAMS
#undef KLEENE_PY_WRITE_ARGS
}

void bind_products(py::module_& m) {
    // The instance registry (kleene/instances.hpp): every semiring's operators, for
    // python/kleene/semiring.py, and the value types this build dispatches each to.
    py::dict semirings, built;
    for (auto const& s : instances::semirings) {
        semirings[py::str(s.name)] = py::make_tuple(s.add, s.multiply);
        built[py::str(s.name)] = py::list();
    }
#define KLEENE_PY_BUILT(S, U, sname, tname) built[sname].cast<py::list>().append(dtype_name<U>());
    KLEENE_HOST_INSTANCES(KLEENE_PY_BUILT)
#undef KLEENE_PY_BUILT
    m.attr("_semirings") = semirings;
    m.attr("_semirings_built") = built;
    m.attr("_instances") = py::str(instances::set);
    m.def(
        "_mxm",
        [](matrix_handle const& a, matrix_handle const& b, py::handle semiring,
           std::optional<matrix_handle> out, std::optional<matrix_handle> mask, bool structural,
           bool complemented, std::string accum, bool replace, std::string kernel, bool explain) {
            product_args args{
                parse_semiring_spec(semiring), std::move(out), std::move(mask),   structural, complemented,
                std::move(accum),    replace,        std::move(kernel), explain};
            bool const device = on_device(a);
            same_space("mxm", device, on_device(b), "B");
            if (args.out) same_space("mxm", device, on_device(*args.out), "out");
            if (args.mask) same_space("mxm", device, on_device(*args.mask), "the mask");
            return dispatch_dtype(value_dtype(a), [&](auto t) {
                using T = decltype(t);
                return device ? device_products<T>::mxm(a, b, args) : products<T>::mxm(a, b, args);
            });
        },
        py::arg("a"), py::arg("b"), py::arg("semiring"), py::arg("out"), py::arg("mask"),
        py::arg("structural"), py::arg("complemented"), py::arg("accum"), py::arg("replace"),
        py::arg("kernel"), py::arg("explain"));
    auto vector_product = [](bool pull) {
        return [pull](matrix_handle const& a, py::object u, py::handle semiring, py::object out,
                      py::object mask, bool complemented, std::string accum, bool replace,
                      std::string kernel, bool explain) {
            vector_args args{parse_semiring_spec(semiring), std::move(out), std::move(mask),   complemented,
                             std::move(accum),    replace,        std::move(kernel), explain};
            char const* const op = pull ? "mxv" : "vxm";
            bool const device = on_device(a);
            same_space(op, device, on_device(u), "u");
            if (!args.out.is_none()) same_space(op, device, on_device(args.out), "out");
            if (!args.mask.is_none()) same_space(op, device, on_device(args.mask), "the mask");
            return dispatch_dtype(value_dtype(a), [&](auto t) {
                using T = decltype(t);
                if (device)
                    return pull ? device_products<T>::mxv(a, u, args)
                                : device_products<T>::vxm(u, a, args);
                return pull ? products<T>::mxv(a, u, args) : products<T>::vxm(u, a, args);
            });
        };
    };
    for (auto [name, pull] : {std::pair{"_mxv", true}, std::pair{"_vxm", false}})
        m.def(name, vector_product(pull), py::arg("a"), py::arg("u"), py::arg("semiring"),
              py::arg("out"), py::arg("mask"), py::arg("complemented"), py::arg("accum"),
              py::arg("replace"), py::arg("kernel"), py::arg("explain"));
}

}  // namespace kleene::python

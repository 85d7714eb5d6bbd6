// kleene._kleene: the Matrix container, NumPy / SciPy exchange, Matrix Market files and the
// exception family. Products, algorithms and device exchange are bound in their own files.

#include <Python.h>

#include <algorithm>
#include <cstring>
#include <kleene/io/matrix_market.hpp>

#include "kleene_py.hpp"

namespace kleene::python {

namespace {

// ---- exceptions
// ----------------------------------------------------------------------------------

struct exception_types {
    py::object base, dimension_mismatch, invalid_argument, space_mismatch, parse_error, io_error,
        out_of_memory, device_error, no_device, overflow_error, negative_cycle;
};

exception_types& types() {
    // Created once, when the module is imported, and alive for the interpreter's lifetime.
    static exception_types* t = new exception_types();
    return *t;
}

py::object new_exception(py::module_& m, char const* name, py::tuple bases, char const* doc) {
    py::dict ns;
    ns["__doc__"] = doc;
    std::string const full = std::string("kleene.") + name;
    PyObject* e = PyErr_NewException(full.c_str(), bases.ptr(), ns.ptr());
    if (!e) throw py::error_already_set();
    py::object o = py::reinterpret_steal<py::object>(e);
    m.attr(name) = o;
    return o;
}

[[noreturn]] void raise(py::object const& type, std::string const& what, py::dict attrs = {}) {
    py::object e = type(what);
    for (auto item : attrs) py::setattr(e, item.first, item.second);
    PyErr_SetObject(type.ptr(), e.ptr());
    throw py::error_already_set();
}

}  // namespace

void register_errors(py::module_& m) {
    auto& t = types();
    py::object builtins = py::module_::import("builtins");
    auto bases = [](std::initializer_list<py::object> b) {
        py::tuple tup(b.size());
        std::size_t i = 0;
        for (auto const& x : b) tup[i++] = x;
        return tup;
    };
    t.base = new_exception(m, "Error", bases({builtins.attr("RuntimeError")}),
                           "Base class of every error kleene raises (kleene::error).");
    t.dimension_mismatch =
        new_exception(m, "DimensionMismatch", bases({t.base, builtins.attr("ValueError")}),
                      "Operand shapes do not fit the operation.");
    t.invalid_argument =
        new_exception(m, "InvalidArgument", bases({t.base, builtins.attr("ValueError")}),
                      "An argument is out of range or otherwise invalid.");
    t.space_mismatch = new_exception(
        m, "SpaceMismatch", bases({t.invalid_argument}),
        "One call mixes host and device containers; move one with to_device() or to_host().");
    t.parse_error = new_exception(m, "ParseError", bases({t.base, builtins.attr("ValueError")}),
                                  "A file could not be parsed; .file and .line say where.");
    t.io_error = new_exception(m, "IOError", bases({t.base, builtins.attr("OSError")}),
                               "Reading or writing a file failed at the operating-system level.");
    t.out_of_memory = new_exception(m, "OutOfMemory", bases({t.base, builtins.attr("MemoryError")}),
                                    "Memory could not be had; .bytes is the request.");
    t.device_error = new_exception(m, "DeviceError", bases({t.base}), "A CUDA call failed.");
    t.no_device = new_exception(m, "NoDevice", bases({t.device_error}),
                                "The GPU was asked for but there is none (or kleene was built "
                                "without CUDA).");
    t.overflow_error =
        new_exception(m, "OverflowError", bases({t.base, builtins.attr("OverflowError")}),
                      "A result does not fit its value type.");
    t.negative_cycle =
        new_exception(m, "NegativeCycle", bases({t.base}),
                      "A shortest-path input has a cycle of negative weight; .vertex "
                      "lies on it.");

    py::register_exception_translator([](std::exception_ptr p) {
        if (!p) return;
        auto& t = types();
        try {
            std::rethrow_exception(p);
        } catch (py::error_already_set&) {
            throw;
        } catch (kleene::dimension_mismatch const& e) {
            raise(t.dimension_mismatch, e.what());
        } catch (space_mismatch const& e) {
            raise(t.space_mismatch, e.what());
        } catch (kleene::invalid_argument const& e) {
            raise(t.invalid_argument, e.what());
        } catch (kleene::parse_error const& e) {
            py::dict a;
            a["file"] = e.file();
            a["line"] = e.line();
            raise(t.parse_error, e.what(), a);
        } catch (kleene::io_error const& e) {
            raise(t.io_error, e.what());
        } catch (kleene::out_of_memory const& e) {
            py::dict a;
            a["bytes"] = static_cast<double>(e.bytes());
            raise(t.out_of_memory, e.what(), a);
        } catch (kleene::no_device const& e) {
            raise(t.no_device, e.what());
        } catch (kleene::device_error const& e) {
            raise(t.device_error, e.what());
        } catch (kleene::overflow_error const& e) {
            raise(t.overflow_error, e.what());
        } catch (kleene::negative_cycle const& e) {
            py::dict a;
            a["vertex"] = e.vertex();
            raise(t.negative_cycle, e.what(), a);
        } catch (kleene::error const& e) {
            raise(t.base, e.what());
        }
    });
}

step_hook interrupt_hook() {
    return [] {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    };
}

device_choice parse_device(std::string_view d) {
    if (d == "auto") return device_choice::automatic;
    if (d == "cpu") return device_choice::cpu;
    if (d == "gpu") return device_choice::gpu;
    throw invalid_argument("device must be \"auto\", \"cpu\" or \"gpu\", not \"" + std::string(d) +
                           "\"");
}

copy_mode parse_copy(py::handle copy) {
    if (copy.is_none()) return copy_mode::if_needed;
    if (copy.ptr() == Py_True) return copy_mode::always;
    if (copy.ptr() == Py_False) return copy_mode::never;
    throw invalid_argument("copy must be True, False or None, not " +
                           std::string(py::str(py::repr(copy))));
}

std::shared_ptr<void const> keep_alive(py::object o) {
    return {new py::object(std::move(o)), [](void const* p) {
                // At interpreter exit the reference is left: nothing can be released then.
                if (!Py_IsInitialized()) return;
                py::gil_scoped_acquire gil;
                delete static_cast<py::object const*>(p);
            }};
}

namespace {

// ---- building matrices
// ---------------------------------------------------------------------------

template <class T, class I>
matrix_handle csr_from_arrays(std::size_t rows, std::size_t cols, py::handle indptr,
                              py::handle indices, py::handle data, bool check, copy_mode copy) {
    py::array p, j, v;
    auto bp = import_values<I>(indptr, copy, "indptr", p);
    auto bj = import_values<I>(indices, copy, "indices", j);
    auto bv = import_values<T>(data, copy, "data", v);
    if (p.ndim() != 1 || j.ndim() != 1 || v.ndim() != 1)
        throw invalid_argument("Matrix: indptr, indices and data must be one-dimensional");
    if (static_cast<std::size_t>(p.size()) != rows + 1)
        throw invalid_argument("Matrix: indptr has " + std::to_string(p.size()) +
                               " entries, expected rows + 1 = " + std::to_string(rows + 1));
    if (v.size() != j.size())
        throw invalid_argument("Matrix: " + std::to_string(v.size()) + " values for " +
                               std::to_string(j.size()) + " column indices");
    // The structure is checked (unless the caller vouches for it) without the GIL; a borrowed
    // buffer released on an error takes the GIL back itself (keep_alive).
    py::gil_scoped_release release;
    return matrix_handle::of(
        host_csr<T, I>(rows, cols, std::move(bp), std::move(bj), std::move(bv), T(1), !check));
}

matrix_handle from_csr(std::size_t rows, std::size_t cols, py::handle indptr, py::handle indices,
                       py::handle data, std::string const& dtype, std::string const& index,
                       bool check, py::handle copy) {
    copy_mode const mode = parse_copy(copy);
    return dispatch_dtype(dtype, [&](auto t) {
        return dispatch_index(index, [&](auto i) {
            return csr_from_arrays<decltype(t), decltype(i)>(rows, cols, indptr, indices, data,
                                                             check, mode);
        });
    });
}

matrix_handle from_dense(py::handle array, std::string const& dtype, py::handle copy) {
    copy_mode const mode = parse_copy(copy);
    return dispatch_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        py::array a;
        auto values = import_values<T>(array, mode, "the array", a);
        if (a.ndim() != 2)
            throw invalid_argument("Matrix.from_numpy: a two-dimensional array is needed, not " +
                                   std::to_string(a.ndim()) + "-dimensional");
        dense_matrix<T> d;
        d.adopt(static_cast<std::size_t>(a.shape(0)), static_cast<std::size_t>(a.shape(1)),
                std::move(values));
        return matrix_handle::of(std::move(d));
    });
}

matrix_handle from_coo(std::size_t rows, std::size_t cols, py::handle ii, py::handle jj,
                       py::handle vv, std::string const& dtype, std::string const& index,
                       std::string const& dup) {
    duplicate_policy const policy = parse_duplicates(dup, "from_coo: duplicates");
    return dispatch_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        return dispatch_index(index, [&](auto i) {
            using I = decltype(i);
            auto a = as_array<I>(ii);
            auto b = as_array<I>(jj);
            auto v = as_array<T>(vv);
            std::span<I const> sa(a.data(), static_cast<std::size_t>(a.size()));
            std::span<I const> sb(b.data(), static_cast<std::size_t>(b.size()));
            std::span<T const> sv(v.data(), static_cast<std::size_t>(v.size()));
            py::gil_scoped_release release;
            return matrix_handle::of(host_csr<T, I>::from_coo(rows, cols, sa, sb, sv, policy));
        });
    });
}

// ---- reading matrices
// ----------------------------------------------------------------------------

template <class M>
using value_of = typename M::value_type;

py::tuple shape_of(matrix_handle const& m) {
    return m.visit([](auto const& a) { return py::make_tuple(a.rows(), a.cols()); });
}

std::string dtype_of(matrix_handle const& m) {
    return m.visit([](auto const& a) -> std::string {
        return dtype_name<value_of<std::decay_t<decltype(a)>>>();
    });
}

py::object index_dtype_of(matrix_handle const& m) {
    return m.visit([](auto const& a) -> py::object {
        using M = std::decay_t<decltype(a)>;
        if constexpr (is_host_csr<M> || is_device_csr<M>)
            return py::str(dtype_name<typename M::index_type>());
        else
            return py::none();
    });
}

std::string format_of(matrix_handle const& m) {
    return m.visit([](auto const& a) -> std::string {
        using M = std::decay_t<decltype(a)>;
        return (is_host_csr<M> || is_device_csr<M>) ? "csr" : "dense";
    });
}

std::string device_of(matrix_handle const& m) {
    return m.visit([](auto const& a) -> std::string {
        using M = std::decay_t<decltype(a)>;
        return (is_device_csr<M> || is_device_dense<M>) ? "gpu" : "cpu";
    });
}

std::size_t nnz_of(matrix_handle const& m) {
    return m.visit([](auto const& a) -> std::size_t {
        using M = std::decay_t<decltype(a)>;
        if constexpr (is_host_csr<M> || is_device_csr<M>)
            return a.nnz();
        else
            return a.rows() * a.cols();  // dense storage holds every entry
    });
}

/// (indptr, indices, data) as read-only views of the storage (data of an iso matrix is made).
py::tuple csr_arrays(matrix_handle const& m) {
    return m.visit([&](auto const& a) -> py::tuple {
        using M = std::decay_t<decltype(a)>;
        if constexpr (is_host_csr<M>) {
            using T = typename M::value_type;
            auto const n = static_cast<py::ssize_t>(a.nnz());
            py::array ptr = view_of(a.row_ptr(), {static_cast<py::ssize_t>(a.rows() + 1)}, m.s);
            py::array idx = view_of(a.col_idx(), {n}, m.s);
            py::array val;
            if (a.has_values() || a.nnz() == 0) {
                val = view_of(a.values(), {n}, m.s);
            } else {
                py::array_t<T> iso(n);
                std::fill(iso.mutable_data(), iso.mutable_data() + n, a.iso_value());
                val = iso;
            }
            return py::make_tuple(ptr, idx, val);
        } else if constexpr (is_host_dense<M>) {
            throw invalid_argument(
                "Matrix: dense storage has no CSR arrays; use to_numpy() or to_csr()");
        } else {
            throw invalid_argument("Matrix: the matrix is in device memory; call to_host() first");
        }
    });
}

/// The entries as a dense array: a read-only view of dense storage, else a new array with
/// `absent` where nothing is stored.
py::array to_numpy(matrix_handle const& m, py::object absent) {
    return m.visit([&](auto const& a) -> py::array {
        using M = std::decay_t<decltype(a)>;
        using T = value_of<M>;
        if constexpr (is_host_dense<M>) {
            return view_of(a.data(),
                           {static_cast<py::ssize_t>(a.rows()), static_cast<py::ssize_t>(a.cols())},
                           m.s);
        } else if constexpr (is_host_csr<M>) {
            T const fill = absent.is_none() ? T(0) : absent.cast<T>();
            dense_matrix<T> d = to_dense(a, fill);
            return adopt_dense(std::move(d));
        } else {
            throw invalid_argument("Matrix: the matrix is in device memory; call to_host() first");
        }
    });
}

matrix_handle to_csr_storage(matrix_handle const& m, py::object absent, std::string const& index) {
    return m.visit([&](auto const& a) -> matrix_handle {
        using M = std::decay_t<decltype(a)>;
        using T = value_of<M>;
        if constexpr (is_host_csr<M>) {
            return dispatch_index(index, [&](auto i) -> matrix_handle {
                using I = decltype(i);
                if constexpr (std::is_same_v<I, typename M::index_type>)
                    return m;
                else {
                    if (a.nnz() > static_cast<std::size_t>(std::numeric_limits<I>::max()) ||
                        a.rows() > static_cast<std::size_t>(std::numeric_limits<I>::max()) ||
                        a.cols() > static_cast<std::size_t>(std::numeric_limits<I>::max()))
                        throw invalid_argument("Matrix: a " + detail::shape(a.rows(), a.cols()) +
                                               " matrix of " + std::to_string(a.nnz()) +
                                               " entries does not fit int32 indices");
                    buffer<I> p(a.rows() + 1), j(a.nnz());
                    std::copy(a.row_ptr(), a.row_ptr() + a.rows() + 1, p.begin());
                    std::copy(a.col_idx(), a.col_idx() + a.nnz(), j.begin());
                    return matrix_handle::of(
                        host_csr<T, I>(a.rows(), a.cols(), std::move(p), std::move(j),
                                       buffer<T>(a.values_storage()), a.iso_value(), true));
                }
            });
        } else if constexpr (is_host_dense<M>) {
            T const fill = absent.is_none() ? T(0) : absent.cast<T>();
            return dispatch_index(index, [&](auto i) {
                using I = decltype(i);
                return matrix_handle::of(kleene::to_csr<T, I>(a, fill));
            });
        } else {
            throw invalid_argument("Matrix: the matrix is in device memory; call to_host() first");
        }
    });
}

matrix_handle to_dense_storage(matrix_handle const& m, py::object absent) {
    return m.visit([&](auto const& a) -> matrix_handle {
        using M = std::decay_t<decltype(a)>;
        using T = value_of<M>;
        if constexpr (is_host_dense<M>)
            return m;
        else if constexpr (is_host_csr<M>)
            return matrix_handle::of(to_dense(a, absent.is_none() ? T(0) : absent.cast<T>()));
        else
            throw invalid_argument("Matrix: the matrix is in device memory; call to_host() first");
    });
}

matrix_handle astype(matrix_handle const& m, std::string const& dtype) {
    return m.visit([&](auto const& a) -> matrix_handle {
        using M = std::decay_t<decltype(a)>;
        return dispatch_dtype(dtype, [&](auto t) -> matrix_handle {
            using U = decltype(t);
            if constexpr (is_host_csr<M>) {
                using I = typename M::index_type;
                buffer<U> v(a.nnz());
                for (std::size_t k = 0; k < a.nnz(); ++k) v[k] = static_cast<U>(a.value(k));
                return matrix_handle::of(
                    host_csr<U, I>(a.rows(), a.cols(), buffer<I>(a.row_ptr_storage()),
                                   buffer<I>(a.col_idx_storage()), std::move(v), U(1), true));
            } else if constexpr (is_host_dense<M>) {
                dense_matrix<U> d(a.rows(), a.cols());
                for (std::size_t k = 0; k < a.rows() * a.cols(); ++k)
                    d.data()[k] = static_cast<U>(a.data()[k]);
                return matrix_handle::of(std::move(d));
            } else {
                throw invalid_argument(
                    "Matrix.astype: the matrix is in device memory; call to_host() first");
            }
        });
    });
}

matrix_handle to_device(matrix_handle const& m) {
    return m.visit([&](auto const& a) -> matrix_handle {
        using M = std::decay_t<decltype(a)>;
        if constexpr (is_host_csr<M> || is_host_dense<M>) {
            py::gil_scoped_release release;
            return matrix_handle::of(a.to_device());
        } else {
            return m;
        }
    });
}

matrix_handle to_host(matrix_handle const& m) {
    return m.visit([&](auto const& a) -> matrix_handle {
        using M = std::decay_t<decltype(a)>;
        if constexpr (is_device_csr<M> || is_device_dense<M>) {
            py::gil_scoped_release release;
            return matrix_handle::of(a.to_host());
        } else {
            return m;
        }
    });
}

std::string repr(matrix_handle const& m) {
    std::string s = "<kleene.Matrix " +
                    m.visit([](auto const& a) { return detail::shape(a.rows(), a.cols()); }) +
                    " " + dtype_of(m) + ", " + format_of(m);
    if (format_of(m) == "csr") {
        py::object const index = index_dtype_of(m);
        s += " (" + std::to_string(nnz_of(m)) + " entries, " + py::str(index).cast<std::string>() +
             " indices)";
    }
    return s + ", " + device_of(m) + ">";
}

// ---- Matrix Market
// -------------------------------------------------------------------------------

/// The dtype a file's values read into when none is asked for: bool for pattern, int64 for
/// integer, float64 for real (float32 and the narrower integers when a %%GraphBLAS line says so).
std::string natural_dtype(io::mm_header const& h) {
    switch (h.natural_type()) {
        case io::value_type::bool_:
            return "bool";
        case io::value_type::float32:
            return "float32";
        case io::value_type::float64:
            return "float64";
        case io::value_type::int8:
        case io::value_type::int16:
        case io::value_type::int32:
        case io::value_type::uint8:
        case io::value_type::uint16:
            return "int32";
        default:
            return "int64";
    }
}

matrix_handle read_mtx(std::string const& path, py::object dtype, std::string const& index,
                       std::string const& format, std::string const& duplicates, int threads) {
    io::read_options o;
    o.threads = threads;
    o.duplicates = parse_duplicates(duplicates, "read_mtx: duplicates");
    std::string const type = dtype.is_none()
                                 ? [&] {
                                       py::gil_scoped_release release;
                                       return natural_dtype(io::read_matrix_market_header(path));
                                   }()
                                 : dtype.cast<std::string>();
    if (format != "csr" && format != "dense")
        throw invalid_argument("read_mtx: format must be \"csr\" or \"dense\"");
    return dispatch_dtype(type, [&](auto t) {
        using T = decltype(t);
        if (format == "dense") {
            py::gil_scoped_release release;
            return matrix_handle::of(io::read_matrix_market_dense<T>(path, T(0), o));
        }
        return dispatch_index(index, [&](auto i) {
            using I = decltype(i);
            py::gil_scoped_release release;
            return matrix_handle::of(io::read_matrix_market<T, I>(path, o));
        });
    });
}

void write_mtx(std::string const& path, matrix_handle const& m, std::string const& symmetry,
               bool pattern, std::string const& comment, bool type_line) {
    io::write_options o;
    if (symmetry == "general")
        o.symmetry = io::mm_symmetry::general;
    else if (symmetry == "symmetric")
        o.symmetry = io::mm_symmetry::symmetric;
    else if (symmetry == "skew-symmetric")
        o.symmetry = io::mm_symmetry::skew_symmetric;
    else
        throw invalid_argument("write_mtx: symmetry must be general, symmetric or skew-symmetric");
    o.pattern = pattern;
    o.comment = comment;
    o.graphblas_type_line = type_line;
    m.visit([&](auto const& a) {
        using M = std::decay_t<decltype(a)>;
        if constexpr (is_host_csr<M> || is_host_dense<M>) {
            py::gil_scoped_release release;
            io::write_matrix_market(path, a, o);
        } else {
            throw invalid_argument(
                "write_mtx: the matrix is in device memory; call to_host() first");
        }
    });
}

py::dict mtx_info(std::string const& path) {
    io::mm_header h;
    {
        py::gil_scoped_release release;
        h = io::read_matrix_market_header(path);
    }
    py::dict d;
    d["object"] = std::string(io::to_string(h.object));
    d["format"] = std::string(io::to_string(h.format));
    d["field"] = std::string(io::to_string(h.field));
    d["symmetry"] = std::string(io::to_string(h.symmetry));
    d["shape"] = py::make_tuple(h.rows, h.cols);
    d["entries"] = h.file_entries;
    d["dtype"] = natural_dtype(h);
    return d;
}

}  // namespace

}  // namespace kleene::python

PYBIND11_MODULE(_kleene, m) {
    using namespace kleene::python;
    m.doc() =
        "kleene: linear algebra over semirings (C++20/CUDA), the compiled part of the package";
    register_errors(m);

    py::class_<matrix_handle>(m, "_Storage", "Storage of a kleene.Matrix (use kleene.Matrix)")
        .def_property_readonly("shape", &shape_of)
        .def_property_readonly("dtype", &dtype_of)
        .def_property_readonly("index_dtype", &index_dtype_of)
        .def_property_readonly("format", &format_of)
        .def_property_readonly("device", &device_of)
        .def_property_readonly("nnz", &nnz_of)
        .def("csr_arrays", &csr_arrays)
        .def("to_numpy", &to_numpy, py::arg("absent") = py::none())
        .def("to_csr", &to_csr_storage, py::arg("absent") = py::none(), py::arg("index") = "int32")
        .def("to_dense", &to_dense_storage, py::arg("absent") = py::none())
        .def("astype", &astype)
        .def("to_device", &to_device)
        .def("to_host", &to_host)
        .def("__repr__", &repr);

    m.def("_from_csr", &from_csr, py::arg("rows"), py::arg("cols"), py::arg("indptr"),
          py::arg("indices"), py::arg("data"), py::arg("dtype"), py::arg("index"),
          py::arg("check") = true, py::arg("copy") = py::none());
    m.def("_from_dense", &from_dense, py::arg("array"), py::arg("dtype"),
          py::arg("copy") = py::none());
    m.def("_from_coo", &from_coo, py::arg("rows"), py::arg("cols"), py::arg("i"), py::arg("j"),
          py::arg("v"), py::arg("dtype"), py::arg("index"), py::arg("duplicates"));
    m.def("_read_mtx", &read_mtx, py::arg("path"), py::arg("dtype"), py::arg("index"),
          py::arg("format"), py::arg("duplicates"), py::arg("threads"));
    m.def("_write_mtx", &write_mtx, py::arg("path"), py::arg("matrix"), py::arg("symmetry"),
          py::arg("pattern"), py::arg("comment"), py::arg("type_line"));
    m.def("_mtx_info", &mtx_info, py::arg("path"));
    m.def(
        "device_count", [] { return kleene::cuda::device_count(); },
        "Number of CUDA devices kleene sees (0 without a GPU or without the CUDA backend).");

    // kleene.stream() (python/kleene/streams.py): the calling thread's default context (the one
    // every call from Python resolves to) enqueues on the caller's stream for a block.
    m.def(
        "_set_stream",
        [](std::uintptr_t stream) {
            if (kleene::cuda::device_count() == 0)
                throw kleene::no_device(
                    "kleene.stream: no CUDA device (or kleene was built without CUDA)");
            kleene::context& c = kleene::default_context();
            auto const old = reinterpret_cast<std::uintptr_t>(c.stream());
            c.set_stream(reinterpret_cast<void*>(stream));
            return old;
        },
        py::arg("stream"));
    m.def(
        "_synchronize_stream",
        [](std::uintptr_t stream) {
            py::gil_scoped_release release;
            // 0 (CuPy's and PyTorch's name for the legacy default stream) is 1 in the interface.
            kleene::cuda::synchronize_foreign_stream(stream == 0 ? 1 : stream);
        },
        py::arg("stream"));

    bind_products(m);
    bind_operations(m);
    bind_algorithms(m);
    bind_closure(m);
    bind_device(m);
}

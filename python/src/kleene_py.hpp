#pragma once
// Shared pieces of the Python bindings: the storage a kleene.Matrix holds, NumPy views of kleene
// buffers, run-time dtype names, the exception mapping, and the Ctrl-C hook.
//
// A Matrix holds a shared_ptr to immutable storage (one of the host / device, CSR / dense
// containers below). NumPy arrays handed out by to_scipy() / to_numpy() are read-only views of
// that storage and hold a reference to it, so they stay valid when the Matrix is replaced by an
// in-place product (out=) or deleted. NumPy -> kleene shares the arrays when their layout allows
// (kleene::buffer::borrow, holding a reference to the array) and copies once otherwise; kleene
// never writes into the storage of a Matrix, borrowed or not.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kleene::python {

namespace py = pybind11;
using i32 = std::int32_t;
using i64 = std::int64_t;

template <class T, class I>
using host_csr = csr_matrix<T, I, host>;
template <class T, class I>
using device_csr = csr_matrix<T, I, device>;

// The alternatives, in the order of the variant (kept flat: a visit instantiates each once).
using storage = std::variant<
    host_csr<float, i32>, host_csr<double, i32>, host_csr<i32, i32>, host_csr<i64, i32>,
    host_csr<bool, i32>, host_csr<float, i64>, host_csr<double, i64>, host_csr<i32, i64>,
    host_csr<i64, i64>, host_csr<bool, i64>, dense_matrix<float>, dense_matrix<double>,
    dense_matrix<i32>, dense_matrix<i64>, dense_matrix<bool>, device_csr<float, i32>,
    device_csr<double, i32>, device_csr<i32, i32>, device_csr<i64, i32>, device_csr<bool, i32>,
    device_csr<float, i64>, device_csr<double, i64>, device_csr<i32, i64>, device_csr<i64, i64>,
    device_csr<bool, i64>, dense_matrix<float, device>, dense_matrix<double, device>,
    dense_matrix<i32, device>, dense_matrix<i64, device>, dense_matrix<bool, device>>;

template <class M>
inline constexpr bool is_host_csr =
    kleene::detail::is_csr<M> && kleene::detail::in_space<M, host>;
template <class M>
inline constexpr bool is_device_csr =
    kleene::detail::is_csr<M> && kleene::detail::in_space<M, device>;
template <class M>
inline constexpr bool is_host_dense =
    kleene::detail::is_dense<M> && kleene::detail::in_space<M, host>;
template <class M>
inline constexpr bool is_device_dense =
    kleene::detail::is_dense<M> && kleene::detail::in_space<M, device>;

/// What a kleene.Matrix holds: immutable storage shared with the NumPy views made of it.
struct matrix_handle {
    std::shared_ptr<storage const> s;

    template <class M>
    static matrix_handle of(M m) {
        return {std::make_shared<storage const>(std::in_place_type<M>, std::move(m))};
    }
    template <class F>
    decltype(auto) visit(F&& f) const {
        return std::visit(std::forward<F>(f), *s);
    }
};

// ---- value types --------------------------------------------------------------------------------

/// NumPy's name of T ("float32", ..., "bool").
template <class T>
constexpr char const* dtype_name() {
    if constexpr (std::is_same_v<T, float>)
        return "float32";
    else if constexpr (std::is_same_v<T, double>)
        return "float64";
    else if constexpr (std::is_same_v<T, i32>)
        return "int32";
    else if constexpr (std::is_same_v<T, i64>)
        return "int64";
    else
        return "bool";
}

/// Calls f(T{}) for the value type a NumPy dtype name names; invalid_argument otherwise.
template <class F>
decltype(auto) dispatch_dtype(std::string_view name, F&& f) {
    if (name == "float32") return f(float{});
    if (name == "float64") return f(double{});
    if (name == "int32") return f(i32{});
    if (name == "int64") return f(i64{});
    if (name == "bool") return f(bool{});
    throw invalid_argument("kleene: dtype " + std::string(name) +
                           " is not offered (float32, float64, int32, int64, bool)");
}

/// Calls f(I{}) for an index dtype name (int32, int64).
template <class F>
decltype(auto) dispatch_index(std::string_view name, F&& f) {
    if (name == "int32") return f(i32{});
    if (name == "int64") return f(i64{});
    throw invalid_argument("kleene: index dtype " + std::string(name) +
                           " is not offered (int32, int64)");
}

// ---- NumPy views of kleene storage --------------------------------------------------------------

/// A read-only NumPy view of `count` values at p, keeping `owner` alive.
template <class T>
py::array view_of(T const* p, std::vector<py::ssize_t> shape, std::shared_ptr<void const> owner) {
    auto* keep = new std::shared_ptr<void const>(std::move(owner));
    py::capsule base(keep, [](void* k) { delete static_cast<std::shared_ptr<void const>*>(k); });
    // A zero-length array still needs a non-null pointer for NumPy's alignment checks.
    static T const empty{};
    py::array a(py::dtype::of<T>(), std::move(shape), {}, p ? p : &empty, base);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
}

/// Moves a std::vector into a NumPy array without copying (the array owns the vector).
template <class T, class Alloc>
py::array adopt_vector(std::vector<T, Alloc>&& v) {
    auto* owned = new std::vector<T, Alloc>(std::move(v));
    py::capsule base(owned, [](void* p) { delete static_cast<std::vector<T, Alloc>*>(p); });
    return py::array(py::dtype::of<T>(), {static_cast<py::ssize_t>(owned->size())}, {},
                     owned->data(), base);
}

/// Moves a host dense matrix into a writable NumPy array without copying.
template <class T>
py::array adopt_dense(dense_matrix<T>&& d) {
    auto* owned = new dense_matrix<T>(std::move(d));
    py::capsule base(owned, [](void* p) { delete static_cast<dense_matrix<T>*>(p); });
    static T const empty{};
    return py::array(
        py::dtype::of<T>(),
        {static_cast<py::ssize_t>(owned->rows()), static_cast<py::ssize_t>(owned->cols())}, {},
        owned->data() ? owned->data() : &empty, base);
}

/// A C-contiguous array of T from any array-like, converting the dtype if need be (one copy at
/// most); a NumPy array of the right dtype and layout is used as it is.
template <class T>
py::array_t<T, py::array::c_style> as_array(py::handle h) {
    return py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(h);
}

// ---- arrays from NumPy ---------------------------------------------------------------------------

/// What an import does with an array it could share: NumPy's copy=True / None / False.
enum class copy_mode {
    always,     ///< copy=True: always copy
    if_needed,  ///< copy=None: share when the layout allows, else copy once
    never,      ///< copy=False: share, or raise InvalidArgument saying why not
};

/// True, None or False as a copy_mode; anything else is an InvalidArgument.
copy_mode parse_copy(py::handle copy);

/// The option value v among its named choices: invalid_argument "<what> must be a, b or c"
/// otherwise (what: the keyword, with the call's name where the message needs it).
template <class E>
E parse_choice(std::string_view v, std::string const& what,
               std::initializer_list<std::pair<char const*, E>> choices) {
    std::string names;
    std::size_t i = 0;
    for (auto const& [name, e] : choices) {
        if (v == name) return e;
        names += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(name);
        ++i;
    }
    throw invalid_argument(what + " must be " + names);
}

/// What to do with duplicate entries of an import or a read.
inline duplicate_policy parse_duplicates(std::string_view v, std::string const& what) {
    return parse_choice<duplicate_policy>(
        v, what,
        {{"error", duplicate_policy::error}, {"sum", duplicate_policy::sum},
         {"min", duplicate_policy::min}, {"max", duplicate_policy::max},
         {"last", duplicate_policy::last}});
}

/// A reference to a Python object that a kleene buffer keeps as the keeper of memory it borrows;
/// dropped with the GIL held (buffers may die where it was released).
std::shared_ptr<void const> keep_alive(py::object o);

/// The values of the array-like h as a kleene buffer of T, for an import named `what`: h's own
/// memory when h is already an aligned, C-contiguous NumPy array of T and `copy` allows; else the
/// array NumPy converted it to (one copy, already private); else one copy made here, without the
/// GIL. `a` receives the NumPy array read (h itself or its conversion), for its shape.
template <class T>
buffer<T> import_values(py::handle h, copy_mode copy, std::string const& what, py::array& a) {
    auto arr = as_array<T>(h);
    if (!arr) throw py::error_already_set();  // not convertible: NumPy's error stands
    a = arr;
    auto const n = static_cast<std::size_t>(a.size());
    auto* const data = static_cast<T*>(const_cast<void*>(a.data()));  // never written
    bool const converted = a.ptr() != h.ptr();  // as_array made a new array: h did not fit
    bool const aligned = (py::detail::array_proxy(a.ptr())->flags &
                          py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
    if (copy == copy_mode::never && (converted || !aligned))
        throw invalid_argument(
            what + " cannot be shared (copy=False): it is not " +
            (converted ? std::string("a C-contiguous ") + dtype_name<T>() + " array"
                       : std::string("aligned for ") + dtype_name<T>()) +
            "; pass copy=None to let kleene copy it once");
    if (converted || (aligned && copy != copy_mode::always))
        return buffer<T>::borrow(data, n, keep_alive(a));
    buffer<T> b(n);
    py::gil_scoped_release release;
    if (n) std::memcpy(static_cast<void*>(b.data()), data, n * sizeof(T));
    return b;
}

// ---- errors and long calls ----------------------------------------------------------------------

/// One call names containers in host memory and in device memory: kleene.SpaceMismatch (a
/// kleene.InvalidArgument). Nothing is copied between the two unless the caller asks.
struct space_mismatch : invalid_argument {
    using invalid_argument::invalid_argument;
};

/// Registers kleene.Error and its subclasses on the module and the translator from kleene::error.
void register_errors(py::module_& m);

/// A step hook that polls for Ctrl-C: re-acquires the GIL, runs Python's signal handlers, and
/// throws py::error_already_set (KeyboardInterrupt) when one raised. Use while the GIL is released.
step_hook interrupt_hook();

/// Parses "auto" / "cpu" / "gpu".
device_choice parse_device(std::string_view d);

/// The explain trace as a Python str, or None.
inline py::object trace_or_none(explain_trace const* t) {
    if (!t) return py::none();
    return py::str(t->str());
}

// Entry points of the other translation units.
void bind_products(py::module_& m);
void bind_operations(py::module_& m);
void bind_algorithms(py::module_& m);
void bind_closure(py::module_& m);
void bind_device(py::module_& m);

}  // namespace kleene::python

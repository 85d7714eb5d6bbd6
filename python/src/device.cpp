// Device memory to and from CuPy / PyTorch: DeviceArray exposes a kleene device buffer through
// __cuda_array_interface__ (version 3) and DLPack (__dlpack__ / __dlpack_device__), keeping the
// kleene storage alive while the consumer holds it. Import (from_cuda, from_cupy_sparse) reads
// another library's __cuda_array_interface__, waits for the stream it names, and borrows the
// memory (a reference to the exporter keeps it alive) unless copy=True asks for a device copy.
// Everything here compiles without CUDA; the calls then raise kleene.NoDevice.

#include <cstring>

#include "device_arrays.hpp"

namespace kleene::python {

foreign_array read_interface(py::handle obj, char const* what) {
    if (!py::hasattr(obj, "__cuda_array_interface__"))
        throw invalid_argument(std::string(what) +
                               " has no __cuda_array_interface__ (a CuPy array or a "
                               "CUDA PyTorch tensor is needed)");
    py::dict d = obj.attr("__cuda_array_interface__");
    foreign_array f;
    py::tuple data = d["data"];
    f.data = reinterpret_cast<void const*>(data[0].cast<std::uintptr_t>());
    for (auto s : d["shape"].cast<py::tuple>()) f.shape.push_back(s.cast<std::size_t>());
    f.typestr = d["typestr"].cast<std::string>();
    std::size_t const item = std::stoul(f.typestr.substr(2));
    if (d.contains("strides") && !d["strides"].is_none()) {
        // Accept C-contiguous strides given explicitly.
        auto strides = d["strides"].cast<std::vector<std::size_t>>();
        std::size_t expect = item;
        for (std::size_t k = f.shape.size(); k-- > 0;) {
            if (f.shape[k] > 1 && strides[k] != expect)
                throw invalid_argument(std::string(what) +
                                       " is not C-contiguous: make a contiguous copy first");
            expect *= f.shape[k];
        }
    }
    if (d.contains("mask") && !d["mask"].is_none())
        throw invalid_argument(std::string(what) + ": masked arrays are not accepted");
    // Version 3: the exporter's work on the memory may still be queued on this stream.
    if (d.contains("stream") && !d["stream"].is_none())
        cuda::synchronize_foreign_stream(d["stream"].cast<std::uintptr_t>());
    f.owner = py::reinterpret_borrow<py::object>(obj);
    return f;
}


namespace {

// DLPack's C ABI (dlpack.h, version 0.8), declared here from its specification.
struct dl_device {
    std::int32_t device_type;  // 2: kDLCUDA
    std::int32_t device_id;
};
struct dl_tensor {
    void* data;
    dl_device device;
    std::int32_t ndim;
    dl_data_type dtype;
    std::int64_t* shape;
    std::int64_t* strides;
    std::uint64_t byte_offset;
};
struct dl_managed_tensor {
    dl_tensor dl;
    void* manager_ctx;
    void (*deleter)(dl_managed_tensor*);
};
constexpr std::int32_t dl_cuda = 2;

/// The interface's name of the calling thread's kleene stream: its cudaStream_t, or 1 (the
/// legacy default stream) for kleene's default.
std::uintptr_t current_stream_handle() {
    void* const s = kleene::default_context().stream();
    return s ? reinterpret_cast<std::uintptr_t>(s) : std::uintptr_t(1);
}

py::dict cuda_array_interface(device_array const& a) {
    py::dict d;
    py::tuple shape(a.shape.size());
    for (std::size_t k = 0; k < a.shape.size(); ++k) shape[k] = a.shape[k];
    d["shape"] = shape;
    d["typestr"] = a.typestr;
    d["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(a.data), true);  // read-only
    d["strides"] = py::none();                                                   // C-contiguous
    d["version"] = 3;
    // The stream kleene's calls on this thread enqueue on (the consumer waits for it, version
    // 3): a kleene.stream block's, or 1, the legacy default stream, kleene's own. Device calls may
    // return before their work is done (they are captured into CUDA graphs, so they do not wait).
    d["stream"] = current_stream_handle();
    return d;
}

struct dl_context {
    dl_managed_tensor t{};
    std::vector<std::int64_t> shape;
    std::shared_ptr<void const> owner;
};

py::capsule to_dlpack(device_array const& a) {
    auto* ctx = new dl_context;
    ctx->shape = a.shape;
    ctx->owner = a.owner;
    ctx->t.dl.data = const_cast<void*>(a.data);
    ctx->t.dl.device = {dl_cuda, 0};
    ctx->t.dl.ndim = static_cast<std::int32_t>(a.shape.size());
    ctx->t.dl.dtype = a.dtype;
    ctx->t.dl.shape = ctx->shape.data();
    ctx->t.dl.strides = nullptr;
    ctx->t.dl.byte_offset = 0;
    ctx->t.manager_ctx = ctx;
    ctx->t.deleter = [](dl_managed_tensor* t) { delete static_cast<dl_context*>(t->manager_ctx); };
    // A consumer renames the capsule "used_dltensor" and calls the deleter itself; an unused one
    // is freed here.
    PyObject* cap = PyCapsule_New(&ctx->t, "dltensor", [](PyObject* c) {
        if (PyCapsule_IsValid(c, "dltensor")) {
            auto* t = static_cast<dl_managed_tensor*>(PyCapsule_GetPointer(c, "dltensor"));
            t->deleter(t);
        }
    });
    if (!cap) {
        delete ctx;
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::capsule>(cap);
}

/// The device arrays of a device matrix: (indptr, indices, data) for CSR, (values,) for dense.
py::tuple device_arrays(matrix_handle const& m) {
    return m.visit([&](auto const& a) -> py::tuple {
        using M = std::decay_t<decltype(a)>;
        using T = typename M::value_type;
        if constexpr (is_device_dense<M>) {
            return py::make_tuple(device_array_of<T>(
                a.data(), {std::int64_t(a.rows()), std::int64_t(a.cols())}, m.s));
        } else if constexpr (is_device_csr<M>) {
            using I = typename M::index_type;
            auto const nnz = static_cast<std::int64_t>(a.nnz());
            py::object data;
            if (a.has_values() || nnz == 0) {
                data = py::cast(device_array_of<T>(a.values(), {nnz}, m.s));
            } else {  // iso: the values are made once on the device
                auto v = std::make_shared<buffer<T, device>>(
                    buffer<T>(a.nnz(), a.iso_value()).template copy_to<device>());
                data = py::cast(device_array_of<T>(v->data(), {nnz}, v));
            }
            return py::make_tuple(
                device_array_of<I>(a.row_ptr(), {std::int64_t(a.rows() + 1)}, m.s),
                device_array_of<I>(a.col_idx(), {nnz}, m.s), data);
        } else {
            throw invalid_argument(
                "the matrix is in host memory: call to_device() first (or use "
                "to_numpy() / to_scipy())");
        }
    });
}

matrix_handle from_cuda_dense(py::handle obj, std::string const& dtype, py::handle copy) {
    copy_mode const mode = parse_copy(copy);
    foreign_array f = read_interface(obj, "from_cuda");
    if (f.shape.size() != 2) throw invalid_argument("from_cuda: a two-dimensional array is needed");
    return dispatch_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        check_type<T>(f, "from_cuda");
        dense_matrix<T, device> d;
        d.adopt(f.shape[0], f.shape[1],
                import_device<T>(f, f.shape[0] * f.shape[1], mode, "from_cuda"));
        return matrix_handle::of(std::move(d));
    });
}

matrix_handle from_cuda_csr(std::size_t rows, std::size_t cols, py::handle indptr,
                            py::handle indices, py::handle data, std::string const& dtype,
                            std::string const& index, py::handle copy) {
    copy_mode const mode = parse_copy(copy);
    foreign_array p = read_interface(indptr, "indptr"), j = read_interface(indices, "indices"),
                  v = read_interface(data, "data");
    return dispatch_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        return dispatch_index(index, [&](auto i) {
            using I = decltype(i);
            check_type<I>(p, "indptr");
            check_type<I>(j, "indices");
            check_type<T>(v, "data");
            if (p.shape.size() != 1 || p.shape[0] != rows + 1)
                throw invalid_argument("from_cuda_csr: indptr must hold rows + 1 entries");
            std::size_t const nnz = j.shape.at(0);
            if (v.shape.at(0) != nnz)
                throw invalid_argument("from_cuda_csr: data and indices differ in length");
            auto bp = import_device<I>(p, rows + 1, mode, "indptr");
            auto bj = import_device<I>(j, nnz, mode, "indices");
            // The structure is checked on the host once (a malformed one would fault in a kernel).
            host_csr<bool, I>(rows, cols, bp.template copy_to<host>(), bj.template copy_to<host>(),
                              buffer<bool>{});
            return matrix_handle::of(device_csr<T, I>(rows, cols, std::move(bp), std::move(bj),
                                                      import_device<T>(v, nnz, mode, "data"),
                                                      T(1), true));
        });
    });
}

/// A one-dimensional device array as an n x 1 (or, `row`, 1 x n) dense device matrix: the
/// operations on device vectors run as on those (Python's vectors are n x 1 matrices).
matrix_handle device_column(py::handle u, std::string const& dtype, bool row) {
    return dispatch_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        dense_vector<T, device> v = device_vector_of<T>(u, "the vector");
        std::size_t const n = v.size();
        dense_matrix<T, device> d;
        d.adopt(row ? 1 : n, row ? n : 1, std::move(v.storage()));
        return matrix_handle::of(std::move(d));
    });
}

/// The entries of a device matrix with one row or column as a one-dimensional DeviceArray (a
/// view of dense storage; CSR is made dense with `absent` where it has no entry).
device_array device_vector(matrix_handle const& m, py::object absent) {
    return m.visit([&](auto const& a) -> device_array {
        using M = std::decay_t<decltype(a)>;
        using T = typename M::value_type;
        auto const n = static_cast<std::int64_t>(a.rows() * a.cols());
        if constexpr (is_device_dense<M>) {
            return device_array_of<T>(a.data(), {n}, m.s);
        } else if constexpr (is_device_csr<M> && !std::is_same_v<T, bool>) {
            auto d = std::make_shared<dense_matrix<T, device>>(
                kleene::to_dense(a, absent.is_none() ? T(0) : absent.cast<T>()));
            return device_array_of<T>(d->data(), {n}, d);
        } else {
            throw invalid_argument("a vector result must be a numeric device matrix");
        }
    });
}

}  // namespace

void bind_device(py::module_& m) {
    py::class_<device_array>(
        m, "DeviceArray",
        "A read-only view of kleene device memory for CuPy / PyTorch "
        "(__cuda_array_interface__, __dlpack__); it keeps the matrix's storage "
        "alive.")
        .def_property_readonly("__cuda_array_interface__", &cuda_array_interface)
        .def_property_readonly("shape",
                               [](device_array const& a) { return py::tuple(py::cast(a.shape)); })
        .def_property_readonly("typestr", [](device_array const& a) { return a.typestr; })
        .def(
            "__dlpack__",
            [](device_array const& a, py::object stream) {
                // DLPack: the memory must be ready for the consumer's stream (None: the legacy
                // default stream, 1; -1: the consumer asks for no synchronisation). Unless it is
                // the stream kleene's work went to, wait for that work.
                if (!stream.is_none() && !py::isinstance<py::int_>(stream))
                    throw invalid_argument(
                        "__dlpack__: stream must be an int or None, not " +
                        std::string(py::str(py::type::handle_of(stream).attr("__name__"))));
                std::uintptr_t const mine = current_stream_handle();
                std::intptr_t const theirs = stream.is_none() ? 1 : stream.cast<std::intptr_t>();
                if (theirs != -1 && theirs != static_cast<std::intptr_t>(mine)) {
                    py::gil_scoped_release release;
                    cuda::synchronize_foreign_stream(mine);
                }
                return to_dlpack(a);
            },
            py::arg("stream") = py::none())
        .def("__dlpack_device__", [](device_array const&) { return py::make_tuple(dl_cuda, 0); })
        .def(
            "to_numpy",
            [](device_array const& a) {
                py::array out(py::dtype::from_args(py::str(a.typestr)), a.shape);
                detail::copy_bytes<host, device>(out.mutable_data(), a.data,
                                                 static_cast<std::size_t>(out.nbytes()));
                return out;
            },
            "A NumPy copy in host memory.");
    m.def("_device_arrays", &device_arrays);
    m.def(
        "_vector_to_device",
        [](py::handle u, std::string const& dtype) {
            return dispatch_dtype(dtype, [&](auto t) {
                using T = decltype(t);
                auto a = as_array<T>(u);
                if (a.ndim() != 1)
                    throw invalid_argument("to_device: a one-dimensional array is needed");
                buffer<T> h(static_cast<std::size_t>(a.size()));
                if (a.size())
                    std::memcpy(static_cast<void*>(h.data()), a.data(),
                                static_cast<std::size_t>(a.size()) * sizeof(T));
                dense_vector<T, device> v;
                v.storage() = h.template copy_to<device>();
                return adopt_device_vector(std::move(v));
            });
        },
        py::arg("u"), py::arg("dtype"));
    m.def("_device_column", &device_column, py::arg("u"), py::arg("dtype"), py::arg("row"));
    m.def("_device_vector", &device_vector, py::arg("m"), py::arg("absent"));
    m.def("_from_cuda_dense", &from_cuda_dense, py::arg("obj"), py::arg("dtype"),
          py::arg("copy") = py::none());
    m.def("_from_cuda_csr", &from_cuda_csr, py::arg("rows"), py::arg("cols"), py::arg("indptr"),
          py::arg("indices"), py::arg("data"), py::arg("dtype"), py::arg("index"),
          py::arg("copy") = py::none());
}

}  // namespace kleene::python

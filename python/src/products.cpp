// Binds mxm, mxv and vxm: the value type of A picks products<T> (products_<type>.cpp) for host
// matrices, device_products<T> (products_device_<type>.cpp) for device ones. All operands of one
// call live in one memory space: a mix is refused (kleene.SpaceMismatch), never copied.

#include "products.hpp"

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

/// Refuses `what` when it lives in the other memory space than A.
void same_space(char const* op, bool a_device, bool device, char const* what) {
    if (device == a_device) return;
    throw space_mismatch(std::string(op) + ": A is in " + space(a_device) + " memory but " + what +
                         " is in " + space(device) + " memory; move one with " +
                         (a_device ? "to_device()" : "to_host()") + " or " +
                         (a_device ? "to_host()" : "to_device()") +
                         " first (kleene does not copy between host and device behind your back)");
}

}  // namespace

// Bool products on the device: lib/cuda builds its write-back, masks and conversions for the
// numeric types only.
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
        [](matrix_handle const& a, matrix_handle const& b, std::string semiring,
           std::optional<matrix_handle> out, std::optional<matrix_handle> mask, bool structural,
           bool complemented, std::string accum, bool replace, std::string kernel, bool explain) {
            product_args args{
                std::move(semiring), std::move(out), std::move(mask),   structural, complemented,
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
        return [pull](matrix_handle const& a, py::object u, std::string semiring, py::object out,
                      py::object mask, bool complemented, std::string accum, bool replace,
                      std::string kernel, bool explain) {
            vector_args args{std::move(semiring), std::move(out), std::move(mask),   complemented,
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

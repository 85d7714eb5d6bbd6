// Binds mxm, mxv and vxm: the value type of A picks products<T> (products_<type>.cpp).

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

}  // namespace

void bind_products(py::module_& m) {
    m.def(
        "_mxm",
        [](matrix_handle const& a, matrix_handle const& b, std::string semiring,
           std::optional<matrix_handle> out, std::optional<matrix_handle> mask, bool structural,
           bool complemented, std::string accum, bool replace, std::string kernel, bool explain) {
            product_args args{
                std::move(semiring), std::move(out), std::move(mask),   structural, complemented,
                std::move(accum),    replace,        std::move(kernel), explain};
            return dispatch_dtype(value_dtype(a),
                                  [&](auto t) { return products<decltype(t)>::mxm(a, b, args); });
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
            return dispatch_dtype(value_dtype(a), [&](auto t) {
                using T = decltype(t);
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

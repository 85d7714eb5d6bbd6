#pragma once
// mxm / mxv / vxm for one value type T. Each products_<type>.cpp instantiates products<T> (one
// translation unit per type, so that the semiring instantiations build in parallel).
//
// Instantiated combinations, to keep the module's build time bounded (each semiring costs about a
// CPU-minute to compile): the semirings of the instance registry's host set (kleene/instances.hpp;
// KLEENE_INSTANCES=minimal builds few), CSR x CSR products on int32 indices (int64-indexed operands
// are narrowed when their offsets fit, else InvalidArgument; the result has int32 indices), masks
// as Boolean CSR (structural or valued, complemented or not), the accumulator either none or the
// semiring's own add (fused by kleene::mxm); any other accumulator runs as kleene's mxm into a
// temporary and an ewise_add of C and it under the same mask, which is GraphBLAS's definition of
// C<M, replace> accum= T. Dense x dense without mask or accumulator is the dense GEMM; a dense
// operand of a masked or accumulated product becomes CSR (entries equal to the semiring's zero are
// absent, as in dense storage). Vectors are dense NumPy arrays.

#include <kleene/instances.hpp>
#include <optional>
#include <string>

#include "kleene_py.hpp"

namespace kleene::python {

struct product_args {
    std::string semiring;
    std::optional<matrix_handle> out;
    std::optional<matrix_handle> mask;
    bool structural = false;
    bool complemented = false;
    std::string accum;  // "" for none
    bool replace = false;
    std::string kernel = "auto";
    bool explain = false;
};

struct vector_args {
    std::string semiring;
    py::object out;   // None or a 1-D array (the existing w)
    py::object mask;  // None or a 1-D array (valued)
    bool complemented = false;
    std::string accum;
    bool replace = false;
    std::string kernel = "auto";
    bool explain = false;
};

template <class T>
struct products {
    static py::tuple mxm(matrix_handle const& a, matrix_handle const& b, product_args const& args);
    static py::tuple mxv(matrix_handle const& a, py::handle u, vector_args const& args);
    static py::tuple vxm(py::handle u, matrix_handle const& a, vector_args const& args);
};

/// The same products on device matrices (products_device_impl.hpp): float32, float64, int32 and
/// int64 values; vectors are device arrays (__cuda_array_interface__) and the result one too.
template <class T>
struct device_products {
    static py::tuple mxm(matrix_handle const& a, matrix_handle const& b, product_args const& args);
    static py::tuple mxv(matrix_handle const& a, py::handle u, vector_args const& args);
    static py::tuple vxm(py::handle u, matrix_handle const& a, vector_args const& args);
};

kernel_choice parse_kernel(std::string_view k);

/// Calls f(S{}) for the semiring named `name` over T ("min_plus", ...): the pairs of the instance
/// registry this build dispatches to (kleene/instances.hpp); a pair it leaves out
/// (KLEENE_INSTANCES=minimal) raises kleene::missing_instance.
template <class T, class F>
void dispatch_semiring(std::string_view name, F&& f) {
    switch (instances::visit_semiring<T>(name, f)) {
        case instances::lookup::found:
            return;
        case instances::lookup::not_built:
            instances::throw_not_built(name, dtype_name<T>(), "the Python module");
        case instances::lookup::not_offered:
            throw invalid_argument("semiring " + std::string(name) + " is not offered over " +
                                   dtype_name<T>() + " (" + instances::semirings_over<T>(false) +
                                   ")");
        case instances::lookup::unknown_semiring:
            break;
    }
    throw invalid_argument("unknown semiring " + std::string(name));
}

/// The name of S's add operator ("plus", "min", "max", "lor", "any").
template <class S>
std::string add_name() {
    using T = typename S::value_type;
    using op = typename S::add_monoid::op_type;
    if constexpr (std::is_same_v<op, plus_op<T>>)
        return "plus";
    else if constexpr (std::is_same_v<op, min_op<T>>)
        return "min";
    else if constexpr (std::is_same_v<op, max_op<T>>)
        return "max";
    else if constexpr (std::is_same_v<op, lor_op<T>>)
        return "lor";
    else
        return "any";
}

/// Calls f(Op{}) for an accumulator name other than the semiring's add.
template <class T, class F>
void dispatch_accum(std::string_view name, F&& f) {
    if (name == "plus") return f(plus_op<T>{});
    if (name == "times") return f(times_op<T>{});
    if (name == "min") return f(min_op<T>{});
    if (name == "max") return f(max_op<T>{});
    if (name == "first") return f(first_op<T>{});
    if (name == "second") return f(second_op<T>{});
    if constexpr (std::is_same_v<T, bool>) {
        if (name == "lor") return f(lor_op<T>{});
        if (name == "land") return f(land_op<T>{});
    }
    throw invalid_argument("accumulator " + std::string(name) +
                           " is not offered over this type (plus, times, min, max, first, second; "
                           "lor, land over bool)");
}

}  // namespace kleene::python

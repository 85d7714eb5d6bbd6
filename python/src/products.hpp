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

#include <kleene/cuda/jit.hpp>
#include <kleene/instances.hpp>
#include <kleene/runtime_semiring.hpp>
#include <optional>
#include <string>

#include "kleene_py.hpp"

namespace kleene::python {

/// The semiring of a product, as python/kleene/semiring.py hands it over: a built-in by name
/// ("min_plus": the compiled instances), a composition of operator names that is no built-in (or
/// is forced off them, bench/python): runtime_semiring on the CPU, jit::compose on the GPU), or
/// CUDA source text (the JIT only).
struct semiring_spec {
    std::string name;      // the built-in's name, else "max.first" / the source's name (messages)
    std::string add, mul;  // a composition's operators
    bool composed = false;
    std::optional<cuda::jit::semiring_source> source;
    py::object zero;  // a source semiring's zero as a number: absent entries on the host side
};

/// The spec from Python: a name, ("compose", add, mul) or ("source", name, value_type, zero, one,
/// add, mul, terminal, idempotent_add, zero_annihilates, preamble, zero_value).
semiring_spec parse_semiring_spec(py::handle h);

struct product_args {
    semiring_spec semiring;
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
    semiring_spec semiring;
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

/// A built-in semiring that this build left out over T (KLEENE_INSTANCES=minimal: lookup::not_built
/// in the translation unit asking) as the composition of its operators, which the generic host
/// semiring (runtime_semiring) and the device JIT run instead; nothing for any other spec.
template <class T>
std::optional<semiring_spec> unbuilt_as_composition(semiring_spec const& spec) {
    if constexpr (std::is_same_v<T, bool>) {
        return std::nullopt;  // compositions run over the four numeric types
    } else {
        if (spec.composed || spec.source ||
            instances::visit_semiring<T>(spec.name, [](auto) {}) != instances::lookup::not_built)
            return std::nullopt;
        for (auto const& s : instances::semirings) {
            if (s.name != spec.name || !parse_add_kind(s.add) || !parse_mul_kind(s.multiply))
                continue;
            semiring_spec c = spec;
            c.add = std::string(s.add);
            c.mul = std::string(s.multiply);
            c.composed = true;
            return c;
        }
        return std::nullopt;
    }
}

/// Calls f(s) with the host semiring of spec over T: a built-in's compiled instance
/// (dispatch_semiring) or, for a composition, runtime_semiring<T> (one instance per value type,
/// products_<type>.cpp). Source text is refused: it runs on the GPU only.
template <class T, class F>
void dispatch_host_semiring(semiring_spec const& spec, F&& f) {
    if (spec.source)
        throw invalid_argument("semiring " + spec.name +
                               " is CUDA source text, which runs on the GPU only (device matrices, "
                               "through the JIT); on the host compose one from operator names: "
                               "kleene.Semiring(add=..., multiply=...)");
    if (auto const c = unbuilt_as_composition<T>(spec)) return dispatch_host_semiring<T>(*c, f);
    if (!spec.composed) return dispatch_semiring<T>(spec.name, f);
    if constexpr (std::is_same_v<T, bool>) {
        throw invalid_argument("semiring " + spec.name +
                               ": over bool only the built-ins run (lor.land, any.pair); "
                               "compositions run over float32, float64, int32 and int64");
    } else {
        auto const add = parse_add_kind(spec.add);
        auto const mul = parse_mul_kind(spec.mul);
        if (!add || !mul) throw invalid_argument("semiring " + spec.name + ": unknown operator");
        f(runtime_semiring<T>(*add, *mul));
    }
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

/// The name of s's add operator, for a semiring object (a run-time one answers itself).
template <class S>
std::string add_name(S const& s) {
    if constexpr (requires { s.add_operator(); })
        return std::string(add_kind_names[static_cast<std::size_t>(s.add_operator())]);
    else
        return add_name<S>();
}

/// Calls f(Op{}) with s's add operator (the accumulator "the semiring's add").
template <class S, class F>
void with_add_op(S const& s, F&& f) {
    using T = typename S::value_type;
    if constexpr (requires { typename S::add_monoid::op_type; }) {
        f(typename S::add_monoid::op_type{});
    } else {
        switch (s.add_operator()) {
            case add_kind::plus: return f(plus_op<T>{});
            case add_kind::times: return f(times_op<T>{});
            case add_kind::min: return f(min_op<T>{});
            case add_kind::max: return f(max_op<T>{});
            case add_kind::lor: return f(lor_op<T>{});
            case add_kind::land: return f(land_op<T>{});
            case add_kind::any: return f(any_op<T>{});
        }
    }
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

// kleene.closure(A, semiring=...): the closure over any semiring (semiring_closure.hpp), as a
// dense result. The CPU runs every semiring named by its operators (a built-in or a composition)
// as kleene::runtime_semiring<T>: one instance per value type, whatever the semiring; the GPU
// runs the JIT's closure (jit::builtin, jit::compose or the user's source text). Host input
// gives a NumPy array (computed on the CPU, or on the GPU with device="gpu"); device input a
// dense device matrix. Absent entries of CSR input are the semiring's zero. The GIL is released
// while it computes; the CPU closure polls for Ctrl-C between its steps.

#include <kleene/algorithms/semiring_closure.hpp>
#include <kleene/convert.hpp>
#include <kleene/instances.hpp>
#include <kleene/runtime_semiring.hpp>

#include "kleene_py.hpp"
#include "products.hpp"

namespace kleene::python {

namespace {

/// The additive monoid's and the multiply's names of a semiring that is no source text (a
/// built-in's from the instance registry).
std::pair<std::string, std::string> operators_of(semiring_spec const& spec) {
    if (spec.composed) return {spec.add, spec.mul};
    for (auto const& s : instances::semirings)
        if (s.name == spec.name) return {std::string(s.add), std::string(s.multiply)};
    throw invalid_argument("unknown semiring " + spec.name);
}

template <class T>
runtime_semiring<T> host_semiring(semiring_spec const& spec) {
    if (spec.source)
        throw invalid_argument("closure: semiring " + spec.name +
                               " is CUDA source text, which runs on the GPU only (a device "
                               "matrix, or device=\"gpu\"); on the host compose one from "
                               "operator names: kleene.Semiring(add=..., multiply=...)");
    auto const [add, mul] = operators_of(spec);
    auto const a = parse_add_kind(add);
    auto const m = parse_mul_kind(mul);
    if (!a || !m) throw invalid_argument("closure: semiring " + spec.name + ": unknown operator");
    return runtime_semiring<T>(*a, *m);
}

template <class T>
constexpr char const* jit_type() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, i32>) return "int32_t";
    else return "int64_t";
}

/// The JIT's semiring for spec over T, and its zero (the value of absent entries).
template <class T>
std::pair<cuda::jit::semiring_source, T> device_semiring(semiring_spec const& spec) {
    if (spec.source) {
        cuda::jit::semiring_source const& src = *spec.source;
        std::string t = src.value_type;
        if (t.starts_with("std::")) t = t.substr(5);
        if (t != jit_type<T>())
            throw invalid_argument("closure: semiring " + spec.name + " is over " +
                                   src.value_type + " but the matrix is " + dtype_name<T>());
        return {src, spec.zero.cast<T>()};
    }
    T const zero = host_semiring<T>(spec).zero();
    if (spec.composed) return {cuda::jit::compose(spec.add, spec.mul, jit_type<T>()), zero};
    return {cuda::jit::builtin(spec.name, jit_type<T>()), zero};
}

/// A's entries as a dense host matrix, absent entries `zero`.
template <class M, class T>
dense_matrix<T> host_dense(M const& a, T zero) {
    if constexpr (is_host_csr<M>) {
        return to_dense(a, zero);
    } else {
        dense_matrix<T> d(a.rows(), a.cols());
        std::copy(a.data(), a.data() + a.rows() * a.cols(), d.data());
        return d;
    }
}

py::tuple semiring_closure_py(matrix_handle const& m, py::handle semiring, bool reflexive,
                              std::string const& device_name, bool explain) {
    semiring_spec const spec = parse_semiring_spec(semiring);
    device_choice const where = parse_device(device_name);
    explain_trace trace;
    semiring_closure_options opt;
    opt.reflexive = reflexive;
    if (explain) opt.explain = &trace;
    return m.visit([&](auto const& a) -> py::tuple {
        using M = std::decay_t<decltype(a)>;
        using T = typename M::value_type;
        if constexpr (std::is_same_v<T, bool>) {
            throw invalid_argument("closure: semiring " + spec.name +
                                   " over bool: only lor.land runs over bool (the Boolean "
                                   "closure); convert the values with astype() for the others "
                                   "(float32, float64, int32, int64)");
        } else {
            constexpr bool on_device = is_device_csr<M> || is_device_dense<M>;
            if (a.rows() != a.cols())
                throw dimension_mismatch("closure: the matrix must be square, not " +
                                         detail::shape(a.rows(), a.cols()));
            if constexpr (on_device) {
                if (where == device_choice::cpu)
                    throw space_mismatch(
                        "closure: the matrix is in device memory but device=\"cpu\"; call "
                        "to_host() first, or leave device=\"auto\"");
                auto const [src, zero] = device_semiring<T>(spec);
                dense_matrix<T, device> d;
                {
                    py::gil_scoped_release release;
                    if constexpr (is_device_csr<M>) {
                        d = kleene::to_dense(a, zero);
                    } else {
                        d.adopt(a.rows(), a.cols(), a.storage().template copy_to<device>());
                    }
                    semiring_closure(d.view(), src, opt);
                }
                return py::make_tuple(matrix_handle::of(std::move(d)),
                                      trace_or_none(explain ? &trace : nullptr));
            } else if (where == device_choice::gpu) {
                auto const [src, zero] = device_semiring<T>(spec);
                dense_matrix<T> h = host_dense(a, zero);
                // The CPU closure's check of sums past T's range, while the input is on the host
                // (the device closure has none: its multiply may be anyone's source text).
                if (!spec.source)
                    kleene::detail::closure_refuse_overflow<T>(h.view(), zero,
                                                               operators_of(spec).second == "plus");
                {
                    py::gil_scoped_release release;
                    auto d = h.to_device();
                    semiring_closure(d.view(), src, opt);
                    h = d.to_host();
                }
                return py::make_tuple(adopt_dense(std::move(h)),
                                      trace_or_none(explain ? &trace : nullptr));
            } else {
                runtime_semiring<T> const s = host_semiring<T>(spec);
                dense_matrix<T> h = host_dense(a, s.zero());
                opt.on_step = interrupt_hook();
                {
                    py::gil_scoped_release release;
                    semiring_closure(h.view(), s, opt);
                }
                return py::make_tuple(adopt_dense(std::move(h)),
                                      trace_or_none(explain ? &trace : nullptr));
            }
        }
    });
}

}  // namespace

void bind_closure(py::module_& m) {
    m.def("_semiring_closure", &semiring_closure_py, py::arg("a"), py::arg("semiring"),
          py::arg("reflexive"), py::arg("device"), py::arg("explain"));
}

}  // namespace kleene::python

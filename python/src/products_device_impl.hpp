#pragma once
// The bodies of device_products<T> (products.hpp): mxm / mxv / vxm on device matrices through
// kleene's device overloads (lib/ops/include/kleene/mxm.hpp), included by one
// products_device_<type>.cpp per value type. Without the CUDA backend nothing here is
// instantiated: a device matrix cannot exist then, and the calls raise kleene.NoDevice.
//
// What is bound, to keep the module's build time bounded (docs/python.md, "Products on the GPU"):
// - values float32, float64, int32, int64 (the types lib/backend/cuda builds its operations for);
//   device CSR operands, outputs and masks with int32 indices; masks of bool or the product's type;
// - every semiring with dense operands (A dense: the semiring GEMM, lib/backend/cuda's twelve
//   numeric instances); with a CSR A (SpMM, SpGEMM, SpMV) those of KLEENE_SPARSE_INSTANCES;
// - mxm: A B straight into C (no mask; no accumulator or the semiring's add); otherwise the
//   product goes into a temporary of its natural storage (CSR for CSR x CSR, else dense) and
//   kleene::apply(identity) writes it back into C under the mask, with the accumulator and
//   replace: the same two steps kleene::mxm takes on the device, with the write-back built once
//   per value type instead of once per semiring. A CSR C accumulates with plus, times, min, max,
//   first or second, a dense C with plus or min (or, unmasked, the semiring's add):
//   lib/backend/cuda's write-back instances;
// - mxv / vxm: dense device vectors (u, out and a bool mask), the semiring's add as the only
//   accumulator, as on the host.

#include <kleene/config.hpp>

#include <algorithm>

#include <kleene/instance_lists.hpp>

#include "device_arrays.hpp"
#include "products.hpp"

namespace kleene::python {

namespace device_detail {

template <class T>
using dcsr = device_csr<T, i32>;
template <class T>
using ddense = dense_matrix<T, device>;

/// The semirings lib/backend/cuda builds its sparse kernels for, read from its instance list
/// (KLEENE_SPARSE_INSTANCES of kleene/instance_lists.hpp), and their names for messages.
#define KLEENE_PY_IS_SPARSE_SEMIRING(S, U, ...) || std::is_same_v<Sr, S<U>>
template <class Sr>
inline constexpr bool sparse_kernels = false KLEENE_SPARSE_INSTANCES(KLEENE_PY_IS_SPARSE_SEMIRING);
#undef KLEENE_PY_IS_SPARSE_SEMIRING

inline std::string dotted(std::string name) {
    std::replace(name.begin(), name.end(), '_', '.');
    return name;
}

/// "plus.times, min.plus, ...": the sparse kernels' semirings over T (int32 indices).
template <class T>
std::string sparse_semiring_names() {
    std::string names;
#define KLEENE_PY_SPARSE_SEMIRING_NAME(S, U, I, sname, ...)                \
    if constexpr (std::is_same_v<U, T> && std::is_same_v<I, std::int32_t>) \
        names += (names.empty() ? "" : ", ") + dotted(sname);
    KLEENE_SPARSE_INSTANCES(KLEENE_PY_SPARSE_SEMIRING_NAME)
#undef KLEENE_PY_SPARSE_SEMIRING_NAME
    return names;
}

/// vxm with a CSR A and a dense u runs A' u, which is u A only where the multiply commutes.
template <class S, class T = typename S::value_type>
inline constexpr bool commutative_mul = !std::is_same_v<typename S::mul_op, first_op<T>> &&
                                        !std::is_same_v<typename S::mul_op, second_op<T>>;

/// Calls f(m) with h's storage as a device CSR<T, int32> or dense<T>; other storage is refused
/// with what to do about it.
template <class T, class F>
void with_operand(matrix_handle const& h, char const* what, F&& f) {
    if (auto const* c = std::get_if<dcsr<T>>(h.s.get())) return f(*c);
    if (auto const* d = std::get_if<ddense<T>>(h.s.get())) return f(*d);
    h.visit([&](auto const& m) {
        using M = std::decay_t<decltype(m)>;
        using U = typename M::value_type;
        if constexpr (!is_device_csr<M> && !is_device_dense<M>)
            throw space_mismatch(std::string(what) + " is in host memory");  // checked before
        else if constexpr (!std::is_same_v<U, T>)
            throw invalid_argument(std::string(what) + " is " + dtype_name<U>() +
                                   " but the product is over " + dtype_name<T>() +
                                   ": convert it on the host with astype(\"" + dtype_name<T>() +
                                   "\") before to_device()");
        else
            throw invalid_argument(std::string(what) +
                                   " has int64 indices; products on the GPU take CSR matrices "
                                   "with int32 indices: build it with index=\"int32\" before "
                                   "to_device()");
    });
}

/// Calls f(view) with the mask of args as the output kind C takes it on the device (a device CSR
/// mask for a CSR C, a dense one for a dense C; values bool or C's type), or f(no_mask).
template <class C, class F>
void with_mask(product_args const& args, F&& f) {
    using T = typename C::value_type;
    if (!args.mask) return f(no_mask);
    auto const& h = *args.mask;
    auto view = [&](auto const* m) {
        using M = std::remove_cvref_t<decltype(*m)>;
        return f(mask_view<M>{m, args.structural, args.complemented});
    };
    if constexpr (is_device_csr<C>) {
        if (auto const* m = std::get_if<dcsr<bool>>(h.s.get())) return view(m);
        if (auto const* m = std::get_if<dcsr<T>>(h.s.get())) return view(m);
        throw invalid_argument(std::string("mask: a CSR output on the GPU takes a device CSR mask "
                                           "with int32 indices and bool or ") +
                               dtype_name<T>() + " values");
    } else {
        if (auto const* m = std::get_if<ddense<bool>>(h.s.get())) return view(m);
        if (auto const* m = std::get_if<ddense<T>>(h.s.get())) return view(m);
        throw invalid_argument(std::string("mask: a dense output on the GPU takes a dense device "
                                           "mask with bool or ") +
                               dtype_name<T>() + " values");
    }
}

/// C<mask, replace> accum= t on the device, t's entries equal to `zero` being no entry when t is
/// dense: t is first brought to C's storage (to_csr / to_dense on the device). `what` names the
/// operation in messages (the other operations write back through this too, operations.hpp).
template <class T, class C, class Tmp>
void write_back(C& c, Tmp&& t, T zero, product_args const& args, std::string const& accum,
                options const& opt, char const* what = "mxm") {
    if constexpr (is_device_csr<C> && is_device_dense<std::decay_t<Tmp>>) {
        write_back<T>(c, kleene::to_csr<T, i32>(t, zero, opt.ctx), zero, args, accum, opt, what);
    } else if constexpr (is_device_dense<C> && is_device_csr<std::decay_t<Tmp>>) {
        write_back<T>(c, kleene::to_dense(t, zero, opt.ctx), zero, args, accum, opt, what);
    } else {
        options o;
        o.replace = opt.replace;
        o.ctx = opt.ctx;
        auto run = [&](auto const& mask, auto acc) {
            using A = decltype(acc);
            if constexpr (is_device_csr<C>) {
                kleene::apply(c, mask, acc, identity_op<T>{}, t, o);
            } else if constexpr (detail::gpu_dense_accum<A, T>) {
                kleene::apply(c, mask, acc, with_absent(identity_op<T>{}, zero), t, o);
            } else {
                throw invalid_argument(std::string(what) +
                                       " on the GPU: a dense output accumulates with plus or min "
                                       "under a mask or with another operator (lib/backend/cuda's "
                                       "write-back), not " +
                                       accum + "; use a CSR output");
            }
        };
        with_mask<C>(args, [&](auto const& mask) {
            if (accum.empty()) return run(mask, no_accum);
            dispatch_accum<T>(accum, [&](auto op) { run(mask, op); });
        });
    }
}

/// C = A (+).(x) B for the operands a and b (device CSR or dense), into `out` (its storage, kept
/// as it is) or a new matrix of the product's natural storage.
template <class T, class S, class A, class B>
matrix_handle mxm(S s, A const& a, B const& b, product_args const& args, options const& opt) {
    using add_op = typename S::add_monoid::op_type;
    constexpr bool both_csr = is_device_csr<A> && is_device_csr<B>;
    using natural = std::conditional_t<both_csr, dcsr<T>, ddense<T>>;
    T const zero = S::zero();
    bool const add_accum = !args.accum.empty() && args.accum == add_name<S>();
    bool const fused = !args.mask && (args.accum.empty() || add_accum);
    std::optional<matrix_handle> result;
    auto into = [&](auto& c) {
        using C = std::decay_t<decltype(c)>;
        if (fused) {
            py::gil_scoped_release release;
            if (args.accum.empty()) {
                kleene::mxm(c, no_mask, no_accum, a, b, s, opt);
            } else if constexpr (is_device_dense<C> || detail::gpu_csr_accum<add_op, T>) {
                kleene::mxm(c, no_mask, add_op{}, a, b, s, opt);
            } else {
                throw invalid_argument("mxm on the GPU: a CSR output accumulates with plus, times, "
                                       "min, max, first or second, not " + args.accum);
            }
        } else {
            options inner = opt;
            inner.replace = false;
            std::string const op = add_accum ? add_name<S>() : args.accum;
            py::gil_scoped_release release;
            natural t(a.rows(), b.cols());
            kleene::mxm(t, no_mask, no_accum, a, b, s, inner);
            write_back<T>(c, std::move(t), zero, args, op, opt);
        }
        result = matrix_handle::of(std::move(c));
    };
    if (args.out) {
        // The output's storage is immutable (NumPy views may share it): C starts as a copy.
        auto const& h = *args.out;
        if (auto const* c = std::get_if<dcsr<T>>(h.s.get())) {
            dcsr<T> copy = *c;
            into(copy);
        } else if (auto const* d = std::get_if<ddense<T>>(h.s.get())) {
            ddense<T> copy = *d;
            into(copy);
        } else {
            with_operand<T>(h, "out", [](auto const&) {});
        }
    } else if constexpr (both_csr) {
        dcsr<T> c(a.rows(), b.cols());
        into(c);
    } else {
        // Written whole by a plain product; a masked one keeps the empty C's absent entries.
        ddense<T> c = fused ? ddense<T>(a.rows(), b.cols())
                            : dense_matrix<T>(a.rows(), b.cols(), zero).to_device();
        into(c);
    }
    return *result;
}

/// w<mask, replace> accum= A (+).(x) u (Pull) or u (+).(x) A on the device.
template <class T, bool Pull, class S, class M>
dense_vector<T, device> vector_product(S s, M const& a, dense_vector<T, device> const& u,
                                       std::optional<dense_vector<T, device>> w0,
                                       std::optional<dense_vector<bool, device>> const& mask,
                                       vector_args const& args, options const& opt) {
    using add_op = typename S::add_monoid::op_type;
    std::size_t const out_size = Pull ? a.rows() : a.cols();
    dense_vector<T, device> w;
    if (w0)
        w = std::move(*w0);
    else
        w.storage() = buffer<T>(out_size, S::zero()).template copy_to<device>();
    auto call = [&](auto const& m, auto acc) {
        py::gil_scoped_release release;
        if constexpr (Pull)
            kleene::mxv(w, m, acc, a, u, s, opt);
        else
            kleene::vxm(w, m, acc, u, a, s, opt);
    };
    auto with_accum = [&](auto const& m) {
        constexpr bool masked = !std::is_same_v<std::decay_t<decltype(m)>, no_mask_t>;
        if (args.accum.empty()) return call(m, no_accum);
        // A dense A writes a masked product back through lib/backend/cuda's dense write-back (plus,
        // min).
        if constexpr (masked && is_device_dense<M> && !detail::gpu_dense_accum<add_op, T>)
            throw invalid_argument(std::string(Pull ? "mxv" : "vxm") +
                                   " on the GPU: a dense A with a mask accumulates with plus or "
                                   "min only, not " + args.accum);
        else
            return call(m, add_op{});
    };
    if (mask)
        with_accum(mask_view<dense_vector<bool, device>>{&*mask, false, args.complemented});
    else
        with_accum(no_mask);
    return w;
}

// ---- user semirings through the JIT (kleene/cuda/jit.hpp) ----------------------------------------
//
// A composition that is no built-in (jit::compose) or source text (jit::semiring_source) runs the
// JIT's families: SpGEMM into CSR (CSR x CSR), the dense GEMM (dense x dense; one column or row for
// mxv / vxm with a dense A) and SpMV (mxv with a CSR A; vxm as A' u with the multiply's operands
// swapped). The product goes into a temporary that write_back (above) merges into C under the
// mask, with the accumulator and replace, as for the built-ins. SpMM (CSR x dense), dense x CSR
// and SpMSpV have no JIT version yet: they are refused, saying so.

template <class T>
char const* jit_type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "int32_t";
    else return "int64_t";
}

/// The JIT's semiring for spec over T, its zero (no entry on the host side) and whether it is
/// T's: `swap` exchanges the multiply's operands (vxm as A' u).
template <class T>
std::pair<cuda::jit::semiring_source, T> jit_semiring(semiring_spec const& spec, bool swap) {
    if (!spec.source) {
        auto const add = *parse_add_kind(spec.add);
        std::string mul = spec.mul;
        if (swap && mul == "first") mul = "second";
        else if (swap && mul == "second") mul = "first";
        return {cuda::jit::compose(spec.add, mul, jit_type_name<T>()),
                runtime_semiring<T>(add, *parse_mul_kind(spec.mul)).zero()};
    }
    cuda::jit::semiring_source src = *spec.source;
    auto const canonical = [](std::string t) {
        if (t.starts_with("std::")) t = t.substr(5);
        return t;
    };
    if (canonical(src.value_type) != jit_type_name<T>())
        throw invalid_argument("semiring " + spec.name + " is over " + src.value_type +
                               " but the operands are " + dtype_name<T>() + " (" +
                               jit_type_name<T>() + ")");
    if (swap) {
        // u A = A' u with mul(a, b) read as mul(b, a): the user's expression becomes a function.
        src.preamble += "\n__host__ __device__ constexpr value_type kleene_user_mul(value_type a, "
                        "value_type b) { return value_type(" +
                        src.mul + "); }\n";
        src.mul = "kleene_user_mul(b, a)";
        src.name += "_swapped";
    }
    return {std::move(src), spec.zero.cast<T>()};
}

[[noreturn]] inline void no_jit_family(char const* op, std::string const& what) {
    throw invalid_argument(std::string(op) + " on the GPU with a user semiring: " + what +
                           " has no JIT-compiled kernel yet (the JIT builds SpGEMM for CSR x CSR, "
                           "the dense GEMM for dense x dense and SpMV for a CSR A); convert the "
                           "operands to one storage on the host first");
}

template <class T>
matrix_handle jit_mxm(matrix_handle const& ah, matrix_handle const& bh, product_args const& args,
                      options const& opt) {
    auto const semiring = jit_semiring<T>(args.semiring, false);
    auto const& src = semiring.first;
    T const zero = semiring.second;
    context& ctx = resolve(opt.ctx);
    bool const add_accum = !args.accum.empty() && args.accum == args.semiring.add;
    std::optional<matrix_handle> result;
    auto finish = [&](auto&& t) {
        using Tmp = std::decay_t<decltype(t)>;
        if (!args.out && !args.mask && args.accum.empty()) {
            result = matrix_handle::of(std::move(t));
            return;
        }
        std::string const accum = add_accum ? args.semiring.add : args.accum;
        auto into = [&](auto& c) {
            py::gil_scoped_release release;
            write_back<T>(c, std::move(t), zero, args, accum, opt);
        };
        if (args.out) {
            auto const& h = *args.out;
            if (auto const* c = std::get_if<dcsr<T>>(h.s.get())) {
                dcsr<T> copy = *c;
                into(copy);
                result = matrix_handle::of(std::move(copy));
            } else if (auto const* d = std::get_if<ddense<T>>(h.s.get())) {
                ddense<T> copy = *d;
                into(copy);
                result = matrix_handle::of(std::move(copy));
            } else {
                with_operand<T>(h, "out", [](auto const&) {});
            }
        } else if constexpr (is_device_csr<Tmp>) {
            dcsr<T> c(t.rows(), t.cols());
            into(c);
            result = matrix_handle::of(std::move(c));
        } else {
            ddense<T> c = dense_matrix<T>(t.rows(), t.cols(), zero).to_device();
            into(c);
            result = matrix_handle::of(std::move(c));
        }
    };
    with_operand<T>(ah, "A", [&](auto const& a) {
        with_operand<T>(bh, "B", [&](auto const& b) {
            using A = std::decay_t<decltype(a)>;
            using B = std::decay_t<decltype(b)>;
            if (a.cols() != b.rows())
                throw dimension_mismatch("mxm: cannot multiply A (" + detail::shape(a.rows(), a.cols()) +
                                         ") by B (" + detail::shape(b.rows(), b.cols()) + ")");
            if constexpr (is_device_csr<A> && is_device_csr<B>) {
                dcsr<T> t(a.rows(), b.cols());
                {
                    py::gil_scoped_release release;
                    cuda::jit::spgemm<T, i32>(t, a, b, src, {.ctx = &ctx, .explain = opt.explain});
                }
                finish(std::move(t));
            } else if constexpr (is_device_dense<A> && is_device_dense<B>) {
                ddense<T> t(a.rows(), b.cols());
                {
                    py::gil_scoped_release release;
                    cuda::jit::report r;
                    cuda::jit::dense_gemm<T>(a.view(), b.view(), t.view(), false, src, ctx, &r);
                    if (opt.explain) opt.explain->add("mxm: " + cuda::jit::describe(r));
                }
                finish(std::move(t));
            } else {
                no_jit_family("mxm", is_device_csr<A> ? "SpMM (CSR x dense)" : "dense x CSR");
            }
        });
    });
    return *result;
}

template <class T, bool Pull>
dense_vector<T, device> jit_vector_product(matrix_handle const& ah,
                                           dense_vector<T, device> const& u,
                                           std::optional<dense_vector<T, device>> w0,
                                           std::optional<dense_vector<bool, device>> const& mask,
                                           vector_args const& args, options const& opt) {
    char const* const name = Pull ? "mxv" : "vxm";
    if (!args.accum.empty() && args.accum != args.semiring.add)
        throw invalid_argument(std::string(name) + ": vectors accumulate with the semiring's add (" +
                               args.semiring.add + ") only, not " + args.accum);
    context& ctx = resolve(opt.ctx);
    std::optional<dense_vector<T, device>> w;
    with_operand<T>(ah, "A", [&](auto const& a) {
        using A = std::decay_t<decltype(a)>;
        auto const semiring = jit_semiring<T>(args.semiring, !Pull && is_device_csr<A>);
        auto const& src = semiring.first;
        T const zero = semiring.second;
        std::size_t const out_size = Pull ? a.rows() : a.cols();
        dense_vector<T, device> out;
        if (w0)
            out = std::move(*w0);
        else
            out.storage() = buffer<T>(out_size, zero).template copy_to<device>();
        py::gil_scoped_release release;
        if constexpr (is_device_csr<A>) {
            cuda::vector_mask m;
            if (mask) m = cuda::vector_mask(
                          mask_view<dense_vector<bool, device>>{&*mask, false, args.complemented},
                          ctx);
            cuda::sparse_options sopt{.accumulate = !args.accum.empty(),
                                      .replace = args.replace,
                                      .ctx = &ctx,
                                      .explain = opt.explain};
            if constexpr (Pull) {
                cuda::jit::spmv<T, i32>(out, m, a, u, src, sopt);
            } else {
                auto const at = cuda::detail::transpose_csr(ctx, a);
                cuda::jit::spmv<T, i32>(out, m, at, u, src, sopt);
            }
        } else {
            if (mask)
                no_jit_family(name, "a masked product with a dense A (the dense GEMM's masked "
                                    "write-back)");
            dense_view<T const, device> uv = Pull ? dense_view<T const, device>{u.data(), u.size(), 1, 1}
                                                  : dense_view<T const, device>{u.data(), 1, u.size(), u.size()};
            dense_view<T, device> wv = Pull ? dense_view<T, device>{out.data(), out.size(), 1, 1}
                                            : dense_view<T, device>{out.data(), 1, out.size(), out.size()};
            cuda::jit::report r;
            if constexpr (Pull)
                cuda::jit::dense_gemm<T>(a.view(), uv, wv, !args.accum.empty(), src, ctx, &r);
            else
                cuda::jit::dense_gemm<T>(uv, a.view(), wv, !args.accum.empty(), src, ctx, &r);
            if (opt.explain) opt.explain->add(std::string(name) + ": " + cuda::jit::describe(r));
        }
        w = std::move(out);
    });
    return std::move(*w);
}

}  // namespace device_detail

template <class T>
py::tuple device_products<T>::mxm(matrix_handle const& ah, matrix_handle const& bh,
                                  product_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    using namespace device_detail;
    explain_trace trace;
    options opt;
    opt.replace = args.replace;
    opt.kernel = parse_kernel(args.kernel);
    if (args.explain) opt.explain = &trace;
    std::optional<matrix_handle> result;
    // User semirings, and a built-in this build left out (as its operators' composition): the JIT.
    auto const unbuilt = unbuilt_as_composition<T>(args.semiring);
    if (unbuilt || args.semiring.composed || args.semiring.source) {
        product_args jit_args = args;
        if (unbuilt) jit_args.semiring = *unbuilt;
        result = jit_mxm<T>(ah, bh, jit_args, opt);
        return py::make_tuple(*result, args.explain ? py::object(py::str(trace.str()))
                                                    : py::object(py::none()));
    }
    dispatch_semiring<T>(args.semiring.name, [&](auto s) {
        using S = decltype(s);
        with_operand<T>(ah, "A", [&](auto const& a) {
            with_operand<T>(bh, "B", [&](auto const& b) {
                using A = std::decay_t<decltype(a)>;
                if constexpr (is_device_csr<A> && !sparse_kernels<S>)
                    throw invalid_argument(
                        "mxm on the GPU: a CSR A runs the sparse kernels, built for " +
                        sparse_semiring_names<T>() + ", not " + dotted(args.semiring.name) +
                        "; pass A dense (to_dense() on the host, then to_device())");
                else
                    result = device_detail::mxm<T>(s, a, b, args, opt);
            });
        });
    });
    return py::make_tuple(*result,
                          args.explain ? py::object(py::str(trace.str())) : py::object(py::none()));
#else
    (void)ah, (void)bh, (void)args;
    throw no_device("mxm: kleene was built without the CUDA backend");
#endif
}

namespace device_detail {

template <class T, bool Pull>
py::tuple vector_entry(matrix_handle const& ah, py::handle uh, vector_args const& args) {
#if defined(KLEENE_HAVE_CUDA)
    char const* const name = Pull ? "mxv" : "vxm";
    explain_trace trace;
    options opt;
    opt.replace = args.replace;
    opt.kernel = parse_kernel(args.kernel);
    if (args.explain) opt.explain = &trace;
    auto const u = device_vector_of<T>(uh, "u");
    std::optional<dense_vector<T, device>> w0;
    if (!args.out.is_none()) w0 = device_vector_of<T>(args.out, "out");
    std::optional<dense_vector<bool, device>> mask;
    if (!args.mask.is_none()) mask = device_vector_of<bool>(args.mask, "mask");
    std::optional<dense_vector<T, device>> w;
    // User semirings, and a built-in this build left out (as its operators' composition): the JIT.
    auto const unbuilt = unbuilt_as_composition<T>(args.semiring);
    if (unbuilt || args.semiring.composed || args.semiring.source) {
        vector_args jit_args = args;
        if (unbuilt) jit_args.semiring = *unbuilt;
        auto r = jit_vector_product<T, Pull>(ah, u, std::move(w0), mask, jit_args, opt);
        return py::make_tuple(adopt_device_vector(std::move(r)),
                              args.explain ? py::object(py::str(trace.str())) : py::object(py::none()));
    }
    dispatch_semiring<T>(args.semiring.name, [&](auto s) {
        using S = decltype(s);
        if (!args.accum.empty() && args.accum != add_name<S>())
            throw invalid_argument(std::string(name) +
                                   ": vectors accumulate with the semiring's add (" +
                                   add_name<S>() + ") only, not " + args.accum);
        with_operand<T>(ah, "A", [&](auto const& a) {
            using A = std::decay_t<decltype(a)>;
            if constexpr (is_device_csr<A> && !sparse_kernels<S>)
                throw invalid_argument(
                    std::string(name) + " on the GPU: a CSR A runs the sparse kernels, built for " +
                    sparse_semiring_names<T>() + ", not " + dotted(args.semiring.name) +
                    "; pass A dense (to_dense() on the host, then to_device())");
            else if constexpr (!Pull && is_device_csr<A> && !commutative_mul<S>)
                throw invalid_argument(
                    "vxm on the GPU with a CSR A runs A' u, which needs a commutative multiply; " +
                    dotted(args.semiring.name) + " has none: use mxv with A's transpose");
            else
                w = vector_product<T, Pull>(s, a, u, std::move(w0), mask, args, opt);
        });
    });
    return py::make_tuple(adopt_device_vector(std::move(*w)),
                          args.explain ? py::object(py::str(trace.str())) : py::object(py::none()));
#else
    (void)ah, (void)uh, (void)args;
    throw no_device(std::string(Pull ? "mxv" : "vxm") +
                    ": kleene was built without the CUDA backend");
#endif
}

}  // namespace device_detail

template <class T>
py::tuple device_products<T>::mxv(matrix_handle const& a, py::handle u, vector_args const& args) {
    return device_detail::vector_entry<T, true>(a, u, args);
}

template <class T>
py::tuple device_products<T>::vxm(py::handle u, matrix_handle const& a, vector_args const& args) {
    return device_detail::vector_entry<T, false>(a, u, args);
}

}  // namespace kleene::python

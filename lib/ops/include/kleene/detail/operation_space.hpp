#pragma once
// What one operation body needs to serve host and device containers alike (issue 39, item 6: one
// body per operation, its checks, trace and dispatch written once): the operands' descriptions for
// messages, the entry into the containers' space (the CPU's thread scope, or the GPU's device=cpu
// refusal), and an operand as a matrix of that space (a transpose view made, said in the trace).
// Every operation's body uses it (mxm, mxv, vxm, ewise_add, ewise_mult, apply, select, reduce,
// transpose, extract, assign, kronecker); write_back_result is the one write-back of a result
// made in a temporary, for both spaces.

#include <kleene/convert.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/device_dispatch.hpp>
#include <kleene/transposed.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kleene::detail {

/// A matrix operand: a host matrix or a transposed view of one.
template <class M>
concept matrix_operand = host_matrix<M> ||
    (is_transposed<M>&& host_matrix<std::remove_cvref_t<decltype(*std::declval<M>().m)>>);

/// A' as a new matrix of A's storage.
template <host_matrix M>
M transposed_copy(M const& a) {
    if constexpr (is_csr<M>)
        return cpu::transpose_csr(a);
    else
        return cpu::transpose_dense(a.view());
}

/// The operand as a host matrix: itself, or its transposed view materialised (traced).
template <host_matrix M>
M const& materialize(M const& a, options const&, char const*) {
    return a;
}
template <host_matrix M>
M materialize(transposed<M> const& t, options const& opt, char const* op) {
    trace(opt, std::string(op) + ": " + describe(t) + ": transpose materialised");
    return transposed_copy(*t.m);
}

/// No scope: the device's work runs on the context's stream, not on the host's threads.
struct no_scope {};

/// Enters op's space for output C: host containers check that the GPU was not asked for and run
/// with the context's threads (the returned scope); device containers refuse device=cpu and say
/// `device_what` in the trace.
template <class C>
[[nodiscard]] auto enter_space(char const* op, options const& opt, std::string const& device_what) {
    if constexpr (in_space<C, device>) {
        device_call(op, opt, device_what);
        return no_scope{};
    } else {
        return check_host(op, opt);
    }
}

/// An operand as a matrix of its own space: itself, or the transpose a view names, made there
/// (traced). Vectors are themselves.
template <class X>
decltype(auto) materialize_any(X const& x, options const& opt, char const* op) {
    if constexpr (device_operand<X>)
        return materialize_device(x, opt, op);
    else if constexpr (matrix_operand<X>)
        return materialize(x, opt, op);
    else
        return (x);
}

/// Whether two dense vectors of one space share storage (w = A w: a kernel writing w would still
/// be reading u).
template <class W, class U>
bool vectors_overlap(W const& w, U const& u) {
    if (w.size() == 0 || u.size() == 0) return false;
    auto const w0 = reinterpret_cast<std::uintptr_t>(w.data());
    auto const u0 = reinterpret_cast<std::uintptr_t>(u.data());
    return w0 < u0 + u.size() * sizeof(*u.data()) && u0 < w0 + w.size() * sizeof(*w.data());
}

/// dst = src for dense matrices or vectors of one shape and space (on the device on the context's
/// stream, by the apply of the identity); dst keeps its storage.
template <class X>
void copy_into(X& dst, X const& src, options const& opt) {
    if constexpr (in_space<X, device>) {
        cuda::apply(dst, cuda::dense_mask{}, no_accum, identity_op<typename X::value_type>{}, src,
                    options{.ctx = opt.ctx});
    } else if constexpr (is_dense<X>) {
        for (std::size_t i = 0; i < src.rows(); ++i)
            std::copy_n(src.data() + i * src.ld(), src.cols(), dst.data() + i * dst.ld());
    } else {
        std::copy_n(src.data(), src.size(), dst.data());
    }
}

/// A copy of a dense vector in its own space (copy_into).
template <class V>
V copy_of(V const& v, options const& opt) {
    V out(v.size());
    copy_into(out, v, opt);
    return out;
}

/// C<m, replace> accum= T for a dense device T into a dense device C through the backend's mask m
/// (already made: a caller that also gave it to the kernel): the masked apply of the identity,
/// T's entries equal to `zero` no entry.
template <class C, class Accum, class T>
void write_back_dense_device(C& c, cuda::dense_mask const& m, Accum accum, T const& t,
                             typename C::value_type zero, options const& opt) {
    check_device_output<C, Accum>();
    cuda::apply(c, m, accum, with_absent(identity_op<typename C::value_type>{}, zero), t,
                options{.replace = opt.replace, .ctx = opt.ctx});
}

/// C<mask, replace> accum= a product computed only where the mask allows, for a dense device C:
/// the mask's flags made once, `product(t, flags)` into a temporary of C's shape (the sampled
/// GEMM, SpMM or spgemm_dense: the entries outside the mask left unspecified), then the write-back
/// through the same flags.
template <class C, class Mask, class Accum, class F>
void sampled_into_dense_device(C& c, Mask const& mask, Accum accum, typename C::value_type zero,
                               options const& opt, F&& product) {
    auto const dm = device_mask<C>(mask, opt.ctx);
    dense_matrix<typename C::value_type, device> t(c.rows(), c.cols());
    product(t, dm);
    write_back_dense_device(c, dm, accum, t, zero, opt);
}

/// C<mask, replace> accum= T for an operation's result T made in C's space: T itself where the
/// call is plain (no mask, no accumulator) and T has C's type; otherwise the space's masked
/// write-back: on the host cpu::write_back (entries of a dense T equal to `zero` are no entry); on
/// the device a dense T into a dense C by the backend's masked apply of the identity, a CSR T into
/// a CSR C by its masked row merge, and a dense T into a CSR C made CSR on the device first
/// (entries equal to `zero` dropped, as on the host).
template <class C, class Mask, class Accum, class T>
void write_back_result(C& c, Mask const& mask, Accum accum, T&& t, typename C::value_type zero,
                       options const& opt, char const* op) {
    using R = std::remove_cvref_t<T>;
    using V = typename C::value_type;
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    if constexpr (plain && std::is_same_v<R, C>) {
        c = std::forward<T>(t);
    } else if constexpr (in_space<C, host>) {
        cpu::write_back(c, mask, accum, t, opt.replace, zero);
    } else if constexpr (is_csr<C> && is_dense<R>) {
        write_back_result(c, mask, accum, to_csr<V, typename C::index_type>(t, zero, opt.ctx), zero,
                           opt, op);
    } else if constexpr (is_csr<C>) {
        check_device_output<C, Accum>();
        cuda::detail::write_back_csr(resolve(opt.ctx), op, c, device_mask<C>(mask, opt.ctx), accum,
                                     std::forward<T>(t), opt.replace);
    } else {
        write_back_dense_device(c, device_mask<C>(mask, opt.ctx), accum, t, zero, opt);
    }
}

}  // namespace kleene::detail

#pragma once
// kleene's mxm, mxv and vxm computed by SuiteSparse:GraphBLAS: the same signatures as
// <kleene/mxm.hpp>, the same GraphBLAS semantics, kleene containers in and out. The operands are
// converted (dense ones with the semiring's zero as absent value; a transposed view becomes
// GraphBLAS's transpose descriptor), GrB_mxm / GrB_mxv / GrB_vxm runs with the built-in semiring
// equal to S, and the result is converted back into C's storage. Only options.replace and
// options.explain are read; kernel pins belong to kleene's own kernels.
//
// Every call from one oracle function to another is qualified (kleene::graphblas::...): the
// containers live in namespace kleene, so an unqualified call would also find kleene's own
// operation by argument-dependent lookup, and its more constrained template would win. The test
// test_oracle_calls links against counting wrappers of the GrB functions and fails if any oracle
// entry point does not reach SuiteSparse.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <kleene/graphblas/c_api.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/convert.hpp>
#include <kleene/graphblas/traits.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <kleene/transposed.hpp>
#include <optional>
#include <string>
#include <type_traits>

namespace kleene::graphblas {

/// The predefined descriptor for replace, the mask's kind, and transposed first/second inputs.
GrB_Descriptor descriptor(bool replace, bool structural, bool complemented, bool t0 = false,
                          bool t1 = false);

namespace detail {
template <class Mask>
struct mask_traits {
    static constexpr bool present = false;
};
template <class M>
struct mask_traits<mask_view<M>> {
    static constexpr bool present = true;
};

/// The GraphBLAS mask for a kleene mask: CSR / sparse masks entry for entry, dense masks full
/// (kleene's dense masks store every entry, whatever its value).
template <class Handle, class Mask>
std::optional<Handle> mask_handle(Mask const& mask) {
    if constexpr (!mask_traits<Mask>::present) {
        return std::nullopt;
    } else {
        using M = std::remove_cvref_t<decltype(*mask.m)>;
        if constexpr (requires { mask.m->nnz(); }) {
            return to_grb(*mask.m);
        } else if constexpr (std::is_same_v<Handle, matrix>) {
            // Held sparse, not full: GraphBLAS 7.4 crashes (GB_subassign_08n) on a valued full
            // mask with an accumulator into a sparse C.
            matrix m = to_grb_full<typename M::value_type>(*mask.m);
            check(GxB_Matrix_Option_set(m.get(), GxB_SPARSITY_CONTROL, GxB_SPARSE),
                  "GxB_Matrix_Option_set");
            return m;
        } else {
            return to_grb_full<typename M::value_type>(*mask.m);
        }
    }
}

/// A product's operand: the container itself, or the one behind a transposed view (the
/// descriptor then transposes it).
template <class M>
struct product_operand {
    static constexpr bool transposed = false;
    static M const& base(M const& m) { return m; }
};
template <class M>
struct product_operand<kleene::transposed<M>> {
    static constexpr bool transposed = true;
    static M const& base(kleene::transposed<M> const& t) { return *t.m; }
};

template <class Mask>
GrB_Descriptor mask_descriptor(Mask const& mask, bool replace, bool t0 = false, bool t1 = false) {
    if constexpr (!mask_traits<Mask>::present)
        return descriptor(replace, false, false, t0, t1);
    else
        return descriptor(replace, mask.structural, mask.complemented, t0, t1);
}

/// Runs one GrB call, then GrB_wait on its output, and with options.explain records
/// "graphblas: NAME MS ms": the time of the call alone (converting kleene's containers to and from
/// GraphBLAS happens outside it). traced_ms() sums these lines.
template <class Handle, class Call>
void timed(options const& opt, char const* name, Handle const& out, Call&& call) {
    auto const t0 = std::chrono::steady_clock::now();
    check(call(), name);
    out.wait();
    double const ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (opt.explain) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " %.6f ms", ms);
        opt.explain->add(std::string("graphblas: ") + name + buf);
    }
}
}  // namespace detail

/// The time SuiteSparse:GraphBLAS spent in the calls an explain trace records (detail::timed).
inline double traced_ms(explain_trace const& trace) {
    double ms = 0;
    for (auto const& line : trace.lines)
        if (line.rfind("graphblas: ", 0) == 0) {
            auto const sp = line.rfind(' ', line.size() - 4);
            ms += std::strtod(line.c_str() + sp + 1, nullptr);
        }
    return ms;
}

/// C<mask, replace> accum= A (+).(x) B through GrB_mxm.
template <class C, class Mask, class Accum, class A, class B, semiring_type S>
void mxm(C& c, Mask const& mask, Accum, A const& a, B const& b, S, options const& opt = {}) {
    using T = typename S::value_type;
    GrB_Semiring const semiring = grb_semiring<S>();
    GrB_BinaryOp const accum = grb_accum<Accum>();
    T const zero = S::zero();
    using opa = detail::product_operand<A>;
    using opb = detail::product_operand<B>;
    matrix gc = to_grb(c, zero);
    matrix const ga = to_grb(opa::base(a), zero), gb = to_grb(opb::base(b), zero);
    auto const gm = detail::mask_handle<matrix>(mask);
    detail::timed(opt, "GrB_mxm", gc, [&] {
        return GrB_mxm(
            gc.get(), gm ? gm->get() : nullptr, accum, semiring, ga.get(), gb.get(),
            detail::mask_descriptor(mask, opt.replace, opa::transposed, opb::transposed));
    });
    c = from_grb<C>(gc.get(), zero);
}

/// w<mask, replace> accum= A (+).(x) u through GrB_mxv.
template <class W, class Mask, class Accum, class A, class U, semiring_type S>
void mxv(W& w, Mask const& mask, Accum, A const& a, U const& u, S, options const& opt = {}) {
    using T = typename S::value_type;
    GrB_Semiring const semiring = grb_semiring<S>();
    GrB_BinaryOp const accum = grb_accum<Accum>();
    T const zero = S::zero();
    // GraphBLAS 7.4 reports a dimension mismatch for a masked product into a vector of length 0.
    if (w.size() == 0) return;
    using opa = detail::product_operand<A>;
    vector gw = to_grb(w, zero);
    matrix const ga = to_grb(opa::base(a), zero);
    vector const gu = to_grb(u, zero);
    auto const gm = detail::mask_handle<vector>(mask);
    detail::timed(opt, "GrB_mxv", gw, [&] {
        return GrB_mxv(gw.get(), gm ? gm->get() : nullptr, accum, semiring, ga.get(), gu.get(),
                       detail::mask_descriptor(mask, opt.replace, opa::transposed, false));
    });
    w = from_grb<W>(gw.get(), zero);
}

/// w<mask, replace> accum= u (+).(x) A through GrB_vxm.
template <class W, class Mask, class Accum, class U, class A, semiring_type S>
void vxm(W& w, Mask const& mask, Accum, U const& u, A const& a, S, options const& opt = {}) {
    using T = typename S::value_type;
    GrB_Semiring const semiring = grb_semiring<S>();
    GrB_BinaryOp const accum = grb_accum<Accum>();
    T const zero = S::zero();
    // GraphBLAS 7.4 reports a dimension mismatch for a masked product into a vector of length 0.
    if (w.size() == 0) return;
    using opa = detail::product_operand<A>;
    vector gw = to_grb(w, zero);
    matrix const ga = to_grb(opa::base(a), zero);
    vector const gu = to_grb(u, zero);
    auto const gm = detail::mask_handle<vector>(mask);
    detail::timed(opt, "GrB_vxm", gw, [&] {
        return GrB_vxm(gw.get(), gm ? gm->get() : nullptr, accum, semiring, gu.get(), ga.get(),
                       detail::mask_descriptor(mask, opt.replace, false, opa::transposed));
    });
    w = from_grb<W>(gw.get(), zero);
}

/// The products without mask or accumulator. The calls are qualified: unqualified, argument-
/// dependent lookup would also find kleene::mxm (the containers live in namespace kleene), whose
/// constrained templates win overload resolution, and the oracle would silently run kleene.
template <class C, class A, class B, semiring_type S>
void mxm(C& c, A const& a, B const& b, S s, options const& opt = {}) {
    kleene::graphblas::mxm(c, no_mask, no_accum, a, b, s, opt);
}
template <class W, class A, class U, semiring_type S>
void mxv(W& w, A const& a, U const& u, S s, options const& opt = {}) {
    kleene::graphblas::mxv(w, no_mask, no_accum, a, u, s, opt);
}
template <class W, class U, class A, semiring_type S>
void vxm(W& w, U const& u, A const& a, S s, options const& opt = {}) {
    kleene::graphblas::vxm(w, no_mask, no_accum, u, a, s, opt);
}

}  // namespace kleene::graphblas

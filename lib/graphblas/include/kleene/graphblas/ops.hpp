#pragma once
// kleene's mxm, mxv and vxm computed by SuiteSparse:GraphBLAS: the same signatures as
// <kleene/mxm.hpp>, the same GraphBLAS semantics, kleene containers in and out. The operands are
// converted (dense ones with the semiring's zero as absent value), GrB_mxm / GrB_mxv / GrB_vxm
// runs with the built-in semiring equal to S, and the result is converted back into C's storage.
// Only options.replace and options.explain are read; kernel pins belong to kleene's own kernels.

#include <kleene/graphblas/c_api.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/convert.hpp>
#include <kleene/graphblas/traits.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <optional>
#include <string>
#include <type_traits>

namespace kleene::graphblas {

/// The built-in descriptor for a mask's kind and the replace flag (nullptr: the default).
GrB_Descriptor descriptor(bool replace, bool structural, bool complemented);

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

template <class Mask>
GrB_Descriptor mask_descriptor(Mask const& mask, bool replace) {
    if constexpr (!mask_traits<Mask>::present)
        return descriptor(replace, false, false);
    else
        return descriptor(replace, mask.structural, mask.complemented);
}

inline void trace(options const& opt, std::string line) {
    if (opt.explain) opt.explain->add(std::move(line));
}
}  // namespace detail

/// C<mask, replace> accum= A (+).(x) B through GrB_mxm.
template <class C, class Mask, class Accum, class A, class B, semiring_type S>
void mxm(C& c, Mask const& mask, Accum, A const& a, B const& b, S, options const& opt = {}) {
    using T = typename S::value_type;
    GrB_Semiring const semiring = grb_semiring<S>();
    GrB_BinaryOp const accum = grb_accum<Accum>();
    T const zero = S::zero();
    matrix gc = to_grb(c, zero);
    matrix const ga = to_grb(a, zero), gb = to_grb(b, zero);
    auto const gm = detail::mask_handle<matrix>(mask);
    detail::trace(opt, "mxm: SuiteSparse:GraphBLAS GrB_mxm");
    check(GrB_mxm(gc.get(), gm ? gm->get() : nullptr, accum, semiring, ga.get(), gb.get(),
                  detail::mask_descriptor(mask, opt.replace)),
          "GrB_mxm");
    c = from_grb<C>(gc.get(), zero);
}

/// w<mask, replace> accum= A (+).(x) u through GrB_mxv.
template <class W, class Mask, class Accum, class A, class U, semiring_type S>
void mxv(W& w, Mask const& mask, Accum, A const& a, U const& u, S, options const& opt = {}) {
    using T = typename S::value_type;
    GrB_Semiring const semiring = grb_semiring<S>();
    GrB_BinaryOp const accum = grb_accum<Accum>();
    T const zero = S::zero();
    detail::trace(opt, "mxv: SuiteSparse:GraphBLAS GrB_mxv");
    // GraphBLAS 7.4 reports a dimension mismatch for a masked product into a vector of length 0.
    if (w.size() == 0) return;
    vector gw = to_grb(w, zero);
    matrix const ga = to_grb(a, zero);
    vector const gu = to_grb(u, zero);
    auto const gm = detail::mask_handle<vector>(mask);
    check(GrB_mxv(gw.get(), gm ? gm->get() : nullptr, accum, semiring, ga.get(), gu.get(),
                  detail::mask_descriptor(mask, opt.replace)),
          "GrB_mxv");
    w = from_grb<W>(gw.get(), zero);
}

/// w<mask, replace> accum= u (+).(x) A through GrB_vxm.
template <class W, class Mask, class Accum, class U, class A, semiring_type S>
void vxm(W& w, Mask const& mask, Accum, U const& u, A const& a, S, options const& opt = {}) {
    using T = typename S::value_type;
    GrB_Semiring const semiring = grb_semiring<S>();
    GrB_BinaryOp const accum = grb_accum<Accum>();
    T const zero = S::zero();
    detail::trace(opt, "vxm: SuiteSparse:GraphBLAS GrB_vxm");
    // GraphBLAS 7.4 reports a dimension mismatch for a masked product into a vector of length 0.
    if (w.size() == 0) return;
    vector gw = to_grb(w, zero);
    matrix const ga = to_grb(a, zero);
    vector const gu = to_grb(u, zero);
    auto const gm = detail::mask_handle<vector>(mask);
    check(GrB_vxm(gw.get(), gm ? gm->get() : nullptr, accum, semiring, gu.get(), ga.get(),
                  detail::mask_descriptor(mask, opt.replace)),
          "GrB_vxm");
    w = from_grb<W>(gw.get(), zero);
}

/// The products without mask or accumulator.
template <class C, class A, class B, semiring_type S>
void mxm(C& c, A const& a, B const& b, S s, options const& opt = {}) {
    mxm(c, no_mask, no_accum, a, b, s, opt);
}
template <class W, class A, class U, semiring_type S>
void mxv(W& w, A const& a, U const& u, S s, options const& opt = {}) {
    mxv(w, no_mask, no_accum, a, u, s, opt);
}
template <class W, class U, class A, semiring_type S>
void vxm(W& w, U const& u, A const& a, S s, options const& opt = {}) {
    vxm(w, no_mask, no_accum, u, a, s, opt);
}

}  // namespace kleene::graphblas

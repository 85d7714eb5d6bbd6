#pragma once
// Transposition, as an operation and as a view.
//
//   transpose(C, mask, accum, A, options, absent)   C<mask, replace> accum= A'
//   transpose(A)                                    a view of A' (no copy; A must outlive it)
//
// The view is an input of every operation. mxv and vxm (mxm.hpp) use it without materialising
// anything on the host: mxv(w, transpose(A), u) runs as vxm(w, u, A) (push instead of pull) and
// vxm(w, u, transpose(A)) as mxv(w, A, u), with the semiring's mul operands swapped so that
// non-commutative products stay right. mxm and the element-wise operations materialise it (the
// explain trace says so) but where C<M> = A B' runs as masked dot products (mxm.hpp);
// transpose(transpose(A)) is A. `absent` is the value that stands for "no entry" in dense
// objects (see operators.hpp).

#include <kleene/convert.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/operation_space.hpp>
#include <kleene/transposed.hpp>
#include <string>
#include <type_traits>
#include <utility>

namespace kleene {

/// A' of a host matrix, as a view (transposed.hpp; device matrices have theirs there too).
template <detail::host_matrix M>
transposed<M> transpose(M const& a) {
    return {&a};
}
template <detail::host_matrix M>
M const& transpose(transposed<M> t) {
    return *t.m;
}

namespace detail {
/// What transpose takes: an output and an input of one space (host matrices, the input possibly
/// a transpose view; device matrices).
template <class C, class A>
concept transpose_operands = (host_matrix<C> && matrix_operand<A>) ||
                             (device_matrix<C> && device_matrix<A>);
}  // namespace detail

/// C<mask, replace> accum= A': host or device containers (one space a call), one body. Host: a
/// transposed view's matrix written back as is, CSR by per-thread column counts with rows
/// scattered in order, dense by tiles, a dense input into a CSR output through its entries other
/// than `absent`. Device (the CUDA backend; CSR into CSR of one index type: a stable CUB sort of
/// the entries by column; dense into dense: 32 x 32 shared-memory tiles, and a dense C may be A
/// itself when square).
template <class C, mask_type Mask, accumulator_type Accum, class A>
    requires detail::transpose_operands<C, A>
void transpose(C& c, Mask const& mask, Accum accum, A const& a, options const& opt = {},
               std::type_identity_t<typename C::value_type> absent = {}) {
    using T = typename C::value_type;
    static_assert(std::is_same_v<typename A::value_type, T>,
                  "transpose: the input's value type must equal the output's");
    constexpr bool on_device = detail::in_space<C, device>;
    if constexpr (on_device) {
        static_assert((detail::is_csr<C> && std::is_same_v<C, A>) ||
                          (detail::is_dense<C> && detail::is_dense<A>),
                      "kleene: transpose on the device takes a CSR input into a CSR output (one "
                      "index type) or a dense one into a dense one");
        detail::check_device_output<C, Accum>();
    }
    if (c.rows() != a.cols() || c.cols() != a.rows())
        throw dimension_mismatch("transpose: output C is " + detail::shape(c.rows(), c.cols()) +
                                 " but the transpose of A (" + detail::describe(a) + ") is " +
                                 detail::shape(a.cols(), a.rows()));
    detail::check_mask("transpose", mask, c);
    std::string device_what;
    if constexpr (on_device)
        device_what = detail::describe(a) + (detail::is_csr<A>
                                                     ? ": cuda csr transpose (sort by column)"
                                                     : ": cuda tiled transpose");
    [[maybe_unused]] auto const scope = detail::enter_space<C>("transpose", opt, device_what);
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    if constexpr (on_device) {
        if constexpr (detail::is_csr<C>)
            cuda::transpose(c, detail::device_mask<C>(mask, opt.ctx), accum, a, opt);
        else
            cuda::transpose(c, detail::device_mask<C>(mask, opt.ctx), accum, a, opt, absent);
    } else if constexpr (is_transposed<A>) {
        detail::trace(opt,
                      "transpose: input is a transposed view: its matrix is written back as is");
        if constexpr (plain && std::is_same_v<C, std::remove_cvref_t<decltype(*a.m)>>)
            c = *a.m;
        else
            cpu::write_back(c, mask, accum, *a.m, opt.replace, absent);
    } else if constexpr (detail::is_csr<A>) {
        detail::trace(opt,
                      "transpose: " + detail::describe(a) +
                          ": csr transpose (per-thread column counts, rows scattered in order)");
        auto t = cpu::transpose_csr(a);
        detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "transpose");
    } else if constexpr (detail::is_dense<C>) {
        detail::trace(opt, "transpose: " + detail::describe(a) + ": dense tiled transpose");
        auto t = cpu::transpose_dense(a.view());
        detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "transpose");
    } else {
        detail::trace(opt, "transpose: " + detail::describe(a) +
                               " -> csr: entries other than the absent value, then csr transpose");
        auto t = cpu::transpose_csr(to_csr<T, typename C::index_type>(a, absent));
        detail::write_back_result(c, mask, accum, std::move(t), absent, opt, "transpose");
    }
}

/// C = A'.
template <class C, class A>
    requires detail::transpose_operands<C, A>
void transpose(C& c, A const& a, options const& opt = {},
               std::type_identity_t<typename C::value_type> absent = {}) {
    transpose(c, no_mask, no_accum, a, opt, absent);
}

KLEENE_NO_MIXED_SPACES(transpose)

}  // namespace kleene

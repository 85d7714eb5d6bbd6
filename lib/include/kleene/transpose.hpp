#pragma once
// Transposition, as an operation and as a view.
//
//   transpose(C, mask, accum, A, options, absent)   C<mask, replace> accum= A'
//   transpose(A)                                    a view of A' (no copy; A must outlive it)
//
// The view is an input of every operation. mxv and vxm use it without materialising anything:
// mxv(w, transpose(A), u) runs as vxm(w, u, A) (push instead of pull) and vxm(w, u, transpose(A))
// as mxv(w, A, u), with the semiring's mul operands swapped so that non-commutative products stay
// right. mxm and the element-wise operations materialise it (the explain trace says so);
// transpose(transpose(A)) is A. `absent` is the value that stands for "no entry" in dense
// objects (see operators.hpp).

#include <kleene/convert.hpp>
#include <kleene/cpu/sparse_products.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/detail/masked_dot_model.hpp>
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

/// S with the operands of mul swapped: A' (x) u computed as u (x) A keeps mul(A_ki, u_k).
template <semiring_type S>
struct swapped_mul : S {
    using value_type = typename S::value_type;
    KLEENE_HD static constexpr value_type mul(value_type a, value_type b) { return S::mul(b, a); }
};


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
        static_assert((detail::is_device_csr<C> && std::is_same_v<C, A>) ||
                          (detail::is_device_dense<C> && detail::is_device_dense<A>),
                      "kleene: transpose on the device takes a CSR input into a CSR output (one "
                      "index type) or a dense one into a dense one");
        detail::check_device_output<C, Accum>();
    }
    if (c.rows() != a.cols() || c.cols() != a.rows())
        throw dimension_mismatch("transpose: output C is " + detail::shape(c.rows(), c.cols()) +
                                 " but the transpose of A (" + detail::describe_any(a) + ") is " +
                                 detail::shape(a.cols(), a.rows()));
    detail::check_mask("transpose", mask, c);
    std::string device_what;
    if constexpr (on_device)
        device_what = detail::describe_any(a) + (detail::is_device_csr<A>
                                                     ? ": cuda csr transpose (sort by column)"
                                                     : ": cuda tiled transpose");
    [[maybe_unused]] auto const scope = detail::enter_space<C>("transpose", opt, device_what);
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    if constexpr (on_device) {
        if constexpr (detail::is_device_csr<C>)
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
        if constexpr (plain && std::is_same_v<C, A>)
            c = std::move(t);
        else
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
    } else if constexpr (detail::is_dense<C>) {
        detail::trace(opt, "transpose: " + detail::describe(a) + ": dense tiled transpose");
        auto t = cpu::transpose_dense(a.view());
        if constexpr (plain)
            c = std::move(t);
        else
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
    } else {
        detail::trace(opt, "transpose: " + detail::describe(a) +
                               " -> csr: entries other than the absent value, then csr transpose");
        auto t = cpu::transpose_csr(to_csr<T, typename C::index_type>(a, absent));
        if constexpr (plain)
            c = std::move(t);
        else
            cpu::write_back(c, mask, accum, t, opt.replace, absent);
    }
}

/// C = A'.
template <class C, class A>
    requires detail::transpose_operands<C, A>
void transpose(C& c, A const& a, options const& opt = {},
               std::type_identity_t<typename C::value_type> absent = {}) {
    transpose(c, no_mask, no_accum, a, opt, absent);
}

// ---- products with transposed operands
// ------------------------------------------------------------

namespace detail {
/// The masked dot products' work against the masked Gustavson's for C<M> = A (+).(x) Bt', in
/// merge steps and multiply-adds: dot = sum over M's entries (i, j) of the steps of a merge of
/// A(i,:) and Bt(j,:) (cpu::detail::dot_steps: their lengths, or searches from the shorter);
/// saxpy = sum over k of |A(:,k)| |Bt(:,k)| (its multiply-adds, weighted by cpu_madd_weight:
/// more where the accumulator of C's columns leaves the caches) plus Bt's transpose, counted as 4
/// steps an entry. Returned as {dot, saxpy}.
template <class T, class Index, class MT, class MIndex>
std::pair<double, double> masked_dot_costs(csr_matrix<T, Index> const& a,
                                           csr_matrix<T, Index> const& bt,
                                           csr_matrix<MT, MIndex> const& m) {
    double dot = 0;
#pragma omp parallel for schedule(static) reduction(+ : dot) if (m.rows() > 16384)
    for (std::size_t i = 0; i < m.rows(); ++i) {
        double const arow = double(a.row_end(i) - a.row_begin(i));
        for (std::size_t p = m.row_begin(i); p < m.row_end(i); ++p) {
            auto const j = static_cast<std::size_t>(m.col_idx()[p]);
            dot += cpu::detail::dot_steps(arow, double(bt.row_end(j) - bt.row_begin(j)));
        }
    }
    std::size_t const k = a.cols();
    std::vector<std::int64_t> ca(k, 0), cb(k, 0);
    for (std::size_t q = 0; q < a.nnz(); ++q) ++ca[static_cast<std::size_t>(a.col_idx()[q])];
    for (std::size_t q = 0; q < bt.nnz(); ++q) ++cb[static_cast<std::size_t>(bt.col_idx()[q])];
    double madds = 0;
    for (std::size_t q = 0; q < k; ++q) madds += double(ca[q]) * double(cb[q]);
    // A multiply-add into a dense accumulator that has left the caches costs more (the model).
    double const saxpy =
        4.0 * double(bt.nnz()) + madds * cpu_madd_weight(double(bt.rows()), double(sizeof(T)));
    return {dot, saxpy};
}
}  // namespace detail

/// mxm with a transposed operand: the view is materialised, then the product runs as usual;
/// except C<M> = A (+).(x) B' with a CSR mask (not complemented), CSR A and B, where B's rows are
/// the product's columns: there masked dot products (cpu::masked_dot) run where the model rates
/// their work below Gustavson's (both in the explain trace), or where kernel masked_dot pins them.
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, detail::matrix_operand A,
          detail::matrix_operand B, semiring_type S>
requires(is_transposed<A> || is_transposed<B>) void mxm(C& c, Mask const& mask, Accum accum,
                                                        A const& a, B const& b, S s,
                                                        options const& opt = {}) {
    if constexpr (!is_transposed<A> && is_transposed<B> && is_mask_view<Mask>) {
        using BM = std::remove_cvref_t<decltype(*b.m)>;
        using MM = std::remove_cvref_t<decltype(*mask.m)>;
        if constexpr (detail::is_csr<A> && detail::is_csr<BM> && detail::is_csr<MM> &&
                      std::is_same_v<A, BM>) {
            BM const& bt = *b.m;
            if (!mask.complemented && (opt.kernel == kernel_choice::automatic ||
                                       opt.kernel == kernel_choice::masked_dot)) {
                detail::check_types<S, C, A>();
                detail::check_product_shapes(c, a, b, detail::describe(a),
                                             detail::describe_operand(b));
                detail::check_mask("mxm", mask, c);
                auto const omp_scope = detail::check_host("mxm", opt);
                auto const [dot, saxpy] = detail::masked_dot_costs(a, bt, *mask.m);
                bool const pinned = opt.kernel == kernel_choice::masked_dot;
                std::string const rated = "about " + std::to_string(static_cast<long long>(dot)) +
                                          " merge steps against " +
                                          std::to_string(static_cast<long long>(saxpy)) +
                                          " for the transpose and Gustavson";
                if (pinned || dot < saxpy) {
                    detail::trace(opt, "mxm: " + detail::describe(a) + " x " +
                                           detail::describe_operand(b) +
                                           ": masked_dot (a merge of A(i,:) and B(:,j) for each of "
                                           "the mask's " +
                                           std::to_string(mask.m->nnz()) + " entries; " + rated +
                                           (pinned ? ") [pinned]" : ")"));
                    auto t = cpu::masked_dot(s, a, bt, *mask.m, mask.structural);
                    cpu::write_back(c, mask, accum, t, opt.replace, s.zero());
                    return;
                }
                detail::trace(opt, "mxm: masked_dot not taken (" + rated + ")");
            }
        }
    }
    if (opt.kernel == kernel_choice::masked_dot)
        throw invalid_argument(
            "mxm: kernel masked_dot computes C<M> = A B' with CSR A, B and mask M (not "
            "complemented), A and B of one type; use mxm(C, mask, accum, A, transpose(Bt), ...)");
    mxm(c, mask, accum, detail::materialize(a, opt, "mxm"), detail::materialize(b, opt, "mxm"), s,
        opt);
}
template <detail::host_matrix C, detail::matrix_operand A, detail::matrix_operand B,
          semiring_type S>
requires(is_transposed<A> || is_transposed<B>) void mxm(C& c, A const& a, B const& b, S s,
                                                        options const& opt = {}) {
    mxm(c, no_mask, no_accum, a, b, s, opt);
}

/// w<mask, replace> accum= A' (+).(x) u: computed as u (+).(x) A (push); pinning spmv_pull
/// materialises A' instead.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_matrix M,
          detail::host_vector U, semiring_type S>
void mxv(W& w, Mask const& mask, Accum accum, transposed<M> const& a, U const& u, S s,
         options const& opt = {}) {
    if (opt.kernel == kernel_choice::spmv_pull) {
        mxv(w, mask, accum, detail::materialize(a, opt, "mxv"), u, s, opt);
        return;
    }
    detail::trace(opt, "mxv: A is the " + detail::describe_operand(a) +
                           ": computed as vxm(u, A), no transpose materialised");
    options o = opt;
    if (o.kernel == kernel_choice::spmspv_push) o.kernel = kernel_choice::automatic;
    vxm(w, mask, accum, u, *a.m, swapped_mul<S>{}, o);
}
template <detail::host_vector W, detail::host_matrix M, detail::host_vector U, semiring_type S>
void mxv(W& w, transposed<M> const& a, U const& u, S s, options const& opt = {}) {
    mxv(w, no_mask, no_accum, a, u, s, opt);
}

/// w<mask, replace> accum= u (+).(x) A': computed as A (+).(x) u (pull); pinning spmspv_push
/// materialises A' instead.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_vector U,
          detail::host_matrix M, semiring_type S>
void vxm(W& w, Mask const& mask, Accum accum, U const& u, transposed<M> const& a, S s,
         options const& opt = {}) {
    if (opt.kernel == kernel_choice::spmspv_push) {
        vxm(w, mask, accum, u, detail::materialize(a, opt, "vxm"), s, opt);
        return;
    }
    detail::trace(opt, "vxm: A is the " + detail::describe_operand(a) +
                           ": computed as mxv(A, u), no transpose materialised");
    options o = opt;
    if (o.kernel == kernel_choice::spmv_pull) o.kernel = kernel_choice::automatic;
    mxv(w, mask, accum, *a.m, u, swapped_mul<S>{}, o);
}
template <detail::host_vector W, detail::host_vector U, detail::host_matrix M, semiring_type S>
void vxm(W& w, U const& u, transposed<M> const& a, S s, options const& opt = {}) {
    vxm(w, no_mask, no_accum, u, a, s, opt);
}

KLEENE_NO_MIXED_SPACES(transpose)

}  // namespace kleene

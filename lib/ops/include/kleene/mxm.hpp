#pragma once
// mxm, mxv and vxm: the semiring products, GraphBLAS style.
//
//   mxm(C, mask, accum, A, B, semiring, options)    C<mask, replace> accum= A (+).(x) B
//   mxv(w, mask, accum, A, u, semiring, options)    w<mask, replace> accum= A (+).(x) u
//   vxm(w, mask, accum, u, A, semiring, options)    w<mask, replace> accum= u (+).(x) A
//
// mask is `no_mask`, `mask(M)`, `structure(M)` or `complement(...)`; accum is `no_accum` or a
// binary operator (e.g. `plus_op<float>{}`). Host or device containers, one space a call; A and B
// may be transpose views (transposed.hpp). Each product has one body for both spaces: the checks,
// the explain trace and the choice by storage and space, written once, then the CPU kernels
// (kleene/cpu/) or the CUDA backend (kleene/cuda/). The storage pair picks the kernel: dense x
// dense -> the blocked GEMM, CSR x dense -> SpMM, dense x CSR, CSR x CSR -> Gustavson (dense or
// hash accumulator on the CPU, the SpGEMM tiers on the GPU), C<M> = A B' under a sparse mask ->
// masked dot products where their model says so; CSR x vector -> pull, vector x CSR -> push.
// options.kernel pins a kernel and options.explain records the choice and the reason.

#include <kleene/convert.hpp>
#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/cpu/dense_gemm_sampled.hpp>
#include <kleene/cpu/sparse_products.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/masked_dense_model.hpp>
#include <kleene/detail/masked_dot_model.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/operation_space.hpp>
#include <kleene/detail/device_dispatch.hpp>
#include <kleene/error.hpp>
#include <kleene/matrix.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <kleene/transposed.hpp>
#include <kleene/vector.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

/// S with the operands of mul swapped: A' (x) u computed as u (x) A keeps mul(A_ki, u_k).
template <semiring_type S>
struct swapped_mul : S {
    using value_type = typename S::value_type;
    KLEENE_HD static constexpr value_type mul(value_type a, value_type b) { return S::mul(b, a); }
};


namespace detail {

/// What mxm takes: an output and two operands of one space, host matrices or device matrices,
/// the operands possibly transpose views.
template <class C, class A, class B>
concept mxm_operands = (host_matrix<C> && matrix_operand<A> && matrix_operand<B>) ||
                       (device_matrix<C> && device_operand<A> && device_operand<B>);
/// What mxv takes (w = A u) and vxm (w = u A): vectors and a matrix operand of one space.
template <class W, class A, class U>
concept mxv_operands = (host_vector<W> && matrix_operand<A> && host_vector<U>) ||
                       (device_vector<W> && device_operand<A> && device_vector<U>);

/// Whether a product into a `matrix` stores C dense: the estimated density against
/// options.dense_output_threshold, unless options.output_format pins it; `why` says which.
inline bool dense_output(double est, options const& opt, std::string& why) {
    bool dense = est >= opt.dense_output_threshold;
    if (opt.output_format == output_choice::csr) dense = false;
    if (opt.output_format == output_choice::dense) dense = true;
    why = "estimated output density " + std::to_string(est) + (dense ? " >= " : " < ") +
          std::to_string(opt.dense_output_threshold) + ": " + (dense ? "dense" : "csr") +
          " output" + (opt.output_format != output_choice::automatic ? " [pinned]" : "");
    return dense;
}

/// The masked dot products' work against the masked Gustavson's for C<M> = A (+).(x) Bt', in
/// merge steps and multiply-adds: dot = sum over M's entries (i, j) of the steps of a merge of
/// A(i,:) and Bt(j,:) (kleene::detail::entry_steps: their lengths, or searches from the shorter,
/// or for a hashed row of A, a lookup an entry of Bt(j,:));
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
        auto const arow = std::int64_t(a.row_end(i) - a.row_begin(i));
        auto const mrow = std::int64_t(m.row_end(i) - m.row_begin(i));
        for (std::size_t p = m.row_begin(i); p < m.row_end(i); ++p) {
            auto const j = static_cast<std::size_t>(m.col_idx()[p]);
            dot += kleene::detail::entry_steps(arow, std::int64_t(bt.row_end(j) - bt.row_begin(j)),
                                               mrow);
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

/// Whether C<M> = A (+).(x) B on the device can take the masked Gustavson: M a mask view of a
/// device CSR (whether it is complemented is known at run time) and a CSR C of M's index type,
/// or a dense C (the masked products' CSR result then written back into it).
template <class C, class Mask>
constexpr bool device_masked_saxpy_operands() {
    if constexpr ((is_csr<C> || is_dense<C>) && in_space<C, device> && is_mask_view<Mask>) {
        using MM = std::remove_cvref_t<decltype(*std::declval<Mask>().m)>;
        if constexpr (!(is_csr<MM> && in_space<MM, device>))
            return false;
        else if constexpr (is_csr<C>)
            return std::is_same_v<typename MM::index_type, typename C::index_type>;
        else
            return true;
    } else {
        return false;
    }
}

/// The device CSR matrix the masked products make for output C under a CSR mask of type Mask
/// (device_masked_saxpy_operands): C itself for a CSR C, else a CSR of C's values and the mask's
/// index type. Their CSR operands have this type too.
template <class C, class Mask>
using masked_csr_t = csr_matrix<typename C::value_type,
                                typename std::remove_cvref_t<
                                    decltype(*std::declval<Mask>().m)>::index_type,
                                device>;

/// The CSR mask as the device's masked products read it (its own index type), on opt's stream.
template <class Mask>
auto masked_products_mask(Mask const& mask, options const& opt) {
    using MM = std::remove_cvref_t<decltype(*mask.m)>;
    return cuda::csr_mask<typename MM::index_type>(mask, resolve(opt.ctx));
}

/// C<m, replace> accum= T for a masked product T (device_masked_dot, device_masked_saxpy), the
/// trace's line `head` completed with T's count and how it went into C. T's entries are all where
/// M allows a write, so without an accumulator T is the result when nothing of C outlives the
/// call (C empty, or replace): no merge.
/// A dense C takes T made dense on the device (entries outside T: zero), as the result without an
/// accumulator under replace, else through the masked write-back (the mask's flags made dense).
template <class C, class Mask, class M, class Accum, class T>
void masked_product_into(C& c, Mask const& mask, M const& m, Accum accum, T&& t,
                         typename C::value_type zero, options const& opt, std::string const& head,
                         std::string const& rated = "") {
    if constexpr (is_dense<C>) {
        bool const is_result = std::is_same_v<Accum, no_accum_t> && opt.replace;
        trace(opt, head + std::to_string(t.nnz()) + " of them met" + rated + ")" +
                       (is_result ? ", made dense: the result"
                                  : ", made dense, then the masked write-back into C"));
        auto d = to_dense(t, zero, opt.ctx);
        if (is_result)
            c = std::move(d);
        else
            write_back_result(c, mask, accum, std::move(d), zero, opt, "mxm");
    } else {
        bool const is_result = std::is_same_v<Accum, no_accum_t> && (c.nnz() == 0 || opt.replace);
        trace(opt, head + std::to_string(t.nnz()) + " of them met" + rated + ")" +
                       (is_result ? ", the result" : ", then the masked row merge into C"));
        if (is_result)
            c = std::forward<T>(t);
        else
            cuda::detail::write_back_csr(resolve(opt.ctx), "mxm", c, m, accum, std::forward<T>(t),
                                         opt.replace);
    }
}

/// C<mask, replace> accum= A (+).(x) Bt' by cuda::masked_dot where the model rates it below the
/// transpose and the whole product (cuda::masked_dot_costs, masked_dot_model.hpp: both numbers go
/// to the trace) or kernel masked_dot pins it; returns false, having said why, where the caller
/// takes the old path. A pair this build leaves out runs the old path (the JIT serves its
/// SpGEMM) unless pinned, where the backend's missing_instance says what to rebuild.
template <class C, class Mask, class Accum, class MA, class S>
bool device_masked_dot(C& c, Mask const& mask, Accum accum, MA const& a, MA const& bt, S,
                       options const& opt) {
    using T = typename C::value_type;
    using Index = typename MA::index_type;
    check_device_output<C, Accum>();
    bool const pinned = opt.kernel == kernel_choice::masked_dot;
    if constexpr (cuda::sparse_left_out<S, Index>) {
        if (!pinned) {
            trace(opt, "mxm: masked_dot not taken (this semiring, type and index type are not "
                       "compiled into the CUDA backend: KLEENE_INSTANCES=" KLEENE_INSTANCE_SET ")");
            return false;
        }
    }
    auto m = masked_products_mask(mask, opt);
    std::string rated = "[pinned]";
    if (!pinned) {
        auto const w = cuda::masked_dot_costs(a, bt, m, opt.ctx);
        gpu_masked_dot_rating const r{w.dot, w.flops, bt.nnz()};
        rated = r.text();
        if (!r.dot_wins()) {
            trace(opt, "mxm: masked_dot not taken (" + rated + ")");
            return false;
        }
    }
    csr_matrix<T, Index, device> t(a.rows(), bt.rows());
    cuda::masked_dot<S, Index>(t, m, a, bt, {.ctx = opt.ctx});
    masked_product_into(c, mask, m, accum, std::move(t), S::zero(), opt,
                        "mxm: " + describe(a) + " x the transpose of " +
                            describe(bt) +
                            ": cuda masked_dot (a dot product of A(i,:) and Bt(j,:) for each of "
                            "the mask's " +
                            std::to_string(m.nnz()) + " entries, ",
                        "; " + rated);
    return true;
}

/// C<mask, replace> accum= A (+).(x) B by cuda::masked_saxpy (the products looked up in each
/// row's mask row, none kept outside it), then written back as device_masked_dot does.
template <class C, class Mask, class Accum, class MA, class S>
void device_masked_saxpy(C& c, Mask const& mask, Accum accum, MA const& a, MA const& b, S,
                         options const& opt, std::string const& operands) {
    using T = typename C::value_type;
    using Index = typename MA::index_type;
    check_device_output<C, Accum>();
    auto m = masked_products_mask(mask, opt);
    csr_matrix<T, Index, device> t(a.rows(), b.cols());
    cuda::masked_saxpy<S, Index>(t, m, a, b, {.ctx = opt.ctx});
    masked_product_into(c, mask, m, accum, std::move(t), S::zero(), opt,
                        "mxm: " + operands +
                            ": cuda masked_saxpy (Gustavson, each row's products looked up in its "
                            "mask row's hash table, none kept outside the mask's " +
                            std::to_string(m.nnz()) + " entries; ");
}


/// Whether C<M> = A (+).(x) transpose(Bt) has the masked dot products' operands in C's space:
/// CSR A and Bt of one type and a CSR mask (whether it is complemented is known at run time); on
/// the device also a CSR C of A's type and a mask of C's index type (device_masked_saxpy_operands).
template <class C, class Mask, class A, class B>
constexpr bool masked_dot_operands() {
    if constexpr (is_transposed<B> && !is_transposed<A> && is_mask_view<Mask>) {
        using BM = std::remove_cvref_t<decltype(*std::declval<B>().m)>;
        using MM = std::remove_cvref_t<decltype(*std::declval<Mask>().m)>;
        if constexpr (in_space<C, device>)
            return device_masked_saxpy_operands<C, Mask>() &&
                   std::is_same_v<A, masked_csr_t<C, Mask>> &&
                   std::is_same_v<BM, masked_csr_t<C, Mask>>;
        else
            return is_csr<A> && is_csr<MM> && std::is_same_v<A, BM>;
    } else {
        return false;
    }
}

/// C<mask, replace> accum= A (+).(x) Bt' by masked dot products on the host (cpu::masked_dot)
/// where the model rates their merge steps below Gustavson's multiply-adds and Bt's transpose
/// (masked_dot_costs; both in the trace) or kernel masked_dot pins them; returns false, having
/// said why, where the caller takes the general path.
template <class C, class Mask, class Accum, class M, class S>
bool host_masked_dot(C& c, Mask const& mask, Accum accum, M const& a, M const& bt, S const& s,
                     options const& opt) {
    auto const [dot, saxpy] = masked_dot_costs(a, bt, *mask.m);
    bool const pinned = opt.kernel == kernel_choice::masked_dot;
    std::string const rated = "about " + std::to_string(static_cast<long long>(dot)) +
                              " merge steps against " +
                              std::to_string(static_cast<long long>(saxpy)) +
                              " for the transpose and Gustavson";
    if (!pinned && !(dot < saxpy)) {
        trace(opt, "mxm: masked_dot not taken (" + rated + ")");
        return false;
    }
    trace(opt, "mxm: " + describe(a) + " x transpose of " + describe(bt) +
                   ": masked_dot (a dot product of A(i,:) and B(:,j) for each of the mask's " +
                   std::to_string(mask.m->nnz()) + " entries; " + rated +
                   (pinned ? ") [pinned]" : ")"));
    auto t = cpu::masked_dot(s, a, bt, *mask.m, mask.structural);
    cpu::write_back(c, mask, accum, t, opt.replace, s.zero());
    return true;
}

/// Whether C<M> = A (+).(x) B (A and B as matrices) can take the masked products with a dense B
/// (cpu::masked_dense, cuda::masked_spmm / masked_gemm): M a CSR mask (whether it is complemented
/// is known at run time), B dense, A dense or CSR; on the device also a CSR C, the mask of its
/// index type (device_masked_saxpy_operands) and a CSR A of C's type. Also a dense A and a CSR B
/// (on the device of C's type): cpu::masked_dense_bt and cuda::masked_dot_dense, on B's
/// transpose.
template <class C, class Mask, class MA, class MB>
constexpr bool masked_dense_operands() {
    if constexpr (is_mask_view<Mask> && ((is_dense<MB> && (is_dense<MA> || is_csr<MA>)) ||
                                         (is_dense<MA> && is_csr<MB>))) {
        using MM = std::remove_cvref_t<decltype(*std::declval<Mask>().m)>;
        if constexpr (!is_csr<MM>)
            return false;
        else if constexpr (in_space<C, device>)
            return device_masked_saxpy_operands<C, Mask>() &&
                   (is_dense<MA> || std::is_same_v<MA, masked_csr_t<C, Mask>>) &&
                   (is_dense<MB> || std::is_same_v<MB, masked_csr_t<C, Mask>>);
        else
            return true;
    } else {
        return false;
    }
}

/// C<mask, replace> accum= A (+).(x) B with a dense B under a CSR mask (not complemented) by the
/// masked products, one per entry of the mask (host: cpu::masked_dense; device: cuda::masked_spmm
/// for a CSR A, masked_gemm for a dense one), where kleene/detail/masked_dense_model.hpp rates them
/// below the whole product into a dense temporary and its write-back (both in the trace) or kernel
/// masked_dot pins them; returns false, having said why, where the caller takes the whole product.
template <class C, class Mask, class Accum, class MA, class MB, class S>
bool masked_dense(C& c, Mask const& mask, Accum accum, MA const& a, MB const& b, S const& s,
                  options const& opt, std::string const& operands) {
    constexpr bool on_device = in_space<C, device>;
    constexpr bool csr_a = is_csr<MA>;
    bool const pinned = opt.kernel == kernel_choice::masked_dot;
    double const k = double(a.cols()), n = double(b.cols()), m_rows = double(a.rows());
    [[maybe_unused]] auto const rate = [&](masked_dense_weights const& w, double madds) {
        double whole = m_rows * n * k;
        if constexpr (csr_a) whole = double(a.nnz()) * n;
        return rate_masked_dense(w, csr_a, madds, whole, m_rows * n);
    };
    std::string const head = "mxm: " + operands + ": ";
    if constexpr (on_device) {
        using T = typename C::value_type;
        using Index = typename masked_csr_t<C, Mask>::index_type;
        check_device_output<C, Accum>();
        if constexpr (cuda::sparse_left_out<S, Index>) {
            if (!pinned) {
                trace(opt, "mxm: masked products with a dense B not taken (this semiring, type and "
                           "index type are not compiled into the CUDA backend: "
                           "KLEENE_INSTANCES=" KLEENE_INSTANCE_SET ")");
                return false;
            }
        }
        auto m = masked_products_mask(mask, opt);
        std::string rated = "[pinned]";
        // Into a dense C both sides make its m x n entries (masked_dense_model.hpp).
        masked_dense_weights const gpu_weights =
            is_dense<C> ? gpu_masked_dense_into_dense : gpu_masked_dense;
        if constexpr (is_csr<MB>) {
            // A dense, B CSR: B' made on the device, then a thread per mask entry walks Bt(j,:);
            // the other path makes B dense (k x n) for the GEMM. The masked side is estimated
            // from B's mean column length.
            if (!pinned) {
                double const madds = double(m.nnz()) * (n > 0 ? double(b.nnz()) / n : 0.0);
                masked_dense_weights w = gpu_weights;
                w.spmm = 1;  // the whole product is the GEMM's
                auto const r = rate_masked_dense(w, true, madds + 4.0 * double(b.nnz()),
                                                 m_rows * n * k, m_rows * n + k * n);
                rated = r.text();
                if (!r.masked_wins()) {
                    trace(opt, "mxm: masked products with a dense A and a CSR B not taken (" +
                                   rated + ")");
                    return false;
                }
            }
            auto const& bt = materialize_any(kleene::transpose(b), opt, "mxm");
            csr_matrix<T, Index, device> t(a.rows(), b.cols());
            cuda::masked_dot_dense<S, Index>(t, m, a.view(), bt, {.ctx = opt.ctx});
            masked_product_into(c, mask, m, accum, std::move(t), s.zero(), opt,
                                head + "cuda masked_dot_dense (a product of A(i,:) and B(:,j) "
                                       "for each of the mask's " +
                                    std::to_string(m.nnz()) + " entries, ",
                                "; " + rated);
        } else {
            if (!pinned) {
                double madds = 0;
                if constexpr (csr_a)
                    madds = cuda::masked_spmm_work<Index>(a.row_ptr(), m, opt.ctx);
                else
                    madds = double(m.nnz()) * k;
                auto const r = rate(gpu_weights, madds);
                rated = r.text();
                if (!r.masked_wins()) {
                    trace(opt, "mxm: masked products with a dense B not taken (" + rated + ")");
                    return false;
                }
            }
            csr_matrix<T, Index, device> t(a.rows(), b.cols());
            cuda::sparse_options const sopt{.ctx = opt.ctx};
            if constexpr (csr_a)
                cuda::masked_spmm<S, Index>(t, m, a, b.view(), sopt);
            else
                cuda::masked_gemm<S, Index>(t, m, a.view(), b.view(), sopt);
            masked_product_into(c, mask, m, accum, std::move(t), s.zero(), opt,
                                head + (csr_a ? "cuda masked_spmm" : "cuda masked_gemm") +
                                    " (a product of A(i,:) and B(:,j) for each of the mask's " +
                                    std::to_string(m.nnz()) + " entries, ",
                                "; " + rated);
        }
    } else if constexpr (is_csr<MB>) {
        // A dense, B CSR: the masked products read Bt(j,:) for each mask entry (i, j), B's
        // transpose made first; the whole product is dense_csr (each A(i,k) times B's row k).
        auto const& mm = *mask.m;
        std::string rated = "[pinned]";
        if (!pinned) {
            std::vector<double> col_len(b.cols(), 0.0);
            for (std::size_t q = 0; q < b.nnz(); ++q)
                col_len[static_cast<std::size_t>(b.col_idx()[q])] += 1;
            double madds = 0;
            for (std::size_t q = 0; q < mm.nnz(); ++q)
                madds += col_len[static_cast<std::size_t>(mm.col_idx()[q])];
            masked_dense_weights w = cpu_masked_dense;
            w.spmm = cpu_dense_csr_madd;
            auto const r = rate_masked_dense(w, true, madds + 4.0 * double(b.nnz()),
                                             m_rows * double(b.nnz()), m_rows * n);
            rated = r.text();
            if (!r.masked_wins()) {
                trace(opt, "mxm: masked products with a dense A and a CSR B not taken (" + rated +
                               ")");
                return false;
            }
        }
        trace(opt, head + "B transposed, then masked_dense_bt (a product of A(i,:) and B(:,j) for "
                          "each of the mask's " +
                       std::to_string(mm.nnz()) + " entries; " + rated + ")");
        auto const bt = cpu::transpose_csr(b);
        auto t = cpu::masked_dense_bt(s, a.view(), bt, mm, mask.structural);
        cpu::write_back(c, mask, accum, t, opt.replace, s.zero());
    } else {
        auto const& mm = *mask.m;
        std::string rated = "[pinned]";
        if (!pinned) {
            double madds = double(mm.nnz()) * k;
            if constexpr (csr_a) {
                madds = 0;
                for (std::size_t i = 0; i < mm.rows(); ++i)
                    madds += double(mm.row_end(i) - mm.row_begin(i)) *
                             double(a.row_end(i) - a.row_begin(i));
            }
            auto const r = rate(cpu_masked_dense, madds);
            rated = r.text();
            if (!r.masked_wins()) {
                trace(opt, "mxm: masked products with a dense B not taken (" + rated + ")");
                return false;
            }
        }
        trace(opt, head + "masked_dense (a product of A(i,:) and B(:,j) for each of the mask's " +
                       std::to_string(mm.nnz()) + " entries; " + rated + ")");
        auto t = [&] {
            if constexpr (csr_a)
                return cpu::masked_dense(s, a, b.view(), mm, mask.structural);
            else
                return cpu::masked_dense(s, a.view(), b.view(), mm, mask.structural);
        }();
        cpu::write_back(c, mask, accum, t, opt.replace, s.zero());
    }
    return true;
}

template <class T>
dense_view<T, device> column_view(dense_vector<T, device>& v) {
    return {v.data(), v.size(), 1, 1};
}
template <class T>
dense_view<T const, device> column_view(dense_vector<T, device> const& v) {
    return {v.data(), v.size(), 1, 1};
}
template <class T>
dense_view<T, device> row_view(dense_vector<T, device>& v) {
    return {v.data(), 1, v.size(), v.size()};
}
template <class T>
dense_view<T const, device> row_view(dense_vector<T, device> const& v) {
    return {v.data(), 1, v.size(), v.size()};
}

/// w<mask, replace> accum= A (+).(x) u for a device A (CSR or dense) and dense u, w.
template <class S, class W, class Mask, class Accum, class A, class U>
void mxv_device(char const* name, W& w, Mask const& mask, Accum accum, A const& a, U const& u,
                options const& opt, std::string const& operands) {
    using T = typename S::value_type;
    constexpr bool fused = std::is_same_v<Mask, no_mask_t> &&
                           (std::is_same_v<Accum, no_accum_t> || accum_is_add<Accum, S>());
    constexpr bool accumulate = !std::is_same_v<Accum, no_accum_t>;
    if constexpr (is_csr<A>) {
        using Index = typename A::index_type;
        cuda::sparse_options sopt{.ctx = opt.ctx, .explain = opt.explain};
        if constexpr (std::is_same_v<Accum, no_accum_t> || accum_is_add<Accum, S>()) {
            // spmv applies the mask, replace and the semiring's add itself.
            sopt.accumulate = accumulate;
            sopt.replace = opt.replace;
            auto const ran = cuda::spmv<S, Index>(w, device_mask<W>(mask, opt.ctx), a, u, sopt);
            trace(opt, std::string(name) + ": " + operands + ": cuda spmv (" +
                           std::string(cuda::to_string(ran)) + ")");
        } else {
            dense_vector<T, device> t(w.size());
            auto const ran = cuda::spmv<S, Index>(t, cuda::vector_mask{}, a, u, sopt);
            trace(opt, std::string(name) + ": " + operands + ": cuda spmv (" +
                           std::string(cuda::to_string(ran)) +
                           ") into a temporary, then the masked write-back");
            write_back_result(w, mask, accum, std::move(t), S::zero(), opt, name);
        }
    } else if constexpr (fused) {
        trace(opt, std::string(name) + ": " + operands + ": cuda dense_gemm with one column");
        cuda::dense_gemm<S>(a.view(), column_view(u), column_view(w), accumulate,
                            resolve(opt.ctx));
    } else {
        trace(opt, std::string(name) + ": " + operands +
                       ": cuda dense_gemm with one column into a temporary, then the masked "
                       "write-back");
        dense_vector<T, device> t(w.size());
        cuda::dense_gemm<S>(a.view(), column_view(u), column_view(t), false, resolve(opt.ctx));
        write_back_result(w, mask, accum, std::move(t), S::zero(), opt, name);
    }
}
}  // namespace detail

/// C<mask, replace> accum= A (+).(x) B over semiring S: host or device containers (one space a
/// call), A and B possibly transpose views; one body.
/// - C<M> = A B' with B given as transpose(Bt), CSR A and Bt of one type and a CSR mask (not
///   complemented): masked dot products, one per entry of the mask, where their model rates them
///   below the transpose and the whole product (host: merge steps against Gustavson's
///   multiply-adds; device: cuda::masked_dot_costs against the SpGEMM's work, on a CSR C of A's
///   type) or kernel masked_dot pins them. Otherwise a transpose view is made a matrix (traced).
/// - B dense (A dense or CSR; on the host also A dense and B CSR) under a CSR mask (not
///   complemented): the masked products, one per entry of the mask (cpu::masked_dense,
///   cpu::masked_dense_bt; device: cuda::masked_gemm / masked_spmm into a CSR C),
///   where kleene/detail/masked_dense_model.hpp rates them below the whole product into a dense
///   temporary and its write-back, or kernel masked_dot pins them.
/// - dense x dense: the blocked GEMM (cpu::dense_gemm, cuda::dense_gemm), straight into a dense C
///   without a mask (accumulating where the accumulator is the semiring's add).
/// - CSR x dense: SpMM (row i of C accumulates rows of B).
/// - dense x CSR: the CPU's dense_csr; on the device B is made dense, then the GEMM.
/// - CSR x CSR: on the host Gustavson with a dense or a hash accumulator (by the columns and the
///   multiply-adds a row; masked entries skipped), or straight into a dense C's rows; on the
///   device the SpGEMM (into a CSR C) or spgemm_dense (a dense C), and under a CSR mask (not
///   complemented) into a CSR C the masked Gustavson (cuda::masked_saxpy: only the mask's entries
///   accumulated; kernel gustavson_hash pins it).
/// A product that cannot go straight into C goes into a temporary of C's space, which the space's
/// masked write-back merges into C (write_back_result). On the device a product computed densely
/// into a CSR C is made CSR there, entries equal to the semiring's zero dropped as on the host.
template <class C, mask_type Mask, accumulator_type Accum, class A, class B, semiring_object S>
    requires detail::mxm_operands<C, A, B>
void mxm(C& c, Mask const& mask, Accum accum, A const& a_in, B const& b_in, S const& s,
         options const& opt = {}) {
    detail::check_types<S, C, A, B>();
    using T = typename S::value_type;
    using Space = detail::space_of_t<C>;
    constexpr bool on_device = std::is_same_v<Space, device>;
    if constexpr (on_device)
        static_assert(semiring_type<S>,
                      "kleene::mxm on the device takes a semiring whose operations are static "
                      "members (a user's semiring at run time: kleene/cuda/jit.hpp)");
    detail::check_product_shapes(c, a_in, b_in, detail::describe(a_in), detail::describe(b_in));
    detail::check_mask("mxm", mask, c);
    [[maybe_unused]] auto const scope = detail::enter_space<C>("mxm", opt, "on the GPU");
    kernel_choice const pin = opt.kernel;
    if constexpr (detail::masked_dot_operands<C, Mask, A, B>()) {
        if (!mask.complemented &&
            (pin == kernel_choice::automatic || pin == kernel_choice::masked_dot)) {
            bool done;
            if constexpr (on_device)
                done = detail::device_masked_dot(c, mask, accum, a_in, *b_in.m, S{}, opt);
            else
                done = detail::host_masked_dot(c, mask, accum, a_in, *b_in.m, s, opt);
            if (done) return;
        }
    }
    auto const& a = detail::materialize_any(a_in, opt, "mxm");
    auto const& b = detail::materialize_any(b_in, opt, "mxm");
    using MA = std::remove_cvref_t<decltype(a)>;
    using MB = std::remove_cvref_t<decltype(b)>;
    constexpr bool no_mask_given = std::is_same_v<Mask, no_mask_t>;
    constexpr bool plain = no_mask_given && std::is_same_v<Accum, no_accum_t>;
    if constexpr (detail::is_dense<C> &&
                  (!on_device || detail::gpu_value<typename C::value_type>)) {
        // C is also a dense operand (C = A C, C = C C): the kernels write C's rows while later
        // rows still read the operand. The call runs on a copy of C (the operands and the mask
        // still read C), which is then copied into C's own storage.
        auto const shared = [&](auto const& x) {
            if constexpr (detail::is_dense<std::remove_cvref_t<decltype(x)>>)
                return detail::views_overlap(c.view(), x.view());
            else
                return false;
        };
        if (shared(a) || shared(b)) {
            C t(c.rows(), c.cols());
            if constexpr (!plain) detail::copy_into(t, c, opt);
            detail::trace(opt, "mxm: C is also an operand: the product into a copy of C, then "
                               "copied into C");
            mxm(t, mask, accum, a, b, s, opt);
            detail::copy_into(c, t, opt);
            return;
        }
    }
    if constexpr (detail::masked_dense_operands<C, Mask, MA, MB>()) {
        if (!mask.complemented &&
            (pin == kernel_choice::automatic || pin == kernel_choice::masked_dot) &&
            detail::masked_dense(c, mask, accum, a, b, s, opt,
                                 detail::describe(a) + " x " + detail::describe(b)))
            return;
    }
    if (pin == kernel_choice::masked_dot)
        throw invalid_argument(
            std::string("mxm: kernel masked_dot computes C<M> = A B' with CSR A and B of one type, "
                        "or C<M> = A B with a dense B and a dense or CSR A, or a dense A and a "
                        "CSR B, under a CSR mask M (not complemented)") +
            (on_device ? ", on the GPU the CSR operands (and a CSR C) of C's value type and M's "
                         "index type"
                       : "") +
            "; for CSR B use mxm(C, mask, accum, A, transpose(Bt), ...)");
    constexpr bool accumulate = !std::is_same_v<Accum, no_accum_t>;
    // C accum= the product in one pass: no mask, and no accumulator or the semiring's own add.
    constexpr bool fusable =
        detail::is_dense<C> && no_mask_given &&
        (std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>());
    std::string const operands = detail::describe(a) + " x " + detail::describe(b);
    T const zero = s.zero();
    cuda::sparse_options sopt{.ctx = opt.ctx};

    if constexpr (on_device && detail::is_csr<C> && !(detail::is_csr<MA> && detail::is_csr<MB>)) {
        // A product computed densely into a CSR C: the dense product, then made CSR on the device
        // and written back.
        dense_matrix<T, device> d(a.rows(), b.cols());
        options inner = opt;
        inner.replace = false;
        mxm(d, no_mask, no_accum, a, b, s, inner);
        detail::trace(opt, std::string("mxm: the dense product made CSR on the device") +
                               (plain ? "" : ", then the masked row merge into C"));
        detail::write_back_result(c, mask, accum, std::move(d), zero, opt, "mxm");
    } else if constexpr (detail::is_dense<MA> && detail::is_dense<MB>) {
        static_assert(semiring_type<S>,
                      "kleene::mxm: the dense GEMM takes a semiring whose operations are static "
                      "members; multiply a run-time semiring's dense operands as CSR (to_csr)");
        if (pin != kernel_choice::automatic && pin != kernel_choice::dense_gemm)
            detail::bad_pin("mxm", pin, operands);
        auto const gemm = [&](auto&& out, bool acc) {
            if constexpr (on_device)
                cuda::dense_gemm<S>(a.view(), b.view(), out.view(), acc, resolve(opt.ctx));
            else
                cpu::dense_gemm<dense_safe<S>>(a.view(), b.view(), out.view(), acc);
        };
        if constexpr (fusable) {
            detail::trace(opt, "mxm: " + operands +
                                   (on_device ? std::string(": cuda dense_gemm") +
                                                    (accumulate ? " (accumulating into C)" : "")
                                              : std::string(" -> dense: dense_gemm (blocked, "
                                                            "register-tiled") +
                                                    (accumulate ? ", accumulating into C)" : ")")));
            gemm(c, accumulate);
        } else if constexpr (on_device && detail::is_dense<C> && !no_mask_given) {
            // The GEMM computes only the 128 x 128 tiles of the temporary that hold an entry the
            // mask allows; the write-back reads it through the same flags.
            detail::sampled_into_dense_device(c, mask, accum, zero, opt, [&](auto& t, auto& dm) {
                cuda::dense_gemm<S>(a.view(), b.view(), t.view(), dm, resolve(opt.ctx));
            });
            detail::trace(opt, "mxm: " + operands +
                                   ": cuda dense_gemm over the 128 x 128 tiles that hold an entry "
                                   "the mask allows, into a temporary, then the masked write-back");
        } else {
            dense_matrix<T, Space> t(a.rows(), b.cols());
            bool sampled = false;
            if constexpr (!on_device && !no_mask_given) {
                // Under a mask that leaves a quarter of C's blocks or more without an allowed
                // entry, only the others are computed (cpu/dense_gemm_sampled.hpp).
                auto const blocks = cpu::live_blocks(mask, a.rows(), b.cols());
                if (4 * blocks.count < 3 * blocks.live.size()) {
                    detail::trace(opt, "mxm: " + operands + ": dense_gemm over the " +
                                           std::to_string(blocks.count) + " of " +
                                           std::to_string(blocks.live.size()) +
                                           " blocks of 256 x 256 that hold an entry the mask "
                                           "allows, into a temporary, then mask/accumulate");
                    cpu::dense_gemm_blocks<dense_safe<S>>(a.view(), b.view(), t.view(), blocks);
                    sampled = true;
                }
            }
            if (!sampled) {
                detail::trace(opt, "mxm: " + operands +
                                       (on_device ? ": cuda dense_gemm into a temporary, then the "
                                                    "masked write-back"
                                                  : ": dense_gemm into a temporary, then "
                                                    "mask/accumulate"));
                gemm(t, false);
            }
            detail::write_back_result(c, mask, accum, std::move(t), zero, opt, "mxm");
        }
    } else if constexpr (detail::is_csr<MA> && detail::is_dense<MB>) {
        if (pin != kernel_choice::automatic && pin != kernel_choice::csr_dense)
            detail::bad_pin("mxm", pin, operands);
        // The CPU's SpMM writes C whole; the backend's also accumulates with the semiring's add.
        constexpr bool fused = fusable && (on_device || !accumulate);
        auto const spmm = [&](auto& out, bool acc) -> std::string {
            if constexpr (on_device) {
                sopt.accumulate = acc;
                auto const ran =
                    cuda::spmm<S, typename MA::index_type>(out.view(), a, b.view(), sopt);
                return ": cuda spmm (" + std::string(cuda::to_string(ran)) + ")";
            } else {
                cpu::csr_dense(s, a, b.view(), out);
                return ": csr_dense (SpMM, row i of C accumulates rows of B)";
            }
        };
        if constexpr (fused) {
            std::string const ran = spmm(c, accumulate);
            detail::trace(opt, "mxm: " + operands + ran +
                                   (accumulate ? ", accumulating into C" : ""));
        } else if constexpr (on_device && detail::is_dense<C> && !no_mask_given) {
            // The SpMM computes only the entries the mask allows (a row's passes of 128 columns
            // it wholly forbids skipped); the write-back reads the temporary through the same
            // flags.
            std::string ran;
            detail::sampled_into_dense_device(c, mask, accum, zero, opt, [&](auto& t, auto& dm) {
                sopt.sample = &dm;
                ran = spmm(t, false);
                sopt.sample = nullptr;
            });
            detail::trace(opt, "mxm: " + operands + ran +
                                   (ran.find("cusparse") != std::string::npos
                                        ? " into a temporary (all of it: cuSPARSE takes no mask)"
                                        : " of the entries the mask allows, into a temporary") +
                                   ", then the masked write-back");
        } else if constexpr (!on_device && !no_mask_given) {
            // Each row's columns from the first to the last entry the mask allows (a triangle
            // halves the work, a band keeps only its width). Into a dense C each row goes through
            // the mask straight into C; into a CSR C a temporary, then the write-back.
            double const all = double(a.rows()) * double(b.cols());
            auto const share = [&](std::size_t covered) {
                return " over each row's columns from the first to the last entry the mask "
                       "allows (" +
                       std::to_string(all > 0 ? int(100.0 * double(covered) / all + 0.5) : 0) +
                       "% of C)";
            };
            if constexpr (detail::is_dense<C>) {
                std::size_t const covered =
                    cpu::csr_dense_masked<Accum>(s, a, b.view(), c, mask, opt.replace, zero);
                detail::trace(opt, "mxm: " + operands + ": csr_dense (SpMM)" + share(covered) +
                                       ", each row through the mask into C");
            } else {
                auto const spans = cpu::allowed_spans(mask, a.rows(), b.cols());
                dense_matrix<T> t(a.rows(), b.cols());
                cpu::csr_dense(s, a, b.view(), t, &spans);
                detail::trace(opt, "mxm: " + operands + ": csr_dense (SpMM)" +
                                       share(spans.covered) +
                                       ", into a temporary, then mask/accumulate");
                detail::write_back_result(c, mask, accum, std::move(t), zero, opt, "mxm");
            }
        } else {
            dense_matrix<T, Space> t(a.rows(), b.cols());
            std::string const ran = spmm(t, false);
            detail::trace(opt, "mxm: " + operands + ran +
                                   (on_device ? " into a temporary, then the masked write-back"
                                              : ""));
            detail::write_back_result(c, mask, accum, std::move(t), zero, opt, "mxm");
        }
    } else if constexpr (detail::is_dense<MA> && detail::is_csr<MB>) {
        if constexpr (on_device) {
            // No dense x CSR kernel on the device: B is made dense there (k x n), then the GEMM.
            detail::trace(opt, "mxm: " + operands + ": B made dense on the device for the GEMM");
            dense_matrix<T, device> const bd = to_dense(b, zero, opt.ctx);
            mxm(c, mask, accum, a, bd, s, opt);
        } else {
            if (pin != kernel_choice::automatic && pin != kernel_choice::dense_csr)
                detail::bad_pin("mxm", pin, operands);
            detail::trace(opt, "mxm: " + operands +
                                   ": dense_csr (row i of C accumulates rows of B)");
            if constexpr (detail::is_dense<C> && plain) {
                cpu::dense_csr(s, a.view(), b, c);
            } else {
                dense_matrix<T> t(a.rows(), b.cols());
                cpu::dense_csr(s, a.view(), b, t);
                detail::write_back_result(c, mask, accum, std::move(t), zero, opt, "mxm");
            }
        }
    } else {
        static_assert(std::is_same_v<typename MA::index_type, typename MB::index_type>,
                      "mxm: CSR operands must share an index type");
        using Index = typename MA::index_type;
        if constexpr (on_device) {
            constexpr bool saxpy_operands = [] {
                if constexpr (detail::device_masked_saxpy_operands<C, Mask>())
                    return std::is_same_v<MA, detail::masked_csr_t<C, Mask>>;
                else
                    return false;
            }();
            if (pin != kernel_choice::automatic &&
                !(saxpy_operands && pin == kernel_choice::gustavson_hash))
                detail::bad_pin("mxm", pin,
                                operands + " on the GPU (its kernel choice is its own, but for "
                                           "gustavson_hash under a CSR mask: the masked "
                                           "Gustavson)");
            if constexpr (saxpy_operands) {
                // Under a CSR mask (not complemented) the masked Gustavson: the unmasked
                // product's multiply-adds, none of its entries outside the mask made. A pair this
                // build leaves out takes the whole product (the JIT serves its SpGEMM) unless
                // pinned.
                bool const pinned = pin == kernel_choice::gustavson_hash;
                if (mask.complemented) {
                    if (pinned)
                        throw invalid_argument("mxm: gustavson_hash on the GPU under a mask is "
                                               "the masked Gustavson, which takes a mask that is "
                                               "not complemented");
                } else if (pinned || !cuda::sparse_left_out<S, Index>) {
                    detail::device_masked_saxpy(c, mask, accum, a, b, S{}, opt, operands);
                    return;
                } else {
                    detail::trace(opt, "mxm: masked_saxpy not taken (this semiring, type and "
                                       "index type are not compiled into the CUDA backend: "
                                       "KLEENE_INSTANCES=" KLEENE_INSTANCE_SET ")");
                }
            }
            if constexpr (detail::is_dense<C>) {
                if constexpr (fusable) {
                    sopt.accumulate = accumulate;
                    cuda::spgemm_dense<S, Index>(c.view(), a, b, sopt);
                    detail::trace(opt, "mxm: " + operands +
                                           ": cuda spgemm_dense (a warp per row, dense row "
                                           "accumulator)" +
                                           (accumulate ? ", accumulating into C" : ""));
                } else if constexpr (!no_mask_given) {
                    // Only the products into entries the mask allows; the write-back reads the
                    // temporary through the same flags.
                    detail::sampled_into_dense_device(c, mask, accum, zero, opt,
                                                      [&](auto& t, auto& dm) {
                                                          sopt.sample = &dm;
                                                          cuda::spgemm_dense<S, Index>(
                                                              t.view(), a, b, sopt);
                                                          sopt.sample = nullptr;
                                                      });
                    detail::trace(opt, "mxm: " + operands +
                                           ": cuda spgemm_dense of the products into entries "
                                           "the mask allows, into a temporary, then the masked "
                                           "write-back");
                } else {
                    dense_matrix<T, device> t(a.rows(), b.cols());
                    cuda::spgemm_dense<S, Index>(t.view(), a, b, sopt);
                    detail::trace(opt, "mxm: " + operands +
                                           ": cuda spgemm_dense into a temporary, then the "
                                           "accumulator's write-back");
                    detail::write_back_result(c, mask, accum, std::move(t), zero, opt, "mxm");
                }
            } else {
                static_assert(std::is_same_v<typename C::index_type, Index>,
                              "kleene::mxm on the device: a CSR C has its operands' index type");
                csr_matrix<T, Index, device> t(a.rows(), b.cols());
                auto const ran = cuda::spgemm<S, Index>(t, a, b, sopt);
                detail::trace(opt, "mxm: " + operands + ": cuda spgemm (" +
                                       std::string(cuda::to_string(ran)) + ")" +
                                       (plain ? "" : ", then the masked row merge into C"));
                detail::write_back_result(c, mask, accum, std::move(t), zero, opt, "mxm");
            }
        } else {
            if (pin != kernel_choice::automatic && pin != kernel_choice::gustavson_dense &&
                pin != kernel_choice::gustavson_hash)
                detail::bad_pin("mxm", pin, operands);
            if constexpr (detail::is_dense<C> && plain) {
                if (pin != kernel_choice::gustavson_hash) {  // a hash pin takes the path below
                    detail::trace(opt, "mxm: " + operands +
                                           " -> dense: gustavson_dense straight into C's rows");
                    cpu::gustavson_dense_out(s, a, b, c);
                    return;
                }
            }
            // A dense accumulator costs b.cols() values per thread and a cache miss per update
            // when the columns are many and the rows short; a per-row hash table then wins.
            double const avg_row = a.rows() ? double(a.nnz()) / double(a.rows()) : 0.0;
            double const avg_b = b.rows() ? double(b.nnz()) / double(b.rows()) : 0.0;
            double const flops_per_row = avg_row * avg_b;
            bool hash = b.cols() > (1u << 18) && flops_per_row * 256 < double(b.cols());
            if (pin == kernel_choice::gustavson_hash) hash = true;
            if (pin == kernel_choice::gustavson_dense) hash = false;
            detail::trace(opt, "mxm: " + operands + ": " +
                                   (hash ? "gustavson_hash (hash accumulator per row: "
                                         : "gustavson_dense (dense accumulator per thread: ") +
                                   std::to_string(b.cols()) + " columns, about " +
                                   std::to_string(static_cast<long long>(flops_per_row)) +
                                   " multiply-adds per row)" +
                                   (no_mask_given ? "" : ", masked entries skipped") +
                                   (pin != kernel_choice::automatic ? " [pinned]" : ""));
            auto const acc =
                hash ? cpu::spgemm_accumulator::hash : cpu::spgemm_accumulator::dense;
            auto t = cpu::gustavson(s, a, b, mask, acc, opt.dense_row_threshold);
            detail::write_back_result(c, mask, accum, std::move(t), zero, opt, "mxm");
        }
    }
}

/// C = A (+).(x) B.
template <class C, class A, class B, semiring_object S>
    requires detail::mxm_operands<C, A, B>
void mxm(C& c, A const& a, B const& b, S const& s, options const& opt = {}) {
    mxm(c, no_mask, no_accum, a, b, s, opt);
}

/// C = A (+).(x) B into a `matrix` of either space, whose storage follows the estimated output
/// density: row i of a random product holds about cols * (1 - exp(-f_i / cols)) entries for f_i
/// multiply-adds (on the device cuda::product_density computes the same estimate), and when the
/// estimate passes options.dense_output_threshold C is dense (no sort, no index arrays).
template <class T, index_type Index, class Space, semiring_type S>
void mxm(matrix<T, Index, Space>& c, csr_matrix<T, Index, Space> const& a,
         csr_matrix<T, Index, Space> const& b, S s, options const& opt = {}) {
    static_assert(std::is_same_v<T, typename S::value_type>,
                  "kleene: the containers' value types must equal the semiring's value_type");
    constexpr bool on_device = std::is_same_v<Space, device>;
    if (a.cols() != b.rows())
        throw dimension_mismatch("mxm: cannot multiply A (" + detail::describe(a) + ") by B (" +
                                 detail::describe(b) + ")");
    if constexpr (on_device) detail::device_call("mxm", opt, "on the GPU");
    double est = 0;
    if constexpr (on_device) {
        est = cuda::product_density(a, b, opt.ctx);
    } else {
        auto const prefix = cpu::detail::row_flops_prefix(a, b);
        double const cols = double(b.cols());
        if (a.rows() > 0 && b.cols() > 0) {
            for (std::size_t i = 0; i < a.rows(); ++i)
                est += 1.0 - std::exp(-double(prefix[i + 1] - prefix[i] - 1) / cols);
            est /= double(a.rows());
        }
    }
    std::string why;
    bool const dense = detail::dense_output(est, opt, why);
    detail::trace(opt, "mxm: " +
                           (on_device ? detail::describe(a) + " x " + detail::describe(b) +
                                            " on the GPU: "
                                      : std::string()) +
                           why);
    if (dense) {
        dense_matrix<T, Space> d(a.rows(), b.cols());
        mxm(d, a, b, s, opt);
        c = matrix<T, Index, Space>(std::move(d), S::zero());
    } else {
        csr_matrix<T, Index, Space> r(a.rows(), b.cols());
        mxm(r, a, b, s, opt);
        c = matrix<T, Index, Space>(std::move(r));
    }
}

/// w<mask, replace> accum= A (+).(x) u: host or device containers (one space a call), one body.
/// Host: A CSR -> spmv_pull (one dot product per row; rows outside the mask skipped; dense u and w
/// without a mask: no presence flags), A dense -> dense_mv, then the mask and accumulator; A given
/// as transpose(M) -> computed as vxm(u, M) with mul's operands swapped (a push, no transpose
/// made) unless spmv_pull is pinned. Device: w dense; A CSR -> cuda spmv (mask, replace and an
/// accumulator that is the semiring's add applied by the kernel, other accumulators through a
/// temporary and the masked write-back), A dense -> the GEMM with one column; a sparse u made
/// dense and a transposed A made on the device first. For a sparse frontier, vxm with A's
/// transpose (push) touches only its rows.
template <class W, mask_type Mask, accumulator_type Accum, class A, class U, semiring_object S>
    requires detail::mxv_operands<W, A, U>
void mxv(W& w, Mask const& mask, Accum accum, A const& a_in, U const& u, S const& s,
         options const& opt = {}) {
    detail::check_types<S, W, A, U>();
    using T = typename S::value_type;
    constexpr bool on_device = detail::in_space<W, device>;
    if constexpr (on_device) {
        static_assert(semiring_type<S>,
                      "kleene::mxv on the device takes a semiring whose operations are static "
                      "members (a user's semiring at run time: kleene/cuda/jit.hpp)");
        static_assert(detail::is_dense_vec<W>,
                      "kleene::mxv on the device writes a dense w; for a sparse frontier use "
                      "vxm(w, u, A') (a push over the rows of A')");
    }
    if (a_in.cols() != u.size())
        throw dimension_mismatch("mxv: cannot multiply A (" + detail::describe(a_in) +
                                 ") by u (" + detail::describe(u) + ")");
    if (w.size() != a_in.rows())
        throw dimension_mismatch("mxv: output w has size " + std::to_string(w.size()) +
                                 " but A has " + std::to_string(a_in.rows()) + " rows");
    detail::check_mask("mxv", mask, w);
    [[maybe_unused]] auto const scope = detail::enter_space<W>("mxv", opt, "on the GPU");
    if constexpr (detail::is_dense_vec<W> && detail::is_dense_vec<U> &&
                  (!on_device || detail::gpu_value<T>)) {
        // w is also u (w = A w): a kernel writes w while other rows still read u, so the call
        // reads a copy of u.
        if (detail::vectors_overlap(w, u)) {
            detail::trace(opt, "mxv: w is also u: u copied first");
            mxv(w, mask, accum, a_in, detail::copy_of(u, opt), s, opt);
            return;
        }
    }
    if constexpr (is_transposed<A> && !on_device && semiring_type<S>) {
        if (opt.kernel != kernel_choice::spmv_pull) {
            detail::trace(opt, "mxv: A is the " + detail::describe(a_in) +
                                   ": computed as vxm(u, A), no transpose materialised");
            options o = opt;
            if (o.kernel == kernel_choice::spmspv_push) o.kernel = kernel_choice::automatic;
            vxm(w, mask, accum, u, *a_in.m, swapped_mul<S>{}, o);
            return;
        }
    }
    if (opt.kernel == kernel_choice::spmspv_push)
        throw invalid_argument(
            "mxv: kernel spmspv_push needs A's transpose; use vxm(u, transpose of A)");
    if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmv_pull)
        detail::bad_pin("mxv", opt.kernel, detail::describe(a_in) + " x " + detail::describe(u));
    auto const& a = detail::materialize_any(a_in, opt, "mxv");
    using MA = std::remove_cvref_t<decltype(a)>;
    std::string const operands = detail::describe(a) + " x " + detail::describe(u);
    T const zero = s.zero();
    if constexpr (on_device) {
        if constexpr (detail::is_sparse_vec<U>) {
            detail::trace(opt, "mxv: " + operands + ": u made dense on the device");
            detail::mxv_device<S>("mxv", w, mask, accum, a, to_dense(u, zero, opt.ctx), opt,
                                  operands);
        } else {
            detail::mxv_device<S>("mxv", w, mask, accum, a, u, opt, operands);
        }
    } else if constexpr (detail::is_csr<MA> && detail::is_dense_vec<W> &&
                         detail::is_dense_vec<U> && std::is_same_v<Mask, no_mask_t> &&
                         zero_annihilates<S>() &&
                         (std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>())) {
        // Dense in, dense out: absent entries are zero on both sides, so no flags and no
        // write-back.
        detail::trace(opt, "mxv: " + operands + ": spmv_pull (dense u and w, no presence flags)");
        cpu::spmv_pull_dense(s, a, u.data(), w.data(), !std::is_same_v<Accum, no_accum_t>);
    } else {
        auto const x = detail::load_vector(u, zero);
        auto const allowed = detail::prefilter(mask, w.size());
        cpu::vector_result<T> t;
        if constexpr (detail::is_csr<MA>) {
            detail::trace(opt, "mxv: " + operands + ": spmv_pull (one dot product per row" +
                                   std::string(std::is_same_v<Mask, no_mask_t>
                                                   ? ""
                                                   : ", rows outside the mask skipped") +
                                   (S::has_terminal ? ", early exit on the terminal value)" : ")"));
            t = cpu::spmv_pull(s, a, x, allowed);
        } else {
            detail::trace(opt, "mxv: " + operands + ": dense_mv");
            t = cpu::dense_mv(s, a.view(), x, allowed);
        }
        cpu::write_back(w, mask, accum, t, opt.replace, zero);
    }
}

template <class W, class A, class U, semiring_object S>
    requires detail::mxv_operands<W, A, U>
void mxv(W& w, A const& a, U const& u, S const& s, options const& opt = {}) {
    mxv(w, no_mask, no_accum, a, u, s, opt);
}

/// w<mask, replace> accum= u (+).(x) A: host or device containers (one space a call), one body.
/// Host: A CSR -> spmspv_push (the rows of A that u's entries name scattered; masked columns
/// skipped), A dense -> dense_vm, then the mask and accumulator; A given as transpose(M) ->
/// computed as mxv(M, u) with mul's operands swapped (a pull, no transpose made) unless
/// spmspv_push is pinned. Device:
/// - u and w sparse, A CSR: cuda spmspv, a push over the rows of A that u names (load-balanced
///   over their edges). It writes all of w, so it takes no accumulator, and a mask with replace
///   or an empty w (an entry of w outside the mask cannot be kept); a transposed A is made first;
/// - u and w dense: A dense runs the GEMM with one row; A CSR runs spmv on A' (a transpose view's
///   matrix as it is; otherwise A' made on the device, O(nnz): keep A' and call mxv to make it
///   once). The multiply must commute there.
template <class W, mask_type Mask, accumulator_type Accum, class U, class A, semiring_object S>
    requires detail::mxv_operands<W, A, U>
void vxm(W& w, Mask const& mask, Accum accum, U const& u, A const& a_in, S const& s,
         options const& opt = {}) {
    detail::check_types<S, W, A, U>();
    using T = typename S::value_type;
    constexpr bool on_device = detail::in_space<W, device>;
    if constexpr (on_device) {
        static_assert(semiring_type<S>,
                      "kleene::vxm on the device takes a semiring whose operations are static "
                      "members (a user's semiring at run time: kleene/cuda/jit.hpp)");
        static_assert(detail::is_sparse_vec<U> == detail::is_sparse_vec<W>,
                      "kleene::vxm on the device: u and w are both sparse (push) or both dense");
    }
    if (u.size() != a_in.rows())
        throw dimension_mismatch("vxm: cannot multiply u (" + detail::describe(u) + ") by A (" +
                                 detail::describe(a_in) + ")");
    if (w.size() != a_in.cols())
        throw dimension_mismatch("vxm: output w has size " + std::to_string(w.size()) +
                                 " but A has " + std::to_string(a_in.cols()) + " columns");
    detail::check_mask("vxm", mask, w);
    [[maybe_unused]] auto const scope = detail::enter_space<W>("vxm", opt, "on the GPU");
    if constexpr (detail::is_dense_vec<W> && detail::is_dense_vec<U> &&
                  (!on_device || detail::gpu_value<T>)) {
        // w is also u (w = A w): a kernel writes w while other rows still read u, so the call
        // reads a copy of u.
        if (detail::vectors_overlap(w, u)) {
            detail::trace(opt, "vxm: w is also u: u copied first");
            vxm(w, mask, accum, detail::copy_of(u, opt), a_in, s, opt);
            return;
        }
    }
    if constexpr (is_transposed<A> && !on_device && semiring_type<S>) {
        if (opt.kernel != kernel_choice::spmspv_push) {
            detail::trace(opt, "vxm: A is the " + detail::describe(a_in) +
                                   ": computed as mxv(A, u), no transpose materialised");
            options o = opt;
            if (o.kernel == kernel_choice::spmv_pull) o.kernel = kernel_choice::automatic;
            mxv(w, mask, accum, *a_in.m, u, swapped_mul<S>{}, o);
            return;
        }
    }
    T const zero = s.zero();
    if constexpr (on_device) {
        // u (+).(x) A is A' (+).(x) u only where mul commutes; the semirings whose mul does not
        // (first, second) are refused for the pull.
        constexpr bool commutes = !requires { typename S::mul_op; } ||
                                  (!std::is_same_v<typename S::mul_op, first_op<T>> &&
                                   !std::is_same_v<typename S::mul_op, second_op<T>>);
        if constexpr (detail::is_dense_vec<U> && is_transposed<A>) {
            using M = std::remove_cvref_t<decltype(*a_in.m)>;
            if constexpr (detail::is_csr<M>) {
                static_assert(commutes,
                              "kleene::vxm on the device with a dense u and a CSR A needs a "
                              "commutative multiply; use a sparse u (push)");
                if (opt.kernel != kernel_choice::automatic &&
                    opt.kernel != kernel_choice::spmv_pull)
                    detail::bad_pin("vxm", opt.kernel,
                                    detail::describe(u) + " x " + detail::describe(a_in));
                std::string const operands = detail::describe(u) + " x " + detail::describe(a_in);
                detail::trace(opt, "vxm: " + operands +
                                       ": computed as mxv(A, u), no transpose made");
                detail::mxv_device<S>("vxm", w, mask, accum, *a_in.m, u, opt, operands);
                return;
            }
        }
        auto const& a = detail::materialize_any(a_in, opt, "vxm");
        using MA = std::remove_cvref_t<decltype(a)>;
        std::string const operands = detail::describe(u) + " x " + detail::describe(a);
        if constexpr (detail::is_sparse_vec<U>) {
            static_assert(detail::is_csr<MA>,
                          "kleene::vxm on the device: a sparse u multiplies a CSR A");
            static_assert(std::is_same_v<Accum, no_accum_t>,
                          "kleene::vxm on the device into a sparse w takes no accumulator");
            static_assert(std::is_same_v<typename W::index_type, typename MA::index_type> &&
                              std::is_same_v<typename U::index_type, typename MA::index_type>,
                          "kleene::vxm on the device: u, w and A share an index type");
            if (opt.kernel != kernel_choice::automatic &&
                opt.kernel != kernel_choice::spmspv_push)
                detail::bad_pin("vxm", opt.kernel, operands);
            if constexpr (!std::is_same_v<Mask, no_mask_t>)
                if (!opt.replace && w.nnz() > 0)
                    throw invalid_argument(
                        "vxm: on the device a sparse w is written whole, so its entries outside "
                        "the mask cannot be kept: pass replace = true or an empty w");
            detail::trace(opt, "vxm: " + operands + ": cuda spmspv (push over the rows u names)");
            cuda::spmspv<S, typename MA::index_type>(w, detail::device_mask<W>(mask, opt.ctx), u,
                                                     a, opt.ctx);
        } else if constexpr (detail::is_dense<MA>) {
            if (opt.kernel != kernel_choice::automatic)
                detail::bad_pin("vxm", opt.kernel, operands);
            constexpr bool fused =
                std::is_same_v<Mask, no_mask_t> &&
                (std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>());
            if constexpr (fused) {
                detail::trace(opt, "vxm: " + operands + ": cuda dense_gemm with one row");
                cuda::dense_gemm<S>(detail::row_view(u), a.view(), detail::row_view(w),
                                    !std::is_same_v<Accum, no_accum_t>, resolve(opt.ctx));
            } else {
                detail::trace(opt, "vxm: " + operands +
                                       ": cuda dense_gemm with one row into a temporary, then "
                                       "the masked write-back");
                dense_vector<T, device> t(w.size());
                cuda::dense_gemm<S>(detail::row_view(u), a.view(), detail::row_view(t), false,
                                    resolve(opt.ctx));
                detail::write_back_result(w, mask, accum, std::move(t), zero, opt, "vxm");
            }
        } else {
            static_assert(commutes,
                          "kleene::vxm on the device with a dense u and a CSR A needs a "
                          "commutative multiply; use a sparse u (push)");
            if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmv_pull)
                detail::bad_pin("vxm", opt.kernel, operands);
            detail::trace(opt, "vxm: " + operands +
                                   ": A' made on the device (keep it and call mxv to make it "
                                   "once)");
            auto const at = cuda::detail::transpose_csr(resolve(opt.ctx), a);
            detail::mxv_device<S>("vxm", w, mask, accum, at, u, opt, operands);
        }
    } else {
        if (opt.kernel == kernel_choice::spmv_pull)
            throw invalid_argument(
                "vxm: kernel spmv_pull needs A's transpose; use mxv(transpose of A, u)");
        if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmspv_push)
            detail::bad_pin("vxm", opt.kernel,
                            detail::describe(u) + " x " + detail::describe(a_in));
        auto const& a = detail::materialize_any(a_in, opt, "vxm");
        using MA = std::remove_cvref_t<decltype(a)>;
        std::string const operands = detail::describe(u) + " x " + detail::describe(a);
        auto const allowed = detail::prefilter(mask, w.size());
        cpu::vector_result<T> t;
        if constexpr (detail::is_csr<MA>) {
            using Index = typename MA::index_type;
            std::vector<Index> idx;
            buffer<T> val;
            if constexpr (detail::is_sparse_vec<U>) {
                idx.assign(u.indices(), u.indices() + u.nnz());
                val = u.value_storage();
            } else {
                for (std::size_t k = 0; k < u.size(); ++k)
                    if (!(u[k] == zero)) idx.push_back(static_cast<Index>(k));
                val = buffer<T>(idx.size());
                for (std::size_t f = 0; f < idx.size(); ++f) val[f] = u[idx[f]];
            }
            detail::trace(opt, "vxm: " + operands + ": spmspv_push (scatter the rows of A of the " +
                                   std::to_string(idx.size()) + " entries of u" +
                                   std::string(std::is_same_v<Mask, no_mask_t>
                                                   ? ")"
                                                   : ", masked columns skipped)"));
            t = cpu::spmspv_push(s, idx, val, a, allowed);
        } else {
            detail::trace(opt, "vxm: " + operands + ": dense_vm");
            t = cpu::dense_vm(s, detail::load_vector(u, zero), a.view(), allowed);
        }
        cpu::write_back(w, mask, accum, t, opt.replace, zero);
    }
}

template <class W, class U, class A, semiring_object S>
    requires detail::mxv_operands<W, A, U>
void vxm(W& w, U const& u, A const& a, S const& s, options const& opt = {}) {
    vxm(w, no_mask, no_accum, u, a, s, opt);
}

KLEENE_NO_MIXED_SPACES(mxm)
KLEENE_NO_MIXED_SPACES(mxv)
KLEENE_NO_MIXED_SPACES(vxm)

}  // namespace kleene

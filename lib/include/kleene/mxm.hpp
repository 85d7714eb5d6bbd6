#pragma once
// mxm, mxv and vxm: the semiring products, GraphBLAS style.
//
//   mxm(C, mask, accum, A, B, semiring, options)    C<mask, replace> accum= A (+).(x) B
//   mxv(w, mask, accum, A, u, semiring, options)    w<mask, replace> accum= A (+).(x) u
//   vxm(w, mask, accum, u, A, semiring, options)    w<mask, replace> accum= u (+).(x) A
//
// mask is `no_mask`, `mask(M)`, `structure(M)` or `complement(...)`; accum is `no_accum` or a
// binary operator (e.g. `plus_op<float>{}`). The storage pair picks the kernel, in this one place:
// dense x dense -> blocked GEMM, CSR x dense -> SpMM, dense x CSR, CSR x CSR -> Gustavson (dense
// or hash accumulator); CSR x vector -> pull, vector x CSR -> push. options.kernel pins a kernel
// and options.explain records the choice and the reason.

#include <kleene/cpu/dense_gemm.hpp>
#include <kleene/cpu/sparse_products.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/convert.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/masked_dot_model.hpp>
#include <kleene/detail/operation_checks.hpp>
#include <kleene/detail/spaces.hpp>
#include <kleene/error.hpp>
#include <kleene/matrix.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace kleene {

/// C<mask, replace> accum= A (+).(x) B over semiring S.
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, detail::host_matrix A,
          detail::host_matrix B, semiring_object S>
void mxm(C& c, Mask const& mask, Accum accum, A const& a, B const& b, S const& s,
         options const& opt = {}) {
    detail::check_types<S, C, A, B>();
    using T = typename S::value_type;
    detail::check_product_shapes(c, a, b, detail::describe(a), detail::describe(b));
    detail::check_mask("mxm", mask, c);
    auto const omp_scope = detail::check_host("mxm", opt);
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    std::string const operands = detail::describe(a) + " x " + detail::describe(b);
    T const zero = s.zero();
    kernel_choice const pin = opt.kernel;

    if constexpr (detail::is_dense<A> && detail::is_dense<B>) {
        static_assert(semiring_type<S>,
                      "kleene::mxm: the dense GEMM takes a semiring whose operations are static "
                      "members; multiply a run-time semiring's dense operands as CSR (to_csr)");
        if (pin != kernel_choice::automatic && pin != kernel_choice::dense_gemm)
            detail::bad_pin("mxm", pin, operands);
        using K = dense_safe<S>;
        constexpr bool fused = detail::is_dense<C> && std::is_same_v<Mask, no_mask_t> &&
                               (std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>());
        if constexpr (fused) {
            detail::trace(opt, "mxm: " + operands + " -> dense: dense_gemm (blocked, register-tiled" +
                                   std::string(std::is_same_v<Accum, no_accum_t> ? ")" : ", accumulating into C)"));
            cpu::dense_gemm<K>(a.view(), b.view(), c.view(), !std::is_same_v<Accum, no_accum_t>);
        } else {
            detail::trace(opt, "mxm: " + operands + ": dense_gemm into a temporary, then mask/accumulate");
            dense_matrix<T> t(a.rows(), b.cols());
            cpu::dense_gemm<K>(a.view(), b.view(), t.view(), false);
            if constexpr (plain) c = to_csr<T, typename C::index_type>(t, zero);
            else cpu::write_back(c, mask, accum, t, opt.replace, zero);
        }
    } else if constexpr (detail::is_csr<A> && detail::is_dense<B>) {
        if (pin != kernel_choice::automatic && pin != kernel_choice::csr_dense)
            detail::bad_pin("mxm", pin, operands);
        detail::trace(opt, "mxm: " + operands + ": csr_dense (SpMM, row i of C accumulates rows of B)");
        if constexpr (detail::is_dense<C> && plain) {
            cpu::csr_dense(s, a, b.view(), c);
        } else {
            dense_matrix<T> t(a.rows(), b.cols());
            cpu::csr_dense(s, a, b.view(), t);
            cpu::write_back(c, mask, accum, t, opt.replace, zero);
        }
    } else if constexpr (detail::is_dense<A> && detail::is_csr<B>) {
        if (pin != kernel_choice::automatic && pin != kernel_choice::dense_csr)
            detail::bad_pin("mxm", pin, operands);
        detail::trace(opt, "mxm: " + operands + ": dense_csr (row i of C accumulates rows of B)");
        if constexpr (detail::is_dense<C> && plain) {
            cpu::dense_csr(s, a.view(), b, c);
        } else {
            dense_matrix<T> t(a.rows(), b.cols());
            cpu::dense_csr(s, a.view(), b, t);
            cpu::write_back(c, mask, accum, t, opt.replace, zero);
        }
    } else {
        static_assert(std::is_same_v<typename A::index_type, typename B::index_type>,
                      "mxm: CSR operands must share an index type");
        if (pin != kernel_choice::automatic && pin != kernel_choice::gustavson_dense &&
            pin != kernel_choice::gustavson_hash)
            detail::bad_pin("mxm", pin, operands);
        bool done = false;
        if constexpr (detail::is_dense<C> && plain) {
            if (pin != kernel_choice::gustavson_hash) {  // a hash pin takes the general path below
                detail::trace(opt, "mxm: " + operands + " -> dense: gustavson_dense straight into C's rows");
                cpu::gustavson_dense_out(s, a, b, c);
                done = true;
            }
        }
        if (!done) {
            // A dense accumulator costs b.cols() values per thread and a cache miss per update when
            // the columns are many and the rows short; a per-row hash table then wins.
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
                                   (std::is_same_v<Mask, no_mask_t> ? "" : ", masked entries skipped") +
                                   (pin != kernel_choice::automatic ? " [pinned]" : ""));
            auto t = cpu::gustavson(s, a, b, mask,
                                       hash ? cpu::spgemm_accumulator::hash : cpu::spgemm_accumulator::dense,
                                       opt.dense_row_threshold);
            // Nested: C::index_type does not exist for a dense C.
            bool moved = false;
            if constexpr (detail::is_csr<C> && plain)
                if constexpr (std::is_same_v<typename C::index_type, typename A::index_type>) {
                    c = std::move(t);
                    moved = true;
                }
            if (!moved) cpu::write_back(c, mask, accum, t, opt.replace, zero);
        }
    }
}

/// C = A (+).(x) B.
template <detail::host_matrix C, detail::host_matrix A, detail::host_matrix B, semiring_object S>
void mxm(C& c, A const& a, B const& b, S const& s, options const& opt = {}) {
    mxm(c, no_mask, no_accum, a, b, s, opt);
}

namespace detail {
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
}  // namespace detail

/// C = A (+).(x) B into a `matrix`, whose storage follows the estimated output density: row i of
/// a random product holds about cols * (1 - exp(-f_i / cols)) entries for f_i multiply-adds, and
/// when the estimate passes options.dense_output_threshold C is dense (no sort, no index arrays).
template <class T, index_type Index, semiring_type S>
void mxm(matrix<T, Index>& c, csr_matrix<T, Index> const& a, csr_matrix<T, Index> const& b, S s,
         options const& opt = {}) {
    if (a.cols() != b.rows())
        throw dimension_mismatch("mxm: cannot multiply A (" + detail::describe(a) + ") by B (" +
                                 detail::describe(b) + ")");
    auto const prefix = cpu::detail::row_flops_prefix(a, b);
    double est = 0;
    double const cols = double(b.cols());
    if (a.rows() > 0 && b.cols() > 0) {
        for (std::size_t i = 0; i < a.rows(); ++i)
            est += 1.0 - std::exp(-double(prefix[i + 1] - prefix[i] - 1) / cols);
        est /= double(a.rows());
    }
    std::string why;
    bool const dense = detail::dense_output(est, opt, why);
    detail::trace(opt, "mxm: " + why);
    if (dense) {
        dense_matrix<T> d(a.rows(), b.cols());
        mxm(d, a, b, s, opt);
        c = matrix<T, Index>(std::move(d), S::zero());
    } else {
        csr_matrix<T, Index> r(a.rows(), b.cols());
        mxm(r, a, b, s, opt);
        c = matrix<T, Index>(std::move(r));
    }
}

/// C = A (+).(x) B for CSR matrices in device memory into a `matrix` on the device: the same
/// density estimate and threshold as on the host, computed on the GPU (cuda::product_density);
/// dense output runs cuda::spgemm_dense (no sort, no index arrays), CSR output cuda::spgemm.
template <class T, index_type Index, semiring_type S>
void mxm(matrix<T, Index, device>& c, csr_matrix<T, Index, device> const& a,
         csr_matrix<T, Index, device> const& b, S, options const& opt = {}) {
    static_assert(std::is_same_v<T, typename S::value_type>,
                  "kleene: the containers' value types must equal the semiring's value_type");
    if (a.cols() != b.rows())
        throw dimension_mismatch("mxm: cannot multiply A (" + detail::shape(a.rows(), a.cols()) +
                                 ") by B (" + detail::shape(b.rows(), b.cols()) + ")");
    if (opt.device == device_choice::cpu)
        throw invalid_argument("mxm: device=cpu was asked for device containers; copy them with to_host() first");
    if (opt.kernel != kernel_choice::automatic)
        detail::bad_pin("mxm", opt.kernel, "CSR device matrices");
    double const est = cuda::product_density(a, b, opt.ctx);
    std::string why;
    bool const dense = detail::dense_output(est, opt, why);
    std::string const head = "mxm: CSR " + detail::shape(a.rows(), a.cols()) + " x CSR " +
                             detail::shape(b.rows(), b.cols()) + " on the GPU: " + why;
    if (dense) {
        dense_matrix<T, device> d(a.rows(), b.cols());
        cuda::spgemm_dense<S, Index>(d.view(), a, b, {.ctx = opt.ctx});
        detail::trace(opt, head + ", cuda spgemm_dense (a warp per row, dense row accumulator)");
        c = matrix<T, Index, device>(std::move(d), S::zero());
    } else {
        csr_matrix<T, Index, device> r(a.rows(), b.cols());
        auto const ran = cuda::spgemm<S, Index>(r, a, b, {.ctx = opt.ctx});
        detail::trace(opt, head + ", cuda spgemm (" + std::string(cuda::to_string(ran)) + ")");
        c = matrix<T, Index, device>(std::move(r));
    }
}

namespace detail {
/// Whether C<M> = A (+).(x) B on the device can take the masked Gustavson: a CSR C and M a mask
/// view of a device CSR with C's index type (whether it is complemented is known at run time).
template <class C, class Mask>
constexpr bool device_masked_saxpy_operands() {
    if constexpr (is_device_csr<C> && is_mask_view<Mask>) {
        using MM = std::remove_cvref_t<decltype(*std::declval<Mask>().m)>;
        if constexpr (is_device_csr<MM>)
            return std::is_same_v<typename MM::index_type, typename C::index_type>;
        else
            return false;
    } else {
        return false;
    }
}

/// Whether C<M> = A (+).(x) transpose(Bt) on the device has the masked dot products' operands:
/// those of the masked Gustavson, B given as transpose(Bt), and A and Bt of C's type.
template <class C, class Mask, class A, class B>
constexpr bool device_masked_dot_operands() {
    if constexpr (device_masked_saxpy_operands<C, Mask>() && is_transposed<B>) {
        using BM = std::remove_cvref_t<decltype(*std::declval<B>().m)>;
        return std::is_same_v<A, C> && std::is_same_v<BM, C>;
    } else {
        return false;
    }
}

/// C<m, replace> accum= T for a masked product T (device_masked_dot, device_masked_saxpy), the
/// trace's line `head` completed with T's count and how it went into C. T's entries are all where
/// M allows a write, so without an accumulator T is the result when nothing of C outlives the
/// call (C empty, or replace): no merge.
template <class C, class M, class Accum, class T>
void masked_product_into(C& c, M const& m, Accum accum, T&& t, options const& opt,
                         std::string const& head, std::string const& rated = "") {
    bool const is_result = std::is_same_v<Accum, no_accum_t> && (c.nnz() == 0 || opt.replace);
    trace(opt, head + std::to_string(t.nnz()) + " of them met" + rated + ")" +
                   (is_result ? ", the result" : ", then the masked row merge into C"));
    if (is_result)
        c = std::move(t);
    else
        cuda::detail::write_back_csr(resolve(opt.ctx), "mxm", c, m, accum, std::move(t),
                                     opt.replace);
}

/// C<mask, replace> accum= A (+).(x) Bt' by cuda::masked_dot where the model rates it below the
/// transpose and the whole product (cuda::masked_dot_costs, masked_dot_model.hpp: both numbers go
/// to the trace) or kernel masked_dot pins it; returns false, having said why, where the caller
/// takes the old path. A pair this build leaves out runs the old path (the JIT serves its
/// SpGEMM) unless pinned, where the backend's missing_instance says what to rebuild.
template <class C, class Mask, class Accum, class S>
bool device_masked_dot(C& c, Mask const& mask, Accum accum, C const& a, C const& bt, S,
                       options const& opt) {
    using T = typename C::value_type;
    using Index = typename C::index_type;
    check_device_output<C, Accum>();
    bool const pinned = opt.kernel == kernel_choice::masked_dot;
    if constexpr (cuda::sparse_left_out<S, Index>) {
        if (!pinned) {
            trace(opt, "mxm: masked_dot not taken (this semiring, type and index type are not "
                       "compiled into the CUDA backend: KLEENE_INSTANCES=" KLEENE_INSTANCE_SET ")");
            return false;
        }
    }
    auto m = device_mask<C>(mask, opt.ctx);
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
    masked_product_into(c, m, accum, std::move(t), opt,
                        "mxm: " + describe_device(a) + " x the transpose of " +
                            describe_device(bt) +
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
    using Index = typename C::index_type;
    check_device_output<C, Accum>();
    auto m = device_mask<C>(mask, opt.ctx);
    csr_matrix<T, Index, device> t(a.rows(), b.cols());
    cuda::masked_saxpy<S, Index>(t, m, a, b, {.ctx = opt.ctx});
    masked_product_into(c, m, accum, std::move(t), opt,
                        "mxm: " + operands +
                            ": cuda masked_saxpy (Gustavson, each row's products looked up in its "
                            "mask row's hash table, none kept outside the mask's " +
                            std::to_string(m.nnz()) + " entries; ");
}

/// C<mask, replace> accum= T for a dense device C and a dense device T whose entries equal to
/// `absent` are no entry: the backend's masked apply of the identity.
template <class C, class Mask, class Accum, class T>
void write_back_device(C& c, Mask const& mask, Accum accum, T const& t,
                       typename C::value_type absent, options const& opt) {
    using V = typename C::value_type;
    check_device_output<C, Accum>();
    cuda::apply(c, device_mask<C>(mask, opt.ctx), accum, with_absent(identity_op<V>{}, absent), t,
                options{.replace = opt.replace, .ctx = opt.ctx});
}
}  // namespace detail

/// C<mask, replace> accum= A (+).(x) B on device containers, the same call as on the host. The
/// storage picks the CUDA kernel: dense x dense -> the semiring GEMM (dense_gemm.cuh), CSR x
/// dense -> SpMM, CSR x CSR -> SpGEMM into a CSR C or a dense C (sparse.cuh); C<M> = A B' with B
/// given as transpose(Bt) and a CSR mask M (not complemented), all CSR -> the masked dot products
/// where their model says so or kernel masked_dot pins them (device_masked_dot above); other
/// CSR x CSR products into a CSR C under a CSR mask (not complemented) -> the masked Gustavson
/// (cuda::masked_saxpy: only the mask's entries accumulated; kernel gustavson_hash pins it).
/// Without a mask, and
/// with no accumulator or the semiring's own add, the product goes straight into C; otherwise
/// into a temporary that the backend's masked write-back merges into C (CSR: row merge; dense:
/// element by element), as on the host. A transpose(A) operand is made on the device first.
/// A dense x CSR product makes B dense on the device first; a dense product into a CSR C is made
/// CSR on the device (to_csr), entries equal to the semiring's zero dropped as on the host.
template <detail::device_matrix C, mask_type Mask, accumulator_type Accum,
          detail::device_operand A, detail::device_operand B, semiring_type S>
void mxm(C& c, Mask const& mask, Accum accum, A const& a_in, B const& b_in, S,
         options const& opt = {}) {
    using T = typename S::value_type;
    static_assert(std::is_same_v<typename C::value_type, T> &&
                      std::is_same_v<typename A::value_type, T> &&
                      std::is_same_v<typename B::value_type, T>,
                  "kleene: the containers' value types must equal the semiring's value_type");
    if (a_in.cols() != b_in.rows())
        throw dimension_mismatch("mxm: cannot multiply A (" + detail::describe_device(a_in) +
                                 ") by B (" + detail::describe_device(b_in) + "): A has " +
                                 std::to_string(a_in.cols()) + " columns, B has " +
                                 std::to_string(b_in.rows()) + " rows");
    if (c.rows() != a_in.rows() || c.cols() != b_in.cols())
        throw dimension_mismatch("mxm: output C is " + detail::shape(c.rows(), c.cols()) +
                                 " but A (+).(x) B is " + detail::shape(a_in.rows(), b_in.cols()));
    detail::check_mask("mxm", mask, c);
    detail::device_call("mxm", opt, "on the GPU");
    if constexpr (detail::device_masked_dot_operands<C, Mask, A, B>()) {
        if (!mask.complemented && (opt.kernel == kernel_choice::automatic ||
                                   opt.kernel == kernel_choice::masked_dot) &&
            detail::device_masked_dot(c, mask, accum, a_in, *b_in.m, S{}, opt))
            return;
    }
    if (opt.kernel == kernel_choice::masked_dot)
        throw invalid_argument(
            "mxm: kernel masked_dot computes C<M> = A B' with CSR C, A and B of one type and a "
            "CSR mask M (not complemented) with C's index type; use mxm(C, mask, accum, A, "
            "transpose(Bt), ...)");
    auto&& a = detail::materialize_device(a_in, opt, "mxm");
    auto&& b = detail::materialize_device(b_in, opt, "mxm");
    using MA = std::remove_cvref_t<decltype(a)>;
    using MB = std::remove_cvref_t<decltype(b)>;
    constexpr bool no_mask_given = std::is_same_v<Mask, no_mask_t>;
    constexpr bool plain = no_mask_given && std::is_same_v<Accum, no_accum_t>;
    constexpr bool fused = no_mask_given && (std::is_same_v<Accum, no_accum_t> ||
                                             detail::accum_is_add<Accum, S>());
    constexpr bool accumulate = !std::is_same_v<Accum, no_accum_t>;
    std::string const operands = detail::describe_device(a) + " x " + detail::describe_device(b);
    kernel_choice const pin = opt.kernel;
    T const zero = S::zero();
    cuda::sparse_options sopt{.ctx = opt.ctx};

    if constexpr (detail::is_device_csr<C> &&
                  !(detail::is_device_csr<MA> && detail::is_device_csr<MB>)) {
        // A product computed densely into a CSR C: made CSR on the device (entries equal to the
        // semiring's zero dropped, as on the host), then written back.
        using Index = typename C::index_type;
        dense_matrix<T, device> d(a.rows(), b.cols());
        options inner = opt;
        inner.replace = false;
        mxm(d, no_mask, no_accum, a, b, S{}, inner);
        auto t = to_csr<T, Index>(d, zero, opt.ctx);
        detail::trace(opt, "mxm: the dense product made CSR on the device (" +
                               std::to_string(t.nnz()) + " entries)" +
                               (plain ? "" : ", then the masked row merge into C"));
        if constexpr (plain) {
            c = std::move(t);
        } else {
            detail::check_device_output<C, Accum>();
            cuda::detail::write_back_csr(resolve(opt.ctx), "mxm", c,
                                         detail::device_mask<C>(mask, opt.ctx), accum,
                                         std::move(t), opt.replace);
        }
    } else if constexpr (detail::is_device_dense<MA> && detail::is_device_csr<MB>) {
        // No dense x CSR kernel: B is made dense on the device (k x n), then the GEMM.
        detail::trace(opt, "mxm: " + operands + ": B made dense on the device for the GEMM");
        dense_matrix<T, device> const bd = to_dense(b, zero, opt.ctx);
        mxm(c, mask, accum, a, bd, S{}, opt);
    } else if constexpr (detail::is_device_dense<MA> && detail::is_device_dense<MB>) {
        if (pin != kernel_choice::automatic && pin != kernel_choice::dense_gemm)
            detail::bad_pin("mxm", pin, operands);
        if constexpr (fused) {
            detail::trace(opt, "mxm: " + operands + ": cuda dense_gemm" +
                                   (accumulate ? " (accumulating into C)" : ""));
            cuda::dense_gemm<S>(a.view(), b.view(), c.view(), accumulate, resolve(opt.ctx));
        } else {
            detail::trace(opt, "mxm: " + operands +
                                   ": cuda dense_gemm into a temporary, then the masked write-back");
            dense_matrix<T, device> t(a.rows(), b.cols());
            cuda::dense_gemm<S>(a.view(), b.view(), t.view(), false, resolve(opt.ctx));
            detail::write_back_device(c, mask, accum, t, zero, opt);
        }
    } else if constexpr (detail::is_device_csr<MA> && detail::is_device_dense<MB>) {
        if (pin != kernel_choice::automatic && pin != kernel_choice::csr_dense)
            detail::bad_pin("mxm", pin, operands);
        using Index = typename MA::index_type;
        if constexpr (fused) {
            sopt.accumulate = accumulate;
            auto const ran = cuda::spmm<S, Index>(c.view(), a, b.view(), sopt);
            detail::trace(opt, "mxm: " + operands + ": cuda spmm (" +
                                   std::string(cuda::to_string(ran)) + ")" +
                                   (accumulate ? ", accumulating into C" : ""));
        } else {
            dense_matrix<T, device> t(a.rows(), b.cols());
            auto const ran = cuda::spmm<S, Index>(t.view(), a, b.view(), sopt);
            detail::trace(opt, "mxm: " + operands + ": cuda spmm (" +
                                   std::string(cuda::to_string(ran)) +
                                   ") into a temporary, then the masked write-back");
            detail::write_back_device(c, mask, accum, t, zero, opt);
        }
    } else {
        static_assert(std::is_same_v<typename MA::index_type, typename MB::index_type>,
                      "mxm: CSR operands must share an index type");
        using Index = typename MA::index_type;
        constexpr bool saxpy_operands = detail::device_masked_saxpy_operands<C, Mask>();
        if (pin != kernel_choice::automatic && !(saxpy_operands && pin == kernel_choice::gustavson_hash))
            detail::bad_pin("mxm", pin,
                            operands + " on the GPU (its kernel choice is its own, but for "
                                       "gustavson_hash under a CSR mask: the masked Gustavson)");
        if constexpr (saxpy_operands) {
            // Under a CSR mask (not complemented) the masked Gustavson: the unmasked product's
            // multiply-adds, none of its entries outside the mask made. A pair this build leaves
            // out takes the whole product (the JIT serves its SpGEMM) unless pinned.
            bool const pinned = pin == kernel_choice::gustavson_hash;
            if (mask.complemented) {
                if (pinned)
                    throw invalid_argument("mxm: gustavson_hash on the GPU under a mask is the "
                                           "masked Gustavson, which takes a mask that is not "
                                           "complemented");
            } else if (pinned || !cuda::sparse_left_out<S, Index>) {
                detail::device_masked_saxpy(c, mask, accum, a, b, S{}, opt, operands);
                return;
            } else {
                detail::trace(opt, "mxm: masked_saxpy not taken (this semiring, type and index "
                                   "type are not compiled into the CUDA backend: "
                                   "KLEENE_INSTANCES=" KLEENE_INSTANCE_SET ")");
            }
        }
        if constexpr (detail::is_device_dense<C>) {
            if constexpr (fused) {
                sopt.accumulate = accumulate;
                cuda::spgemm_dense<S, Index>(c.view(), a, b, sopt);
                detail::trace(opt, "mxm: " + operands +
                                       ": cuda spgemm_dense (a warp per row, dense row accumulator)" +
                                       (accumulate ? ", accumulating into C" : ""));
            } else {
                dense_matrix<T, device> t(a.rows(), b.cols());
                cuda::spgemm_dense<S, Index>(t.view(), a, b, sopt);
                detail::trace(opt, "mxm: " + operands +
                                       ": cuda spgemm_dense into a temporary, then the masked "
                                       "write-back");
                detail::write_back_device(c, mask, accum, t, zero, opt);
            }
        } else {
            static_assert(std::is_same_v<typename C::index_type, Index>,
                          "kleene::mxm on the device: a CSR C has its operands' index type");
            csr_matrix<T, Index, device> t(a.rows(), b.cols());
            auto const ran = cuda::spgemm<S, Index>(t, a, b, sopt);
            detail::trace(opt, "mxm: " + operands + ": cuda spgemm (" +
                                   std::string(cuda::to_string(ran)) + ")" +
                                   (plain ? "" : ", then the masked row merge into C"));
            if constexpr (plain) {
                c = std::move(t);
            } else {
                detail::check_device_output<C, Accum>();
                cuda::detail::write_back_csr(resolve(opt.ctx), "mxm", c,
                                             detail::device_mask<C>(mask, opt.ctx), accum,
                                             std::move(t), opt.replace);
            }
        }
    }
}

template <detail::device_matrix C, detail::device_operand A, detail::device_operand B,
          semiring_type S>
void mxm(C& c, A const& a, B const& b, S s, options const& opt = {}) {
    mxm(c, no_mask, no_accum, a, b, s, opt);
}

KLEENE_NO_MIXED_SPACES(mxm)


/// w<mask, replace> accum= A (+).(x) u.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_matrix A,
          detail::host_vector U, semiring_object S>
void mxv(W& w, Mask const& mask, Accum accum, A const& a, U const& u, S const& s,
         options const& opt = {}) {
    detail::check_types<S, W, A, U>();
    using T = typename S::value_type;
    if (a.cols() != u.size())
        throw dimension_mismatch("mxv: cannot multiply A (" + detail::describe(a) + ") by u (" +
                                 detail::describe(u) + ")");
    if (w.size() != a.rows())
        throw dimension_mismatch("mxv: output w has size " + std::to_string(w.size()) +
                                 " but A has " + std::to_string(a.rows()) + " rows");
    detail::check_mask("mxv", mask, w);
    auto const omp_scope = detail::check_host("mxv", opt);
    std::string const operands = detail::describe(a) + " x " + detail::describe(u);
    if (opt.kernel == kernel_choice::spmspv_push)
        throw invalid_argument("mxv: kernel spmspv_push needs A's transpose; use vxm(u, transpose of A)");
    if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmv_pull)
        detail::bad_pin("mxv", opt.kernel, operands);
    T const zero = s.zero();
    if constexpr (detail::is_csr<A> && detail::is_dense_vec<W> && detail::is_dense_vec<U> &&
                  std::is_same_v<Mask, no_mask_t> && zero_annihilates<S>() &&
                  (std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>())) {
        // Dense in, dense out: absent entries are zero on both sides, so no flags and no write-back.
        detail::trace(opt, "mxv: " + operands + ": spmv_pull (dense u and w, no presence flags)");
        cpu::spmv_pull_dense(s, a, u.data(), w.data(), !std::is_same_v<Accum, no_accum_t>);
        return;
    }
    auto const x = detail::load_vector(u, zero);
    auto const allowed = detail::prefilter(mask, w.size());
    cpu::vector_result<T> t;
    if constexpr (detail::is_csr<A>) {
        detail::trace(opt, "mxv: " + operands + ": spmv_pull (one dot product per row" +
                               std::string(std::is_same_v<Mask, no_mask_t> ? "" : ", rows outside the mask skipped") +
                               (S::has_terminal ? ", early exit on the terminal value)" : ")"));
        t = cpu::spmv_pull(s, a, x, allowed);
    } else {
        detail::trace(opt, "mxv: " + operands + ": dense_mv");
        t = cpu::dense_mv(s, a.view(), x, allowed);
    }
    cpu::write_back(w, mask, accum, t, opt.replace, zero);
}

template <detail::host_vector W, detail::host_matrix A, detail::host_vector U, semiring_object S>
void mxv(W& w, A const& a, U const& u, S const& s, options const& opt = {}) {
    mxv(w, no_mask, no_accum, a, u, s, opt);
}

/// w<mask, replace> accum= u (+).(x) A.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_vector U,
          detail::host_matrix A, semiring_object S>
void vxm(W& w, Mask const& mask, Accum accum, U const& u, A const& a, S const& s,
         options const& opt = {}) {
    detail::check_types<S, W, A, U>();
    using T = typename S::value_type;
    if (u.size() != a.rows())
        throw dimension_mismatch("vxm: cannot multiply u (" + detail::describe(u) + ") by A (" +
                                 detail::describe(a) + ")");
    if (w.size() != a.cols())
        throw dimension_mismatch("vxm: output w has size " + std::to_string(w.size()) +
                                 " but A has " + std::to_string(a.cols()) + " columns");
    detail::check_mask("vxm", mask, w);
    auto const omp_scope = detail::check_host("vxm", opt);
    std::string const operands = detail::describe(u) + " x " + detail::describe(a);
    if (opt.kernel == kernel_choice::spmv_pull)
        throw invalid_argument("vxm: kernel spmv_pull needs A's transpose; use mxv(transpose of A, u)");
    if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmspv_push)
        detail::bad_pin("vxm", opt.kernel, operands);
    T const zero = s.zero();
    auto const allowed = detail::prefilter(mask, w.size());
    cpu::vector_result<T> t;
    if constexpr (detail::is_csr<A>) {
        using Index = typename A::index_type;
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
                               std::string(std::is_same_v<Mask, no_mask_t> ? ")" : ", masked columns skipped)"));
        t = cpu::spmspv_push(s, idx, val, a, allowed);
    } else {
        detail::trace(opt, "vxm: " + operands + ": dense_vm");
        t = cpu::dense_vm(s, detail::load_vector(u, zero), a.view(), allowed);
    }
    cpu::write_back(w, mask, accum, t, opt.replace, zero);
}

template <detail::host_vector W, detail::host_vector U, detail::host_matrix A, semiring_object S>
void vxm(W& w, U const& u, A const& a, S const& s, options const& opt = {}) {
    vxm(w, no_mask, no_accum, u, a, s, opt);
}

// ---- mxv and vxm on device containers ----------------------------------------------------------

namespace detail {
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
    if constexpr (is_device_csr<A>) {
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
            write_back_device(w, mask, accum, t, S::zero(), opt);
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
        write_back_device(w, mask, accum, t, S::zero(), opt);
    }
}
}  // namespace detail

/// w<mask, replace> accum= A (+).(x) u on device containers: A device CSR (cuda spmv, a pull:
/// one segmented dot product per row) or dense (the GEMM with one column), u and w dense device
/// vectors (a sparse u is made dense on the device). The accumulator is applied by spmv when it is
/// the semiring's add, otherwise through a temporary and the masked write-back. For a sparse
/// frontier, vxm with A's transpose (push) touches only its rows.
template <detail::device_vector W, mask_type Mask, accumulator_type Accum,
          detail::device_operand A, detail::device_vector U, semiring_type S>
void mxv(W& w, Mask const& mask, Accum accum, A const& a_in, U const& u, S,
         options const& opt = {}) {
    using T = typename S::value_type;
    static_assert(std::is_same_v<typename W::value_type, T> &&
                      std::is_same_v<typename A::value_type, T> &&
                      std::is_same_v<typename U::value_type, T>,
                  "kleene: the containers' value types must equal the semiring's value_type");
    static_assert(detail::is_device_dense_vec<W>,
                  "kleene::mxv on the device writes a dense w; for a sparse frontier use "
                  "vxm(w, u, A') (a push over the rows of A')");
    if (a_in.cols() != u.size())
        throw dimension_mismatch("mxv: cannot multiply A (" + detail::describe_device(a_in) +
                                 ") by u (" + detail::describe_device(u) + ")");
    if (w.size() != a_in.rows())
        throw dimension_mismatch("mxv: output w has size " + std::to_string(w.size()) +
                                 " but A has " + std::to_string(a_in.rows()) + " rows");
    detail::check_mask("mxv", mask, w);
    detail::device_call("mxv", opt, "on the GPU");
    if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmv_pull)
        detail::bad_pin("mxv", opt.kernel, "device operands");
    auto&& a = detail::materialize_device(a_in, opt, "mxv");
    std::string const operands = detail::describe_device(a) + " x " + detail::describe_device(u);
    if constexpr (detail::is_device_sparse_vec<U>) {
        detail::trace(opt, "mxv: " + operands + ": u made dense on the device");
        detail::mxv_device<S>("mxv", w, mask, accum, a, to_dense(u, T(S::zero()), opt.ctx), opt,
                              operands);
    } else {
        detail::mxv_device<S>("mxv", w, mask, accum, a, u, opt, operands);
    }
}

template <detail::device_vector W, detail::device_operand A, detail::device_vector U,
          semiring_type S>
void mxv(W& w, A const& a, U const& u, S s, options const& opt = {}) {
    mxv(w, no_mask, no_accum, a, u, s, opt);
}

/// w<mask, replace> accum= u (+).(x) A on device containers:
/// - u and w device sparse vectors, A device CSR: cuda spmspv, a push over the rows of A that u
///   names (load-balanced over their edges). It writes all of w, so it takes no accumulator, and
///   a mask with replace or an empty w (an entry of w outside the mask cannot be kept);
/// - u and w dense: A dense runs the GEMM with one row; A CSR runs spmv on A', which the call
///   makes on the device (O(nnz); keep A' and call mxv to make it once).
template <detail::device_vector W, mask_type Mask, accumulator_type Accum,
          detail::device_vector U, detail::device_operand A, semiring_type S>
void vxm(W& w, Mask const& mask, Accum accum, U const& u, A const& a_in, S,
         options const& opt = {}) {
    using T = typename S::value_type;
    static_assert(std::is_same_v<typename W::value_type, T> &&
                      std::is_same_v<typename A::value_type, T> &&
                      std::is_same_v<typename U::value_type, T>,
                  "kleene: the containers' value types must equal the semiring's value_type");
    static_assert(detail::is_device_sparse_vec<U> == detail::is_device_sparse_vec<W>,
                  "kleene::vxm on the device: u and w are both sparse (push) or both dense");
    if (u.size() != a_in.rows())
        throw dimension_mismatch("vxm: cannot multiply u (" + detail::describe_device(u) +
                                 ") by A (" + detail::describe_device(a_in) + ")");
    if (w.size() != a_in.cols())
        throw dimension_mismatch("vxm: output w has size " + std::to_string(w.size()) +
                                 " but A has " + std::to_string(a_in.cols()) + " columns");
    detail::check_mask("vxm", mask, w);
    detail::device_call("vxm", opt, "on the GPU");
    auto&& a = detail::materialize_device(a_in, opt, "vxm");
    using MA = std::remove_cvref_t<decltype(a)>;
    std::string const operands = detail::describe_device(u) + " x " + detail::describe_device(a);
    if constexpr (detail::is_device_sparse_vec<U>) {
        static_assert(detail::is_device_csr<MA>,
                      "kleene::vxm on the device: a sparse u multiplies a CSR A");
        static_assert(std::is_same_v<Accum, no_accum_t>,
                      "kleene::vxm on the device into a sparse w takes no accumulator");
        static_assert(std::is_same_v<typename W::index_type, typename MA::index_type> &&
                          std::is_same_v<typename U::index_type, typename MA::index_type>,
                      "kleene::vxm on the device: u, w and A share an index type");
        if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmspv_push)
            detail::bad_pin("vxm", opt.kernel, operands);
        if constexpr (!std::is_same_v<Mask, no_mask_t>)
            if (!opt.replace && w.nnz() > 0)
                throw invalid_argument(
                    "vxm: on the device a sparse w is written whole, so its entries outside the "
                    "mask cannot be kept: pass replace = true or an empty w");
        detail::trace(opt, "vxm: " + operands + ": cuda spmspv (push over the rows u names)");
        cuda::spmspv<S, typename MA::index_type>(w, detail::device_mask<W>(mask, opt.ctx), u, a,
                                                 opt.ctx);
    } else if constexpr (detail::is_device_dense<MA>) {
        if (opt.kernel != kernel_choice::automatic)
            detail::bad_pin("vxm", opt.kernel, operands);
        constexpr bool fused = std::is_same_v<Mask, no_mask_t> &&
                               (std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>());
        if constexpr (fused) {
            detail::trace(opt, "vxm: " + operands + ": cuda dense_gemm with one row");
            cuda::dense_gemm<S>(detail::row_view(u), a.view(), detail::row_view(w),
                                !std::is_same_v<Accum, no_accum_t>, resolve(opt.ctx));
        } else {
            detail::trace(opt, "vxm: " + operands +
                                   ": cuda dense_gemm with one row into a temporary, then the "
                                   "masked write-back");
            dense_vector<T, device> t(w.size());
            cuda::dense_gemm<S>(detail::row_view(u), a.view(), detail::row_view(t), false,
                                resolve(opt.ctx));
            detail::write_back_device(w, mask, accum, t, S::zero(), opt);
        }
    } else {
        if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::spmv_pull)
            detail::bad_pin("vxm", opt.kernel, operands);
        detail::trace(opt, "vxm: " + operands +
                               ": A' made on the device (keep it and call mxv to make it once)");
        auto const at = cuda::detail::transpose_csr(resolve(opt.ctx), a);
        // u (+).(x) A is A' (+).(x) u only where mul commutes; the semirings whose mul does not
        // (first, second) are refused.
        static_assert(!requires { typename S::mul_op; } ||
                          (!std::is_same_v<typename S::mul_op, first_op<T>> &&
                           !std::is_same_v<typename S::mul_op, second_op<T>>),
                      "kleene::vxm on the device with a dense u and a CSR A needs a commutative "
                      "multiply; use a sparse u (push)");
        detail::mxv_device<S>("vxm", w, mask, accum, at, u, opt, operands);
    }
}

template <detail::device_vector W, detail::device_vector U, detail::device_operand A,
          semiring_type S>
void vxm(W& w, U const& u, A const& a, S s, options const& opt = {}) {
    vxm(w, no_mask, no_accum, u, a, s, opt);
}

KLEENE_NO_MIXED_SPACES(mxv)
KLEENE_NO_MIXED_SPACES(vxm)

}  // namespace kleene

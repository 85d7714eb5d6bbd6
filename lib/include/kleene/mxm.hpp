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
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/matrix.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace kleene {

namespace detail {
template <class M>
inline constexpr bool is_csr = false;
template <class T, class I>
inline constexpr bool is_csr<csr_matrix<T, I, host>> = true;
template <class M>
inline constexpr bool is_dense = false;
template <class T>
inline constexpr bool is_dense<dense_matrix<T, host>> = true;
template <class V>
inline constexpr bool is_sparse_vec = false;
template <class T, class I>
inline constexpr bool is_sparse_vec<sparse_vector<T, I, host>> = true;
template <class V>
inline constexpr bool is_dense_vec = false;
template <class T>
inline constexpr bool is_dense_vec<dense_vector<T, host>> = true;

template <class M>
concept host_matrix = is_csr<M> || is_dense<M>;
template <class V>
concept host_vector = is_sparse_vec<V> || is_dense_vec<V>;

template <class M>
std::string describe(M const& m) {
    if constexpr (is_csr<M>)
        return "csr " + shape(m.rows(), m.cols()) + " (" + std::to_string(m.nnz()) + " entries)";
    else if constexpr (is_dense<M>)
        return "dense " + shape(m.rows(), m.cols());
    else if constexpr (is_sparse_vec<M>)
        return "sparse vector " + std::to_string(m.size()) + " (" + std::to_string(m.nnz()) + " entries)";
    else
        return "dense vector " + std::to_string(m.size());
}

inline void trace(options const& opt, std::string line) {
    if (opt.explain) opt.explain->add(std::move(line));
}

template <class M>
std::size_t rows_of(M const& m) {
    if constexpr (requires { m.rows(); }) return m.rows();
    else return m.size();
}
template <class M>
std::size_t cols_of(M const& m) {
    if constexpr (requires { m.cols(); }) return m.cols();
    else return 1;
}

template <class Mask, class C>
void check_mask(char const* op, Mask const& mask, C const& c) {
    if constexpr (!std::is_same_v<Mask, no_mask_t>) {
        if (rows_of(*mask.m) != rows_of(c) || cols_of(*mask.m) != cols_of(c))
            throw dimension_mismatch(std::string(op) + ": mask is " + describe(*mask.m) +
                                     " but the output is " + describe(c));
    }
}

template <class S, class... Containers>
constexpr void check_types() {
    static_assert((std::is_same_v<typename Containers::value_type, typename S::value_type> && ...),
                  "kleene: the containers' value types must equal the semiring's value_type");
}

/// Checks that a host operation was not asked to run on the GPU; the returned scope runs the
/// operation's OpenMP regions with the context's thread count (context::threads).
[[nodiscard]] inline thread_scope check_host(char const* op, options const& opt) {
    if (opt.device == device_choice::gpu)
        throw invalid_argument(std::string(op) +
                               ": device=gpu was asked for host containers; move the operands with "
                               "to_device() first");
    return thread_scope(opt.ctx);
}

[[noreturn]] inline void bad_pin(char const* op, kernel_choice k, std::string const& operands) {
    throw invalid_argument(std::string(op) + ": kernel " + std::string(to_string(k)) +
                           " cannot compute " + operands);
}

/// Whether the accumulator is the semiring's own add (then C (+)= A (x) B fuses into the GEMM).
template <class Accum, class S>
constexpr bool accum_is_add() {
    if constexpr (requires { typename S::add_monoid::op_type; })
        return std::is_same_v<Accum, typename S::add_monoid::op_type>;
    else
        return false;
}
}  // namespace detail

/// C<mask, replace> accum= A (+).(x) B over semiring S.
template <detail::host_matrix C, mask_type Mask, accumulator_type Accum, detail::host_matrix A,
          detail::host_matrix B, semiring_type S>
void mxm(C& c, Mask const& mask, Accum accum, A const& a, B const& b, S, options const& opt = {}) {
    detail::check_types<S, C, A, B>();
    using T = typename S::value_type;
    if (a.cols() != b.rows())
        throw dimension_mismatch("mxm: cannot multiply A (" + detail::describe(a) + ") by B (" +
                                 detail::describe(b) + "): A has " + std::to_string(a.cols()) +
                                 " columns, B has " + std::to_string(b.rows()) + " rows");
    if (c.rows() != a.rows() || c.cols() != b.cols())
        throw dimension_mismatch("mxm: output C is " + detail::shape(c.rows(), c.cols()) +
                                 " but A (+).(x) B is " + detail::shape(a.rows(), b.cols()));
    detail::check_mask("mxm", mask, c);
    auto const omp_scope = detail::check_host("mxm", opt);
    constexpr bool plain = std::is_same_v<Mask, no_mask_t> && std::is_same_v<Accum, no_accum_t>;
    std::string const operands = detail::describe(a) + " x " + detail::describe(b);
    T const zero = S::zero();
    kernel_choice const pin = opt.kernel;

    if constexpr (detail::is_dense<A> && detail::is_dense<B>) {
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
            cpu::csr_dense<S>(a, b.view(), c);
        } else {
            dense_matrix<T> t(a.rows(), b.cols());
            cpu::csr_dense<S>(a, b.view(), t);
            cpu::write_back(c, mask, accum, t, opt.replace, zero);
        }
    } else if constexpr (detail::is_dense<A> && detail::is_csr<B>) {
        if (pin != kernel_choice::automatic && pin != kernel_choice::dense_csr)
            detail::bad_pin("mxm", pin, operands);
        detail::trace(opt, "mxm: " + operands + ": dense_csr (row i of C accumulates rows of B)");
        if constexpr (detail::is_dense<C> && plain) {
            cpu::dense_csr<S>(a.view(), b, c);
        } else {
            dense_matrix<T> t(a.rows(), b.cols());
            cpu::dense_csr<S>(a.view(), b, t);
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
                cpu::gustavson_dense_out<S>(a, b, c);
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
            auto t = cpu::gustavson<S>(a, b, mask,
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
template <detail::host_matrix C, detail::host_matrix A, detail::host_matrix B, semiring_type S>
void mxm(C& c, A const& a, B const& b, S s, options const& opt = {}) {
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
    double const est = cuda::product_density(a, b);
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

/// C accum= A (+).(x) B for dense matrices in device memory: the GPU semiring GEMM
/// (lib/cuda/dense_gemm.cuh). Built-in semirings are compiled into the library; a user-defined
/// semiring needs its translation unit compiled by nvcc with <kleene/cuda/dense_gemm.cuh>.
template <mask_type Mask, accumulator_type Accum, class T, semiring_type S>
void mxm(dense_matrix<T, device>& c, Mask const&, Accum, dense_matrix<T, device> const& a,
         dense_matrix<T, device> const& b, S, options const& opt = {}) {
    static_assert(std::is_same_v<T, typename S::value_type>,
                  "kleene: the containers' value types must equal the semiring's value_type");
    static_assert(std::is_same_v<Mask, no_mask_t>,
                  "mxm on device matrices takes no mask yet: mask on the host, or apply it after");
    static_assert(std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>(),
                  "mxm on device matrices accumulates only with the semiring's own add");
    if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
        throw dimension_mismatch("mxm: cannot compute C (" + detail::shape(c.rows(), c.cols()) +
                                 ") = A (" + detail::shape(a.rows(), a.cols()) + ") x B (" +
                                 detail::shape(b.rows(), b.cols()) + ")");
    if (opt.device == device_choice::cpu)
        throw invalid_argument("mxm: device=cpu was asked for device containers; copy them with to_host() first");
    if (opt.kernel != kernel_choice::automatic && opt.kernel != kernel_choice::dense_gemm)
        detail::bad_pin("mxm", opt.kernel, "dense device matrices");
    constexpr bool accumulate = !std::is_same_v<Accum, no_accum_t>;
    detail::trace(opt, "mxm: dense " + detail::shape(a.rows(), a.cols()) + " x dense " +
                           detail::shape(b.rows(), b.cols()) + " on the GPU: cuda dense_gemm" +
                           (accumulate ? " (accumulating into C)" : ""));
    cuda::dense_gemm<S>(a.view(), b.view(), c.view(), accumulate, resolve(opt.ctx));
}

template <class T, semiring_type S>
void mxm(dense_matrix<T, device>& c, dense_matrix<T, device> const& a,
         dense_matrix<T, device> const& b, S s, options const& opt = {}) {
    mxm(c, no_mask, no_accum, a, b, s, opt);
}

namespace detail {
template <class T, class V>
cpu::vector_result<T> load_vector(V const& v, T zero) {
    cpu::vector_result<T> r;
    cpu::load(r, v, zero);
    return r;
}
template <class Mask>
std::vector<std::uint8_t> prefilter(Mask const& mask, std::size_t n) {
    if constexpr (std::is_same_v<Mask, no_mask_t>) return {};
    else return cpu::mask_flags(mask, n);
}
}  // namespace detail

/// w<mask, replace> accum= A (+).(x) u.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_matrix A,
          detail::host_vector U, semiring_type S>
void mxv(W& w, Mask const& mask, Accum accum, A const& a, U const& u, S, options const& opt = {}) {
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
    T const zero = S::zero();
    if constexpr (detail::is_csr<A> && detail::is_dense_vec<W> && detail::is_dense_vec<U> &&
                  std::is_same_v<Mask, no_mask_t> && zero_annihilates<S>() &&
                  (std::is_same_v<Accum, no_accum_t> || detail::accum_is_add<Accum, S>())) {
        // Dense in, dense out: absent entries are zero on both sides, so no flags and no write-back.
        detail::trace(opt, "mxv: " + operands + ": spmv_pull (dense u and w, no presence flags)");
        cpu::spmv_pull_dense<S>(a, u.data(), w.data(), !std::is_same_v<Accum, no_accum_t>);
        return;
    }
    auto const x = detail::load_vector(u, zero);
    auto const allowed = detail::prefilter(mask, w.size());
    cpu::vector_result<T> t;
    if constexpr (detail::is_csr<A>) {
        detail::trace(opt, "mxv: " + operands + ": spmv_pull (one dot product per row" +
                               std::string(std::is_same_v<Mask, no_mask_t> ? "" : ", rows outside the mask skipped") +
                               (S::has_terminal ? ", early exit on the terminal value)" : ")"));
        t = cpu::spmv_pull<S>(a, x, allowed);
    } else {
        detail::trace(opt, "mxv: " + operands + ": dense_mv");
        t = cpu::dense_mv<S>(a.view(), x, allowed);
    }
    cpu::write_back(w, mask, accum, t, opt.replace, zero);
}

template <detail::host_vector W, detail::host_matrix A, detail::host_vector U, semiring_type S>
void mxv(W& w, A const& a, U const& u, S s, options const& opt = {}) {
    mxv(w, no_mask, no_accum, a, u, s, opt);
}

/// w<mask, replace> accum= u (+).(x) A.
template <detail::host_vector W, mask_type Mask, accumulator_type Accum, detail::host_vector U,
          detail::host_matrix A, semiring_type S>
void vxm(W& w, Mask const& mask, Accum accum, U const& u, A const& a, S, options const& opt = {}) {
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
    T const zero = S::zero();
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
        t = cpu::spmspv_push<S>(idx, val, a, allowed);
    } else {
        detail::trace(opt, "vxm: " + operands + ": dense_vm");
        t = cpu::dense_vm<S>(detail::load_vector(u, zero), a.view(), allowed);
    }
    cpu::write_back(w, mask, accum, t, opt.replace, zero);
}

template <detail::host_vector W, detail::host_vector U, detail::host_matrix A, semiring_type S>
void vxm(W& w, U const& u, A const& a, S s, options const& opt = {}) {
    vxm(w, no_mask, no_accum, u, a, s, opt);
}

}  // namespace kleene

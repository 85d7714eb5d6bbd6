#pragma once
// The CUDA backend of kleene::ewise_add, ewise_mult, apply and select (ewise.hpp, apply.hpp,
// select.hpp), which call these for device containers: use those, with the usual mask views.
// The CPU's semantics, checked against the CPU path by tests/gpu/test_operations_gpu.cpp.
//
//   ewise_add(C, mask, accum, op, A, B, opt)     C<mask, replace> accum= A (+) B   (union)
//   ewise_mult(C, mask, accum, op, A, B, opt)    C<mask, replace> accum= A (x) B   (intersection)
//   apply(C, mask, accum, op, A, opt)            C<mask, replace> accum= op(A)
//   select(C, mask, accum, pred, A, opt)         C<mask, replace> accum= A(pred)   (CSR only)
//   ewise_add(C, op, A, B), ewise_mult(C, op, A, B), apply(C, op, A), select(C, pred, A): the
//   same without mask or accumulator.
//
// C, A and B are all device CSR (csr_matrix<T, Index, device>) or all dense (dense_matrix or
// dense_vector on the device). As on the CPU the output has the operands' shape already
// (csr_matrix<T, Index, device>(rows, cols) makes an empty one); dimension_mismatch otherwise.
//
// Masks: a CSR output takes a csr_mask (from a valued, structural or complemented mask view of a
// device CSR with the same index type), a dense output a dense_mask (from a view of a dense
// device matrix or vector); a default-constructed one is no mask. Accumulators: no_accum or a
// binary operator. The write-back is GraphBLAS's: Z = accum ? C (+accum) T : T over the union
// of C and T, then where the mask allows an entry C gets Z's entry (or none), elsewhere C keeps
// its own unless replace. Dense objects hold the absent value of operators.hpp where an entry is
// absent (absent_of(op): plus 0, min +inf, ...; with_absent(op, x) states it). As on the CPU, an
// input entry equal to it is no entry, an output entry that ends absent is written as it, and an
// entry computed by op is present whatever its value (an accumulator then sees it).
// reduce and transpose are in reduce_transpose.hpp, extract and assign in extract_assign.hpp.
//
// Built-in instances (operations_*.cu): value types float, double,
// int32, int64; index types int32, int64; ewise ops plus, times, min, max, first, second;
// accumulators none, plus, min (dense) and none or any ewise op (CSR); apply ops identity, ainv,
// abs, one, minv and plus, times, min, max bound to a second operand; select predicates tril,
// triu, diag, offdiag (select.hpp) and value_eq, value_ne, value_lt, value_le, value_gt,
// value_ge; mask value types bool, uint8, float, double, int32, int64. Calls are synchronous, on
// the stream of options::ctx (null: default_context()'s); they throw kleene::device_error on CUDA
// failures, dimension_mismatch on shapes, and kleene::no_device in a build without CUDA.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kleene {
// select.hpp's predicates, named here without its CPU kernels (kleene_cuda builds without OpenMP).
struct tril;
struct triu;
struct diag;
struct offdiag;
template <class T> struct value_eq;
template <class T> struct value_ne;
template <class T> struct value_lt;
template <class T> struct value_le;
template <class T> struct value_gt;
template <class T> struct value_ge;
}  // namespace kleene

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

// dense_mask and csr_mask: kleene/cuda/mask.hpp.

namespace detail {

// Each of these runs on ctx's stream and returns with its work there done.

/// The CSR output of C<mask, replace> = Z (Z already holds the accumulated values): row by row,
/// Z's entries where the mask allows a write, C's elsewhere unless replace.
template <class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> mask_merge_csr(
    context& ctx, csr_matrix<T, Index, device> const& c, csr_matrix<T, Index, device> const& z,
    csr_mask<Index> const& mask, bool replace) KLEENE_DEVICE_VALUE;

/// c[0..n)<mask, replace> accum= a (+)/(x) b element by element (Union: ewise_add).
template <bool Union, class Op, class Accum, class T>
KLEENE_DEVICE_ENTRY void ewise_dense(context& ctx, T* c, dense_mask const& mask, Accum accum,
                                     Op op, T const* a, T const* b, std::size_t n, T absent,
                                     bool replace) KLEENE_DEVICE_BODY;

template <bool Union, class Op, class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> ewise_csr(
    context& ctx, Op op, csr_matrix<T, Index, device> const& a,
    csr_matrix<T, Index, device> const& b) KLEENE_DEVICE_VALUE;

/// c[0..n)<mask, replace> accum= f(a) (entries of a equal to absent are absent).
template <class F, class Accum, class T>
KLEENE_DEVICE_ENTRY void apply_dense(context& ctx, T* c, dense_mask const& mask, Accum accum, F f,
                                     T const* a, std::size_t n, T absent,
                                     bool replace) KLEENE_DEVICE_BODY;

template <class F, class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> apply_csr(
    context& ctx, F f, csr_matrix<T, Index, device> const& a) KLEENE_DEVICE_VALUE;

/// c (ma mb x na nb)<mask, replace> accum= kron(a, b) for dense row-major a (ma x na) and b
/// (mb x nb): op(x, y) where neither is absent.
template <class Op, class Accum, class T>
KLEENE_DEVICE_ENTRY void kronecker_dense(context& ctx, T* c, dense_mask const& mask, Accum accum,
                                         Op op, T const* a, std::size_t ma, std::size_t na,
                                         T const* b, std::size_t mb, std::size_t nb, T absent,
                                         bool replace) KLEENE_DEVICE_BODY;

/// out (rows x cols, row-major) = A, `absent` where A has no entry.
template <class T, class Index>
KLEENE_DEVICE_ENTRY void csr_to_dense(context& ctx, T* out, csr_matrix<T, Index, device> const& a,
                                      T absent) KLEENE_DEVICE_BODY;

/// The entries of a dense rows x cols d that differ from `absent`, as CSR (sorted columns);
/// overflow_error when they do not fit Index.
template <class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> dense_to_csr(context& ctx, T const* d,
                                                              std::size_t rows, std::size_t cols,
                                                              T absent) KLEENE_DEVICE_VALUE;

/// out[0..n) = the sparse vector (idx, vals), `absent` elsewhere.
template <class T, class Index>
KLEENE_DEVICE_ENTRY void sparse_to_dense(context& ctx, T* out, std::size_t n, Index const* idx,
                                         T const* vals, std::size_t nnz,
                                         T absent) KLEENE_DEVICE_BODY;

/// kron(A, B) on device CSR (sorted columns); the caller checks that its sizes fit Index.
template <class Op, class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> kronecker_csr(
    context& ctx, Op op, csr_matrix<T, Index, device> const& a,
    csr_matrix<T, Index, device> const& b) KLEENE_DEVICE_VALUE;

/// A built-in select predicate as the kernel reads it: which test, its k (position tests) or x.
template <class T>
struct select_spec {
    enum kind_t : std::uint8_t { tril, triu, diag, offdiag, eq, ne, lt, le, gt, ge } kind;
    std::int64_t k = 0;
    T x = T(0);
};

template <class T, class Pred>
select_spec<T> to_select_spec(Pred const& p) {
    using S = select_spec<T>;
    if constexpr (std::is_same_v<Pred, kleene::tril>) return {S::tril, p.k, T(0)};
    else if constexpr (std::is_same_v<Pred, kleene::triu>) return {S::triu, p.k, T(0)};
    else if constexpr (std::is_same_v<Pred, kleene::diag>) return {S::diag, p.k, T(0)};
    else if constexpr (std::is_same_v<Pred, kleene::offdiag>) return {S::offdiag, p.k, T(0)};
    else if constexpr (std::is_same_v<Pred, value_eq<T>>) return {S::eq, 0, p.x};
    else if constexpr (std::is_same_v<Pred, value_ne<T>>) return {S::ne, 0, p.x};
    else if constexpr (std::is_same_v<Pred, value_lt<T>>) return {S::lt, 0, p.x};
    else if constexpr (std::is_same_v<Pred, value_le<T>>) return {S::le, 0, p.x};
    else if constexpr (std::is_same_v<Pred, value_gt<T>>) return {S::gt, 0, p.x};
    else if constexpr (std::is_same_v<Pred, value_ge<T>>) return {S::ge, 0, p.x};
    else static_assert(sizeof(Pred) == 0, "kleene: no GPU select for this predicate");
}

template <class T, class Index>
KLEENE_DEVICE_ENTRY csr_matrix<T, Index, device> select_csr(
    context& ctx, select_spec<T> spec, csr_matrix<T, Index, device> const& a) KLEENE_DEVICE_VALUE;

inline void check_dense_mask(char const* name, dense_mask const& mask, std::size_t n) {
    if (mask.active() && mask.size() != n)
        throw dimension_mismatch(std::string(name) + ": the mask has " + std::to_string(mask.size()) +
                                 " entries, the output " + std::to_string(n));
}

template <class X, class Index>
void check_csr_mask(char const* name, csr_mask<Index> const& mask, X const& c) {
    if (mask.active() && (mask.rows() != c.rows() || mask.cols() != c.cols()))
        throw dimension_mismatch(std::string(name) + ": the mask is " +
                                 kleene::detail::shape(mask.rows(), mask.cols()) +
                                 ", the output " + kleene::detail::shape(c.rows(), c.cols()));
}

/// C<mask, replace> accum= T on device CSR (the header comment's write-back), on ctx's stream;
/// C's shape checked.
template <class Accum, class T, class Index>
void write_back_csr(context& ctx, char const* name, csr_matrix<T, Index, device>& c,
                    csr_mask<Index> const& mask, Accum const& accum,
                    csr_matrix<T, Index, device> t, bool replace) {
    if (c.rows() != t.rows() || c.cols() != t.cols())
        throw dimension_mismatch(std::string(name) + ": output is " +
                                 kleene::detail::shape(c.rows(), c.cols()) + " but the result is " +
                                 kleene::detail::shape(t.rows(), t.cols()));
    check_csr_mask(name, mask, c);
    if constexpr (!std::is_same_v<Accum, no_accum_t>)
        t = ewise_csr<true>(ctx, unwrap_absent(accum), c, t);
    if (!mask.active()) c = std::move(t);
    else c = mask_merge_csr(ctx, c, t, mask, replace);
}

template <class X, class Y>
void check_same_shape(char const* name, X const& x, Y const& y) {
    if (x.rows() != y.rows() || x.cols() != y.cols())
        throw dimension_mismatch(std::string(name) + ": operands are " +
                                 kleene::detail::shape(x.rows(), x.cols()) + " and " +
                                 kleene::detail::shape(y.rows(), y.cols()));
}

template <class T>
struct vector_shape {
    dense_vector<T, device> const& v;
    std::size_t rows() const { return v.size(); }
    std::size_t cols() const { return 1; }
};

template <bool Union, class Accum, class Op, class T>
void ewise_dense_call(char const* name, T* c, std::size_t n, dense_mask const& mask, Accum accum,
                      Op const& op_in, T const* a, T const* b, options const& opt) {
    check_dense_mask(name, mask, n);
    ewise_dense<Union>(resolve(opt.ctx), c, mask, accum, unwrap_absent(op_in), a, b, n,
                       T(absent_of(op_in)), opt.replace);
}

}  // namespace detail

// ---- ewise_add / ewise_mult ---------------------------------------------------------------------

/// C<mask, replace> accum= A (+) B on device CSR (same shape; sorted columns; op(a, b) where both
/// have an entry, the one entry elsewhere).
template <accumulator_type Accum, class Op, class T, index_type Index>
void ewise_add(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
               Accum accum, Op const& op, csr_matrix<T, Index, device> const& a,
               csr_matrix<T, Index, device> const& b, options const& opt = {}) {
    detail::check_same_shape("cuda::ewise_add", a, b);
    context& ctx = resolve(opt.ctx);
    detail::write_back_csr(ctx, "cuda::ewise_add", c, mask, accum,
                           detail::ewise_csr<true>(ctx, unwrap_absent(op), a, b), opt.replace);
}
template <class Op, class T, index_type Index>
void ewise_add(csr_matrix<T, Index, device>& c, Op const& op, csr_matrix<T, Index, device> const& a,
               csr_matrix<T, Index, device> const& b) {
    ewise_add(c, csr_mask<Index>{}, no_accum, op, a, b);
}
/// C<mask, replace> accum= A (x) B on device CSR (entries where both have one).
template <accumulator_type Accum, class Op, class T, index_type Index>
void ewise_mult(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
                Accum accum, Op const& op, csr_matrix<T, Index, device> const& a,
                csr_matrix<T, Index, device> const& b, options const& opt = {}) {
    detail::check_same_shape("cuda::ewise_mult", a, b);
    context& ctx = resolve(opt.ctx);
    detail::write_back_csr(ctx, "cuda::ewise_mult", c, mask, accum,
                           detail::ewise_csr<false>(ctx, unwrap_absent(op), a, b), opt.replace);
}
template <class Op, class T, index_type Index>
void ewise_mult(csr_matrix<T, Index, device>& c, Op const& op,
                csr_matrix<T, Index, device> const& a, csr_matrix<T, Index, device> const& b) {
    ewise_mult(c, csr_mask<Index>{}, no_accum, op, a, b);
}

/// C<mask, replace> accum= A (+) B on dense device matrices.
template <accumulator_type Accum, class Op, class T>
void ewise_add(dense_matrix<T, device>& c, dense_mask const& mask, Accum accum, Op const& op,
               dense_matrix<T, device> const& a, dense_matrix<T, device> const& b,
               options const& opt = {}) {
    detail::check_same_shape("cuda::ewise_add", a, b);
    detail::check_same_shape("cuda::ewise_add", c, a);
    detail::ewise_dense_call<true>("cuda::ewise_add", c.data(), c.rows() * c.cols(), mask, accum,
                                   op, a.data(), b.data(), opt);
}
template <class Op, class T>
void ewise_add(dense_matrix<T, device>& c, Op const& op, dense_matrix<T, device> const& a,
               dense_matrix<T, device> const& b, options const& opt = {}) {
    ewise_add(c, dense_mask{}, no_accum, op, a, b, opt);
}
/// C<mask, replace> accum= A (x) B on dense device matrices.
template <accumulator_type Accum, class Op, class T>
void ewise_mult(dense_matrix<T, device>& c, dense_mask const& mask, Accum accum, Op const& op,
                dense_matrix<T, device> const& a, dense_matrix<T, device> const& b,
                options const& opt = {}) {
    detail::check_same_shape("cuda::ewise_mult", a, b);
    detail::check_same_shape("cuda::ewise_mult", c, a);
    detail::ewise_dense_call<false>("cuda::ewise_mult", c.data(), c.rows() * c.cols(), mask, accum,
                                    op, a.data(), b.data(), opt);
}
template <class Op, class T>
void ewise_mult(dense_matrix<T, device>& c, Op const& op, dense_matrix<T, device> const& a,
                dense_matrix<T, device> const& b, options const& opt = {}) {
    ewise_mult(c, dense_mask{}, no_accum, op, a, b, opt);
}

/// w<mask, replace> accum= u (+) v on dense device vectors.
template <accumulator_type Accum, class Op, class T>
void ewise_add(dense_vector<T, device>& w, dense_mask const& mask, Accum accum, Op const& op,
               dense_vector<T, device> const& u, dense_vector<T, device> const& v,
               options const& opt = {}) {
    detail::check_same_shape("cuda::ewise_add", detail::vector_shape<T>{u},
                             detail::vector_shape<T>{v});
    detail::check_same_shape("cuda::ewise_add", detail::vector_shape<T>{w},
                             detail::vector_shape<T>{u});
    detail::ewise_dense_call<true>("cuda::ewise_add", w.data(), w.size(), mask, accum, op, u.data(),
                                   v.data(), opt);
}
/// w<mask, replace> accum= u (x) v on dense device vectors.
template <accumulator_type Accum, class Op, class T>
void ewise_mult(dense_vector<T, device>& w, dense_mask const& mask, Accum accum, Op const& op,
                dense_vector<T, device> const& u, dense_vector<T, device> const& v,
                options const& opt = {}) {
    detail::check_same_shape("cuda::ewise_mult", detail::vector_shape<T>{u},
                             detail::vector_shape<T>{v});
    detail::check_same_shape("cuda::ewise_mult", detail::vector_shape<T>{w},
                             detail::vector_shape<T>{u});
    detail::ewise_dense_call<false>("cuda::ewise_mult", w.data(), w.size(), mask, accum, op,
                                    u.data(), v.data(), opt);
}

// ---- apply --------------------------------------------------------------------------------------

/// C<mask, replace> accum= op(A) on device CSR: A's structure, op on every value (an iso A gives
/// explicit values).
template <accumulator_type Accum, class Op, class T, index_type Index>
void apply(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
           Accum accum, Op const& op, csr_matrix<T, Index, device> const& a,
           options const& opt = {}) {
    context& ctx = resolve(opt.ctx);
    detail::write_back_csr(ctx, "cuda::apply", c, mask, accum,
                           detail::apply_csr(ctx, unwrap_absent(op), a), opt.replace);
}
template <class Op, class T, index_type Index>
void apply(csr_matrix<T, Index, device>& c, Op const& op, csr_matrix<T, Index, device> const& a) {
    apply(c, csr_mask<Index>{}, no_accum, op, a);
}

/// C<mask, replace> accum= op(A) on dense device matrices.
template <accumulator_type Accum, class Op, class T>
void apply(dense_matrix<T, device>& c, dense_mask const& mask, Accum accum, Op const& op,
           dense_matrix<T, device> const& a, options const& opt = {}) {
    detail::check_same_shape("cuda::apply", c, a);
    detail::check_dense_mask("cuda::apply", mask, c.rows() * c.cols());
    detail::apply_dense(resolve(opt.ctx), c.data(), mask, accum, unwrap_absent(op), a.data(),
                        c.rows() * c.cols(), T(absent_of(op)), opt.replace);
}
/// w<mask, replace> accum= op(u) on dense device vectors.
template <accumulator_type Accum, class Op, class T>
void apply(dense_vector<T, device>& w, dense_mask const& mask, Accum accum, Op const& op,
           dense_vector<T, device> const& u, options const& opt = {}) {
    detail::check_same_shape("cuda::apply", detail::vector_shape<T>{w},
                             detail::vector_shape<T>{u});
    detail::check_dense_mask("cuda::apply", mask, w.size());
    detail::apply_dense(resolve(opt.ctx), w.data(), mask, accum, unwrap_absent(op), u.data(),
                        w.size(), T(absent_of(op)), opt.replace);
}

// ---- select -------------------------------------------------------------------------------------

/// C<mask, replace> accum= the entries (i, j, v) of A with pred(v, i, j), on device CSR (sorted
/// columns kept).
template <accumulator_type Accum, class Pred, class T, index_type Index>
void select(csr_matrix<T, Index, device>& c, std::type_identity_t<csr_mask<Index>> const& mask,
            Accum accum, Pred const& pred, csr_matrix<T, Index, device> const& a,
            options const& opt = {}) {
    context& ctx = resolve(opt.ctx);
    detail::write_back_csr(ctx, "cuda::select", c, mask, accum,
                           detail::select_csr(ctx, detail::to_select_spec<T>(pred), a),
                           opt.replace);
}
template <class Pred, class T, index_type Index>
void select(csr_matrix<T, Index, device>& c, Pred const& pred,
            csr_matrix<T, Index, device> const& a) {
    select(c, csr_mask<Index>{}, no_accum, pred, a);
}

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

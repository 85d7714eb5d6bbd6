#pragma once
// CPU kernels of the element-wise operations: ewise_add / ewise_mult (union / intersection of two
// structures), apply (a unary operator on every entry) and select (keep the entries a predicate
// accepts). Each returns T, the unmasked result, for write_back.hpp.
//
// CSR inputs run in two passes over balanced row blocks (count each row's output, then fill the
// final arrays in place), so no per-block buffers are concatenated. Inputs with a dense operand
// go row by row through a per-thread dense workspace. Dense operands hold `absent` where an entry
// is absent; a computed value equal to `absent` stays an entry of a CSR result.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/sparse_products.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/vector.hpp>
#include <vector>

namespace kleene::cpu {

namespace detail {
/// Rows [0, rows) in blocks of similar `cost_prefix` cost, about 4 per thread; one block when
/// the whole job is too small to pay for a parallel region.
inline std::vector<std::size_t> work_blocks(std::vector<std::int64_t> const& cost_prefix) {
    std::size_t const threads = static_cast<std::size_t>(max_threads());
    bool const small = cost_prefix.back() < 32768 || threads == 1;
    return balanced_blocks(cost_prefix, small ? 1 : 4 * threads);
}

/// Two-pass CSR construction: count(i) gives row i's size, fill(i, cols, vals) writes it.
template <class T, class Index, class Count, class Fill>
csr_matrix<T, Index> two_pass(std::size_t rows, std::size_t cols,
                              std::vector<std::int64_t> const& cost_prefix, Count&& count,
                              Fill&& fill) {
    auto const bounds = work_blocks(cost_prefix);
    std::size_t const nb = bounds.size() - 1;
    buffer<Index> ptr(rows + 1);
    ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
    for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t i = bounds[b]; i < bounds[b + 1]; ++i) ptr[i + 1] = count(i);
    std::int64_t run = 0;
    for (std::size_t i = 1; i <= rows; ++i) {
        run += ptr[i];
        if (run > std::int64_t(std::numeric_limits<Index>::max()))
            throw invalid_argument(
                "result has more entries than the index type holds: use int64 "
                "indices");
        ptr[i] = static_cast<Index>(run);
    }
    buffer<Index> out_cols(static_cast<std::size_t>(run));
    buffer<T> out_vals(static_cast<std::size_t>(run));
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
    for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t i = bounds[b]; i < bounds[b + 1]; ++i)
            fill(i, out_cols.data() + ptr[i], out_vals.data() + ptr[i]);
    return {rows, cols, std::move(ptr), std::move(out_cols), std::move(out_vals), T(1), true};
}

template <class T, class Index>
std::vector<std::int64_t> nnz_prefix(csr_matrix<T, Index> const& a) {
    std::vector<std::int64_t> p(a.rows() + 1);
    for (std::size_t i = 0; i <= a.rows(); ++i)
        p[i] = std::int64_t(a.row_ptr()[i]) + std::int64_t(i);
    return p;
}

/// Reads row i of any host matrix as sorted (column, value) pairs, dense rows skipping `absent`.
template <class M, class T>
auto rows_of(M const& m, T absent) {
    return kleene::cpu::detail::row_source(m, absent);
}
}  // namespace detail

/// T = A (+) B (Union) or A (x) B (intersection) for CSR A and B, op(a, b) where both exist.
template <bool Union, class Op, class T, class IA, class IB>
csr_matrix<T, IA> ewise_csr(Op const& op, csr_matrix<T, IA> const& a, csr_matrix<T, IB> const& b) {
    std::size_t const rows = a.rows();
    std::vector<std::int64_t> cost(rows + 1);
    for (std::size_t i = 0; i <= rows; ++i)
        cost[i] = std::int64_t(a.row_ptr()[i]) + std::int64_t(b.row_ptr()[i]) + std::int64_t(i);
    IA const* ap = a.row_ptr();
    IA const* aj = a.col_idx();
    IB const* bp = b.row_ptr();
    IB const* bj = b.col_idx();
    auto count = [&](std::size_t i) -> IA {
        IA ka = ap[i], ea = ap[i + 1];
        IB kb = bp[i], eb = bp[i + 1];
        std::int64_t both = 0;
        while (ka < ea && kb < eb) {
            IA const x = aj[ka];
            IB const y = bj[kb];
            both += x == y;
            ka += x <= y;
            kb += y <= x;
        }
        if constexpr (Union)
            return static_cast<IA>((ea - ap[i]) + (eb - bp[i]) - both);
        else
            return static_cast<IA>(both);
    };
    detail::csr_values<T, IA> const av(a);
    detail::csr_values<T, IB> const bv(b);
    auto fill = [&](std::size_t i, IA* oc, T* ov) {
        IA ka = ap[i], ea = ap[i + 1];
        IB kb = bp[i], eb = bp[i + 1];
        std::size_t w = 0;
        if constexpr (Union) {
            // Every step emits one entry: no data-dependent branch, which random columns would
            // mispredict about half of the time.
            while (ka < ea && kb < eb) {
                IA const x = aj[ka];
                IA const y = static_cast<IA>(bj[kb]);
                T const va = av[ka], vb = bv[kb];
                T const both = op.apply(va, vb);
                oc[w] = x < y ? x : y;
                ov[w++] = x < y ? va : (y < x ? vb : both);
                ka += x <= y;
                kb += y <= x;
            }
        }
        while (ka < ea && kb < eb) {
            IA const x = aj[ka];
            IA const y = static_cast<IA>(bj[kb]);
            if (x == y) {
                oc[w] = x;
                ov[w++] = op.apply(av[ka++], bv[kb++]);
            } else if (x < y) {
                if constexpr (Union) {
                    oc[w] = x;
                    ov[w++] = av[ka];
                }
                ++ka;
            } else {
                if constexpr (Union) {
                    oc[w] = y;
                    ov[w++] = bv[kb];
                }
                ++kb;
            }
        }
        if constexpr (Union) {
            for (; ka < ea; ++ka, ++w) {
                oc[w] = aj[ka];
                ov[w] = av[ka];
            }
            for (; kb < eb; ++kb, ++w) {
                oc[w] = static_cast<IA>(bj[kb]);
                ov[w] = bv[kb];
            }
        }
    };
    return detail::two_pass<T, IA>(rows, a.cols(), cost, count, fill);
}

/// The same for operands of any storage (at least one dense), through a dense row workspace.
template <bool Union, class Index, class Op, class A, class B, class T>
csr_matrix<T, Index> ewise_rows(Op const& op, A const& a, B const& b, T absent) {
    std::size_t const rows = a.rows(), cols = a.cols();
    auto const ra = detail::rows_of(a, absent);
    auto const rb = detail::rows_of(b, absent);
    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        buffer<T> val(cols);
        // 0: nothing, 1: from A only, 2: from both, 3: from B only
        std::vector<std::uint8_t> state(cols, 0);
        for (std::size_t i = r0; i < r1; ++i) {
            ra.for_each(i, [&](std::size_t j, T v) {
                val[j] = v;
                state[j] = 1;
            });
            rb.for_each(i, [&](std::size_t j, T v) {
                if (state[j] == 1) {
                    val[j] = op.apply(val[j], v);
                    state[j] = 2;
                } else {
                    val[j] = v;
                    state[j] = 3;
                }
            });
            std::size_t const before = out.cols.size();
            for (std::size_t j = 0; j < cols; ++j) {
                if (state[j] == 2 || (Union && state[j] != 0)) {
                    out.cols.push_back(static_cast<Index>(j));
                    out.vals.push_back(val[j]);
                }
                state[j] = 0;
            }
            counts[i] = static_cast<Index>(out.cols.size() - before);
        }
    };
    return assemble_rows<T, Index>(rows, cols, even_blocks(rows), fill);
}

/// Dense A (+)/(x) dense B into dense C, no mask (entries equal to `absent` are absent).
template <bool Union, class Op, class T>
void ewise_dense(Op const& op, dense_matrix<T> const& a, dense_matrix<T> const& b,
                 dense_matrix<T>& c, T absent) {
    std::size_t const n = a.rows() * a.cols();
    T const* x = a.data();
    T const* y = b.data();
    T* z = c.data();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t k = 0; k < n; ++k) {
        bool const hx = !(x[k] == absent), hy = !(y[k] == absent);
        if (hx && hy)
            z[k] = op.apply(x[k], y[k]);
        else if (Union)
            z[k] = hx ? x[k] : y[k];
        else
            z[k] = absent;
    }
}

/// t = u (+)/(x) v for vectors (loaded as flags and values).
template <bool Union, class Op, class T>
vector_result<T> ewise_vector(Op const& op, vector_result<T> const& u, vector_result<T> const& v) {
    std::size_t const n = u.vals.size();
    vector_result<T> t;
    t.vals = buffer<T>(n);
    t.has.assign(n, 0);
#pragma omp parallel for schedule(static) if (n > 100000)
    for (std::size_t i = 0; i < n; ++i) {
        bool const hu = u.has[i] != 0, hv = v.has[i] != 0;
        if (hu && hv)
            t.vals[i] = op.apply(u.vals[i], v.vals[i]);
        else
            t.vals[i] = hu ? u.vals[i] : v.vals[i];
        t.has[i] = Union ? (hu || hv) : (hu && hv);
    }
    return t;
}

// ---- apply and select ---------------------------------------------------------------------------

/// T = f(A) for CSR A: same structure, f on each value (an iso matrix stays iso).
template <class F, class T, class Index>
csr_matrix<T, Index> apply_csr(F const& f, csr_matrix<T, Index> const& a) {
    std::size_t const nnz = a.nnz();
    if (nnz == 0) return csr_matrix<T, Index>(a.rows(), a.cols());
    if (a.is_iso())
        return {a.rows(),
                a.cols(),
                a.row_ptr_storage(),
                a.col_idx_storage(),
                buffer<T>{},
                T(f(a.iso_value())),
                true};
    // The structure is copied in the same parallel pass that maps the values.
    std::size_t const rows = a.rows();
    buffer<Index> ptr(rows + 1), cols(nnz);
    buffer<T> vals(nnz);
    T const* av = a.values();
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    T* out = vals.data();
    Index* oc = cols.data();
    Index* op = ptr.data();
#pragma omp parallel if (nnz > 50000)
    {
#pragma omp for simd schedule(static) nowait
        for (std::size_t k = 0; k < nnz; ++k) out[k] = f(av[k]);
#pragma omp for schedule(static) nowait
        for (std::size_t k = 0; k < nnz; ++k) oc[k] = aj[k];
#pragma omp for schedule(static)
        for (std::size_t i = 0; i <= rows; ++i) op[i] = ap[i];
    }
    return {rows, a.cols(), std::move(ptr), std::move(cols), std::move(vals), T(1), true};
}

/// T = the entries (i, j, v) of A with keep(v, i, j), for CSR A.
template <class Pred, class T, class Index>
csr_matrix<T, Index> select_csr(Pred const& keep, csr_matrix<T, Index> const& a) {
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    detail::csr_values<T, Index> const av(a);
    auto count = [&](std::size_t i) -> Index {
        Index n = 0;
        for (Index k = ap[i]; k < ap[i + 1]; ++k) n += keep(av[k], i, std::size_t(aj[k])) ? 1 : 0;
        return n;
    };
    auto fill = [&](std::size_t i, Index* oc, T* ov) {
        std::size_t w = 0;
        for (Index k = ap[i]; k < ap[i + 1]; ++k) {
            T const v = av[k];
            if (keep(v, i, std::size_t(aj[k]))) {
                oc[w] = aj[k];
                ov[w++] = v;
            }
        }
    };
    return detail::two_pass<T, Index>(a.rows(), a.cols(), detail::nnz_prefix(a), count, fill);
}

/// T as CSR from any host matrix, row by row: emit(i, j, v, out) decides what entry (i, j) of A
/// becomes (calls out(v') to store v', or nothing to drop it).
template <class Index, class M, class T, class Emit>
csr_matrix<T, Index> map_rows(M const& a, T absent, Emit const& emit) {
    auto const ra = detail::rows_of(a, absent);
    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        for (std::size_t i = r0; i < r1; ++i) {
            std::size_t const before = out.cols.size();
            ra.for_each(i, [&](std::size_t j, T v) {
                emit(i, j, v, [&](T w) {
                    out.cols.push_back(static_cast<Index>(j));
                    out.vals.push_back(w);
                });
            });
            counts[i] = static_cast<Index>(out.cols.size() - before);
        }
    };
    return assemble_rows<T, Index>(a.rows(), a.cols(), even_blocks(a.rows()), fill);
}

}  // namespace kleene::cpu

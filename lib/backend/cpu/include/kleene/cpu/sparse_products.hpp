#pragma once
// CPU kernels for products with a sparse operand: CSR x CSR (Gustavson, dense or hash
// accumulator), CSR x dense, dense x CSR, and the matrix-vector products (pull and push).
// Every kernel returns T, the unmasked-by-value result; write_back.hpp merges T into the output.
// Dense operands hold the semiring's zero where an entry is absent, so the kernels skip zero
// entries of dense operands whenever zero does not annihilate mul (pair, first, second).

#include <kleene/cpu/mask.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/masked_dot_model.hpp>
#include <kleene/semiring.hpp>

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene::cpu {

namespace detail {
/// Values of a CSR matrix without a branch per access: iso matrices read one value.
template <class T, class Index>
struct csr_values {
    T const* v;
    T iso;
    explicit csr_values(csr_matrix<T, Index> const& a) : v(a.has_values() ? a.values() : nullptr), iso(a.iso_value()) {}
    T operator[](std::size_t k) const { return v ? v[k] : iso; }
};

/// Multiply-adds of row i of A times B (the work of Gustavson's algorithm on that row).
template <class T, class Index>
std::vector<std::int64_t> row_flops_prefix(csr_matrix<T, Index> const& a, csr_matrix<T, Index> const& b) {
    std::size_t const rows = a.rows();
    std::vector<std::int64_t> prefix(rows + 1, 0);
    Index const* bp = b.row_ptr();
#pragma omp parallel for schedule(static) if (rows > 10000)
    for (std::size_t i = 0; i < rows; ++i) {
        std::int64_t f = 0;
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            Index const kk = a.col_idx()[k];
            f += bp[kk + 1] - bp[kk];
        }
        prefix[i + 1] = f + 1;  // +1: empty rows still cost a visit
    }
    for (std::size_t i = 0; i < rows; ++i) prefix[i + 1] += prefix[i];
    return prefix;
}
}  // namespace detail

namespace detail {
/// T (M's rows, `cols` columns, index type I) from one value and flag per entry of M: the
/// flagged entries in M's order (each row's columns stay sorted).
template <class I, class T, class MT, class MIndex>
csr_matrix<T, I> pack_masked(csr_matrix<MT, MIndex> const& m, buffer<T> const& vals,
                             std::vector<std::uint8_t> const& hit, std::size_t cols) {
    std::size_t const rows = m.rows();
    std::size_t const mn = m.nnz();
    auto const* const mp = m.row_ptr();
    buffer<I> ptr(rows + 1);
    ptr[0] = 0;
#pragma omp parallel for schedule(static) if (mn > 65536)
    for (std::size_t i = 0; i < rows; ++i) {
        I count = 0;
        for (auto p = static_cast<std::size_t>(mp[i]); p < static_cast<std::size_t>(mp[i + 1]); ++p)
            count += hit[p];
        ptr[i + 1] = count;
    }
    for (std::size_t i = 0; i < rows; ++i) ptr[i + 1] += ptr[i];
    buffer<I> out_col(static_cast<std::size_t>(ptr[rows]));
    buffer<T> out(static_cast<std::size_t>(ptr[rows]));
#pragma omp parallel for schedule(static) if (mn > 65536)
    for (std::size_t i = 0; i < rows; ++i) {
        auto q = static_cast<std::size_t>(ptr[i]);
        for (std::size_t p = m.row_begin(i); p < m.row_end(i); ++p)
            if (hit[p]) {
                out_col[q] = static_cast<I>(m.col_idx()[p]);
                out[q++] = vals[p];
            }
    }
    return csr_matrix<T, I>(rows, cols, std::move(ptr), std::move(out_col), std::move(out));
}
}  // namespace detail

namespace detail {
// The masked dot products' search rule and model, shared with the GPU (masked_dot_model.hpp).
using kleene::detail::dot_gallop_ratio;
using kleene::detail::dot_steps;
}  // namespace detail

/// Masked dot products (SuiteSparse:GraphBLAS's "dot3"): for every entry (i, j) of the mask M that
/// allows a write (stored; non-zero too for a valued mask), C(i,j) = A(i,:) (+).(x) Bt(j,:), a
/// merge of two sorted rows, where Bt holds B's columns as rows (B = Bt'). The work is the merged
/// rows' lengths over the mask's entries, whatever the size of the unmasked product; entries with
/// no product are left out. Not for a complemented mask. Returns T for write_back, as gustavson
/// does. Hashed rows (kleene::detail::hashed_entry: A(i,:) past 256 entries, its mask row at least
/// a 32nd as long, Bt(j,:) no longer): a thread puts A(i,:)'s positions in an array indexed by
/// column (once for the run of the row's entries it takes), and each entry of Bt(j,:) up to
/// A(i,:)'s last column looks itself up there: one load where the merge walked A(i,:) or the
/// searches read it level by level. (Not where the threads' arrays would outweigh A and Bt.)
template <semiring_object S, class T, class Index, class MT, class MIndex>
csr_matrix<T, Index> masked_dot(S const& s, csr_matrix<T, Index> const& a,
                                csr_matrix<T, Index> const& bt, csr_matrix<MT, MIndex> const& m,
                                bool structural) {
    std::size_t const rows = a.rows();
    std::size_t const mn = m.nnz();
    detail::csr_values<T, Index> const av(a), bv(bt);
    Index const* const aj = a.col_idx();
    Index const* const bj = bt.col_idx();
    buffer<T> vals(mn);
    std::vector<std::uint8_t> hit(mn, 0);
    auto const* const mp = m.row_ptr();
    // Over the mask's entries in chunks of consecutive entries (rows split where they are long),
    // not over rows: on a skewed graph a few rows hold a large part of the entries and of the
    // work, and a thread given such a row finished long after the others.
    constexpr std::size_t chunk = 512;
    std::size_t const chunks = (mn + chunk - 1) / chunk;
    constexpr Index none = Index(-1);
    // Each thread's index of a hashed row of A: at[c] = the position of column c in A(i,:) of the
    // row it holds, none elsewhere (cleared row by row). Allocated here, before the threads
    // start (a failure throws to the caller), and filled by each thread, where some row is hashed
    // and the indexes together are no larger than the operands (a hypersparse A of very many
    // columns keeps the merges and searches).
    std::vector<std::vector<Index>> index;
    if (double(a.cols()) * double(max_threads()) * double(sizeof(Index)) <=
        double(a.nnz() + bt.nnz()) * double(sizeof(Index) + sizeof(T))) {
        bool some = false;
        for (std::size_t i = 0; i < rows && !some; ++i)
            some = kleene::detail::hashed_row(std::int64_t(a.row_end(i) - a.row_begin(i)),
                                              std::int64_t(mp[i + 1] - mp[i]));
        if (some) {
            index.resize(static_cast<std::size_t>(max_threads()));
            for (auto& v : index) v.reserve(a.cols());  // filled by its thread (its memory near it)
        }
    }
    bool const can_index = !index.empty();
#pragma omp parallel if (mn > 16384)
    {
        std::vector<Index>* const at =
            can_index ? &index[static_cast<std::size_t>(omp_get_thread_num())] : nullptr;
        if (at) at->assign(a.cols(), none);  // within the capacity reserved: no allocation
        std::size_t held = rows;
#pragma omp for schedule(dynamic, 4)
        for (std::size_t c = 0; c < chunks; ++c) {
            std::size_t const p0 = c * chunk, p1 = std::min(mn, p0 + chunk);
            // The row of entry p0: the last i with mp[i] <= p0.
            auto const after = [](std::size_t x, auto r) {
                return x < static_cast<std::size_t>(r);
            };
            auto i =
                static_cast<std::size_t>(std::upper_bound(mp, mp + rows + 1, p0, after) - mp) - 1;
            for (std::size_t p = p0; p < p1; ++p) {
                while (static_cast<std::size_t>(mp[i + 1]) <= p) ++i;
                if (!structural && m.value(p) == MT(0)) continue;
                std::size_t const a0 = a.row_begin(i), a1 = a.row_end(i);
                if (a0 == a1) continue;
                Index const alo = aj[a0], ahi = aj[a1 - 1];
                auto const j = static_cast<std::size_t>(m.col_idx()[p]);
                std::size_t x = a0, y = bt.row_begin(j);
                std::size_t const y1 = bt.row_end(j);
                if (y == y1 || bj[y1 - 1] < alo || bj[y] > ahi) continue;
                bool any = false;
                T acc{};
                auto take = [&](std::size_t xa, std::size_t yb) {
                    T const t = s.mul(av[xa], bv[yb]);
                    acc = any ? s.add(acc, t) : t;
                    any = true;
                };
                std::size_t const la = a1 - x, lb = y1 - y;
                if (can_index && kleene::detail::hashed_entry(std::int64_t(la), std::int64_t(lb),
                                                              std::int64_t(mp[i + 1] - mp[i]))) {
                    if (held != i) {
                        if (held < rows)
                            for (std::size_t q = a.row_begin(held); q < a.row_end(held); ++q)
                                (*at)[static_cast<std::size_t>(aj[q])] = none;
                        for (std::size_t q = a0; q < a1; ++q)
                            (*at)[static_cast<std::size_t>(aj[q])] = static_cast<Index>(q);
                        held = i;
                    }
                    if (bj[y] < alo)
                        y = static_cast<std::size_t>(std::lower_bound(bj + y, bj + y1, alo) - bj);
                    for (; y < y1 && bj[y] <= ahi; ++y) {
                        Index const q = (*at)[static_cast<std::size_t>(bj[y])];
                        if (q != none) take(static_cast<std::size_t>(q), y);
                    }
                } else if (la * detail::dot_gallop_ratio < lb) {
                    // A's row much the shorter: each of its entries searched for in Bt's row.
                    for (; x < a1 && y < y1; ++x) {
                        y = static_cast<std::size_t>(std::lower_bound(bj + y, bj + y1, aj[x]) - bj);
                        if (y < y1 && bj[y] == aj[x]) take(x, y++);
                    }
                } else if (lb * detail::dot_gallop_ratio < la) {
                    for (; y < y1 && x < a1; ++y) {
                        x = static_cast<std::size_t>(std::lower_bound(aj + x, aj + a1, bj[y]) - aj);
                        if (x < a1 && aj[x] == bj[y]) take(x++, y);
                    }
                } else {
                    while (x < a1 && y < y1) {
                        Index const u = aj[x], v = bj[y];
                        if (u == v) {
                            take(x, y);
                            ++x;
                            ++y;
                        } else if (u < v) {
                            ++x;
                        } else {
                            ++y;
                        }
                    }
                }
                if (any) {
                    vals[p] = acc;
                    hit[p] = 1;
                }
            }
        }
    }
    return detail::pack_masked<Index>(m, vals, hit, bt.rows());
}

/// Masked products with a dense B (the sampled products, "SDDMM"): for every entry (i, j) of the
/// CSR mask M that allows a write (stored; non-zero too for a valued mask), T(i,j) = the sum over
/// the k of A(i,:) of mul(A(i,k), B(k,j)), A CSR (its entries) or dense (every k), B dense k x n.
/// Dense operands hold zero() where absent, as for the whole product: an entry of a dense operand
/// equal to zero() adds nothing where zero does not annihilate, and an entry of T whose value is
/// zero() is left out (the whole product into a dense temporary drops those too), so T equals the
/// whole product's entries inside M. The work is the sum over M's entries of A(i,:)'s length,
/// whatever m x n is. The mask's entries are taken in chunks of one row (rows split where long):
/// each k of A(i,:) scales its row of B into the chunk's sums. Not for a complemented mask.
/// Returns T (M's index type) for write_back.
template <semiring_object S, class T, class AOp, class MT, class MIndex>
csr_matrix<T, MIndex> masked_dense(S const& s, AOp const& a, dense_view<T const> b,
                                   csr_matrix<MT, MIndex> const& m, bool structural) {
    constexpr bool dense_a = std::is_same_v<AOp, dense_view<T const>>;
    std::size_t const rows = m.rows();
    std::size_t const mn = m.nnz();
    auto const* const mp = m.row_ptr();
    auto const* const mj = m.col_idx();
    buffer<T> vals(mn);
    std::vector<std::uint8_t> hit(mn, 0);
    constexpr std::size_t chunk = 256;
    // The chunks: each row's entries cut every `chunk` entries, with the row they are in.
    struct piece {
        std::size_t p0, p1, i;
    };
    std::vector<piece> pieces;
    pieces.reserve(mn / chunk + rows);
    for (std::size_t i = 0; i < rows; ++i) {
        auto const end = static_cast<std::size_t>(mp[i + 1]);
        for (auto p = static_cast<std::size_t>(mp[i]); p < end; p += chunk)
            pieces.push_back({p, std::min(end, p + chunk), i});
    }
    std::size_t const chunks = pieces.size();
    auto const absent = [&](T const& x) {
        if constexpr (zero_annihilates<S>()) return false;
        else return x == s.zero();
    };
#pragma omp parallel if (mn > 4096)
    {
        T acc[chunk];
        bool any[chunk];
        std::size_t at[chunk];  // the chunk's allowed entries' positions in M
#pragma omp for schedule(dynamic, 8)
        for (std::size_t c = 0; c < chunks; ++c) {
            auto const [p0, p1, i] = pieces[c];
            std::size_t n = 0;
            for (std::size_t p = p0; p < p1; ++p)
                if (structural || !(m.value(p) == MT(0))) at[n++] = p;
            if (n == 0) continue;
            for (std::size_t q = 0; q < n; ++q) {
                acc[q] = s.zero();
                any[q] = false;
            }
            auto const row_k = [&](std::size_t k, T const& x) {
                T const* __restrict__ br = b.row(k);
                for (std::size_t q = 0; q < n; ++q) {
                    T const y = br[static_cast<std::size_t>(mj[at[q]])];
                    if (absent(y)) continue;
                    T const t = s.mul(x, y);
                    acc[q] = any[q] ? s.add(acc[q], t) : t;
                    any[q] = true;
                }
            };
            if constexpr (dense_a) {
                T const* ar = a.row(i);
                for (std::size_t k = 0; k < a.cols; ++k)
                    if (!absent(ar[k])) row_k(k, ar[k]);
            } else {
                detail::csr_values<T, typename AOp::index_type> const av(a);
                for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
                    row_k(static_cast<std::size_t>(a.col_idx()[k]), av[k]);
            }
            for (std::size_t q = 0; q < n; ++q)
                if (any[q] && !(acc[q] == s.zero())) {
                    vals[at[q]] = acc[q];
                    hit[at[q]] = 1;
                }
        }
    }
    return detail::pack_masked<MIndex>(m, vals, hit, b.cols);
}

/// The masked products with a dense A and a CSR B, given as Bt (B's columns as rows): for every
/// entry (i, j) of the CSR mask M that allows a write, T(i,j) = the sum over Bt(j,:)'s entries
/// (k, v) of mul(A(i,k), v), an entry of A equal to zero() adding nothing where zero does not
/// annihilate, an entry of T equal to zero() left out (as cpu::masked_dense and the whole
/// product into a dense temporary do). The work is the sum over M's entries of Bt(j,:)'s length.
/// Not for a complemented mask. Returns T (M's index type) for write_back.
template <semiring_object S, class T, class Index, class MT, class MIndex>
csr_matrix<T, MIndex> masked_dense_bt(S const& s, dense_view<T const> a,
                                      csr_matrix<T, Index> const& bt,
                                      csr_matrix<MT, MIndex> const& m, bool structural) {
    std::size_t const rows = m.rows();
    std::size_t const mn = m.nnz();
    auto const* const mp = m.row_ptr();
    auto const* const mj = m.col_idx();
    detail::csr_values<T, Index> const bv(bt);
    Index const* const bj = bt.col_idx();
    buffer<T> vals(mn);
    std::vector<std::uint8_t> hit(mn, 0);
#pragma omp parallel for schedule(dynamic, 64) if (mn > 4096)
    for (std::size_t i = 0; i < rows; ++i) {
        T const* ar = a.row(i);
        for (auto p = static_cast<std::size_t>(mp[i]); p < static_cast<std::size_t>(mp[i + 1]); ++p) {
            if (!structural && m.value(p) == MT(0)) continue;
            auto const j = static_cast<std::size_t>(mj[p]);
            T acc = s.zero();
            bool any = false;
            for (std::size_t q = bt.row_begin(j); q < bt.row_end(j); ++q) {
                T const x = ar[static_cast<std::size_t>(bj[q])];
                if constexpr (!zero_annihilates<S>())
                    if (x == s.zero()) continue;
                T const t = s.mul(x, bv[q]);
                acc = any ? s.add(acc, t) : t;
                any = true;
            }
            if (any && !(acc == s.zero())) {
                vals[p] = acc;
                hit[p] = 1;
            }
        }
    }
    return detail::pack_masked<MIndex>(m, vals, hit, bt.rows());
}

/// Accumulator used by Gustavson's algorithm.
enum class spgemm_accumulator { dense, hash };

/// Gustavson's row-by-row CSR x CSR product into CSR. Entries the mask forbids are not computed.
/// Rows whose output holds more than `dense_row_threshold * cols` entries are emitted by scanning
/// the dense accumulator in column order instead of sorting.
template <semiring_object S, class T, class Index, class Mask>
csr_matrix<T, Index> gustavson(S const& s, csr_matrix<T, Index> const& a,
                               csr_matrix<T, Index> const& b, Mask const& mask,
                               spgemm_accumulator acc, double dense_row_threshold) {
    using mask_t = decltype(make_mask_rows(mask, 0));
    std::size_t const cols = b.cols();
    auto const prefix = detail::row_flops_prefix(a, b);
    auto const bounds = balanced_blocks(prefix, 16 * static_cast<std::size_t>(max_threads()));
    detail::csr_values<T, Index> const av(a), bv(b);
    Index const* bp = b.row_ptr();
    Index const* bj = b.col_idx();

    struct workspace {
        buffer<T> vals;  // buffer, not std::vector: bool values stay plain bytes
        std::vector<std::uint32_t> stamp;
        std::vector<Index> touched;
        std::vector<Index> keys;  // hash accumulator
        buffer<T> hvals;
        std::uint32_t gen = 0;
    };
    int const nthreads = max_threads();
    std::vector<workspace> ws(nthreads);
    std::vector<mask_t> masks;
    masks.reserve(nthreads);
    for (int p = 0; p < nthreads; ++p) masks.push_back(make_mask_rows(mask, cols));

    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        int const tid = omp_get_thread_num();
        workspace& w = ws[tid];
        mask_t& m = masks[tid];
        if (acc == spgemm_accumulator::dense && w.vals.size() != cols) {
            w.vals.resize(cols);
            w.stamp.assign(cols, 0);
        }
        // Every product a_ik (x) b_kj of row i that the mask allows, whichever accumulator runs.
        auto row_products = [&](std::size_t i, auto&& accumulate) {
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
                T const x = av[k];
                Index const kk = a.col_idx()[k];
                for (Index p = bp[kk]; p < bp[kk + 1]; ++p) {
                    Index const j = bj[p];
                    if constexpr (!mask_t::always)
                        if (!m.allowed(j)) continue;
                    accumulate(j, s.mul(x, bv[p]));
                }
            }
        };
        for (std::size_t i = r0; i < r1; ++i) {
            std::size_t const before = out.cols.size();
            if constexpr (!mask_t::always) m.select_row(i);
            if (acc == spgemm_accumulator::dense) {
                std::uint32_t const g = ++w.gen;
                w.touched.clear();
                row_products(i, [&](Index j, T v) {
                    if (w.stamp[j] != g) {
                        w.stamp[j] = g;
                        w.vals[j] = v;
                        w.touched.push_back(j);
                    } else {
                        w.vals[j] = s.add(w.vals[j], v);
                    }
                });
                std::size_t const cnt = w.touched.size();
                if (cnt > 0 && static_cast<double>(cnt) > dense_row_threshold * static_cast<double>(cols)) {
                    auto [lo, hi] = std::minmax_element(w.touched.begin(), w.touched.end());
                    for (Index j = *lo; j <= *hi; ++j)
                        if (w.stamp[j] == g) {
                            out.cols.push_back(j);
                            out.vals.push_back(w.vals[j]);
                        }
                } else {
                    std::sort(w.touched.begin(), w.touched.end());
                    for (Index j : w.touched) {
                        out.cols.push_back(j);
                        out.vals.push_back(w.vals[j]);
                    }
                }
            } else {
                // Open addressing with linear probing, table at least twice the row's work.
                std::size_t const flops = static_cast<std::size_t>(prefix[i + 1] - prefix[i]);
                std::size_t const size = std::bit_ceil(std::max<std::size_t>(16, 2 * flops));
                std::size_t const hmask = size - 1;
                if (w.keys.size() < size) {
                    w.keys.resize(size);
                    w.hvals.resize(size);
                }
                std::fill(w.keys.begin(), w.keys.begin() + size, Index(-1));
                w.touched.clear();
                row_products(i, [&](Index j, T v) {
                    std::size_t h = (static_cast<std::size_t>(j) * 0x9E3779B97F4A7C15ull >> 20) & hmask;
                    while (w.keys[h] != j && w.keys[h] != Index(-1)) h = (h + 1) & hmask;
                    if (w.keys[h] == j) {
                        w.hvals[h] = s.add(w.hvals[h], v);
                    } else {
                        w.keys[h] = j;
                        w.hvals[h] = v;
                        w.touched.push_back(Index(h));
                    }
                });
                std::sort(w.touched.begin(), w.touched.end(),
                          [&](Index x, Index y) { return w.keys[x] < w.keys[y]; });
                for (Index h : w.touched) {
                    out.cols.push_back(w.keys[h]);
                    out.vals.push_back(w.hvals[h]);
                }
            }
            counts[i] = static_cast<Index>(out.cols.size() - before);
        }
    };
    return assemble_rows<T, Index>(a.rows(), cols, bounds, fill);
}

/// CSR x CSR straight into a dense output row by row (no mask): c = zero, then scatter.
template <semiring_object S, class T, class Index>
void gustavson_dense_out(S const& s, csr_matrix<T, Index> const& a, csr_matrix<T, Index> const& b,
                         dense_matrix<T>& c) {
    detail::csr_values<T, Index> const av(a), bv(b);
    Index const* bp = b.row_ptr();
    Index const* bj = b.col_idx();
#pragma omp parallel for schedule(dynamic, 16)
    for (std::size_t i = 0; i < a.rows(); ++i) {
        T* row = c.data() + i * c.ld();
        std::fill(row, row + c.cols(), s.zero());
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            T const x = av[k];
            Index const kk = a.col_idx()[k];
            for (Index p = bp[kk]; p < bp[kk + 1]; ++p) row[bj[p]] = s.add(row[bj[p]], s.mul(x, bv[p]));
        }
    }
}

/// The columns [first, last] of each row of an m x n C between the first and the last entry a
/// mask allows (first > last: none), for the products that compute only there (csr_dense).
struct column_spans {
    std::vector<std::pair<std::size_t, std::size_t>> rows;  // [first, last + 1) a row
    std::size_t covered = 0;                                 // entries within the spans
};
/// [first, last + 1) of the columns a selected mask row allows (first == last + 1 == n: none).
template <class Rows>
std::pair<std::size_t, std::size_t> allowed_span(Rows const& rows, std::size_t n) {
    std::size_t lo = 0, hi = n;
    while (lo < hi && !rows.allowed(lo)) ++lo;
    while (hi > lo && !rows.allowed(hi - 1)) --hi;
    return {lo, hi};
}
template <class Mask>
column_spans allowed_spans(Mask const& mask, std::size_t m, std::size_t n) {
    column_spans sp;
    sp.rows.assign(m, {0, 0});
    exception_carrier failure;
    std::size_t covered = 0;
    constexpr std::size_t chunk = 256;  // rows a task (a CSR mask's stamp array made once a task)
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : covered)
    for (std::size_t r0 = 0; r0 < m; r0 += chunk) {
        failure.run([&] {
            auto rows = make_mask_rows(mask, n);
            for (std::size_t i = r0; i < std::min(m, r0 + chunk); ++i) {
                rows.select_row(i);
                sp.rows[i] = allowed_span(rows, n);
                covered += sp.rows[i].second - sp.rows[i].first;
            }
        });
    }
    failure.rethrow("the mask's row spans");
    sp.covered = covered;
    return sp;
}

namespace detail {
/// row[lo, hi) (+)= x (x) br[lo, hi). Not inlined: GCC's -O3 would otherwise unroll the loop over
/// A's entries and jam it into this one, pairing two rows of B in a scalar loop (2-3x slower).
template <semiring_object S, class T>
[[gnu::noinline]] void axpy_row(S const& s, T x, T const* __restrict__ br, T* __restrict__ row,
                                std::size_t lo, std::size_t hi) {
    if constexpr (zero_annihilates<S>()) {
#pragma omp simd
        for (std::size_t j = lo; j < hi; ++j) row[j] = s.add(row[j], s.mul(x, br[j]));
    } else {
        for (std::size_t j = lo; j < hi; ++j)
            if (!(br[j] == s.zero())) row[j] = s.add(row[j], s.mul(x, br[j]));
    }
}

/// row[lo, hi) = (row i of A) x B over the semiring (row's other entries untouched).
template <semiring_object S, class T, class Index>
inline void csr_dense_row(S const& s, csr_matrix<T, Index> const& a, csr_values<T, Index> const& av,
                          dense_view<T const> b, std::size_t i, T* row, std::size_t lo,
                          std::size_t hi) {
    std::fill(row + lo, row + hi, s.zero());
    for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
        axpy_row(s, av[k], b.row(a.col_idx()[k]), row, lo, hi);
}
}  // namespace detail

/// CSR x dense into dense: row i of C accumulates a_ik (x) row k of B (vectorisable). With
/// `spans`, only the columns of each row's span are computed (C's other entries are zero()).
template <semiring_object S, class T, class Index>
void csr_dense(S const& s, csr_matrix<T, Index> const& a, dense_view<T const> b, dense_matrix<T>& c,
               column_spans const* spans = nullptr) {
    detail::csr_values<T, Index> const av(a);
    std::size_t const n = b.cols;
#pragma omp parallel for schedule(dynamic, 8)
    for (std::size_t i = 0; i < a.rows(); ++i) {
        T* row = c.data() + i * c.ld();
        auto const [lo, hi] = spans ? spans->rows[i] : std::pair<std::size_t, std::size_t>{0, n};
        std::fill(row, row + lo, s.zero());  // lo <= hi <= n
        std::fill(row + hi, row + n, s.zero());
        if (lo < hi) detail::csr_dense_row(s, a, av, b, i, row, lo, hi);
    }
}

/// C<M, replace> accum= A (x) B for CSR A and dense B into a dense C without a temporary of C's
/// size: each row's product over its columns from the first to the last entry the mask allows,
/// into a thread's row buffer, then through the mask into C (outside that span C is kept, or
/// zero() with `replace`). Entries of the product equal to `zero` are no entry, as in
/// write_back. B must not share storage with C (mxm runs such a call on a copy of C). Returns the
/// entries within the spans (the trace's share of C).
template <class Accum, semiring_object S, class T, class Index, class Mask>
std::size_t csr_dense_masked(S const& s, csr_matrix<T, Index> const& a, dense_view<T const> b,
                             dense_matrix<T>& c, Mask const& mask, bool replace, T zero) {
    using mask_t = decltype(make_mask_rows(mask, 0));
    detail::csr_values<T, Index> const av(a);
    std::size_t const n = c.cols();
    std::size_t covered = 0;
    exception_carrier failure;
#pragma omp parallel reduction(+ : covered)
    {
        // Each thread's mask row and product row; a thread that cannot have them takes no rows.
        std::optional<mask_t> m;
        buffer<T> prow;
        failure.run([&] {
            m.emplace(make_mask_rows(mask, n));
            prow = buffer<T>(n);
        });
        bool const ready = m.has_value() && prow.size() == n;
#pragma omp for schedule(dynamic, 8)
        for (std::size_t i = 0; i < a.rows(); ++i) {
            if (!ready) continue;
            m->select_row(i);
            auto const [lo, hi] = allowed_span(*m, n);
            T* crow = c.data() + i * c.ld();
            if (replace) {
                std::fill(crow, crow + lo, zero);
                std::fill(crow + hi, crow + n, zero);
            }
            if (lo >= hi) continue;
            covered += hi - lo;
            detail::csr_dense_row(s, a, av, b, i, prow.data(), lo, hi);
            for (std::size_t j = lo; j < hi; ++j) {
                T v;
                bool const keep = combine<Accum>(m->allowed(j), replace, !(crow[j] == zero),
                                                 crow[j], !(prow[j] == zero), prow[j], v);
                crow[j] = keep ? v : zero;
            }
        }
    }
    failure.rethrow("a masked SpMM into a dense result");
    return covered;
}

/// Dense x CSR into dense: row i of C accumulates a_ik (x) row k of B, for the a_ik present.
template <semiring_object S, class T, class Index>
void dense_csr(S const& s, dense_view<T const> a, csr_matrix<T, Index> const& b, dense_matrix<T>& c) {
    detail::csr_values<T, Index> const bv(b);
    Index const* bp = b.row_ptr();
    Index const* bj = b.col_idx();
#pragma omp parallel for schedule(dynamic, 8)
    for (std::size_t i = 0; i < a.rows; ++i) {
        T* row = c.data() + i * c.ld();
        std::fill(row, row + c.cols(), s.zero());
        T const* ar = a.row(i);
        for (std::size_t k = 0; k < a.cols; ++k) {
            T const x = ar[k];
            if (x == s.zero()) continue;  // absent; and a zero factor adds nothing when it annihilates
            for (Index p = bp[k]; p < bp[k + 1]; ++p) row[bj[p]] = s.add(row[bj[p]], s.mul(x, bv[p]));
        }
    }
}

/// Pull: t_i = (+)_k A_ik (x) u_k over the u_k present, one dot product per allowed output entry.
/// `allowed` (may be empty = all) skips rows the mask forbids; a terminal value ends a row early.
template <semiring_object S, class T, class Index>
vector_result<T> spmv_pull(S const& s, csr_matrix<T, Index> const& a, vector_result<T> const& u,
                           std::vector<std::uint8_t> const& allowed) {
    std::size_t const rows = a.rows();
    vector_result<T> t;
    t.vals = buffer<T>(rows, s.zero());
    t.has.assign(rows, 0);
    detail::csr_values<T, Index> const av(a);
    bool const all = allowed.empty();
#pragma omp parallel for schedule(dynamic, 256) if (a.nnz() > 20000)
    for (std::size_t i = 0; i < rows; ++i) {
        if (!all && !allowed[i]) continue;
        T sum = s.zero();
        bool any = false;
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            Index const j = a.col_idx()[k];
            if (!u.has[j]) continue;
            T const v = s.mul(av[k], u.vals[j]);
            sum = any ? s.add(sum, v) : v;
            any = true;
            if (is_terminal(s, sum)) break;
        }
        t.vals[i] = sum;
        t.has[i] = any;
    }
    return t;
}

/// Pull with a dense u and a dense w, where zero() annihilates: absent entries of u (zero) add
/// nothing, so no presence flags are needed. w = t, or w = w (+) t when accumulating.
template <semiring_object S, class T, class Index>
void spmv_pull_dense(S const& s, csr_matrix<T, Index> const& a, T const* __restrict__ u, T* __restrict__ w,
                     bool accumulate) {
    Index const* rp = a.row_ptr();
    Index const* cj = a.col_idx();
    T const* av = a.has_values() ? a.values() : nullptr;
    T const iso = a.iso_value();
#pragma omp parallel for schedule(dynamic, 1024) if (a.nnz() > 20000)
    for (std::size_t i = 0; i < a.rows(); ++i) {
        T sum = s.zero();
        if (av) {
            for (Index k = rp[i]; k < rp[i + 1]; ++k) sum = s.add(sum, s.mul(av[k], u[cj[k]]));
        } else {
            for (Index k = rp[i]; k < rp[i + 1]; ++k) sum = s.add(sum, s.mul(iso, u[cj[k]]));
        }
        w[i] = accumulate ? s.add(w[i], sum) : sum;
    }
}

/// Push: t_j = (+)_k u_k (x) A_kj over the entries of sparse u, scattering rows of A. Each thread
/// scatters part of the frontier into its own (value, flag) arrays; they are then merged.
template <semiring_object S, class T, class Index>
vector_result<T> spmspv_push(S const& s, std::vector<Index> const& u_idx, buffer<T> const& u_val,
                             csr_matrix<T, Index> const& a, std::vector<std::uint8_t> const& allowed) {
    std::size_t const n = a.cols();
    vector_result<T> t;
    t.vals = buffer<T>(n, s.zero());
    t.has.assign(n, 0);
    detail::csr_values<T, Index> const av(a);
    bool const all = allowed.empty();
    std::int64_t work = 0;
    for (Index k : u_idx) work += a.row_end(k) - a.row_begin(k);
    auto scatter = [&](std::size_t f0, std::size_t f1, buffer<T>& vals, std::vector<std::uint8_t>& has,
                       std::vector<Index>* touched) {
        for (std::size_t f = f0; f < f1; ++f) {
            Index const k = u_idx[f];
            T const x = u_val[f];
            for (std::size_t p = a.row_begin(k); p < a.row_end(k); ++p) {
                Index const j = a.col_idx()[p];
                if (!all && !allowed[j]) continue;
                T const v = s.mul(x, av[p]);
                if (has[j]) {
                    vals[j] = s.add(vals[j], v);
                } else {
                    vals[j] = v;
                    has[j] = 1;
                    if (touched) touched->push_back(j);
                }
            }
        }
    };
    int const nthreads = max_threads();
    if (work < 200000 || nthreads == 1) {
        scatter(0, u_idx.size(), t.vals, t.has, nullptr);
        return t;
    }
    // Thread 0 scatters into t directly; the others into private arrays merged afterwards.
    std::vector<vector_result<T>> priv(nthreads - 1);
    std::vector<padded<std::vector<Index>>> touched(nthreads - 1);
    exception_carrier failure;
#pragma omp parallel num_threads(nthreads)
    failure.run([&] {
        int const tid = omp_get_thread_num();
        int const nt = omp_get_num_threads();
        std::size_t const f0 = u_idx.size() * tid / nt, f1 = u_idx.size() * (tid + 1) / nt;
        if (tid == 0) {
            scatter(f0, f1, t.vals, t.has, nullptr);
        } else {
            auto& p = priv[tid - 1];
            p.vals.resize(n);
            p.has.assign(n, 0);
            scatter(f0, f1, p.vals, p.has, &touched[tid - 1].value);
        }
    });
    failure.rethrow("a sparse vector product");
    for (std::size_t q = 0; q < priv.size(); ++q)
        for (Index j : touched[q].value) {
            T const v = priv[q].vals[j];
            t.vals[j] = t.has[j] ? s.add(t.vals[j], v) : v;
            t.has[j] = 1;
        }
    return t;
}

/// Dense matrix times a vector: t_i = (+)_k A_ik (x) u_k over the entries present in both.
template <semiring_object S, class T>
vector_result<T> dense_mv(S const& s, dense_view<T const> a, vector_result<T> const& u,
                          std::vector<std::uint8_t> const& allowed) {
    vector_result<T> t;
    t.vals = buffer<T>(a.rows, s.zero());
    t.has.assign(a.rows, 0);
    bool const all = allowed.empty();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < a.rows; ++i) {
        if (!all && !allowed[i]) continue;
        T const* r = a.row(i);
        T sum = s.zero();
        bool any = false;
        for (std::size_t k = 0; k < a.cols; ++k) {
            if (!u.has[k] || r[k] == s.zero()) continue;
            T const v = s.mul(r[k], u.vals[k]);
            sum = any ? s.add(sum, v) : v;
            any = true;
        }
        t.vals[i] = sum;
        t.has[i] = any;
    }
    return t;
}

/// A vector times a dense matrix: t_j = (+)_k u_k (x) A_kj over the entries present in both.
template <semiring_object S, class T>
vector_result<T> dense_vm(S const& s, vector_result<T> const& u, dense_view<T const> a,
                          std::vector<std::uint8_t> const& allowed) {
    vector_result<T> t;
    t.vals = buffer<T>(a.cols, s.zero());
    t.has.assign(a.cols, 0);
    bool const all = allowed.empty();
#pragma omp parallel for schedule(static)
    for (std::size_t j = 0; j < a.cols; ++j) {
        if (!all && !allowed[j]) continue;
        T sum = s.zero();
        bool any = false;
        for (std::size_t k = 0; k < a.rows; ++k) {
            T const x = a(k, j);
            if (!u.has[k] || x == s.zero()) continue;
            T const v = s.mul(u.vals[k], x);
            sum = any ? s.add(sum, v) : v;
            any = true;
        }
        t.vals[j] = sum;
        t.has[j] = any;
    }
    return t;
}

}  // namespace kleene::cpu

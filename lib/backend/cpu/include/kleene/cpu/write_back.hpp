#pragma once
// The last step of every operation, GraphBLAS style: C<M, replace> accum= T. The kernels compute
// T (sparse or dense); this merges it into C. For dense objects an entry equal to `zero` (the
// semiring's zero, their "absent" value) counts as absent.

#include <kleene/cpu/mask.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <omp.h>

#include <optional>
#include <type_traits>
#include <vector>

namespace kleene::cpu {

/// One output entry of C<M, replace> accum= T, given what C and T hold there.
/// Returns whether the entry exists afterwards (its value in `out`).
template <class Accum, class T>
inline bool combine(bool allowed, bool replace, bool has_c, T c, bool has_t, T t, T& out) {
    if (!allowed) {
        out = c;
        return has_c && !replace;
    }
    if constexpr (std::is_same_v<Accum, no_accum_t>) {
        out = t;
        return has_t;
    } else {
        if (has_c && has_t) out = Accum::apply(c, t);
        else out = has_t ? t : c;
        return has_c || has_t;
    }
}

namespace detail {
/// Row i of T as a sorted (column, value) sequence, from CSR or dense storage.
template <class T, class Index>
struct csr_row_source {
    csr_matrix<T, Index> const& t;
    template <class F>
    void for_each(std::size_t i, F&& f) const {
        for (std::size_t k = t.row_begin(i); k < t.row_end(i); ++k) f(std::size_t(t.col_idx()[k]), t.value(k));
    }
};
template <class T>
struct dense_row_source {
    dense_matrix<T> const& t;
    T zero;
    template <class F>
    void for_each(std::size_t i, F&& f) const {
        T const* r = t.data() + i * t.ld();
        for (std::size_t j = 0; j < t.cols(); ++j)
            if (!(r[j] == zero)) f(j, r[j]);
    }
};
template <class T, class Index>
auto row_source(csr_matrix<T, Index> const& t, T) { return csr_row_source<T, Index>{t}; }
template <class T>
auto row_source(dense_matrix<T> const& t, T zero) { return dense_row_source<T>{t, zero}; }
}  // namespace detail

/// C<M, replace> accum= T into a CSR matrix.
template <class T, class Index, class Mask, class Accum, class TMat>
void write_back(csr_matrix<T, Index>& c, Mask const& mask, Accum, TMat const& t, bool replace, T zero) {
    using mask_t = decltype(make_mask_rows(mask, 0));
    auto const src = detail::row_source(t, zero);
    std::size_t const cols = c.cols();
    int const nthreads = max_threads();
    // One per thread, each on lines of its own: select_row writes the object for every row.
    std::vector<padded<mask_t>> masks;
    masks.reserve(nthreads);
    for (int p = 0; p < nthreads; ++p) masks.push_back({make_mask_rows(mask, cols)});
    auto const& old = c;
    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        mask_t& m = masks[omp_get_thread_num()].value;
        std::vector<std::pair<Index, T>> trow;
        for (std::size_t i = r0; i < r1; ++i) {
            m.select_row(i);
            trow.clear();
            src.for_each(i, [&](std::size_t j, T v) { trow.emplace_back(Index(j), v); });
            std::size_t const before = out.cols.size();
            std::size_t kc = old.row_begin(i), ec = old.row_end(i), kt = 0;
            while (kc < ec || kt < trow.size()) {
                Index const jc = kc < ec ? old.col_idx()[kc] : std::numeric_limits<Index>::max();
                Index const jt = kt < trow.size() ? trow[kt].first : std::numeric_limits<Index>::max();
                Index const j = std::min(jc, jt);
                bool const has_c = jc == j, has_t = jt == j;
                T const cv = has_c ? old.value(kc) : zero;
                T const tv = has_t ? trow[kt].second : zero;
                T v;
                if (combine<Accum>(m.allowed(j), replace, has_c, cv, has_t, tv, v)) {
                    out.cols.push_back(j);
                    out.vals.push_back(v);
                }
                kc += has_c;
                kt += has_t;
            }
            counts[i] = static_cast<Index>(out.cols.size() - before);
        }
    };
    c = assemble_rows<T, Index>(c.rows(), cols, even_blocks(c.rows()), fill);
}

/// C<M, replace> accum= T into a dense matrix (absent = zero).
template <class T, class Mask, class Accum, class TMat>
void write_back(dense_matrix<T>& c, Mask const& mask, Accum, TMat const& t, bool replace, T zero) {
    using mask_t = decltype(make_mask_rows(mask, 0));
    std::size_t const rows = c.rows(), cols = c.cols();
    auto const src = detail::row_source(t, zero);
    exception_carrier failure;
#pragma omp parallel
    {
        // Each thread's row buffers; a thread that cannot have them takes no rows.
        std::optional<mask_t> m;
        buffer<T> trow;
        std::vector<std::uint8_t> has;
        failure.run([&] {
            m.emplace(make_mask_rows(mask, cols));
            trow = buffer<T>(cols);
            has.assign(cols, 0);
        });
        bool const ready = m.has_value() && has.size() == cols && trow.size() == cols;
#pragma omp for schedule(dynamic, 16)
        for (std::size_t i = 0; i < rows; ++i) {
            if (!ready) continue;
            m->select_row(i);
            std::fill(has.begin(), has.end(), std::uint8_t(0));
            src.for_each(i, [&](std::size_t j, T v) {
                trow[j] = v;
                has[j] = 1;
            });
            T* crow = c.data() + i * c.ld();
            for (std::size_t j = 0; j < cols; ++j) {
                T v;
                bool const keep =
                    combine<Accum>(m->allowed(j), replace, !(crow[j] == zero), crow[j], has[j] != 0,
                                   has[j] ? trow[j] : zero, v);
                crow[j] = keep ? v : zero;
            }
        }
    }
    failure.rethrow("a masked write into a dense result");
}

/// A vector result as flags and values (vector operations are O(n) anyway).
/// (buffer, not std::vector, so that bool values are plain bytes.)
template <class T>
struct vector_result {
    buffer<T> vals;
    std::vector<std::uint8_t> has;
};

template <class T, class Index>
void load(vector_result<T>& r, sparse_vector<T, Index> const& v, T zero) {
    r.vals = buffer<T>(v.size(), zero);
    r.has.assign(v.size(), 0);
    for (std::size_t k = 0; k < v.nnz(); ++k) {
        r.vals[v.indices()[k]] = v.values()[k];
        r.has[v.indices()[k]] = 1;
    }
}
template <class T>
void load(vector_result<T>& r, dense_vector<T> const& v, T zero) {
    r.vals = v.storage();
    r.has.resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r.has[i] = !(v[i] == zero);
}

template <class Mask>
std::vector<std::uint8_t> vector_mask(Mask const& mask, std::size_t n) {
    if constexpr (std::is_same_v<Mask, no_mask_t>) return std::vector<std::uint8_t>(n, 1);
    else return mask_flags(mask, n);
}

/// w<m, replace> accum= t for a dense or sparse output vector.
template <class W, class Mask, class Accum, class T>
void write_back(W& w, Mask const& mask, Accum, vector_result<T> const& t, bool replace, T zero) {
    std::size_t const n = t.vals.size();
    vector_result<T> c;
    load(c, w, zero);
    auto const allowed = vector_mask(mask, n);
    buffer<T> out(n, zero);
    std::vector<std::uint8_t> has(n, 0);
#pragma omp parallel for schedule(static) if (n > 100000)
    for (std::size_t i = 0; i < n; ++i)
        has[i] = combine<Accum>(allowed[i] != 0, replace, c.has[i] != 0, c.vals[i], t.has[i] != 0,
                                t.vals[i], out[i]);
    if constexpr (requires { w.nnz(); }) {
        using Index = typename W::index_type;
        std::size_t nnz = 0;
        for (auto h : has) nnz += h;
        buffer<Index> idx(nnz);
        buffer<T> vals(nnz);
        std::size_t k = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (has[i]) {
                idx[k] = static_cast<Index>(i);
                vals[k++] = out[i];
            }
        w = W(n, std::move(idx), std::move(vals));
    } else {
        for (std::size_t i = 0; i < n; ++i) w[i] = has[i] ? out[i] : zero;
    }
}

}  // namespace kleene::cpu

#pragma once
// CPU kernels of extract (C = A(I, J)) and assign (Z = C with the region I x J replaced or
// accumulated; the caller then writes Z through the mask). Index lists come resolved against a
// dimension (resolved_indices): a contiguous range or an explicit list, sorted or not.

#include <algorithm>
#include <cstdint>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/index_selection.hpp>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene::cpu {

using kleene::inverse_index;
using kleene::resolved_indices;

/// T = A(I, J) as CSR.
template <class Index, class T, class AIndex>
csr_matrix<T, Index> extract_csr(csr_matrix<T, AIndex> const& a, resolved_indices const& ri,
                                 resolved_indices const& rj) {
    std::optional<inverse_index> inv;
    if (rj.list) inv.emplace(rj, a.cols());
    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        std::vector<std::pair<Index, T>> row;
        for (std::size_t k = r0; k < r1; ++k) {
            std::size_t const i = ri[k];
            std::size_t const before = out.cols.size();
            AIndex const* cb = a.col_idx() + a.row_begin(i);
            AIndex const* ce = a.col_idx() + a.row_end(i);
            if (!rj.list) {
                AIndex const* p = std::lower_bound(cb, ce, AIndex(rj.begin));
                for (; p < ce && std::size_t(*p) < rj.begin + rj.size; ++p) {
                    out.cols.push_back(static_cast<Index>(std::size_t(*p) - rj.begin));
                    out.vals.push_back(a.value(std::size_t(p - a.col_idx())));
                }
            } else {
                row.clear();
                for (AIndex const* p = cb; p < ce; ++p) {
                    std::size_t const j = std::size_t(*p);
                    for (auto q = inv->head[j]; q < inv->head[j + 1]; ++q)
                        row.emplace_back(static_cast<Index>(inv->pos[q]),
                                         a.value(std::size_t(p - a.col_idx())));
                }
                if (!rj.sorted)
                    std::sort(row.begin(), row.end(),
                              [](auto const& x, auto const& y) { return x.first < y.first; });
                for (auto const& [l, v] : row) {
                    out.cols.push_back(l);
                    out.vals.push_back(v);
                }
            }
            counts[k] = static_cast<Index>(out.cols.size() - before);
        }
    };
    return assemble_rows<T, Index>(ri.size, rj.size, even_blocks(ri.size), fill);
}

template <class Index, class T>
csr_matrix<T, Index> extract_dense(dense_matrix<T> const& a, resolved_indices const& ri,
                                   resolved_indices const& rj, T absent) {
    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        for (std::size_t k = r0; k < r1; ++k) {
            T const* row = a.data() + ri[k] * a.cols();
            std::size_t const before = out.cols.size();
            for (std::size_t l = 0; l < rj.size; ++l) {
                T const v = row[rj[l]];
                if (v == absent) continue;
                out.cols.push_back(static_cast<Index>(l));
                out.vals.push_back(v);
            }
            counts[k] = static_cast<Index>(out.cols.size() - before);
        }
    };
    return assemble_rows<T, Index>(ri.size, rj.size, even_blocks(ri.size), fill);
}

/// The region's rows for assign: the scalar x at every position.
template <class T>
struct scalar_rows {
    T x;
    std::size_t cols;
    template <class F>
    void for_each(std::size_t, F&& f) const {
        for (std::size_t l = 0; l < cols; ++l) f(l, x);
    }
};

/// Z = C with C(I, J) accum= A (accum is no_accum_t: replaced, region entries A lacks deleted).
/// `src` reads row k of A as (l, value) pairs in increasing l. I and J hold no duplicates.
template <class Accum, class T, class Index, class Src>
csr_matrix<T, Index> assign_csr(csr_matrix<T, Index> const& c, Src const& src,
                                resolved_indices const& ri, resolved_indices const& rj) {
    std::vector<std::int64_t> rinv(c.rows(), -1), cinv(c.cols(), -1);
    for (std::size_t k = 0; k < ri.size; ++k) rinv[ri[k]] = std::int64_t(k);
    for (std::size_t l = 0; l < rj.size; ++l) cinv[rj[l]] = std::int64_t(l);
    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        std::vector<std::pair<Index, T>> region;
        for (std::size_t i = r0; i < r1; ++i) {
            std::size_t const before = out.cols.size();
            std::size_t kc = c.row_begin(i);
            std::size_t const ec = c.row_end(i);
            auto emit = [&](Index j, T v) {
                out.cols.push_back(j);
                out.vals.push_back(v);
            };
            if (rinv[i] < 0) {
                for (; kc < ec; ++kc) emit(c.col_idx()[kc], c.value(kc));
            } else {
                region.clear();
                src.for_each(std::size_t(rinv[i]), [&](std::size_t l, T v) {
                    region.emplace_back(static_cast<Index>(rj[l]), v);
                });
                if (!rj.sorted)
                    std::sort(region.begin(), region.end(),
                              [](auto const& x, auto const& y) { return x.first < y.first; });
                std::size_t kr = 0;
                while (kc < ec || kr < region.size()) {
                    Index const jc = kc < ec ? c.col_idx()[kc] : std::numeric_limits<Index>::max();
                    Index const jr =
                        kr < region.size() ? region[kr].first : std::numeric_limits<Index>::max();
                    if (jc < jr) {
                        // Outside the region's columns C stays; inside, only an accumulator keeps
                        // it.
                        if (cinv[jc] < 0 || !std::is_same_v<Accum, no_accum_t>)
                            emit(jc, c.value(kc));
                        ++kc;
                    } else if (jr < jc) {
                        emit(jr, region[kr].second);
                        ++kr;
                    } else {
                        if constexpr (std::is_same_v<Accum, no_accum_t>)
                            emit(jr, region[kr].second);
                        else
                            emit(jr, Accum::apply(c.value(kc), region[kr].second));
                        ++kc;
                        ++kr;
                    }
                }
            }
            counts[i] = static_cast<Index>(out.cols.size() - before);
        }
    };
    return assemble_rows<T, Index>(c.rows(), c.cols(), even_blocks(c.rows()), fill);
}

/// The same for a dense C (entries equal to `absent` are absent): Z is a dense copy of C.
template <class Accum, class T, class Src>
dense_matrix<T> assign_dense(dense_matrix<T> const& c, Src const& src, resolved_indices const& ri,
                             resolved_indices const& rj, T absent) {
    dense_matrix<T> z = c;
    std::size_t const cols = c.cols();
#pragma omp parallel for schedule(dynamic, 16) if (ri.size * rj.size > 65536)
    for (std::size_t k = 0; k < ri.size; ++k) {
        T* row = z.data() + ri[k] * cols;
        T const* old = c.data() + ri[k] * cols;
        if constexpr (std::is_same_v<Accum, no_accum_t>)
            for (std::size_t l = 0; l < rj.size; ++l) row[rj[l]] = absent;
        src.for_each(k, [&](std::size_t l, T v) {
            T const cv = old[rj[l]];
            if constexpr (std::is_same_v<Accum, no_accum_t>)
                row[rj[l]] = v;
            else
                row[rj[l]] = cv == absent ? v : Accum::apply(cv, v);
        });
    }
    return z;
}

}  // namespace kleene::cpu

#pragma once
// The closure of a sparse graph through its condensation (closure.hpp's condensation method):
// strongly connected components (scc.hpp), the DAG of components, the components each component
// reaches, and those rows expanded back to vertices. Every vertex of a component has the same
// row, so a row is made once per component and copied to its other vertices.
//
// Which components a component reaches, two ways (closure.hpp's model picks):
//   search: a traversal of the DAG from every component, in parallel; work about the
//           component-level output times (1 + the DAG's mean degree), memory that output;
//   sweep:  bit rows in topological order, row(c) = OR over successors d of (row(d) | {d}); work
//           about the DAG's edges times k / 128 words, memory k * k bits.
// estimate_closure sizes the output beforehand (Cohen's size-estimation framework: the minimum of
// exponentially distributed ranks over a reachable set estimates its weight), so that an output
// past memory is refused before the work, not after it.

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <kleene/algorithms/ooc_plan.hpp>
#include <kleene/algorithms/scc.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <limits>
#include <string>
#include <vector>

namespace kleene::detail {

/// The components of a graph and the DAG between them.
template <index_type Index>
struct condensation {
    std::size_t n = 0;              ///< vertices
    std::size_t k = 0;              ///< components
    std::vector<Index> label;       ///< component of each vertex (scc.hpp's order: sinks first)
    std::vector<Index> member_ptr;  ///< k + 1
    std::vector<Index> members;     ///< vertices by component, ascending within each
    /// The component holds a cycle (two vertices or more, or a self-loop): it reaches itself.
    std::vector<std::uint8_t> cyclic;
    std::vector<std::uint8_t> has_pred;  ///< another component has an edge into it
    std::vector<Index> ptr;              ///< k + 1
    std::vector<Index> succ;             ///< edges between components, each once; succ < c
    /// A component's code in rows: its vertex when it has one, else -1 - c.
    std::vector<Index> code;

    std::size_t size(std::size_t c) const {
        return static_cast<std::size_t>(member_ptr[c + 1] - member_ptr[c]);
    }
    std::size_t edges() const { return succ.size(); }
    std::size_t out_degree(std::size_t c) const {
        return static_cast<std::size_t>(ptr[c + 1] - ptr[c]);
    }
};

template <class T, index_type Index>
condensation<Index> condense(csr_matrix<T, Index> const& a) {
    condensation<Index> g;
    g.n = a.rows();
    auto scc = strongly_connected_components(a);
    g.k = scc.count;
    g.label = std::move(scc.label);
    std::size_t const n = g.n, k = g.k;
    g.member_ptr.assign(k + 1, Index(0));
    for (std::size_t v = 0; v < n; ++v) ++g.member_ptr[static_cast<std::size_t>(g.label[v]) + 1];
    for (std::size_t c = 0; c < k; ++c) g.member_ptr[c + 1] += g.member_ptr[c];
    g.members.resize(n);
    {
        std::vector<Index> fill(g.member_ptr.begin(), g.member_ptr.end() - 1);
        for (std::size_t v = 0; v < n; ++v)
            g.members[static_cast<std::size_t>(fill[static_cast<std::size_t>(g.label[v])]++)] =
                static_cast<Index>(v);
    }
    g.cyclic.assign(k, 0);
    g.has_pred.assign(k, 0);
    g.ptr.assign(k + 1, Index(0));
    Index const* const col = a.col_idx();
    // Two passes over the edges (count, then fill), each thread marking the components already
    // seen from the current one.
    auto each_row = [&](auto&& f) {
        cpu::exception_carrier failure;
#pragma omp parallel if (a.nnz() > 65536)
        {
            std::vector<Index> mark;
            failure.run([&] { mark.assign(k, Index(-1)); });
#pragma omp for schedule(dynamic, 256)
            for (std::size_t c = 0; c < k; ++c) {
                if (mark.empty()) continue;  // its allocation failed: rethrown below
                auto const ci = static_cast<Index>(c);
                Index cnt = 0;
                for (Index p = g.member_ptr[c]; p < g.member_ptr[c + 1]; ++p) {
                    auto const v = static_cast<std::size_t>(g.members[static_cast<std::size_t>(p)]);
                    for (std::size_t e = a.row_begin(v); e < a.row_end(v); ++e) {
                        Index const d = g.label[static_cast<std::size_t>(col[e])];
                        if (d == ci || mark[static_cast<std::size_t>(d)] == ci) continue;
                        mark[static_cast<std::size_t>(d)] = ci;
                        f(c, cnt++, d);
                    }
                }
                if (cnt == 0) f(c, Index(-1), Index(0));  // a row without successors
            }
        }
        failure.rethrow("the closure");
    };
    each_row([&](std::size_t c, Index i, Index) { g.ptr[c + 1] = i + 1; });
    for (std::size_t c = 0; c < k; ++c) g.ptr[c + 1] += g.ptr[c];
    g.succ.resize(static_cast<std::size_t>(g.ptr[k]));
    each_row([&](std::size_t c, Index i, Index d) {
        if (i >= 0) g.succ[static_cast<std::size_t>(g.ptr[c] + i)] = d;
    });
    for (std::size_t c = 0; c < k; ++c) {
        std::size_t const m0 = static_cast<std::size_t>(g.member_ptr[c]);
        if (g.size(c) > 1) {
            g.cyclic[c] = 1;
        } else {
            auto const v = static_cast<std::size_t>(g.members[m0]);
            for (std::size_t e = a.row_begin(v); e < a.row_end(v); ++e)
                if (static_cast<std::size_t>(col[e]) == v) g.cyclic[c] = 1;
        }
    }
    for (Index d : g.succ) g.has_pred[static_cast<std::size_t>(d)] = 1;
    g.code.resize(k);
    for (std::size_t c = 0; c < k; ++c)
        g.code[c] = g.size(c) == 1 ? g.members[static_cast<std::size_t>(g.member_ptr[c])]
                                   : static_cast<Index>(-1 - static_cast<std::ptrdiff_t>(c));
    return g;
}

/// The closure's size before it is computed.
struct closure_estimate {
    double pairs = 0;            ///< vertex pairs (i, j) of the result
    double component_pairs = 0;  ///< (component, component reached) pairs: the search's output
    bool exact = false;          ///< every row's size was known exactly (chains, trees, sinks)
};

inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// -ln(u) for u in (0, 1], to a relative 1e-7: the exponent, and ln of the mantissa m in
/// [sqrt(1/2), sqrt(2)) by 2 atanh((m - 1) / (m + 1)) to the t^7 term. Small results (u near 1,
/// the ranks that become minima) keep their relative precision. std::log costs several times
/// more, and ranks need no more precision than the estimate has.
inline float neg_log(double u) {
    std::uint64_t const bits = std::bit_cast<std::uint64_t>(u);
    int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
    double m = std::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        ++e;
    }
    double const t = (m - 1) / (m + 1), t2 = t * t;
    double const ln_m = 2 * t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7))));
    return static_cast<float>(-(ln_m + e * 0.69314718055994531));
}

/// The sketch pass of estimate_closure, F families of 8 lanes: vertex-weighted, and (F = 2)
/// component-weighted; with F = 1 every component is one vertex and the two are the same.
template <int F, index_type Index>
closure_estimate estimate_closure_lanes(condensation<Index> const& g, bool reflexive) {
    constexpr int lanes = 8, width = F * lanes;
    std::size_t const k = g.k;
    // Components with an edge in or out get a sketch; the others (isolated) are counted alone.
    // Where most have one, every component gets one (no indirection).
    std::size_t slots = 0;
    for (std::size_t c = 0; c < k; ++c) slots += g.out_degree(c) > 0 || g.has_pred[c];
    bool const direct = slots * 2 > k;
    std::vector<Index> slot;
    if (direct) {
        slots = k;
    } else {
        slot.assign(k, Index(-1));
        slots = 0;
        for (std::size_t c = 0; c < k; ++c)
            if (g.out_degree(c) > 0 || g.has_pred[c]) slot[c] = static_cast<Index>(slots++);
    }
    auto slot_of = [&](std::size_t c) -> std::ptrdiff_t {
        return direct ? static_cast<std::ptrdiff_t>(c) : static_cast<std::ptrdiff_t>(slot[c]);
    };
    std::vector<float> minima(slots * width);
    std::vector<double> exact(slots * F, -1.0);  // weights of R*(c) when known exactly
    closure_estimate est;
    est.exact = true;
    auto weight = [](float const* m) {
        float s = 0;
        for (int j = 0; j < lanes; ++j) s += m[j];
        return s == std::numeric_limits<float>::infinity() || s <= 0 ? 0.0 : double(lanes - 1) / s;
    };
    // The successors' minima are random reads, and each component waits for them: they are
    // prefetched a few components ahead.
    constexpr std::size_t ahead = 16;
    auto prefetch = [&](std::size_t c) {
        for (Index p = g.ptr[c]; p < g.ptr[c + 1]; ++p) {
            std::ptrdiff_t const sd =
                slot_of(static_cast<std::size_t>(g.succ[static_cast<std::size_t>(p)]));
            if (sd >= 0) __builtin_prefetch(minima.data() + static_cast<std::size_t>(sd) * width);
        }
    };
    // Each component's own ranks (rate: its size, or 1 for the component count) go into its
    // slot first, in parallel: they need no other component.
#pragma omp parallel for schedule(static) if (k > 65536)
    for (std::size_t c = 0; c < k; ++c) {
        std::ptrdiff_t const sc = slot_of(c);
        if (sc < 0) continue;
        float* const m = minima.data() + static_cast<std::size_t>(sc) * width;
        float const size = static_cast<float>(g.size(c));
        std::uint64_t const seed = splitmix64(static_cast<std::uint64_t>(c));
        for (int j = 0; j < lanes; ++j) {
            std::uint64_t const x = splitmix64(seed + static_cast<std::uint64_t>(j));
            float const e = neg_log((static_cast<double>(x >> 11) + 1.0) * 0x1p-53);  // (0, 1]
            m[j] = e / size;
            if constexpr (F == 2) m[lanes + j] = e;
        }
    }
    for (std::size_t c = 0; c < std::min(k, ahead); ++c) prefetch(c);
    for (std::size_t c = 0; c < k; ++c) {
        if (c + ahead < k) prefetch(c + ahead);
        double const size = static_cast<double>(g.size(c));
        bool const self = reflexive || g.cyclic[c];
        bool const alone = g.out_degree(c) == 0 && !g.has_pred[c];
        if (alone) {
            est.pairs += self ? size * size : 0;
            est.component_pairs += self ? 1 : 0;
            if (!direct) continue;
        }
        auto const sc = static_cast<std::size_t>(slot_of(c));
        float* const m = minima.data() + sc * width;
        // Strict reach (the successors' sets): minima over the successors, exact when there is
        // at most one successor and its set is exact.
        std::array<float, width> st;
        st.fill(std::numeric_limits<float>::infinity());
        double strict[2] = {0, 0};
        bool strict_exact = g.out_degree(c) <= 1;
        for (Index p = g.ptr[c]; p < g.ptr[c + 1]; ++p) {
            auto const sd = static_cast<std::size_t>(
                slot_of(static_cast<std::size_t>(g.succ[static_cast<std::size_t>(p)])));
            float const* const t = minima.data() + sd * width;
            for (int j = 0; j < width; ++j) st[j] = std::min(st[j], t[j]);
            strict_exact = strict_exact && exact[sd * F] >= 0;
            for (int f = 0; f < F; ++f) strict[f] = exact[sd * F + static_cast<std::size_t>(f)];
        }
        if (!strict_exact)
            for (int f = 0; f < F; ++f) strict[f] = weight(st.data() + f * lanes);
        if (!alone) {
            est.pairs += size * (self ? strict[0] + size : strict[0]);
            est.component_pairs += (self ? 1 : 0) + (F == 2 ? strict[F - 1] : strict[0]);
            est.exact = est.exact && strict_exact;
        }
        // R*(c): the strict reach and c's own ranks (already in m).
        for (int j = 0; j < width; ++j) m[j] = std::min(m[j], st[j]);
        if (strict_exact) {
            exact[sc * F] = strict[0] + size;
            if constexpr (F == 2) exact[sc * F + 1] = strict[1] + 1;
        }
    }
    return est;
}

/// Sizes the rows of the closure (reflexive: each row also holds its own component), in
/// vertices and in components. Eight exponential ranks a component and weighting: the minimum
/// over a set of weight W is exponential with rate W, so (8 - 1) / (sum of the 8 minima)
/// estimates W with a relative error of about 40% a row, much less on the sum over rows
/// (Cohen, "Size-estimation framework with applications to transitive closure and
/// reachability", 1997). Rows of components with at most one successor are counted exactly
/// (chains, trees, sinks).
template <index_type Index>
closure_estimate estimate_closure(condensation<Index> const& g, bool reflexive) {
    return g.k == g.n ? estimate_closure_lanes<1>(g, reflexive)
                      : estimate_closure_lanes<2>(g, reflexive);
}

/// The components each component reaches (its row: reflexive or cyclic, itself too), by a
/// traversal from every component. A row's entries are condensation::code()s (a vertex for a
/// component of one, so that most rows need no lookup to expand). Rows live in per-thread
/// arrays; row(c) is [data(c), data(c) + length(c)), in no particular order.
template <index_type Index>
struct component_rows {
    std::vector<cpu::padded<std::vector<Index>>> store;  ///< one per thread
    std::vector<std::size_t> offset;        ///< k
    std::vector<Index> length;              ///< k
    std::vector<std::uint16_t> owner;       ///< k: which store
    std::vector<std::size_t> weight;        ///< k: vertices in the row's components
    Index const* data(std::size_t c) const { return store[owner[c]].value.data() + offset[c]; }
};

/// max_entries bounds the rows' entries in all (out_of_memory past it: an estimate too low by
/// much must not end in the kernel's out-of-memory killer).
template <index_type Index>
component_rows<Index> reach_by_search(condensation<Index> const& g, bool reflexive, int threads,
                                      std::size_t max_entries) {
    std::size_t const k = g.k;
    component_rows<Index> r;
    threads = std::max(1, std::min(threads, 65535));
    r.store.resize(static_cast<std::size_t>(threads));
    r.offset.resize(k);
    r.length.resize(k);
    r.owner.resize(k);
    r.weight.resize(k);
    std::atomic<std::size_t> stored{0};
    cpu::exception_carrier failure;
#pragma omp parallel num_threads(threads) if (g.edges() > 4096)
    {
        auto const t = static_cast<std::size_t>(omp_get_thread_num());
        std::vector<Index>& out = r.store[t].value;
        // Components seen from the current one: k bits stay in cache where k stamps would not;
        // the queue clears them after each row.
        std::vector<std::uint64_t> seen;
        std::vector<Index> queue;
        std::size_t unflushed = 0;
        failure.run([&] { seen.assign((k + 63) / 64, 0); });
        auto test_and_set = [&](std::size_t d) {
            std::uint64_t const bit = std::uint64_t{1} << (d % 64);
            bool const was = seen[d / 64] & bit;
            seen[d / 64] |= bit;
            return was;
        };
#pragma omp for schedule(dynamic, 64)
        for (std::size_t c = 0; c < k; ++c) {
            failure.run([&] {
                std::size_t const start = out.size();
                std::size_t w = 0;
                if (reflexive || g.cyclic[c]) {
                    out.push_back(g.code[c]);
                    w += g.size(c);
                }
                queue.clear();
                for (Index p = g.ptr[c]; p < g.ptr[c + 1]; ++p) {
                    auto const d = static_cast<std::size_t>(g.succ[static_cast<std::size_t>(p)]);
                    test_and_set(d);  // successors are distinct
                    queue.push_back(static_cast<Index>(d));
                }
                for (std::size_t q = 0; q < queue.size(); ++q) {
                    auto const x = static_cast<std::size_t>(queue[q]);
                    for (Index p = g.ptr[x]; p < g.ptr[x + 1]; ++p) {
                        auto const d =
                            static_cast<std::size_t>(g.succ[static_cast<std::size_t>(p)]);
                        if (!test_and_set(d)) queue.push_back(static_cast<Index>(d));
                    }
                }
                for (Index x : queue) seen[static_cast<std::size_t>(x) / 64] = 0;
                std::size_t const len = out.size() - start + queue.size();
                // Counted into the shared total a block at a time (one atomic a row would bounce
                // its cache line between the threads a million times).
                unflushed += len;
                if (unflushed >= (std::size_t(1) << 16)) {
                    std::size_t const total =
                        stored.fetch_add(unflushed, std::memory_order_relaxed) + unflushed;
                    unflushed = 0;
                    if (total > max_entries)
                        throw out_of_memory(
                            "closure: the search's rows passed " + std::to_string(max_entries) +
                                " entries (" + format_bytes(double(max_entries) * sizeof(Index)) +
                                "), what the memory available holds beside the result; the "
                                "estimate was too low",
                            double(max_entries) * sizeof(Index));
                }
                for (Index x : queue) {
                    Index const code = g.code[static_cast<std::size_t>(x)];
                    out.push_back(code);
                    w += code >= 0 ? 1 : g.size(static_cast<std::size_t>(x));
                }
                r.offset[c] = start;
                r.length[c] = static_cast<Index>(len);
                r.owner[c] = static_cast<std::uint16_t>(t);
                r.weight[c] = w;
            });
        }
    }
    failure.rethrow("the closure");
    return r;
}

/// Bit rows of the components each component reaches (not itself: reach_row_has_self says when
/// it belongs), k rows of ld words.
struct component_bits {
    std::size_t k = 0, ld = 0;
    std::vector<std::uint64_t> words;
    std::uint64_t const* row(std::size_t c) const { return words.data() + c * ld; }
};

template <index_type Index>
component_bits reach_by_sweep(condensation<Index> const& g, int threads) {
    component_bits b;
    b.k = g.k;
    b.ld = (g.k + 63) / 64;
    b.words.assign(b.k * b.ld, 0);
    std::size_t const k = b.k, ld = b.ld;
    // Blocks of columns are independent (a row's bits in a block come from its successors' bits
    // in the same block), so threads take blocks; reach stays below c, which bounds the words.
    constexpr std::size_t block = 64;  // words: 4096 columns
    std::size_t const blocks = (ld + block - 1) / block;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (blocks > 1)
    for (std::size_t bi = 0; bi < blocks; ++bi) {
        std::size_t const w0 = bi * block, w1 = std::min(ld, w0 + block);
        std::size_t const lo = w0 * 64, hi = std::min(k, w1 * 64);
        for (std::size_t c = lo; c < k; ++c) {
            std::uint64_t* rc = b.words.data() + c * ld;
            for (Index p = g.ptr[c]; p < g.ptr[c + 1]; ++p) {
                auto const d = static_cast<std::size_t>(g.succ[static_cast<std::size_t>(p)]);
                if (d < lo) continue;  // d's reach and d itself lie below this block
                std::uint64_t const* rd = b.words.data() + d * ld;
                std::size_t const wend = std::min(w1, d / 64 + 1);
                for (std::size_t w = w0; w < wend; ++w) rc[w] |= rd[w];
                if (d < hi) rc[d / 64] |= std::uint64_t{1} << (d % 64);
            }
        }
    }
    return b;
}

/// Calls f(d) for every component d of row c of a sweep (with c itself when `self`).
template <class F>
void for_each_in_bits(component_bits const& b, std::size_t c, bool self, F&& f) {
    std::uint64_t const* r = b.row(c);
    std::size_t const wend = std::min(b.ld, c / 64 + 1);  // reach lies below c
    for (std::size_t w = 0; w < wend; ++w)
        for (std::uint64_t x = r[w]; x; x &= x - 1)
            f(w * 64 + static_cast<std::size_t>(std::countr_zero(x)));
    if (self) f(c);
}

/// Calls f(v) for every vertex v of the component that `code` names (condensation::code).
template <index_type Index, class F>
void for_each_vertex(condensation<Index> const& g, Index code, F&& f) {
    if (code >= 0) return f(static_cast<std::size_t>(code));
    auto const d = static_cast<std::size_t>(-1 - static_cast<std::ptrdiff_t>(code));
    for (Index p = g.member_ptr[d]; p < g.member_ptr[d + 1]; ++p)
        f(static_cast<std::size_t>(g.members[static_cast<std::size_t>(p)]));
}

/// The vertex rows from component rows: row_of(c, f) calls f(code) for each component of row c
/// (condensation::code), weight[c] is the number of vertices in them. Columns come out sorted:
/// a small row is sorted (as Index, narrower than the result's int64), a large one goes through
/// a bitmap of n bits (its scan costs n / 64 words, less than sorting it then).
template <index_type Index, class RowOf>
csr_matrix<bool, std::int64_t> expand_to_csr(condensation<Index> const& g,
                                             std::vector<std::size_t> const& weight, RowOf&& row_of,
                                             int threads, std::size_t max_bytes) {
    std::size_t const n = g.n;
    buffer<std::int64_t> ptr(n + 1);
    ptr[0] = 0;
    for (std::size_t v = 0; v < n; ++v)
        ptr[v + 1] =
            ptr[v] + static_cast<std::int64_t>(weight[static_cast<std::size_t>(g.label[v])]);
    auto const nnz = static_cast<std::size_t>(ptr[n]);
    double const bytes = double(nnz + n + 1) * sizeof(std::int64_t);
    if (max_bytes && bytes > double(max_bytes))
        throw out_of_memory("closure: the result has " + std::to_string(nnz) + " pairs, " +
                                format_bytes(bytes) + " as CSR, more than the limit of " +
                                format_bytes(double(max_bytes)),
                            bytes);
    require_host_memory(("closure: the CSR result (" + std::to_string(nnz) + " pairs)").c_str(),
                        bytes);
    buffer<std::int64_t> cols(nnz);
    std::size_t const ldn = (n + 63) / 64;
    cpu::exception_carrier failure;
#pragma omp parallel num_threads(threads) if (nnz > 65536)
    {
        std::vector<std::uint64_t> bitmap;
        std::vector<Index> scratch;
#pragma omp for schedule(dynamic, 64)
        for (std::size_t c = 0; c < g.k; ++c)
            failure.run([&] {
                std::size_t const w = weight[c];
                if (w == 0) return;
                Index const* const mem = g.members.data() + g.member_ptr[c];
                std::int64_t* const out = cols.data() + ptr[static_cast<std::size_t>(mem[0])];
                if (w * static_cast<std::size_t>(std::bit_width(w)) * 16 > n) {
                    if (bitmap.empty()) bitmap.assign(ldn, 0);
                    row_of(c, [&](Index code) {
                        for_each_vertex(g, code, [&](std::size_t v) {
                            bitmap[v / 64] |= std::uint64_t{1} << (v % 64);
                        });
                    });
                    std::int64_t* o = out;
                    for (std::size_t q = 0; q < ldn; ++q) {
                        for (std::uint64_t x = bitmap[q]; x; x &= x - 1)
                            *o++ = static_cast<std::int64_t>(
                                q * 64 + static_cast<std::size_t>(std::countr_zero(x)));
                        bitmap[q] = 0;
                    }
                } else {
                    scratch.clear();
                    row_of(c, [&](Index code) {
                        for_each_vertex(g, code, [&](std::size_t v) {
                            scratch.push_back(static_cast<Index>(v));
                        });
                    });
                    std::sort(scratch.begin(), scratch.end());
                    std::copy(scratch.begin(), scratch.end(), out);
                }
                for (std::size_t q = 1; q < g.size(c); ++q)
                    std::memcpy(cols.data() + ptr[static_cast<std::size_t>(mem[q])], out,
                                w * sizeof(std::int64_t));
            });
    }
    failure.rethrow("the closure");
    return {n, n, std::move(ptr), std::move(cols), buffer<bool>(), true, true};
}

/// The vertex rows as bits, n rows of `ld` words (host_bits' layout), zeroed by the caller.
template <index_type Index, class RowOf>
void expand_to_bits(condensation<Index> const& g, std::vector<std::size_t> const& weight,
                    RowOf&& row_of, std::uint64_t* words, std::size_t ld, int threads) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (g.n > 4096)
    for (std::size_t c = 0; c < g.k; ++c) {
        if (weight[c] == 0) continue;
        Index const* const mem = g.members.data() + g.member_ptr[c];
        std::uint64_t* const out = words + static_cast<std::size_t>(mem[0]) * ld;
        row_of(c, [&](Index code) {
            for_each_vertex(g, code,
                            [&](std::size_t v) { out[v / 64] |= std::uint64_t{1} << (v % 64); });
        });
        for (std::size_t q = 1; q < g.size(c); ++q)
            std::memcpy(words + static_cast<std::size_t>(mem[q]) * ld, out,
                        ld * sizeof(std::uint64_t));
    }
}

}  // namespace kleene::detail

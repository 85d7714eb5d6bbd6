// Graph generators of kleene/algorithms/generate.hpp: counter-based random numbers (splitmix64 over
// keyed counters), parallel edge generation, and a parallel CSR assembly whose result does not
// depend on the order in which threads scatter (each row is sorted by column, then value).

#include <kleene/algorithms/generate.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace kleene {
namespace {

enum class stream : std::uint64_t { edge_bits = 1, permutation = 2, weights = 3, candidates = 4 };

constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ULL;

constexpr std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// The counter-th word of one stream of one seed: splitmix64 started at a state keyed by both.
class random_stream {
  public:
    random_stream(std::uint64_t seed, stream s)
        : key_(mix(mix(seed + golden) ^ (static_cast<std::uint64_t>(s) * 0xd1b54a32d192ed03ULL))) {}
    std::uint64_t operator()(std::uint64_t counter) const {
        return mix(key_ + (counter + 1) * golden);
    }

  private:
    std::uint64_t key_;
};

/// Uniform in [0, range) (Lemire's multiply-shift; the bias is below 2^-32 for ranges < 2^32).
std::uint64_t bounded(std::uint64_t x, std::uint64_t range) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
}
double unit(std::uint64_t x) {
    return static_cast<double>(x >> 11) * 0x1.0p-53;
}

std::string g17(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

/// Turns a random word into a weight of type T in the requested range.
template <class T>
class weight_maker {
  public:
    explicit weight_maker(std::optional<weight_range> const& w) : on_(w.has_value()) {
        if (!on_) return;
        if constexpr (std::is_same_v<T, bool>) {
            throw invalid_argument("generate: weights need a numeric value type, not bool");
        } else {
            std::string const range = "the weight range [" + g17(w->lo) + ", " + g17(w->hi) + "]";
            if (!std::isfinite(w->lo) || !std::isfinite(w->hi) || w->lo > w->hi)
                throw invalid_argument("generate: " + range + " is empty or not finite");
            lo_ = w->lo;
            hi_ = w->hi;
            if constexpr (std::is_integral_v<T>) {
                // Exact bounds where given; else the integers inside the real range. Compared
                // with 2^digits, not with max (INT64_MAX is no double: it rounds up to 2^63).
                bool const exact = w->ilo && w->ihi;
                double const ilo = exact ? double(*w->ilo) : std::ceil(lo_);
                double const ihi = exact ? double(*w->ihi) : std::floor(hi_);
                if (exact ? *w->ilo > *w->ihi : ilo > ihi)
                    throw invalid_argument("generate: no integer weight lies in " + range);
                double const top = std::ldexp(1.0, std::numeric_limits<T>::digits);
                bool const fits = exact ? *w->ilo >= std::int64_t(std::numeric_limits<T>::lowest()) &&
                                              *w->ihi <= std::int64_t(std::numeric_limits<T>::max())
                                        : ilo >= -top && ihi < top;
                if (!fits)
                    throw invalid_argument("generate: " + range + " does not fit " +
                                           (sizeof(T) == 4 ? "int32" : "int64") + " weights");
                ilo_ = exact ? *w->ilo : static_cast<std::int64_t>(ilo);
                std::int64_t const hi_int = exact ? *w->ihi : static_cast<std::int64_t>(ihi);
                // 0 stands for all 2^64 values (the whole int64 range).
                span_ = static_cast<std::uint64_t>(hi_int) - static_cast<std::uint64_t>(ilo_) + 1;
            } else {
                double const top = static_cast<double>(std::numeric_limits<T>::max());
                if (lo_ < -top || hi_ > top)
                    throw invalid_argument("generate: " + range + " does not fit " +
                                           (sizeof(T) == 4 ? "fp32" : "fp64") + " weights (largest " +
                                           g17(top) + ")");
            }
        }
    }
    bool on() const noexcept { return on_; }
    T operator()(std::uint64_t x) const {
        if constexpr (std::is_same_v<T, bool>) {
            return true;
        } else if constexpr (std::is_integral_v<T>) {
            std::uint64_t const off = span_ == 0 ? x : bounded(x, span_);
            return static_cast<T>(static_cast<std::int64_t>(static_cast<std::uint64_t>(ilo_) + off));
        } else {
            double const u = unit(x);
            // hi - lo overflows for ranges wider than the largest double: mix the ends instead.
            double const w = std::isfinite(hi_ - lo_) ? lo_ + u * (hi_ - lo_) : lo_ * (1 - u) + hi_ * u;
            return static_cast<T>(std::clamp(w, lo_, hi_));
        }
    }

  private:
    bool on_;
    double lo_ = 1, hi_ = 1;
    std::int64_t ilo_ = 1;
    std::uint64_t span_ = 1;
};

template <class Index>
void check_entries(long double count) {
    if (count > static_cast<long double>(std::numeric_limits<Index>::max()))
        throw invalid_argument("generate: " +
                               (count < 0x1p64L ? std::to_string(static_cast<std::uint64_t>(count))
                                                : std::string("more than 2^64")) +
                               " entries do not fit " + std::to_string(sizeof(Index) * 8) +
                               "-bit indices" + (sizeof(Index) < 8 ? ": use int64 indices" : ""));
}

/// Refuses, before anything is allocated, a graph whose least memory need (`bytes`, a lower
/// bound) cannot be had: `what` names the options that ask for it.
void check_memory(std::string const& what, long double bytes) {
    std::string const why = detail::host_memory_shortfall(bytes);
    if (!why.empty())
        throw out_of_memory(
            "generate: " + what + " needs at least " + detail::format_bytes(bytes) + ", " + why,
            bytes);
}

/// Rows of a square matrix from coordinate arrays: entry e is (src[e], dst[e], val[e]) and, when
/// `mirror`, also (dst[e], src[e], val[e]); self-loops dropped when asked. Each row comes out
/// sorted by column with one entry per column, the smallest value (when valued).
template <class V, class Index>
struct built_rows {
    buffer<Index> ptr, col;
    buffer<V> val;
};

template <class V, class Index>
built_rows<V, Index> build_rows(std::size_t n, std::vector<Index> const& src,
                                std::vector<Index> const& dst, std::vector<V> const* val,
                                bool mirror, bool drop_loops) {
    std::size_t const m = src.size();
    bool const valued = val != nullptr;
    std::vector<std::int64_t> start(n + 1, 0);
#pragma omp parallel for schedule(static) if (m > 65536)
    for (std::size_t e = 0; e < m; ++e) {
        auto const i = static_cast<std::size_t>(src[e]), j = static_cast<std::size_t>(dst[e]);
        if (i == j && drop_loops) continue;
        std::atomic_ref<std::int64_t>(start[i + 1]).fetch_add(1, std::memory_order_relaxed);
        if (mirror && i != j)
            std::atomic_ref<std::int64_t>(start[j + 1]).fetch_add(1, std::memory_order_relaxed);
    }
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    auto const total = static_cast<std::size_t>(start[n]);
    std::vector<std::int64_t> cursor(start.begin(), start.end() - 1);
    std::vector<Index> cols(total);
    std::vector<std::pair<Index, V>> pairs(valued ? total : 0);
    auto place = [&](std::size_t i, std::size_t j, std::size_t e) {
        auto const p = static_cast<std::size_t>(
            std::atomic_ref<std::int64_t>(cursor[i]).fetch_add(1, std::memory_order_relaxed));
        if (valued)
            pairs[p] = {static_cast<Index>(j), (*val)[e]};
        else
            cols[p] = static_cast<Index>(j);
    };
#pragma omp parallel for schedule(static) if (m > 65536)
    for (std::size_t e = 0; e < m; ++e) {
        auto const i = static_cast<std::size_t>(src[e]), j = static_cast<std::size_t>(dst[e]);
        if (i == j && drop_loops) continue;
        place(i, j, e);
        if (mirror && i != j) place(j, i, e);
    }
    // Sort each row, keep the first entry of each column (the smallest value), count them.
    std::vector<std::int64_t> kept(n + 1, 0);
#pragma omp parallel for schedule(dynamic, 1024) if (n > 4096)
    for (std::size_t i = 0; i < n; ++i) {
        auto const b = static_cast<std::size_t>(start[i]),
                   e = static_cast<std::size_t>(start[i + 1]);
        std::size_t w = b;
        if (valued) {
            std::sort(pairs.begin() + static_cast<std::ptrdiff_t>(b),
                      pairs.begin() + static_cast<std::ptrdiff_t>(e));
            for (std::size_t k = b; k < e; ++k)
                if (k == b || pairs[k].first != pairs[w - 1].first) pairs[w++] = pairs[k];
        } else {
            std::sort(cols.begin() + static_cast<std::ptrdiff_t>(b),
                      cols.begin() + static_cast<std::ptrdiff_t>(e));
            for (std::size_t k = b; k < e; ++k)
                if (k == b || cols[k] != cols[w - 1]) cols[w++] = cols[k];
        }
        kept[i + 1] = static_cast<std::int64_t>(w - b);
    }
    for (std::size_t i = 0; i < n; ++i) kept[i + 1] += kept[i];
    auto const nnz = static_cast<std::size_t>(kept[n]);
    check_entries<Index>(nnz);
    built_rows<V, Index> r{buffer<Index>(n + 1), buffer<Index>(nnz), buffer<V>(valued ? nnz : 0)};
    for (std::size_t i = 0; i <= n; ++i) r.ptr[i] = static_cast<Index>(kept[i]);
#pragma omp parallel for schedule(dynamic, 1024) if (n > 4096)
    for (std::size_t i = 0; i < n; ++i) {
        auto const from = static_cast<std::size_t>(start[i]);
        auto const to = static_cast<std::size_t>(kept[i]);
        std::size_t const len = static_cast<std::size_t>(kept[i + 1]) - to;
        for (std::size_t k = 0; k < len; ++k) {
            if (valued) {
                r.col[to + k] = pairs[from + k].first;
                r.val[to + k] = pairs[from + k].second;
            } else {
                r.col[to + k] = cols[from + k];
            }
        }
    }
    return r;
}

/// The raw Kronecker edges: src, dst (permuted) and weights, edge_factor * 2^scale of them.
template <class T, class Index>
edge_list<T, Index> kronecker_raw(kronecker_options const& o) {
    int const max_scale = std::is_same_v<Index, std::int32_t> ? 30 : 40;
    if (o.scale < 0 || o.scale > max_scale)
        throw invalid_argument("generate: scale " + std::to_string(o.scale) + " is outside 0.." +
                               std::to_string(max_scale) +
                               (std::is_same_v<Index, std::int32_t> ? " for 32-bit indices" : ""));
    if (!(o.edge_factor > 0) || !std::isfinite(o.edge_factor))
        throw invalid_argument("generate: the edge factor must be positive");
    if (!(o.a >= 0 && o.b >= 0 && o.c >= 0 && o.a + o.b + o.c <= 1 + 1e-12))
        throw invalid_argument(
            "generate: initiator probabilities a, b, c must be >= 0 with a + b + c <= 1");
    weight_maker<T> const weight(o.weights);
    std::size_t const n = std::size_t(1) << o.scale;
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", o.edge_factor);
    std::string const asked = "scale " + std::to_string(o.scale) + " with edge factor " + factor;
    // In long double: edge_factor * n may pass 2^64 (llround would not say so).
    long double const edges = std::roundl(static_cast<long double>(o.edge_factor) * n);
    if (edges > static_cast<long double>(std::numeric_limits<Index>::max()))
        throw invalid_argument("generate: " + asked + " asks for " +
                               (edges < 0x1p64L ? std::to_string(static_cast<std::uint64_t>(edges))
                                                : std::string("more than 2^64")) +
                               " edges, more than " + std::to_string(sizeof(Index) * 8) +
                               "-bit indices hold");
    auto const m = static_cast<std::size_t>(edges);
    // The permutation and the edge arrays (build_rows needs more on top).
    check_memory(
        asked + " (" + std::to_string(n) + " vertices, " + std::to_string(m) + " edges)",
        static_cast<long double>(n) * sizeof(Index) +
            static_cast<long double>(m) * (2 * sizeof(Index) + (weight.on() ? sizeof(T) : 0)));

    // Graph500: a random relabelling of the vertices (Fisher-Yates over a counter-based stream).
    std::vector<Index> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = static_cast<Index>(i);
    if (o.permute) {
        random_stream const r(o.seed, stream::permutation);
        for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[bounded(r(i), i)]);
    }

    edge_list<T, Index> g;
    g.vertices = n;
    g.src.resize(m);
    g.dst.resize(m);
    if (weight.on()) g.weight.resize(m);
    double const ab = o.a + o.b;
    // Column bit 0 with probability C / (C + D) under a row bit 1, A / (A + B) under a row bit 0.
    double const c_norm = ab < 1 ? o.c / (1 - ab) : 0;
    double const a_norm = ab > 0 ? o.a / ab : 0;
    random_stream const bits(o.seed, stream::edge_bits), wr(o.seed, stream::weights);
    auto const scale = static_cast<std::uint64_t>(o.scale);
#pragma omp parallel for schedule(static) if (m > 16384)
    for (std::size_t e = 0; e < m; ++e) {
        std::uint64_t i = 0, j = 0;
        for (std::uint64_t l = 0; l < scale; ++l) {
            // Two 32-bit uniforms from one word: the row bit, then the column bit given it.
            std::uint64_t const x = bits(e * scale + l);
            double const u1 = static_cast<double>(x >> 32) * 0x1.0p-32;
            double const u2 = static_cast<double>(x & 0xffffffffULL) * 0x1.0p-32;
            std::uint64_t const ib = u1 > ab;
            std::uint64_t const jb = u2 > (ib ? c_norm : a_norm);
            i |= ib << l;
            j |= jb << l;
        }
        g.src[e] = perm[i];
        g.dst[e] = perm[j];
        if (weight.on()) g.weight[e] = weight(wr(e));
    }
    return g;
}

template <class T, class Index>
csr_matrix<T, Index> to_matrix(std::size_t n, built_rows<T, Index>&& r) {
    return {n, n, std::move(r.ptr), std::move(r.col), std::move(r.val), T(1), true};
}

}  // namespace

namespace {

/// f(), with a refused allocation (std::vector's, past the checks above) as out_of_memory.
template <class F>
auto or_out_of_memory(char const* what, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (std::bad_alloc const&) {
        throw out_of_memory(std::string("generate: out of memory building the ") + what, 0);
    }
}

template <class T, index_type Index>
edge_list<T, Index> kronecker_edges_of(kronecker_options const& o) {
    edge_list<T, Index> g = kronecker_raw<T, Index>(o);
    bool const weighted = !g.weight.empty();
    if (o.remove_self_loops) {
        std::size_t w = 0;
        for (std::size_t e = 0; e < g.src.size(); ++e)
            if (g.src[e] != g.dst[e]) {
                g.src[w] = g.src[e];
                g.dst[w] = g.dst[e];
                if (weighted) g.weight[w] = g.weight[e];
                ++w;
            }
        g.src.resize(w);
        g.dst.resize(w);
        if (weighted) g.weight.resize(w);
    }
    if (o.undirected) {
        std::size_t const m = g.src.size();
        check_entries<Index>(2.0L * m);
        g.src.resize(2 * m);
        g.dst.resize(2 * m);
        std::copy(g.src.begin(), g.src.begin() + static_cast<std::ptrdiff_t>(m),
                  g.dst.begin() + static_cast<std::ptrdiff_t>(m));
        std::copy(g.dst.begin(), g.dst.begin() + static_cast<std::ptrdiff_t>(m),
                  g.src.begin() + static_cast<std::ptrdiff_t>(m));
        if (weighted) {
            g.weight.resize(2 * m);
            std::copy(g.weight.begin(), g.weight.begin() + static_cast<std::ptrdiff_t>(m),
                      g.weight.begin() + static_cast<std::ptrdiff_t>(m));
        }
    }
    return g;
}

template <class T, index_type Index>
csr_matrix<T, Index> kronecker_graph_of(kronecker_options const& o) {
    edge_list<T, Index> const g = kronecker_raw<T, Index>(o);
    return to_matrix(g.vertices, build_rows<T, Index>(g.vertices, g.src, g.dst,
                                                      g.weight.empty() ? nullptr : &g.weight,
                                                      o.undirected, o.remove_self_loops));
}

template <class T, index_type Index>
csr_matrix<T, Index> uniform_graph_of(uniform_options const& o) {
    std::size_t const n = o.vertices, m = o.edges;
    weight_maker<T> const weight(o.weights);
    if (n > static_cast<std::size_t>(std::numeric_limits<Index>::max()))
        throw invalid_argument("generate: " + std::to_string(n) + " vertices do not fit " +
                               std::to_string(sizeof(Index) * 8) + "-bit indices" +
                               (sizeof(Index) < 8 ? ": use int64 indices" : ""));
    auto const nn = static_cast<unsigned __int128>(n);
    unsigned __int128 const possible =
        o.undirected ? (o.self_loops ? nn * (nn + 1) / 2 : nn * (nn - (n > 0)) / 2)
                     : (o.self_loops ? nn * nn : nn * (nn - (n > 0)));
    if (m > possible)
        throw invalid_argument(
            "generate: a " + std::string(o.undirected ? "undirected" : "directed") + " graph on " +
            std::to_string(n) + " vertices " + (o.self_loops ? "with" : "without") +
            " self-loops has fewer than " + std::to_string(m) + " distinct edges");
    check_entries<Index>(static_cast<long double>(m) * (o.undirected ? 2 : 1));
    if (m == 0) return csr_matrix<T, Index>(n, n);
    // The first batch of candidates (src, dst, first) and the row counters of build_rows.
    check_memory(
        "a uniform graph of " + std::to_string(n) + " vertices and " + std::to_string(m) + " edges",
        (m + m / 8 + 256.0L) * (2 * sizeof(Index) + sizeof(std::uint64_t)) +
            3.0L * (n + 1.0L) * sizeof(std::int64_t));

    // G(n, m): the first m distinct pairs of one random sequence of candidate pairs. The candidates
    // are deduplicated keeping each pair's first occurrence; too few distinct ones: more candidates
    // (a longer prefix of the same sequence, so the answer does not depend on the batch size).
    random_stream const cand(o.seed, stream::candidates), wr(o.seed, stream::weights);
    std::size_t count = m + m / 8 + 256;
    std::vector<Index> src, dst;
    std::vector<std::uint64_t> first;
    built_rows<std::uint64_t, Index> rows;
    while (true) {
        src.resize(count);
        dst.resize(count);
        first.resize(count);
#pragma omp parallel for schedule(static) if (count > 16384)
        for (std::size_t k = 0; k < count; ++k) {
            auto i = static_cast<Index>(bounded(cand(2 * k), n));
            auto j = static_cast<Index>(bounded(cand(2 * k + 1), n));
            if (o.undirected && j < i) std::swap(i, j);
            src[k] = i;
            dst[k] = j;
            first[k] = k;
        }
        rows = build_rows<std::uint64_t, Index>(n, src, dst, &first, false, !o.self_loops);
        if (rows.col.size() >= m || m == 0) break;
        count *= 2;
    }
    // The m earliest distinct pairs.
    std::uint64_t last = 0;
    if (m > 0) {
        std::vector<std::uint64_t> order(rows.val.begin(), rows.val.end());
        std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m - 1),
                         order.end());
        last = order[m - 1];
    }
    src.clear();
    dst.clear();
    std::vector<T> w;
    for (std::size_t i = 0; i < n && m > 0; ++i)
        for (auto k = static_cast<std::size_t>(rows.ptr[i]);
             k < static_cast<std::size_t>(rows.ptr[i + 1]); ++k)
            if (rows.val[k] <= last) {
                src.push_back(static_cast<Index>(i));
                dst.push_back(rows.col[k]);
                if (weight.on()) w.push_back(weight(wr(rows.val[k])));
            }
    return to_matrix(
        n, build_rows<T, Index>(n, src, dst, weight.on() ? &w : nullptr, o.undirected, false));
}

}  // namespace

template <class T, index_type Index>
edge_list<T, Index> kronecker_edges(kronecker_options const& o) {
    return or_out_of_memory("Kronecker edges", [&] { return kronecker_edges_of<T, Index>(o); });
}
template <class T, index_type Index>
csr_matrix<T, Index> kronecker_graph(kronecker_options const& o) {
    return or_out_of_memory("Kronecker graph", [&] { return kronecker_graph_of<T, Index>(o); });
}
template <class T, index_type Index>
csr_matrix<T, Index> uniform_graph(uniform_options const& o) {
    return or_out_of_memory("uniform graph", [&] { return uniform_graph_of<T, Index>(o); });
}

#define KLEENE_GENERATE_INSTANTIATE_INDEX(T, Index)                                    \
    template edge_list<T, Index> kronecker_edges<T, Index>(kronecker_options const&);  \
    template csr_matrix<T, Index> kronecker_graph<T, Index>(kronecker_options const&); \
    template csr_matrix<T, Index> uniform_graph<T, Index>(uniform_options const&);
#define KLEENE_GENERATE_INSTANTIATE(T)                 \
    KLEENE_GENERATE_INSTANTIATE_INDEX(T, std::int32_t) \
    KLEENE_GENERATE_INSTANTIATE_INDEX(T, std::int64_t)
KLEENE_GENERATE_INSTANTIATE(bool)
KLEENE_GENERATE_INSTANTIATE(float)
KLEENE_GENERATE_INSTANTIATE(double)
KLEENE_GENERATE_INSTANTIATE(std::int32_t)
KLEENE_GENERATE_INSTANTIATE(std::int64_t)
#undef KLEENE_GENERATE_INSTANTIATE
#undef KLEENE_GENERATE_INSTANTIATE_INDEX

}  // namespace kleene

#pragma once
// kleene::graph: an adjacency matrix in its space (host or device) with the properties the
// algorithms ask for, computed on first use and kept (LAGraph's LAGraph_Graph and its cached
// properties): the pattern, the transpose (valued and pattern), out- and in-degrees, whether the
// structure and the values are symmetric, the weights' summary (negative weights, min, max).
//
//   graph g(std::move(a), graph_kind::directed);     // or .to_device() first: a device graph
//   bfs(g, 0); sssp(g, 0); pagerank(g); ...          // the overloads at the end of this file
//   g.modify() = other;                              // the only way to change A: drops the caches
//
// Host graph and GPU: when an algorithm runs on the GPU for a host graph, the graph copies A (or
// its pattern, and the pattern of A') to the device once and keeps the copies: from then on the
// graph HOLDS DEVICE MEMORY until modify() or its destruction. Device graph: the device work reads
// the device matrix and the device transposes kept here; properties read on the host (degrees,
// symmetry, weights) and the host-side checks of the algorithms read a host mirror of A, copied
// from the device once and kept. host_to_device_copies() / device_to_host_copies() count the
// matrices the graph moves between spaces; repeated algorithm calls move none.
//
// Threads: every property accessor is const and may be called from several threads at once; each
// property is computed under its own std::call_once, so exactly once. modify(), set_kind() and
// assignment are not: no other thread may use the graph meanwhile (as for any non-const member of
// a standard container).
//
// The overloads run the matrix algorithms (bfs, sssp, apsp, closure, predecessors,
// connected_components, pagerank, triangle_count, betweenness) with these cached properties in
// place of what they would otherwise recompute on every call; their explain traces say which
// property was reused ("graph: cached ... reused") and which was computed for this call.

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

/// LAGraph's kinds: directed (A(i, j): an edge i -> j), undirected (A symmetric, structure and
/// values; checked when the graph is made or the kind set).
enum class graph_kind { directed, undirected };

/// The properties a graph keeps (computations() counts how often each was computed).
enum class graph_property : std::size_t {
    pattern,                   ///< A's structure as a Boolean matrix, in A's space
    pattern_transpose,         ///< A' likewise (an undirected graph: the pattern itself)
    transpose,                 ///< A' with values, in A's space
    out_degree,                ///< entries per row (host vector)
    in_degree,                 ///< entries per column (host vector)
    symmetry,                  ///< structure and values symmetric
    weights,                   ///< negative weights, min, max, the summary sssp plans with
    host_mirror,               ///< device graph: A copied to the host
    device_matrix,             ///< host graph: A copied to the device
    device_pattern,            ///< A's pattern on the device
    device_pattern_transpose,  ///< A''s pattern on the device
    count
};

inline char const* to_string(graph_property p) {
    constexpr char const* names[] = {"pattern",        "pattern of A'",       "A'",
                                     "out-degrees",    "in-degrees",          "symmetry",
                                     "weights",        "host mirror",         "device copy of A",
                                     "device pattern", "device pattern of A'"};
    return names[static_cast<std::size_t>(p)];
}

/// What the weights of A are like (no entries: empty is true, the rest false / zero).
template <class T>
struct graph_weights {
    bool empty = true;
    bool negative = false;  ///< some weight is below zero
    T min{};
    T max{};
    detail::weight_summary summary;  ///< the summary sssp plans with
};

namespace detail {
template <class T>
inline constexpr bool graph_device_transpose_type =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t>;
}  // namespace detail

template <class T, index_type Index = std::int32_t, memory_space Space = host>
class graph {
  public:
    static constexpr bool on_device = std::is_same_v<Space, device>;
    using matrix_type = csr_matrix<T, Index, Space>;
    using pattern_type = csr_matrix<bool, Index, Space>;
    using host_matrix = csr_matrix<T, Index, host>;
    using device_pattern_type = csr_matrix<bool, Index, device>;

    /// Takes A (square). undirected: A must be symmetric in structure and values, or
    /// invalid_argument names an entry without its mirror.
    explicit graph(matrix_type a, graph_kind kind = graph_kind::directed)
        : a_(std::move(a)),
          cache_(std::make_unique<cache>()),
          counts_(std::make_unique<counters>()) {
        if (a_.rows() != a_.cols())
            throw dimension_mismatch("graph: the adjacency matrix must be square, not " +
                                     detail::shape(a_.rows(), a_.cols()));
        set_kind(kind);
    }
    graph(graph&&) noexcept = default;
    graph& operator=(graph&&) noexcept = default;
    graph(graph const&) = delete;
    graph& operator=(graph const&) = delete;

    graph_kind kind() const noexcept { return kind_; }
    /// Changes the kind; undirected is checked (symmetry, computed once and kept).
    void set_kind(graph_kind kind) {
        if (kind == graph_kind::undirected && !symmetric())
            throw invalid_argument(
                "graph: an undirected graph needs a symmetric adjacency matrix (structure and "
                "values); this one is not: make it directed, or symmetrise it first");
        kind_ = kind;
    }
    bool undirected() const noexcept { return kind_ == graph_kind::undirected; }

    std::size_t vertices() const noexcept { return a_.rows(); }
    std::size_t edges() const noexcept { return a_.nnz(); }  ///< stored entries of A
    matrix_type const& matrix() const noexcept { return a_; }

    /// The only way to change A: drops every cached property (device copies included). The kind
    /// becomes directed (nothing checks what the caller writes): set_kind(undirected) checks the
    /// changed matrix and restores it.
    matrix_type& modify() {
        cache_ = std::make_unique<cache>();
        kind_ = graph_kind::directed;
        return a_;
    }

    // ---- properties: computed on first use (once, even from several threads), then kept ----

    pattern_type const& pattern() const {
        return get<pattern_type>(graph_property::pattern, cache_->pattern,
                                 [&] { return pattern_in_space(a_); });
    }
    /// The pattern of A' (an undirected graph: pattern()).
    pattern_type const& pattern_transpose() const {
        if (undirected()) return pattern();
        return get<pattern_type>(graph_property::pattern_transpose, cache_->pattern_t, [&] {
            if constexpr (on_device)
                return transpose_on_device(pattern());
            else
                return cpu::transpose_csr(pattern());
        });
    }
    /// A' with its values (an undirected graph: A itself). On the device for float, double,
    /// int32 and int64 only (invalid_argument otherwise).
    matrix_type const& transpose() const {
        if (undirected()) return a_;
        return get<matrix_type>(graph_property::transpose, cache_->transpose, [&] {
            if constexpr (on_device)
                return transpose_on_device(a_);
            else
                return cpu::transpose_csr(a_);
        });
    }
    std::vector<std::int64_t> const& out_degree() const {
        return get<std::vector<std::int64_t>>(graph_property::out_degree, cache_->out_degree, [&] {
            host_matrix const& h = on_host();
            std::vector<std::int64_t> d(h.rows());
            for (std::size_t i = 0; i < d.size(); ++i)
                d[i] = static_cast<std::int64_t>(h.row_ptr()[i + 1] - h.row_ptr()[i]);
            return d;
        });
    }
    std::vector<std::int64_t> const& in_degree() const {
        if (undirected()) return out_degree();
        return get<std::vector<std::int64_t>>(graph_property::in_degree, cache_->in_degree, [&] {
            host_matrix const& h = on_host();
            std::vector<std::int64_t> d(h.cols(), 0);
            for (std::size_t k = 0; k < h.nnz(); ++k) ++d[static_cast<std::size_t>(h.col_idx()[k])];
            return d;
        });
    }
    /// A == A' in structure.
    bool symmetric_structure() const { return symmetry().first; }
    /// A == A' in structure and values.
    bool symmetric() const { return symmetry().second; }
    graph_weights<T> const& weights() const {
        return get<graph_weights<T>>(graph_property::weights, cache_->weights, [&] {
            host_matrix const& h = on_host();
            graph_weights<T> w;
            w.empty = h.nnz() == 0;
            if (!w.empty) {
                w.min = w.max = h.value(0);
                for (std::size_t k = 1; k < h.nnz(); ++k) {
                    T const x = h.value(k);
                    if (x < w.min) w.min = x;
                    if (w.max < x) w.max = x;
                }
                if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
                    w.negative = w.min < T(0);
            }
            if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
                w.summary = detail::summarise_weights(h);
            return w;
        });
    }
    bool has_negative_weights() const { return weights().negative; }

    /// A on the host: A itself for a host graph, the kept mirror of a device graph.
    host_matrix const& on_host() const {
        if constexpr (on_device) {
            return get<host_matrix>(graph_property::host_mirror, cache_->mirror, [&] {
                ++counts_->to_host;
                return a_.to_host();
            });
        } else {
            return a_;
        }
    }
    /// A on the device: A itself for a device graph, a kept copy for a host graph.
    csr_matrix<T, Index, device> const& device_matrix() const {
        if constexpr (on_device) {
            return a_;
        } else {
            return get<csr_matrix<T, Index, device>>(graph_property::device_matrix,
                                                     cache_->device_a, [&] {
                                                         ++counts_->to_device;
                                                         return a_.to_device();
                                                     });
        }
    }
    device_pattern_type const& device_pattern() const {
        if constexpr (on_device) {
            return pattern();
        } else {
            return get<device_pattern_type>(graph_property::device_pattern, cache_->device_p, [&] {
                ++counts_->to_device;
                return pattern().to_device();
            });
        }
    }
    /// The pattern of A' on the device (an undirected graph: device_pattern()).
    device_pattern_type const& device_pattern_transpose() const {
        if constexpr (on_device) {
            return pattern_transpose();
        } else {
            if (undirected()) return device_pattern();
            return get<device_pattern_type>(graph_property::device_pattern_transpose,
                                            cache_->device_pt, [&] {
                                                ++counts_->to_device;
                                                return pattern_transpose().to_device();
                                            });
        }
    }

    // ---- what the graph did (for tests and traces) ----

    /// Whether `p` is computed and kept now.
    bool cached(graph_property p) const noexcept {
        return cache_->ready[static_cast<std::size_t>(p)].load(std::memory_order_acquire);
    }
    /// How often `p` was computed over the graph's life (modify() makes it due again).
    std::size_t computations(graph_property p) const noexcept {
        return counts_->computed[static_cast<std::size_t>(p)].load(std::memory_order_relaxed);
    }
    /// Matrices (A, its pattern, the pattern of A') the graph copied from host to device.
    std::size_t host_to_device_copies() const noexcept { return counts_->to_device.load(); }
    /// Matrices the graph copied from device to host (a device graph's mirror).
    std::size_t device_to_host_copies() const noexcept { return counts_->to_host.load(); }

    /// Adds "graph: cached <p> reused" or "graph: <p> computed and kept" to `e` (when not null),
    /// by whether p was cached before (`was`). The overloads below call it.
    static void note(explain_trace* e, graph_property p, bool was) {
        if (e)
            e->add(std::string("graph: ") + (was ? "cached " : "") + to_string(p) +
                   (was ? " reused" : " computed and kept"));
    }

  private:
    static constexpr std::size_t np = static_cast<std::size_t>(graph_property::count);
    struct cache {
        std::array<std::once_flag, np> once;
        std::array<std::atomic<bool>, np> ready{};
        std::optional<pattern_type> pattern, pattern_t;
        std::optional<matrix_type> transpose;
        std::optional<std::vector<std::int64_t>> out_degree, in_degree;
        std::optional<std::pair<bool, bool>> symmetry;
        std::optional<graph_weights<T>> weights;
        std::optional<host_matrix> mirror;
        std::optional<csr_matrix<T, Index, device>> device_a;
        std::optional<device_pattern_type> device_p, device_pt;
    };
    struct counters {
        std::array<std::atomic<std::size_t>, np> computed{};
        std::atomic<std::size_t> to_device{0}, to_host{0};
    };

    template <class V, class F>
    V const& get(graph_property p, std::optional<V>& slot, F&& make) const {
        auto const i = static_cast<std::size_t>(p);
        std::call_once(cache_->once[i], [&] {
            slot.emplace(make());
            counts_->computed[i].fetch_add(1, std::memory_order_relaxed);
            cache_->ready[i].store(true, std::memory_order_release);
        });
        return *slot;
    }

    std::pair<bool, bool> const& symmetry() const {
        return get<std::pair<bool, bool>>(graph_property::symmetry, cache_->symmetry, [&] {
            host_matrix const& h = on_host();
            // The CSR of A' has the same arrays as A exactly when A is symmetric.
            host_matrix const t = cpu::transpose_csr(h);
            bool const structure =
                std::equal(h.row_ptr(), h.row_ptr() + h.rows() + 1, t.row_ptr()) &&
                std::equal(h.col_idx(), h.col_idx() + h.nnz(), t.col_idx());
            bool values = structure;
            for (std::size_t k = 0; values && k < h.nnz(); ++k) values = h.value(k) == t.value(k);
            return std::pair<bool, bool>(structure, values);
        });
    }

    template <class U>
    static csr_matrix<bool, Index, Space> pattern_in_space(csr_matrix<U, Index, Space> const& m) {
        return {m.rows(), m.cols(), m.row_ptr_storage(), m.col_idx_storage(), buffer<bool, Space>{},
                true,     true};
    }
    /// A' on the device (the device transpose has arithmetic instances only: a pattern goes
    /// through an iso float shell, as pagerank's).
    template <class U>
    static csr_matrix<U, Index, device> transpose_on_device(csr_matrix<U, Index, device> const& m) {
        std::size_t const n = m.rows();
        if constexpr (std::is_same_v<U, bool>) {
            csr_matrix<float, Index, device> const shell(n, n, m.row_ptr_storage(),
                                                         m.col_idx_storage(),
                                                         buffer<float, device>{}, 1.0f, true);
            csr_matrix<float, Index, device> t(n, n);
            cuda::transpose(t, shell);
            return {n,
                    n,
                    std::move(t.row_ptr_storage()),
                    std::move(t.col_idx_storage()),
                    buffer<bool, device>{},
                    true,
                    true};
        } else if constexpr (detail::graph_device_transpose_type<U>) {
            csr_matrix<U, Index, device> t(n, n);
            cuda::transpose(t, m);
            return t;
        } else {
            throw invalid_argument(
                "graph::transpose: the device transpose runs float, double, int32 and int64 "
                "values only");
        }
    }

    matrix_type a_;
    graph_kind kind_ = graph_kind::directed;
    std::unique_ptr<cache> cache_;
    std::unique_ptr<counters> counts_;
};

template <class T, class Index, class Space>
graph(csr_matrix<T, Index, Space>) -> graph<T, Index, Space>;
template <class T, class Index, class Space>
graph(csr_matrix<T, Index, Space>, graph_kind) -> graph<T, Index, Space>;

// ---- the algorithms on a graph ------------------------------------------------------------------

namespace detail {
/// The rule of the matrix overloads: GPU when pinned, or automatic with a device and enough edges.
inline bool graph_wants_gpu(device_choice d, std::size_t edges, std::size_t gpu_min_edges) {
    if (d == device_choice::gpu) return true;
    return d == device_choice::automatic && edges >= gpu_min_edges && cuda::device_count() > 0;
}
/// A device graph runs on the GPU: device=cpu is refused, automatic becomes gpu.
inline device_choice graph_device_only(device_choice d, char const* who) {
    if (d == device_choice::cpu)
        throw invalid_argument(std::string(who) +
                               ": device=cpu was asked for a device graph; make a host graph from "
                               "matrix().to_host() first");
    cuda::require_device();
    return device_choice::gpu;
}
/// Calls g's accessor `get` for property p and notes in `e` whether it was cached before.
template <class G, class Get>
decltype(auto) graph_use(G const& g, graph_property p, explain_trace* e, Get&& get) {
    bool const was = g.cached(p);
    decltype(auto) v = get();
    G::note(e, p, was);
    return v;
}
}  // namespace detail

/// BFS on a graph. Pull steps read the kept pattern of A' (or A when the graph is undirected or
/// A's structure is symmetric); on the GPU, the kept device patterns: nothing is copied there
/// after the first GPU call.
template <class T, index_type Index, memory_space Space>
void bfs(bfs_result& r, graph<T, Index, Space> const& g, std::size_t source,
         bfs_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    bfs_options o = opt;
    if constexpr (G::on_device) o.device = detail::graph_device_only(opt.device, "bfs");
    bool const gpu = detail::graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges);
    // A pull step needs A'; A itself serves when the structure is symmetric (cached property).
    bool sym = g.undirected() || opt.symmetric;
    if (!sym && opt.direction != bfs_direction::push)
        sym = detail::graph_use(g, graph_property::symmetry, opt.explain,
                                [&] { return g.symmetric_structure(); });
    o.symmetric = sym;
    auto device_of = [&](bool need_transpose) {
        auto const* ad = &detail::graph_use(
            g, graph_property::device_pattern,
            opt.explain, [&]() -> auto const& { return g.device_pattern(); });
        decltype(ad) atd = nullptr;
        if (need_transpose)
            atd = &detail::graph_use(
                g, graph_property::device_pattern_transpose,
                opt.explain, [&]() -> auto const& { return g.device_pattern_transpose(); });
        return std::pair(ad, atd);
    };
    auto const& a = g.on_host();
    csr_matrix<bool, Index> const* at = nullptr;  // null with sym: bfs reads A (o.symmetric)
    if constexpr (!G::on_device)
        if (!sym && opt.direction != bfs_direction::push && !gpu)
            at = &detail::graph_use(
                g, graph_property::pattern_transpose,
                opt.explain, [&]() -> auto const& { return g.pattern_transpose(); });
    if constexpr (G::on_device) {
        detail::bfs_into(r, a, at, source, o, device_of);
    } else {
        if (gpu)
            detail::bfs_into(r, a, at, source, o, device_of);
        else
            detail::bfs_into(r, a, at, source, o);
    }
}

template <class T, index_type Index, memory_space Space>
bfs_result bfs(graph<T, Index, Space> const& g, std::size_t source, bfs_options const& opt = {}) {
    bfs_result r;
    bfs(r, g, source, opt);
    return r;
}

/// SSSP on a graph: the method and delta-stepping's width come from the kept weights (negative
/// weights: Bellman-Ford), the GPU reads the kept device copy of A.
template <class T, index_type Index, memory_space Space>
void sssp(sssp_result<T>& r, graph<T, Index, Space> const& g, std::size_t source,
          sssp_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    sssp_options o = opt;
    if constexpr (G::on_device) o.device = detail::graph_device_only(opt.device, "sssp");
    bool const gpu = detail::graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges);
    auto const& w = detail::graph_use(
        g, graph_property::weights, opt.explain, [&]() -> auto const& { return g.weights(); });
    auto device_of = [&] {
        return &detail::graph_use(
            g, graph_property::device_matrix,
            opt.explain, [&]() -> auto const& { return g.device_matrix(); });
    };
    if (gpu)
        detail::sssp_into(r, g.on_host(), source, o, &w.summary, device_of);
    else
        detail::sssp_into(r, g.on_host(), source, o, &w.summary);
}

template <class T, index_type Index, memory_space Space>
sssp_result<T> sssp(graph<T, Index, Space> const& g, std::size_t source,
                    sssp_options const& opt = {}) {
    sssp_result<T> r;
    sssp(r, g, source, opt);
    return r;
}

/// PageRank on a graph: the pull reads the kept A' (A when symmetric); on the GPU the kept device
/// patterns.
template <class T, index_type Index, memory_space Space>
pagerank_result pagerank(graph<T, Index, Space> const& g, pagerank_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    pagerank_options o = opt;
    if constexpr (G::on_device) o.device = detail::graph_device_only(opt.device, "pagerank");
    bool const gpu = G::on_device || detail::graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges);
    if (!o.symmetric)
        o.symmetric = g.undirected() || detail::graph_use(g, graph_property::symmetry, opt.explain,
                                                          [&] { return g.symmetric_structure(); });
    auto device_of = [&](bool need_transpose) {
        auto const* ad = &detail::graph_use(
            g, graph_property::device_pattern,
            opt.explain, [&]() -> auto const& { return g.device_pattern(); });
        decltype(ad) atd = nullptr;
        if (need_transpose)
            atd = &detail::graph_use(
                g, graph_property::device_pattern_transpose,
                opt.explain, [&]() -> auto const& { return g.device_pattern_transpose(); });
        return std::pair(ad, atd);
    };
    if (gpu) return detail::pagerank_into(g.matrix(), o, nullptr, device_of);
    if constexpr (!G::on_device) {
        csr_matrix<bool, Index> const* at = nullptr;
        if (!o.symmetric)
            at = &detail::graph_use(
                g, graph_property::pattern_transpose,
                opt.explain, [&]() -> auto const& { return g.pattern_transpose(); });
        return detail::pagerank_into(g.matrix(), o, at);
    }
    return {};  // not reached: a device graph runs on the GPU
}

/// Connected components (weakly connected for a directed graph whose structure is not
/// symmetric). The symmetry is the kept property; a host graph on the GPU uses its kept device
/// pattern.
template <class T, index_type Index, memory_space Space>
cc_result connected_components(graph<T, Index, Space> const& g, cc_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    cc_options o = opt;
    if (!o.symmetric)
        o.symmetric = g.undirected() || detail::graph_use(g, graph_property::symmetry, opt.explain,
                                                          [&] { return g.symmetric_structure(); });
    if constexpr (G::on_device) {
        return connected_components(g.matrix(), o);
    } else {
        if (detail::graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges)) {
            cuda::require_device();
            return connected_components(
                detail::graph_use(
                    g, graph_property::device_pattern,
                    opt.explain, [&]() -> auto const& { return g.device_pattern(); }),
                o);
        }
        return connected_components(g.matrix(), o);
    }
}

/// Triangles of an undirected graph (or a directed one whose structure is symmetric: the kept
/// property replaces triangle_count's own check).
template <class T, index_type Index, memory_space Space>
tc_result triangle_count(graph<T, Index, Space> const& g, tc_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    tc_options o = opt;
    if (!o.symmetric) {
        bool const sym =
            g.undirected() || detail::graph_use(g, graph_property::symmetry, opt.explain,
                                                [&] { return g.symmetric_structure(); });
        if (!sym) throw invalid_argument(detail::not_symmetric(" (graph)"));
        o.symmetric = true;
    }
    if constexpr (G::on_device) {
        return triangle_count(g.matrix(), o);
    } else {
        if (o.method != tc_method::mxm &&
            detail::graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges)) {
            cuda::require_device();
            return triangle_count(
                detail::graph_use(
                    g, graph_property::device_pattern,
                    opt.explain, [&]() -> auto const& { return g.device_pattern(); }),
                o);
        }
        return triangle_count(g.matrix(), o);
    }
}

/// Betweenness centrality from `sources`: symmetry from the kept property; a host graph on the
/// GPU uses its kept device pattern.
template <class T, index_type Index, memory_space Space>
bc_result betweenness(graph<T, Index, Space> const& g, std::span<std::int64_t const> sources,
                      bc_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    bc_options o = opt;
    if (!o.symmetric)
        o.symmetric = g.undirected() || detail::graph_use(g, graph_property::symmetry, opt.explain,
                                                          [&] { return g.symmetric_structure(); });
    if constexpr (G::on_device) {
        return betweenness(g.matrix(), sources, o);
    } else {
        if (detail::graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges)) {
            cuda::require_device();
            return betweenness(
                detail::graph_use(
                    g, graph_property::device_pattern,
                    opt.explain, [&]() -> auto const& { return g.device_pattern(); }),
                sources, o);
        }
        return betweenness(g.matrix(), sources, o);
    }
}

template <class T, index_type Index, memory_space Space>
bc_result betweenness(graph<T, Index, Space> const& g, std::vector<std::int64_t> const& sources,
                      bc_options const& opt = {}) {
    return betweenness(g, std::span<std::int64_t const>(sources), opt);
}

/// APSP of a graph (dense result on the host). apsp plans on the host matrix (a device graph's
/// kept mirror); the trace names the kept weights (negative weights rule out Dijkstra-based
/// methods without Johnson's reweighting, which apsp's plan applies).
template <class T, index_type Index, memory_space Space>
apsp_result<T> apsp(graph<T, Index, Space> const& g, apsp_options const& opt = {}) {
    auto const& w = detail::graph_use(
        g, graph_property::weights, opt.explain, [&]() -> auto const& { return g.weights(); });
    if (opt.explain)
        opt.explain->add(std::string("graph: ") +
                         (w.negative ? "negative weights" : "no negative weight"));
    return apsp(g.on_host(), opt);
}

/// Transitive closure of a graph's structure (on the host matrix: a device graph's kept mirror).
template <class T, index_type Index, memory_space Space>
csr_matrix<bool, std::int64_t> closure(graph<T, Index, Space> const& g,
                                       closure_options const& opt = {}) {
    return closure(g.on_host(), opt);
}

/// Predecessors on shortest paths of a graph given its APSP distances (paths.hpp).
template <class T, index_type Index, memory_space Space>
dense_matrix<std::int32_t> predecessors(graph<T, Index, Space> const& g,
                                        std::type_identity_t<dense_view<T const>> dist) {
    return predecessors(g.on_host(), dist);
}

}  // namespace kleene

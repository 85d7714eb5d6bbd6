#pragma once
// kleene::graph: an adjacency matrix in its space (host or device) with the properties the
// algorithms ask for, computed on first use and kept (LAGraph's LAGraph_Graph and its cached
// properties): the pattern, the transpose (valued and pattern), out- and in-degrees, whether the
// structure and the values are symmetric, the weights' summary (negative weights, min, max).
//
//   graph g(std::move(a), graph_kind::directed);     // or .to_device() first: a device graph
//   bfs(g, 0); sssp(g, 0); pagerank(g); ...          // the overloads in graph.hpp
//   g.modify() = other;                              // the only way to change A: drops the caches
//
// Host graph and GPU: when an algorithm runs on the GPU for a host graph, the graph copies A (or
// its pattern, and the pattern of A') to the device once and keeps the copies: from then on the
// graph HOLDS DEVICE MEMORY until modify() or its destruction. Device graph: A stays on the device.
// Its properties are computed there (cuda/graph_scans.hpp: the degrees, copied back as vectors of
// n; the symmetry and the weights' summary, a few values), and the algorithms of graph.hpp read
// the device matrix and the device transposes kept here, nothing else: no host copy of A is made.
// on_host() still makes one on request (a mirror, copied once and kept) for callers that want
// host data; the only algorithm paths that take it need A on the host by nature and say so in
// their traces (graph.hpp: apsp past the device's memory, closure past it or with the
// condensation pinned).
// host_to_device_copies() / device_to_host_copies() count the matrices the graph moves between
// spaces: a device graph's algorithms move none, and a host graph's repeated calls none after the
// first.
//
// Threads: every property accessor is const and may be called from several threads at once; each
// property is computed under its own std::call_once, so exactly once. modify(), set_kind() and
// assignment are not: no other thread may use the graph meanwhile (as for any non-const member of
// a standard container).

#include <kleene/algorithms/cuda/graph_scans.hpp>
#include <kleene/algorithms/path_weights.hpp>
#include <kleene/context.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
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
    out_degree,                ///< entries per row (host vector; a device graph's counted there)
    in_degree,                 ///< entries per column (host vector; likewise)
    symmetry,                  ///< structure and values symmetric
    weights,                   ///< negative weights, min, max, the summary sssp plans with
    host_mirror,               ///< device graph: A copied to the host (on_host() only)
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
    /// A device graph's: B and any non-finite weight (path_weights.hpp), from the same device
    /// pass, so that sssp and apsp need no host copy of A. Empty for a host graph (they compute
    /// B from A when they need it).
    std::optional<path_weight_scan> scan;
};

namespace detail {
template <class T>
inline constexpr bool graph_device_transpose_type =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t>;
/// The value types of the device passes behind a device graph's symmetry and weights.
template <class T>
inline constexpr bool graph_device_scan_type =
    graph_device_transpose_type<T> || std::is_same_v<T, bool>;
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
            if constexpr (on_device) {
                return cuda::degrees<Index>(pattern(), false, default_context());
            } else {
                std::vector<std::int64_t> d(a_.rows());
                for (std::size_t i = 0; i < d.size(); ++i)
                    d[i] = static_cast<std::int64_t>(a_.row_ptr()[i + 1] - a_.row_ptr()[i]);
                return d;
            }
        });
    }
    std::vector<std::int64_t> const& in_degree() const {
        if (undirected()) return out_degree();
        return get<std::vector<std::int64_t>>(graph_property::in_degree, cache_->in_degree, [&] {
            if constexpr (on_device) {
                return cuda::degrees<Index>(pattern(), true, default_context());
            } else {
                std::vector<std::int64_t> d(a_.cols(), 0);
                for (std::size_t k = 0; k < a_.nnz(); ++k)
                    ++d[static_cast<std::size_t>(a_.col_idx()[k])];
                return d;
            }
        });
    }
    /// A == A' in structure.
    bool symmetric_structure() const { return symmetry().first; }
    /// A == A' in structure and values.
    bool symmetric() const { return symmetry().second; }
    /// On a device graph: one pass there (float, double, int32, int64 and bool values only;
    /// invalid_argument otherwise).
    graph_weights<T> const& weights() const {
        return get<graph_weights<T>>(graph_property::weights, cache_->weights, [&] {
            if constexpr (on_device) {
                return device_weights();
            } else {
                graph_weights<T> w;
                w.empty = a_.nnz() == 0;
                if (!w.empty) {
                    w.min = w.max = a_.value(0);
                    for (std::size_t k = 1; k < a_.nnz(); ++k) {
                        T const x = a_.value(k);
                        if (x < w.min) w.min = x;
                        if (w.max < x) w.max = x;
                    }
                    if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
                        w.negative = w.min < T(0);
                }
                if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
                    w.summary = detail::summarise_weights(a_);
                return w;
            }
        });
    }
    bool has_negative_weights() const { return weights().negative; }

    /// A on the host: A itself for a host graph, the kept mirror of a device graph (copied on the
    /// first call; of a device graph's properties and algorithms only apsp and closure past the
    /// device's memory ask for it, graph.hpp).
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
            if constexpr (on_device) {
                // Each entry looks its mirror up on the device (cuda/graph_scans.hpp).
                if constexpr (detail::graph_device_scan_type<T>) {
                    auto const s = cuda::symmetry<T, Index>(a_, default_context());
                    return std::pair<bool, bool>(s.structure, s.values);
                } else {
                    throw invalid_argument(
                        "graph: a device graph's symmetry is checked for float, double, int32, "
                        "int64 and bool values only");
                    return std::pair<bool, bool>();
                }
            } else {
                // The CSR of A' has the same arrays as A exactly when A is symmetric.
                host_matrix const t = cpu::transpose_csr(a_);
                bool const structure =
                    std::equal(a_.row_ptr(), a_.row_ptr() + a_.rows() + 1, t.row_ptr()) &&
                    std::equal(a_.col_idx(), a_.col_idx() + a_.nnz(), t.col_idx());
                bool values = structure;
                for (std::size_t k = 0; values && k < a_.nnz(); ++k)
                    values = a_.value(k) == t.value(k);
                return std::pair<bool, bool>(structure, values);
            }
        });
    }

    /// weights() of a device graph: the device pass and what the host computes from it.
    graph_weights<T> device_weights() const {
        graph_weights<T> w;
        if constexpr (detail::graph_device_scan_type<T>) {
            auto const p = cuda::scan_weights<T, Index>(a_, default_context());
            w.empty = p.empty;
            if (!w.empty) {
                w.min = a_.has_values() ? p.min : a_.iso_value();
                w.max = a_.has_values() ? p.max : a_.iso_value();
                if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
                    w.negative = w.min < T(0);
            }
            if constexpr (!std::is_same_v<T, bool>) {
                auto [summary, scan] = detail::weights_of_pass(a_, p);
                w.summary = summary;
                w.scan = scan;
            }
        } else {
            throw invalid_argument(
                "graph: a device graph's weights are read for float, double, int32, int64 and "
                "bool values only");
        }
        return w;
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

}  // namespace kleene

#pragma once
// The matrix algorithms on a kleene::graph (graph_object.hpp: the graph and its cached
// properties; this header includes it).
//
// The overloads run the matrix algorithms (bfs, sssp, apsp, closure, predecessors,
// connected_components, pagerank, triangle_count, betweenness) with the graph's cached properties
// in place of what they would otherwise recompute on every call; their explain traces say which
// property was reused ("graph: cached ... reused") and which was computed for this call.

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/graph_object.hpp>
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

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
    pagerank_result r;
    if (gpu) {
        detail::pagerank_into(r, g.matrix(), o, nullptr, device_of);
        return r;
    }
    if constexpr (!G::on_device) {
        csr_matrix<bool, Index> const* at = nullptr;
        if (!o.symmetric)
            at = &detail::graph_use(
                g, graph_property::pattern_transpose,
                opt.explain, [&]() -> auto const& { return g.pattern_transpose(); });
        detail::pagerank_into(r, g.matrix(), o, at);
        return r;
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

/// The closure as CSR or bits, as the model picks (closure_matrix on the host matrix).
template <class T, index_type Index, memory_space Space>
closure_result closure_matrix(graph<T, Index, Space> const& g, closure_options const& opt = {}) {
    return closure_matrix(g.on_host(), opt);
}

/// Predecessors on shortest paths of a graph given its APSP distances (paths.hpp).
template <class T, index_type Index, memory_space Space>
dense_matrix<std::int32_t> predecessors(graph<T, Index, Space> const& g,
                                        std::type_identity_t<dense_view<T const>> dist) {
    return predecessors(g.on_host(), dist);
}

}  // namespace kleene

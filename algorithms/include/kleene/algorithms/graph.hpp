#pragma once
// The matrix algorithms on a kleene::graph (graph_object.hpp: the graph and its cached
// properties; this header includes it).
//
// The overloads run the matrix algorithms (bfs, sssp, apsp, closure, predecessors,
// connected_components, pagerank, triangle_count, betweenness) with the graph's cached properties
// in place of what they would otherwise recompute on every call; their explain traces say which
// property was reused ("graph: cached ... reused") and which was computed for this call.
//
// A device graph runs on the GPU (device=cpu is refused, but by apsp) and reads device data only: the device
// matrix, its pattern and transposes, and the properties computed there (graph_object.hpp); none
// of them copies A to the host. Each has an overload that leaves its result on the device: bfs and
// sssp into bfs_device_result / sssp_device_result, connected_components and pagerank into a
// device vector, apsp into apsp_device_result, closure into a cuda::bit_matrix, predecessors into
// a device matrix. Some cases read A on the host, said in the trace: apsp whose distances do not
// fit the device (out of core from the host), or that the device path does not run (device=cpu,
// Johnson, value types other than fp32, fp64 and int32: the host's APSP, as before the device
// path), and closure with method condensation, a bit matrix past the device or a dense method
// modelled over a second (the condensation's components are found on the host); they take the
// graph's host mirror (on_host(): copied once and kept).

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/cuda/paths.hpp>
#include <kleene/algorithms/graph_object.hpp>
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
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

namespace detail {
/// bfs on a graph into r (bfs_result, or bfs_device_result for a device graph).
template <class R, class T, class Index, class Space>
void graph_bfs(R& r, graph<T, Index, Space> const& g, std::size_t source,
               bfs_options const& opt) {
    using G = graph<T, Index, Space>;
    bfs_options o = opt;
    if constexpr (G::on_device) o.device = graph_device_only(opt.device, "bfs");
    bool const gpu = graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges);
    // A pull step needs A'; A itself serves when the structure is symmetric (cached property).
    bool sym = g.undirected() || opt.symmetric;
    if (!sym && opt.direction != bfs_direction::push)
        sym = graph_use(g, graph_property::symmetry, opt.explain,
                        [&] { return g.symmetric_structure(); });
    o.symmetric = sym;
    auto device_of = [&](bool need_transpose) {
        auto const* ad = &graph_use(g, graph_property::device_pattern, opt.explain,
                                    [&]() -> auto const& { return g.device_pattern(); });
        decltype(ad) atd = nullptr;
        if (need_transpose)
            atd = &graph_use(g, graph_property::device_pattern_transpose, opt.explain,
                             [&]() -> auto const& { return g.device_pattern_transpose(); });
        return std::pair(ad, atd);
    };
    if constexpr (G::on_device) {
        // The checks read the device matrix's shape; the search its kept device patterns.
        (void)plan_bfs(g.matrix(), static_cast<csr_matrix<bool, Index, device> const*>(nullptr),
                       source, o);
        auto const lent = device_of(!sym && o.direction != bfs_direction::push);
        bfs_gpu(r, *lent.first, lent.second, source, o);
    } else {
        static_assert(std::is_same_v<R, bfs_result>, "a host graph's bfs answers on the host");
        csr_matrix<bool, Index> const* at = nullptr;  // null with sym: bfs reads A (o.symmetric)
        if (!sym && opt.direction != bfs_direction::push && !gpu)
            at = &graph_use(g, graph_property::pattern_transpose, opt.explain,
                            [&]() -> auto const& { return g.pattern_transpose(); });
        if (gpu)
            bfs_into(r, g.matrix(), at, source, o, device_of);
        else
            bfs_into(r, g.matrix(), at, source, o);
    }
}

/// sssp on a graph into r (sssp_result, or sssp_device_result for a device graph).
template <class R, class T, class Index, class Space>
void graph_sssp(R& r, graph<T, Index, Space> const& g, std::size_t source,
                sssp_options const& opt) {
    using G = graph<T, Index, Space>;
    sssp_options o = opt;
    if constexpr (G::on_device) o.device = graph_device_only(opt.device, "sssp");
    auto const& w = graph_use(g, graph_property::weights, opt.explain,
                              [&]() -> auto const& { return g.weights(); });
    if constexpr (G::on_device) {
        // The weights' device pass gave the summary and B: nothing of A is read on the host.
        sssp_into(r, g.matrix(), source, o, &w.summary, w.scan ? &*w.scan : nullptr);
    } else {
        static_assert(std::is_same_v<R, sssp_result<T>>, "a host graph's sssp answers on the host");
        bool const gpu = graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges);
        auto device_of = [&] {
            return &graph_use(g, graph_property::device_matrix, opt.explain,
                              [&]() -> auto const& { return g.device_matrix(); });
        };
        if (gpu)
            sssp_into(r, g.matrix(), source, o, &w.summary, device_of);
        else
            sssp_into(r, g.matrix(), source, o, &w.summary);
    }
}
}  // namespace detail

/// BFS on a graph. Pull steps read the kept pattern of A' (or A when the graph is undirected or
/// A's structure is symmetric); on the GPU, the kept device patterns: nothing is copied there
/// after the first GPU call, and a device graph's search reads nothing but them.
template <class T, index_type Index, memory_space Space>
void bfs(bfs_result& r, graph<T, Index, Space> const& g, std::size_t source,
         bfs_options const& opt = {}) {
    detail::graph_bfs(r, g, source, opt);
}

template <class T, index_type Index, memory_space Space>
bfs_result bfs(graph<T, Index, Space> const& g, std::size_t source, bfs_options const& opt = {}) {
    bfs_result r;
    bfs(r, g, source, opt);
    return r;
}

/// BFS on a device graph with the levels (and parents) left in r's device vectors.
template <class T, index_type Index>
void bfs(bfs_device_result& r, graph<T, Index, device> const& g, std::size_t source,
         bfs_options const& opt = {}) {
    detail::graph_bfs(r, g, source, opt);
}

/// SSSP on a graph: the method and delta-stepping's width come from the kept weights (negative
/// weights: Bellman-Ford), the GPU reads the kept device copy of A. A device graph's weights are
/// summarised on the device, and the search, its overflow check and its tight-edge tree (parents)
/// run there.
template <class T, index_type Index, memory_space Space>
void sssp(sssp_result<T>& r, graph<T, Index, Space> const& g, std::size_t source,
          sssp_options const& opt = {}) {
    detail::graph_sssp(r, g, source, opt);
}

template <class T, index_type Index, memory_space Space>
sssp_result<T> sssp(graph<T, Index, Space> const& g, std::size_t source,
                    sssp_options const& opt = {}) {
    sssp_result<T> r;
    sssp(r, g, source, opt);
    return r;
}

/// SSSP on a device graph with the distances (and parents) left in r's device vectors.
template <class T, index_type Index>
void sssp(sssp_device_result<T>& r, graph<T, Index, device> const& g, std::size_t source,
          sssp_options const& opt = {}) {
    detail::graph_sssp(r, g, source, opt);
}

namespace detail {
/// pagerank on a graph; rank: null, or (a device graph) the device vector the ranks are left in.
template <class T, class Index, class Space>
pagerank_result graph_pagerank(graph<T, Index, Space> const& g, pagerank_options const& opt,
                               dense_vector<double, device>* rank) {
    using G = graph<T, Index, Space>;
    pagerank_options o = opt;
    if constexpr (G::on_device) o.device = graph_device_only(opt.device, "pagerank");
    bool const gpu = G::on_device || graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges);
    if (!o.symmetric)
        o.symmetric = g.undirected() || graph_use(g, graph_property::symmetry, opt.explain,
                                                  [&] { return g.symmetric_structure(); });
    auto device_of = [&](bool need_transpose) {
        auto const* ad = &graph_use(g, graph_property::device_pattern, opt.explain,
                                    [&]() -> auto const& { return g.device_pattern(); });
        decltype(ad) atd = nullptr;
        if (need_transpose)
            atd = &graph_use(g, graph_property::device_pattern_transpose, opt.explain,
                             [&]() -> auto const& { return g.device_pattern_transpose(); });
        return std::pair(ad, atd);
    };
    pagerank_result r;
    if (gpu) {
        pagerank_into(r, g.matrix(), o, nullptr, device_of, rank);
        return r;
    }
    if constexpr (!G::on_device) {
        csr_matrix<bool, Index> const* at = nullptr;
        if (!o.symmetric)
            at = &graph_use(g, graph_property::pattern_transpose, opt.explain,
                            [&]() -> auto const& { return g.pattern_transpose(); });
        pagerank_into(r, g.matrix(), o, at);
        return r;
    }
    return {};  // not reached: a device graph runs on the GPU
}

/// connected_components on a graph; component: null, or (a device graph) the device vector the
/// labels are left in.
template <class T, class Index, class Space>
cc_result graph_components(graph<T, Index, Space> const& g, cc_options const& opt,
                           dense_vector<std::int64_t, device>* component) {
    using G = graph<T, Index, Space>;
    cc_options o = opt;
    if (!o.symmetric)
        o.symmetric = g.undirected() || graph_use(g, graph_property::symmetry, opt.explain,
                                                  [&] { return g.symmetric_structure(); });
    if constexpr (G::on_device) {
        cc_result r;
        cc_device_into(r, g.matrix(), o, component);
        return r;
    } else {
        if (graph_wants_gpu(o.device, g.edges(), o.gpu_min_edges)) {
            cuda::require_device();
            return connected_components(
                graph_use(g, graph_property::device_pattern, opt.explain,
                          [&]() -> auto const& { return g.device_pattern(); }),
                o);
        }
        return connected_components(g.matrix(), o);
    }
}

/// A host view's values on the device for one call on ctx (the caller's distances, for the
/// device predecessors): a temporary of ctx's pool, the copy on its stream.
template <class T>
cuda::temporary_matrix<T> on_device(dense_view<T const> d, context& ctx) {
    if (d.ld == d.cols) return cuda::temporary_matrix<T>::copy_of_host(d.data, d.rows, d.cols, ctx);
    dense_matrix<T> packed(d.rows, d.cols);
    for (std::size_t i = 0; i < d.rows; ++i)
        std::copy(d.row(i), d.row(i) + d.cols, packed.data() + i * d.cols);
    return cuda::temporary_matrix<T>::copy_of_host(packed.data(), d.rows, d.cols, ctx);
}
}  // namespace detail

/// PageRank on a graph: the pull reads the kept A' (A when symmetric); on the GPU the kept device
/// patterns.
template <class T, index_type Index, memory_space Space>
pagerank_result pagerank(graph<T, Index, Space> const& g, pagerank_options const& opt = {}) {
    return detail::graph_pagerank(g, opt, nullptr);
}

/// PageRank on a device graph with the ranks left in `rank` (resized to n when it is not; the
/// result's rank vector stays empty).
template <class T, index_type Index>
pagerank_result pagerank(dense_vector<double, device>& rank, graph<T, Index, device> const& g,
                         pagerank_options const& opt = {}) {
    return detail::graph_pagerank(g, opt, &rank);
}

/// Connected components (weakly connected for a directed graph whose structure is not
/// symmetric). The symmetry is the kept property; a host graph on the GPU uses its kept device
/// pattern.
template <class T, index_type Index, memory_space Space>
cc_result connected_components(graph<T, Index, Space> const& g, cc_options const& opt = {}) {
    return detail::graph_components(g, opt, nullptr);
}

/// Connected components of a device graph with the labels left in `component` (resized to n when
/// it is not; the result's component vector stays empty).
template <class T, index_type Index>
cc_result connected_components(dense_vector<std::int64_t, device>& component,
                               graph<T, Index, device> const& g, cc_options const& opt = {}) {
    return detail::graph_components(g, opt, &component);
}

/// Triangles of an undirected graph (or a directed one whose structure is symmetric: the kept
/// property replaces triangle_count's own check). A device graph's automatic relabelling rule
/// reads the kept out-degrees (counted on the device), not the row pointers.
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
        std::vector<std::int64_t> const* degree = nullptr;
        if (o.relabel == tc_relabel::automatic && o.device != device_choice::cpu)
            degree = &detail::graph_use(g, graph_property::out_degree, opt.explain,
                                        [&]() -> auto const& { return g.out_degree(); });
        return detail::tc_device(g.matrix(), o, degree);
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
/// GPU uses its kept device pattern. A device graph's scores come back as a host vector (below:
/// the overload that leaves them on the device).
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

/// Betweenness of a device graph with the scores left in `centrality` (resized to n when it is
/// not; normalized on the device when asked): nothing is copied back, the result's centrality
/// stays empty.
template <class T, index_type Index>
bc_result betweenness(dense_vector<double, device>& centrality, graph<T, Index, device> const& g,
                      std::span<std::int64_t const> sources, bc_options const& opt = {}) {
    bc_options o = opt;
    if (!o.symmetric)
        o.symmetric = g.undirected() || detail::graph_use(g, graph_property::symmetry, opt.explain,
                                                          [&] { return g.symmetric_structure(); });
    return betweenness(centrality, g.matrix(), sources, o);
}

template <class T, index_type Index>
bc_result betweenness(dense_vector<double, device>& centrality, graph<T, Index, device> const& g,
                      std::vector<std::int64_t> const& sources, bc_options const& opt = {}) {
    return betweenness(centrality, g, std::span<std::int64_t const>(sources), opt);
}

/// APSP of a graph (dense result on the host); the trace names the kept weights (negative weights
/// rule out Dijkstra-based methods without Johnson's reweighting, which apsp's plan applies). A
/// device graph runs on the GPU from its device CSR, with B from the kept weights (apsp.hpp's
/// device path); only distances that do not fit the device send it out of core from the host,
/// through the graph's host mirror (said in the trace).
template <class T, index_type Index, memory_space Space>
apsp_result<T> apsp(graph<T, Index, Space> const& g, apsp_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    auto const& w = detail::graph_use(
        g, graph_property::weights, opt.explain, [&]() -> auto const& { return g.weights(); });
    if (opt.explain)
        opt.explain->add(std::string("graph: ") +
                         (w.negative ? "negative weights" : "no negative weight"));
    if constexpr (G::on_device) {
        // What the device path does not run goes to the host's APSP on the graph's mirror, as
        // before there was a device path: device=cpu, Johnson, value types the GPU's APSP lacks.
        char const* host_why = opt.device == device_choice::cpu ? "device=cpu"
                               : opt.algorithm == apsp_algorithm::johnson ? "Johnson (CPU only)"
                               : !detail::gpu_apsp_type<T> ? "a value type the GPU's APSP lacks"
                                                           : nullptr;
        if (host_why) {
            if (opt.explain)
                opt.explain->add(std::string("graph: ") + host_why +
                                 ": the host's APSP on the graph's host mirror of A");
            return apsp(detail::graph_use(g, graph_property::host_mirror, opt.explain,
                                          [&]() -> auto const& { return g.on_host(); }),
                        opt);
        }
        apsp_options o = opt;
        o.device = detail::graph_device_only(opt.device, "apsp");
        auto const p =
            detail::plan_apsp_device(g.matrix(), detail::device_weight_bound(g.matrix(),
                                                                             w.scan ? &*w.scan
                                                                                    : nullptr,
                                                                             o.ctx),
                                     o, apsp_cost_model{});
        if (p.fits) return detail::apsp_copied_back(p, g.matrix(), o);
        if (p.algorithm == apsp_algorithm::bellman_ford && !o.predecessors) {
            // The batches stream to the host: only a batch of sources is on the device at once.
            if constexpr (detail::gpu_apsp_type<T>) {
                if (opt.explain)
                    opt.explain->add("graph: the distances do not fit the device: the batches of "
                                     "sources are copied to the host one after the other");
                cuda::bellman_ford_options bo;
                bo.explain = o.explain;
                bo.ctx = o.ctx;
                apsp_result<T> r;
                r.algorithm = apsp_algorithm::bellman_ford;
                r.device = device_choice::gpu;
                r.dist = cuda::apsp_bellman_ford<T, Index>(g.matrix(), bo);
                return r;
            }
        }
        if (opt.explain)
            opt.explain->add("graph: the distances do not fit the device: out of core from the "
                             "host, on the graph's host mirror of A");
        return apsp(detail::graph_use(g, graph_property::host_mirror, opt.explain,
                                      [&]() -> auto const& { return g.on_host(); }),
                    o);
    } else {
        return apsp(g.matrix(), opt);
    }
}

/// APSP of a device graph with the distances (and predecessors) left in r's device matrices:
/// out_of_memory when they do not fit the device.
template <class T, index_type Index>
void apsp(apsp_device_result<T>& r, graph<T, Index, device> const& g,
          apsp_options const& opt = {}) {
    auto const& w = detail::graph_use(
        g, graph_property::weights, opt.explain, [&]() -> auto const& { return g.weights(); });
    apsp_options o = opt;
    o.device = detail::graph_device_only(opt.device, "apsp");
    auto const p = detail::plan_apsp_device(
        g.matrix(), detail::device_weight_bound(g.matrix(), w.scan ? &*w.scan : nullptr, o.ctx), o,
        apsp_cost_model{});
    r.algorithm = p.algorithm;
    if (!o.predecessors) r.pred = {};
    detail::apsp_on_device(p, g.matrix(), o, r.dist, o.predecessors ? &r.pred : nullptr);
}

/// The closure as CSR or bits, as the model picks (closure_matrix). A device graph runs the dense
/// method on the GPU from its kept pattern, packed into bits there (closure.hpp); with method
/// condensation, or a bit matrix past the device, it runs on the graph's host mirror of A (said
/// in the trace).
template <class T, index_type Index, memory_space Space>
closure_result closure_matrix(graph<T, Index, Space> const& g, closure_options const& opt = {}) {
    using G = graph<T, Index, Space>;
    if constexpr (G::on_device) {
        closure_options o = opt;
        o.device = detail::graph_device_only(opt.device, "closure");
        // The dense method's O(n^3 / 64) at the model's rate: past a second the host's model
        // weighs it against the condensation (which needs the components, found on the host).
        double const nd = double(g.vertices());
        bool const dense_cheap = o.method == closure_method::dense ||
                                 nd * nd * nd / 64 / detail::closure_gpu_words_per_s <= 1.0;
        if (o.method != closure_method::condensation && dense_cheap &&
            detail::closure_bits_fit_device(g.vertices(), o))
            return detail::closure_matrix_on_device(
                detail::graph_use(g, graph_property::pattern, opt.explain,
                                  [&]() -> auto const& { return g.pattern(); }),
                o, true);
        if (opt.explain)
            opt.explain->add(std::string("graph: ") +
                             (o.method == closure_method::condensation
                                  ? "the condensation finds its components on the host"
                              : !dense_cheap
                                  ? "the dense method would take over a second at the model's "
                                    "rate; the host's model weighs it against the condensation"
                                  : "the bit matrix does not fit the device") +
                             ": on the graph's host mirror of A");
        return closure_matrix(detail::graph_use(g, graph_property::host_mirror, opt.explain,
                                                [&]() -> auto const& { return g.on_host(); }),
                              o);
    } else {
        return closure_matrix(g.matrix(), opt);
    }
}

/// Transitive closure of a graph's structure as a pattern CSR matrix (closure_matrix, output
/// pinned to CSR).
template <class T, index_type Index, memory_space Space>
csr_matrix<bool, std::int64_t> closure(graph<T, Index, Space> const& g,
                                       closure_options const& opt = {}) {
    closure_options o = opt;
    o.output_format = output_choice::csr;
    return closure_matrix(g, o).csr;
}

/// The closure of a device graph left on the device as bits (bit_matrix's layout): the dense
/// method from the kept pattern; out_of_memory when the bits do not fit the device.
template <class T, index_type Index>
void closure(cuda::bit_matrix& out, graph<T, Index, device> const& g,
             closure_options const& opt = {}) {
    closure_options o = opt;
    o.device = detail::graph_device_only(opt.device, "closure");
    out = detail::closure_bits_on_device(
        detail::graph_use(g, graph_property::pattern, opt.explain,
                          [&]() -> auto const& { return g.pattern(); }),
        o);
}

namespace detail {
/// The device predecessors of g from device distances into pred (both n x n), on ctx's stream.
template <class T, index_type Index>
void predecessors_into(dense_view<std::int32_t, device> pred, graph<T, Index, device> const& g,
                       dense_view<T const, device> dist, context& ctx) {
    if constexpr (gpu_apsp_type<T>) {
        if constexpr (std::is_same_v<Index, std::int32_t>)
            cuda::predecessors<T>(g.matrix(), dist, pred, ctx);
        else
            cuda::predecessors<T>(cuda::narrow_indices<T>(g.matrix(), ctx), dist, pred, ctx);
    }
}

/// What the device predecessors refuse: distances of the wrong shape, a type the GPU does not
/// run, graphs past 32-bit indices.
template <class T, index_type Index>
void require_device_predecessors(graph<T, Index, device> const& g, std::size_t rows,
                                 std::size_t cols) {
    std::size_t const n = g.vertices();
    if (rows != n || cols != n)
        throw dimension_mismatch("predecessors: distances are " + detail::shape(rows, cols) +
                                 " for a " + std::to_string(n) + "-vertex graph");
    if constexpr (!gpu_apsp_type<T>)
        throw invalid_argument("predecessors: the GPU runs fp32, fp64 and int32 distances only");
    cuda::require_device();
    if (n > std::size_t(std::numeric_limits<std::int32_t>::max()) ||
        g.edges() > std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw invalid_argument("predecessors: on the device, graphs of fewer than 2^31 "
                               "vertices and edges");
}
}  // namespace detail

/// Predecessors on shortest paths of a graph given its APSP distances (paths.hpp). A device
/// graph's run on the GPU (cuda/paths.hpp) from its device CSR, on the calling thread's default
/// context's stream; the caller's host distances go to the device and the predecessors come back,
/// both through temporaries of the context's pool.
template <class T, index_type Index, memory_space Space>
dense_matrix<std::int32_t> predecessors(graph<T, Index, Space> const& g,
                                        std::type_identity_t<dense_view<T const>> dist) {
    using G = graph<T, Index, Space>;
    if constexpr (G::on_device) {
        detail::require_device_predecessors(g, dist.rows, dist.cols);
        std::size_t const n = g.vertices();
        context& ctx = default_context();
        dense_matrix<std::int32_t> out(n, n);
        {
            auto const d = detail::on_device(dist, ctx);
            cuda::temporary_matrix<std::int32_t> const pred(n, n, ctx);
            detail::predecessors_into(pred.view(), g, dense_view<T const, device>(d.view()), ctx);
            cuda::copy_result_to_host(out.data(), pred.data(), n * n * sizeof(std::int32_t), ctx);
        }
        cuda::return_temporaries(ctx);
        return out;
    } else {
        return predecessors(g.matrix(), dist);
    }
}

/// The same on a device graph with device distances, the predecessors left in `pred` (n x n,
/// reallocated when it is not).
template <class T, index_type Index>
void predecessors(dense_matrix<std::int32_t, device>& pred, graph<T, Index, device> const& g,
                  std::type_identity_t<dense_view<T const, device>> dist) {
    detail::require_device_predecessors(g, dist.rows, dist.cols);
    std::size_t const n = g.vertices();
    if (pred.rows() != n || pred.cols() != n) pred = dense_matrix<std::int32_t, device>(n, n);
    detail::predecessors_into(pred.view(), g, dist, default_context());
}

}  // namespace kleene

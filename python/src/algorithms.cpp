// The graph algorithms: bfs, sssp, apsp, closure, path, connected components, pagerank, triangle
// count, betweenness. Each takes a host CSR matrix (the Python layer converts the rest), runs
// without the GIL, and returns NumPy arrays that own the result vectors (no copy). bfs, sssp
// (Bellman-Ford) and apsp (CPU R-Kleene / Floyd-Warshall) poll for Ctrl-C between their steps.

#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/centrality.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/components.hpp>
#include <kleene/algorithms/pagerank.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <optional>
#include <span>

#include "kleene_py.hpp"

namespace kleene::python {

namespace {

template <class M>
using value_of = typename M::value_type;

/// Calls f(a) with the host CSR matrix m holds; anything else is refused.
template <class F>
auto with_csr(matrix_handle const& m, char const* what, F&& f) {
    using R = decltype(f(std::declval<host_csr<float, i32> const&>()));
    return m.visit([&](auto const& a) -> R {
        using M = std::decay_t<decltype(a)>;
        if constexpr (is_host_csr<M>)
            return f(a);
        else
            throw invalid_argument(std::string(what) +
                                   ": needs a host CSR matrix (kleene.Matrix converts SciPy and "
                                   "NumPy input; call to_host() on a device matrix)");
    });
}

py::object trace_of(bool explain, explain_trace const& t) {
    return explain ? py::object(py::str(t.str())) : py::object(py::none());
}

bfs_direction parse_direction(std::string_view d) {
    return parse_choice<bfs_direction>(d, "direction",
                                       {{"auto", bfs_direction::automatic},
                                        {"push", bfs_direction::push},
                                        {"pull", bfs_direction::pull}});
}

py::tuple bfs_py(matrix_handle const& m, std::size_t source, bool levels, bool parents,
                 std::string const& direction, std::string const& device, bool symmetric,
                 std::optional<matrix_handle> const& transpose, bool explain) {
    explain_trace trace;
    bfs_options o;
    o.levels = levels;
    o.parents = parents;
    o.direction = parse_direction(direction);
    o.device = parse_device(device);
    o.symmetric = symmetric;
    if (explain) o.explain = &trace;
    o.on_step = interrupt_hook();
    bfs_result r = with_csr(m, "bfs", [&](auto const& a) {
        using M = std::decay_t<decltype(a)>;
        // A' given: pull steps read it instead of transposing A on every call.
        M const* at = transpose ? std::get_if<M>(transpose->s.get()) : nullptr;
        if (transpose && !at)
            throw invalid_argument(
                "bfs: the transpose must be a host CSR matrix of A's dtype and "
                "index dtype");
        py::gil_scoped_release release;
        return at ? kleene::bfs(a, *at, source, o) : kleene::bfs(a, source, o);
    });
    py::object lv = levels ? py::object(adopt_vector(std::move(r.level))) : py::object(py::none());
    py::object pa =
        parents ? py::object(adopt_vector(std::move(r.parent))) : py::object(py::none());
    return py::make_tuple(lv, pa, trace_of(explain, trace));
}

sssp_method parse_sssp_method(std::string_view s) {
    return parse_choice<sssp_method>(s, "method",
                                     {{"auto", sssp_method::automatic},
                                      {"bellman-ford", sssp_method::bellman_ford},
                                      {"delta-stepping", sssp_method::delta_stepping},
                                      {"async", sssp_method::async}});
}

py::tuple sssp_py(matrix_handle const& m, std::size_t source, bool parents,
                  std::string const& method, double delta, std::string const& device,
                  bool explain) {
    explain_trace trace;
    sssp_options o;
    o.parents = parents;
    o.method = parse_sssp_method(method);
    o.delta = delta;
    o.device = parse_device(device);
    if (explain) o.explain = &trace;
    o.on_step = interrupt_hook();
    return with_csr(m, "sssp", [&](auto const& a) -> py::tuple {
        using T = value_of<std::decay_t<decltype(a)>>;
        if constexpr (std::is_same_v<T, bool>) {
            throw invalid_argument(
                "sssp: needs numeric weights, not bool (astype(\"int32\") or use bfs)");
        } else {
            sssp_result<T> r;
            {
                py::gil_scoped_release release;
                kleene::sssp(r, a, source, o);
            }
            py::object pa =
                parents ? py::object(adopt_vector(std::move(r.parent))) : py::object(py::none());
            return py::make_tuple(adopt_vector(std::move(r.dist)), pa, trace_of(explain, trace));
        }
    });
}

apsp_algorithm parse_apsp_algorithm(std::string_view s) {
    return parse_choice<apsp_algorithm>(s, "algorithm",
                                        {{"auto", apsp_algorithm::automatic},
                                         {"rkleene", apsp_algorithm::rkleene},
                                         {"blocked-fw", apsp_algorithm::blocked_fw},
                                         {"fw", apsp_algorithm::fw},
                                         {"johnson", apsp_algorithm::johnson},
                                         {"bellman-ford", apsp_algorithm::bellman_ford}});
}

py::tuple apsp_py(matrix_handle const& m, std::string const& algorithm, std::string const& device,
                  bool predecessors, std::size_t max_device_bytes, bool explain) {
    explain_trace trace;
    apsp_options o;
    o.algorithm = parse_apsp_algorithm(algorithm);
    o.device = parse_device(device);
    o.predecessors = predecessors;
    o.max_device_bytes = max_device_bytes;
    if (explain) o.explain = &trace;
    o.on_step = interrupt_hook();
    return with_csr(m, "apsp", [&](auto const& a) -> py::tuple {
        using T = value_of<std::decay_t<decltype(a)>>;
        if constexpr (std::is_same_v<T, bool>) {
            throw invalid_argument(
                "apsp: needs numeric weights, not bool (astype(\"int32\"), or closure())");
        } else {
            apsp_result<T> r;
            {
                py::gil_scoped_release release;
                r = kleene::apsp(a, o);
            }
            py::object pred =
                predecessors ? py::object(adopt_dense(std::move(r.pred))) : py::object(py::none());
            return py::make_tuple(
                adopt_dense(std::move(r.dist)), pred, std::string(to_string(r.algorithm)),
                r.device == device_choice::gpu ? "gpu" : "cpu", trace_of(explain, trace));
        }
    });
}

py::tuple closure_py(matrix_handle const& m, bool reflexive, std::string const& device,
                     bool explain) {
    explain_trace trace;
    closure_options o;
    o.reflexive = reflexive;
    o.device = parse_device(device);
    if (explain) o.explain = &trace;
    auto c = with_csr(m, "closure", [&](auto const& a) {
        py::gil_scoped_release release;
        return kleene::closure(a, o);
    });
    return py::make_tuple(matrix_handle::of(std::move(c)), trace_of(explain, trace));
}

py::array path_py(py::array_t<i32, py::array::c_style | py::array::forcecast> pred,
                  std::size_t from, std::size_t to) {
    if (pred.ndim() != 2 || pred.shape(0) != pred.shape(1))
        throw invalid_argument("path: the predecessors must be a square matrix");
    auto const n = static_cast<std::size_t>(pred.shape(0));
    dense_view<i32 const> v{pred.data(), n, n, n};
    return adopt_vector(kleene::path(v, from, to));
}

py::tuple components_py(matrix_handle const& m, std::string const& method,
                        std::string const& device, bool symmetric, bool explain) {
    explain_trace trace;
    cc_options o;
    o.method = parse_choice<cc_method>(method, "method",
                                       {{"auto", cc_method::automatic},
                                        {"afforest", cc_method::afforest},
                                        {"fastsv", cc_method::fastsv}});
    o.device = parse_device(device);
    o.symmetric = symmetric;
    if (explain) o.explain = &trace;
    cc_result r = with_csr(m, "connected_components", [&](auto const& a) {
        py::gil_scoped_release release;
        return kleene::connected_components(a, o);
    });
    return py::make_tuple(r.count, adopt_vector(std::move(r.component)), trace_of(explain, trace));
}

py::tuple pagerank_py(matrix_handle const& m, double damping, double tolerance, int max_iterations,
                      std::string const& dangling, std::string const& method,
                      std::string const& contributions, double relaxation,
                      std::string const& device, bool symmetric, bool explain) {
    explain_trace trace;
    pagerank_options o;
    o.relaxation = relaxation;
    o.contributions = parse_choice<pagerank_contributions>(
        contributions, "contributions",
        {{"auto", pagerank_contributions::automatic},
         {"double", pagerank_contributions::as_double},
         {"float", pagerank_contributions::as_float}});
    o.damping = damping;
    o.tolerance = tolerance;
    o.max_iterations = max_iterations;
    o.dangling = parse_choice<pagerank_dangling>(
        dangling, "dangling",
        {{"gap", pagerank_dangling::gap}, {"redistribute", pagerank_dangling::redistribute}});
    o.method = parse_choice<pagerank_method>(method, "method",
                                             {{"auto", pagerank_method::automatic},
                                              {"fused", pagerank_method::fused},
                                              {"gauss-seidel", pagerank_method::gauss_seidel},
                                              {"semiring", pagerank_method::semiring}});
    o.device = parse_device(device);
    o.symmetric = symmetric;
    if (explain) o.explain = &trace;
    pagerank_result r = with_csr(m, "pagerank", [&](auto const& a) {
        py::gil_scoped_release release;
        return kleene::pagerank(a, o);
    });
    return py::make_tuple(adopt_vector(std::move(r.rank)), r.iterations, r.converged,
                          trace_of(explain, trace));
}

py::tuple triangles_py(matrix_handle const& m, std::string const& method, std::string const& device,
                       bool explain) {
    explain_trace trace;
    tc_options o;
    o.method = parse_choice<tc_method>(
        method, "method",
        {{"auto", tc_method::automatic}, {"fused", tc_method::fused}, {"mxm", tc_method::mxm}});
    o.device = parse_device(device);
    if (explain) o.explain = &trace;
    tc_result r = with_csr(m, "triangle_count", [&](auto const& a) {
        py::gil_scoped_release release;
        return kleene::triangle_count(a, o);
    });
    return py::make_tuple(r.triangles, trace_of(explain, trace));
}

py::tuple betweenness_py(matrix_handle const& m, std::vector<std::int64_t> sources, bool normalize,
                         std::string const& method, std::string const& device, bool symmetric,
                         bool explain) {
    explain_trace trace;
    bc_options o;
    o.method = parse_choice<bc_method>(method, "method",
                                       {{"auto", bc_method::automatic},
                                        {"direct", bc_method::direct},
                                        {"semiring", bc_method::semiring}});
    o.normalize = normalize;
    o.device = parse_device(device);
    o.symmetric = symmetric;
    if (explain) o.explain = &trace;
    bc_result r = with_csr(m, "betweenness", [&](auto const& a) {
        py::gil_scoped_release release;
        return kleene::betweenness(a, sources, o);
    });
    return py::make_tuple(adopt_vector(std::move(r.centrality)), trace_of(explain, trace));
}

}  // namespace

void bind_algorithms(py::module_& m) {
    m.def("_bfs", &bfs_py, py::arg("a"), py::arg("source"), py::arg("levels"), py::arg("parents"),
          py::arg("direction"), py::arg("device"), py::arg("symmetric"), py::arg("transpose"),
          py::arg("explain"));
    m.def("_sssp", &sssp_py, py::arg("a"), py::arg("source"), py::arg("parents"), py::arg("method"),
          py::arg("delta"), py::arg("device"), py::arg("explain"));
    m.def("_apsp", &apsp_py, py::arg("a"), py::arg("algorithm"), py::arg("device"),
          py::arg("predecessors"), py::arg("max_device_bytes"), py::arg("explain"));
    m.def("_closure", &closure_py, py::arg("a"), py::arg("reflexive"), py::arg("device"),
          py::arg("explain"));
    m.def("_path", &path_py, py::arg("pred"), py::arg("source"), py::arg("target"));
    m.def("_connected_components", &components_py, py::arg("a"), py::arg("method"),
          py::arg("device"), py::arg("symmetric"), py::arg("explain"));
    m.def("_pagerank", &pagerank_py, py::arg("a"), py::arg("damping"), py::arg("tolerance"),
          py::arg("max_iterations"), py::arg("dangling"), py::arg("method"),
          py::arg("contributions"), py::arg("relaxation"), py::arg("device"),
          py::arg("symmetric"), py::arg("explain"));
    m.def("_triangle_count", &triangles_py, py::arg("a"), py::arg("method"), py::arg("device"),
          py::arg("explain"));
    m.def("_betweenness", &betweenness_py, py::arg("a"), py::arg("sources"), py::arg("normalize"),
          py::arg("method"), py::arg("device"), py::arg("symmetric"), py::arg("explain"));
}

}  // namespace kleene::python

#pragma once
// All-pairs shortest paths: apsp(A, options) picks the algorithm and the device with a small cost
// model (constants fitted to measurements, docs/lab/performance-history.md), says why in the
// explain trace, and lets the caller pin both. Distances are min_plus closures A* (0 on the
// diagonal); unreachable pairs hold infinity<T>(). A negative cycle raises kleene::negative_cycle
// naming a vertex whose distance to itself came out negative (Johnson: a vertex on the cycle).
// On the GPU, a matrix that does not fit the device (or a cap: max_device_bytes,
// KLEENE_MAX_DEVICE_BYTES) runs out of core, blocked in pinned host memory
// (apsp_out_of_core.hpp); the explain trace says which and why. A device matrix (a device
// graph's) runs on the GPU in its memory: its dense start is made there from the device CSR, and
// the distances are copied back or left there (apsp_device_result).

#include <kleene/algorithms/apsp_out_of_core.hpp>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/cuda/apsp_batched.hpp>
#include <kleene/algorithms/cuda/paths.hpp>
#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/algorithms/johnson.hpp>
#include <kleene/algorithms/path_weights.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <kleene/algorithms/sssp.hpp>
#include <kleene/convert.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/host_copy.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene {

/// bellman_ford: batched multi-source Bellman-Ford on the GPU (cuda/apsp_batched.hpp), for
/// sparse graphs.
enum class apsp_algorithm { automatic, rkleene, blocked_fw, fw, johnson, bellman_ford };

inline std::string_view to_string(apsp_algorithm a) {
    switch (a) {
        case apsp_algorithm::automatic: return "auto";
        case apsp_algorithm::rkleene: return "rkleene";
        case apsp_algorithm::blocked_fw: return "blocked-fw";
        case apsp_algorithm::fw: return "fw";
        case apsp_algorithm::johnson: return "johnson";
        case apsp_algorithm::bellman_ford: return "bellman-ford";
    }
    return "unknown";
}

struct apsp_options {
    apsp_algorithm algorithm = apsp_algorithm::automatic;
    device_choice device = device_choice::automatic;
    /// Also return the predecessor matrix (paths.hpp), rebuilt from the distances: on the GPU
    /// when the distances are computed in core there (cuda/paths.hpp), else on the host.
    bool predecessors = false;
    /// Device bytes the GPU path may use (0: the context's tune.max_device_bytes, which
    /// KLEENE_MAX_DEVICE_BYTES sets through context_from_environment; 0 there too: no cap). Past
    /// it, or past free device
    /// memory, the GPU runs out of core.
    std::size_t max_device_bytes = 0;
    explain_trace* explain = nullptr;
    /// OpenMP threads, GEMM and out-of-core tuning, and the device cap when max_device_bytes is
    /// 0 (tuning::max_device_bytes); null: default_context().
    context* ctx = nullptr;
    /// CPU R-Kleene, Floyd-Warshall and Johnson call it between steps (options.hpp); it may
    /// throw.
    step_hook on_step{};
};

template <class T>
struct apsp_result {
    dense_matrix<T> dist;
    /// pred(i,j): the vertex before j on a shortest i -> j path, -1 when none; empty unless asked.
    dense_matrix<std::int32_t> pred;
    apsp_algorithm algorithm = apsp_algorithm::automatic;
    device_choice device = device_choice::cpu;
};

/// Cost model constants, fitted to kernel and whole-call measurements (bench_apsp_gpu,
/// bench_apsp_sparse; the runs: docs/lab/performance-history.md, "APSP and closure").
struct apsp_cost_model {
    double gpu_updates_per_s_fp32 = 14.0e12;  ///< R-Kleene on the GPU at n = 16384 (kernels)
    double gpu_updates_per_s_int32 = 14.2e12;
    double gpu_updates_per_s_fp64 = 2.2e12;
    double gpu_fixed_s = 8e-3;                ///< context, allocation, launches of the recursion
    /// Per byte of the matrix each way: the dense start on the host and the copies there and back
    /// through the page-locked host matrix (whole calls of bench_apsp_sparse against their
    /// kernel times).
    double gpu_copy_bytes_per_s = 12e9;
    double cpu_updates_per_s_per_thread = 1.2e10;  ///< CPU R-Kleene (GEMM) fp32 / int32; fp64 half
    double johnson_s_per_edge = 4e-9;  ///< Dijkstra relax + heap, per edge per source (bench_apsp_sparse)
    double gpu_out_of_core_efficiency = 0.8;  ///< out-of-core rate / in-core kernels (0.55-0.95)
    double host_pin_bytes_per_s = 25e9;        ///< cudaHostRegister of the host matrix
    /// GPU batched Bellman-Ford, whole calls (bench_apsp_sparse, random graphs of degree 4-256):
    /// a cost an entry of the n x n result plus one a (source, edge) pair. R-Kleene's model is
    /// the lower on all but the sparsest graphs (docs/performance.md, "APSP and transitive
    /// closure in core").
    double gpu_bf_s_per_entry = 3.8e-9;
    double gpu_bf_s_per_source_edge = 4e-12;
};

namespace detail {
template <class T>
constexpr bool gpu_apsp_type =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t>;

inline std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g s", s);
    return buf;
}

/// The dense start of the dense algorithms: absent entries +inf, the diagonal min(a(i,i), 0).
/// Rows in parallel (first touch spreads the pages; n = 150000 is 90 GB), and a kleene::error
/// instead of a failed allocation.
template <class T, index_type Index>
dense_matrix<T> apsp_start(csr_matrix<T, Index> const& a) {
    std::size_t const n = a.rows();
    dense_matrix<T> d;
    try {
        d = dense_matrix<T>(n, n);
    } catch (std::bad_alloc const&) {
        throw error("apsp: allocating the " + shape(n, n) + " distance matrix (" +
                    gib(double(n) * double(n) * sizeof(T)) + ") failed");
    }
#pragma omp parallel for schedule(static) if (n >= 1024)
    for (std::size_t i = 0; i < n; ++i) {
        T* row = d.data() + i * n;
        std::fill(row, row + n, infinity<T>());
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            row[a.col_idx()[k]] = a.value(k);
        row[i] = std::min(row[i], T(0));
    }
    return d;
}

/// a on the device with 32-bit indices (what cuda::predecessors takes), for one call on ctx: its
/// arrays are temporaries of ctx's pool, copied on ctx's stream; a's entries must fit them.
template <class T, index_type Index>
csr_matrix<T, std::int32_t, device> int32_graph_on_device(csr_matrix<T, Index> const& a,
                                                          context& ctx) {
    buffer<T, device> val = a.has_values() ? cuda::temporary_copy_of_host(a.values(), a.nnz(), ctx)
                                           : buffer<T, device>{};
    if constexpr (std::is_same_v<Index, std::int32_t>) {
        return csr_matrix<T, std::int32_t, device>(
            a.rows(), a.cols(), cuda::temporary_copy_of_host(a.row_ptr(), a.rows() + 1, ctx),
            cuda::temporary_copy_of_host(a.col_idx(), a.nnz(), ctx), std::move(val), a.iso_value(),
            true);
    } else {
        std::vector<std::int32_t> ptr(a.rows() + 1), col(a.nnz());
        for (std::size_t i = 0; i <= a.rows(); ++i) ptr[i] = static_cast<std::int32_t>(a.row_ptr()[i]);
        for (std::size_t k = 0; k < a.nnz(); ++k) col[k] = static_cast<std::int32_t>(a.col_idx()[k]);
        return csr_matrix<T, std::int32_t, device>(
            a.rows(), a.cols(), cuda::temporary_copy_of_host(ptr.data(), ptr.size(), ctx),
            cuda::temporary_copy_of_host(col.data(), col.size(), ctx), std::move(val),
            a.iso_value(), true);
    }
}

template <class T>
std::int64_t first_negative_diagonal(dense_matrix<T> const& d) {
    for (std::size_t i = 0; i < d.rows(); ++i)
        if (d(i, i) < T(0)) return static_cast<std::int64_t>(i);
    return -1;
}
/// Runs `close(device view)` on a device copy of h and leaves the result in h, copied by `how`
/// (cuda/host_copy.hpp: h itself page-locked for the call, or staged through page-locked buffers).
/// The copy is a temporary of ctx's pool (the calling thread's default context when null), the
/// copies run on ctx's stream, after the work queued there; `close` must enqueue on it too.
template <class T, class F>
void round_trip_on_device(dense_matrix<T>& h, F&& close,
                          cuda::host_transfer how = cuda::host_transfer::page_locked,
                          std::size_t lock_threads = 8, context* ctx = nullptr) {
    context& c = resolve(ctx);
    cuda::host_copy host(h.data(), h.rows(), h.cols() * sizeof(T), how, lock_threads);
    cuda::stream const s = cuda::stream::borrow(c.stream());
    {
        cuda::temporary_matrix<T> const d(h.rows(), h.cols(), c);
        host.to_device(d.data(), s);
        close(d.view());
        host.to_host(d.data(), s);
    }
    cuda::return_temporaries(c);
}

}  // namespace detail

template <class T, index_type Index>
apsp_result<T> apsp(csr_matrix<T, Index> const& a, apsp_options const& opt = {},
                    apsp_cost_model const& model = {});

namespace detail {
/// apsp for weights whose path sums may leave T (int32, fp32): computed in fp64, exact for the
/// integers of int32 paths (below 2^53), then narrowed; a finite distance T cannot hold raises
/// overflow_error naming the pair. Costs twice the memory and the fp64 rate, said in the trace.
template <class T, index_type Index>
apsp_result<T> apsp_widened(csr_matrix<T, Index> const& a, path_weight_bound const& wb,
                            apsp_options const& opt, apsp_cost_model const& model) {
    if (2 * wb.bound >= 0x1p53L)
        throw overflow_error("apsp: " + distance_range_note<T>(wb) +
                             ", and past what fp64 holds exactly");
    if (opt.explain)
        opt.explain->add("apsp: " + distance_range_note<T>(wb) +
                         ": computing in fp64 and narrowing the distances back");
    std::size_t const n = a.rows();
    apsp_result<double> wide = apsp(as_fp64(a), opt, model);
    apsp_result<T> r;
    r.algorithm = wide.algorithm;
    r.device = wide.device;
    r.pred = std::move(wide.pred);
    r.dist = dense_matrix<T>(n, n);
    long double const top = largest_finite_distance<T>();
    std::int64_t first_bad = -1;
#pragma omp parallel for schedule(static) reduction(max : first_bad) if (n >= 1024)
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            double const x = wide.dist(i, j);
            if (x == infinity<double>()) {
                r.dist(i, j) = infinity<T>();
            } else if (std::fabs(static_cast<long double>(x)) > top) {
                first_bad = std::max(first_bad, static_cast<std::int64_t>(i * n + j));
            } else {
                r.dist(i, j) = static_cast<T>(x);
            }
        }
    }
    if (first_bad >= 0) {
        auto const i = static_cast<std::size_t>(first_bad) / n, j = static_cast<std::size_t>(first_bad) % n;
        throw_distance_overflow<T>("apsp", i, j, static_cast<long double>(wide.dist(i, j)));
    }
    return r;
}

/// What apsp() of a host matrix decides before it runs (plan_apsp_host): the device, the
/// algorithm, whether the GPU works out of core, and the device memory it may use.
struct apsp_host_plan {
    bool gpu = false;
    bool out_of_core = false;
    apsp_algorithm algorithm = apsp_algorithm::automatic;
    device_budget budget;
};

/// apsp()'s plan for a host A whose distances fit T: the candidates' estimated times (the cost
/// model), the device and algorithm they pick (or the pinned ones, checked), said in the explain
/// trace. Throws where the options ask for what cannot run (a GPU algorithm without a device, a
/// GPU type it does not have, Johnson on the GPU, Bellman-Ford on the CPU).
template <class T, index_type Index>
apsp_host_plan plan_apsp_host(csr_matrix<T, Index> const& a, apsp_options const& opt,
                              apsp_cost_model const& model) {
    std::size_t const n = a.rows();
    double const nd = static_cast<double>(n);
    double const m = static_cast<double>(a.nnz());
    // Candidates and their estimated times.
    bool const have_gpu = detail::gpu_apsp_type<T> && cuda::device_count() > 0;
    double const bytes = nd * nd * sizeof(T);
    detail::device_budget const budget =
        have_gpu ? detail::gpu_budget(opt.max_device_bytes, opt.ctx) : detail::device_budget{};
    std::size_t const free_mem = budget.free;
    // In core: the matrix, R-Kleene's workspaces (a quarter of it and more) and the GEMMs' packed
    // operands, under the cap and within free memory; otherwise the GPU runs out of core.
    double const in_core_bytes = bytes + double(rkleene_gpu_extra_bytes<T>(n));
    bool const gpu_fits = have_gpu && in_core_bytes + (64u << 20) < static_cast<double>(free_mem) &&
                          (budget.cap == 0 || in_core_bytes <= static_cast<double>(budget.cap));
    bool const gpu_ooc = have_gpu && !gpu_fits;
    double const gpu_rate = std::is_same_v<T, double> ? model.gpu_updates_per_s_fp64
                            : std::is_same_v<T, float> ? model.gpu_updates_per_s_fp32
                                                       : model.gpu_updates_per_s_int32;
    // Smaller n run at a fraction of the n = 16384 rate: (n / 16384)^0.55 lies between the fp32
    // and int32 fractions measured at 4096 and 8192 (0.33-0.51, 0.68-0.85).
    double const gpu_eff = std::min(1.0, std::pow(nd / 16384.0, 0.55));
    double const t_gpu =
        gpu_fits ? nd * nd * nd / (gpu_rate * gpu_eff) + 2 * bytes / model.gpu_copy_bytes_per_s +
                       model.gpu_fixed_s
                 : nd * nd * nd / (gpu_rate * gpu_eff * model.gpu_out_of_core_efficiency) +
                       bytes / model.host_pin_bytes_per_s + model.gpu_fixed_s;
    double const threads = static_cast<double>(cpu::max_threads());
    double const cpu_rate = model.cpu_updates_per_s_per_thread * threads *
                            (sizeof(T) == 8 ? 0.5 : 1.0);
    double const t_cpu = nd * nd * nd / cpu_rate;
    double const t_johnson =
        nd * (m + nd) * std::log2(nd + 2) * model.johnson_s_per_edge / threads;
    double const t_bf = nd * nd * model.gpu_bf_s_per_entry +
                        nd * m * model.gpu_bf_s_per_source_edge + model.gpu_fixed_s;
    // The GPU's best: Bellman-Ford where the model prefers it (sparse graphs) or it is pinned.
    bool const auto_alg = opt.algorithm == apsp_algorithm::automatic;
    double const t_gpu_best = opt.algorithm == apsp_algorithm::bellman_ford ? t_bf
                              : auto_alg                                    ? std::min(t_gpu, t_bf)
                                                                            : t_gpu;

    // Device.
    bool gpu;
    if (opt.device == device_choice::gpu) {
        if (!detail::gpu_apsp_type<T>)
            throw invalid_argument("apsp: the GPU runs fp32, fp64 and int32 only");
        cuda::require_device();
        if (opt.algorithm == apsp_algorithm::johnson)
            throw invalid_argument("apsp: Johnson's algorithm runs on the CPU only");
        gpu = true;
    } else if (opt.device == device_choice::cpu) {
        if (opt.algorithm == apsp_algorithm::bellman_ford)
            throw invalid_argument(
                "apsp: the batched Bellman-Ford runs on the GPU only (johnson is the CPU's "
                "algorithm for sparse graphs)");
        gpu = false;
    } else if (opt.algorithm == apsp_algorithm::bellman_ford) {
        cuda::require_device();
        if (!detail::gpu_apsp_type<T>)
            throw invalid_argument("apsp: the GPU runs fp32, fp64 and int32 only");
        gpu = true;
    } else {
        gpu = (gpu_fits || gpu_ooc) && opt.algorithm != apsp_algorithm::johnson &&
              t_gpu_best < std::min(t_cpu, auto_alg ? t_johnson : 1e300);
    }
    // Algorithm.
    apsp_algorithm alg = opt.algorithm;
    if (alg == apsp_algorithm::automatic) {
        if (gpu) alg = t_bf < t_gpu ? apsp_algorithm::bellman_ford : apsp_algorithm::rkleene;
        else alg = t_johnson < t_cpu ? apsp_algorithm::johnson : apsp_algorithm::rkleene;
    }
    // The dense algorithms go out of core where the matrix does not fit; Bellman-Ford keeps only
    // a block of sources on the device.
    bool const out_of_core = gpu && !gpu_fits && alg != apsp_algorithm::bellman_ford;
    if (opt.explain) {
        opt.explain->add("apsp: n=" + std::to_string(n) + ", nnz=" + std::to_string(a.nnz()) +
                         ", density=" + std::to_string(n ? m / (nd * nd) : 0.0) +
                         ", value bytes=" + std::to_string(sizeof(T)) +
                         ", free device memory=" + std::to_string(free_mem >> 20) + " MiB");
        if (have_gpu)
            opt.explain->add(
                "apsp: gpu memory: the matrix needs " + detail::mib(bytes) + " (+25% R-Kleene " +
                "workspace) in core; " + budget.str() +
                (gpu_fits ? ": fits in core"
                          : ": does not fit, the GPU path runs out of core (R-Kleene or blocked "
                            "Floyd-Warshall, streaming blocks from pinned host memory)"));
        opt.explain->add("apsp: estimates: " +
                         std::string(gpu_ooc ? "out-of-core/gpu " : "rkleene/gpu ") +
                         (have_gpu ? detail::seconds(t_gpu) : std::string("n/a")) +
                         ", bellman-ford/gpu " +
                         (have_gpu ? detail::seconds(t_bf) : std::string("n/a")) +
                         ", rkleene/cpu " + detail::seconds(t_cpu) + ", johnson/cpu " +
                         detail::seconds(t_johnson));
        opt.explain->add("apsp: chose " +
                         (out_of_core ? std::string("out of core on gpu")
                                      : std::string(to_string(alg)) + " on " +
                                            (gpu ? "gpu" : "cpu")) +
                         (opt.algorithm == apsp_algorithm::automatic &&
                                  opt.device == device_choice::automatic
                              ? " (cost model)"
                              : " (pinned)"));
    }

    apsp_host_plan p;
    p.gpu = gpu;
    p.out_of_core = out_of_core;
    p.algorithm = alg;
    p.budget = budget;
    return p;
}

/// The planned APSP of a host A (plan_apsp_host): distances, and predecessors when asked for.
template <class T, index_type Index>
apsp_result<T> apsp_run(apsp_host_plan const& p, csr_matrix<T, Index> const& a,
                        apsp_options const& opt) {
    std::size_t const n = a.rows();
    bool const gpu = p.gpu, out_of_core = p.out_of_core;
    apsp_algorithm const alg = p.algorithm;
    auto const& budget = p.budget;
    apsp_result<T> r;
    r.algorithm = alg;
    r.device = gpu ? device_choice::gpu : device_choice::cpu;
    if (alg == apsp_algorithm::johnson) {
        r.dist = johnson(a, opt.on_step);
    } else if (alg == apsp_algorithm::bellman_ford) {
        if constexpr (detail::gpu_apsp_type<T>) {
            cuda::bellman_ford_options o;
            o.explain = opt.explain;
            o.ctx = opt.ctx;
            r.dist = cuda::apsp_bellman_ford(a, o);  // throws negative_cycle itself
        }
    } else {
        r.dist = detail::apsp_start(a);
        std::int64_t neg = -1;
        if (out_of_core) {
            if constexpr (detail::gpu_apsp_type<T>) {
                ooc_options o;
                o.device_bytes = budget.bytes;
                o.explain = opt.explain;
                o.ctx = opt.ctx;
                // A pinned algorithm picks its out-of-core form; automatic: the lower model.
                o.algorithm = opt.algorithm == apsp_algorithm::rkleene ? ooc_algorithm::rkleene
                              : opt.algorithm == apsp_algorithm::automatic
                                  ? ooc_algorithm::automatic
                                  : ooc_algorithm::floyd_warshall;
                ooc_report const rep = apsp_out_of_core(r.dist.view(), o);
                r.algorithm = rep.plan.algorithm == ooc_algorithm::rkleene
                                  ? apsp_algorithm::rkleene
                                  : apsp_algorithm::blocked_fw;
                neg = detail::first_negative_diagonal(r.dist);
            }
        } else if (gpu) {
            if constexpr (detail::gpu_apsp_type<T>) {
                detail::round_trip_on_device(r.dist, [&](dense_view<T, device> d) {
                    if (alg == apsp_algorithm::rkleene)
                        rkleene(d, rkleene_gpu_base, rkleene_gpu_concurrent, opt.ctx);
                    else if (alg == apsp_algorithm::blocked_fw)
                        cuda::floyd_warshall_blocked<T>(d, resolve(opt.ctx));
                    else cuda::floyd_warshall_naive<T>(d, resolve(opt.ctx));
                    neg = cuda::first_negative_diagonal<T>(dense_view<T const, device>(d),
                                                           resolve(opt.ctx));
                    if (neg < 0 && opt.predecessors &&
                        a.nnz() <= std::size_t(std::numeric_limits<std::int32_t>::max())) {
                        // Predecessors on the device from the distances there (cuda/paths.hpp).
                        context& c = resolve(opt.ctx);
                        auto const g = detail::int32_graph_on_device(a, c);
                        cuda::temporary_matrix<std::int32_t> const p(n, n, c);
                        cuda::predecessors<T>(g, dense_view<T const, device>(d), p.view(), c);
                        r.pred = dense_matrix<std::int32_t>(n, n);
                        cuda::copy_result_to_host(r.pred.data(), p.data(),
                                                  n * n * sizeof(std::int32_t), c);
                        if (opt.explain) opt.explain->add("apsp: predecessors on the gpu");
                    }
                }, cuda::host_transfer::page_locked, 8, opt.ctx);
            }
        } else {
            if (alg == apsp_algorithm::rkleene)
                rkleene(r.dist.view(), rkleene_cpu_base, opt.on_step);
            else if (alg == apsp_algorithm::blocked_fw)
                floyd_warshall_blocked(r.dist.view(), 64, opt.on_step);
            else
                floyd_warshall(r.dist.view(), opt.on_step);
            neg = detail::first_negative_diagonal(r.dist);
        }
        if (neg >= 0) throw negative_cycle(neg);
    }
    if (opt.predecessors && r.pred.rows() != n) {
        r.pred = predecessors(a, dense_view<T const>(r.dist.view()));
        if (opt.explain) opt.explain->add("apsp: predecessors on the cpu");
    }
    return r;
}
}  // namespace detail


template <class T, index_type Index>
apsp_result<T> apsp(csr_matrix<T, Index> const& a, apsp_options const& opt,
                    apsp_cost_model const& model) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("apsp: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    detail::thread_scope const omp_scope(opt.ctx);
    std::size_t const n = a.rows();
    double const nd = static_cast<double>(n);
    detail::require_host_memory(("apsp: the " + detail::shape(n, n) + " distance matrix" +
                                 (opt.predecessors ? " and its predecessors" : ""))
                                    .c_str(),
                                nd * nd * double(sizeof(T) + (opt.predecessors ? 4 : 0)));
    // Distances past the type's range: computed wider (int32, fp32) or refused (path_weights.hpp).
    path_weight_bound const wb = weight_bound(a, "apsp");
    if (!distances_fit<T>(wb)) {
        if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>)
            return detail::apsp_widened(a, wb, opt, model);
        else
            throw overflow_error("apsp: " + distance_range_note<T>(wb) +
                                 (std::is_integral_v<T> ? "; use fp64 (inexact past 2^53)" : ""));
    }

    return detail::apsp_run(detail::plan_apsp_host(a, opt, model), a, opt);
}

// ---- a device graph ------------------------------------------------------------------------------

/// APSP's results left on the device (a device graph's, graph.hpp): n x n matrices, reused when
/// they already have that shape.
template <class T>
struct apsp_device_result {
    dense_matrix<T, device> dist;
    dense_matrix<std::int32_t, device> pred;  ///< empty unless predecessors were asked for
    apsp_algorithm algorithm = apsp_algorithm::automatic;
};

namespace detail {

/// What APSP of a device matrix decided (plan_apsp_device).
struct apsp_device_plan {
    apsp_algorithm algorithm = apsp_algorithm::rkleene;
    bool widen = false;  ///< distances computed in fp64 and narrowed (path_weights.hpp)
    double bytes = 0;    ///< device memory the call takes
    bool fits = false;   ///< within free memory and the cap
};

/// The checks and choices of APSP on a device matrix: always the GPU, in the device's memory
/// (R-Kleene, blocked or naive Floyd-Warshall on the dense distances made there, or the batched
/// Bellman-Ford); wb: the path weight bound (kleene::graph keeps it).
template <class T, class Index>
apsp_device_plan plan_apsp_device(csr_matrix<T, Index, device> const& a,
                                  path_weight_bound const& wb, apsp_options const& opt,
                                  apsp_cost_model const& model) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("apsp: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (opt.device == device_choice::cpu)
        throw invalid_argument(
            "apsp: device=cpu was asked for a device graph; copy it with to_host() first");
    if (!gpu_apsp_type<T>) throw invalid_argument("apsp: the GPU runs fp32, fp64 and int32 only");
    if (opt.algorithm == apsp_algorithm::johnson)
        throw invalid_argument(
            "apsp: Johnson's algorithm runs on the CPU only, and a device graph runs on the GPU");
    cuda::require_device();
    std::size_t const n = a.rows();
    double const nd = static_cast<double>(n), m = static_cast<double>(a.nnz());
    apsp_device_plan p;
    if (!distances_fit<T>(wb)) {
        if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>) {
            if (2 * wb.bound >= 0x1p53L)
                throw overflow_error("apsp: " + distance_range_note<T>(wb) +
                                     ", and past what fp64 holds exactly");
            p.widen = true;
        } else {
            throw overflow_error("apsp: " + distance_range_note<T>(wb) +
                                 (std::is_integral_v<T> ? "; use fp64 (inexact past 2^53)" : ""));
        }
    }
    // The model of the host call without its copies: the matrix is made and kept on the device.
    double const rate = std::is_same_v<T, double>  ? model.gpu_updates_per_s_fp64
                        : std::is_same_v<T, float> ? model.gpu_updates_per_s_fp32
                                                   : model.gpu_updates_per_s_int32;
    double const eff = std::min(1.0, std::pow(nd / 16384.0, 0.55));
    double const t_dense = nd * nd * nd / (rate * eff) + model.gpu_fixed_s;
    double const t_bf = nd * nd * model.gpu_bf_s_per_entry +
                        nd * m * model.gpu_bf_s_per_source_edge + model.gpu_fixed_s;
    p.algorithm = opt.algorithm;
    if (p.algorithm == apsp_algorithm::automatic)
        p.algorithm = !p.widen && t_bf < t_dense ? apsp_algorithm::bellman_ford
                                                 : apsp_algorithm::rkleene;
    if (p.algorithm == apsp_algorithm::bellman_ford && p.widen)
        throw invalid_argument("apsp: " + distance_range_note<T>(wb) +
                               ": a device graph's batched Bellman-Ford sums in its own type; "
                               "use rkleene, or fp64 weights");
    double const nn = nd * nd;
    p.bytes = nn * sizeof(T) + (opt.predecessors ? nn * sizeof(std::int32_t) : 0.0);
    if (p.algorithm == apsp_algorithm::bellman_ford)
        p.bytes += 2.0 * nd * double(std::min(n, cuda::bellman_ford_default_batch)) * sizeof(T);
    else if (p.widen)
        p.bytes += nn * sizeof(double) + double(rkleene_gpu_extra_bytes<double>(n));
    else
        p.bytes += double(rkleene_gpu_extra_bytes<T>(n));
    device_budget const budget = gpu_budget(opt.max_device_bytes, opt.ctx);
    p.fits = p.bytes + (64u << 20) < static_cast<double>(budget.free) &&
             (budget.cap == 0 || p.bytes <= static_cast<double>(budget.cap));
    if (opt.explain)
        opt.explain->add(
            "apsp: n=" + std::to_string(n) + ", nnz=" + std::to_string(a.nnz()) +
            ", a device graph: " + std::string(to_string(p.algorithm)) + " on gpu" +
            (opt.algorithm == apsp_algorithm::automatic
                 ? " (cost model: dense " + detail::seconds(t_dense) + ", bellman-ford " +
                       detail::seconds(t_bf) + ")"
                 : " (pinned)") +
            (p.widen ? ", distances in fp64" : "") + "; it needs " + detail::mib(p.bytes) +
            " on the device; " + budget.str() + (p.fits ? ": fits" : ": does not fit"));
    return p;
}

/// The closure of the dense start d in place on the device, by the planned algorithm; a negative
/// diagonal entry afterwards is a negative cycle.
template <class U>
void close_on_device(dense_view<U, device> d, apsp_algorithm alg, apsp_options const& opt) {
    if (alg == apsp_algorithm::rkleene)
        rkleene(d, rkleene_gpu_base, rkleene_gpu_concurrent, opt.ctx);
    else if (alg == apsp_algorithm::blocked_fw)
        cuda::floyd_warshall_blocked<U>(d, resolve(opt.ctx));
    else
        cuda::floyd_warshall_naive<U>(d, resolve(opt.ctx));
    std::int64_t const neg =
        cuda::first_negative_diagonal<U>(dense_view<U const, device>(d), resolve(opt.ctx));
    if (neg >= 0) throw negative_cycle(neg);
}

/// The planned APSP of a device A into n x n device views (dist, and pred when not null): the
/// dense start, the closure and the predecessors made and computed on the device, its
/// temporaries (the fp64 distances of a widened run) from ctx's pool.
template <class T, class Index>
void apsp_into(apsp_device_plan const& p, csr_matrix<T, Index, device> const& a,
               apsp_options const& opt, dense_view<T, device> dist,
               dense_view<std::int32_t, device> const* pred) {
    if constexpr (gpu_apsp_type<T>) {
        std::size_t const n = a.rows();
        context& ctx = resolve(opt.ctx);
        if (p.algorithm == apsp_algorithm::bellman_ford) {
            cuda::bellman_ford_options o;
            o.explain = opt.explain;
            o.ctx = opt.ctx;
            cuda::apsp_bellman_ford<T, Index>(a, dist, o);  // throws negative_cycle itself
        } else if (p.widen) {
            if constexpr (!std::is_same_v<T, double>) {
                cuda::temporary_matrix<double> const wide(n, n, ctx);
                cuda::apsp_start<T, double, Index>(a, wide.view(), ctx);
                close_on_device(wide.view(), p.algorithm, opt);
                std::int64_t const bad = cuda::narrow_distances<T>(
                    dense_view<double const, device>(wide.view()), dist,
                    static_cast<double>(largest_finite_distance<T>()), ctx);
                if (bad >= 0) {
                    double x = 0;
                    cuda::copy_result_to_host(&x, wide.data() + bad, sizeof x, ctx);
                    auto const b = static_cast<std::size_t>(bad);
                    throw_distance_overflow<T>("apsp", b / n, b % n, static_cast<long double>(x));
                }
            }
        } else {
            cuda::apsp_start<T, T, Index>(a, dist, ctx);
            close_on_device(dist, p.algorithm, opt);
        }
        if (!pred) return;
        dense_view<T const, device> const d(dist);
        if constexpr (std::is_same_v<Index, std::int32_t>)
            cuda::predecessors<T>(a, d, *pred, ctx);
        else
            cuda::predecessors<T>(cuda::narrow_indices<T>(a, ctx), d, *pred, ctx);
        if (opt.explain) opt.explain->add("apsp: predecessors on the gpu");
    }
}

/// What apsp on a device graph refuses before it starts: a plan that does not fit, predecessors
/// past 32-bit indices.
template <class T, class Index>
void require_device_apsp(apsp_device_plan const& p, csr_matrix<T, Index, device> const& a,
                         bool predecessors) {
    if (!p.fits)
        throw out_of_memory("apsp: a device graph's distances need " + detail::mib(p.bytes) +
                                " of device memory (see the explain trace); a host graph "
                                "runs out of core",
                            p.bytes);
    if (predecessors && (a.rows() > std::size_t(std::numeric_limits<std::int32_t>::max()) ||
                         a.nnz() > std::size_t(std::numeric_limits<std::int32_t>::max())))
        throw invalid_argument("apsp: predecessors on the device take graphs of fewer than "
                               "2^31 vertices and edges");
}

/// The planned APSP of a device A, its distances (and predecessors, when pred is not null) left
/// in device matrices (reallocated unless n x n).
template <class T, class Index>
void apsp_on_device(apsp_device_plan const& p, csr_matrix<T, Index, device> const& a,
                    apsp_options const& opt, dense_matrix<T, device>& dist,
                    dense_matrix<std::int32_t, device>* pred) {
    if constexpr (gpu_apsp_type<T>) {
        std::size_t const n = a.rows();
        require_device_apsp(p, a, pred != nullptr);
        if (dist.rows() != n || dist.cols() != n) dist = dense_matrix<T, device>(n, n);
        if (pred && (pred->rows() != n || pred->cols() != n))
            *pred = dense_matrix<std::int32_t, device>(n, n);
        dense_view<std::int32_t, device> const pv =
            pred ? pred->view() : dense_view<std::int32_t, device>{};
        apsp_into(p, a, opt, dist.view(), pred ? &pv : nullptr);
    }
}

/// The planned APSP of a device A with its results copied back to the host: computed into
/// temporaries of the context's pool, copied back through its page-locked staging.
template <class T, class Index>
apsp_result<T> apsp_copied_back(apsp_device_plan const& p, csr_matrix<T, Index, device> const& a,
                                apsp_options const& opt) {
    std::size_t const n = a.rows();
    detail::require_host_memory("apsp: the distances copied back",
                                double(n) * double(n) *
                                    double(sizeof(T) + (opt.predecessors ? 4 : 0)));
    apsp_result<T> r;
    r.algorithm = p.algorithm;
    r.device = device_choice::gpu;
    if constexpr (gpu_apsp_type<T>) {
        require_device_apsp(p, a, opt.predecessors);
        context& ctx = resolve(opt.ctx);
        {
            cuda::temporary_matrix<T> const dist(n, n, ctx);
            cuda::temporary_matrix<std::int32_t> const pred(opt.predecessors ? n : 0, n, ctx);
            dense_view<std::int32_t, device> const pv = pred.view();
            apsp_into(p, a, opt, dist.view(), opt.predecessors ? &pv : nullptr);
            r.dist = dense_matrix<T>(n, n);
            cuda::copy_result_to_host(r.dist.data(), dist.data(), n * n * sizeof(T), ctx);
            if (opt.predecessors) {
                r.pred = dense_matrix<std::int32_t>(n, n);
                cuda::copy_result_to_host(r.pred.data(), pred.data(),
                                          n * n * sizeof(std::int32_t), ctx);
            }
        }
        cuda::return_temporaries(ctx);
    }
    return r;
}

/// B of a device matrix from one device pass (when the caller keeps none).
template <class T, class Index>
path_weight_bound device_weight_bound(csr_matrix<T, Index, device> const& a,
                                      path_weight_scan const* scan, context* ctx) {
    if (scan) return checked_bound(*scan, "apsp");
    return checked_bound(weights_of_pass(a, cuda::scan_weights<T, Index>(a, resolve(ctx))).second,
                         "apsp");
}

}  // namespace detail

/// APSP of a device graph, on the GPU and in its memory (out_of_memory past it: a host graph
/// runs out of core): the dense start, the closure and the predecessors are made on the device
/// from the device CSR, which is never copied to the host; the results are copied back.
template <class T, index_type Index>
apsp_result<T> apsp(csr_matrix<T, Index, device> const& a, apsp_options const& opt = {},
                    apsp_cost_model const& model = {}) {
    auto const p = detail::plan_apsp_device(a, detail::device_weight_bound(a, nullptr, opt.ctx),
                                            opt, model);
    return detail::apsp_copied_back(p, a, opt);
}

/// The same with the results left on the device, in r's matrices (reused when n x n).
template <class T, index_type Index>
void apsp(apsp_device_result<T>& r, csr_matrix<T, Index, device> const& a,
          apsp_options const& opt = {}, apsp_cost_model const& model = {}) {
    auto const p = detail::plan_apsp_device(a, detail::device_weight_bound(a, nullptr, opt.ctx),
                                            opt, model);
    r.algorithm = p.algorithm;
    if (!opt.predecessors) r.pred = {};
    detail::apsp_on_device(p, a, opt, r.dist, opt.predecessors ? &r.pred : nullptr);
}

}  // namespace kleene

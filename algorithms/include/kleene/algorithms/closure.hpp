#pragma once
// Transitive closure over lor_land: R(i,j) = 1 when a path of one edge or more joins i to j
// (reflexive: also every (i,i)). Two methods:
//   condensation: strongly connected components, the reachability of the DAG between
//     them, rows expanded back to vertices (closure_condensation.hpp); time and memory follow
//     the size of the graph and of the result, so a sparse graph with a sparse closure is fast
//     whatever n. The components and their DAG are found on the host (Tarjan, O(n + nnz)); the
//     rows, on the CPU or on the GPU (cuda/closure.hpp: a traversal of the DAG from every
//     component, one warp each, then the rows sorted and expanded on the device);
//   dense: bit-packed rows in bit_matrix's layout (rows of ceil(n/64) 64-bit words, bit j % 64
//     of word j / 64) for the whole n x n: Warshall's algorithm on the CPU (row i |= row k where
//     bit (i,k) is set; rows in parallel), R-Kleene (rkleene.hpp) with bool_gemm products on the
//     GPU, or, when the bit matrix does not fit the device (or a cap: max_device_bytes,
//     KLEENE_MAX_DEVICE_BYTES), the out-of-core blocked algorithm on bit tiles streamed from
//     pinned host memory (apsp_out_of_core.hpp). O(n^3 / 64) word operations whatever the graph.
// The result is CSR or bits (host_bits): closure_matrix lets the model pick the smaller by the
// estimated number of pairs; closure() and closure_bits() pin one. A device matrix runs the dense
// method on the GPU from bits made there (the bottom of this file).

#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <kleene/algorithms/apsp_out_of_core.hpp>
#include <kleene/algorithms/closure_condensation.hpp>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/cuda/closure.hpp>
#include <kleene/algorithms/ooc_plan.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/options.hpp>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace kleene {

/// A host bit matrix, n x n, in bit_matrix's layout.
struct host_bits {
    std::size_t n = 0;
    std::size_t ld = 0;
    std::vector<std::uint64_t> words;
    bool test(std::size_t i, std::size_t j) const {
        return (words[i * ld + j / 64] >> (j % 64)) & 1u;
    }
    void set(std::size_t i, std::size_t j) {
        words[i * ld + j / 64] |= std::uint64_t{1} << (j % 64);
    }
};

template <class T, index_type Index>
host_bits to_host_bits(csr_matrix<T, Index> const& a) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("closure: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    host_bits b{a.rows(), (a.rows() + 63) / 64, {}};
    detail::require_host_memory(("closure: the " + detail::shape(b.n, b.n) + " bit matrix").c_str(),
                                double(b.n) * double(b.ld) * sizeof(std::uint64_t));
    try {
        b.words.assign(b.n * b.ld, 0);
    } catch (std::bad_alloc const&) {
        throw error("closure: allocating the " + detail::shape(b.n, b.n) + " bit matrix failed");
    }
    for (std::size_t i = 0; i < b.n; ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            b.set(i, static_cast<std::size_t>(a.col_idx()[k]));
    return b;
}

/// Warshall on the CPU, in place: a becomes a+.
inline void closure_cpu(host_bits& a) {
    std::size_t const n = a.n;
    std::size_t const ld = a.ld;
    for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t const* rk = a.words.data() + k * ld;
        std::size_t const kw = k / 64;
        std::uint64_t const kb = std::uint64_t{1} << (k % 64);
#pragma omp parallel for schedule(static) if (n >= 512)
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t* ri = a.words.data() + i * ld;
            if (i == k || !(ri[kw] & kb)) continue;
            for (std::size_t w = 0; w < ld; ++w) ri[w] |= rk[w];
        }
    }
}

/// R-Kleene on the GPU, in place: a becomes a+ (copies to the device and back). Past the device
/// budget (free memory, and the cap max_device_bytes or the context's when set) it
/// runs out of core instead; `explain` says which. In core the bits go to a temporary of the
/// context's pool, on its stream, and come back through its page-locked staging.
inline void closure_gpu(host_bits& a, std::size_t max_device_bytes = 0,
                        explain_trace* explain = nullptr, context* ctx = nullptr) {
    detail::device_budget const budget = detail::gpu_budget(max_device_bytes, ctx);
    double const bytes = double(a.words.size()) * sizeof(std::uint64_t);
    // In core: the matrix and R-Kleene's workspace (a quarter of it).
    bool const fits = bytes * 1.25 + (64u << 20) < double(budget.free) &&
                      (budget.cap == 0 || bytes * 1.25 <= double(budget.cap));
    if (explain)
        explain->add("closure: the bit matrix needs " + detail::mib(bytes) +
                     " (+25% workspace) in core; " + budget.str() +
                     (fits ? ": in core" : ": out of core"));
    if (!fits) {
        ooc_options o;
        o.device_bytes = budget.bytes;
        o.explain = explain;
        o.ctx = ctx;
        closure_out_of_core(a.words.data(), a.n, a.ld, o);
        return;
    }
    context& c = resolve(ctx);
    {
        auto const d = cuda::temporary_matrix<std::uint64_t>::copy_of_host(a.words.data(), a.n,
                                                                           a.ld, c);
        rkleene(cuda::bit_view<std::uint64_t>{d.data(), a.n, a.n, a.ld}, &c);
        cuda::copy_result_to_host(a.words.data(), d.data(),
                                  a.words.size() * sizeof(std::uint64_t), c);
    }
    cuda::return_temporaries(c);
}

enum class closure_method {
    automatic,     ///< the condensation (CPU or GPU) or the dense method, by the model
    condensation,  ///< strongly connected components and the DAG between them (CPU or GPU)
    dense,         ///< the whole n x n bit matrix: Warshall (CPU) or R-Kleene (GPU)
};
/// How the condensation finds which components each component reaches.
enum class closure_reach {
    automatic,  ///< by the model: the estimated work of each
    search,     ///< a traversal from every component (work about the output)
    sweep,      ///< bit rows in topological order (work about the DAG's edges times k / 128)
};
inline char const* to_string(closure_method m) {
    return m == closure_method::condensation ? "condensation"
           : m == closure_method::dense      ? "dense"
                                             : "auto";
}
inline char const* to_string(closure_reach r) {
    return r == closure_reach::search ? "search" : r == closure_reach::sweep ? "sweep" : "auto";
}

struct closure_options {
    bool reflexive = false;
    device_choice device = device_choice::automatic;
    closure_method method = closure_method::automatic;
    closure_reach reach = closure_reach::automatic;
    /// closure_matrix's result: CSR, bits (`dense`), or (automatic) the smaller of the two for the
    /// estimated number of pairs. closure() and closure_bits() pin it.
    output_choice output_format = output_choice::automatic;
    /// Bytes the result may take (0: no limit but the host's available memory). A result past it,
    /// or past the available memory, fails with out_of_memory (the estimate stated) before the
    /// work, when the estimate says so, or at the latest before the result is allocated.
    std::size_t max_output_bytes = 0;
    /// Device bytes the GPU path may use (0: no cap; see apsp_options::max_device_bytes).
    std::size_t max_device_bytes = 0;
    explain_trace* explain = nullptr;
    /// Threads (context::threads) and the device cap when max_device_bytes is 0
    /// (tuning::max_device_bytes); null: default_context().
    context* ctx = nullptr;
    /// Called with the number of pairs before the work (the condensation's estimate, and whether
    /// it is exact) or, for the dense method, once they are counted; it may throw to refuse (the
    /// command line: an output file larger than its file system's free space).
    std::function<void(double pairs, bool exact)> on_estimate = nullptr;
};

/// The closure in one of two forms: `format` says which member holds it.
struct closure_result {
    output_choice format = output_choice::csr;  ///< csr or dense
    csr_matrix<bool, std::int64_t> csr;         ///< format csr
    host_bits bits;                             ///< format dense
    closure_method method = closure_method::condensation;
    closure_reach reach = closure_reach::automatic;  ///< condensation: search or sweep
    device_choice device = device_choice::cpu;
    std::size_t components = 0;  ///< condensation: strongly connected components
    double estimated_pairs = 0;  ///< condensation: the model's estimate of pairs()
    std::size_t pairs() const {
        if (format == output_choice::csr) return csr.nnz();
        std::size_t p = 0;
        for (std::uint64_t w : bits.words) p += static_cast<std::size_t>(std::popcount(w));
        return p;
    }
};

namespace detail {

/// Rates of the closure model, measured on the 2-vCPU build machine (AMD EPYC, one thread;
/// bench_closure, docs/performance.md "Transitive closure of sparse graphs") and, for the GPU,
/// R-Kleene on bits at n = 65536 on an H200 (805 ms: 5.5e12 words a second), and the GPU's
/// condensation (bench_closure --device gpu on an H200): DAG visits a second over both passes,
/// result pairs a second written, sorted and expanded on the device, and a fixed cost (the DAG's
/// copy, allocations, launches).
inline constexpr double closure_search_visits_per_s = 5e7;
inline constexpr double closure_sweep_words_per_s = 1e9;
inline constexpr double closure_expand_pairs_per_s = 1e8;
inline constexpr double closure_gpu_words_per_s = 5.5e12;
inline constexpr double closure_gpu_copy_bytes_per_s = 2e10;
inline constexpr double closure_gpu_visits_per_s = 3e10;
inline constexpr double closure_gpu_pairs_per_s = 6e9;
inline constexpr double closure_gpu_result_bytes_per_s = 1e10;  ///< staged copy to the host
inline constexpr double closure_gpu_fixed_s = 2e-3;

inline std::string closure_count(double x) {
    char buf[32];
    if (x < 1e6)
        std::snprintf(buf, sizeof buf, "%.0f", x);
    else
        std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

/// The dense method on the whole bit matrix, on the GPU or the CPU.
template <class T, index_type Index>
host_bits dense_closure_bits(csr_matrix<T, Index> const& a, closure_options const& opt, bool gpu) {
    host_bits b = to_host_bits(a);
    if (gpu)
        closure_gpu(b, opt.max_device_bytes, opt.explain, opt.ctx);
    else
        closure_cpu(b);
    if (opt.reflexive)
        for (std::size_t i = 0; i < b.n; ++i) b.set(i, i);
    return b;
}

/// Rows [r0, r0 + rows) of a bit matrix as CSR (rows x n; all rows by default).
inline csr_matrix<bool, std::int64_t> bits_to_csr(host_bits const& b, std::size_t r0 = 0,
                                                  std::size_t rows = std::size_t(-1)) {
    rows = std::min(rows, b.n - std::min(r0, b.n));
    buffer<std::int64_t> ptr(rows + 1);
    ptr[0] = 0;
    std::size_t nnz = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t w = 0; w < b.ld; ++w)
            nnz += static_cast<std::size_t>(std::popcount(b.words[(r0 + i) * b.ld + w]));
        ptr[i + 1] = static_cast<std::int64_t>(nnz);
    }
    buffer<std::int64_t> cols(nnz);
    std::size_t p = 0;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t w = 0; w < b.ld; ++w)
            for (std::uint64_t x = b.words[(r0 + i) * b.ld + w]; x; x &= x - 1)
                cols[p++] = static_cast<std::int64_t>(
                    w * 64 + static_cast<std::size_t>(std::countr_zero(x)));
    return {rows, b.n, std::move(ptr), std::move(cols), buffer<bool>(), true, true};
}

inline std::string closure_ms(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
    return buf;
}

inline double closure_seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline void dense_result_form(closure_result& r, closure_options const& opt);

template <class T, index_type Index>
closure_result closure_dense(csr_matrix<T, Index> const& a, closure_options const& opt, bool gpu,
                             std::string const& why) {
    closure_result r;
    r.method = closure_method::dense;
    r.device = gpu ? device_choice::gpu : device_choice::cpu;
    auto const t0 = std::chrono::steady_clock::now();
    r.bits = dense_closure_bits(a, opt, gpu);
    if (opt.explain)
        opt.explain->add("closure: n=" + std::to_string(a.rows()) +
                         ", nnz=" + std::to_string(a.nnz()) +
                         (gpu ? ": dense, bit-packed R-Kleene on the GPU"
                              : ": dense, bitset Warshall on the CPU") +
                         " (" + why + "), " + closure_ms(closure_seconds_since(t0)));
    dense_result_form(r, opt);
    return r;
}

/// The dense method's result (r.bits) as the caller asked, or the smaller of the two forms.
inline void dense_result_form(closure_result& r, closure_options const& opt) {
    std::size_t const pairs = r.pairs();
    if (opt.on_estimate) opt.on_estimate(double(pairs), true);
    double const bits_bytes = double(r.bits.words.size()) * 8;
    bool const csr = opt.output_format == output_choice::csr ||
                     (opt.output_format == output_choice::automatic &&
                      double(pairs) * 8 + double(r.bits.n + 1) * 8 < bits_bytes);
    if (csr) {
        r.csr = bits_to_csr(r.bits);
        r.bits = {};
        r.format = output_choice::csr;
    } else {
        r.format = output_choice::dense;
    }
    r.estimated_pairs = double(pairs);
}

}  // namespace detail

/// The closure in the form the model picks (or opt.output_format pins): CSR when it is smaller
/// than n * n bits for the estimated number of pairs, else bits. The method and device, where the
/// options leave them open: the fastest by the model of the condensation's rows on the CPU, its
/// rows on the GPU and the dense R-Kleene on the GPU (`device = gpu` weighs the two GPU ones;
/// rows that do not fit the device run on the CPU unless the GPU is pinned). opt.explain gets the
/// components, the estimate, the choices and their reasons, and the times.
template <class T, index_type Index>
closure_result closure_matrix(csr_matrix<T, Index> const& a, closure_options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("closure: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    detail::thread_scope const scope(opt.ctx);
    int const threads = omp_get_max_threads();
    std::size_t const n = a.rows();
    auto const say = [&](std::string const& s) {
        if (opt.explain) opt.explain->add("closure: " + s);
    };
    bool const pinned_gpu = opt.device == device_choice::gpu;
    if (pinned_gpu) cuda::require_device();
    if (opt.method == closure_method::dense) {
        bool const gpu = pinned_gpu || (opt.device == device_choice::automatic && n >= 2048 &&
                                        cuda::device_count() > 0);
        return detail::closure_dense(
            a, opt, gpu,
            std::string(gpu ? "method pinned; GPU: " : "method pinned; CPU: ") +
                    (opt.device == device_choice::automatic ? "auto, n >= 2048 and a GPU"
                                                            : "pinned"));
    }

    auto const t0 = std::chrono::steady_clock::now();
    auto const g = detail::condense(a);
    double const t_condense = detail::closure_seconds_since(t0);
    std::size_t largest = 0, cyclic = 0;
    for (std::size_t c = 0; c < g.k; ++c) {
        largest = std::max(largest, g.size(c));
        cyclic += g.cyclic[c];
    }
    auto const t1 = std::chrono::steady_clock::now();
    detail::closure_estimate const est = detail::estimate_closure(g, opt.reflexive);
    double const t_estimate = detail::closure_seconds_since(t1);
    double const k = double(g.k), m = double(g.edges());
    double const ldk = std::ceil(k / 64);
    double const csr_bytes = (double(n) + 1) * 8 + est.pairs * 8;
    double const bits_bytes = double(n) * std::ceil(double(n) / 64) * 8;
    say("n=" + std::to_string(n) + ", nnz=" + std::to_string(a.nnz()) + ": " + std::to_string(g.k) +
        " strongly connected components (largest " + std::to_string(largest) + " vertices, " +
        std::to_string(cyclic) + " with a cycle), their DAG " + std::to_string(g.edges()) +
        " edges; " + detail::closure_ms(t_condense));
    say(std::string(est.exact ? "exactly " : "about ") + detail::closure_count(est.pairs) +
        " pairs (" + detail::closure_count(est.component_pairs) + " between components; " +
        (est.exact ? "counted" : "estimated") + " in " + detail::closure_ms(t_estimate) +
        "): " + detail::format_bytes(csr_bytes) + " as CSR, " + detail::format_bytes(bits_bytes) +
        " as bits");

    if (opt.on_estimate) opt.on_estimate(est.pairs, est.exact);

    // Reach: the work of each way, in seconds at the measured rates.
    double const search_s = est.component_pairs * (1 + m / std::max(k, 1.0)) /
                            (detail::closure_search_visits_per_s * threads);
    double const sweep_bytes = k * ldk * 8;
    double const sweep_s =
        (m * ldk / 2 + 2 * k * ldk) / (detail::closure_sweep_words_per_s * threads);
    std::size_t const avail = detail::host_available_bytes();
    bool const sweep_fits = sweep_bytes < 0x1p63 && (avail == 0 || sweep_bytes < double(avail) / 2);
    closure_reach reach = opt.reach;
    std::string reach_why = "pinned";
    if (reach == closure_reach::automatic) {
        reach = sweep_fits && sweep_s < search_s ? closure_reach::sweep : closure_reach::search;
        reach_why =
            "estimated search " + detail::closure_ms(search_s) + ", sweep " +
            (sweep_fits ? detail::closure_ms(sweep_s)
                        : std::string("needs ") + detail::format_bytes(sweep_bytes) + ", too much");
    }
    double const expand_s = est.pairs / (detail::closure_expand_pairs_per_s * threads);
    double const cpu_s = (reach == closure_reach::sweep ? sweep_s : search_s) + expand_s;

    // Output: the smaller form, unless pinned.
    output_choice format = opt.output_format;
    if (format == output_choice::automatic)
        format = csr_bytes <= bits_bytes ? output_choice::csr : output_choice::dense;
    double const out_bytes = format == output_choice::csr ? csr_bytes : bits_bytes;

    // The candidates the options leave open, at the model's rates: the condensation's rows on
    // the CPU or on the GPU (two traversals of the DAG, the result written, sorted, expanded and
    // copied back), the dense O(n^3 / 64) R-Kleene on the GPU.
    bool const gpu_open = pinned_gpu || (opt.device == device_choice::automatic &&
                                         cuda::device_count() > 0);
    bool use_gpu_rows = false;
    if (gpu_open) {
        double const dag_bytes = (2 * k + m + 2 * double(n)) * sizeof(Index);
        double const gpu_rows_s =
            detail::closure_gpu_fixed_s + dag_bytes / detail::closure_gpu_copy_bytes_per_s +
            2 * est.component_pairs * (1 + m / std::max(k, 1.0)) /
                detail::closure_gpu_visits_per_s +
            est.pairs / detail::closure_gpu_pairs_per_s +
            out_bytes / detail::closure_gpu_result_bytes_per_s;
        double const gpu_dense_s =
            detail::closure_gpu_fixed_s +
            double(n) * double(n) * double(n) / 64 / detail::closure_gpu_words_per_s +
            2 * bits_bytes / detail::closure_gpu_copy_bytes_per_s;
        bool const dense_open = opt.method == closure_method::automatic;
        bool const cpu_open = !pinned_gpu;
        say(std::string(cpu_open ? "condensation's rows on the CPU about " +
                                       detail::closure_ms(cpu_s) + ", "
                                 : "") +
            "on the GPU about " + detail::closure_ms(gpu_rows_s) +
            (dense_open ? ", dense R-Kleene on the GPU about " + detail::closure_ms(gpu_dense_s)
                        : std::string()));
        double best = cpu_open ? cpu_s : std::numeric_limits<double>::infinity();
        if (gpu_rows_s < best) {
            best = gpu_rows_s;
            use_gpu_rows = true;
        }
        if (dense_open && gpu_dense_s < best) {
            auto o = opt;
            o.output_format = format;
            return detail::closure_dense(a, o, true, "the model rates it fastest");
        }
    }

    // Refuse a result past the limit before the work: an estimate may be off by a factor that
    // makes it fit, so only one past twice the limit is refused here (the exact size is
    // checked again before the result is allocated).
    double const limit = opt.max_output_bytes ? double(opt.max_output_bytes) : double(avail);
    double const work_bytes = reach == closure_reach::sweep
                                  ? sweep_bytes
                                  : est.component_pairs * sizeof(Index) + double(threads) * k / 8;
    double const need = opt.max_output_bytes ? out_bytes : out_bytes + work_bytes;
    if (limit > 0 && (est.exact ? need > limit : need > 2 * limit))
        throw out_of_memory(
            "closure: the closure of this " + std::to_string(n) + "-vertex graph has " +
                (est.exact ? "" : "about ") + detail::closure_count(est.pairs) + " pairs (" +
                (est.exact ? "counted" : "estimated") + "): " + detail::format_bytes(csr_bytes) +
                " as CSR, " + detail::format_bytes(bits_bytes) + " as bits; the " +
                (format == output_choice::csr ? "CSR" : "bit") + " result" +
                (opt.max_output_bytes ? " needs " : " and its workspace need ") +
                detail::format_bytes(need) + ", more than " +
                (opt.max_output_bytes
                     ? "the limit of " + detail::format_bytes(limit)
                     : "the " + detail::format_bytes(limit) + " of memory available"),
            need);
    // A bit result past opt.max_output_bytes or the host's memory, refused before it is made.
    auto const check_bits_fit = [&] {
        if (opt.max_output_bytes && bits_bytes > double(opt.max_output_bytes))
            throw out_of_memory("closure: the " + detail::shape(n, n) + " bit matrix needs " +
                                    detail::format_bytes(bits_bytes) + ", more than the limit of " +
                                    detail::format_bytes(double(opt.max_output_bytes)),
                                bits_bytes);
        detail::require_host_memory(("closure: the " + detail::shape(n, n) + " bit matrix").c_str(),
                                    bits_bytes);
    };
    closure_result r;
    r.method = closure_method::condensation;
    r.components = g.k;
    r.estimated_pairs = est.pairs;
    r.format = format;
    if (use_gpu_rows) {
        say("output as " + std::string(format == output_choice::csr ? "CSR" : "bits") +
            (opt.output_format == output_choice::automatic ? " (the smaller)" : " (pinned)") +
            "; rows on the GPU");
        if (format == output_choice::dense) check_bits_fit();
        std::vector<std::uint8_t> self(g.k);
        for (std::size_t c = 0; c < g.k; ++c) self[c] = opt.reflexive || g.cyclic[c];
        cuda::condensation_view<Index> const view{
            n,         g.k,  g.label.data(), g.member_ptr.data(), g.members.data(), g.ptr.data(),
            g.succ.data(), self.data()};
        // The host's limit on the result, in pairs (checked after the count pass).
        double const host_limit = opt.max_output_bytes ? double(opt.max_output_bytes)
                                                       : double(avail);
        std::size_t const max_pairs =
            host_limit <= 0 ? 0
                            : static_cast<std::size_t>(std::max(
                                  1.0, host_limit / sizeof(std::int64_t) - double(n) - 1));
        auto rows = cuda::closure_condensation_rows(
            view, format == output_choice::dense, detail::device_cap(opt.max_device_bytes, opt.ctx),
            format == output_choice::dense ? 0 : max_pairs, resolve(opt.ctx));
        for (auto const& line : rows.notes)
            if (opt.explain) opt.explain->add(line);
        if (rows.fitted) {
            r.device = device_choice::gpu;
            r.reach = closure_reach::search;
            if (format == output_choice::csr)
                r.csr = csr_matrix<bool, std::int64_t>{n, n, std::move(rows.ptr),
                                                       std::move(rows.cols), buffer<bool>(),
                                                       true, true};
            else
                r.bits = host_bits{n, rows.ld, std::move(rows.words)};
            return r;
        }
        if (pinned_gpu)
            throw out_of_memory("closure: the condensation's rows do not fit the device (" +
                                    detail::format_bytes(double(rows.device_bytes)) +
                                    " needed; see --explain)",
                                double(rows.device_bytes));
        say("rows on the CPU instead: the device cannot hold them");
    }
    say("output as " + std::string(format == output_choice::csr ? "CSR" : "bits") +
        (opt.output_format == output_choice::automatic ? " (the smaller)" : " (pinned)") +
        "; reach by " + to_string(reach) + " (" + reach_why + ")");
    r.reach = reach;
    r.device = device_choice::cpu;
    auto const t2 = std::chrono::steady_clock::now();
    double t_reach = 0;
    auto finish = [&](std::vector<std::size_t> const& weight, auto&& row_of) {
        t_reach = detail::closure_seconds_since(t2);
        auto const t3 = std::chrono::steady_clock::now();
        if (format == output_choice::csr) {
            r.csr = detail::expand_to_csr(g, weight, row_of, threads, opt.max_output_bytes);
        } else {
            check_bits_fit();
            r.bits = host_bits{n, (n + 63) / 64, {}};
            r.bits.words.assign(n * r.bits.ld, 0);
            detail::expand_to_bits(g, weight, row_of, r.bits.words.data(), r.bits.ld, threads);
        }
        say("reach " + detail::closure_ms(t_reach) + ", rows expanded to vertices " +
            detail::closure_ms(detail::closure_seconds_since(t3)) + ", " + std::to_string(threads) +
            " threads");
    };
    if (reach == closure_reach::search) {
        detail::require_host_memory("closure: the search's rows and marks", work_bytes);
        // The rows may take what the result leaves of the available memory (all of it when that
        // is unknown); past it the search stops with out_of_memory.
        std::size_t const max_entries =
            avail == 0 ? std::numeric_limits<std::size_t>::max()
                       : static_cast<std::size_t>(std::max(0.0, double(avail) - out_bytes) /
                                                  sizeof(Index));
        auto const rows = detail::reach_by_search(g, opt.reflexive, threads, max_entries);
        finish(rows.weight, [&](std::size_t c, auto&& f) {
            Index const* p = rows.data(c);
            for (Index q = 0; q < rows.length[c]; ++q) f(p[q]);
        });
    } else {
        detail::require_host_memory("closure: the sweep's bit rows", sweep_bytes);
        auto const bits = detail::reach_by_sweep(g, threads);
        std::vector<std::size_t> weight(g.k);
#pragma omp parallel for schedule(dynamic, 256) if (g.k > 4096)
        for (std::size_t c = 0; c < g.k; ++c) {
            std::size_t w = 0;
            detail::for_each_in_bits(bits, c, opt.reflexive || g.cyclic[c],
                                     [&](std::size_t d) { w += g.size(d); });
            weight[c] = w;
        }
        finish(weight, [&](std::size_t c, auto&& f) {
            detail::for_each_in_bits(bits, c, opt.reflexive || g.cyclic[c],
                                     [&](std::size_t d) { f(g.code[d]); });
        });
    }
    return r;
}

/// The closure as a bit matrix (output pinned to bits; see closure_matrix).
template <class T, index_type Index>
host_bits closure_bits(csr_matrix<T, Index> const& a, closure_options const& opt = {}) {
    auto o = opt;
    o.output_format = output_choice::dense;
    return closure_matrix(a, o).bits;
}

/// The closure as a pattern CSR matrix (output pinned to CSR; see closure_matrix).
template <class T, index_type Index>
csr_matrix<bool, std::int64_t> closure(csr_matrix<T, Index> const& a,
                                       closure_options const& opt = {}) {
    auto o = opt;
    o.output_format = output_choice::csr;
    return closure_matrix(a, o).csr;
}

// ---- a device graph ------------------------------------------------------------------------------
// The condensation finds its components on the host (Tarjan's algorithm), so a device graph runs
// the dense method: its pattern is packed into bits on the device (cuda::pattern_bits) and closed
// there by R-Kleene, within the device's memory; nothing of A comes to the host.

namespace detail {

/// Bytes of the n x n bit matrix, and whether it and R-Kleene's workspace (a quarter of it) fit
/// the device under opt's cap, said in the trace.
inline bool closure_bits_fit_device(std::size_t n, closure_options const& opt) {
    double const bytes = double(n) * double((n + 63) / 64) * 8;
    device_budget const budget = gpu_budget(opt.max_device_bytes, opt.ctx);
    bool const fits = bytes * 1.25 + (64u << 20) < double(budget.free) &&
                      (budget.cap == 0 || bytes * 1.25 <= double(budget.cap));
    if (opt.explain)
        opt.explain->add("closure: the bit matrix needs " + mib(bytes) +
                         " (+25% workspace) on the device; " + budget.str() +
                         (fits ? ": fits" : ": does not fit"));
    return fits;
}

/// The checks of the dense closure of the pattern p on the device (square, a GPU method, the
/// bits fit unless the caller has checked: fitted).
template <class Index>
void check_closure_on_device(csr_matrix<bool, Index, device> const& p, closure_options const& opt,
                             bool fitted) {
    if (p.rows() != p.cols())
        throw dimension_mismatch("closure: the adjacency matrix must be square, not " +
                                 detail::shape(p.rows(), p.cols()));
    if (opt.device == device_choice::cpu)
        throw invalid_argument(
            "closure: device=cpu was asked for a device graph; copy it with to_host() first");
    if (opt.method == closure_method::condensation)
        throw invalid_argument("closure: the condensation finds its components on the host; a "
                               "device graph runs the dense method (method dense or automatic)");
    cuda::require_device();
    std::size_t const n = p.rows();
    if (!fitted && !closure_bits_fit_device(n, opt))
        throw out_of_memory("closure: the " + detail::shape(n, n) +
                                " bit matrix does not fit the device (see the explain trace); a "
                                "host graph runs out of core or by its condensation",
                            double(n) * double((n + 63) / 64) * 8);
}

/// The dense closure of the pattern p into the n x n bits b on the device (bit_matrix's layout,
/// cleared, or being cleared on ctx's stream), on ctx's stream: p's entries set, R-Kleene, the
/// diagonal set when reflexive; returns once the stream has done it.
template <class Index>
void closure_bits_into(csr_matrix<bool, Index, device> const& p, cuda::bit_view<std::uint64_t> b,
                       closure_options const& opt, context& ctx) {
    cuda::pattern_bits<Index>(p, b, ctx);
    rkleene(b, &ctx);
    if (opt.reflexive) cuda::set_bit_diagonal(b, ctx);
}

/// The dense closure of the pattern p on the device, as a bit matrix for the caller (see
/// closure_bits_into). fitted: the caller has checked that it fits.
template <class Index>
cuda::bit_matrix closure_bits_on_device(csr_matrix<bool, Index, device> const& p,
                                        closure_options const& opt, bool fitted = false) {
    check_closure_on_device(p, opt, fitted);
    context& ctx = resolve(opt.ctx);
    cuda::bit_matrix b(p.rows(), p.rows(), ctx);  // cleared on ctx's stream
    closure_bits_into(p, b.view(), opt, ctx);
    return b;
}

/// closure_matrix of a device pattern: the bits made in a temporary of the context's pool and
/// copied back through its page-locked staging, in the form asked for.
template <class Index>
closure_result closure_matrix_on_device(csr_matrix<bool, Index, device> const& p,
                                        closure_options const& opt, bool fitted = false) {
    auto const t0 = std::chrono::steady_clock::now();
    check_closure_on_device(p, opt, fitted);
    context& ctx = resolve(opt.ctx);
    closure_result r;
    r.method = closure_method::dense;
    r.device = device_choice::gpu;
    std::size_t const n = p.rows();
    std::size_t const ld = (n + cuda::bits_per_word - 1) / cuda::bits_per_word;
    r.bits = host_bits{n, ld, {}};
    detail::require_host_memory(("closure: the " + detail::shape(n, n) + " bit matrix").c_str(),
                                double(n) * double(ld) * 8);
    r.bits.words.resize(n * ld);
    {
        cuda::temporary_matrix<std::uint64_t> const b(n, ld, ctx);
        cuda::fill_bytes_async(b.data(), 0, n * ld * sizeof(std::uint64_t),
                               cuda::stream::borrow(ctx.stream()));
        closure_bits_into(p, cuda::bit_view<std::uint64_t>{b.data(), n, n, ld}, opt, ctx);
        cuda::copy_result_to_host(r.bits.words.data(), b.data(),
                                  r.bits.words.size() * sizeof(std::uint64_t), ctx);
    }
    cuda::return_temporaries(ctx);
    if (opt.explain)
        opt.explain->add("closure: n=" + std::to_string(n) + ", nnz=" + std::to_string(p.nnz()) +
                         ": dense, bit-packed R-Kleene on the GPU (a device graph: its pattern "
                         "packed into bits there), " +
                         closure_ms(closure_seconds_since(t0)));
    dense_result_form(r, opt);
    return r;
}

/// A device matrix's pattern (its index arrays copied on the device).
template <class T, class Index>
csr_matrix<bool, Index, device> device_pattern_of(csr_matrix<T, Index, device> const& a) {
    return {a.rows(), a.cols(), a.row_ptr_storage(), a.col_idx_storage(), buffer<bool, device>{},
            true,     true};
}

}  // namespace detail

/// The closure of a device graph, as CSR or bits (closure_matrix's rule), by the dense method on
/// the GPU: out_of_memory when the bit matrix does not fit it.
template <class T, index_type Index>
closure_result closure_matrix(csr_matrix<T, Index, device> const& a,
                              closure_options const& opt = {}) {
    return detail::closure_matrix_on_device(detail::device_pattern_of(a), opt);
}

/// The closure of a device graph as a pattern CSR matrix on the host.
template <class T, index_type Index>
csr_matrix<bool, std::int64_t> closure(csr_matrix<T, Index, device> const& a,
                                       closure_options const& opt = {}) {
    auto o = opt;
    o.output_format = output_choice::csr;
    return closure_matrix(a, o).csr;
}

/// The closure of a device graph left on the device, as a bit matrix (bit_matrix's layout).
template <class T, index_type Index>
void closure(cuda::bit_matrix& out, csr_matrix<T, Index, device> const& a,
             closure_options const& opt = {}) {
    out = detail::closure_bits_on_device(detail::device_pattern_of(a), opt);
}

}  // namespace kleene

#pragma once
// Connected components.
//
//   connected_components(A, options)   FastSV or Afforest, CPU or GPU, host or device graphs
//   connected_components(r, A, options)  the same into a result whose labels' storage is reused
//
// Every vertex is labelled by the smallest vertex number of its component, so answers from either
// method and either device compare exactly. A directed graph has its weakly connected components:
// FastSV and the GPU run on A + A', made first unless opt.symmetric says A == A'; Afforest on the
// CPU links each stored edge from its source, which needs no A'.
//
// FastSV (Zhang, Azad, Buluc 2020; LAGraph's method) keeps a parent vector f and its grandparents
// gp = f(f). A round computes mngp = min(gp, A min.second gp) (the smallest grandparent among each
// vertex's neighbours), hooks stochastically f(f(u)) min= mngp(u) and aggressively f(u) min=
// mngp(u), shortcuts f min= gp, and stops when gp = f(f) no longer changes. Labels only fall and
// stay inside the component, so the smallest vertex is its own parent throughout and ends as the
// root of the one star its component becomes. The fused loop does a round in three passes; the
// same round on kleene's operations (mxv, ewise_add, extract) is kept as the algebraic statement.
//
// Afforest (Sutton, Ben-Nun, Barak 2018; the GAP reference's method) is a concurrent union-find
// that always hooks the larger root under the smaller: link each vertex to its first two
// neighbours (one round each, compressing the trees after each), sample the labels to find the
// largest component, then link the remaining edges of the vertices outside it only. An edge
// skipped at one end is linked from the other, unless both ends were already in that component.
// That needs A == A'; on a directed A every vertex links all its out-edges instead.

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/error.hpp>
#include <kleene/ewise.hpp>
#include <kleene/extract_assign.hpp>
#include <kleene/mxm.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kleene {

enum class cc_method : std::uint8_t { automatic, fastsv, afforest };

inline char const* to_string(cc_method m) {
    return m == cc_method::fastsv ? "fastsv" : m == cc_method::afforest ? "afforest" : "auto";
}

struct cc_options {
    device_choice device = device_choice::automatic;
    cc_method method = cc_method::automatic;
    /// The caller promises A == A' (an undirected graph): no symmetrised copy is made.
    bool symmetric = false;
    /// FastSV on the CPU: the fused loop (true) or the same rounds as kleene operations (mxv over
    /// min.second, ewise_add, extract), 2-3x slower, kept as the algebraic statement.
    bool fused = true;
    /// automatic runs on the GPU when there is one and A has at least this many entries; the
    /// default keeps host graphs on the CPU (one run does not repay copying the graph over).
    /// Device graphs always run on the GPU.
    std::size_t gpu_min_edges = std::numeric_limits<std::size_t>::max();
    /// One line per decision: device, symmetrisation, method and why, rounds, sizes.
    explain_trace* explain = nullptr;
    /// The context the GPU runs on (its device, stream and scratch; null: default_context()).
    context* ctx = nullptr;
};

struct cc_result {
    /// Component of every vertex, named by the smallest vertex number in it
    /// (vector_for_overwrite: filled by all threads; compares equal to a std::vector).
    vector_for_overwrite<std::int64_t> component;
    std::size_t count = 0;  ///< number of components
    /// FastSV rounds, or Afforest's sampling rounds + 1 (the final pass).
    int iterations = 0;
    cc_method method = cc_method::automatic;
    device_choice device = device_choice::cpu;
};

namespace detail {

/// Neighbour rounds of Afforest before the largest component is sampled (GAP's default).
inline constexpr int afforest_rounds = 2;
inline constexpr int afforest_samples = 1024;

/// The pattern of A + A' (rows sorted and unique), made from A and its transpose row by row.
template <class T, class Index>
csr_matrix<bool, Index> symmetrised_pattern(csr_matrix<T, Index> const& a) {
    std::size_t const n = a.rows();
    auto const at = cpu::transpose_csr(pattern_of(a));
    Index const* ap = a.row_ptr();
    Index const* aj = a.col_idx();
    Index const* tp = at.row_ptr();
    Index const* tj = at.col_idx();
    std::vector<std::int64_t> count(n + 1, 0);
#pragma omp parallel for schedule(dynamic, 4096) if (a.nnz() > 65536)
    for (std::size_t i = 0; i < n; ++i) {
        Index const *x = aj + ap[i], *xe = aj + ap[i + 1], *y = tj + tp[i], *ye = tj + tp[i + 1];
        std::int64_t c = 0;
        while (x != xe && y != ye) {
            Index const u = *x, v = *y;
            x += u <= v;
            y += v <= u;
            ++c;
        }
        count[i + 1] = c + (xe - x) + (ye - y);
    }
    std::partial_sum(count.begin(), count.end(), count.begin());
    if (count[n] > static_cast<std::int64_t>(std::numeric_limits<Index>::max()))
        throw invalid_argument("connected_components: A + A' has " + std::to_string(count[n]) +
                               " entries, more than the index type holds: use int64 indices");
    buffer<Index> rp(n + 1), cj(static_cast<std::size_t>(count[n]));
    for (std::size_t i = 0; i <= n; ++i) rp[i] = static_cast<Index>(count[i]);
    Index* out = cj.data();
#pragma omp parallel for schedule(dynamic, 4096) if (a.nnz() > 65536)
    for (std::size_t i = 0; i < n; ++i) {
        Index const *x = aj + ap[i], *xe = aj + ap[i + 1], *y = tj + tp[i], *ye = tj + tp[i + 1];
        Index* w = out + count[i];
        while (x != xe && y != ye) {
            Index const u = *x, v = *y;
            *w++ = u < v ? u : v;
            x += u <= v;
            y += v <= u;
        }
        w = std::copy(x, xe, w);
        std::copy(y, ye, w);
    }
    return {n, n, std::move(rp), std::move(cj), buffer<bool>{}, true, true};
}

template <class Index>
Index load_label(Index const* p) {
    return std::atomic_ref<Index>(*const_cast<Index*>(p)).load(std::memory_order_relaxed);
}

/// Lowers *p to x when x is smaller.
template <class Index>
void lower_label(Index* p, Index x) {
    std::atomic_ref<Index> r(*p);
    Index old = r.load(std::memory_order_relaxed);
    while (x < old && !r.compare_exchange_weak(old, x, std::memory_order_relaxed)) {
    }
}

/// FastSV, fused: per round one pass over the edges (mngp, and a copy of f for the stochastic
/// hooks' targets), one for the hooks, one for the new grandparents. f holds the parents.
template <class Index>
int fastsv_fused(std::size_t n, Index const* rp, Index const* cj, Index* f) {
    buffer<Index> gp(n), mngp(n), fo(n);
    auto const big = n > 16384;
#pragma omp parallel for schedule(static) if (big)
    for (std::size_t v = 0; v < n; ++v) f[v] = gp[v] = static_cast<Index>(v);
    int rounds = 0;
    for (bool changed = n > 0; changed;) {
        ++rounds;
#pragma omp parallel for schedule(dynamic, 1024) if (big)
        for (std::size_t u = 0; u < n; ++u) {
            Index m = gp[u];
            for (Index k = rp[u]; k < rp[u + 1]; ++k) m = std::min(m, gp[cj[k]]);
            mngp[u] = m;
            fo[u] = f[u];
        }
#pragma omp parallel for schedule(static) if (big)
        for (std::size_t u = 0; u < n; ++u) {
            lower_label(f + fo[u], mngp[u]);  // stochastic hooking
            lower_label(f + u, mngp[u]);      // aggressive hooking (+ shortcut)
        }
        changed = false;
#pragma omp parallel for schedule(static) reduction(|| : changed) if (big)
        for (std::size_t u = 0; u < n; ++u) {
            Index const g = f[f[u]];
            if (g != gp[u]) {
                gp[u] = g;
                changed = true;
            }
        }
    }
    return rounds;
}

/// FastSV on kleene's operations: the same rounds as fastsv_fused, one call per step.
/// `a` is the pattern as an iso matrix of Index (min.second takes operands of one type).
template <class Index>
int fastsv_semiring(std::size_t n, csr_matrix<Index, Index> const& a, Index* out) {
    dense_vector<Index> f(n), gp(n), mngp(n), hooked(n), next_gp(n);
    std::iota(f.begin(), f.end(), Index(0));
    gp = f;
    int rounds = 0;
    for (bool changed = n > 0; changed;) {
        ++rounds;
        // mngp = min(gp, A min.second gp)
        mngp = gp;
        mxv(mngp, no_mask, min_op<Index>{}, a, gp, min_second<Index>{});
        // f(f) min= mngp repeats indices, which GrB_assign leaves undefined: a plain loop
        // (LAGraph's FastSV uses its own reduce-assign for the same reason).
        hooked = f;
        for (std::size_t u = 0; u < n; ++u) hooked[f[u]] = std::min(hooked[f[u]], mngp[u]);
        ewise_add(f, min_op<Index>{}, hooked, mngp);  // aggressive hooking (mngp holds gp too)
        extract(next_gp, f, std::span<Index const>(f.data(), n));  // gp = f(f)
        changed = !std::equal(next_gp.begin(), next_gp.end(), gp.begin());
        std::swap(gp, next_gp);
    }
    std::copy(f.begin(), f.end(), out);
    return rounds;
}

/// Afforest's link: hooks the larger of the two roots under the smaller (compare-and-swap on a
/// root), retrying from the new parents when another thread got there first.
template <class Index, class Label>
void afforest_link(Index u, Index v, Label* comp) {
    Label p1 = load_label(comp + u), p2 = load_label(comp + v);
    while (p1 != p2) {
        // Without a branch: which of the two is larger is a coin toss, and a mispredicted
        // branch here cost 20% of the uniform graph's second round (measured, one thread).
        Label const high = p1 > p2 ? p1 : p2;
        Label const low = p1 + (p2 - high);
        Label p_high = load_label(comp + high);
        if (p_high == low) return;
        if (p_high == high && std::atomic_ref<Label>(comp[high])
                                  .compare_exchange_strong(p_high, low, std::memory_order_relaxed))
            return;
        // p_high is comp[high] as last seen (a failed compare-and-swap wrote the value it found
        // there): one load fewer than reading comp[high] again, on the hot path of the search.
        p1 = load_label(comp + p_high);
        p2 = load_label(comp + low);
    }
}

/// Points every vertex at its root and returns the number of roots (components).
template <class Label>
std::size_t afforest_compress(std::size_t n, Label* comp) {
    std::size_t roots = 0;
#pragma omp parallel for schedule(dynamic, 16384) reduction(+ : roots) if (n > 16384)
    for (std::size_t v = 0; v < n; ++v) {
        Label const first = load_label(comp + v);
        Label c = first;
        for (Label up = load_label(comp + c); up != c; up = load_label(comp + c)) c = up;
        // Written only where it changed: a line left clean is read by the next pass's links on
        // other cores without a transfer from this core's cache.
        if (c != first) std::atomic_ref<Label>(comp[v]).store(c, std::memory_order_relaxed);
        roots += static_cast<std::size_t>(c) == v;
    }
    return roots;
}

inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// The most frequent label among `afforest_samples` vertices drawn by a fixed hash, and how often.
template <class Index>
std::pair<Index, int> most_frequent_label(std::size_t n, Index const* comp) {
    std::vector<Index> s(afforest_samples);
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = comp[mix64(i) % n];
    std::sort(s.begin(), s.end());
    Index best = s[0];
    int best_run = 0;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t j = i;
        while (j < s.size() && s[j] == s[i]) ++j;
        if (static_cast<int>(j - i) > best_run) best_run = static_cast<int>(j - i), best = s[i];
        i = j;
    }
    return {best, best_run};
}

/// Afforest on the rows of A. `symmetric`: A == A', so the vertices of the sampled largest
/// component skip their remaining edges (each such edge is linked from its other end). Otherwise
/// every vertex links all its out-edges: linking each directed edge once from its source joins
/// the weak components without A' (cheaper than making A' for the skip). The labels are made in
/// place in `comp` (n values; the result's own int64 storage, so no second array is made and
/// widened: its pages are first written here by all threads, each on its own static share);
/// *count gets the number of components.
template <class Index, class Label>
int afforest(std::size_t n, Index const* rp, Index const* cj, bool symmetric, Label* comp,
             std::size_t* count, explain_trace* explain) {
    *count = 0;
    auto const big = n > 16384;
    // With a trace: the time of each phase, on one line at the end.
    using clock = std::chrono::steady_clock;
    auto mark = explain ? clock::now() : clock::time_point{};
    std::string phases;
    auto phase = [&](char const* what) {
        if (!explain) return;
        auto const now = clock::now();
        phases += std::string(phases.empty() ? "" : ", ") + what + " " +
                  ms(std::chrono::duration<double>(now - mark).count());
        mark = now;
    };
#pragma omp parallel for schedule(static) if (big)
    for (std::size_t v = 0; v < n; ++v) comp[v] = static_cast<Label>(v);
    if (n == 0) return 0;
    phase("labels");
    for (int r = 0; r < afforest_rounds; ++r) {
#pragma omp parallel for schedule(dynamic, 16384) if (big)
        for (std::size_t u = 0; u < n; ++u)
            if (rp[u] + r < rp[u + 1]) afforest_link(static_cast<Index>(u), cj[rp[u] + r], comp);
        phase("link");
        afforest_compress(n, comp);
        phase("compress");
    }
    // A label no vertex has when nothing is skipped.
    Label c = static_cast<Label>(n);
    if (symmetric) {
        auto const [label, hits] = most_frequent_label(n, comp);
        c = label;
        if (explain)
            explain->add("connected_components: afforest: after " +
                         std::to_string(afforest_rounds) +
                         " neighbour rounds the largest component holds " + std::to_string(hits) +
                         " of " + std::to_string(afforest_samples) +
                         " sampled vertices: its vertices skip the final pass");
    } else if (explain) {
        explain->add(
            "connected_components: afforest on A as given (not symmetric): every vertex "
            "links all its out-edges, no component is skipped");
    }
#pragma omp parallel for schedule(dynamic, 16384) if (big)
    for (std::size_t u = 0; u < n; ++u) {
        if (load_label(comp + u) == c) continue;
        for (Index k = rp[u] + afforest_rounds; k < rp[u + 1]; ++k)
            afforest_link(static_cast<Index>(u), cj[k], comp);
    }
    phase("sample and final links");
    *count = afforest_compress(n, comp);
    phase("compress");
    if (explain) explain->add("connected_components: afforest phases: " + phases);
    return afforest_rounds + 1;
}

/// A device CSR's structure as a Boolean pattern (device-to-device copies of the index arrays).
template <class T, class Index>
csr_matrix<bool, Index, device> cc_pattern_on_device(csr_matrix<T, Index, device> const& a) {
    return {a.rows(), a.cols(), a.row_ptr_storage(), a.col_idx_storage(), buffer<bool, device>{},
            true,     true};
}

/// The pattern of A + A' on the device (kleene's device transpose and union, on an int32 iso
/// copy of the structure: the device operations have no Boolean instances).
template <class T, class Index>
csr_matrix<bool, Index, device> cc_symmetrised_on_device(csr_matrix<T, Index, device> const& a) {
    std::size_t const n = a.rows();
    csr_matrix<std::int32_t, Index, device> const s(n, n, a.row_ptr_storage(), a.col_idx_storage(),
                                                    buffer<std::int32_t, device>{}, 1, true);
    csr_matrix<std::int32_t, Index, device> t(n, n), u(n, n);
    cuda::transpose(t, s);
    cuda::ewise_add(u, first_op<std::int32_t>{}, s, t);
    return {n,
            n,
            std::move(u.row_ptr_storage()),
            std::move(u.col_idx_storage()),
            buffer<bool, device>{},
            true,
            true};
}

inline void count_roots(cc_result& r) {
    std::size_t count = 0;
    auto const n = r.component.size();
#pragma omp parallel for schedule(static) reduction(+ : count) if (n > 65536)
    for (std::size_t v = 0; v < n; ++v) count += r.component[v] == static_cast<std::int64_t>(v);
    r.count = count;
}

/// The CPU methods on a pattern given by its index arrays (symmetric: A == A'; FastSV needs it).
template <class Index>
void cc_cpu(std::size_t n, Index const* rp, Index const* cj, bool symmetric, cc_method method,
            cc_options const& opt, cc_result& r) {
    auto const t0 = std::chrono::steady_clock::now();
    buffer<Index> label(method == cc_method::afforest ? 0 : n);
    if (method == cc_method::afforest) {
        // Labelled in the result itself, int64: no int32 array to make and widen after. On the
        // 16-core H200 host at scale 22 (2026-11-28) a fresh call went from 1.07-1.10x the GAP-
        // method peer to 0.93-0.98x, a reused result from 0.95-0.99x to 0.88-0.89x (the labels,
        // 32 MiB, stay in its 300 MiB L3 either way).
        r.component.resize(n);
        r.iterations = afforest(n, rp, cj, symmetric, r.component.data(), &r.count, opt.explain);
    } else if (opt.fused) {
        r.iterations = fastsv_fused(n, rp, cj, label.data());
    } else {
        auto const m = static_cast<std::size_t>(rp[n]);
        csr_matrix<Index, Index> a(n, n, buffer<Index>(n + 1), buffer<Index>(m), buffer<Index>{},
                                   Index(1), true);
        std::copy(rp, rp + n + 1, a.row_ptr());
        std::copy(cj, cj + m, a.col_idx());
        r.iterations = fastsv_semiring(n, a, label.data());
    }
    if (method != cc_method::afforest) {
        r.component.resize(n);
#pragma omp parallel for schedule(static) if (n > 65536)
        for (std::size_t v = 0; v < n; ++v) r.component[v] = static_cast<std::int64_t>(label[v]);
        count_roots(r);
    }
    if (opt.explain)
        opt.explain->add(
            std::string("connected_components: ") + to_string(method) +
            (method == cc_method::fastsv ? (opt.fused ? " (fused loop)" : " (kleene operations)")
                                         : "") +
            ": " + std::to_string(r.iterations) +
            (method == cc_method::fastsv ? " rounds, " : " passes, ") + std::to_string(r.count) +
            " components, " +
            ms(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
}

/// The CPU's automatic choice: Afforest, measured 3-10x faster than FastSV on one core (2^18
/// vertices: Kronecker, uniform of degree 0.5 to 16, a scrambled path); only disjoint 8-cliques
/// favoured FastSV, slightly.
inline constexpr cc_method cpu_automatic_cc = cc_method::afforest;

inline void cc_trace_device(cc_options const& opt, std::size_t n, std::size_t edges, bool gpu,
                            bool on_device) {
    if (!opt.explain) return;
    std::string why;
    if (opt.device != device_choice::automatic)
        why = " (pinned)";
    else if (on_device)
        why = " (a device graph)";
    else if (gpu)
        why = " (a device and >= " + std::to_string(opt.gpu_min_edges) + " edges)";
    else if (cuda::device_count() == 0)
        why = " (no device)";
    else if (opt.gpu_min_edges == std::numeric_limits<std::size_t>::max())
        why = " (host graph: one run does not repay the copy)";
    else
        why = " (fewer than " + std::to_string(opt.gpu_min_edges) + " edges)";
    opt.explain->add("connected_components: n=" + std::to_string(n) +
                     ", edges=" + std::to_string(edges) + ": " + (gpu ? "gpu" : "cpu") + why);
}

/// The GPU run on a symmetric device pattern.
template <class Index>
void cc_gpu(csr_matrix<bool, Index, device> const& p, cc_options const& opt, cc_result& r,
            dense_vector<std::int64_t, device>* component = nullptr) {
    // Afforest on the GPU too unless pinned: measured faster than FastSV, the same labels
    // (docs/performance.md, "Graph-analytics kernels").
    cc_method const m = opt.method == cc_method::fastsv ? cc_method::fastsv : cc_method::afforest;
    auto const kernel =
        m == cc_method::fastsv ? cuda::cc_kernel::fastsv : cuda::cc_kernel::afforest;
    if (component && component->size() != p.rows())
        *component = dense_vector<std::int64_t, device>(p.rows());
    cuda::cc_run run;
    if (component) {
        run = cuda::connected_components<Index>(p, *component, kernel, resolve(opt.ctx));
    } else {
        run.component = std::move(r.component);  // its storage, for the labels
        cuda::connected_components<Index>(run, p, kernel, resolve(opt.ctx));
    }
    r.device = device_choice::gpu;
    r.method = m;
    r.component = std::move(run.component);
    r.count = run.count;
    r.iterations = run.iterations;
    if (opt.explain) {
        opt.explain->add(std::string("connected_components: gpu ") + to_string(m) +
                         (opt.method == cc_method::automatic
                              ? " (automatic: measured faster than FastSV; docs/performance.md)"
                              : " (pinned)") +
                         ": " + std::to_string(r.iterations) + " iterations, " +
                         std::to_string(r.count) + " components, " + ms(run.seconds));
        for (auto& line : run.notes) opt.explain->add("connected_components: gpu: " + line);
    }
}

}  // namespace detail

/// Connected components of a host graph (weakly connected components when A is directed and
/// opt.symmetric is not set), into r: on the CPU r.component's storage is reused when it already
/// holds n labels (a loop over graphs of one size then allocates and faults in no new pages).
/// After an exception r holds no meaningful result.
template <class T, index_type Index>
void connected_components(cc_result& r, csr_matrix<T, Index> const& a,
                          cc_options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("connected_components: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    std::size_t const n = a.rows();
    bool gpu = false;
    if (opt.device == device_choice::gpu) {
        cuda::require_device();  // no GPU: no_device, never a silent CPU run
        gpu = true;
    } else if (opt.device == device_choice::automatic) {
        gpu = a.nnz() >= opt.gpu_min_edges && cuda::device_count() > 0;
    }
    detail::cc_trace_device(opt, n, a.nnz(), gpu, false);

    cc_method m = opt.method;
    if (!gpu && m == cc_method::automatic) {
        m = detail::cpu_automatic_cc;
        if (opt.explain)
            opt.explain->add(std::string("connected_components: method ") + to_string(m) +
                             " (automatic: measured faster than fastsv on every CPU graph but "
                             "disjoint small cliques)");
    }
    // FastSV and the GPU need A + A'; Afforest on the CPU links A's out-edges as they are.
    bool const symmetrise = !opt.symmetric && (gpu || m == cc_method::fastsv);
    r.count = 0;
    r.iterations = 0;
    std::optional<csr_matrix<bool, Index>> sym;
    if (symmetrise) {
        auto const t0 = std::chrono::steady_clock::now();
        sym.emplace(detail::symmetrised_pattern(a));
        if (opt.explain)
            opt.explain->add(
                "connected_components: symmetrised A + A' (" + std::to_string(sym->nnz()) +
                " entries, " +
                detail::ms(
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()) +
                "): weakly connected components");
    } else if (opt.explain && opt.symmetric) {
        opt.explain->add("connected_components: A is symmetric (caller's promise): used as is");
    }
    Index const* rp = sym ? sym->row_ptr() : a.row_ptr();
    Index const* cj = sym ? sym->col_idx() : a.col_idx();
    if (gpu) {
        auto const edges = static_cast<std::size_t>(rp[n]);
        // The host structure on the device for this call: temporaries of the context's pool.
        context& ctx = resolve(opt.ctx);
        detail::cc_gpu(csr_matrix<bool, Index, device>(n, n,
                                                       cuda::temporary_copy_of_host(rp, n + 1, ctx),
                                                       cuda::temporary_copy_of_host(cj, edges, ctx),
                                                       buffer<bool, device>{}, true, true),
                       opt, r);
        return;
    }
    r.method = m;
    r.device = device_choice::cpu;
    detail::cc_cpu(n, rp, cj, opt.symmetric || symmetrise, m, opt, r);
}

/// Connected components of a host graph, as a new result.
template <class T, index_type Index>
cc_result connected_components(csr_matrix<T, Index> const& a, cc_options const& opt = {}) {
    cc_result r;
    connected_components(r, a, opt);
    return r;
}

namespace detail {
/// Connected components of a device graph into r, or with the labels left in `component` (a
/// device vector, resized to n; r.component then stays empty).
template <class T, class Index>
void cc_device_into(cc_result& r, csr_matrix<T, Index, device> const& a, cc_options const& opt,
                    dense_vector<std::int64_t, device>* component) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("connected_components: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (opt.device == device_choice::cpu)
        throw invalid_argument(
            "connected_components: device=cpu was asked for a device graph; copy it with "
            "to_host() first");
    cuda::require_device();
    detail::cc_trace_device(opt, a.rows(), a.nnz(), true, true);
    if (opt.symmetric) {
        detail::cc_gpu(detail::cc_pattern_on_device(a), opt, r, component);
    } else {
        if (opt.explain)
            opt.explain->add(
                "connected_components: symmetrised A + A' on the device: weakly connected "
                "components");
        detail::cc_gpu(detail::cc_symmetrised_on_device(a), opt, r, component);
    }
}
}  // namespace detail

/// Connected components of a device graph into r, on the GPU: r's component vector keeps its
/// storage, so that a caller running again into the last result writes into memory it has
/// already touched.
template <class T, index_type Index>
void connected_components(cc_result& r, csr_matrix<T, Index, device> const& a,
                          cc_options const& opt = {}) {
    detail::cc_device_into(r, a, opt, nullptr);
}

/// Connected components of a device graph, on the GPU (device=cpu is refused: copy the graph with
/// to_host() first).
template <class T, index_type Index>
cc_result connected_components(csr_matrix<T, Index, device> const& a, cc_options const& opt = {}) {
    cc_result r;
    detail::cc_device_into(r, a, opt, nullptr);
    return r;
}

/// The same with the labels left on the device, in `component` (resized to n when it is not;
/// the result's component vector stays empty).
template <class T, index_type Index>
cc_result connected_components(dense_vector<std::int64_t, device>& component,
                               csr_matrix<T, Index, device> const& a, cc_options const& opt = {}) {
    cc_result r;
    detail::cc_device_into(r, a, opt, &component);
    return r;
}

}  // namespace kleene

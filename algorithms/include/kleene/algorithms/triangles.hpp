#pragma once
// Triangle counting.
//
//   triangle_count(A, options)   exact 64-bit count of an undirected graph, CPU or GPU, host or
//                                device graphs
//
// The method is Sandia's masked product as LAGraph writes it: with L and U the strict lower and
// upper triangles of A, the triangles are sum(C) for C<L> = L plus.pair U'. Transposed that is
// C'<U> = U plus.pair U (U' = L), which is what runs here: for each edge (i, k) of U and each
// edge (k, j) of U, count j when (i, j) is in U too; every triangle i < k < j is counted once. The
// work is the number of wedges, sum over k of |L(k,:)| * |U(k,:)|; renumbering the vertices by
// increasing degree first (Sandia's / LAGraph's presort) leaves every high-degree vertex few
// higher neighbours, which cuts that sum on skewed graphs.
//
// The fused CPU kernel marks row i of U in a per-thread bitmap (n bits: L1/L2 resident) and
// checks the rows U(k,:) of its entries against it, stopping each row at the last entry of U(i,:);
// rows go to threads dynamically. The other path is the same product written with kleene::mxm (a
// structural mask and plus_pair) and kleene::reduce, kept as the algebraic statement and checked
// against the fused kernel by the tests.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/mxm.hpp>
#include <kleene/options.hpp>
#include <kleene/reduce.hpp>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace kleene {

enum class tc_method : std::uint8_t {
    automatic,
    fused,  ///< the bitmap kernel (CPU)
    mxm,    ///< kleene::mxm with a structural mask and plus_pair, then kleene::reduce (CPU)
};

/// Whether to renumber the vertices by increasing degree before counting.
enum class tc_relabel : std::uint8_t { automatic, always, never };

inline char const* to_string(tc_method m) {
    return m == tc_method::fused ? "fused" : m == tc_method::mxm ? "mxm" : "auto";
}

struct tc_options {
    device_choice device = device_choice::automatic;
    tc_method method = tc_method::automatic;
    tc_relabel relabel = tc_relabel::automatic;
    /// The caller promises A == A' (structure): the check (a transpose and a comparison) is
    /// skipped. Without it a pattern that is not symmetric throws invalid_argument.
    bool symmetric = false;
    /// automatic runs on the GPU when there is one and A has at least this many entries; the
    /// default keeps host graphs on the CPU. Device graphs always run on the GPU.
    std::size_t gpu_min_edges = std::numeric_limits<std::size_t>::max();
    /// One line per decision: device, symmetry check, relabelling and why, method, time.
    explain_trace* explain = nullptr;
    /// The context the GPU runs on (its device, stream and scratch; null: default_context()).
    context* ctx = nullptr;
};

struct tc_result {
    std::uint64_t triangles = 0;
    bool relabelled = false;  ///< vertices were renumbered by degree before counting
    tc_method method = tc_method::automatic;
    device_choice device = device_choice::cpu;
};

namespace detail {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A's structure equals A''s (rows are sorted and unique, so the arrays compare exactly).
template <class T, class Index>
bool symmetric_structure(csr_matrix<T, Index> const& a) {
    auto const t = cpu::transpose_csr(pattern_of(a));
    return std::equal(a.row_ptr(), a.row_ptr() + a.rows() + 1, t.row_ptr()) &&
           std::equal(a.col_idx(), a.col_idx() + a.nnz(), t.col_idx());
}

/// Relabel when E[d^2] / E[d]^2 (1 + the squared coefficient of variation of the degrees) passes
/// this. Measured on one core (scale-17 graphs, relabelling included): Kronecker edge factor 16
/// with a = 0.57 / 0.45 / 0.40 (ratio 11.5 / 3.2 / 2.0) ran 1.44x / 1.24x / 1.03x faster
/// relabelled, edge factor 2..8 (ratio 38..47) 1.19..1.78x; uniform graphs (ratio 1.03..1.25)
/// 0.65..1.13x.
inline constexpr double skew_ratio = 2.0;

/// E[d^2] / E[d]^2 over n vertices of degree(v), m entries in all, against skew_ratio.
template <class Degree>
bool skewed_by(std::size_t n, double m, Degree const& degree, std::string& why) {
    double sum2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum2) if (n > 65536)
    for (std::size_t v = 0; v < n; ++v) {
        double const d = degree(v);
        sum2 += d * d;
    }
    double const ratio = m > 0 ? sum2 * static_cast<double>(n) / (m * m) : 1.0;
    bool const skew = ratio > skew_ratio;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s (degrees: E[d^2] / E[d]^2 = %.2f %s %.1f)",
                  skew ? "relabel by degree" : "no relabelling", ratio,
                  skew ? ">" : "<=", skew_ratio);
    why = buf;
    return skew;
}

/// The measured rule for tc_relabel::automatic (see skew_ratio). Reads the row pointers only.
template <class Index>
bool skewed_degrees(std::size_t n, Index const* rp, std::string& why) {
    return skewed_by(
        n, n ? static_cast<double>(rp[n]) : 0.0,
        [rp](std::size_t v) { return static_cast<double>(rp[v + 1] - rp[v]); }, why);
}

/// The same from the out-degrees (a device graph's, kept by kleene::graph).
inline bool skewed_degrees(std::vector<std::int64_t> const& degree, std::string& why) {
    double m = 0;
    for (std::int64_t d : degree) m += static_cast<double>(d);
    return skewed_by(
        degree.size(), m, [&](std::size_t v) { return static_cast<double>(degree[v]); }, why);
}

/// U as row ranges [begin[i], end[i]) of `col` (sorted), with an owner for the arrays it made.
template <class Index>
struct upper_rows {
    buffer<Index> begin_store, col_store;
    Index const* begin = nullptr;
    Index const* end = nullptr;
    Index const* col = nullptr;
};

/// U of A itself: the part of each row past the diagonal (only the row starts are new).
template <class Index>
upper_rows<Index> upper_in_place(std::size_t n, Index const* rp, Index const* cj) {
    upper_rows<Index> u;
    u.begin_store = buffer<Index>(n);
    Index* b = u.begin_store.data();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i)
        b[i] = static_cast<Index>(
            std::upper_bound(cj + rp[i], cj + rp[i + 1], static_cast<Index>(i)) - cj);
    u.begin = b;
    u.end = rp + 1;
    u.col = cj;
    return u;
}

/// U after renumbering by increasing degree (ties by vertex number): row p holds the new numbers
/// above p of the neighbours of the vertex that became p, sorted.
template <class Index>
upper_rows<Index> upper_relabelled(std::size_t n, Index const* rp, Index const* cj) {
    // Counting sort of the vertices by degree gives every vertex its new number.
    Index max_deg = 0;
    for (std::size_t v = 0; v < n; ++v) max_deg = std::max<Index>(max_deg, rp[v + 1] - rp[v]);
    std::vector<Index> start(static_cast<std::size_t>(max_deg) + 2, 0);
    for (std::size_t v = 0; v < n; ++v) ++start[static_cast<std::size_t>(rp[v + 1] - rp[v]) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    buffer<Index> id(n);
    for (std::size_t v = 0; v < n; ++v)
        id[v] = start[static_cast<std::size_t>(rp[v + 1] - rp[v])]++;

    upper_rows<Index> u;
    u.begin_store = buffer<Index>(n + 1);
    Index* up = u.begin_store.data();
    up[0] = 0;
    bool const big = rp[n] > 65536;
#pragma omp parallel for schedule(static) if (big)
    for (std::size_t v = 0; v < n; ++v) {
        Index c = 0;
        for (Index k = rp[v]; k < rp[v + 1]; ++k) c += id[cj[k]] > id[v];
        up[id[v] + 1] = c;
    }
    for (std::size_t p = 0; p < n; ++p) up[p + 1] += up[p];
    u.col_store = buffer<Index>(static_cast<std::size_t>(up[n]));
    Index* uc = u.col_store.data();
#pragma omp parallel for schedule(dynamic, 1024) if (big)
    for (std::size_t v = 0; v < n; ++v) {
        Index const p = id[v];
        Index* w = uc + up[p];
        for (Index k = rp[v]; k < rp[v + 1]; ++k)
            if (id[cj[k]] > p) *w++ = id[cj[k]];
        std::sort(uc + up[p], w);
    }
    u.begin = up;
    u.end = up + 1;
    u.col = uc;
    return u;
}

/// The fused kernel: for every row i of U, mark U(i,:) and count the entries of U(k,:), k in
/// U(i,:), that are marked (only those up to max U(i,:) can be).
template <class Index>
std::uint64_t count_fused(std::size_t n, upper_rows<Index> const& u) {
    std::size_t const words = (n + 63) / 64;
    int const threads = cpu::max_threads();
    std::vector<buffer<std::uint64_t>> bits;
    for (int t = 0; t < threads; ++t) bits.emplace_back(words, std::uint64_t(0));
    Index const* ub = u.begin;
    Index const* ue = u.end;
    Index const* uc = u.col;
    std::uint64_t total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total) if (n > 4096)
    {
        std::uint64_t* b = bits[static_cast<std::size_t>(omp_get_thread_num())].data();
#pragma omp for schedule(dynamic, 64)
        for (std::size_t i = 0; i < n; ++i) {
            Index const* r = uc + ub[i];
            Index const* re = uc + ue[i];
            if (re - r < 2) continue;
            Index const last = re[-1];
            for (Index const* p = r; p != re; ++p)
                b[static_cast<std::size_t>(*p) >> 6] |= std::uint64_t(1) << (*p & 63);
            std::uint64_t c = 0;
            // The last entry k = max U(i,:) has no marked entries above it: skipped.
            for (Index const* p = r; p != re - 1; ++p) {
                Index const k = *p;
                for (Index const* q = uc + ub[k]; q != uc + ue[k] && *q <= last; ++q)
                    c += (b[static_cast<std::size_t>(*q) >> 6] >> (*q & 63)) & 1;
            }
            for (Index const* p = r; p != re; ++p) b[static_cast<std::size_t>(*p) >> 6] = 0;
            total += c;
        }
    }
    return total;
}

/// Triangles closed by merging sorted rows: for every row i (its part above the diagonal, as
/// upper(i) gives it: a pointer pair) and every k in it, the entries of row k (row(k)) met again in
/// upper(i) after k. Entries of row(k) at or below k are below those and only pass by, so row(k)
/// may be all of A(k,:) or U(k,:) alone.
template <class Index, class Upper, class Row>
std::uint64_t count_merged(std::size_t n, Upper&& upper, Row&& row) {
    std::uint64_t total = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : total) if (n > 4096)
    for (std::size_t i = 0; i < n; ++i) {
        auto const [r, re] = upper(i);
        if (re - r < 2) continue;
        std::uint64_t c = 0;
        for (Index const* p = r; p + 1 != re; ++p) {
            Index const* a = p + 1;
            auto [b, be] = row(static_cast<std::size_t>(*p));
            while (a != re && b != be) {
                Index const x = *a, y = *b;
                c += x == y;
                a += x <= y;
                b += y <= x;
            }
        }
        total += c;
    }
    return total;
}

/// The fused count by merging sorted rows of U instead of marking a bitmap. For short rows (road
/// networks, meshes: U's rows hold one to three entries) a merge of a few words beats setting,
/// testing and clearing bits of a per-thread n-bit map, which at millions of vertices lives in
/// L2, not L1.
template <class Index>
std::uint64_t count_merge(std::size_t n, upper_rows<Index> const& u) {
    auto const rows = [&](std::size_t i) {
        return std::pair<Index const*, Index const*>(u.col + u.begin[i], u.col + u.end[i]);
    };
    return count_merged<Index>(n, rows, rows);
}

/// count_merge on A itself, without building U (not relabelled): row i's entries above i are
/// found by a scan (rows are short where this runs), and each row k is all of A(k,:).
template <class Index>
std::uint64_t count_merge_in_place(std::size_t n, Index const* rp, Index const* cj) {
    return count_merged<Index>(
        n,
        [&](std::size_t i) {
            Index const* r = cj + rp[i];
            Index const* const re = cj + rp[i + 1];
            while (r != re && static_cast<std::size_t>(*r) <= i) ++r;
            return std::pair<Index const*, Index const*>(r, re);
        },
        [&](std::size_t k) {
            return std::pair<Index const*, Index const*>(cj + rp[k], cj + rp[k + 1]);
        });
}

/// Mean entries a row of U at or below which the fused method merges rows (count_merge) rather
/// than marking a bitmap (count_fused). Measured on 2 threads (bench_graph_kernels, 2026-11-29):
/// road NE (1.27 a row) 11.4 ms merged in place against 17.5 with the bitmap (gapbs 12.4-12.8);
/// uniform scale 20 with 1, 2, 4, 8 a row: merged 10.0, 27.1, 106, 461 ms, bitmap 11.4, 25.2,
/// 65, 235 ms.
inline constexpr double tc_merge_max_row = 2.0;

/// The same count as sum(C<U> = U plus.pair U) through kleene::mxm and kleene::reduce.
template <class Index>
std::uint64_t count_mxm(std::size_t n, upper_rows<Index> const& u, explain_trace* explain) {
    using C = std::uint64_t;
    buffer<Index> rp(n + 1);
    rp[0] = 0;
    for (std::size_t i = 0; i < n; ++i) rp[i + 1] = rp[i] + (u.end[i] - u.begin[i]);
    buffer<Index> cj(static_cast<std::size_t>(rp[n]));
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i)
        std::copy(u.col + u.begin[i], u.col + u.end[i], cj.data() + rp[i]);
    csr_matrix<C, Index> const um(n, n, std::move(rp), std::move(cj), buffer<C>{}, C(1), true);
    csr_matrix<C, Index> c(n, n);
    options o;
    o.explain = explain;
    mxm(c, structure(um), no_accum, um, um, plus_pair<C>{}, o);
    return reduce(plus_monoid<C>{}, c);
}

template <class Index>
bool decide_relabel(tc_relabel choice, std::size_t n, Index const* rp, std::string& why) {
    if (choice == tc_relabel::always) {
        why = "relabel by degree (pinned)";
        return true;
    }
    if (choice == tc_relabel::never) {
        why = "no relabelling (pinned)";
        return false;
    }
    return skewed_degrees(n, rp, why);
}

inline void tc_trace_device(tc_options const& opt, std::size_t n, std::size_t edges, bool gpu,
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
        why = " (host graph: one count does not repay the copy)";
    else
        why = " (fewer than " + std::to_string(opt.gpu_min_edges) + " edges)";
    opt.explain->add("triangle_count: n=" + std::to_string(n) + ", edges=" + std::to_string(edges) +
                     ": " + (gpu ? "gpu" : "cpu") + why);
}

template <class Index>
void tc_gpu(csr_matrix<bool, Index, device> const& p, bool relabel, tc_options const& opt,
            tc_result& r) {
    if (opt.method == tc_method::mxm)
        throw invalid_argument(
            "triangle_count: method mxm runs on the CPU only; the GPU has its own kernel");
    auto run = cuda::triangle_count<Index>(p, relabel, {}, resolve(opt.ctx));
    r.triangles = run.triangles;
    r.relabelled = run.relabelled;
    r.method = tc_method::fused;
    r.device = device_choice::gpu;
    if (opt.explain) {
        opt.explain->add("triangle_count: gpu kernel: " + std::to_string(r.triangles) +
                         " triangles, " + ms(run.seconds));
        for (auto& line : run.notes) opt.explain->add("triangle_count: gpu: " + line);
    }
}

inline std::string not_symmetric(char const* where) {
    return std::string("triangle_count: the pattern of A is not symmetric") + where +
           " (an undirected graph stores both (i, j) and (j, i)); symmetrise it, or set "
           "tc_options::symmetric to count with its structure as given";
}

}  // namespace detail

/// Triangles of the undirected graph A (a symmetric pattern; values and self-loops ignored).
template <class T, index_type Index>
tc_result triangle_count(csr_matrix<T, Index> const& a, tc_options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("triangle_count: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    std::size_t const n = a.rows();
    bool gpu = false;
    if (opt.device == device_choice::gpu) {
        cuda::require_device();  // no GPU: no_device, never a silent CPU run
        gpu = true;
    } else if (opt.device == device_choice::automatic) {
        // The mxm path exists on the CPU only: pinning it keeps an automatic run there.
        gpu = opt.method != tc_method::mxm && a.nnz() >= opt.gpu_min_edges &&
              cuda::device_count() > 0;
    }
    detail::tc_trace_device(opt, n, a.nnz(), gpu, false);
    if (gpu && opt.method == tc_method::mxm)
        throw invalid_argument("triangle_count: method mxm runs on the CPU only");

    if (!opt.symmetric) {
        auto const t0 = std::chrono::steady_clock::now();
        if (!detail::symmetric_structure(a)) throw invalid_argument(detail::not_symmetric(""));
        if (opt.explain)
            opt.explain->add("triangle_count: checked that A's pattern is symmetric (" +
                             detail::ms(detail::seconds_since(t0)) + ")");
    }
    std::string why;
    bool const relabel = detail::decide_relabel(opt.relabel, n, a.row_ptr(), why);
    if (opt.explain) opt.explain->add("triangle_count: " + why);

    tc_result r;
    if (gpu) {
        detail::tc_gpu(
            csr_matrix<bool, Index, device>(n, n, a.row_ptr_storage().template copy_to<device>(),
                                            a.col_idx_storage().template copy_to<device>(),
                                            buffer<bool, device>{}, true, true),
            relabel, opt, r);
        return r;
    }
    r.device = device_choice::cpu;
    r.relabelled = relabel;
    r.method = opt.method == tc_method::mxm ? tc_method::mxm : tc_method::fused;
    auto t0 = std::chrono::steady_clock::now();
    // Short rows, not relabelled: merged in place, U never built (its row starts alone cost a
    // search a row and an array of n).
    double const mean_upper = n ? double(a.nnz()) / double(n) / 2 : 0.0;
    if (!relabel && r.method == tc_method::fused && mean_upper <= detail::tc_merge_max_row) {
        r.triangles = detail::count_merge_in_place(n, a.row_ptr(), a.col_idx());
        if (opt.explain) {
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "triangle_count: fused kernel merging A's sorted rows in place (about "
                          "%.2f entries a row above the diagonal; rows merged at %d or fewer), "
                          "rows scheduled dynamically (%s): %llu triangles, ",
                          mean_upper, int(detail::tc_merge_max_row),
                          opt.method == tc_method::automatic ? "automatic" : "pinned",
                          static_cast<unsigned long long>(r.triangles));
            opt.explain->add(buf + detail::ms(detail::seconds_since(t0)));
        }
        return r;
    }
    auto const u = relabel ? detail::upper_relabelled(n, a.row_ptr(), a.col_idx())
                           : detail::upper_in_place(n, a.row_ptr(), a.col_idx());
    if (opt.explain)
        opt.explain->add(
            std::string("triangle_count: U = ") +
            (relabel ? "upper triangle after renumbering by degree" : "upper triangle") + " (" +
            detail::ms(detail::seconds_since(t0)) + ")");
    t0 = std::chrono::steady_clock::now();
    std::int64_t upper_entries = 0;
#pragma omp parallel for schedule(static) reduction(+ : upper_entries) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i) upper_entries += u.end[i] - u.begin[i];
    double const mean_row = n ? double(upper_entries) / double(n) : 0.0;
    char mean_text[32];
    std::snprintf(mean_text, sizeof mean_text, "%.2f", mean_row);
    bool const merge = r.method == tc_method::fused && mean_row <= detail::tc_merge_max_row;
    r.triangles = r.method == tc_method::mxm ? detail::count_mxm(n, u, opt.explain)
                  : merge                    ? detail::count_merge(n, u)
                                             : detail::count_fused(n, u);
    if (opt.explain)
        opt.explain->add(std::string("triangle_count: ") +
                         (r.method == tc_method::fused
                              ? std::string(merge ? "fused kernel merging sorted rows"
                                                  : "fused bitmap kernel") +
                                    " (U's rows hold " + mean_text +
                                    " entries on average; rows merged at " +
                                    std::to_string(int(detail::tc_merge_max_row)) +
                                    " or fewer), rows scheduled dynamically"
                              : "C<U> = U plus.pair U by kleene::mxm, sum by kleene::reduce") +
                         (opt.method == tc_method::automatic ? " (automatic)" : " (pinned)") +
                         ": " + std::to_string(r.triangles) + " triangles, " +
                         detail::ms(detail::seconds_since(t0)));
    return r;
}

namespace detail {
/// triangle_count of a device A; degree: null, or its out-degrees (kept by kleene::graph) that the
/// automatic relabelling rule reads instead of copying the n + 1 row pointers to the host.
template <class T, class Index>
tc_result tc_device(csr_matrix<T, Index, device> const& a, tc_options const& opt,
                    std::vector<std::int64_t> const* degree) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("triangle_count: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (opt.device == device_choice::cpu)
        throw invalid_argument(
            "triangle_count: device=cpu was asked for a device graph; copy it with to_host() "
            "first");
    if (opt.method == tc_method::mxm)
        throw invalid_argument("triangle_count: method mxm runs on the CPU only");
    cuda::require_device();
    std::size_t const n = a.rows();
    detail::tc_trace_device(opt, n, a.nnz(), true, true);
    if (!opt.symmetric) {
        // Symmetric exactly when A and A' have all their entries in common. The device operations
        // have no Boolean instances: an int32 iso copy of the structure stands in.
        csr_matrix<std::int32_t, Index, device> const s(n, n, a.row_ptr_storage(),
                                                        a.col_idx_storage(),
                                                        buffer<std::int32_t, device>{}, 1, true);
        csr_matrix<std::int32_t, Index, device> t(n, n), both(n, n);
        cuda::transpose(t, s);
        cuda::ewise_mult(both, first_op<std::int32_t>{}, s, t);
        if (both.nnz() != s.nnz()) throw invalid_argument(detail::not_symmetric(" (device graph)"));
        if (opt.explain)
            opt.explain->add("triangle_count: checked on the device that A's pattern is symmetric");
    }
    std::string why;
    bool relabel = opt.relabel == tc_relabel::always;
    if (opt.relabel == tc_relabel::automatic && degree) {
        relabel = detail::skewed_degrees(*degree, why);
    } else if (opt.relabel == tc_relabel::automatic) {
        auto const rp = a.row_ptr_storage().template copy_to<host>();
        relabel = detail::skewed_degrees(n, rp.data(), why);
    } else {
        detail::decide_relabel(opt.relabel, n, static_cast<Index const*>(nullptr), why);
    }
    if (opt.explain) opt.explain->add("triangle_count: " + why);
    tc_result r;
    detail::tc_gpu(csr_matrix<bool, Index, device>(n, n, a.row_ptr_storage(), a.col_idx_storage(),
                                                   buffer<bool, device>{}, true, true),
                   relabel, opt, r);
    return r;
}
}  // namespace detail

/// Triangles of an undirected device graph, on the GPU (device=cpu is refused: copy the graph with
/// to_host() first). The symmetry check runs on the device; the automatic relabelling rule reads
/// the n + 1 row pointers on the host (a kleene::graph's kept degrees instead, graph.hpp).
template <class T, index_type Index>
tc_result triangle_count(csr_matrix<T, Index, device> const& a, tc_options const& opt = {}) {
    return detail::tc_device(a, opt, nullptr);
}

}  // namespace kleene

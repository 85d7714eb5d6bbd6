#pragma once
// PageRank.
//
//   pagerank(A, options)   ranks of the vertices of the graph A (row u: the out-edges of u)
//   pagerank(r, A, options)  the same into a result whose rank vector's storage is reused
//
// The iteration is the GAP benchmark's (and LAGraph's LAGr_PageRankGAP / LAGr_PageRank): ranks
// start at 1/n and every step computes, for every vertex v at once (Jacobi),
//
//   r'(v) = (1 - d) / n + d * sum over in-edges u -> v of r(u) / outdeg(u)      (dangling: gap)
//   r'(v) = (1 - d) / n + d * (sum ... + (rank of the vertices without out-edges) / n)
//                                                                        (dangling: redistribute)
//
// until the L1 norm of r' - r falls below the tolerance or max_iterations steps ran. The DEFAULT
// is the GAP definition (dangling = gap): the rank of a vertex without out-edges is lost each
// step, so the ranks sum to less than 1 when there is such a vertex. `redistribute` spreads it
// evenly over all vertices (LAGraph's LAGr_PageRank, networkx): the ranks then sum to 1. A
// self-loop is an out-edge like any other.
//
// `gauss_seidel` is GAP's own pr.cc: one pull pass a step that writes each vertex's new rank and
// contribution in place, so that vertices later in the pass (on any thread) already read it. The
// fixed point is the Jacobi one and the stopping rule the same (the L1 change of a pass below the
// tolerance); the steps are far fewer on road networks (NE: 18 against 37) and fewer elsewhere
// (Kronecker scale 22: 5 against 7, uniform: 4 against 6). The automatic method on the CPU is
// Gauss-Seidel on every graph: on 16 threads of the H200 host (2026-12-01) Kronecker scale 22
// took 167-198 ms in place against the Jacobi pass's 220-287 (the in-place pass cost 1.9 times the
// Jacobi one there on 2026-11-28, before its stores, sums and shares were reworked, and the rule
// was then Jacobi for skewed degrees). On an undirected graph (`symmetric`) the in-place pass is
// over-relaxed once its changes shrink slowly (pagerank_options::relaxation,
// pagerank_sor_weight): road networks then stop after 12-13 steps, not 18-19, nearer the fixed
// point. Gauss-Seidel's ranks are not bit-reproducible from run to run (which thread reads a
// neighbour's new or old value varies); the Jacobi methods' are.
//
// Methods (CPU): `semiring` runs each step as r ./ outdeg, then the product A' (+.x) contrib on
// kleene's mxv, then the update; `fused` is one hand-written pull pass over A' per step (each
// vertex sums its in-neighbours' contributions, writes its new rank, its next contribution, and
// its part of the change and of the dangling sum: no atomics). On the GPU: cuda::pagerank
// (algorithms/cuda/include/kleene/algorithms/cuda/graph_kernels.hpp) with the same three kernels
// (Gauss-Seidel: the fused pull with its contributions updated in place); its automatic rule
// keeps the Jacobi pass where the degrees are skewed (the largest out-degree over 64 times the
// mean), measured there (H200, 2026-11-29): NE 22 steps against 37, 3.0 against 5.3 ms; uniform
// scale 22 5 against 6, 9.8 against 11.7 ms; Kronecker scale 22 19 against 7, 28 against 10.5 ms
// (the device's many rows at once make the in-place pass nearly Jacobi, and slower).

#include <kleene/algorithms/bfs.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/algorithms/device_structure.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/transpose.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/mxm.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

enum class pagerank_dangling : std::uint8_t {
    gap,           ///< the rank of a vertex without out-edges is lost (GAP; the default)
    redistribute,  ///< it is spread evenly over all vertices (LAGr_PageRank, networkx)
};

enum class pagerank_method : std::uint8_t {
    automatic,  ///< CPU: gauss_seidel; GPU: gauss_seidel, or fused where degrees are skewed
    semiring,   ///< each step a plus_times mxv over A' on kleene's operations
    fused,      ///< each step one hand-written pull pass over A' (Jacobi)
    gauss_seidel,  ///< the fused pass, ranks updated in place (GAP's pr.cc)
};

/// Precision of the contributions (rank / out-degree) that the CPU's fused pass gathers each step.
enum class pagerank_contributions : std::uint8_t {
    automatic,  ///< float when tolerance >= pagerank_float_min_tolerance, else double
    as_double,
    as_float,
};

/// Rounding the contributions to float (relative error u = 2^-24) moves the ranks at most
/// d / (1 - d) * 2u from the fixed point in L1; the tolerance itself allows d / (1 - d) * tol. At
/// tol >= 200u = 100 * 2^-23 (1.19e-5) the float's share is at most 1% of the tolerance's, and the
/// automatic choice takes float: the pull's random reads then move half the bytes, as in GAP and
/// LAGraph's PageRankGAP, which hold all of PageRank in float.
inline constexpr double pagerank_float_min_tolerance = 100.0 / (1 << 23);

/// How the CPU passes give their row blocks to the threads.
///
/// handed_out: one at a time (schedule dynamic), as GAP's pr.cc does with 16384-vertex chunks: a
/// block mostly runs on another core than the step before, so its ranks and shares, written the
/// step before, move between cores; and neighbouring blocks run at once on different cores, so
/// the edges between them (most of a road network's, numbered along the roads) read lines
/// another core is writing. owned: the blocks split among the threads once, in contiguous runs,
/// the same every step (schedule static): a thread's part stays in its core's cache and only the
/// edges between threads' runs cross. It costs where a thread's part does not fit in its cache
/// anyway, and on a busy machine (a descheduled thread holds up every step).
/// Measured on the 2-core build machine, 2 threads (2026-11-29, docs/lab/performance-history.md;
/// gapbs beside): the first 33,000 vertices of NY (a thread's part 0.44 MB, as NY's at 16
/// threads) 1.44 -> 1.03 ms (gapbs 0.84); when the two cores were far apart (all three twice as
/// slow), NY 33k / 66k / 132k 4.4 / 9.0 / 15.0 -> 1.9 / 4.5 / 8.2 ms, NE's first 95k / 190k 10.5 /
/// 18.4 -> 5.9 / 12.0; but all of NY (3.6 MB a thread) 13.52 -> 14.66 and NE 87.3 -> 91.3 in the
/// fast case. Results do not depend on it (sums are folded per block).
enum class pagerank_schedule : std::uint8_t {
    automatic,   ///< owned when a thread's part is at most pagerank_owned_bytes, else handed out
    handed_out,  ///< dynamic, one block at a time
    owned,       ///< static, the same blocks for a thread every step
};

/// automatic's bound on a thread's part of the pass (ranks, shares and row pointers a row,
/// column indices an entry): the measured gains held to 0.9 MB and on the build machine's 1 MB
/// L2 a core; beyond, the owned split was slower in the fast case.
inline constexpr std::size_t pagerank_owned_bytes = std::size_t(1) << 20;

/// The over-relaxation weight the automatic rule takes: Young's optimum 2 / (1 + sqrt(1 - rho^2))
/// with rho = d, the spectral radius of the Jacobi step (the smooth mode of a connected graph).
/// For an undirected graph the shares y = r / outdeg solve (D - d A) y = (1 - d) / n, a symmetric
/// matrix, strictly diagonally dominant on vertices with edges, so positive definite: SOR then
/// converges for every w in (0, 2) (Ostrowski-Reich), and on the road networks Gauss-Seidel's
/// changes shrink by d^2 = 0.72 a step from about the fifth on, SOR's by about w - 1 = 0.31.
/// Measured (lab/pagerank_sor.cpp, one thread, to 1e-4, 2026-12-01): NE 18 -> 12 steps, NY 20 ->
/// 13, the ranks 3.9e-5 and 5.2e-5 from the fixed point in L1 where plain Gauss-Seidel's stop
/// 2.4e-4 and 2.0e-4 from it; Kronecker and uniform graphs converge in 5-9 steps before their
/// changes shrink that slowly, and a w > 1 from the start costs them steps (uniform scale 20: 5 ->
/// 7 at w = 1.2), hence the rule's wait for the slow rate. d = 0.85: w = 1.31.
inline double pagerank_sor_weight(double damping) {
    return 2.0 / (1.0 + std::sqrt(1.0 - damping * damping));
}

inline char const* to_string(pagerank_schedule s) {
    return s == pagerank_schedule::owned        ? "owned"
           : s == pagerank_schedule::handed_out ? "handed out"
                                                : "automatic";
}

struct pagerank_options {
    double damping = 0.85;    ///< in [0, 1)
    double tolerance = 1e-4;  ///< stop when the L1 norm of the change of the ranks is below this
    int max_iterations = 100;
    pagerank_dangling dangling = pagerank_dangling::gap;
    /// automatic: fused, measured 10-17% faster than the semiring steps on the CPU (undirected
    /// Kronecker graphs of scale 16 and 18, to 1e-4) and on the GPU (docs/performance.md).
    pagerank_method method = pagerank_method::automatic;
    /// The caller promises A == A' (an undirected graph): the pull reads A, no transpose is made.
    bool symmetric = false;
    /// The fused method on the CPU: each step's contributions rank / outdeg in double or in float
    /// (ranks and sums stay double). In float the pull's random reads move half the bytes:
    /// measured 1.2-1.3x faster at Kronecker scale 22 on 16 cores (0.96-1.04x the time of GAP's
    /// method, where double took 1.16-1.38x; docs/performance.md). The ranks may then lie a
    /// further d / (1 - d) * 2^-23 (6.8e-7 at d = 0.85) from the fixed point in L1, and their
    /// sum may drift from 1 by as much.
    /// automatic: float when the tolerance is at least pagerank_float_min_tolerance (the default
    /// 1e-4 is), so that this is at most 1% of what the tolerance allows. Other methods and the
    /// GPU hold them in double.
    pagerank_contributions contributions = pagerank_contributions::automatic;
    /// Gauss-Seidel on the CPU: rows a block of the in-place pass (blocks of about equal cost,
    /// handed out one at a time). 0: the Jacobi pass's blocks (n / 256 rows, at most 256 blocks:
    /// 1033 rows on NY, 5955 on NE, 16384 at scale 22). GAP's pr.cc hands out 16384 vertices at a
    /// time; bigger blocks mean fewer block boundaries between threads and fewer partial sums to
    /// fold each step, smaller ones a finer balance. A tuning knob for the measurements (2-core
    /// build machine, 2 threads, results reused: 16384 on NY 14.35 -> 14.10 ms, NE 83.7 -> 84.1,
    /// uniform 20 81.1 -> 84.3 over two rounds).
    std::size_t gauss_seidel_block_rows = 0;
    /// How the CPU's fused and Gauss-Seidel passes give their blocks to the threads (see
    /// pagerank_schedule); automatic: owned where a thread's part of the pass's arrays is at most
    /// pagerank_owned_bytes, else handed out.
    pagerank_schedule schedule = pagerank_schedule::automatic;
    /// Over-relaxation of the CPU's Gauss-Seidel pass (SOR): each vertex's new rank is r + w (g -
    /// r), g the plain pass's value. 0 (automatic): with `symmetric` (an undirected graph), w = 1
    /// (GAP's pass) until the changes shrink slowly, then pagerank_sor_weight(damping) (see there:
    /// from the third step, when a step's change is at least half the one before and more than 3
    /// further steps are foreseen at that rate; back to 1 for good if a relaxed step's change
    /// passes twice the last plain step's, or is not below it after 4 relaxed steps); without
    /// it, 1. 1: never. A value in (1, 2): that w from the first step (the Gauss-Seidel pass on
    /// the CPU only: any other method or the GPU throws invalid_argument). The fixed point and
    /// the stopping rule are the same.
    double relaxation = 0;
    device_choice device = device_choice::automatic;
    /// automatic runs a host graph on the GPU when there is one and A has at least this many
    /// entries. The default keeps host graphs on the CPU (as bfs does: the context start and the
    /// copy are not repaid by one run); a device graph always runs on the GPU.
    std::size_t gpu_min_edges = std::numeric_limits<std::size_t>::max();
    /// One line per decision: device, method, transpose, iterations and the last change.
    explain_trace* explain = nullptr;
    /// The context the GPU runs on (its device, stream and scratch; null: default_context()).
    context* ctx = nullptr;
};

struct pagerank_result {
    /// vector_for_overwrite: filled by all threads; compares equal to a std::vector.
    vector_for_overwrite<double> rank;
    int iterations = 0;  ///< steps run (the last one's change is below the tolerance if converged)
    /// The over-relaxation weight of the last step (1: none; pagerank_options::relaxation) and
    /// the first step that took it (0: none did).
    double relaxation = 1;
    int relaxed_from = 0;
    double change = 0;   ///< L1 norm of the change of the last step
    bool converged = false;
    pagerank_method method = pagerank_method::fused;
    device_choice device = device_choice::cpu;
};

inline char const* to_string(pagerank_method m) {
    return m == pagerank_method::semiring       ? "semiring"
           : m == pagerank_method::fused        ? "fused"
           : m == pagerank_method::gauss_seidel ? "gauss-seidel"
                                                : "automatic";
}
inline char const* to_string(pagerank_dangling d) {
    return d == pagerank_dangling::gap ? "gap (rank of dangling vertices lost)"
                                       : "redistribute (rank of dangling vertices spread evenly)";
}

namespace detail {

inline std::string pr_number(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

/// Whether the fused CPU pass holds its contributions in float (pagerank_options::contributions).
inline bool contributions_in_float(pagerank_options const& opt) {
    return opt.contributions == pagerank_contributions::as_float ||
           (opt.contributions == pagerank_contributions::automatic &&
            opt.tolerance >= pagerank_float_min_tolerance);
}

/// The explain trace's words on the fused pass's contributions.
inline std::string contributions_trace(pagerank_options const& opt) {
    bool const f = contributions_in_float(opt);
    std::string s = f ? ", contributions held in float" : ", contributions held in double";
    if (opt.contributions != pagerank_contributions::automatic) return s + " (pinned)";
    return s + " (automatic: tolerance " + pr_number(opt.tolerance) + (f ? " >= " : " < ") +
           pr_number(pagerank_float_min_tolerance) +
           (f ? "; the rounding adds at most " +
                    pr_number(opt.damping / (1 - opt.damping) * std::ldexp(1.0, -23)) + " in L1)"
              : ")");
}

inline double pr_seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Row blocks of about equal cost (entries + 1 per row). Their number depends on the rows only, so
/// the sums folded block by block, in block order, do not depend on the number of threads.
template <class Index>
std::vector<std::size_t> pr_blocks(Index const* row_ptr, std::size_t n) {
    return cpu::row_blocks(row_ptr, n, std::clamp<std::size_t>(n / 256, 1, 256));
}

/// v's contribution to the next step: its rank over its out-degree (ap: A's row pointers), 0 for
/// a vertex without out-edges. Divided here rather than read from an n-sized 1 / outdeg array: for
/// an undirected graph the pull already reads these row pointers.
template <class Index>
double pr_share(double x, Index deg) {
    return deg > 0 ? x / static_cast<double>(deg) : 0.0;
}
template <class Index>
double pr_share(double x, Index const* ap, std::size_t v) {
    return pr_share(x, ap[v + 1] - ap[v]);
}

/// A relaxed atomic store of a float or double share. On x86-64 with GCC or Clang, one movss /
/// movsd from the vector register: std::atomic_ref's store moves the value through a general
/// register first (movd, then mov), one more step on the in-place pass's chain of shares, where a
/// vertex often reads the share its predecessor has just written. A lab clone of the pass (H200
/// host, 16 threads, 18 sweeps, medians of 9, one call): 1-4% faster on NE and NY; plain loads and
/// stores (a data race) 8-12% (docs/lab/performance-history.md, eighteenth session). An aligned 4-
/// or 8-byte store is one access on x86-64, and the asm is opaque to the compiler, so the C++
/// program has no data race.
template <class C>
inline void pr_store_relaxed(C* p, C v) {
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
    if constexpr (std::is_same_v<C, float>) {
        asm volatile("movss %1, %0" : "=m"(*p) : "x"(v));
        return;
    } else if constexpr (std::is_same_v<C, double>) {
        asm volatile("movsd %1, %0" : "=m"(*p) : "x"(v));
        return;
    }
#endif
    std::atomic_ref<C>(*p).store(v, std::memory_order_relaxed);
}

/// One fused pull step over A' (tp/tj), block by block: new ranks, their contributions to the next
/// step (C: double, or float on request), and each block's change and dangling rank. InPlace
/// (Gauss-Seidel): c and cn are one array, read and written with relaxed atomics (plain moves
/// on x86, and no data race), so that later vertices of the pass read the new values.
/// ReciprocalFirst: a vertex's share is its rank times 1 / outdeg (computed apart) rather than
/// divided by outdeg: in place, a vertex often reads the share its predecessor has just written
/// (road numberings are local), the shares form a chain through memory and a division on that
/// chain costs more than the few edges (NY, one thread, build machine: 29.0-29.6 -> 26.0-26.7
/// ms; NE 159-163 -> 144-157); with many edges a vertex (uniform, degree 32) the edges hide the
/// division and the extra multiply cost 4.5% (146.9 -> 153.8 ms, medians of 5). The results
/// differ by at most an ulp of the double before the share is rounded.
/// Rows [v_begin, v_end) of the pass (pagerank_pull); the block's change and dangling rank into
/// *ch_out and *dg_out. Arguments by value: the in-place pass's atomic stores made the compiler
/// load anything reached through a reference or a closure again for every vertex, and tp[v + 1]
/// for every edge, so the row's end is read once.
template <bool InPlace, bool ReciprocalFirst, bool TwoSums, bool Relaxed, class C, class Index>
inline void pagerank_pull_rows(std::size_t v_begin, std::size_t v_end, Index const* tp,
                               Index const* tj, Index const* ap, double base, double d, double w,
                               double* rank, C* c, C* cn, double* ch_out, double* dg_out) {
    auto read = [](C* p) {
        if constexpr (InPlace) return std::atomic_ref<C>(*p).load(std::memory_order_relaxed);
        else return *p;
    };
    double ch = 0, dg = 0;
    Index row = tp[v_begin];
    for (std::size_t v = v_begin; v < v_end; ++v) {
        Index const row_end = tp[v + 1];
        double s = 0;
        if constexpr (TwoSums) {
            double s1 = 0;
            Index k = row;
            for (; k + 1 < row_end; k += 2) {
                s += static_cast<double>(read(c + tj[k]));
                s1 += static_cast<double>(read(c + tj[k + 1]));
            }
            if (k < row_end) s += static_cast<double>(read(c + tj[k]));
            s += s1;
        } else {
            for (Index k = row; k < row_end; ++k) s += static_cast<double>(read(c + tj[k]));
        }
        row = row_end;
        Index const deg = ap[v + 1] - ap[v];
        double const old = rank[v];
        double const x = Relaxed ? old + w * (base + d * s - old) : base + d * s;
        ch += std::abs(x - old);
        rank[v] = x;
        // ReciprocalFirst: 1 / outdeg (pr_share(1.0, deg)) does not wait for x.
        auto const share =
            static_cast<C>(ReciprocalFirst ? x * pr_share(1.0, deg) : pr_share(x, deg));
        if constexpr (InPlace) pr_store_relaxed(cn + v, share);
        else cn[v] = share;
        if (deg == 0) dg += x;
    }
    *ch_out = ch;
    *dg_out = dg;
}

/// One fused pull step over A' (tp/tj), block by block: new ranks, their contributions to the next
/// step (C: double, or float on request), and each block's change and dangling rank. InPlace
/// (Gauss-Seidel): c and cn are one array, read and written with relaxed atomics (plain moves
/// on x86, and no data race), so that later vertices of the pass read the new values.
/// ReciprocalFirst: a vertex's share is its rank times 1 / outdeg (computed apart) rather than
/// divided by outdeg: in place, a vertex often reads the share its predecessor has just written
/// (road numberings are local), the shares form a chain through memory and a division on that
/// chain costs more than the few edges (NY, one thread, build machine: 29.0-29.6 -> 26.0-26.7
/// ms; NE 159-163 -> 144-157); with many edges a vertex (uniform, degree 32) the edges hide the
/// division and the extra multiply cost 4.5% (146.9 -> 153.8 ms, medians of 5). The results
/// differ by at most an ulp of the double before the share is rounded.
/// TwoSums: a row's shares summed into two accumulators (even and odd entries), added at the
/// end: on long rows the one chain of dependent additions (4 cycles an entry) was the pass's
/// bound (2-core build machine, one thread, CPU time, results reused: Kronecker 20 240 -> 210 ms,
/// uniform 20 153 -> 139), on the road networks' short rows the loop's extra work cost (NY 27.5
/// -> 29.2, NE 187 -> 207): taken where rows hold at least 8 entries on average. The sums' order
/// is fixed by the row, so the results still do not depend on the threads.
/// Relaxed (the in-place pass only): the new rank is r + w (base + d s - r), successive
/// over-relaxation (pagerank_options::relaxation); not Relaxed: base + d s, as before, bit for bit.
/// owned_blocks: the blocks are split among the threads once, the same each step (schedule
/// static), so that a thread finds its blocks' ranks and contributions in its own core's cache;
/// otherwise they are handed out one at a time (dynamic), and a block's lines mostly come from
/// another core. The sums are folded per block either way: the result does not depend on it.
template <bool InPlace = false, bool ReciprocalFirst = false, bool TwoSums = false,
          bool Relaxed = false, class C, class Index>
void pagerank_pull(Index const* tp, Index const* tj, Index const* ap,
                   std::vector<std::size_t> const& blocks, double base, double d, double* rank,
                   C* c, C* cn, std::vector<double>& part_change,
                   std::vector<double>& part_dangling, bool owned_blocks = false, double w = 1) {
    std::size_t const nb = blocks.size() - 1;
    std::size_t const* const bounds = blocks.data();
    double* const part_ch = part_change.data();
    double* const part_dg = part_dangling.data();
    if (owned_blocks) {
#pragma omp parallel for schedule(static) if (nb > 1)
        for (std::size_t b = 0; b < nb; ++b)
            pagerank_pull_rows<InPlace, ReciprocalFirst, TwoSums, Relaxed>(
                bounds[b], bounds[b + 1], tp, tj, ap, base, d, w, rank, c, cn, part_ch + b,
                part_dg + b);
    } else {
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
        for (std::size_t b = 0; b < nb; ++b)
            pagerank_pull_rows<InPlace, ReciprocalFirst, TwoSums, Relaxed>(
                bounds[b], bounds[b + 1], tp, tj, ap, base, d, w, rank, c, cn, part_ch + b,
                part_dg + b);
    }
}

/// Whether the largest out-degree of A exceeds 64 times the mean (pagerank's automatic method;
/// a device matrix: false, the GPU runs one method).
template <class T, class Index, class Space>
bool skewed_degrees(csr_matrix<T, Index, Space> const& a) {
    if constexpr (!std::is_same_v<Space, host>) {
        return false;
    } else {
        std::size_t const n = a.rows();
        if (n == 0 || a.nnz() == 0) return false;
        Index const* p = a.row_ptr();
        Index top = 0;
#pragma omp parallel for schedule(static) reduction(max : top) if (n > 65536)
        for (std::size_t v = 0; v < n; ++v) top = std::max<Index>(top, p[v + 1] - p[v]);
        return static_cast<double>(top) >
               64.0 * static_cast<double>(a.nnz()) / static_cast<double>(n);
    }
}

/// The CPU iteration. tp/tj: A' (the in-edges of every vertex); ap: A's row pointers (the
/// out-degrees). at_d: A' as an iso-1 double matrix for the semiring method. symmetric: A' = A
/// (promised or found), where the automatic over-relaxation applies.
template <class Index>
void pagerank_cpu(std::size_t n, Index const* tp, Index const* tj, Index const* ap,
                  csr_matrix<double, Index> const* at_d, pagerank_options const& opt,
                  pagerank_method method, bool symmetric, pagerank_result& r) {
    double const d = opt.damping;
    bool const redistribute = opt.dangling == pagerank_dangling::redistribute;
    double const nd = static_cast<double>(n);
    auto const t0 = std::chrono::steady_clock::now();
    auto const blocks = method == pagerank_method::gauss_seidel && opt.gauss_seidel_block_rows > 0
                            ? cpu::row_blocks(tp, n,
                                              std::max<std::size_t>(
                                                  1, (n + opt.gauss_seidel_block_rows - 1) /
                                                         opt.gauss_seidel_block_rows))
                            : pr_blocks(tp, n);
    std::size_t const nb = blocks.size() - 1;
    std::vector<double> part_change(nb), part_dangling(nb);

    // Every n-sized array is first written by all threads (vector_for_overwrite, buffer).
    r.rank.clear();
    r.rank.resize(n);
    double* rank = r.rank.data();
    bool const in_place = method == pagerank_method::gauss_seidel;
    // Gauss-Seidel on rows of fewer than 8 entries on average (road networks, meshes): the
    // shares' chain through memory is the pass's time, and 1 / outdeg comes off it
    // (pagerank_pull's ReciprocalFirst).
    bool const long_rows = static_cast<std::int64_t>(tp[n]) >= 8 * static_cast<std::int64_t>(n);
    bool const sparse_rows = in_place && !long_rows;
    bool const in_float = (method == pagerank_method::fused || in_place) &&
                          contributions_in_float(opt);
    // A thread's part of the pass: a row's rank (8 bytes), share and row pointer, an entry's
    // column index.
    std::size_t const threads = static_cast<std::size_t>(std::max(1, cpu::max_threads()));
    std::size_t const part_bytes =
        (n * (sizeof(double) + (in_float ? sizeof(float) : sizeof(double)) + sizeof(Index)) +
         static_cast<std::size_t>(tp[n]) * sizeof(Index)) /
        threads;
    bool const owned = opt.schedule == pagerank_schedule::owned ||
                       (opt.schedule == pagerank_schedule::automatic &&
                        part_bytes <= pagerank_owned_bytes);
    // next: the fused pass's, or mxv's output; in float (and the double ones empty) on request.
    // Gauss-Seidel has none: it writes the contributions in place.
    dense_vector<double> contrib(in_float ? 0 : n), next(in_float || in_place ? 0 : n);
    vector_for_overwrite<float> contrib_f(in_float ? n : 0),
        next_f(in_float && !in_place ? n : 0);
    double dangling = 0;  // rank held by vertices without out-edges
    double* const c = in_float ? nullptr : contrib.data();
    float* const cf = in_float ? contrib_f.data() : nullptr;
#pragma omp parallel for schedule(static) reduction(+ : dangling) if (n > 65536)
    for (std::size_t u = 0; u < n; ++u) {
        rank[u] = 1.0 / nd;
        if (in_float)
            cf[u] = static_cast<float>(pr_share(rank[u], ap, u));
        else
            c[u] = pr_share(rank[u], ap, u);
        if (ap[u + 1] == ap[u]) dangling += rank[u];
    }
    if (opt.explain) {
        if (in_place)
            opt.explain->add("pagerank: the in-place pass in " + std::to_string(nb) + " blocks" +
                             (opt.gauss_seidel_block_rows > 0
                                  ? " (gauss_seidel_block_rows " +
                                        std::to_string(opt.gauss_seidel_block_rows) + ")"
                                  : " (the Jacobi pass's)"));
        if (method != pagerank_method::semiring)
            opt.explain->add(
                std::string("pagerank: blocks ") +
                (owned ? "owned by the threads (static, the same every step)"
                       : "handed out one at a time (dynamic)") +
                (opt.schedule != pagerank_schedule::automatic
                     ? std::string(" (pinned)")
                     : " (automatic: a thread's part " + pr_number(double(part_bytes)) +
                           (owned ? " <= " : " > ") + pr_number(double(pagerank_owned_bytes)) +
                           " bytes)"));
        opt.explain->add("pagerank: ranks and contributions allocated and first written (" +
                         detail::ms(pr_seconds_since(t0)) + ")");
        if (sparse_rows)
            opt.explain->add("pagerank: fewer than 8 entries a row: a share is the rank times 1 / "
                             "outdeg, the division off the in-place pass's chain of shares");
        if (long_rows && method != pagerank_method::semiring)
            opt.explain->add("pagerank: at least 8 entries a row: a row's shares summed in two "
                             "chains (even and odd entries)");
    }
    options mo;
    mo.explain = opt.explain;
    // The in-place pass over contributions c (float or double), with or without the reciprocal,
    // over-relaxed by w where w != 1.
    auto gauss_seidel_pass = [&](auto* c, double base, double w) {
        if (sparse_rows && w != 1)
            pagerank_pull<true, true, false, true>(tp, tj, ap, blocks, base, d, rank, c, c,
                                                   part_change, part_dangling, owned, w);
        else if (sparse_rows)
            pagerank_pull<true, true>(tp, tj, ap, blocks, base, d, rank, c, c, part_change,
                                      part_dangling, owned);
        else if (w != 1)
            pagerank_pull<true, false, true, true>(tp, tj, ap, blocks, base, d, rank, c, c,
                                                   part_change, part_dangling, owned, w);
        else
            pagerank_pull<true, false, true>(tp, tj, ap, blocks, base, d, rank, c, c,
                                             part_change, part_dangling, owned);
    };
    // Over-relaxation (pagerank_options::relaxation): pinned from the first step, or automatic
    // once the changes shrink slowly, and only for a symmetric pull (promised or found): SOR's
    // convergence is certain for undirected graphs (pagerank_sor_weight), and on directed ones it
    // can cost (a directed uniform graph, n = 3000, m = 4500, to 1e-6: 17 plain steps, 41-67 at
    // w = 1.2).
    bool const auto_relax = in_place && opt.relaxation == 0 && symmetric;
    double w = in_place && opt.relaxation > 1 ? opt.relaxation : 1.0;
    bool relax_dropped = false;
    double prev_change = 0, switch_change = 0;  // the last plain step's change
    r.relaxation = w;
    r.relaxed_from = w != 1 ? 1 : 0;
    if (opt.explain && in_place)
        opt.explain->add(
            auto_relax ? std::string("pagerank: over-relaxation automatic (A symmetric: from "
                                     "the step the changes shrink slowly)")
            : opt.relaxation == 0
                ? std::string("pagerank: no over-relaxation (automatic: A is not symmetric, "
                              "where it is certain to converge)")
            : w != 1 ? "pagerank: over-relaxed from the first step, w = " + pr_number(w) +
                           " (pinned)"
                     : std::string("pagerank: no over-relaxation (pinned)"));
    // The Jacobi pass: two sums a row where rows are long (pagerank_pull's TwoSums).
    auto jacobi_pass = [&](auto* c, auto* cn, double base) {
        if (long_rows)
            pagerank_pull<false, false, true>(tp, tj, ap, blocks, base, d, rank, c, cn,
                                              part_change, part_dangling, owned);
        else
            pagerank_pull(tp, tj, ap, blocks, base, d, rank, c, cn, part_change, part_dangling,
                          owned);
    };

    for (int it = 1; it <= opt.max_iterations; ++it) {
        double const base = (1 - d) / nd + (redistribute ? d * dangling / nd : 0.0);
        if (method == pagerank_method::semiring) {
            // t = A' (+.x) contrib; then the update, block by block.
            mxv(next, *at_d, contrib, plus_times<double>{}, mo);
            mo.explain = nullptr;  // one trace line for the product, not one per step
            double const* t = next.data();
            double* c = contrib.data();
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
            for (std::size_t b = 0; b < nb; ++b) {
                double ch = 0, dg = 0;
                for (std::size_t v = blocks[b]; v < blocks[b + 1]; ++v) {
                    double const x = base + d * t[v];
                    ch += std::abs(x - rank[v]);
                    rank[v] = x;
                    c[v] = pr_share(x, ap, v);
                    if (ap[v + 1] == ap[v]) dg += x;
                }
                part_change[b] = ch;
                part_dangling[b] = dg;
            }
        } else if (in_place && in_float) {
            gauss_seidel_pass(contrib_f.data(), base, w);
        } else if (in_place) {
            gauss_seidel_pass(contrib.data(), base, w);
        } else if (in_float) {
            jacobi_pass(contrib_f.data(), next_f.data(), base);
            contrib_f.swap(next_f);
        } else {
            jacobi_pass(contrib.data(), next.data(), base);
            contrib.storage().swap(next.storage());
        }
        double change = 0;
        dangling = 0;
        for (std::size_t b = 0; b < nb; ++b) {
            change += part_change[b];
            dangling += part_dangling[b];
        }
        r.iterations = it;
        r.change = change;
        r.relaxation = w;
        if (change < opt.tolerance) {
            r.converged = true;
            break;
        }
        if (auto_relax && w == 1 && !relax_dropped && it >= 3 && change < prev_change &&
            change >= 0.5 * prev_change) {
            // The slow mode leads: at this rate, how many more plain steps to the tolerance.
            double const rate = change / prev_change;
            double const left = std::log(opt.tolerance / change) / std::log(rate);
            if (left > 3) {
                w = pagerank_sor_weight(d);
                r.relaxed_from = it + 1;
                if (opt.explain)
                    opt.explain->add("pagerank: over-relaxed from step " + std::to_string(it + 1) +
                                     ", w = " + pr_number(w) +
                                     " = 2 / (1 + sqrt(1 - d^2)): step " + std::to_string(it) +
                                     "'s change " + pr_number(change) + " was " +
                                     pr_number(rate) + " of the one before, " +
                                     pr_number(left) + " more plain steps at that rate");
            }
        } else if (auto_relax && w != 1 &&
                   (change > 2 * switch_change ||
                    (it - r.relaxed_from + 1 >= 4 && change >= switch_change))) {
            // Not contracting under w: twice the change at the switch, or no lower after 4
            // relaxed steps. (The first relaxed steps may grow a little: the star's first
            // relaxed change is 1.08 times the last plain one, then it falls by 0.31 a step.)
            w = 1;
            relax_dropped = true;
            if (opt.explain)
                opt.explain->add("pagerank: step " + std::to_string(it) + "'s change " +
                                 pr_number(change) + " against " + pr_number(switch_change) +
                                 " at the switch: no over-relaxation from step " +
                                 std::to_string(it + 1));
        }
        if (w == 1) switch_change = change;
        prev_change = change;
    }
}


}  // namespace detail

namespace detail {
/// pagerank() with what a caller may keep between runs (kleene::graph): host_at, the pattern of A'
/// for the CPU pull (null: made here unless symmetric); device_of, null or a callable
/// (bool need_transpose) -> std::pair of pointers to the device patterns of A and A'. rank: null,
/// or a device vector the GPU leaves the ranks in (resized to n; r.rank then stays empty).
template <class T, index_type Index, memory_space Space, class DeviceOf = std::nullptr_t>
void pagerank_into(
    pagerank_result& r, csr_matrix<T, Index, Space> const& a, pagerank_options const& opt,
    std::type_identity_t<csr_matrix<bool, Index> const*> host_at = nullptr,
    DeviceOf device_of = nullptr, dense_vector<double, device>* rank = nullptr) {
    constexpr bool on_device = std::is_same_v<Space, device>;
    if (a.rows() != a.cols())
        throw dimension_mismatch("pagerank: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    if (!(opt.damping >= 0 && opt.damping < 1))
        throw invalid_argument("pagerank: damping must be in [0, 1), not " +
                               detail::pr_number(opt.damping));
    if (!(opt.tolerance > 0) || !std::isfinite(opt.tolerance))
        throw invalid_argument("pagerank: tolerance must be a positive finite number, not " +
                               detail::pr_number(opt.tolerance));
    if (opt.max_iterations < 1)
        throw invalid_argument("pagerank: max_iterations must be at least 1, not " +
                               std::to_string(opt.max_iterations));
    if (!(opt.relaxation == 0 || (opt.relaxation >= 1 && opt.relaxation < 2)))
        throw invalid_argument("pagerank: relaxation must be 0 (automatic) or in [1, 2), not " +
                               detail::pr_number(opt.relaxation));
    if (on_device && opt.device == device_choice::cpu)
        throw invalid_argument(
            "pagerank: device=cpu was asked for a device graph; move it with to_host() first");
    std::size_t const n = a.rows();

    bool gpu = on_device;
    if (opt.device == device_choice::gpu) {
        cuda::require_device();  // no GPU: no_device, never a silent CPU run
        gpu = true;
    } else if (!on_device && opt.device == device_choice::automatic) {
        gpu = a.nnz() >= opt.gpu_min_edges && cuda::device_count() > 0;
    }
    // The automatic choice reads the degrees' skew (the top of the file), on the CPU and the GPU
    // alike; a device graph's is read on the device once its structure is there (below).
    bool skewed = false;
    if constexpr (!on_device)
        skewed = opt.method == pagerank_method::automatic && gpu && skewed_degrees(a);
    auto const method_for = [&](bool skew) {
        return opt.method != pagerank_method::automatic ? opt.method
               : skew                                  ? pagerank_method::fused
                                                       : pagerank_method::gauss_seidel;
    };
    pagerank_method method = method_for(skewed);
    auto const explain_method = [&] {
        if (!opt.explain) return;
        opt.explain->add(
            std::string("pagerank: method ") + to_string(method) +
            (opt.method != pagerank_method::automatic ? " (pinned)"
             : skewed ? " (automatic on the GPU: skewed degrees, the largest out-degree over 64 "
                        "times the mean: the device's in-place pass takes more steps there, not "
                        "fewer; docs/performance.md)"
             : gpu    ? " (automatic on the GPU: Gauss-Seidel where the degrees are not skewed, "
                        "fewer steps than the Jacobi pass; docs/performance.md)"
                      : " (automatic on the CPU: Gauss-Seidel, GAP's pass, fewer steps than the "
                        "Jacobi pass on every class; docs/performance.md)"));
    };
    if (opt.explain) {
        std::string why = opt.device != device_choice::automatic ? " (pinned)"
                          : on_device                            ? " (a device graph)"
                          : gpu
                              ? " (a device and >= " + std::to_string(opt.gpu_min_edges) + " edges)"
                          : cuda::device_count() == 0 ? " (no device)"
                          : opt.gpu_min_edges == std::numeric_limits<std::size_t>::max()
                              ? " (host graph: one run does not repay the copy)"
                              : " (fewer than " + std::to_string(opt.gpu_min_edges) + " edges)";
        opt.explain->add("pagerank: n=" + std::to_string(n) + ", edges=" + std::to_string(a.nnz()) +
                         ", damping " + detail::pr_number(opt.damping) + ", tolerance " +
                         detail::pr_number(opt.tolerance) + " (L1), at most " +
                         std::to_string(opt.max_iterations) + " steps, dangling " +
                         to_string(opt.dangling) + ": " + (gpu ? "gpu" : "cpu") + why);
        if (!on_device) explain_method();
    }
    if (opt.relaxation > 1 && (gpu || method != pagerank_method::gauss_seidel))
        throw invalid_argument("pagerank: relaxation " + detail::pr_number(opt.relaxation) +
                               " applies to the Gauss-Seidel pass on the CPU; this call runs " +
                               (gpu ? std::string("on the gpu")
                                    : std::string("the ") + to_string(method) + " method"));
    r.method = method;
    r.iterations = 0;
    r.change = 0;
    r.converged = false;
    r.relaxation = 1;
    r.relaxed_from = 0;
    if (n == 0) {
        if (on_device) explain_method();
        r.rank.clear();
        r.device = gpu ? device_choice::gpu : device_choice::cpu;
        r.converged = true;
        return;
    }

    if (gpu) {
        r.device = device_choice::gpu;
        auto const t0 = std::chrono::steady_clock::now();
        std::optional<std::pair<csr_matrix<bool, Index, device>,
                                std::optional<csr_matrix<bool, Index, device>>>>
            made;  // empty when the caller lends its device structure
        csr_matrix<bool, Index, device> const* adp = nullptr;
        csr_matrix<bool, Index, device> const* atdp = nullptr;
        if constexpr (!std::is_same_v<DeviceOf, std::nullptr_t>) {
            auto const lent = device_of(!opt.symmetric);
            adp = lent.first;
            atdp = opt.symmetric ? nullptr : lent.second;
        } else {
            made.emplace(detail::device_structure(a, opt.symmetric));
            adp = &made->first;
            atdp = made->second ? &*made->second : nullptr;
        }
        auto const& ad = *adp;
        if (opt.explain && std::is_same_v<DeviceOf, std::nullptr_t>)
            opt.explain->add(
                std::string("pagerank: structure on the device") +
                (opt.symmetric ? ", A symmetric: A' = A" : " and A' transposed there") + " (" +
                detail::ms(detail::pr_seconds_since(t0)) + ")");
        if constexpr (on_device) {
            if (opt.method == pagerank_method::automatic) {
                auto const top = cuda::max_row_entries<Index>(ad, resolve(opt.ctx));
                skewed = static_cast<double>(top) >
                         64.0 * static_cast<double>(a.nnz()) / static_cast<double>(n);
                method = method_for(skewed);
                r.method = method;
            }
            explain_method();
        }
        cuda::pagerank_params p;
        p.damping = opt.damping;
        p.tolerance = opt.tolerance;
        p.max_iterations = opt.max_iterations;
        p.redistribute_dangling = opt.dangling == pagerank_dangling::redistribute;
        auto const kernel = method == pagerank_method::semiring ? cuda::pagerank_kernel::semiring
                            : method == pagerank_method::gauss_seidel
                                ? cuda::pagerank_kernel::gauss_seidel
                                : cuda::pagerank_kernel::fused;
        if (rank && rank->size() != n) *rank = dense_vector<double, device>(n);
        auto run = rank ? cuda::pagerank<Index>(ad, atdp ? *atdp : ad, p, kernel, *rank,
                                                resolve(opt.ctx))
                        : cuda::pagerank<Index>(ad, atdp ? *atdp : ad, p, kernel,
                                                resolve(opt.ctx));
        r.rank = std::move(run.rank);
        r.iterations = run.iterations;
        r.change = run.change;
        r.converged = run.change < opt.tolerance;
        if (opt.explain) {
            for (auto& line : run.notes) opt.explain->add("pagerank: " + line);
            opt.explain->add("pagerank: " + std::to_string(r.iterations) + " steps, change " +
                             detail::pr_number(r.change) +
                             (r.converged ? " (converged)" : " (not converged)") + ", gpu " +
                             detail::ms(run.seconds));
        }
        return;
    } else if constexpr (!on_device) {
        r.device = device_choice::cpu;
        auto const t0 = std::chrono::steady_clock::now();
        // A' as a Boolean pattern (made unless symmetric), and for the semiring method as the
        // iso-1 double matrix mxv multiplies with.
        std::optional<csr_matrix<bool, Index>> made;
        if (!opt.symmetric && !host_at) made.emplace(cpu::transpose_csr(pattern_of(a)));
        // A' made here equal to A: an undirected graph not promised as one (a file without the
        // symmetric header); the pull then reads A, and the over-relaxation's rule holds for it,
        // so the answer does not depend on the promise.
        bool const found_symmetric =
            made && std::equal(a.row_ptr(), a.row_ptr() + n + 1, made->row_ptr()) &&
            std::equal(a.col_idx(), a.col_idx() + a.nnz(), made->col_idx());
        if (found_symmetric) made.reset();
        bool const symmetric = opt.symmetric || found_symmetric;
        csr_matrix<bool, Index> const* at = symmetric ? nullptr : made ? &*made : host_at;
        Index const* tp = at ? at->row_ptr() : a.row_ptr();
        Index const* tj = at ? at->col_idx() : a.col_idx();
        std::optional<csr_matrix<double, Index>> at_d;
        if (method == pagerank_method::semiring) {
            if (made)
                at_d.emplace(n, n, std::move(made->row_ptr_storage()),
                             std::move(made->col_idx_storage()), buffer<double>{}, 1.0, true);
            else if (at)
                at_d.emplace(n, n, at->row_ptr_storage(), at->col_idx_storage(), buffer<double>{},
                             1.0, true);
            else
                at_d.emplace(n, n, a.row_ptr_storage(), a.col_idx_storage(), buffer<double>{}, 1.0,
                             true);
            tp = at_d->row_ptr();
            tj = at_d->col_idx();
        }
        if (opt.explain)
            opt.explain->add(
                std::string("pagerank: ") +
                (opt.symmetric     ? "A symmetric: the pull reads A"
                 : found_symmetric ? "A' made equals A (symmetric): the pull reads A"
                 : made            ? "transposed A for the pull"
                               : "the pull reads the caller's A'") +
                (method == pagerank_method::semiring ? ", A' as an iso-1 double matrix"
                                                     : contributions_trace(opt)) +
                " (" + detail::ms(detail::pr_seconds_since(t0)) + ")");
        auto const t1 = std::chrono::steady_clock::now();
        detail::pagerank_cpu(n, tp, tj, a.row_ptr(), at_d ? &*at_d : nullptr, opt, method,
                             symmetric, r);
        if (opt.explain)
            opt.explain->add("pagerank: " + std::to_string(r.iterations) + " steps, change " +
                             detail::pr_number(r.change) +
                             (r.converged ? " (converged)" : " (not converged)") + ", " +
                             std::to_string(cpu::max_threads()) + " threads, " +
                             detail::ms(detail::pr_seconds_since(t1)));
    }
}
}  // namespace detail

/// PageRank of the graph A (host or device CSR; values ignored, row u lists the out-edges of u).
/// A 0-vertex graph gives an empty rank vector after 0 steps. Throws dimension_mismatch for a
/// non-square A, invalid_argument for damping outside [0, 1), a tolerance that is not a positive
/// finite number, max_iterations < 1, or device=cpu with a device graph; no_device for device=gpu
/// without a GPU.
template <class T, index_type Index, memory_space Space>
pagerank_result pagerank(csr_matrix<T, Index, Space> const& a, pagerank_options const& opt = {}) {
    pagerank_result r;
    detail::pagerank_into(r, a, opt);
    return r;
}

/// The same into r: on the CPU r.rank's storage is reused when it can hold n ranks (a loop over
/// graphs of one size then allocates and faults in no new pages for them). After an exception r
/// holds no meaningful result.
template <class T, index_type Index, memory_space Space>
void pagerank(pagerank_result& r, csr_matrix<T, Index, Space> const& a,
              pagerank_options const& opt = {}) {
    detail::pagerank_into(r, a, opt);
}

}  // namespace kleene

#pragma once
// All-pairs shortest paths and transitive closure over several processes (MPI ranks, one GPU each
// on the device path): every rank holds the graph (CSR), builds its blocks of the dense start in
// the 2D block-cyclic layout, and runs the distributed blocked Floyd-Warshall
// (floyd_warshall.hpp). The same rules as the single-process apsp (apsp.hpp): distances past the
// type's range are computed in fp64 and narrowed (int32, fp32), or refused; a negative cycle
// throws negative_cycle naming the smallest vertex whose distance to itself came out negative,
// the same on every rank. gather() brings the result to one rank.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <kleene/algorithms/distributed/comm.hpp>
#include <kleene/algorithms/distributed/faults.hpp>
#include <kleene/algorithms/distributed/floyd_warshall.hpp>
#include <kleene/algorithms/distributed/floyd_warshall_device.hpp>
#include <kleene/algorithms/path_weights.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>
#include <string>
#include <type_traits>

namespace kleene::distributed {

struct options {
    /// Block size b of the distribution (0: 64 on the CPU, where b = 64 reproduces
    /// floyd_warshall_blocked bit for bit; on the GPU 2048, or less so that every process row
    /// holds at least four blocks).
    std::size_t block = 0;
    /// Device path: panels through this transport (NCCL), one GPU per rank already chosen
    /// (use_device). Null: the host path (MPI, CPU kernels).
    device_panels* panels = nullptr;
    bool lookahead = true;
    /// Device path: the local blocks on the device, or streamed through it from page-locked host
    /// memory each step (out of core per rank); automatic: streamed where they do not fit.
    device_fw_options::residence blocks = device_fw_options::residence::automatic;
    /// Streamed: rows a stripe (0: chosen).
    std::size_t stripe_rows = 0;
    /// Seconds a rank waits for the others (or for its device) within the steps before it gives
    /// up, on top of ten times its longest step so far (0: no limit): past it the call throws
    /// rank_timeout, and the caller must end the job (mpi_environment::abort).
    double timeout = 0;
    /// Device path: the context whose stream the steps are queued on and whose memory pool the
    /// device buffers come from (null: the calling thread's default context of the device this
    /// rank uses).
    context* ctx = nullptr;
    /// A failure planted on purpose (tests: faults.hpp).
    fault_plan fault;
    explain_trace* explain = nullptr;
};

/// This rank's part of a distributed result.
template <class T>
struct local_result {
    block_cyclic dist;
    dense_matrix<T> local;  ///< dist.local_rows() x dist.local_cols()
    fw_stats stats;
};

namespace detail {
/// streamed: the device path will stream the local blocks (would_stream), where each step moves
/// them in and out once for b updates of each entry: b = 4096 hides those copies behind the
/// products (on 4 x H200 at n = 65536, 2026-11-28, b = 2048 was bound by the host link).
inline std::size_t choose_block(std::size_t n, process_grid g, bool gpu, std::size_t asked,
                                bool streamed = false) {
    if (asked) return std::min(asked, std::max<std::size_t>(n, 1));  // no panel wider than n
    if (!gpu) return 64;
    std::size_t b = streamed ? 4096 : 2048;
    while (b > 256 && n / (b * std::size_t(std::max(g.rows, g.cols))) < 4) b /= 2;
    return b;
}

/// Whether the device path (floyd_warshall_device) will stream the local blocks of an n x n
/// matrix of `elem`-byte entries: asked for, or (automatic) the in-core buffers at b = 2048 do not
/// fit on some rank's device (its free memory once ctx's pool has handed back what it keeps).
/// Agreed over every rank, as the block size it picks must be.
inline bool would_stream(std::size_t n, process_grid g, std::size_t elem,
                         device_fw_options::residence blocks, control& c, context& ctx) {
    using residence = device_fw_options::residence;
    if (blocks != residence::automatic) return blocks == residence::streamed;
    std::size_t const lr = (n + std::size_t(g.rows) - 1) / std::size_t(g.rows);
    std::size_t const lc = (n + std::size_t(g.cols) - 1) / std::size_t(g.cols);
    bool const over = !fits_in_core(lr, lc, 2048, elem, cuda::free_memory_for_plan(ctx));
    return c.allreduce_max(std::int64_t(over)) != 0;
}

/// The block of an n x n distribution of `elem`-byte entries: `asked`, or chosen for the device
/// path (panels non-null; b = 4096 where the local blocks will be streamed) or the host path.
/// Collective on the device path when not asked (would_stream).
inline std::size_t distribution_block(std::size_t n, process_grid g, bool gpu, std::size_t asked,
                                      std::size_t elem, device_fw_options::residence blocks,
                                      control& c, context* ctx) {
    return choose_block(n, g, gpu, asked,
                        gpu && !asked && would_stream(n, g, elem, blocks, c, resolve(ctx)));
}

inline std::string mib(double bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1 << 20));
    return buf;
}

/// The communication model of one run, for the explain trace: bytes that cross links per step
/// (a broadcast to g ranks moves its bytes g - 1 times), which links each axis uses, and the
/// times those bytes and the products take at assumed rates, beside the measured time.
inline void explain_run(explain_trace& t, block_cyclic const& d, control& c, std::size_t elem,
                        bool gpu, bool lookahead, std::string const& transport,
                        fw_stats const& st) {
    process_grid const g = d.grid();
    double const n = double(d.n()), b = double(d.block()), s = double(elem);
    // Does any process row (column) span several hosts?
    bool row_cross = false, col_cross = false;
    for (int r = 0; r < c.size(); ++r) {
        int const pr = g.row_of(r), pc = g.col_of(r);
        if (c.host_of(r) != c.host_of(g.rank_of(pr, 0))) row_cross = true;
        if (c.host_of(r) != c.host_of(g.rank_of(0, pc))) col_cross = true;
    }
    auto link = [&](bool cross) {
        if (cross) return std::string("network between hosts");
        return std::string(gpu ? "NVLink/PCIe within a host" : "shared memory within a host");
    };
    double const row_panels = b * n * s * (g.rows - 1);  // b x n/pc to each column's pr - 1
    double const col_panels = n * b * s * (g.cols - 1);
    double const diag = b * b * s * (g.rows - 1 + g.cols - 1);
    double const steps = double(d.blocks());
    t.add("distributed: " + std::to_string(c.size()) + " ranks on " + std::to_string(c.hosts()) +
          " host(s), grid " + std::to_string(g.rows) + " x " + std::to_string(g.cols) + ", block " +
          std::to_string(d.block()) + ", " + std::to_string(d.blocks()) +
          " steps, local blocks here " + kleene::detail::shape(d.local_rows(), d.local_cols()) +
          ", panels by " + transport + (gpu ? " (device buffers)" : " (host buffers)"));
    t.add("distributed: per step, row panels " + mib(row_panels) + " down the process columns (" +
          link(col_cross) + "), column panels " + mib(col_panels) + " along the process rows (" +
          link(row_cross) + "), diagonal block " + mib(diag) + "; in all " +
          mib(steps * (row_panels + col_panels + diag)) + " over links; each rank receives about " +
          mib(b * s * (n / g.cols + n / g.rows)) + " a step");
    // Assumed rates (not measured here): broadcast bus bandwidth per rank.
    double const bw = gpu ? (row_cross || col_cross ? 20e9 : 150e9) : 5e9;
    double const rate = gpu ? (elem == 8 ? 2.2e12 : 14e12) : 1.2e10;  // updates/s, apsp_cost_model
    double const t_comm = steps * b * s * (n / g.cols + n / g.rows) / bw;
    double const t_comp = n * n * n / (rate * g.size());
    double const measured = c.allreduce_max(st.total);
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "distributed: model %.3g s of products per rank (at %.3g updates/s) and %.3g s "
                  "of broadcasts (at an assumed %.0f GB/s a rank)%s; measured %.3g s (slowest "
                  "rank)",
                  t_comp, rate, t_comm, bw / 1e9,
                  !lookahead ? ", one after the other"
                  : gpu      ? ", overlapped by look-ahead"
                             : ", overlapped by look-ahead (MPI_Ibcast)",
                  measured);
    t.add(buf);
    if (gpu) {
        if (st.streamed)
            t.add("distributed: rank " + std::to_string(c.rank()) +
                  ": local blocks streamed through the device each step (out of core), stripes "
                  "of " + std::to_string(st.stripe_rows) + " rows (" +
                  mib(double(st.stripe_rows) * double(d.local_cols()) * s) + "), " +
                  mib(2.0 * double(d.local_rows()) * double(d.local_cols()) * s) +
                  " over the host link a step");
        std::snprintf(buf, sizeof buf,
                      "distributed: rank %d: staging buffers %.3g s, device buffers %.3g s, "
                      "copy in (page-locking included) %.3g s, copy out %.3g s, page-locking "
                      "released %.3g s (the host's wait for the last step's copies out and "
                      "releases %.3g s), steps %.3g s (%.3g s on "
                      "the compute stream), whole call %.3g s; "
                      "compute stream: waiting for panels %.3g s, look-ahead bands %.3g s, "
                      "prepare (panels, after the diagonal block's arrival) %.3g s, rest of the "
                      "updates %.3g s",
                      c.rank(), st.pin, st.setup, st.copy_in, st.copy_out, st.unpin,
                      st.unpin_early, st.steps_wall, st.steps_device, st.total,
                      st.wait_panels, st.bands, st.prepare, st.rest);
    } else {
        std::snprintf(buf, sizeof buf,
                      "distributed: rank %d: %.3g s waiting in panel broadcasts of %.3g s",
                      c.rank(), st.broadcast, st.total);
    }
    t.add(buf);
}

/// The I/O model of the result, for the explain trace: a gather moves every other rank's blocks to
/// rank 0 (over the links of the row above) and one process writes n^2 entries; a layout
/// (layout.hpp) moves nothing between ranks and each rank writes its n^2 / P entries to the
/// shared file system at once. `seconds`: the measured time of either (slowest rank).
inline void explain_output(explain_trace& t, block_cyclic const& d, control& c, std::size_t elem,
                           bool layout, double seconds) {
    double const n = double(d.n()), s = double(elem), p = double(c.size());
    double const local = double(d.local_rows()) * double(d.local_cols()) * s;
    char buf[512];
    if (layout)
        std::snprintf(buf, sizeof buf,
                      "distributed output: no gather; each rank writes its blocks as one .kbin "
                      "(%s here, %s in all, about %s a rank), rank 0 then the manifest; %.3g s "
                      "(slowest rank, the agreement included)",
                      mib(local).c_str(), mib(n * n * s + 128 * p).c_str(),
                      mib(n * n * s / p).c_str(), seconds);
    else
        std::snprintf(buf, sizeof buf,
                      "distributed output: gather of %s to rank 0 (%s from other ranks), which "
                      "holds the whole matrix and writes it alone; gather %.3g s",
                      mib(n * n * s).c_str(), mib(n * n * s * (p - 1) / p).c_str(), seconds);
    t.add(buf);
}

/// The local blocks of the dense start: absent entries +inf, stored entries their weight (or
/// `edge` when given: closure), the diagonal min(a(i,i), 0) when `zero_diagonal`.
template <class T, class U, index_type Index>
dense_matrix<T> local_start(csr_matrix<U, Index> const& a, block_cyclic const& d,
                            bool zero_diagonal, bool use_edge = false, T edge = T(0)) {
    dense_matrix<T> m(d.local_rows(), d.local_cols());
    std::size_t const lr = d.local_rows();
#pragma omp parallel for schedule(static) if (lr >= 1024)
    for (std::size_t r = 0; r < lr; ++r) {
        std::size_t const i = d.global_row(d.prow(), r);
        T* row = m.data() + r * m.ld();
        std::fill(row, row + m.cols(), infinity<T>());
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            std::size_t const j = static_cast<std::size_t>(a.col_idx()[k]);
            if (d.owner_of_col(j) != d.pcol()) continue;
            row[d.local_col(j)] = use_edge ? edge : static_cast<T>(a.value(k));
        }
        if (zero_diagonal && d.owner_of_col(i) == d.pcol()) {
            T& x = row[d.local_col(i)];
            x = std::min(x, T(0));
        }
    }
    return m;
}

template <class T>
fw_stats run_fw(dense_matrix<T>& local, block_cyclic const& d, control& c, options const& opt) {
    if (opt.panels) {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                      std::is_same_v<T, std::int32_t>)
            return floyd_warshall_device<T>(local.view(), d, c, *opt.panels,
                                            {.lookahead = opt.lookahead,
                                             .blocks = opt.blocks,
                                             .stripe_rows = opt.stripe_rows,
                                             .timeout = opt.timeout,
                                             .ctx = opt.ctx,
                                             .fault = opt.fault});
        else
            throw invalid_argument("distributed apsp: the GPU runs fp32, fp64 and int32 only");
    }
    return floyd_warshall_host<T>(
        local.view(), d, c,
        {.lookahead = opt.lookahead, .timeout = opt.timeout, .fault = opt.fault});
}
}  // namespace detail

template <class T, index_type Index>
local_result<T> apsp(csr_matrix<T, Index> const& a, control& c, options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("apsp: the adjacency matrix must be square, not " +
                                 kleene::detail::shape(a.rows(), a.cols()));
    std::size_t const n = a.rows();
    process_grid const g = c.grid();
    bool const gpu = opt.panels != nullptr;
    block_cyclic const d(
        n, detail::distribution_block(n, g, gpu, opt.block, sizeof(T), opt.blocks, c, opt.ctx), g,
        c.rank());
    path_weight_bound const wb = weight_bound(a, "apsp");
    local_result<T> r;
    r.dist = d;
    if (!distances_fit<T>(wb)) {
        if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>) {
            // As the single-process apsp_widened: fp64, exact for int32 path sums, then narrowed.
            if (2 * wb.bound >= 0x1p53L)
                throw overflow_error("apsp: " + distance_range_note<T>(wb) +
                                     ", and past what fp64 holds exactly");
            if (opt.explain)
                opt.explain->add("apsp: " + distance_range_note<T>(wb) +
                                 ": computing in fp64 and narrowing the distances back");
            options same_blocks = opt;  // (the distribution of r, whatever fp64 would pick)
            same_blocks.block = d.block();
            local_result<double> wide = apsp(kleene::detail::as_fp64(a), c, same_blocks);
            r.stats = wide.stats;
            std::string why;  // (agreed: the other ranks would wait in the reduction below)
            try {
                r.local = dense_matrix<T>(d.local_rows(), d.local_cols());
            } catch (std::exception const& e) {
                why = e.what();
            }
            c.agree(why.empty(), why);
            long double const top = largest_finite_distance<T>();
            std::int64_t bad = -1;  // the largest global linear index, as apsp_widened reports
            for (std::size_t i = 0; i < r.local.rows(); ++i)
                for (std::size_t j = 0; j < r.local.cols(); ++j) {
                    double const x = wide.local(i, j);
                    if (x == infinity<double>()) {
                        r.local(i, j) = infinity<T>();
                    } else if (std::fabs(static_cast<long double>(x)) > top) {
                        bad = std::max(bad, std::int64_t(d.global_row(d.prow(), i) * n +
                                                         d.global_col(d.pcol(), j)));
                    } else {
                        r.local(i, j) = static_cast<T>(x);
                    }
                }
            bad = c.allreduce_max(bad);
            if (bad >= 0) {
                std::size_t const i = std::size_t(bad) / n, j = std::size_t(bad) % n;
                int const owner = g.rank_of(d.owner_of_row(i), d.owner_of_col(j));
                double x = 0;
                if (c.rank() == owner) x = wide.local(d.local_row(i), d.local_col(j));
                c.broadcast(&x, sizeof x, owner);
                throw_distance_overflow<T>("apsp", i, j, static_cast<long double>(x));
            }
            return r;
        } else {
            throw overflow_error("apsp: " + distance_range_note<T>(wb) +
                                 (std::is_integral_v<T> ? "; use fp64 (inexact past 2^53)" : ""));
        }
    }
    std::string why;
    try {
        r.local = detail::local_start<T>(a, d, true);
    } catch (std::exception const& e) {
        why = e.what();
    }
    c.agree(why.empty(), why);
    r.stats = detail::run_fw(r.local, d, c, opt);
    if (opt.explain)
        detail::explain_run(*opt.explain, d, c, sizeof(T), gpu, opt.lookahead,
                            opt.panels ? opt.panels->name() : std::string("MPI"), r.stats);
    std::int64_t const neg = first_negative_diagonal<T>(r.local.view(), d, c);
    if (neg >= 0) throw negative_cycle(neg);
    return r;
}

/// Transitive closure A+ (paths of one edge or more): min_plus over int32 with every edge 0 and
/// no diagonal set, so entry (i,j) is 0 where a path joins i to j and +inf elsewhere (exact, and
/// the int32 GEMM's fast path on the GPU; 32 times the memory of a bit matrix).
template <class U, index_type Index>
local_result<std::int32_t> closure(csr_matrix<U, Index> const& a, control& c,
                                   options const& opt = {}) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("closure: the adjacency matrix must be square, not " +
                                 kleene::detail::shape(a.rows(), a.cols()));
    process_grid const g = c.grid();
    bool const gpu = opt.panels != nullptr;
    block_cyclic const d(a.rows(),
                         detail::distribution_block(a.rows(), g, gpu, opt.block,
                                                    sizeof(std::int32_t), opt.blocks, c, opt.ctx),
                         g, c.rank());
    local_result<std::int32_t> r;
    r.dist = d;
    std::string why;
    try {
        r.local = detail::local_start<std::int32_t>(a, d, false, true, 0);
    } catch (std::exception const& e) {
        why = e.what();
    }
    c.agree(why.empty(), why);
    r.stats = detail::run_fw(r.local, d, c, opt);
    if (opt.explain)
        detail::explain_run(*opt.explain, d, c, sizeof(std::int32_t), gpu, opt.lookahead,
                            opt.panels ? opt.panels->name() : std::string("MPI"), r.stats);
    return r;
}

/// The whole n x n matrix on rank `root` (empty elsewhere): every rank sends its local blocks.
template <class T>
dense_matrix<T> gather(dense_view<T const> local, block_cyclic const& d, control& c, int root = 0) {
    process_grid const g = d.grid();
    std::string why;
    dense_matrix<T> full;
    // The receive buffer too, before the agreement: a root that failed to allocate it would
    // leave the senders waiting. (The parts of rank (0, 0) are the largest.)
    buffer<T> buf;
    if (c.rank() == root) {
        try {
            full = dense_matrix<T>(d.n(), d.n());
            if (c.size() > 1) buf = buffer<T>(d.local_rows(0) * d.local_cols(0));
        } catch (std::exception const& e) {
            why = e.what();
        }
    }
    c.agree(why.empty(), why);
    if (c.rank() != root) {
        if (local.rows > 0 && local.cols > 0)
            c.send(local.data, local.rows * local.cols * sizeof(T), root);
        return full;
    }
    for (int r = 0; r < c.size(); ++r) {
        int const p = g.row_of(r), q = g.col_of(r);
        std::size_t const lr = d.local_rows(p), lc = d.local_cols(q);
        if (lr * lc == 0) continue;
        dense_view<T const> src = local;
        if (r != root) {
            c.recv(buf.data(), lr * lc * sizeof(T), r);
            src = dense_view<T const>{buf.data(), lr, lc, lc};
        }
#pragma omp parallel for schedule(static) if (lr >= 1024)
        for (std::size_t i = 0; i < lr; ++i)
            d.scatter_row(q, src.row(i), full.data() + d.global_row(p, i) * full.ld());
    }
    return full;
}

}  // namespace kleene::distributed

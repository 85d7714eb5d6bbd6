#pragma once
// Distributed blocked Floyd-Warshall over min_plus on a 2D block-cyclic matrix (block_cyclic.hpp),
// in place on each rank's local blocks. Step K (one per block of the diagonal):
//   1. the owner of block (K,K) closes it (D = D+ by Floyd-Warshall on the block);
//   2. D goes along its process row and its process column;
//   3. the pivot row panel A(K,:) becomes A(K,:) (+) D A(K,:) on its process row, the pivot
//      column panel A(:,K) becomes A(:,K) (+) A(:,K) D on its process column;
//   4. the row panel goes down every process column, the column panel along every process row;
//   5. every rank updates its blocks outside block row and column K (final after step 3):
//      A(I,J) (+)= A(I,K) A(K,J).
// Why Floyd-Warshall and not R-Kleene: R-Kleene's recursion halves the matrix, so its top-level
// products involve the whole grid but its inner levels (and the closures at the leaves) run on
// ever fewer processes and serialise them; blocked Floyd-Warshall has the same n^3 work, keeps
// every rank busy with one rank-b product per step, and its communication is two panel
// broadcasts per step (Sao et al., HPDC 2020, pipeline blocked Floyd-Warshall the same way).
//
// Device, early diagonal (the default): the owner of block (K+1,K+1) updates that block first,
// closes it and starts its broadcast, and only then updates the rest of block row and column K+1,
// so the closure and the broadcast travel while the other ranks update their bands; before, the
// ranks of that process row and column waited for the closure after their bands.
//
// Host (MPI, CPU kernels): the same tile kernels in the same order as floyd_warshall_blocked
// (floyd_warshall.hpp), so with the same block size the result equals it bit for bit, floating
// point included; with look-ahead (as on the device) the panel broadcasts of step K+1 are
// nonblocking and travel during the rest of step K's update. Device (NCCL, GPU GEMM): one compute
// stream and one communication stream; with look-ahead, step K first updates block row and column
// K+1, closes and broadcasts their panels, and only then runs the rest of step K's update, so that
// the broadcasts of step K+1 travel while the large product of step K runs.
//
// Device, streamed (out of core per rank; floyd_warshall_device, device_fw_options::blocks): the
// local blocks stay page-locked on the host; block row and column K+1 are gathered on the device
// (from the stripes of step K-1 and the panels of K-1 and K, so a step does not wait for the
// last one's stores) into the panel buffers, and the rest of the local rows pass through the
// device in stripes.
//
// Errors: every step ends with an agreement (control::agree) on whether each rank's part went
// well, so a failure on one rank (an exception while enqueueing, say) reaches all of them instead
// of leaving the others waiting in a broadcast. On the host a failed rank still takes part in the
// step's broadcasts until that agreement; on the device the host stays two steps ahead of the
// device at most, so that a device failure shows at an agreement too, and the communicators are
// aborted. Waits past options::timeout throw rank_timeout (the caller ends the job).
// docs/distributed.md, "Failures on one rank".

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <kleene/algorithms/distributed/comm.hpp>
#include <kleene/algorithms/distributed/faults.hpp>
#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/host_copy.hpp>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>
#include <memory>
#include <string>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace kleene::distributed {

/// What one rank measured (seconds).
struct fw_stats {
    double total = 0;      ///< the whole call on this rank
    double broadcast = 0;  ///< host path: time inside the panel broadcasts
    /// Device path: making the staging buffers (host_copy.hpp; page-locking happens in copy_in),
    /// and releasing the page-locking or the buffers after the copy out.
    double pin = 0, unpin = 0;
    /// Device path, early_copy_out: from the host's arrival at the end of the queued steps until
    /// every locked range had been released, each as soon as its rows were out (part of
    /// steps_wall).
    double unpin_early = 0;
    /// Device path: host blocks to the device (page-locked: the page-locking too, which each
    /// range's copy follows at once).
    double copy_in = 0;
    /// Device path: back to the host, after the steps (with early_copy_out, what is left of it
    /// when the last step's update has ended).
    double copy_out = 0;
    /// Device path, the compute stream's time by phase, summed over the steps (CUDA events):
    /// idle until the step's panels arrived; the look-ahead's update of block row and column K+1
    /// (with early_diagonal, the closure of diagonal block K+1 on its owner too); prepare (the
    /// diagonal block's broadcast awaited, the panels updated and their broadcasts queued; the
    /// closure too without early_diagonal); the rest of the step's update.
    double wait_panels = 0, bands = 0, prepare = 0, rest = 0;
    /// Device path: the device buffers, streams and events made (host clock); the steps from the
    /// first prepare until the compute stream's last update ended (host clock), and from the
    /// first step's start to the last one's end on the compute stream (CUDA events).
    double setup = 0, steps_wall = 0, steps_device = 0;
    std::size_t steps = 0;
    /// Device path: whether the local blocks stayed on the host and streamed through the device
    /// (out of core), in stripes of this many rows.
    bool streamed = false;
    std::size_t stripe_rows = 0;
};

namespace detail {
inline double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline bool on_thread_0() {
#ifdef _OPENMP
    return omp_get_thread_num() == 0;
#else
    return true;
#endif
}

/// The local tile of global blocks (I, J) owned here.
template <class V>
V local_tile(V local, block_cyclic const& d, std::size_t I, std::size_t J) {
    return local.block(d.local_offset_row(I), d.local_offset_col(J), d.block_size(I),
                       d.block_size(J));
}
}  // namespace detail

/// How the host path runs (floyd_warshall_host).
struct host_fw_options {
    /// Step K updates block row and column K+1 first and starts step K+1's panel broadcasts
    /// before the rest of its update; false runs the steps one after the other.
    bool lookahead = true;
    /// Seconds a rank waits for the others within the steps before it gives up (rank_timeout),
    /// on top of ten times its longest step so far (a wait inside a step is bounded by the
    /// slowest rank's step); 0: no limit.
    double timeout = 0;
    /// A failure planted on purpose (tests).
    fault_plan fault;
};

namespace detail {
/// Sets a control's wait limit for a scope, and puts the previous one back.
class wait_limit_scope {
  public:
    explicit wait_limit_scope(control& c) : c_(c), old_(c.wait_limit()) {}
    ~wait_limit_scope() { c_.set_wait_limit(old_); }
    wait_limit_scope(wait_limit_scope const&) = delete;
    wait_limit_scope& operator=(wait_limit_scope const&) = delete;
    /// `timeout` (0: none) plus ten times the longest step so far.
    void set(double timeout, double longest_step) {
        c_.set_wait_limit(timeout > 0 ? timeout + 10 * longest_step : 0);
    }

  private:
    control& c_;
    double old_;
};

inline std::string step_of(std::size_t k, std::size_t steps) {
    return "step " + std::to_string(k + 1) + " of " + std::to_string(steps);
}
}  // namespace detail

/// Host path: local is this rank's lrows x lcols matrix (d.local_rows() x d.local_cols()).
/// With look-ahead, step K first updates the local tiles of block row and column K+1, prepares
/// step K+1 (closes its diagonal block, updates its panels) and starts their broadcasts
/// (control::ibroadcast), and only then runs the rest of step K's update, testing the broadcasts
/// between tiles so that MPI moves them meanwhile; step K+1 waits for them first. Each tile goes
/// through the same operations in the same order either way, so the result is the same bit for
/// bit.
/// Failures: a rank whose work fails (an exception on any thread) skips the rest of the step's
/// work but still takes part in every broadcast of the step, so that no rank waits for a message
/// that will not come; the agreement at the step's end then throws collective_error on every rank,
/// "rank R: step S of N: cause", and the control stays usable. A wait past o.timeout throws
/// rank_timeout (not agreed: the caller ends the job).
template <class T>
fw_stats floyd_warshall_host(dense_view<T> local, block_cyclic const& d, control& c,
                             host_fw_options const& o = {}) {
    auto const t0 = std::chrono::steady_clock::now();
    fw_stats st;
    if (local.rows != d.local_rows() || local.cols != d.local_cols())
        throw dimension_mismatch("distributed floyd_warshall: local matrix " +
                                 kleene::detail::shape(local.rows, local.cols) + ", expected " +
                                 kleene::detail::shape(d.local_rows(), d.local_cols()));
    process_grid const g = d.grid();
    std::size_t const nb = d.blocks(), b = d.block();
    std::size_t const lbr = d.local_block_rows(d.prow()), lbc = d.local_block_cols(d.pcol());
    std::size_t const lr = local.rows, lc = local.cols;
    bool const lookahead = o.lookahead;
    int const me = c.rank();
    using fault = fault_plan::kind;
    // This rank's first failure in the step under way; its work stops there, its talk does not.
    std::string why;
    // The buffers, agreed before the first broadcast: a rank that cannot have them leaves no
    // other waiting.
    dense_matrix<T> diag, rowp[2], colp[2];
    try {
        std::size_t const elems =
            b * b + 2 * b * std::max<std::size_t>(lc, 1) + 2 * std::max<std::size_t>(lr, 1) * b;
        if (o.fault.at_setup(me))
            throw out_of_memory(
                "distributed floyd_warshall: the panel buffers (" +
                    kleene::detail::format_bytes(static_cast<long double>(elems * sizeof(T))) +
                    ") were refused (fault plan)",
                static_cast<long double>(elems * sizeof(T)));
        diag = dense_matrix<T>(b, b);
        for (auto& p : rowp) p = dense_matrix<T>(b, std::max<std::size_t>(lc, 1));
        for (auto& p : colp) p = dense_matrix<T>(std::max<std::size_t>(lr, 1), b);
    } catch (std::exception const& e) {
        why = e.what();
    }
    c.agree(why.empty(), why);
    // Work runs only while the step has not failed here; talk (every broadcast) always runs.
    auto work = [&](auto&& f) {
        if (!why.empty()) return;
        try {
            f();
        } catch (std::exception const& e) {
            why = e.what();
        }
    };
    auto talk = [&](auto&& f) {
        try {
            f();
        } catch (rank_timeout const&) {
            throw;
        } catch (std::exception const& e) {
            if (why.empty()) why = e.what();
        }
    };
    // The panel broadcasts of step K, in flight (row panel, column panel).
    std::unique_ptr<pending> inflight[2][2];
    auto wait_panels = [&](std::size_t K) {
        auto const tb = std::chrono::steady_clock::now();
        talk([&] {
            for (auto& p : inflight[K % 2])
                if (p) {
                    p->wait();
                    p.reset();
                }
        });
        st.broadcast += detail::since(tb);
    };
    // Steps 1-4 of block K: panels of K in rowp[K % 2], colp[K % 2], their broadcasts started.
    auto prepare = [&](std::size_t K) {
        std::size_t const bk = d.block_size(K);
        int const kr = d.owner_row(K), kc = d.owner_col(K);
        bool const in_row = d.prow() == kr, in_col = d.pcol() == kc;
        dense_view<T> const D{diag.data(), bk, bk, b};
        // 1-2. Close D on its owner; send it along the owner's row and column.
        work([&] {
            if (in_row && in_col) {
                auto const t = detail::local_tile(local, d, K, K);
                kleene::detail::fw_dependent(t, t, t);
                for (std::size_t i = 0; i < bk; ++i) std::copy(t.row(i), t.row(i) + bk, D.row(i));
            }
        });
        auto const tb = std::chrono::steady_clock::now();
        talk([&] {
            if (in_row && g.cols > 1) c.broadcast(axis::row, diag.data(), b * bk * sizeof(T), kc);
            if (in_col && g.rows > 1) c.broadcast(axis::col, diag.data(), b * bk * sizeof(T), kr);
        });
        st.broadcast += detail::since(tb);
        // 3. Panels, tile by tile as floyd_warshall_blocked does.
        work([&] {
            cpu::exception_carrier ff;  // (no exception may leave an OpenMP region)
            if (in_row) {
#pragma omp parallel for schedule(dynamic, 1) if (lbc > 2)
                for (std::size_t l = 0; l < lbc; ++l)
                    ff.run([&] {
                        std::size_t const J = d.global_block_col(d.pcol(), l);
                        if (J == K) return;
                        auto const s = detail::local_tile(local, d, K, J);
                        kleene::detail::fw_dependent(s, D, s);
                    });
            }
            if (in_col) {
#pragma omp parallel for schedule(dynamic, 1) if (lbr > 2)
                for (std::size_t l = 0; l < lbr; ++l)
                    ff.run([&] {
                        std::size_t const I = d.global_block_row(d.prow(), l);
                        if (I == K) return;
                        auto const s = detail::local_tile(local, d, I, K);
                        kleene::detail::fw_dependent(s, s, D);
                    });
            }
            ff.rethrow("the pivot panels");
        });
        // 4. The row panel (bk x lc) down the columns, the column panel (lr x bk) along the rows.
        dense_matrix<T>& rp = rowp[K % 2];
        dense_matrix<T>& cp = colp[K % 2];
        work([&] {
            if (in_row) {
                auto const src = local.block(d.local_offset_row(K), 0, bk, lc);
                for (std::size_t i = 0; i < bk; ++i)
                    std::copy(src.row(i), src.row(i) + lc, rp.data() + i * rp.ld());
            }
            if (in_col) {
                auto const src = local.block(0, d.local_offset_col(K), lr, bk);
                for (std::size_t i = 0; i < lr; ++i)
                    std::copy(src.row(i), src.row(i) + bk, cp.data() + i * b);
            }
        });
        talk([&] {
            if (g.rows > 1 && lc > 0)
                inflight[K % 2][0] =
                    c.ibroadcast(axis::col, rp.data(), bk * rp.ld() * sizeof(T), kr);
            if (g.cols > 1 && lr > 0)
                inflight[K % 2][1] = c.ibroadcast(axis::row, cp.data(), lr * b * sizeof(T), kc);
        });
        if (!lookahead) wait_panels(K);
    };
    // 5. The tiles (I, J) outside block row and column K that `pick` selects: A(I,J) (+)=
    // C(I,K) R(K,J). Thread 0 (MPI's thread) tests the broadcasts of step `next` between tiles.
    auto update = [&](std::size_t K, auto pick, std::size_t next) {
        std::size_t const bk = d.block_size(K);
        dense_view<T const> const R{rowp[K % 2].data(), bk, lc, rowp[K % 2].ld()};
        dense_view<T const> const C{colp[K % 2].data(), lr, bk, b};
        auto& poke = inflight[next % 2];
        bool const any = next != K && (poke[0] || poke[1]);
        bool const boom = o.fault.at(fault::exception, me, K);
        std::size_t const tiles = lbr * lbc;
        work([&] {
            cpu::exception_carrier ff;
#pragma omp parallel for schedule(dynamic, 1) if (tiles > 2)
            for (std::size_t t = 0; t < tiles; ++t)
                ff.run([&] {
                    std::size_t const I = d.global_block_row(d.prow(), t / lbc);
                    std::size_t const J = d.global_block_col(d.pcol(), t % lbc);
                    if (I == K || J == K || !pick(I, J)) return;
                    if (boom)
                        throw error("an exception in the update of block (" + std::to_string(I) +
                                    ", " + std::to_string(J) + ") (fault plan)");
                    std::size_t const ri = d.local_offset_row(I), cj = d.local_offset_col(J);
                    kleene::detail::fw_independent<T>(
                        detail::local_tile(local, d, I, J),
                        dense_view<T const>{C.row(ri), d.block_size(I), bk, b},
                        dense_view<T const>{R.data + cj, bk, d.block_size(J), R.ld});
                    if (any && detail::on_thread_0())
                        for (auto& p : poke)
                            if (p) p->test();
                });
            ff.rethrow("the update");
        });
    };
    auto const all = [](std::size_t, std::size_t) { return true; };
    detail::wait_limit_scope limit(c);
    limit.set(o.timeout, 0);
    double longest = 0;  // this rank's longest step so far (s)
    for (std::size_t K = 0; K < nb; ++K) {
        auto const tk = std::chrono::steady_clock::now();
        try {
            detail::fault_at_step_start(o.fault, me, K);
            if (K == 0) prepare(0);
            wait_panels(K);
            work([&] {
                if (o.fault.at(fault::allocation, me, K))
                    throw out_of_memory("a host allocation of the step was refused (fault plan)",
                                        0);
            });
            std::size_t const N = K + 1;
            if (lookahead && N < nb) {
                auto const band = [&](std::size_t I, std::size_t J) { return I == N || J == N; };
                auto const rest = [&](std::size_t I, std::size_t J) { return I != N && J != N; };
                update(K, band, K);
                prepare(N);
                update(K, rest, N);
            } else {
                update(K, all, K);
                if (N < nb) prepare(N);
            }
            c.agree(why.empty(), why.empty() ? why : detail::step_of(K, nb) + ": " + why);
        } catch (rank_timeout const& e) {
            throw rank_timeout("rank " + std::to_string(me) + ": " + detail::step_of(K, nb) + ": " +
                               e.what());
        }
        ++st.steps;
        longest = std::max(longest, detail::since(tk));
        limit.set(o.timeout, longest);
    }
    st.total = detail::since(t0);
    return st;
}

/// The global index of the first vertex whose local diagonal entry here is negative, or -1;
/// agreed over every rank (the smallest, as the single-process search finds).
template <class T>
std::int64_t first_negative_diagonal(dense_view<T const> local, block_cyclic const& d, control& c) {
    std::int64_t first = std::int64_t(d.n());
    for (std::size_t I = 0; I < d.blocks() && first == std::int64_t(d.n()); ++I) {
        if (d.owner_row(I) != d.prow() || d.owner_col(I) != d.pcol()) continue;
        std::size_t const r0 = d.local_offset_row(I), c0 = d.local_offset_col(I);
        for (std::size_t i = 0; i < d.block_size(I); ++i)
            if (local(r0 + i, c0 + i) < T(0)) {
                first = std::int64_t(I * d.block() + i);
                break;
            }
    }
    first = c.allreduce_min(first);
    return first == std::int64_t(d.n()) ? -1 : first;
}

/// How the device path orders its work (the defaults are the fast ones; the others are there to
/// compare against).
struct device_fw_options {
    /// Step K updates block row and column K+1 first and prepares step K+1's panels before the
    /// rest of its update; false runs the steps one after the other.
    bool lookahead = true;
    /// The broadcasts' stream has high priority, so that their kernels get SMs ahead of the
    /// product's pending blocks instead of after them (on 4 x H200, n = 65536, 2026-11-28: no
    /// difference measured, 6.54 s against 6.52 s).
    bool urgent_messages = true;
    /// How the local blocks go to the device and back (host_copy.hpp).
    cuda::host_transfer host_transfer = cuda::host_transfer::page_locked;
    /// With look-ahead: the owner of diagonal block K+1 updates that block first, closes it and
    /// starts its broadcast before the rest of the bands, so that the ranks of its process row
    /// and column do not wait for the closure; false closes it after the bands.
    bool early_diagonal = true;
    /// Page-locked copies: the last step updates the local rows in chunks, and each chunk goes
    /// to the host (on a stream of its own) as soon as its update has ended.
    bool early_copy_out = true;
    /// Threads page-locking the local blocks at once (host_copy.hpp).
    std::size_t lock_threads = 8;
    /// Where the local blocks live during the steps: on the device (in core), or on the host,
    /// page-locked, streamed through the device each step (out of core per rank); automatic:
    /// streamed when the local blocks and the panels do not fit in the free device memory.
    enum class residence { automatic, device, streamed };
    residence blocks = residence::automatic;
    /// Streamed: rows of the local blocks in each of the three stripe buffers (0: chosen, about
    /// 256 MiB a stripe).
    std::size_t stripe_rows = 0;
    /// Seconds a rank waits within the steps for its device to end a step before it gives up,
    /// on top of ten times its longest step so far (0: no limit): the communicators are aborted
    /// and the step's agreement says why (panels_stalled). The agreements themselves wait twice
    /// as long, so that a rank stalled by another's failure reaches its agreement before the
    /// others give up on it (rank_timeout: the caller ends the job).
    double timeout = 0;
    /// A failure planted on purpose (tests).
    fault_plan fault;
};

namespace detail {
/// The device memory the in-core device path needs (local blocks, two row and two column panels,
/// the diagonal block), in elements.
inline std::size_t in_core_elements(std::size_t lr, std::size_t lc, std::size_t b) {
    return lr * lc + 2 * b * lc + 2 * lr * b + b * b;
}
/// Whether those buffers, of `elem`-byte entries, and 1 GiB and 5% to spare fit in `free` bytes.
inline bool fits_in_core(std::size_t lr, std::size_t lc, std::size_t b, std::size_t elem,
                         std::size_t free) {
    return in_core_elements(lr, lc, b) * elem + (std::size_t(1) << 30) + free / 20 <= free;
}
/// Streamed: three row and three column panels, the diagonal block, the panel update's scratch
/// and three stripes of `sr` rows, in elements.
inline std::size_t streamed_elements(std::size_t lr, std::size_t lc, std::size_t b,
                                     std::size_t sr) {
    return 3 * b * lc + 3 * lr * b + b * b + std::max(b * lc, lr * b) + 3 * sr * lc;
}
}  // namespace detail

/// Device path: the same algorithm on the GPU this rank uses (use_device, nccl.hpp), panels
/// broadcast by `panels`. In core: the local blocks are copied from and back to the host view
/// `local` (page-locked for the call). Streamed (out of core per rank, o.blocks): `local` is
/// page-locked and stays where it is; each step has block row and column K+1 in the panel
/// buffers of step K+1 (loaded at step 0, later gathered on the device: fill_band), updates them
/// with step K's panels, prepares step K+1 from them and stores them back, then streams the other
/// local rows through three stripe buffers (load on one stream, C(stripe, K) R(K, :) on the
/// compute stream, store on a third), so that a step moves the local blocks in and out once while
/// the products run. The streamed steps always use look-ahead
/// and the early diagonal, and give the same result as the in-core steps (each tile sees the same
/// operations in the same order).
template <class T>
fw_stats floyd_warshall_device(dense_view<T> local, block_cyclic const& d, control& c,
                               device_panels& panels, device_fw_options const& o = {}) {
    auto const t0 = std::chrono::steady_clock::now();
    fw_stats st;
    if (local.rows != d.local_rows() || local.cols != d.local_cols() || local.ld != local.cols)
        throw dimension_mismatch("distributed floyd_warshall: local matrix " +
                                 kleene::detail::shape(local.rows, local.cols) + ", expected " +
                                 kleene::detail::shape(d.local_rows(), d.local_cols()) +
                                 " without padding");
    using view = dense_view<T, device>;
    using cview = dense_view<T const, device>;
    using S = min_plus<T>;
    using residence = device_fw_options::residence;
    process_grid const g = d.grid();
    std::size_t const nb = d.blocks(), b = d.block();
    std::size_t const lr = local.rows, lc = local.cols;
    std::size_t const row_bytes = lc * sizeof(T);
    // Streamed: when asked, or (automatic) when the in-core buffers do not fit.
    bool streamed = o.blocks == residence::streamed;
    if (o.blocks == residence::automatic)
        streamed = !detail::fits_in_core(lr, lc, b, sizeof(T), cuda::free_device_memory());
    std::size_t sr = 0;  // streamed: rows a stripe
    if (streamed) {
        sr = o.stripe_rows ? o.stripe_rows
                           : std::max<std::size_t>((std::size_t(256) << 20) / std::max<std::size_t>(
                                                                                  row_bytes, 1),
                                                   64);
        sr = std::clamp<std::size_t>(sr, 1, std::max<std::size_t>(lr, 1));
    }
    bool const lookahead = o.lookahead || streamed;
    bool const early_diagonal = o.early_diagonal || streamed;
    st.streamed = streamed;
    st.stripe_rows = sr;
    std::string why;
    // Whether this rank's failure may follow from another's (panels_stalled): the agreement then
    // prefers another rank's cause.
    bool consequence = false;
    // From the first broadcast queued until every broadcast has ended here: a failure then aborts
    // the communicators (nccl.hpp), since some broadcast may wait for a partner that will not
    // come. A failure before it (here, in the set-up) reaches every rank at the agreement before
    // the first broadcast, with nothing queued, and leaves them usable.
    bool in_flight = false;
    int const me = c.rank();
    using fault = fault_plan::kind;
    detail::wait_limit_scope limit(c);
    double longest = 0;  // this rank's longest step so far (s), host clock
    // The device's end of the work before e's last record, within the limit.
    auto await = [&](cuda::event const& e) {
        panels.wait(e, o.timeout > 0 ? o.timeout + 10 * longest : 0);
    };
    try {
        if (o.fault.at_setup(me))
            throw device_error(
                "distributed floyd_warshall: the device buffers were refused (fault plan): out of "
                "device memory");
        if (streamed) {
            // Too little device memory even for the panels and stripes: say what it takes.
            std::size_t const need = detail::streamed_elements(lr, lc, b, sr) * sizeof(T);
            std::size_t const free = cuda::free_device_memory();
            if (free && need > free)
                throw device_error(
                    "distributed floyd_warshall: streaming the local blocks (" +
                    kleene::detail::shape(lr, lc) + ", block " + std::to_string(b) + ") needs " +
                    kleene::detail::format_bytes(static_cast<long double>(need)) +
                    " of device memory, " +
                    kleene::detail::format_bytes(static_cast<long double>(free)) +
                    " are free: use a smaller block or more ranks");
        }
        auto tp = std::chrono::steady_clock::now();
        cuda::host_copy host(local.data, lr, row_bytes,
                             streamed ? cuda::host_transfer::page_locked : o.host_transfer,
                             o.lock_threads, streamed);
        st.pin = detail::since(tp);
        tp = std::chrono::steady_clock::now();
        dense_matrix<T, device> A(streamed ? 0 : lr, streamed ? 0 : lc), diag(b, b);
        // The row and column panels of the steps in flight: K's and K+1's in core; streamed,
        // K-1's too (the band of K+1 is made from the stripes of step K-1 and the panels of K-1
        // and K).
        std::size_t const sets = streamed ? 3 : 2;
        std::vector<dense_matrix<T, device>> rowp, colp;
        for (std::size_t i = 0; i < sets; ++i) {
            rowp.emplace_back(b, lc);
            colp.emplace_back(lr, b);
        }
        // Streamed: the panel updates' scratch, the stripes.
        dense_matrix<T, device> scratch(streamed ? 1 : 0, streamed ? std::max(b * lc, lr * b) : 0);
        std::vector<dense_matrix<T, device>> stripe;
        for (int i = 0; streamed && i < 3; ++i) stripe.emplace_back(sr, lc);
        cuda::stream const cs;  // compute
        cuda::stream const ms(o.urgent_messages ? cuda::stream_priority::high
                                                : cuda::stream_priority::normal);  // messages
        cuda::event d_ready, d_here, p_ready, p_here[3];
        st.setup = detail::since(tp);
        auto tc = std::chrono::steady_clock::now();
        if (streamed) {
            if (!host.locked())
                throw device_error(
                    "distributed floyd_warshall: the local blocks (" +
                    kleene::detail::shape(lr, lc) +
                    ") could not be page-locked (cudaHostRegister), which streaming them through "
                    "the device (out of core) needs");
        } else {
            host.to_device(A.data(), cs);
        }
        st.copy_in = detail::since(tc);
        // Early copy out (once the copy in has settled how the copies go): the last step's
        // update in at most 8 row chunks of at least 32 rows.
        bool const early_out = !streamed && o.early_copy_out && nb > 0 && host.direct();
        std::size_t const out_chunks = early_out ? std::clamp<std::size_t>(lr / 32, 1, 8) : 0;
        std::vector<cuda::event> out_ready(out_chunks), out_done(out_chunks);
        // The copies out (early_out); streamed: the stores, and the loads on ls.
        std::unique_ptr<cuda::stream const> xs, ls;
        if (early_out || streamed) xs = std::make_unique<cuda::stream const>();
        if (streamed) ls = std::make_unique<cuda::stream const>();
        cuda::event loaded[3], computed[3], freed[3], band_loaded, band_done, stored, reads_done;
        std::size_t ring = 0;  // streamed: stripes so far
        view const Av = A.view();
        // Prepare (steps 1-4) runs on the compute stream too. (Tried 2026-11-28 on 4 x H200:
        // prepare on a high-priority stream of its own beside the rest of the previous step's
        // update took 6.63 s and 5.98 s against 6.54 s and 6.02 s at n = 65536; not kept.)
        auto copy2d = [&](view dst, cview src) {
            if (dst.rows && dst.cols)
                cuda::copy_rows_async(dst.data, dst.ld * sizeof(T), src.data, src.ld * sizeof(T),
                                      dst.cols * sizeof(T), dst.rows,
                                      cuda::copy_kind::device_to_device, cs);
        };
        // c (+)= x y where x or y may share c's storage: through the buffer `buf` (c's shape).
        auto panel_update = [&](view target, view buf, cview x, cview y) {
            if (!target.rows || !target.cols) return;
            copy2d(buf, target);
            cuda::dense_gemm<S>(x, y, buf, true, cs);
            copy2d(target, buf);
        };
        // Streamed: the band buffers of block K hold block row K (rowp, local rows from
        // local_offset_row(K), every local column) and block column K (colp, every local row,
        // local columns from local_offset_col(K)). Their views, and the diagonal block's.
        auto row_band = [&](std::size_t K) {
            return view{rowp[K % sets].data(), d.block_size(K), lc, lc};
        };
        auto col_band = [&](std::size_t K) {
            return view{colp[K % sets].data(), lr, d.block_size(K), b};
        };
        auto diagonal_tile = [&](std::size_t K) {
            return streamed ? row_band(K).block(0, d.local_offset_col(K), d.block_size(K),
                                                d.block_size(K))
                            : detail::local_tile(Av, d, K, K);
        };
        // Step 5 of block K on local rows [r0, r1) x columns [c0, c1), held at `at` (the place
        // of local (r0, c0)) with rows `ld` apart: A itself in core, a band or a stripe streamed.
        auto update_at = [&](std::size_t K, T* at, std::size_t ld, std::size_t r0, std::size_t r1,
                             std::size_t c0, std::size_t c1) {
            if (r1 <= r0 || c1 <= c0) return;
            std::size_t const bk = d.block_size(K);
            cview const C{colp[K % sets].data() + r0 * b, r1 - r0, bk, b};
            cview const R{rowp[K % sets].data() + c0, bk, c1 - c0, lc};
            cuda::dense_gemm<S>(C, R, view{at, r1 - r0, c1 - c0, ld}, true, cs);
        };
        auto update = [&](std::size_t K, std::size_t r0, std::size_t r1, std::size_t c0,
                          std::size_t c1) {
            update_at(K, Av.data + r0 * Av.ld + c0, Av.ld, r0, r1, c0, c1);
        };
        // Block row and column K where they are held here (else empty): final once the panels of
        // K are made, so step 5 of block K leaves them alone (updating them again changes
        // nothing but costs b / lr and b / lc of the step's product on the ranks holding them).
        auto pivot_rows = [&](std::size_t K) {
            std::size_t const r = d.local_offset_row(K);
            return d.owner_row(K) == d.prow() ? detail::span{r, r + d.block_size(K)}
                                              : detail::span{};
        };
        auto pivot_cols = [&](std::size_t K) {
            std::size_t const c = d.local_offset_col(K);
            return d.owner_col(K) == d.pcol() ? detail::span{c, c + d.block_size(K)}
                                              : detail::span{};
        };
        // In core: step 5 of block K on the local rows `rows` outside block row K and `xr`, and
        // the columns `cols` outside block column K and `yc`.
        auto update_outside = [&](std::size_t K, detail::span rows, detail::span xr,
                                  detail::span cols, detail::span yc) {
            for (detail::span const r : detail::without(rows.lo, rows.hi, pivot_rows(K), xr))
                for (detail::span const q : detail::without(cols.lo, cols.hi, pivot_cols(K), yc))
                    update(K, r.lo, r.hi, q.lo, q.hi);
        };
        // Streamed: block row and column N (those held here) between the host and the band
        // buffers of N, queued on s; row first, so that a store leaves the column's copy of the
        // diagonal tile, the final one.
        auto copy_band = [&](std::size_t N, cuda::copy_kind k, cuda::stream const& s) {
            std::size_t const bk = d.block_size(N);
            if (d.owner_row(N) == d.prow())
                host.block_async(rowp[N % sets].data(), row_bytes, d.local_offset_row(N),
                                 d.local_offset_row(N) + bk, 0, row_bytes, k, s);
            if (d.owner_col(N) == d.pcol())
                host.block_async(colp[N % sets].data(), b * sizeof(T), 0, lr,
                                 d.local_offset_col(N) * sizeof(T), bk * sizeof(T), k, s);
        };
        // Streamed: later loads wait for every store queued so far.
        auto loads_after_stores = [&] {
            stored.record(*xs);
            ls->wait(stored);
        };
        // Streamed: loads block row and column N into the band buffers of N, once the compute
        // stream has read them for the last time (step N-2) and every store queued so far has
        // reached the host; the compute stream waits for them.
        auto load_band = [&](std::size_t N) {
            loads_after_stores();
            reads_done.record(cs);
            ls->wait(reads_done);
            copy_band(N, cuda::copy_kind::host_to_device, *ls);
            band_loaded.record(*ls);
            cs.wait(band_loaded);
        };
        // Streamed, N >= 2: the stripes of step N-2 left block row and column N (those held here)
        // in the band buffers of N wherever they updated them (keep_band below); the rest comes
        // from the panels of N-1 and N-2, final already: block row N's tiles in block columns
        // N-1 and N-2, block column N's tiles in block rows N-1 and N-2. The same values the host
        // holds (those panels were stored there), without waiting for the stores.
        auto fill_band = [&](std::size_t N) {
            std::size_t const bn = d.block_size(N);
            bool const here_r = d.owner_row(N) == d.prow(), here_c = d.owner_col(N) == d.pcol();
            for (std::size_t P : {N - 1, N - 2}) {
                std::size_t const bp = d.block_size(P);
                if (here_r && d.owner_col(P) == d.pcol())
                    copy2d(view{rowp[N % sets].data() + d.local_offset_col(P), bn, bp, lc},
                           cview{colp[P % sets].data() + d.local_offset_row(N) * b, bn, bp, b});
                if (here_c && d.owner_row(P) == d.prow())
                    copy2d(view{colp[N % sets].data() + d.local_offset_row(P) * b, bp, bn, b},
                           cview{rowp[P % sets].data() + d.local_offset_col(N), bp, bn, lc});
            }
        };
        // Steps 1-2 of block K: its owner closes the diagonal block into `diag`, which goes
        // along the owner's process row and column (d_here marks its arrival).
        bool diag_sent = false;  // whose broadcast d_here marks, not yet awaited
        auto send_diagonal = [&](std::size_t K) {
            std::size_t const bk = d.block_size(K);
            int const kr = d.owner_row(K), kc = d.owner_col(K);
            bool const in_row = d.prow() == kr, in_col = d.pcol() == kc;
            view const D{diag.data(), bk, bk, b};
            if (in_row && in_col) {
                view const t = diagonal_tile(K);
                cuda::floyd_warshall_blocked<T>(t, cs);
                copy2d(D, t);
            }
            if ((in_row && g.cols > 1) || (in_col && g.rows > 1)) {
                // The compute stream's earlier readers of diag were enqueued before this record.
                d_ready.record(cs);
                ms.wait(d_ready);
                if (in_row && g.cols > 1)
                    panels.broadcast(axis::row, diag.data(), b * bk * sizeof(T), kc, ms);
                if (in_col && g.rows > 1)
                    panels.broadcast(axis::col, diag.data(), b * bk * sizeof(T), kr, ms);
                d_here.record(ms);
                diag_sent = true;
            }
        };
        // Steps 3-4 of block K (after send_diagonal(K)): leaves the panels of K in rowp[K % sets]
        // and colp[K % sets], their broadcasts queued; streamed, block row and column K also go
        // back to the host.
        auto send_panels = [&](std::size_t K) {
            std::size_t const bk = d.block_size(K);
            int const kr = d.owner_row(K), kc = d.owner_col(K);
            bool const in_row = d.prow() == kr, in_col = d.pcol() == kc;
            view const D{diag.data(), bk, bk, b};
            if (diag_sent) {
                cs.wait(d_here);
                diag_sent = false;
            }
            view const R = row_band(K), C = col_band(K);
            if (streamed) {
                // The bands are the panels: updated in place through the scratch buffer. The
                // column panel's diagonal tile is the row panel's, as in core (where both are
                // the same tile of A).
                if (in_row) panel_update(R, view{scratch.data(), bk, lc, lc}, D, R);
                if (in_row && in_col)
                    copy2d(C.block(d.local_offset_row(K), 0, bk, bk), diagonal_tile(K));
                if (in_col) panel_update(C, view{scratch.data(), lr, bk, b}, C, D);
                if (in_row || in_col) {
                    band_done.record(cs);
                    xs->wait(band_done);
                    copy_band(K, cuda::copy_kind::device_to_host, *xs);
                }
            } else {
                if (in_row)
                    panel_update(Av.block(d.local_offset_row(K), 0, bk, lc), R, D,
                                 Av.block(d.local_offset_row(K), 0, bk, lc));
                if (in_col)
                    panel_update(Av.block(0, d.local_offset_col(K), lr, bk), C,
                                 Av.block(0, d.local_offset_col(K), lr, bk), D);
            }
            // Receivers overwrite their buffers only after the compute stream is done with them
            // (their last readers, step K-2's updates, were enqueued before this record).
            p_ready.record(cs);
            ms.wait(p_ready);
            if (g.rows > 1 && lc > 0)
                panels.broadcast(axis::col, R.data, bk * lc * sizeof(T), kr, ms);
            if (g.cols > 1 && lr > 0)
                panels.broadcast(axis::row, C.data, lr * b * sizeof(T), kc, ms);
            p_here[K % sets].record(ms);
        };
        auto prepare = [&](std::size_t K) {
            if (streamed) load_band(K);
            send_diagonal(K);
            send_panels(K);
        };
        // Streamed: step 5 of block K on the local rows outside block row K and [x0, x1) and the
        // columns outside block column K and [y0, y1) (block row and column K+1, updated
        // already), stripe by stripe: loaded on ls once the stripe buffer's last store has ended,
        // updated on the compute stream, stored on xs. The stores leave the columns [y0, y1)
        // alone: block column K+1 goes back with its band (the loads read those columns, racing
        // that store, and nothing uses them); block row and column K went back with theirs.
        auto stream_rest = [&](std::size_t K, std::size_t x0, std::size_t x1, std::size_t y0,
                               std::size_t y1) {
            if (!lc) return;
            detail::spans const cols = detail::without(0, lc, pivot_cols(K), {y0, y1});
            // Block row and column M = K+2 (those held here), as each stripe leaves them, into
            // the band buffers of M (free: the panels of K-1 were last read by fill_band(K+1),
            // queued before), for fill_band(M) to complete.
            std::size_t const M = K + 2;
            bool const keep_r = M < nb && d.owner_row(M) == d.prow();
            bool const keep_c = M < nb && d.owner_col(M) == d.pcol();
            std::size_t const bm = M < nb ? d.block_size(M) : 0;
            std::size_t const mr0 = keep_r ? d.local_offset_row(M) : 0;
            std::size_t const mc0 = keep_c ? d.local_offset_col(M) : 0;
            auto keep_band = [&](T const* at, std::size_t a, std::size_t z) {
                if (keep_c)
                    copy2d(view{colp[M % sets].data() + a * b, z - a, bm, b},
                           cview{at + mc0, z - a, bm, lc});
                std::size_t const i0 = std::max(a, mr0), i1 = std::min(z, mr0 + bm);
                if (keep_r && i0 < i1)
                    for (detail::span const q : cols)
                        copy2d(view{rowp[M % sets].data() + (i0 - mr0) * lc + q.lo, i1 - i0,
                                    q.hi - q.lo, lc},
                               cview{at + (i0 - a) * lc + q.lo, i1 - i0, q.hi - q.lo, lc});
            };
            auto run = [&](std::size_t ra, std::size_t rb) {
                for (std::size_t a = ra; a < rb; a += sr) {
                    std::size_t const z = std::min(rb, a + sr), j = ring++ % 3;
                    T* const at = stripe[j].data();
                    ls->wait(freed[j]);
                    host.block_async(at, row_bytes, a, z, 0, row_bytes,
                                     cuda::copy_kind::host_to_device, *ls);
                    loaded[j].record(*ls);
                    cs.wait(loaded[j]);
                    for (detail::span const q : cols) update_at(K, at + q.lo, lc, a, z, q.lo, q.hi);
                    keep_band(at, a, z);
                    computed[j].record(cs);
                    xs->wait(computed[j]);
                    for (detail::span const q : cols)
                        host.block_async(at + q.lo, row_bytes, a, z, q.lo * sizeof(T),
                                         (q.hi - q.lo) * sizeof(T),
                                         cuda::copy_kind::device_to_host, *xs);
                    freed[j].record(*xs);
                }
            };
            for (detail::span const r : detail::without(0, lr, pivot_rows(K), {x0, x1}))
                run(r.lo, r.hi);
        };
        // Phase marks of every step on the compute stream: before and after the wait for the
        // panels, after the bands, after prepare, at the end (look-ahead order; without it the
        // update comes before prepare and counts as the rest).
        std::vector<std::array<cuda::event, 5>> marks;
        tp = std::chrono::steady_clock::now();
        marks.reserve(nb);
        for (std::size_t K = 0; K < nb; ++K)
            marks.push_back({cuda::event(true), cuda::event(true), cuda::event(true),
                             cuda::event(true), cuda::event(true)});
        st.setup += detail::since(tp);  // the phase marks
        // Agreed before the first broadcast is queued: a failure in the set-up on any rank (too
        // little device memory to stream, a device buffer that cannot be allocated, page-locking
        // refused while streaming) reaches every rank with nothing queued, so no communicator is
        // aborted. By every rank, since automatic may stream on some ranks and not on others.
        c.agree(true);
        in_flight = nb > 0;
        limit.set(2 * o.timeout, 0);
        auto const ts = std::chrono::steady_clock::now();
        for (std::size_t K = 0; K < nb; ++K) {
            auto const tk = std::chrono::steady_clock::now();
            try {
                detail::fault_at_step_start(o.fault, me, K);
                if (K == 0) prepare(0);
                auto& m = marks[K];
                m[0].record(cs);
                cs.wait(p_here[K % sets]);
                m[1].record(cs);
                if (lookahead && K + 1 < nb) {
                    // Block row and column K+1 first (where they live here), then their panels.
                    // Early diagonal: block (K+1, K+1) first of all, closed and sent before the
                    // rest of the bands.
                    std::size_t const N = K + 1;
                    bool const here_r = d.owner_row(N) == d.prow();
                    bool const here_c = d.owner_col(N) == d.pcol();
                    std::size_t r0 = lr, r1 = lr, c0 = lc, c1 = lc;
                    if (here_r) r1 = (r0 = d.local_offset_row(N)) + d.block_size(N);
                    if (here_c) c1 = (c0 = d.local_offset_col(N)) + d.block_size(N);
                    // Where block row N (local (r0, 0)) and block column N (local (0, c0)) are.
                    auto in_row_band = [&](std::size_t ra, std::size_t rb, std::size_t ca,
                                           std::size_t cb) {
                        if (streamed)
                            update_at(K, rowp[N % sets].data() + (ra - r0) * lc + ca, lc, ra, rb,
                                      ca, cb);
                        else
                            update(K, ra, rb, ca, cb);
                    };
                    auto in_col_band = [&](std::size_t ra, std::size_t rb, std::size_t ca,
                                           std::size_t cb) {
                        if (streamed)
                            update_at(K, colp[N % sets].data() + ra * b + (ca - c0), b, ra, rb, ca,
                                      cb);
                        else
                            update(K, ra, rb, ca, cb);
                    };
                    if (streamed && K == 0) {
                        load_band(N);
                    } else if (streamed) {
                        // This step's stripes read rows that the last step's stripes stored
                        // (not the bands of N, whose stores come later); block row and column N
                        // are on the device already.
                        loads_after_stores();
                        fill_band(N);
                    }
                    // The bands leave the tiles of block row and column K alone (final).
                    detail::spans const band_cols = detail::without(0, lc, pivot_cols(K), {c0, c1});
                    if (early_diagonal) {
                        // (empty unless the diagonal block is here)
                        if (here_r && here_c) in_row_band(r0, r1, c0, c1);
                        send_diagonal(N);
                        if (here_r)
                            for (detail::span const q : band_cols) in_row_band(r0, r1, q.lo, q.hi);
                    } else if (here_r) {
                        update_outside(K, {r0, r1}, {}, {0, lc}, {});
                    }
                    if (here_c)
                        for (detail::span const r : detail::without(0, lr, pivot_rows(K), {r0, r1}))
                            in_col_band(r.lo, r.hi, c0, c1);
                    m[2].record(cs);
                    if (!early_diagonal) send_diagonal(N);
                    send_panels(N);
                    m[3].record(cs);
                    // The rest: around the row band [r0, r1) and the column band [c0, c1).
                    if (streamed) {
                        stream_rest(K, r0, r1, c0, c1);
                    } else {
                        update_outside(K, {0, lr}, {r0, r1}, {0, lc}, {c0, c1});
                    }
                    m[4].record(cs);
                } else {
                    m[2].record(cs);
                    if (streamed) {
                        // The stripes read rows that the previous step stored (before, that
                        // wait came with load_band).
                        loads_after_stores();
                        stream_rest(K, lr, lr, lc, lc);
                    } else if (early_out && K + 1 == nb) {
                        // The last step: every chunk of rows is final once its update has ended.
                        for (std::size_t q = 0; q < out_chunks; ++q) {
                            std::size_t const ra = lr * q / out_chunks,
                                              rb = lr * (q + 1) / out_chunks;
                            update_outside(K, {ra, rb}, {}, {0, lc}, {});
                            out_ready[q].record(cs);
                            xs->wait(out_ready[q]);
                            host.to_host_async(A.data(), ra, rb, *xs);
                            out_done[q].record(*xs);
                        }
                    } else {
                        update_outside(K, {0, lr}, {}, {0, lc}, {});
                    }
                    m[3].record(cs);
                    if (K + 1 < nb) prepare(K + 1);
                    m[4].record(cs);
                }
                if (o.fault.at(fault::exception, me, K))
                    throw device_error("a kernel error in the step (fault plan)");
                if (o.fault.at(fault::allocation, me, K))
                    throw out_of_memory("a host allocation of the step was refused (fault plan)",
                                        0);
                // The host stays at most two steps ahead of the device, so that a device failure
                // (or a partner that stopped) shows here, at a step's agreement, and no launch
                // blocks on a full queue behind a broadcast that will not come.
                if (K >= 2) await(marks[K - 2][4]);
            } catch (panels_stalled const& e) {
                why = e.what();
                consequence = true;
            } catch (rank_timeout const&) {
                throw;
            } catch (std::exception const& e) {
                why = e.what();
            }
            // Host-side agreement: the device work of the last two steps stays queued. On a
            // failure anywhere, every rank aborts its NCCL communicators before the buffers are
            // freed (a broadcast that nothing will match would otherwise hold the device).
            try {
                c.agree(why.empty(), why.empty() ? why : detail::step_of(K, nb) + ": " + why,
                        consequence);
            } catch (collective_error const&) {
                panels.abort();
                throw;
            } catch (rank_timeout const& e) {
                panels.abort();
                throw rank_timeout("rank " + std::to_string(me) + ": " + detail::step_of(K, nb) +
                                   ": " + e.what());
            }
            ++st.steps;
            longest = std::max(longest, detail::since(tk));
            limit.set(2 * o.timeout, 2 * longest);
        }
        bool const copied_early = early_out && why.empty() && st.steps == nb;
        if (copied_early) {
            // Each locked range is released as soon as its rows are on the host, while the last
            // step's update of the later rows runs.
            tp = std::chrono::steady_clock::now();
            host.release_after([&](std::size_t r) {
                std::size_t q = 0;
                while (q + 1 < out_chunks && lr * (q + 1) / out_chunks < r) ++q;
                await(out_done[q]);
            });
            st.unpin_early = detail::since(tp);
        }
        // Polled waits (await): a partner that failed after its last agreement ends them within
        // the limit instead of holding this rank.
        cuda::event ended;
        ended.record(cs);
        await(ended);
        st.steps_wall = detail::since(ts);
        ended.record(ms);
        await(ended);
        // Every broadcast of the call has ended here: a failure from now on needs no abort.
        in_flight = false;
        if (ls) ls->synchronize();
        if (why.empty() && st.steps > 0)
            st.steps_device = cuda::event::elapsed_ms(marks[0][0], marks[st.steps - 1][4]) / 1e3;
        if (why.empty())
            for (std::size_t K = 0; K < st.steps; ++K) {
                auto const& m = marks[K];
                bool const ahead = lookahead && K + 1 < nb;
                st.wait_panels += cuda::event::elapsed_ms(m[0], m[1]) / 1e3;
                st.bands += cuda::event::elapsed_ms(m[1], m[2]) / 1e3;
                double const mid = cuda::event::elapsed_ms(m[2], m[3]) / 1e3;
                double const last = cuda::event::elapsed_ms(m[3], m[4]) / 1e3;
                st.prepare += ahead ? mid : last;
                st.rest += ahead ? last : mid;
            }
        tc = std::chrono::steady_clock::now();
        // (Also after a failure: no copy may outlive the locking.) Streamed, the last stores.
        if (xs) xs->synchronize();
        if (!copied_early && !streamed) host.to_host(A.data(), cs);
        st.copy_out = detail::since(tc);
        tp = std::chrono::steady_clock::now();
        host.release();
        st.unpin = detail::since(tp);
    } catch (collective_error const&) {
        throw;
    } catch (rank_timeout const&) {
        if (in_flight) panels.abort();
        throw;
    } catch (panels_stalled const& e) {
        why = e.what();
        consequence = true;
        panels.abort();
    } catch (std::exception const& e) {
        why = e.what();
        if (in_flight) panels.abort();
    }
    c.agree(why.empty(), why, consequence);
    st.total = detail::since(t0);
    return st;
}

}  // namespace kleene::distributed

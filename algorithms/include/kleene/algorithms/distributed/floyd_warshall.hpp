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
// Host (MPI, CPU kernels, here): the same tile kernels in the same order as
// floyd_warshall_blocked (floyd_warshall.hpp), so with the same block size the result equals it
// bit for bit, floating point included; with look-ahead (as on the device) the panel broadcasts
// of step K+1 are nonblocking and travel during the rest of step K's update. Device (NCCL, GPU
// GEMM, on the context's stream): floyd_warshall_device.hpp.
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
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <kleene/algorithms/distributed/comm.hpp>
#include <kleene/algorithms/distributed/faults.hpp>
#include <kleene/algorithms/floyd_warshall.hpp>
#include <kleene/cpu/parallel.hpp>
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

}  // namespace kleene::distributed

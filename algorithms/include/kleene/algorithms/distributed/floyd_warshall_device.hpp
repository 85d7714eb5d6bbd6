#pragma once
// The distributed blocked Floyd-Warshall's device path (floyd_warshall.hpp: the algorithm, its
// errors and the host path), in three parts:
// - the plan (plan_device_fw): in core or streamed (out of core per rank), the stripes;
// - the run (device_fw_run): the device buffers, temporaries of the context's pool, and one step
//   at a time on the context's stream, the broadcasts on a side stream of their own and the
//   streamed copies on two more, forked from the context's stream once the buffers are allocated
//   there and joined back to it at the end (cuda::side_streams), so the run orders itself after
//   the caller's work queued there and the caller's later work after the run;
// - floyd_warshall_device: the steps with their agreements over the ranks, limits and faults.
// Device, early diagonal (the default): the owner of block (K+1,K+1) updates that block first,
// closes it and starts its broadcast, and only then updates the rest of block row and column K+1,
// so the closure and the broadcast travel while the other ranks update their bands. With
// look-ahead, step K first updates block row and column K+1, closes and broadcasts their panels,
// and only then runs the rest of step K's update, so that the broadcasts of step K+1 travel while
// the large product of step K runs.
//
// Streamed (device_fw_options::blocks): the local blocks stay page-locked on the host; block row
// and column K+1 are gathered on the device (from the stripes of step K-1 and the panels of K-1
// and K, so a step does not wait for the last one's stores) into the panel buffers, and the rest
// of the local rows pass through the device in stripes.

#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <kleene/algorithms/distributed/comm.hpp>
#include <kleene/algorithms/distributed/faults.hpp>
#include <kleene/algorithms/distributed/floyd_warshall.hpp>
#include <kleene/context.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/host_copy.hpp>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/side_streams.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace kleene::distributed {

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
    /// The context whose stream the run is queued on and whose pool its device buffers come
    /// from (null: the calling thread's default context, default_context(), of the device this
    /// rank uses). The call returns once its work there has ended.
    context* ctx = nullptr;
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

/// How one rank runs the steps.
struct device_fw_plan {
    bool streamed = false;
    std::size_t stripe_rows = 0;  ///< streamed: rows a stripe
    bool lookahead = true, early_diagonal = true;
};

/// Streamed when asked, or (automatic) when the in-core buffers do not fit in the device memory
/// free once the context's pool has handed back what it keeps; streamed always looks ahead and
/// closes the diagonal block early. Throws device_error when streaming is needed and even its
/// buffers do not fit.
inline device_fw_plan plan_device_fw(std::size_t lr, std::size_t lc, std::size_t b,
                                     std::size_t elem, device_fw_options const& o, context& ctx) {
    using residence = device_fw_options::residence;
    if (int const here = cuda::current_device(); ctx.device() != here)
        throw invalid_argument("distributed floyd_warshall: the context is for device " +
                               std::to_string(ctx.device()) + ", this rank uses device " +
                               std::to_string(here) + " (use_device): make the context with it");
    device_fw_plan p;
    std::size_t const row_bytes = lc * elem;
    std::size_t free = 0;
    if (o.blocks != residence::device) free = cuda::free_memory_for_plan(ctx);
    p.streamed = o.blocks == residence::streamed ||
                 (o.blocks == residence::automatic && !fits_in_core(lr, lc, b, elem, free));
    if (p.streamed) {
        std::size_t sr =
            o.stripe_rows ? o.stripe_rows
                          : std::max<std::size_t>(
                                (std::size_t(256) << 20) / std::max<std::size_t>(row_bytes, 1), 64);
        p.stripe_rows = std::clamp<std::size_t>(sr, 1, std::max<std::size_t>(lr, 1));
        // Too little device memory even for the panels and stripes: say what it takes.
        std::size_t const need = streamed_elements(lr, lc, b, p.stripe_rows) * elem;
        if (free && need > free)
            throw device_error(
                "distributed floyd_warshall: streaming the local blocks (" +
                kleene::detail::shape(lr, lc) + ", block " + std::to_string(b) + ") needs " +
                kleene::detail::format_bytes(static_cast<long double>(need)) +
                " of device memory, " +
                kleene::detail::format_bytes(static_cast<long double>(free)) +
                " are free: use a smaller block or more ranks");
    }
    p.lookahead = o.lookahead || p.streamed;
    p.early_diagonal = o.early_diagonal || p.streamed;
    return p;
}

/// One rank's device run: its buffers (temporaries of ctx's pool), streams and events, and the
/// steps' work queued on ctx's stream. Made (buffers allocated, side streams forked) and copied
/// in before the agreement that precedes the first broadcast; step(K) queues step K; finish()
/// waits for the device and copies the result out. When it goes it joins its side streams to
/// ctx's stream, releases its buffers there and waits for it: after a failure while broadcasts
/// were in flight, the caller aborts the communicators first.
template <class T>
class device_fw_run {
    using view = dense_view<T, device>;
    using cview = dense_view<T const, device>;
    using S = min_plus<T>;
    using temp = cuda::temporary_matrix<T>;

public:
    device_fw_run(dense_view<T> local, block_cyclic const& d, device_panels& panels,
                  device_fw_options const& o, device_fw_plan const& p, context& ctx,
                  fw_stats& st)
        : d_(d), g_(d.grid()), panels_(panels), p_(p), st_(st), scope_(ctx),
          cs_(cuda::stream::borrow(ctx.stream())), ctx_(ctx), nb_(d.blocks()), b_(d.block()),
          lr_(local.rows), lc_(local.cols), row_bytes_(lc_ * sizeof(T)), sets_(p.streamed ? 3 : 2),
          host_(local.data, lr_, row_bytes_,
                p.streamed ? cuda::host_transfer::page_locked : o.host_transfer, o.lock_threads,
                p.streamed) {
        st_.pin = since(t0_);
        auto tp = std::chrono::steady_clock::now();
        bool const s = p_.streamed;
        A_ = temp(s ? 0 : lr_, s ? 0 : lc_, ctx);
        diag_ = temp(b_, b_, ctx);
        // The row and column panels of the steps in flight: K's and K+1's in core; streamed,
        // K-1's too (the band of K+1 is made from the stripes of step K-1 and the panels of K-1
        // and K).
        for (std::size_t i = 0; i < sets_; ++i) {
            rowp_.emplace_back(b_, lc_, ctx);
            colp_.emplace_back(lr_, b_, ctx);
        }
        // Streamed: the panel updates' scratch, the stripes.
        scratch_ = temp(s ? 1 : 0, s ? std::max(b_ * lc_, lr_ * b_) : 0, ctx);
        for (int i = 0; s && i < 3; ++i) stripe_.emplace_back(sr(), lc_, ctx);
        // Forked once the buffers are allocated on cs_.
        sides_.emplace(cs_, std::array{o.urgent_messages ? cuda::stream_priority::high
                                                          : cuda::stream_priority::normal,
                                       cuda::stream_priority::normal,
                                       cuda::stream_priority::normal});
        Av_ = A_.view();
        st_.setup = since(tp);
        auto tc = std::chrono::steady_clock::now();
        if (s) {
            if (!host_.locked())
                throw device_error(
                    "distributed floyd_warshall: the local blocks (" +
                    kleene::detail::shape(lr_, lc_) +
                    ") could not be page-locked (cudaHostRegister), which streaming them through "
                    "the device (out of core) needs");
        } else {
            host_.to_device(A_.data(), cs_);
        }
        st_.copy_in = since(tc);
        // Early copy out (once the copy in has settled how the copies go): the last step's
        // update in at most 8 row chunks of at least 32 rows.
        early_out_ = !s && o.early_copy_out && nb_ > 0 && host_.direct();
        out_chunks_ = early_out_ ? std::clamp<std::size_t>(lr_ / 32, 1, 8) : 0;
        out_ready_.resize(out_chunks_);
        out_done_.resize(out_chunks_);
        // Phase marks of every step on the compute stream: before and after the wait for the
        // panels, after the bands, after prepare, at the end (look-ahead order; without it the
        // update comes before prepare and counts as the rest).
        tp = std::chrono::steady_clock::now();
        marks_.reserve(nb_);
        for (std::size_t K = 0; K < nb_; ++K)
            marks_.push_back({cuda::event(true), cuda::event(true), cuda::event(true),
                              cuda::event(true), cuda::event(true)});
        st_.setup += since(tp);
    }
    device_fw_run(device_fw_run const&) = delete;
    device_fw_run& operator=(device_fw_run const&) = delete;

    /// The end of step K on the compute stream (its last mark).
    cuda::event const& step_end(std::size_t K) const { return marks_[K][4]; }

    /// Queues step K (prepare of step 0 first).
    void step(std::size_t K) {
        if (K == 0) prepare(0);
        auto& m = marks_[K];
        m[0].record(cs_);
        cs_.wait(p_here_[K % sets_]);
        m[1].record(cs_);
        if (p_.lookahead && K + 1 < nb_)
            step_ahead(K);
        else
            step_plain(K);
    }

    /// After every step has been queued and agreed: waits for the compute and broadcast streams
    /// through `await` (polled, within the limit), then `done()` (no broadcast is in flight any
    /// more), joins the copy streams, adds the phases to the statistics, copies the result out
    /// and releases the page-locking. (A run that fails before goes without it: its destructor
    /// joins the side streams and the host copy's releases its locking.)
    template <class Await, class Done>
    void finish(Await&& await, Done&& done) {
        if (early_out_) {
            // Each locked range is released as soon as its rows are on the host, while the last
            // step's update of the later rows runs.
            auto const tp = std::chrono::steady_clock::now();
            host_.release_after([&](std::size_t r) {
                std::size_t q = 0;
                while (q + 1 < out_chunks_ && lr_ * (q + 1) / out_chunks_ < r) ++q;
                await(out_done_[q]);
            });
            st_.unpin_early = since(tp);
        }
        // Polled waits: a partner that failed after its last agreement ends them within the
        // limit instead of holding this rank.
        cuda::event ended;
        ended.record(cs_);
        await(ended);
        st_.steps_wall = since(ts_);
        ended.record(ms());
        await(ended);
        done();
        // The loads and stores (streamed) and the early copies out: joined, all ended.
        sides_->finish();
        if (nb_ > 0)
            st_.steps_device = cuda::event::elapsed_ms(marks_[0][0], marks_[nb_ - 1][4]) / 1e3;
        for (std::size_t K = 0; K < nb_; ++K) {
            auto const& m = marks_[K];
            bool const ahead = p_.lookahead && K + 1 < nb_;
            st_.wait_panels += cuda::event::elapsed_ms(m[0], m[1]) / 1e3;
            st_.bands += cuda::event::elapsed_ms(m[1], m[2]) / 1e3;
            double const mid = cuda::event::elapsed_ms(m[2], m[3]) / 1e3;
            double const last = cuda::event::elapsed_ms(m[3], m[4]) / 1e3;
            st_.prepare += ahead ? mid : last;
            st_.rest += ahead ? last : mid;
        }
        auto const tc = std::chrono::steady_clock::now();
        if (!early_out_ && !p_.streamed) host_.to_host(A_.data(), cs_);
        st_.copy_out = since(tc);
        auto const tp = std::chrono::steady_clock::now();
        host_.release();
        st_.unpin = since(tp);
    }

    /// The host clock's start of the steps (steps_wall).
    void start_steps() { ts_ = std::chrono::steady_clock::now(); }

private:
    cuda::stream const& ms() const { return sides_->side[0]; }  // messages (the broadcasts)
    cuda::stream const& xs() const { return sides_->side[1]; }  // copies out, stores
    cuda::stream const& ls() const { return sides_->side[2]; }  // streamed: loads
    std::size_t sr() const { return p_.stripe_rows; }

    // Prepare (steps 1-4) runs on the compute stream too. (Tried 2026-11-28 on 4 x H200: prepare
    // on a high-priority stream of its own beside the rest of the previous step's update took
    // 6.63 s and 5.98 s against 6.54 s and 6.02 s at n = 65536; not kept.)
    void copy2d(view dst, cview src) {
        if (dst.rows && dst.cols)
            cuda::copy_rows_async(dst.data, dst.ld * sizeof(T), src.data, src.ld * sizeof(T),
                                  dst.cols * sizeof(T), dst.rows,
                                  cuda::copy_kind::device_to_device, cs_);
    }
    // c (+)= x y where x or y may share c's storage: through the buffer `buf` (c's shape).
    void panel_update(view target, view buf, cview x, cview y) {
        if (!target.rows || !target.cols) return;
        copy2d(buf, target);
        cuda::dense_gemm<S>(x, y, buf, true, cs_, &ctx_);
        copy2d(target, buf);
    }
    // Streamed: the band buffers of block K hold block row K (rowp, local rows from
    // local_offset_row(K), every local column) and block column K (colp, every local row, local
    // columns from local_offset_col(K)). Their views, and the diagonal block's.
    view row_band(std::size_t K) const {
        return view{rowp_[K % sets_].data(), d_.block_size(K), lc_, lc_};
    }
    view col_band(std::size_t K) const {
        return view{colp_[K % sets_].data(), lr_, d_.block_size(K), b_};
    }
    view diagonal_tile(std::size_t K) const {
        return p_.streamed ? row_band(K).block(0, d_.local_offset_col(K), d_.block_size(K),
                                               d_.block_size(K))
                           : local_tile(Av_, d_, K, K);
    }
    // Step 5 of block K on local rows [r0, r1) x columns [c0, c1), held at `at` (the place of
    // local (r0, c0)) with rows `ld` apart: A itself in core, a band or a stripe streamed.
    void update_at(std::size_t K, T* at, std::size_t ld, std::size_t r0, std::size_t r1,
                   std::size_t c0, std::size_t c1) {
        if (r1 <= r0 || c1 <= c0) return;
        std::size_t const bk = d_.block_size(K);
        cview const C{colp_[K % sets_].data() + r0 * b_, r1 - r0, bk, b_};
        cview const R{rowp_[K % sets_].data() + c0, bk, c1 - c0, lc_};
        cuda::dense_gemm<S>(C, R, view{at, r1 - r0, c1 - c0, ld}, true, cs_, &ctx_);
    }
    void update(std::size_t K, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
        update_at(K, Av_.data + r0 * Av_.ld + c0, Av_.ld, r0, r1, c0, c1);
    }
    // Block row and column K where they are held here (else empty): final once the panels of K
    // are made, so step 5 of block K leaves them alone (updating them again changes nothing but
    // costs b / lr and b / lc of the step's product on the ranks holding them).
    span pivot_rows(std::size_t K) const {
        std::size_t const r = d_.local_offset_row(K);
        return d_.owner_row(K) == d_.prow() ? span{r, r + d_.block_size(K)} : span{};
    }
    span pivot_cols(std::size_t K) const {
        std::size_t const c = d_.local_offset_col(K);
        return d_.owner_col(K) == d_.pcol() ? span{c, c + d_.block_size(K)} : span{};
    }
    // In core: step 5 of block K on the local rows `rows` outside block row K and `xr`, and the
    // columns `cols` outside block column K and `yc`.
    void update_outside(std::size_t K, span rows, span xr, span cols, span yc) {
        for (span const r : without(rows.lo, rows.hi, pivot_rows(K), xr))
            for (span const q : without(cols.lo, cols.hi, pivot_cols(K), yc))
                update(K, r.lo, r.hi, q.lo, q.hi);
    }
    // Streamed: block row and column N (those held here) between the host and the band buffers
    // of N, queued on s; row first, so that a store leaves the column's copy of the diagonal
    // tile, the final one.
    void copy_band(std::size_t N, cuda::copy_kind k, cuda::stream const& s) {
        std::size_t const bk = d_.block_size(N);
        if (d_.owner_row(N) == d_.prow())
            host_.block_async(rowp_[N % sets_].data(), row_bytes_, d_.local_offset_row(N),
                              d_.local_offset_row(N) + bk, 0, row_bytes_, k, s);
        if (d_.owner_col(N) == d_.pcol())
            host_.block_async(colp_[N % sets_].data(), b_ * sizeof(T), 0, lr_,
                              d_.local_offset_col(N) * sizeof(T), bk * sizeof(T), k, s);
    }
    // Streamed: later loads wait for every store queued so far.
    void loads_after_stores() {
        stored_.record(xs());
        ls().wait(stored_);
    }
    // Streamed: loads block row and column N into the band buffers of N, once the compute stream
    // has read them for the last time (step N-2) and every store queued so far has reached the
    // host; the compute stream waits for them.
    void load_band(std::size_t N) {
        loads_after_stores();
        reads_done_.record(cs_);
        ls().wait(reads_done_);
        copy_band(N, cuda::copy_kind::host_to_device, ls());
        band_loaded_.record(ls());
        cs_.wait(band_loaded_);
    }
    // Streamed, N >= 2: the stripes of step N-2 left block row and column N (those held here) in
    // the band buffers of N wherever they updated them (keep_band in stream_rest); the rest comes
    // from the panels of N-1 and N-2, final already: block row N's tiles in block columns N-1
    // and N-2, block column N's tiles in block rows N-1 and N-2. The same values the host holds
    // (those panels were stored there), without waiting for the stores.
    void fill_band(std::size_t N) {
        std::size_t const bn = d_.block_size(N);
        bool const here_r = d_.owner_row(N) == d_.prow(), here_c = d_.owner_col(N) == d_.pcol();
        for (std::size_t P : {N - 1, N - 2}) {
            std::size_t const bp = d_.block_size(P);
            if (here_r && d_.owner_col(P) == d_.pcol())
                copy2d(view{rowp_[N % sets_].data() + d_.local_offset_col(P), bn, bp, lc_},
                       cview{colp_[P % sets_].data() + d_.local_offset_row(N) * b_, bn, bp, b_});
            if (here_c && d_.owner_row(P) == d_.prow())
                copy2d(view{colp_[N % sets_].data() + d_.local_offset_row(P) * b_, bp, bn, b_},
                       cview{rowp_[P % sets_].data() + d_.local_offset_col(N), bp, bn, lc_});
        }
    }
    // Steps 1-2 of block K: its owner closes the diagonal block into diag_, which goes along the
    // owner's process row and column (d_here_ marks its arrival).
    void send_diagonal(std::size_t K) {
        std::size_t const bk = d_.block_size(K);
        int const kr = d_.owner_row(K), kc = d_.owner_col(K);
        bool const in_row = d_.prow() == kr, in_col = d_.pcol() == kc;
        view const D{diag_.data(), bk, bk, b_};
        if (in_row && in_col) {
            view const t = diagonal_tile(K);
            cuda::floyd_warshall_blocked<T>(t, cs_, &ctx_);
            copy2d(D, t);
        }
        if ((in_row && g_.cols > 1) || (in_col && g_.rows > 1)) {
            // The compute stream's earlier readers of diag were enqueued before this record.
            d_ready_.record(cs_);
            ms().wait(d_ready_);
            if (in_row && g_.cols > 1)
                panels_.broadcast(axis::row, diag_.data(), b_ * bk * sizeof(T), kc, ms());
            if (in_col && g_.rows > 1)
                panels_.broadcast(axis::col, diag_.data(), b_ * bk * sizeof(T), kr, ms());
            d_here_.record(ms());
            diag_sent_ = true;
        }
    }
    // Steps 3-4 of block K (after send_diagonal(K)): leaves the panels of K in rowp_[K % sets_]
    // and colp_[K % sets_], their broadcasts queued; streamed, block row and column K also go
    // back to the host.
    void send_panels(std::size_t K) {
        std::size_t const bk = d_.block_size(K);
        int const kr = d_.owner_row(K), kc = d_.owner_col(K);
        bool const in_row = d_.prow() == kr, in_col = d_.pcol() == kc;
        view const D{diag_.data(), bk, bk, b_};
        if (diag_sent_) {
            cs_.wait(d_here_);
            diag_sent_ = false;
        }
        view const R = row_band(K), C = col_band(K);
        if (p_.streamed) {
            // The bands are the panels: updated in place through the scratch buffer. The column
            // panel's diagonal tile is the row panel's, as in core (where both are the same tile
            // of A).
            if (in_row) panel_update(R, view{scratch_.data(), bk, lc_, lc_}, D, R);
            if (in_row && in_col)
                copy2d(C.block(d_.local_offset_row(K), 0, bk, bk), diagonal_tile(K));
            if (in_col) panel_update(C, view{scratch_.data(), lr_, bk, b_}, C, D);
            if (in_row || in_col) {
                band_done_.record(cs_);
                xs().wait(band_done_);
                copy_band(K, cuda::copy_kind::device_to_host, xs());
            }
        } else {
            if (in_row)
                panel_update(Av_.block(d_.local_offset_row(K), 0, bk, lc_), R, D,
                             Av_.block(d_.local_offset_row(K), 0, bk, lc_));
            if (in_col)
                panel_update(Av_.block(0, d_.local_offset_col(K), lr_, bk), C,
                             Av_.block(0, d_.local_offset_col(K), lr_, bk), D);
        }
        // Receivers overwrite their buffers only after the compute stream is done with them
        // (their last readers, step K-2's updates, were enqueued before this record).
        p_ready_.record(cs_);
        ms().wait(p_ready_);
        if (g_.rows > 1 && lc_ > 0)
            panels_.broadcast(axis::col, R.data, bk * lc_ * sizeof(T), kr, ms());
        if (g_.cols > 1 && lr_ > 0)
            panels_.broadcast(axis::row, C.data, lr_ * b_ * sizeof(T), kc, ms());
        p_here_[K % sets_].record(ms());
    }
    void prepare(std::size_t K) {
        if (p_.streamed) load_band(K);
        send_diagonal(K);
        send_panels(K);
    }
    // Streamed: step 5 of block K on the local rows outside block row K and [x0, x1) and the
    // columns outside block column K and [y0, y1) (block row and column K+1, updated already),
    // stripe by stripe: loaded on ls once the stripe buffer's last store has ended, updated on
    // the compute stream, stored on xs. The stores leave the columns [y0, y1) alone: block
    // column K+1 goes back with its band (the loads read those columns, racing that store, and
    // nothing uses them); block row and column K went back with theirs.
    void stream_rest(std::size_t K, std::size_t x0, std::size_t x1, std::size_t y0,
                     std::size_t y1) {
        if (!lc_) return;
        spans const cols = without(0, lc_, pivot_cols(K), {y0, y1});
        // Block row and column M = K+2 (those held here), as each stripe leaves them, into the
        // band buffers of M (free: the panels of K-1 were last read by fill_band(K+1), queued
        // before), for fill_band(M) to complete.
        std::size_t const M = K + 2;
        bool const keep_r = M < nb_ && d_.owner_row(M) == d_.prow();
        bool const keep_c = M < nb_ && d_.owner_col(M) == d_.pcol();
        std::size_t const bm = M < nb_ ? d_.block_size(M) : 0;
        std::size_t const mr0 = keep_r ? d_.local_offset_row(M) : 0;
        std::size_t const mc0 = keep_c ? d_.local_offset_col(M) : 0;
        auto keep_band = [&](T const* at, std::size_t a, std::size_t z) {
            if (keep_c)
                copy2d(view{colp_[M % sets_].data() + a * b_, z - a, bm, b_},
                       cview{at + mc0, z - a, bm, lc_});
            std::size_t const i0 = std::max(a, mr0), i1 = std::min(z, mr0 + bm);
            if (keep_r && i0 < i1)
                for (span const q : cols)
                    copy2d(view{rowp_[M % sets_].data() + (i0 - mr0) * lc_ + q.lo, i1 - i0,
                                q.hi - q.lo, lc_},
                           cview{at + (i0 - a) * lc_ + q.lo, i1 - i0, q.hi - q.lo, lc_});
        };
        auto run = [&](std::size_t ra, std::size_t rb) {
            for (std::size_t a = ra; a < rb; a += sr()) {
                std::size_t const z = std::min(rb, a + sr()), j = ring_++ % 3;
                T* const at = stripe_[j].data();
                ls().wait(freed_[j]);
                host_.block_async(at, row_bytes_, a, z, 0, row_bytes_,
                                  cuda::copy_kind::host_to_device, ls());
                loaded_[j].record(ls());
                cs_.wait(loaded_[j]);
                for (span const q : cols) update_at(K, at + q.lo, lc_, a, z, q.lo, q.hi);
                keep_band(at, a, z);
                computed_[j].record(cs_);
                xs().wait(computed_[j]);
                for (span const q : cols)
                    host_.block_async(at + q.lo, row_bytes_, a, z, q.lo * sizeof(T),
                                      (q.hi - q.lo) * sizeof(T), cuda::copy_kind::device_to_host,
                                      xs());
                freed_[j].record(xs());
            }
        };
        for (span const r : without(0, lr_, pivot_rows(K), {x0, x1})) run(r.lo, r.hi);
    }
    // Look-ahead: block row and column K+1 first (where they live here), then their panels, then
    // the rest of step K's update. Early diagonal: block (K+1, K+1) first of all, closed and sent
    // before the rest of the bands.
    void step_ahead(std::size_t K) {
        auto& m = marks_[K];
        std::size_t const N = K + 1;
        bool const streamed = p_.streamed;
        bool const here_r = d_.owner_row(N) == d_.prow();
        bool const here_c = d_.owner_col(N) == d_.pcol();
        std::size_t r0 = lr_, r1 = lr_, c0 = lc_, c1 = lc_;
        if (here_r) r1 = (r0 = d_.local_offset_row(N)) + d_.block_size(N);
        if (here_c) c1 = (c0 = d_.local_offset_col(N)) + d_.block_size(N);
        // Where block row N (local (r0, 0)) and block column N (local (0, c0)) are.
        auto in_row_band = [&](std::size_t ra, std::size_t rb, std::size_t ca, std::size_t cb) {
            if (streamed)
                update_at(K, rowp_[N % sets_].data() + (ra - r0) * lc_ + ca, lc_, ra, rb, ca, cb);
            else
                update(K, ra, rb, ca, cb);
        };
        auto in_col_band = [&](std::size_t ra, std::size_t rb, std::size_t ca, std::size_t cb) {
            if (streamed)
                update_at(K, colp_[N % sets_].data() + ra * b_ + (ca - c0), b_, ra, rb, ca, cb);
            else
                update(K, ra, rb, ca, cb);
        };
        if (streamed && K == 0) {
            load_band(N);
        } else if (streamed) {
            // This step's stripes read rows that the last step's stripes stored (not the bands
            // of N, whose stores come later); block row and column N are on the device already.
            loads_after_stores();
            fill_band(N);
        }
        // The bands leave the tiles of block row and column K alone (final).
        spans const band_cols = without(0, lc_, pivot_cols(K), {c0, c1});
        if (p_.early_diagonal) {
            // (empty unless the diagonal block is here)
            if (here_r && here_c) in_row_band(r0, r1, c0, c1);
            send_diagonal(N);
            if (here_r)
                for (span const q : band_cols) in_row_band(r0, r1, q.lo, q.hi);
        } else if (here_r) {
            update_outside(K, {r0, r1}, {}, {0, lc_}, {});
        }
        if (here_c)
            for (span const r : without(0, lr_, pivot_rows(K), {r0, r1}))
                in_col_band(r.lo, r.hi, c0, c1);
        m[2].record(cs_);
        if (!p_.early_diagonal) send_diagonal(N);
        send_panels(N);
        m[3].record(cs_);
        // The rest: around the row band [r0, r1) and the column band [c0, c1).
        if (streamed)
            stream_rest(K, r0, r1, c0, c1);
        else
            update_outside(K, {0, lr_}, {r0, r1}, {0, lc_}, {c0, c1});
        m[4].record(cs_);
    }
    // Without look-ahead (and the last step): step K's update, then prepare K+1.
    void step_plain(std::size_t K) {
        auto& m = marks_[K];
        m[2].record(cs_);
        if (p_.streamed) {
            // The stripes read rows that the previous step stored (before, that wait came with
            // load_band).
            loads_after_stores();
            stream_rest(K, lr_, lr_, lc_, lc_);
        } else if (early_out_ && K + 1 == nb_) {
            // The last step: every chunk of rows is final once its update has ended.
            for (std::size_t q = 0; q < out_chunks_; ++q) {
                std::size_t const ra = lr_ * q / out_chunks_, rb = lr_ * (q + 1) / out_chunks_;
                update_outside(K, {ra, rb}, {}, {0, lc_}, {});
                out_ready_[q].record(cs_);
                xs().wait(out_ready_[q]);
                host_.to_host_async(A_.data(), ra, rb, xs());
                out_done_[q].record(xs());
            }
        } else {
            update_outside(K, {0, lr_}, {}, {0, lc_}, {});
        }
        m[3].record(cs_);
        if (K + 1 < nb_) prepare(K + 1);
        m[4].record(cs_);
    }

    std::chrono::steady_clock::time_point const t0_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point ts_ = t0_;
    block_cyclic const& d_;
    process_grid const g_;
    device_panels& panels_;
    device_fw_plan const p_;
    fw_stats& st_;
    // Declaration order is release order reversed: the pool's memory is handed back (scope_)
    // after the buffers were released on cs_, which happens after the side streams joined it.
    cuda::temporaries_scope scope_;
    cuda::stream const cs_;  // compute: the context's stream
    context& ctx_;
    std::size_t const nb_, b_, lr_, lc_, row_bytes_, sets_;
    cuda::host_copy host_;
    temp A_, diag_, scratch_;
    std::vector<temp> rowp_, colp_, stripe_;
    std::optional<cuda::side_streams<3>> sides_;
    view Av_{};
    bool early_out_ = false;
    std::size_t out_chunks_ = 0;
    bool diag_sent_ = false;  // whose broadcast d_here_ marks, not yet awaited
    std::size_t ring_ = 0;    // streamed: stripes so far
    cuda::event d_ready_, d_here_, p_ready_, p_here_[3];
    cuda::event loaded_[3], computed_[3], freed_[3], band_loaded_, band_done_, stored_,
        reads_done_;
    std::vector<cuda::event> out_ready_, out_done_;
    std::vector<std::array<cuda::event, 5>> marks_;
};
}  // namespace detail

/// Device path: the same algorithm on the GPU this rank uses (use_device, nccl.hpp), panels
/// broadcast by `panels`, queued on the stream of o.ctx (the calling thread's default context
/// when null) and its device buffers from that context's pool; returns once its work there has
/// ended. In core: the local blocks are copied from and back to the host view `local`
/// (page-locked for the call). Streamed (out of core per rank, o.blocks): `local` is page-locked
/// and stays where it is; each step has block row and column K+1 in the panel buffers of step
/// K+1 (loaded at step 0, later gathered on the device: fill_band), updates them with step K's
/// panels, prepares step K+1 from them and stores them back, then streams the other local rows
/// through three stripe buffers (load on one stream, C(stripe, K) R(K, :) on the compute stream,
/// store on a third), so that a step moves the local blocks in and out once while the products
/// run. The streamed steps always use look-ahead and the early diagonal, and give the same
/// result as the in-core steps (each tile sees the same operations in the same order).
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
    std::size_t const nb = d.blocks();
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
    // Outside the try block: on a failure with broadcasts in flight, the handlers below abort
    // the communicators before the run goes (its side streams join the context's stream and it
    // waits for them, which a broadcast without a partner would hold forever).
    std::optional<detail::device_fw_run<T>> run;
    try {
        if (o.fault.at_setup(me))
            throw device_error(
                "distributed floyd_warshall: the device buffers were refused (fault plan): out of "
                "device memory");
        context& ctx = resolve(o.ctx);
        detail::device_fw_plan const plan =
            detail::plan_device_fw(local.rows, local.cols, d.block(), sizeof(T), o, ctx);
        st.streamed = plan.streamed;
        st.stripe_rows = plan.stripe_rows;
        run.emplace(local, d, panels, o, plan, ctx, st);
        // Agreed before the first broadcast is queued: a failure in the set-up on any rank (too
        // little device memory to stream, a device buffer that cannot be allocated, page-locking
        // refused while streaming) reaches every rank with nothing queued, so no communicator is
        // aborted. By every rank, since automatic may stream on some ranks and not on others.
        c.agree(true);
        in_flight = nb > 0;
        limit.set(2 * o.timeout, 0);
        run->start_steps();
        for (std::size_t K = 0; K < nb; ++K) {
            auto const tk = std::chrono::steady_clock::now();
            try {
                detail::fault_at_step_start(o.fault, me, K);
                run->step(K);
                if (o.fault.at(fault::exception, me, K))
                    throw device_error("a kernel error in the step (fault plan)");
                if (o.fault.at(fault::allocation, me, K))
                    throw out_of_memory("a host allocation of the step was refused (fault plan)",
                                        0);
                // The host stays at most two steps ahead of the device, so that a device failure
                // (or a partner that stopped) shows here, at a step's agreement, and no launch
                // blocks on a full queue behind a broadcast that will not come.
                if (K >= 2) await(run->step_end(K - 2));
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
        // Every step agreed (a failure anywhere threw at its agreement). Every broadcast of the
        // call has ended here once the run's waits are through: a failure from then on needs no
        // abort.
        run->finish(await, [&] { in_flight = false; });
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
    try {
        run.reset();  // the buffers back to the pool, the pool's surplus to the driver
    } catch (std::exception const& e) {
        if (why.empty()) why = e.what();
    }
    c.agree(why.empty(), why, consequence);
    st.total = detail::since(t0);
    return st;
}

}  // namespace kleene::distributed

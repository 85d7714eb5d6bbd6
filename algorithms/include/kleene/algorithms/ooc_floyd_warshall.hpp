#pragma once
// APSP and transitive closure past the GPU's memory, by blocked Floyd-Warshall: its tiling
// (plan_out_of_core, on the plan types and device budget of ooc_plan.hpp, which the out-of-core
// R-Kleene of ooc_rkleene.hpp shares) and its rounds; apsp_out_of_core.hpp chooses between the
// two (docs/performance.md, "APSP out of core").
//
// Blocked Floyd-Warshall (papers/blocked-apsp-hybrid-cpu-gpu-out-of-core.txt, Algorithm 2) on
// the caller's n x n host matrix, in place, in N = ceil(n / b) rounds of b x b blocks. Round K:
//   1. close the diagonal block: Dk = D(K,K)* (on its own stream, one round ahead: see below);
//   2. row panel: R = D(K,:) on the device, R = R (+) Dk (x) R, block K set to Dk; written back;
//   3. every other block row I: D(I,:) (+)= D(I,K) (x) R, streamed through the device in tiles of
//      b x w. D(I,K) here is the value before this round's column-panel update; that is enough,
//      since D(I,K) Dk R0 = (D(I,K) Dk)(Dk R0) for a closed Dk, and the tile over block K itself
//      comes out as D(I,K) (+) D(I,K) Dk: the column-panel update, for free.
// The same loop runs the Boolean closure on bit-packed rows (or-and products, R = R | Dk R).
//
// Overlap: products run on the context's stream (o.ctx); tiles go host -> device on a second
// stream, results go back on a third, with events between them (3 tile buffers: load the next,
// multiply this one, store the last); the panel R of the next round is loaded on a fourth while
// this round runs, and the next diagonal block is loaded and closed on a fifth as soon as this
// round has finished block row K + 1 (processed first). Loads of a block row wait for the stores
// of the same row from the round before (one event per block row). The four side streams fork
// from the context's stream after the run's buffers (temporaries of the context's pool) are
// allocated there, so the run starts after the caller's work queued before it, and they join it
// again at the end (cuda::side_streams), where the run waits for that stream only.
//
// Block size b (derivation, docs/lab/): a round moves every entry in and out once
// (n^2 s bytes each way, s = bytes per entry) for n^2 b updates: b / s updates per byte and
// direction (the paper's b / 4 for fp32 with both directions counted). With B = 51 GB/s each way
// (pinned, both directions at once; 55.5 for one alone) and the GEMM's G
// updates/s (fp32 11.5e12, int32 12.0e12, fp64 2.95e12, bits 412e12), transfers hide behind
// the products when
//   b >= b_min = s G / B:  fp32 902, int32 941, fp64 463, bits (s = 1/8) 1010.
// At 2 b_min the link is half busy, which leaves room for the panels and for jitter; rounded up to
// a power of two that is b_max = 2048 (fp32, int32, bits) or 1024 (fp64). plan_out_of_core takes
// b <= b_max, the tile width w and the buffers with the lowest modelled time (ooc_model) that fit
// the device budget; smaller b only where the b x n panel does not fit beside the tiles.
//
// Memory (entries): panels p b W (p = 2 for the look-ahead load, else 1; W = n, or, when even one
// b x n panel does not fit, each round makes several passes over column ranges of width W) +
// t b w (t = 3 tile buffers, or 2) + 2 b^2 (column blocks) + b^2 (the diagonal block) + the
// diagonal closure's workspace (blocks past 4096 rows only).

#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/ooc_plan.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <kleene/context.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/side_streams.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/cuda/temporary.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/parse_bytes.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kleene::detail {

// ---- the streams of a run ------------------------------------------------------------------------

// ---- the two kinds of matrices the loop runs on ------------------------------------------------

/// min_plus over T: one entry a word. Diagonal blocks up to 4096 close by blocked Floyd-Warshall
/// (faster than R-Kleene there, docs/performance.md), larger ones by R-Kleene over it.
template <class T>
struct ooc_dense {
    using word = T;
    using view = dense_view<T, device>;
    static constexpr bool has_negative = true;
    static constexpr std::size_t fw_max = 4096;
    static constexpr double entry_bytes = sizeof(T);
    static std::size_t words(std::size_t cols) { return cols; }
    static std::size_t word_of(std::size_t col) { return col; }
    static view make(T* p, std::size_t rows, std::size_t cols, std::size_t ld) {
        return {p, rows, cols, ld};
    }
    static double gemm_rate(ooc_model const& m) {
        return std::is_same_v<T, double> ? m.gemm_fp64
               : std::is_same_v<T, float> ? m.gemm_fp32
                                          : m.gemm_int32;
    }
    /// The in-core R-Kleene's rate (the out-of-core R-Kleene's products, ooc_rkleene.hpp).
    static double rkleene_rate(ooc_model const& m) {
        return std::is_same_v<T, double> ? m.rkleene_fp64
               : std::is_same_v<T, float> ? m.rkleene_fp32
                                          : m.rkleene_int32;
    }
    /// Output block of one GEMM thread block (rows, columns).
    static constexpr std::size_t block_rows = 128, block_cols = 128;
    static int blocks_per_sm() { return cuda::min_plus_gemm_blocks_per_sm<T>(); }
    /// Workspace side for closing blocks of b rows (and the ragged last one, of n % b).
    static std::size_t ws_side(std::size_t b, std::size_t n) {
        std::size_t side = 0;
        for (std::size_t m : {b, n % b})
            if (m > fw_max)
                side = std::max(side, rkleene_workspace_side<rkleene_gpu_backend<T>>(m, fw_max));
        return side;
    }
    static void gemm(view a, view b, view c, cuda::stream const& s, context& ctx) {
        cuda::dense_gemm<min_plus<T>>(a, b, c, true, s, &ctx);
    }
    /// The GEMMs' scratch: the context's workspace (the products on its stream: b x b times
    /// b x w at most), and the diagonal stream's where its blocks close by R-Kleene (past fw_max;
    /// products of b / 2 at most, each with scratch of its own from the context's pool).
    static std::size_t gemm_scratch(std::size_t b, std::size_t w) {
        return cuda::dense_gemm_scratch_bytes(b, b, w, sizeof(T)) +
               (b > fw_max ? cuda::dense_gemm_scratch_bytes(b, b, b, sizeof(T)) : 0);
    }
    static void close(view a, view ws, cuda::stream const& s, context& ctx) {
        if (a.rows <= fw_max) {
            cuda::floyd_warshall_blocked<T>(a, s, &ctx);
            return;
        }
        rkleene_gpu_backend<T> be{fw_max, ws, &s};
        be.ctx = &ctx;
        rkleene_recurse(be, a);
    }
    static void negative(view a, std::size_t offset, unsigned long long* first,
                         cuda::stream const& s) {
        cuda::negative_diagonal_async<T>(a, static_cast<std::int64_t>(offset), first, s);
    }
};

/// lor_land on bit-packed rows (bit_matrix.hpp's layout): 64 entries a word; column offsets of
/// views are multiples of 64, which b and w are.
struct ooc_bits {
    using word = std::uint64_t;
    using view = cuda::bit_view<std::uint64_t>;
    static constexpr bool has_negative = false;
    static constexpr double entry_bytes = 1.0 / 8;
    static std::size_t words(std::size_t cols) { return (cols + 63) / 64; }
    static std::size_t word_of(std::size_t col) { return col / 64; }
    static view make(word* p, std::size_t rows, std::size_t cols, std::size_t ld) {
        return {p, rows, cols, ld};
    }
    static double gemm_rate(ooc_model const& m) { return m.gemm_bits; }
    static constexpr std::size_t block_rows = 128, block_cols = 1024;
    static int blocks_per_sm() { return 2; }
    /// Workspace side for closing blocks of b rows and the ragged last one: the bit splits are
    /// whole words, so a smaller block can need a wider workspace (1000 splits 448 + 552).
    static std::size_t ws_side(std::size_t b, std::size_t n) {
        std::size_t side = 0;
        for (std::size_t m : {b, n % b})
            side = std::max(side, rkleene_workspace_side<rkleene_bits_backend>(
                                      m, cuda::bit_warshall_max));
        return side;
    }
    static void gemm(view a, view b, view c, cuda::stream const& s, context&) {
        cuda::bool_gemm(a, b, c, true, s);
    }
    static std::size_t gemm_scratch(std::size_t, std::size_t) { return 0; }
    static void close(view a, view ws, cuda::stream const& s, context&) {
        rkleene_bits_backend be{cuda::bit_warshall_max, ws, &s};
        rkleene_recurse(be, a);
    }
    static void negative(view, std::size_t, unsigned long long*, cuda::stream const&) {}
};

template <class E>
std::size_t ooc_device_bytes(std::size_t n, std::size_t b, std::size_t w, std::size_t pw,
                             int panels, int tiles) {
    using W = typename E::word;
    std::size_t const bw = E::words(b);
    std::size_t const ws = E::ws_side(b, n);
    std::size_t words = std::size_t(panels) * b * E::words(std::min(pw, n)) + 3 * b * bw +
                        std::size_t(tiles) * b * E::words(w) + ws * E::words(ws);
    // + the negative-cycle word and the streams' scratch ints, and the packed operand of the
    // GEMMs (b x b at most).
    return words * sizeof(W) + 1024 + E::gemm_scratch(b, w);
}

/// Fraction of the thread-block slots of whole waves that products of b x w fill.
template <class E>
double wave_fill(std::size_t b, std::size_t w, double wave) {
    double const nb = double(((b + E::block_rows - 1) / E::block_rows) *
                             ((w + E::block_cols - 1) / E::block_cols));
    return nb / (std::ceil(nb / wave) * wave);
}

/// Rate of closing a k x k block in core (blocked Floyd-Warshall at small n): about 18% of the
/// GEMM's at k = 2048, 50% at 4096 (issue 6), at most 60%.
template <class E>
double ooc_close_rate(double k, ooc_model const& m) {
    return E::gemm_rate(m) * std::min(0.6, 0.18 * std::pow(k / 2048, 1.5));
}

/// Modelled seconds of a plan (see the header comment and ooc_model); also fills link_busy.
template <class E>
double ooc_model_seconds(ooc_plan& p, ooc_model const& m, int sms, int per_sm) {
    double const n = double(p.n), b = double(p.block), s = E::entry_bytes;
    std::size_t const rounds = (p.n + p.block - 1) / p.block;
    std::size_t const pw = std::min(p.pass_width, p.n);
    std::size_t const passes = (p.n + pw - 1) / pw;
    // Products of one pass: whole waves of thread blocks fill the GPU, a ragged tile less.
    double const wave = double(sms) * per_sm;
    double blocks = 0, slots = 0, products = 0;
    for (std::size_t c0 = 0; c0 < pw; c0 += p.width) {
        std::size_t const cw = std::min(p.width, pw - c0);
        double const nb = double(((p.block + E::block_rows - 1) / E::block_rows) *
                                 ((cw + E::block_cols - 1) / E::block_cols));
        blocks += nb;
        slots += std::ceil(nb / wave) * wave;
        products += 1;
    }
    double const rate = E::gemm_rate(m) * m.pipeline_efficiency * blocks / slots;
    double const compute = (n * n * n + n * b * b) / rate +
                           double(rounds * passes) * products * double(rounds) * m.launch_s +
                           double(rounds) * 2 * b * n * s / m.device_copy_bytes_per_s;
    // Bytes a round moves: every tile in and out, the column blocks once a pass, the panel and
    // the diagonal block in, the panel out.
    double const tiles = n * n * s;
    double const h2d =
        double(rounds) * (tiles + double(passes) * n * b * s + n * b * s + b * b * s);
    double const d2h = double(rounds) * (tiles + n * b * s);
    // Two tile buffers: a buffer's store and its next load take turns.
    double const link = (p.tiles == 2 ? std::max(h2d, d2h) + 0.5 * std::min(h2d, d2h)
                                      : std::max(h2d, d2h)) /
                        m.link_bytes_per_s;
    double const busy = std::pow(std::pow(compute, m.contention) + std::pow(link, m.contention),
                                 1 / m.contention);
    // Not overlapped: the first diagonal block, and with one panel buffer each panel's load.
    // The first diagonal block closes at the small-n rate (ooc_close_rate); later ones hide
    // beside the products.
    double exposed = b * b * b / ooc_close_rate<E>(b, m) + b * b * s / m.link_bytes_per_s;
    if (p.panels == 1)
        exposed += double(rounds * passes) * b * double(pw) * s / m.link_bytes_per_s;
    p.link_busy = link / busy;
    return busy + exposed;
}

template <class E>
ooc_plan plan_out_of_core(std::size_t n, std::size_t budget, ooc_options const& o, int sms,
                          int per_sm) {
    tuning const& tune = resolve(o.ctx).tune;
    std::size_t const force_b = o.block ? o.block : tune.ooc_block;
    std::size_t const force_w = o.width ? o.width : tune.ooc_width;
    auto up64 = [](std::size_t v) { return (v + 63) / 64 * 64; };
    std::vector<std::size_t> bs;
    if (force_b) {
        bs.push_back(up64(force_b));
    } else {
        // b_max = 2 b_min rounded up to a power of two, b_min = s G / B (header comment): fp32
        // and int32 2048, fp64 1024, bits 2048. Larger blocks measured no faster (n = 32768:
        // 2048 11.33 T, 4096 11.16, 6144 11.13, 8192 10.83) and cost more device memory.
        double const b_min = E::entry_bytes * E::gemm_rate(o.model) / o.model.link_bytes_per_s;
        std::size_t b_max = 64;
        while (double(b_max) < 2 * b_min) b_max *= 2;
        for (std::size_t b : {4096, 3072, 2048, 1536, 1024, 768, 512, 384, 256, 192, 128, 64})
            if (b <= b_max && (b < up64(n) || bs.empty())) bs.push_back(std::min(b, up64(n)));
        std::sort(bs.begin(), bs.end());
        bs.erase(std::unique(bs.begin(), bs.end()), bs.end());
    }
    ooc_plan best;
    double best_score = 0;
    double const wave = double(sms) * per_sm;
    for (std::size_t b : bs) {
        // Pass widths: n, and for 2 to 64 passes a round the narrowest multiple of b that
        // makes that many. The model weighs a narrower panel, which leaves room for wider tiles
        // or a second panel buffer, against the column blocks each pass loads again. (Only the
        // widest width that fit beside b-wide tiles used to be offered: at n = 16384 with a
        // 128 MiB cap that forced 8 passes a round where 4 fit beside 1024-wide tiles.)
        std::vector<std::size_t> pws;
        // A pinned width is rounded up to whole blocks: a pass must hold the diagonal block
        // whole (a width of 4096 with b = 1536 split it, and the row-panel copy failed).
        if (o.pass_width) pws.push_back(std::min(n, (o.pass_width + b - 1) / b * b));
        else {
            pws.push_back(n);
            for (std::size_t passes = 2; passes <= 64; ++passes) {
                std::size_t const pw = (n + passes * b - 1) / (passes * b) * b;
                if (pw < n && pw != pws.back()) pws.push_back(pw);
            }
        }
        for (std::size_t pw : pws) {
            std::size_t const pwn = std::min(pw, n);
            std::vector<std::size_t> ws;
            if (force_w) ws.push_back(std::min(up64(force_w), up64(pwn)));
            else {
                // Widths whose products fill whole waves (95%), multiples of b, the whole pass
                // when it is narrow (wider tiles pipeline coarsely for no gain), tiny ones.
                std::size_t const most = std::min<std::size_t>(up64(pwn), 64 * E::block_cols);
                for (std::size_t q = 1; q * E::block_cols <= most; ++q)
                    if (wave_fill<E>(b, q * E::block_cols, wave) >= 0.95)
                        ws.push_back(q * E::block_cols);
                for (std::size_t q = 1; q <= 8; q *= 2) ws.push_back(std::min(up64(pwn), q * b));
                if (pwn <= std::max(8 * b, 64 * E::block_cols)) ws.push_back(up64(pwn));
                for (std::size_t q = 64; q < E::block_cols && q < up64(pwn); q *= 2)
                    ws.push_back(q);
                std::sort(ws.begin(), ws.end());
                ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
            }
            for (int panels : {2, 1}) {
                if (o.panels && panels != o.panels) continue;
                for (int tiles : {3, 2}) {
                    if (o.tiles && tiles != o.tiles) continue;
                    for (std::size_t w : ws) {
                        ooc_plan p;
                        p.n = n;
                        p.block = b;
                        p.width = w;
                        p.pass_width = pwn;
                        p.panels = panels;
                        p.tiles = tiles;
                        p.device_bytes = ooc_device_bytes<E>(n, b, w, pwn, panels, tiles);
                        if (p.device_bytes > budget) continue;
                        p.seconds = ooc_model_seconds<E>(p, o.model, sms, per_sm);
                        // Near-ties go to fewer passes: the model sees no cost in the column
                        // blocks each pass loads again while the link has room.
                        double const score =
                            p.seconds * (1 + 0.005 * double((n + pwn - 1) / pwn - 1));
                        if (best.block == 0 || score < best_score * 0.999) {
                            best = p;
                            best_score = score;
                        }
                    }
                }
            }
        }
    }
    if (best.block == 0) {
        bool const pinned = force_b || force_w || o.pass_width || o.panels || o.tiles;
        throw error("out-of-core: a device budget of " + mib(double(budget)) +
                    (pinned ? " is too small for the plan pinned by the options (block " +
                                  std::to_string(bs.front()) + " needs " +
                                  mib(double(ooc_device_bytes<E>(n, bs.front(), 64, 64, 1, 2))) +
                                  " at least)"
                            : " is too small for any plan (the smallest, 64-row blocks, needs " +
                                  mib(double(ooc_device_bytes<E>(n, 64, 64, 64, 1, 2))) + ")"));
    }
    return best;
}

/// The blocked Floyd-Warshall plan for E within the budget (throws when none fits).
template <class E>
ooc_plan plan_floyd_warshall(std::size_t n, device_budget const& budget, ooc_options const& o) {
    return plan_out_of_core<E>(n, budget.bytes, o, cuda::multiprocessor_count(),
                               E::blocks_per_sm());
}

/// The rounds (header comment) of plan p on the n x n host matrix at `host` (rows `ld` words
/// apart, n > 0).
template <class E>
ooc_report run_out_of_core(typename E::word* host, std::size_t n, std::size_t ld,
                           ooc_options const& o, ooc_plan const& p, device_budget const& budget) {
    using W = typename E::word;
    using view = typename E::view;
    ooc_report rep;
    rep.plan = p;
    std::size_t const b = p.block, w = p.width, pw = p.pass_width;
    std::size_t const rounds = (n + b - 1) / b;
    std::size_t const passes = (n + pw - 1) / pw;
    rep.rounds = rounds;
    if (o.explain)
        o.explain->add(ooc_plan_line(n, budget, p) + ", " + std::to_string(rounds) + " rounds");

    cuda::host_registration const pin = pin_host_matrix(host, n * ld * sizeof(W), o, rep);
    auto const t0 = std::chrono::steady_clock::now();
    context& ctx = resolve(o.ctx);
    // Device memory: temporaries from the context's pool, allocated on its stream before the
    // side streams fork from it, released there after they have joined it (cuda::side_streams),
    // and what the pool does not keep handed back before the call returns.
    cuda::temporaries_scope const returned(ctx);
    // The products run on the context's stream (after the work queued there before the call);
    // the copies and the diagonal blocks' closures on side streams forked from it.
    cuda::stream const comp = cuda::stream::borrow(ctx.stream());
    std::size_t const bw = E::words(b);
    std::size_t const ldr = E::words(pw);
    std::size_t const ldc = E::words(w);
    std::size_t const wss = E::ws_side(b, n);
    using temp = cuda::temporary_matrix<W>;
    std::array<temp, 2> rbuf, abuf;
    std::array<temp, 3> cbuf;
    for (int i = 0; i < p.panels; ++i) rbuf[i] = temp(b, ldr, ctx);
    for (int i = 0; i < 2; ++i) abuf[i] = temp(b, bw, ctx);
    // One diagonal block: the next one loads after this round's last use (its panel update).
    temp const dkbuf(b, bw, ctx);
    for (int i = 0; i < p.tiles; ++i) cbuf[i] = temp(b, ldc, ctx);
    temp const wsbuf(wss, E::words(wss), ctx);
    view const wsv = E::make(wsbuf.data(), wss, wss, E::words(wss));
    cuda::temporary_matrix<unsigned long long> const first(1, 1, ctx);
    cuda::fill_bytes_async(first.data(), 0xff, sizeof(unsigned long long), comp);
    // The negative-cycle word of round k goes to flag[k % 2]: it is read at the start of round k,
    // and the next write to that slot (round k + 2's, queued during round k + 1) is queued after.
    auto* const flag = static_cast<unsigned long long*>(
        cuda::detail::pinned_scratch(ctx, 2 * sizeof(unsigned long long)));

    cuda::side_streams<4> sides(comp);
    auto const& [h2d, panel, look, d2h] = sides.side;
    std::array<cuda::event, 2> r_loaded, r_updated, r_used, r_stored, a_loaded, a_free;
    cuda::event dk_loaded, dk_ready, dk_free;
    std::array<cuda::event, 3> c_loaded, c_done, c_free;
    std::vector<cuda::event> row_stored(rounds);

    constexpr std::size_t ws_ = sizeof(W);
    auto host_at = [&](std::size_t r0, std::size_t c0) { return host + r0 * ld + E::word_of(c0); };
    auto load = [&](W* dst, std::size_t dld, std::size_t r0, std::size_t c0, std::size_t rows,
                    std::size_t cols, cuda::stream const& s) {
        cuda::copy_rows_async(dst, dld * ws_, host_at(r0, c0), ld * ws_, E::words(cols) * ws_, rows,
                              cuda::copy_kind::host_to_device, s);
    };
    auto store = [&](W const* src, std::size_t sld, std::size_t r0, std::size_t c0,
                     std::size_t rows, std::size_t cols, cuda::stream const& s) {
        cuda::copy_rows_async(host_at(r0, c0), ld * ws_, src, sld * ws_, E::words(cols) * ws_, rows,
                              cuda::copy_kind::device_to_host, s);
    };
    auto dcopy = [&](W* dst, std::size_t dld, W const* src, std::size_t sld, std::size_t rows,
                     std::size_t cols, cuda::stream const& s) {
        cuda::copy_rows_async(dst, dld * ws_, src, sld * ws_, E::words(cols) * ws_, rows,
                              cuda::copy_kind::device_to_device, s);
    };
    auto rows_of = [&](std::size_t k) { return std::min(b, n - k * b); };

    // The next diagonal block: loaded once its block row is final, closed on `look`.
    auto load_diagonal = [&](std::size_t k) {
        std::size_t const k0 = k * b, bk = rows_of(k);
        panel.wait(row_stored[k]);
        panel.wait(dk_free);
        load(dkbuf.data(), bw, k0, k0, bk, bk, panel);
        dk_loaded.record(panel);
        look.wait(dk_loaded);
        view const dk = E::make(dkbuf.data(), bk, bk, bw);
        E::close(dk, wsv, look, ctx);
        if constexpr (E::has_negative) {
            E::negative(dk, k0, first.data(), look);
            cuda::copy_rows_async(flag + k % 2, sizeof(unsigned long long), first.data(),
                                  sizeof(unsigned long long), sizeof(unsigned long long), 1,
                                  cuda::copy_kind::device_to_host, look);
        }
        dk_ready.record(look);
    };
    // Item t = pass t % passes of round t / passes: its panel R = D(K, pass columns).
    std::size_t const items = rounds * passes;
    auto load_panel = [&](std::size_t t) {
        std::size_t const k = t / passes, s0 = (t % passes) * pw, buf = t % std::size_t(p.panels);
        panel.wait(r_used[buf]);
        panel.wait(r_stored[buf]);
        panel.wait(row_stored[k]);
        load(rbuf[buf].data(), ldr, k * b, s0, rows_of(k), std::min(pw, n - s0), panel);
        r_loaded[buf].record(panel);
    };

    std::size_t next_c = 0, next_a = 0;
    load_diagonal(0);
    load_panel(0);
    for (std::size_t t = 0; t < items; ++t) {
        std::size_t const k = t / passes, s0 = (t % passes) * pw, sw = std::min(pw, n - s0);
        std::size_t const buf = t % std::size_t(p.panels);
        std::size_t const k0 = k * b, bk = rows_of(k);
        if (t % passes == 0 && E::has_negative) {
            // Round k's diagonal block was closed during round k - 1: a negative entry on its
            // diagonal is a negative cycle; stop before the rounds that would follow.
            dk_ready.synchronize();
            if (flag[k % 2] != ~0ull)
                throw negative_cycle(static_cast<std::int64_t>(flag[k % 2]));
        }
        W* const r = rbuf[buf].data();
        view const dk = E::make(dkbuf.data(), bk, bk, bw);
        comp.wait(r_loaded[buf]);
        comp.wait(dk_ready);
        // Row panel: R = R (+) Dk (x) R through a tile buffer, then its block K = Dk.
        for (std::size_t c0 = 0; c0 < sw; c0 += w) {
            std::size_t const cw = std::min(w, sw - c0), c = next_c++ % std::size_t(p.tiles);
            comp.wait(c_free[c]);
            dcopy(cbuf[c].data(), ldc, r + E::word_of(c0), ldr, bk, cw, comp);
            E::gemm(dk, E::make(cbuf[c].data(), bk, cw, ldc),
                    E::make(r + E::word_of(c0), bk, cw, ldr), comp, ctx);
            c_free[c].record(comp);
        }
        if (k0 >= s0 && k0 < s0 + sw)
            dcopy(r + E::word_of(k0 - s0), ldr, dk.data, bw, bk, bk, comp);
        r_updated[buf].record(comp);
        d2h.wait(r_updated[buf]);
        store(r, ldr, k0, s0, bk, sw, d2h);
        r_stored[buf].record(d2h);
        row_stored[k].record(d2h);
        if (t % passes == passes - 1) dk_free.record(comp);

        // Every other block row, K + 1 first (it holds the next round's diagonal block and panel).
        bool ahead = false;
        auto look_ahead = [&] {
            ahead = true;
            if (t % passes == passes - 1 && k + 1 < rounds) load_diagonal(k + 1);
            if (p.panels == 2 && t + 1 < items) load_panel(t + 1);
        };
        for (std::size_t q = 1; q < rounds; ++q) {
            std::size_t const i = (k + q) % rounds, i0 = i * b, bi = rows_of(i);
            std::size_t const a = next_a++ % 2;
            h2d.wait(a_free[a]);
            h2d.wait(row_stored[i]);
            load(abuf[a].data(), bw, i0, k0, bi, bk, h2d);
            a_loaded[a].record(h2d);
            comp.wait(a_loaded[a]);
            view const av = E::make(abuf[a].data(), bi, bk, bw);
            for (std::size_t c0 = 0; c0 < sw; c0 += w) {
                std::size_t const cw = std::min(w, sw - c0), c = next_c++ % std::size_t(p.tiles);
                h2d.wait(c_free[c]);
                load(cbuf[c].data(), ldc, i0, s0 + c0, bi, cw, h2d);
                c_loaded[c].record(h2d);
                comp.wait(c_loaded[c]);
                E::gemm(av, E::make(r + E::word_of(c0), bk, cw, ldr),
                        E::make(cbuf[c].data(), bi, cw, ldc), comp, ctx);
                c_done[c].record(comp);
                d2h.wait(c_done[c]);
                store(cbuf[c].data(), ldc, i0, s0 + c0, bi, cw, d2h);
                c_free[c].record(d2h);
            }
            a_free[a].record(comp);
            row_stored[i].record(d2h);
            if (!ahead) look_ahead();
        }
        if (!ahead) look_ahead();
        r_used[buf].record(comp);
        if (p.panels == 1 && t + 1 < items) load_panel(t + 1);
    }
    sides.finish();
    rep.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return rep;
}

}  // namespace kleene::detail

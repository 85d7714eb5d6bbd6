#pragma once
// Out-of-core R-Kleene (apsp_out_of_core.hpp picks it or blocked Floyd-Warshall,
// ooc_floyd_warshall.hpp): the recursion of rkleene.hpp run on the caller's n x n host matrix,
// in place. Blocks of at most `base` rows (the largest that fits one output tile, 4096 at most)
// are loaded, closed in core by blocked Floyd-Warshall and stored back; every product
// C (+)= A (x) B is streamed: C in output tiles of tile x tile entries, each loaded once,
// multiplied by the chunks A(I, K) and B(K, J) of `depth` columns and rows (two chunk buffers:
// the next loads while this one is multiplied) and stored once.
//
// Why: a round of blocked Floyd-Warshall moves the whole matrix in and out for n^2 b updates,
// and b is bounded by the device (b x n panels); a product streamed in t x t tiles moves
// 2 / t bytes in per update and per entry size, so the traffic falls with the square root of the
// device memory. With a cap of an eighth of the matrix it beats blocked Floyd-Warshall
// (docs/performance.md, "APSP out of core").
//
// Products that read their own output (A12 (+)= A11 A12 and the three like it) run in place:
// the other factor is closed, so whether a chunk holds an entry before or after its tile's
// update the result is the same, A11 (A11 A12) = A11 A12 (each entry is the length of some
// walk, never above the in-core algorithm's value: with a negative cycle it is only lower). To
// keep the results reproducible anyway, a chunk load waits for the store of every tile of the
// product it overlaps that was multiplied before it (so it reads those tiles' new values and
// the others' old ones), and tiles go in the order (rows first or columns first) and chunks
// start at the offset that keeps those waits short.
//
// Ordering between products: every load waits for the last earlier store that overlaps it (one list
// of stores with their events; the device-to-host stream runs them in order, so one wait covers all
// older stores). Stores cannot overtake earlier loads of the same entries: every stored tile was
// loaded on the one host-to-device stream after them. Streams: products (and in-core closures) run
// on the context's stream (o.ctx), loads and stores on one side stream each, forked from it after
// the buffers (temporaries of the context's pool) are allocated there and joined back at the end
// (cuda::side_streams); an output tile's store and the next tile's load into
// the same buffer go in four row slabs, each load after the store of its slab, and the tile's first
// and last products run slab by slab, so that the swap overlaps them. The last tile multiplied or
// closed stays usable in its buffer until the buffer is loaded again: chunks inside it are copied
// on the device (no wait for its store and load back), and a block closed right after the product
// that computed it is closed where it is, without the store in between. A negative cycle leaves a
// negative diagonal entry in some block closed in core (the recursion carries every cycle through
// A22 or down into A11); the run checks each one and throws negative_cycle at the end.

#include <kleene/algorithms/ooc_floyd_warshall.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <string>
#include <utility>

namespace kleene::detail {

/// A block of the host matrix, in its coordinates.
struct ooc_rect {
    std::size_t r0 = 0, c0 = 0, rows = 0, cols = 0;
    ooc_rect block(std::size_t i, std::size_t j, std::size_t r, std::size_t c) const {
        return {r0 + i, c0 + j, r, c};
    }
    bool overlaps(ooc_rect const& o) const {
        return r0 < o.r0 + o.rows && o.r0 < r0 + rows && c0 < o.c0 + o.cols && o.c0 < c0 + cols;
    }
    bool contains(ooc_rect const& o) const {
        return r0 <= o.r0 && o.r0 + o.rows <= r0 + rows && c0 <= o.c0 && o.c0 + o.cols <= c0 + cols;
    }
    bool operator==(ooc_rect const&) const = default;
};

/// `len` split into the fewest parts of at most `most` (a multiple of 64), equal up to rounding
/// to multiples of 64: the part size.
inline std::size_t ooc_part(std::size_t len, std::size_t most) {
    std::size_t const parts = (len + most - 1) / most;
    return std::min(most, (len + parts - 1) / parts + 63) / 64 * 64;
}

/// Device bytes of an R-Kleene plan: output tiles, two chunk buffers of each operand, the GEMM's
/// scratch (packed A chunk and split-k partials), the negative-cycle word.
template <class T>
std::size_t ooc_rkleene_bytes(std::size_t tile, std::size_t depth, int tiles) {
    return (std::size_t(tiles) * tile * tile + 4 * tile * depth) * sizeof(T) +
           cuda::dense_gemm_scratch_bytes(tile, depth, tile, sizeof(T)) + 1024;
}

/// Modelled seconds of an R-Kleene plan: the recursion's products, each limited by its updates
/// or its bytes over the link (combined as in ooc_model_seconds), plus what does not overlap:
/// an output tile's swap with one buffer, each product's first loads, each in-core block.
template <class T>
double ooc_rkleene_seconds(ooc_plan& p, ooc_model const& m) {
    double const s = sizeof(T), t = double(p.tile), c = double(p.depth);
    double const rate = ooc_dense<T>::rkleene_rate(m) * c / (c + m.chunk_overhead);
    double const link = m.link_bytes_per_s;
    double busy = 0, total = 0;
    double const row = m.row_overhead_s;
    auto product = [&](double rows, double inner, double cols) {
        double const tr = std::ceil(rows / t), tc = std::ceil(cols / t);
        double const chunks = std::ceil(inner / c);
        double const compute =
            rows * inner * cols / rate + tr * tc * (chunks + 6) * m.launch_s;
        // Bytes and rows: C's tiles once, A's chunks (rows of `depth` entries: short, so
        // their rows cost) once per column of tiles, B's once per row of tiles.
        double const h2d = (s * rows * cols + s * inner * (rows * tc + cols * tr)) / link +
                           row * (rows * tc + (rows * tc * chunks) + inner * tr);
        double const d2h = s * rows * cols / link + row * rows * tc;
        double const moved = std::max(h2d, d2h);
        double const both = std::pow(std::pow(compute, m.contention) +
                                         std::pow(moved, m.contention),
                                     1 / m.contention);
        // Not overlapped: the first tile's load (the product may wait for the last one's
        // inputs) and, with one output buffer, part of each swap (its slabs overlap the first
        // and last products of the tiles).
        double const tile_s = s * std::min(rows, t) * std::min(cols, t) / link;
        double const swaps = p.tiles == 1 ? (tr * tc - 1) * 0.5 * tile_s : 0;
        busy += moved;
        total += both + swaps + tile_s;
    };
    auto close = [&](double k) {
        total += k * k * k / ooc_close_rate<ooc_dense<T>>(k, m) + 2 * s * k * k / link;
    };
    auto rec = [&](auto&& self, std::size_t k) -> void {
        if (k <= p.base) {
            close(double(k));
            return;
        }
        double const k1 = double(k / 2), k2 = double(k - k / 2);
        self(self, k / 2);
        product(k1, k1, k2);
        product(k2, k1, k1);
        product(k2, k1, k2);
        self(self, k - k / 2);
        product(k2, k2, k1);
        product(k1, k2, k2);
        product(k1, k2, k1);
    };
    rec(rec, p.n);
    p.link_busy = total > 0 ? busy / total : 0;
    return total;
}

/// The R-Kleene plan with the lowest modelled time within the budget (pins: ooc_options tile,
/// depth, tiles; the context's tune.ooc_tile, tune.ooc_depth). An empty plan (tile 0) when none fits.
template <class T>
ooc_plan plan_ooc_rkleene(std::size_t n, std::size_t budget, ooc_options const& o) {
    tuning const& tune = resolve(o.ctx).tune;
    std::size_t const force_t = o.tile ? o.tile : tune.ooc_tile;
    std::size_t const force_c = o.depth ? o.depth : tune.ooc_depth;
    auto up64 = [](std::size_t v) { return (v + 63) / 64 * 64; };
    std::size_t const most = up64(std::max<std::size_t>(n, 1));
    std::vector<std::size_t> ts, cs;
    if (force_t) ts.push_back(std::min(up64(force_t), most));
    else
        for (std::size_t t = 64; t <= most; t = t < 512 ? t * 2 : t + 512) ts.push_back(t);
    if (force_c) cs.push_back(up64(force_c));
    else
        // Powers of two: chunks of 640 (rows of 2.5 KiB) loaded 20% slower than of 512.
        for (std::size_t c : {64, 128, 256, 512, 1024, 2048}) cs.push_back(c);
    ooc_plan best;
    for (std::size_t t : ts)
        for (std::size_t c : cs) {
            if (c > std::max<std::size_t>(t, 64) && !force_c) continue;
            for (int k : {2, 1}) {
                if (o.tiles && k != o.tiles) continue;
                ooc_plan p;
                p.algorithm = ooc_algorithm::rkleene;
                p.n = n;
                p.tile = t;
                p.depth = std::min(c, most);
                p.tiles = k;
                p.base = std::min(t, ooc_dense<T>::fw_max);
                p.device_bytes = ooc_rkleene_bytes<T>(t, p.depth, k);
                if (p.device_bytes > budget) continue;
                p.seconds = ooc_rkleene_seconds<T>(p, o.model);
                if (best.tile == 0 || p.seconds < best.seconds * 0.999) best = p;
            }
        }
    return best;
}

/// One run of the recursion (header comment) on the n x n host matrix at `host`.
template <class T>
class ooc_rkleene_run {
public:
    /// On ctx's stream (products, closures) and two side streams forked from it (loads, stores);
    /// the buffers are temporaries of ctx's pool.
    ooc_rkleene_run(T* host, std::size_t n, std::size_t ld, ooc_plan const& p, bool profile,
                    context& ctx)
        : profile_(profile),
          host_(host),
          ld_(ld),
          n_(n),
          t_(p.tile),
          c_(p.depth),
          base_(p.base),
          tiles_(p.tiles),
          ctx_(ctx),
          returned_(ctx),
          comp_(cuda::stream::borrow(ctx.stream())),
          cmem_(std::size_t(p.tiles) * p.tile, p.tile, ctx),
          amem_(2 * p.tile, p.depth, ctx),
          bmem_(2 * p.depth, p.tile, ctx),
          first_(1, 1, ctx),
          flag_(cuda::detail::pinned_scratch(ctx, sizeof(unsigned long long))),
          sides_(comp_) {
        cuda::fill_bytes_async(first_.data(), 0xff, sizeof(unsigned long long), comp_);
    }
    ooc_rkleene_run(ooc_rkleene_run const&) = delete;
    ooc_rkleene_run& operator=(ooc_rkleene_run const&) = delete;

    /// The closure of the whole matrix; throws negative_cycle (the first vertex of the first
    /// in-core block whose closure showed a negative diagonal entry) after the last store.
    void run() {
        if (profile_) start_.record(h2d_);
        recurse({0, 0, n_, n_});
        flush();
        cuda::copy_rows_async(flag_, sizeof(unsigned long long), first_.data(),
                              sizeof(unsigned long long), sizeof(unsigned long long), 1,
                              cuda::copy_kind::device_to_host, comp_);
        sides_.finish();
        auto const first = *static_cast<unsigned long long const*>(flag_);
        if (first != ~0ull) throw negative_cycle(static_cast<std::int64_t>(first));
    }

    /// Blocks closed in core so far.
    std::size_t closed() const { return closed_; }

    /// With profiling on, after run(): the busy time of each kind of work (its spans summed:
    /// a stream runs one thing at a time) and its share of the run.
    /// `timeline`: a file for every span, start and end in ms from the run's start (empty: none).
    std::string profile(double run_seconds, std::string const& timeline = {}) const {
        struct sum {
            double ms = 0;
            std::size_t count = 0;
        };
        std::map<std::string, sum> by;
        for (auto const& sp : spans_) {
            auto& x = by[sp.label()];
            x.ms += cuda::event::elapsed_ms(sp.from, sp.to);
            ++x.count;
        }
        if (!timeline.empty()) {
            if (std::FILE* f = std::fopen(timeline.c_str(), "w")) {
                for (auto const& sp : spans_)
                    std::fprintf(f, "%.4f %.4f %s\n", cuda::event::elapsed_ms(start_, sp.from),
                                 cuda::event::elapsed_ms(start_, sp.to), sp.label().c_str());
                std::fclose(f);
            }
        }
        std::string out;
        for (auto const& [what, x] : by) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "%s%s %.1f ms (%zu, %.0f%%)", out.empty() ? "" : "; ",
                          what.c_str(), x.ms, x.count, 100 * x.ms / 1e3 / run_seconds);
            out += buf;
        }
        return out;
    }

private:
    using E = ooc_dense<T>;
    /// One timed span of work on a stream (profiling): its kind, and for products the rows of
    /// the product's output (0: none).
    struct span {
        char const* what;
        std::size_t rows;
        cuda::event from{true}, to{true};
        std::string label() const {
            return rows ? std::string(what) + " " + std::to_string(rows) : std::string(what);
        }
    };
    /// Runs enqueue() between two timing events on s when profiling (nothing else otherwise).
    template <class F>
    void timed(cuda::stream const& s, char const* what, F&& enqueue, std::size_t rows = 0) {
        if (!profile_) {
            enqueue();
            return;
        }
        spans_.push_back({what, rows});
        spans_.back().from.record(s);
        enqueue();
        spans_.back().to.record(s);
    }
    using view = dense_view<T, device>;
    static constexpr std::size_t slabs = 4;

    T* at(std::size_t r, std::size_t c) const { return host_ + r * ld_ + c; }
    view tile_view(int b, std::size_t rows, std::size_t cols) {
        return {cmem_.data() + std::size_t(b) * t_ * t_, rows, cols, t_};
    }

    /// h2d waits for the last earlier store overlapping r (and so for all stores before it).
    void wait_stored(ooc_rect const& r) {
        for (std::size_t i = stored_.size(); i-- > 0;)
            if (stored_[i].r.overlaps(r)) {
                h2d_.wait(stored_[i].done);
                stored_.erase(stored_.begin(), stored_.begin() + std::ptrdiff_t(i) + 1);
                return;
            }
    }
    void load(T* dst, std::size_t dld, ooc_rect const& r, std::size_t row0, std::size_t rows) {
        cuda::copy_rows_async(dst + row0 * dld, dld * sizeof(T), at(r.r0 + row0, r.c0),
                              ld_ * sizeof(T), r.cols * sizeof(T), rows,
                              cuda::copy_kind::host_to_device, h2d_);
    }
    /// Rows of a slab of an output buffer: fixed, so that a slab of one tile covers the same
    /// device rows as the same slab of the tile before it, whatever their heights.
    std::size_t slab_rows() const { return (t_ + slabs - 1) / slabs; }

    /// Loads r into the next output buffer, each slab after the store of the same slab of the
    /// tile it held (slab_loaded_; the last one also says the whole tile is in).
    int load_tile(ooc_rect const& r) {
        int const b = static_cast<int>(next_tile_++ % std::size_t(tiles_));
        if (resident_.b == b) resident_.b = -1;
        wait_stored(r);
        std::size_t const sr = slab_rows();
        for (std::size_t s = 0; s < slabs; ++s) {
            h2d_.wait(slab_free_[b][s]);
            std::size_t const r0 = s * sr;
            if (r0 < r.rows)
                timed(h2d_, "load tiles", [&] {
                    load(tile_view(b, 0, 0).data, t_, r, r0, std::min(sr, r.rows - r0));
                });
            slab_loaded_[b][s].record(h2d_);
        }
        return b;
    }
    /// Stores output buffer b to r, each slab once the product stream has recorded it done.
    void store_tile(int b, ooc_rect const& r) {
        std::size_t const sr = slab_rows();
        T const* const src = tile_view(b, 0, 0).data;
        for (std::size_t s = 0; s < slabs; ++s) {
            d2h_.wait(slab_done_[b][s]);
            std::size_t const r0 = s * sr;
            if (r0 < r.rows)
                timed(d2h_, "store tiles", [&] {
                    cuda::copy_rows_async(at(r.r0 + r0, r.c0), ld_ * sizeof(T), src + r0 * t_,
                                          t_ * sizeof(T), r.cols * sizeof(T),
                                          std::min(sr, r.rows - r0),
                                          cuda::copy_kind::device_to_host, d2h_);
                });
            slab_free_[b][s].record(d2h_);
        }
        stored_.push_back({r, cuda::event()});
        stored_.back().done.record(d2h_);
        resident_ = {r, b};
    }

    /// Stores the last tile of the last product unless the closure of the same block follows
    /// (close() takes it over in its buffer, and its store replaces this one).
    void flush() {
        if (pending_.b < 0) return;
        int const b = std::exchange(pending_.b, -1);
        store_tile(b, pending_.r);
    }

    /// Loads A(rows i, k) and B(k, columns j) into the next chunk buffers. (A second stream
    /// for half of each halved the loads' busy time but not the run's: the loads are not what
    /// the products wait for.)
    int load_chunk(ooc_rect const& a, ooc_rect const& b) {
        int const k = static_cast<int>(next_chunk_++ % 2);
        h2d_.wait(chunk_free_[k]);
        // An operand inside the tile still in an output buffer (the last one multiplied or
        // closed, typically what this product depends on) is copied from there: no wait for
        // its store and its load back.
        auto fetch = [&](T* dst, std::size_t dld, ooc_rect const& x) {
            ooc_rect const& r = resident_.r;
            if (resident_.b >= 0 && r.contains(x)) {
                h2d_.wait(slab_done_[resident_.b].back());  // recorded in order: all slabs done
                T const* src = tile_view(resident_.b, 0, 0).data + (x.r0 - r.r0) * t_ +
                               (x.c0 - r.c0);
                timed(h2d_, "copy chunks on the device", [&] {
                    cuda::copy_rows_async(dst, dld * sizeof(T), src, t_ * sizeof(T),
                                          x.cols * sizeof(T), x.rows,
                                          cuda::copy_kind::device_to_device, h2d_);
                });
                return;
            }
            wait_stored(x);
            timed(h2d_, "load chunks", [&] { load(dst, dld, x, 0, x.rows); });
        };
        fetch(amem_.data() + std::size_t(k) * t_ * c_, c_, a);
        fetch(bmem_.data() + std::size_t(k) * c_ * t_, t_, b);
        chunk_loaded_[k].record(h2d_);
        return k;
    }

    /// c (+)= a (x) b (host blocks), in output tiles (header comment).
    void product(ooc_rect const& c, ooc_rect const& a, ooc_rect const& b) {
        flush();
        std::size_t const th = ooc_part(c.rows, t_), tw = ooc_part(c.cols, t_);
        std::size_t const kd = ooc_part(a.cols, c_);
        std::size_t const nr = (c.rows + th - 1) / th, nc = (c.cols + tw - 1) / tw;
        std::size_t const nk = (a.cols + kd - 1) / kd;
        bool const a_alias = a.overlaps(c), b_alias = b.overlaps(c);
        for (std::size_t q = 0; q < nr * nc; ++q) {
            // A's columns are C's when A is C: then the tiles of a row go one after another
            // across the row only after the others (columns first), so a chunk of A rarely
            // waits for the tile just stored; rows first otherwise.
            std::size_t const ti = a_alias ? q % nr : q / nc, tj = a_alias ? q / nr : q % nc;
            std::size_t const i0 = ti * th, j0 = tj * tw;
            ooc_rect const ct =
                c.block(i0, j0, std::min(th, c.rows - i0), std::min(tw, c.cols - j0));
            // Chunks from the tile's own offset when an operand is C: those entries are not
            // stored yet, and the tiles stored just before come last.
            std::size_t const k_first = b_alias ? i0 / kd : a_alias ? j0 / kd : 0;
            auto k_range = [&](std::size_t step) {  // {first column of A, depth}
                std::size_t const k0 = (k_first + step) % nk * kd;
                return std::pair{k0, std::min(kd, a.cols - k0)};
            };
            auto chunk = [&](std::size_t step) {
                auto const [k0, kl] = k_range(step);
                return load_chunk(a.block(i0, k0, ct.rows, kl), b.block(k0, j0, kl, ct.cols));
            };
            int kb = chunk(0);  // before the output tile: it may wait for the last store
            int const tb = load_tile(ct);
            view const cv = tile_view(tb, ct.rows, ct.cols);
            std::size_t const sr = slab_rows();
            for (std::size_t step = 0; step < nk; ++step) {
                if (step > 0) kb = chunk(step);
                std::size_t const kl = k_range(step).second;
                view const av{amem_.data() + std::size_t(kb) * t_ * c_, ct.rows, kl, c_};
                view const bv{bmem_.data() + std::size_t(kb) * c_ * t_, kl, ct.cols, t_};
                comp_.wait(chunk_loaded_[kb]);
                bool const first = step == 0, last = step + 1 == nk;
                if (first || last) {
                    // Slab by slab: the first product starts on the slabs already loaded and
                    // the last lets each slab's store start, so the output tile's swap (its
                    // store and the next one's load) overlaps products.
                    for (std::size_t sl = 0; sl < slabs; ++sl) {
                        std::size_t const r0 = std::min(sl * sr, ct.rows);
                        std::size_t const rows = std::min(sr, ct.rows - r0);
                        if (first) comp_.wait(slab_loaded_[tb][sl]);
                        if (rows)
                            timed(
                                comp_, "products of",
                                [&] {
                                    E::gemm(view{av.data + r0 * c_, rows, kl, c_}, bv,
                                            view{cv.data + r0 * t_, rows, ct.cols, t_}, comp_,
                                            ctx_);
                                },
                                c.rows);
                        if (last) slab_done_[tb][sl].record(comp_);
                    }
                } else {
                    timed(comp_, "products of", [&] { E::gemm(av, bv, cv, comp_, ctx_); }, c.rows);
                }
                chunk_free_[kb].record(comp_);
            }
            if (q + 1 < nr * nc) store_tile(tb, ct);
            else pending_ = {ct, tb};  // stored by the next step, unless it closes ct
        }
    }

    void close(ooc_rect const& r) {
        ++closed_;
        int b;
        if (pending_.b >= 0 && pending_.r == r) {
            // The product just computed this block: close it where it is, never stored.
            b = std::exchange(pending_.b, -1);
        } else {
            flush();
            if (resident_.b >= 0 && resident_.r == r) {
                // Still in its buffer since its store: close it there once the store has read it.
                b = resident_.b;
                comp_.wait(slab_free_[b].back());  // the stores run in order: all slabs read
            } else {
                b = load_tile(r);
                comp_.wait(slab_loaded_[b].back());  // the loads run in order: all slabs in
            }
        }
        view const v = tile_view(b, r.rows, r.cols);
        timed(comp_, "closures", [&] { E::close(v, view{}, comp_, ctx_); });
        E::negative(v, r.r0, first_.data(), comp_);
        for (auto& e : slab_done_[b]) e.record(comp_);
        store_tile(b, r);
    }

    void recurse(ooc_rect const& a) {
        std::size_t const m = a.rows;
        if (m <= base_) {
            close(a);
            return;
        }
        std::size_t const m1 = m / 2, m2 = m - m1;
        ooc_rect const a11 = a.block(0, 0, m1, m1), a12 = a.block(0, m1, m1, m2);
        ooc_rect const a21 = a.block(m1, 0, m2, m1), a22 = a.block(m1, m1, m2, m2);
        recurse(a11);
        product(a12, a11, a12);
        product(a21, a21, a11);
        product(a22, a21, a12);
        recurse(a22);
        product(a21, a22, a21);
        product(a12, a12, a22);
        product(a11, a12, a21);
    }

    bool profile_;
    std::vector<span> spans_;
    cuda::event start_{true};
    T* host_;
    std::size_t ld_, n_, t_, c_, base_;
    int tiles_;
    // In this order: the side streams join the context's stream before the buffers go, which
    // go before the wait that hands what the pool does not keep back (temporaries_scope).
    context& ctx_;
    cuda::temporaries_scope returned_;
    cuda::stream comp_;
    cuda::temporary_matrix<T> cmem_, amem_, bmem_;
    cuda::temporary_matrix<unsigned long long> first_;
    void* flag_;  // the context's page-locked word (pinned_scratch)
    cuda::side_streams<2> sides_;
    cuda::stream const& h2d_ = sides_.side[0];
    cuda::stream const& d2h_ = sides_.side[1];
    std::array<cuda::event, 2> chunk_loaded_, chunk_free_;
    std::array<std::array<cuda::event, slabs>, 2> slab_loaded_, slab_done_, slab_free_;
    struct store {
        ooc_rect r;
        cuda::event done;
    };
    std::deque<store> stored_;
    std::size_t next_tile_ = 0, next_chunk_ = 0, closed_ = 0;
    /// An output tile and its buffer (b < 0: none): the last one stored and still in its
    /// buffer, and the last product's last tile, not stored yet.
    struct held {
        ooc_rect r;
        int b = -1;
    };
    held resident_, pending_;
};

/// Runs plan p (R-Kleene) on the n x n host matrix at `host`, page-locked for the run.
template <class T>
ooc_report run_ooc_rkleene(T* host, std::size_t n, std::size_t ld, ooc_options const& o,
                           ooc_plan const& p) {
    ooc_report rep;
    rep.plan = p;
    cuda::host_registration const pin = pin_host_matrix(host, n * ld * sizeof(T), o, rep);
    auto const t0 = std::chrono::steady_clock::now();
    tuning const& tune = resolve(o.ctx).tune;
    ooc_rkleene_run<T> run(host, n, ld, p, o.profile || tune.ooc_profile, resolve(o.ctx));
    run.run();
    rep.rounds = run.closed();
    rep.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rep.profile = run.profile(rep.run_seconds, tune.ooc_timeline);
    if (o.explain && !rep.profile.empty()) o.explain->add("out-of-core: busy " + rep.profile);
    return rep;
}

}  // namespace kleene::detail

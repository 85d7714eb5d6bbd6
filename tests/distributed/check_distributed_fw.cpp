// Run under mpirun (1 to 4 ranks): the distributed APSP and closure against the single-process
// answers on random graphs, every rank building the same graph from the same seed, the result
// gathered to rank 0 and compared there.
//   --device cpu: MPI host path; equal bit for bit (floating point too) to floyd_warshall_blocked
//                 with the same block size, and to kleene::apsp's errors (negative cycle vertex,
//                 int32 overflow message).
//   --verbose: a line a case on rank 0.
//   Both devices: the host path with look-ahead (the default) and without; the block layout
//   (layout.hpp) written by every rank, joined on rank 0 and compared with the gather, written
//   again over itself, refused over a directory that is not a layout, and left nowhere when the
//   writer is dropped unpublished.
//   --device gpu: NCCL, one GPU per rank; int32 and closure equal, fp within a relative 1e-5
//                 (fp32) / 1e-12 (fp64): the GPU products sum along another order than the CPU
//                 tiles. Skips (exit 0, message) when a rank has no GPU.
//   --device gpu --streamed R: the same with every rank's blocks streamed through its GPU in
//                 stripes of R rows (out of core per rank); each APSP case is also run in core
//                 and must give the same bits (or the same error).
//   Both devices: failures planted on one rank at one step (check_faults) reach every rank as
//   the same error, and the next call on the same control works.
// Exit 0 when every case passed on every rank, 1 otherwise.

#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/closure.hpp>
#include <kleene/algorithms/distributed/apsp.hpp>
#include <kleene/algorithms/distributed/layout.hpp>
#include <kleene/algorithms/distributed/mpi.hpp>
#include <kleene/algorithms/distributed/nccl.hpp>
#include <kleene/algorithms/distributed/predecessors.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/cuda/temporary.hpp>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace dist = kleene::distributed;
using kleene::csr_matrix;
using kleene::dense_matrix;

namespace {

struct context {
    dist::mpi_control* c;
    dist::device_panels* panels;
    bool gpu;
    bool lookahead = true;
    /// --streamed R: the device path streams every rank's blocks through its GPU in stripes of
    /// R rows (out of core per rank), and check_apsp also runs it in core and wants the same
    /// bits.
    std::size_t stripe_rows = 0;
    bool verbose = false;
    void set(dist::options& o) const {
        o.panels = panels;
        o.lookahead = lookahead;
        if (stripe_rows) {
            o.blocks = dist::device_fw_options::residence::streamed;
            o.stripe_rows = stripe_rows;
        }
    }
    int failures = 0;
    int cases = 0;
    void report(bool ok, std::string const& what) {
        ++cases;
        if (!ok) ++failures;
        if (c->rank() == 0 && !ok) std::printf("FAIL %s\n", what.c_str());
    }
};

enum class kind { plain, negative_edges, negative_cycle };

/// A random graph of about `degree` edges a vertex; weights in [lo, hi]. negative_edges: weights
/// w + p(u) - p(v) (no negative cycle); negative_cycle: plus a cycle of total weight -1.
template <class T>
csr_matrix<T> random_graph(std::size_t n, double degree, double lo, double hi, kind k,
                           unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<double> pot(n);
    for (auto& p : pot) p = std::floor(u(rng) * 20);
    kleene::buffer<std::int32_t> ptr(n + 1);
    std::vector<std::int32_t> cols;
    std::vector<T> vals;
    ptr[0] = 0;
    double const p = n ? std::min(1.0, degree / double(n)) : 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            bool edge = u(rng) < p;
            bool const on_cycle = k == kind::negative_cycle && n >= 3 && i >= n / 2 &&
                                  i < n / 2 + 3 && j == (i + 1 - n / 2) % 3 + n / 2;
            if (!edge && !on_cycle) continue;
            double w = lo + std::floor(u(rng) * (hi - lo + 1));
            if (std::is_floating_point_v<T>) w = lo + u(rng) * (hi - lo);
            if (k != kind::plain) w += pot[i] - pot[j];
            if (on_cycle) w = i == n / 2 ? -5 : 2;
            cols.push_back(static_cast<std::int32_t>(j));
            vals.push_back(static_cast<T>(w));
        }
        ptr[i + 1] = static_cast<std::int32_t>(cols.size());
    }
    kleene::buffer<std::int32_t> ci(cols.size());
    kleene::buffer<T> v(vals.size());
    std::copy(cols.begin(), cols.end(), ci.data());
    std::copy(vals.begin(), vals.end(), v.data());
    return csr_matrix<T>(n, n, std::move(ptr), std::move(ci), std::move(v), T(1), true);
}

template <class T>
bool same(dense_matrix<T> const& x, dense_matrix<T> const& y, bool exact) {
    if (x.rows() != y.rows() || x.cols() != y.cols()) return false;
    if (exact || !std::is_floating_point_v<T>)
        return std::memcmp(x.data(), y.data(), x.rows() * x.cols() * sizeof(T)) == 0;
    double const tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
    for (std::size_t i = 0; i < x.rows(); ++i)
        for (std::size_t j = 0; j < x.cols(); ++j) {
            T const a = x(i, j), b = y(i, j);
            if (a == b) continue;
            if (std::isinf(a) || std::isinf(b)) return false;
            if (std::fabs(double(a) - double(b)) > tol * std::max(1.0, std::fabs(double(b))))
                return false;
        }
    return true;
}

/// What a single-process run gives: distances, or the error's message.
template <class T>
struct outcome {
    dense_matrix<T> dist;
    std::string error;
};

template <class T>
outcome<T> reference(csr_matrix<T> const& a, std::size_t block) {
    outcome<T> r;
    try {
        if (block == 64) {
            kleene::apsp_options o;
            o.algorithm = kleene::apsp_algorithm::blocked_fw;
            o.device = kleene::device_choice::cpu;
            r.dist = kleene::apsp(a, o).dist;
        } else {
            // Same rules, other tile size: the dense start, floyd_warshall_blocked(b), the check.
            kleene::path_weight_bound const wb = kleene::weight_bound(a, "apsp");
            if (!kleene::distances_fit<T>(wb)) throw kleene::error("reference: needs widening");
            r.dist = kleene::detail::apsp_start(a);
            kleene::floyd_warshall_blocked(r.dist.view(), block);
            std::int64_t const neg = kleene::detail::first_negative_diagonal(r.dist);
            if (neg >= 0) throw kleene::negative_cycle(neg);
        }
    } catch (std::exception const& e) {
        r.error = e.what();
    }
    return r;
}

template <class T>
void check_apsp(context& ctx, std::size_t n, std::size_t block, double degree, double lo, double hi,
                kind k, unsigned seed) {
    auto const a = random_graph<T>(n, degree, lo, hi, k, seed);
    std::string const what = std::string("apsp<") +
                             (std::is_same_v<T, float>          ? "fp32"
                              : std::is_same_v<T, double>       ? "fp64"
                              : std::is_same_v<T, std::int32_t> ? "int32"
                                                                : "int64") +
                             "> n=" + std::to_string(n) + " b=" + std::to_string(block) +
                             " kind=" + std::to_string(int(k)) + " w=[" + std::to_string(lo) + "," +
                             std::to_string(hi) + "]" + (ctx.lookahead ? "" : " no-lookahead");
    outcome<T> got;
    dist::options o;
    o.block = block;
    ctx.set(o);
    try {
        auto r = dist::apsp(a, *ctx.c, o);
        got.dist = dist::gather<T>(r.local.view(), r.dist, *ctx.c);
    } catch (std::exception const& e) {
        got.error = e.what();
    }
    // Streamed: the same steps in core must give the same bits (or the same error).
    outcome<T> in_core;
    if (ctx.stripe_rows) {
        o.blocks = dist::device_fw_options::residence::device;
        o.lookahead = true;  // (streamed steps always look ahead)
        try {
            auto r = dist::apsp(a, *ctx.c, o);
            in_core.dist = dist::gather<T>(r.local.view(), r.dist, *ctx.c);
        } catch (std::exception const& e) {
            in_core.error = e.what();
        }
    }
    // Every rank must have the same outcome (error or not).
    std::int64_t const err = got.error.empty() ? 0 : 1;
    bool const agreed = ctx.c->allreduce_min(err) == ctx.c->allreduce_max(err);
    if (ctx.c->rank() != 0) {
        ctx.report(agreed, what);
        return;
    }
    outcome<T> const want = reference(a, block);
    bool ok = agreed;
    if (!want.error.empty() || !got.error.empty()) {
        // The GPU's negative-cycle vertex may differ (another order of updates): any vertex.
        bool const neg_both =
            want.error.rfind("negative cycle", 0) == 0 && got.error.rfind("negative cycle", 0) == 0;
        ok = ok && (want.error == got.error || (ctx.gpu && neg_both));
        if (!ok)
            std::printf("  %s: reference error '%s', distributed error '%s'\n", what.c_str(),
                        want.error.c_str(), got.error.c_str());
    } else {
        ok = ok && same(got.dist, want.dist, !ctx.gpu);
    }
    if (ctx.stripe_rows) {
        bool const same_bits = in_core.error == got.error && same(got.dist, in_core.dist, true);
        if (!same_bits)
            std::printf("  %s: streamed and in core differ (errors '%s', '%s')\n", what.c_str(),
                        got.error.c_str(), in_core.error.c_str());
        ok = ok && same_bits;
    }
    if (ctx.verbose)
        std::printf("%s %s: %s\n", ok ? "ok  " : "FAIL", what.c_str(),
                    got.error.empty() ? "distances equal" : got.error.c_str());
    ctx.report(ok, what);
}

/// Device memory taken on the ranks that `here` picks, one rank after the other (so that ranks
/// sharing a device each see what the others left), in pieces as large as the driver gives,
/// halved when it refuses, until about `keep` bytes are free there. from_pool: then also what the
/// default context's pool (where the runs' buffers come from) still gives: a trim cannot hand
/// back a block of the pool that something it keeps still uses, and the pool may also grow
/// into the `keep` bytes, so that the next allocation from it fails.
struct taken_memory {
    std::vector<kleene::buffer<std::byte, kleene::device>> pieces;
    std::string error;  // a failure to take the memory, if any
    std::string note() const { return error.empty() ? "" : " (taking memory: " + error + ")"; }
};
template <class Here>
taken_memory take_device_memory(context& ctx, std::size_t keep, Here here, bool from_pool = false) {
    std::size_t const mib = std::size_t(1) << 20;
    taken_memory t;
    for (int r = 0; r < ctx.c->size(); ++r) {
        // The runs' buffers come from the default context's pool: what it keeps of the earlier
        // runs' goes back to the driver first, to be taken too.
        if (ctx.c->rank() == r && here(r)) kleene::cuda::trim_memory_pool(kleene::default_context());
        for (std::size_t want = ~std::size_t(0); ctx.c->rank() == r && here(r);) {
            std::size_t const free = kleene::cuda::free_device_memory();
            if (free <= keep + mib) break;
            want = std::min(want, free - keep);
            if (want < mib) break;
            try {
                t.pieces.emplace_back(want);
            } catch (std::exception const& e) {
                t.error = e.what();
                want /= 2;
            }
        }
        for (std::size_t want = std::size_t(1) << 30;
             from_pool && ctx.c->rank() == r && here(r) && want >= 64 * 1024;) {
            try {
                t.pieces.push_back(
                    kleene::cuda::temporary_buffer<std::byte>(want, kleene::default_context()));
            } catch (std::exception const&) {
                want /= 2;
            }
        }
        ctx.c->allreduce_max(std::int64_t(0));  // one rank after the other
    }
    return t;
}

/// GPU: with the device memory taken but for 4 MiB on every rank, streaming (asked for, or chosen
/// by automatic since the blocks no longer fit) needs more than is free even for the panels and
/// stripes: every rank must get the error that says how much it needs and how much is free, not
/// a failed allocation or a crash, and the communicators must stay usable (the automatic case
/// runs after the streamed one, and the checks after both).
void check_streamed_out_of_memory(context& ctx) {
    std::size_t const n = 2048;
    auto const a = random_graph<float>(n, 4, 1, 9, kind::plain, 4242);
    std::size_t const keep = std::size_t(4) << 20, mib = std::size_t(1) << 20;
    taken_memory const taken = take_device_memory(ctx, keep, [](int) { return true; });
    std::size_t const left = kleene::cuda::free_device_memory();
    using residence = dist::device_fw_options::residence;
    for (residence blocks : {residence::streamed, residence::automatic}) {
        std::string const what = std::string("apsp<fp32> n=2048, ") + std::to_string(left / mib) +
                                 " MiB of device memory left, " +
                                 (blocks == residence::streamed ? "streamed" : "automatic");
        dist::options o;
        ctx.set(o);
        o.blocks = blocks;
        // Streamed: a block of 1024 and stripes of R rows (one rank: 46 MiB at R = 7); automatic:
        // its own block and stripes (all local rows; one rank: 72 MiB, two: 34 MiB). Either
        // needs more than is left.
        if (blocks == residence::streamed) o.block = 1024;
        else o.stripe_rows = 0;
        kleene::explain_trace trace;
        o.explain = &trace;
        std::string error;
        try {
            auto r = dist::apsp(a, *ctx.c, o);
            error = "(no error): " + trace.str();
        } catch (std::exception const& e) {
            error = e.what();
        }
        bool const ok = left <= keep + mib && error.find("needs") != std::string::npos &&
                        error.find("are free: use a smaller block or more ranks") !=
                            std::string::npos;
        if (!ok || ctx.verbose)
            std::printf("%s rank %d %s: %s%s\n", ok ? "ok  " : "FAIL", ctx.c->rank(), what.c_str(),
                        error.c_str(), taken.note().c_str());
        ctx.report(ok, what);
    }
}

/// GPU: a failure in the set-up of one rank (the last: its device memory taken but for 1 MiB,
/// so that its local blocks cannot be allocated in core) must reach every rank as the same error
/// before any broadcast is queued, and leave the communicators usable: the same call, the memory
/// given back, must then give the right distances on the same communicators (had they been
/// aborted, its first broadcast would fail with "the communicators were aborted").
void check_setup_failure(context& ctx) {
    std::size_t const n = 2048, block = 256;
    auto const a = random_graph<float>(n, 4, 1, 9, kind::plain, 4343);
    int const last = ctx.c->size() - 1;
    taken_memory taken =
        take_device_memory(ctx, std::size_t(1) << 20, [&](int r) { return r == last; }, true);
    dist::options o;
    ctx.set(o);
    o.block = block;
    o.blocks = dist::device_fw_options::residence::device;
    std::string error;
    try {
        auto r = dist::apsp(a, *ctx.c, o);
        error = "(no error)";
    } catch (std::exception const& e) {
        error = e.what();
    }
    taken.pieces.clear();
    std::string what = "apsp<fp32> n=2048 in core, rank " + std::to_string(last) +
                       "'s device memory taken: every rank gets its allocation failure";
    bool ok = error.find("out of device memory") != std::string::npos;
    if (!ok || ctx.verbose)
        std::printf("%s rank %d %s: %s%s\n", ok ? "ok  " : "FAIL", ctx.c->rank(), what.c_str(),
                    error.c_str(), taken.note().c_str());
    ctx.report(ok, what);
    outcome<float> got;
    try {
        auto r = dist::apsp(a, *ctx.c, o);
        got.dist = dist::gather<float>(r.local.view(), r.dist, *ctx.c);
    } catch (std::exception const& e) {
        got.error = e.what();
    }
    what = "apsp<fp32> n=2048 in core, the memory given back: the same communicators work";
    ok = got.error.empty();
    if (ctx.c->rank() == 0) {
        outcome<float> const want = reference(a, block);
        ok = ok && want.error.empty() && same(got.dist, want.dist, false);
    }
    if (!ok || ctx.verbose)
        std::printf("%s rank %d %s%s\n", ok ? "ok  " : "FAIL", ctx.c->rank(), what.c_str(),
                    got.error.empty() ? "" : (": " + got.error).c_str());
    ctx.report(ok, what);
}

/// The device path on a context of the caller's (gpu): its stream, non-blocking, is busy when the
/// call is made (a min-plus product of 4096^3, a few milliseconds, then the copy of each rank's
/// start blocks from the device into the caller's page-locked local blocks), and the run queues
/// its work after it there, so it must read that start, not the placeholder (no edges: +inf off
/// the diagonal) the blocks hold when the call is made; in core (whose plan does not wait for
/// the stream) and streamed in stripes of 37 rows. The local blocks are the caller's
/// page-locked memory (cudaHostAlloc), which the run copies directly, in stream order. Its
/// buffers come from the context's pool (the used peak covers the local blocks in core, the
/// stripes and panels streamed) and all go back to it; the result equals the single-process one.
void check_context_stream(context& ctx, std::size_t n, std::size_t block, unsigned seed) {
    namespace cuda = kleene::cuda;
    using T = std::int32_t;
    auto& c = *ctx.c;
    auto const a = random_graph<T>(n, 5, 1, 50, kind::plain, seed);
    outcome<T> const want = reference(a, block);
    dist::block_cyclic const d(n, block, c.grid(), c.rank());
    std::size_t const lr = d.local_rows(), lc = d.local_cols();
    dense_matrix<T> const start = dist::detail::local_start<T>(a, d, true);
    auto const start_d = start.to_device();
    std::size_t const g = 4096;
    dense_matrix<float> const ones(g, g, 1.0f);
    auto const ga = ones.to_device(), gb = ones.to_device();
    auto gc = ones.to_device();
    cuda::pinned_memory host(std::max<std::size_t>(lr * lc, 1) * sizeof(T));
    T* const h = static_cast<T*>(host.data());
    cuda::stream const s;
    kleene::context kc(cuda::current_device());  // (this rank's device: use_device)
    kc.set_stream(s.native());
    cuda::stream const on = cuda::stream::borrow(kc.stream());
    // The product's kernels loaded and run once first (lazy loading may wait for the device).
    cuda::dense_gemm<kleene::min_plus<float>>(ga.view(), gb.view(), gc.view(), true, on, &kc);
    s.synchronize();
    using residence = dist::device_fw_options::residence;
    for (residence const where : {residence::device, residence::streamed}) {
        bool const streamed = where == residence::streamed;
        std::string const what = "apsp<int32> n=" + std::to_string(n) + " b=" +
                                 std::to_string(block) + (streamed ? " streamed" : " in core") +
                                 " on a busy context stream, page-locked local blocks";
        for (std::size_t r = 0; r < lr; ++r)
            for (std::size_t q = 0; q < lc; ++q)
                h[r * lc + q] = d.global_row(d.prow(), r) == d.global_col(d.pcol(), q)
                                    ? 0
                                    : kleene::infinity<T>();
        cuda::reset_memory_pool_peaks(kc);
        std::size_t const held = cuda::pool_usage(kc).used;
        std::string error;
        dist::fw_stats st;
        try {
            cuda::dense_gemm<kleene::min_plus<float>>(ga.view(), gb.view(), gc.view(), true, on,
                                                      &kc);
            if (lr && lc)
                cuda::copy_rows_async(h, lc * sizeof(T), start_d.view().data, lc * sizeof(T),
                                      lc * sizeof(T), lr, cuda::copy_kind::device_to_host, on);
            dist::device_fw_options o;
            o.blocks = where;
            o.stripe_rows = 37;
            o.ctx = &kc;
            st = dist::floyd_warshall_device<T>(kleene::dense_view<T>{h, lr, lc, lc}, d, c,
                                                *ctx.panels, o);
        } catch (std::exception const& e) {
            error = e.what();
        }
        cuda::memory_pool_usage const use = cuda::pool_usage(kc);
        std::size_t const need = streamed ? 3 * 37 * lc * sizeof(T) : lr * lc * sizeof(T);
        // Which local entries differ from the single-process answer (gathered nowhere: each rank
        // checks its own blocks).
        std::int64_t wrong = 0;
        if (error.empty() && want.error.empty())
            for (std::size_t r = 0; r < lr; ++r)
                for (std::size_t q = 0; q < lc; ++q)
                    wrong += h[r * lc + q] !=
                             want.dist(d.global_row(d.prow(), r), d.global_col(d.pcol(), q));
        bool ok = error.empty() && want.error.empty() && wrong == 0 && st.streamed == streamed &&
                  use.used_peak >= held + need && use.used == held;
        if (!ok || ctx.verbose)
            std::printf("%s rank %d %s: %s%lld of %zu local entries wrong; pool used %zu -> peak "
                        "%zu (the run's buffers at least %zu) -> %zu\n",
                        ok ? "ok  " : "FAIL", c.rank(), what.c_str(),
                        error.empty() ? "" : (error + "; ").c_str(), (long long)wrong, lr * lc,
                        held, use.used_peak, need, use.used);
        ctx.report(c.allreduce_min(ok ? 1 : 0) == 1, what);
    }
    // A context of another device than the rank's (where some rank's is not device 0): refused
    // on every rank, in the set-up, and the communicators stay usable (the checks after this).
    if (c.allreduce_max(std::int64_t(cuda::current_device() != 0)) == 1) {
        kleene::context other(0);
        dense_matrix<T> local = start;
        std::string error;
        try {
            dist::device_fw_options o;
            o.ctx = &other;
            (void)dist::floyd_warshall_device<T>(local.view(), d, c, *ctx.panels, o);
        } catch (std::exception const& e) {
            error = e.what();
        }
        bool const ok = error.find("the context is for device 0, this rank uses device") !=
                        std::string::npos;
        if (!ok || ctx.verbose)
            std::printf("%s rank %d a context of device 0 on every rank: %s\n", ok ? "ok  " : "FAIL",
                        c.rank(), error.c_str());
        ctx.report(c.allreduce_min(ok ? 1 : 0) == 1, "a context of another device is refused");
    }
}

/// A failure planted on one rank at one step (faults.hpp), for APSP or closure: every rank must
/// get collective_error with the same message, naming the rank, the step and the cause, and the
/// same control must then give the right answer (nothing left in flight). On the GPU a failure
/// inside the steps aborts the communicators, so new ones are made for the next call; a set-up
/// failure must leave them usable.
void check_fault(context& ctx, std::unique_ptr<dist::nccl_panels>& owner,
                 csr_matrix<std::int32_t> const& a, std::size_t block, std::size_t steps,
                 bool closure, dist::fault_plan const& f) {
    auto& c = *ctx.c;
    using K = dist::fault_plan::kind;
    dist::options o;
    o.block = block;
    ctx.set(o);
    o.timeout = 20;
    o.fault = f;
    static char const* const names[] = {"none", "setup", "exception", "allocation", "kill", "hang"};
    std::string const what =
        std::string(closure ? "closure" : "apsp<int32>") + " n=" + std::to_string(a.rows()) +
        " b=" + std::to_string(block) + ", fault " + names[int(f.what)] + " on rank " +
        std::to_string(f.rank) + (f.what == K::setup ? "" : " at step " + std::to_string(f.step)) +
        (ctx.lookahead ? "" : " no-lookahead");
    std::string error = "(no error)";
    bool collective = false;
    try {
        if (closure)
            (void)dist::closure(a, c, o);
        else
            (void)dist::apsp(a, c, o);
    } catch (dist::collective_error const& e) {
        error = e.what();
        collective = true;
    } catch (dist::rank_timeout const&) {
        throw;
    } catch (std::exception const& e) {
        error = std::string("not agreed: ") + e.what();
    }
    std::string const head = c.size() > 1 ? "rank " + std::to_string(f.rank) + ": " : std::string();
    std::string const step = f.what == K::setup ? std::string()
                                                : "step " + std::to_string(f.step) + " of " +
                                                      std::to_string(steps) + ": ";
    bool ok = collective && error.rfind(head + step, 0) == 0 &&
              error.find("(fault plan)") != std::string::npos;
    // The same message on every rank: rank 0's against each.
    std::string first = error;
    std::uint64_t len = first.size();
    c.broadcast(&len, sizeof len, 0);
    first.resize(len);
    c.broadcast(first.data(), len, 0);
    ok = ok && first == error;
    if (!ok || ctx.verbose)
        std::printf("%s rank %d %s: %s\n", ok ? "ok  " : "FAIL", c.rank(), what.c_str(),
                    error.c_str());
    ctx.report(c.allreduce_min(ok ? 1 : 0) == 1, what);
    // The same control, the fault gone: the right answer.
    if (ctx.gpu && f.what != K::setup) {
        owner.reset();
        owner = std::make_unique<dist::nccl_panels>(c);
        ctx.panels = owner.get();
    }
    o.fault = {};
    ctx.set(o);
    std::string after;
    dense_matrix<std::int32_t> full;
    try {
        auto r = closure ? dist::closure(a, c, o) : dist::apsp(a, c, o);
        full = dist::gather<std::int32_t>(r.local.view(), r.dist, c);
    } catch (dist::rank_timeout const&) {
        throw;
    } catch (std::exception const& e) {
        after = e.what();
    }
    ok = after.empty();
    std::size_t const n = a.rows();
    if (c.rank() == 0 && ok) {
        if (closure) {
            kleene::closure_options co;
            co.device = kleene::device_choice::cpu;
            kleene::host_bits const want = kleene::closure_bits(a, co);
            for (std::size_t i = 0; i < n && ok; ++i)
                for (std::size_t j = 0; j < n && ok; ++j)
                    ok = want.test(i, j) == (full(i, j) != kleene::infinity<std::int32_t>());
        } else {
            outcome<std::int32_t> const want = reference(a, block);
            ok = want.error.empty() && same(full, want.dist, true);
        }
    }
    if (!ok)
        std::printf("FAIL rank %d %s, then without it: %s\n", c.rank(), what.c_str(),
                    after.empty() ? "wrong answer" : after.c_str());
    ctx.report(ok, what + ", then without it");
}

/// check_fault for the set-up's buffers refused, an exception in a tile and an allocation refused
/// before the step's broadcasts, on the first and the last rank, at the first, a middle and the
/// last step, with and without look-ahead. A wait of more than 20 s anywhere is a hang: reported,
/// and the job ended at once (exit 1) rather than at the test's time limit.
void check_faults(context& ctx, std::unique_ptr<dist::nccl_panels>& owner) {
    auto& c = *ctx.c;
    std::size_t const n = 100, block = 16, steps = 7;
    auto const a = random_graph<std::int32_t>(n, 4, 1, 100, kind::plain, 4545);
    using K = dist::fault_plan::kind;
    std::vector<dist::fault_plan> plans;
    for (int r : {0, c.size() - 1}) {
        plans.push_back({K::setup, r, 1});
        for (std::size_t s : {std::size_t(1), std::size_t(4), steps}) {
            plans.push_back({K::exception, r, s});
            plans.push_back({K::allocation, r, s});
        }
        if (c.size() == 1) break;
    }
    double const old_limit = c.wait_limit();
    c.set_wait_limit(20);  // outside the steps too (the checks' own reductions)
    bool const lookahead = ctx.lookahead;
    for (bool closure : {false, true})
        for (bool la : {true, false})
            for (dist::fault_plan const& f : plans) {
                ctx.lookahead = la;
                try {
                    check_fault(ctx, owner, a, block, steps, closure, f);
                } catch (dist::rank_timeout const& e) {
                    std::printf("FAIL rank %d hangs (%s, fault plan rank %d, step %zu): %s\n",
                                c.rank(), closure ? "closure" : "apsp", f.rank, f.step, e.what());
                    std::fflush(stdout);
                    dist::mpi_environment::abort(1);
                }
            }
    ctx.lookahead = lookahead;
    c.set_wait_limit(old_limit);
}

/// Every rank's predecessors of its own blocks (local_predecessors, bands of `band_rows` rows),
/// gathered, against kleene::predecessors of the gathered distances (+1, 0 for none): the
/// single-process rule the gathering command applies.
template <class T>
void check_predecessors(context& ctx, std::size_t n, std::size_t block, std::size_t band_rows,
                        unsigned seed) {
    auto const a = random_graph<T>(n, 4, 0, 40, kind::negative_edges, seed);
    std::string const what = std::string("predecessors<") +
                             (std::is_same_v<T, double> ? "fp64" : "int32") +
                             "> n=" + std::to_string(n) + " b=" + std::to_string(block) +
                             " band=" + std::to_string(band_rows);
    dist::options o;
    o.block = block;
    ctx.set(o);
    auto r = dist::apsp(a, *ctx.c, o);
    auto const pred = dist::local_predecessors(a, r.local, r.dist, *ctx.c,
                                               std::max<std::size_t>(band_rows * n * sizeof(T), 1));
    auto const full = dist::gather<T>(r.local.view(), r.dist, *ctx.c);
    auto const got = dist::gather<std::int32_t>(pred.view(), r.dist, *ctx.c);
    if (ctx.c->rank() != 0) {
        ctx.report(true, what);
        return;
    }
    auto const want = kleene::predecessors(a, kleene::dense_view<T const>(full.view()));
    bool ok = got.rows() == n && got.cols() == n;
    for (std::size_t i = 0; ok && i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) ok = ok && got(i, j) == want(i, j) + 1;
    if (ctx.verbose) std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    ctx.report(ok, what);
}

void check_closure(context& ctx, std::size_t n, std::size_t block, double degree, unsigned seed) {
    auto const a = random_graph<std::int32_t>(n, degree, 1, 1, kind::plain, seed);
    std::string const what = "closure n=" + std::to_string(n) + " b=" + std::to_string(block);
    dist::options o;
    o.block = block;
    ctx.set(o);
    auto r = dist::closure(a, *ctx.c, o);
    auto const full = dist::gather<std::int32_t>(r.local.view(), r.dist, *ctx.c);
    if (ctx.c->rank() != 0) {
        ctx.report(true, what);
        return;
    }
    kleene::closure_options co;
    co.device = kleene::device_choice::cpu;
    kleene::host_bits const want = kleene::closure_bits(a, co);
    bool ok = true;
    for (std::size_t i = 0; i < n && ok; ++i)
        for (std::size_t j = 0; j < n && ok; ++j)
            ok = want.test(i, j) == (full(i, j) != kleene::infinity<std::int32_t>());
    ctx.report(ok, what);
}

/// Files of a directory (names), sorted.
std::vector<std::string> listing(std::string const& dir) {
    std::vector<std::string> v;
    std::error_code ec;
    for (auto const& e : std::filesystem::directory_iterator(dir, ec))
        v.push_back(e.path().filename().string());
    std::sort(v.begin(), v.end());
    return v;
}

void check_layout(context& ctx, std::size_t n, std::size_t block, unsigned seed) {
    namespace fs = std::filesystem;
    auto& c = *ctx.c;
    std::string const what = "layout n=" + std::to_string(n) + " b=" + std::to_string(block);
    // A fresh directory from rank 0 (every rank here shares /tmp).
    std::string base(64, '\0');
    if (c.rank() == 0) {
        char tmpl[] = "/tmp/kleene-layout-XXXXXX";
        if (!mkdtemp(tmpl)) {
            ctx.report(false, what + ": mkdtemp");
            std::strcpy(tmpl, "/nonexistent");
        }
        base = tmpl;
        base.resize(64);
    }
    c.broadcast(base.data(), base.size(), 0);
    base = base.c_str();
    std::string const dir = base + "/out";
    bool ok = true;
    auto const a = random_graph<std::int32_t>(n, 4, 1, 100, kind::plain, seed);
    dist::options o;
    o.block = block;
    ctx.set(o);
    for (int round = 0; round < 2; ++round) {  // the second replaces the first
        auto r = dist::apsp(a, c, o);
        if (round == 1 && r.local.rows() * r.local.cols() > 0) r.local(0, 0) = -round;  // differs
        auto const full = dist::gather<std::int32_t>(r.local.view(), r.dist, c);
        {
            dist::layout_writer w(dir, c);
            w.write(r.local, r.dist, dist::layout_manifest{});
        }
        if (c.rank() == 0) {
            try {
                auto const m = dist::read_layout(dir);
                auto const joined = dist::join_layout<std::int32_t>(dir, m);
                bool const eq = same(joined, full, true);
                if (!eq)
                    std::printf("  %s round %d: joined layout differs from the gather\n",
                                what.c_str(), round);
                ok = ok && eq && m.parts.size() == std::size_t(c.size());
                // Read a block of rows at a time (1 row, 3 rows, whole block rows): the same rows
                // in order, each part checked against its checksum.
                for (std::size_t rows : {std::size_t(1), std::size_t(3), block}) {
                    dense_matrix<std::int32_t> streamed(n, n, 0);
                    std::size_t next = 0;
                    bool in_order = true;
                    dist::for_each_row_block<std::int32_t>(
                        dir, m, rows * n * sizeof(std::int32_t),
                        [&](std::size_t row0, kleene::dense_view<std::int32_t const> v) {
                            in_order = in_order && row0 == next && v.rows >= 1 &&
                                       v.rows <= rows && v.cols == n;
                            for (std::size_t i = 0; i < v.rows; ++i)
                                std::copy(v.row(i), v.row(i) + n, &streamed(row0 + i, 0));
                            next = row0 + v.rows;
                        });
                    bool const s_eq = in_order && next == n && same(streamed, full, true);
                    if (!s_eq)
                        std::printf("  %s round %d: rows streamed %zu at a time differ\n",
                                    what.c_str(), round, rows);
                    ok = ok && s_eq;
                }
            } catch (std::exception const& e) {
                std::printf("  %s: %s\n", what.c_str(), e.what());
                ok = false;
            }
            // Nothing but DIR beside it: the staging directory is gone.
            ok = ok && listing(base) == std::vector<std::string>{"out"};
            ok = ok && listing(dir).size() == std::size_t(c.size()) + 1;
        }
    }
    // Dropped before write() (the work failed): no DIR change, no staging left.
    std::string const fresh = base + "/never";
    { dist::layout_writer w(fresh, c); }
    c.agree(true);
    if (c.rank() == 0) ok = ok && listing(base) == std::vector<std::string>{"out"};
    // A directory that is not a layout is refused on every rank, and left as it was.
    if (c.rank() == 0) std::ofstream(base + "/out/notes.txt") << "mine\n";
    c.agree(true);
    std::string err;
    try {
        dist::layout_writer w(dir, c);
    } catch (dist::collective_error const& e) {
        err = e.what();
    }
    ok = ok && err.find("notes.txt") != std::string::npos;
    if (c.rank() == 0) {
        ok = ok && listing(base) == std::vector<std::string>{"out"} &&
             listing(dir).size() == std::size_t(c.size()) + 2;
        std::error_code ec;
        fs::remove_all(base, ec);
    }
    ctx.report(ok, what);
    if (ctx.verbose && c.rank() == 0) std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    dist::mpi_environment env(argc, argv);
    bool gpu = argc > 2 && std::string(argv[1]) == "--device" && std::string(argv[2]) == "gpu";
    int failures = 0, cases = 0;
    {
        dist::mpi_control c(dist::choose_grid(env.size()));
        std::unique_ptr<dist::nccl_panels> panels;
        if (gpu) {
            bool const have = kleene::cuda::device_count() > 0;
            if (c.allreduce_min(have ? 1 : 0) == 0) {
                if (c.rank() == 0) std::printf("SKIP: no CUDA device on some rank\n");
                return 0;
            }
            // NCCL takes one GPU a rank: more ranks on a host than its GPUs is a skip, said so.
            bool const too_many =
                c.allreduce_min(c.local_rank() < kleene::cuda::device_count() ? 1 : 0) == 0;
            if (too_many) {
                if (c.rank() == 0)
                    std::printf("SKIP: more ranks on a host than its %d GPU(s); NCCL takes one GPU "
                                "a rank\n",
                                kleene::cuda::device_count());
                return 0;
            }
            dist::use_device(c.local_rank());
            try {
                panels = std::make_unique<dist::nccl_panels>(c);
            } catch (std::exception const& e) {
                std::printf("FAIL rank %d: setting up NCCL: %s\n", c.rank(), e.what());
                return 1;
            }
        }
        context ctx{&c, panels.get(), gpu};
        for (int i = 1; i < argc; ++i) {
            ctx.verbose = ctx.verbose || std::string(argv[i]) == "--verbose";
            if (std::string(argv[i]) == "--streamed" && i + 1 < argc && gpu)
                ctx.stripe_rows = std::max<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10), 1);
        }
        // Sizes around the block and grid: fewer blocks than ranks, a partial last block, odd n.
        for (std::size_t n : {1, 5, 64, 100, 190, 257}) {
            for (std::size_t b : {64, 16, 37}) {
                unsigned const seed = static_cast<unsigned>(n * 131 + b);
                check_apsp<std::int32_t>(ctx, n, b, 4, 1, 100, kind::plain, seed);
                check_apsp<std::int32_t>(ctx, n, b, 6, 0, 50, kind::negative_edges, seed + 1);
                check_apsp<float>(ctx, n, b, 5, 0.5, 9.5, kind::negative_edges, seed + 2);
                check_apsp<double>(ctx, n, b, 5, 0.5, 9.5, kind::plain, seed + 3);
                if (!gpu)
                    check_apsp<std::int64_t>(ctx, n, b, 5, -3, 40, kind::negative_edges, seed + 4);
                check_closure(ctx, n, b, 1.5, seed + 5);
            }
            // A negative cycle; int32 weights near the top: widened to fp64, fitting (few hops)
            // and not fitting (a long path of large weights).
            check_apsp<std::int32_t>(ctx, n, 64, 3, 0, 30, kind::negative_cycle, unsigned(n) + 7);
            check_apsp<float>(ctx, n, 64, 3, 0, 30, kind::negative_cycle, unsigned(n) + 8);
            check_apsp<std::int32_t>(ctx, n, 64, double(n) / 2, 1 << 26, (1 << 26) + 1000,
                                     kind::plain, unsigned(n) + 9);
            check_apsp<std::int32_t>(ctx, n, 64, 1.2, 1 << 29, (1 << 30) - 1, kind::plain,
                                     unsigned(n) + 10);
            // The same steps without look-ahead (the comparison the CLI's --no-lookahead makes).
            ctx.lookahead = false;
            check_apsp<std::int32_t>(ctx, n, 16, 4, 1, 100, kind::plain, unsigned(n) + 11);
            check_apsp<float>(ctx, n, 37, 5, 0.5, 9.5, kind::negative_edges, unsigned(n) + 12);
            ctx.lookahead = true;
        }
        check_faults(ctx, panels);
        if (ctx.stripe_rows) check_streamed_out_of_memory(ctx);
        if (gpu && !ctx.stripe_rows) check_setup_failure(ctx);
        if (gpu && !ctx.stripe_rows)
            for (std::size_t n : {300, 1000}) check_context_stream(ctx, n, 64, unsigned(n) + 16);
        for (std::size_t n : {1, 100, 257}) check_layout(ctx, n, 37, unsigned(n) + 13);
        // Bands of one row, of three, and of all rows at once.
        for (std::size_t n : {1, 5, 100, 257})
            for (std::size_t band : {1, 3, 1000}) {
                check_predecessors<std::int32_t>(ctx, n, 37, band, unsigned(n + band) + 14);
                check_predecessors<double>(ctx, n, 16, band, unsigned(n + band) + 15);
            }
        failures = static_cast<int>(c.allreduce_max(std::int64_t(ctx.failures)));
        cases = ctx.cases;
        if (c.rank() == 0)
            std::printf("%s: %d ranks (grid %d x %d), %s: %d cases, %d failed\n",
                        failures ? "FAILED" : "OK", c.size(), c.grid().rows, c.grid().cols,
                        gpu ? ("gpu, " + panels->name() +
                               (ctx.stripe_rows ? ", streamed in stripes of " +
                                                      std::to_string(ctx.stripe_rows) + " rows"
                                                : std::string()))
                                  .c_str()
                            : "cpu, MPI",
                        cases, failures);
    }
    return failures ? 1 : 0;
}

#pragma once
// The vocabulary of the out-of-core APSP (apsp_out_of_core.hpp): the rates its models use
// (ooc_model), the shape of a run (ooc_plan), the options that pin parts of it, the report, and
// what a run may use: the device budget, the host memory check, the page-locking of the host
// matrix. Blocked Floyd-Warshall (ooc_floyd_warshall.hpp) and R-Kleene (ooc_rkleene.hpp) each
// plan their tiling within the budget; apsp_out_of_core.hpp chooses between the two plans.

#include <kleene/context.hpp>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <string>

namespace kleene {

namespace detail {
inline std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(1ull << 30));
    return buf;
}
/// 512 B, 40.0 KiB, 3.5 MiB, 83.82 GiB.
inline std::string mib(double bytes) {
    char buf[32];
    if (bytes >= double(1ull << 30)) return gib(bytes);
    if (bytes < 1024) std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    else if (bytes < double(1 << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024);
    else std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / double(1ull << 20));
    return buf;
}
}  // namespace detail

/// Rates the out-of-core plan is built on (docs/lab/performance-history.md, "Out-of-core APSP"):
/// measured ones, and three fitted to the n = 16384 runs of seven plans.
struct ooc_model {
    /// Pinned host <-> device, each direction while both run (55.5 GB/s for one alone).
    double link_bytes_per_s = 51e9;
    double gemm_fp32 = 11.5e12;  ///< min_plus GEMM alone, updates/s (n = 8192, issue 5)
    double gemm_int32 = 12.0e12;
    double gemm_fp64 = 2.95e12;
    double gemm_bits = 412e12;              ///< Boolean or-and, bit updates/s
    double device_copy_bytes_per_s = 3e12;  ///< device-to-device (read + write)
    double pipeline_efficiency = 0.9;  ///< fitted: the products' rate between copies and events
    double launch_s = 8e-6;            ///< per product (launch and event waits)
    /// Fitted: time = (compute^p + link^p)^(1/p); p = 4 says a link 85% busy costs 11%.
    double contention = 4;
    /// The out-of-core R-Kleene's products: the in-core R-Kleene's rate at n = 16384 (updates
    /// over kernel time; fp32 and int32 take the GEMM's fast paths on non-negative data), less
    /// a fixed cost a chunk of the streamed operands worth `chunk_overhead` more k steps.
    double rkleene_fp32 = 14.7e12;
    double rkleene_int32 = 14.8e12;
    double rkleene_fp64 = 3.0e12;
    double chunk_overhead = 48;
    /// Cost of each row of a strided copy beside its bytes, fitted to loads of 16 MiB blocks of
    /// a page-locked matrix with rows of 1 to 8 KiB (bench_out_of_core_gpu mode=copy2d).
    double row_overhead_s = 19e-9;
};

// ooc_algorithm (kleene/context.hpp, where the context's tuning names it too): blocked
// Floyd-Warshall moves the whole matrix in and out once a round of b; R-Kleene's traffic falls
// with the side of the output tiles that fit on the device. `automatic`: the lower modelled time.

/// The shape of one out-of-core run (the header comments of ooc_floyd_warshall.hpp and
/// ooc_rkleene.hpp).
struct ooc_plan {
    ooc_algorithm algorithm = ooc_algorithm::floyd_warshall;
    std::size_t n = 0;
    std::size_t block = 0;       ///< b: rows of a block row, depth of a round's products
    std::size_t width = 0;       ///< w: columns of a streamed tile
    std::size_t pass_width = 0;  ///< W: columns of the panel on the device (n: one pass a round)
    int panels = 0;              ///< 2: the next panel loads during this round
    int tiles = 0;               ///< tile buffers (3: load, multiply and store overlap)
    /// R-Kleene (ooc_rkleene.hpp): every product runs in output tiles of tile x tile entries
    /// (`tiles` buffers of them; 2: the next loads while this one is multiplied), its operands
    /// streamed in chunks `depth` deep; blocks up to `base` rows close in core.
    std::size_t tile = 0, depth = 0, base = 0;
    std::size_t device_bytes = 0;
    double seconds = 0;  ///< modelled time
    double link_busy = 0;   ///< modelled fraction of the time the busier link direction works
    std::string str() const {
        char buf[256];
        if (algorithm == ooc_algorithm::rkleene) {
            std::snprintf(buf, sizeof buf,
                          "R-Kleene: output tiles %zu x %zu (%d buffer%s), operand chunks %zu "
                          "deep, blocks up to %zu closed in core, device %s, model %.3g s "
                          "(link %.0f%% busy)",
                          tile, tile, tiles, tiles == 1 ? "" : "s", depth, base,
                          detail::mib(double(device_bytes)).c_str(), seconds, 100 * link_busy);
            return buf;
        }
        std::snprintf(buf, sizeof buf,
                      "block b=%zu, tile width w=%zu, panel width W=%zu (%zu pass%s a round), "
                      "%d panel buffer%s, %d tile buffers, device %s, model %.3g s "
                      "(link %.0f%% busy)",
                      block, width, pass_width,
                      (n + pass_width - 1) / std::max<std::size_t>(pass_width, 1),
                      pass_width >= n ? "" : "es", panels, panels == 1 ? "" : "s", tiles,
                      detail::mib(double(device_bytes)).c_str(), seconds, 100 * link_busy);
        return buf;
    }
};

struct ooc_options {
    /// Device bytes the run may allocate; 0: free device memory less a reserve.
    std::size_t device_bytes = 0;
    /// Pin parts of the plan (0: chosen by the model). Tests and tuning use these; the
    /// context's tune.ooc_block and tune.ooc_width (KLEENE_OOC_BLOCK, KLEENE_OOC_WIDTH through
    /// context_from_environment) set the first two when these are 0.
    std::size_t block = 0;
    std::size_t width = 0;
    std::size_t pass_width = 0;
    int panels = 0;
    int tiles = 0;
    /// The algorithm (the context's tune.ooc_method when automatic). Pinning block, width,
    /// pass_width or panels picks Floyd-Warshall; tile or depth picks R-Kleene (whose `tiles`
    /// is 1 or 2 output buffers). The context's tune.ooc_tile and tune.ooc_depth set those two.
    ooc_algorithm algorithm = ooc_algorithm::automatic;
    std::size_t tile = 0;
    std::size_t depth = 0;
    /// Page-lock the host matrix for the run (cudaHostRegister); without it copies are staged
    /// by the driver and do not overlap.
    bool pin_host = true;
    /// R-Kleene: time every copy, product and closure with CUDA events and sum them by kind in
    /// ooc_report::profile (the context's tune.ooc_profile sets it too; tune.ooc_timeline names
    /// a file for every span).
    bool profile = false;
    ooc_model model = {};
    explain_trace* explain = nullptr;
    /// Tuning, the device cap (tune.max_device_bytes), the stream and the pool; null:
    /// default_context(). The run starts after the work queued on the context's stream before
    /// the call, takes its device buffers from the context's pool, and returns once that stream
    /// has done its work (the host matrix is final then).
    context* ctx = nullptr;
};

/// What a run did (for benchmarks and the explain trace).
struct ooc_report {
    ooc_plan plan;
    bool pinned = false;
    double pin_seconds = 0;  ///< cudaHostRegister
    double run_seconds = 0;  ///< the rounds, from the first copy to the last
    std::size_t rounds = 0;  ///< Floyd-Warshall's rounds; R-Kleene's blocks closed in core
    std::string profile;     ///< ooc_options::profile: busy time by kind of work
};

namespace detail {

/// The device cap: the option when non-zero, else the context's tune.max_device_bytes, else 0
/// (none).
inline std::size_t device_cap(std::size_t option, context* ctx) {
    return option ? option : resolve(ctx).tune.max_device_bytes;
}

/// MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read.
inline std::size_t host_available_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    unsigned long long kb = 0;
    while (in >> key >> kb) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return static_cast<std::size_t>(kb) * 1024;
    }
    return 0;
}

/// Throws kleene::error, before anything is allocated, when `bytes` more host memory than the
/// system has available would be needed (the kernel would rather kill the process later).
/// `bytes` is a double so that callers compute sizes like n * n * 8 without wrapping (n =
/// 1518500250 wraps a 64-bit size_t and would pass any check done in size_t).
inline void require_host_memory(char const* what, double bytes) {
    std::size_t const avail = host_available_bytes();
    if (bytes >= 0x1p64 || (avail && bytes > double(avail)))
        throw error(std::string(what) + " needs " + gib(bytes) + " of host memory; the system has " +
                    (avail ? gib(double(avail)) : std::string("less")) + " available");
}

/// Device memory an operation may use: the cap (option or the context's) and the free
/// memory less a reserve for the CUDA context's growth and small allocations.
struct device_budget {
    std::size_t free = 0;
    std::size_t cap = 0;
    std::size_t bytes = 0;
    std::string str() const {
        return "free device memory " + mib(double(free)) +
               (cap ? ", cap " + mib(double(cap)) : std::string(", no cap")) + ": budget " +
               mib(double(bytes));
    }
};
inline device_budget gpu_budget(std::size_t cap_option, context* ctx) {
    device_budget b;
    // What the context's pool keeps of earlier calls' temporaries goes back to the driver first:
    // the plan's containers cannot use it.
    b.free = cuda::free_memory_for_plan(resolve(ctx));
    b.cap = device_cap(cap_option, ctx);
    std::size_t const reserve = std::size_t{256} << 20;
    std::size_t const usable = b.free > reserve ? b.free - reserve : 0;
    b.bytes = b.cap ? std::min(b.cap, usable) : usable;
    return b;
}

/// "out-of-core: n=.., device budget .. (free ..); <plan>" for the explain trace.
inline std::string ooc_plan_line(std::size_t n, device_budget const& budget, ooc_plan const& p) {
    return "out-of-core: n=" + std::to_string(n) + ", device budget " + mib(double(budget.bytes)) +
           " (free " + mib(double(budget.free)) + "); " + p.str();
}

/// Page-locks the caller's host matrix for a run (ooc_options::pin_host) and says so in the
/// explain trace and the report; a failure leaves it pageable (copies then do not overlap).
inline cuda::host_registration pin_host_matrix(void* host, std::size_t bytes,
                                               ooc_options const& o, ooc_report& rep) {
    if (!o.pin_host) return {};
    cuda::host_registration pin(host, bytes);
    rep.pinned = pin.registered();
    rep.pin_seconds = pin.seconds();
    if (o.explain)
        o.explain->add(pin.held_elsewhere()
                           ? "out-of-core: host matrix page-locked already by its owner (" +
                                 mib(double(bytes)) + ")"
                       : pin.registered()
                           ? "out-of-core: host matrix page-locked (" + mib(double(bytes)) +
                                 ") in " + std::to_string(pin.seconds()).substr(0, 5) + " s"
                           : "out-of-core: " + pin.failure() +
                                 "; copies are staged and do not overlap");
    return pin;
}

/// The device memory an out-of-core run may use: free memory less a reserve, under
/// ooc_options::device_bytes.
inline device_budget ooc_budget(ooc_options const& o) {
    device_budget d = gpu_budget(0, o.ctx);
    if (o.device_bytes) d.bytes = std::min(d.bytes, o.device_bytes);
    return d;
}

}  // namespace detail

}  // namespace kleene

// Distributed APSP on several GPUs, whole call: each rank's host blocks of a random dense fp32
// (or int32) matrix go to its GPU, the distributed blocked Floyd-Warshall runs with NCCL panel
// broadcasts, and the blocks come back to host memory. Run under mpirun, one rank per GPU:
//   mpirun -np 4 bench_distributed_apsp N [--block B] [--type fp32|int32] [--no-lookahead]
//                                  [--normal-messages] [--staged] [--lock-threads T]
//                                  [--late-diagonal] [--late-copy-out]
//                                  [--streamed | --in-core] [--stripe-rows R] [--small-pages]
//   bench_distributed_apsp N --single      # one GPU, the library's in-core R-Kleene (baseline)
// Prints one line on rank 0: n, ranks, grid, block, seconds (slowest rank), updates/s (n^3 / s),
// after the explain trace (every rank's own line of phase times on stderr). --streamed keeps
// each rank's blocks on the host and streams them through its GPU every step (out of core per
// rank), --in-core keeps them on the GPU; neither: streamed only where they do not fit. The
// clock starts with the device context made and NCCL's communicators made and connected (their
// time is printed).
// The matrix: w(i,j) uniform in [1, 100) from a hash of (i, j), w(i,i) = 0 (a complete graph).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/distributed/apsp.hpp>
#include <kleene/algorithms/distributed/mpi.hpp>
#include <kleene/algorithms/distributed/nccl.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <string>
#include <sys/mman.h>

namespace dist = kleene::distributed;

namespace {

/// --small-pages: takes back kleene's request for transparent huge pages (detail::
/// advise_huge_pages, made for host arrays of 4 MiB or more) on the 2 MiB-aligned interior of a
/// matrix not yet touched (madvise MADV_NOHUGEPAGE), for comparison.
template <class T>
void small_pages(kleene::dense_matrix<T>& m) {
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    auto const a = reinterpret_cast<std::uintptr_t>(m.data());
    std::uintptr_t const lo = (a + huge - 1) / huge * huge,
                         hi = (a + m.rows() * m.cols() * sizeof(T)) / huge * huge;
    if (hi > lo && madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_NOHUGEPAGE) != 0)
        std::fprintf(stderr, "--small-pages: madvise failed\n");
}

inline std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

template <class T>
T weight(std::size_t i, std::size_t j, std::size_t n) {
    if (i == j) return T(0);
    double const u = double(mix(i * n + j) >> 11) * 0x1p-53;
    return static_cast<T>(1 + 99 * u);
}

template <class T>
int run(int argc, char** argv, std::size_t n) {
    bool single = false, small = false;
    dist::device_fw_options o;
    std::size_t block = 0;
    for (int i = 2; i < argc; ++i) {
        std::string const a = argv[i];
        if (a == "--single")
            single = true;
        else if (a == "--no-lookahead")
            o.lookahead = false;
        else if (a == "--normal-messages")
            o.urgent_messages = false;
        else if (a == "--staged")
            o.host_transfer = kleene::cuda::host_transfer::staged;
        else if (a == "--page-locked")
            o.host_transfer = kleene::cuda::host_transfer::page_locked;
        else if (a == "--lock-threads" && i + 1 < argc)
            o.lock_threads = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--late-copy-out")
            o.early_copy_out = false;
        else if (a == "--late-diagonal")
            o.early_diagonal = false;
        else if (a == "--streamed")
            o.blocks = dist::device_fw_options::residence::streamed;
        else if (a == "--in-core")
            o.blocks = dist::device_fw_options::residence::device;
        else if (a == "--stripe-rows" && i + 1 < argc)
            o.stripe_rows = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--small-pages")
            small = true;
        else if (a == "--block" && i + 1 < argc)
            block = std::strtoull(argv[++i], nullptr, 10);
    }
    char const* type = std::is_same_v<T, float> ? "fp32" : "int32";
    char const* transfer =
        o.host_transfer == kleene::cuda::host_transfer::staged ? "staged" : "page-locked";
    if (single) {
        // The one-GPU baseline: the host matrix in, R-Kleene in core, the host matrix out.
        kleene::dense_matrix<T> h(n, n);
        if (small) small_pages(h);
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) h(i, j) = weight<T>(i, j, n);
        // The device chosen and its context made before the clock starts, as on every rank.
        dist::use_device(0);
        auto const t0 = std::chrono::steady_clock::now();
        kleene::detail::round_trip_on_device(
            h, [](kleene::dense_view<T, kleene::device> d) { kleene::rkleene(d); },
            o.host_transfer, o.lock_threads);
        double const s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("n=%zu type=%s ranks=1 single-gpu rkleene transfer=%s lock-threads=%zu "
                    "pages=%s: %.3f s, %.3g updates/s\n",
                    n, type, transfer, o.lock_threads, small ? "4k" : "huge", s,
                    double(n) * double(n) * double(n) / s);
        return 0;
    }
    dist::mpi_environment env(argc, argv);
    dist::mpi_control c(dist::choose_grid(env.size()));
    dist::use_device(c.local_rank());
    auto const t_setup = std::chrono::steady_clock::now();
    dist::nccl_panels panels(c);  // communicators made and connected: outside the call's time
    double const setup = c.allreduce_max(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count());
    dist::block_cyclic const d(
        n, dist::detail::distribution_block(n, c.grid(), true, block, sizeof(T), o.blocks, c, nullptr),
        c.grid(), c.rank());
    kleene::dense_matrix<T> local(d.local_rows(), d.local_cols());
    if (small) small_pages(local);
#pragma omp parallel for schedule(static)
    for (std::size_t r = 0; r < d.local_rows(); ++r)
        for (std::size_t q = 0; q < d.local_cols(); ++q)
            local(r, q) = weight<T>(d.global_row(d.prow(), r), d.global_col(d.pcol(), q), n);
    kleene::explain_trace trace;
    dist::fw_stats const st = dist::floyd_warshall_device<T>(local.view(), d, c, panels, o);
    dist::detail::explain_run(trace, d, c, sizeof(T), true, o.lookahead, panels.name(), st);
    double const slowest = c.allreduce_max(st.total);
    // A check that costs nothing: the diagonal stays 0 and no entry grew.
    std::int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
    for (std::size_t r = 0; r < d.local_rows(); ++r)
        for (std::size_t q = 0; q < d.local_cols(); ++q) {
            std::size_t const i = d.global_row(d.prow(), r), j = d.global_col(d.pcol(), q);
            if (local(r, q) > weight<T>(i, j, n) || (i == j && local(r, q) != T(0))) ++bad;
        }
    bad = c.allreduce_max(bad);
    // A checksum of the whole result (each entry's bits hashed with its position, summed modulo
    // 2^62): the same for every ordering and grid of the same blocks (--late-copy-out, 2 or 4
    // ranks: the tiles see the same operations in the same order).
    std::uint64_t sum = 0;  // (wraps modulo 2^64: the same in any order)
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::size_t r = 0; r < d.local_rows(); ++r)
        for (std::size_t q = 0; q < d.local_cols(); ++q) {
            std::size_t const i = d.global_row(d.prow(), r), j = d.global_col(d.pcol(), q);
            std::uint32_t bits;
            std::memcpy(&bits, &local(r, q), sizeof bits);
            sum += mix((std::uint64_t(i) * n + j) ^ (std::uint64_t(bits) << 40)) >> 2;
        }
    auto const checksum =
        std::uint64_t(c.allreduce_sum(std::int64_t(sum & ((1ULL << 62) - 1)))) & ((1ULL << 62) - 1);
    // Every rank's own line (its phase times) on stderr, the rest of the trace from rank 0.
    for (auto const& l : trace.lines)
        if (l.find("rank " + std::to_string(c.rank()) + ":") != std::string::npos)
            std::fprintf(stderr, "  %s\n", l.c_str());
    if (c.rank() == 0) {
        for (auto const& l : trace.lines)
            if (l.find(": rank ") == std::string::npos) std::printf("  %s\n", l.c_str());
        std::printf(
            "n=%zu type=%s ranks=%d grid=%dx%d block=%zu lookahead=%d early-diagonal=%d urgent=%d "
            "transfer=%s lock-threads=%zu early-copy-out=%d streamed=%d stripe-rows=%zu "
            "pages=%s: "
            "%.3f s, %.3g updates/s (NCCL set-up before it %.2f s) checksum %016llx%s\n",
            n, type, c.size(), c.grid().rows, c.grid().cols, d.block(), int(o.lookahead),
            int(o.early_diagonal), int(o.urgent_messages), transfer, o.lock_threads,
            int(o.early_copy_out), int(st.streamed), st.stripe_rows, small ? "4k" : "huge",
            slowest,
            double(n) * double(n) * double(n) / slowest, setup,
            static_cast<unsigned long long>(checksum), bad ? " CHECK FAILED" : "");
    }
    return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: %s N [--single] [--block B] [--type fp32|int32] [--no-lookahead] "
                     "[--normal-messages] [--staged] [--lock-threads T] [--late-diagonal] "
                     "[--late-copy-out] [--streamed | --in-core] [--stripe-rows R] "
                     "[--small-pages]\n",
                     argv[0]);
        return 2;
    }
    std::size_t const n = std::strtoull(argv[1], nullptr, 10);
    bool int32 = false;
    for (int i = 2; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--type") int32 = std::string(argv[i + 1]) == "int32";
    try {
        return int32 ? run<std::int32_t>(argc, argv, n) : run<float>(argc, argv, n);
    } catch (std::exception const& e) {
        std::fprintf(stderr, "bench_distributed_apsp: %s\n", e.what());
        return 1;
    }
}

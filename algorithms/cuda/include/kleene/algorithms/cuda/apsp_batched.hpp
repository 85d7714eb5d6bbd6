#pragma once
// All-pairs shortest paths of a sparse graph on the GPU by batched multi-source Bellman-Ford: the
// sparse alternative to the dense R-Kleene path (apsp.hpp, algorithms/.../apsp.hpp), issue 6.
//
// The sources go in batches of s consecutive vertices. A batch keeps a dense n x s block D on the
// device (row-major; D(v, j) = dist(first + j, v)), 0 on the source rows and +inf elsewhere, and
// repeats D <- min(D, A' (min.+) D) (Jacobi rounds; A' the transpose of A, formed once on the
// device) until a round changes nothing. After round k, D holds the shortest walks of at most k
// edges, so a round n that still changes something means a negative cycle. Each finished batch is
// transposed on the device and copied to rows [first, first + s) of the host result.
//
// Result: the n x n host matrix of min_plus<T> distances, the same as kleene::apsp: 0 on the
// diagonal, infinity<T>() (+inf, or numeric_limits<int32_t>::max(), the saturating sentinel of
// int32 min_plus) where there is no path. Negative edges are fine. Errors: dimension_mismatch for
// a non-square matrix; negative_cycle naming a source whose distance to itself went negative (as
// R-Kleene names a negative diagonal entry), or, when a batch reaches n rounds without that, a
// vertex on the cycle (a host Bellman-Ford with parents from the batch's sources finds it);
// device_error on CUDA failures (out of memory included); no_device without a GPU or in a build
// without CUDA. Instantiated for T in {float, double, int32_t} and Index in {int32_t, int64_t}.
// Synchronous, on the stream of bellman_ford_options::ctx.

#include <cstddef>
#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/options.hpp>
#include <string_view>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// How one Bellman-Ford round is computed.
enum class bellman_ford_step : std::uint8_t {
    /// One fused kernel (a warp per row of A'): recomputes only the rows with an in-neighbour
    /// that changed in the round before, copies the rows that changed themselves, skips the rest,
    /// and flags changes and negative source distances as it writes.
    frontier,
    /// The generic cuda::spmm<min_plus> over every row (accumulating into a copy of D), then a
    /// kernel that compares the result with D. Slower than frontier in every case measured (whole
    /// calls 0.4-21% longer; same bench as bellman_ford_default_batch); kept for comparison.
    spmm,
};

inline std::string_view to_string(bellman_ford_step s) {
    return s == bellman_ford_step::frontier ? "frontier" : "spmm";
}

/// Sources per batch when the caller does not pin it (fewer when free device memory is short).
/// 1024 beat 256 on every random graph measured (bench_apsp_sparse BF_BATCHES, whole calls);
/// larger batches were not tried.
inline constexpr std::size_t bellman_ford_default_batch = 1024;

struct bellman_ford_options {
    /// Sources per batch (columns of D); 0 chooses from free device memory. The batches are
    /// evened out: n = 1000 with batch 256 runs four batches of 250.
    std::size_t batch = 0;
    bellman_ford_step step = bellman_ford_step::frontier;
    /// Receives the batch size and why, and the rounds the batches took.
    explain_trace* explain = nullptr;
    /// Whose stream the batches run on (null: default_context()).
    context* ctx = nullptr;
};

/// Distances between all pairs of vertices of the square graph `a` (row u lists u's out-edges).
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY dense_matrix<T> apsp_bellman_ford(
    csr_matrix<T, Index> const& a, bellman_ford_options const& opt) KLEENE_DEVICE_VALUE;

/// The same for a device graph: A is transposed on the device and never copied to the host, but
/// to name a vertex on a negative cycle that no source's own distance shows (the error's path).
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY dense_matrix<T> apsp_bellman_ford(
    csr_matrix<T, Index, device> const& a, bellman_ford_options const& opt) KLEENE_DEVICE_VALUE;
/// The same with the distances left on the device, in `dist` (n x n): each batch's rows are
/// copied there instead of to the host.
template <class T, index_type Index>
KLEENE_DEVICE_ENTRY void apsp_bellman_ford(csr_matrix<T, Index, device> const& a,
                                           dense_view<T, device> dist,
                                           bellman_ford_options const& opt) KLEENE_DEVICE_BODY;

/// The same with the frontier step: `batch` sources per batch (0: chosen).
template <class T, index_type Index>
dense_matrix<T> apsp_bellman_ford(csr_matrix<T, Index> const& a, std::size_t batch = 0,
                                  explain_trace* explain = nullptr) {
    bellman_ford_options opt;
    opt.batch = batch;
    opt.explain = explain;
    return apsp_bellman_ford<T, Index>(a, opt);
}

/// The instances apsp_batched.cu builds.
#define KLEENE_APSP_BF_INSTANCE(T, Index)                                                     \
    template dense_matrix<T> apsp_bellman_ford<T, Index>(csr_matrix<T, Index> const&,         \
                                                         bellman_ford_options const&);        \
    template dense_matrix<T> apsp_bellman_ford<T, Index>(csr_matrix<T, Index, device> const&, \
                                                         bellman_ford_options const&);        \
    template void apsp_bellman_ford<T, Index>(csr_matrix<T, Index, device> const&,            \
                                              dense_view<T, device>, bellman_ford_options const&);
#define KLEENE_APSP_BF_INSTANCES                                                     \
    KLEENE_APSP_BF_INSTANCE(float, std::int32_t)                                     \
    KLEENE_APSP_BF_INSTANCE(float, std::int64_t)                                     \
    KLEENE_APSP_BF_INSTANCE(double, std::int32_t)                                    \
    KLEENE_APSP_BF_INSTANCE(double, std::int64_t)                                    \
    KLEENE_APSP_BF_INSTANCE(std::int32_t, std::int32_t)                              \
    KLEENE_APSP_BF_INSTANCE(std::int32_t, std::int64_t)

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

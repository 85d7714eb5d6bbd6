// PageRank on the GPU (graph_kernels.hpp), in doubles. Each iteration, from ranks r:
//   contribution c[u] = r[u] / outdeg(u) (0 for a vertex without out-edges)
//   r'[v] = (1 - damping) / n + damping * (sum of c[u] over in-neighbours u of v + s / n)
// where s, the rank held by vertices without out-edges, is 0 under GAP's definition (that rank is
// lost) and their summed rank under redistribute_dangling (LAGraph's, networkx's definition).
// Iterations stop once sum |r' - r| < tolerance, or after max_iterations.
//
// fused: one pull walk over the transpose per iteration (graph_walk.cuh; rows longer than
// walk::long_min add a slice kernel and a finish kernel) whose row finish writes r'[v], the next
// iteration's contribution and the dangling rank, and sums the L1 change per block before one
// atomic. semiring: the same iteration as a plus_times<double> product, kleene's generic device
// SpMV (cuda::spmv) of the transpose as an iso matrix of ones (no value array) with the
// contribution vector, between a kernel that forms the contributions and one that applies the
// damping and sums the change. Everything runs on the context's stream.

#include <kleene/algorithms/cuda/detail/graph_walk.cuh>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kleene::cuda {
namespace {

/// Per iteration i, sums[2 i] is the L1 change of iteration i and sums[2 i + 1] the rank left on
/// vertices without out-edges after it (slot 1: the initial ranks').
struct pr_step {
    double base;  // (1 - damping) / n
    double damping;
    double inv_n;
    bool spread;                // redistribute_dangling
    double const* dangling_in;  // the rank on dangling vertices before this iteration
    double* sums;               // this iteration's {change, dangling}
    // Iterations are queued a few at a time (pagerank_impl): one whose previous iteration's
    // change is below the tolerance does nothing (nor do those after it, whose change stays 0).
    double const* previous_change = nullptr;  // null for the first
    double tolerance = 0;
    __device__ __forceinline__ bool done() const {
        return previous_change && *previous_change < tolerance;
    }
};

__device__ __forceinline__ double new_rank(pr_step const& p, double pulled) {
    double const spread = p.spread ? *p.dangling_in * p.inv_n : 0.0;
    return p.base + p.damping * (pulled + spread);
}

template <class Index>
__global__ void pr_init(Index const* __restrict__ out_ptr, std::int64_t n,
                        double* __restrict__ rank, double* __restrict__ contrib, double* dangling) {
    double const r0 = 1.0 / double(n);
    double mine = 0;
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const deg = out_ptr[v + 1] - out_ptr[v];
        rank[v] = r0;
        if (contrib) contrib[v] = deg > 0 ? r0 / double(deg) : 0.0;
        if (deg == 0) mine += r0;
    }
    double const sum = walk::block_sum(mine);
    if (threadIdx.x == 0 && sum != 0) atomicAdd(dangling, sum);
}

/// The fused iteration as a pull walk over the transpose.
template <class Index>
struct pr_pull : walk::op_base<Index> {
    using acc_type = double;
    // Six blocks of 256 a multiprocessor: 40 registers and no spills (eight: 32 registers, 52
    // bytes of spills, loads of spilled sums on the rows' critical path), launched as one wave of
    // exactly the resident blocks (grid_blocks 0; with two waves 15% of the stall samples
    // were blocks waiting at end_block()'s barrier for their slowest warp while the next wave
    // waited for the slot). H200, 2026-11-30 (session 19, call D), ms, automatic method: two
    // waves of 8 with the old rank loaded in finish() / one wave of 8, the old rank loaded by
    // row_begin() / the same with 6: NE 2.76 / 0.95 / 0.61, NY 0.50 / 0.47 / 0.42, Kronecker 22
    // 10.4 / 8.2 / 8.4, uniform 22 9.5 / 7.7 / 7.3 (ncu, NE: the pull walk 113.6 -> 37.2 us).
    static constexpr int min_blocks = 6;
    static constexpr unsigned grid_blocks = 0;  // one wave
    pr_step p;
    Index const* out_ptr;
    bool same_ptr;  // out_ptr is the walked graph's own row pointer (A symmetric, shared arrays)
    double const* contrib;
    double* contrib_next;
    double* rank;
    double* side;  // long rows' partial sums, zero between iterations
    double change = 0, dangling = 0;
    // The row's old rank and out-degree, loaded by row_begin() while its entries are read (ncu,
    // H200, NE: the old rank's load, issued in finish(), was 14% of the stall samples).
    double old_rank = 0;
    Index deg = 0;

    __device__ double identity() const { return 0.0; }
    __device__ double combine(double a, double b) const { return a + b; }
    // A queued iteration after the converged one does nothing at all.
    __device__ __forceinline__ bool idle() const { return p.done(); }
    __device__ __forceinline__ void row_begin(Index v, Index b, Index e) {
        old_rank = rank[v];
        deg = same_ptr ? Index(e - b) : Index(out_ptr[v + 1] - out_ptr[v]);
    }
    __device__ __forceinline__ void edge(Index, Index, Index u, double& acc) const {
        acc += contrib[u];
    }
    __device__ __forceinline__ void finish(Index v, double pulled) {
        double const r = new_rank(p, pulled);
        change += fabs(r - old_rank);
        rank[v] = r;
        contrib_next[v] = deg > 0 ? r / double(deg) : 0.0;
        if (deg == 0) dangling += r;
    }
    __device__ __forceinline__ void partial(std::int64_t li, Index, double part) {
        atomicAdd(side + li, part);
    }
    __device__ __forceinline__ void finish_long(std::int64_t li, Index v) {
        double const pulled = side[li];
        side[li] = 0;
        old_rank = rank[v];
        deg = Index(out_ptr[v + 1] - out_ptr[v]);
        finish(v, pulled);
    }
    __device__ void end_block() {
        double const c = walk::block_sum(change);
        __syncthreads();  // block_sum's storage is reused
        double const d = walk::block_sum(dangling);
        if (threadIdx.x == 0) {
            if (c != 0) atomicAdd(p.sums, c);
            if (d != 0) atomicAdd(p.sums + 1, d);
        }
    }
};

template <class Index>
__global__ void pr_contributions(Index const* __restrict__ out_ptr, std::int64_t n,
                                 double const* __restrict__ rank, double* __restrict__ x) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const deg = out_ptr[v + 1] - out_ptr[v];
        x[v] = deg > 0 ? rank[v] / double(deg) : 0.0;
    }
}

/// The semiring path's update: r' from the product w = A' c, its change and dangling rank.
template <class Index>
__global__ void pr_apply(Index const* __restrict__ out_ptr, std::int64_t n, pr_step p,
                         double const* __restrict__ w, double* __restrict__ rank) {
    double change = 0, dangling = 0;
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        double const r = new_rank(p, w[v]);
        change += fabs(r - rank[v]);
        rank[v] = r;
        if (out_ptr[v + 1] == out_ptr[v]) dangling += r;
    }
    double const c = walk::block_sum(change);
    __syncthreads();
    double const d = walk::block_sum(dangling);
    if (threadIdx.x == 0) {
        if (c != 0) atomicAdd(p.sums, c);
        if (d != 0) atomicAdd(p.sums + 1, d);
    }
}

unsigned grid_for(std::int64_t n) {
    return detail::blocks_for(std::size_t(n), walk::threads, detail::persistent_blocks(8));
}

}  // namespace

namespace {
/// The ranks go to `out` on the device (n doubles) when it is not null, else to run.rank.
template <class Index>
pagerank_run pagerank_impl(csr_matrix<bool, Index, device> const& a,
                           csr_matrix<bool, Index, device> const& at,
                           pagerank_params const& params, pagerank_kernel kernel, double* out,
                           context& ctx, vector_for_overwrite<double>* keep = nullptr) {
    walk::require_square("pagerank", a);
    walk::require_transpose("pagerank", a, at);
    if (!(params.damping >= 0 && params.damping <= 1))
        throw invalid_argument("pagerank: damping must lie in [0, 1], not " +
                               std::to_string(params.damping));
    if (!(params.tolerance >= 0))
        throw invalid_argument("pagerank: the tolerance must be a non-negative number, not " +
                               std::to_string(params.tolerance));
    if (params.max_iterations < 0)
        throw invalid_argument("pagerank: max_iterations must not be negative, not " +
                               std::to_string(params.max_iterations));
    pagerank_run run;
    if (keep) run.rank = std::move(*keep);  // its storage, for the ranks
    run.rank.clear();
    std::int64_t const n = static_cast<std::int64_t>(a.rows());
    char const* const name = kernel == pagerank_kernel::fused          ? "fused"
                             : kernel == pagerank_kernel::gauss_seidel ? "gauss-seidel"
                                                                       : "semiring";
    if (n == 0) {
        run.notes.push_back("pagerank: empty graph");
        return run;
    }
    int const iters = params.max_iterations;
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    detail::stream_buffer<double> rank{std::size_t(n), st};
    detail::stream_buffer<double> sums{2 * (std::size_t(iters) + 1), st};
    sums.zero();
    auto step = [&](int i) {
        return pr_step{
            (1.0 - params.damping) / double(n), params.damping,          1.0 / double(n),
            params.redistribute_dangling,       sums.data() + 2 * i + 1, sums.data() + 2 * (i + 1)};
    };
    auto const converged = [&](int i) {
        run.change = detail::read_one(sums.data() + 2 * (i + 1), st);
        return run.change < params.tolerance;
    };
    walk::timer t(st);
    t.begin();
    if (kernel != pagerank_kernel::semiring) {
        // Gauss-Seidel: one contribution array, read and written by the same pass. A read
        // returns the last step's value or this pass's (aligned 8-byte accesses are single
        // transactions), either of which the iteration accepts.
        bool const in_place = kernel == pagerank_kernel::gauss_seidel;
        walk::graph<Index> const g = walk::view_of(at);
        walk::long_rows<Index> const lr(g, at.nnz(), st);
        detail::stream_buffer<double> contrib[2] = {
            detail::stream_buffer<double>{std::size_t(n), st},
            detail::stream_buffer<double>{in_place ? 0 : std::size_t(n), st}};
        detail::stream_buffer<double> side{std::size_t(lr.count()), st};
        side.zero();
        pr_init<Index><<<grid_for(n), walk::threads, 0, st>>>(a.row_ptr(), n, rank.data(),
                                                              contrib[0].data(), sums.data() + 1);
        KLEENE_CUDA_CHECK_LAUNCH("pr_init");
        // Iterations queued `batch` at a time and their changes read once per batch: an
        // iteration after the converged one does nothing (pr_step::done), so the ranks are
        // those of the first iteration below the tolerance, as with a read after each.
        constexpr int batch = 4;  // H200, NE: 1 a read 6.6-6.7 ms, 4 6.2, 8 6.1-6.2
        std::vector<double> got(2 * batch);
        for (int i = 0; i < iters && run.iterations == 0;) {
            int const last = std::min(iters, i + batch);
            for (int j = i; j < last; ++j) {
                pr_pull<Index> op{};
                op.p = step(j);
                if (j > 0) op.p.previous_change = sums.data() + 2 * j;
                op.p.tolerance = params.tolerance;
                op.out_ptr = a.row_ptr();
                op.same_ptr = a.row_ptr() == at.row_ptr();
                op.contrib = contrib[in_place ? 0 : j % 2].data();
                op.contrib_next = contrib[in_place ? 0 : 1 - j % 2].data();
                op.rank = rank.data();
                op.side = side.data();
                walk::walk(g, lr.view(), static_cast<Index const*>(nullptr), n, op, st);
            }
            detail::copy_to_host(got.data(), sums.data() + 2 * (i + 1),
                                 2 * std::size_t(last - i), st);
            for (int j = i; j < last; ++j) {
                run.change = got[2 * std::size_t(j - i)];
                if (run.change < params.tolerance || j + 1 == iters) {
                    run.iterations = j + 1;
                    break;
                }
            }
            i = last;
        }
        run.notes.push_back(std::string("pagerank: fused pull over the transpose") +
                            (in_place ? ", contributions updated in place (Gauss-Seidel), " : ", ") +
                            std::to_string(lr.count()) + " rows sliced over warps (> " +
                            std::to_string(walk::long_min) + " entries)");
    } else {
        // The transpose's structure with the iso value 1.0: plus_times<double> over it sums the
        // contributions of the in-neighbours. Its arrays are borrowed from `at` (which outlives
        // it), not copied: a copy would run on the legacy default stream.
        std::shared_ptr<void const> const keep(&at, [](void const*) {});
        csr_matrix<double, Index, device> const ones(
            std::size_t(n), std::size_t(n),
            buffer<Index, device>::borrow(const_cast<Index*>(at.row_ptr()), std::size_t(n) + 1,
                                          keep),
            buffer<Index, device>::borrow(const_cast<Index*>(at.col_idx()), at.nnz(), keep),
            buffer<double, device>{}, 1.0, true);
        dense_vector<double, device> x{std::size_t(n)}, w{std::size_t(n)};
        pr_init<Index><<<grid_for(n), walk::threads, 0, st>>>(a.row_ptr(), n, rank.data(), nullptr,
                                                              sums.data() + 1);
        KLEENE_CUDA_CHECK_LAUNCH("pr_init");
        sparse_options opt;
        opt.backend = sparse_backend::generic;
        opt.ctx = &ctx;
        for (int i = 0; i < iters; ++i) {
            pr_contributions<Index>
                <<<grid_for(n), walk::threads, 0, st>>>(a.row_ptr(), n, rank.data(), x.data());
            KLEENE_CUDA_CHECK_LAUNCH("pr_contributions");
            spmv<plus_times<double>, Index>(w, vector_mask{}, ones, x, opt);
            pr_apply<Index><<<grid_for(n), walk::threads, 0, st>>>(a.row_ptr(), n, step(i),
                                                                   w.data(), rank.data());
            KLEENE_CUDA_CHECK_LAUNCH("pr_apply");
            ++run.iterations;
            if (converged(i)) break;
        }
        run.notes.push_back(
            "pagerank: semiring: w = A' (+.*) c by kleene's generic device spmv (plus_times "
            "<double>, the transpose as an iso matrix of ones)");
    }
    run.seconds = t.end();
    if (out) {
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(out, rank.data(), std::size_t(n) * sizeof(double),
                                          cudaMemcpyDeviceToDevice, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    } else {
        run.rank.resize(std::size_t(n));
        detail::copy_to_host(run.rank.data(), rank.data(), std::size_t(n), ctx);
    }
    run.notes.push_back(std::string("pagerank: ") + name + ", n=" + std::to_string(n) +
                        ", entries=" + std::to_string(a.nnz()) + ", damping " +
                        std::to_string(params.damping) +
                        (params.redistribute_dangling ? ", dangling rank spread over all vertices"
                                                      : ", dangling rank lost (GAP)") +
                        ": " + std::to_string(run.iterations) + " iterations, last L1 change " +
                        std::to_string(run.change) + ", " + walk::ms(run.seconds) + " (gpu)");
    return run;
}

template <class Index>
__global__ void max_row_kernel(Index const* __restrict__ ptr, std::int64_t n,
                               unsigned long long* top) {
    std::int64_t mine = 0;
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x)
        mine = max(mine, std::int64_t(ptr[v + 1] - ptr[v]));
    using reduce = cub::BlockReduce<std::int64_t, walk::threads>;
    __shared__ typename reduce::TempStorage storage;
    struct larger {
        __device__ std::int64_t operator()(std::int64_t x, std::int64_t y) const {
            return x < y ? y : x;
        }
    };
    std::int64_t const block = reduce(storage).Reduce(mine, larger{});
    if (threadIdx.x == 0 && block > 0) atomicMax(top, static_cast<unsigned long long>(block));
}

}  // namespace

template <index_type Index>
std::int64_t max_row_entries(csr_matrix<bool, Index, device> const& a, context& ctx) {
    std::int64_t const n = static_cast<std::int64_t>(a.rows());
    if (n == 0 || a.nnz() == 0) return 0;
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    detail::stream_buffer<unsigned long long> top{1, st};
    top.zero();
    max_row_kernel<Index><<<grid_for(n), walk::threads, 0, st>>>(a.row_ptr(), n, top.data());
    KLEENE_CUDA_CHECK_LAUNCH("max_row_kernel");
    return static_cast<std::int64_t>(detail::read_one(top.data(), st));
}

template <index_type Index>
pagerank_run pagerank(csr_matrix<bool, Index, device> const& a,
                      csr_matrix<bool, Index, device> const& at, pagerank_params const& params,
                      pagerank_kernel kernel, context& ctx) {
    return pagerank_impl(a, at, params, kernel, nullptr, ctx);
}

template <index_type Index>
void pagerank(pagerank_run& run, csr_matrix<bool, Index, device> const& a,
              csr_matrix<bool, Index, device> const& at, pagerank_params const& params,
              pagerank_kernel kernel, context& ctx) {
    auto keep = std::move(run.rank);
    run = pagerank_impl(a, at, params, kernel, nullptr, ctx, &keep);
}

template <index_type Index>
pagerank_run pagerank(csr_matrix<bool, Index, device> const& a,
                      csr_matrix<bool, Index, device> const& at, pagerank_params const& params,
                      pagerank_kernel kernel, dense_vector<double, device>& rank, context& ctx) {
    if (rank.size() != a.rows())
        throw dimension_mismatch("pagerank: the result vector holds " +
                                 std::to_string(rank.size()) + " entries, the graph " +
                                 std::to_string(a.rows()) + " vertices");
    return pagerank_impl(a, at, params, kernel, rank.data(), ctx);
}

#define KLEENE_PAGERANK(Index)                                                                 \
    template pagerank_run pagerank<Index>(csr_matrix<bool, Index, device> const&,              \
                                          csr_matrix<bool, Index, device> const&,              \
                                          pagerank_params const&, pagerank_kernel, context&);  \
    template void pagerank<Index>(pagerank_run&, csr_matrix<bool, Index, device> const&,       \
                                  csr_matrix<bool, Index, device> const&, pagerank_params const&, \
                                  pagerank_kernel, context&);                                  \
    template pagerank_run pagerank<Index>(                                                     \
        csr_matrix<bool, Index, device> const&, csr_matrix<bool, Index, device> const&,        \
        pagerank_params const&, pagerank_kernel, dense_vector<double, device>&, context&); \
    template std::int64_t max_row_entries<Index>(csr_matrix<bool, Index, device> const&, context&);
KLEENE_PAGERANK(std::int32_t)
KLEENE_PAGERANK(std::int64_t)
#undef KLEENE_PAGERANK

}  // namespace kleene::cuda

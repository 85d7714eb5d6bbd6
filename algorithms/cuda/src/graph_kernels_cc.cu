// Connected components on the GPU (graph_kernels.hpp), two methods over one parent array f with
// the invariant f[v] <= v (every update lowers a parent to a smaller vertex of the same
// component), so that a tree's root is its smallest vertex and the final labels, roots after a
// last pointer-jumping pass, name each component by its smallest vertex.
//
// FastSV (Zhang, Azad, Buluc 2020; LAGraph's method): each round every vertex u takes the
// smallest grandparent m among itself and its neighbours and hooks both its parent's parent
// (stochastic hooking, f[f[u]] min= m) and itself (aggressive hooking, f[u] min= m) with atomic
// min; then the grandparents are recomputed. Rounds stop when one changes nothing at all (no
// atomic min lowered a parent and no grandparent moved): then f[f[u]] = f[u] for every u and
// f[u] = f[v] across every edge, so each component is a star around its smallest vertex.
//
// Afforest (Sutton, Ben-Nun, Barak 2018; the GAP reference's method): union-find with
// compare-and-swap hooking of the larger root under the smaller over two neighbour-sampling rounds
// (each vertex links its first, then its second neighbour), a compression, then a sample of 1024
// vertices names the largest component c; the final pass links all edges of the vertices not in
// c's tree. Skipping c's vertices is safe because the graph is symmetric: an edge from c's tree to
// a vertex w outside it is linked from w's side, and trees only merge.
//
// Everything runs on the context's stream.

#include <kleene/algorithms/cuda/detail/graph_walk.cuh>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace kleene::cuda {
namespace {

using walk::load_relaxed;

template <class Index>
__global__ void cc_init(Index* __restrict__ f, Index* __restrict__ gf, std::int64_t n) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        f[v] = static_cast<Index>(v);
        if (gf) gf[v] = static_cast<Index>(v);
    }
}

/// FastSV's hooking step as a walk over all rows: the row's minimum neighbour grandparent.
template <class Index>
struct fastsv_hook : walk::op_base<Index> {
    using acc_type = Index;
    Index* f;
    Index const* gf;
    unsigned* changed;
    bool lowered = false;

    __device__ Index identity() const { return std::numeric_limits<Index>::max(); }
    __device__ Index combine(Index a, Index b) const { return a < b ? a : b; }
    __device__ __forceinline__ void edge(Index, Index, Index c, Index& acc) const {
        Index const g = gf[c];
        acc = g < acc ? g : acc;
    }
    __device__ __forceinline__ void hook(Index u, Index m) {
        Index const own = gf[u];
        m = own < m ? own : m;
        // f[fu] <= fu (the invariant), so m >= fu lowers nothing.
        Index const fu = load_relaxed(f + u);
        if (m < fu) {
            lowered |= walk::atomic_min_index(f + fu, m) > m;
            lowered |= walk::atomic_min_index(f + u, m) > m;
        }
    }
    __device__ __forceinline__ void finish(Index u, Index m) { hook(u, m); }
    __device__ __forceinline__ void partial(std::int64_t, Index u, Index m) { hook(u, m); }
    __device__ void end_block() {
        if (__syncthreads_or(lowered) && threadIdx.x == 0) *changed = 1;
    }
};

template <class Index>
__global__ void fastsv_grandparents(Index const* __restrict__ f, Index* __restrict__ gf,
                                    std::int64_t n, unsigned* changed) {
    bool moved = false;
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        Index const g = f[f[v]];
        if (g != gf[v]) {
            gf[v] = g;
            moved = true;
        }
    }
    if (__syncthreads_or(moved) && threadIdx.x == 0) *changed = 1;
}

/// Afforest's link (GAP's Link): hook the larger root under the smaller one with a CAS, retrying
/// from the new parents when another thread got there first.
template <class Index>
__device__ __forceinline__ void link(Index u, Index v, Index* comp) {
    Index p1 = load_relaxed(comp + u);
    Index p2 = load_relaxed(comp + v);
    while (p1 != p2) {
        Index const high = p1 > p2 ? p1 : p2;
        Index const low = p1 + p2 - high;
        Index const p_high = load_relaxed(comp + high);
        if (p_high == low) break;  // already hooked there
        if (p_high == high && walk::atomic_cas_index(comp + high, high, low) == high) break;
        p1 = load_relaxed(comp + load_relaxed(comp + high));
        p2 = load_relaxed(comp + low);
    }
}

/// Neighbour-sampling round r: every vertex links its r-th neighbour.
template <class Index>
__global__ void afforest_sample_round(walk::graph<Index> g, Index* comp, std::int64_t r) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < g.n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const k = std::int64_t(g.ptr[v]) + r;
        if (k < g.ptr[v + 1]) link(static_cast<Index>(v), g.col[k], comp);
    }
}

/// Pointer jumping to the root; parents only ever point lower, so every chain ends.
template <class Index>
__global__ void compress(Index* comp, std::int64_t n) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        Index p = load_relaxed(comp + v);
        Index pp = load_relaxed(comp + p);
        while (p != pp) {
            p = pp;
            pp = load_relaxed(comp + p);
        }
        comp[v] = p;
    }
}

/// Afforest's final pass: every edge of the vertices outside c's tree.
template <class Index>
struct afforest_link : walk::op_base<Index> {
    using acc_type = walk::no_acc;
    static constexpr bool batch_loads = false;
    Index* comp;
    Index c;

    __device__ walk::no_acc identity() const { return {0}; }
    __device__ walk::no_acc combine(walk::no_acc a, walk::no_acc) const { return a; }
    __device__ bool wants(Index u) const { return load_relaxed(comp + u) != c; }
    __device__ __forceinline__ void edge(Index u, Index, Index v, walk::no_acc&) const {
        link(u, v, comp);
    }
    __device__ __forceinline__ void finish(Index, walk::no_acc) const {}
};

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <class Index>
__global__ void afforest_sample(Index const* __restrict__ comp, std::int64_t n, int samples,
                                Index* __restrict__ out) {
    for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < samples;
         i += static_cast<int>(gridDim.x * blockDim.x))
        out[i] = comp[splitmix64(std::uint64_t(i)) % std::uint64_t(n)];
}

template <class Index>
__global__ void count_roots(Index const* __restrict__ comp, std::int64_t n,
                            unsigned long long* count) {
    unsigned long long mine = 0;
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x)
        mine += comp[v] == static_cast<Index>(v) ? 1u : 0u;
    unsigned long long const sum = walk::block_sum(mine);
    if (threadIdx.x == 0 && sum) atomicAdd(count, sum);
}

unsigned grid_for(std::int64_t n) {
    return detail::blocks_for(std::size_t(n), walk::threads, detail::persistent_blocks(8));
}

template <class Index>
int run_fastsv(walk::graph<Index> g, walk::long_view<Index> lv, Index* f, cc_run& run,
               ::kleene::cuda::detail::device_stream st) {
    std::int64_t const n = g.n;
    detail::stream_buffer<Index> gf{std::size_t(n), st};
    detail::stream_buffer<unsigned> changed(1, st);
    cc_init<Index><<<grid_for(n), walk::threads, 0, st>>>(f, gf.data(), n);
    KLEENE_CUDA_CHECK_LAUNCH("cc_init");
    int rounds = 0;
    while (true) {
        changed.zero();
        walk::walk(g, lv, static_cast<Index const*>(nullptr), n,
                   fastsv_hook<Index>{{}, f, gf.data(), changed.data()}, st);
        fastsv_grandparents<Index>
            <<<grid_for(n), walk::threads, 0, st>>>(f, gf.data(), n, changed.data());
        KLEENE_CUDA_CHECK_LAUNCH("fastsv_grandparents");
        ++rounds;
        if (detail::read_one(changed.data(), st) == 0) break;
    }
    run.notes.push_back("cc: fastsv: " + std::to_string(rounds) +
                        " rounds of hooking and shortcutting (the last one changed nothing)");
    return rounds;
}

template <class Index>
int run_afforest(walk::graph<Index> g, walk::long_view<Index> lv, Index* comp, cc_run& run,
                 ::kleene::cuda::detail::device_stream st) {
    std::int64_t const n = g.n;
    constexpr int neighbour_rounds = 2;
    constexpr int samples = 1024;
    cc_init<Index><<<grid_for(n), walk::threads, 0, st>>>(comp, static_cast<Index*>(nullptr), n);
    KLEENE_CUDA_CHECK_LAUNCH("cc_init");
    for (int r = 0; r < neighbour_rounds; ++r) {
        afforest_sample_round<Index><<<grid_for(n), walk::threads, 0, st>>>(g, comp, r);
        KLEENE_CUDA_CHECK_LAUNCH("afforest_sample_round");
        compress<Index><<<grid_for(n), walk::threads, 0, st>>>(comp, n);
        KLEENE_CUDA_CHECK_LAUNCH("compress");
    }
    detail::stream_buffer<Index> picked(samples, st);
    afforest_sample<Index><<<samples / 256, 256, 0, st>>>(comp, n, samples, picked.data());
    KLEENE_CUDA_CHECK_LAUNCH("afforest_sample");
    std::vector<Index> host(samples);
    detail::copy_to_host(host.data(), picked.data(), samples, st);
    std::unordered_map<Index, int> seen;
    Index c = host[0];
    int best = 0;
    for (Index x : host)
        if (int const k = ++seen[x]; k > best || (k == best && x < c)) best = k, c = x;
    walk::walk(g, lv, static_cast<Index const*>(nullptr), n, afforest_link<Index>{{}, comp, c},
               st);
    run.notes.push_back("cc: afforest: " + std::to_string(neighbour_rounds) +
                        " neighbour-sampling rounds; component " + std::to_string(c) + " held " +
                        std::to_string(best) + " of " + std::to_string(samples) +
                        " sampled vertices and was skipped in the final pass");
    return neighbour_rounds + 1;
}

/// The labels in int64, for the result.
template <class Index>
__global__ void widen(Index const* __restrict__ in, std::int64_t n,
                      std::int64_t* __restrict__ out) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        out[i] = static_cast<std::int64_t>(in[i]);
}

/// The labels go to `out` on the device (n int64) when it is not null, else to run.component.
template <class Index>
cc_run cc_impl(csr_matrix<bool, Index, device> const& a, cc_kernel kernel, std::int64_t* out,
               context& ctx, vector_for_overwrite<std::int64_t>* keep = nullptr) {
    walk::require_square("connected_components", a);
    cc_run run;
    if (keep) run.component = std::move(*keep);  // its storage, for the labels
    run.component.clear();
    std::int64_t const n = static_cast<std::int64_t>(a.rows());
    if (n == 0) {
        run.notes.push_back("cc: empty graph");
        return run;
    }
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    walk::graph<Index> const g = walk::view_of(a);
    detail::stream_buffer<Index> comp{std::size_t(n), st};
    walk::timer t(st);
    t.begin();
    walk::long_rows<Index> const lr(g, a.nnz(), st);
    run.iterations = kernel == cc_kernel::fastsv
                         ? run_fastsv(g, lr.view(), comp.data(), run, st)
                         : run_afforest(g, lr.view(), comp.data(), run, st);
    compress<Index><<<grid_for(n), walk::threads, 0, st>>>(comp.data(), n);
    KLEENE_CUDA_CHECK_LAUNCH("compress");
    detail::stream_buffer<unsigned long long> roots(1, st);
    roots.zero();
    count_roots<Index><<<grid_for(n), walk::threads, 0, st>>>(comp.data(), n, roots.data());
    KLEENE_CUDA_CHECK_LAUNCH("count_roots");
    run.seconds = t.end();
    run.count = static_cast<std::size_t>(detail::read_one(roots.data(), st));
    // Widened to int64 on the device: into the caller's vector, or for one copy into the result.
    detail::stream_buffer<std::int64_t> comp64{out ? 0 : std::size_t(n), st};
    std::int64_t* const wide = out ? out : comp64.data();
    widen<Index><<<grid_for(n), walk::threads, 0, st>>>(comp.data(), n, wide);
    KLEENE_CUDA_CHECK_LAUNCH("widen");
    if (out) {
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    } else {
        run.component.resize(static_cast<std::size_t>(n));
        detail::copy_to_host(run.component.data(), comp64.data(), std::size_t(n), ctx);
    }
    run.notes.push_back("cc: n=" + std::to_string(n) + ", entries=" + std::to_string(a.nnz()) +
                        ", rows sliced over warps (> " + std::to_string(walk::long_min) +
                        " entries): " + std::to_string(lr.count()) + "; " +
                        std::to_string(run.count) + " components in " + walk::ms(run.seconds) +
                        " (gpu)");
    return run;
}

}  // namespace

template <index_type Index>
cc_run connected_components(csr_matrix<bool, Index, device> const& a, cc_kernel kernel,
                            context& ctx) {
    return cc_impl(a, kernel, nullptr, ctx);
}

template <index_type Index>
void connected_components(cc_run& run, csr_matrix<bool, Index, device> const& a,
                          cc_kernel kernel, context& ctx) {
    auto keep = std::move(run.component);
    run = cc_impl(a, kernel, nullptr, ctx, &keep);
}

template <index_type Index>
cc_run connected_components(csr_matrix<bool, Index, device> const& a,
                            dense_vector<std::int64_t, device>& component, cc_kernel kernel,
                            context& ctx) {
    if (component.size() != a.rows())
        throw dimension_mismatch("connected_components: the result vector holds " +
                                 std::to_string(component.size()) + " entries, the graph " +
                                 std::to_string(a.rows()) + " vertices");
    return cc_impl(a, kernel, component.data(), ctx);
}

#define KLEENE_CC(Index)                                                                       \
    template cc_run connected_components<Index>(csr_matrix<bool, Index, device> const&,        \
                                                cc_kernel, context&);                          \
    template void connected_components<Index>(cc_run&, csr_matrix<bool, Index, device> const&,  \
                                              cc_kernel, context&);                            \
    template cc_run connected_components<Index>(csr_matrix<bool, Index, device> const&,        \
                                                dense_vector<std::int64_t, device>&, cc_kernel, \
                                                context&);
KLEENE_CC(std::int32_t)
KLEENE_CC(std::int64_t)
#undef KLEENE_CC

}  // namespace kleene::cuda

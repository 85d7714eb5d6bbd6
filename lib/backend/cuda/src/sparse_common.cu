// The parts of the sparse products that do not depend on the semiring: device scratch, argument
// checks, the output density estimate, the masked dot products' cost model, and the SpGEMM count
// pass (products per row, tiers, hash-table counts, C's row pointers).

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/sparse/spgemm.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/detail/device_state.hpp>
#include <kleene/detail/masked_dot_model.hpp>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <limits>
#include <string>

namespace kleene::cuda {
namespace sparse_detail {

void* scratch_bytes(context& ctx, int slot, std::size_t bytes) {
    return detail::grow_scratch(ctx.state().slots[slot], bytes, detail::stream_of(ctx));
}

void* cub_scratch(context& ctx, std::size_t bytes) {
    return detail::grow_scratch(ctx.state().cub, bytes, detail::stream_of(ctx));
}

void no_cusparse(char const* op, std::string const& why) {
    throw invalid_argument(std::string(op) +
                           ": backend cusparse was asked for, but cuSPARSE does not compute " +
                           why + " (it has plus_times over float and double on valued matrices)");
}

void check_vector(char const* op, char const* what, std::size_t got, std::size_t want) {
    if (got != want)
        throw dimension_mismatch(std::string(op) + ": " + what + " has " + std::to_string(got) +
                                 " entries, expected " + std::to_string(want));
}

// ---- SpGEMM count pass ------------------------------------------------------------------------

/// prods[i] = number of products of row i of A times B (a warp per row).
template <class Index>
__global__ void spgemm_products(Index const* __restrict__ a_ptr, Index const* __restrict__ a_col,
                                std::int64_t rows, Index const* __restrict__ b_ptr,
                                std::int64_t* __restrict__ prods) {
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * blockDim.x / 32;
    for (std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; row < rows;
         row += warps) {
        std::int64_t f = 0;
        for (Index k = a_ptr[row] + lane; k < a_ptr[row + 1]; k += 32) {
            Index const c = a_col[k];
            f += b_ptr[c + 1] - b_ptr[c];
        }
        for (int d = 16; d > 0; d /= 2) f += detail::shfl_down(0xffffffffu, f, d);
        if (lane == 0) prods[row] = f;
    }
}

/// Sorts rows into the tiers (rows without products get no entries and no tier).
template <class Index>
__global__ void spgemm_bin(std::int64_t const* __restrict__ prods, std::int64_t rows,
                           Index* __restrict__ lists, unsigned long long* __restrict__ counts,
                           std::int64_t* __restrict__ heavy_prods) {
    for (std::int64_t row = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; row < rows;
         row += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const f = prods[row];
        if (f == 0) continue;
        int const t = f <= spgemm_tier<0>::max_products   ? 0
                      : f <= spgemm_tier<1>::max_products ? 1
                      : f <= spgemm_tier<2>::max_products ? 2
                                                          : 3;
        // One branch per tier, so that each aggregated atomic serves one counter.
        if (t == 0) {
            lists[detail::aggregated_slot(&counts[0])] = Index(row);
        } else if (t == 1) {
            lists[rows + std::int64_t(detail::aggregated_slot(&counts[1]))] = Index(row);
        } else if (t == 2) {
            lists[2 * rows + std::int64_t(detail::aggregated_slot(&counts[2]))] = Index(row);
        } else {
            auto const k = static_cast<std::int64_t>(detail::aggregated_slot(&counts[3]));
            lists[3 * rows + k] = Index(row);
            heavy_prods[k] = f;
        }
    }
}

// The count pass runs the numeric pass's traversal with keys only; the semiring is a placeholder.
using count_semiring = plus_pair<std::int32_t>;

template <class Index, int Slots, int RowThreads, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    spgemm_shared_count(csr_ref<Index> a, csr_ref<Index> b, Index const* rows, std::int64_t count,
                        std::int64_t* row_nnz) {
    constexpr int per_block = BlockThreads / RowThreads;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int found[per_block];
    int const sub = static_cast<int>(threadIdx.x) / RowThreads;
    int const t = static_cast<int>(threadIdx.x) % RowThreads;
    Index* keys = reinterpret_cast<Index*>(smem) + sub * Slots;
    std::int64_t const item = std::int64_t(blockIdx.x) * per_block + sub;
    for (int s = t; s < Slots; s += RowThreads) keys[s] = Index(-1);
    if (t == 0) found[sub] = 0;
    __syncthreads();
    if (item < count)
        accumulate_row<count_semiring, Index, false>(a, nullptr, 0, b, nullptr, 0, rows[item], t,
                                                     RowThreads, keys, nullptr, Slots - 1,
                                                     &found[sub]);
    __syncthreads();
    if (item < count && t == 0) row_nnz[rows[item]] = found[sub];
}

template <class Index>
__global__ void __launch_bounds__(spgemm_global_threads)
    spgemm_global_count(csr_ref<Index> a, csr_ref<Index> b, Index const* rows,
                        std::int64_t const* table_off, Index* keys_all, std::int64_t* row_nnz) {
    __shared__ int found;
    std::int64_t const off = table_off[blockIdx.x] - table_off[0];
    auto const slots =
        static_cast<std::uint64_t>(table_off[blockIdx.x + 1] - table_off[blockIdx.x]);
    Index* keys = keys_all + off;
    int const t = static_cast<int>(threadIdx.x);
    for (std::uint64_t s = t; s < slots; s += spgemm_global_threads) keys[s] = Index(-1);
    if (t == 0) found = 0;
    __syncthreads();
    accumulate_row<count_semiring, Index, false>(a, nullptr, 0, b, nullptr, 0, rows[blockIdx.x], t,
                                                 spgemm_global_threads, keys, nullptr, slots - 1,
                                                 &found);
    __syncthreads();
    if (t == 0) row_nnz[rows[blockIdx.x]] = found;
}

template <class Index, int Tier>
void launch_shared_count(csr_ref<Index> a, csr_ref<Index> b, spgemm_plan<Index> const& plan,
                         std::int64_t* row_nnz, cudaStream_t st) {
    using tier = spgemm_tier<Tier>;
    constexpr int per_block = tier::block_threads / tier::row_threads;
    std::int64_t const count = plan.count[Tier];
    if (count == 0) return;
    auto kernel = spgemm_shared_count<Index, tier::slots, tier::row_threads, tier::block_threads>;
    std::size_t const smem = std::size_t(tier::slots) * per_block * sizeof(Index);
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
    auto const blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
    kernel<<<blocks, tier::block_threads, smem, st>>>(a, b, plan.tier(Tier), count, row_nnz);
    KLEENE_CUDA_CHECK_LAUNCH("spgemm_shared_count");
}

template <class Index>
__global__ void narrow_offsets(std::int64_t const* __restrict__ in, std::int64_t n,
                               Index* __restrict__ out) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        out[i] = static_cast<Index>(in[i]);
}

/// Global hash tables a batch may hold: an eighth of the free memory, at most 1 GiB.
std::size_t batch_bytes() {
    std::size_t free = 0, total = 0;
    KLEENE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return std::clamp<std::size_t>(free / 8, std::size_t(16) << 20, std::size_t(1) << 30);
}

template <class Index>
spgemm_plan<Index> spgemm_count(context& ctx, Index const* a_ptr, Index const* a_col,
                                std::int64_t rows, Index const* b_ptr, Index const* b_col,
                                std::int64_t cols) {
    detail::device_stream const st = stream_of(ctx);
    spgemm_plan<Index> plan;
    plan.rows = rows;
    plan.row_ptr = buffer<Index, device>(std::size_t(rows) + 1);
    if (rows == 0) {
        KLEENE_CUDA_CHECK(cudaMemsetAsync(plan.row_ptr.data(), 0, sizeof(Index), st));
        return plan;
    }
    csr_ref<Index> const a{a_ptr, a_col}, b{b_ptr, b_col};
    auto* prods = scratch<std::int64_t>(ctx, 0, std::size_t(rows));
    auto* counts = scratch<unsigned long long>(ctx, 1, spgemm_tiers + 1);
    auto* heavy_prods = scratch<std::int64_t>(ctx, 2, std::size_t(rows));
    auto* row_nnz = scratch<std::int64_t>(ctx, 3, std::size_t(rows));
    auto* offs = scratch<std::int64_t>(ctx, 4, std::size_t(rows) + 1);
    plan.tier_rows = detail::stream_buffer<Index>(std::size_t(rows) * (spgemm_tiers + 1), st);
    KLEENE_CUDA_CHECK(
        cudaMemsetAsync(counts, 0, (spgemm_tiers + 1) * sizeof(unsigned long long), st));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(row_nnz, 0, std::size_t(rows) * sizeof(std::int64_t), st));
    spgemm_products<Index><<<detail::blocks_for(std::size_t(rows) * 32, 256,
                                                 detail::persistent_blocks(16)),
                             256, 0, st>>>(a_ptr, a_col, rows, b_ptr, prods);
    KLEENE_CUDA_CHECK_LAUNCH("spgemm_products");
    spgemm_bin<Index><<<detail::blocks_for(std::size_t(rows), 256), 256, 0, st>>>(
        prods, rows, plan.tier_rows.data(), counts, heavy_prods);
    KLEENE_CUDA_CHECK_LAUNCH("spgemm_bin");
    unsigned long long host_counts[spgemm_tiers + 1];
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(host_counts, counts, sizeof host_counts,
                                      cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    for (int t = 0; t <= spgemm_tiers; ++t)
        plan.count[t] = static_cast<std::int64_t>(host_counts[t]);

    launch_shared_count<Index, 0>(a, b, plan, row_nnz, st);
    launch_shared_count<Index, 1>(a, b, plan, row_nnz, st);
    launch_shared_count<Index, 2>(a, b, plan, row_nnz, st);

    std::vector<std::int64_t> off;  // kept to the end: st copies from it (pageable memory)
    if (std::int64_t const heavy = plan.count[spgemm_tiers]; heavy > 0) {
        // Tables of 2 min(f, cols) slots (a power of two), batched so that a batch's tables stay
        // within the budget at 16 bytes a slot (the numeric pass's key and value).
        std::vector<std::int64_t> f(static_cast<std::size_t>(heavy));
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(f.data(), heavy_prods, f.size() * sizeof(std::int64_t),
                                          cudaMemcpyDeviceToHost, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        off.assign(f.size() + 1, 0);
        std::size_t const budget = batch_bytes() / 16;
        plan.batch_start.push_back(0);
        std::size_t in_batch = 0;
        for (std::size_t k = 0; k < f.size(); ++k) {
            std::int64_t const want = 2 * std::min(f[k], cols);
            std::int64_t size = 16;
            while (size < want) size *= 2;
            if (in_batch > 0 && in_batch + std::size_t(size) > budget) {
                plan.batch_start.push_back(k);
                in_batch = 0;
            }
            in_batch += std::size_t(size);
            plan.max_batch_slots = std::max(plan.max_batch_slots, in_batch);
            off[k + 1] = off[k] + size;
        }
        plan.batch_start.push_back(f.size());
        plan.heavy_rows = detail::stream_buffer<Index>(f.size(), st);
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(plan.heavy_rows.data(), plan.tier(spgemm_tiers),
                                          f.size() * sizeof(Index), cudaMemcpyDeviceToDevice, st));
        plan.heavy_off = detail::stream_buffer<std::int64_t>(off.size(), st);
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(plan.heavy_off.data(), off.data(),
                                          off.size() * sizeof(std::int64_t),
                                          cudaMemcpyHostToDevice, st));
        auto* keys = scratch<Index>(ctx, 5, plan.max_batch_slots);
        for (std::size_t bt = 0; bt + 1 < plan.batch_start.size(); ++bt) {
            std::size_t const i = plan.batch_start[bt], j = plan.batch_start[bt + 1];
            spgemm_global_count<Index>
                <<<static_cast<unsigned>(j - i), spgemm_global_threads, 0, st>>>(
                    a, b, plan.heavy_rows.data() + i, plan.heavy_off.data() + i, keys, row_nnz);
            KLEENE_CUDA_CHECK_LAUNCH("spgemm_global_count");
        }
    }

    exclusive_offsets(ctx, row_nnz, offs, rows);
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(&plan.nnz, offs + rows, sizeof(std::int64_t),
                                      cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    if (plan.nnz > static_cast<std::int64_t>(std::numeric_limits<Index>::max()))
        throw invalid_argument("spgemm: the product has " + std::to_string(plan.nnz) +
                               " entries, more than its index type holds (use 64-bit indices)");
    narrow_offsets<Index><<<detail::blocks_for(std::size_t(rows) + 1, 256), 256, 0, st>>>(
        offs, rows + 1, plan.row_ptr.data());
    KLEENE_CUDA_CHECK_LAUNCH("narrow_offsets");
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return plan;
}

template spgemm_plan<std::int32_t> spgemm_count<std::int32_t>(context&, std::int32_t const*,
                                                              std::int32_t const*, std::int64_t,
                                                              std::int32_t const*,
                                                              std::int32_t const*, std::int64_t);
template spgemm_plan<std::int64_t> spgemm_count<std::int64_t>(context&, std::int64_t const*,
                                                              std::int64_t const*, std::int64_t,
                                                              std::int64_t const*,
                                                              std::int64_t const*, std::int64_t);

// ---- output density estimate -----------------------------------------------------------------

/// A warp per row of A sums the lengths of the rows of B its entries name (f_i); each block adds
/// its rows' 1 - exp(-f_i / cols) into one double.
template <class Index>
__global__ void __launch_bounds__(256)
    product_density_kernel(Index const* __restrict__ a_ptr, Index const* __restrict__ a_col,
                           std::int64_t rows, Index const* __restrict__ b_ptr, double cols,
                           double* sum) {
    __shared__ double block_sum;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
    double mine = 0;
    for (std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
         row < rows; row += warps) {
        std::int64_t f = 0;
        for (Index k = a_ptr[row] + lane; k < a_ptr[row + 1]; k += 32) {
            Index const j = a_col[k];
            f += b_ptr[j + 1] - b_ptr[j];
        }
        for (int d = 16; d > 0; d /= 2) f += __shfl_down_sync(0xffffffffu, f, d);
        if (lane == 0) mine += 1.0 - exp(-double(f) / cols);
    }
    if (lane == 0 && mine != 0) atomicAdd(&block_sum, mine);
    __syncthreads();
    if (threadIdx.x == 0 && block_sum != 0) atomicAdd(sum, block_sum);
}

/// *sum += the block's threads' `mine`, one global atomic a block (call from every thread).
__device__ __forceinline__ void add_block_sum(double mine, double* sum) {
    __shared__ double block_sum;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    if (mine != 0) atomicAdd(&block_sum, mine);
    __syncthreads();
    if (threadIdx.x == 0 && block_sum != 0) atomicAdd(sum, block_sum);
}

/// The dot products' model steps over the mask's entries (dealt to blocks in equal tiles, as
/// masked_dot deals them), summed into *sum (kleene::detail::entry_steps: a hashed entry a step
/// an entry of Bt(j,:), the others dot_steps).
template <class Index>
__global__ void __launch_bounds__(256)
    masked_dot_steps_kernel(Index const* __restrict__ a_ptr, Index const* __restrict__ b_ptr,
                            Index const* m_ptr, Index const* __restrict__ m_col, std::int64_t rows,
                            double* sum) {
    double mine = 0;
    detail::for_each_frontier_edge<256, 4>(m_ptr, rows, [&](std::int64_t i, Index r) {
        Index const j = m_col[m_ptr[i] + r];
        mine += kleene::detail::entry_steps(a_ptr[i + 1] - a_ptr[i], b_ptr[j + 1] - b_ptr[j],
                                            m_ptr[i + 1] - m_ptr[i]);
    });
    add_block_sum(mine, sum);
}

/// count[c] += 1 for each of the n column indices.
template <class Index>
__global__ void column_counts_kernel(Index const* __restrict__ col, std::int64_t n,
                                     unsigned long long* __restrict__ count) {
    for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < n;
         q += std::int64_t(gridDim.x) * blockDim.x)
        atomicAdd(count + col[q], 1ull);
}

/// *sum += the sum over k of ca[k] cb[k].
__global__ void __launch_bounds__(256)
    count_products_kernel(unsigned long long const* __restrict__ ca,
                          unsigned long long const* __restrict__ cb, std::int64_t k, double* sum) {
    double mine = 0;
    for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < k;
         q += std::int64_t(gridDim.x) * blockDim.x)
        mine += double(ca[q]) * double(cb[q]);
    add_block_sum(mine, sum);
}

/// *sum += the sum over rows i of |M(i,:)| |A(i,:)|.
template <class Index>
__global__ void __launch_bounds__(256)
    masked_spmm_work_kernel(Index const* __restrict__ a_ptr, Index const* __restrict__ m_ptr,
                            std::int64_t rows, double* sum) {
    double mine = 0;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows;
         i += std::int64_t(gridDim.x) * blockDim.x)
        mine += double(m_ptr[i + 1] - m_ptr[i]) * double(a_ptr[i + 1] - a_ptr[i]);
    add_block_sum(mine, sum);
}

}  // namespace sparse_detail

template <index_type Index>
masked_dot_work masked_dot_costs(Index const* a_ptr, Index const* a_col, std::size_t a_nnz,
                                 Index const* bt_ptr, Index const* bt_col, std::size_t bt_nnz,
                                 std::size_t k, csr_mask<Index> const& m, context* ctx) {
    if (!m.active())
        throw invalid_argument("masked_dot_costs: the dot products need a mask");
    cudaStream_t const st = detail::stream_of(resolve(ctx));
    detail::stream_buffer<double> sums(2, st);  // dot steps, multiply-adds
    sums.zero();
    auto const rows = static_cast<std::int64_t>(m.rows());
    if (m.nnz() > 0) {
        unsigned const tiles = detail::blocks_for(m.nnz(), 256 * 4, detail::persistent_blocks(8));
        sparse_detail::masked_dot_steps_kernel<Index><<<tiles, 256, 0, st>>>(
            a_ptr, bt_ptr, m.row_ptr(), m.col_idx(), rows, sums.data());
        KLEENE_CUDA_CHECK_LAUNCH("masked_dot_steps_kernel");
    }
    if (k > 0 && a_nnz > 0 && bt_nnz > 0) {
        detail::stream_buffer<unsigned long long> counts(2 * k, st);  // A's, then Bt's columns
        counts.zero();
        unsigned const cap = detail::persistent_blocks(8);
        sparse_detail::column_counts_kernel<Index><<<detail::blocks_for(a_nnz, 256, cap), 256, 0,
                                                     st>>>(a_col, std::int64_t(a_nnz),
                                                           counts.data());
        KLEENE_CUDA_CHECK_LAUNCH("column_counts_kernel");
        sparse_detail::column_counts_kernel<Index><<<detail::blocks_for(bt_nnz, 256, cap), 256, 0,
                                                     st>>>(bt_col, std::int64_t(bt_nnz),
                                                           counts.data() + k);
        KLEENE_CUDA_CHECK_LAUNCH("column_counts_kernel");
        sparse_detail::count_products_kernel<<<detail::blocks_for(k, 256, cap), 256, 0, st>>>(
            counts.data(), counts.data() + k, std::int64_t(k), sums.data() + 1);
        KLEENE_CUDA_CHECK_LAUNCH("count_products_kernel");
    }
    double host[2] = {0, 0};
    detail::copy_to_host(host, sums.data(), 2, st);
    return {host[0], host[1]};
}
#define KLEENE_MASKED_DOT_COSTS(I)                                                                 \
    template masked_dot_work masked_dot_costs<I>(I const*, I const*, std::size_t, I const*,       \
                                                 I const*, std::size_t, std::size_t,              \
                                                 csr_mask<I> const&, context*);
KLEENE_MASKED_DOT_COSTS(std::int32_t)
KLEENE_MASKED_DOT_COSTS(std::int64_t)
#undef KLEENE_MASKED_DOT_COSTS

template <index_type Index>
double masked_spmm_work(Index const* a_ptr, csr_mask<Index> const& m, context* ctx) {
    if (!m.active()) throw invalid_argument("masked_spmm_work: the masked products need a mask");
    cudaStream_t const st = detail::stream_of(resolve(ctx));
    detail::stream_buffer<double> sum(1, st);
    sum.zero();
    auto const rows = static_cast<std::int64_t>(m.rows());
    if (rows > 0 && m.nnz() > 0) {
        sparse_detail::masked_spmm_work_kernel<Index>
            <<<detail::blocks_for(std::size_t(rows), 256, detail::persistent_blocks(8)), 256, 0,
               st>>>(a_ptr, m.row_ptr(), rows, sum.data());
        KLEENE_CUDA_CHECK_LAUNCH("masked_spmm_work_kernel");
    }
    double host = 0;
    detail::copy_to_host(&host, sum.data(), 1, st);
    return host;
}
template double masked_spmm_work<std::int32_t>(std::int32_t const*, csr_mask<std::int32_t> const&,
                                               context*);
template double masked_spmm_work<std::int64_t>(std::int64_t const*, csr_mask<std::int64_t> const&,
                                               context*);

template <index_type Index>
double product_density(Index const* a_ptr, Index const* a_col, std::size_t rows,
                       Index const* b_ptr, std::size_t cols, context* ctx) {
    if (rows == 0 || cols == 0) return 0.0;
    auto const st = detail::stream_of(resolve(ctx));
    detail::stream_buffer<double> sum(1, st);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(sum.data(), 0, sizeof(double), st));
    unsigned const blocks = detail::blocks_for(rows * 32, 256, detail::persistent_blocks(8));
    sparse_detail::product_density_kernel<Index><<<blocks, 256, 0, st>>>(
        a_ptr, a_col, static_cast<std::int64_t>(rows), b_ptr, double(cols), sum.data());
    KLEENE_CUDA_CHECK_LAUNCH("product_density_kernel");
    double total = 0;
    KLEENE_CUDA_CHECK(
        cudaMemcpyAsync(&total, sum.data(), sizeof(double), cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return total / double(rows);
}
template double product_density<std::int32_t>(std::int32_t const*, std::int32_t const*,
                                              std::size_t, std::int32_t const*, std::size_t,
                                              context*);
template double product_density<std::int64_t>(std::int64_t const*, std::int64_t const*,
                                              std::size_t, std::int64_t const*, std::size_t,
                                              context*);


}  // namespace kleene::cuda

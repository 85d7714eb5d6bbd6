#pragma once
// SpGEMM, C = A B for CSR A and B: into CSR (tiered hash accumulators, after the count pass of
// sparse_common.cu) or into a dense C.

#include <kleene/cuda/sparse/common.cuh>

#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace kleene::cuda {
namespace sparse_detail {

// ---- SpGEMM (CSR x CSR) -----------------------------------------------------------------------
//
// Rows of C fall into tiers by their number of products f (sum over A(i,k) of |B(k,:)|): f <= 64,
// <= 512, <= 4096 accumulate in a shared-memory hash table of 2f slots or more (a warp, four warps,
// sixteen warps per row); longer rows use a table in global memory sized 2 min(f, cols), processed
// in batches that bound its memory. The count pass (sparse_common.cu, no semiring involved) gives
// each row's entries; after a scan, the numeric pass writes each row's entries in table order and
// a segmented sort orders the columns.

inline constexpr int spgemm_tiers = 3;  // shared-memory tiers; the global one comes after
template <int Tier>
struct spgemm_tier;
template <>
struct spgemm_tier<0> {
    static constexpr std::int64_t max_products = 64;
    static constexpr int slots = 128, row_threads = 32, block_threads = 256;
};
template <>
struct spgemm_tier<1> {
    static constexpr std::int64_t max_products = 512;
    static constexpr int slots = 1024, row_threads = 128, block_threads = 256;
};
template <>
struct spgemm_tier<2> {
    static constexpr std::int64_t max_products = 4096;
    static constexpr int slots = 8192, row_threads = 512, block_threads = 512;
};
inline constexpr int spgemm_global_threads = 512;

/// The count pass: rows by tier, C's row pointers, and the global tier's rows in batches.
template <class Index>
struct spgemm_plan {
    std::int64_t rows = 0;
    buffer<Index, device> tier_rows;  // tier t's rows at [t * rows, t * rows + count[t])
    std::int64_t count[spgemm_tiers + 1] = {};
    buffer<Index, device> heavy_rows;        // the global tier's rows (count[spgemm_tiers] of them)
    buffer<std::int64_t, device> heavy_off;  // their tables' slot offsets (prefix sums, one more)
    std::vector<std::size_t> batch_start;  // batch b: heavy rows [batch_start[b], batch_start[b+1])
    std::size_t max_batch_slots = 0;
    buffer<Index, device> row_ptr;  // C's row pointers
    std::int64_t nnz = 0;
    Index const* tier(int t) const { return tier_rows.data() + t * rows; }
};
template <class Index>
spgemm_plan<Index> spgemm_count(context& ctx, Index const* a_ptr, Index const* a_col,
                                std::int64_t rows, Index const* b_ptr, Index const* b_col,
                                std::int64_t cols);

template <class Index>
struct csr_ref {
    Index const* ptr;
    Index const* col;
};

template <class Index>
__device__ __forceinline__ std::uint64_t slot_of(Index j, std::uint64_t mask) {
    std::uint64_t const x = static_cast<std::uint64_t>(j) * 0x9E3779B97F4A7C15ull;
    return (x >> 32) & mask;
}

template <class Index>
__device__ __forceinline__ Index cas_index(Index* p, Index expected, Index desired) {
    if constexpr (sizeof(Index) == 4) {
        return atomicCAS(reinterpret_cast<int*>(p), expected, desired);
    } else {
        return static_cast<Index>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                            static_cast<unsigned long long>(expected),
                                            static_cast<unsigned long long>(desired)));
    }
}

/// Finds or inserts key j (linear probing; the table never fills: it has 2f slots or more).
/// Returns the slot; `inserted` says whether this thread put j there.
template <class Index>
__device__ __forceinline__ std::uint64_t hash_insert(Index* keys, std::uint64_t mask, Index j,
                                                     bool& inserted) {
    std::uint64_t h = slot_of(j, mask);
    while (true) {
        Index const cur = *reinterpret_cast<Index volatile*>(keys + h);
        if (cur == j) {
            inserted = false;
            return h;
        }
        if (cur == Index(-1)) {
            Index const old = cas_index(keys + h, Index(-1), j);
            if (old == Index(-1) || old == j) {
                inserted = old == Index(-1);
                return h;
            }
        }
        h = (h + 1) & mask;
    }
}

/// The products of row `row` of A times B, spread over `threads` threads (warps take entries of
/// A, their lanes the entries of the matching row of B), inserted into (keys, vals).
template <class S, class Index, bool Numeric>
__device__ __forceinline__ void accumulate_row(
    csr_ref<Index> a, typename S::value_type const* a_val, typename S::value_type a_iso,
    csr_ref<Index> b, typename S::value_type const* b_val, typename S::value_type b_iso, Index row,
    int t, int threads, Index* keys, typename S::value_type* vals, std::uint64_t mask,
    int* inserted_count) {
    int const warp = t / 32, warps = threads / 32, lane = t % 32;
    Index const ae = a.ptr[row + 1];
    for (Index ka = a.ptr[row] + warp; ka < ae; ka += warps) {
        Index const k = a.col[ka];
        Index const be = b.ptr[k + 1];
        for (Index kb = b.ptr[k] + lane; kb < be; kb += 32) {
            bool inserted = false;
            std::uint64_t const s = hash_insert(keys, mask, b.col[kb], inserted);
            if constexpr (Numeric) {
                atomic_add<S>(&vals[s],
                              S::mul(value_at(a_val, a_iso, ka), value_at(b_val, b_iso, kb)));
            } else {
                if (inserted) atomicAdd(inserted_count, 1);
            }
        }
    }
}

template <class S, class Index>
struct spgemm_numeric_args {
    using T = typename S::value_type;
    csr_ref<Index> a;
    T const* a_val;
    T a_iso;
    csr_ref<Index> b;
    T const* b_val;
    T b_iso;
    Index const* c_ptr;
    Index* c_col;
    T* c_val;
};

/// Writes the table's entries to C's row (in table order; sorted later) and clears nothing.
template <class S, class Index>
__device__ __forceinline__ void emit_row(spgemm_numeric_args<S, Index> const& p, Index row, int t,
                                         int threads, Index const* keys,
                                         typename S::value_type const* vals, std::uint64_t slots,
                                         int* emitted) {
    Index const out = p.c_ptr[row];
    for (std::uint64_t s = t; s < slots; s += threads) {
        Index const key = keys[s];
        if (key != Index(-1)) {
            int const pos = atomicAdd(emitted, 1);
            p.c_col[out + pos] = key;
            p.c_val[out + pos] = vals[s];
        }
    }
}

template <class S, class Index, int Slots, int RowThreads, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    spgemm_shared_numeric(spgemm_numeric_args<S, Index> p, Index const* rows, std::int64_t count) {
    using T = typename S::value_type;
    constexpr int per_block = BlockThreads / RowThreads;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int emitted[per_block];
    int const sub = static_cast<int>(threadIdx.x) / RowThreads;
    int const t = static_cast<int>(threadIdx.x) % RowThreads;
    // Values first (8-byte aligned), then keys.
    T* vals = reinterpret_cast<T*>(smem) + sub * Slots;
    Index* keys = reinterpret_cast<Index*>(smem + sizeof(T) * Slots * per_block) + sub * Slots;
    std::int64_t const item = std::int64_t(blockIdx.x) * per_block + sub;
    for (int s = t; s < Slots; s += RowThreads) {
        keys[s] = Index(-1);
        vals[s] = S::zero();
    }
    if (t == 0) emitted[sub] = 0;
    __syncthreads();
    if (item < count)
        accumulate_row<S, Index, true>(p.a, p.a_val, p.a_iso, p.b, p.b_val, p.b_iso, rows[item], t,
                                       RowThreads, keys, vals, Slots - 1, nullptr);
    __syncthreads();
    if (item < count) emit_row(p, rows[item], t, RowThreads, keys, vals, Slots, &emitted[sub]);
}

template <class S, class Index>
__global__ void __launch_bounds__(spgemm_global_threads)
    spgemm_global_numeric(spgemm_numeric_args<S, Index> p, Index const* rows,
                          std::int64_t const* table_off, Index* keys_all,
                          typename S::value_type* vals_all) {
    __shared__ int emitted;
    std::int64_t const off = table_off[blockIdx.x] - table_off[0];  // inside this batch's tables
    auto const slots =
        static_cast<std::uint64_t>(table_off[blockIdx.x + 1] - table_off[blockIdx.x]);
    Index* keys = keys_all + off;
    auto* vals = vals_all + off;
    int const t = static_cast<int>(threadIdx.x);
    for (std::uint64_t s = t; s < slots; s += spgemm_global_threads) {
        keys[s] = Index(-1);
        vals[s] = S::zero();
    }
    if (t == 0) emitted = 0;
    __syncthreads();
    Index const row = rows[blockIdx.x];
    accumulate_row<S, Index, true>(p.a, p.a_val, p.a_iso, p.b, p.b_val, p.b_iso, row, t,
                                   spgemm_global_threads, keys, vals, slots - 1, nullptr);
    __syncthreads();
    emit_row(p, row, t, spgemm_global_threads, keys, vals, slots, &emitted);
}

template <class S, class Index, int Tier>
void launch_shared_numeric(spgemm_numeric_args<S, Index> const& p, spgemm_plan<Index> const& plan,
                           cudaStream_t st) {
    using T = typename S::value_type;
    using tier = spgemm_tier<Tier>;
    constexpr int per_block = tier::block_threads / tier::row_threads;
    std::int64_t const count = plan.count[Tier];
    if (count == 0) return;
    auto kernel =
        spgemm_shared_numeric<S, Index, tier::slots, tier::row_threads, tier::block_threads>;
    std::size_t const smem = std::size_t(tier::slots) * per_block * (sizeof(T) + sizeof(Index));
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
    auto const blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
    kernel<<<blocks, tier::block_threads, smem, st>>>(p, plan.tier(Tier), count);
    KLEENE_CUDA_CHECK_LAUNCH("spgemm_shared_numeric");
}

template <class S, class Index>
void spgemm_generic(context& ctx, csr_matrix<typename S::value_type, Index, device>& c,
                    csr_matrix<typename S::value_type, Index, device> const& a,
                    csr_matrix<typename S::value_type, Index, device> const& b) {
    using T = typename S::value_type;
    auto const rows = static_cast<std::int64_t>(a.rows());
    auto const cols = static_cast<std::int64_t>(b.cols());
    cudaStream_t const st = stream_of(ctx);
    auto plan = spgemm_count<Index>(ctx, a.row_ptr(), a.col_idx(), rows, b.row_ptr(), b.col_idx(), cols);
    buffer<Index, device> col(std::size_t(plan.nnz));
    buffer<T, device> val(std::size_t(plan.nnz));
    if (plan.nnz > 0) {
        Index* tmp_col = scratch<Index>(ctx, 0, std::size_t(plan.nnz));
        T* tmp_val = scratch<T>(ctx, 1, std::size_t(plan.nnz));
        spgemm_numeric_args<S, Index> p{{a.row_ptr(), a.col_idx()}, a.values(), a.iso_value(),
                                        {b.row_ptr(), b.col_idx()}, b.values(), b.iso_value(),
                                        plan.row_ptr.data(),        tmp_col,    tmp_val};
        launch_shared_numeric<S, Index, 0>(p, plan, st);
        launch_shared_numeric<S, Index, 1>(p, plan, st);
        launch_shared_numeric<S, Index, 2>(p, plan, st);
        // The global tier, in batches of bounded table memory.
        if (!plan.batch_start.empty()) {
            auto* keys = scratch<Index>(ctx, 2, plan.max_batch_slots);
            auto* vals = scratch<T>(ctx, 3, plan.max_batch_slots);
            for (std::size_t bt = 0; bt + 1 < plan.batch_start.size(); ++bt) {
                std::size_t const i = plan.batch_start[bt], j = plan.batch_start[bt + 1];
                spgemm_global_numeric<S, Index>
                    <<<static_cast<unsigned>(j - i), spgemm_global_threads, 0, st>>>(
                        p, plan.heavy_rows.data() + i, plan.heavy_off.data() + i, keys, vals);
                KLEENE_CUDA_CHECK_LAUNCH("spgemm_global_numeric");
            }
        }
        // Columns in order inside each row.
        std::size_t bytes = 0;
        Index const* begin = plan.row_ptr.data();
        KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, tmp_col, col.data(),
                                                              tmp_val, val.data(), plan.nnz, rows,
                                                              begin, begin + 1, st));
        KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
            cub_scratch(ctx, bytes), bytes, tmp_col, col.data(), tmp_val, val.data(), plan.nnz,
            rows, begin, begin + 1, st));
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    c = csr_matrix<T, Index, device>(a.rows(), b.cols(), std::move(plan.row_ptr), std::move(col),
                                     std::move(val), T(1), true);
}

// ---- spgemm into a dense output -------------------------------------------------------------

inline constexpr int spgemm_dense_threads = 256;

/// A warp per row of A (grid-strided): its entries in order, the lanes over the matching row of B,
/// each product added into C's row in place. A row of C has one writer warp, and B's columns in
/// one row are distinct, so no two lanes touch one entry between the __syncwarp()s: no atomics.
template <class S, class Index>
__global__ void __launch_bounds__(spgemm_dense_threads)
    spgemm_dense_kernel(csr_ref<Index> a, typename S::value_type const* a_val,
                        typename S::value_type a_iso, csr_ref<Index> b,
                        typename S::value_type const* b_val, typename S::value_type b_iso,
                        typename S::value_type* c, std::int64_t ldc, std::int64_t rows) {
    using T = typename S::value_type;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * (spgemm_dense_threads / 32);
    for (std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
         row < rows; row += warps) {
        T* const crow = c + row * ldc;
        Index const ae = a.ptr[row + 1];
        for (Index ka = a.ptr[row]; ka < ae; ++ka) {
            Index const k = a.col[ka];
            T const av = value_at(a_val, a_iso, ka);
            Index const be = b.ptr[k + 1];
            for (Index kb = b.ptr[k] + lane; kb < be; kb += 32) {
                Index const j = b.col[kb];
                crow[j] = S::add(crow[j], S::mul(av, value_at(b_val, b_iso, kb)));
            }
            __syncwarp();
        }
    }
}

template <class T>
__global__ void fill_view_kernel(T* __restrict__ c, std::int64_t ld, std::int64_t rows,
                                 std::int64_t cols, T v) {
    for (std::int64_t r = blockIdx.y; r < rows; r += gridDim.y)
        for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < cols;
             j += std::int64_t(gridDim.x) * blockDim.x)
            c[r * ld + j] = v;
}

template <class S, class Index>
void spgemm_dense_generic(context& ctx, dense_view<typename S::value_type, device> c,
                          csr_matrix<typename S::value_type, Index, device> const& a,
                          csr_matrix<typename S::value_type, Index, device> const& b,
                          bool accumulate) {
    using T = typename S::value_type;
    if (c.rows == 0 || c.cols == 0) return;
    cudaStream_t const st = stream_of(ctx);
    if (!accumulate) {
        dim3 const grid(static_cast<unsigned>(std::min<std::size_t>((c.cols + 255) / 256, 64)),
                        static_cast<unsigned>(std::min<std::size_t>(c.rows, 32768)));
        fill_view_kernel<T><<<grid, 256, 0, st>>>(c.data, static_cast<std::int64_t>(c.ld),
                                                  static_cast<std::int64_t>(c.rows),
                                                  static_cast<std::int64_t>(c.cols), S::zero());
        KLEENE_CUDA_CHECK_LAUNCH("fill_view_kernel");
    }
    if (a.nnz() > 0 && b.nnz() > 0) {
        unsigned const blocks = detail::blocks_for(a.rows() * 32, spgemm_dense_threads,
                                                   detail::persistent_blocks(8));
        spgemm_dense_kernel<S, Index><<<blocks, spgemm_dense_threads, 0, st>>>(
            {a.row_ptr(), a.col_idx()}, a.values(), a.iso_value(), {b.row_ptr(), b.col_idx()},
            b.values(), b.iso_value(), c.data, static_cast<std::int64_t>(c.ld),
            static_cast<std::int64_t>(a.rows()));
        KLEENE_CUDA_CHECK_LAUNCH("spgemm_dense_kernel");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
sparse_backend spgemm(csr_matrix<typename S::value_type, Index, device>& c,
                      csr_matrix<typename S::value_type, Index, device> const& a,
                      csr_matrix<typename S::value_type, Index, device> const& b,
                      sparse_options const& opt) {
    using namespace sparse_detail;
    context& ctx = resolve(opt.ctx);
    if (a.cols() != b.rows())
        throw dimension_mismatch("spgemm: cannot multiply A (" +
                                 kleene::detail::shape(a.rows(), a.cols()) + ") by B (" +
                                 kleene::detail::shape(b.rows(), b.cols()) + ")");
    if constexpr (cusparse_has<S> && std::is_same_v<Index, std::int32_t>) {
        bool const want = opt.backend == sparse_backend::cusparse ||
                          (opt.backend == sparse_backend::automatic && cusparse_default::spgemm);
        if (want && a.nnz() > 0 && b.nnz() > 0 && a.has_values() && b.has_values()) {
            if (opt.backend == sparse_backend::cusparse) {
                cusparse_spgemm<typename S::value_type>(ctx, c, a, b);
                return sparse_backend::cusparse;
            }
            try {
                cusparse_spgemm<typename S::value_type>(ctx, c, a, b);
                return sparse_backend::cusparse;
            } catch (device_error const&) {
                // cuSPARSE's SpGEMM keeps large work buffers; the generic kernel batches its own.
            }
        }
        if (opt.backend == sparse_backend::cusparse)
            no_cusparse("spgemm", "an iso or empty operand");
    } else if (opt.backend == sparse_backend::cusparse) {
        no_cusparse("spgemm", "this semiring or index type");
    }
    spgemm_generic<S, Index>(ctx, c, a, b);
    return sparse_backend::generic;
}

template <semiring_type S, index_type Index>
sparse_backend spgemm_dense(dense_view<typename S::value_type, device> c,
                            csr_matrix<typename S::value_type, Index, device> const& a,
                            csr_matrix<typename S::value_type, Index, device> const& b,
                            sparse_options const& opt) {
    using namespace sparse_detail;
    if (a.cols() != b.rows() || c.rows != a.rows() || c.cols != b.cols())
        throw dimension_mismatch("spgemm_dense: cannot compute C (" +
                                 kleene::detail::shape(c.rows, c.cols) + ") = A (" +
                                 kleene::detail::shape(a.rows(), a.cols()) + ") x B (" +
                                 kleene::detail::shape(b.rows(), b.cols()) + ")");
    if (opt.backend == sparse_backend::cusparse)
        no_cusparse("spgemm_dense", "a sparse product into a dense output");
    spgemm_dense_generic<S, Index>(resolve(opt.ctx), c, a, b, opt.accumulate);
    return sparse_backend::generic;
}

}  // namespace kleene::cuda

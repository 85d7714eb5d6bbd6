#pragma once
// SpGEMM, C = A B for CSR A and B: into CSR (tiered hash accumulators, after the count pass of
// sparse_common.cu) or into a dense C.

#include <kleene/cuda/sparse/common.cuh>
#include <kleene/cuda/sparse/spgemm_kernels.cuh>

#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
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

/// The count pass: rows by tier, C's row pointers, and the global tier's rows in batches.
template <class Index>
struct spgemm_plan {
    std::int64_t rows = 0;
    // Temporaries on the call's stream (stream_memory.cuh); row_ptr becomes C's.
    detail::stream_buffer<Index> tier_rows;  // tier t's rows at [t * rows, t * rows + count[t])
    std::int64_t count[spgemm_tiers + 1] = {};
    detail::stream_buffer<Index> heavy_rows;  // the global tier's rows (count[spgemm_tiers])
    detail::stream_buffer<std::int64_t> heavy_off;  // their tables' slot offsets (prefix sums)
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

/// The numeric kernels of one semiring and index type: the three shared-memory tiers and the
/// global one, compiled ahead of time (spgemm_kernels_of) or by the JIT; spgemm_launch runs either.
struct spgemm_kernels {
    void const* shared[spgemm_tiers] = {};
    void const* global = nullptr;
};
template <class S, class Index>
spgemm_kernels spgemm_kernels_of() {
    auto shared = [](auto tier) {
        using t = spgemm_tier<decltype(tier)::value>;
        return reinterpret_cast<void const*>(
            &spgemm_shared_numeric<S, Index, t::slots, t::row_threads, t::block_threads>);
    };
    return {{shared(std::integral_constant<int, 0>{}), shared(std::integral_constant<int, 1>{}),
             shared(std::integral_constant<int, 2>{})},
            reinterpret_cast<void const*>(&spgemm_global_numeric<S, Index>)};
}

template <class T, class Index, int Tier>
void launch_shared_numeric(void const* kernel, spgemm_numeric_args<T, Index> const& p,
                           spgemm_plan<Index> const& plan, cudaStream_t st) {
    using tier = spgemm_tier<Tier>;
    constexpr int per_block = tier::block_threads / tier::row_threads;
    std::int64_t count = plan.count[Tier];
    if (count == 0) return;
    std::size_t const smem = std::size_t(tier::slots) * per_block * (sizeof(T) + sizeof(Index));
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
    auto const blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
    auto args_p = p;
    Index const* rows = plan.tier(Tier);
    void* args[] = {&args_p, &rows, &count};
    KLEENE_CUDA_CHECK(
        cudaLaunchKernel(kernel, dim3(blocks), dim3(tier::block_threads), args, smem, st));
}

/// C = A B with the numeric kernels k, on the context's stream; returns when C is written.
template <class T, class Index>
void spgemm_launch(context& ctx, spgemm_kernels const& k, csr_matrix<T, Index, device>& c,
                   csr_matrix<T, Index, device> const& a, csr_matrix<T, Index, device> const& b) {
    auto const rows = static_cast<std::int64_t>(a.rows());
    auto const cols = static_cast<std::int64_t>(b.cols());
    cudaStream_t const st = stream_of(ctx);
    auto plan = spgemm_count<Index>(ctx, a.row_ptr(), a.col_idx(), rows, b.row_ptr(), b.col_idx(), cols);
    buffer<Index, device> col(std::size_t(plan.nnz));
    buffer<T, device> val(std::size_t(plan.nnz));
    if (plan.nnz > 0) {
        Index* tmp_col = scratch<Index>(ctx, 0, std::size_t(plan.nnz));
        T* tmp_val = scratch<T>(ctx, 1, std::size_t(plan.nnz));
        spgemm_numeric_args<T, Index> p{{a.row_ptr(), a.col_idx()}, a.values(), a.iso_value(),
                                        {b.row_ptr(), b.col_idx()}, b.values(), b.iso_value(),
                                        plan.row_ptr.data(),        tmp_col,    tmp_val};
        launch_shared_numeric<T, Index, 0>(k.shared[0], p, plan, st);
        launch_shared_numeric<T, Index, 1>(k.shared[1], p, plan, st);
        launch_shared_numeric<T, Index, 2>(k.shared[2], p, plan, st);
        // The global tier, in batches of bounded table memory.
        if (!plan.batch_start.empty()) {
            Index* keys = scratch<Index>(ctx, 2, plan.max_batch_slots);
            T* vals = scratch<T>(ctx, 3, plan.max_batch_slots);
            for (std::size_t bt = 0; bt + 1 < plan.batch_start.size(); ++bt) {
                std::size_t const i = plan.batch_start[bt], j = plan.batch_start[bt + 1];
                Index const* heavy = plan.heavy_rows.data() + i;
                std::int64_t const* off = plan.heavy_off.data() + i;
                void* args[] = {&p, &heavy, &off, &keys, &vals};
                KLEENE_CUDA_CHECK(cudaLaunchKernel(k.global, dim3(static_cast<unsigned>(j - i)),
                                                   dim3(spgemm_global_threads), args, 0, st));
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

/// spgemm's operand check: A's columns are B's rows.
template <class T, class Index>
void check_spgemm_operands(csr_matrix<T, Index, device> const& a,
                           csr_matrix<T, Index, device> const& b) {
    if (a.cols() != b.rows())
        throw dimension_mismatch("spgemm: cannot multiply A (" +
                                 kleene::detail::shape(a.rows(), a.cols()) + ") by B (" +
                                 kleene::detail::shape(b.rows(), b.cols()) + ")");
}

template <class S, class Index>
void spgemm_generic(context& ctx, csr_matrix<typename S::value_type, Index, device>& c,
                    csr_matrix<typename S::value_type, Index, device> const& a,
                    csr_matrix<typename S::value_type, Index, device> const& b) {
    spgemm_launch<typename S::value_type, Index>(ctx, spgemm_kernels_of<S, Index>(), c, a, b);
}

// ---- spgemm into a dense output -------------------------------------------------------------

inline constexpr int spgemm_dense_threads = 256;

/// A warp per row of A (grid-strided): its entries in order, the lanes over the matching row of B,
/// each product added into C's row in place (where the sample allows: C's flags, n a row). A row
/// of C has one writer warp, and B's columns in one row are distinct, so no two lanes touch one
/// entry between the __syncwarp()s: no atomics.
template <class S, class Index>
__global__ void __launch_bounds__(spgemm_dense_threads)
    spgemm_dense_kernel(csr_ref<Index> a, typename S::value_type const* a_val,
                        typename S::value_type a_iso, csr_ref<Index> b,
                        typename S::value_type const* b_val, typename S::value_type b_iso,
                        typename S::value_type* c, std::int64_t ldc, std::int64_t rows,
                        mask_ref sample, std::int64_t n) {
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
                if (sample.allows(row * n + j))
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
                          bool accumulate, mask_ref sample) {
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
            static_cast<std::int64_t>(a.rows()), sample, static_cast<std::int64_t>(c.cols));
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
    check_spgemm_operands(a, b);
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
    if (opt.sample) opt.sample->require_size(c.rows, c.cols, "spgemm_dense");
    context& ctx = resolve(opt.ctx);
    spgemm_dense_generic<S, Index>(ctx, c, a, b, opt.accumulate,
                                   opt.sample ? ref(*opt.sample, ctx) : mask_ref{});
    return sparse_backend::generic;
}

}  // namespace kleene::cuda

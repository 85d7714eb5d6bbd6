// extract on device containers (extract_assign.hpp). CSR: one thread an output row, a count pass,
// a CUB scan and a fill pass; a column range is a binary search in the row, a column list goes
// through its inverse (column of A -> positions in J, built on the host). An unsorted list leaves
// rows unsorted: they are put in order by one radix sort of (output row, column) keys. Dense: one
// thread an output entry, the mask, accumulator and replace applied on the write. A CSR column
// (or row) into a dense vector: one thread an output entry, a binary search in its row.

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/structure_instances.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <bit>
#include <limits>
#include <string>

namespace kleene::cuda {
namespace detail {

__device__ __forceinline__ std::size_t index_at(index_spec const& s, std::size_t k) {
    return s.list ? static_cast<std::size_t>(s.list[k]) : s.begin + k;
}

/// Counts (Fill false) or writes (Fill true) output row k = A(I[k], J). With `keys`, a column l
/// of row k is written as the key k * J.size + l (an unsorted J), else as l into cj.
/// The first position p in [lo, hi) of a sorted row whose column aj[p] is >= j (hi if none).
template <class Index>
__device__ __forceinline__ Index first_column_at_least(Index const* __restrict__ aj, Index lo,
                                                       Index hi, std::size_t j) {
    while (lo < hi) {
        Index const mid = lo + (hi - lo) / 2;
        if (std::size_t(aj[mid]) < j) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

template <bool Fill, class T, class Index>
__global__ void extract_csr_kernel(index_spec ri, index_spec rj, Index const* __restrict__ ap,
                                   Index const* __restrict__ aj, T const* __restrict__ av, T iso,
                                   std::int64_t const* __restrict__ head,
                                   std::int64_t const* __restrict__ pos, Index* __restrict__ cp,
                                   Index* __restrict__ cj, std::uint64_t* __restrict__ keys,
                                   T* __restrict__ cv) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < ri.size;
         k += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t const i = index_at(ri, k);
        Index w = Fill ? cp[k] : Index(0);
        auto emit = [&](std::size_t l, Index p) {
            if (Fill) {
                if (keys) keys[w] = std::uint64_t(k) * rj.size + l;
                else cj[w] = Index(l);
                cv[w] = value_at(av, iso, p);
            }
            ++w;
        };
        Index const b = ap[i], e = ap[i + 1];
        if (!rj.list) {
            Index const lo = first_column_at_least(aj, b, e, rj.begin);
            for (Index p = lo; p < e && std::size_t(aj[p]) < rj.begin + rj.size; ++p)
                emit(std::size_t(aj[p]) - rj.begin, p);
        } else {
            for (Index p = b; p < e; ++p) {
                std::size_t const j = std::size_t(aj[p]);
                for (std::int64_t q = head[j]; q < head[j + 1]; ++q) emit(std::size_t(pos[q]), p);
            }
        }
        if (!Fill) cp[k] = w;
    }
}

__global__ void iota64_kernel(std::int64_t* __restrict__ p, std::size_t n) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x)
        p[k] = std::int64_t(k);
}

/// Entry p of the sorted keys: column key % cols, value taken from its place before the sort.
template <class T, class Index>
__global__ void extract_unkey_kernel(std::uint64_t const* __restrict__ keys,
                                     std::int64_t const* __restrict__ perm, std::size_t nnz,
                                     std::size_t cols, T const* __restrict__ in,
                                     Index* __restrict__ cj, T* __restrict__ cv) {
    for (std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; p < nnz;
         p += std::size_t(gridDim.x) * blockDim.x) {
        cj[p] = Index(keys[p] % cols);
        cv[p] = in[perm[p]];
    }
}

template <class T, class Index>
csr_matrix<T, Index, device> extract_csr(context& ctx, csr_matrix<T, Index, device> const& a,
                                         index_spec ri, index_spec rj,
                                         std::int64_t const* inv_head,
                                         std::int64_t const* inv_pos) {
    std::size_t const rows = ri.size, cols = rj.size;
    bool const by_key = rj.list && !rj.sorted;
    if (by_key && cols > 0 && rows > std::numeric_limits<std::uint64_t>::max() / cols)
        throw invalid_argument("cuda::extract: a " + kleene::detail::shape(rows, cols) +
                               " result with an unsorted column list is too large");
    device_stream const st = stream_of(ctx);
    buffer<Index, device> ptr(rows + 1);
    fill(ptr.data(), rows + 1, Index(0), st);
    unsigned const grid = blocks_for(rows, 128);
    if (rows > 0) {
        extract_csr_kernel<false><<<grid, 128, 0, st>>>(
            ri, rj, a.row_ptr(), a.col_idx(), a.values(), a.iso_value(), inv_head, inv_pos,
            ptr.data(), static_cast<Index*>(nullptr), static_cast<std::uint64_t*>(nullptr),
            static_cast<T*>(nullptr));
        KLEENE_CUDA_CHECK_LAUNCH("extract_csr_kernel (count)");
    }
    std::size_t const nnz = scan_counts(ptr.data(), rows, st);
    buffer<Index, device> out_cols(nnz);
    buffer<T, device> out_vals(nnz);
    if (nnz > 0 && !by_key) {
        extract_csr_kernel<true><<<grid, 128, 0, st>>>(
            ri, rj, a.row_ptr(), a.col_idx(), a.values(), a.iso_value(), inv_head, inv_pos,
            ptr.data(), out_cols.data(), static_cast<std::uint64_t*>(nullptr), out_vals.data());
        KLEENE_CUDA_CHECK_LAUNCH("extract_csr_kernel (fill)");
    } else if (nnz > 0) {
        stream_buffer<std::uint64_t> keys_in(nnz, st), keys(nnz, st);
        stream_buffer<T> vals_in(nnz, st);
        stream_buffer<std::int64_t> perm_in(nnz, st), perm(nnz, st);
        extract_csr_kernel<true><<<grid, 128, 0, st>>>(
            ri, rj, a.row_ptr(), a.col_idx(), a.values(), a.iso_value(), inv_head, inv_pos,
            ptr.data(), static_cast<Index*>(nullptr), keys_in.data(), vals_in.data());
        KLEENE_CUDA_CHECK_LAUNCH("extract_csr_kernel (fill keys)");
        iota64_kernel<<<blocks_for(nnz, 256), 256, 0, st>>>(perm_in.data(), nnz);
        KLEENE_CUDA_CHECK_LAUNCH("iota64_kernel");
        int const end_bit = std::max(1, int(std::bit_width(std::uint64_t(rows) * cols - 1)));
        cub_temp temp(st);
        std::size_t bytes = 0;
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in.data(),
                                                          keys.data(), perm_in.data(),
                                                          perm.data(), nnz, 0, end_bit, st));
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(bytes), bytes, keys_in.data(),
                                                          keys.data(), perm_in.data(),
                                                          perm.data(), nnz, 0, end_bit, st));
        extract_unkey_kernel<<<blocks_for(nnz, 256), 256, 0, st>>>(
            keys.data(), perm.data(), nnz, cols, vals_in.data(), out_cols.data(),
            out_vals.data());
        KLEENE_CUDA_CHECK_LAUNCH("extract_unkey_kernel");
    }  // the temporaries are released on st, behind the work queued above
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return {rows, cols, std::move(ptr), std::move(out_cols), std::move(out_vals), T(1), true};
}

template <class Accum, class T, class Index>
__global__ void extract_csr_column_kernel(T* __restrict__ w, std::uint8_t const* __restrict__ flags,
                                          bool comp, Accum accum, Index const* __restrict__ ap,
                                          Index const* __restrict__ aj, T const* __restrict__ av,
                                          T iso, index_spec ri, std::size_t fixed, bool by_row,
                                          T absent, bool replace) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < ri.size;
         k += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t const x = index_at(ri, k);
        std::size_t const i = by_row ? fixed : x, j = by_row ? x : fixed;
        Index const e = ap[i + 1];
        Index const lo = first_column_at_least(aj, ap[i], e, j);
        bool const has = lo < e && std::size_t(aj[lo]) == j;
        T const t = has ? value_at(av, iso, lo) : absent;
        w[k] = combine(accum, mask_allows(flags, comp, k), replace, w[k], has, t, absent);
    }
}

template <class Accum, class T, class Index>
void extract_csr_column(context& ctx, T* w, dense_mask const& mask, Accum accum,
                        csr_matrix<T, Index, device> const& a, index_spec ri, std::size_t fixed,
                        bool by_row, T absent, bool replace) {
    if (ri.size == 0) return;
    device_stream const st = stream_of(ctx);
    extract_csr_column_kernel<<<blocks_for(ri.size, 256), 256, 0, st>>>(
        w, mask_flags(mask, st), mask.complemented(), accum, a.row_ptr(),
        a.col_idx(), a.values(), a.iso_value(), ri, fixed, by_row, absent, replace);
    KLEENE_CUDA_CHECK_LAUNCH("extract_csr_column_kernel");
    end_of_call(st);
}

template <class Accum, class T>
__global__ void extract_dense_kernel(T* __restrict__ c, std::uint8_t const* __restrict__ flags,
                                     bool comp, Accum accum, T const* __restrict__ a,
                                     std::size_t a_cols, index_spec ri, index_spec rj, T absent,
                                     bool replace) {
    std::size_t const n = ri.size * rj.size;
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x) {
        std::size_t const i = index_at(ri, k / rj.size), j = index_at(rj, k % rj.size);
        T const t = a[i * a_cols + j];
        c[k] = combine(accum, mask_allows(flags, comp, k), replace, c[k], !(t == absent), t,
                       absent);
    }
}

template <class Accum, class T>
void extract_dense(context& ctx, T* c, dense_mask const& mask, Accum accum, T const* a,
                   std::size_t a_cols, index_spec ri, index_spec rj, T absent, bool replace) {
    std::size_t const n = ri.size * rj.size;
    if (n == 0) return;
    device_stream const st = stream_of(ctx);
    extract_dense_kernel<<<blocks_for(n, 256), 256, 0, st>>>(
        c, mask_flags(mask, st), mask.complemented(), accum, a, a_cols, ri, rj,
        absent, replace);
    KLEENE_CUDA_CHECK_LAUNCH("extract_dense_kernel");
    end_of_call(st);
}

void allocate_stream_block(kleene::detail::stream_block& b, std::size_t bytes, context& ctx) {
    device_stream const st = stream_of(ctx);
    try {
        allocate_block<unsigned char>(b, bytes, st);
    } catch (device_error const& e) {  // say how much was asked for
        throw device_error("a temporary of " + std::to_string(bytes) +
                           " bytes from the context's memory pool: " + e.what());
    }
}

void copy_to_stream_block(kleene::detail::stream_block& b, void const* src, std::size_t bytes,
                          bool src_on_host, context& ctx) {
    device_stream const st = stream_of(ctx);
    void* const p = allocate_block<unsigned char>(b, bytes, st);
    if (bytes)
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(
            p, src, bytes, src_on_host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice, st));
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_STRUCT_EXTRACT_INSTANCES)

}  // namespace kleene::cuda

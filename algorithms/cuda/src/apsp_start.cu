// A device graph's dense matrices, made on the device (apsp.hpp, "a device graph's start"): the
// distance start of APSP, the narrowing of distances computed in fp64, the bit matrix of the
// Boolean closure, and a 32-bit-index copy for the predecessors. On the context's stream; each
// call returns once the stream has done it.

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/temporary.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

namespace kleene::cuda {
namespace {

constexpr unsigned threads = 256;

/// A warp a row: the row filled with +inf, its entries scattered, then its diagonal.
template <class T, class U, class Index>
__global__ void start_kernel(Index const* __restrict__ rp, Index const* __restrict__ col,
                             T const* __restrict__ val, T iso, std::int64_t n,
                             U* __restrict__ out, std::int64_t ld) {
    std::int64_t const warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
    unsigned const lane = threadIdx.x % 32;
    for (std::int64_t i = std::int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; i < n;
         i += warps) {
        U* row = out + i * ld;
        for (std::int64_t j = lane; j < n; j += 32) row[j] = infinity<U>();
        __syncwarp();
        for (std::int64_t k = rp[i] + lane; k < static_cast<std::int64_t>(rp[i + 1]); k += 32)
            row[col[k]] = static_cast<U>(val ? val[k] : iso);
        __syncwarp();
        if (lane == 0 && U(0) < row[i]) row[i] = U(0);
        __syncwarp();
    }
}

template <class T>
__global__ void narrow_kernel(double const* __restrict__ d, std::int64_t ld_d, T* __restrict__ out,
                              std::int64_t ld_out, std::int64_t rows, std::int64_t cols,
                              double top, unsigned long long* __restrict__ first_bad) {
    std::int64_t const total = rows * cols;
    for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const i = e / cols, j = e % cols;
        double const x = d[i * ld_d + j];
        if (x == infinity<double>()) out[i * ld_out + j] = infinity<T>();
        else if (fabs(x) > top) atomicMin(first_bad, static_cast<unsigned long long>(e));
        else out[i * ld_out + j] = static_cast<T>(x);
    }
}

template <class Index>
__global__ void bits_kernel(Index const* __restrict__ rp, Index const* __restrict__ col,
                            std::int64_t n, unsigned long long* __restrict__ words,
                            std::int64_t ld) {
    std::int64_t const warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
    unsigned const lane = threadIdx.x % 32;
    for (std::int64_t i = std::int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; i < n;
         i += warps)
        for (std::int64_t k = rp[i] + lane; k < static_cast<std::int64_t>(rp[i + 1]); k += 32) {
            auto const c = static_cast<std::uint64_t>(col[k]);
            atomicOr(&words[i * ld + static_cast<std::int64_t>(c / 64)], 1ull << (c % 64));
        }
}

__global__ void narrow_index_kernel(std::int64_t const* __restrict__ in, std::int64_t count,
                                    std::int32_t* __restrict__ out) {
    for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        out[k] = static_cast<std::int32_t>(in[k]);
}

}  // namespace

template <class T, class U, index_type Index>
void apsp_start(csr_matrix<T, Index, device> const& a, dense_view<U, device> out, context& ctx) {
    std::size_t const n = a.rows();
    if (a.cols() != n || out.rows != n || out.cols != n)
        throw dimension_mismatch("apsp_start: graph " + kleene::detail::shape(a.rows(), a.cols()) +
                                 ", distances " + kleene::detail::shape(out.rows, out.cols));
    if (n == 0) return;
    cudaStream_t const st = detail::stream_of(ctx);
    start_kernel<T, U, Index><<<detail::blocks_for(n * 32, threads, 65536), threads, 0, st>>>(
        a.row_ptr(), a.col_idx(), a.has_values() ? a.values() : nullptr, a.iso_value(),
        static_cast<std::int64_t>(n), out.data, static_cast<std::int64_t>(out.ld));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::start_kernel");
    detail::end_of_call(st);
}

template <class T>
std::int64_t narrow_distances(dense_view<double const, device> d, dense_view<T, device> out,
                              double top, context& ctx) {
    if (d.rows != out.rows || d.cols != out.cols)
        throw dimension_mismatch("narrow_distances: " + kleene::detail::shape(d.rows, d.cols) +
                                 " into " + kleene::detail::shape(out.rows, out.cols));
    if (d.rows * d.cols == 0) return -1;
    cudaStream_t const st = detail::stream_of(ctx);
    detail::stream_buffer<unsigned long long> first(1, st);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(first.data(), 0xff, sizeof(unsigned long long), st));
    narrow_kernel<T><<<detail::blocks_for(d.rows * d.cols, threads, 65536), threads, 0, st>>>(
        d.data, static_cast<std::int64_t>(d.ld), out.data, static_cast<std::int64_t>(out.ld),
        static_cast<std::int64_t>(d.rows), static_cast<std::int64_t>(d.cols), top, first.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::narrow_kernel");
    unsigned long long const e = detail::read_one(first.data(), st);
    return e == ~0ull ? -1 : static_cast<std::int64_t>(e);
}

template <index_type Index>
void pattern_bits(csr_matrix<bool, Index, device> const& p, bit_view<std::uint64_t> bits,
                  context& ctx) {
    if (bits.rows != p.rows() || bits.cols != p.cols())
        throw dimension_mismatch("pattern_bits: pattern " +
                                 kleene::detail::shape(p.rows(), p.cols()) + ", bits " +
                                 kleene::detail::shape(bits.rows, bits.cols));
    if (p.nnz() == 0) return;
    cudaStream_t const st = detail::stream_of(ctx);
    static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
    bits_kernel<Index><<<detail::blocks_for(p.rows() * 32, threads, 65536), threads, 0, st>>>(
        p.row_ptr(), p.col_idx(), static_cast<std::int64_t>(p.rows()),
        reinterpret_cast<unsigned long long*>(bits.data), static_cast<std::int64_t>(bits.ld));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::bits_kernel");
    detail::end_of_call(st);
}

template <class T>
csr_matrix<T, std::int32_t, device> narrow_indices(csr_matrix<T, std::int64_t, device> const& a,
                                                   context& ctx) {
    cudaStream_t const st = detail::stream_of(ctx);
    // Temporaries of ctx's pool on its stream; the values are a's own, borrowed (the result
    // lives no longer than the call that has a).
    buffer<std::int32_t, device> rp = temporary_buffer<std::int32_t>(a.rows() + 1, ctx);
    buffer<std::int32_t, device> col = temporary_buffer<std::int32_t>(a.nnz(), ctx);
    narrow_index_kernel<<<detail::blocks_for(a.rows() + 1, threads, 65536), threads, 0, st>>>(
        a.row_ptr(), static_cast<std::int64_t>(a.rows() + 1), rp.data());
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::narrow_index_kernel");
    if (a.nnz() > 0) {
        narrow_index_kernel<<<detail::blocks_for(a.nnz(), threads, 65536), threads, 0, st>>>(
            a.col_idx(), static_cast<std::int64_t>(a.nnz()), col.data());
        KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::narrow_index_kernel");
    }
    detail::end_of_call(st);
    buffer<T, device> values;
    if (a.has_values())
        values = buffer<T, device>::borrow(const_cast<T*>(a.values()), a.nnz(),
                                           std::shared_ptr<void const>(a.values(), [](void const*) {}));
    return {a.rows(), a.cols(), std::move(rp), std::move(col), std::move(values), a.iso_value(),
            true};
}

#define KLEENE_APSP_START(T, U)                                                             \
    template void apsp_start<T, U, std::int32_t>(csr_matrix<T, std::int32_t, device> const&, \
                                                 dense_view<U, device>, context&);          \
    template void apsp_start<T, U, std::int64_t>(csr_matrix<T, std::int64_t, device> const&, \
                                                 dense_view<U, device>, context&);
KLEENE_APSP_START(float, float)
KLEENE_APSP_START(double, double)
KLEENE_APSP_START(std::int32_t, std::int32_t)
KLEENE_APSP_START(float, double)
KLEENE_APSP_START(std::int32_t, double)
#undef KLEENE_APSP_START

template std::int64_t narrow_distances<float>(dense_view<double const, device>,
                                              dense_view<float, device>, double, context&);
template std::int64_t narrow_distances<std::int32_t>(dense_view<double const, device>,
                                                     dense_view<std::int32_t, device>, double,
                                                     context&);
template void pattern_bits<std::int32_t>(csr_matrix<bool, std::int32_t, device> const&,
                                         bit_view<std::uint64_t>, context&);
template void pattern_bits<std::int64_t>(csr_matrix<bool, std::int64_t, device> const&,
                                         bit_view<std::uint64_t>, context&);
template csr_matrix<float, std::int32_t, device> narrow_indices<float>(
    csr_matrix<float, std::int64_t, device> const&, context&);
template csr_matrix<double, std::int32_t, device> narrow_indices<double>(
    csr_matrix<double, std::int64_t, device> const&, context&);
template csr_matrix<std::int32_t, std::int32_t, device> narrow_indices<std::int32_t>(
    csr_matrix<std::int32_t, std::int64_t, device> const&, context&);

}  // namespace kleene::cuda

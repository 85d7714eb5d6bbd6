// Bit-packed Boolean matrices: packing, unpacking and the or-and product (bit_matrix.hpp), and
// dense_gemm over lor_land<bool / uint8>, which runs on packed copies.

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/dense_gemm.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/stream.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace kleene::cuda {
namespace {

// The kernels address the 64-bit words as pairs of 32-bit words (little-endian: bits 0..31 of
// word w are 32-bit word 2w), since LOP3 and ballot work on 32 bits.
constexpr int threads = 256;
constexpr int block_m = 128;   // rows of C per block
constexpr int block_nw = 32;   // 32-bit words of C per block (1024 columns)
constexpr int block_kw = 1;    // one 32-bit word of k per stage: 32 bit-steps
constexpr int k_bits = 32 * block_kw;

unsigned grid_limit(std::size_t n, std::size_t cap) {
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min(n, cap)));
}

// C (rows x nw words) = [C |] A & B. Each A bit is expanded once per block into an all-ones or
// all-zero mask in shared memory, so the inner step is acc |= mask & b: one LOP3 per 32 updates.
// Thread (ty, tx), ty in 0..31, tx in 0..7, owns rows ty*4 + {0..3} and words tx*4 + {0..3}.
__global__ void __launch_bounds__(threads)
    bool_gemm_kernel(std::uint32_t const* __restrict__ a, std::int64_t lda,
                     std::uint32_t const* __restrict__ b, std::int64_t ldb,
                     std::uint32_t* __restrict__ c, std::int64_t ldc, int m, int n_bits, int k,
                     bool accumulate) {
    __shared__ __align__(16) std::uint32_t as[2][k_bits][block_m];
    __shared__ __align__(16) std::uint32_t bs[2][k_bits][block_nw];

    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 8;
    int const ty = tid / 8;
    int const m0 = static_cast<int>(blockIdx.y) * block_m;
    int const w0 = static_cast<int>(blockIdx.x) * block_nw;
    int const nw = (n_bits + 31) / 32;
    int const kw = (k + 31) / 32;

    // Staging: thread expands bits half*16 .. half*16+15 of A row a_row's word; loads B words
    // (b_row + 8 i, b_word).
    int const a_row = tid % block_m;
    int const half = tid / block_m;
    int const b_word = tid % 32;
    int const b_row = tid / 32;
    std::uint32_t ra = 0;
    std::uint32_t rb[4];
    auto load_tile = [&](int t) {
        int const r = m0 + a_row;
        ra = (r < m && t < kw) ? a[r * lda + t] : 0u;
        if (t == kw - 1 && k % 32 != 0) ra &= (1u << (k % 32)) - 1u;  // bits past k are not data
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            int const kr = t * 32 + b_row + 8 * i;
            int const w = w0 + b_word;
            rb[i] = (kr < k && w < nw) ? b[kr * ldb + w] : 0u;
        }
    };
    auto store_tile = [&](int buf) {
#pragma unroll
        for (int bit = 0; bit < 16; ++bit)
            as[buf][half * 16 + bit][a_row] = 0u - ((ra >> (half * 16 + bit)) & 1u);
#pragma unroll
        for (int i = 0; i < 4; ++i) bs[buf][b_row + 8 * i][b_word] = rb[i];
    };

    std::uint32_t acc[4][4] = {};
    if (kw > 0) {
        load_tile(0);
        store_tile(0);
    }
    __syncthreads();
    for (int t = 0; t < kw; ++t) {
        int const cur = t & 1;
        if (t + 1 < kw) load_tile(t + 1);
#pragma unroll
        for (int kb = 0; kb < k_bits; ++kb) {
            uint4 const mv = *reinterpret_cast<uint4 const*>(&as[cur][kb][ty * 4]);
            uint4 const bv = *reinterpret_cast<uint4 const*>(&bs[cur][kb][tx * 4]);
            std::uint32_t const mk[4] = {mv.x, mv.y, mv.z, mv.w};
            std::uint32_t const bw[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] |= mk[i] & bw[j];
        }
        if (t + 1 < kw) store_tile(cur ^ 1);
        __syncthreads();
    }

    std::uint32_t const tail =
        n_bits % 32 != 0 ? (1u << (n_bits % 32)) - 1u : ~0u;  // valid bits of the last word
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int const r = m0 + ty * 4 + i;
        if (r >= m) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int const w = w0 + tx * 4 + j;
            if (w >= nw) continue;
            std::uint32_t* p = c + r * ldc + w;
            std::uint32_t const keep = w == nw - 1 ? tail : ~0u;
            std::uint32_t v = acc[i][j];
            if (accumulate || keep != ~0u) {
                std::uint32_t const old = *p;
                if (accumulate) v |= old;
                v = (v & keep) | (old & ~keep);
            }
            *p = v;
        }
    }
}

// One warp per 32-bit word: lane l reads column 32 q + l; padding bits become zero.
template <class T>
__global__ void pack_kernel(T const* __restrict__ src, std::int64_t ld, int rows, int cols,
                            std::uint32_t* __restrict__ dst, std::int64_t dst_ld32) {
    int const lane = static_cast<int>(threadIdx.x % 32);
    std::int64_t const warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
    std::int64_t const total = std::int64_t(rows) * dst_ld32;
    for (std::int64_t wi = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; wi < total;
         wi += warps) {
        std::int64_t const r = wi / dst_ld32;
        std::int64_t const q = wi % dst_ld32;
        std::int64_t const col = q * 32 + lane;
        bool const bit = col < cols && src[r * ld + col] != T(0);
        std::uint32_t const word = __ballot_sync(0xffffffffu, bit);
        if (lane == 0) dst[r * dst_ld32 + q] = word;
    }
}

template <class T>
__global__ void unpack_kernel(std::uint32_t const* __restrict__ src, std::int64_t src_ld32,
                              int rows, int cols, T* __restrict__ dst, std::int64_t ld) {
    for (int r = static_cast<int>(blockIdx.y); r < rows; r += static_cast<int>(gridDim.y)) {
        for (int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j < cols;
             j += static_cast<int>(gridDim.x * blockDim.x)) {
            std::uint32_t const w = src[r * src_ld32 + j / 32];
            dst[r * ld + j] = T((w >> (j % 32)) & 1u);
        }
    }
}

/// Enqueued on ctx's stream (pack and unpack: the caller waits for it).
template <class T>
bit_matrix pack(dense_view<T const, device> a, context& ctx) {
    bit_matrix out(a.rows, a.cols, ctx);
    std::int64_t const ld32 = static_cast<std::int64_t>(out.ld()) * 2;
    std::size_t const words = a.rows * static_cast<std::size_t>(ld32);
    if (words == 0) return out;
    pack_kernel<T><<<grid_limit((words + 7) / 8, 65536), threads, 0, detail::stream_of(ctx)>>>(
        a.data, static_cast<std::int64_t>(a.ld), static_cast<int>(a.rows), static_cast<int>(a.cols),
        reinterpret_cast<std::uint32_t*>(out.data()), ld32);
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::pack_kernel");
    return out;
}

template <class T>
void unpack(bit_view<std::uint64_t const> src, dense_view<T, device> dst, context& ctx) {
    if (src.rows != dst.rows || src.cols != dst.cols)
        throw dimension_mismatch("from_bits: source is " + kleene::detail::shape(src.rows, src.cols) +
                                 ", destination is " + kleene::detail::shape(dst.rows, dst.cols));
    if (dst.rows == 0 || dst.cols == 0) return;
    dim3 const grid(grid_limit((dst.cols + threads - 1) / threads, 16), grid_limit(dst.rows, 8192));
    unpack_kernel<T><<<grid, threads, 0, detail::stream_of(ctx)>>>(
        reinterpret_cast<std::uint32_t const*>(src.data), static_cast<std::int64_t>(src.ld) * 2,
        static_cast<int>(dst.rows), static_cast<int>(dst.cols), dst.data,
        static_cast<std::int64_t>(dst.ld));
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::unpack_kernel");
}

std::pair<char const*, char const*> byte_range(bit_view<std::uint64_t const> v) {
    auto const* p = reinterpret_cast<char const*>(v.data);
    if (v.rows == 0 || v.cols == 0) return {p, p};
    std::size_t const words = (v.rows - 1) * v.ld + (v.cols + bits_per_word - 1) / bits_per_word;
    return {p, p + words * sizeof(std::uint64_t)};
}

template <class T>
bit_matrix to_bits_on(dense_view<T const, device> a, context& ctx) {
    bit_matrix out = pack<T>(a, ctx);
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(detail::stream_of(ctx)));
    return out;
}

template <class T>
void from_bits_on(bit_view<std::uint64_t const> src, dense_view<T, device> dst, context& ctx) {
    unpack<T>(src, dst, ctx);
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(detail::stream_of(ctx)));
}

void enqueue_bool_gemm(bit_view<std::uint64_t const> a, bit_view<std::uint64_t const> b,
                       bit_view<std::uint64_t> c, bool accumulate, cudaStream_t st);

/// On ctx's stream; returns with its work there done (the packed copies go then).
template <class T>
void lor_land_gemm(dense_view<T const, device> a, dense_view<T const, device> b,
                   dense_view<T, device> c, bool accumulate, context& ctx) {
    gemm_detail::check_shapes<T>(a, b, c);
    if (c.rows == 0 || c.cols == 0) return;
    bit_matrix const pa = pack<T>(a, ctx);
    bit_matrix const pb = pack<T>(b, ctx);
    bit_matrix pc = accumulate ? pack<T>(c, ctx) : bit_matrix(c.rows, c.cols, ctx);
    enqueue_bool_gemm(pa.view(), pb.view(), pc.view(), accumulate, detail::stream_of(ctx));
    unpack<T>(pc.view(), c, ctx);
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(detail::stream_of(ctx)));
}

}  // namespace

bit_matrix::bit_matrix(std::size_t rows, std::size_t cols, context& ctx)
    : rows_(rows), cols_(cols), ld_((cols + bits_per_word - 1) / bits_per_word),
      words_(rows * ((cols + bits_per_word - 1) / bits_per_word)) {
    if (!words_.empty())
        KLEENE_CUDA_CHECK(cudaMemsetAsync(words_.data(), 0, words_.size() * sizeof(std::uint64_t),
                                          detail::stream_of(ctx)));
}

bit_matrix::bit_matrix(std::size_t rows, std::size_t cols)
    : bit_matrix(rows, cols, default_context()) {
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(detail::stream_of(default_context())));
}

bit_matrix to_bits(dense_view<bool const, device> a) {
    return to_bits_on<bool>(a, default_context());
}
bit_matrix to_bits(dense_view<std::uint8_t const, device> a) {
    return to_bits_on<std::uint8_t>(a, default_context());
}
void from_bits(bit_view<std::uint64_t const> src, dense_view<bool, device> dst) {
    from_bits_on<bool>(src, dst, default_context());
}
void from_bits(bit_view<std::uint64_t const> src, dense_view<std::uint8_t, device> dst) {
    from_bits_on<std::uint8_t>(src, dst, default_context());
}

namespace {
void enqueue_bool_gemm(bit_view<std::uint64_t const> a, bit_view<std::uint64_t const> b,
                       bit_view<std::uint64_t> c, bool accumulate, cudaStream_t st) {
    if (a.cols != b.rows || a.rows != c.rows || b.cols != c.cols)
        throw dimension_mismatch("bool_gemm: A is " + kleene::detail::shape(a.rows, a.cols) +
                                 ", B is " + kleene::detail::shape(b.rows, b.cols) + ", C is " +
                                 kleene::detail::shape(c.rows, c.cols));
    constexpr std::size_t int_max = std::numeric_limits<int>::max();
    if (a.rows > int_max || a.cols > int_max || b.cols > int_max)
        throw invalid_argument("bool_gemm: dimensions past 2^31 - 1 are not supported");
    auto const cr = byte_range(c);
    auto const ar = byte_range(a);
    auto const br = byte_range(b);
    if ((cr.first < ar.second && ar.first < cr.second) ||
        (cr.first < br.second && br.first < cr.second))
        throw invalid_argument("bool_gemm: C overlaps A or B (write into a separate matrix)");
    if (c.rows == 0 || c.cols == 0) return;
    std::size_t const nw = (c.cols + 31) / 32;
    dim3 const grid(static_cast<unsigned>((nw + block_nw - 1) / block_nw),
                    static_cast<unsigned>((c.rows + block_m - 1) / block_m));
    if (grid.y > 65535)
        throw invalid_argument("bool_gemm: more than 65535 * 128 rows are not supported");
    bool_gemm_kernel<<<grid, threads, 0, st>>>(
        reinterpret_cast<std::uint32_t const*>(a.data), static_cast<std::int64_t>(a.ld) * 2,
        reinterpret_cast<std::uint32_t const*>(b.data), static_cast<std::int64_t>(b.ld) * 2,
        reinterpret_cast<std::uint32_t*>(c.data), static_cast<std::int64_t>(c.ld) * 2,
        static_cast<int>(c.rows), static_cast<int>(c.cols), static_cast<int>(a.cols), accumulate);
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::bool_gemm_kernel");
}
}  // namespace

void bool_gemm(bit_view<std::uint64_t const> a, bit_view<std::uint64_t const> b,
               bit_view<std::uint64_t> c, bool accumulate) {
    cudaStream_t const st = detail::stream_of(default_context());
    enqueue_bool_gemm(a, b, c, accumulate, st);
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

void bool_gemm(bit_view<std::uint64_t const> a, bit_view<std::uint64_t const> b,
               bit_view<std::uint64_t> c, bool accumulate, stream const& s) {
    enqueue_bool_gemm(a, b, c, accumulate, static_cast<cudaStream_t>(s.native()));
}

template <>
void dense_gemm<lor_land<bool>>(dense_view<bool const, device> a, dense_view<bool const, device> b,
                                dense_view<bool, device> c, bool accumulate) {
    lor_land_gemm<bool>(a, b, c, accumulate, default_context());
}
template <>
void dense_gemm<lor_land<std::uint8_t>>(dense_view<std::uint8_t const, device> a,
                                        dense_view<std::uint8_t const, device> b,
                                        dense_view<std::uint8_t, device> c, bool accumulate) {
    lor_land_gemm<std::uint8_t>(a, b, c, accumulate, default_context());
}
template <>
void dense_gemm<lor_land<bool>>(dense_view<bool const, device> a, dense_view<bool const, device> b,
                                dense_view<bool, device> c, bool accumulate, context& ctx) {
    lor_land_gemm<bool>(a, b, c, accumulate, ctx);
}
template <>
void dense_gemm<lor_land<std::uint8_t>>(dense_view<std::uint8_t const, device> a,
                                        dense_view<std::uint8_t const, device> b,
                                        dense_view<std::uint8_t, device> c, bool accumulate,
                                        context& ctx) {
    lor_land_gemm<std::uint8_t>(a, b, c, accumulate, ctx);
}

template void dense_gemm<any_pair<bool>>(dense_view<bool const, device>,
                                         dense_view<bool const, device>, dense_view<bool, device>,
                                         bool);
template void dense_gemm<any_pair<std::uint8_t>>(dense_view<std::uint8_t const, device>,
                                                 dense_view<std::uint8_t const, device>,
                                                 dense_view<std::uint8_t, device>, bool);
template void dense_gemm<any_pair<bool>>(dense_view<bool const, device>,
                                         dense_view<bool const, device>, dense_view<bool, device>,
                                         bool, context&);
template void dense_gemm<any_pair<std::uint8_t>>(dense_view<std::uint8_t const, device>,
                                                 dense_view<std::uint8_t const, device>,
                                                 dense_view<std::uint8_t, device>, bool, context&);

}  // namespace kleene::cuda

// CUDA runtime pieces of the out-of-core APSP and closure (out_of_core.hpp), and the stream and
// event handles (stream.hpp).

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/dense_gemm.cuh>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace kleene::cuda {

// ---- stream and event ---------------------------------------------------------------------------

stream::stream() : stream(stream_priority::normal) {}
// The one place a stream is made (tests/lint/streams_allowed.txt): library code borrows the
// context's stream or forks side streams from it (cuda::side_streams), which come through here.
stream::stream(stream_priority p) {
    int least = 0, greatest = 0;
    KLEENE_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    KLEENE_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
                                                   p == stream_priority::high ? greatest : least));
    handle_ = s;
}
stream::~stream() {
    if (owned_ && handle_) (void)cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
}
stream::stream(stream&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)), owned_(o.owned_) {}
stream& stream::operator=(stream&& o) noexcept {
    std::swap(handle_, o.handle_);
    std::swap(owned_, o.owned_);
    return *this;
}
void stream::synchronize() const {
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
}
void stream::wait(event const& e) const {
    KLEENE_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(handle_),
                                          static_cast<cudaEvent_t>(e.native()), 0));
}
void stream::wait_default() const {
    event const e;  // recorded on the legacy default stream: the one this waits for
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(e.native()), nullptr));
    wait(e);  // an event destroyed while waited on is released once the wait is satisfied
}

event::event(bool timing) {
    cudaEvent_t e = nullptr;
    KLEENE_CUDA_CHECK(
        cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    handle_ = e;
}
event::~event() {
    if (handle_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
}
event::event(event&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
event& event::operator=(event&& o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
}
void event::record(stream const& s) {
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(handle_),
                                      static_cast<cudaStream_t>(s.native())));
}
void event::synchronize() const {
    KLEENE_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)));
}
float event::elapsed_ms(event const& from, event const& to) {
    float ms = 0;
    KLEENE_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(from.handle_),
                                           static_cast<cudaEvent_t>(to.handle_)));
    return ms;
}

// ---- host memory --------------------------------------------------------------------------------

host_registration::host_registration(void* p, std::size_t bytes) {
    if (!p || bytes == 0) return;
    auto const t0 = std::chrono::steady_clock::now();
    cudaError_t const e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (e == cudaSuccess) {
        p_ = p;
        return;
    }
    (void)cudaGetLastError();
    // Page-locked already (cudaHostAlloc'ed, or registered by the caller): both ends of the
    // range are host memory the device can reach, so the copies go directly and in stream order;
    // the lock is the caller's and stays.
    auto pinned = [](void const* q) {
        cudaPointerAttributes at{};
        bool const yes = cudaPointerGetAttributes(&at, q) == cudaSuccess &&
                         at.type == cudaMemoryTypeHost;
        (void)cudaGetLastError();
        return yes;
    };
    if (pinned(p) && pinned(static_cast<char const*>(p) + bytes - 1)) {
        held_ = true;
        return;
    }
    failure_ = std::string("cudaHostRegister of ") + std::to_string(bytes) +
               " bytes failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}
host_registration::~host_registration() {
    if (p_) (void)cudaHostUnregister(p_);
}
void host_registration::reset() noexcept {
    if (p_) (void)cudaHostUnregister(std::exchange(p_, nullptr));
    held_ = false;
}
host_registration::host_registration(host_registration&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)), held_(std::exchange(o.held_, false)),
      failure_(std::move(o.failure_)), seconds_(o.seconds_) {}
host_registration& host_registration::operator=(host_registration&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(held_, o.held_);
    std::swap(failure_, o.failure_);
    std::swap(seconds_, o.seconds_);
    return *this;
}

pinned_memory::pinned_memory(std::size_t bytes) {
    if (bytes == 0) return;
    KLEENE_CUDA_CHECK(cudaHostAlloc(&p_, bytes, cudaHostAllocDefault));
}
pinned_memory::~pinned_memory() {
    if (p_) (void)cudaFreeHost(p_);
}
pinned_memory::pinned_memory(pinned_memory&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
pinned_memory& pinned_memory::operator=(pinned_memory&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
}

// ---- copies and small kernels -------------------------------------------------------------------

void copy_rows_async(void* dst, std::size_t dst_pitch, void const* src, std::size_t src_pitch,
                     std::size_t width, std::size_t rows, copy_kind kind, stream const& s) {
    if (width == 0 || rows == 0) return;
    cudaMemcpyKind const k = kind == copy_kind::host_to_device   ? cudaMemcpyHostToDevice
                             : kind == copy_kind::device_to_host ? cudaMemcpyDeviceToHost
                                                                 : cudaMemcpyDeviceToDevice;
    KLEENE_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, k,
                                        static_cast<cudaStream_t>(s.native())));
}

void fill_bytes_async(void* p, int value, std::size_t bytes, stream const& s) {
    if (bytes == 0) return;
    KLEENE_CUDA_CHECK(cudaMemsetAsync(p, value, bytes, static_cast<cudaStream_t>(s.native())));
}

namespace {
template <class T>
__global__ void negative_diagonal_kernel(T const* a, std::int64_t ld, int n, std::int64_t offset,
                                         unsigned long long* first) {
    int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n && a[i * ld + i] < T(0))
        atomicMin(first, static_cast<unsigned long long>(offset + i));
}
}  // namespace

template <class T>
void negative_diagonal_async(dense_view<T const, device> a, std::int64_t offset,
                             unsigned long long* first, stream const& s) {
    if (a.rows != a.cols)
        throw dimension_mismatch("negative_diagonal_async: the block must be square, not " +
                                 kleene::detail::shape(a.rows, a.cols));
    if (a.rows == 0) return;
    auto const blocks = static_cast<unsigned>((a.rows + 255) / 256);
    negative_diagonal_kernel<T><<<blocks, 256, 0, static_cast<cudaStream_t>(s.native())>>>(
        a.data, static_cast<std::int64_t>(a.ld), static_cast<int>(a.rows), offset, first);
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::negative_diagonal_kernel");
}

// ---- device facts -------------------------------------------------------------------------------

int multiprocessor_count() {
    int dev = 0, sms = 0;
    KLEENE_CUDA_CHECK(cudaGetDevice(&dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return sms;
}

template <class T>
int min_plus_gemm_blocks_per_sm() {
    using S = dense_safe<min_plus<T>>;
    int blocks = 0;
    if constexpr (gemm_detail::has_staged_path<T>) {
        using P = gemm_detail::staged_generic_policy<S>;
        KLEENE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, gemm_detail::staged_kernel_ready<S, P>(), gemm_detail::threads,
            gemm_detail::staged_smem_bytes<T>()));
    } else {
        KLEENE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, gemm_detail::gemm_kernel<S, gemm_detail::generic_policy<S>>,
            gemm_detail::threads, 0));
    }
    return std::max(blocks, 1);
}

#define KLEENE_OOC_INSTANTIATE(T)                                                                  \
    template void negative_diagonal_async<T>(dense_view<T const, device>, std::int64_t,           \
                                             unsigned long long*, stream const&);                 \
    template int min_plus_gemm_blocks_per_sm<T>();
KLEENE_OOC_INSTANTIATE(float)
KLEENE_OOC_INSTANTIATE(double)
KLEENE_OOC_INSTANTIATE(std::int32_t)
#undef KLEENE_OOC_INSTANTIATE

}  // namespace kleene::cuda

#pragma once
// Device memory and copies in the order of one stream, for the library's and the algorithms' GPU
// code (lib/backend/cuda, algorithms/cuda; include only from code compiled by nvcc). A call's
// temporaries are allocated and released on the caller's stream (cudaMallocAsync / cudaFreeAsync):
// neither waits for the device, where kleene::buffer's cudaFree waits for all of it. Reads back
// to the host wait on that stream only.

#include <kleene/context.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/memory_pool.hpp>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <limits>
#include <string>
#include <utility>

namespace kleene::cuda::detail {

/// A call's stream and the pool its temporaries come from (null: the device's current pool, as
/// cudaMallocAsync takes). It converts to and from a cudaStream_t, so that code that takes a
/// plain stream keeps working; code that takes a device_stream hands the pool on to the
/// stream_buffers it makes.
struct device_stream {
    cudaStream_t st = nullptr;
    cudaMemPool_t pool = nullptr;
    device_stream() = default;
    device_stream(cudaStream_t s) noexcept : st(s) {}  // NOLINT: implicit on purpose
    device_stream(cudaStream_t s, cudaMemPool_t p) noexcept : st(s), pool(p) {}
    operator cudaStream_t() const noexcept { return st; }  // NOLINT: implicit on purpose
};

/// ctx's stream and its memory pool (kleene/cuda/memory_pool.hpp: the caller's, or the
/// context's own).
inline device_stream stream_of(context& ctx) {
    return {static_cast<cudaStream_t>(ctx.stream()),
            static_cast<cudaMemPool_t>(cuda::memory_pool(ctx))};
}

/// n values of `size` bytes of device memory (uninitialised; nullptr for none), allocated on
/// stream s from its pool when it names one, else from the device's current pool.
inline void* stream_allocate(std::size_t n, std::size_t size, device_stream s) {
    if (n == 0) return nullptr;
    if (n > std::numeric_limits<std::size_t>::max() / size)
        throw device_error("cudaMallocAsync of " + std::to_string(n) + " values of " +
                           std::to_string(size) + " bytes: the size wraps");
    void* p = nullptr;
    if (s.pool) KLEENE_CUDA_CHECK(cudaMallocFromPoolAsync(&p, n * size, s.pool, s.st));
    else KLEENE_CUDA_CHECK(cudaMallocAsync(&p, n * size, s.st));
    return p;
}

/// Refuses (device_error, saying `what` and how to avoid it) an allocation meant to outlive the
/// call while st is being captured: it would belong to the graph, not to the later calls.
inline void refuse_under_capture(cudaStream_t st, std::string const& what) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    KLEENE_CUDA_CHECK(cudaStreamIsCapturing(st, &capture));
    if (capture != cudaStreamCaptureStatusNone)
        throw device_error(what + " while its stream is being captured: run the call once "
                                  "before the capture");
}

/// n T's of device memory (uninitialised), allocated on stream s (from its pool, when it names
/// one) and released on s when the buffer goes: work queued on s before the release may still
/// use it; other streams may not.
template <class T>
class stream_buffer {
  public:
    stream_buffer() = default;
    stream_buffer(std::size_t n, device_stream s)
        : p_(static_cast<T*>(stream_allocate(n, sizeof(T), s))), n_(n), s_(s.st) {}
    stream_buffer(stream_buffer&& o) noexcept
        : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), s_(o.s_) {}
    stream_buffer& operator=(stream_buffer&& o) noexcept {
        if (this != &o) {
            reset();
            p_ = std::exchange(o.p_, nullptr);
            n_ = std::exchange(o.n_, 0);
            s_ = o.s_;
        }
        return *this;
    }
    stream_buffer(stream_buffer const&) = delete;
    stream_buffer& operator=(stream_buffer const&) = delete;
    ~stream_buffer() { reset(); }

    void reset() noexcept {
        if (p_) (void)cudaFreeAsync(p_, s_);
        p_ = nullptr;
        n_ = 0;
    }
    T* data() noexcept { return p_; }
    T const* data() const noexcept { return p_; }
    std::size_t size() const noexcept { return n_; }
    /// Every byte zero, queued on the buffer's stream.
    void zero() {
        if (n_) KLEENE_CUDA_CHECK(cudaMemsetAsync(p_, 0, n_ * sizeof(T), s_));
    }

  private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
    cudaStream_t s_ = nullptr;
};

/// Temporary storage for a CUB device algorithm, from the call's stream-ordered pool: allocated
/// on the call's stream and released on it when the object goes (work queued before may still
/// use it). Grows, never shrinks.
class cub_temp {
  public:
    explicit cub_temp(device_stream s) : s_(s) {}
    void* get(std::size_t bytes) {
        if (bytes > buf_.size()) buf_ = stream_buffer<unsigned char>(bytes, s_);
        return buf_.data();
    }

  private:
    device_stream s_;
    stream_buffer<unsigned char> buf_;
};

/// n values from the device to the host, queued on s; returns once s has done them.
template <class T>
void copy_to_host(T* dst, T const* src, std::size_t n, cudaStream_t s) {
    if (n) KLEENE_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, s));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(s));
}

/// A call's result, n values from the device to the caller's host memory, after the work queued
/// on ctx's stream; large results through the context's page-locked buffers
/// (kleene/cuda/result_copy.hpp). Returns once they are there.
template <class T>
void copy_to_host(T* dst, T const* src, std::size_t n, context& ctx) {
    cuda::copy_result_to_host(static_cast<void*>(dst), static_cast<void const*>(src), n * sizeof(T),
                              ctx);
}

/// One value from the device, after the work queued on s before it.
template <class T>
T read_one(T const* p, cudaStream_t s) {
    T v{};
    copy_to_host(&v, p, 1, s);
    return v;
}

/// n T's of device memory (uninitialised) into b, allocated on stream s (from its pool, when it
/// names one); b releases them on s when it goes or is given another block (cudaFreeAsync, behind
/// the work queued there). See kleene::detail::stream_block. Under stream capture the allocation
/// is a node of the graph (and must be released within it).
template <class T>
T* allocate_block(kleene::detail::stream_block& b, std::size_t n, device_stream s) {
    b = kleene::detail::stream_block{};
    b.stream = s.st;
    b.release = [](kleene::detail::stream_block& x) noexcept {
        (void)cudaFreeAsync(x.data, static_cast<cudaStream_t>(x.stream));
        x.data = nullptr;
        x.bytes = 0;
    };
    b.data = stream_allocate(n, sizeof(T), s);
    b.bytes = n * sizeof(T);
    return static_cast<T*>(b.data);
}

/// Later work on stream `to` waits for the work queued so far on stream `from` (an event, no host
/// wait); nothing when they are the same stream. For an object made on one stream and read by a
/// call on another (a dense_mask).
inline void order_after(void* from, cudaStream_t to) {
    if (static_cast<cudaStream_t>(from) == to) return;
    cudaEvent_t e = nullptr;
    KLEENE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    struct gone {  // released once the wait is satisfied
        cudaEvent_t e;
        ~gone() { (void)cudaEventDestroy(e); }
    } const g{e};
    KLEENE_CUDA_CHECK(cudaEventRecord(g.e, static_cast<cudaStream_t>(from)));
    KLEENE_CUDA_CHECK(cudaStreamWaitEvent(to, g.e, 0));
}

/// At least `bytes` of the scratch block b for work queued on st (contents not kept); see
/// kleene::detail::scratch_block. On the block's own stream the old block is released behind the
/// work queued there and the new one allocated in order, without a wait; after a change of stream
/// the old block is released with cudaFree, which waits for the device (work on the old stream
/// may still read it). The block comes from st's pool when it names one (a context's: stream_of),
/// else from the device's current pool. Growing under stream capture is refused (device_error).
inline void* grow_scratch(kleene::detail::scratch_block& b, std::size_t bytes, device_stream st) {
    bool const same = b.used && b.stream == static_cast<void*>(st.st);
    b.stream = st.st;
    b.used = true;
    if (b.bytes < bytes) {
        refuse_under_capture(st, "the context's device scratch must grow to " +
                                     std::to_string(bytes) + " bytes (it is kept)");
        if (b.data) {
            KLEENE_CUDA_CHECK(same ? cudaFreeAsync(b.data, st) : cudaFree(b.data));
            b.data = nullptr;
            b.bytes = 0;
        }
        b.data = stream_allocate(bytes, 1, st);
        b.bytes = bytes;
        b.release = [](kleene::detail::scratch_block& x) noexcept {
            (void)cudaFree(x.data);
            x.data = nullptr;
            x.bytes = 0;
        };
    }
    return b.data;
}

}  // namespace kleene::cuda::detail

// CUDA runtime glue: the one device allocator, copies, and device queries.

#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

#include <cuda_runtime.h>

#include <string>

namespace kleene {
namespace cuda {
namespace {
[[noreturn]] void fail(char const* call, cudaError_t e) {
    throw device_error(std::string(call) + " failed: " + cudaGetErrorName(e) + ": " +
                       cudaGetErrorString(e));
}
}  // namespace

void synchronize_foreign_stream(std::uintptr_t stream) {
    if (stream == 0)
        throw invalid_argument(
            "__cuda_array_interface__: stream 0 is ambiguous and not allowed (1: legacy default, "
            "2: per-thread default)");
    cudaStream_t const s = stream == 1   ? cudaStreamLegacy
                           : stream == 2 ? cudaStreamPerThread
                                         : reinterpret_cast<cudaStream_t>(stream);
    if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess)
        fail("cudaStreamSynchronize (the exporter's stream)", e);
}

bool built_with_cuda() noexcept { return true; }

int device_count() noexcept {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();  // clear the sticky "no device / no driver" error
        return 0;
    }
    return n;
}

void set_current_device(int device) {
    cudaError_t const e = cudaSetDevice(device);
    if (e != cudaSuccess)
        throw device_error(std::string("cudaSetDevice(") + std::to_string(device) +
                           ") failed: " + cudaGetErrorString(e));
}

int current_device() noexcept {
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return d;
}

void require_device() {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        (void)cudaGetLastError();
        throw no_device(std::string("no CUDA device is available") +
                        (e != cudaSuccess ? std::string(" (cudaGetDeviceCount: ") +
                                                cudaGetErrorString(e) + ")"
                                          : std::string()));
    }
}

std::string device_description(int device) {
    require_device();
    cudaDeviceProp p{};
    if (cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess)
        fail("cudaGetDeviceProperties", e);
    return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
           std::to_string(p.multiProcessorCount) + " SMs)";
}
}  // namespace cuda

namespace detail {
void* device_allocate(std::size_t bytes) {
    if (cuda::device_count() == 0) cuda::require_device();  // "no CUDA device", not a driver code
    void* p = nullptr;
    if (cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) {
        (void)cudaGetLastError();
        if (e == cudaErrorMemoryAllocation)
            throw device_error("cudaMalloc of " + std::to_string(bytes) +
                               " bytes failed: out of device memory");
        cuda::fail("cudaMalloc", e);
    }
    return p;
}
void device_deallocate(void* p) noexcept { (void)cudaFree(p); }
// memory.hpp's copies and zeroing take no context: they run on the legacy default stream (after
// its earlier work, and that of blocking streams) and return once done, so that later work on
// any stream, a non-blocking one too, sees their result. A plain cudaMemcpy returns before a
// device-to-device copy, or a pageable host-to-device one, has landed, and cudaMemset before
// the bytes are set.
namespace {
void finish_on_legacy_stream(char const* call, cudaError_t e) {
    if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamLegacy);  // no context: see above
    if (e != cudaSuccess) cuda::fail(call, e);
}
void copy_bytes_now(void* dst, void const* src, std::size_t bytes, cudaMemcpyKind kind,
                    char const* call) {
    // No context: the legacy default stream, waited for (above).
    finish_on_legacy_stream(call, cudaMemcpyAsync(dst, src, bytes, kind, cudaStreamLegacy));
}
}  // namespace
void copy_host_to_device(void* dst, void const* src, std::size_t bytes) {
    copy_bytes_now(dst, src, bytes, cudaMemcpyHostToDevice, "cudaMemcpy (host to device)");
}
void copy_device_to_host(void* dst, void const* src, std::size_t bytes) {
    copy_bytes_now(dst, src, bytes, cudaMemcpyDeviceToHost, "cudaMemcpy (device to host)");
}
void copy_device_to_device(void* dst, void const* src, std::size_t bytes) {
    copy_bytes_now(dst, src, bytes, cudaMemcpyDeviceToDevice, "cudaMemcpy (device to device)");
}
void device_zero(void* dst, std::size_t bytes) {
    // No context: the legacy default stream, waited for (above).
    finish_on_legacy_stream("cudaMemset", cudaMemsetAsync(dst, 0, bytes, cudaStreamLegacy));
}
}  // namespace detail
}  // namespace kleene

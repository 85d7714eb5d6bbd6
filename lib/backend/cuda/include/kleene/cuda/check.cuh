#pragma once
// Error checking for CUDA code in kleene: every failed runtime call or kernel launch becomes a
// kleene::device_error naming the call, the place and CUDA's error string. Include only from code
// compiled by nvcc (or code that includes cuda_runtime.h itself).

#include <kleene/error.hpp>

#include <cuda_runtime.h>

#include <string>

namespace kleene::cuda::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, char const* call, char const* file,
                                          int line) {
    (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                       cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    if (e == cudaErrorMemoryAllocation) what += " (out of device memory)";
    throw device_error(what);
}

/// A failed call of a CUDA library (cuBLAS, cuSPARSE) as a device_error: the call, the place, the
/// library's status name and text.
[[noreturn]] inline void throw_library_error(char const* call, char const* file, int line,
                                             char const* name, char const* text,
                                             bool out_of_memory) {
    throw device_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                       ": " + name + ": " + text + (out_of_memory ? " (out of device memory)" : ""));
}

inline void check_cuda(cudaError_t e, char const* call, char const* file, int line) {
    if (e != cudaSuccess) throw_cuda_error(e, call, file, line);
}

}  // namespace kleene::cuda::detail

/// Throws kleene::device_error when a CUDA runtime call fails.
#define KLEENE_CUDA_CHECK(call) ::kleene::cuda::detail::check_cuda((call), #call, __FILE__, __LINE__)

/// After a kernel launch: throws when the launch itself failed (bad configuration, no image for
/// this device). Errors raised while the kernel runs surface at the next synchronisation.
#define KLEENE_CUDA_CHECK_LAUNCH(kernel_name)                                                      \
    ::kleene::cuda::detail::check_cuda(cudaGetLastError(), "launch of " kernel_name, __FILE__,     \
                                       __LINE__)

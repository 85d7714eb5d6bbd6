#pragma once
// What the host code needs to know about the CUDA runtime, without including CUDA headers.

#include <string>

namespace kleene::cuda {

/// True when kleene was built with CUDA support.
bool built_with_cuda() noexcept;
/// Number of usable CUDA devices (0 when built without CUDA or when no driver/device is present).
int device_count() noexcept;
/// The calling thread's current CUDA device (cudaGetDevice; 0 without CUDA or a device).
int current_device() noexcept;
/// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"; throws no_device when there is none.
std::string device_description(int device = 0);
/// Throws no_device with an explanation when no GPU can be used.
void require_device();

}  // namespace kleene::cuda

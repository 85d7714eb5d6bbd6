#pragma once
// What the host code needs to know about the CUDA runtime, without including CUDA headers.

#include <kleene/detail/device_entry.hpp>

#include <cstdint>
#include <string>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// True when kleene was built with CUDA support.
KLEENE_DEVICE_ENTRY bool built_with_cuda() noexcept KLEENE_DEVICE_RETURNS(false);
/// Number of usable CUDA devices (0 when built without CUDA or when no driver/device is present).
KLEENE_DEVICE_ENTRY int device_count() noexcept KLEENE_DEVICE_RETURNS(0);
/// The calling thread's current CUDA device (cudaGetDevice; 0 without CUDA or a device).
KLEENE_DEVICE_ENTRY int current_device() noexcept KLEENE_DEVICE_RETURNS(0);
/// Makes `device` the calling thread's current device (cudaSetDevice; a thread of its own starts
/// on device 0).
KLEENE_DEVICE_ENTRY void set_current_device(int device) KLEENE_DEVICE_BODY;
/// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"; throws no_device when there is none.
KLEENE_DEVICE_ENTRY std::string device_description(int device = 0) KLEENE_DEVICE_VALUE;
/// Throws no_device with an explanation when no GPU can be used.
KLEENE_DEVICE_ENTRY void require_device() KLEENE_DEVICE_BODY;
/// Waits for another library's stream as __cuda_array_interface__ (version 3) names it: 1 the
/// legacy default stream, 2 the per-thread default stream, else a cudaStream_t. Memory that
/// library hands over is ready once this returns. 0 is refused (the protocol forbids it).
KLEENE_DEVICE_ENTRY void synchronize_foreign_stream(std::uintptr_t stream) KLEENE_DEVICE_BODY;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

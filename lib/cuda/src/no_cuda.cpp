// Built instead of lib/cuda/src/*.cu when kleene is configured without CUDA: every device request
// is a clear error, never a silent CPU fallback.

#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

namespace kleene {
namespace cuda {
namespace {
[[noreturn]] void unavailable() {
    throw no_device("kleene was built without CUDA (configure with -DKLEENE_CUDA=ON and nvcc)");
}
}  // namespace
bool built_with_cuda() noexcept { return false; }
int device_count() noexcept { return 0; }
void require_device() { unavailable(); }
std::string device_description(int) { unavailable(); }
}  // namespace cuda

namespace detail {
void* device_allocate(std::size_t) { cuda::require_device(); return nullptr; }
void device_deallocate(void*) noexcept {}
void copy_host_to_device(void*, void const*, std::size_t) { cuda::require_device(); }
void copy_device_to_host(void*, void const*, std::size_t) { cuda::require_device(); }
void copy_device_to_device(void*, void const*, std::size_t) { cuda::require_device(); }
}  // namespace detail
}  // namespace kleene

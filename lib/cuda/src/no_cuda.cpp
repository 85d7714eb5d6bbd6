// Built instead of lib/cuda/src/*.cu when kleene is configured without CUDA: every device request
// is a clear error, never a silent CPU fallback.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/detail/gemm_instances.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

namespace kleene {
namespace cuda {
using no_cuda::unavailable;
bool built_with_cuda() noexcept { return false; }
int device_count() noexcept { return 0; }
int current_device() noexcept { return 0; }
void require_device() { unavailable(); }
std::string device_description(int) { unavailable(); }

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device>,
                dense_view<typename S::value_type const, device>,
                dense_view<typename S::value_type, device>, bool) {
    unavailable();
}
template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device>,
                dense_view<typename S::value_type const, device>,
                dense_view<typename S::value_type, device>, bool, context&) {
    unavailable();
}
template <>
void dense_gemm<lor_land<bool>>(dense_view<bool const, device>, dense_view<bool const, device>,
                                dense_view<bool, device>, bool, context&) {
    unavailable();
}
template <>
void dense_gemm<lor_land<std::uint8_t>>(dense_view<std::uint8_t const, device>,
                                        dense_view<std::uint8_t const, device>,
                                        dense_view<std::uint8_t, device>, bool, context&) {
    unavailable();
}
template <>
void dense_gemm<lor_land<bool>>(dense_view<bool const, device>, dense_view<bool const, device>,
                                dense_view<bool, device>, bool) {
    unavailable();
}
template <>
void dense_gemm<lor_land<std::uint8_t>>(dense_view<std::uint8_t const, device>,
                                        dense_view<std::uint8_t const, device>,
                                        dense_view<std::uint8_t, device>, bool) {
    unavailable();
}
#define KLEENE_INSTANTIATE(semiring_template, T)                                                   \
    template void dense_gemm<semiring_template<T>>(dense_view<T const, device>,                   \
                                                   dense_view<T const, device>,                   \
                                                   dense_view<T, device>, bool);                  \
    template void dense_gemm<semiring_template<T>>(dense_view<T const, device>,                   \
                                                   dense_view<T const, device>,                   \
                                                   dense_view<T, device>, bool, context&);
KLEENE_GEMM_INSTANCES(KLEENE_INSTANTIATE)
#undef KLEENE_INSTANTIATE

bit_matrix::bit_matrix(std::size_t, std::size_t) { unavailable(); }
bit_matrix to_bits(dense_view<bool const, device>) { unavailable(); }
bit_matrix to_bits(dense_view<std::uint8_t const, device>) { unavailable(); }
void from_bits(bit_view<std::uint64_t const>, dense_view<bool, device>) { unavailable(); }
void from_bits(bit_view<std::uint64_t const>, dense_view<std::uint8_t, device>) { unavailable(); }
void bool_gemm(bit_view<std::uint64_t const>, bit_view<std::uint64_t const>,
               bit_view<std::uint64_t>, bool) {
    unavailable();
}
}  // namespace cuda

namespace detail {
void* device_allocate(std::size_t) { cuda::require_device(); return nullptr; }
void device_deallocate(void*) noexcept {}
void copy_host_to_device(void*, void const*, std::size_t) { cuda::require_device(); }
void copy_device_to_host(void*, void const*, std::size_t) { cuda::require_device(); }
void copy_device_to_device(void*, void const*, std::size_t) { cuda::require_device(); }
void device_zero(void*, std::size_t) { cuda::require_device(); }
}  // namespace detail
}  // namespace kleene

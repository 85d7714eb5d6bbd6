// Built instead of lib/cuda/src/*.cu when kleene is configured without CUDA: the stream handles,
// the out-of-core pieces (out_of_core.hpp) and the stream overloads of the GPU kernels all throw
// no_device.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/apsp.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/detail/gemm_instances.hpp>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>

namespace kleene::cuda {
using no_cuda::unavailable;

stream::stream() { unavailable(); }
stream::~stream() = default;
stream::stream(stream&&) noexcept = default;
stream& stream::operator=(stream&&) noexcept = default;
void stream::synchronize() const { unavailable(); }
void stream::wait(event const&) const { unavailable(); }
void stream::wait_default() const { unavailable(); }
int* stream::scratch_int() const { unavailable(); }
void* stream::scratch_bytes(std::size_t) const { unavailable(); }

event::event(bool) { unavailable(); }
event::~event() = default;
event::event(event&&) noexcept = default;
event& event::operator=(event&&) noexcept = default;
void event::record(stream const&) { unavailable(); }
void event::synchronize() const { unavailable(); }
float event::elapsed_ms(event const&, event const&) { unavailable(); }

host_registration::host_registration(void*, std::size_t) { unavailable(); }
host_registration::~host_registration() = default;
host_registration::host_registration(host_registration&&) noexcept = default;
host_registration& host_registration::operator=(host_registration&&) noexcept = default;

pinned_memory::pinned_memory(std::size_t) { unavailable(); }
pinned_memory::~pinned_memory() = default;
pinned_memory::pinned_memory(pinned_memory&&) noexcept = default;
pinned_memory& pinned_memory::operator=(pinned_memory&&) noexcept = default;

void copy_rows_async(void*, std::size_t, void const*, std::size_t, std::size_t, std::size_t,
                     copy_kind, stream const&) {
    unavailable();
}
void fill_bytes_async(void*, int, std::size_t, stream const&) { unavailable(); }
int multiprocessor_count() { unavailable(); }

template <class T>
void negative_diagonal_async(dense_view<T const, device>, std::int64_t, unsigned long long*,
                             stream const&) {
    unavailable();
}
template <class T>
int min_plus_gemm_blocks_per_sm() {
    unavailable();
}
template <class T>
void floyd_warshall_blocked(dense_view<T, device>, stream const&) {
    unavailable();
}
template <class T>
void min_into(dense_view<T, device>, dense_view<T const, device>, stream const&) {
    unavailable();
}
#define KLEENE_OOC_INSTANTIATE(T)                                                                  \
    template void negative_diagonal_async<T>(dense_view<T const, device>, std::int64_t,           \
                                             unsigned long long*, stream const&);                 \
    template int min_plus_gemm_blocks_per_sm<T>();                                                 \
    template void floyd_warshall_blocked<T>(dense_view<T, device>, stream const&);                \
    template void min_into<T>(dense_view<T, device>, dense_view<T const, device>, stream const&);
KLEENE_OOC_INSTANTIATE(float)
KLEENE_OOC_INSTANTIATE(double)
KLEENE_OOC_INSTANTIATE(std::int32_t)
#undef KLEENE_OOC_INSTANTIATE

void bit_warshall(bit_view<std::uint64_t>, stream const&) { unavailable(); }
void or_into(bit_view<std::uint64_t>, bit_view<std::uint64_t const>, stream const&) {
    unavailable();
}
void bool_gemm(bit_view<std::uint64_t const>, bit_view<std::uint64_t const>,
               bit_view<std::uint64_t>, bool, stream const&) {
    unavailable();
}

template <semiring_type S>
void dense_gemm(dense_view<typename S::value_type const, device>,
                dense_view<typename S::value_type const, device>,
                dense_view<typename S::value_type, device>, bool, stream const&, context*) {
    unavailable();
}
#define KLEENE_INSTANTIATE(semiring_template, T)                                                   \
    template void dense_gemm<semiring_template<T>>(dense_view<T const, device>,                   \
                                                   dense_view<T const, device>,                   \
                                                   dense_view<T, device>, bool, stream const&,    \
                                                   context*);
KLEENE_GEMM_INSTANCES(KLEENE_INSTANTIATE)
#undef KLEENE_INSTANTIATE

}  // namespace kleene::cuda

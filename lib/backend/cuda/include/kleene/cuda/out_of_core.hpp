#pragma once
// The CUDA runtime pieces of the out-of-core APSP and closure
// (algorithms/.../apsp_out_of_core.hpp): page-locking the caller's host matrix, strided
// asynchronous copies, pinned host memory, a few device facts, and the per-round negative-diagonal
// check. No CUDA header here: streams come as cuda::stream (stream.hpp). In a build without CUDA
// every entry throws kleene::no_device.

#include <kleene/cuda/stream.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/memory.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// Page-locks [p, p + bytes) with cudaHostRegister for the object's lifetime, so that copies from
/// and to it run by DMA at the link's rate and overlap kernels. A range its owner has page-locked
/// already (cudaHostAlloc, cudaHostRegister) counts as registered and stays locked when this
/// goes. A failure (no memory to lock, a range only partly locked) is not an error: registered()
/// is false and failure() says why; copies then still work, staged through the driver, without
/// overlap.
class host_registration {
public:
    host_registration() = default;
    /// Registered with the calling thread's current device's context (a thread of its own
    /// starts on device 0: set_current_device, runtime.hpp).
    host_registration(void* p, std::size_t bytes) KLEENE_DEVICE_BODY;
    ~host_registration() KLEENE_DEVICE_DEFAULT;
    host_registration(host_registration&& o) noexcept KLEENE_DEVICE_DEFAULT;
    host_registration& operator=(host_registration&& o) noexcept KLEENE_DEVICE_DEFAULT;
    host_registration(host_registration const&) = delete;
    host_registration& operator=(host_registration const&) = delete;

    /// Unregisters now.
    void reset() noexcept KLEENE_DEVICE_RETURNS();
    /// Whether the range is page-locked: registered here, or page-locked already by its owner
    /// (cudaHostAlloc, cudaHostRegister: both ends of the range are; not unregistered here).
    bool registered() const noexcept { return p_ != nullptr || held_; }
    /// Page-locked already by its owner (see registered()).
    bool held_elsewhere() const noexcept { return held_; }
    std::string const& failure() const noexcept { return failure_; }
    /// Wall time of cudaHostRegister (seconds).
    double seconds() const noexcept { return seconds_; }

private:
    void* p_ = nullptr;
    bool held_ = false;
    std::string failure_;
    double seconds_ = 0;
};

/// Page-locked host memory from cudaHostAlloc (small arrays the device writes asynchronously).
class pinned_memory {
public:
    pinned_memory() = default;
    explicit pinned_memory(std::size_t bytes) KLEENE_DEVICE_BODY;
    ~pinned_memory() KLEENE_DEVICE_DEFAULT;
    pinned_memory(pinned_memory&& o) noexcept KLEENE_DEVICE_DEFAULT;
    pinned_memory& operator=(pinned_memory&& o) noexcept KLEENE_DEVICE_DEFAULT;
    pinned_memory(pinned_memory const&) = delete;
    pinned_memory& operator=(pinned_memory const&) = delete;
    void* data() const noexcept { return p_; }

private:
    void* p_ = nullptr;
};

enum class copy_kind { host_to_device, device_to_host, device_to_device };

/// Copies `rows` rows of `width` bytes, `src_pitch` and `dst_pitch` bytes apart, on s
/// (cudaMemcpy2DAsync). Host memory that is not page-locked makes the call synchronous.
KLEENE_DEVICE_ENTRY void copy_rows_async(void* dst, std::size_t dst_pitch, void const* src,
                                         std::size_t src_pitch, std::size_t width, std::size_t rows,
                                         copy_kind kind, stream const& s) KLEENE_DEVICE_BODY;
/// Sets `bytes` bytes at device address p to `value`, on s.
KLEENE_DEVICE_ENTRY void fill_bytes_async(void* p, int value, std::size_t bytes,
                                          stream const& s) KLEENE_DEVICE_BODY;

/// *first = min(*first, offset + i) for every i with a(i,i) < 0 (a square), on s.
template <class T>
KLEENE_DEVICE_ENTRY void negative_diagonal_async(dense_view<T const, device> a, std::int64_t offset,
                                                 unsigned long long* first,
                                                 stream const& s) KLEENE_DEVICE_BODY;

/// Multiprocessors of the current device.
KLEENE_DEVICE_ENTRY int multiprocessor_count() KLEENE_DEVICE_VALUE;
/// Blocks of the dense min_plus GEMM kernel over T that one multiprocessor runs at once
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor): a product keeps the GPU full when its
/// 128 x 128 output blocks come in whole multiples of this times multiprocessor_count().
template <class T>
KLEENE_DEVICE_ENTRY int min_plus_gemm_blocks_per_sm() KLEENE_DEVICE_VALUE;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

#pragma once
// One host matrix to the device and back (the in-core GPU APSP's round trip, each rank's blocks in
// the distributed Floyd-Warshall), by one of two methods:
// - page_locked (the default): the whole matrix page-locked for the call (cudaHostRegister), one
//   DMA copy each way, released after. Where page-locking fails (a locked-memory limit, say) the
//   copies are staged instead, not left to the driver's slower pageable path (that only where
//   not even the staging buffers can be had);
// - staged: host threads copy 64 MiB chunks of the matrix into two page-locked buffers in turn
//   while the DMA engine moves the other buffer's chunk;
// - locked_behind: staged in; then, once lock_behind() is called (after the copy in, when the
//   device has its work queued), a thread of its own page-locks the matrix while the device
//   computes, and the copy out is one DMA copy from the locked matrix (staged if the locking
//   failed). The caller's thread waits for no page-locking before the copy in.
// Measured on the 4 x H200 host (2026-11-28, bench_distributed_apsp, n = 65536 fp32): one GPU's
// whole call took 20.23 s page-locked and 21.09 s staged (16 GiB each way); four ranks of 4 GiB
// 5.98 s and 6.02 s. Copies under 16 MiB go directly (the driver stages them itself).

#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

namespace kleene::cuda {

enum class host_transfer { staged, page_locked, locked_behind };

namespace detail {
/// memcpy by the threads of an OpenMP team, in pieces of 1 MiB.
inline void parallel_memcpy(void* dst, void const* src, std::size_t bytes) {
    constexpr std::size_t piece = std::size_t(1) << 20;
    auto const pieces = static_cast<std::int64_t>((bytes + piece - 1) / piece);
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (std::int64_t p = 0; p < pieces; ++p) {
        std::size_t const off = std::size_t(p) * piece;
        std::memcpy(static_cast<char*>(dst) + off, static_cast<char const*>(src) + off,
                    std::min(piece, bytes - off));
    }
}
}  // namespace detail

/// Copies between `rows` contiguous rows of `row_bytes` bytes at `host` and as many at a device
/// address. Both directions return when the copy has completed. Not for use by several threads
/// (its own locking thread aside, which it joins before it reads what that thread wrote).
class host_copy {
public:
    static constexpr std::size_t direct_below = std::size_t(16) << 20;
    static constexpr std::size_t chunk = std::size_t(64) << 20;

    host_copy(void* host, std::size_t rows, std::size_t row_bytes, host_transfer how)
        : host_(host), rows_(rows), row_(row_bytes), bytes_(rows * row_bytes), how_(how) {
        if (bytes_ < direct_below) return;
        if (how == host_transfer::page_locked) {
            pin_ = host_registration(host, bytes_);
            if (pin_.registered()) return;
        }
        std::size_t const c = std::min(chunk, bytes_);
        try {
            buf_[0] = pinned_memory(c);
            buf_[1] = pinned_memory(c);
        } catch (device_error const&) {
            // No page-locked memory to be had at all: direct copies from pageable memory, which
            // the driver stages itself (slower, but they work).
            buf_[0] = pinned_memory();
            buf_[1] = pinned_memory();
        }
    }

    host_copy(host_copy const&) = delete;
    host_copy& operator=(host_copy const&) = delete;
    ~host_copy() { join(); }

    /// locked_behind: starts page-locking the host matrix on a thread of its own (a no-op for
    /// the other methods, under direct_below, or when already started). Call it after to_device.
    void lock_behind() {
        if (how_ != host_transfer::locked_behind || tried_ || !staged()) return;
        tried_ = true;
        int const dev = current_device();
        locker_ = std::thread([this, dev] {
            try {
                pin_ = host_registration(host_, bytes_, dev);
            } catch (...) {  // (only an allocation of its message): the copy out stays staged
            }
        });
    }
    /// Seconds the page-locking took (wherever it ran) and the caller's thread waited for it;
    /// read them after to_host or release.
    double lock_seconds() const noexcept { return pin_.seconds(); }
    double lock_wait_seconds() const noexcept { return lock_wait_; }

    void to_device(void* device_dst, stream const& s) {
        join();
        if (!staged()) return direct(device_dst, host_, copy_kind::host_to_device, s);
        for (std::size_t i = 0; i * chunk < bytes_; ++i) {
            std::size_t const off = i * chunk, len = std::min(chunk, bytes_ - off);
            done_[i % 2].synchronize();  // the buffer's previous chunk has left it
            detail::parallel_memcpy(buf_[i % 2].data(), static_cast<char const*>(host_) + off, len);
            copy_rows_async(static_cast<char*>(device_dst) + off, len, buf_[i % 2].data(), len, len,
                            1, copy_kind::host_to_device, s);
            done_[i % 2].record(s);
        }
        s.synchronize();
    }

    void to_host(void const* device_src, stream const& s) {
        join();
        if (!staged()) return direct(host_, device_src, copy_kind::device_to_host, s);
        std::size_t const chunks = (bytes_ + chunk - 1) / chunk;
        auto fetch = [&](std::size_t i) {
            std::size_t const off = i * chunk, len = std::min(chunk, bytes_ - off);
            copy_rows_async(buf_[i % 2].data(), len, static_cast<char const*>(device_src) + off, len,
                            len, 1, copy_kind::device_to_host, s);
            done_[i % 2].record(s);
        };
        for (std::size_t i = 0; i < std::min<std::size_t>(chunks, 2); ++i) fetch(i);
        for (std::size_t i = 0; i < chunks; ++i) {
            std::size_t const off = i * chunk, len = std::min(chunk, bytes_ - off);
            done_[i % 2].synchronize();
            detail::parallel_memcpy(static_cast<char*>(host_) + off, buf_[i % 2].data(), len);
            if (i + 2 < chunks) fetch(i + 2);
        }
    }

    /// Releases the page-locking or the staging buffers now rather than at destruction.
    void release() {
        join();
        pin_ = host_registration();
        buf_[0] = pinned_memory();
        buf_[1] = pinned_memory();
    }

private:
    /// Whether the copies go through the staging buffers (asked for, page-locking failed, or the
    /// matrix not locked yet).
    bool staged() const noexcept { return buf_[0].data() != nullptr && !pin_.registered(); }
    void join() {
        if (!locker_.joinable()) return;
        auto const t0 = std::chrono::steady_clock::now();
        locker_.join();
        lock_wait_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    void direct(void* dst, void const* src, copy_kind k, stream const& s) const {
        if (bytes_ == 0) return;
        copy_rows_async(dst, row_, src, row_, row_, rows_, k, s);  // a pitch is below 2 GiB
        s.synchronize();
    }

    void* host_;
    std::size_t rows_, row_, bytes_;
    host_transfer how_;
    host_registration pin_;
    pinned_memory buf_[2];
    event done_[2];
    double lock_wait_ = 0;
    bool tried_ = false;
    std::thread locker_;  // locked_behind: writes pin_ until joined
};

}  // namespace kleene::cuda

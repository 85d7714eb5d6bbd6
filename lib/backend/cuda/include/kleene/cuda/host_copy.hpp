#pragma once
// One host matrix to the device and back (the in-core GPU APSP's round trip, each rank's blocks in
// the distributed Floyd-Warshall), by one of two methods:
// - page_locked (the default): the whole matrix page-locked for the call (cudaHostRegister), DMA
//   copies each way, released after. The locking happens at the first copy, on several threads
//   at once, each over its own range of the matrix (lock_threads; cut at 2 MiB boundaries), and
//   each thread queues its range's copy to the device as soon as the range is locked, so the copy
//   overlaps the locking of the rest. Where page-locking fails (a locked-memory limit, say) the
//   copies are staged instead, not left to the driver's slower pageable path (that only where
//   not even the staging buffers can be had);
// - staged: host threads copy 64 MiB chunks of the matrix into two page-locked buffers in turn
//   while the DMA engine moves the other buffer's chunk.
// Measured on the 4 x H200 host (bench_distributed_apsp, n = 65536 fp32, whole call; lab notes of
// 2026-11-28): one GPU (16 GiB each way) 20.23 s page-locked on one thread, 21.09 s staged, 20.05
// s with 8 locking threads and the copy in overlapped; four ranks of 4 GiB 5.98 s, 6.02 s, and
// 5.72 s with 8 threads (each rank's locking 0.42 s on one thread, 0.30 s on eight).
// Copies under 16 MiB go directly (the driver stages them itself).
// Tried and dropped (same host and day): staged in, then page-locked on a thread of its own while
// the device computed, direct out: 21.24 s against 20.45 s on one GPU, 5.89 s against 5.94 s on
// four ranks. Releasing the ranges during the distributed FW's last step (release_after) did not
// overlap it: each rank's release still ended about 0.3 s after its compute stream (5.69 s against
// 5.72 s on four ranks). cudaHostUnregister does wait for the device to go idle, and holds up
// kernel launches from other threads meanwhile (bench/gpu/probe_host_unregister.cu, H200,
// 2026-11-28): a release can never overlap device work.

#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

namespace kleene::cuda {

enum class host_transfer { staged, page_locked };

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

/// Runs f(i) for i in [0, count) on threads of their own (f(0) on the caller's), and waits.
template <class F>
void on_threads(std::size_t count, F&& f) {
    std::vector<std::thread> ts;
    ts.reserve(count);
    std::exception_ptr failed;
    try {
        for (std::size_t i = 1; i < count; ++i) ts.emplace_back([&f, i] { f(i); });
    } catch (...) {
        failed = std::current_exception();  // a thread that could not start: its part not done
    }
    if (count > 0) f(0);
    for (auto& t : ts) t.join();
    if (failed) std::rethrow_exception(failed);
}
}  // namespace detail

/// Copies between `rows` contiguous rows of `row_bytes` bytes at `host` and as many at a device
/// address. Both directions return when the copy has completed. Not for use by several threads.
class host_copy {
public:
    static constexpr std::size_t direct_below = std::size_t(16) << 20;
    static constexpr std::size_t chunk = std::size_t(64) << 20;
    /// Page-locking: at most this many threads, each over at least lock_share bytes.
    static constexpr std::size_t lock_share = std::size_t(256) << 20;

    /// lock_small: page-lock (page_locked) also a matrix under direct_below, as block_async
    /// needs.
    host_copy(void* host, std::size_t rows, std::size_t row_bytes, host_transfer how,
              std::size_t lock_threads = 8, bool lock_small = false)
        : host_(static_cast<char*>(host)), rows_(rows), row_(row_bytes), bytes_(rows * row_bytes) {
        bool const small_locked = lock_small && how == host_transfer::page_locked;
        if (bytes_ == 0 || (bytes_ < direct_below && !small_locked)) return;
        if (how == host_transfer::page_locked)
            lock_threads_ = std::max<std::size_t>(lock_threads, 1);  // locked at the first copy
        else
            make_buffers();
    }
    host_copy(host_copy const&) = delete;
    host_copy& operator=(host_copy const&) = delete;
    ~host_copy() { unlock(); }

    /// Whether the copies go straight from and to the host matrix (page-locked, or under
    /// direct_below), so that to_host_async may be used. Page-locks it first if not done yet.
    bool direct() {
        settle(nullptr, nullptr);
        return !staged();
    }

    /// Whether the whole matrix is page-locked (vacuously so when it is empty). Page-locks it
    /// first if not done yet.
    bool locked() {
        settle(nullptr, nullptr);
        return bytes_ == 0 || !pins_.empty();
    }

    /// Page-locked matrices only (locked()): rows [r0, r1), bytes [b0, b0 + width) of each, between
    /// the host matrix and a device block at `dev` whose rows lie `dev_pitch` bytes apart, queued
    /// on s (host_to_device or device_to_host). 2D copies, cut where the block passes from one
    /// locked range to the next (a row that straddles two goes as two plain copies).
    void block_async(void* dev, std::size_t dev_pitch, std::size_t r0, std::size_t r1,
                     std::size_t b0, std::size_t width, copy_kind k, stream const& s) {
        if (r0 > r1 || r1 > rows_ || b0 > row_ || width > row_ - b0 || dev_pitch < width)
            throw invalid_argument("host_copy::block_async: bad block");
        if (r0 == r1 || width == 0) return;
        if (!locked())
            throw invalid_argument("host_copy::block_async: the host matrix is not page-locked");
        auto* d = static_cast<char*>(dev);
        std::size_t r = r0;
        while (r < r1) {
            std::size_t const off = r * row_ + b0;
            // The locked range that holds byte off, and the rows from r that lie wholly in it.
            auto const i = std::size_t(std::upper_bound(cut_.begin(), cut_.end(), off) -
                                       cut_.begin()) - 1;
            std::size_t const end = cut_[i + 1];
            std::size_t const q =
                end >= off + width ? std::min(r1, r + (end - off - width) / row_ + 1) : r;
            if (q > r) {
                if (k == copy_kind::host_to_device)
                    copy_rows_async(d, dev_pitch, host_ + off, row_, width, q - r, k, s);
                else
                    copy_rows_async(host_ + off, row_, d, dev_pitch, width, q - r, k, s);
                d += (q - r) * dev_pitch;
                r = q;
            } else {
                copy_span(d, off, width, k, s);
                d += dev_pitch;
                ++r;
            }
        }
    }

    /// Page-locked: each thread copies its range as soon as the range is locked, so the copy
    /// overlaps the locking of the other ranges.
    void to_device(void* device_dst, stream const& s) {
        if (settle(device_dst, &s)) {
            s.synchronize();
            return;
        }
        if (!staged()) return copy_all(device_dst, copy_kind::host_to_device, s);
        for (std::size_t i = 0; i * chunk < bytes_; ++i) {
            std::size_t const off = i * chunk, len = std::min(chunk, bytes_ - off);
            done_[i % 2].synchronize();  // the buffer's previous chunk has left it
            detail::parallel_memcpy(buf_[i % 2].data(), host_ + off, len);
            copy_rows_async(static_cast<char*>(device_dst) + off, len, buf_[i % 2].data(), len, len,
                            1, copy_kind::host_to_device, s);
            done_[i % 2].record(s);
        }
        s.synchronize();
    }

    void to_host(void const* device_src, stream const& s) {
        settle(nullptr, nullptr);
        if (!staged()) return copy_all(device_src, copy_kind::device_to_host, s);
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
            detail::parallel_memcpy(host_ + off, buf_[i % 2].data(), len);
            if (i + 2 < chunks) fetch(i + 2);
        }
    }

    /// Direct copies only: rows [r0, r1) from the device matrix at `device_src` (the whole
    /// matrix's address) to the host, queued on s.
    void to_host_async(void const* device_src, std::size_t r0, std::size_t r1, stream const& s) {
        if (!direct()) throw invalid_argument("host_copy::to_host_async: the copies are staged");
        if (r0 > r1 || r1 > rows_) throw invalid_argument("host_copy::to_host_async: bad rows");
        copy_span(static_cast<char const*>(device_src) + r0 * row_, r0 * row_, (r1 - r0) * row_,
                  copy_kind::device_to_host, s);
    }

    /// Page-locked: releases each locked range on a thread of its own as soon as wait(r)
    /// returns there, r the row past the range's last byte: the caller's wait returns once no
    /// copy of rows [0, r) is left to run. The releases overlap the caller's remaining work and
    /// each other.
    template <class Wait>
    void release_after(Wait&& wait) {
        if (pins_.empty()) return;
        int const dev = current_device();
        detail::on_threads(pins_.size(), [&](std::size_t i) {
            try {
                set_current_device(dev);  // (the events waited for are this device's)
                wait(std::min(rows_, (cut_[i + 1] + row_ - 1) / row_));
            } catch (...) {
                // A failed wait is a device failure, which the caller's next synchronisation
                // reports; the range is released all the same (reset waits for nothing).
            }
            pins_[i].reset();
        });
    }

    /// Releases the page-locking or the staging buffers now rather than at destruction.
    void release() {
        lock_threads_ = 0;
        unlock();
        buf_[0] = pinned_memory();
        buf_[1] = pinned_memory();
    }

private:
    /// Whether the copies go through the staging buffers (asked for, or page-locking failed).
    bool staged() const noexcept { return buf_[0].data() != nullptr; }

    void make_buffers() {
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
    /// The page-locking, if still to be done: lock(), or the staging buffers where it fails.
    /// Returns whether the copy to `dst` on *s has been done with it (dst null: no copy).
    bool settle(void* dst, stream const* s) {
        if (!lock_threads_) return false;
        std::size_t const threads = std::exchange(lock_threads_, 0);
        if (lock(threads, dst, s)) return dst != nullptr;
        make_buffers();
        return false;
    }
    /// Page-locks the matrix in ranges of 2 MiB multiples, one thread each, all or nothing; with
    /// `dst`, each thread then queues its range's copy to the device on *s.
    bool lock(std::size_t threads, void* dst, stream const* s) {
        constexpr std::uintptr_t align = std::uintptr_t(2) << 20;
        std::size_t const parts = std::clamp<std::size_t>(bytes_ / lock_share, 1, threads);
        auto const base = reinterpret_cast<std::uintptr_t>(host_);
        std::vector<std::size_t> cut{0};
        for (std::size_t i = 1; i < parts; ++i) {
            std::uintptr_t const a = (base + i * (bytes_ / parts) + align - 1) / align * align;
            std::size_t const off = std::min<std::size_t>(a - base, bytes_);
            if (off > cut.back()) cut.push_back(off);
        }
        if (cut.back() < bytes_) cut.push_back(bytes_);
        std::vector<host_registration> pins(cut.size() - 1);
        std::vector<std::exception_ptr> failed(pins.size());
        int const dev = current_device();
        detail::on_threads(pins.size(), [&](std::size_t i) {
            if (!make_current(dev)) return;  // that range stays unlocked: staged copies
            try {
                pins[i] = host_registration(host_ + cut[i], cut[i + 1] - cut[i]);
                if (dst && pins[i].registered())
                    copy_pieces(static_cast<char*>(dst) + cut[i], host_ + cut[i],
                                cut[i + 1] - cut[i], copy_kind::host_to_device, *s);
            } catch (...) {
                failed[i] = std::current_exception();
            }
        });
        bool const all = std::all_of(pins.begin(), pins.end(),
                                     [](host_registration const& p) { return p.registered(); });
        cut_ = std::move(cut);
        pins_ = std::move(pins);
        bool const copy_failed =
            std::any_of(failed.begin(), failed.end(), [](auto const& e) { return bool(e); });
        if (!all || copy_failed) {
            if (dst) s->synchronize();  // copies from the locked ranges may still be running
            unlock();
            for (auto const& e : failed)
                if (e && dst) std::rethrow_exception(e);  // a copy's CUDA error
            return false;
        }
        return true;
    }
    void unlock() noexcept {
        if (pins_.empty()) return;
        int const dev = current_device();
        try {
            detail::on_threads(pins_.size(), [&](std::size_t i) {
                make_current(dev);
                pins_[i].reset();
            });
        } catch (...) {  // no thread to be had: the rest here
            for (auto& p : pins_) p.reset();
        }
        pins_.clear();
        cut_.clear();
    }
    /// Makes `device` current on the calling thread (a thread of its own starts on device 0);
    /// whether that worked.
    static bool make_current(int device) noexcept {
        try {
            set_current_device(device);
            return true;
        } catch (...) {
            return false;
        }
    }
    void copy_all(void const* dev, copy_kind k, stream const& s) const {
        copy_span(dev, 0, bytes_, k, s);
        s.synchronize();
    }
    /// Copies len bytes between host h and device d in pieces of at most 1 GiB (the driver's 2D
    /// copies take pitches below 2 GiB).
    static void copy_pieces(char* d, char* h, std::size_t len, copy_kind k, stream const& s) {
        constexpr std::size_t most = std::size_t(1) << 30;
        for (std::size_t off = 0; off < len; off += most) {
            std::size_t const n = std::min(most, len - off);
            if (k == copy_kind::host_to_device)
                copy_rows_async(d + off, n, h + off, n, n, 1, k, s);
            else
                copy_rows_async(h + off, n, d + off, n, n, 1, k, s);
        }
    }
    /// Direct copies of bytes [off, off + len) of the matrix from or to the device bytes at
    /// `dev` (those of byte off), none across two locked ranges.
    void copy_span(void const* dev, std::size_t off, std::size_t len, copy_kind k,
                   stream const& s) const {
        char* const at = static_cast<char*>(const_cast<void*>(dev));
        std::size_t const first = off, end = off + len;
        std::size_t r = 0;
        while (off < end) {
            while (r + 1 < cut_.size() && cut_[r + 1] <= off) ++r;
            std::size_t const stop = r + 1 < cut_.size() ? std::min(end, cut_[r + 1]) : end;
            copy_pieces(at + (off - first), host_ + off, stop - off, k, s);
            off = stop;
        }
    }

    char* host_;
    std::size_t rows_, row_, bytes_;
    std::size_t lock_threads_ = 0;         // page-locking still to be done, by this many threads
    std::vector<std::size_t> cut_;         // page-locked: the ranges' boundaries (offsets)
    std::vector<host_registration> pins_;  // page-locked: one registration a range
    pinned_memory buf_[2];
    event done_[2];
};

}  // namespace kleene::cuda

#pragma once
// Memory spaces and the one owning buffer every container uses. Moving data between spaces is
// always explicit (to_device / to_host); no operation copies behind the caller's back.

#include <kleene/detail/device_entry.hpp>
#include <kleene/detail/huge_pages.hpp>
#include <kleene/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace kleene {

/// Host memory (64-byte aligned, so vector loads of a row start aligned).
struct host {};
/// CUDA device memory (cudaMalloc through one allocator, lib/backend/cuda).
struct device {};

template <class Space>
concept memory_space = std::same_as<Space, host> || std::same_as<Space, device>;

namespace detail {
// Implemented in lib/backend/cuda (without CUDA: inline, throwing no_device;
// detail/device_entry.hpp).
KLEENE_DEVICE_ENTRIES_BEGIN
KLEENE_DEVICE_ENTRY void* device_allocate(std::size_t bytes) KLEENE_DEVICE_VALUE;
KLEENE_DEVICE_ENTRY void device_deallocate(void* p) noexcept KLEENE_DEVICE_RETURNS();
KLEENE_DEVICE_ENTRY void copy_host_to_device(void* dst, void const* src,
                                             std::size_t bytes) KLEENE_DEVICE_BODY;
KLEENE_DEVICE_ENTRY void copy_device_to_host(void* dst, void const* src,
                                             std::size_t bytes) KLEENE_DEVICE_BODY;
KLEENE_DEVICE_ENTRY void copy_device_to_device(void* dst, void const* src,
                                               std::size_t bytes) KLEENE_DEVICE_BODY;
KLEENE_DEVICE_ENTRY void device_zero(void* dst, std::size_t bytes) KLEENE_DEVICE_BODY;
KLEENE_DEVICE_ENTRIES_END

inline constexpr std::size_t host_alignment = 64;

// Implemented in lib/core/src/memory.cpp.
/// MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read.
std::uint64_t available_host_memory() noexcept;
/// Why `bytes` of host memory cannot be had, "" when they may: "more than 64 bits address", or
/// more than the system has available (the kernel would rather kill the process later than
/// refuse). Readers and generators ask before allocating what a hostile size asks for.
std::string host_memory_shortfall(long double bytes);

template <memory_space Space>
void* allocate(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    if constexpr (std::is_same_v<Space, host>) {
        try {
            void* const p = ::operator new(bytes, std::align_val_t{host_alignment});
            if (bytes >= huge_page_advice_bytes) advise_huge_pages(p, bytes);
            return p;
        } catch (std::bad_alloc const&) {
            throw out_of_memory("cannot allocate " + format_bytes(static_cast<long double>(bytes)) +
                                    " of host memory",
                                static_cast<long double>(bytes));
        }
    } else {
        return device_allocate(bytes);
    }
}

template <memory_space Space>
void deallocate(void* p) noexcept {
    if (!p) return;
    if constexpr (std::is_same_v<Space, host>) ::operator delete(p, std::align_val_t{host_alignment});
    else device_deallocate(p);
}

template <memory_space Dst, memory_space Src>
void copy_bytes(void* dst, void const* src, std::size_t bytes) {
    if (bytes == 0) return;
    if constexpr (std::is_same_v<Dst, host> && std::is_same_v<Src, host>) std::memcpy(dst, src, bytes);
    else if constexpr (std::is_same_v<Dst, device> && std::is_same_v<Src, host>)
        copy_host_to_device(dst, src, bytes);
    else if constexpr (std::is_same_v<Dst, host> && std::is_same_v<Src, device>)
        copy_device_to_host(dst, src, bytes);
    else copy_device_to_device(dst, src, bytes);
}
}  // namespace detail

/// A contiguous array of trivially copyable T in one memory space: owned (allocated here), or
/// borrowed from another library (a NumPy or CuPy array) that a keeper holds alive. Host buffers
/// are not value-initialised by resize(); callers write what they read.
template <class T, memory_space Space = host>
class buffer {
    static_assert(std::is_trivially_copyable_v<T>, "kleene buffers hold trivially copyable values");

public:
    using value_type = T;
    using space = Space;

    buffer() = default;
    explicit buffer(std::size_t n) : data_(alloc(n)), size_(n), capacity_(n) {}
    buffer(std::size_t n, T const& value) : buffer(n) { fill(value); }
    buffer(std::initializer_list<T> init) requires std::is_same_v<Space, host> : buffer(init.size()) {
        std::copy(init.begin(), init.end(), data_);
    }
    buffer(buffer const& o) : buffer(o.size_) {
        detail::copy_bytes<Space, Space>(data_, o.data_, o.size_ * sizeof(T));
    }
    buffer(buffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)),
          size_(std::exchange(o.size_, 0)),
          capacity_(std::exchange(o.capacity_, 0)),
          keeper_(std::move(o.keeper_)) {}
    buffer& operator=(buffer o) noexcept {
        swap(o);
        return *this;
    }
    ~buffer() {
        if (!keeper_) detail::deallocate<Space>(data_);
    }

    /// n values at p in this space, not copied and never freed here: `keeper` holds the memory
    /// alive (its owner's reference) and is released with the buffer. The owner must not free or
    /// change the memory in ways the buffer's user relies on while the buffer lives. A copy of a
    /// borrowed buffer owns its memory; resize() past the size moves into owned memory.
    static buffer borrow(T* p, std::size_t n, std::shared_ptr<void const> keeper) {
        if (!keeper) throw invalid_argument("buffer::borrow: a keeper of the memory is needed");
        if (!p && n != 0) throw invalid_argument("buffer::borrow: a null pointer for values");
        buffer b;
        b.data_ = p;
        b.size_ = b.capacity_ = n;
        b.keeper_ = std::move(keeper);
        return b;
    }
    /// Whether the memory is borrowed (see borrow()).
    bool borrowed() const noexcept { return static_cast<bool>(keeper_); }

    void swap(buffer& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        std::swap(capacity_, o.capacity_);
        keeper_.swap(o.keeper_);
    }

    T* data() noexcept { return data_; }
    T const* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

    /// Keeps the first min(n, size()) values; new values are uninitialised.
    void resize(std::size_t n) {
        if (n > capacity_) {
            T* p = alloc(n);
            detail::copy_bytes<Space, Space>(p, data_, size_ * sizeof(T));
            if (!keeper_) detail::deallocate<Space>(data_);
            keeper_.reset();
            data_ = p;
            capacity_ = n;
        }
        size_ = n;
    }
    void resize(std::size_t n, T const& value) requires std::is_same_v<Space, host> {
        std::size_t old = size_;
        resize(n);
        if (n > old) std::fill(data_ + old, data_ + n, value);
    }
    void clear() noexcept { size_ = 0; }
    void fill(T const& value) requires std::is_same_v<Space, host> {
        std::fill(data_, data_ + size_, value);
    }
    /// Every byte zero, in either space (T(0) for the arithmetic types).
    void zero() {
        if (size_ == 0) return;
        if constexpr (std::is_same_v<Space, host>)
            std::memset(static_cast<void*>(data_), 0, size_ * sizeof(T));
        else
            detail::device_zero(data_, size_ * sizeof(T));
    }

    T& operator[](std::size_t i) requires std::is_same_v<Space, host> { return data_[i]; }
    T const& operator[](std::size_t i) const requires std::is_same_v<Space, host> { return data_[i]; }
    T* begin() requires std::is_same_v<Space, host> { return data_; }
    T* end() requires std::is_same_v<Space, host> { return data_ + size_; }
    T const* begin() const requires std::is_same_v<Space, host> { return data_; }
    T const* end() const requires std::is_same_v<Space, host> { return data_ + size_; }

    /// Copy into another memory space (explicit; the only way data crosses spaces).
    template <memory_space To>
    buffer<T, To> copy_to() const {
        buffer<T, To> out(size_);
        detail::copy_bytes<To, Space>(out.data(), data_, size_ * sizeof(T));
        return out;
    }

private:
    static T* alloc(std::size_t n) {
        // n * sizeof(T) must not wrap: a wrapped size would allocate a few bytes for n values.
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
            long double const bytes = static_cast<long double>(n) * sizeof(T);
            throw out_of_memory(std::to_string(n) + " values of " + std::to_string(sizeof(T)) +
                                    " bytes need " + detail::format_bytes(bytes) +
                                    ", more than 64 bits address",
                                bytes);
        }
        return static_cast<T*>(detail::allocate<Space>(n * sizeof(T)));
    }

    T* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
    std::shared_ptr<void const> keeper_;  ///< set when the memory is borrowed
};

}  // namespace kleene

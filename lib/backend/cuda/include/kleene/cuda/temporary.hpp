#pragma once
// A call's device temporaries for code outside the CUDA sources (the algorithms' headers):
// memory from the context's stream-ordered pool (kleene/cuda/memory_pool.hpp), allocated and
// released on the context's stream (cudaMallocFromPoolAsync / cudaFreeAsync), where a device
// container's cudaMalloc and cudaFree wait for the whole device. The entry points are defined in
// lib/backend/cuda/src/operations_extract.cu.

#include <kleene/context.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

#include <cstddef>
#include <limits>
#include <memory>
#include <string>

namespace kleene::cuda::detail {
KLEENE_DEVICE_ENTRIES_BEGIN

/// `bytes` of uninitialised device memory into b, allocated on ctx's stream from its pool (none
/// for 0 bytes); b releases them on that stream when it goes. Out of memory: device_error saying
/// how many bytes.
KLEENE_DEVICE_ENTRY void allocate_stream_block(kleene::detail::stream_block& b, std::size_t bytes,
                                               context& ctx) KLEENE_DEVICE_BODY;

/// `bytes` of host memory (src_on_host) or device memory copied into b, allocated on ctx's stream
/// from its pool, the copy queued there (a pageable host source may go when this returns: it is
/// staged before it does). For a call's index lists and operand copies
/// (lib/backend/cuda/src/operations_extract.cu).
KLEENE_DEVICE_ENTRY void copy_to_stream_block(kleene::detail::stream_block& b, void const* src,
                                              std::size_t bytes, bool src_on_host,
                                              context& ctx) KLEENE_DEVICE_BODY;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda::detail

namespace kleene::cuda {

/// A rows x cols dense matrix of T on the device (row-major, packed) for the length of a call:
/// from ctx's pool on ctx's stream, released there when it goes. Work on another stream must wait
/// for ctx's stream before it touches it, and be waited for before it goes.
template <class T>
class temporary_matrix {
public:
    temporary_matrix() = default;
    temporary_matrix(std::size_t rows, std::size_t cols, context& ctx) : rows_(rows), cols_(cols) {
        detail::allocate_stream_block(block_, bytes(rows, cols), ctx);
    }

    /// rows x cols values from packed host memory, copied on ctx's stream (staged: `src` may go
    /// when this returns).
    static temporary_matrix copy_of_host(T const* src, std::size_t rows, std::size_t cols,
                                         context& ctx) {
        temporary_matrix m;
        detail::copy_to_stream_block(m.block_, src, bytes(rows, cols), true, ctx);
        m.rows_ = rows;
        m.cols_ = cols;
        return m;
    }

    T* data() const noexcept { return static_cast<T*>(block_.data); }
    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    dense_view<T, device> view() const noexcept { return {data(), rows_, cols_, cols_}; }

private:
    static std::size_t bytes(std::size_t rows, std::size_t cols) {
        if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols / sizeof(T))
            throw out_of_memory("a device temporary of " + kleene::detail::shape(rows, cols) +
                                    " values does not fit in the address space",
                                static_cast<long double>(rows) * static_cast<long double>(cols) *
                                    sizeof(T));
        return rows * cols * sizeof(T);
    }

    kleene::detail::stream_block block_;
    std::size_t rows_ = 0, cols_ = 0;
};

namespace detail {
template <class T>
std::size_t temporary_bytes(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T))
        throw out_of_memory("a device temporary of " + std::to_string(n) +
                                " values does not fit in the address space",
                            static_cast<long double>(n) * sizeof(T));
    return n * sizeof(T);
}
/// n values of T in b, lent to a buffer that keeps b (and so the memory) alive.
template <class T>
buffer<T, device> lend(std::shared_ptr<kleene::detail::stream_block> b, std::size_t n) {
    T* const p = static_cast<T*>(b->data);
    return buffer<T, device>::borrow(p, n, std::move(b));
}
}  // namespace detail

/// n values of T (uninitialised) on the device for the length of a call, as a kleene::buffer for
/// the device containers a call builds for its kernels (a host graph's structure, indices
/// narrowed for a kernel): memory of ctx's pool, borrowed by the buffer (buffer::borrow) and
/// released on ctx's stream when the buffer goes. Not for results: a copy of the buffer owns
/// device memory of its own.
template <class T>
buffer<T, device> temporary_buffer(std::size_t n, context& ctx) {
    auto b = std::make_shared<kleene::detail::stream_block>();
    detail::allocate_stream_block(*b, detail::temporary_bytes<T>(n), ctx);
    return detail::lend<T>(std::move(b), n);
}

/// The same holding n values copied from host memory on ctx's stream (staged: `src` may go when
/// this returns).
template <class T>
buffer<T, device> temporary_copy_of_host(T const* src, std::size_t n, context& ctx) {
    auto b = std::make_shared<kleene::detail::stream_block>();
    detail::copy_to_stream_block(*b, src, detail::temporary_bytes<T>(n), true, ctx);
    return detail::lend<T>(std::move(b), n);
}

/// Waits for ctx's stream. The pool's release threshold applies at a synchronisation: a call that
/// has freed large temporaries calls this last, so that what the pool does not keep of them goes
/// back to the driver before the call returns.
inline void return_temporaries(context& ctx) { stream::borrow(ctx.stream()).synchronize(); }

/// Calls return_temporaries(ctx) when it goes, for a call whose temporaries live to its end:
/// declared before them, it goes after they have been released. A failure of that wait is not
/// reported: the call has waited for its work before (a way out by an exception has its error).
class temporaries_scope {
public:
    explicit temporaries_scope(context& ctx) noexcept : ctx_(ctx) {}
    temporaries_scope(temporaries_scope const&) = delete;
    temporaries_scope& operator=(temporaries_scope const&) = delete;
    ~temporaries_scope() {
        try {
            return_temporaries(ctx_);
        } catch (...) {  // see above
        }
    }

private:
    context& ctx_;
};

}  // namespace kleene::cuda

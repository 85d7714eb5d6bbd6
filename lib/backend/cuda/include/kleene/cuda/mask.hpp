#pragma once
// The masks as the device kernels read them, built from the usual mask views of device
// containers. dense_mask: one byte per output entry (row major for a matrix), non-zero where the
// mask allows a write before complementing, which every dense-output kernel reads
// (operations.hpp, sparse.hpp): `dense_mask(complement(mask(visited)))`. Dense masks hold every
// entry, so a structural one allows every entry (its complement none); a sparse vector's flags
// are its stored entries (a valued one: those not equal to zero), and so are a CSR matrix's (the
// mask of a dense output given as a CSR matrix: rows x cols bytes). csr_mask (below): the mask of a
// CSR output, and of the masked dot products. Both are made on a context's stream (the one
// given, or the calling thread's default_context()), their arrays allocated on that stream from
// the context's stream-ordered pool and released on it when the mask goes (no cudaMalloc or
// cudaFree: nothing waits for the device, and a dense_mask made inside a stream capture becomes
// part of the graph). A dense_mask's flags are ready in that stream's order when the constructor
// returns (nothing waited for); kleene's calls on another stream order themselves after it (an
// event), kernels of your own read flags() after the mask's stream. A valued csr_mask reads its
// size back, so it is ready when its constructor returns. Both are move-only; destroy a mask
// before the stream it was made on.
// Implemented in lib/backend/cuda/src/mask.cu and operations_mask.cu; in a build without CUDA the
// constructors throw kleene::no_device.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/memory.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

class dense_mask {
public:
    /// No mask: every entry may be written.
    dense_mask() = default;
    template <class M>
    dense_mask(mask_view<dense_matrix<M, device>> m, context& ctx) KLEENE_DEVICE_BODY;
    template <class M>
    dense_mask(mask_view<dense_vector<M, device>> m, context& ctx) KLEENE_DEVICE_BODY;
    template <class M, class I>
    dense_mask(mask_view<sparse_vector<M, I, device>> m, context& ctx) KLEENE_DEVICE_BODY;
    /// A CSR matrix's entries as the flags of a dense output (a valued mask: those not equal to
    /// zero): the mask of a dense device output given as a CSR matrix, rows x cols bytes.
    template <class M, class I>
    dense_mask(mask_view<csr_matrix<M, I, device>> m, context& ctx) KLEENE_DEVICE_BODY;
    template <class M>
    dense_mask(mask_view<dense_matrix<M, device>> m)  // NOLINT: implicit from a mask view
        : dense_mask(m, default_context()) {}
    template <class M>
    dense_mask(mask_view<dense_vector<M, device>> m)  // NOLINT
        : dense_mask(m, default_context()) {}
    template <class M, class I>
    dense_mask(mask_view<sparse_vector<M, I, device>> m)  // NOLINT
        : dense_mask(m, default_context()) {}
    template <class M, class I>
    dense_mask(mask_view<csr_matrix<M, I, device>> m)  // NOLINT
        : dense_mask(m, default_context()) {}

    bool active() const noexcept { return active_; }
    std::size_t size() const noexcept { return size_; }
    std::uint8_t const* flags() const noexcept {
        return static_cast<std::uint8_t const*>(flags_.data);
    }
    bool complemented() const noexcept { return complemented_; }
    /// Throws dimension_mismatch, naming `what`, when the mask is active and does not hold the
    /// rows x cols entries of the output it is given for.
    void require_size(std::size_t rows, std::size_t cols, char const* what) const {
        if (active_ && size_ != rows * cols)
            throw dimension_mismatch(std::string(what) + ": the mask has " +
                                     std::to_string(size_) + " entries, C is " +
                                     kleene::detail::shape(rows, cols));
    }
    /// The cudaStream_t the flags were made on (and are released on).
    void* stream() const noexcept { return flags_.stream; }

private:
    kleene::detail::stream_block flags_;
    std::size_t size_ = 0;
    bool complemented_ = false;
    bool active_ = false;
};

/// The name the sparse products use for a mask over an output vector.
using vector_mask = dense_mask;

/// A mask over the entries of a CSR output as the kernels read it: per row, the sorted columns of
/// the entries that allow a write before complementing (a structural mask: all its entries; a
/// valued one: those not equal to zero). A structural csr_mask refers to the mask matrix's
/// arrays, so it must not outlive it (like the mask view it comes from); a valued one owns its
/// filtered copy. Constructed in lib/backend/cuda/src/operations_mask.cu.
template <index_type Index>
class csr_mask {
public:
    /// No mask: every entry may be written.
    csr_mask() = default;
    /// A valued mask's filtering runs on ctx's stream (finished when this returns).
    template <class M>
    csr_mask(mask_view<csr_matrix<M, Index, device>> m, context& ctx) KLEENE_DEVICE_BODY;
    /// The same with the calling thread's default_context().
    template <class M>
    csr_mask(mask_view<csr_matrix<M, Index, device>> m)  // NOLINT: implicit from a mask view
        : csr_mask(m, default_context()) {}
    csr_mask(csr_mask const&) = delete;
    csr_mask& operator=(csr_mask const&) = delete;
    csr_mask(csr_mask&&) noexcept = default;  // blocks keep their addresses when moved
    csr_mask& operator=(csr_mask&&) noexcept = default;

    bool active() const noexcept { return active_; }
    bool complemented() const noexcept { return complemented_; }
    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    /// The entries that allow a write (before complementing).
    std::size_t nnz() const noexcept { return nnz_; }
    Index const* row_ptr() const noexcept { return ptr_; }
    Index const* col_idx() const noexcept { return idx_; }

private:
    kleene::detail::stream_block own_ptr_, own_idx_;  // a valued mask's entries that are not zero
    Index const* ptr_ = nullptr;
    Index const* idx_ = nullptr;
    std::size_t rows_ = 0, cols_ = 0, nnz_ = 0;
    bool complemented_ = false;
    bool active_ = false;
};

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

/// The mask value types lib/backend/cuda instantiates the constructors for (mask.cu).
#define KLEENE_MASK_VALUE_TYPES(X) \
    X(bool) X(std::uint8_t) X(float) X(double) X(std::int32_t) X(std::int64_t)
#define KLEENE_MASK_DECLARE(M)                                                                 \
    template dense_mask::dense_mask(mask_view<dense_matrix<M, device>>, context&);             \
    template dense_mask::dense_mask(mask_view<dense_vector<M, device>>, context&);             \
    template dense_mask::dense_mask(mask_view<sparse_vector<M, std::int32_t, device>>, context&); \
    template dense_mask::dense_mask(mask_view<sparse_vector<M, std::int64_t, device>>, context&); \
    template dense_mask::dense_mask(mask_view<csr_matrix<M, std::int32_t, device>>, context&);   \
    template dense_mask::dense_mask(mask_view<csr_matrix<M, std::int64_t, device>>, context&);

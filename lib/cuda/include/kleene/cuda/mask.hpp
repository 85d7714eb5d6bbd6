#pragma once
// The byte-flag mask every dense-output kernel on the device reads (operations.hpp, sparse.hpp):
// one byte per output entry (row major for a matrix), non-zero where the mask allows a write
// before complementing. Built from the usual mask views of device containers:
// `dense_mask(complement(mask(visited)))`. Dense masks hold every entry, so a structural one
// allows every entry (its complement none); a sparse vector's flags are its stored entries (a
// valued one: those not equal to zero). The flags are made on a context's stream (the one given,
// or the calling thread's default_context()) and are ready when the constructor returns.
// Implemented in lib/cuda/src/mask.cu; in a build without CUDA the constructors throw
// kleene::no_device.

#include <kleene/context.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/memory.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <cstddef>
#include <cstdint>

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
    template <class M>
    dense_mask(mask_view<dense_matrix<M, device>> m)  // NOLINT: implicit from a mask view
        : dense_mask(m, default_context()) {}
    template <class M>
    dense_mask(mask_view<dense_vector<M, device>> m)  // NOLINT
        : dense_mask(m, default_context()) {}
    template <class M, class I>
    dense_mask(mask_view<sparse_vector<M, I, device>> m)  // NOLINT
        : dense_mask(m, default_context()) {}

    bool active() const noexcept { return active_; }
    std::size_t size() const noexcept { return flags_.size(); }
    std::uint8_t const* flags() const noexcept { return flags_.data(); }
    bool complemented() const noexcept { return complemented_; }

private:
    buffer<std::uint8_t, device> flags_;
    bool complemented_ = false;
    bool active_ = false;
};

/// The name the sparse products use for a mask over an output vector.
using vector_mask = dense_mask;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

/// The mask value types lib/cuda instantiates the constructors for (mask.cu).
#define KLEENE_MASK_VALUE_TYPES(X) \
    X(bool) X(std::uint8_t) X(float) X(double) X(std::int32_t) X(std::int64_t)
#define KLEENE_MASK_DECLARE(M)                                                                 \
    template dense_mask::dense_mask(mask_view<dense_matrix<M, device>>, context&);             \
    template dense_mask::dense_mask(mask_view<dense_vector<M, device>>, context&);             \
    template dense_mask::dense_mask(mask_view<sparse_vector<M, std::int32_t, device>>, context&); \
    template dense_mask::dense_mask(mask_view<sparse_vector<M, std::int64_t, device>>, context&);

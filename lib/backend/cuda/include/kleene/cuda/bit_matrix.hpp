#pragma once
// Bit-packed Boolean matrices on the device and their or-and product.
//
// Layout: row-major, 64 Booleans a std::uint64_t word; entry (i, j) is bit j % 64 (least
// significant first) of word i * ld + j / 64. A bit_matrix keeps the bits past cols in each row's
// last word zero. Views select rows freely and columns at multiples of 64 (whole words); kernels
// never read the bits of a view's last word past its cols as data, and never change them.

#include <kleene/context.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

class stream;

inline constexpr std::size_t bits_per_word = 64;

template <class W>  // std::uint64_t or std::uint64_t const
struct bit_view {
    W* data = nullptr;
    std::size_t rows = 0;
    std::size_t cols = 0;  ///< in bits
    std::size_t ld = 0;    ///< words between the starts of consecutive rows

    /// The nr x nc block at (r0, c0); c0 must be a multiple of 64.
    bit_view block(std::size_t r0, std::size_t c0, std::size_t nr, std::size_t nc) const {
        if (r0 + nr > rows || c0 + nc > cols)
            throw dimension_mismatch("bit_view::block: block " + kleene::detail::shape(nr, nc) +
                                     " does not fit in a " + kleene::detail::shape(rows, cols) + " view");
        if (c0 % bits_per_word != 0)
            throw invalid_argument("bit_view::block: column offset " + std::to_string(c0) +
                                   " is not a multiple of 64");
        return {data + r0 * ld + c0 / bits_per_word, nr, nc, ld};
    }
    operator bit_view<W const>() const requires(!std::is_const_v<W>) {
        return {data, rows, cols, ld};
    }
};

class bit_matrix {
public:
    bit_matrix() = default;
    /// All bits clear, once the calling thread's default_context()'s stream has run the clearing
    /// (this waits for it).
    bit_matrix(std::size_t rows, std::size_t cols) KLEENE_DEVICE_BODY;
    /// All bits clear once ctx's stream has run the clearing (not waited for: later work on that
    /// stream sees it).
    bit_matrix(std::size_t rows, std::size_t cols, context& ctx) KLEENE_DEVICE_BODY;

    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    std::size_t ld() const noexcept { return ld_; }
    std::uint64_t* data() noexcept { return words_.data(); }
    std::uint64_t const* data() const noexcept { return words_.data(); }
    bit_view<std::uint64_t> view() noexcept { return {words_.data(), rows_, cols_, ld_}; }
    bit_view<std::uint64_t const> view() const noexcept { return {words_.data(), rows_, cols_, ld_}; }
    buffer<std::uint64_t, device> const& storage() const noexcept { return words_; }

private:
    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    std::size_t ld_ = 0;
    buffer<std::uint64_t, device> words_;
};

// The calls below without a stream run on the calling thread's default_context()'s stream and
// return with their work done.

/// Packs a dense Boolean matrix (an entry is true when non-zero).
KLEENE_DEVICE_ENTRY bit_matrix to_bits(dense_view<bool const, device> a) KLEENE_DEVICE_VALUE;
KLEENE_DEVICE_ENTRY bit_matrix to_bits(dense_view<std::uint8_t const, device> a)
    KLEENE_DEVICE_VALUE;
/// Writes every entry of dst (0 or 1); shapes must match.
KLEENE_DEVICE_ENTRY void from_bits(bit_view<std::uint64_t const> src,
                                   dense_view<bool, device> dst) KLEENE_DEVICE_BODY;
KLEENE_DEVICE_ENTRY void from_bits(bit_view<std::uint64_t const> src,
                                   dense_view<std::uint8_t, device> dst) KLEENE_DEVICE_BODY;

template <class T>
    requires(std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>)
dense_matrix<T, device> to_dense(bit_matrix const& a) {
    dense_matrix<T, device> out(a.rows(), a.cols());
    from_bits(a.view(), out.view());
    return out;
}

/// C = A or.and B, or C = C or (A or.and B) when accumulating. Synchronous; C must not overlap A
/// or B.
KLEENE_DEVICE_ENTRY void bool_gemm(bit_view<std::uint64_t const> a, bit_view<std::uint64_t const> b,
                                   bit_view<std::uint64_t> c, bool accumulate) KLEENE_DEVICE_BODY;
/// The same, only enqueued on s (stream.hpp).
KLEENE_DEVICE_ENTRY void bool_gemm(bit_view<std::uint64_t const> a, bit_view<std::uint64_t const> b,
                                   bit_view<std::uint64_t> c, bool accumulate,
                                   stream const& s) KLEENE_DEVICE_BODY;
inline void bool_gemm(bit_matrix const& a, bit_matrix const& b, bit_matrix& c, bool accumulate) {
    bool_gemm(a.view(), b.view(), c.view(), accumulate);
}

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

#pragma once
// kleene's binary matrix format (extension .kbin), for fast reloads: a versioned 128-byte
// header, then the raw arrays back to back, little-endian.
//
//   0  "KLEENEMX" magic           8  u32 version (1)           12 u32 header bytes (128)
//   16 u8 kind (1 csr, 2 dense)   17 u8 value_type             18 u8 index bytes (4 or 8)
//   19 u8 flags (1: iso)          20 u32 reserved (0)          24 u64 rows   32 u64 cols
//   40 u64 nnz (csr) / 0          48 u64 iso value bits         56 u64 payload checksum
//   64 u64 payload bytes          72..127 zero
//   csr payload: row_ptr (rows+1), col_idx (nnz), values (nnz, absent when iso);
//   dense payload: rows*cols values, row-major.
//
// The checksum is binary_checksum() of the payload (all arrays, in order): 1 MiB blocks hashed in
// parallel, then the block hashes hashed in order, so it is the same whatever the thread count.
//
// A file with a valid checksum can still be crafted, so the reader also refuses: flags other than
// iso (none for dense), a non-zero reserved field, padding or unused iso bits, nnz != 0 for dense,
// nnz > rows * cols, sizes that do not match the file (128-bit arithmetic), row pointers that do
// not run from 0 to nnz without decreasing, columns out of range or not strictly increasing in a
// row, and bool bytes other than 0 and 1; all before an index addresses anything. Errors are
// mm_error with code bad_binary (too_large when the index type cannot hold the sizes); the
// message is "file: what", naming the entry, row and byte offset where there is one.

#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/io/output_file.hpp>
#include <kleene/io/value_type.hpp>
#include <string>
#include <vector>

namespace kleene::io {

inline constexpr std::uint32_t binary_version = 1;
inline constexpr char const* binary_extension = ".kbin";
/// Where the payload starts: a dense payload's value k sits at binary_header_bytes + k * sizeof(T).
inline constexpr std::size_t binary_header_bytes = 128;

struct binary_header {
    std::uint32_t version = binary_version;
    bool dense = false;
    value_type type = value_type::float64;
    std::uint32_t index_bytes = 4;
    bool iso = false;
    std::uint64_t rows = 0;
    std::uint64_t cols = 0;
    std::uint64_t nnz = 0;
};

binary_header read_binary_header(std::string const& path);

template <class T, index_type Index>
void write_binary(std::string const& path, csr_matrix<T, Index> const& a, int threads = 0);
template <class T>
void write_binary(std::string const& path, dense_matrix<T> const& a, int threads = 0);
/// The same into an output_file, without committing it.
template <class T, index_type Index>
void write_binary(output_file& out, csr_matrix<T, Index> const& a, int threads = 0);
template <class T>
void write_binary(output_file& out, dense_matrix<T> const& a, int threads = 0);

/// Reads a CSR file. T and Index may differ from the file's where every value is exact.
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> read_binary(std::string const& path, int threads = 0);
template <class T>
dense_matrix<T> read_binary_dense(std::string const& path, int threads = 0);

/// 64-bit checksum of a byte range, as the format defines it (exposed for tests).
std::uint64_t binary_checksum(void const* data, std::size_t bytes, int threads = 0);

/// The same checksum of a payload handed over piece by piece, in order (a file read, or a
/// matrix made, a block of rows at a time): value() equals binary_checksum of the pieces joined.
/// Holds one 1 MiB block and 8 bytes for every MiB seen.
class binary_checksum_stream {
  public:
    binary_checksum_stream();
    void add(void const* data, std::size_t bytes);
    /// Bytes added so far.
    std::uint64_t bytes() const noexcept { return total_; }
    /// The checksum of everything added (more may be added after).
    std::uint64_t value() const;

  private:
    std::vector<unsigned char> block_;   // the current, unfinished block
    std::vector<std::uint64_t> hashes_;  // hashes of the finished blocks
    std::uint64_t total_ = 0;
};

/// The header of a CSR .kbin file whose payload the caller writes next, in order: row_ptr
/// (rows + 1 values of Index), col_idx (nnz), and the values (nnz of T) unless iso. `checksum` is
/// that payload's (binary_checksum_stream). With write_binary's inputs it writes write_binary's
/// header byte for byte; it is how a matrix too large to hold is written a block of rows at a
/// time (a distributed layout's join).
template <class T, index_type Index>
void write_binary_csr_header(output_file& out, std::uint64_t rows, std::uint64_t cols,
                             std::uint64_t nnz, bool iso, T iso_value, std::uint64_t checksum);

}  // namespace kleene::io

#pragma once
// Matrix Market (NIST) reading and writing. Files are 1-based; the containers are 0-based.
// The reader loads the whole file (mmap), splits the entry section into chunks that all threads
// parse with std::from_chars, and assembles CSR with a parallel counting sort by row. Every
// malformed input raises mm_error (a kleene::parse_error: file, line and an error class).
// Writers given a path write through an output_file (<kleene/io/output_file.hpp>: a temporary
// renamed into place, links followed, devices and FIFOs written directly) and commit it; writers
// given an output_file only write, and leave the commit to the caller (several outputs that must
// appear together). "-" means standard input / standard output.

#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/io/output_file.hpp>
#include <kleene/io/value_type.hpp>
#include <kleene/vector.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kleene::io {

enum class mm_object : std::uint8_t { matrix, vector };
enum class mm_format : std::uint8_t { coordinate, array };
enum class mm_field : std::uint8_t { real, double_, integer, pattern, complex };
enum class mm_symmetry : std::uint8_t { general, symmetric, skew_symmetric, hermitian };

std::string_view to_string(mm_object o) noexcept;
std::string_view to_string(mm_format f) noexcept;
std::string_view to_string(mm_field f) noexcept;  // "double" for double_
std::string_view to_string(mm_symmetry s) noexcept;

/// What the banner, the comments and the size line say. A vector object has cols == 1.
struct mm_header {
    mm_object object = mm_object::matrix;
    mm_format format = mm_format::coordinate;
    mm_field field = mm_field::real;
    mm_symmetry symmetry = mm_symmetry::general;
    std::uint64_t rows = 0;
    std::uint64_t cols = 0;
    /// Entry lines in the file (for array files: the values the symmetry says are stored).
    std::uint64_t file_entries = 0;
    /// From a `%%GraphBLAS type T` comment (LAGraph), when there is one.
    std::optional<value_type> graphblas_type;
    /// 1-based line number of the size line; entries start on the next line.
    std::uint64_t size_line = 0;

    /// The element type that holds this file's values exactly: the GraphBLAS type when given,
    /// else bool for pattern, int64 for integer, double for real.
    value_type natural_type() const noexcept;
};

/// The class of a reader failure; tests and tools match on this rather than on the words.
enum class mm_errc : std::uint8_t {
    truncated,   ///< the file ends before the size line, or inside an entry line
    bad_banner,  ///< first line is not `%%MatrixMarket object format field symmetry`
    unknown_object,
    unknown_format,
    unknown_field,
    unknown_symmetry,
    unknown_graphblas_type,
    unsupported,    ///< complex values; skew-symmetric pattern; skew into unsigned
    array_pattern,  ///< `array` with `pattern`
    not_square,     ///< symmetric, skew-symmetric or hermitian with rows != cols
    bad_size_line,
    too_large,           ///< a dimension or the entry count does not fit the index type
    bad_entry,           ///< an entry line with missing, extra or non-numeric fields
    index_out_of_range,  ///< index 0 or past the dimension
    bad_value,           ///< a value that does not parse
    value_overflow,      ///< a value that overflows the type or is not exact in it
    skew_diagonal,       ///< a diagonal entry in a skew-symmetric file
    too_many_entries,
    too_few_entries,
    duplicate_entry,
    bad_binary,  ///< binary format: bad magic, version, sizes or checksum
};
std::string_view to_string(mm_errc c) noexcept;

class mm_error : public parse_error {
  public:
    mm_error(std::string const& file, std::uint64_t line, mm_errc code, std::string const& what)
        : parse_error(file, line, what), code_(code) {}
    mm_errc code() const noexcept { return code_; }

  private:
    mm_errc code_;
};

struct read_options {
    /// 0: all OpenMP threads; more than 4 per processor are capped there.
    int threads = 0;
    duplicate_policy duplicates = duplicate_policy::error;
    /// Ignore the values and return the pattern (iso) matrix.
    bool pattern_only = false;
    /// Name used in messages when reading from memory or a stream (paths name themselves).
    std::string name;
};

/// Reads the banner, comments and size line only (the cost does not grow with the file).
mm_header read_matrix_market_header(std::string const& path);
mm_header read_matrix_market_header_from_memory(std::string_view text, std::string const& name);

/// Reads a matrix or vector object into CSR (a vector object becomes an n x 1 matrix). Pattern
/// files give an iso matrix of T(1); array files store every entry they hold. Symmetric,
/// skew-symmetric and hermitian files are expanded to the full matrix. Integer files read into
/// floating types and the reverse are allowed where every value is exact.
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> read_matrix_market(std::string const& path, read_options const& opt = {});
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> read_matrix_market_from_memory(std::string_view text,
                                                    read_options const& opt = {});

/// Dense read: array files fill every entry; coordinate files fill `absent` where nothing is
/// stored (duplicates follow opt.duplicates).
template <class T>
dense_matrix<T> read_matrix_market_dense(std::string const& path, T absent = T(0),
                                         read_options const& opt = {});
template <class T>
dense_matrix<T> read_matrix_market_dense_from_memory(std::string_view text, T absent = T(0),
                                                     read_options const& opt = {});

/// Vectors: a `vector` object, or a matrix with one column (or one row).
template <class T, index_type Index = std::int32_t>
sparse_vector<T, Index> read_matrix_market_vector(std::string const& path,
                                                  read_options const& opt = {});
template <class T, index_type Index = std::int32_t>
sparse_vector<T, Index> read_matrix_market_vector_from_memory(std::string_view text,
                                                              read_options const& opt = {});
template <class T>
dense_vector<T> read_matrix_market_dense_vector(std::string const& path, T absent = T(0),
                                                read_options const& opt = {});

struct write_options {
    /// general, symmetric or skew_symmetric (hermitian is written as symmetric). A symmetric
    /// symmetry writes the lower triangle only and throws invalid_argument when the matrix does
    /// not have that symmetry.
    mm_symmetry symmetry = mm_symmetry::general;
    /// Write `pattern` (no values). Iso matrices of one() are written as pattern anyway.
    bool pattern = false;
    /// Write LAGraph's `%%GraphBLAS type T` line, so that the element type survives the trip.
    bool graphblas_type_line = true;
    /// Extra comment lines (without the leading %).
    std::string comment;
    int threads = 0;
};

/// Coordinate format. Numbers are written in the shortest form that reads back to the same value.
template <class T, index_type Index>
void write_matrix_market(std::string const& path, csr_matrix<T, Index> const& a,
                         write_options const& opt = {});
/// Array format (column-major, as the format says).
template <class T>
void write_matrix_market(std::string const& path, dense_matrix<T> const& a,
                         write_options const& opt = {});
/// Vectors are written as n x 1 matrices (what every Matrix Market reader understands).
template <class T, index_type Index>
void write_matrix_market(std::string const& path, sparse_vector<T, Index> const& v,
                         write_options const& opt = {});
template <class T>
void write_matrix_market(std::string const& path, dense_vector<T> const& v,
                         write_options const& opt = {});

/// The same into an output_file, without committing it.
template <class T, index_type Index>
void write_matrix_market(output_file& out, csr_matrix<T, Index> const& a,
                         write_options const& opt = {});
template <class T>
void write_matrix_market(output_file& out, dense_matrix<T> const& a, write_options const& opt = {});
template <class T, index_type Index>
void write_matrix_market(output_file& out, sparse_vector<T, Index> const& v,
                         write_options const& opt = {});
template <class T>
void write_matrix_market(output_file& out, dense_vector<T> const& v, write_options const& opt = {});

/// A coordinate file (general symmetry) written a block of rows at a time, for a matrix too large
/// to hold whole (a distributed layout's join): the preamble and the size line of a rows x cols
/// matrix of `entries` entries, then the entry lines of each block of rows in order, the block's
/// row 0 being the matrix's row row0. The caller keeps the promise (the rows, in order, and
/// `entries` in all); with the same inputs the bytes are write_matrix_market's.
template <class T>
void write_coordinate_header(output_file& out, std::uint64_t rows, std::uint64_t cols,
                             std::uint64_t entries, bool pattern, write_options const& opt = {});
template <class T, index_type Index>
void write_coordinate_rows(output_file& out, csr_matrix<T, Index> const& block, std::uint64_t row0,
                           bool pattern, int threads = 0);

/// The same, into a string (tests, small outputs).
template <class T, index_type Index>
std::string write_matrix_market_to_string(csr_matrix<T, Index> const& a,
                                          write_options const& opt = {});
template <class T>
std::string write_matrix_market_to_string(dense_matrix<T> const& a, write_options const& opt = {});

}  // namespace kleene::io

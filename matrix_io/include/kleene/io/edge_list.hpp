#pragma once
// Plain edge lists: one "u v" or "u v w" line per edge, '#' or '%' comment lines, blank lines.
// Vertex ids are 1-based unless zero_based; without a shape line the matrix is n x n with n the
// largest id (or `vertices`). Without weights the result is a pattern (iso) matrix. Errors are
// mm_error.
//
// The writer starts with a shape line, `# kleene edge list: ROWS x COLS, N entries`, followed by
// `, TYPE values` when the matrix has values (TYPE as value_type's to_string names it: int32_t,
// double, ...), a comment to other readers. Among the comment lines before the first edge, the
// reader takes that line (exactly that form; a malformed one is an error) as the shape: an id
// outside it is an error naming file and line, as is a count of edge lines other than N (a cut
// file). `vertices`, when given, must then agree with a square shape. The TYPE is a hint to the
// caller, like Matrix Market's field (read_edge_list_type); the reader parses into the T it is
// asked for; an integer T takes integer weights only ("3", not "3.0"), read exactly.

#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/io/value_type.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kleene::io {

struct edge_list_options {
    int threads = 0;
    duplicate_policy duplicates = duplicate_policy::error;
    bool zero_based = false;
    /// Undirected: every edge (u, v) also gives (v, u).
    bool undirected = false;
    /// 0: the largest id decides.
    std::uint64_t vertices = 0;
    bool pattern_only = false;
    std::string name;
};

struct edge_list_info {
    std::uint64_t vertices = 0;  ///< max(rows, cols)
    std::uint64_t rows = 0, cols = 0;
    std::uint64_t edges = 0;  ///< edge lines in the file
    bool weighted = false;
    std::optional<value_type> type;  ///< the TYPE on the shape line, if any
};

/// Scans the file (parses every line) and reports what it holds.
edge_list_info read_edge_list_info(std::string const& path, edge_list_options const& opt = {});
edge_list_info read_edge_list_info_from_memory(std::string_view text,
                                               edge_list_options const& opt = {});

/// The TYPE on the writer's shape line; empty without a shape line or without a TYPE on it (a
/// pattern, or another program's file). Reads only the comment lines before the first edge.
std::optional<value_type> read_edge_list_type(std::string const& path);
std::optional<value_type> read_edge_list_type_from_memory(std::string_view text,
                                                          std::string const& name = "<memory>");

template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> read_edge_list(std::string const& path, edge_list_options const& opt = {});
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> read_edge_list_from_memory(std::string_view text,
                                                edge_list_options const& opt = {});

/// The shape line (with the value type, unless a pattern), then one "u v w" line per stored
/// entry (1-based ids; "u v" for pattern matrices).
template <class T, index_type Index>
void write_edge_list(std::string const& path, csr_matrix<T, Index> const& a, int threads = 0,
                     bool zero_based = false);
/// The same into an output_file, without committing it.
template <class T, index_type Index>
void write_edge_list(output_file& out, csr_matrix<T, Index> const& a, int threads = 0,
                     bool zero_based = false);

/// An edge list written a block of rows at a time (see write_coordinate_header): the shape line,
/// then each block's lines, its row 0 being the matrix's row row0. `pattern` as write_edge_list
/// decides it: entries > 0 and an iso matrix of one.
template <class T>
void write_edge_list_header(output_file& out, std::uint64_t rows, std::uint64_t cols,
                            std::uint64_t entries, bool pattern);
template <class T, index_type Index>
void write_edge_list_rows(output_file& out, csr_matrix<T, Index> const& block, std::uint64_t row0,
                          bool pattern, int threads = 0, bool zero_based = false);

/// The start of the shape line.
inline constexpr char const* edge_list_header = "# kleene edge list:";

}  // namespace kleene::io

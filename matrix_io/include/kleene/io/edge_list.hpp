#pragma once
// Plain edge lists: one "u v" or "u v w" line per edge, '#' or '%' comment lines, blank lines.
// Vertex ids are 1-based unless zero_based; the matrix is n x n with n the largest id (or
// `vertices`). Without weights the result is a pattern (iso) matrix. Errors are mm_error.

#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/io/matrix_market.hpp>
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
    std::uint64_t vertices = 0;
    std::uint64_t edges = 0;  ///< edge lines in the file
    bool weighted = false;
};

/// Scans the file (parses every line) and reports what it holds.
edge_list_info read_edge_list_info(std::string const& path, edge_list_options const& opt = {});

template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> read_edge_list(std::string const& path, edge_list_options const& opt = {});
template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> read_edge_list_from_memory(std::string_view text,
                                                edge_list_options const& opt = {});

/// One "u v w" line per stored entry (1-based ids; "u v" for pattern matrices).
template <class T, index_type Index>
void write_edge_list(std::string const& path, csr_matrix<T, Index> const& a, int threads = 0,
                     bool zero_based = false);

}  // namespace kleene::io

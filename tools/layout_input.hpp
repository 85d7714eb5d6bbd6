#pragma once
// A block layout (the directory `--distributed-output` writes: a manifest and one .kbin a rank,
// algorithms/include/kleene/algorithms/distributed/layout.hpp) as an input of `convert` and
// `info`. Every file is checked (presence, size, header, checksum) before anything is written.
// Neither holds the n x n matrix: both read a block of rows at a time (64 MiB), so a layout too
// large for one machine's memory can still be checked and converted.

#include <cstdint>
#include <kleene/io/file_format.hpp>
#include <kleene/io/output_file.hpp>
#include <string>

namespace kleene::tools {

/// True when `path` is a directory (only a layout is read from one; its manifest decides).
bool is_directory_input(std::string const& path);

struct layout_facts {
    std::uint64_t n = 0, entries = 0;
    std::string value_type, result, grid, block;
    int parts = 0;
    bool reflexive = false;
};

/// Checks every file of the layout at `dir` (payloads included) and counts the stored entries of
/// the result (distances: finite ones; reachability: reachable pairs, plus (i, i) when reflexive).
layout_facts check_layout(std::string const& dir, int threads);

/// Joins the layout and writes it to `out` as `to`: the same bytes as the gathered output of the
/// command that wrote it (Matrix Market), or that matrix as .kbin / an edge list. Returns
/// "n x n, k entries".
std::string convert_layout(std::string const& dir, io::output_file& out, io::file_format to,
                           int threads, bool zero_based);

}  // namespace kleene::tools

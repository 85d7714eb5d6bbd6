#pragma once
// Naming the line of a value that is not a finite number. Path algorithms need finite weights
// (path_weights.hpp); the readers accept NaN and infinities, which are valid Matrix Market values
// for other uses. A command that finds such a weight in what it read calls this to say where.

#include <cstddef>
#include <string>
#include <string_view>

namespace kleene::io {

/// Throws for the first NaN or infinite value of the file at `path`: a parse_error naming the file
/// and line for a text file (Matrix Market, edge list), else an error naming the entry (row, col)
/// (0-based arguments, 1-based in the message). `what` says who needs finite values ("sssp").
/// The text is read again to find the line, so call it only once such a value was seen.
[[noreturn]] void throw_nonfinite_value(std::string const& path, std::string_view what,
                                        std::size_t row, std::size_t col);

}  // namespace kleene::io

#pragma once
// The files a command names: inputs (a path, or "-" for standard input) and the set of outputs
// that appear together or not at all.

#include "signals.hpp"

#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/io/output_file.hpp>
#include <kleene/vector.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kleene::tools {

/// A matrix file named on the command line. "-" is standard input, read whole into memory when
/// the input is made, so that its header can be looked at and then the matrix parsed from the
/// same bytes; a path is left to the readers (which map it).
class input {
  public:
    explicit input(std::string path);
    bool is_stdin() const noexcept { return stdin_; }
    /// "<stdin>" or the path, for messages.
    std::string const& name() const noexcept { return name_; }
    std::string const& path() const noexcept { return path_; }

    io::mm_header header() const;
    template <class T, class Index = std::int32_t>
    csr_matrix<T, Index> matrix(io::read_options ro = {}) const {
        if (!stdin_) return io::read_matrix_market<T, Index>(path_, ro);
        ro.name = name_;
        return io::read_matrix_market_from_memory<T, Index>(text_, ro);
    }
    template <class T>
    dense_matrix<T> dense(T absent, io::read_options ro = {}) const {
        if (!stdin_) return io::read_matrix_market_dense<T>(path_, absent, ro);
        ro.name = name_;
        return io::read_matrix_market_dense_from_memory<T>(text_, absent, ro);
    }
    template <class T, class Index = std::int32_t>
    sparse_vector<T, Index> vector(io::read_options ro = {}) const {
        if (!stdin_) return io::read_matrix_market_vector<T, Index>(path_, ro);
        ro.name = name_;
        return io::read_matrix_market_vector_from_memory<T, Index>(text_, ro);
    }
    template <class T, class Index = std::int32_t>
    csr_matrix<T, Index> edges(io::edge_list_options eo = {}) const {
        if (!stdin_) return io::read_edge_list<T, Index>(path_, eo);
        eo.name = name_;
        return io::read_edge_list_from_memory<T, Index>(text_, eo);
    }
    io::edge_list_info edges_info(io::edge_list_options eo = {}) const;
    /// The value type an edge list's shape line names (read_edge_list_type).
    std::optional<io::value_type> edges_type() const;

  private:
    std::string path_, name_;
    bool stdin_ = false;
    std::string text_;
};

/// The output files of one command. Each is opened by add() before the work starts (a path that
/// cannot be written fails first, and its temporary is registered for removal on SIGINT/SIGTERM);
/// commit() publishes them together; destroyed without commit(), none is touched. Outputs written
/// directly (stdout, devices, FIFOs) get their bytes as they are written, so they stand outside
/// the all-or-nothing.
class output_set {
  public:
    explicit output_set(temp_registry* temps) : temps_(temps) {}
    output_set(output_set const&) = delete;
    output_set& operator=(output_set const&) = delete;

    io::output_file& add(std::string const& path);
    /// The k-th output added.
    io::output_file& operator[](std::size_t k) { return *files_.at(k); }
    /// Finishes every output (flush and close; a failure throws and renames nothing), then
    /// renames each into place. A rename failing after others succeeded says which are in place.
    /// Warns on stderr when a replaced file had other hard links (they keep the old content).
    void commit();

  private:
    temp_registry* temps_;
    std::vector<std::unique_ptr<io::output_file>> files_;
};

}  // namespace kleene::tools

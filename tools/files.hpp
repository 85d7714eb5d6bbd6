#pragma once
// The files a command names: inputs (a path, or "-" for standard input) and the set of outputs
// that appear together or not at all.

#include "commands.hpp"
#include "signals.hpp"

#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/io/binary.hpp>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/file_format.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/io/output_file.hpp>
#include <kleene/vector.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::tools {

/// The options every command that reads a matrix file shares (add_read_options): which reader,
/// what duplicate entries become, and the edge-list conventions.
struct read_flags {
    std::string command;  ///< the command's name, for messages ("kleene mxm --duplicates ...")
    std::string format;   ///< --format: mtx, kbin or el (txt); empty: by the file's name
    std::string duplicates = "error";
    bool zero_based = false;  ///< edge lists: ids start at 0
    bool undirected = false;  ///< edge lists: each edge both ways
    int threads = 0;
};

/// Registers --format, --duplicates (default `duplicates`, `why` says why that one), --zero-based
/// and --undirected on `cmd`, into `f`.
void add_read_options(CLI::App* cmd, read_flags& f, std::string const& duplicates, char const* why);

/// What a matrix file holds, from its header (Matrix Market, .kbin) or a scan (edge lists).
struct matrix_facts {
    std::uint64_t rows = 0, cols = 0;
    std::uint64_t entries = 0;  ///< stored in the file (Matrix Market: before symmetric expansion)
    bool pattern = false;       ///< no values
    bool integral = false;      ///< pattern, or integer values
    bool symmetric = false;     ///< Matrix Market's symmetry, or an edge list read --undirected
};

/// A matrix file named on the command line, in any format the tool reads: Matrix Market (.mtx),
/// kleene's binary (.kbin) or an edge list (.el, .txt); chosen by --format, else the extension,
/// else the content (the Matrix Market banner, the .kbin magic, else an edge list). "-" is
/// standard input (Matrix Market unless --format says el), read whole into memory when the input
/// is made, so that its header can be looked at and then the matrix parsed from the same bytes;
/// a path is left to the readers (which map it). Read errors name what to change: a Matrix
/// Market banner error the formats and --format, a duplicate entry the --duplicates option.
class input {
  public:
    explicit input(std::string path, read_flags const* flags = nullptr);
    bool is_stdin() const noexcept { return stdin_; }
    /// "<stdin>" or the path, for messages.
    std::string const& name() const noexcept { return name_; }
    std::string const& path() const noexcept { return path_; }
    io::file_format format() const noexcept { return format_; }

    /// Matrix Market only (info, convert): the banner, comments and size line.
    io::mm_header header() const;
    /// Any format; an edge list is scanned once for it.
    matrix_facts const& facts() const;

    /// The matrix, in any format. The flags' duplicate policy and edge-list conventions apply;
    /// ro.pattern_only reads a .kbin of any value type as its pattern.
    template <class T, class Index = std::int32_t>
    csr_matrix<T, Index> matrix(io::read_options ro = {}) const {
        if (flags_) {
            ro.duplicates = parse_duplicates(flags_->duplicates);
            ro.threads = flags_->threads;
        }
        return explained([&] {
            switch (format_) {
                case io::file_format::binary:
                    return binary_matrix<T, Index>(ro.pattern_only);
                case io::file_format::edge_list:
                    return edges<T, Index>(edge_options(ro));
                case io::file_format::matrix_market:
                    break;
            }
            if (!stdin_) return io::read_matrix_market<T, Index>(path_, ro);
            ro.name = name_;
            return io::read_matrix_market_from_memory<T, Index>(text_, ro);
        });
    }
    template <class T>
    dense_matrix<T> dense(T absent, io::read_options ro = {}) const {
        if (!stdin_) return io::read_matrix_market_dense<T>(path_, absent, ro);
        ro.name = name_;
        return io::read_matrix_market_dense_from_memory<T>(text_, absent, ro);
    }
    /// A vector: a Matrix Market vector object, or a matrix (any format) of one column or row.
    template <class T, class Index = std::int32_t>
    sparse_vector<T, Index> vector(io::read_options ro = {}) const {
        if (format_ != io::file_format::matrix_market) return vector_of(matrix<T, Index>(ro));
        if (flags_) ro.duplicates = parse_duplicates(flags_->duplicates);
        return explained([&] {
            if (!stdin_) return io::read_matrix_market_vector<T, Index>(path_, ro);
            ro.name = name_;
            return io::read_matrix_market_vector_from_memory<T, Index>(text_, ro);
        });
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
    io::edge_list_options edge_options(io::read_options const& ro) const;
    /// A .kbin file as CSR: T and Index where every value is exact, a pattern of any value type,
    /// or a dense file's every entry.
    template <class T, class Index>
    csr_matrix<T, Index> binary_matrix(bool pattern_only) const {
        auto const h = io::read_binary_header(path_);
        int const threads = flags_ ? flags_->threads : 0;
        if (h.dense) {
            csr_matrix<T, Index> out;
            io::visit_value_type(h.type, [&](auto tag) {
                using F = typename decltype(tag)::type;
                if constexpr (std::is_convertible_v<F, T>)
                    out = every_entry<T, Index>(io::read_binary_dense<F>(path_, threads),
                                                pattern_only);
            });
            return out;
        }
        if (!pattern_only) return io::read_binary<T, Index>(path_, threads);
        csr_matrix<T, Index> out;
        io::visit_value_type(h.type, [&](auto tag) {
            using F = typename decltype(tag)::type;
            auto a = io::read_binary<F, Index>(path_, threads);
            out = csr_matrix<T, Index>(a.rows(), a.cols(), std::move(a.row_ptr_storage()),
                                       std::move(a.col_idx_storage()), buffer<T>(), T(1), true);
        });
        return out;
    }
    /// Every entry of a dense matrix, stored (as a Matrix Market array file reads into CSR).
    template <class T, class Index, class F>
    static csr_matrix<T, Index> every_entry(dense_matrix<F> const& d, bool pattern_only) {
        std::size_t const r = d.rows(), c = d.cols();
        buffer<Index> ptr(r + 1), col(r * c);
        buffer<T> val(pattern_only ? 0 : r * c);
        for (std::size_t i = 0; i <= r; ++i) ptr[i] = static_cast<Index>(i * c);
        for (std::size_t k = 0; k < r * c; ++k) {
            col[k] = static_cast<Index>(k % c);
            if (!pattern_only) val[k] = static_cast<T>(d.data()[k]);
        }
        return {r, c, std::move(ptr), std::move(col), std::move(val), T(1), true};
    }
    template <class T, class Index>
    sparse_vector<T, Index> vector_of(csr_matrix<T, Index> const& a) const {
        if (a.cols() != 1 && a.rows() != 1)
            throw command_failed(name_ + ": a " + std::to_string(a.rows()) + "x" +
                                 std::to_string(a.cols()) +
                                 " matrix is not a vector (one column or one row)");
        buffer<Index> idx(a.nnz());
        buffer<T> val(a.nnz());
        std::size_t w = 0;
        for (std::size_t i = 0; i < a.rows(); ++i)
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
                idx[w] = static_cast<Index>(
                    a.cols() == 1 ? i : static_cast<std::size_t>(a.col_idx()[k]));
                val[w++] = a.value(k);
            }
        return sparse_vector<T, Index>(a.cols() == 1 ? a.rows() : a.cols(), std::move(idx),
                                       std::move(val));
    }
    /// Runs read(), adding to a reader's error what the command line can change about it.
    template <class F>
    auto explained(F&& read) const -> decltype(read()) {
        try {
            return read();
        } catch (io::mm_error const& e) {
            rethrow_explained(e);
        }
    }
    [[noreturn]] void rethrow_explained(io::mm_error const& e) const;

    std::string path_, name_;
    bool stdin_ = false;
    std::string text_;
    read_flags const* flags_ = nullptr;
    io::file_format format_ = io::file_format::matrix_market;
    std::string format_why_;  // "its extension", "--format", ...
    mutable std::optional<matrix_facts> facts_;
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

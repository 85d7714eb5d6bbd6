#include "files.hpp"

#include "commands.hpp"

#include <fmt/core.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <unistd.h>

namespace kleene::tools {

namespace {

/// The format of a file whose name does not say: the .kbin magic, the Matrix Market banner, else
/// an edge list. An unreadable file is left to the Matrix Market reader, which says why.
io::file_format sniff(std::string const& path) {
    std::ifstream f(path, std::ios::binary);
    char head[16] = {};
    if (!f.read(head, sizeof head) && f.gcount() == 0) return io::file_format::matrix_market;
    std::string_view const h(head, static_cast<std::size_t>(f.gcount()));
    if (h.starts_with("KLEENEMX")) return io::file_format::binary;
    std::string low(h.substr(0, 14));
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return low == "%%matrixmarket" ? io::file_format::matrix_market : io::file_format::edge_list;
}

}  // namespace

void add_read_options(CLI::App* cmd, read_flags& f, std::string const& duplicates,
                      char const* why) {
    f.command = cmd->get_name();
    f.duplicates = duplicates;
    cmd->add_option("--format", f.format,
                    "input format when the name does not say: mtx, kbin or el (txt); by default "
                    "the extension, else the content")
        ->check(one_of({"mtx", "kbin", "el", "txt"}));
    cmd->add_option("--duplicates", f.duplicates,
                    std::string("what repeated entries of an input become: error, sum, min, max "
                                "or last (default ") +
                        duplicates + ": " + why + ")")
        ->check(one_of({"error", "sum", "min", "max", "last"}));
    cmd->add_flag("--zero-based", f.zero_based, "edge-list input: vertex ids start at 0");
    cmd->add_flag("--undirected", f.undirected, "edge-list input: each edge goes both ways");
}

input::input(std::string path, read_flags const* flags)
    : path_(std::move(path)), name_(path_), stdin_(path_ == "-"), flags_(flags) {
    if (flags_ && !flags_->format.empty()) {
        format_ = *io::format_from_name(flags_->format);
        format_why_ = "--format " + flags_->format;
    } else if (stdin_) {
        format_why_ = "standard input without --format";
    } else if (auto const f = io::format_from_extension(path_)) {
        format_ = *f;
        format_why_ = "its extension";
    } else {
        format_ = sniff(path_);
        format_why_ = "its content";
    }
    if (!stdin_) return;
    name_ = "<stdin>";
    if (format_ == io::file_format::binary)
        throw usage_error("binary (.kbin) input cannot come from stdin ('-'); name the file");
    char buf[1 << 16];
    for (;;) {
        ssize_t const r = ::read(STDIN_FILENO, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            throw command_failed("<stdin>: read failed: " + std::string(std::strerror(errno)));
        if (r == 0) break;
        text_.append(buf, static_cast<std::size_t>(r));
    }
}

io::mm_header input::header() const {
    return explained([&] {
        return stdin_ ? io::read_matrix_market_header_from_memory(text_, name_)
                      : io::read_matrix_market_header(path_);
    });
}

matrix_facts const& input::facts() const {
    if (facts_) return *facts_;
    matrix_facts f;
    switch (format_) {
        case io::file_format::matrix_market: {
            auto const h = header();
            f.rows = h.rows;
            f.cols = h.cols;
            f.entries = h.file_entries;
            f.pattern = h.field == io::mm_field::pattern;
            f.integral = f.pattern || h.field == io::mm_field::integer ||
                         (h.graphblas_type && io::is_integral(*h.graphblas_type));
            f.symmetric = h.symmetry != io::mm_symmetry::general;
            break;
        }
        case io::file_format::binary: {
            auto const h = explained([&] { return io::read_binary_header(path_); });
            f.rows = h.rows;
            f.cols = h.cols;
            f.entries = h.dense ? h.rows * h.cols : h.nnz;
            f.pattern = h.iso && h.type == io::value_type::bool_;
            f.integral = io::is_integral(h.type);
            break;
        }
        case io::file_format::edge_list: {
            auto const i = explained([&] { return edges_info(edge_options({})); });
            f.rows = i.rows;
            f.cols = i.cols;
            f.entries = i.edges * (flags_ && flags_->undirected ? 2 : 1);
            f.pattern = !i.weighted;
            f.integral = f.pattern || (i.type && io::is_integral(*i.type));
            f.symmetric = flags_ && flags_->undirected;
            break;
        }
    }
    facts_ = f;
    return *facts_;
}

io::edge_list_options input::edge_options(io::read_options const& ro) const {
    io::edge_list_options eo;
    eo.threads = ro.threads;
    eo.duplicates = ro.duplicates;
    eo.pattern_only = ro.pattern_only;
    if (flags_) {
        eo.zero_based = flags_->zero_based;
        eo.undirected = flags_->undirected;
    }
    return eo;
}

void input::rethrow_explained(io::mm_error const& e) const {
    // The reader's words after "file:line: ".
    std::string what = e.what();
    std::string const prefix =
        e.file() + (e.line() ? ":" + std::to_string(e.line()) : std::string()) + ": ";
    if (what.starts_with(prefix)) what.erase(0, prefix.size());
    std::string const cmd = flags_ && !flags_->command.empty() ? "kleene " + flags_->command + " "
                                                               : std::string("kleene ");
    if (e.code() == io::mm_errc::duplicate_entry) {
        std::string const lib = "(choose a duplicate policy to merge: sum, min, max or last)";
        std::string const ours = "(" + cmd + "--duplicates sum, min, max or last merges them)";
        auto const at = what.find(lib);
        if (at != std::string::npos)
            what.replace(at, lib.size(), ours);
        else
            what += " " + ours;
    } else if (e.code() == io::mm_errc::bad_banner && format_ == io::file_format::matrix_market) {
        what += " (read as Matrix Market because of " + format_why_ +
                "; kleene also reads its binary .kbin files and edge lists (.el, .txt): " + cmd +
                "--format kbin or el)";
    } else {
        throw;
    }
    throw io::mm_error(e.file(), e.line(), e.code(), what);
}

io::edge_list_info input::edges_info(io::edge_list_options eo) const {
    if (!stdin_) return io::read_edge_list_info(path_, eo);
    eo.name = name_;
    return io::read_edge_list_info_from_memory(text_, eo);
}

std::optional<io::value_type> input::edges_type() const {
    return stdin_ ? io::read_edge_list_type_from_memory(text_, name_)
                  : io::read_edge_list_type(path_);
}

io::output_file& output_set::add(std::string const& path) {
    auto f = std::make_unique<io::output_file>(path, temps_);
    for (auto const& o : files_) {
        // One file written twice would keep only the last; two streams on stdout would mix.
        if ((f->is_stdout() && o->is_stdout()) ||
            (!f->direct() && !o->direct() && f->target() == o->target()))
            throw usage_error("'" + o->path() + "' and '" + path + "' are the same output");
    }
    files_.push_back(std::move(f));
    return *files_.back();
}

void output_set::commit() {
    for (auto& f : files_) f->finish();
    std::string done;
    for (auto& f : files_) {
        std::uint64_t const links = f->hard_links();
        try {
            f->commit();
        } catch (io_error const& e) {
            if (done.empty()) throw;
            throw command_failed(std::string(e.what()) + " (already written: " + done + ")");
        }
        if (!f->direct()) done += (done.empty() ? "" : ", ") + f->path();
        if (links > 1)
            fmt::print(stderr,
                       "kleene: warning: {} had {} hard links; it is now a new file, the other "
                       "links keep the old content\n",
                       f->path(), links);
    }
}

}  // namespace kleene::tools

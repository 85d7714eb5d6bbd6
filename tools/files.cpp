#include "files.hpp"

#include "commands.hpp"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace kleene::tools {

input::input(std::string path) : path_(std::move(path)), name_(path_), stdin_(path_ == "-") {
    if (!stdin_) return;
    name_ = "<stdin>";
    char buf[1 << 16];
    for (;;) {
        ssize_t const r = ::read(STDIN_FILENO, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw command_failed("<stdin>: read failed: " + std::string(std::strerror(errno)));
        if (r == 0) break;
        text_.append(buf, static_cast<std::size_t>(r));
    }
}

io::mm_header input::header() const {
    return stdin_ ? io::read_matrix_market_header_from_memory(text_, name_)
                  : io::read_matrix_market_header(path_);
}

io::edge_list_info input::edges_info(io::edge_list_options eo) const {
    if (!stdin_) return io::read_edge_list_info(path_, eo);
    eo.name = name_;
    return io::read_edge_list_info_from_memory(text_, eo);
}

std::optional<io::value_type> input::edges_type() const {
    return stdin_ ? io::read_edge_list_type_from_memory(text_, name_) : io::read_edge_list_type(path_);
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

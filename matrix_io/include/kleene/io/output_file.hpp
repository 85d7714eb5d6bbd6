#pragma once
// Where a writer's bytes go, so that an output appears whole or not at all.
//
// What the target is decides how it is written (it is looked at when the output_file is made):
// - "-": standard output, written directly (commit flushes it). A name of an open descriptor
//   ("/dev/stdout", "/dev/stderr", "/dev/fd/N", "/proc/self/fd/N") writes to that descriptor, at
//   its offset and in its mode, as a shell's `>&N` does (not through the link to what it holds).
// - A regular file, or a name that does not exist yet: the bytes go to a temporary
//   `.NAME.tmp.XXXXXX` beside it, created 0600, which commit() renames over the target. An existing
//   file's permission bits are kept, and its owner and group where the process may set them
//   (root: both; otherwise the group, when the user is in it); a new file gets 0666 & ~umask.
// - A symbolic link (a chain of up to 40): the regular file it leads to is replaced as above, in
//   that file's directory, so the link stays a link; a dangling link gets its target created.
// - A regular file with more than one hard link is replaced like any other (atomicity first):
//   this name gets the new file, the other links keep the old content. hard_links() says so
//   beforehand, so that a caller can warn.
// - Character and block devices and FIFOs (/dev/null, a named pipe, /dev/stderr on a terminal)
//   are opened O_WRONLY (no O_CREAT, no O_TRUNC) and written directly: no temporary, no rename,
//   and so no all-or-nothing. Opening a FIFO waits for a reader, as for any program.
// - A directory, a socket or an empty name is refused (io_error / invalid_argument naming it).
// Destroyed before commit(), the temporary is removed and the target is left as it was.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace kleene::io {

/// Told a temporary's name before it is created (add) and once it is renamed or removed
/// (remove), for a program that removes temporaries when it is killed (kleene's CLI does). Called
/// on the thread that uses the output_file.
class temp_observer {
  public:
    virtual void add(std::string const& tmp) = 0;
    virtual void remove(std::string const& tmp) = 0;

  protected:
    ~temp_observer() = default;
};

class output_file {
  public:
    explicit output_file(std::string const& path, temp_observer* observer = nullptr);
    ~output_file();
    output_file(output_file const&) = delete;
    output_file& operator=(output_file const&) = delete;

    /// Throws io_error when the bytes cannot be written (the message names the path).
    void write(char const* p, std::size_t n);
    void write(std::string_view s) { write(s.data(), s.size()); }

    /// Flushes and closes: everything that can fail except the rename. A set of outputs can be
    /// finished one by one and committed only when all finished. Idempotent.
    void finish();
    /// finish(), then the rename into place (a no-op for direct targets). Idempotent.
    void commit();

    /// The name as given.
    std::string const& path() const noexcept { return path_; }
    /// The file that commit() replaces (symbolic links followed); path() for direct targets.
    std::string const& target() const noexcept { return target_; }
    /// The temporary's name while it exists; empty when written directly.
    std::string const& temporary() const noexcept { return tmp_; }
    /// Written directly (standard output, a descriptor, a device, a FIFO): no temporary.
    bool direct() const noexcept { return direct_; }
    bool is_stdout() const noexcept { return to_stdout_; }
    /// The link count of the regular file that commit() replaces (0 for a new file or a direct
    /// target); above 1, the other links keep the old content.
    std::uint64_t hard_links() const noexcept { return links_; }

  private:
    void drop_temporary(bool unlink) noexcept;

    std::string path_, target_, tmp_;
    temp_observer* observer_ = nullptr;
    std::FILE* f_ = nullptr;
    bool to_stdout_ = false;
    bool direct_ = true;
    bool finished_ = false;
    bool failed_ = false;
    bool committed_ = false;
    std::uint64_t links_ = 0;
};

}  // namespace kleene::io

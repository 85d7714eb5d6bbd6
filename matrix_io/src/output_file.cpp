#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <kleene/error.hpp>
#include <kleene/io/output_file.hpp>

namespace kleene::io {
namespace {

std::string dir_of(std::string const& p) {
    auto const s = p.rfind('/');
    if (s == std::string::npos) return ".";
    return s == 0 ? "/" : p.substr(0, s);
}

std::string base_of(std::string const& p) {
    auto const s = p.rfind('/');
    return s == std::string::npos ? p : p.substr(s + 1);
}

/// The descriptor a name like /dev/fd/3 or /dev/stderr stands for; -1 for other names.
int descriptor_named(std::string const& p) {
    if (p == "/dev/stdout") return 1;
    if (p == "/dev/stderr") return 2;
    for (std::string_view const prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        if (p.size() <= prefix.size() || p.size() > prefix.size() + 9 ||
            p.compare(0, prefix.size(), prefix) != 0)
            continue;
        int n = 0;
        for (std::size_t k = prefix.size(); k < p.size(); ++k) {
            if (p[k] < '0' || p[k] > '9') return -1;
            n = n * 10 + (p[k] - '0');
        }
        return n;
    }
    return -1;
}

std::string read_link(std::string const& p) {
    std::string buf(256, '\0');
    for (;;) {
        ssize_t const n = ::readlink(p.c_str(), buf.data(), buf.size());
        if (n < 0) throw io_error(p + ": cannot read the symbolic link: " + std::strerror(errno));
        if (static_cast<std::size_t>(n) < buf.size()) {
            buf.resize(static_cast<std::size_t>(n));
            return buf;
        }
        buf.resize(buf.size() * 2);
    }
}

/// Six random characters for a temporary's name.
std::string random_suffix() {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[6];
    if (::getrandom(r, sizeof r, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof r)) {
        auto t = static_cast<std::uint64_t>(
                     std::chrono::steady_clock::now().time_since_epoch().count()) ^
                 (static_cast<std::uint64_t>(::getpid()) << 40);
        for (auto& c : r) {
            c = static_cast<unsigned char>(t);
            t = t * 6364136223846793005ull + 1442695040888963407ull;
            t ^= t >> 29;
        }
    }
    std::string s;
    for (unsigned char c : r) s += alphabet[c % (sizeof alphabet - 1)];
    return s;
}

}  // namespace

output_file::output_file(std::string const& path, temp_observer* observer)
    : path_(path), target_(path), observer_(observer) {
    if (path.empty()) throw invalid_argument("the output file name is empty");
    int const fd_named = path == "-" ? 1 : descriptor_named(path);
    if (fd_named == 1) {
        f_ = stdout;
        to_stdout_ = true;
        return;
    }
    auto open_stream = [&](int fd) {
        f_ = ::fdopen(fd, "wb");
        if (!f_) {
            int const e = errno;
            ::close(fd);
            throw io_error(path + ": cannot open a stream: " + std::strerror(e));
        }
    };
    if (fd_named >= 0) {
        int const fd = ::fcntl(fd_named, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
            throw io_error(path + ": descriptor " + std::to_string(fd_named) +
                           " is not open: " + std::strerror(errno));
        open_stream(fd);
        return;
    }
    // What the name leads to, links followed: devices and FIFOs are written directly.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) throw io_error(path + ": is a directory, not an output file");
        if (S_ISSOCK(st.st_mode))
            throw io_error(path +
                           ": is a socket; an output must be a regular file, a device or a FIFO");
        if (!S_ISREG(st.st_mode)) {
            int const fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
            if (fd < 0) throw io_error(path + ": cannot open: " + std::strerror(errno));
            open_stream(fd);
            return;
        }
    } else if (errno != ENOENT) {
        throw io_error(path + ": cannot write here: " + std::strerror(errno));
    }
    if (path.back() == '/') throw io_error(path + ": names a directory, not an output file");
    // A regular file, or none yet: find the name that the rename must replace (the end of a chain
    // of symbolic links; the links stay).
    bool exists = false;
    for (int hops = 0;; ++hops) {
        if (::lstat(target_.c_str(), &st) != 0) {
            if (errno != ENOENT) throw io_error(target_ + ": " + std::strerror(errno));
            break;
        }
        if (!S_ISLNK(st.st_mode)) {
            exists = true;
            break;
        }
        if (hops == 40) throw io_error(path + ": too many levels of symbolic links");
        std::string const link = read_link(target_);
        target_ = !link.empty() && link[0] == '/' ? link : dir_of(target_) + "/" + link;
    }
    std::string const where = target_ == path_ ? path_ : path_ + " (-> " + target_ + ")";
    if (exists && !S_ISREG(st.st_mode))  // changed between stat and lstat
        throw io_error(where + ": is not a regular file");
    std::string const dir = dir_of(target_);
    std::string base = base_of(target_);
    if (base.size() > NAME_MAX - 12) base.resize(NAME_MAX - 12);  // room for "." and ".tmp.XXXXXX"
    direct_ = false;
    // An existing file's temporary starts private and gets the file's mode below; a new one gets
    // 0666 & ~umask from open() itself.
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        tmp_ = (target_.find('/') == std::string::npos ? std::string()
                                                       : (dir == "/" ? dir : dir + "/")) +
               "." + base + ".tmp." + random_suffix();
        if (observer_) observer_->add(tmp_);  // before it exists: no moment it is unknown
        fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? 0600 : 0666);
        if (fd < 0) {
            int const e = errno;
            drop_temporary(false);
            if (e != EEXIST || attempt == 100)
                throw io_error(where + ": cannot create a temporary file in " + dir + ": " +
                               std::strerror(e));
        }
    }
    if (exists) {
        links_ = static_cast<std::uint64_t>(st.st_nlink);
        // Owner and group where permitted (root; a group the user is in), then the mode (after
        // chown, which may clear set-id bits). Failures leave the temporary's own.
        // (Results tested, not cast to void: newer GCCs warn on a voided warn_unused_result.)
        bool const owned =
            ::fchown(fd, st.st_uid, st.st_gid) == 0 || ::fchown(fd, uid_t(-1), st.st_gid) == 0;
        bool const moded = ::fchmod(fd, st.st_mode & 07777) == 0;
        static_cast<void>(owned && moded);
    }
    try {
        open_stream(fd);
    } catch (...) {
        drop_temporary(true);
        throw;
    }
    std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
}

output_file::~output_file() {
    if (f_ && !to_stdout_) std::fclose(f_);
    drop_temporary(true);
}

void output_file::drop_temporary(bool unlink) noexcept {
    if (tmp_.empty()) return;
    if (unlink) ::unlink(tmp_.c_str());
    if (observer_) observer_->remove(tmp_);
    tmp_.clear();
}

void output_file::write(char const* p, std::size_t n) {
    if (!f_ || finished_) throw invalid_argument(path_ + ": written after it was finished");
    if (n && std::fwrite(p, 1, n, f_) != n) {
        failed_ = true;
        throw io_error((to_stdout_ ? std::string("<stdout>") : path_) +
                       ": write failed: " + std::strerror(errno));
    }
}

void output_file::finish() {
    if (failed_) throw io_error(path_ + ": not written (a write to it failed)");
    if (finished_) return;
    finished_ = true;
    std::string const name = to_stdout_ ? std::string("<stdout>") : path_;
    if (to_stdout_) {
        if (std::fflush(f_) != 0 || std::ferror(f_)) {
            failed_ = true;
            throw io_error(name + ": write failed: " + std::strerror(errno));
        }
        return;
    }
    errno = 0;
    bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
    int e = errno;
    // On disk before the rename: otherwise a crash of the machine soon after could leave the
    // target renamed over but empty. EINVAL: a file that cannot be synced (nothing to lose).
    if (ok && ::fsync(::fileno(f_)) != 0 && errno != EINVAL) {
        ok = false;
        e = errno;
    }
    if (std::fclose(f_) != 0 && ok) {
        ok = false;
        e = errno;
    }
    f_ = nullptr;
    if (!ok) {
        drop_temporary(true);
        failed_ = true;
        throw io_error(name + ": write failed: " + std::strerror(e ? e : EIO));
    }
}

void output_file::commit() {
    finish();
    if (committed_) return;
    committed_ = true;
    if (tmp_.empty()) return;
    if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
        int const e = errno;
        drop_temporary(true);
        failed_ = true;
        throw io_error((target_ == path_ ? path_ : path_ + " (-> " + target_ + ")") +
                       ": cannot rename the temporary file into place: " + std::strerror(e));
    }
    drop_temporary(false);
    // The rename itself is durable once its directory is synced (best effort: the output is
    // complete either way).
    auto const slash = target_.rfind('/');
    std::string const dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : target_.substr(0, slash);
    int const dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        bool const synced = ::fsync(dfd) == 0;
        static_cast<void>(synced);
        ::close(dfd);
    }
}

}  // namespace kleene::io

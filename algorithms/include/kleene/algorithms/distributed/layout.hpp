#pragma once
// A distributed result on disk without a gather: a directory holding one dense .kbin file per rank
// (that rank's local blocks, block_cyclic.hpp's local matrix, exactly as it sits in memory) and a
// text manifest naming the layout. Written by layout_writer (every rank at once), read and joined
// by read_layout / join_layout (one process, no MPI). The format is in docs/distributed.md:
//
//   kleene-blocks 1
//   n 300                 value_type int32         result distances|reachability|predecessors
//   reflexive 0|1               map 2d-block-cyclic      grid PR PC        block B
//   part R rows LR cols LC bytes FILE_BYTES checksum 0x16HEX file rank-0000R.kbin   (one per rank)
//   end
//
// (one key a line, in this order). `checksum` is the .kbin payload checksum (io::binary_checksum),
// which the file's own header also carries: the reader compares the two and then lets
// read_binary_dense check the payload against it, so every byte of every file is covered (the
// rest of each header by the reader's own checks and by comparing its shape and type with the
// manifest).
//
// All or nothing: the ranks write into a fresh hidden staging directory beside DIR
// (`.NAME.tmp.XXXXXX`), agree that every rank succeeded, and rank 0 writes the manifest last and
// renames the staging directory to DIR (renameat2 RENAME_NOREPLACE; over an earlier layout,
// RENAME_EXCHANGE, then the old files are removed). Anything at DIR that is not an earlier kleene
// layout is refused, never replaced. A failed run removes the staging directory.

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <kleene/algorithms/distributed/comm.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/io/binary.hpp>
#include <kleene/io/output_file.hpp>
#include <kleene/io/value_type.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace kleene::distributed {

inline constexpr char const* manifest_name = "manifest";
inline constexpr std::uint32_t layout_version = 1;
/// Bounds that keep every size computation of a manifest inside 64 bits.
inline constexpr std::uint64_t layout_max_n = std::uint64_t(1) << 31;
inline constexpr int layout_max_ranks = 1 << 16;
/// Bytes of rows a join of a layout holds at a time (for_each_row_block's usual max_bytes).
inline constexpr std::size_t layout_row_block_bytes = std::size_t(64) << 20;

struct layout_part {
    int rank = 0;
    std::uint64_t rows = 0, cols = 0, bytes = 0, checksum = 0;
    std::string file;
};

struct layout_manifest {
    std::uint64_t n = 0;
    io::value_type type = io::value_type::int32;
    /// "distances" (absent entries +inf), "reachability" (int32: 0 reachable, +inf not) or
    /// "predecessors" (int32: the vertex before j on a shortest i -> j path, 1-based; 0: none).
    std::string result = "distances";
    bool reflexive = false;  ///< reachability: (i, i) joins the pattern
    process_grid grid;
    std::uint64_t block = 1;
    std::vector<layout_part> parts;
};

namespace detail {
inline std::size_t value_bytes(io::value_type t) {
    return io::visit_value_type(t, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

inline std::string part_file_name(int rank) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "rank-%05d.kbin", rank);
    return buf;
}

inline std::string format_manifest(layout_manifest const& m) {
    std::ostringstream o;
    o << "kleene-blocks " << layout_version << "\n"
      << "n " << m.n << "\n"
      << "value_type " << io::to_string(m.type) << "\n"
      << "result " << m.result << "\n"
      << "reflexive " << (m.reflexive ? 1 : 0) << "\n"
      << "map 2d-block-cyclic\n"
      << "grid " << m.grid.rows << " " << m.grid.cols << "\n"
      << "block " << m.block << "\n";
    for (auto const& p : m.parts) {
        char sum[24];
        std::snprintf(sum, sizeof sum, "0x%016llx", static_cast<unsigned long long>(p.checksum));
        o << "part " << p.rank << " rows " << p.rows << " cols " << p.cols << " bytes " << p.bytes
          << " checksum " << sum << " file " << p.file << "\n";
    }
    o << "end\n";
    return o.str();
}

/// Strict line-by-line reader of the manifest text: every key in its place, every number whole.
class manifest_parser {
  public:
    manifest_parser(std::string text, std::string name) : name_(std::move(name)) {
        std::istringstream in(std::move(text));
        std::string line;
        while (std::getline(in, line)) lines_.push_back(line);
    }
    [[noreturn]] void fail(std::string const& what) const {
        throw io_error(name_ + (line_ ? " line " + std::to_string(line_) : std::string()) + ": " +
                       what);
    }
    /// The next line's words; its first must be `key`.
    std::vector<std::string> next(std::string_view key) {
        if (line_ >= lines_.size()) {
            line_ = lines_.size();
            fail("ends early (expected '" + std::string(key) + "'): not a complete manifest");
        }
        std::string const& l = lines_[line_++];
        std::vector<std::string> w;
        std::istringstream s(l);
        for (std::string x; s >> x;) w.push_back(x);
        if (w.empty() || w[0] != key) fail("expected '" + std::string(key) + "'");
        return w;
    }
    std::uint64_t number(std::string const& s, std::uint64_t max, char const* what,
                         int base = 10) const {
        std::uint64_t v = 0;
        char const* b = s.data();
        if (base == 16) {
            if (s.size() < 3 || s[0] != '0' || s[1] != 'x') fail(std::string(what) + " not 0x...");
            b += 2;
        }
        auto const [p, ec] = std::from_chars(b, s.data() + s.size(), v, base);
        if (ec != std::errc() || p != s.data() + s.size() || b == p)
            fail(std::string(what) + " '" + s + "' is not a number");
        if (v > max)
            fail(std::string(what) + " " + s + " is out of range (at most " + std::to_string(max) +
                 ")");
        return v;
    }
    std::vector<std::string> words(std::string_view key, std::size_t count) {
        auto w = next(key);
        if (w.size() != count)
            fail("'" + std::string(key) + "' takes " + std::to_string(count - 1) + " value(s)");
        return w;
    }
    bool done() const { return line_ >= lines_.size(); }

  private:
    std::string name_;
    std::vector<std::string> lines_;
    std::size_t line_ = 0;
};

/// A file name that stays inside the directory: no separator, no leading dot, not empty.
inline bool plain_name(std::string const& s) {
    return !s.empty() && s[0] != '.' && s.find('/') == std::string::npos &&
           s.find('\0') == std::string::npos;
}
}  // namespace detail

/// Parses and checks a manifest (name: for messages). Checks everything that does not need the
/// files: the shapes every part must have follow from n, the grid and the block.
inline layout_manifest parse_manifest(std::string const& text, std::string const& name) {
    detail::manifest_parser p(text, name);
    layout_manifest m;
    auto w = p.words("kleene-blocks", 2);
    if (p.number(w[1], 1u << 30, "version") != layout_version)
        p.fail("version " + w[1] + " (this kleene reads version " + std::to_string(layout_version) +
               ")");
    m.n = p.number(p.words("n", 2)[1], layout_max_n, "n");
    w = p.words("value_type", 2);
    if (!io::parse_value_type(w[1], m.type) ||
        (m.type != io::value_type::int32 && m.type != io::value_type::int64 &&
         m.type != io::value_type::float32 && m.type != io::value_type::float64))
        p.fail("value_type '" + w[1] + "' (a layout holds int32_t, int64_t, float or double)");
    m.result = p.words("result", 2)[1];
    if (m.result != "distances" && m.result != "reachability" && m.result != "predecessors")
        p.fail("result must be 'distances', 'reachability' or 'predecessors', not '" + m.result +
               "'");
    if (m.result != "distances" && m.type != io::value_type::int32)
        p.fail("a " + m.result + " result is int32");
    m.reflexive = p.number(p.words("reflexive", 2)[1], 1, "reflexive") == 1;
    if (p.words("map", 2)[1] != "2d-block-cyclic") p.fail("the only map is '2d-block-cyclic'");
    w = p.words("grid", 3);
    m.grid.rows = int(p.number(w[1], layout_max_ranks, "grid rows"));
    m.grid.cols = int(p.number(w[2], layout_max_ranks, "grid columns"));
    if (m.grid.rows < 1 || m.grid.cols < 1 ||
        std::uint64_t(m.grid.rows) * std::uint64_t(m.grid.cols) > layout_max_ranks)
        p.fail("grid " + w[1] + " x " + w[2] + " (1 to " + std::to_string(layout_max_ranks) +
               " ranks)");
    m.block = p.number(p.words("block", 2)[1], layout_max_n, "block");
    if (m.block < 1) p.fail("block 0");
    std::size_t const vb = detail::value_bytes(m.type);
    std::set<std::string> files;  // 2^16 parts: a set, not a scan of the earlier ones per part
    for (int r = 0; r < m.grid.size(); ++r) {
        w = p.words("part", 12);
        layout_part q;
        q.rank = int(p.number(w[1], layout_max_ranks, "part rank"));
        if (q.rank != r) p.fail("part " + w[1] + " where part " + std::to_string(r) + " belongs");
        if (w[2] != "rows" || w[4] != "cols" || w[6] != "bytes" || w[8] != "checksum" ||
            w[10] != "file")
            p.fail("a part line is: part R rows LR cols LC bytes B checksum 0xH file NAME");
        q.rows = p.number(w[3], m.n, "rows");
        q.cols = p.number(w[5], m.n, "cols");
        q.bytes = p.number(w[7], UINT64_MAX, "bytes");
        q.checksum = p.number(w[9], UINT64_MAX, "checksum", 16);
        q.file = w[11];
        if (!detail::plain_name(q.file))
            p.fail("file '" + q.file + "' is not a plain name inside the directory");
        block_cyclic const d(m.n, m.block, m.grid, r);
        if (q.rows != d.local_rows() || q.cols != d.local_cols())
            p.fail("part " + w[1] + " is " + w[3] + " x " + w[5] + ", but rank " + w[1] +
                   " of this map holds " + std::to_string(d.local_rows()) + " x " +
                   std::to_string(d.local_cols()));
        // In 128 bits: 2^31 x 2^31 x 8 bytes passes 2^64.
        unsigned __int128 const want = (unsigned __int128)q.rows * q.cols * vb + 128;
        if (want != q.bytes)
            p.fail("part " + w[1] + ": bytes " + w[7] + " do not match a " + w[3] + " x " + w[5] +
                   " dense .kbin file");
        if (!files.insert(q.file).second) p.fail("file '" + q.file + "' is named twice");
        m.parts.push_back(std::move(q));
    }
    p.words("end", 1);
    if (!p.done()) p.fail("text after 'end'");
    return m;
}

namespace detail {
inline std::string read_small_file(std::string const& path, std::size_t limit) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT)
            throw io_error(path + ": missing: not a complete kleene block layout (no manifest)");
        throw io_error(path + ": " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) throw io_error(path + ": not a regular file");
    if (std::uint64_t(st.st_size) > limit)
        throw io_error(path + ": " + std::to_string(st.st_size) +
                       " bytes, too large for a manifest");
    std::ifstream f(path, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (!f.good() && !f.eof()) throw io_error(path + ": cannot read");
    return s;
}
}  // namespace detail

/// The manifest of DIR, checked against the files it names: each one a regular file in DIR (not
/// a link), of the recorded size, a dense .kbin of the recorded shape and type whose header
/// carries the recorded checksum. The payloads are checked when joined (join_layout).
inline layout_manifest read_layout(std::string const& dir) {
    namespace fs = std::filesystem;
    std::string const mpath = (fs::path(dir) / manifest_name).string();
    // Parts: 2^16 lines of ~120 bytes.
    layout_manifest m =
        parse_manifest(detail::read_small_file(mpath, std::size_t(16) << 20), mpath);
    for (auto const& p : m.parts) {
        std::string const f = (fs::path(dir) / p.file).string();
        struct stat st {};
        if (::lstat(f.c_str(), &st) != 0)
            throw io_error(f + ": " +
                           (errno == ENOENT ? std::string("missing (the manifest lists it)")
                                            : std::string(std::strerror(errno))));
        if (!S_ISREG(st.st_mode)) throw io_error(f + ": not a regular file (links are refused)");
        if (std::uint64_t(st.st_size) != p.bytes)
            throw io_error(f + ": " + std::to_string(st.st_size) + " bytes, the manifest says " +
                           std::to_string(p.bytes) + " (truncated or replaced)");
        io::binary_header const h = io::read_binary_header(f);
        if (!h.dense || h.type != m.type || h.rows != p.rows || h.cols != p.cols)
            throw io_error(f + ": not the dense " + std::to_string(p.rows) + " x " +
                           std::to_string(p.cols) + " " + std::string(io::to_string(m.type)) +
                           " matrix the manifest names");
        // The payload checksum sits at byte 56 of a .kbin header (io/binary.hpp).
        unsigned char head[64];
        std::ifstream in(f, std::ios::binary);
        if (!in.read(reinterpret_cast<char*>(head), sizeof head))
            throw io_error(f + ": cannot read its header");
        std::uint64_t sum = 0;
        for (int i = 7; i >= 0; --i) sum = (sum << 8) | head[56 + i];
        if (sum != p.checksum)
            throw io_error(f +
                           ": checksum mismatch with the manifest (the file is corrupt or from "
                           "another run)");
    }
    return m;
}

/// Reads a checked layout (read_layout) a block of rows at a time, in row order, without holding
/// the n x n matrix: f(row0, rows) with `rows` a dense_view of whole rows (n values each) starting
/// at global row row0, at most max_bytes of them (one row at least) and never past the end of a
/// block row. Every part file is read once, front to back, and its payload is checked against its
/// checksum as it is read: a part that does not match throws io_error once its last row was read,
/// after f may have seen rows of it, so a caller that writes what f sees publishes it only after
/// this returns. Memory: max_bytes for the rows and as much again for one read.
template <class T, class F>
void for_each_row_block(std::string const& dir, layout_manifest const& m, std::size_t max_bytes,
                        F&& f) {
    if (io::value_type_of<T>() != m.type)
        throw invalid_argument("for_each_row_block: the layout holds " +
                               std::string(io::to_string(m.type)));
    std::size_t const n = m.n;
    if (n == 0) return;
    block_cyclic const d(n, m.block, m.grid, 0);
    std::size_t const b = d.block(), nb = d.blocks();
    std::size_t const rows_per = std::clamp<std::size_t>(max_bytes / (n * sizeof(T)), 1, b);
    struct part_file {
        int fd = -1;
        std::string path;
        std::size_t lcols = 0, lrows = 0, next_row = 0;
        io::binary_checksum_stream sum;
        ~part_file() {
            if (fd >= 0) ::close(fd);
        }
    };
    std::vector<part_file> parts(m.parts.size());
    for (auto const& p : m.parts) {
        auto& pf = parts.at(static_cast<std::size_t>(p.rank));
        pf.path = (std::filesystem::path(dir) / p.file).string();
        pf.lrows = p.rows;
        pf.lcols = p.cols;
        // read_layout saw a regular file of the right size; what is opened must still be one (no
        // link, no FIFO that would block the open, no other size).
        pf.fd = ::open(pf.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (pf.fd < 0) throw io_error(pf.path + ": cannot open: " + std::strerror(errno));
        struct stat st {};
        if (::fstat(pf.fd, &st) != 0 || !S_ISREG(st.st_mode) ||
            std::uint64_t(st.st_size) != p.bytes)
            throw io_error(pf.path + ": changed since the layout was checked");
    }
    auto finish_part = [&](part_file& pf, layout_part const& p) {
        if (pf.sum.value() != p.checksum)
            throw io_error(pf.path +
                           ": checksum mismatch: the payload is corrupt, or changed while it "
                           "was read");
    };
    for (std::size_t r = 0; r < parts.size(); ++r)  // parts without rows are checked now
        if (parts[r].lrows == 0) finish_part(parts[r], m.parts[r]);
    dense_matrix<T> rows(rows_per, n);
    std::vector<T> piece;
    for (std::size_t I = 0; I < nb; ++I) {
        int const pr = d.owner_row(I);
        std::size_t const bs = d.block_size(I), lr0 = d.local_offset_row(I);
        for (std::size_t r = 0; r < bs; r += rows_per) {
            std::size_t const cnt = std::min(rows_per, bs - r);
            for (int pc = 0; pc < m.grid.cols; ++pc) {
                auto const rank = static_cast<std::size_t>(m.grid.rank_of(pr, pc));
                part_file& pf = parts[rank];
                std::size_t const lc = pf.lcols;
                if (lr0 + r != pf.next_row || lr0 + r + cnt > pf.lrows)
                    throw io_error(pf.path + ": rows out of order (the layout is inconsistent)");
                piece.resize(cnt * lc);
                std::size_t const bytes = piece.size() * sizeof(T);
                auto* dst = reinterpret_cast<char*>(piece.data());
                std::uint64_t off = io::binary_header_bytes + (lr0 + r) * lc * sizeof(T);
                for (std::size_t got = 0; got < bytes;) {
                    ssize_t const k = ::pread(pf.fd, dst + got, bytes - got,
                                              static_cast<off_t>(off + got));
                    if (k < 0 && errno == EINTR) continue;
                    if (k <= 0)
                        throw io_error(pf.path + ": " +
                                       (k < 0 ? std::string(std::strerror(errno))
                                              : std::string("ends early (truncated while read)")));
                    got += static_cast<std::size_t>(k);
                }
                pf.sum.add(piece.data(), bytes);
                pf.next_row += cnt;
                for (std::size_t i = 0; i < cnt; ++i)
                    d.scatter_row(pc, piece.data() + i * lc, rows.data() + i * n);
                if (pf.next_row == pf.lrows) finish_part(pf, m.parts[rank]);
            }
            f(I * b + r, dense_view<T const>{rows.data(), cnt, n, n});
        }
    }
}

/// The whole n x n matrix from a checked layout (read_layout), read a block of rows at a time by
/// for_each_row_block (every part's payload checked against its checksum). `threads` is unused
/// (kept for callers of the earlier whole-file reads).
template <class T>
dense_matrix<T> join_layout(std::string const& dir, layout_manifest const& m, int /*threads*/ = 0) {
    if (io::value_type_of<T>() != m.type)
        throw invalid_argument("join_layout: the layout holds " +
                               std::string(io::to_string(m.type)));
    dense_matrix<T> full(m.n, m.n);
    for_each_row_block<T>(dir, m, layout_row_block_bytes,
                          [&](std::size_t row0, dense_view<T const> rows) {
                              std::copy(rows.data, rows.data + rows.rows * rows.cols,
                                        full.data() + row0 * full.ld());
                          });
    return full;
}

/// Writes a distributed result as a layout directory, every rank at once (see the top of this
/// file). Construct on every rank before the work (a bad DIR fails first), call write() on every
/// rank with its local blocks; destroyed unpublished, it removes what it wrote.
class layout_writer {
  public:
    layout_writer(std::string dir, control& c, io::temp_observer* obs = nullptr)
        : dir_(std::move(dir)), c_(c), obs_(obs) {
        std::string why;
        if (c.rank() == 0) {
            try {
                stage();
            } catch (std::exception const& e) {
                why = e.what();
            }
        }
        c.agree(why.empty(), why);
        std::uint64_t len = staging_.size();
        c.broadcast(&len, sizeof len, 0);
        staging_.resize(len);
        c.broadcast(staging_.data(), len, 0);
    }
    layout_writer(layout_writer const&) = delete;
    layout_writer& operator=(layout_writer const&) = delete;
    ~layout_writer() {
        if (published_) return;
        std::error_code ec;
        if (!mine_.empty()) std::filesystem::remove(mine_, ec);
        // The staging directory is ours (mkdtemp): everything in it goes.
        if (c_.rank() == 0 && !staging_.empty()) std::filesystem::remove_all(staging_, ec);
    }
    std::string const& staging() const { return staging_; }

    /// Every rank: its local blocks of the distribution d. On success DIR holds the layout; a
    /// failure on any rank throws collective_error on every rank and DIR is left as it was.
    /// Returns the bytes this rank wrote.
    template <class T>
    std::uint64_t write(dense_matrix<T> const& local, block_cyclic const& d, layout_manifest meta) {
        std::uint64_t const bytes = stage(local, d, std::move(meta));
        publish();
        return bytes;
    }

    /// write() in two halves, for two layouts that appear together: stage() writes this rank's
    /// part into the staging directory and collects the manifest on rank 0 (DIR untouched);
    /// publish() puts the layout in place. Both collective.
    template <class T>
    std::uint64_t stage(dense_matrix<T> const& local, block_cyclic const& d, layout_manifest meta) {
        namespace fs = std::filesystem;
        std::string why;
        layout_part me;
        me.rank = c_.rank();
        me.rows = local.rows();
        me.cols = local.cols();
        me.file = detail::part_file_name(c_.rank());
        try {
            if (local.rows() != d.local_rows() || local.cols() != d.local_cols() ||
                local.ld() != local.cols())
                throw dimension_mismatch("layout_writer: local blocks " +
                                         kleene::detail::shape(local.rows(), local.cols()) +
                                         ", expected " +
                                         kleene::detail::shape(d.local_rows(), d.local_cols()));
            std::string const path = (fs::path(staging_) / me.file).string();
            io::output_file f(path, obs_);
            io::write_binary(f, local);
            f.commit();
            mine_ = path;
            me.bytes = 128 + local.rows() * local.cols() * sizeof(T);
            me.checksum =
                io::binary_checksum(local.data(), local.rows() * local.cols() * sizeof(T));
        } catch (std::exception const& e) {
            why = e.what();
        }
        c_.agree(why.empty(), why);
        // The parts' sizes and checksums to rank 0, which publishes.
        std::uint64_t mine[2] = {me.bytes, me.checksum};
        if (c_.rank() != 0) {
            c_.send(mine, sizeof mine, 0);
        } else {
            meta.n = d.n();
            meta.type = io::value_type_of<T>();
            meta.grid = d.grid();
            meta.block = d.block();
            meta.parts.clear();
            for (int r = 0; r < c_.size(); ++r) {
                layout_part q;
                std::uint64_t got[2] = {mine[0], mine[1]};
                if (r != 0) c_.recv(got, sizeof got, r);
                block_cyclic const dr(d.n(), d.block(), d.grid(), r);
                q.rank = r;
                q.rows = dr.local_rows();
                q.cols = dr.local_cols();
                q.bytes = got[0];
                q.checksum = got[1];
                q.file = detail::part_file_name(r);
                meta.parts.push_back(q);
            }
            meta_ = std::move(meta);
        }
        staged_ = true;
        return me.bytes;
    }

    void publish() {
        std::string why;
        if (!staged_) why = "layout_writer: publish() before stage()";
        if (c_.rank() == 0 && why.empty()) {
            try {
                put_in_place(meta_);
            } catch (std::exception const& e) {
                why = e.what();
            }
        }
        c_.agree(why.empty(), why);
        published_ = true;
    }

  private:
    /// Rank 0: what is at DIR now, and a fresh staging directory beside it.
    void stage() {
        namespace fs = std::filesystem;
        fs::path target(dir_);
        while (!target.empty() && !target.has_filename()) target = target.parent_path();
        if (target.empty() || target.filename() == "." || target.filename() == "..")
            throw invalid_argument("distributed output '" + dir_ +
                                   "': name a directory to create (not '.', '..' or '/')");
        target_ = target.string();
        struct stat st {};
        if (::lstat(target_.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                throw io_error(dir_ + ": exists and is not a directory; refusing to replace it");
            // Only an earlier layout is replaced: a manifest and its rank files, nothing else.
            bool manifest = false;
            for (auto const& e : fs::directory_iterator(target_)) {
                std::string const f = e.path().filename().string();
                if (f == manifest_name)
                    manifest = true;
                else if (!(f.rfind("rank-", 0) == 0 && e.path().extension() == ".kbin"))
                    throw io_error(dir_ + ": exists and holds '" + f +
                                   "', which is not part of a kleene block layout; refusing to "
                                   "replace it");
            }
            if (!manifest && !fs::is_empty(target_))
                throw io_error(dir_ + ": exists without a manifest; refusing to replace it");
            replace_ = true;
        } else if (errno != ENOENT) {
            throw io_error(dir_ + ": " + std::strerror(errno));
        }
        fs::path const parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
        std::string tmpl = (parent / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
        if (!::mkdtemp(tmpl.data()))
            throw io_error(dir_ + ": cannot create a directory beside it (" + tmpl +
                           "): " + std::strerror(errno));
        staging_ = tmpl;
    }

    /// Rank 0: the manifest last, then the directory into place.
    void put_in_place(layout_manifest const& m) {
        namespace fs = std::filesystem;
        for (auto const& p : m.parts) {
            std::string const f = (fs::path(staging_) / p.file).string();
            std::error_code ec;
            auto const size = fs::file_size(f, ec);
            if (ec || size != p.bytes)
                throw io_error(f + ": rank " + std::to_string(p.rank) +
                               "'s file is not visible from rank 0 as written: the output "
                               "directory must be on a file system every rank shares");
        }
        io::output_file mf((fs::path(staging_) / manifest_name).string(), obs_);
        mf.write(detail::format_manifest(m));
        mf.commit();
        if (!replace_) {
            if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(),
                            RENAME_NOREPLACE) != 0)
                throw io_error(
                    dir_ + ": cannot move the finished layout into place: " + std::strerror(errno));
            return;
        }
        if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) !=
            0)
            throw io_error(dir_ +
                           ": cannot swap the finished layout into place: " + std::strerror(errno));
        // The earlier layout now sits at the staging name: only its own files go.
        published_ = true;
        std::error_code ec;
        for (auto const& e : fs::directory_iterator(staging_, ec)) {
            std::string const f = e.path().filename().string();
            if (f == manifest_name || (f.rfind("rank-", 0) == 0 && e.path().extension() == ".kbin"))
                fs::remove(e.path(), ec);
        }
        fs::remove(staging_, ec);  // not empty (something added meanwhile): left in place
    }

    std::string dir_, target_, staging_, mine_;
    control& c_;
    io::temp_observer* obs_;
    layout_manifest meta_;  ///< rank 0, between stage() and publish()
    bool replace_ = false;
    bool staged_ = false;
    bool published_ = false;
};

}  // namespace kleene::distributed

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <kleene/io/binary.hpp>

#include "io_detail.hpp"

namespace kleene::io {
namespace detail {
namespace {

static_assert(std::endian::native == std::endian::little, "the binary format is little-endian");

constexpr char magic[8] = {'K', 'L', 'E', 'E', 'N', 'E', 'M', 'X'};
constexpr std::size_t header_bytes = binary_header_bytes;
constexpr std::size_t block_bytes = std::size_t(1) << 20;

constexpr std::uint64_t k1 = 0x9E3779B97F4A7C15ull, k2 = 0xC2B2AE3D27D4EB4Full,
                        k3 = 0x165667B19E3779F9ull, k4 = 0x85EBCA77C2B2AE63ull;

inline std::uint64_t load64(unsigned char const* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

// Four independent multiply-rotate lanes over 32-byte strides, then a final avalanche.
std::uint64_t block_hash(unsigned char const* p, std::size_t n, std::uint64_t seed) noexcept {
    std::uint64_t a = seed + k1, b = seed + k2, c = seed ^ k3, d = seed - k4;
    std::size_t const n0 = n;
    while (n >= 32) {
        a = std::rotl(a + load64(p) * k2, 31) * k1;
        b = std::rotl(b + load64(p + 8) * k2, 31) * k1;
        c = std::rotl(c + load64(p + 16) * k2, 31) * k1;
        d = std::rotl(d + load64(p + 24) * k2, 31) * k1;
        p += 32;
        n -= 32;
    }
    std::uint64_t h = std::rotl(a, 1) + std::rotl(b, 7) + std::rotl(c, 12) + std::rotl(d, 18);
    for (; n >= 8; n -= 8, p += 8) h = std::rotl(h ^ (load64(p) * k2), 27) * k1 + k4;
    for (; n > 0; --n, ++p) h = std::rotl(h ^ (*p * k3), 11) * k1;
    h ^= n0;
    h ^= h >> 33;
    h *= k2;
    h ^= h >> 29;
    h *= k3;
    h ^= h >> 32;
    return h;
}

struct raw_header {
    char magic[8];
    std::uint32_t version;
    std::uint32_t header_bytes;
    std::uint8_t kind;  // 1 csr, 2 dense
    std::uint8_t type;
    std::uint8_t index_bytes;
    std::uint8_t flags;
    std::uint32_t reserved;
    std::uint64_t rows, cols, nnz, iso_bits, checksum, payload;
    unsigned char pad[56];
};
static_assert(sizeof(raw_header) == header_bytes);

std::size_t type_size(value_type t) {
    return visit_value_type(t, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

[[noreturn]] void bad(std::string const& name, std::string const& what) {
    fail(name, 0, mm_errc::bad_binary, what);
}

/// "byte offset N" of a payload offset (the payload follows the header).
std::string at(std::size_t payload_offset) {
    return "byte offset " + std::to_string(header_bytes + payload_offset);
}

/// The smallest k in [0, n) with bad(k), or npos; in parallel (a crafted file is refused with
/// its first fault, whatever the thread count).
template <class Bad>
std::size_t first_bad(std::size_t n, int threads, Bad&& bad) {
    std::atomic<std::size_t> first{npos};
#pragma omp parallel for schedule(dynamic, 4096) num_threads(threads)
    for (std::size_t k = 0; k < n; ++k) {
        if (k > first.load(std::memory_order_relaxed) || !bad(k)) continue;
        std::size_t cur = first.load();
        while (k < cur && !first.compare_exchange_weak(cur, k)) {
        }
    }
    return first.load();
}

std::string kind_name(std::uint8_t kind) {
    return kind == 1 ? "csr" : "dense";
}

class writer {
  public:
    explicit writer(output_file& f) : out_(f) {}
    void put(void const* p, std::size_t n) { out_.write(static_cast<char const*>(p), n); }

  private:
    output_sink out_;
};

/// Hash of the concatenation of several byte ranges (as one payload) without copying them.
std::uint64_t checksum_of(std::vector<std::pair<void const*, std::size_t>> const& parts,
                          int threads) {
    // The payload is hashed as one byte stream: gather its blocks across range boundaries.
    std::size_t total = 0;
    for (auto const& p : parts) total += p.second;
    std::size_t const nblocks = (total + block_bytes - 1) / block_bytes;
    std::vector<std::uint64_t> h(nblocks);
#pragma omp parallel num_threads(threads)
    {
        std::vector<unsigned char> tmp;
#pragma omp for schedule(dynamic, 4)
        for (std::size_t b = 0; b < nblocks; ++b) {
            std::size_t const lo = b * block_bytes, hi = std::min(total, lo + block_bytes);
            // Find the parts overlapping [lo, hi).
            std::size_t off = 0;
            unsigned char const* direct = nullptr;
            tmp.clear();
            for (auto const& p : parts) {
                std::size_t const s = std::max(lo, off), e = std::min(hi, off + p.second);
                if (s < e) {
                    auto const* src = static_cast<unsigned char const*>(p.first) + (s - off);
                    if (s == lo && e == hi)
                        direct = src;
                    else
                        tmp.insert(tmp.end(), src, src + (e - s));
                }
                off += p.second;
            }
            h[b] = direct ? block_hash(direct, hi - lo, b) : block_hash(tmp.data(), tmp.size(), b);
        }
    }
    return block_hash(reinterpret_cast<unsigned char const*>(h.data()), h.size() * 8, total);
}

class reader {
  public:
    explicit reader(std::string const& path) : name_(path) {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw io_error(path + ": cannot open: " + std::strerror(errno));
        off_t const end = ::lseek(fd_, 0, SEEK_END);
        if (end < 0) {
            int const e = errno;
            ::close(fd_);
            throw io_error(path + ": cannot read a binary matrix from it (not a regular file): " +
                           std::strerror(e));
        }
        size_ = static_cast<std::size_t>(end);
    }
    ~reader() { ::close(fd_); }
    reader(reader const&) = delete;
    reader& operator=(reader const&) = delete;

    /// Reads [off, off + n) into dst, in parallel pieces.
    void read_at(void* dst, std::size_t n, std::size_t off, int threads) {
        std::size_t const piece = std::size_t(16) << 20;
        std::size_t const pieces = (n + piece - 1) / piece;
        std::atomic<int> err{0};
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (std::size_t k = 0; k < pieces; ++k) {
            std::size_t done = k * piece;
            std::size_t const end = std::min(n, done + piece);
            while (done < end) {
                ssize_t r = ::pread(fd_, static_cast<char*>(dst) + done, end - done,
                                    static_cast<off_t>(off + done));
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) {
                    err.store(r < 0 ? errno : EIO);
                    break;
                }
                done += static_cast<std::size_t>(r);
            }
        }
        if (err.load()) throw io_error(name_ + ": read failed: " + std::strerror(err.load()));
    }
    /// The header, every field checked, and against the file size (128-bit arithmetic: no
    /// product of 64-bit fields wraps).
    raw_header header() {
        raw_header h{};
        if (size_ < header_bytes)
            bad(name_, "the file is " + std::to_string(size_) +
                           " bytes, shorter than the 128-byte header");
        read_at(&h, header_bytes, 0, 1);
        if (std::memcmp(h.magic, magic, 8) != 0)
            bad(name_, "not a kleene binary matrix (bad magic)");
        if (h.version != binary_version)
            bad(name_, "binary format version " + std::to_string(h.version) +
                           " is not supported (this kleene reads version " +
                           std::to_string(binary_version) + ")");
        if (h.header_bytes != header_bytes) bad(name_, "bad header size");
        if (h.kind != 1 && h.kind != 2) bad(name_, "unknown object kind " + std::to_string(h.kind));
        if (h.type > static_cast<std::uint8_t>(value_type::float64))
            bad(name_, "unknown value type " + std::to_string(h.type));
        if (h.index_bytes != 4 && h.index_bytes != 8)
            bad(name_, "index width (byte offset 18) is " + std::to_string(h.index_bytes) +
                           ", not 4 or 8 bytes");
        bool const csr = h.kind == 1;
        if (h.flags > (csr ? 1 : 0))
            bad(name_, "flags (byte offset 19) are " + std::to_string(h.flags) +
                           (csr ? ": only bit 0 (iso) is defined" : ": a dense matrix has none"));
        if (h.reserved != 0) bad(name_, "the reserved field (byte offset 20) is not 0");
        for (std::size_t k = 0; k < sizeof h.pad; ++k)
            if (h.pad[k] != 0)
                bad(name_, "byte " + std::to_string(72 + k) + " of the header is not 0");
        if (!csr && h.nnz != 0)
            bad(name_, "the entry count (byte offset 40) of a dense matrix must be 0, not " +
                           std::to_string(h.nnz));
        std::size_t const ts = type_size(static_cast<value_type>(h.type));
        bool const iso = h.flags & 1;
        // The iso value field is 0 when not iso, and 0 past the value's own bytes when iso.
        if (!iso && h.iso_bits != 0)
            bad(name_, "the iso value field (byte offset 48) is set but the matrix is not iso");
        if (iso && ts < 8 && (h.iso_bits >> (8 * ts)) != 0)
            bad(name_, "the iso value field (byte offset 48) has bits set past its " +
                           std::string(to_string(static_cast<value_type>(h.type))) + " value");
        using u128 = unsigned __int128;
        u128 const cells = static_cast<u128>(h.rows) * h.cols;  // < 2^128: no wrap
        u128 want = 0;
        if (csr) {
            if (h.nnz > cells)
                bad(name_, "the header says " + std::to_string(h.nnz) + " entries, more than a " +
                               kleene::detail::shape(h.rows, h.cols) + " matrix has");
            want = (static_cast<u128>(h.rows) + 1) * h.index_bytes +
                   static_cast<u128>(h.nnz) * h.index_bytes +
                   (iso ? 0 : static_cast<u128>(h.nnz) * ts);
        } else {
            if (cells > std::numeric_limits<std::uint64_t>::max())
                bad(name_, "a " + kleene::detail::shape(h.rows, h.cols) +
                               " dense matrix has more than 2^64 entries");
            want = cells * ts;
        }
        if (want != h.payload || want + header_bytes != size_) {
            auto const str = [](u128 x) {
                return x > std::numeric_limits<std::uint64_t>::max()
                           ? std::string("more than 2^64")
                           : std::to_string(static_cast<std::uint64_t>(x));
            };
            bad(name_, "the header describes a " + kleene::detail::shape(h.rows, h.cols) + " " +
                           kind_name(h.kind) + " matrix" +
                           (csr ? " with " + std::to_string(h.nnz) + " entries" : std::string()) +
                           " (" + str(want) + " payload bytes; the payload field says " +
                           std::to_string(h.payload) + ") but the file has " +
                           std::to_string(size_ - header_bytes) +
                           " bytes after the header (truncated or corrupt)");
        }
        return h;
    }
    std::string const& name() const {
        return name_;
    }

  private:
    std::string name_;
    int fd_ = -1;
    std::size_t size_ = 0;
};

raw_header make_header(std::uint8_t kind, value_type t, std::uint8_t index_bytes, bool iso,
                       std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz) {
    raw_header h{};
    std::memcpy(h.magic, magic, 8);
    h.version = binary_version;
    h.header_bytes = header_bytes;
    h.kind = kind;
    h.type = static_cast<std::uint8_t>(t);
    h.index_bytes = index_bytes;
    h.flags = iso ? 1 : 0;
    h.rows = rows;
    h.cols = cols;
    h.nnz = nnz;
    return h;
}

/// The n values of type From at src into To. src may be unaligned for From (4-byte indices put
/// 8-byte values at offsets of 4 mod 8), so each value is copied out, not loaded through a From*.
template <class To, class From>
void convert_values(std::string const& name, unsigned char const* src, To* dst, std::size_t n,
                    int threads) {
    std::atomic<bool> ok{true};
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::size_t k = 0; k < n; ++k) {
        From x;
        std::memcpy(&x, src + k * sizeof(From), sizeof(From));
        if (!exact_convert(x, dst[k])) ok.store(false, std::memory_order_relaxed);
    }
    if (!ok.load())
        fail(name, 0, mm_errc::value_overflow,
             "values of type " + std::string(type_name<From>()) + " do not fit " +
                 std::string(type_name<To>()) + " exactly");
}

}  // namespace
}  // namespace detail

std::uint64_t binary_checksum(void const* data, std::size_t bytes, int threads) {
    return detail::checksum_of({{data, bytes}}, detail::thread_count(threads));
}

binary_checksum_stream::binary_checksum_stream() { block_.reserve(detail::block_bytes); }

void binary_checksum_stream::add(void const* data, std::size_t bytes) {
    auto const* p = static_cast<unsigned char const*>(data);
    total_ += bytes;
    while (bytes > 0) {
        std::size_t const take = std::min(bytes, detail::block_bytes - block_.size());
        if (block_.empty() && take == detail::block_bytes) {  // a whole block: hash it in place
            hashes_.push_back(detail::block_hash(p, take, hashes_.size()));
        } else {
            block_.insert(block_.end(), p, p + take);
            if (block_.size() == detail::block_bytes) {
                hashes_.push_back(detail::block_hash(block_.data(), block_.size(), hashes_.size()));
                block_.clear();
            }
        }
        p += take;
        bytes -= take;
    }
}

std::uint64_t binary_checksum_stream::value() const {
    std::vector<std::uint64_t> h = hashes_;
    if (!block_.empty()) h.push_back(detail::block_hash(block_.data(), block_.size(), h.size()));
    return detail::block_hash(reinterpret_cast<unsigned char const*>(h.data()), h.size() * 8,
                              total_);
}

binary_header read_binary_header(std::string const& path) {
    detail::reader r(path);
    auto h = r.header();
    binary_header out;
    out.version = h.version;
    out.dense = h.kind == 2;
    out.type = static_cast<value_type>(h.type);
    out.index_bytes = h.index_bytes;
    out.iso = h.flags & 1;
    out.rows = h.rows;
    out.cols = h.cols;
    out.nnz = h.kind == 2 ? h.rows * h.cols : h.nnz;
    return out;
}

template <class T, index_type Index>
void write_binary(output_file& f, csr_matrix<T, Index> const& a, int threads) {
    threads = detail::thread_count(threads);
    bool const iso = !a.has_values();
    auto h =
        detail::make_header(1, value_type_of<T>(), sizeof(Index), iso, a.rows(), a.cols(), a.nnz());
    if (iso) {
        T const v = a.iso_value();
        std::memcpy(&h.iso_bits, &v, sizeof(T));
    }
    std::vector<std::pair<void const*, std::size_t>> parts{
        {a.row_ptr(), (a.rows() + 1) * sizeof(Index)}, {a.col_idx(), a.nnz() * sizeof(Index)}};
    if (!iso) parts.emplace_back(a.values(), a.nnz() * sizeof(T));
    for (auto const& p : parts) h.payload += p.second;
    h.checksum = detail::checksum_of(parts, threads);
    detail::writer w(f);
    w.put(&h, sizeof h);
    for (auto const& p : parts) w.put(p.first, p.second);
}

template <class T, index_type Index>
void write_binary_csr_header(output_file& f, std::uint64_t rows, std::uint64_t cols,
                             std::uint64_t nnz, bool iso, T iso_value, std::uint64_t checksum) {
    auto h = detail::make_header(1, value_type_of<T>(), sizeof(Index), iso, rows, cols, nnz);
    if (iso) std::memcpy(&h.iso_bits, &iso_value, sizeof(T));
    h.payload = (rows + 1) * sizeof(Index) + nnz * sizeof(Index) + (iso ? 0 : nnz * sizeof(T));
    h.checksum = checksum;
    detail::writer w(f);
    w.put(&h, sizeof h);
}

template <class T>
void write_binary(output_file& f, dense_matrix<T> const& a, int threads) {
    threads = detail::thread_count(threads);
    auto h = detail::make_header(2, value_type_of<T>(), 8, false, a.rows(), a.cols(), 0);
    h.payload = a.rows() * a.cols() * sizeof(T);
    h.checksum = detail::checksum_of({{a.data(), h.payload}}, threads);
    detail::writer w(f);
    w.put(&h, sizeof h);
    w.put(a.data(), h.payload);
}

template <class T, index_type Index>
void write_binary(std::string const& path, csr_matrix<T, Index> const& a, int threads) {
    output_file f(path);
    write_binary(f, a, threads);
    f.commit();
}
template <class T>
void write_binary(std::string const& path, dense_matrix<T> const& a, int threads) {
    output_file f(path);
    write_binary(f, a, threads);
    f.commit();
}

namespace detail {
namespace {

/// A file's index at payload offset `off`, entry k, widened (4-byte indices are signed).
inline std::int64_t index_at(unsigned char const* raw, std::size_t ib, std::size_t off,
                             std::size_t k) noexcept {
    if (ib == 4) {
        std::int32_t y;
        std::memcpy(&y, raw + off + k * 4, 4);
        return y;
    }
    std::int64_t x;
    std::memcpy(&x, raw + off + k * 8, 8);
    return x;
}

/// The CSR invariants, checked on the file's bytes before any index is used to address another:
/// row pointers from 0 to nnz, non-decreasing; columns in range, strictly increasing in a row.
void check_csr_structure(std::string const& path, unsigned char const* raw, std::size_t ib,
                         std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz, int threads) {
    auto ptr = [&](std::size_t i) { return index_at(raw, ib, 0, i); };
    if (ptr(0) != 0)
        bad(path, "row pointer 0 (" + at(0) + ") is " + std::to_string(ptr(0)) + ", not 0");
    std::size_t const r =
        first_bad(rows, threads, [&](std::size_t i) { return ptr(i + 1) < ptr(i); });
    if (r != npos)
        bad(path, "row pointer " + std::to_string(r + 1) + " (" + at((r + 1) * ib) + ") is " +
                      std::to_string(ptr(r + 1)) + ", less than row pointer " + std::to_string(r) +
                      " (" + std::to_string(ptr(r)) + ")");
    if (ptr(rows) != static_cast<std::int64_t>(nnz))
        bad(path, "the last row pointer (" + at(rows * ib) + ") is " + std::to_string(ptr(rows)) +
                      ", but the header says " + std::to_string(nnz) + " entries");
    // Now 0 <= ptr(i) <= nnz for every row.
    std::size_t const coff = (rows + 1) * ib;
    auto col = [&](std::size_t k) { return index_at(raw, ib, coff, k); };
    auto bad_entry = [&](std::size_t i) -> std::size_t {
        auto const b = static_cast<std::size_t>(ptr(i)), e = static_cast<std::size_t>(ptr(i + 1));
        for (std::size_t k = b; k < e; ++k) {
            std::int64_t const j = col(k);
            if (j < 0 || static_cast<std::uint64_t>(j) >= cols || (k > b && col(k - 1) >= j))
                return k;
        }
        return npos;
    };
    std::size_t const br =
        first_bad(rows, threads, [&](std::size_t i) { return bad_entry(i) != npos; });
    if (br == npos) return;
    std::size_t const k = bad_entry(br);
    std::int64_t const j = col(k);
    std::string const where = "entry " + std::to_string(k) + " (row " + std::to_string(br) + ", " +
                              at(coff + k * ib) + ")";
    if (j < 0 || static_cast<std::uint64_t>(j) >= cols)
        bad(path, "the column index of " + where + " is " + std::to_string(j) + ", outside 0.." +
                      (cols == 0 ? std::string("(no columns)") : std::to_string(cols - 1)));
    bad(path, "the columns of row " + std::to_string(br) + " are not sorted and unique: " + where +
                  " has column " + std::to_string(j) + " after column " +
                  std::to_string(col(k - 1)));
}

/// Bool values are the bytes 0 and 1 (any other byte is not a bool).
void check_bool_bytes(std::string const& path, unsigned char const* v, std::size_t n,
                      std::size_t payload_offset, int threads) {
    std::size_t const k = first_bad(n, threads, [&](std::size_t x) { return v[x] > 1; });
    if (k != npos)
        bad(path, "the value of entry " + std::to_string(k) + " (" + at(payload_offset + k) +
                      ") is " + std::to_string(v[k]) + ", not a bool (0 or 1)");
}

/// Runs a read; a failed allocation becomes out_of_memory naming the file.
template <class F>
auto reading(std::string const& path, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (out_of_memory const& e) {
        throw out_of_memory(path + ": " + e.what(), e.bytes());
    } catch (std::bad_alloc const&) {
        throw out_of_memory(path + ": out of memory while reading", 0);
    }
}

}  // namespace
}  // namespace detail

template <class T, index_type Index>
csr_matrix<T, Index> read_binary(std::string const& path, int threads) {
    return detail::reading(path, [&] {
        threads = detail::thread_count(threads);
        detail::reader r(path);
        auto const h = r.header();
        if (h.kind != 1) detail::bad(path, "holds a dense matrix (read it with read_binary_dense)");
        auto const lim = static_cast<std::uint64_t>(std::numeric_limits<Index>::max());
        if (h.rows > lim || h.cols > lim || h.nnz > lim)
            detail::fail(path, 0, mm_errc::too_large,
                         "a " + kleene::detail::shape(h.rows, h.cols) + " matrix with " +
                             std::to_string(h.nnz) + " entries does not fit " +
                             std::to_string(sizeof(Index) * 8) + "-bit indices");
        std::size_t const rows = h.rows, nnz = h.nnz;
        bool const iso = h.flags & 1;
        value_type const ft = static_cast<value_type>(h.type);
        std::size_t const ts = detail::type_size(ft);
        // Checksum first, over the raw bytes as stored.
        buffer<unsigned char> raw(h.payload);
        r.read_at(raw.data(), h.payload, detail::header_bytes, threads);
        if (detail::checksum_of({{raw.data(), raw.size()}}, threads) != h.checksum)
            detail::bad(path, "checksum mismatch (the file is corrupt)");
        // A file with a valid checksum can still be crafted: the structure is checked on the raw
        // bytes before anything is copied or addressed through it.
        std::size_t const ib = h.index_bytes;
        detail::check_csr_structure(path, raw.data(), ib, h.rows, h.cols, nnz, threads);
        std::size_t const voff = (rows + 1 + nnz) * ib;
        if (ft == value_type::bool_ && !iso)
            detail::check_bool_bytes(path, raw.data() + voff, nnz, voff, threads);
        buffer<Index> ptr(rows + 1), col(nnz);
        buffer<T> val(iso ? 0 : nnz);
        // Every index is now known to be in 0..max(nnz, cols), which Index holds.
        auto copy_index = [&](Index* dst, std::size_t n, std::size_t off) {
            if (n == 0) return;  // dst is null (memcpy's arguments must not be)
            if (ib == sizeof(Index)) {
                std::memcpy(dst, raw.data() + off, n * ib);
                return;
            }
#pragma omp parallel for schedule(static) num_threads(threads)
            for (std::size_t k = 0; k < n; ++k)
                dst[k] = static_cast<Index>(detail::index_at(raw.data(), ib, off, k));
        };
        copy_index(ptr.data(), rows + 1, 0);
        copy_index(col.data(), nnz, (rows + 1) * ib);
        T isov = T(1);
        if (iso) {
            visit_value_type(ft, [&](auto tag) {
                using F = typename decltype(tag)::type;
                if constexpr (std::is_same_v<F, bool>) {
                    if (h.iso_bits > 1)
                        detail::bad(path, "the iso value (byte offset 48) is " +
                                              std::to_string(h.iso_bits) + ", not a bool (0 or 1)");
                }
                F f;
                std::memcpy(&f, &h.iso_bits, sizeof(F));
                if (!detail::exact_convert(f, isov))
                    detail::bad(path, "the iso value does not fit the type");
            });
        } else if (ft == value_type_of<T>()) {
            if (nnz) std::memcpy(val.data(), raw.data() + voff, nnz * ts);
        } else {
            visit_value_type(ft, [&](auto tag) {
                using F = typename decltype(tag)::type;
                detail::convert_values<T, F>(path, raw.data() + voff, val.data(), nnz, threads);
            });
        }
        return csr_matrix<T, Index>(rows, h.cols, std::move(ptr), std::move(col), std::move(val),
                                    isov, true);
    });
}

template <class T>
dense_matrix<T> read_binary_dense(std::string const& path, int threads) {
    return detail::reading(path, [&] {
        threads = detail::thread_count(threads);
        detail::reader r(path);
        auto const h = r.header();
        if (h.kind != 2) detail::bad(path, "holds a sparse matrix (read it with read_binary)");
        value_type const ft = static_cast<value_type>(h.type);
        buffer<unsigned char> raw(h.payload);
        r.read_at(raw.data(), h.payload, detail::header_bytes, threads);
        if (detail::checksum_of({{raw.data(), raw.size()}}, threads) != h.checksum)
            detail::bad(path, "checksum mismatch (the file is corrupt)");
        // rows * cols * the type's size is the payload (header()): the product does not wrap.
        std::size_t const n = h.rows * h.cols;
        if (ft == value_type::bool_) detail::check_bool_bytes(path, raw.data(), n, 0, threads);
        dense_matrix<T> d(h.rows, h.cols);
        visit_value_type(ft, [&](auto tag) {
            using F = typename decltype(tag)::type;
            if constexpr (std::is_same_v<F, T>) {
                if (n) std::memcpy(d.data(), raw.data(), n * sizeof(T));
            } else {
                detail::convert_values<T, F>(path, raw.data(), d.data(), n, threads);
            }
        });
        return d;
    });
}

#define KLEENE_IO_INSTANTIATE_BINARY_INDEX(T, Index)                                            \
    template void write_binary<T, Index>(std::string const&, csr_matrix<T, Index> const&, int); \
    template void write_binary<T, Index>(output_file&, csr_matrix<T, Index> const&, int);       \
    template csr_matrix<T, Index> read_binary<T, Index>(std::string const&, int);           \
    template void write_binary_csr_header<T, Index>(output_file&, std::uint64_t, std::uint64_t, \
                                                    std::uint64_t, bool, T, std::uint64_t);
#define KLEENE_IO_INSTANTIATE_BINARY(T)                                             \
    KLEENE_IO_INSTANTIATE_BINARY_INDEX(T, std::int32_t)                             \
    KLEENE_IO_INSTANTIATE_BINARY_INDEX(T, std::int64_t)                             \
    template void write_binary<T>(std::string const&, dense_matrix<T> const&, int); \
    template void write_binary<T>(output_file&, dense_matrix<T> const&, int);       \
    template dense_matrix<T> read_binary_dense<T>(std::string const&, int);

KLEENE_IO_FOR_EACH_VALUE_TYPE(KLEENE_IO_INSTANTIATE_BINARY)

}  // namespace kleene::io

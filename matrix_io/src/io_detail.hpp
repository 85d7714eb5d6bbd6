#pragma once
// Shared machinery of the readers and writers: whole-file input, the writers' sink, number parsing
// and formatting, and the parallel chunked parse + CSR assembly. Private to matrix_io/src.

#include <kleene/csr_matrix.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/io/output_file.hpp>
#include <kleene/io/value_type.hpp>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene::io::detail {

inline constexpr std::size_t npos = std::size_t(-1);

#ifdef _OPENMP
/// Threads for a read or write: 0 means OpenMP's default; a request past 4 per processor (or
/// OpenMP's thread limit) gets that many instead, since a team of 100000 threads only fails.
inline int thread_count(int requested) {
    if (requested <= 0) return std::max(1, omp_get_max_threads());
    return std::max(1, std::min({requested, 4 * omp_get_num_procs(), omp_get_thread_limit()}));
}
inline int this_thread() {
    return omp_get_thread_num();
}
inline int team_size() {
    return omp_get_num_threads();
}
#else  // the fuzz build (clang without libomp): one thread
inline int thread_count(int) {
    return 1;
}
inline int this_thread() {
    return 0;
}
inline int team_size() {
    return 1;
}
#endif

/// The whole input in memory: a read-only mapping of a regular file, or what "-" (stdin) or a
/// pipe held.
class input_file {
  public:
    /// `populate`: fault the whole mapping in up front (false when only the header is needed).
    explicit input_file(std::string const& path, bool populate = true);
    ~input_file();
    input_file(input_file const&) = delete;
    input_file& operator=(input_file const&) = delete;
    std::string_view text() const noexcept { return {data_, size_}; }
    std::string const& name() const noexcept { return name_; }

  private:
    std::string name_;
    char const* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
    std::string owned_;
};

/// Where a writer's bytes go: an output_file (the caller commits it) or a string.
class output_sink {
  public:
    explicit output_sink(output_file& f) : file_(&f) {}
    explicit output_sink(std::string* s) : str_(s) {}
    void write(char const* p, std::size_t n) {
        if (str_)
            str_->append(p, n);
        else
            file_->write(p, n);
    }
    void write(std::string_view s) { write(s.data(), s.size()); }

  private:
    output_file* file_ = nullptr;
    std::string* str_ = nullptr;
};

std::uint64_t line_of(std::string_view text, std::size_t offset) noexcept;

[[noreturn]] void fail(std::string const& file, std::uint64_t line, mm_errc code,
                       std::string const& what);

/// Banner, comments and size line; `body` is the offset where entries start.
struct parsed_header {
    mm_header h;
    std::size_t body = 0;
};
parsed_header parse_header(std::string_view text, std::string const& name);

inline bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
inline char const* skip_space(char const* p, char const* e) noexcept {
    while (p < e && is_space(*p)) ++p;
    return p;
}
inline char const* token_end(char const* p, char const* e) noexcept {
    while (p < e && !is_space(*p)) ++p;
    return p;
}

template <class T>
std::string_view type_name() {
    return to_string(value_type_of<T>());
}

// ---- exact conversions between element types ----------------------------------------------

/// out = v when v is exactly representable in To (NaN and infinities between floating types).
template <class To, class From>
bool exact_convert(From v, To& out) noexcept {
    if constexpr (std::is_same_v<To, From>) {
        out = v;
        return true;
    } else if constexpr (std::is_same_v<To, bool>) {
        if (!(v == From(0) || v == From(1))) return false;
        out = v == From(1);
        return true;
    } else if constexpr (std::is_same_v<From, bool>) {
        out = To(v ? 1 : 0);
        return true;
    } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
        if (!std::in_range<To>(v)) return false;
        out = To(v);
        return true;
    } else if constexpr (std::is_floating_point_v<To> && std::is_integral_v<From>) {
        To y = To(v);
        if (static_cast<long double>(y) != static_cast<long double>(v)) return false;
        out = y;
        return true;
    } else if constexpr (std::is_integral_v<To>) {  // from floating
        if (!std::isfinite(v) || std::trunc(v) != v) return false;
        auto const x = static_cast<long double>(v);
        if (x < static_cast<long double>(std::numeric_limits<To>::min()) ||
            x > static_cast<long double>(std::numeric_limits<To>::max()))
            return false;
        out = To(v);
        return true;
    } else {  // floating to floating
        To y = To(v);
        if (!std::isnan(v) && static_cast<From>(y) != v) return false;
        out = y;
        return true;
    }
}

/// Whether v is exact in the run-time type g (the `%%GraphBLAS type` check).
template <class T>
bool fits(value_type g, T v) noexcept {
    return visit_value_type(g, [&](auto tag) {
        typename decltype(tag)::type out;
        return exact_convert(v, out);
    });
}

// ---- number parsing --------------------------------------------------------------------------

enum class num_status : std::uint8_t { ok, bad, overflow };

inline char const* skip_plus(char const* p, char const* e) noexcept {
    if (p + 1 < e && *p == '+' && p[1] != '-' && p[1] != '+') return p + 1;
    return p;
}

/// A floating value; underflow gives a signed zero, overflow of a finite literal is an error.
template <class F>
num_status parse_float(char const*& p, char const* e, F& out) noexcept {
    char const* q = skip_plus(p, e);
    auto r = std::from_chars(q, e, out);
    if (r.ec == std::errc::invalid_argument) return num_status::bad;
    if (r.ec == std::errc::result_out_of_range) {
        bool negative_exponent = false;
        for (char const* s = q; s + 1 < r.ptr; ++s)
            if ((*s == 'e' || *s == 'E') && s[1] == '-') negative_exponent = true;
        if (!negative_exponent) return num_status::overflow;
        out = *q == '-' ? -F(0) : F(0);
    }
    p = r.ptr;
    return num_status::ok;
}

/// Parses one value of a `real` (integer_field false) or `integer` file into T.
template <class T>
num_status parse_value(char const*& p, char const* e, bool integer_field, T& out) noexcept {
    if (integer_field) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            char const* q = skip_plus(p, e);
            if constexpr (std::is_unsigned_v<T>)
                if (q < e && *q == '-') {
                    std::int64_t x;
                    auto r = std::from_chars(q, e, x);
                    if (r.ec == std::errc::invalid_argument) return num_status::bad;
                    if (r.ec == std::errc{} && x == 0) {
                        out = 0;
                        p = r.ptr;
                        return num_status::ok;
                    }
                    return num_status::overflow;
                }
            auto r = std::from_chars(q, e, out);
            if (r.ec == std::errc::invalid_argument) return num_status::bad;
            if (r.ec == std::errc::result_out_of_range) return num_status::overflow;
            p = r.ptr;
            return num_status::ok;
        } else {
            char const* q = skip_plus(p, e);
            std::int64_t x;
            auto r = std::from_chars(q, e, x);
            if (r.ec == std::errc::invalid_argument) return num_status::bad;
            if (r.ec == std::errc::result_out_of_range) return num_status::overflow;
            if (!exact_convert(x, out)) return num_status::overflow;
            p = r.ptr;
            return num_status::ok;
        }
    } else {
        if constexpr (std::is_floating_point_v<T>) {
            return parse_float(p, e, out);
        } else {
            double d;
            char const* q = p;
            num_status s = parse_float(q, e, d);
            if (s != num_status::ok) return s;
            if (!exact_convert(d, out)) return num_status::overflow;
            p = q;
            return num_status::ok;
        }
    }
}

// ---- number formatting -----------------------------------------------------------------------

inline char* put_uint(char* p, std::uint64_t v) noexcept {
    return std::to_chars(p, p + 24, v).ptr;
}

/// Shortest text that reads back to the same value (to_chars without precision).
template <class T>
char* put_value(char* p, T v) noexcept {
    if constexpr (std::is_same_v<T, bool>) {
        *p = v ? '1' : '0';
        return p + 1;
    } else {
        return std::to_chars(p, p + 48, v).ptr;
    }
}
inline constexpr std::size_t max_value_chars = 48;

// ---- chunked parallel parsing -------------------------------------------------------------

/// Offsets (into text) of chunk starts, each at a line start; the last element is text.size().
std::vector<std::size_t> split_lines(std::string_view text, std::size_t begin, int chunks);

struct chunk_error {
    std::size_t offset = npos;  // start of the offending line
    mm_errc code = mm_errc::bad_entry;
    std::string what;
};

inline constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();

/// What one line of the entry section is.
enum class body_kind : std::uint8_t {
    coordinate,  // "i j [v]" (matrix) or "i [v]" (vector: j is 1)
    array,       // "v"
    edges,       // "u v [w]"
};

struct body_spec {
    body_kind kind = body_kind::coordinate;
    bool vector = false;
    bool has_value = true;    // false: pattern (or values ignored)
    bool parse_value = true;  // false: pattern_only skips the text of values
    bool integer_field = false;
    bool skew = false;
    bool symmetric = false;  // mirror off-diagonal entries (symmetric, skew, hermitian)
    std::uint64_t rows = 0;  // bounds for coordinates (unbounded: no bound)
    std::uint64_t cols = 0;
    bool zero_based = false;  // edge lists
    std::optional<value_type> gb_type;
};

/// std::vector, except that bools are stored as bytes (no vector<bool> proxies).
template <class T>
using value_vector = std::vector<std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>>;

template <class T, class Index>
struct chunk {
    std::size_t begin = 0, end = 0;
    std::vector<Index> i, j;
    value_vector<T> v;
    std::uint64_t count = 0;  // entry lines parsed (before the error, if any)
    std::uint64_t offdiag = 0;
    std::uint64_t max_id = 0;                   // edges: largest 0-based id + 1
    std::size_t max_id_offset = npos;           // edges: start of the first line with that id
    std::size_t first_arity[2] = {npos, npos};  // edges: first line with 2 / 3 fields
    chunk_error err;
};

/// Input bytes quoted for a message, at most `max` of them: printable ASCII as it is, a backslash
/// as \\, any other byte (NUL, a control character, non-ASCII) as \xHH, so that a message is
/// never cut at a NUL (what() is a C string) nor sends control sequences to a terminal.
inline std::string quote(std::string_view s, std::size_t max = 40) {
    std::string out = "'";
    for (char const ch : s.substr(0, max)) {
        auto const c = static_cast<unsigned char>(ch);
        if (c == '\\') {
            out += "\\\\";
        } else if (c >= 0x20 && c < 0x7f) {
            out += ch;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out + "'";
}
inline std::string quote(char const* b, char const* e) {
    return quote(std::string_view(b, static_cast<std::size_t>(e - b)));
}

/// 1..18 plain decimal digits at q (advanced past them); false otherwise (q then unspecified).
inline bool fast_index(char const*& q, char const* e, std::uint64_t& out) noexcept {
    char const* const s = q;
    std::uint64_t v = 0;
    while (q < e && static_cast<unsigned char>(*q - '0') < 10) v = v * 10 + static_cast<unsigned>(*q++ - '0');
    out = v;
    return q != s && q - s <= 18;
}

/// A value std::from_chars reads whole and in range (no '+', no overflow) into T straight from the
/// field: floating T from a real file, signed integer T from an integer file. false sends the line
/// to the general path (which also does the other field / type pairs).
template <class T>
bool fast_value(char const*& q, char const* e, bool integer_field, T& out) noexcept {
    constexpr bool signed_int = std::is_integral_v<T> && std::is_signed_v<T>;
    if constexpr (std::is_floating_point_v<T> || signed_int) {
        if (integer_field != signed_int) return false;
        auto const r = std::from_chars(q, e, out);
        if (r.ec != std::errc{}) return false;
        q = r.ptr;
        return true;
    } else {
        return false;
    }
}

/// Parses the lines of [c.begin, c.end); stops at the first error (recorded in c.err).
template <class T, class Index>
void parse_chunk(std::string_view text, body_spec const& s, chunk<T, Index>& c) {
    char const* const base = text.data();
    char const* p = base + c.begin;
    char const* const end = base + c.end;
    bool const keep_values = s.has_value && s.parse_value;
    std::size_t const reserve = (c.end - c.begin) / (s.kind == body_kind::array ? 8 : 16);
    if (s.kind != body_kind::array) {
        c.i.reserve(reserve);
        c.j.reserve(reserve);
    }
    if (keep_values) c.v.reserve(reserve);
    auto error = [&](char const* line, mm_errc code, std::string what) {
        c.err = {static_cast<std::size_t>(line - base), code, std::move(what)};
    };
    // The fast path takes the common coordinate line "i j [v]" (single spaces or tabs, plain
    // digits, a value std::from_chars reads whole, "\n" or "\r\n"), in one pass without looking
    // for the line end first. Anything else, and every error, goes through the general path below,
    // which re-reads the line and words the message.
    bool const fast = s.kind == body_kind::coordinate && !s.vector && !s.skew && !s.gb_type &&
                      (!s.has_value || s.parse_value);
    std::uint64_t const rows = s.rows, cols = s.cols;
    while (p < end) {
        if (fast) {
            char const* q = p;
            std::uint64_t ri, cj;
            T x{};
            if (fast_index(q, end, ri) && q < end && (*q == ' ' || *q == '\t') &&
                fast_index(++q, end, cj) && ri - 1 < rows && cj - 1 < cols &&
                (!s.has_value ||
                 (q < end && (*q == ' ' || *q == '\t') && fast_value(++q, end, s.integer_field, x)))) {
                if (q < end && *q == '\r') ++q;
                if (q == end || *q == '\n') {
                    if (keep_values) c.v.push_back(x);
                    c.i.push_back(static_cast<Index>(ri - 1));
                    c.j.push_back(static_cast<Index>(cj - 1));
                    c.offdiag += ri != cj;
                    ++c.count;
                    p = q + 1;
                    continue;
                }
            }
        }
        char const* eol =
            static_cast<char const*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        bool const last_unterminated = eol == nullptr && end == base + text.size();
        if (!eol) eol = end;
        char const* const line = p;
        char const* q = skip_space(p, eol);
        p = eol + 1;
        if (q == eol || *q == '%' || (s.kind == body_kind::edges && *q == '#')) continue;
        auto missing = [&](char const* what) {
            if (last_unterminated)
                error(line, mm_errc::truncated,
                      std::string("file ends inside an entry (no ") + what + ")");
            else
                error(line, mm_errc::bad_entry, std::string("entry has no ") + what);
        };
        auto parse_index = [&](char const* what, std::uint64_t bound, std::uint64_t& out) -> bool {
            if (q == eol) {
                missing(what);
                return false;
            }
            char const* te = token_end(q, eol);
            auto r = std::from_chars(q, te, out);
            if (r.ec == std::errc::result_out_of_range) {
                error(line, mm_errc::index_out_of_range,
                      std::string(what) + " " + quote(q, te) + " is too large");
                return false;
            }
            if (r.ec != std::errc{} || r.ptr != te) {
                error(line, mm_errc::bad_entry,
                      std::string(what) + " " + quote(q, te) + " is not a non-negative integer");
                return false;
            }
            std::uint64_t const lo = s.zero_based ? 0 : 1;
            if (out < lo || out - lo >= bound) {
                error(line, mm_errc::index_out_of_range,
                      std::string(what) + " " + std::to_string(out) +
                          (bound == 0 ? std::string(" is outside an empty dimension")
                                      : " is outside " + std::to_string(lo) + ".." +
                                            (bound == unbounded ? std::string("")
                                                                : std::to_string(bound - 1 + lo))) +
                          (s.zero_based ? " (ids are 0-based)" : ""));
                return false;
            }
            out -= lo;
            q = skip_space(te, eol);
            return true;
        };
        auto parse_val = [&](T& out) -> bool {
            if (q == eol) {
                missing("value");
                return false;
            }
            char const* te = token_end(q, eol);
            if (!s.parse_value) {
                q = skip_space(te, eol);
                return true;
            }
            char const* r = q;
            num_status st = parse_value(r, te, s.integer_field, out);
            if (st == num_status::ok && r != te) st = num_status::bad;
            if (st == num_status::bad) {
                error(line, mm_errc::bad_value,
                      "value " + quote(q, te) + " is not " +
                          (s.integer_field ? "an integer" : "a number"));
                return false;
            }
            bool ok = st == num_status::ok;
            if (ok && s.gb_type && !fits(*s.gb_type, out)) ok = false;
            if (ok && s.skew) {
                if constexpr (std::is_signed_v<T> && std::is_integral_v<T>)
                    ok = out != std::numeric_limits<T>::min();
            }
            if (!ok) {
                std::string_view tn = s.gb_type ? to_string(*s.gb_type) : type_name<T>();
                error(line, mm_errc::value_overflow,
                      "value " + quote(q, te) + " does not fit " + std::string(tn) + " exactly");
                return false;
            }
            q = skip_space(te, eol);
            return true;
        };
        auto expect_end = [&]() -> bool {
            if (q != eol) {
                error(line, mm_errc::bad_entry,
                      "unexpected " + quote(q, token_end(q, eol)) + " after the entry");
                return false;
            }
            return true;
        };
        if (s.kind == body_kind::array) {
            T x{};
            if (!parse_val(x) || !expect_end()) return;
            if (keep_values) c.v.push_back(x);
            ++c.count;
            continue;
        }
        std::uint64_t ri = 0, cj = 0;
        if (s.kind == body_kind::edges) {
            if (!parse_index("source vertex", s.rows, ri) ||
                !parse_index("target vertex", s.cols, cj))
                return;
            bool const weighted = q != eol;
            T x{1};
            if (weighted && !parse_val(x)) return;
            if (!expect_end()) return;
            if (c.first_arity[weighted] == npos)
                c.first_arity[weighted] = static_cast<std::size_t>(line - base);
            if (std::max(ri, cj) + 1 > c.max_id) {
                c.max_id = std::max(ri, cj) + 1;
                c.max_id_offset = static_cast<std::size_t>(line - base);
            }
            if (s.has_value && s.parse_value) c.v.push_back(x);
        } else {
            if (!parse_index(s.vector ? "index" : "row index", s.rows, ri)) return;
            if (!s.vector && !parse_index("column index", s.cols, cj)) return;
            T x{};
            if (s.has_value && !parse_val(x)) return;
            if (!expect_end()) return;
            if (s.skew && ri == cj) {
                error(line, mm_errc::skew_diagonal,
                      "diagonal entry (" + std::to_string(ri + 1) +
                          ") in a skew-symmetric file (its diagonal is zero and is not stored)");
                return;
            }
            if (keep_values) c.v.push_back(x);
        }
        c.i.push_back(static_cast<Index>(ri));
        c.j.push_back(static_cast<Index>(cj));
        c.offdiag += ri != cj;
        ++c.count;
    }
}

/// Offset of the line of the m-th (0-based) entry inside [b, e).
std::size_t offset_of_entry(std::string_view text, std::size_t b, std::size_t e, std::uint64_t m,
                            bool hash_comments);

template <class T, class Index>
std::vector<chunk<T, Index>> parse_body(std::string_view text, std::size_t body, body_spec const& s,
                                        int threads) {
    std::size_t const bytes = text.size() - body;
    int const nchunks =
        bytes < (1u << 20) ? 1 : static_cast<int>(std::min<std::size_t>(threads * 4, bytes >> 18));
    auto bounds = split_lines(text, body, nchunks);
    std::vector<chunk<T, Index>> chunks(bounds.size() - 1);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        chunks[c].begin = bounds[c];
        chunks[c].end = bounds[c + 1];
    }
    std::exception_ptr ex;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        try {
            parse_chunk(text, s, chunks[c]);
        } catch (...) {
#pragma omp critical(kleene_io_parse)
            ex = std::current_exception();
        }
    }
    if (ex) std::rethrow_exception(ex);
    return chunks;
}

/// Reports the first error in file order: a parse error, or the entry past `expected` (when
/// there is an expected count), or too few entries. Returns the total entry count.
template <class T, class Index>
std::uint64_t check_chunks(std::string_view text, std::string const& name,
                           std::vector<chunk<T, Index>> const& chunks,
                           std::optional<std::uint64_t> expected, bool hash_comments) {
    std::uint64_t total = 0;
    for (auto const& c : chunks) {
        if (expected && total + c.count > *expected) {
            std::size_t off =
                offset_of_entry(text, c.begin, c.end, *expected - total, hash_comments);
            fail(name, line_of(text, off), mm_errc::too_many_entries,
                 "more entries than the " + std::to_string(*expected) + " the size line declares");
        }
        if (c.err.offset != npos) fail(name, line_of(text, c.err.offset), c.err.code, c.err.what);
        total += c.count;
    }
    if (expected && total < *expected) {
        fail(name, line_of(text, text.size()),
             total == 0 && text.find('\n') == std::string_view::npos ? mm_errc::truncated
                                                                     : mm_errc::too_few_entries,
             "the size line declares " + std::to_string(*expected) + " entries but the file has " +
                 std::to_string(total));
    }
    return total;
}

// ---- sizes from the input -----------------------------------------------------------------

/// Refuses, at `line`, a read whose least memory need cannot be had (more than 64 bits address
/// or more than the system has available): `subject` says what, e.g. "a 3x3 matrix needs at
/// least". Sizes are long double so that products of 64-bit sizes do not wrap.
inline void check_memory(std::string const& name, std::uint64_t line, std::string const& subject,
                         long double bytes) {
    std::string const why = kleene::detail::host_memory_shortfall(bytes);
    if (!why.empty())
        fail(name, line, mm_errc::too_large,
             subject + " " + kleene::detail::format_bytes(bytes) + ", " + why);
}

/// The most entry lines `bytes` of text can hold (each is at least one character and a newline).
inline std::uint64_t max_entry_lines(std::size_t bytes) noexcept {
    return bytes / 2 + 1;
}

/// The least memory CSR assembly of `entries` stored entries needs: row pointers and the cursors
/// beside them, column indices and (when valued) values.
inline long double csr_assembly_bytes(std::uint64_t rows, long double entries,
                                      std::size_t index_bytes, std::size_t value_bytes) {
    return (2.0L * rows + 1) * index_bytes + entries * (index_bytes + value_bytes);
}

// ---- CSR assembly ----------------------------------------------------------------------------

template <class Index>
void exclusive_scan(Index* a, std::size_t n, int threads) {
    // a[0..n) counts -> a[0..n] offsets (a has n + 1 slots).
    if (n < (1u << 20) || threads == 1) {
        Index s = 0;
        for (std::size_t k = 0; k < n; ++k) {
            Index x = a[k];
            a[k] = s;
            s += x;
        }
        a[n] = s;
        return;
    }
    std::vector<Index> part(threads + 1, 0);
#pragma omp parallel num_threads(threads)
    {
        int const t = this_thread();
        int const nt = team_size();
        std::size_t const b = n * t / nt, e = n * (t + 1) / nt;
        Index s = 0;
        for (std::size_t k = b; k < e; ++k) s += a[k];
        part[t + 1] = s;
#pragma omp barrier
#pragma omp single
        for (int u = 0; u < nt; ++u) part[u + 1] += part[u];
        s = part[t];
        for (std::size_t k = b; k < e; ++k) {
            Index x = a[k];
            a[k] = s;
            s += x;
        }
        if (t == nt - 1) a[n] = s;
    }
}

/// Builds CSR from the parsed chunks: counting sort by row (parallel, atomics), then each row
/// sorted by (column, file order) so that duplicate handling is the same for any thread count.
/// `on_duplicate(entry)` reports a duplicate under duplicate_policy::error (it throws).
/// One thread scatters in file order, so a row's position order is file order and no keys are
/// kept; several threads record each entry's file position as its sort key.
template <class T, class Index, class OnDup>
csr_matrix<T, Index> assemble(std::vector<chunk<T, Index>> const& chunks, std::size_t rows,
                              std::size_t cols, bool symmetric, bool skew, bool valued,
                              duplicate_policy dup, int threads, T iso, OnDup&& on_duplicate,
                              bool force_keys = false) {
    std::size_t const nc = chunks.size();
    bool const serial = threads == 1 || nc == 1;
    bool const keyed = !serial || force_keys;
    auto bump = [serial](Index& x) -> Index {
        return serial ? x++ : std::atomic_ref<Index>(x).fetch_add(1, std::memory_order_relaxed);
    };
    std::vector<std::uint64_t> first(nc + 1, 0);
    std::uint64_t stored = 0;
    for (std::size_t c = 0; c < nc; ++c) {
        first[c + 1] = first[c] + chunks[c].count;
        stored += chunks[c].count + (symmetric ? chunks[c].offdiag : 0);
    }
    if (stored > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()))
        throw invalid_argument("read: " + std::to_string(stored) +
                               " entries do not fit the index type (use 64-bit indices)");
    std::size_t const n = stored;
    buffer<Index> ptr(rows + 1, Index(0));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t c = 0; c < nc; ++c) {
        auto const& ch = chunks[c];
        for (std::size_t k = 0; k < ch.count; ++k) {
            bump(ptr[ch.i[k]]);
            if (symmetric && ch.i[k] != ch.j[k]) bump(ptr[ch.j[k]]);
        }
    }
    exclusive_scan(ptr.data(), rows, threads);
    buffer<Index> next(rows);
    std::copy(ptr.data(), ptr.data() + rows, next.data());
    buffer<Index> col(n);
    buffer<std::uint64_t> key(keyed ? n : 0);
    buffer<T> val(valued ? n : 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t c = 0; c < nc; ++c) {
        auto const& ch = chunks[c];
        for (std::size_t k = 0; k < ch.count; ++k) {
            Index const i = ch.i[k], j = ch.j[k];
            std::uint64_t const g = (first[c] + k) << 1;
            Index p = bump(next[i]);
            col[p] = j;
            if (keyed) key[p] = g;
            if (valued) val[p] = ch.v[k];
            if (symmetric && i != j) {
                p = bump(next[j]);
                col[p] = i;
                if (keyed) key[p] = g | 1;
                if (valued) {
                    if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
                        val[p] = skew ? T(-ch.v[k]) : ch.v[k];
                    else
                        val[p] = ch.v[k];
                }
            }
        }
    }
    next = buffer<Index>();
    // Sort each row by (column, key); merge duplicates; new row lengths go to len.
    buffer<Index> len(rows + 1);
    std::atomic<std::uint64_t> dup_entry{std::uint64_t(-1)};
    std::atomic<bool> any_dup{false};
#pragma omp parallel num_threads(threads)
    {
        std::vector<std::size_t> perm;
        std::vector<Index> tc;
        value_vector<T> tv;
#pragma omp for schedule(dynamic, 1024)
        for (std::size_t r = 0; r < rows; ++r) {
            std::size_t const b = ptr[r], e = ptr[r + 1];
            bool sorted = true;
            for (std::size_t p = b + 1; p < e && sorted; ++p) sorted = col[p - 1] < col[p];
            if (sorted) {
                len[r] = static_cast<Index>(e - b);
                continue;
            }
            perm.resize(e - b);
            for (std::size_t p = 0; p < e - b; ++p) perm[p] = b + p;
            std::sort(perm.begin(), perm.end(), [&](std::size_t x, std::size_t y) {
                return col[x] < col[y] ||
                       (col[x] == col[y] && (keyed ? key[x] < key[y] : x < y));
            });
            tc.clear();
            tv.clear();
            for (std::size_t x : perm) {
                if (!tc.empty() && tc.back() == col[x]) {
                    any_dup.store(true, std::memory_order_relaxed);
                    if (dup == duplicate_policy::error) {
                        std::uint64_t const g = keyed ? key[x] >> 1 : 0;
                        std::uint64_t cur = dup_entry.load();
                        while (g < cur && !dup_entry.compare_exchange_weak(cur, g)) {
                        }
                        continue;
                    }
                    if (valued) {
                        T acc = static_cast<T>(tv.back());
                        T const y = val[x];
                        switch (dup) {
                            case duplicate_policy::sum:
                                if constexpr (std::is_same_v<T, bool>)
                                    acc = acc || y;
                                else
                                    acc = T(acc + y);
                                break;
                            case duplicate_policy::min:
                                acc = y < acc ? y : acc;
                                break;
                            case duplicate_policy::max:
                                acc = acc < y ? y : acc;
                                break;
                            default:
                                acc = y;
                                break;
                        }
                        tv.back() = acc;
                    }
                    continue;
                }
                tc.push_back(col[x]);
                if (valued) tv.push_back(val[x]);
            }
            std::copy(tc.begin(), tc.end(), col.data() + b);
            if (valued) std::copy(tv.begin(), tv.end(), val.data() + b);
            len[r] = static_cast<Index>(tc.size());
        }
    }
    key = buffer<std::uint64_t>();
    if (dup_entry.load() != std::uint64_t(-1)) {
        // Without keys the entry's file position is unknown: assemble again with keys to name it.
        if (!keyed)
            return assemble(chunks, rows, cols, symmetric, skew, valued, dup, threads, iso,
                            on_duplicate, true);
        on_duplicate(dup_entry.load());
    }
    if (!any_dup.load())
        return csr_matrix<T, Index>(rows, cols, std::move(ptr), std::move(col), std::move(val), iso,
                                    true);
    exclusive_scan(len.data(), rows, threads);
    std::size_t const m = static_cast<std::size_t>(len[rows]);
    buffer<Index> out_col(m);
    buffer<T> out_val(valued ? m : 0);
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads)
    for (std::size_t r = 0; r < rows; ++r) {
        std::size_t const b = ptr[r], w = len[r], cnt = len[r + 1] - len[r];
        std::copy(col.data() + b, col.data() + b + cnt, out_col.data() + w);
        if (valued) std::copy(val.data() + b, val.data() + b + cnt, out_val.data() + w);
    }
    return csr_matrix<T, Index>(rows, cols, std::move(len), std::move(out_col), std::move(out_val),
                                iso, true);
}

}  // namespace kleene::io::detail

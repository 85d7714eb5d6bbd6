#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "io_detail.hpp"

namespace kleene::io {

std::string_view to_string(value_type t) noexcept {
    switch (t) {
        case value_type::bool_:
            return "bool";
        case value_type::int8:
            return "int8_t";
        case value_type::int16:
            return "int16_t";
        case value_type::int32:
            return "int32_t";
        case value_type::int64:
            return "int64_t";
        case value_type::uint8:
            return "uint8_t";
        case value_type::uint16:
            return "uint16_t";
        case value_type::uint32:
            return "uint32_t";
        case value_type::uint64:
            return "uint64_t";
        case value_type::float32:
            return "float";
        case value_type::float64:
            return "double";
    }
    return "double";
}

namespace {
bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return (x >= 'A' && x <= 'Z' ? x + 32 : x) == (y >= 'A' && y <= 'Z' ? y + 32 : y);
           });
}
}  // namespace

bool parse_value_type(std::string_view name, value_type& out) noexcept {
    static constexpr std::pair<std::string_view, std::string_view> gb[] = {
        {"GrB_BOOL", "bool"},       {"GrB_INT8", "int8_t"},     {"GrB_INT16", "int16_t"},
        {"GrB_INT32", "int32_t"},   {"GrB_INT64", "int64_t"},   {"GrB_UINT8", "uint8_t"},
        {"GrB_UINT16", "uint16_t"}, {"GrB_UINT32", "uint32_t"}, {"GrB_UINT64", "uint64_t"},
        {"GrB_FP32", "float"},      {"GrB_FP64", "double"}};
    for (auto [g, c] : gb)
        if (iequals(name, g)) name = c;
    for (int k = 0; k <= static_cast<int>(value_type::float64); ++k) {
        auto t = static_cast<value_type>(k);
        if (iequals(name, to_string(t))) {
            out = t;
            return true;
        }
    }
    return false;
}

bool is_integral(value_type t) noexcept {
    return t != value_type::float32 && t != value_type::float64;
}

std::string_view to_string(mm_object o) noexcept {
    return o == mm_object::matrix ? "matrix" : "vector";
}
std::string_view to_string(mm_format f) noexcept {
    return f == mm_format::coordinate ? "coordinate" : "array";
}
std::string_view to_string(mm_field f) noexcept {
    switch (f) {
        case mm_field::real:
            return "real";
        case mm_field::double_:
            return "double";
        case mm_field::integer:
            return "integer";
        case mm_field::pattern:
            return "pattern";
        case mm_field::complex:
            return "complex";
    }
    return "real";
}
std::string_view to_string(mm_symmetry s) noexcept {
    switch (s) {
        case mm_symmetry::general:
            return "general";
        case mm_symmetry::symmetric:
            return "symmetric";
        case mm_symmetry::skew_symmetric:
            return "skew-symmetric";
        case mm_symmetry::hermitian:
            return "hermitian";
    }
    return "general";
}

std::string_view to_string(mm_errc c) noexcept {
    switch (c) {
        case mm_errc::truncated:
            return "truncated";
        case mm_errc::bad_banner:
            return "bad_banner";
        case mm_errc::unknown_object:
            return "unknown_object";
        case mm_errc::unknown_format:
            return "unknown_format";
        case mm_errc::unknown_field:
            return "unknown_field";
        case mm_errc::unknown_symmetry:
            return "unknown_symmetry";
        case mm_errc::unknown_graphblas_type:
            return "unknown_graphblas_type";
        case mm_errc::unsupported:
            return "unsupported";
        case mm_errc::array_pattern:
            return "array_pattern";
        case mm_errc::not_square:
            return "not_square";
        case mm_errc::bad_size_line:
            return "bad_size_line";
        case mm_errc::too_large:
            return "too_large";
        case mm_errc::bad_entry:
            return "bad_entry";
        case mm_errc::index_out_of_range:
            return "index_out_of_range";
        case mm_errc::bad_value:
            return "bad_value";
        case mm_errc::value_overflow:
            return "value_overflow";
        case mm_errc::skew_diagonal:
            return "skew_diagonal";
        case mm_errc::too_many_entries:
            return "too_many_entries";
        case mm_errc::too_few_entries:
            return "too_few_entries";
        case mm_errc::duplicate_entry:
            return "duplicate_entry";
        case mm_errc::bad_binary:
            return "bad_binary";
    }
    return "unknown";
}

value_type mm_header::natural_type() const noexcept {
    if (graphblas_type) return *graphblas_type;
    if (field == mm_field::pattern) return value_type::bool_;
    if (field == mm_field::integer) return value_type::int64;
    return value_type::float64;
}

namespace detail {

input_file::input_file(std::string const& path, bool populate)
    : name_(path == "-" ? "<stdin>" : path) {
    int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw io_error(path + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (path != "-" && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        size_ = static_cast<std::size_t>(st.st_size);
        if (size_ > 0) {
            void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0),
                             fd, 0);
            if (m != MAP_FAILED) {
                ::madvise(m, size_, MADV_SEQUENTIAL);
                data_ = static_cast<char const*>(m);
                mapped_ = true;
                ::close(fd);
                return;
            }
        }
    }
    char tmp[1 << 16];
    for (;;) {
        ssize_t r = ::read(fd, tmp, sizeof tmp);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            if (fd != STDIN_FILENO) ::close(fd);
            throw io_error(name_ + ": read failed: " + std::strerror(e));
        }
        if (r == 0) break;
        owned_.append(tmp, static_cast<std::size_t>(r));
    }
    if (fd != STDIN_FILENO) ::close(fd);
    data_ = owned_.data();
    size_ = owned_.size();
}

input_file::~input_file() {
    if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

std::uint64_t line_of(std::string_view text, std::size_t offset) noexcept {
    offset = std::min(offset, text.size());
    return 1 + static_cast<std::uint64_t>(std::count(text.data(), text.data() + offset, '\n'));
}

void fail(std::string const& file, std::uint64_t line, mm_errc code, std::string const& what) {
    throw mm_error(file, line, code, what);
}

std::vector<std::size_t> split_lines(std::string_view text, std::size_t begin, int chunks) {
    std::vector<std::size_t> b{begin};
    std::size_t const n = text.size() - begin;
    for (int c = 1; c < chunks; ++c) {
        std::size_t p = begin + n * static_cast<std::size_t>(c) / static_cast<std::size_t>(chunks);
        p = std::max(p, b.back());
        if (p > begin) {
            auto nl = text.find('\n', p - 1);
            p = nl == std::string_view::npos ? text.size() : nl + 1;
        }
        if (p > b.back() && p < text.size()) b.push_back(p);
    }
    b.push_back(text.size());
    return b;
}

std::size_t offset_of_entry(std::string_view text, std::size_t b, std::size_t e, std::uint64_t m,
                            bool hash_comments) {
    std::uint64_t seen = 0;
    while (b < e) {
        auto nl = text.find('\n', b);
        std::size_t eol = nl == std::string_view::npos || nl > e ? e : nl;
        char const* q = skip_space(text.data() + b, text.data() + eol);
        bool const entry = q != text.data() + eol && *q != '%' && !(hash_comments && *q == '#');
        if (entry && seen++ == m) return b;
        b = eol + 1;
    }
    return e;
}

namespace {

struct line_reader {
    std::string_view text;
    std::size_t pos = 0;
    std::uint64_t line = 0;
    bool next(std::string_view& out) {
        if (pos >= text.size()) return false;
        auto nl = text.find('\n', pos);
        std::size_t e = nl == std::string_view::npos ? text.size() : nl;
        out = text.substr(pos, e - pos);
        while (!out.empty() && is_space(out.back())) out.remove_suffix(1);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        ++line;
        return true;
    }
};

std::vector<std::string_view> split_words(std::string_view s) {
    std::vector<std::string_view> w;
    char const* p = s.data();
    char const* e = p + s.size();
    for (;;) {
        p = skip_space(p, e);
        if (p == e) break;
        char const* t = token_end(p, e);
        w.emplace_back(p, static_cast<std::size_t>(t - p));
        p = t;
    }
    return w;
}

}  // namespace

parsed_header parse_header(std::string_view text, std::string const& name) {
    parsed_header out;
    mm_header& h = out.h;
    line_reader lr{text};
    std::string_view line;
    if (!lr.next(line)) fail(name, 1, mm_errc::truncated, "the file is empty");
    auto words = split_words(line);
    if (words.empty() || !iequals(words[0], "%%MatrixMarket"))
        fail(name, 1, mm_errc::bad_banner,
             "the first line must be '%%MatrixMarket object format field symmetry'");
    if (words.size() != 5)
        fail(name, 1, mm_errc::bad_banner,
             "the banner has " + std::to_string(words.size() - 1) +
                 " words after %%MatrixMarket, expected 4 (object format field symmetry)");
    auto quoted = [](std::string_view w) { return quote(w, 64); };
    if (iequals(words[1], "matrix"))
        h.object = mm_object::matrix;
    else if (iequals(words[1], "vector"))
        h.object = mm_object::vector;
    else
        fail(name, 1, mm_errc::unknown_object,
             "unknown object " + quoted(words[1]) + " (expected matrix or vector)");
    if (iequals(words[2], "coordinate"))
        h.format = mm_format::coordinate;
    else if (iequals(words[2], "array"))
        h.format = mm_format::array;
    else
        fail(name, 1, mm_errc::unknown_format,
             "unknown format " + quoted(words[2]) + " (expected coordinate or array)");
    if (iequals(words[3], "real"))
        h.field = mm_field::real;
    else if (iequals(words[3], "double"))
        h.field = mm_field::double_;
    else if (iequals(words[3], "integer"))
        h.field = mm_field::integer;
    else if (iequals(words[3], "pattern"))
        h.field = mm_field::pattern;
    else if (iequals(words[3], "complex"))
        h.field = mm_field::complex;
    else
        fail(name, 1, mm_errc::unknown_field,
             "unknown field " + quoted(words[3]) +
                 " (expected real, double, integer, pattern or complex)");
    if (iequals(words[4], "general"))
        h.symmetry = mm_symmetry::general;
    else if (iequals(words[4], "symmetric"))
        h.symmetry = mm_symmetry::symmetric;
    else if (iequals(words[4], "skew-symmetric"))
        h.symmetry = mm_symmetry::skew_symmetric;
    else if (iequals(words[4], "hermitian"))
        h.symmetry = mm_symmetry::hermitian;
    else
        fail(name, 1, mm_errc::unknown_symmetry,
             "unknown symmetry " + quoted(words[4]) +
                 " (expected general, symmetric, skew-symmetric or hermitian)");
    if (h.field == mm_field::complex)
        fail(name, 1, mm_errc::unsupported, "complex values are not supported");
    if (h.format == mm_format::array && h.field == mm_field::pattern)
        fail(name, 1, mm_errc::array_pattern, "an array file cannot have the pattern field");
    if (h.field == mm_field::pattern && h.symmetry == mm_symmetry::skew_symmetric)
        fail(name, 1, mm_errc::unsupported, "a pattern file cannot be skew-symmetric");
    if (h.object == mm_object::vector && h.symmetry != mm_symmetry::general)
        fail(name, 1, mm_errc::unknown_symmetry, "a vector must be general");
    for (;;) {
        if (!lr.next(line))
            fail(name, lr.line + (text.empty() || text.back() == '\n' ? 1 : 0), mm_errc::truncated,
                 "the file ends before the size line");
        auto w = split_words(line);
        if (w.empty()) continue;
        if (w[0].front() == '%') {
            // LAGraph's type line: `%%GraphBLAS type T`, or `%%GraphBLAS T` in older files.
            // Any other %%GraphBLAS line is a comment, as LAGraph and SuiteSparse read it.
            if (iequals(w[0], "%%GraphBLAS") && w.size() >= 2) {
                bool const typed = iequals(w[1], "type");
                if (typed && w.size() < 3)
                    fail(name, lr.line, mm_errc::unknown_graphblas_type,
                         "expected '%%GraphBLAS type T'");
                std::string t(w[typed ? 2 : 1]);
                for (std::size_t k = typed ? 3 : 2; k < w.size(); ++k) (t += ' ') += w[k];
                bool const complex = t.find("complex") != std::string::npos ||
                                     iequals(t, "GxB_FC32") || iequals(t, "GxB_FC64");
                value_type vt;
                if (complex && (typed || w.size() <= 3))
                    fail(name, lr.line, mm_errc::unsupported, "complex values are not supported");
                if (parse_value_type(t, vt))
                    h.graphblas_type = vt;
                else if (typed)
                    fail(name, lr.line, mm_errc::unknown_graphblas_type,
                         "unknown GraphBLAS type " + quote(t, 64));
            }
            continue;
        }
        h.size_line = lr.line;
        std::size_t const want =
            (h.object == mm_object::matrix ? 2 : 1) + (h.format == mm_format::coordinate ? 1 : 0);
        std::string const form =
            h.object == mm_object::matrix
                ? (h.format == mm_format::coordinate ? "'rows cols entries'" : "'rows cols'")
                : (h.format == mm_format::coordinate ? "'size entries'" : "'size'");
        // LAGraph writes array files with a third number, the count of values that follow; it is
        // read, and must equal the count the dimensions give.
        bool const counted_array =
            h.object == mm_object::matrix && h.format == mm_format::array && w.size() == want + 1;
        if (w.size() != want && !counted_array)
            fail(name, lr.line, mm_errc::bad_size_line,
                 "the size line must be " + form + " (" + std::to_string(want) +
                     " numbers), found " + std::to_string(w.size()) + " words");
        std::uint64_t v[3] = {0, 0, 0};
        for (std::size_t k = 0; k < w.size(); ++k) {
            auto r = std::from_chars(w[k].data(), w[k].data() + w[k].size(), v[k]);
            if (r.ec == std::errc::result_out_of_range)
                fail(name, lr.line, mm_errc::too_large,
                     "size " + quoted(w[k]) + " does not fit 64 bits");
            if (r.ec != std::errc{} || r.ptr != w[k].data() + w[k].size())
                fail(name, lr.line, mm_errc::bad_size_line,
                     "size " + quoted(w[k]) +
                         " is not a non-negative integer (the size line must be " + form + ")");
        }
        if (h.object == mm_object::matrix) {
            h.rows = v[0];
            h.cols = v[1];
            h.file_entries = v[2];
        } else {
            h.rows = v[0];
            h.cols = 1;
            h.file_entries = v[1];
        }
        if (h.symmetry != mm_symmetry::general && h.rows != h.cols)
            fail(name, lr.line, mm_errc::not_square,
                 "a " + std::string(to_string(h.symmetry)) +
                     " matrix must be square, this one is " +
                     kleene::detail::shape(h.rows, h.cols));
        if (h.format == mm_format::array) {
            unsigned __int128 n = h.rows;
            n *= h.cols;
            if (h.symmetry == mm_symmetry::symmetric || h.symmetry == mm_symmetry::hermitian)
                n = (n + h.rows) / 2;
            else if (h.symmetry == mm_symmetry::skew_symmetric)
                n = (n - h.rows) / 2;
            if (n > std::numeric_limits<std::uint64_t>::max())
                fail(name, lr.line, mm_errc::too_large, "the array has more than 2^64 entries");
            if (counted_array && v[2] != n)
                fail(name, lr.line, mm_errc::bad_size_line,
                     "the size line says " + std::to_string(v[2]) + " values, but a " +
                         std::string(to_string(h.symmetry)) + " " +
                         kleene::detail::shape(h.rows, h.cols) + " array holds " +
                         std::to_string(static_cast<std::uint64_t>(n)));
            h.file_entries = static_cast<std::uint64_t>(n);
        }
        out.body = lr.pos;
        return out;
    }
}

}  // namespace detail

mm_header read_matrix_market_header(std::string const& path) {
    detail::input_file f(path, false);
    return detail::parse_header(f.text(), f.name()).h;
}

mm_header read_matrix_market_header_from_memory(std::string_view text, std::string const& name) {
    return detail::parse_header(text, name).h;
}

}  // namespace kleene::io

#include <kleene/io/file_format.hpp>

namespace kleene::io {

std::optional<file_format> format_from_name(std::string_view n) {
    if (n == "mtx" || n == "mm" || n == "matrix-market") return file_format::matrix_market;
    if (n == "kbin" || n == "binary") return file_format::binary;
    if (n == "el" || n == "txt" || n == "edges" || n == "edge-list") return file_format::edge_list;
    return std::nullopt;
}

std::optional<file_format> format_from_extension(std::string const& path) {
    auto slash = path.rfind('/');
    auto dot = path.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return std::nullopt;
    std::string ext = path.substr(dot + 1);
    for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    if (ext == "mm") return std::nullopt;
    return format_from_name(ext);
}

std::string_view to_string(file_format f) noexcept {
    switch (f) {
        case file_format::matrix_market:
            return "matrix-market";
        case file_format::binary:
            return "binary";
        case file_format::edge_list:
            return "edge-list";
    }
    return "matrix-market";
}

}  // namespace kleene::io

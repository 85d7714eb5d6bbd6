#include <kleene/io/edge_list.hpp>
#include <kleene/io/matrix_market.hpp>

#include "io_detail.hpp"

namespace kleene::io {
namespace detail {
namespace {

template <class T>
bool same_value(T x, T y) noexcept {
    if constexpr (std::is_floating_point_v<T>)
        return x == y || (x != x && y != y);
    else
        return x == y;
}

template <class T>
T negate(T x) noexcept {
    if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
        return T(-x);
    else
        return x;
}

mm_symmetry written_symmetry(mm_symmetry s) {
    return s == mm_symmetry::hermitian ? mm_symmetry::symmetric : s;
}

template <class T>
std::string_view field_name(bool pattern) {
    if (pattern) return "pattern";
    return std::is_integral_v<T> ? "integer" : "real";
}

template <class T>
void write_preamble(output_sink& out, std::string_view format, bool pattern, mm_symmetry sym,
                    write_options const& opt) {
    std::string s = "%%MatrixMarket matrix " + std::string(format) + " " +
                    std::string(field_name<T>(pattern)) + " " + std::string(to_string(sym)) + "\n";
    if (opt.graphblas_type_line) s += "%%GraphBLAS type " + std::string(type_name<T>()) + "\n";
    std::size_t b = 0;
    while (b < opt.comment.size()) {
        auto e = opt.comment.find('\n', b);
        if (e == std::string::npos) e = opt.comment.size();
        s += "%" + opt.comment.substr(b, e - b) + "\n";
        b = e + 1;
    }
    out.write(s);
}

/// Formats blocks [0, nblocks) in parallel, `threads` at a time, and writes them in order.
/// format(b, buffer) appends block b's text.
template <class Format>
void write_blocks(output_sink& out, std::size_t nblocks, int threads, Format&& format) {
    std::vector<std::string> bufs(static_cast<std::size_t>(threads));
    std::exception_ptr ex;
    for (std::size_t g = 0; g < nblocks; g += bufs.size()) {
        std::size_t const m = std::min(bufs.size(), nblocks - g);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (std::size_t b = 0; b < m; ++b) {
            try {
                bufs[b].clear();
                format(g + b, bufs[b]);
            } catch (...) {
#pragma omp critical(kleene_io_write)
                ex = std::current_exception();
            }
        }
        if (ex) std::rethrow_exception(ex);
        for (std::size_t b = 0; b < m; ++b) out.write(bufs[b]);
    }
}

inline constexpr std::size_t block_entries = std::size_t(1) << 18;

/// The entry lines of the CSR rows `a` (sym: only the triangle that symmetry keeps), its row 0
/// written as row0 + 1.
template <class T, class Index>
void write_coordinate_body(output_sink& out, csr_matrix<T, Index> const& a, std::uint64_t row0,
                           mm_symmetry sym, bool pattern, int threads) {
    bool const skew = sym == mm_symmetry::skew_symmetric;
    std::size_t const rows = a.rows();
    // Row blocks of about block_entries entries.
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 0; i < rows;) {
        std::size_t const target = a.row_begin(i) + block_entries;
        auto it = std::upper_bound(a.row_ptr() + i + 1, a.row_ptr() + rows + 1,
                                   static_cast<Index>(std::min<std::size_t>(target, a.nnz())));
        std::size_t next = static_cast<std::size_t>(it - a.row_ptr()) - 1;
        next = std::max(next, i + 1);
        next = std::min(next, rows);
        starts.push_back(next);
        i = next;
    }
    write_blocks(out, starts.size() - 1, threads, [&](std::size_t b, std::string& buf) {
        std::size_t const r0 = starts[b], r1 = starts[b + 1];
        std::size_t const n = a.row_begin(r1 == rows ? rows : r1) - a.row_begin(r0);
        std::size_t const per = 2 * 21 + (pattern ? 0 : max_value_chars + 1) + 2;
        buf.resize(n * per + (r1 - r0));
        char* p = buf.data();
        for (std::size_t i = r0; i < r1; ++i) {
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
                std::size_t const j = static_cast<std::size_t>(a.col_idx()[k]);
                std::size_t const gi = static_cast<std::size_t>(row0) + i;
                if (sym != mm_symmetry::general && (skew ? j >= gi : j > gi)) continue;
                p = put_uint(p, gi + 1);
                *p++ = ' ';
                p = put_uint(p, j + 1);
                if (!pattern) {
                    *p++ = ' ';
                    p = put_value(p, a.value(k));
                }
                *p++ = '\n';
            }
        }
        buf.resize(static_cast<std::size_t>(p - buf.data()));
    });
}

template <class T>
void write_coordinate_head(output_sink& out, std::uint64_t rows, std::uint64_t cols,
                           std::uint64_t entries, bool pattern, mm_symmetry sym,
                           write_options const& opt) {
    write_preamble<T>(out, "coordinate", pattern, sym, opt);
    out.write(std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(entries) +
              "\n");
}

template <class T, class Index>
void write_coordinate(output_sink& out, csr_matrix<T, Index> const& a, write_options const& opt) {
    int const threads = thread_count(opt.threads);
    mm_symmetry const sym = written_symmetry(opt.symmetry);
    bool const pattern = opt.pattern || (a.nnz() > 0 && !a.has_values() && a.iso_value() == T(1));
    bool const skew = sym == mm_symmetry::skew_symmetric;
    if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>)
        if (skew && !pattern)
            throw invalid_argument("write_matrix_market: " + std::string(type_name<T>()) +
                                   " values cannot be skew-symmetric");
    if (skew && pattern)
        throw invalid_argument("write_matrix_market: a pattern matrix cannot be skew-symmetric");
    std::size_t const rows = a.rows();
    std::uint64_t entries = a.nnz();
    if (sym != mm_symmetry::general) {
        if (a.rows() != a.cols())
            throw invalid_argument("write_matrix_market: a " +
                                   kleene::detail::shape(a.rows(), a.cols()) +
                                   " matrix cannot be written as " + std::string(to_string(sym)));
        std::uint64_t lower = 0;
        std::atomic<std::int64_t> bad_row{-1};
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : lower) num_threads(threads)
        for (std::size_t i = 0; i < rows; ++i) {
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
                std::size_t const j = static_cast<std::size_t>(a.col_idx()[k]);
                lower += skew ? j < i : j <= i;
                auto t = a.find(j, i);
                bool ok = t >= 0 && !(skew && i == j);
                if (ok && !pattern)
                    ok = same_value(a.value(static_cast<std::size_t>(t)),
                                    skew ? negate(a.value(k)) : a.value(k));
                if (!ok) bad_row.store(static_cast<std::int64_t>(i));
            }
        }
        if (bad_row.load() >= 0)
            throw invalid_argument("write_matrix_market: the matrix is not " +
                                   std::string(to_string(sym)) + " (row " +
                                   std::to_string(bad_row.load()) + ")");
        entries = lower;
    }
    write_coordinate_head<T>(out, a.rows(), a.cols(), entries, pattern, sym, opt);
    write_coordinate_body(out, a, 0, sym, pattern, threads);
}

template <class T>
void write_array(output_sink& out, dense_matrix<T> const& a, write_options const& opt) {
    int const threads = thread_count(opt.threads);
    mm_symmetry const sym = written_symmetry(opt.symmetry);
    bool const skew = sym == mm_symmetry::skew_symmetric;
    if (opt.pattern) throw invalid_argument("write_matrix_market: an array file cannot be pattern");
    if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>)
        if (skew)
            throw invalid_argument("write_matrix_market: " + std::string(type_name<T>()) +
                                   " values cannot be skew-symmetric");
    std::size_t const rows = a.rows(), cols = a.cols();
    if (sym != mm_symmetry::general) {
        if (rows != cols)
            throw invalid_argument("write_matrix_market: a " + kleene::detail::shape(rows, cols) +
                                   " matrix cannot be written as " + std::string(to_string(sym)));
        std::atomic<bool> ok{true};
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                bool good = skew ? (i == j ? a(i, i) == T(0) : same_value(a(i, j), negate(a(j, i))))
                                 : same_value(a(i, j), a(j, i));
                if (!good) ok.store(false);
            }
        if (!ok.load())
            throw invalid_argument("write_matrix_market: the matrix is not " +
                                   std::string(to_string(sym)));
    }
    write_preamble<T>(out, "array", false, sym, opt);
    out.write(std::to_string(rows) + " " + std::to_string(cols) + "\n");
    std::size_t const per_block =
        std::max<std::size_t>(1, block_entries / std::max<std::size_t>(rows, 1));
    // No rows, no values: a 0 x n array has no blocks to write, however large n is.
    std::size_t const nblocks = rows == 0 ? 0 : cols / per_block + (cols % per_block != 0);
    write_blocks(out, nblocks, threads, [&](std::size_t b, std::string& buf) {
        std::size_t const j0 = b * per_block, j1 = std::min(cols, j0 + per_block);
        buf.resize((j1 - j0) * rows * (max_value_chars + 1));
        char* p = buf.data();
        for (std::size_t j = j0; j < j1; ++j) {
            std::size_t const i0 = sym == mm_symmetry::general ? 0 : (skew ? j + 1 : j);
            for (std::size_t i = i0; i < rows; ++i) {
                p = put_value(p, a(i, j));
                *p++ = '\n';
            }
        }
        buf.resize(static_cast<std::size_t>(p - buf.data()));
    });
}

template <class T>
void write_edges_head(output_sink& out, std::uint64_t rows, std::uint64_t cols,
                      std::uint64_t entries, bool pattern) {
    // The shape, which the ids alone do not give (empty rows and columns at the end, rectangles).
    // The value type too, so that a reader can read the values back as what they were.
    out.write(std::string(edge_list_header) + " " + std::to_string(rows) + " x " +
              std::to_string(cols) + ", " + std::to_string(entries) + " entries" +
              (pattern ? std::string() : ", " + std::string(to_string(value_type_of<T>())) + " values") +
              "\n");
}

/// The edge lines of the CSR rows `a`, its row 0 written as row0 (+ 1 unless zero_based).
template <class T, class Index>
void write_edges_body(output_sink& out, csr_matrix<T, Index> const& a, std::uint64_t row0,
                      bool pattern, int threads, bool zero_based) {
    std::size_t const rows = a.rows();
    std::size_t const per_block = std::max<std::size_t>(
        1, rows / std::max<std::size_t>(1, (a.nnz() + block_entries - 1) / block_entries));
    std::size_t const nblocks = rows == 0 ? 0 : (rows + per_block - 1) / per_block;
    std::uint64_t const base = (zero_based ? 0 : 1) + row0;
    std::uint64_t const col_base = zero_based ? 0 : 1;
    write_blocks(out, nblocks, threads, [&](std::size_t b, std::string& buf) {
        std::size_t const r0 = b * per_block, r1 = std::min(rows, r0 + per_block);
        std::size_t const n = a.row_begin(r1) - a.row_begin(r0);
        buf.resize(n * (2 * 21 + max_value_chars + 3));
        char* p = buf.data();
        for (std::size_t i = r0; i < r1; ++i)
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
                p = put_uint(p, i + base);
                *p++ = ' ';
                p = put_uint(p, static_cast<std::uint64_t>(a.col_idx()[k]) + col_base);
                if (!pattern) {
                    *p++ = ' ';
                    p = put_value(p, a.value(k));
                }
                *p++ = '\n';
            }
        buf.resize(static_cast<std::size_t>(p - buf.data()));
    });
}

template <class T, class Index>
void write_edges(output_sink& out, csr_matrix<T, Index> const& a, int threads, bool zero_based) {
    threads = thread_count(threads);
    bool const pattern = a.nnz() > 0 && !a.has_values() && a.iso_value() == T(1);
    write_edges_head<T>(out, a.rows(), a.cols(), a.nnz(), pattern);
    write_edges_body(out, a, 0, pattern, threads, zero_based);
}

template <class T, class Index>
csr_matrix<T, Index> column_of(sparse_vector<T, Index> const& v) {
    buffer<Index> ptr(v.size() + 1, Index(0));
    for (std::size_t k = 0; k < v.nnz(); ++k) ptr[static_cast<std::size_t>(v.indices()[k]) + 1] = 1;
    for (std::size_t i = 0; i < v.size(); ++i) ptr[i + 1] += ptr[i];
    buffer<Index> col(v.nnz(), Index(0));
    buffer<T> val(v.nnz());
    std::copy(v.values(), v.values() + v.nnz(), val.data());
    return csr_matrix<T, Index>(v.size(), 1, std::move(ptr), std::move(col), std::move(val), T(1),
                                true);
}

}  // namespace
}  // namespace detail

template <class T, index_type Index>
void write_matrix_market(output_file& f, csr_matrix<T, Index> const& a, write_options const& opt) {
    detail::output_sink out(f);
    detail::write_coordinate(out, a, opt);
}
template <class T>
void write_matrix_market(output_file& f, dense_matrix<T> const& a, write_options const& opt) {
    detail::output_sink out(f);
    detail::write_array(out, a, opt);
}
template <class T, index_type Index>
void write_matrix_market(output_file& f, sparse_vector<T, Index> const& v,
                         write_options const& opt) {
    write_matrix_market(f, detail::column_of(v), opt);
}
template <class T>
void write_matrix_market(output_file& f, dense_vector<T> const& v, write_options const& opt) {
    dense_matrix<T> d(v.size(), 1);
    std::copy(v.data(), v.data() + v.size(), d.data());
    write_matrix_market(f, d, opt);
}
template <class T, index_type Index>
void write_edge_list(output_file& f, csr_matrix<T, Index> const& a, int threads,
                     bool zero_based) {
    detail::output_sink out(f);
    detail::write_edges(out, a, threads, zero_based);
}

template <class T>
void write_coordinate_header(output_file& f, std::uint64_t rows, std::uint64_t cols,
                             std::uint64_t entries, bool pattern, write_options const& opt) {
    detail::output_sink out(f);
    detail::write_coordinate_head<T>(out, rows, cols, entries, pattern, mm_symmetry::general, opt);
}
template <class T, index_type Index>
void write_coordinate_rows(output_file& f, csr_matrix<T, Index> const& block, std::uint64_t row0,
                           bool pattern, int threads) {
    detail::output_sink out(f);
    detail::write_coordinate_body(out, block, row0, mm_symmetry::general, pattern,
                                  detail::thread_count(threads));
}
template <class T>
void write_edge_list_header(output_file& f, std::uint64_t rows, std::uint64_t cols,
                            std::uint64_t entries, bool pattern) {
    detail::output_sink out(f);
    detail::write_edges_head<T>(out, rows, cols, entries, pattern);
}
template <class T, index_type Index>
void write_edge_list_rows(output_file& f, csr_matrix<T, Index> const& block, std::uint64_t row0,
                          bool pattern, int threads, bool zero_based) {
    detail::output_sink out(f);
    detail::write_edges_body(out, block, row0, pattern, detail::thread_count(threads),
                             zero_based);
}

template <class T, index_type Index>
void write_matrix_market(std::string const& path, csr_matrix<T, Index> const& a,
                         write_options const& opt) {
    output_file f(path);
    write_matrix_market(f, a, opt);
    f.commit();
}
template <class T>
void write_matrix_market(std::string const& path, dense_matrix<T> const& a,
                         write_options const& opt) {
    output_file f(path);
    write_matrix_market(f, a, opt);
    f.commit();
}
template <class T, index_type Index>
void write_matrix_market(std::string const& path, sparse_vector<T, Index> const& v,
                         write_options const& opt) {
    output_file f(path);
    write_matrix_market(f, v, opt);
    f.commit();
}
template <class T>
void write_matrix_market(std::string const& path, dense_vector<T> const& v,
                         write_options const& opt) {
    output_file f(path);
    write_matrix_market(f, v, opt);
    f.commit();
}
template <class T, index_type Index>
std::string write_matrix_market_to_string(csr_matrix<T, Index> const& a, write_options const& opt) {
    std::string s;
    detail::output_sink out(&s);
    detail::write_coordinate(out, a, opt);
    return s;
}
template <class T>
std::string write_matrix_market_to_string(dense_matrix<T> const& a, write_options const& opt) {
    std::string s;
    detail::output_sink out(&s);
    detail::write_array(out, a, opt);
    return s;
}
template <class T, index_type Index>
void write_edge_list(std::string const& path, csr_matrix<T, Index> const& a, int threads,
                     bool zero_based) {
    output_file f(path);
    write_edge_list(f, a, threads, zero_based);
    f.commit();
}

#define KLEENE_IO_INSTANTIATE_WRITE_INDEX(T, Index)                                               \
    template void write_matrix_market<T, Index>(std::string const&, csr_matrix<T, Index> const&,  \
                                                write_options const&);                            \
    template void write_matrix_market<T, Index>(                                                  \
        std::string const&, sparse_vector<T, Index> const&, write_options const&);                \
    template std::string write_matrix_market_to_string<T, Index>(csr_matrix<T, Index> const&,     \
                                                                 write_options const&);           \
    template void write_edge_list<T, Index>(std::string const&, csr_matrix<T, Index> const&, int, \
                                            bool);                                                \
    template void write_matrix_market<T, Index>(output_file&, csr_matrix<T, Index> const&,        \
                                                write_options const&);                            \
    template void write_matrix_market<T, Index>(output_file&, sparse_vector<T, Index> const&,     \
                                                write_options const&);                            \
    template void write_edge_list<T, Index>(output_file&, csr_matrix<T, Index> const&, int, bool); \
    template void write_coordinate_rows<T, Index>(output_file&, csr_matrix<T, Index> const&,      \
                                                  std::uint64_t, bool, int);                      \
    template void write_edge_list_rows<T, Index>(output_file&, csr_matrix<T, Index> const&,       \
                                                 std::uint64_t, bool, int, bool);
#define KLEENE_IO_INSTANTIATE_WRITE(T)                                               \
    KLEENE_IO_INSTANTIATE_WRITE_INDEX(T, std::int32_t)                               \
    KLEENE_IO_INSTANTIATE_WRITE_INDEX(T, std::int64_t)                               \
    template void write_matrix_market<T>(std::string const&, dense_matrix<T> const&, \
                                         write_options const&);                      \
    template void write_matrix_market<T>(std::string const&, dense_vector<T> const&, \
                                         write_options const&);                      \
    template std::string write_matrix_market_to_string<T>(dense_matrix<T> const&,    \
                                                          write_options const&);     \
    template void write_matrix_market<T>(output_file&, dense_matrix<T> const&,       \
                                         write_options const&);                      \
    template void write_matrix_market<T>(output_file&, dense_vector<T> const&,       \
                                         write_options const&);                      \
    template void write_coordinate_header<T>(output_file&, std::uint64_t, std::uint64_t, \
                                             std::uint64_t, bool, write_options const&); \
    template void write_edge_list_header<T>(output_file&, std::uint64_t, std::uint64_t,  \
                                            std::uint64_t, bool);

KLEENE_IO_FOR_EACH_VALUE_TYPE(KLEENE_IO_INSTANTIATE_WRITE)

}  // namespace kleene::io

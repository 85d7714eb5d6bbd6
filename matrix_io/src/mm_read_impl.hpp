#pragma once
// Template bodies of the Matrix Market and edge-list readers; each mm_read_*.cpp instantiates
// them for a few element types (so the instantiations compile in parallel).

#include <kleene/io/edge_list.hpp>
#include <kleene/io/matrix_market.hpp>

#include "io_detail.hpp"

namespace kleene::io::detail {

template <class Index>
void check_fits_index(std::string const& name, mm_header const& h) {
    auto const lim = static_cast<std::uint64_t>(std::numeric_limits<Index>::max());
    if (h.rows > lim || h.cols > lim)
        fail(name, h.size_line, mm_errc::too_large,
             "a " + kleene::detail::shape(h.rows, h.cols) + " matrix does not fit " +
                 std::to_string(sizeof(Index) * 8) + "-bit indices");
}

/// Runs a read; a failed allocation becomes out_of_memory naming the file (and what, where the
/// allocation said).
template <class F>
auto reading(std::string const& name, std::size_t bytes, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (out_of_memory const& e) {
        throw out_of_memory(name + ": " + e.what(), e.bytes());
    } catch (std::bad_alloc const&) {
        throw out_of_memory(name + ": out of memory while parsing the entries of a " +
                                kleene::detail::format_bytes(static_cast<long double>(bytes)) +
                                " file",
                            0);
    }
}

/// The stored entries (mirrors included) must fit Index: row pointers count them.
template <class T, class Index>
void check_stored_fits_index(std::string const& name, std::uint64_t line,
                             std::vector<chunk<T, Index>> const& chunks, bool symmetric) {
    std::uint64_t stored = 0;
    for (auto const& c : chunks) stored += c.count + (symmetric ? c.offdiag : 0);
    if (stored > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()))
        fail(name, line, mm_errc::too_large,
             std::to_string(stored) + " stored entries do not fit " +
                 std::to_string(sizeof(Index) * 8) + "-bit indices");
}

template <class T>
void check_skew_type(std::string const& name, mm_header const& h, bool valued) {
    if constexpr (std::is_unsigned_v<T>)
        if (valued && h.symmetry == mm_symmetry::skew_symmetric)
            fail(name, 1, mm_errc::unsupported,
                 "skew-symmetric values cannot be read into " + std::string(type_name<T>()) +
                     " (negative entries)");
}

template <class T>
body_spec spec_for(mm_header const& h, read_options const& opt) {
    body_spec s;
    s.kind = h.format == mm_format::array ? body_kind::array : body_kind::coordinate;
    s.vector = h.object == mm_object::vector;
    s.has_value = h.field != mm_field::pattern;
    s.parse_value = !opt.pattern_only || h.format == mm_format::array;
    s.integer_field = h.field == mm_field::integer;
    s.skew = h.symmetry == mm_symmetry::skew_symmetric;
    s.symmetric = h.symmetry != mm_symmetry::general;
    s.rows = h.rows;
    s.cols = h.cols;
    if (h.graphblas_type && *h.graphblas_type != value_type_of<T>()) s.gb_type = h.graphblas_type;
    return s;
}

template <class T, class Index>
[[noreturn]] void fail_duplicate(std::string_view text, std::string const& name,
                                 std::vector<chunk<T, Index>> const& chunks, std::uint64_t g,
                                 bool hash_comments) {
    for (auto const& c : chunks) {
        if (g < c.count) {
            std::size_t off = offset_of_entry(text, c.begin, c.end, g, hash_comments);
            fail(name, line_of(text, off), mm_errc::duplicate_entry,
                 "duplicate entry (" + std::to_string(std::uint64_t(c.i[g]) + 1) + ", " +
                     std::to_string(std::uint64_t(c.j[g]) + 1) +
                     ") (choose a duplicate policy to merge: sum, min, max or last)");
        }
        g -= c.count;
    }
    fail(name, 0, mm_errc::duplicate_entry, "duplicate entry");
}

template <class T>
dense_matrix<T> read_array(std::string_view text, std::string const& name, mm_header const& h,
                           std::size_t body, read_options const& opt) {
    check_skew_type<T>(name, h, true);
    int const threads = thread_count(opt.threads);
    // A 0 x n or n x 0 array holds nothing, whatever n.
    check_memory(name, h.size_line,
                 "a " + kleene::detail::shape(h.rows, h.cols) + " dense matrix needs",
                 static_cast<long double>(h.rows) * h.cols * sizeof(T));
    auto s = spec_for<T>(h, opt);
    auto chunks = parse_body<T, std::int32_t>(text, body, s, threads);
    check_chunks(text, name, chunks, h.file_entries, false);
    std::size_t const rows = h.rows, cols = h.cols;
    dense_matrix<T> d(rows, cols);
    bool const skew = s.skew, sym = s.symmetric;
    std::size_t const off = skew ? 1 : 0;
    if (skew)
        for (std::size_t i = 0; i < rows; ++i) d(i, i) = T(0);
    std::vector<std::uint64_t> first(chunks.size() + 1, 0);
    for (std::size_t c = 0; c < chunks.size(); ++c) first[c + 1] = first[c] + chunks[c].count;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        auto const& v = chunks[c].v;
        if (v.empty()) continue;
        std::uint64_t k = first[c];
        std::size_t i = 0, j = 0;
        if (!sym) {
            i = k % rows;
            j = k / rows;
        } else {
            while (k >= rows - j - off) {
                k -= rows - j - off;
                ++j;
            }
            i = j + off + k;
        }
        for (T const x : v) {
            d(i, j) = x;
            if (sym && i != j) {
                if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
                    d(j, i) = skew ? T(-x) : x;
                else
                    d(j, i) = x;
            }
            if (++i == rows) {
                ++j;
                i = sym ? j + off : 0;
            }
        }
    }
    return d;
}

template <class T, class Index>
csr_matrix<T, Index> dense_to_full_csr(dense_matrix<T> const& d, std::string const& name,
                                       mm_header const& h, int threads) {
    std::size_t const rows = d.rows(), cols = d.cols();
    if (rows * cols > static_cast<std::size_t>(std::numeric_limits<Index>::max()))
        fail(name, h.size_line, mm_errc::too_large,
             std::to_string(rows * cols) + " entries do not fit " +
                 std::to_string(sizeof(Index) * 8) + "-bit indices");
    buffer<Index> ptr(rows + 1);
    buffer<Index> col(rows * cols);
    buffer<T> val(rows * cols);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::size_t i = 0; i <= rows; ++i) ptr[i] = static_cast<Index>(i * cols);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            col[i * cols + j] = static_cast<Index>(j);
            val[i * cols + j] = d(i, j);
        }
    return csr_matrix<T, Index>(rows, cols, std::move(ptr), std::move(col), std::move(val), T(1),
                                true);
}

template <class T, class Index>
csr_matrix<T, Index> read_csr(std::string_view text, std::string const& name,
                              read_options const& opt) {
    auto const [h, body] = parse_header(text, name);
    int const threads = thread_count(opt.threads);
    check_fits_index<Index>(name, h);
    std::string const shape = kleene::detail::shape(h.rows, h.cols);
    if (h.format == mm_format::array) {
        // Every entry is stored: the dense read, then CSR of rows * cols entries.
        long double const entries = static_cast<long double>(h.rows) * h.cols;
        if (entries > static_cast<long double>(std::numeric_limits<Index>::max()))
            fail(name, h.size_line, mm_errc::too_large,
                 "a " + shape + " array has " +
                     (entries >= 0x1p64L ? std::string("more than 2^64")
                                         : std::to_string(static_cast<std::uint64_t>(entries))) +
                     " entries, more than " + std::to_string(sizeof(Index) * 8) +
                     "-bit indices hold");
        check_memory(name, h.size_line, "a " + shape + " array read as CSR needs at least",
                     entries * sizeof(T) + (h.rows + 1.0L) * sizeof(Index) +
                         entries * (sizeof(Index) + sizeof(T)));
        auto d = read_array<T>(text, name, h, body, opt);
        auto a = dense_to_full_csr<T, Index>(d, name, h, threads);
        if (!opt.pattern_only) return a;
        return csr_matrix<T, Index>(a.rows(), a.cols(), std::move(a.row_ptr_storage()),
                                    std::move(a.col_idx_storage()), buffer<T>(), T(1), true);
    }
    auto const s = spec_for<T>(h, opt);
    bool const valued = s.has_value && s.parse_value;
    check_skew_type<T>(name, h, valued);
    // Before any allocation: the declared entries (as many as the text can hold), mirrored when
    // symmetric, and the row pointers.
    long double const entries =
        static_cast<long double>(std::min(h.file_entries, max_entry_lines(text.size() - body))) *
        (s.symmetric ? 2 : 1);
    check_memory(name, h.size_line, "a " + shape + " matrix needs at least",
                 csr_assembly_bytes(h.rows, entries, sizeof(Index), valued ? sizeof(T) : 0));
    auto chunks = parse_body<T, Index>(text, body, s, threads);
    check_chunks(text, name, chunks, h.file_entries, false);
    check_stored_fits_index(name, h.size_line, chunks, s.symmetric);
    return assemble(chunks, h.rows, h.cols, s.symmetric, s.skew, valued, opt.duplicates, threads,
                    T(1), [&](std::uint64_t g) { fail_duplicate(text, name, chunks, g, false); });
}

template <class T>
dense_matrix<T> read_dense(std::string_view text, std::string const& name, T absent,
                           read_options const& opt) {
    auto const [h, body] = parse_header(text, name);
    if (h.format == mm_format::array) return read_array<T>(text, name, h, body, opt);
    check_memory(name, h.size_line,
                 "a " + kleene::detail::shape(h.rows, h.cols) + " dense matrix needs at least",
                 static_cast<long double>(h.rows) * h.cols * sizeof(T) +
                     (h.rows + 1.0L) * sizeof(std::int64_t));
    auto a = read_csr<T, std::int64_t>(text, name, opt);
    dense_matrix<T> d(a.rows(), a.cols(), absent);
    for (std::size_t i = 0; i < a.rows(); ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            d(i, a.col_idx()[k]) = a.value(k);
    return d;
}

template <class T, class Index>
sparse_vector<T, Index> csr_to_vector(csr_matrix<T, Index> const& a, std::string const& name) {
    if (a.cols() == 1) {
        std::size_t n = 0;
        for (std::size_t i = 0; i < a.rows(); ++i) n += a.row_end(i) > a.row_begin(i);
        buffer<Index> idx(n);
        buffer<T> val(n);
        std::size_t w = 0;
        for (std::size_t i = 0; i < a.rows(); ++i)
            if (a.row_end(i) > a.row_begin(i)) {
                idx[w] = static_cast<Index>(i);
                val[w++] = a.value(a.row_begin(i));
            }
        return {a.rows(), std::move(idx), std::move(val)};
    }
    if (a.rows() == 1) {
        buffer<Index> idx(a.nnz());
        buffer<T> val(a.nnz());
        for (std::size_t k = 0; k < a.nnz(); ++k) {
            idx[k] = a.col_idx()[k];
            val[k] = a.value(k);
        }
        return {a.cols(), std::move(idx), std::move(val)};
    }
    throw invalid_argument(name + ": a " + kleene::detail::shape(a.rows(), a.cols()) +
                           " matrix is not a vector");
}

/// The `# kleene edge list: ROWS x COLS, N entries[, TYPE values]` line among the comments before
/// the first edge.
struct edge_shape {
    bool given = false;
    std::uint64_t rows = 0, cols = 0, entries = 0, line = 0;
    std::optional<value_type> type;
};

inline edge_shape parse_edge_shape(std::string_view text, std::string const& name) {
    edge_shape out;
    std::string_view const head = edge_list_header;
    std::size_t pos = 0;
    for (std::uint64_t line = 1; pos < text.size(); ++line) {
        auto nl = text.find('\n', pos);
        std::size_t const e = nl == std::string_view::npos ? text.size() : nl;
        char const* p = skip_space(text.data() + pos, text.data() + e);
        char const* const end = text.data() + e;
        pos = e + 1;
        if (p == end) continue;
        if (*p != '#' && *p != '%') break;  // the first edge
        if (static_cast<std::size_t>(end - p) < head.size() || std::string_view(p, head.size()) != head)
            continue;
        // ROWS x COLS, N entries
        p += head.size();
        std::uint64_t v[3];
        bool ok = true;
        auto number = [&](std::uint64_t& x) {
            p = skip_space(p, end);
            auto r = std::from_chars(p, end, x);
            ok = ok && r.ec == std::errc{};
            p = r.ptr;
        };
        auto word = [&](std::string_view w) {
            p = skip_space(p, end);
            ok = ok && static_cast<std::size_t>(end - p) >= w.size() && std::string_view(p, w.size()) == w;
            if (ok) p += w.size();
        };
        number(v[0]);
        if (ok) word("x");
        if (ok) number(v[1]);
        if (ok) word(",");
        if (ok) number(v[2]);
        if (ok) word("entries");
        std::optional<value_type> type;
        if (ok && skip_space(p, end) != end) {  // the writer's value type, when it had values
            word(",");
            p = skip_space(p, end);
            char const* const t = p;
            while (p != end && *p != ' ' && *p != '\t' && *p != '\r') ++p;
            value_type vt{};
            ok = ok && parse_value_type(std::string_view(t, static_cast<std::size_t>(p - t)), vt);
            if (ok) word("values");
            if (ok) type = vt;
        }
        if (!ok || skip_space(p, end) != end)
            fail(name, line, mm_errc::bad_size_line,
                 "malformed shape line (expected '" + std::string(head) +
                     " ROWS x COLS, N entries' or '... N entries, TYPE values', TYPE one of "
                     "bool, int8_t .. int64_t, uint8_t .. uint64_t, float, double)");
        out = {true, v[0], v[1], v[2], line, type};
        break;
    }
    return out;
}

template <class T, class Index>
std::vector<chunk<T, Index>> parse_edges(std::string_view text, std::string const& name,
                                         edge_list_options const& opt, bool& weighted,
                                         edge_shape& shape) {
    shape = parse_edge_shape(text, name);
    body_spec s;
    s.kind = body_kind::edges;
    s.has_value = true;
    s.parse_value = !opt.pattern_only;
    // Integer weights parse as integers: through double, int64 weights past 2^53 would round.
    s.integer_field = std::is_integral_v<T> && !std::is_same_v<T, bool>;
    s.rows = opt.vertices != 0 ? opt.vertices : unbounded;
    s.cols = s.rows;
    if (shape.given) {
        std::string const sh = kleene::detail::shape(shape.rows, shape.cols);
        if (opt.vertices != 0 && (opt.vertices != shape.rows || opt.vertices != shape.cols))
            fail(name, shape.line, mm_errc::bad_size_line,
                 "the file is " + sh + ", not " + std::to_string(opt.vertices) + " vertices");
        if (opt.undirected && shape.rows != shape.cols)
            fail(name, shape.line, mm_errc::not_square,
                 "an undirected edge list must be square, this one is " + sh);
        s.rows = shape.rows;
        s.cols = shape.cols;
    }
    s.zero_based = opt.zero_based;
    int const threads = thread_count(opt.threads);
    auto chunks = parse_body<T, Index>(text, 0, s, threads);
    std::uint64_t const total = check_chunks(text, name, chunks, std::nullopt, true);
    if (shape.given && total != shape.entries) {
        std::uint64_t seen = 0;
        for (auto const& c : chunks) {
            if (total > shape.entries && seen + c.count > shape.entries)
                fail(name,
                     line_of(text, offset_of_entry(text, c.begin, c.end, shape.entries - seen, true)),
                     mm_errc::too_many_entries,
                     "more edges than the " + std::to_string(shape.entries) +
                         " the shape line (line " + std::to_string(shape.line) + ") declares");
            seen += c.count;
        }
        fail(name, line_of(text, text.size()), mm_errc::too_few_entries,
             "the shape line (line " + std::to_string(shape.line) + ") declares " +
                 std::to_string(shape.entries) + " edges but the file has " + std::to_string(total));
    }
    std::size_t first[2] = {npos, npos};
    for (auto const& c : chunks)
        for (int a = 0; a < 2; ++a)
            if (first[a] == npos) first[a] = c.first_arity[a];
    if (first[0] != npos && first[1] != npos) {
        bool const later_weighted = first[1] > first[0];
        fail(name, line_of(text, std::max(first[0], first[1])), mm_errc::bad_entry,
             std::string("edge has ") + (later_weighted ? "3 fields (u v w)" : "2 fields (u v)") +
                 " but line " + std::to_string(line_of(text, std::min(first[0], first[1]))) +
                 " has " + (later_weighted ? "2" : "3") +
                 ": weights must be on every edge or none");
    }
    weighted = first[1] != npos;
    return chunks;
}

template <class T, class Index>
csr_matrix<T, Index> read_edges(std::string_view text, std::string const& name,
                                edge_list_options const& opt) {
    bool weighted = false;
    edge_shape shape;
    auto chunks = parse_edges<T, Index>(text, name, opt, weighted, shape);
    std::uint64_t n = opt.vertices;
    std::size_t at = npos;  // the line of the largest id, when ids (not the option) decide n
    for (auto const& c : chunks)
        if (c.max_id > n) {
            n = c.max_id;
            at = c.max_id_offset;
        }
    std::uint64_t const line = at == npos ? 1 : line_of(text, at);
    std::string const because = at == npos
                                    ? std::to_string(n) + " vertices"
                                    : "vertex id " + std::to_string(opt.zero_based ? n - 1 : n) +
                                          " (" + std::to_string(n) + " vertices)";
    if (n > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()))
        fail(name, line, mm_errc::too_large,
             because + " does not fit " + std::to_string(sizeof(Index) * 8) + "-bit indices");
    // The shape line, when there is one, gives the dimensions (ids past it were refused).
    std::uint64_t const rows = shape.given ? shape.rows : n, cols = shape.given ? shape.cols : n;
    if (shape.given && std::max(rows, cols) > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()))
        fail(name, shape.line, mm_errc::too_large,
             std::to_string(std::max(rows, cols)) + " vertices do not fit " +
                 std::to_string(sizeof(Index) * 8) + "-bit indices");
    if (shape.given) n = std::max(rows, cols);
    bool const valued = weighted && !opt.pattern_only;
    std::uint64_t entries = 0;
    for (auto const& c : chunks) entries += c.count + (opt.undirected ? c.offdiag : 0);
    check_memory(name, line, because + " needs at least",
                 csr_assembly_bytes(n, static_cast<long double>(entries), sizeof(Index),
                                    valued ? sizeof(T) : 0));
    check_stored_fits_index(name, line_of(text, text.size()), chunks, opt.undirected);
    if (!valued)
        for (auto& c : chunks) c.v.clear();
    return assemble(chunks, rows, cols, opt.undirected, false, valued, opt.duplicates,
                    thread_count(opt.threads), T(1),
                    [&](std::uint64_t g) { fail_duplicate(text, name, chunks, g, true); });
}

}  // namespace kleene::io::detail

namespace kleene::io {

template <class T, index_type Index>
csr_matrix<T, Index> read_matrix_market(std::string const& path, read_options const& opt) {
    detail::input_file f(path);
    return detail::reading(f.name(), f.text().size(),
                           [&] { return detail::read_csr<T, Index>(f.text(), f.name(), opt); });
}
template <class T, index_type Index>
csr_matrix<T, Index> read_matrix_market_from_memory(std::string_view text,
                                                    read_options const& opt) {
    std::string const name = opt.name.empty() ? "<memory>" : opt.name;
    return detail::reading(name, text.size(),
                           [&] { return detail::read_csr<T, Index>(text, name, opt); });
}
template <class T>
dense_matrix<T> read_matrix_market_dense(std::string const& path, T absent,
                                         read_options const& opt) {
    detail::input_file f(path);
    return detail::reading(f.name(), f.text().size(),
                           [&] { return detail::read_dense<T>(f.text(), f.name(), absent, opt); });
}
template <class T>
dense_matrix<T> read_matrix_market_dense_from_memory(std::string_view text, T absent,
                                                     read_options const& opt) {
    std::string const name = opt.name.empty() ? "<memory>" : opt.name;
    return detail::reading(name, text.size(),
                           [&] { return detail::read_dense<T>(text, name, absent, opt); });
}
template <class T, index_type Index>
sparse_vector<T, Index> read_matrix_market_vector(std::string const& path,
                                                  read_options const& opt) {
    detail::input_file f(path);
    return detail::reading(f.name(), f.text().size(), [&] {
        return detail::csr_to_vector(detail::read_csr<T, Index>(f.text(), f.name(), opt), f.name());
    });
}
template <class T, index_type Index>
sparse_vector<T, Index> read_matrix_market_vector_from_memory(std::string_view text,
                                                              read_options const& opt) {
    std::string const name = opt.name.empty() ? "<memory>" : opt.name;
    return detail::csr_to_vector(detail::read_csr<T, Index>(text, name, opt), name);
}
template <class T>
dense_vector<T> read_matrix_market_dense_vector(std::string const& path, T absent,
                                                read_options const& opt) {
    detail::input_file f(path);
    auto d = detail::reading(f.name(), f.text().size(), [&] {
        return detail::read_dense<T>(f.text(), f.name(), absent, opt);
    });
    if (d.rows() != 1 && d.cols() != 1)
        throw invalid_argument(f.name() + ": a " + kleene::detail::shape(d.rows(), d.cols()) +
                               " matrix is not a vector");
    dense_vector<T> v(d.rows() * d.cols());
    std::copy(d.data(), d.data() + v.size(), v.data());
    return v;
}
template <class T, index_type Index>
csr_matrix<T, Index> read_edge_list(std::string const& path, edge_list_options const& opt) {
    detail::input_file f(path);
    return detail::reading(f.name(), f.text().size(),
                           [&] { return detail::read_edges<T, Index>(f.text(), f.name(), opt); });
}
template <class T, index_type Index>
csr_matrix<T, Index> read_edge_list_from_memory(std::string_view text,
                                                edge_list_options const& opt) {
    std::string const name = opt.name.empty() ? "<memory>" : opt.name;
    return detail::reading(name, text.size(),
                           [&] { return detail::read_edges<T, Index>(text, name, opt); });
}

}  // namespace kleene::io

#define KLEENE_IO_INSTANTIATE_READ_INDEX(T, Index)                                               \
    template csr_matrix<T, Index> read_matrix_market<T, Index>(std::string const&,               \
                                                               read_options const&);             \
    template csr_matrix<T, Index> read_matrix_market_from_memory<T, Index>(std::string_view,     \
                                                                           read_options const&); \
    template sparse_vector<T, Index> read_matrix_market_vector<T, Index>(std::string const&,     \
                                                                         read_options const&);   \
    template sparse_vector<T, Index> read_matrix_market_vector_from_memory<T, Index>(            \
        std::string_view, read_options const&);                                                  \
    template csr_matrix<T, Index> read_edge_list<T, Index>(std::string const&,                   \
                                                           edge_list_options const&);            \
    template csr_matrix<T, Index> read_edge_list_from_memory<T, Index>(std::string_view,         \
                                                                       edge_list_options const&);

#define KLEENE_IO_INSTANTIATE_READ(T)                                                      \
    KLEENE_IO_INSTANTIATE_READ_INDEX(T, std::int32_t)                                      \
    KLEENE_IO_INSTANTIATE_READ_INDEX(T, std::int64_t)                                      \
    template dense_matrix<T> read_matrix_market_dense<T>(std::string const&, T,            \
                                                         read_options const&);             \
    template dense_matrix<T> read_matrix_market_dense_from_memory<T>(std::string_view, T,  \
                                                                     read_options const&); \
    template dense_vector<T> read_matrix_market_dense_vector<T>(std::string const&, T,     \
                                                                read_options const&);

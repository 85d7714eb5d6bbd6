#include "layout_input.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <kleene/algorithms/distributed/layout.hpp>
#include <kleene/convert.hpp>
#include <kleene/io/binary.hpp>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/semiring.hpp>
#include <type_traits>

namespace kleene::tools {
namespace {

namespace dist = kleene::distributed;

/// f(type_tag<T>) for the types a layout may hold.
template <class F>
decltype(auto) visit_layout_type(io::value_type t, std::string const& dir, F&& f) {
    switch (t) {
        case io::value_type::int32:
            return f(io::type_tag<std::int32_t>{});
        case io::value_type::int64:
            return f(io::type_tag<std::int64_t>{});
        case io::value_type::float32:
            return f(io::type_tag<float>{});
        case io::value_type::float64:
            return f(io::type_tag<double>{});
        default:
            throw io_error(dir + "/" + dist::manifest_name + ": a layout of " +
                           std::string(io::to_string(t)) +
                           " values (kleene writes int32, int64, "
                           "float and double)");
    }
}

constexpr std::size_t join_bytes = dist::layout_row_block_bytes;

/// The value of an entry the result does not store: +inf, or 0 for predecessors (1-based).
template <class T>
T absent(dist::layout_manifest const& m) {
    return m.result == "predecessors" ? T(0) : infinity<T>();
}

/// Whether entry (i, j) = x of the result is stored: a finite distance, a predecessor, or a
/// reachable pair (and (i, i) when the reachability is reflexive).
template <class T>
bool stored(T x, std::uint64_t i, std::uint64_t j, dist::layout_manifest const& m) {
    return !(x == absent<T>(m)) || (m.reflexive && i == j);
}

/// The stored entries of whole rows (row0 first) as the gathering command stores them:
/// distances, the finite values, and predecessors, the nonzero ones (V = T); reachability, the
/// reachable pairs and, when reflexive, (i, i) (V = bool, iso).
template <class V, class T>
csr_matrix<V, std::int64_t> rows_as_csr(dense_view<T const> rows, std::uint64_t row0,
                                        dist::layout_manifest const& m) {
    if constexpr (std::is_same_v<V, T>) {
        return to_csr<T, std::int64_t>(rows, absent<T>(m));
    } else {
        std::size_t const r = rows.rows, n = rows.cols;
        buffer<std::int64_t> ptr(r + 1);
        std::vector<std::int64_t> cols;
        ptr[0] = 0;
        for (std::size_t i = 0; i < r; ++i) {
            for (std::size_t j = 0; j < n; ++j)
                if (stored(rows(i, j), row0 + i, j, m))
                    cols.push_back(static_cast<std::int64_t>(j));
            ptr[i + 1] = static_cast<std::int64_t>(cols.size());
        }
        buffer<std::int64_t> ci(cols.size());
        std::copy(cols.begin(), cols.end(), ci.data());
        return csr_matrix<bool, std::int64_t>(r, n, std::move(ptr), std::move(ci), buffer<bool>(),
                                              true, true);
    }
}

/// Writes the layout's result as `to` a block of rows at a time: the bytes the gathering command
/// writes for the whole matrix (Matrix Market, edge list or .kbin of its CSR form). Pass 1 counts
/// the entries of every row (and checks every part's checksum); the formats put the count first.
/// A .kbin file also puts the checksum of its payload (row pointers, then all columns, then all
/// values) first: the columns and the values are made twice, once for the checksum and once to
/// write. Each pass checks the counts of pass 1 again (a part changed in between fails).
template <class V, class T>
std::uint64_t write_joined(std::string const& dir, dist::layout_manifest const& m,
                           io::output_file& out, io::file_format to, int threads,
                           bool zero_based) {
    bool const reach = std::is_same_v<V, bool>;
    std::size_t const n = m.n;
    std::vector<std::uint64_t> counts(n);
    std::uint64_t total = 0;
    dist::for_each_row_block<T>(dir, m, join_bytes, [&](std::size_t row0, auto rows) {
        auto const c = rows_as_csr<V>(rows, row0, m);
        for (std::size_t i = 0; i < c.rows(); ++i) counts[row0 + i] = c.row_end(i) - c.row_begin(i);
        total += c.nnz();
    });
    // Each later pass: the rows' CSR form, checked against pass 1's counts.
    auto rows_again = [&](auto&& use) {
        dist::for_each_row_block<T>(dir, m, join_bytes, [&](std::size_t row0, auto rows) {
            auto const c = rows_as_csr<V>(rows, row0, m);
            for (std::size_t i = 0; i < c.rows(); ++i)
                if (c.row_end(i) - c.row_begin(i) != counts[row0 + i])
                    throw io_error(dir + ": row " + std::to_string(row0 + i) +
                                   " changed while it was read");
            use(row0, c);
        });
    };
    switch (to) {
        case io::file_format::matrix_market: {
            io::write_options wo;
            wo.threads = threads;
            wo.pattern = reach;
            io::write_coordinate_header<V>(out, n, n, total, reach, wo);
            rows_again([&](std::uint64_t row0, auto const& c) {
                io::write_coordinate_rows(out, c, row0, reach, threads);
            });
            break;
        }
        case io::file_format::edge_list: {
            bool const pattern = reach && total > 0;  // as write_edge_list decides
            io::write_edge_list_header<V>(out, n, n, total, pattern);
            rows_again([&](std::uint64_t row0, auto const& c) {
                io::write_edge_list_rows(out, c, row0, pattern, threads, zero_based);
            });
            break;
        }
        case io::file_format::binary: {
            // write_binary of the CSR form: iso (no values) for reachability, and for distances
            // without a finite entry (to_csr then holds no values).
            bool const iso = reach || total == 0;
            std::vector<std::int64_t> ptr_piece;
            auto row_pointers = [&](auto&& put) {  // n + 1 of them, 1 Mi at a time
                std::int64_t at = 0;
                for (std::size_t i0 = 0; i0 <= n; i0 += std::size_t(1) << 20) {
                    std::size_t const i1 = std::min(n + 1, i0 + (std::size_t(1) << 20));
                    ptr_piece.resize(i1 - i0);
                    for (std::size_t i = i0; i < i1; ++i) {
                        ptr_piece[i - i0] = at;
                        if (i < n) at += static_cast<std::int64_t>(counts[i]);
                    }
                    put(ptr_piece.data(), ptr_piece.size() * sizeof(std::int64_t));
                }
            };
            auto payload = [&](auto&& put) {
                row_pointers(put);
                rows_again([&](std::uint64_t, auto const& c) {
                    put(c.col_idx(), c.nnz() * sizeof(std::int64_t));
                });
                if (!iso)
                    rows_again([&](std::uint64_t, auto const& c) {
                        put(c.values(), c.nnz() * sizeof(V));
                    });
            };
            io::binary_checksum_stream sum;
            payload([&](void const* p, std::size_t bytes) { sum.add(p, bytes); });
            io::write_binary_csr_header<V, std::int64_t>(out, n, n, total, iso, V(1), sum.value());
            payload([&](void const* p, std::size_t bytes) {
                out.write(static_cast<char const*>(p), bytes);
            });
            break;
        }
    }
    return total;
}

}  // namespace

bool is_directory_input(std::string const& path) {
    std::error_code ec;
    return path != "-" && std::filesystem::is_directory(path, ec);
}

layout_facts check_layout(std::string const& dir, int /*threads*/) {
    dist::layout_manifest const m = dist::read_layout(dir);
    layout_facts f;
    f.n = m.n;
    f.value_type = std::string(io::to_string(m.type));
    f.result = m.result;
    f.reflexive = m.reflexive;
    f.grid = fmt::format("{} x {}", m.grid.rows, m.grid.cols);
    f.block = std::to_string(m.block);
    f.parts = static_cast<int>(m.parts.size());
    visit_layout_type(m.type, dir, [&](auto tag) {
        using T = typename decltype(tag)::type;
        // A block of rows at a time, every part's payload checked against its checksum.
        dist::for_each_row_block<T>(dir, m, join_bytes, [&](std::size_t row0, auto rows) {
            for (std::size_t i = 0; i < rows.rows; ++i)
                for (std::size_t j = 0; j < rows.cols; ++j)
                    f.entries += stored(rows(i, j), row0 + i, j, m);
        });
    });
    return f;
}

std::string convert_layout(std::string const& dir, io::output_file& out, io::file_format to,
                           int threads, bool zero_based) {
    dist::layout_manifest const m = dist::read_layout(dir);
    return visit_layout_type(m.type, dir, [&](auto tag) {
        using T = typename decltype(tag)::type;
        std::uint64_t entries = 0;
        if constexpr (std::is_same_v<T, std::int32_t>)
            if (m.result == "reachability")
                entries = write_joined<bool, T>(dir, m, out, to, threads, zero_based);
        if (m.result != "reachability")
            entries = write_joined<T, T>(dir, m, out, to, threads, zero_based);
        return fmt::format("{} x {}, {} entries", m.n, m.n, entries);
    });
}

}  // namespace kleene::tools

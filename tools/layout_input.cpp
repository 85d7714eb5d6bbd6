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

/// The result as a sparse matrix, as the gathering command builds it.
template <class T>
csr_matrix<T, std::int64_t> distances(dense_matrix<T> const& full) {
    return to_csr<T, std::int64_t>(full, infinity<T>());
}

csr_matrix<bool, std::int64_t> reachability(dense_matrix<std::int32_t> const& full,
                                            bool reflexive) {
    std::size_t const n = full.rows();
    buffer<std::int64_t> ptr(n + 1);
    std::vector<std::int64_t> cols;
    ptr[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            if (full(i, j) != infinity<std::int32_t>() || (reflexive && i == j))
                cols.push_back(static_cast<std::int64_t>(j));
        ptr[i + 1] = static_cast<std::int64_t>(cols.size());
    }
    buffer<std::int64_t> ci(cols.size());
    std::copy(cols.begin(), cols.end(), ci.data());
    return csr_matrix<bool, std::int64_t>(n, n, std::move(ptr), std::move(ci), buffer<bool>(), true,
                                          true);
}

template <class T>
void write_as(io::output_file& out, io::file_format to, csr_matrix<T, std::int64_t> const& a,
              int threads, bool zero_based, bool pattern) {
    switch (to) {
        case io::file_format::binary:
            io::write_binary(out, a, threads);
            return;
        case io::file_format::edge_list:
            io::write_edge_list(out, a, threads, zero_based);
            return;
        case io::file_format::matrix_market: {
            io::write_options wo;
            wo.threads = threads;
            wo.pattern = pattern;
            io::write_matrix_market(out, a, wo);
            return;
        }
    }
}

}  // namespace

bool is_directory_input(std::string const& path) {
    std::error_code ec;
    return path != "-" && std::filesystem::is_directory(path, ec);
}

layout_facts check_layout(std::string const& dir, int threads) {
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
        for (auto const& p : m.parts) {
            // One part in memory at a time: the payload checked against its checksum.
            auto const local =
                io::read_binary_dense<T>((std::filesystem::path(dir) / p.file).string(), threads);
            dist::block_cyclic const d(m.n, m.block, m.grid, p.rank);
            for (std::size_t i = 0; i < local.rows(); ++i)
                for (std::size_t j = 0; j < local.cols(); ++j) {
                    bool const diag = d.global_row(d.prow(), i) == d.global_col(d.pcol(), j);
                    f.entries += local(i, j) != infinity<T>() || (m.reflexive && diag);
                }
        }
    });
    return f;
}

std::string convert_layout(std::string const& dir, io::output_file& out, io::file_format to,
                           int threads, bool zero_based) {
    dist::layout_manifest const m = dist::read_layout(dir);
    return visit_layout_type(m.type, dir, [&](auto tag) {
        using T = typename decltype(tag)::type;
        auto const full = dist::join_layout<T>(dir, m, threads);
        if (m.result == "reachability") {
            if constexpr (std::is_same_v<T, std::int32_t>) {
                auto const a = reachability(full, m.reflexive);
                write_as(out, to, a, threads, zero_based, true);
                return fmt::format("{} x {}, {} entries", m.n, m.n, a.nnz());
            }
        }
        auto const a = distances(full);
        write_as(out, to, a, threads, zero_based, false);
        return fmt::format("{} x {}, {} entries", m.n, m.n, a.nnz());
    });
}

}  // namespace kleene::tools

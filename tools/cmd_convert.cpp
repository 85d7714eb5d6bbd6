// kleene convert IN OUT: between Matrix Market (.mtx), kleene binary (.kbin) and edge lists
// (.el/.txt); the format comes from the extension, or --from / --to.

#include <fmt/core.h>

#include <kleene/io/binary.hpp>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/file_format.hpp>
#include <kleene/io/matrix_market.hpp>
#include <memory>

#include "commands.hpp"
#include "files.hpp"
#include "layout_input.hpp"
#include "progress.hpp"

namespace kleene::tools {
namespace {

struct convert_options {
    std::string in, out, from, to;
    std::string duplicates = "error";
    int threads = 0;
    bool zero_based = false;
    bool undirected = false;
    bool symmetric = false;
    bool general = false;
};

io::file_format pick(std::string const& path, std::string const& name) {
    if (!name.empty()) return *io::format_from_name(name);
    if (path == "-") return io::file_format::matrix_market;
    auto f = io::format_from_extension(path);
    if (!f)
        throw CLI::ValidationError(path + ": unknown extension (use .mtx, .kbin, .el or .txt, or " +
                                   "--from / --to)");
    return *f;
}

template <class T>
void write_sparse(convert_options const& o, io::output_file& out, io::file_format to,
                  csr_matrix<T, std::int64_t> const& a, io::mm_symmetry sym) {
    switch (to) {
        case io::file_format::binary:
            io::write_binary(out, a, o.threads);
            return;
        case io::file_format::edge_list:
            io::write_edge_list(out, a, o.threads, o.zero_based);
            return;
        case io::file_format::matrix_market: {
            io::write_options wo;
            wo.threads = o.threads;
            wo.symmetry = sym;
            io::write_matrix_market(out, a, wo);
            return;
        }
    }
}

template <class T>
void write_dense(convert_options const& o, io::output_file& out, io::file_format to,
                 dense_matrix<T> const& d, io::mm_symmetry sym) {
    if (to == io::file_format::binary) return io::write_binary(out, d, o.threads);
    if (to == io::file_format::matrix_market) {
        io::write_options wo;
        wo.threads = o.threads;
        wo.symmetry = sym;
        return io::write_matrix_market(out, d, wo);
    }
    // An edge list of a dense matrix lists every entry.
    buffer<std::int64_t> ptr(d.rows() + 1), col(d.rows() * d.cols());
    buffer<T> val(d.rows() * d.cols());
    for (std::size_t i = 0; i <= d.rows(); ++i) ptr[i] = static_cast<std::int64_t>(i * d.cols());
    for (std::size_t k = 0; k < col.size(); ++k) {
        col[k] = static_cast<std::int64_t>(k % d.cols());
        val[k] = d.data()[k];
    }
    csr_matrix<T, std::int64_t> a(d.rows(), d.cols(), std::move(ptr), std::move(col),
                                  std::move(val), T(1), true);
    io::write_edge_list(out, a, o.threads, o.zero_based);
}

io::mm_symmetry out_symmetry(convert_options const& o, io::mm_symmetry in) {
    if (o.general) return io::mm_symmetry::general;
    if (o.symmetric) return io::mm_symmetry::symmetric;
    return in == io::mm_symmetry::hermitian ? io::mm_symmetry::symmetric : in;
}

/// Returns "rows x cols, n entries" for the summary line.
std::string run(convert_options const& o, global_options const& g, progress& p) {
    using namespace kleene::io;
    if (is_directory_input(o.in)) {
        // A block layout (--distributed-output DIR): every file checked, then joined.
        output_set outs(g.temps);
        io::output_file& out = outs.add(o.out);
        p.phase("joining " + o.in);
        std::string const s = convert_layout(o.in, out, pick(o.out, o.to), o.threads, o.zero_based);
        outs.commit();
        return s;
    }
    file_format const to = pick(o.out, o.to);
    read_flags const rf{"convert", o.from, o.duplicates, o.zero_based, o.undirected, o.threads};
    output_set outs(g.temps);
    io::output_file& out = outs.add(o.out);
    input const in(o.in, &rf);  // the format: --from, the extension, else the content
    file_format const from = in.format();
    std::string summary;
    p.phase("reading " + in.name());
    // Called in every branch once the input is read, before the output is written.
    auto note = [&](std::size_t r, std::size_t c, std::size_t n) {
        summary = fmt::format("{} x {}, {} entries", r, c, n);
        p.phase("writing " + (o.out == "-" ? std::string("<stdout>") : o.out));
    };
    if (from == file_format::binary) {
        auto h = read_binary_header(o.in);
        visit_value_type(h.type, [&](auto tag) {
            using T = typename decltype(tag)::type;
            auto sym = o.symmetric ? mm_symmetry::symmetric : mm_symmetry::general;
            if (h.dense) {
                auto d = read_binary_dense<T>(o.in, o.threads);
                note(d.rows(), d.cols(), d.rows() * d.cols());
                write_dense(o, out, to, d, sym);
            } else {
                auto a = read_binary<T, std::int64_t>(o.in, o.threads);
                note(a.rows(), a.cols(), a.nnz());
                write_sparse(o, out, to, a, sym);
            }
        });
        outs.commit();
        return summary;
    }
    if (from == file_format::edge_list) {
        edge_list_options eo;
        eo.threads = o.threads;
        eo.duplicates = parse_duplicates(o.duplicates);
        eo.zero_based = o.zero_based;
        eo.undirected = o.undirected;
        // The values as the type kleene's shape line names (real without one).
        visit_value_type(in.edges_type().value_or(value_type::float64), [&](auto tag) {
            using T = typename decltype(tag)::type;
            auto a = in.edges<T, std::int64_t>(eo);
            note(a.rows(), a.cols(), a.nnz());
            write_sparse(o, out, to, a,
                         o.symmetric ? mm_symmetry::symmetric : mm_symmetry::general);
        });
        outs.commit();
        return summary;
    }
    read_options ro;
    ro.threads = o.threads;
    ro.duplicates = parse_duplicates(o.duplicates);
    auto h = in.header();
    auto const sym = out_symmetry(o, h.symmetry);
    visit_value_type(h.natural_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (h.format == mm_format::array) {
            auto d = in.dense<T>(T(0), ro);
            note(d.rows(), d.cols(), d.rows() * d.cols());
            write_dense(o, out, to, d, sym);
        } else {
            auto a = in.matrix<T, std::int64_t>(ro);
            note(a.rows(), a.cols(), a.nnz());
            if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>)
                write_sparse(o, out, to, a,
                             sym == mm_symmetry::skew_symmetric ? mm_symmetry::general : sym);
            else
                write_sparse(o, out, to, a, sym);
        }
    });
    outs.commit();
    return summary;
}

}  // namespace

void add_convert_command(CLI::App& app, global_options& g) {
    auto o = std::make_shared<convert_options>();
    auto* cmd = app.add_subcommand(
        "convert",
        "Convert between Matrix Market (.mtx), binary (.kbin) and edge lists (.el/.txt)");
    cmd->add_option("in", o->in,
                    "Input file (- reads stdin: Matrix Market, or --from el), or the directory "
                    "that --distributed-output wrote")
        ->required();
    cmd->add_option("out", o->out, "Output file (- writes stdout as Matrix Market)")
        ->required()
        ->check(output_name());
    auto const formats = one_of({"mtx", "kbin", "el", "txt"});
    cmd->add_option(
           "--from,--format", o->from,
           "Input format when the name does not say (by default the extension, else the content)")
        ->check(formats);
    cmd->add_option("--to", o->to, "Output format when the extension does not say")->check(formats);
    cmd->add_option("--duplicates", o->duplicates, "Duplicate entries: error, sum, min, max, last")
        ->check(one_of({"error", "sum", "min", "max", "last"}));
    cmd->add_option("--threads", o->threads, "Threads (0: all)")->check(integer_in(0));
    auto* sym = cmd->add_flag("--symmetric", o->symmetric,
                              "Write a symmetric Matrix Market file (fails if the matrix is not)");
    cmd->add_flag("--general", o->general, "Write a general Matrix Market file")->excludes(sym);
    cmd->add_flag("--zero-based", o->zero_based, "Edge-list ids start at 0 (input and output)");
    cmd->add_flag("--undirected", o->undirected, "Edge-list input: each edge goes both ways");
    cmd->add_flag("-q,--quiet", g.quiet, "No summary on stderr");
    cmd->callback([o, &g] {
        progress p(g.quiet);
        std::string s = run(*o, g, p);
        p.done();
        if (!g.quiet)
            fmt::print(stderr, "kleene: wrote {} ({})\n", o->out == "-" ? "<stdout>" : o->out, s);
    });
}

}  // namespace kleene::tools

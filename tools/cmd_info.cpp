// kleene info FILE [--json]: shape, stored entries, field, symmetry and format of a matrix file.

#include <fmt/core.h>

#include <kleene/io/binary.hpp>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/file_format.hpp>
#include <kleene/io/matrix_market.hpp>

#include "commands.hpp"
#include "files.hpp"
#include "layout_input.hpp"
#include "progress.hpp"

namespace kleene::tools {
namespace {

struct info_options {
    std::string file;
    std::string from;
    std::string duplicates = "error";
    int threads = 0;
    bool zero_based = false;
};

struct file_info {
    std::string format, object = "matrix", field, symmetry = "general", value_type;
    std::optional<std::string> graphblas_type;
    std::uint64_t rows = 0, cols = 0, entries = 0, file_entries = 0;
};

std::string json_string(std::string_view s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            (o += '\\') += c;
        else if (static_cast<unsigned char>(c) < 0x20)
            o += fmt::format("\\u{:04x}", c);
        else
            o += c;
    }
    return o + "\"";
}

file_info info_of(info_options const& o) {
    using namespace kleene::io;
    if (is_directory_input(o.file)) {
        // A block layout (--distributed-output DIR): every file read and checked.
        layout_facts const l = check_layout(o.file, o.threads);
        file_info fi;
        fi.format = fmt::format("block layout ({} parts, grid {}, block {}, {}{})", l.parts, l.grid,
                                l.block, l.result, l.reflexive ? ", reflexive" : "");
        fi.field = l.result == "reachability"
                       ? "pattern"
                       : (l.value_type.rfind("int", 0) == 0 ? "integer" : "real");
        fi.value_type = l.value_type;
        fi.rows = fi.cols = l.n;
        fi.entries = fi.file_entries = l.entries;
        return fi;
    }
    read_flags const rf{"info", o.from, o.duplicates, o.zero_based, false, o.threads};
    input const in(o.file, &rf);  // stdin is read once, then parsed from memory
    auto const fmt_kind = in.format();
    file_info fi;
    if (fmt_kind == file_format::binary) {
        auto h = read_binary_header(o.file);
        fi.format = "binary";
        fi.field = h.iso ? "pattern" : (is_integral(h.type) ? "integer" : "real");
        fi.value_type = std::string(to_string(h.type));
        fi.rows = h.rows;
        fi.cols = h.cols;
        // Load it too: the checksum and structure checks are part of "is this file valid".
        visit_value_type(h.type, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if (h.dense)
                read_binary_dense<T>(o.file, o.threads);
            else
                read_binary<T, std::int64_t>(o.file, o.threads);
        });
        fi.entries = fi.file_entries = h.nnz;
        return fi;
    }
    if (fmt_kind == file_format::edge_list) {
        edge_list_options eo;
        eo.threads = o.threads;
        eo.zero_based = o.zero_based;
        eo.duplicates = parse_duplicates(o.duplicates);
        value_type const type = in.edges_type().value_or(value_type::float64);
        fi.format = "edge-list";
        visit_value_type(type, [&](auto tag) {
            auto a = in.matrix<typename decltype(tag)::type, std::int64_t>();
            fi.field = !a.has_values() ? "pattern" : is_integral(type) ? "integer" : "real";
            fi.value_type = a.has_values() ? std::string(to_string(type)) : "bool";
            fi.rows = a.rows();
            fi.cols = a.cols();
            fi.entries = a.nnz();
        });
        fi.file_entries = in.edges_info(eo).edges;
        return fi;
    }
    read_options ro;
    ro.threads = o.threads;
    ro.duplicates = parse_duplicates(o.duplicates);
    auto h = in.header();
    fi.format = std::string(to_string(h.format));
    fi.object = std::string(to_string(h.object));
    fi.field = std::string(to_string(h.field));
    fi.symmetry = std::string(to_string(h.symmetry));
    fi.rows = h.rows;
    fi.cols = h.cols;
    fi.file_entries = h.file_entries;
    fi.value_type = std::string(to_string(h.natural_type()));
    if (h.graphblas_type) fi.graphblas_type = std::string(to_string(*h.graphblas_type));
    visit_value_type(h.natural_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (h.format == mm_format::array) {
            in.dense<T>(T(0), ro);
            fi.entries = h.rows * h.cols;
        } else {
            fi.entries = in.matrix<T, std::int64_t>().nnz();
        }
    });
    return fi;
}

}  // namespace

void add_info_command(CLI::App& app, global_options& g) {
    auto o = std::make_shared<info_options>();
    auto* cmd = app.add_subcommand(
        "info", "Shape, stored entries, field, symmetry and format of a matrix file");
    cmd->add_option("file", o->file,
                    "Matrix file (.mtx, .kbin, .el/.txt; - reads stdin) or block layout directory")
        ->required();
    cmd->add_flag("--json", g.json, "Print one JSON object");
    cmd->add_flag("-q,--quiet", g.quiet, "No progress messages");
    cmd->add_option(
           "--from,--format", o->from,
           "File format when the name does not say (by default the extension, else the content)")
        ->check(one_of({"mtx", "kbin", "el", "txt"}));
    cmd->add_option("--duplicates", o->duplicates, "Duplicate entries: error, sum, min, max, last")
        ->check(one_of({"error", "sum", "min", "max", "last"}));
    cmd->add_option("--threads", o->threads, "Threads (0: all)")->check(integer_in(0));
    cmd->add_flag("--zero-based", o->zero_based, "Edge-list ids start at 0");
    cmd->callback([o, &g] {
        progress p(g.quiet || g.json);
        file_info fi = in_phase(p, "reading " + (o->file == "-" ? std::string("<stdin>") : o->file),
                                [&] { return info_of(*o); });
        std::string const name = o->file == "-" ? "<stdin>" : o->file;
        if (g.json) {
            fmt::print(
                "{{\"file\": {}, \"rows\": {}, \"cols\": {}, \"entries\": {}, \"file_entries\": "
                "{}, "
                "\"field\": {}, \"symmetry\": {}, \"format\": {}, \"object\": {}, "
                "\"value_type\": {}{}}}\n",
                json_string(name), fi.rows, fi.cols, fi.entries, fi.file_entries,
                json_string(fi.field), json_string(fi.symmetry), json_string(fi.format),
                json_string(fi.object), json_string(fi.value_type),
                fi.graphblas_type ? ", \"graphblas_type\": " + json_string(*fi.graphblas_type)
                                  : std::string());
            return;
        }
        fmt::print("file:         {}\n", name);
        fmt::print("format:       {}\n", fi.format);
        fmt::print("object:       {}\n", fi.object);
        fmt::print("shape:        {} x {}\n", fi.rows, fi.cols);
        fmt::print("entries:      {} (stored in the file: {})\n", fi.entries, fi.file_entries);
        fmt::print("field:        {}\n", fi.field);
        fmt::print("symmetry:     {}\n", fi.symmetry);
        fmt::print("value type:   {}\n", fi.value_type);
        if (fi.graphblas_type) fmt::print("GraphBLAS:    {}\n", *fi.graphblas_type);
    });
}

}  // namespace kleene::tools

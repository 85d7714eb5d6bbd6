#include "graph_command.hpp"

namespace kleene::tools {

namespace {
std::string json_string(std::string const& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20)
            out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else
            out += c;
    }
    return out + "\"";
}
}  // namespace

void print_summary(std::string const& cmd, std::vector<summary_item> const& items,
                   global_options const& g) {
    if (g.json) {
        std::string s = "{\"command\": " + json_string(cmd);
        for (auto const& it : items)
            s += ", " + json_string(it.key) + ": " + (it.is_string ? json_string(it.value) : it.value);
        fmt::print("{}}}\n", s);
        return;
    }
    if (g.quiet) return;
    std::string s = cmd + ":";
    for (std::size_t k = 0; k < items.size(); ++k)
        s += (k ? ", " : " ") + items[k].key + " " + items[k].value;
    fmt::print("{}\n", s);
}

void add_graph_options(CLI::App* cmd, graph_args& args, global_options& g,
                       char const* output_help, bool output_required) {
    cmd->add_option("FILE", args.input, "graph (.mtx, .kbin, .el; - for stdin; values ignored)")
        ->required();
    if (output_help) {
        auto* o = cmd->add_option("-o,--output", args.output, output_help)->check(output_name());
        if (output_required) o->required();
    }
    cmd->add_option("--device", args.device, "auto, cpu or gpu")
        ->check(one_of({"auto", "cpu", "gpu"}))
        ->capture_default_str();
    cmd->add_flag("--explain", args.explain, "print the device, the method and its choices on stderr");
    cmd->add_flag("--json", g.json, "a JSON summary on stdout instead of the text line");
    add_read_options(cmd, args.read, "last", "values are ignored");
    cmd->add_flag("-q,--quiet", g.quiet, "no summary line");
}

}  // namespace kleene::tools

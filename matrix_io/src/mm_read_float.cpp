#include "mm_read_impl.hpp"

namespace kleene::io {
KLEENE_IO_INSTANTIATE_READ(float)
KLEENE_IO_INSTANTIATE_READ(double)

namespace {
edge_list_info edge_info(std::string_view text, std::string const& name,
                         edge_list_options const& opt) {
    edge_list_info info;
    detail::edge_shape shape;
    auto chunks = detail::reading(name, text.size(), [&] {
        return detail::parse_edges<double, std::int64_t>(text, name, opt, info.weighted, shape);
    });
    info.vertices = opt.vertices;
    for (auto const& c : chunks) {
        info.vertices = std::max(info.vertices, c.max_id);
        info.edges += c.count;
    }
    info.rows = info.cols = info.vertices;
    info.type = shape.type;
    if (shape.given) {
        info.rows = shape.rows;
        info.cols = shape.cols;
        info.vertices = std::max(shape.rows, shape.cols);
    }
    return info;
}
}  // namespace

edge_list_info read_edge_list_info(std::string const& path, edge_list_options const& opt) {
    detail::input_file f(path);
    return edge_info(f.text(), f.name(), opt);
}
edge_list_info read_edge_list_info_from_memory(std::string_view text,
                                               edge_list_options const& opt) {
    return edge_info(text, opt.name.empty() ? "<memory>" : opt.name, opt);
}
std::optional<value_type> read_edge_list_type(std::string const& path) {
    detail::input_file f(path);
    return detail::parse_edge_shape(f.text(), f.name()).type;
}
std::optional<value_type> read_edge_list_type_from_memory(std::string_view text,
                                                          std::string const& name) {
    return detail::parse_edge_shape(text, name).type;
}
}  // namespace kleene::io

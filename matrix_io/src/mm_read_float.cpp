#include "mm_read_impl.hpp"

namespace kleene::io {
KLEENE_IO_INSTANTIATE_READ(float)
KLEENE_IO_INSTANTIATE_READ(double)

edge_list_info read_edge_list_info(std::string const& path, edge_list_options const& opt) {
    detail::input_file f(path);
    edge_list_info info;
    auto chunks = detail::reading(f.name(), f.text().size(), [&] {
        return detail::parse_edges<double, std::int64_t>(f.text(), f.name(), opt, info.weighted);
    });
    info.vertices = opt.vertices;
    for (auto const& c : chunks) {
        info.vertices = std::max(info.vertices, c.max_id);
        info.edges += c.count;
    }
    return info;
}
}  // namespace kleene::io

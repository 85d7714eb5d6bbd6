// context_from_environment (environment.hpp): the only getenv calls in the library.

#include <kleene/detail/parse_bytes.hpp>
#include <kleene/environment.hpp>
#include <kleene/error.hpp>

#include <cstdlib>
#include <string>
#include <string_view>

namespace kleene {
namespace {
/// The variable's value, or null when it is unset or empty.
char const* value(char const* name) {
    char const* v = std::getenv(name);
    return v && *v ? v : nullptr;
}
std::size_t bytes(char const* name) {
    char const* v = value(name);
    return v ? detail::parse_bytes(v, name) : 0;
}
}  // namespace

context context_from_environment(int device) {
    context ctx(device);
    tuning& t = ctx.tune;
    t.max_device_bytes = bytes("KLEENE_MAX_DEVICE_BYTES");
    if (char const* v = value("KLEENE_OOC_ALGORITHM")) {
        std::string_view const s = v;
        if (s == "fw" || s == "blocked-fw" || s == "floyd-warshall")
            t.ooc_method = ooc_algorithm::floyd_warshall;
        else if (s == "rkleene")
            t.ooc_method = ooc_algorithm::rkleene;
        else if (s != "auto")
            throw invalid_argument("KLEENE_OOC_ALGORITHM: '" + std::string(s) +
                                   "' is not fw, rkleene or auto");
    }
    t.ooc_block = bytes("KLEENE_OOC_BLOCK");
    t.ooc_width = bytes("KLEENE_OOC_WIDTH");
    t.ooc_tile = bytes("KLEENE_OOC_TILE");
    t.ooc_depth = bytes("KLEENE_OOC_DEPTH");
    if (char const* v = value("KLEENE_OOC_PROFILE")) t.ooc_profile = *v != '0';
    if (char const* v = value("KLEENE_OOC_TIMELINE")) t.ooc_timeline = v;
    if (char const* v = value("KLEENE_JIT_CACHE")) t.jit_cache = v;
    if (char const* v = value("KLEENE_BFS_LOOP_BLOCKS")) t.bfs_loop_blocks = std::atoi(v) == 4 ? 4 : 2;
    return ctx;
}

}  // namespace kleene

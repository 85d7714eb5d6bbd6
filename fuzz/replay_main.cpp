// A main() for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput once on each file
// named on the command line (directories: each file in them). Built with GCC's ASan + UBSan as
// the `sanitized_readers` test, it replays the whole test corpus through the readers in CI,
// where clang and libFuzzer are not needed.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size);

namespace {
int replay(std::filesystem::path const& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
        return 1;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<std::uint8_t const*>(bytes.data()), bytes.size());
    return 0;
}
}  // namespace

int main(int argc, char** argv) {
    int bad = 0;
    std::size_t runs = 0;
    for (int i = 1; i < argc; ++i) {
        std::filesystem::path const p(argv[i]);
        if (std::filesystem::is_directory(p)) {
            for (auto const& e : std::filesystem::recursive_directory_iterator(p))
                if (e.is_regular_file()) bad |= replay(e.path()), ++runs;
        } else {
            bad |= replay(p);
            ++runs;
        }
    }
    std::printf("replayed %zu inputs\n", runs);
    return bad || runs == 0;
}

// GPU triangle counting on a Kronecker graph under each cuda::tc_tuning choice: the row walk or a
// thread per entry of U, the queue of long pairs sorted by v or not, and the merge / search
// limits. One line per choice: median of --runs device times, the phases of the last run, the
// count (every choice must give the same; exit 1 if not).
//
//   bench_tc_gpu [--scale 22] [--edge-factor 16] [--runs 3]

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <kleene/algorithms/bfs.hpp>  // pattern_of
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/algorithms/generate.hpp>
#include <kleene/convert.hpp>
#include <kleene/cuda/runtime.hpp>
#include <string>
#include <string_view>
#include <vector>

using namespace kleene;

namespace {

struct choice {
    char const* name;
    cuda::tc_tuning tune;
};

cuda::tc_tuning make(bool entry_parallel, bool sort_queue, bool radix_rows, int merge_max,
                     int search_max, float heavy_merge) {
    cuda::tc_tuning t;
    t.entry_parallel = entry_parallel;
    t.sort_queue = sort_queue;
    t.radix_rows = radix_rows;
    t.merge_max = merge_max;
    t.search_max = search_max;
    t.heavy_merge = heavy_merge;
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    int scale = 22, runs = 3;
    double edge_factor = 16;
    for (int i = 1; i < argc; i += 2) {
        std::string_view const k = argv[i];
        if (i + 1 == argc) {
            fmt::print(stderr, "bench_tc_gpu: {} needs a value\n", k);
            return 1;
        }
        if (k == "--scale") scale = std::atoi(argv[i + 1]);
        else if (k == "--runs") runs = std::atoi(argv[i + 1]);
        else if (k == "--edge-factor") edge_factor = std::atof(argv[i + 1]);
        else {
            fmt::print(stderr, "bench_tc_gpu: unknown option {}\n", k);
            return 1;
        }
    }
    if (scale < 1 || scale > 30 || runs < 1 || !(edge_factor > 0)) {
        fmt::print(stderr, "bench_tc_gpu: --scale 1..30, --runs >= 1, --edge-factor > 0\n");
        return 1;
    }
    if (cuda::device_count() == 0) {
        fmt::print("bench_tc_gpu: no CUDA device, nothing measured\n");
        return 0;
    }
    kronecker_options ko;
    ko.scale = scale;
    ko.edge_factor = edge_factor;
    ko.undirected = true;
    auto const a = pattern_of(kronecker_graph<float, std::int32_t>(ko));
    auto const ad = a.to_device();
    fmt::print("graph: Kronecker scale {}, {} vertices, {} stored entries (symmetric)\n", scale,
               a.rows(), a.nnz());

    std::vector<choice> const choices = {
        {"defaults (sorted queue, radix rows, heavy merge 1.5)", cuda::tc_tuning{}},
        {"before: row walk, segmented sort, searched", make(false, false, false, 96, 8, 0)},
        {"defaults, heavy merge 1", make(false, true, true, 96, 8, 1)},
        {"defaults, heavy merge 2", make(false, true, true, 96, 8, 2)},
        {"defaults, search_max 16", make(false, true, true, 96, 16, 1.5f)},
        {"defaults, merge_max 64", make(false, true, true, 64, 8, 1.5f)},
        {"defaults, queue unsorted", make(false, false, true, 96, 8, 1.5f)},
        {"defaults, segmented sort", make(false, true, false, 96, 8, 1.5f)},
        {"defaults, entry-parallel", make(true, true, true, 96, 8, 1.5f)},
    };
    std::uint64_t first = 0;
    bool same = true;
    for (std::size_t c = 0; c < choices.size(); ++c) {
        std::vector<double> ms;
        cuda::tc_run last{};
        (void)cuda::triangle_count<std::int32_t>(ad, true, choices[c].tune);  // warm-up
        for (int r = 0; r < runs; ++r) {
            last = cuda::triangle_count<std::int32_t>(ad, true, choices[c].tune);
            ms.push_back(last.seconds * 1e3);
        }
        std::sort(ms.begin(), ms.end());
        if (c == 0) first = last.triangles;
        same = same && last.triangles == first;
        fmt::print("TC choice=\"{}\" ms={:.2f} min={:.2f} triangles={}\n", choices[c].name,
                   ms[ms.size() / 2], ms.front(), last.triangles);
        for (auto const& line : last.notes) fmt::print("    {}\n", line);
    }
    if (!same) {
        fmt::print("bench_tc_gpu: the choices disagree on the count\n");
        return 1;
    }
    return 0;
}

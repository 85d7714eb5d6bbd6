// Uses an installed kleene (through find_package or pkg-config): reads an embedded Matrix Market
// graph (kleene::io), runs BFS and APSP on the CPU, and checks them against answers worked out by
// hand for this graph. Exit 0 when all agree, 1 otherwise.
#include <cstdint>
#include <cstdio>
#include <kleene/algorithms/apsp.hpp>
#include <kleene/algorithms/bfs.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/kleene.hpp>
#include <vector>

namespace {

// 1 -> 2 (1.5), 1 -> 3 (4), 2 -> 3 (2), 3 -> 4 (0.5), 4 -> 1 (3), 5 -> 4 (1): vertex 5 reaches the
// cycle, nothing reaches 5. Weights are halves, so every path sum is exact in double.
constexpr char graph[] = R"(%%MatrixMarket matrix coordinate real general
5 5 6
1 2 1.5
1 3 4
2 3 2
3 4 0.5
4 1 3
5 4 1
)";

int failures = 0;
void check(bool ok, char const* what, long i, long j, double got, double want) {
    if (ok) return;
    ++failures;
    std::printf("FAIL: %s(%ld, %ld) = %g, want %g\n", what, i, j, got, want);
}

}  // namespace

int main() {
    auto const a = kleene::io::read_matrix_market_from_memory<double>(graph);

    kleene::bfs_options bo;
    bo.device = kleene::device_choice::cpu;
    auto const b = kleene::bfs(a, 0, bo);
    std::vector<std::int64_t> const level{0, 1, 1, 2, -1};
    for (std::size_t v = 0; v < level.size(); ++v)
        check(b.level.size() == level.size() && b.level[v] == level[v], "level", 0,
              static_cast<long>(v), v < b.level.size() ? static_cast<double>(b.level[v]) : -2.0,
              static_cast<double>(level[v]));

    kleene::apsp_options ao;
    ao.device = kleene::device_choice::cpu;
    auto const r = kleene::apsp(a, ao);
    double const inf = kleene::infinity<double>();
    double const dist[5][5] = {{0, 1.5, 3.5, 4, inf},
                               {5.5, 0, 2, 2.5, inf},
                               {3.5, 5, 0, 0.5, inf},
                               {3, 4.5, 6.5, 0, inf},
                               {4, 5.5, 7.5, 1, 0}};
    if (r.dist.rows() != 5 || r.dist.cols() != 5) {
        std::printf("FAIL: apsp gave a %zu x %zu matrix, want 5 x 5\n", r.dist.rows(),
                    r.dist.cols());
        return 1;
    }
    for (long i = 0; i < 5; ++i)
        for (long j = 0; j < 5; ++j)
            check(r.dist(i, j) == dist[i][j], "dist", i, j, r.dist(i, j), dist[i][j]);

    if (failures) return 1;
    std::printf(
        "kleene %.*s from an installed tree: BFS and APSP (%.*s) agree with the expected answers\n",
        static_cast<int>(kleene::version().size()), kleene::version().data(),
        static_cast<int>(to_string(r.algorithm).size()), to_string(r.algorithm).data());
    return 0;
}

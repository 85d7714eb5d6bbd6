// Triangle counting with a masked product: for L, the strictly lower triangle of the adjacency
// matrix, C<L> = L (+).(pair) L counts, for every edge (i, j) with i > j, the vertices k with
// i > k > j adjacent to both; the sum of C is the number of triangles, each counted once.
// The graph is Zachary's karate club (34 members, 78 friendships, 45 triangles).

#include <cstdint>
#include <cstdio>
#include <kleene/kleene.hpp>
#include <vector>

namespace {

// The 78 edges of the karate club network, vertices numbered from 1 as in Zachary's paper.
constexpr int karate_edges[][2] = {
    {1, 2},   {1, 3},   {1, 4},   {1, 5},   {1, 6},   {1, 7},   {1, 8},   {1, 9},   {1, 11},
    {1, 12},  {1, 13},  {1, 14},  {1, 18},  {1, 20},  {1, 22},  {1, 32},  {2, 3},   {2, 4},
    {2, 8},   {2, 14},  {2, 18},  {2, 20},  {2, 22},  {2, 31},  {3, 4},   {3, 8},   {3, 9},
    {3, 10},  {3, 14},  {3, 28},  {3, 29},  {3, 33},  {4, 8},   {4, 13},  {4, 14},  {5, 7},
    {5, 11},  {6, 7},   {6, 11},  {6, 17},  {7, 17},  {9, 31},  {9, 33},  {9, 34},  {10, 34},
    {14, 34}, {15, 33}, {15, 34}, {16, 33}, {16, 34}, {19, 33}, {19, 34}, {20, 34}, {21, 33},
    {21, 34}, {23, 33}, {23, 34}, {24, 26}, {24, 28}, {24, 30}, {24, 33}, {24, 34}, {25, 26},
    {25, 28}, {25, 32}, {26, 32}, {27, 30}, {27, 34}, {28, 34}, {29, 32}, {29, 34}, {30, 33},
    {30, 34}, {31, 33}, {31, 34}, {32, 33}, {32, 34}, {33, 34}};

}  // namespace

int main() {
    using namespace kleene;
    using T = std::int64_t;
    std::size_t const n = 34;
    std::vector<std::int32_t> ii, jj;
    for (auto const& e : karate_edges) {  // both directions: an undirected graph
        ii.push_back(e[0] - 1), jj.push_back(e[1] - 1);
        ii.push_back(e[1] - 1), jj.push_back(e[0] - 1);
    }
    // A pattern matrix: every stored entry is 1.
    auto const a = csr_matrix<T>::from_coo(n, n, ii, jj, {}, duplicate_policy::error, T(1));

    csr_matrix<T> l(n, n);
    select(l, tril{-1}, a);  // strictly lower triangle: each edge once
    csr_matrix<T> c(n, n);
    explain_trace trace;
    options opt;
    opt.explain = &trace;
    mxm(c, structure(l), no_accum, l, l, plus_pair<T>{}, opt);
    T const triangles = reduce(plus_monoid<T>{}, c);

    // The same count another way: (A (+).(x) A) .* A sums to six times the triangles.
    csr_matrix<T> a2(n, n), paths(n, n);
    mxm(a2, a, a, plus_times<T>{});
    ewise_mult(paths, times_op<T>{}, a2, a);
    T const six = reduce(plus_monoid<T>{}, paths);

    std::printf("karate club: %zu vertices, %zu edges, %lld triangles\n", n, l.nnz(),
                static_cast<long long>(triangles));
    std::printf("%s", trace.str().c_str());
    bool const ok = l.nnz() == 78 && triangles == 45 && six == 6 * triangles;
    if (!ok)
        std::printf("WRONG: expected 78 edges and 45 triangles (check sum %lld)\n",
                    static_cast<long long>(six));
    return ok ? 0 : 1;
}

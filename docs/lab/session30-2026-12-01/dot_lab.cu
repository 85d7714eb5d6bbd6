// Lab tool (session 30, issue 39 item 5): the GPU masked dot products T<L> = L (+.x) U' called
// directly (sparse_detail::masked_dot_generic, so plus_pair runs in a minimal build), against the
// dedicated triangle count, on a Kronecker graph as generated and renumbered by degree. Built
// twice on the build machine: against the tree's headers and against HEAD's (before/after in one
// device call). Times: best of R, host clock around the call and the device reduce.
#include <kleene/algorithms/generate.hpp>
#include <kleene/algorithms/triangles.hpp>
#include <kleene/cuda/sparse.cuh>
#include <kleene/kleene.hpp>
#include "../../bench/timing.hpp"
#include <algorithm>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>
namespace lab {
using namespace kleene;
using Index = std::int32_t;

static csr_matrix<double, Index> by_degree(csr_matrix<double, Index> const& a) {
    std::size_t const n = a.rows();
    std::vector<Index> order(n), id(n);
    std::iota(order.begin(), order.end(), Index(0));
    std::stable_sort(order.begin(), order.end(), [&](Index x, Index y) {
        return a.row_end(x) - a.row_begin(x) < a.row_end(y) - a.row_begin(y); });
    for (std::size_t r = 0; r < n; ++r) id[order[r]] = Index(r);
    std::vector<Index> ii(a.nnz()), jj(a.nnz());
    std::vector<double> vv(a.nnz(), 1.0);
    for (std::size_t i = 0; i < n; ++i)
        for (auto k = a.row_begin(i); k < a.row_end(i); ++k) { ii[k] = id[i]; jj[k] = id[a.col_idx()[k]]; }
    return csr_matrix<double, Index>::from_coo(n, n, ii, jj, vv);
}

/// times_op under another name: a semiring type the library has no instance of, so that every
/// kernel of the products below is this file's (a library instance of the same kernel could
/// otherwise be linked in its place).
struct lab_times : times_op<double> {};
using lab_plus_times = semiring<plus_monoid<double>, lab_times>;

template <class S>
static void dot_row(char const* name, csr_matrix<double, Index, device> const& ld,
                    csr_matrix<double, Index, device> const& ud, int runs, std::uint64_t want,
                    double tc_ms) {
    context& ctx = default_context();
    kleene::cuda::csr_mask<Index> const m(structure(ld), ctx);
    double count = 0;
    double const ms = bench::best_ms(runs, [&] {
        csr_matrix<double, Index, device> t(ld.rows(), ud.rows());
        kleene::cuda::sparse_detail::masked_dot_generic<S, Index>(ctx, t, m, ld, ud);
        count = reduce(plus_monoid<double>{}, t);
    });
    std::printf("| %s | %.2f | %.2fx | %.0f%s |\n", name, ms, ms / tc_ms, count,
                count == double(want) ? "" : " WRONG");
}

/// A road network in the PACE .gr format ("p tw N M", then "u v" a line, 1-based), undirected.
static csr_matrix<double, Index> read_gr(char const* path) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) { std::fprintf(stderr, "cannot open %s\n", path); std::exit(1); }
    char line[256];
    std::size_t n = 0;
    std::vector<Index> ii, jj;
    while (std::fgets(line, sizeof line, f)) {
        if (line[0] == 'c') continue;
        if (line[0] == 'p') { std::sscanf(line, "p tw %zu", &n); continue; }
        long u, v;
        if (std::sscanf(line, "%ld %ld", &u, &v) == 2 && u != v) {
            ii.push_back(Index(u - 1)); jj.push_back(Index(v - 1));
            ii.push_back(Index(v - 1)); jj.push_back(Index(u - 1));
        }
    }
    std::fclose(f);
    std::vector<double> vv(ii.size(), 1.0);
    return csr_matrix<double, Index>::from_coo(n, n, ii, jj, vv);
}

// dot_lab SCALE RUNS (Kronecker) | dot_lab urand SCALE RUNS | dot_lab road FILE.gr RUNS
int run(int argc, char** argv) {
    std::string const kind = argc > 1 && !std::isdigit(argv[1][0]) ? argv[1] : "kron";
    int const at = kind == "kron" ? 1 : 2;
    int const scale = kind == "road" ? 0 : (argc > at ? std::atoi(argv[at]) : 18);
    int const runs = argc > at + 1 ? std::atoi(argv[at + 1]) : 3;
    csr_matrix<double, Index> a;
    if (kind == "kron") {
        kronecker_options ko;
        ko.scale = scale; ko.edge_factor = 16; ko.undirected = true;
        ko.weights = weight_range::integers(1, 1);
        a = kronecker_graph<double, Index>(ko);
    } else if (kind == "urand") {
        uniform_options uo;
        uo.vertices = std::size_t(1) << scale; uo.edges = 16 * uo.vertices; uo.undirected = true;
        uo.weights = weight_range::integers(1, 1);
        a = uniform_graph<double, Index>(uo);
    } else {
        a = read_gr(argv[2]);
    }
    std::printf("%s %s: %zu vertices, %zu entries; %s\n\n", kind.c_str(),
                kind == "road" ? argv[2] : std::to_string(scale).c_str(), a.rows(), a.nnz(),
                kleene::cuda::device_description(kleene::cuda::current_device()).c_str());
    auto const ad = a.to_device();
    tc_options to;
    to.device = device_choice::gpu;
    to.symmetric = true;
    std::uint64_t want = 0;
    double const tc = bench::best_ms(runs, [&] { want = triangle_count(ad, to).triangles; });
    to.relabel = tc_relabel::never;
    double const tc_plain = bench::best_ms(runs, [&] { triangle_count(ad, to); });
    std::printf("| method | ms | / dedicated | triangles |\n|---|---:|---:|---:|\n");
    std::printf("| triangle_count (dedicated, its renumbering) | %.2f | 1.00x | %llu |\n", tc,
                (unsigned long long)want);
    std::printf("| triangle_count, original numbering | %.2f | %.2fx | |\n", tc_plain, tc_plain / tc);
    for (bool renumber : {true, false}) {
        auto const g = renumber ? by_degree(a) : a;
        csr_matrix<double, Index> l(g.rows(), g.cols()), u(g.rows(), g.cols());
        select(l, no_mask, no_accum, tril{-1}, g);
        select(u, no_mask, no_accum, triu{1}, g);
        auto const ld = l.to_device(), ud = u.to_device();
        std::string const how = renumber ? ", renumbered by degree" : ", as generated";
        dot_row<plus_pair<double>>(("masked dot plus_pair" + how).c_str(), ld, ud, runs, want, tc);
        dot_row<lab_plus_times>(("masked dot plus_times" + how).c_str(), ld, ud, runs, want, tc);
    }
    return 0;
}

}  // namespace lab
int main(int argc, char** argv) { return lab::run(argc, argv); }

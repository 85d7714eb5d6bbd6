#include <chrono>
#include <kleene/error.hpp>
#include <kleene/graphblas/bfs.hpp>
#include <kleene/graphblas/context.hpp>
#include <string>

namespace kleene::graphblas {

namespace {
/// Frees the vectors of one search, whatever path leaves it.
struct vectors {
    GrB_Vector q = nullptr, pi = nullptr, v = nullptr, w = nullptr;
    vectors() = default;
    vectors(vectors const&) = delete;
    vectors& operator=(vectors const&) = delete;
    ~vectors() {
        GrB_Vector_free(&q);
        GrB_Vector_free(&pi);
        GrB_Vector_free(&v);
        GrB_Vector_free(&w);
    }
};

std::vector<std::int64_t> dense_int64(GrB_Vector x, std::size_t n) {
    GrB_Index nv = 0;
    check(GrB_Vector_nvals(&nv, x), "GrB_Vector_nvals");
    std::vector<GrB_Index> idx(nv + 1);
    std::vector<std::int64_t> val(nv + 1);
    check(GrB_Vector_extractTuples_INT64(idx.data(), val.data(), &nv, x),
          "GrB_Vector_extractTuples");
    std::vector<std::int64_t> out(n, -1);
    for (GrB_Index i = 0; i < nv; ++i) out[idx[i]] = val[i];
    return out;
}
}  // namespace

bfs_oracle::bfs_oracle(csr_matrix<bool> const& a, bool symmetric)
    : n_(a.rows()), nvals_(a.nnz()), a_(to_grb(a)) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("bfs oracle: the adjacency matrix must be square, not " +
                                 kleene::detail::shape(a.rows(), a.cols()));
    auto const n = static_cast<GrB_Index>(n_);
    if (!symmetric) {
        at_ = matrix(GrB_BOOL, n_, n_);
        check(GrB_transpose(at_.get(), nullptr, nullptr, a_.get(), nullptr), "GrB_transpose");
        at_.wait();
    }
    check(GrB_Vector_new(&degree_, GrB_INT64, n), "GrB_Vector_new");
    std::vector<GrB_Index> idx(n_ + 1);
    std::vector<std::int64_t> deg(n_ + 1);
    for (std::size_t v = 0; v < n_; ++v) {
        idx[v] = v;
        deg[v] = static_cast<std::int64_t>(a.row_end(v) - a.row_begin(v));
    }
    check(GrB_Vector_build_INT64(degree_, idx.data(), deg.data(), n, GrB_PLUS_INT64),
          "GrB_Vector_build");
    a_.wait();
    check(GrB_Vector_wait(degree_, GrB_MATERIALIZE), "GrB_Vector_wait");
}

bfs_oracle::~bfs_oracle() {
    GrB_Vector_free(&degree_);
}

bfs_oracle_result bfs_oracle::run(std::size_t src, bool parents) const {
    if (src >= n_)
        throw invalid_argument("bfs oracle: source " + std::to_string(src) +
                               " is not a vertex of a " + std::to_string(n_) + "-vertex graph");
    using clock = std::chrono::steady_clock;
    auto const t0 = clock::now();
    auto const n = static_cast<GrB_Index>(n_);
    vectors x;
    GrB_Semiring semiring;
    if (parents) {
        semiring = GxB_ANY_SECONDI_INT64;
        check(GrB_Vector_new(&x.pi, GrB_INT64, n), "GrB_Vector_new");
        check(GxB_Vector_Option_set(x.pi, GxB_SPARSITY_CONTROL, GxB_BITMAP + GxB_FULL),
              "GxB_Vector_Option_set");
        check(GrB_Vector_setElement_INT64(x.pi, static_cast<std::int64_t>(src), src),
              "GrB_Vector_setElement");
        check(GrB_Vector_new(&x.q, GrB_INT64, n), "GrB_Vector_new");
        check(GrB_Vector_setElement_INT64(x.q, static_cast<std::int64_t>(src), src),
              "GrB_Vector_setElement");
    } else {
        semiring = GxB_ANY_PAIR_BOOL;
        check(GrB_Vector_new(&x.q, GrB_BOOL, n), "GrB_Vector_new");
        check(GrB_Vector_setElement_BOOL(x.q, true, src), "GrB_Vector_setElement");
    }
    check(GrB_Vector_new(&x.v, GrB_INT64, n), "GrB_Vector_new");
    check(GxB_Vector_Option_set(x.v, GxB_SPARSITY_CONTROL, GxB_BITMAP + GxB_FULL),
          "GxB_Vector_Option_set");
    check(GrB_Vector_setElement_INT64(x.v, 0, src), "GrB_Vector_setElement");
    check(GrB_Vector_new(&x.w, GrB_INT64, n), "GrB_Vector_new");
    GrB_Vector const visited = parents ? x.pi : x.v;
    GrB_Matrix const pull_matrix = at_.get() ? at_.get() : a_.get();

    // Beamer's rule as LAGraph states it: pull once the frontier's out-edges pass the unexplored
    // edges / alpha while the frontier grows; push again once it shrinks under n / beta2.
    double const alpha = 8, beta1 = 8, beta2 = 512;
    auto const n_over_beta1 = static_cast<GrB_Index>(static_cast<double>(n) / beta1);
    auto const n_over_beta2 = static_cast<GrB_Index>(static_cast<double>(n) / beta2);
    bool push = true, pulled = false, may_pull = true;
    GrB_Index nq = 1, last_nq = 0;
    auto unexplored = static_cast<std::int64_t>(nvals_);
    for (GrB_Index seen = 1, k = 1; seen < n; seen += nq, ++k) {
        if (may_pull) {
            if (push) {
                bool const growing = nq > last_nq;
                bool to_pull = false;
                if (unexplored < static_cast<std::int64_t>(n)) {
                    may_pull = false;  // little left: stay with push
                } else if (pulled) {
                    to_pull = growing && nq > n_over_beta1;
                } else {
                    // Edges out of the frontier: w<q> = degree, summed.
                    check(GrB_Vector_assign(x.w, x.q, nullptr, degree_, GrB_ALL, n, GrB_DESC_RS),
                          "GrB_Vector_assign");
                    std::int64_t frontier_edges = 0;
                    check(GrB_Vector_reduce_INT64(&frontier_edges, nullptr, GrB_PLUS_MONOID_INT64,
                                                  x.w, nullptr),
                          "GrB_Vector_reduce");
                    unexplored -= frontier_edges;
                    to_pull = growing && static_cast<double>(frontier_edges) >
                                             static_cast<double>(unexplored) / alpha;
                }
                if (to_pull) push = false;
            } else if (nq < last_nq && nq <= n_over_beta2) {
                push = true;
            }
            pulled = pulled || !push;
        }
        check(GxB_Vector_Option_set(x.q, GxB_SPARSITY_CONTROL, push ? GxB_SPARSE : GxB_BITMAP),
              "GxB_Vector_Option_set");
        if (push)
            check(GrB_vxm(x.q, visited, nullptr, semiring, x.q, a_.get(), GrB_DESC_RSC), "GrB_vxm");
        else
            check(GrB_mxv(x.q, visited, nullptr, semiring, pull_matrix, x.q, GrB_DESC_RSC),
                  "GrB_mxv");
        last_nq = nq;
        check(GrB_Vector_nvals(&nq, x.q), "GrB_Vector_nvals");
        if (nq == 0) break;
        if (parents)
            check(GrB_Vector_assign(x.pi, x.q, nullptr, x.q, GrB_ALL, n, GrB_DESC_S),
                  "GrB_Vector_assign");
        check(GrB_Vector_assign_INT64(x.v, x.q, nullptr, static_cast<std::int64_t>(k), GrB_ALL, n,
                                      GrB_DESC_S),
              "GrB_Vector_assign");
    }
    check(GrB_Vector_wait(x.v, GrB_MATERIALIZE), "GrB_Vector_wait");
    if (parents) check(GrB_Vector_wait(x.pi, GrB_MATERIALIZE), "GrB_Vector_wait");
    bfs_oracle_result r;
    r.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    r.level = dense_int64(x.v, n_);
    if (parents) r.parent = dense_int64(x.pi, n_);
    return r;
}

bool valid_bfs_tree(csr_matrix<bool> const& a, std::size_t source,
                    std::span<std::int64_t const> level, std::span<std::int64_t const> parent) {
    std::size_t const n = level.size();
    if (parent.size() != n || a.rows() != n || source >= n) return false;
    for (std::size_t v = 0; v < n; ++v) {
        std::int64_t const p = parent[v];
        if (level[v] < 0) {
            if (p != -1) return false;
        } else if (v == source) {
            if (p != static_cast<std::int64_t>(source) || level[v] != 0) return false;
        } else if (p < 0 || static_cast<std::size_t>(p) >= n ||
                   level[static_cast<std::size_t>(p)] != level[v] - 1 ||
                   a.find(static_cast<std::size_t>(p), v) < 0) {
            return false;
        }
    }
    return true;
}

}  // namespace kleene::graphblas

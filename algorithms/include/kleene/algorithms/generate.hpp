#pragma once
// Random graphs for tests and benchmarks.
//
//   kronecker_graph<T, Index>(opts)   Graph500 Kronecker (R-MAT) graph as a CSR adjacency matrix
//   kronecker_edges<T, Index>(opts)   the same edges before they become a matrix (duplicates kept)
//   uniform_graph<T, Index>(opts)     Erdős–Rényi G(n, m): m distinct edges, uniformly at random
//
// Every random number is a hash of (seed, stream, counter), so a graph depends on its options
// only, never on the number of threads that made it. Kronecker edges follow the Graph500
// reference generator: per edge and per bit level, the row bit is 1 with probability C + D and the
// column bit then 1 with probability D / (C + D) or B / (A + B); vertices are then relabelled by
// a random permutation. A CSR matrix holds each (i, j) once: parallel edges keep the smallest
// weight. Weights are uniform in [lo, hi] (every integer equally likely for integer T, [lo, hi)
// for floating T); without weights the matrix is a pattern (iso 1).

#include <kleene/csr_matrix.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace kleene {

struct weight_range {
    weight_range() = default;
    weight_range(double lo_, double hi_) : lo(lo_), hi(hi_) {}
    /// Integer bounds exactly (int64 bounds past 2^53 are not doubles).
    static weight_range integers(std::int64_t lo_, std::int64_t hi_) {
        weight_range r(static_cast<double>(lo_), static_cast<double>(hi_));
        r.ilo = lo_;
        r.ihi = hi_;
        return r;
    }
    double lo = 1;
    double hi = 1;
    /// Set by integers(): integer value types use these instead of lo and hi.
    std::optional<std::int64_t> ilo, ihi;
};

struct kronecker_options {
    int scale = 10;           ///< 2^scale vertices
    double edge_factor = 16;  ///< edge_factor * 2^scale edges generated (before clean-up)
    std::uint64_t seed = 1;
    double a = 0.57, b = 0.19, c = 0.19;  ///< initiator probabilities; d = 1 - a - b - c
    bool permute = true;                  ///< relabel vertices by a random permutation (Graph500)
    bool remove_self_loops = true;
    bool undirected = false;  ///< store (j, i) with (i, j), with the same weight
    std::optional<weight_range> weights;
};

struct uniform_options {
    std::size_t vertices = 0;
    std::size_t edges = 0;  ///< distinct edges (undirected: distinct unordered pairs)
    std::uint64_t seed = 1;
    bool self_loops = false;
    bool undirected = false;
    std::optional<weight_range> weights;
};

/// Coordinates of generated edges, in generation order; `weight` empty without weights.
template <class T, index_type Index>
struct edge_list {
    std::size_t vertices = 0;
    std::vector<Index> src, dst;
    std::vector<T> weight;
};

/// The edge_factor * 2^scale Kronecker edges (fewer without self-loops when those are removed;
/// twice as many when undirected: the list, then each edge reversed). Duplicates are kept.
template <class T, index_type Index = std::int32_t>
edge_list<T, Index> kronecker_edges(kronecker_options const& opt);

template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> kronecker_graph(kronecker_options const& opt);

template <class T, index_type Index = std::int32_t>
csr_matrix<T, Index> uniform_graph(uniform_options const& opt);

// Instantiated in algorithms/src/generate.cpp.
#define KLEENE_GENERATE_EXTERN_INDEX(T, Index)                                                \
    extern template edge_list<T, Index> kronecker_edges<T, Index>(kronecker_options const&);  \
    extern template csr_matrix<T, Index> kronecker_graph<T, Index>(kronecker_options const&); \
    extern template csr_matrix<T, Index> uniform_graph<T, Index>(uniform_options const&);
#define KLEENE_GENERATE_EXTERN(T)                 \
    KLEENE_GENERATE_EXTERN_INDEX(T, std::int32_t) \
    KLEENE_GENERATE_EXTERN_INDEX(T, std::int64_t)
KLEENE_GENERATE_EXTERN(bool)
KLEENE_GENERATE_EXTERN(float)
KLEENE_GENERATE_EXTERN(double)
KLEENE_GENERATE_EXTERN(std::int32_t)
KLEENE_GENERATE_EXTERN(std::int64_t)
#undef KLEENE_GENERATE_EXTERN
#undef KLEENE_GENERATE_EXTERN_INDEX

}  // namespace kleene

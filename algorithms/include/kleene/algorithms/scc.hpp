#pragma once
// Strongly connected components of a directed graph (the pattern of a square CSR matrix) by
// Tarjan's algorithm, O(n + nnz). The recursion is an explicit stack of (vertex, next edge, low)
// frames, so a path of millions of vertices needs heap, not call stack. Components are numbered
// in the order Tarjan completes them, a reverse topological order of the condensation: an edge
// u -> v between two components has label[v] < label[u] (sinks come first).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>
#include <string>
#include <vector>

namespace kleene {

template <index_type Index = std::int32_t>
struct scc_result {
    /// Component of every vertex, 0 .. count - 1, in reverse topological order of the
    /// condensation (see above).
    std::vector<Index> label;
    std::size_t count = 0;
};

template <class T, index_type Index>
scc_result<Index> strongly_connected_components(csr_matrix<T, Index> const& a) {
    if (a.rows() != a.cols())
        throw dimension_mismatch(
            "strongly_connected_components: the adjacency matrix must be "
            "square, not " +
            detail::shape(a.rows(), a.cols()));
    std::size_t const n = a.rows();
    Index const* const col = a.col_idx();
    scc_result<Index> r;
    r.label.assign(n, Index(-1));
    // Discovery number (1-based; 0: not yet seen). A vertex is on Tarjan's stack while it is seen
    // and has no label.
    std::vector<Index> num(n, Index(0));
    struct frame {
        Index v;
        Index low;
        std::size_t next;  // the next edge of v to look at
    };
    std::vector<frame> calls;
    std::vector<Index> stack;
    Index seen = 0, label = 0;
    for (std::size_t root = 0; root < n; ++root) {
        if (num[root] != 0) continue;
        auto const visit = [&](Index v) {
            num[static_cast<std::size_t>(v)] = ++seen;
            stack.push_back(v);
            calls.push_back({v, seen, a.row_begin(static_cast<std::size_t>(v))});
        };
        visit(static_cast<Index>(root));
        while (!calls.empty()) {
            frame& f = calls.back();
            std::size_t const end = a.row_end(static_cast<std::size_t>(f.v));
            bool descended = false;
            while (f.next < end) {
                Index const w = col[f.next++];
                auto const wi = static_cast<std::size_t>(w);
                if (num[wi] == 0) {
                    visit(w);  // invalidates f
                    descended = true;
                    break;
                }
                if (r.label[wi] < 0) f.low = std::min(f.low, num[wi]);
            }
            if (descended) continue;
            Index const v = f.v, low = f.low;
            calls.pop_back();
            if (low == num[static_cast<std::size_t>(v)]) {
                Index w;
                do {
                    w = stack.back();
                    stack.pop_back();
                    r.label[static_cast<std::size_t>(w)] = label;
                } while (w != v);
                ++label;
            }
            if (!calls.empty()) calls.back().low = std::min(calls.back().low, low);
        }
    }
    r.count = static_cast<std::size_t>(label);
    return r;
}

}  // namespace kleene

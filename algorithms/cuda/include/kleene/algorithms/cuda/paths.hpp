#pragma once
// Predecessors of all-pairs shortest paths on the GPU, from the final distance matrix: the device
// counterpart of kleene::predecessors (algorithms/include/kleene/algorithms/paths.hpp), with the
// same rule: from each source s, a breadth-first search over the tight edges (u, v),
// d(s,u) + w(u,v) == d(s,v) (floating point within the same relative tolerance as the CPU), gives
// every reachable v a predecessor u that the search reached first, so zero-weight cycles cannot
// make the predecessors loop. One thread block per source, sources in batches; O(n nnz) work.
// Runs on the context's stream (default_context() when none is given) and returns once it is
// done. In a build without CUDA the entry point throws kleene::no_device.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>

#include <cstdint>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// pred(s, v) = the vertex before v on a shortest s -> v path, -1 for v == s and unreachable v.
/// `a` is the graph on the device (row u: out-edges of u); dist and pred are n x n device views.
template <class T>
KLEENE_DEVICE_ENTRY void predecessors(csr_matrix<T, std::int32_t, device> const& a,
                                      dense_view<T const, device> dist,
                                      dense_view<std::int32_t, device> pred,
                                      context& ctx) KLEENE_DEVICE_BODY;
template <class T>
void predecessors(csr_matrix<T, std::int32_t, device> const& a, dense_view<T const, device> dist,
                  dense_view<std::int32_t, device> pred) {
    predecessors<T>(a, dist, pred, default_context());
}

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

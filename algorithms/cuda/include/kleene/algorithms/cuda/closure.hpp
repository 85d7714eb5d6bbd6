#pragma once
// The condensation closure's rows on the GPU (closure.hpp, method condensation on device gpu):
// given the components of a graph and the DAG between them (closure_condensation.hpp's
// condensation, computed on the host by Tarjan's algorithm in O(n + nnz)), the device finds which
// components each component reaches (a traversal of the DAG from every component, one warp each,
// a count pass then a fill pass), writes each component's vertex row once, sorts the rows, and
// expands them to every vertex as CSR or as bit rows; the result is copied back to the host.
// Work and memory follow the output, as on the CPU. Implemented in
// algorithms/cuda/src/closure_condensation.cu; without CUDA the entry throws kleene::no_device.
// Everything runs on the context's stream (null: the legacy default stream).

#include <kleene/context.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/memory.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

/// The condensation in host arrays (closure_condensation.hpp's condensation<Index>).
template <class Index>
struct condensation_view {
    std::size_t n = 0, k = 0;
    Index const* label = nullptr;          ///< n: component of each vertex
    Index const* member_ptr = nullptr;     ///< k + 1
    Index const* members = nullptr;        ///< n: vertices by component
    Index const* ptr = nullptr;            ///< k + 1
    Index const* succ = nullptr;           ///< ptr[k]: the DAG's edges, each once
    std::uint8_t const* self = nullptr;    ///< k: the row holds its own component (reflexive or cyclic)
};

struct closure_rows_gpu {
    bool bits = false;                ///< the result is bit rows (words), else CSR (ptr, cols)
    buffer<std::int64_t> ptr;         ///< CSR: n + 1
    buffer<std::int64_t> cols;        ///< CSR: ptr[n], each row ascending
    std::vector<std::uint64_t> words; ///< bits: n rows of ld words
    std::size_t ld = 0;
    bool fitted = true;               ///< false: the device could not hold it (nothing computed)
    std::size_t pairs = 0;            ///< vertex pairs of the result (known after the count pass)
    std::size_t device_bytes = 0;     ///< the most device memory it needed
    double count_s = 0, fill_s = 0, sort_s = 0, expand_s = 0, copy_s = 0;  ///< device times
    std::vector<std::string> notes;   ///< lines for the explain trace
};

/// The rows of the closure from the condensation `g`. `bits`: n rows of ceil(n/64) words, else
/// CSR. `max_device_bytes` bounds what it allocates (0: the free memory); when the result and its
/// workspace need more, it returns fitted = false after the count pass, with `pairs` and
/// `device_bytes` set and nothing else. max_pairs (0: none) refuses, with out_of_memory, a result
/// of more pairs (the caller's host limit), checked after the count pass.
template <class Index>
KLEENE_DEVICE_ENTRY closure_rows_gpu closure_condensation_rows(condensation_view<Index> const& g,
                                                               bool bits,
                                                               std::size_t max_device_bytes,
                                                               std::size_t max_pairs,
                                                               context& ctx) KLEENE_DEVICE_VALUE;

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

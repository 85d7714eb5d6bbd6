#pragma once
// The structure of a graph on the device, as pagerank and betweenness hand it to their kernels.

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>

#include <optional>
#include <utility>

namespace kleene::detail {

/// The structure of A on the device (values dropped) and, unless A is symmetric, that of A'
/// (transposed on the device).
template <class T, index_type Index, memory_space Space>
std::pair<csr_matrix<bool, Index, device>, std::optional<csr_matrix<bool, Index, device>>>
device_structure(csr_matrix<T, Index, Space> const& a, bool symmetric) {
    std::size_t const n = a.rows();
    buffer<Index, device> rp = a.row_ptr_storage().template copy_to<device>();
    buffer<Index, device> cj = a.col_idx_storage().template copy_to<device>();
    std::optional<csr_matrix<bool, Index, device>> at;
    if (!symmetric) {
        // The device transpose is built for the arithmetic types: run it on an iso float shell.
        csr_matrix<float, Index, device> shell(n, n, std::move(rp), std::move(cj),
                                               buffer<float, device>{}, 1.0f, true);
        csr_matrix<float, Index, device> t(n, n);
        cuda::transpose(t, shell);
        rp = std::move(shell.row_ptr_storage());
        cj = std::move(shell.col_idx_storage());
        at.emplace(n, n, std::move(t.row_ptr_storage()), std::move(t.col_idx_storage()),
                   buffer<bool, device>{}, true, true);
    }
    return {csr_matrix<bool, Index, device>(n, n, std::move(rp), std::move(cj),
                                            buffer<bool, device>{}, true, true),
            std::move(at)};
}

}  // namespace kleene::detail

#pragma once
// CPU Kronecker product: row ia * mb + ib of the result pairs row ia of A with row ib of B, and
// entry (ja, jb) lands in column ja * nb + jb, so rows come out sorted without a sort.

#include <cstdint>
#include <kleene/cpu/parallel.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/csr_matrix.hpp>
#include <limits>

namespace kleene::cpu {

template <class Index, class Op, class A, class B, class T>
csr_matrix<T, Index> kronecker(Op const& op, A const& a, B const& b, T absent) {
    std::size_t const mb = b.rows(), nb = b.cols();
    std::size_t const rows = a.rows() * mb, cols = a.cols() * nb;
    auto const lim = static_cast<std::size_t>(std::numeric_limits<Index>::max());
    if (rows > lim || cols > lim)
        throw invalid_argument("kronecker: a " + kleene::detail::shape(rows, cols) +
                               " result does not fit the index type: use int64 indices");
    auto const ra = detail::row_source(a, absent);
    auto const rb = detail::row_source(b, absent);
    auto fill = [&](std::size_t r0, std::size_t r1, row_block<T, Index>& out, Index* counts) {
        for (std::size_t r = r0; r < r1; ++r) {
            std::size_t const before = out.cols.size();
            ra.for_each(r / mb, [&](std::size_t ja, T x) {
                rb.for_each(r % mb, [&](std::size_t jb, T y) {
                    out.cols.push_back(static_cast<Index>(ja * nb + jb));
                    out.vals.push_back(op.apply(x, y));
                });
            });
            counts[r] = static_cast<Index>(out.cols.size() - before);
        }
    };
    return assemble_rows<T, Index>(rows, cols, even_blocks(rows), fill);
}

}  // namespace kleene::cpu

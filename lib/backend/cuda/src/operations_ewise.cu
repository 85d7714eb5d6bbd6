// ewise_add / ewise_mult on device CSR and dense containers (operations.hpp).

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/operations_instances.hpp>

namespace kleene::cuda {

namespace detail {

template <bool Union, class Op, class Accum, class T>
__global__ void ewise_dense_kernel(T* __restrict__ c, std::uint8_t const* __restrict__ flags,
                                   bool comp, Accum accum, Op op, T const* __restrict__ a,
                                   T const* __restrict__ b, std::size_t n, T absent, bool replace) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x) {
        T const x = a[k], y = b[k];
        bool const hx = !(x == absent), hy = !(y == absent);
        bool const has_t = Union ? (hx || hy) : (hx && hy);
        T const t = hx && hy ? T(op.apply(x, y)) : (hx ? x : y);
        c[k] = combine(accum, mask_allows(flags, comp, k), replace, c[k], has_t, t, absent);
    }
}

/// Counts (Fill false) or writes (Fill true) the merged entries of each row, one thread a row.
template <bool Union, bool Fill, class Op, class T, class Index>
__global__ void ewise_csr_kernel(Op op, std::size_t rows, Index const* __restrict__ ap,
                                 Index const* __restrict__ aj, T const* __restrict__ av, T a_iso,
                                 Index const* __restrict__ bp, Index const* __restrict__ bj,
                                 T const* __restrict__ bv, T b_iso, Index* __restrict__ cp,
                                 Index* __restrict__ cj, T* __restrict__ cv) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::size_t(gridDim.x) * blockDim.x) {
        Index ka = ap[i], kb = bp[i];
        Index const ea = ap[i + 1], eb = bp[i + 1];
        Index w = Fill ? cp[i] : Index(0);
        while (ka < ea || kb < eb) {
            Index const x = ka < ea ? aj[ka] : Index(-1);
            Index const y = kb < eb ? bj[kb] : Index(-1);
            bool const take_a = ka < ea && (kb >= eb || x <= y);
            bool const take_b = kb < eb && (ka >= ea || y <= x);
            if (take_a && take_b) {
                if (Fill) {
                    cj[w] = x;
                    cv[w] = op.apply(value_at(av, a_iso, ka), value_at(bv, b_iso, kb));
                }
                ++w;
            } else if (Union) {
                if (Fill) {
                    cj[w] = take_a ? x : y;
                    cv[w] = take_a ? value_at(av, a_iso, ka) : value_at(bv, b_iso, kb);
                }
                ++w;
            }
            ka += take_a;
            kb += take_b;
        }
        if (!Fill) cp[i] = w;
    }
}

template <bool Union, class Op, class Accum, class T>
void ewise_dense(context& ctx, T* c, dense_mask const& mask, Accum accum, Op op, T const* a,
                 T const* b, std::size_t n, T absent, bool replace) {
    if (n == 0) return;
    device_stream const st = stream_of(ctx);
    ewise_dense_kernel<Union><<<blocks_for(n, 256), 256, 0, st>>>(
        c, mask_flags(mask, st), mask.complemented(), accum, op, a, b, n, absent,
        replace);
    KLEENE_CUDA_CHECK_LAUNCH("ewise_dense_kernel");
    end_of_call(st);
}

template <bool Union, class Op, class T, class Index>
csr_matrix<T, Index, device> ewise_csr(context& ctx, Op op, csr_matrix<T, Index, device> const& a,
                                       csr_matrix<T, Index, device> const& b) {
    std::size_t const rows = a.rows();
    unsigned const grid = blocks_for(rows, 128);
    device_stream const st = stream_of(ctx);
    auto launch = [&](auto fill_pass, Index* cp, Index* cj, T* cv) {
        ewise_csr_kernel<Union, decltype(fill_pass)::value><<<grid, 128, 0, st>>>(
            op, rows, a.row_ptr(), a.col_idx(), a.values(), a.iso_value(), b.row_ptr(), b.col_idx(),
            b.values(), b.iso_value(), cp, cj, cv);
    };
    return two_pass_csr<T, Index>(
        st, rows, a.cols(), "ewise_csr_kernel",
        [&](Index* cp) { launch(std::false_type{}, cp, nullptr, nullptr); },
        [&](Index* cp, Index* cj, T* cv) { launch(std::true_type{}, cp, cj, cv); });
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_OPS_EWISE_INSTANCES)

}  // namespace kleene::cuda

// assign on device containers (extract_assign.hpp). Dense: one thread an entry of C, which finds
// its place in the region through the inverse index lists (built on the host), forms Z (C with the
// region replaced or accumulated) and writes C<mask, replace> = Z. CSR: the source's columns are
// mapped into C's (J[l]; an unsorted J puts them in order by one radix sort of (row, column) keys),
// then one thread a row of C merges C's row with its region row into Z (a count pass, a CUB scan
// and a fill pass); the header writes C<mask, replace> = Z through mask_merge_csr.

#include <kleene/cuda/detail/operations.cuh>
#include <kleene/cuda/detail/structure_instances.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>

namespace kleene::cuda {
namespace detail {

template <class Accum, class T>
__global__ void assign_dense_kernel(T* __restrict__ c, std::size_t rows, std::size_t cols,
                                    std::uint8_t const* __restrict__ flags, bool comp,
                                    Accum accum, T const* __restrict__ a, T x,
                                    std::int64_t const* __restrict__ rinv,
                                    std::int64_t const* __restrict__ cinv, std::size_t region_cols,
                                    T absent, bool replace) {
    std::size_t const n = rows * cols;
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x) {
        std::int64_t const ki = rinv[k / cols];
        std::int64_t const li = cinv ? cinv[k % cols] : 0;
        T const old = c[k];
        T z = old;
        if (ki >= 0 && li >= 0) {
            T const v = a ? a[std::size_t(ki) * region_cols + std::size_t(li)] : x;
            bool const has = a == nullptr || !(v == absent);
            if constexpr (std::is_same_v<Accum, no_accum_t>) {
                (void)accum;
                z = has ? v : absent;
            } else if (has) {
                z = old == absent ? v : T(accum.apply(old, v));
            }
        }
        c[k] = combine(no_accum_t{}, mask_allows(flags, comp, k), replace, old, !(z == absent), z,
                       absent);
    }
}

template <class Accum, class T>
void assign_dense(context& ctx, T* c, std::size_t rows, std::size_t cols, dense_mask const& mask,
                  Accum accum, T const* a, T x, std::int64_t const* rinv, std::int64_t const* cinv,
                  std::size_t region_cols, T absent, bool replace) {
    std::size_t const n = rows * cols;
    if (n == 0) return;
    device_stream const st = stream_of(ctx);
    assign_dense_kernel<<<blocks_for(n, 256), 256, 0, st>>>(
        c, rows, cols, mask_flags(mask, st), mask.complemented(), accum, a, x,
        rinv, cinv, region_cols, absent, replace);
    KLEENE_CUDA_CHECK_LAUNCH("assign_dense_kernel");
    end_of_call(st);
}

// ---- CSR ----------------------------------------------------------------------------------------

namespace {

/// Source entry p (row k) as a column of C: sj[p] = J[aj[p]], or (keys != nullptr, an unsorted J)
/// the sort key k * ccols + J[aj[p]].
template <class Index>
__global__ void assign_map_kernel(std::size_t rows, Index const* __restrict__ ap,
                                  Index const* __restrict__ aj, index_spec rj, std::size_t ccols,
                                  std::int64_t* __restrict__ sj, std::uint64_t* __restrict__ keys) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < rows;
         k += std::size_t(gridDim.x) * blockDim.x) {
        for (Index p = ap[k]; p < ap[k + 1]; ++p) {
            std::size_t const l = std::size_t(aj[p]);
            std::size_t const j = rj.list ? std::size_t(rj.list[l]) : rj.begin + l;
            if (keys) keys[p] = std::uint64_t(k) * ccols + j;
            else sj[p] = std::int64_t(j);
        }
    }
}

__global__ void assign_iota_kernel(std::int64_t* __restrict__ p, std::size_t n) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x)
        p[k] = std::int64_t(k);
}

/// Sorted entry p: column keys[p] % ccols, value (in != nullptr) from its place before the sort.
template <class T>
__global__ void assign_unkey_kernel(std::uint64_t const* __restrict__ keys,
                                    std::int64_t const* __restrict__ perm, std::size_t n,
                                    std::size_t ccols, T const* __restrict__ in,
                                    std::int64_t* __restrict__ sj, T* __restrict__ sv) {
    for (std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; p < n;
         p += std::size_t(gridDim.x) * blockDim.x) {
        sj[p] = std::int64_t(keys[p] % ccols);
        if (in) sv[p] = in[perm[p]];
    }
}

/// Counts (Fill false) or writes (Fill true) row i of Z: C's row outside the region rows; inside,
/// C's row merged with region row rinv[i] (entries sp[k]..sp[k + 1] of sj / sv, or 0..slen when
/// sp is nullptr: the scalar form). C's entries in a region column survive only with an
/// accumulator.
template <bool Fill, class Accum, class T, class Index>
__global__ void assign_csr_kernel(std::size_t rows, Index const* __restrict__ cp,
                                  Index const* __restrict__ cj, T const* __restrict__ cv, T c_iso,
                                  std::int64_t const* __restrict__ rinv,
                                  std::int64_t const* __restrict__ cinv,
                                  Index const* __restrict__ sp, std::size_t slen,
                                  std::int64_t const* __restrict__ sj, T const* __restrict__ sv,
                                  T s_iso, Accum accum, Index* __restrict__ zp,
                                  Index* __restrict__ zj, T* __restrict__ zv) {
    constexpr bool plain = std::is_same_v<Accum, no_accum_t>;
    (void)accum;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::size_t(gridDim.x) * blockDim.x) {
        Index kc = cp[i];
        Index const ec = cp[i + 1];
        Index w = Fill ? zp[i] : Index(0);
        auto emit = [&](std::int64_t j, T v) {
            if (Fill) {
                zj[w] = Index(j);
                zv[w] = v;
            }
            ++w;
        };
        std::int64_t const k = rinv[i];
        if (k < 0) {
            if (Fill)
                for (; kc < ec; ++kc) emit(std::int64_t(cj[kc]), value_at(cv, c_iso, kc));
            else
                w = Index(ec - kc);
        } else {
            std::size_t ks = sp ? std::size_t(sp[k]) : 0;
            std::size_t const es = sp ? std::size_t(sp[k + 1]) : slen;
            while (kc < ec || ks < es) {
                std::int64_t const jc = kc < ec ? std::int64_t(cj[kc]) : INT64_MAX;
                std::int64_t const js = ks < es ? sj[ks] : INT64_MAX;
                if (jc < js) {
                    if (!plain || cinv[jc] < 0) emit(jc, value_at(cv, c_iso, kc));
                    ++kc;
                } else if (js < jc) {
                    emit(js, value_at(sv, s_iso, ks));
                    ++ks;
                } else {
                    T const v = value_at(sv, s_iso, ks);
                    if constexpr (plain) emit(js, v);
                    else emit(js, T(accum.apply(value_at(cv, c_iso, kc), v)));
                    ++kc;
                    ++ks;
                }
            }
        }
        if (!Fill) zp[i] = w;
    }
}

/// The source's entries with C's columns, each row in increasing column order (A's row pointers
/// still hold).
template <class T>
struct assign_source {
    stream_buffer<std::int64_t> cols;  // on the call's stream
    stream_buffer<T> vals;             // only where an unsorted J reorders a valued A
    T const* values = nullptr;        // nullptr: iso
};

/// Enqueued on st (where the caller's passes over the result run).
template <class T, class Index>
assign_source<T> map_source(csr_matrix<T, Index, device> const& a, index_spec rj,
                            std::size_t ccols, device_stream st) {
    std::size_t const rows = a.rows(), nnz = a.nnz();
    assign_source<T> s;
    s.cols = stream_buffer<std::int64_t>(nnz, st);
    s.values = a.has_values() ? a.values() : nullptr;
    if (nnz == 0) return s;
    unsigned const grid = blocks_for(rows, 128);
    if (!rj.list || rj.sorted) {  // distinct and increasing: the order within a row holds
        assign_map_kernel<<<grid, 128, 0, st>>>(rows, a.row_ptr(), a.col_idx(), rj, ccols,
                                                s.cols.data(),
                                                static_cast<std::uint64_t*>(nullptr));
        KLEENE_CUDA_CHECK_LAUNCH("assign_map_kernel");
        return s;
    }
    if (rows > std::numeric_limits<std::uint64_t>::max() / ccols)
        throw invalid_argument("cuda::assign: a " + kleene::detail::shape(rows, ccols) +
                               " source with an unsorted column list is too large");
    stream_buffer<std::uint64_t> keys_in(nnz, st), keys(nnz, st);
    stream_buffer<std::int64_t> perm_in(nnz, st), perm(nnz, st);
    assign_map_kernel<<<grid, 128, 0, st>>>(rows, a.row_ptr(), a.col_idx(), rj, ccols,
                                            static_cast<std::int64_t*>(nullptr), keys_in.data());
    KLEENE_CUDA_CHECK_LAUNCH("assign_map_kernel (keys)");
    assign_iota_kernel<<<blocks_for(nnz, 256), 256, 0, st>>>(perm_in.data(), nnz);
    KLEENE_CUDA_CHECK_LAUNCH("assign_iota_kernel");
    int const end_bit = std::max(1, int(std::bit_width(std::uint64_t(rows) * ccols - 1)));
    cub_temp temp(st);
    std::size_t bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in.data(), keys.data(),
                                                      perm_in.data(), perm.data(), nnz, 0,
                                                      end_bit, st));
    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(bytes), bytes, keys_in.data(),
                                                      keys.data(), perm_in.data(), perm.data(),
                                                      nnz, 0, end_bit, st));
    if (s.values) s.vals = stream_buffer<T>(nnz, st);
    assign_unkey_kernel<<<blocks_for(nnz, 256), 256, 0, st>>>(
        keys.data(), perm.data(), nnz, ccols, s.values, s.cols.data(), s.vals.data());
    KLEENE_CUDA_CHECK_LAUNCH("assign_unkey_kernel");
    if (s.values) s.values = s.vals.data();
    return s;  // the temporaries are released on st, behind the work queued above
}

}  // namespace

template <class Accum, class T, class Index>
csr_matrix<T, Index, device> assign_csr(context& ctx, csr_matrix<T, Index, device> const& c,
                                        Accum accum, csr_matrix<T, Index, device> const* a, T x,
                                        index_spec rj, std::int64_t const* rinv,
                                        std::int64_t const* cinv, std::int64_t const* jsorted) {
    std::size_t const rows = c.rows();
    device_stream const st = stream_of(ctx);
    assign_source<T> src;
    std::int64_t const* sj = jsorted;
    T const* sv = nullptr;
    T s_iso = x;
    Index const* sp = nullptr;
    if (a) {
        src = map_source(*a, rj, c.cols(), st);
        sj = src.cols.data();
        sv = src.values;
        s_iso = a->iso_value();
        sp = a->row_ptr();
    }
    unsigned const grid = blocks_for(rows, 128);
    auto launch = [&](auto fill_pass, Index* zp, Index* zj, T* zv) {
        assign_csr_kernel<decltype(fill_pass)::value><<<grid, 128, 0, st>>>(
            rows, c.row_ptr(), c.col_idx(), c.values(), c.iso_value(), rinv, cinv, sp, rj.size,
            sj, sv, s_iso, accum, zp, zj, zv);
    };
    return two_pass_csr<T, Index>(
        st, rows, c.cols(), "assign_csr_kernel",
        [&](Index* zp) { launch(std::false_type{}, zp, nullptr, nullptr); },
        [&](Index* zp, Index* zj, T* zv) { launch(std::true_type{}, zp, zj, zv); });
}

}  // namespace detail

KLEENE_OPS_TYPES(KLEENE_STRUCT_ASSIGN_INSTANCES)

}  // namespace kleene::cuda

#pragma once
// SpGEMM's device code (C = A B into CSR): the tiers, the hash tables, and the numeric kernels.
// No host code: spgemm.cuh launches these kernels compiled ahead of time, and the JIT
// (kleene/cuda/jit.hpp) compiles this header through NVRTC for semirings it was not built with.

#include <kleene/cuda/detail/device_functions.cuh>
#include <kleene/cuda/sparse/device_common.cuh>
#include <kleene/semiring.hpp>

#include <cstdint>

namespace kleene::cuda::sparse_detail {

inline constexpr int spgemm_tiers = 3;  // shared-memory tiers; the global one comes after
template <int Tier>
struct spgemm_tier;
template <>
struct spgemm_tier<0> {
    static constexpr std::int64_t max_products = 64;
    static constexpr int slots = 128, row_threads = 32, block_threads = 256;
};
template <>
struct spgemm_tier<1> {
    static constexpr std::int64_t max_products = 512;
    static constexpr int slots = 1024, row_threads = 128, block_threads = 256;
};
template <>
struct spgemm_tier<2> {
    static constexpr std::int64_t max_products = 4096;
    static constexpr int slots = 8192, row_threads = 512, block_threads = 512;
};
inline constexpr int spgemm_global_threads = 512;

template <class Index>
struct csr_ref {
    Index const* ptr;
    Index const* col;
};

template <class Index>
__device__ __forceinline__ std::uint64_t slot_of(Index j, std::uint64_t mask) {
    std::uint64_t const x = static_cast<std::uint64_t>(j) * 0x9E3779B97F4A7C15ull;
    return (x >> 32) & mask;
}

template <class Index>
__device__ __forceinline__ Index cas_index(Index* p, Index expected, Index desired) {
    if constexpr (sizeof(Index) == 4) {
        return atomicCAS(reinterpret_cast<int*>(p), expected, desired);
    } else {
        return static_cast<Index>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                            static_cast<unsigned long long>(expected),
                                            static_cast<unsigned long long>(desired)));
    }
}

/// Finds or inserts key j (linear probing; the table never fills: it has 2f slots or more).
/// Returns the slot; `inserted` says whether this thread put j there.
template <class Index>
__device__ __forceinline__ std::uint64_t hash_insert(Index* keys, std::uint64_t mask, Index j,
                                                     bool& inserted) {
    std::uint64_t h = slot_of(j, mask);
    while (true) {
        Index const cur = *reinterpret_cast<Index volatile*>(keys + h);
        if (cur == j) {
            inserted = false;
            return h;
        }
        if (cur == Index(-1)) {
            Index const old = cas_index(keys + h, Index(-1), j);
            if (old == Index(-1) || old == j) {
                inserted = old == Index(-1);
                return h;
            }
        }
        h = (h + 1) & mask;
    }
}

/// The slot holding key j, or -1, probing on from slot h whose key `cur` was read already (linear
/// probing; the table is at most half full).
template <class Index>
__device__ __forceinline__ std::int64_t hash_find_from(Index const* keys, std::uint64_t mask,
                                                       Index j, std::uint64_t h, Index cur) {
    while (true) {
        if (cur == j) return static_cast<std::int64_t>(h);
        if (cur == Index(-1)) return -1;
        h = (h + 1) & mask;
        cur = keys[h];
    }
}
template <class Index>
__device__ __forceinline__ std::int64_t hash_find(Index const* keys, std::uint64_t mask, Index j) {
    std::uint64_t const h = slot_of(j, mask);
    return hash_find_from(keys, mask, j, h, keys[h]);
}

/// The products of row `row` of A times B, spread over `threads` threads (warps take entries of
/// A, their lanes the entries of the matching row of B), inserted into (keys, vals).
template <class S, class Index, bool Numeric>
__device__ __forceinline__ void accumulate_row(
    csr_ref<Index> a, typename S::value_type const* a_val, typename S::value_type a_iso,
    csr_ref<Index> b, typename S::value_type const* b_val, typename S::value_type b_iso, Index row,
    int t, int threads, Index* keys, typename S::value_type* vals, std::uint64_t mask,
    int* inserted_count) {
    int const warp = t / 32, warps = threads / 32, lane = t % 32;
    Index const ae = a.ptr[row + 1];
    for (Index ka = a.ptr[row] + warp; ka < ae; ka += warps) {
        Index const k = a.col[ka];
        Index const be = b.ptr[k + 1];
        for (Index kb = b.ptr[k] + lane; kb < be; kb += 32) {
            bool inserted = false;
            std::uint64_t const s = hash_insert(keys, mask, b.col[kb], inserted);
            if constexpr (Numeric) {
                atomic_add<S>(&vals[s],
                              S::mul(value_at(a_val, a_iso, ka), value_at(b_val, b_iso, kb)));
            } else {
                if (inserted) atomicAdd(inserted_count, 1);
            }
        }
    }
}

template <class T, class Index>
struct spgemm_numeric_args {
    csr_ref<Index> a;
    T const* a_val;
    T a_iso;
    csr_ref<Index> b;
    T const* b_val;
    T b_iso;
    Index const* c_ptr;
    Index* c_col;
    T* c_val;
};

/// Writes the table's entries to C's row (in table order; sorted later) and clears nothing.
template <class S, class Index>
__device__ __forceinline__ void emit_row(spgemm_numeric_args<typename S::value_type, Index> const& p, Index row, int t,
                                         int threads, Index const* keys,
                                         typename S::value_type const* vals, std::uint64_t slots,
                                         int* emitted) {
    Index const out = p.c_ptr[row];
    for (std::uint64_t s = t; s < slots; s += threads) {
        Index const key = keys[s];
        if (key != Index(-1)) {
            int const pos = atomicAdd(emitted, 1);
            p.c_col[out + pos] = key;
            p.c_val[out + pos] = vals[s];
        }
    }
}

template <class S, class Index, int Slots, int RowThreads, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    spgemm_shared_numeric(spgemm_numeric_args<typename S::value_type, Index> p, Index const* rows, std::int64_t count) {
    using T = typename S::value_type;
    constexpr int per_block = BlockThreads / RowThreads;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int emitted[per_block];
    int const sub = static_cast<int>(threadIdx.x) / RowThreads;
    int const t = static_cast<int>(threadIdx.x) % RowThreads;
    // Values first (8-byte aligned), then keys.
    T* vals = reinterpret_cast<T*>(smem) + sub * Slots;
    Index* keys = reinterpret_cast<Index*>(smem + sizeof(T) * Slots * per_block) + sub * Slots;
    std::int64_t const item = std::int64_t(blockIdx.x) * per_block + sub;
    for (int s = t; s < Slots; s += RowThreads) {
        keys[s] = Index(-1);
        vals[s] = S::zero();
    }
    if (t == 0) emitted[sub] = 0;
    __syncthreads();
    if (item < count)
        accumulate_row<S, Index, true>(p.a, p.a_val, p.a_iso, p.b, p.b_val, p.b_iso, rows[item], t,
                                       RowThreads, keys, vals, Slots - 1, nullptr);
    __syncthreads();
    if (item < count) emit_row<S>(p, rows[item], t, RowThreads, keys, vals, Slots, &emitted[sub]);
}

template <class S, class Index>
__global__ void __launch_bounds__(spgemm_global_threads)
    spgemm_global_numeric(spgemm_numeric_args<typename S::value_type, Index> p, Index const* rows,
                          std::int64_t const* table_off, Index* keys_all,
                          typename S::value_type* vals_all) {
    __shared__ int emitted;
    std::int64_t const off = table_off[blockIdx.x] - table_off[0];  // inside this batch's tables
    auto const slots =
        static_cast<std::uint64_t>(table_off[blockIdx.x + 1] - table_off[blockIdx.x]);
    Index* keys = keys_all + off;
    auto* vals = vals_all + off;
    int const t = static_cast<int>(threadIdx.x);
    for (std::uint64_t s = t; s < slots; s += spgemm_global_threads) {
        keys[s] = Index(-1);
        vals[s] = S::zero();
    }
    if (t == 0) emitted = 0;
    __syncthreads();
    Index const row = rows[blockIdx.x];
    accumulate_row<S, Index, true>(p.a, p.a_val, p.a_iso, p.b, p.b_val, p.b_iso, row, t,
                                   spgemm_global_threads, keys, vals, slots - 1, nullptr);
    __syncthreads();
    emit_row<S>(p, row, t, spgemm_global_threads, keys, vals, slots, &emitted);
}

}  // namespace kleene::cuda::sparse_detail

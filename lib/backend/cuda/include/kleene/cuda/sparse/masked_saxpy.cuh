#pragma once
// Masked Gustavson (saxpy), T<M> = A (+).(x) B (sparse.hpp): for each row i, the products
// A(i,k) B(k,j) are accumulated only where the CSR mask M has (i, j). Row i's mask columns are put
// in a hash table first (keys only; the table has at least twice as many slots, so a lookup ends
// in a slot or two); each product looks its column up and, where it is there, adds into the
// slot's value (a semiring atomic add) and sets the slot's hit flag. No product outside the mask
// is kept, nothing is inserted, and the work is the unmasked product's multiply-adds (lookups),
// however many entries that product would have: C<L> = L U' renumbered by degree makes 7.2e9
// multiply-adds at Kronecker scale 22, where the masked dot products merge 1.3e11 steps.
//
// Rows go to tiers by their mask row's length and their products (as spgemm's): a warp, four
// warps or sixteen warps a row with the table in shared memory (128, 1024, 8192 slots), or, for
// mask rows past 4096 entries or rows of more than 2^18 products, a table in global memory, its
// row's entries of A in chunks of 2048 over as many blocks (a hub's row is not one block's
// work), each block with a filter of the mask row in shared memory (a bit a hashed column: most
// lookups that would miss never leave the multiprocessor), in batches that bound the tables'
// memory. In a row, a warp takes 32 of A(i,:)'s entries at once, lays their rows of B end to end,
// and its lanes walk them four products a lane at once (rows of B of any length keep every lane
// busy, four loads in flight). Every mask entry gets its value and a hit flag in M's layout; a
// scan of the flags gives T's row pointers and the positions it is packed to
// (pack_masked_entries, as the masked dot products). On the context's stream; the host waits
// for the tiers' counts and T's size.

#include <kleene/cuda/detail/device_functions.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/sparse/common.cuh>
#include <kleene/cuda/sparse/masked_dot.cuh>
#include <kleene/cuda/sparse/spgemm_kernels.cuh>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kleene::cuda {
namespace sparse_detail {

inline constexpr int saxpy_tiers = 3;  // shared-memory tiers; the global one comes after
template <int Tier>
struct saxpy_tier;
template <>
struct saxpy_tier<0> {
    static constexpr std::int64_t max_mask = 64, max_products = 2048;
    static constexpr int slots = 128, row_threads = 32, block_threads = 256;
};
template <>
struct saxpy_tier<1> {
    static constexpr std::int64_t max_mask = 512, max_products = 16384;
    static constexpr int slots = 1024, row_threads = 128, block_threads = 256;
};
template <>
struct saxpy_tier<2> {
    static constexpr std::int64_t max_mask = 4096, max_products = 1 << 18;
    static constexpr int slots = 8192, row_threads = 512, block_threads = 512;
};
inline constexpr int saxpy_global_threads = 512;

template <class T, class Index>
struct saxpy_args {
    dot_matrix<T, Index> a, b;  // masked_dot.cuh's view of a CSR: ptr, col, values or iso
    Index const* m_ptr;
    Index const* m_col;
    std::int64_t rows;
    T* val;     // per mask entry: its value, where a product reached it
    Index* hit;  // per mask entry: 1 where a product reached it
};

/// No filter in front of a table in shared memory.
struct no_filter {
    template <class Index>
    __device__ __forceinline__ bool may_hold(Index) const {
        return true;
    }
};
/// A bit a hashed column of the row's mask (in shared memory) in front of a table in global
/// memory: a product whose bit is clear is not in the mask and never reads the table.
struct bit_filter {
    static constexpr int log_bits = 19;  // 64 KiB
    std::uint32_t* words;
    template <class Index>
    __device__ __forceinline__ static std::uint32_t bit_of(Index j) {
        return (static_cast<std::uint32_t>(j) * 2654435761u) >> (32 - log_bits);
    }
    template <class Index>
    __device__ __forceinline__ bool may_hold(Index j) const {
        std::uint32_t const b = bit_of(j);
        return (words[b >> 5] >> (b & 31)) & 1u;
    }
};

/// A's entries [a0, a1) of a row of the masked product by `threads` threads (t: this one's rank),
/// with the row's table of slots (keys, vals, hits) already holding its mask row's columns. A warp
/// takes 32 of A's entries, lays their rows of B end to end, and its lanes take 4 products at a
/// time each (128 a warp): their columns read at once, their tables' first slots read at once,
/// then the lookups finished and the hits added (the loads of four products in flight, not one).
template <class S, class Index, class Filter = no_filter>
__device__ __forceinline__ void saxpy_row(saxpy_args<typename S::value_type, Index> const& p,
                                          std::int64_t a0, std::int64_t a1, int t, int threads,
                                          Index const* keys, typename S::value_type* vals,
                                          std::uint8_t* hits, std::uint64_t mask,
                                          Filter const& filter = {}) {
    using T = typename S::value_type;
    constexpr unsigned full = 0xffffffffu;
    int const warp = t / 32, warps = threads / 32, lane = t % 32;
    for (std::int64_t base = a0 + std::int64_t(warp) * 32; base < a1;
         base += std::int64_t(warps) * 32) {
        // Lane l takes A's entry base + l: its row of B, laid out after the lower lanes' rows.
        std::int64_t const ka = base + lane;
        std::int64_t b0 = 0, deg = 0;
        if (ka < a1) {
            Index const k = p.a.col[ka];
            b0 = p.b.ptr[k];
            deg = p.b.ptr[k + 1] - b0;
        }
        std::int64_t excl = deg;
        for (int o = 1; o < 32; o *= 2) {
            std::int64_t const y = __shfl_up_sync(full, excl, o);
            if (lane >= o) excl += y;
        }
        std::int64_t const total = __shfl_sync(full, excl, 31);
        excl -= deg;
        for (std::int64_t e0 = 0; e0 < total; e0 += 128) {
            std::int64_t kb[4];
            int own[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                std::int64_t const e = e0 + r * 32 + lane;
                // The lane whose row holds product e: the last lane whose row starts at or
                // before e.
                int owner = 0;
                for (int step = 16; step > 0; step /= 2) {
                    int const j = owner + step;
                    std::int64_t const ej = __shfl_sync(full, excl, j & 31);
                    if (j < 32 && ej <= e) owner = j;
                }
                std::int64_t const ob = __shfl_sync(full, b0, owner);
                std::int64_t const oe = __shfl_sync(full, excl, owner);
                own[r] = owner;
                kb[r] = e < total ? ob + (e - oe) : -1;
            }
            Index j[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) j[r] = kb[r] >= 0 ? p.b.col[kb[r]] : Index(-1);
            std::uint64_t h[4];
            Index cur[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                bool const look = j[r] >= 0 && filter.may_hold(j[r]);
                h[r] = slot_of(j[r], mask);
                cur[r] = look ? keys[h[r]] : Index(-1);
                if (!look) kb[r] = -1;
            }
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                if (kb[r] < 0) continue;
                std::int64_t const s = hash_find_from(keys, mask, j[r], h[r], cur[r]);
                if (s >= 0) {
                    T const x = S::mul(value_at(p.a.val, p.a.iso, base + own[r]),
                                       value_at(p.b.val, p.b.iso, kb[r]));
                    atomic_add<S>(&vals[s], x);
                    hits[s] = 1;
                }
            }
        }
    }
}

/// The mask row's columns into the table (threads t of `threads`), and the table cleared.
template <class S, class Index>
__device__ __forceinline__ void saxpy_table(saxpy_args<typename S::value_type, Index> const& p,
                                            Index row, int t, int threads, Index* keys,
                                            typename S::value_type* vals, std::uint8_t* hits,
                                            std::uint64_t slots) {
    for (std::uint64_t s = t; s < slots; s += threads) {
        keys[s] = Index(-1);
        vals[s] = S::zero();
        hits[s] = 0;
    }
}
template <class Index>
__device__ __forceinline__ void saxpy_keys(Index const* m_ptr, Index const* m_col, Index row, int t,
                                           int threads, Index* keys, std::uint64_t mask) {
    for (Index e = m_ptr[row] + t; e < m_ptr[row + 1]; e += threads) {
        bool inserted = false;
        hash_insert(keys, mask, m_col[e], inserted);
    }
}
/// The row's mask entries' values and hit flags, from the table.
template <class S, class Index>
__device__ __forceinline__ void saxpy_emit(saxpy_args<typename S::value_type, Index> const& p,
                                           Index row, int t, int threads, Index const* keys,
                                           typename S::value_type const* vals,
                                           std::uint8_t const* hits, std::uint64_t mask) {
    for (Index e = p.m_ptr[row] + t; e < p.m_ptr[row + 1]; e += threads) {
        std::int64_t const s = hash_find(keys, mask, p.m_col[e]);
        bool const h = s >= 0 && hits[s];
        p.hit[e] = h ? 1 : 0;
        if (h) p.val[e] = vals[s];
    }
}

template <class S, class Index, int Slots, int RowThreads, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    masked_saxpy_shared(saxpy_args<typename S::value_type, Index> p, Index const* rows,
                        std::int64_t count) {
    using T = typename S::value_type;
    constexpr int per_block = BlockThreads / RowThreads;
    extern __shared__ __align__(16) unsigned char smem[];
    int const sub = static_cast<int>(threadIdx.x) / RowThreads;
    int const t = static_cast<int>(threadIdx.x) % RowThreads;
    // Values first (8-byte aligned), then keys, then the hit flags.
    T* vals = reinterpret_cast<T*>(smem) + sub * Slots;
    Index* keys = reinterpret_cast<Index*>(smem + sizeof(T) * Slots * per_block) + sub * Slots;
    std::uint8_t* hits =
        smem + (sizeof(T) + sizeof(Index)) * Slots * per_block + std::size_t(sub) * Slots;
    std::int64_t const item = std::int64_t(blockIdx.x) * per_block + sub;
    Index const row = item < count ? rows[item] : Index(0);
    saxpy_table<S>(p, row, t, RowThreads, keys, vals, hits, Slots);
    __syncthreads();
    if (item < count) saxpy_keys(p.m_ptr, p.m_col, row, t, RowThreads, keys, Slots - 1);
    __syncthreads();
    if (item < count)
        saxpy_row<S>(p, p.a.ptr[row], p.a.ptr[row + 1], t, RowThreads, keys, vals, hits, Slots - 1);
    __syncthreads();
    if (item < count) saxpy_emit<S>(p, row, t, RowThreads, keys, vals, hits, Slots - 1);
}

/// The global tier, in three steps over a batch of heavy rows, each row's table in global memory
/// at table_off[r] - table_off[0]: the tables cleared and their keys put in (a block a row), the
/// products (a block for each saxpy_chunk of a row's entries of A: a hub's row spreads over many
/// blocks, which share its table), the mask entries' values and flags (a block a row).
inline constexpr int saxpy_chunk = 4 * saxpy_global_threads;  // A's entries a block takes
template <class S, class Index>
__global__ void __launch_bounds__(saxpy_global_threads)
    masked_saxpy_global_keys(saxpy_args<typename S::value_type, Index> p, Index const* rows,
                             std::int64_t const* table_off, Index* keys_all,
                             typename S::value_type* vals_all, std::uint8_t* hits_all) {
    std::int64_t const off = table_off[blockIdx.x] - table_off[0];
    auto const slots =
        static_cast<std::uint64_t>(table_off[blockIdx.x + 1] - table_off[blockIdx.x]);
    int const t = static_cast<int>(threadIdx.x);
    Index const row = rows[blockIdx.x];
    saxpy_table<S>(p, row, t, saxpy_global_threads, keys_all + off, vals_all + off, hits_all + off,
                   slots);
    __syncthreads();
    saxpy_keys(p.m_ptr, p.m_col, row, t, saxpy_global_threads, keys_all + off, slots - 1);
}
/// chunk_row[c]: the batch's row (its rank) of chunk c; chunk_first[c]: its first entry of A.
/// The block first sets its filter's bits from the row's mask (bit_filter: dynamic shared memory).
template <class S, class Index>
__global__ void __launch_bounds__(saxpy_global_threads)
    masked_saxpy_global_products(saxpy_args<typename S::value_type, Index> p, Index const* rows,
                                 std::int64_t const* table_off, int const* chunk_row,
                                 std::int64_t const* chunk_first, Index const* keys_all,
                                 typename S::value_type* vals_all, std::uint8_t* hits_all) {
    extern __shared__ __align__(16) unsigned char smem[];
    bit_filter const filter{reinterpret_cast<std::uint32_t*>(smem)};
    int const t = static_cast<int>(threadIdx.x);
    int const r = chunk_row[blockIdx.x];
    Index const row = rows[r];
    constexpr int words = (1 << bit_filter::log_bits) / 32;
    for (int w = t; w < words; w += saxpy_global_threads) filter.words[w] = 0;
    __syncthreads();
    for (Index e = p.m_ptr[row] + t; e < p.m_ptr[row + 1]; e += saxpy_global_threads) {
        std::uint32_t const b = bit_filter::bit_of(p.m_col[e]);
        atomicOr(filter.words + (b >> 5), 1u << (b & 31));
    }
    __syncthreads();
    std::int64_t const off = table_off[r] - table_off[0];
    auto const slots = static_cast<std::uint64_t>(table_off[r + 1] - table_off[r]);
    std::int64_t const a0 = chunk_first[blockIdx.x];
    std::int64_t const a1 = min(a0 + std::int64_t(saxpy_chunk), std::int64_t(p.a.ptr[row + 1]));
    saxpy_row<S>(p, a0, a1, t, saxpy_global_threads, keys_all + off, vals_all + off,
                 hits_all + off, slots - 1, filter);
}
template <class S, class Index>
__global__ void __launch_bounds__(saxpy_global_threads)
    masked_saxpy_global_emit(saxpy_args<typename S::value_type, Index> p, Index const* rows,
                             std::int64_t const* table_off, Index const* keys_all,
                             typename S::value_type const* vals_all,
                             std::uint8_t const* hits_all) {
    std::int64_t const off = table_off[blockIdx.x] - table_off[0];
    auto const slots =
        static_cast<std::uint64_t>(table_off[blockIdx.x + 1] - table_off[blockIdx.x]);
    saxpy_emit<S>(p, rows[blockIdx.x], static_cast<int>(threadIdx.x), saxpy_global_threads,
                  keys_all + off, vals_all + off, hits_all + off, slots - 1);
}

/// Each row's tier (rows with no mask entry or no entry of A: none; their mask entries get no
/// hit), into the tiers' lists (tier t's rows at t * rows ..., counts[t]); a warp a row sums its
/// products (the lengths of B's rows that A(i,:) names).
template <class Index>
__global__ void masked_saxpy_tiers(Index const* __restrict__ a_ptr, Index const* __restrict__ a_col,
                                   Index const* __restrict__ b_ptr, Index const* __restrict__ m_ptr,
                                   std::int64_t rows, Index* __restrict__ lists,
                                   unsigned long long* counts) {
    int const lane = static_cast<int>(threadIdx.x % 32);
    std::int64_t const warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
    for (std::int64_t i = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < rows;
         i += warps) {
        std::int64_t const len = m_ptr[i + 1] - m_ptr[i];
        std::int64_t const a0 = a_ptr[i], a1 = a_ptr[i + 1];
        if (len == 0 || a0 == a1) continue;
        std::int64_t f = 0;
        for (std::int64_t ka = a0 + lane; ka < a1; ka += 32) {
            Index const k = a_col[ka];
            f += b_ptr[k + 1] - b_ptr[k];
        }
        for (int o = 16; o > 0; o /= 2) f += __shfl_xor_sync(0xffffffffu, f, o);
        if (lane != 0 || f == 0) continue;
        int tier = saxpy_tiers;  // global: a long mask row, or products for many blocks
        if (len <= saxpy_tier<0>::max_mask && f <= saxpy_tier<0>::max_products) tier = 0;
        else if (len <= saxpy_tier<1>::max_mask && f <= saxpy_tier<1>::max_products) tier = 1;
        else if (len <= saxpy_tier<2>::max_mask && f <= saxpy_tier<2>::max_products) tier = 2;
        auto const at = atomicAdd(counts + tier, 1ull);
        lists[tier * rows + static_cast<std::int64_t>(at)] = static_cast<Index>(i);
    }
}

/// The global tier's tables: a power of two of slots, at least twice the row's mask entries.
template <class Index>
__global__ void masked_saxpy_table_sizes(Index const* __restrict__ m_ptr,
                                         Index const* __restrict__ heavy, std::int64_t count,
                                         std::int64_t* __restrict__ slots) {
    for (std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < count;
         r += std::int64_t(gridDim.x) * blockDim.x) {
        Index const i = heavy[r];
        auto const len = static_cast<std::uint64_t>(m_ptr[i + 1] - m_ptr[i]);
        std::uint64_t n = 1;
        while (n < 2 * len) n <<= 1;
        slots[r] = static_cast<std::int64_t>(n);
    }
}

template <class S, class Index, int Tier>
void launch_saxpy_tier(saxpy_args<typename S::value_type, Index> const& p, Index const* rows,
                       std::int64_t count, cudaStream_t st) {
    using T = typename S::value_type;
    using tier = saxpy_tier<Tier>;
    if (count == 0) return;
    constexpr int per_block = tier::block_threads / tier::row_threads;
    std::size_t const smem = std::size_t(tier::slots) * per_block * (sizeof(T) + sizeof(Index) + 1);
    auto const kernel =
        masked_saxpy_shared<S, Index, tier::slots, tier::row_threads, tier::block_threads>;
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
    auto const blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
    kernel<<<blocks, tier::block_threads, smem, st>>>(p, rows, count);
    KLEENE_CUDA_CHECK_LAUNCH("masked_saxpy_shared");
}

/// The global tier's tables in batches of at most this many slots (or one row's, if larger).
inline constexpr std::int64_t saxpy_batch_slots = std::int64_t(1) << 26;

template <class S, class Index>
void masked_saxpy_generic(context& ctx, csr_matrix<typename S::value_type, Index, device>& t,
                          csr_mask<Index> const& mask,
                          csr_matrix<typename S::value_type, Index, device> const& a,
                          csr_matrix<typename S::value_type, Index, device> const& b) {
    using T = typename S::value_type;
    cudaStream_t const st = stream_of(ctx);
    auto const rows = static_cast<std::int64_t>(a.rows());
    std::size_t const entries = mask.nnz();
    buffer<Index, device> t_ptr(std::size_t(rows) + 1);
    if (entries == 0 || a.nnz() == 0 || b.nnz() == 0) {
        detail::fill(t_ptr.data(), t_ptr.size(), Index(0), st);
        detail::end_of_call(st);
        t = csr_matrix<T, Index, device>(a.rows(), b.cols(), std::move(t_ptr), {}, {}, T(1), true);
        return;
    }
    detail::stream_buffer<T> val(entries, st);
    detail::stream_buffer<Index> off(entries + 1, st);  // the hit flags, then their scan
    KLEENE_CUDA_CHECK(cudaMemsetAsync(off.data(), 0, (entries + 1) * sizeof(Index), st));
    saxpy_args<T, Index> const p{{a.row_ptr(), a.col_idx(), a.values(), a.iso_value()},
                                 {b.row_ptr(), b.col_idx(), b.values(), b.iso_value()},
                                 mask.row_ptr(),
                                 mask.col_idx(),
                                 rows,
                                 val.data(),
                                 off.data()};
    // The rows by tier.
    detail::stream_buffer<Index> lists(std::size_t(saxpy_tiers + 1) * std::size_t(rows), st);
    detail::stream_buffer<unsigned long long> counts(saxpy_tiers + 1, st);
    counts.zero();
    masked_saxpy_tiers<Index><<<detail::blocks_for(std::size_t(rows) * 32, 256,
                                                   detail::persistent_blocks(8)),
                                256, 0, st>>>(a.row_ptr(), a.col_idx(), b.row_ptr(),
                                              mask.row_ptr(), rows, lists.data(), counts.data());
    KLEENE_CUDA_CHECK_LAUNCH("masked_saxpy_tiers");
    unsigned long long count[saxpy_tiers + 1] = {};
    detail::copy_to_host(count, counts.data(), saxpy_tiers + 1, st);
    launch_saxpy_tier<S, Index, 0>(p, lists.data(), std::int64_t(count[0]), st);
    launch_saxpy_tier<S, Index, 1>(p, lists.data() + rows, std::int64_t(count[1]), st);
    launch_saxpy_tier<S, Index, 2>(p, lists.data() + 2 * rows, std::int64_t(count[2]), st);
    if (auto const heavy = std::int64_t(count[saxpy_tiers]); heavy > 0) {
        Index const* heavy_rows = lists.data() + saxpy_tiers * rows;
        detail::stream_buffer<std::int64_t> slots(std::size_t(heavy) + 1, st);
        masked_saxpy_table_sizes<Index><<<detail::blocks_for(std::size_t(heavy), 256), 256, 0, st>>>(
            mask.row_ptr(), heavy_rows, heavy, slots.data());
        KLEENE_CUDA_CHECK_LAUNCH("masked_saxpy_table_sizes");
        std::vector<std::int64_t> sizes(std::size_t(heavy) + 1, 0);
        detail::copy_to_host(sizes.data(), slots.data(), std::size_t(heavy), st);
        // The heavy rows' entries of A (where each row's chunks start).
        std::vector<Index> heavy_host(static_cast<std::size_t>(heavy));
        detail::copy_to_host(heavy_host.data(), heavy_rows, std::size_t(heavy), st);
        std::vector<Index> a_ptr_host(std::size_t(rows) + 1);
        detail::copy_to_host(a_ptr_host.data(), a.row_ptr(), std::size_t(rows) + 1, st);
        // Offsets (an exclusive scan on the host: the heavy rows are few) and the batches.
        std::vector<std::int64_t> offs(std::size_t(heavy) + 1, 0);
        for (std::int64_t r = 0; r < heavy; ++r) offs[r + 1] = offs[r] + sizes[r];
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(slots.data(), offs.data(),
                                          offs.size() * sizeof(std::int64_t),
                                          cudaMemcpyHostToDevice, st));
        std::int64_t largest = 0;
        for (std::int64_t r = 0; r < heavy; ++r) largest = std::max(largest, sizes[r]);
        std::int64_t const cap = std::max(saxpy_batch_slots, largest);
        detail::stream_buffer<Index> keys(std::size_t(cap), st);
        detail::stream_buffer<T> vals(std::size_t(cap), st);
        detail::stream_buffer<std::uint8_t> hits(std::size_t(cap), st);
        constexpr int filter_bytes = (1 << bit_filter::log_bits) / 8;
        KLEENE_CUDA_CHECK(cudaFuncSetAttribute(masked_saxpy_global_products<S, Index>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               filter_bytes));
        // Every heavy row's chunks of A's entries, by batch rank (rebuilt a batch).
        std::vector<int> chunk_row;
        std::vector<std::int64_t> chunk_first;
        for (std::int64_t r0 = 0; r0 < heavy;) {
            std::int64_t r1 = r0 + 1;
            while (r1 < heavy && offs[r1 + 1] - offs[r0] <= cap) ++r1;
            chunk_row.clear();
            chunk_first.clear();
            for (std::int64_t r = r0; r < r1; ++r) {
                auto const i = static_cast<std::size_t>(heavy_host[std::size_t(r)]);
                for (std::int64_t e = a_ptr_host[i]; e < std::int64_t(a_ptr_host[i + 1]); e += saxpy_chunk) {
                    chunk_row.push_back(static_cast<int>(r - r0));
                    chunk_first.push_back(e);
                }
            }
            detail::stream_buffer<int> crow(chunk_row.size(), st);
            detail::stream_buffer<std::int64_t> cfirst(chunk_first.size(), st);
            KLEENE_CUDA_CHECK(cudaMemcpyAsync(crow.data(), chunk_row.data(),
                                              chunk_row.size() * sizeof(int),
                                              cudaMemcpyHostToDevice, st));
            KLEENE_CUDA_CHECK(cudaMemcpyAsync(cfirst.data(), chunk_first.data(),
                                              chunk_first.size() * sizeof(std::int64_t),
                                              cudaMemcpyHostToDevice, st));
            auto const nrows = static_cast<unsigned>(r1 - r0);
            masked_saxpy_global_keys<S, Index><<<nrows, saxpy_global_threads, 0, st>>>(
                p, heavy_rows + r0, slots.data() + r0, keys.data(), vals.data(), hits.data());
            KLEENE_CUDA_CHECK_LAUNCH("masked_saxpy_global_keys");
            masked_saxpy_global_products<S, Index>
                <<<static_cast<unsigned>(chunk_row.size()), saxpy_global_threads, filter_bytes,
                   st>>>(
                    p, heavy_rows + r0, slots.data() + r0, crow.data(), cfirst.data(), keys.data(),
                    vals.data(), hits.data());
            KLEENE_CUDA_CHECK_LAUNCH("masked_saxpy_global_products");
            masked_saxpy_global_emit<S, Index><<<nrows, saxpy_global_threads, 0, st>>>(
                p, heavy_rows + r0, slots.data() + r0, keys.data(), vals.data(), hits.data());
            KLEENE_CUDA_CHECK_LAUNCH("masked_saxpy_global_emit");
            // The host's chunk lists are rebuilt for the next batch: their copies must be done.
            detail::end_of_call(st);
            r0 = r1;
        }
    }
    pack_masked_entries<T, Index>(st, mask, rows, b.cols(), val.data(), off.data(),
                                  std::move(t_ptr), t);
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
void masked_saxpy(csr_matrix<typename S::value_type, Index, device>& t,
                  csr_mask<Index> const& mask,
                  csr_matrix<typename S::value_type, Index, device> const& a,
                  csr_matrix<typename S::value_type, Index, device> const& b,
                  sparse_options const& opt) {
    if (!mask.active() || mask.complemented())
        throw invalid_argument(std::string("masked_saxpy: T<M> = A B needs a mask M that is ") +
                               (mask.active() ? "not complemented" : "given") +
                               " (only its entries are accumulated)");
    if (a.cols() != b.rows() || mask.rows() != a.rows() || mask.cols() != b.cols())
        throw dimension_mismatch("masked_saxpy: A (" + kleene::detail::shape(a.rows(), a.cols()) +
                                 ") times B (" + kleene::detail::shape(b.rows(), b.cols()) +
                                 ") under a mask of " +
                                 kleene::detail::shape(mask.rows(), mask.cols()));
    if (opt.backend == sparse_backend::cusparse)
        sparse_detail::no_cusparse("masked_saxpy", "masked Gustavson");
    sparse_detail::masked_saxpy_generic<S, Index>(resolve(opt.ctx), t, mask, a, b);
}

}  // namespace kleene::cuda

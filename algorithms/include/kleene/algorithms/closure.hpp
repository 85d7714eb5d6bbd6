#pragma once
// Transitive closure over lor_land: R(i,j) = 1 when a path of one edge or more joins i to j
// (reflexive: also every (i,i)). Storage is bit-packed in both backends, in bit_matrix's layout
// (rows of ceil(n/64) 64-bit words, bit j % 64 of word j / 64): the CPU runs Warshall's algorithm
// on the rows (row i |= row k where bit (i,k) is set; rows in parallel), the GPU runs R-Kleene
// (rkleene.hpp) with bool_gemm products, or, when the bit matrix does not fit the device (or a
// cap: max_device_bytes, KLEENE_MAX_DEVICE_BYTES), the out-of-core blocked algorithm on bit
// tiles streamed from pinned host memory (apsp_out_of_core.hpp).

#include <kleene/algorithms/apsp_out_of_core.hpp>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/rkleene.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>
#include <kleene/options.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace kleene {

/// A host bit matrix, n x n, in bit_matrix's layout.
struct host_bits {
    std::size_t n = 0;
    std::size_t ld = 0;
    std::vector<std::uint64_t> words;
    bool test(std::size_t i, std::size_t j) const { return (words[i * ld + j / 64] >> (j % 64)) & 1u; }
    void set(std::size_t i, std::size_t j) { words[i * ld + j / 64] |= std::uint64_t{1} << (j % 64); }
};

template <class T, index_type Index>
host_bits to_host_bits(csr_matrix<T, Index> const& a) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("closure: the adjacency matrix must be square, not " +
                                 detail::shape(a.rows(), a.cols()));
    host_bits b{a.rows(), (a.rows() + 63) / 64, {}};
    detail::require_host_memory(("closure: the " + detail::shape(b.n, b.n) + " bit matrix").c_str(),
                                double(b.n) * double(b.ld) * sizeof(std::uint64_t));
    try {
        b.words.assign(b.n * b.ld, 0);
    } catch (std::bad_alloc const&) {
        throw error("closure: allocating the " + detail::shape(b.n, b.n) + " bit matrix failed");
    }
    for (std::size_t i = 0; i < b.n; ++i)
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            b.set(i, static_cast<std::size_t>(a.col_idx()[k]));
    return b;
}

/// Warshall on the CPU, in place: a becomes a+.
inline void closure_cpu(host_bits& a) {
    std::size_t const n = a.n;
    std::size_t const ld = a.ld;
    for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t const* rk = a.words.data() + k * ld;
        std::size_t const kw = k / 64;
        std::uint64_t const kb = std::uint64_t{1} << (k % 64);
#pragma omp parallel for schedule(static) if (n >= 512)
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t* ri = a.words.data() + i * ld;
            if (i == k || !(ri[kw] & kb)) continue;
            for (std::size_t w = 0; w < ld; ++w) ri[w] |= rk[w];
        }
    }
}

/// R-Kleene on the GPU, in place: a becomes a+ (copies to the device and back). Past the device
/// budget (free memory, and the cap max_device_bytes or the context's when set) it
/// runs out of core instead; `explain` says which.
inline void closure_gpu(host_bits& a, std::size_t max_device_bytes = 0,
                        explain_trace* explain = nullptr, context* ctx = nullptr) {
    detail::device_budget const budget = detail::gpu_budget(max_device_bytes, ctx);
    double const bytes = double(a.words.size()) * sizeof(std::uint64_t);
    // In core: the matrix and R-Kleene's workspace (a quarter of it).
    bool const fits = bytes * 1.25 + (64u << 20) < double(budget.free) &&
                      (budget.cap == 0 || bytes * 1.25 <= double(budget.cap));
    if (explain)
        explain->add("closure: the bit matrix needs " + detail::mib(bytes) +
                     " (+25% workspace) in core; " + budget.str() +
                     (fits ? ": in core" : ": out of core"));
    if (!fits) {
        ooc_options o;
        o.device_bytes = budget.bytes;
        o.explain = explain;
        o.ctx = ctx;
        closure_out_of_core(a.words.data(), a.n, a.ld, o);
        return;
    }
    cuda::bit_matrix d(a.n, a.n);
    if (d.ld() != a.ld) throw invalid_argument("closure_gpu: unexpected bit_matrix layout");
    detail::copy_bytes<device, host>(d.data(), a.words.data(), a.words.size() * sizeof(std::uint64_t));
    rkleene(d);
    detail::copy_bytes<host, device>(a.words.data(), d.data(), a.words.size() * sizeof(std::uint64_t));
}

struct closure_options {
    bool reflexive = false;
    device_choice device = device_choice::automatic;
    /// Device bytes the GPU path may use (0: no cap; see apsp_options::max_device_bytes).
    std::size_t max_device_bytes = 0;
    explain_trace* explain = nullptr;
    /// The device cap when max_device_bytes is 0 (tuning::max_device_bytes); null:
    /// default_context().
    context* ctx = nullptr;
};

/// The closure as a bit matrix. Device `automatic` takes the GPU when there is one and n >= 2048
/// (below that the CPU's Warshall, O(n^3 / 64) word operations, finishes in milliseconds).
template <class T, index_type Index>
host_bits closure_bits(csr_matrix<T, Index> const& a, closure_options const& opt = {}) {
    host_bits b = to_host_bits(a);
    bool gpu = opt.device == device_choice::gpu;
    if (opt.device == device_choice::automatic) gpu = b.n >= 2048 && cuda::device_count() > 0;
    if (gpu) closure_gpu(b, opt.max_device_bytes, opt.explain, opt.ctx);
    else closure_cpu(b);
    if (opt.reflexive)
        for (std::size_t i = 0; i < b.n; ++i) b.set(i, i);
    if (opt.explain)
        opt.explain->add("closure: n=" + std::to_string(b.n) + ", nnz=" + std::to_string(a.nnz()) +
                         (gpu ? ": bit-packed R-Kleene on the GPU" : ": bitset Warshall on the CPU") +
                         (opt.device == device_choice::automatic ? " (auto: n >= 2048 and a GPU)"
                                                                 : " (pinned)"));
    return b;
}

/// The closure as a pattern CSR matrix.
template <class T, index_type Index>
csr_matrix<bool, std::int64_t> closure(csr_matrix<T, Index> const& a, closure_options const& opt = {}) {
    host_bits const b = closure_bits(a, opt);
    buffer<std::int64_t> ptr(b.n + 1);
    ptr[0] = 0;
    std::size_t nnz = 0;
    for (std::size_t i = 0; i < b.n; ++i) {
        for (std::size_t w = 0; w < b.ld; ++w) nnz += static_cast<std::size_t>(std::popcount(b.words[i * b.ld + w]));
        ptr[i + 1] = static_cast<std::int64_t>(nnz);
    }
    buffer<std::int64_t> cols(nnz);
    std::size_t p = 0;
    for (std::size_t i = 0; i < b.n; ++i)
        for (std::size_t w = 0; w < b.ld; ++w)
            for (std::uint64_t x = b.words[i * b.ld + w]; x; x &= x - 1)
                cols[p++] = static_cast<std::int64_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(x)));
    return {b.n, b.n, std::move(ptr), std::move(cols), buffer<bool>(), true, true};
}

}  // namespace kleene

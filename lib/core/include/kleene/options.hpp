#pragma once
// Options shared by every operation, masks and accumulators (GraphBLAS semantics), and the
// explain trace that reports which kernel ran and why.

#include <kleene/context.hpp>
#include <kleene/semiring.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kleene {

/// Where an operation runs. `automatic` picks the GPU for device containers, the CPU for host
/// ones; asking for a device the data is not on, or a GPU that is not there, is an error.
enum class device_choice { automatic, cpu, gpu };

/// Kernels the caller may pin instead of letting the dispatcher choose.
enum class kernel_choice {
    automatic,
    dense_gemm,        ///< dense x dense, blocked register-tiled GEMM
    csr_dense,         ///< CSR x dense (SpMM, row-wise)
    dense_csr,         ///< dense x CSR (rows of A scatter rows of B)
    gustavson_dense,   ///< CSR x CSR, Gustavson with a dense accumulator per thread
    gustavson_hash,    ///< CSR x CSR, Gustavson with a hash accumulator per row
    spmv_pull,         ///< matrix x dense vector, one dot product per output entry
    spmspv_push,       ///< sparse vector x matrix, scatter rows of the matrix
    masked_dot,        ///< C<M> = A B': a dot product for each entry of the mask (CPU, GPU)
};

std::string_view to_string(kernel_choice k);

/// Called by long CPU work between its steps (apsp's R-Kleene products and Floyd-Warshall rounds,
/// BFS levels, Bellman-Ford rounds), never inside a parallel region. It may throw to abandon the
/// call (the Python bindings raise KeyboardInterrupt through it on Ctrl-C). Empty: not called.
using step_hook = std::function<void()>;

namespace detail {
inline void step(step_hook const& hook) {
    if (hook) hook();
}
}  // namespace detail

/// Storage of a product written into a kleene::matrix: chosen by density, or pinned.
enum class output_choice { automatic, csr, dense };

/// Collects one line per decision (kernel, reason, sizes). Pass one through options::explain.
struct explain_trace {
    std::vector<std::string> lines;
    void add(std::string line) { lines.push_back(std::move(line)); }
    std::string str() const {
        std::string s;
        for (auto const& l : lines) (s += l) += '\n';
        return s;
    }
};

struct options {
    /// GraphBLAS replace: entries of the output outside the mask are deleted.
    bool replace = false;
    device_choice device = device_choice::automatic;
    kernel_choice kernel = kernel_choice::automatic;
    /// When set, each operation appends the kernel it chose and why.
    explain_trace* explain = nullptr;
    /// CSR x CSR into a CSR output: rows whose estimated output density passes this use the
    /// dense accumulator and are emitted in column order without sorting (measured, see docs).
    double dense_row_threshold = 0.05;
    /// Products into a kleene::matrix are stored dense when the estimated fraction of entries
    /// present reaches this (dense storage then costs less than CSR's index arrays and sorting).
    double dense_output_threshold = 0.25;
    output_choice output_format = output_choice::automatic;
    /// Frontier density (nnz / n) above which vector products switch from push to pull.
    double pull_threshold = 0.05;
    /// Where and how it runs: stream, device resources, OpenMP threads, tuning (context.hpp).
    /// Null: default_context(), the calling thread's.
    context* ctx = nullptr;
};

// ---- masks --------------------------------------------------------------------------------------

/// A mask over the output: entry (i, j) may be written when the mask has an entry there
/// (structural) or an entry whose value is non-zero (valued); complemented inverts that.
/// Dense masks hold every entry, so their structure is all of them.
template <class M>
struct mask_view {
    M const* m;
    bool structural = false;
    bool complemented = false;
};

/// Valued mask: an entry allows a write when it is stored and non-zero.
template <class M>
mask_view<M> mask(M const& m) { return {&m, false, false}; }
/// Structural mask: an entry allows a write when it is stored, whatever its value.
template <class M>
mask_view<M> structure(M const& m) { return {&m, true, false}; }
template <class M>
mask_view<M> complement(mask_view<M> v) { return {v.m, v.structural, !v.complemented}; }
template <class M>
mask_view<M> complement(M const& m) { return {&m, false, true}; }

struct no_mask_t {};
inline constexpr no_mask_t no_mask{};

/// No accumulator: the result replaces the output's entries (inside the mask).
struct no_accum_t {};
inline constexpr no_accum_t no_accum{};

template <class A>
concept accumulator_type = std::same_as<A, no_accum_t> || binary_op_type<A>;

template <class M>
inline constexpr bool is_mask_view = false;
template <class M>
inline constexpr bool is_mask_view<mask_view<M>> = true;

template <class M>
concept mask_type = std::same_as<M, no_mask_t> || is_mask_view<M>;

inline std::string_view to_string(kernel_choice k) {
    switch (k) {
        case kernel_choice::automatic: return "automatic";
        case kernel_choice::dense_gemm: return "dense_gemm";
        case kernel_choice::csr_dense: return "csr_dense";
        case kernel_choice::dense_csr: return "dense_csr";
        case kernel_choice::gustavson_dense: return "gustavson_dense";
        case kernel_choice::gustavson_hash: return "gustavson_hash";
        case kernel_choice::spmv_pull: return "spmv_pull";
        case kernel_choice::spmspv_push: return "spmspv_push";
        case kernel_choice::masked_dot: return "masked_dot";
    }
    return "unknown";
}

}  // namespace kleene

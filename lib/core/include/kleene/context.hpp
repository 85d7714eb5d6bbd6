#pragma once
// kleene::context: where and how operations run, in the spirit of a cuBLAS handle or a Kokkos
// execution space instance. It holds
//   - the CUDA device and stream the GPU work goes to (stream null: the legacy default stream),
//   - device resources created on first use and kept: the cuBLAS and cuSPARSE handles, the
//     device workspace of the dense GEMM (caller-supplied, or grown by the library), scratch of
//     the sparse products and CUB, the int the GEMM's range checks leave their verdict in, two
//     page-locked host buffers through which large results come back (cuda/result_copy.hpp),
//   - the number of OpenMP threads the CPU kernels use (0: OpenMP's default),
//   - tuning knobs (kleene::tuning): every setting that was a global or an environment variable.
//
// Operations take one through options::ctx (algorithms through their own options' ctx); null
// means default_context(): one context per host thread and CUDA device, created on first use.
// That default is the only per-thread state the library keeps; it is never shared between
// threads, and a caller who wants other settings passes a context of its own. A context is not
// thread-safe (like a cuBLAS handle): one thread uses it at a time.
//
// No header here needs CUDA: the device resources sit behind an opaque pointer
// (kleene/detail/device_state.hpp). The environment is read by one function only,
// context_from_environment() (kleene/environment.hpp), which the CLI and the benches call.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace kleene {

/// Out-of-core APSP: blocked Floyd-Warshall or R-Kleene (automatic: the lower modelled time).
enum class ooc_algorithm { automatic, floyd_warshall, rkleene };

/// How GPU betweenness runs the levels of graphs with few edges a vertex (at most 8 on average:
/// road networks, meshes; over a thousand small levels): automatic (the measured choice,
/// docs/performance.md), chained (push levels queued 32 at a time by the host, one kernel a
/// level, a kernel a level backward) or cooperative (the whole batch, forward and backward, in
/// one cooperative kernel with a grid barrier between levels; chained where the device cannot
/// launch it or the graph has rows of over 4,096 entries).
enum class bc_level_loop { automatic, chained, cooperative };

/// Settings that change how, never what, the library computes. The defaults are the measured
/// choices (docs/performance.md); tests and benchmarks change them on a context of their own.
struct tuning {
    /// plus_times over float and double runs through cuBLAS (false: the generic GEMM kernel).
    bool use_cublas = true;
    /// min_plus / max_plus GEMMs of few blocks split k so that about this many blocks run
    /// (0: no split; at most cuda::gemm_detail::max_split_k_blocks = 128).
    int split_k_blocks = 128;
    /// GEMMs of fewer updates (m n k) skip the checked fast paths (int32 DPX, fp32 non-negative);
    /// tests set 0 to reach them with small shapes.
    std::size_t checked_min_updates = std::size_t(1) << 27;
    /// Blocks a SM of the cooperative BFS loop: 2 or 4 (KLEENE_BFS_LOOP_BLOCKS).
    int bfs_loop_blocks = 2;
    /// GPU betweenness's levels on graphs of at most 8 edges a vertex (bc_level_loop above).
    kleene::bc_level_loop bc_loop = kleene::bc_level_loop::automatic;
    /// Device bytes the GPU paths of apsp, closure and the out-of-core runs may use when their
    /// own options set none (0: no cap; KLEENE_MAX_DEVICE_BYTES).
    std::size_t max_device_bytes = 0;
    /// Out-of-core APSP when its options leave it open (KLEENE_OOC_ALGORITHM, KLEENE_OOC_BLOCK,
    /// KLEENE_OOC_WIDTH, KLEENE_OOC_TILE, KLEENE_OOC_DEPTH; 0: chosen by the model).
    kleene::ooc_algorithm ooc_method = kleene::ooc_algorithm::automatic;
    std::size_t ooc_block = 0;
    std::size_t ooc_width = 0;
    std::size_t ooc_tile = 0;
    std::size_t ooc_depth = 0;
    /// R-Kleene out of core: profile its work by kind (KLEENE_OOC_PROFILE), and write every span
    /// to this file (KLEENE_OOC_TIMELINE; empty: none).
    bool ooc_profile = false;
    std::string ooc_timeline;
    /// Directory of the JIT's compiled kernels (kleene/cuda/jit.hpp), shared by processes
    /// (KLEENE_JIT_CACHE; empty: kernels are kept in the context only, compiled once per context).
    std::string jit_cache;
};

namespace detail {
struct device_state;
struct device_state_deleter {
    void operator()(device_state* s) const noexcept;
};
}  // namespace detail

class context {
public:
    /// A context for CUDA device `device` (nothing is created on the device until it is used).
    explicit context(int device = 0);
    ~context();
    context(context&&) noexcept;
    context& operator=(context&&) noexcept;
    context(context const&) = delete;
    context& operator=(context const&) = delete;

    int device() const noexcept { return device_; }

    /// The cudaStream_t GPU work is enqueued on (null: the legacy default stream). Not owned.
    /// Calls documented as synchronous still return after their work on it has finished.
    void* stream() const noexcept { return stream_; }
    void set_stream(void* cuda_stream) noexcept { stream_ = cuda_stream; }

    /// OpenMP threads of the CPU kernels (0: OpenMP's default, omp_get_max_threads()).
    int threads() const noexcept { return threads_; }
    void set_threads(int n);

    /// Device workspace for the dense GEMM's packed operand and split-k partial products.
    /// Caller-supplied: `bytes` at `data` (device memory the caller keeps alive and does not touch
    /// while work on this context may run); size it with cuda::dense_gemm_scratch_bytes(m, k, n,
    /// sizeof(T)) for the largest product (a product that needs more throws invalid_argument).
    /// Null data: the library allocates and grows its own (the default).
    void set_workspace(void* data, std::size_t bytes) noexcept;
    /// The caller's workspace size, or the bytes the library's own has grown to.
    std::size_t workspace_bytes() const noexcept;
    bool workspace_supplied() const noexcept { return user_workspace_ != nullptr; }

    /// The stream-ordered memory pool (a cudaMemPool_t of this context's device) that the GPU
    /// calls' temporaries come from: the graph kernels', the operations' (sorts, scans, partial
    /// sums), the sparse products' and the dense GEMM's scratch the context keeps. Caller-
    /// supplied: kept alive by the caller as long as the context (the context keeps scratch
    /// blocks from it until it goes), its release threshold the caller's. Null (the default): the
    /// context's own, created on first use, which keeps up to memory_pool_keep() bytes of what its
    /// calls free for the next call (the rest goes back to the driver at the next
    /// synchronisation); cuda::trim_memory_pool(ctx) hands what it keeps back.
    void set_memory_pool(void* cuda_mem_pool) noexcept { user_pool_ = cuda_mem_pool; }
    void* supplied_memory_pool() const noexcept { return user_pool_; }
    /// How many bytes of freed memory the context's own pool keeps for later calls (its release
    /// threshold, cudaMemPoolAttrReleaseThreshold): above it, freed memory goes back to the
    /// driver at the next synchronisation (for APSP, R-Kleene and the predecessors, before they
    /// return: they wait on their stream after freeing their large temporaries). std::nullopt (the
    /// default): the library's default (kleene/cuda/memory_pool.hpp). SIZE_MAX keeps everything
    /// (a caller who repeats large calls), 0 nothing (the driver's default pool's behaviour).
    /// Applied at the context's next call on the device.
    void set_memory_pool_keep(std::optional<std::size_t> bytes) noexcept { pool_keep_ = bytes; }
    std::optional<std::size_t> memory_pool_keep() const noexcept { return pool_keep_; }

    tuning tune;

    /// The backend's device resources (created on first use). Not for users. Every GPU call
    /// reaches them (or the caller's pool) through require_current_device() first.
    detail::device_state& state();
    /// Throws invalid_argument unless this context's device is the calling thread's current CUDA
    /// device: its stream, pool, handles and workspace belong to its device, and the library's
    /// kernels run on the current one. A GPU call on a context of another device is refused
    /// before anything is enqueued (make the device current with cudaSetDevice first).
    void require_current_device() const;
    /// The caller's workspace (null when none was supplied).
    void* supplied_workspace() const noexcept { return user_workspace_; }

private:
    int device_ = 0;
    void* stream_ = nullptr;
    int threads_ = 0;
    void* user_workspace_ = nullptr;
    std::size_t user_workspace_bytes_ = 0;
    void* user_pool_ = nullptr;
    std::optional<std::size_t> pool_keep_;
    std::unique_ptr<detail::device_state, detail::device_state_deleter> state_;
};

/// The calling thread's context for the current CUDA device (device 0 without CUDA), created on
/// first use with default settings and kept until the thread ends.
context& default_context();

/// `c`, or the default context when c is null.
inline context& resolve(context* c) { return c ? *c : default_context(); }

namespace detail {
/// Sets the calling thread's OpenMP thread count to ctx.threads() for a scope (when non-zero)
/// and restores it after: omp_set_num_threads changes only the calling thread's setting.
class thread_scope {
public:
    explicit thread_scope(context const& ctx);
    explicit thread_scope(context const* ctx);
    ~thread_scope();
    thread_scope(thread_scope const&) = delete;
    thread_scope& operator=(thread_scope const&) = delete;

private:
    int saved_ = 0;
};
}  // namespace detail

}  // namespace kleene

#pragma once
// The JIT: device kernels for semirings the library was not compiled with, built at run time by
// NVRTC (the CUDA toolkit's runtime compiler, loaded with dlopen: no nvcc, and a clear error when
// it is missing) into an on-disk cache, in the spirit of SuiteSparse:GraphBLAS's JIT.
//
//   kleene::cuda::jit::semiring_source s;          // a semiring as source text
//   s.name = "max_times_f";  s.value_type = "float";
//   s.zero = "0.0f";  s.one = "1.0f";
//   s.add = "a > b ? a : b";  s.mul = "a * b";  s.idempotent_add = true;
//   kleene::context ctx;  ctx.tune.jit_cache = "/var/cache/kleene";   // empty: memory only
//   kleene::cuda::jit::spmv(w, {}, A, u, s, {.ctx = &ctx});
//   kleene::cuda::jit::dense_gemm(a, b, c, false, s, ctx);
//   kleene::cuda::jit::spgemm(C, A, B, s, {.ctx = &ctx});
//   kleene::cuda::jit::closure(d, s, false, ctx);  // A+ of a dense device matrix, in place
//
// What NVRTC compiles is the same kernel source the library's own instances come from
// (sparse/spmv_kernels.cuh, sparse/spgemm_kernels.cuh, dense_gemm/kernels.cuh), instantiated for
// the given semiring, and the semiring closure's own kernels (closure_kernels.cuh): the
// headers travel inside the library, so nothing but NVRTC is needed at run time. A built-in
// semiring works through the JIT too (builtin()), which is how a build with
// KLEENE_INSTANCES=minimal serves the pairs it left out.
//
// Cache (kleene::tuning::jit_cache, the CLI's KLEENE_JIT_CACHE): a compiled kernel is found first
// in the context (loaded modules, per device), then in the cache directory, else compiled and
// written there. An entry's key covers the kernel family, the semiring's full source, the value
// and index types, the compute capability, kleene's version, the kernel sources and the NVRTC
// version; the entry holds its key and a checksum, so a corrupt, truncated or colliding entry is
// detected and rebuilt. Entries are written to a temporary file and renamed into place: processes
// sharing a directory never see a partial entry, and racing writers leave one whole entry.

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_entry.hpp>
#include <kleene/memory.hpp>
#include <kleene/options.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kleene::cuda::jit {

/// A semiring given as CUDA C++ source text. value_type is one of float, double, int32_t,
/// int64_t; zero, one and terminal are expressions of it; add and mul are expressions in `a` and
/// `b` (both value_type). preamble is placed before the semiring (helper __device__ functions,
/// constants). The traits mean what semiring.hpp's do: idempotent_add (a + a == a: min, max, or),
/// terminal (an absorbing value of add that lets a sum stop early; empty: none), and
/// zero_annihilates (mul(zero, x) == zero for every x; false is always correct, true lets dense
/// kernels skip a test).
struct semiring_source {
    std::string name;
    std::string value_type;
    std::string zero;
    std::string one;
    std::string add;
    std::string mul;
    std::string terminal;
    bool idempotent_add = false;
    bool zero_annihilates = false;
    std::string preamble;
    /// Set by builtin(): the C++ type of a built-in semiring (then the fields above are unused).
    std::string builtin_type;
};

/// Where a kernel came from, and what it cost.
struct report {
    enum class origin { memory, disk, compiled };
    origin from = origin::compiled;
    double compile_ms = 0;  ///< NVRTC, when it ran
    double load_ms = 0;     ///< reading the cache entry and loading it onto the device
    std::string key;        ///< the cache key (hex)
    std::string file;       ///< the cache entry (empty without a cache directory)
    std::string note;       ///< e.g. "a corrupt entry was rebuilt"
};

/// Kernel families the JIT builds.
enum class family { spmv, gemm, spgemm, closure };

/// The largest diagonal block the closure family's base kernel closes (in shared memory).
inline constexpr std::size_t closure_block_side = 64;

// Without CUDA (KLEENE_HAVE_CUDA unset) every entry below throws no_device.
KLEENE_DEVICE_ENTRIES_BEGIN

/// A built-in semiring by name (semiring.hpp's builtin_semiring_names) over a value type (float,
/// double, int32_t, int64_t): compiled by the JIT from the same header as the library's own.
KLEENE_DEVICE_ENTRY semiring_source builtin(std::string_view name, std::string_view value_type)
    KLEENE_DEVICE_VALUE;

/// A semiring composed of semiring.hpp's operators by name: the additive monoid (plus, times,
/// min, max, lor, land, any) and the multiplicative operator (plus, times, min, max, land, lor,
/// first, second, pair), over a value type; "min", "plus" is min_plus. The traits follow the
/// monoid (idempotent: min, max, lor, land, any).
KLEENE_DEVICE_ENTRY semiring_source compose(std::string_view add, std::string_view mul,
                                            std::string_view value_type) KLEENE_DEVICE_VALUE;

/// The source NVRTC compiles for s, the semiring as the type `kleene_jit::semiring`. Throws
/// invalid_argument on an unknown value type, a name that is not an identifier, or an empty add,
/// mul, zero or one.
KLEENE_DEVICE_ENTRY std::string semiring_text(semiring_source const& s) KLEENE_DEVICE_VALUE;

/// One line for an explain trace: where the kernel came from and what it cost.
KLEENE_DEVICE_ENTRY std::string describe(report const& r) KLEENE_DEVICE_VALUE;

/// The NVRTC version as major * 1000 + minor * 10 (the CUDA version it belongs to); throws
/// device_error, naming the library it looked for, when NVRTC cannot be loaded.
KLEENE_DEVICE_ENTRY int nvrtc_version() KLEENE_DEVICE_VALUE;

/// Compiles (or finds in cache_dir; empty: no disk cache) the kernels of family f for s, index
/// type index_type (int32_t or int64_t; ignored by gemm) and compute capability cc (90 for sm_90)
/// and returns the cubin. Needs NVRTC but no device: the cache can be filled ahead of time.
KLEENE_DEVICE_ENTRY std::vector<char> compile(family f, semiring_source const& s,
                                              std::string_view index_type, int cc,
                                              std::string const& cache_dir, report* r = nullptr)
    KLEENE_DEVICE_VALUE;

/// w<mask, replace> (+)= A (+).(x) u over s, exactly as kleene::cuda::spmv (the generic kernel;
/// the context's stream, scratch and JIT modules, opt.ctx). T must be s's value type.
template <class T, class Index>
KLEENE_DEVICE_ENTRY void spmv(dense_vector<T, device>& w, vector_mask const& mask,
                              csr_matrix<T, Index, device> const& a,
                              dense_vector<T, device> const& u, semiring_source const& s,
                              sparse_options const& opt = {}, report* r = nullptr)
    KLEENE_DEVICE_BODY;

/// C = A (+).(x) B into CSR over s, exactly as kleene::cuda::spgemm (the generic kernels: count
/// pass, tiered hash accumulators, segmented sort), on the context's stream (opt.ctx).
template <class T, class Index>
KLEENE_DEVICE_ENTRY void spgemm(csr_matrix<T, Index, device>& c, csr_matrix<T, Index, device> const& a,
                                csr_matrix<T, Index, device> const& b, semiring_source const& s,
                                sparse_options const& opt = {}, report* r = nullptr)
    KLEENE_DEVICE_BODY;

/// C = [C (+)] A (+).(x) B over s, exactly as kleene::cuda::dense_gemm (its generic paths: the
/// staged kernel for 4-byte types with aligned rows, the register-tiled one otherwise), on the
/// context's stream; returns when C is written. T must be s's value type.
template <class T>
KLEENE_DEVICE_ENTRY void dense_gemm(dense_view<T const, device> a, dense_view<T const, device> b,
                                    dense_view<T, device> c, bool accumulate,
                                    semiring_source const& s, context& ctx, report* r = nullptr)
    KLEENE_DEVICE_BODY;

/// The closure A+ (A* with `reflexive`: the diagonal set to one) of the square matrix a in place
/// over s, which must have an idempotent add (kleene/algorithms/semiring_closure.hpp says when the
/// result is exact, and the checks): R-Kleene's recursion with this JIT's dense GEMM for the
/// products and the closure family's kernels for the rest (Floyd-Warshall's recurrence on
/// diagonal blocks of at most `base` in shared memory; 0 or more than closure_block_side:
/// closure_block_side). Everything is enqueued on ctx's stream, which the call waits on only to
/// read back its checks' flags. Throws dimension_mismatch (not square), invalid_argument (add not
/// idempotent, a built-in multiply without identity, a NaN entry in the input or made by the
/// operations) and negative_cycle (a diagonal entry d with add(one, d) != one, naming the
/// smallest such vertex). T must be s's value type.
template <class T>
KLEENE_DEVICE_ENTRY void closure(dense_view<T, device> a, semiring_source const& s, bool reflexive,
                                 context& ctx, std::size_t base = 0, report* r = nullptr)
    KLEENE_DEVICE_BODY;

KLEENE_DEVICE_ENTRIES_END

}  // namespace kleene::cuda::jit

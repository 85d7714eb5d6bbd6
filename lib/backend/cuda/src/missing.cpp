// The builtin pairs this build leaves out (KLEENE_INSTANCES=minimal; kleene/instance_lists.hpp):
// their specialisations are declared in sparse.hpp and dense_gemm.hpp, so that a program that
// names one still links. The JIT serves SpMV, SpGEMM into CSR and the dense GEMM over float,
// double, int32 and int64 (kleene/cuda/jit.hpp: NVRTC compiles the same kernels on first use);
// the bool pairs, the other products
// (SpMSpV, SpMM, SpGEMM into a dense C, the masked dot products) and the GEMM's stream form throw
// kleene::missing_instance with the pair and the instance set that has it.

#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/instances.hpp>

namespace kleene::cuda {

/// The value types the JIT builds (jit.hpp); the registry's bool pairs keep throwing.
template <class T>
inline constexpr bool jit_value = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                  std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

#define KLEENE_LEFT_OUT_THROW(f, what, wanted)                                                    \
    ::kleene::detail::throw_missing_instance("kleene::cuda::" f " for " what, wanted,            \
                                             "the CUDA backend")

#define KLEENE_SPARSE_THROWING(A, f, R, params, S, T, Index) \
    template <>                                              \
    R f<S<T>, Index> params {                                \
        KLEENE_LEFT_OUT_CALL(#f, KLEENE_LEFT_OUT_ARGS A);    \
    }
#define KLEENE_LEFT_OUT_ARGS(what, wanted) what, wanted
#define KLEENE_LEFT_OUT_CALL(...) KLEENE_LEFT_OUT_THROW(__VA_ARGS__)
#define KLEENE_SPARSE_LEFT_OUT(S, T, Index, s, t, i, wanted)                                       \
    template <>                                                                                   \
    sparse_backend spmv<S<T>, Index>(dense_vector<T, device> & w, vector_mask const& mask,        \
                                     csr_matrix<T, Index, device> const& a,                       \
                                     dense_vector<T, device> const& u, sparse_options const& opt) { \
        if constexpr (jit_value<T>) {                                                             \
            jit::spmv<T, Index>(w, mask, a, u, jit::builtin(s, t), opt);                          \
            return sparse_backend::generic;                                                       \
        } else {                                                                                  \
            KLEENE_LEFT_OUT_THROW("spmv", s " over " t " with " i " indices", wanted);            \
        }                                                                                         \
    }                                                                                             \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), spmspv, void,            \
                           (sparse_vector<T, Index, device>&, vector_mask const&,                 \
                            sparse_vector<T, Index, device> const&,                               \
                            csr_matrix<T, Index, device> const&, context*),                       \
                           S, T, Index)                                                           \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), spmm, sparse_backend,    \
                           (dense_view<T, device>, csr_matrix<T, Index, device> const&,           \
                            dense_view<T const, device>, sparse_options const&),                  \
                           S, T, Index)                                                           \
    template <>                                                                                   \
    sparse_backend spgemm<S<T>, Index>(csr_matrix<T, Index, device> & c,                          \
                                       csr_matrix<T, Index, device> const& a,                     \
                                       csr_matrix<T, Index, device> const& b,                     \
                                       sparse_options const& opt) {                               \
        if constexpr (jit_value<T>) {                                                             \
            jit::spgemm<T, Index>(c, a, b, jit::builtin(s, t), opt);                              \
            return sparse_backend::generic;                                                       \
        } else {                                                                                  \
            KLEENE_LEFT_OUT_THROW("spgemm", s " over " t " with " i " indices", wanted);          \
        }                                                                                         \
    }                                                                                             \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), spgemm_dense,            \
                           sparse_backend,                                                        \
                           (dense_view<T, device>, csr_matrix<T, Index, device> const&,           \
                            csr_matrix<T, Index, device> const&, sparse_options const&),          \
                           S, T, Index)                                                           \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), masked_dot, void,        \
                           (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                \
                            csr_matrix<T, Index, device> const&,                                  \
                            csr_matrix<T, Index, device> const&, sparse_options const&),          \
                           S, T, Index)                                                           \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), masked_saxpy, void,      \
                           (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                \
                            csr_matrix<T, Index, device> const&,                                  \
                            csr_matrix<T, Index, device> const&, sparse_options const&),          \
                           S, T, Index)                                                           \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), masked_spmm, void,       \
                           (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                \
                            csr_matrix<T, Index, device> const&, dense_view<T const, device>,     \
                            sparse_options const&),                                               \
                           S, T, Index)                                                           \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), masked_gemm, void,       \
                           (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                \
                            dense_view<T const, device>, dense_view<T const, device>,             \
                            sparse_options const&),                                               \
                           S, T, Index)                                                           \
    KLEENE_SPARSE_THROWING((s " over " t " with " i " indices", wanted), masked_dot_dense, void,  \
                           (csr_matrix<T, Index, device>&, csr_mask<Index> const&,                \
                            dense_view<T const, device>, csr_matrix<T, Index, device> const&,     \
                            sparse_options const&),                                               \
                           S, T, Index)

#define KLEENE_GEMM_LEFT_OUT(S, T, s, t, wanted)                                                   \
    template <>                                                                                   \
    void dense_gemm<S<T>>(dense_view<T const, device> a, dense_view<T const, device> b,           \
                          dense_view<T, device> c, bool accumulate) {                             \
        jit::dense_gemm<T>(a, b, c, accumulate, jit::builtin(s, t), default_context());           \
    }                                                                                             \
    template <>                                                                                   \
    void dense_gemm<S<T>>(dense_view<T const, device>, dense_view<T const, device>,               \
                          dense_view<T, device>, bool, stream const&, context*) {                 \
        KLEENE_LEFT_OUT_THROW("dense_gemm (the stream form)", s " over " t, wanted);              \
    }                                                                                             \
    template <>                                                                                   \
    void dense_gemm<S<T>>(dense_view<T const, device> a, dense_view<T const, device> b,           \
                          dense_view<T, device> c, bool accumulate, context& ctx) {               \
        jit::dense_gemm<T>(a, b, c, accumulate, jit::builtin(s, t), ctx);                         \
    }                                                                                             \
    /* The JIT's product computes all of C, which the sampled form allows. */                     \
    template <>                                                                                   \
    void dense_gemm<S<T>>(dense_view<T const, device> a, dense_view<T const, device> b,           \
                          dense_view<T, device> c, dense_mask const& sample, context& ctx) {      \
        sample.require_size(c.rows, c.cols, "dense_gemm");                                        \
        jit::dense_gemm<T>(a, b, c, false, jit::builtin(s, t), ctx);                              \
    }

KLEENE_SPARSE_MISSING(KLEENE_SPARSE_LEFT_OUT)
KLEENE_GEMM_MISSING(KLEENE_GEMM_LEFT_OUT)

}  // namespace kleene::cuda

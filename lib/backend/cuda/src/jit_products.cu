// The JIT's launchers (kleene/cuda/jit.hpp): the kernels come from jit.cpp (NVRTC, the cache),
// the host side is the library's own (spmv_launch, the GEMM's enqueue_staged_with and
// launch_gemm_with), so a JIT product is the library's product with another semiring.

#include <kleene/cuda/dense_gemm.cuh>
#include <kleene/cuda/detail/jit_modules.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/cuda/sparse.cuh>

#include <cstdint>

namespace kleene::cuda::jit {

template <class T, class Index>
void spmv(dense_vector<T, device>& w, vector_mask const& mask, csr_matrix<T, Index, device> const& a,
          dense_vector<T, device> const& u, semiring_source const& s, sparse_options const& opt,
          report* r) {
    using namespace sparse_detail;
    detail::check_value_type(s, detail::cpp_name<T>(), "spmv");
    context& ctx = resolve(opt.ctx);
    check_spmv_operands(w, mask, a, u);
    if (opt.backend == sparse_backend::cusparse) no_cusparse("jit::spmv", "a JIT semiring");
    report own;
    if (!r && opt.explain) r = &own;
    auto const& k = detail::kernels(ctx, family::spmv, s, detail::cpp_name<Index>(), r);
    if (opt.explain) opt.explain->add("spmv over " + s.name + ": " + describe(*r));
    spmv_launch<T, Index>(ctx, spmv_kernels{k[0], k[1], k[2], k[3]}, w, ref(mask, ctx), a, u,
                          opt.accumulate, opt.replace);
}

template <class T, class Index>
void spgemm(csr_matrix<T, Index, device>& c, csr_matrix<T, Index, device> const& a,
            csr_matrix<T, Index, device> const& b, semiring_source const& s,
            sparse_options const& opt, report* r) {
    using namespace sparse_detail;
    detail::check_value_type(s, detail::cpp_name<T>(), "spgemm");
    context& ctx = resolve(opt.ctx);
    check_spgemm_operands(a, b);
    if (opt.backend == sparse_backend::cusparse) no_cusparse("jit::spgemm", "a JIT semiring");
    report own;
    if (!r && opt.explain) r = &own;
    auto const& k = detail::kernels(ctx, family::spgemm, s, detail::cpp_name<Index>(), r);
    if (opt.explain) opt.explain->add("spgemm over " + s.name + ": " + describe(*r));
    spgemm_launch<T, Index>(ctx, spgemm_kernels{{k[0], k[1], k[2]}, k[3]}, c, a, b);
}

template <class T>
void detail::enqueue_dense_gemm(dense_view<T const, device> a, dense_view<T const, device> b,
                                dense_view<T, device> c, bool accumulate, semiring_source const& s,
                                context& ctx, report* r) {
    using namespace gemm_detail;
    detail::check_value_type(s, detail::cpp_name<T>(), "dense_gemm");
    check_shapes<T>(a, b, c);
    if (c.rows == 0 || c.cols == 0) return;
    auto const& k = detail::kernels(ctx, family::gemm, s, "int32_t", r);
    auto const st = static_cast<cudaStream_t>(ctx.stream());
    bool staged = false;
    if constexpr (has_staged_path<T>) staged = rows_aligned<T>(b);
    if (staged) {
        // An idempotent add (min, max, or) is exact in any order: the product may split k.
        k_split const ks = s.idempotent_add
                               ? plan_k_split(c.rows, a.cols, c.cols, sizeof(T),
                                              ctx.tune.split_k_blocks)
                               : k_split{};
        void* const p = context_workspace(
            ctx,
            packed_a_bytes(c.rows, a.cols, sizeof(T)) +
                split_partials_bytes(ks, c.rows, a.cols, c.cols, sizeof(T)),
            st);
        allow_staged_smem<T>(k[2]);
        enqueue_staged_with<T>(
            a, b, c, accumulate, st, nullptr, p, ks, nullptr,
            [](dense_view<T const, device>, int*, cudaStream_t) {}, staged_kernels{k[1], k[2]},
            k[3]);
    } else {
        launch_gemm_with<T>(k[0], a, b, c, accumulate, nullptr, 0, st);
    }
}

template <class T>
void dense_gemm(dense_view<T const, device> a, dense_view<T const, device> b,
                dense_view<T, device> c, bool accumulate, semiring_source const& s, context& ctx,
                report* r) {
    detail::enqueue_dense_gemm<T>(a, b, c, accumulate, s, ctx, r);
    kleene::cuda::detail::end_of_call(static_cast<cudaStream_t>(ctx.stream()));
}

#define KLEENE_JIT_SPMV(T, I)                                                                      \
    template void spmv<T, I>(dense_vector<T, device>&, vector_mask const&,                        \
                             csr_matrix<T, I, device> const&, dense_vector<T, device> const&,     \
                             semiring_source const&, sparse_options const&, report*);
#define KLEENE_JIT_SPGEMM(T, I)                                                                    \
    template void spgemm<T, I>(csr_matrix<T, I, device>&, csr_matrix<T, I, device> const&,        \
                               csr_matrix<T, I, device> const&, semiring_source const&,           \
                               sparse_options const&, report*);
#define KLEENE_JIT_TYPE(T)                                                                         \
    KLEENE_JIT_SPMV(T, std::int32_t)                                                               \
    KLEENE_JIT_SPMV(T, std::int64_t)                                                               \
    KLEENE_JIT_SPGEMM(T, std::int32_t)                                                             \
    KLEENE_JIT_SPGEMM(T, std::int64_t)                                                             \
    template void dense_gemm<T>(dense_view<T const, device>, dense_view<T const, device>,         \
                                dense_view<T, device>, bool, semiring_source const&, context&,    \
                                report*);                                                          \
    template void detail::enqueue_dense_gemm<T>(dense_view<T const, device>,                       \
                                                dense_view<T const, device>, dense_view<T, device>, \
                                                bool, semiring_source const&, context&, report*);
KLEENE_JIT_TYPE(float)
KLEENE_JIT_TYPE(double)
KLEENE_JIT_TYPE(std::int32_t)
KLEENE_JIT_TYPE(std::int64_t)

}  // namespace kleene::cuda::jit

// cuBLAS behind the dense plus_times products over float and double (dense_gemm.hpp): row-major
// C = A B is column-major C' = B' A', one cublas{S,D}gemm call; the handle is the context's.

// nvcc warns (#554) that dense_view<T const>'s conversion to itself, already excluded by its
// requires clause, "will not be called"; true and harmless (as in dense_gemm.cuh).
#pragma nv_diag_suppress 554

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/error.hpp>

#include <cublas_v2.h>

#include "shared_library.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

namespace kleene::cuda::gemm_detail {
namespace {

// The entry points kleene calls, opened with dlopen on first use (shared_library.hpp: linked,
// cuBLAS made every process take about 80 ms more to start).
#define KLEENE_CUBLAS_FUNCTIONS(X)                                                 \
    X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasSgemm_v2) \
    X(cublasDgemm_v2) X(cublasGetStatusName) X(cublasGetStatusString)

struct cublas_api : cuda::detail::shared_api {
#define KLEENE_CUBLAS_MEMBER(f) decltype(&::f) f = nullptr;
    KLEENE_CUBLAS_FUNCTIONS(KLEENE_CUBLAS_MEMBER)
#undef KLEENE_CUBLAS_MEMBER
    bool bind(void* h) {
        bool ok = true;
#define KLEENE_CUBLAS_BIND(f) ok = ok && cuda::detail::bind_symbol(h, #f, f);
        KLEENE_CUBLAS_FUNCTIONS(KLEENE_CUBLAS_BIND)
#undef KLEENE_CUBLAS_BIND
        return ok;
    }
};

/// The process's cuBLAS, opened once (the result never changes after the first call).
cublas_api const& cublas() {
    static cublas_api const api = cuda::detail::open_api<cublas_api>(
        {"libcublas.so." + std::to_string(CUBLAS_VER_MAJOR), "libcublas.so"},
        "dense_gemm: cuBLAS (Debian/Ubuntu: the libcublas-" + std::to_string(CUBLAS_VER_MAJOR) +
            "-x package),",
        "dense_gemm: the cuBLAS library found lacks an entry point kleene needs (too old?)");
    return cuda::detail::loaded(api);
}

void check_cublas(cublasStatus_t s, char const* call, char const* file, int line) {
    if (s != CUBLAS_STATUS_SUCCESS)
        cuda::detail::throw_library_error(call, file, line, cublas().cublasGetStatusName(s),
                                          cublas().cublasGetStatusString(s),
                                          s == CUBLAS_STATUS_ALLOC_FAILED);
}
#define KLEENE_CUBLAS_CHECK(call) check_cublas((call), #call, __FILE__, __LINE__)

/// The context's handle, created on first use and destroyed with the context (default contexts
/// keep theirs: device_state.hpp).
cublasHandle_t handle(context& ctx) {
    auto& x = ctx.state().cublas;
    if (!x.h) {
        cublasHandle_t made = nullptr;
        KLEENE_CUBLAS_CHECK(cublas().cublasCreate_v2(&made));
        x.h = made;
        x.destroy = [](void* h) noexcept {
            (void)cublas().cublasDestroy_v2(static_cast<cublasHandle_t>(h));
        };
    }
    return static_cast<cublasHandle_t>(x.h);
}

int as_int(std::size_t v, char const* what) {
    if (v > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw invalid_argument(std::string("dense_gemm (cuBLAS): ") + what + " past 2^31 - 1");
    return static_cast<int>(v);
}

template <class T>
void blas(dense_view<T const, device> a, dense_view<T const, device> b, dense_view<T, device> c,
          bool accumulate, void* st, context& ctx) {
    if (c.rows == 0 || c.cols == 0) return;
    cublasHandle_t const h = handle(ctx);
    KLEENE_CUBLAS_CHECK(cublas().cublasSetStream_v2(h, static_cast<cudaStream_t>(st)));
    T const one = 1;
    T const beta = accumulate ? T(1) : T(0);
    int const m = as_int(c.rows, "rows"), n = as_int(c.cols, "columns"), k = as_int(a.cols, "k");
    // Leading dimensions of at least 1 (cuBLAS checks them even when k == 0).
    int const lda = as_int(std::max<std::size_t>(a.ld, std::max<std::size_t>(a.cols, 1)), "lda");
    int const ldb = as_int(std::max<std::size_t>(b.ld, std::max<std::size_t>(b.cols, 1)), "ldb");
    int const ldc = as_int(c.ld, "ldc");
    if constexpr (std::is_same_v<T, float>)
        KLEENE_CUBLAS_CHECK(cublas().cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                                    b.data, ldb, a.data, lda, &beta, c.data, ldc));
    else
        KLEENE_CUBLAS_CHECK(cublas().cublasDgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                                    b.data, ldb, a.data, lda, &beta, c.data, ldc));
}

}  // namespace

void blas_gemm(dense_view<float const, device> a, dense_view<float const, device> b,
               dense_view<float, device> c, bool accumulate, void* stream, context& ctx) {
    blas<float>(a, b, c, accumulate, stream, ctx);
}
void blas_gemm(dense_view<double const, device> a, dense_view<double const, device> b,
               dense_view<double, device> c, bool accumulate, void* stream, context& ctx) {
    blas<double>(a, b, c, accumulate, stream, ctx);
}

}  // namespace kleene::cuda::gemm_detail

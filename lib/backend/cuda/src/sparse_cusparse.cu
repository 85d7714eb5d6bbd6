// cuSPARSE behind the sparse products (plus_times over float and double): SpMV, SpMM and SpGEMM
// through the generic API, with the context's handle on the context's stream.

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/sparse/common.cuh>
#include <kleene/detail/device_state.hpp>

#include <cub/device/device_segmented_sort.cuh>
#include <cusparse.h>

#include "shared_library.hpp"

#include <string>

namespace kleene::cuda::sparse_detail {
namespace {

// The entry points kleene calls, opened with dlopen on first use (shared_library.hpp: linked,
// cuSPARSE and its nvJitLink made every process take about 10 ms more to start).
#define KLEENE_CUSPARSE_FUNCTIONS(X)                                                          \
    X(cusparseCreate) X(cusparseDestroy) X(cusparseSetStream) X(cusparseGetErrorName)         \
    X(cusparseGetErrorString) X(cusparseCreateConstCsr) X(cusparseCreateCsr)                  \
    X(cusparseCreateConstDnVec) X(cusparseCreateDnVec) X(cusparseCreateConstDnMat)            \
    X(cusparseCreateDnMat) X(cusparseDestroySpMat) X(cusparseDestroyDnVec)                    \
    X(cusparseDestroyDnMat) X(cusparseSpMV_bufferSize) X(cusparseSpMV)                        \
    X(cusparseSpMM_bufferSize) X(cusparseSpMM) X(cusparseSpGEMM_createDescr)                  \
    X(cusparseSpGEMM_destroyDescr) X(cusparseSpGEMM_workEstimation) X(cusparseSpGEMM_compute) \
    X(cusparseSpGEMM_copy) X(cusparseSpMatGetSize) X(cusparseCsrSetPointers)

struct cusparse_api : cuda::detail::shared_api {
#define KLEENE_CUSPARSE_MEMBER(f) decltype(&::f) f = nullptr;
    KLEENE_CUSPARSE_FUNCTIONS(KLEENE_CUSPARSE_MEMBER)
#undef KLEENE_CUSPARSE_MEMBER
    bool bind(void* h) {
        bool ok = true;
#define KLEENE_CUSPARSE_BIND(f) ok = ok && cuda::detail::bind_symbol(h, #f, f);
        KLEENE_CUSPARSE_FUNCTIONS(KLEENE_CUSPARSE_BIND)
#undef KLEENE_CUSPARSE_BIND
        return ok;
    }
};

/// The process's cuSPARSE, opened once (the result never changes after the first call).
cusparse_api const& cusparse_lib() {
    static cusparse_api const api = cuda::detail::open_api<cusparse_api>(
        {"libcusparse.so." + std::to_string(CUSPARSE_VER_MAJOR), "libcusparse.so"},
        "the cusparse backend: cuSPARSE (Debian/Ubuntu: the libcusparse-" +
            std::to_string(CUDART_VERSION / 1000) + "-x package),",
        "the cusparse backend: the cuSPARSE library found lacks an entry point kleene needs "
        "(too old?)");
    return cuda::detail::loaded(api);
}

void check_cusparse(cusparseStatus_t s, char const* call, char const* file, int line) {
    if (s != CUSPARSE_STATUS_SUCCESS)
        cuda::detail::throw_library_error(call, file, line, cusparse_lib().cusparseGetErrorName(s),
                                          cusparse_lib().cusparseGetErrorString(s),
                                          s == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES);
}
#define KLEENE_CUSPARSE_CHECK(call) check_cusparse((call), #call, __FILE__, __LINE__)

/// The context's handle, created on first use and destroyed with the context (default contexts
/// keep theirs: device_state.hpp), set to the context's stream (which the caller may change
/// between calls).
cusparseHandle_t handle(context& ctx) {
    auto& x = ctx.state().cusparse;
    if (!x.h) {
        cusparseHandle_t made = nullptr;
        KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseCreate(&made));
        x.h = made;
        x.destroy = [](void* h) noexcept {
            (void)cusparse_lib().cusparseDestroy(static_cast<cusparseHandle_t>(h));
        };
    }
    auto const h = static_cast<cusparseHandle_t>(x.h);
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSetStream(h, stream_of(ctx)));
    return h;
}

template <class T>
constexpr cudaDataType data_type() {
    if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
    else return CUDA_R_64F;
}
template <class Index>
constexpr cusparseIndexType_t index_type_of() {
    if constexpr (sizeof(Index) == 4) return CUSPARSE_INDEX_32I;
    else return CUSPARSE_INDEX_64I;
}

/// RAII for the descriptors.
struct sp_mat {
    cusparseConstSpMatDescr_t d = nullptr;
    ~sp_mat() {
        if (d) (void)cusparse_lib().cusparseDestroySpMat(d);
    }
};
struct dn_vec {
    cusparseConstDnVecDescr_t d = nullptr;
    ~dn_vec() {
        if (d) (void)cusparse_lib().cusparseDestroyDnVec(d);
    }
};
struct dn_vec_out {
    cusparseDnVecDescr_t d = nullptr;
    ~dn_vec_out() {
        if (d) (void)cusparse_lib().cusparseDestroyDnVec(d);
    }
};
struct dn_mat {
    cusparseConstDnMatDescr_t d = nullptr;
    ~dn_mat() {
        if (d) (void)cusparse_lib().cusparseDestroyDnMat(d);
    }
};
struct dn_mat_out {
    cusparseDnMatDescr_t d = nullptr;
    ~dn_mat_out() {
        if (d) (void)cusparse_lib().cusparseDestroyDnMat(d);
    }
};

template <class T, class Index>
void describe(sp_mat& m, csr_matrix<T, Index, device> const& a) {
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseCreateConstCsr(
        &m.d, static_cast<std::int64_t>(a.rows()), static_cast<std::int64_t>(a.cols()),
        static_cast<std::int64_t>(a.nnz()), a.row_ptr(), a.col_idx(), a.values(),
        index_type_of<Index>(), index_type_of<Index>(), CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
}

template <class Index>
__global__ void columns_sorted(Index const* __restrict__ ptr, Index const* __restrict__ col,
                               std::int64_t rows, int* __restrict__ unsorted) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < rows;
         i += std::int64_t(gridDim.x) * blockDim.x)
        for (Index k = ptr[i] + 1; k < ptr[i + 1]; ++k)
            if (col[k - 1] >= col[k]) {
                *unsorted = 1;
                break;
            }
}

}  // namespace

template <class T, class Index>
void cusparse_spmv(context& ctx, csr_matrix<T, Index, device> const& a, T const* u, T* w,
                   bool accumulate) {
    cusparseHandle_t const h = handle(ctx);
    sp_mat A;
    describe(A, a);
    dn_vec X;
    dn_vec_out Y;
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseCreateConstDnVec(
        &X.d, static_cast<std::int64_t>(a.cols()), u, data_type<T>()));
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseCreateDnVec(
        &Y.d, static_cast<std::int64_t>(a.rows()), w, data_type<T>()));
    T const alpha = 1, beta = accumulate ? 1 : 0;
    std::size_t bytes = 0;
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpMV_bufferSize(
        h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, data_type<T>(),
        CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpMV(
        h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, X.d, &beta, Y.d, data_type<T>(),
        CUSPARSE_SPMV_ALG_DEFAULT, cub_scratch(ctx, bytes)));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(stream_of(ctx)));
}

template <class T, class Index>
void cusparse_spmm(context& ctx, csr_matrix<T, Index, device> const& a, dense_view<T const, device> b,
                   dense_view<T, device> c, bool accumulate) {
    cusparseHandle_t const h = handle(ctx);
    sp_mat A;
    describe(A, a);
    dn_mat B;
    dn_mat_out C;
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseCreateConstDnMat(
        &B.d, static_cast<std::int64_t>(b.rows), static_cast<std::int64_t>(b.cols),
        static_cast<std::int64_t>(b.ld), b.data, data_type<T>(), CUSPARSE_ORDER_ROW));
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseCreateDnMat(
        &C.d, static_cast<std::int64_t>(c.rows), static_cast<std::int64_t>(c.cols),
        static_cast<std::int64_t>(c.ld), c.data, data_type<T>(), CUSPARSE_ORDER_ROW));
    T const alpha = 1, beta = accumulate ? 1 : 0;
    std::size_t bytes = 0;
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpMM_bufferSize(
        h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, B.d,
        &beta, C.d, data_type<T>(), CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpMM(
        h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A.d, B.d,
        &beta, C.d, data_type<T>(), CUSPARSE_SPMM_ALG_DEFAULT, cub_scratch(ctx, bytes)));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(stream_of(ctx)));
}

template <class T>
void cusparse_spgemm(context& ctx, csr_matrix<T, std::int32_t, device>& c,
                     csr_matrix<T, std::int32_t, device> const& a,
                     csr_matrix<T, std::int32_t, device> const& b) {
    using Index = std::int32_t;
    cusparseHandle_t const h = handle(ctx);
    auto const st = detail::stream_of(ctx);
    sp_mat A, B;
    describe(A, a);
    describe(B, b);
    struct out_mat {
        cusparseSpMatDescr_t d = nullptr;
        ~out_mat() {
            if (d) (void)cusparse_lib().cusparseDestroySpMat(d);
        }
    } C;
    struct gemm_descr {
        cusparseSpGEMMDescr_t d = nullptr;
        ~gemm_descr() {
            if (d) (void)cusparse_lib().cusparseSpGEMM_destroyDescr(d);
        }
    } G;
    buffer<Index, device> row_ptr(a.rows() + 1);
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseCreateCsr(
        &C.d, static_cast<std::int64_t>(a.rows()), static_cast<std::int64_t>(b.cols()), 0,
        row_ptr.data(), nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpGEMM_createDescr(&G.d));
    T const alpha = 1, beta = 0;
    auto const op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    auto const alg = CUSPARSE_SPGEMM_DEFAULT;
    std::size_t bytes1 = 0, bytes2 = 0;
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpGEMM_workEstimation(
        h, op, op, &alpha, A.d, B.d, &beta, C.d, data_type<T>(), alg, G.d, &bytes1, nullptr));
    detail::stream_buffer<unsigned char> work1(bytes1, st);
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpGEMM_workEstimation(
        h, op, op, &alpha, A.d, B.d, &beta, C.d, data_type<T>(), alg, G.d, &bytes1, work1.data()));
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpGEMM_compute(
        h, op, op, &alpha, A.d, B.d, &beta, C.d, data_type<T>(), alg, G.d, &bytes2, nullptr));
    detail::stream_buffer<unsigned char> work2(bytes2, st);
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpGEMM_compute(
        h, op, op, &alpha, A.d, B.d, &beta, C.d, data_type<T>(), alg, G.d, &bytes2, work2.data()));
    std::int64_t rows = 0, cols = 0, nnz = 0;
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpMatGetSize(C.d, &rows, &cols, &nnz));
    buffer<Index, device> col(static_cast<std::size_t>(nnz));
    buffer<T, device> val(static_cast<std::size_t>(nnz));
    KLEENE_CUSPARSE_CHECK(
        cusparse_lib().cusparseCsrSetPointers(C.d, row_ptr.data(), col.data(), val.data()));
    KLEENE_CUSPARSE_CHECK(cusparse_lib().cusparseSpGEMM_copy(h, op, op, &alpha, A.d, B.d, &beta,
                                                             C.d, data_type<T>(), alg, G.d));
    // kleene's CSR keeps every row's columns sorted; sort here if cuSPARSE left a row unsorted.
    if (nnz > 0) {
        int* unsorted = scratch<int>(ctx, 6, 1);
        KLEENE_CUDA_CHECK(cudaMemsetAsync(unsorted, 0, sizeof(int), st));
        columns_sorted<Index><<<detail::blocks_for(a.rows(), 256), 256, 0, st>>>(
            row_ptr.data(), col.data(), rows, unsorted);
        KLEENE_CUDA_CHECK_LAUNCH("columns_sorted");
        int host_unsorted = 0;
        KLEENE_CUDA_CHECK(
            cudaMemcpyAsync(&host_unsorted, unsorted, sizeof(int), cudaMemcpyDeviceToHost, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        if (host_unsorted) {
            // The unsorted entries to temporaries of the context's pool (released on st behind
            // the sort, no wait for the device), sorted back into the result's arrays.
            detail::stream_buffer<Index> col2(col.size(), st);
            detail::stream_buffer<T> val2(val.size(), st);
            KLEENE_CUDA_CHECK(cudaMemcpyAsync(col2.data(), col.data(), col.size() * sizeof(Index),
                                              cudaMemcpyDeviceToDevice, st));
            KLEENE_CUDA_CHECK(cudaMemcpyAsync(val2.data(), val.data(), val.size() * sizeof(T),
                                              cudaMemcpyDeviceToDevice, st));
            std::size_t bytes = 0;
            KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
                nullptr, bytes, col2.data(), col.data(), val2.data(), val.data(), nnz, rows,
                row_ptr.data(), row_ptr.data() + 1, st));
            KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
                cub_scratch(ctx, bytes), bytes, col2.data(), col.data(), val2.data(), val.data(),
                nnz, rows, row_ptr.data(), row_ptr.data() + 1, st));
        }
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    c = csr_matrix<T, Index, device>(a.rows(), b.cols(), std::move(row_ptr), std::move(col),
                                     std::move(val), T(1), true);
}

template void cusparse_spmv<float, std::int32_t>(context&, csr_matrix<float, std::int32_t, device> const&,
                                                 float const*, float*, bool);
template void cusparse_spmv<float, std::int64_t>(context&, csr_matrix<float, std::int64_t, device> const&,
                                                 float const*, float*, bool);
template void cusparse_spmv<double, std::int32_t>(context&, csr_matrix<double, std::int32_t, device> const&,
                                                  double const*, double*, bool);
template void cusparse_spmv<double, std::int64_t>(context&, csr_matrix<double, std::int64_t, device> const&,
                                                  double const*, double*, bool);
#define KLEENE_SPMM(T, Index)                                                                 \
    template void cusparse_spmm<T, Index>(context&, csr_matrix<T, Index, device> const&,                \
                                          dense_view<T const, device>, dense_view<T, device>, \
                                          bool);
KLEENE_SPMM(float, std::int32_t)
KLEENE_SPMM(float, std::int64_t)
KLEENE_SPMM(double, std::int32_t)
KLEENE_SPMM(double, std::int64_t)
#undef KLEENE_SPMM
template void cusparse_spgemm<float>(context&, csr_matrix<float, std::int32_t, device>&,
                                     csr_matrix<float, std::int32_t, device> const&,
                                     csr_matrix<float, std::int32_t, device> const&);
template void cusparse_spgemm<double>(context&, csr_matrix<double, std::int32_t, device>&,
                                      csr_matrix<double, std::int32_t, device> const&,
                                      csr_matrix<double, std::int32_t, device> const&);

}  // namespace kleene::cuda::sparse_detail

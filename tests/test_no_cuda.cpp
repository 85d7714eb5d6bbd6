// A build without CUDA (KLEENE_CUDA=OFF): every device entry point throws kleene::no_device with
// the same message (kleene/detail/device_entry.hpp), and the queries answer "no device". Entry
// points that take a device CSR matrix or a cuda::stream cannot be reached then (both need device
// memory or a stream to exist): their throwing definitions are instantiated here (their address
// is taken) so that a body that does not compile fails this build. In a CUDA build the suite has
// nothing to check: tests/gpu run the real entry points.

#define BOOST_TEST_MODULE no_cuda
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <kleene/algorithms/cuda/apsp.hpp>
#include <kleene/algorithms/cuda/apsp_batched.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/algorithms/cuda/graph_scans.hpp>
#include <kleene/algorithms/cuda/paths.hpp>
#include <kleene/context.hpp>
#include <kleene/cuda/bit_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/detail/structure.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/cuda/out_of_core.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/apply.hpp>
#include <kleene/kronecker.hpp>
#include <kleene/memory.hpp>
#include <kleene/mxm.hpp>
#include <string>

#if !defined(KLEENE_HAVE_CUDA)

namespace {

using namespace kleene;
using f32 = float;
using i32 = std::int32_t;

template <class F>
void expect_no_device(char const* what, F&& f) {
    try {
        f();
        BOOST_ERROR(what << " returned instead of throwing no_device");
    } catch (no_device const& e) {
        BOOST_TEST(std::string(e.what()).find("built without CUDA") != std::string::npos, what);
    }
}
#define KLEENE_EXPECT_NO_DEVICE(...) expect_no_device(#__VA_ARGS__, [&] { (void)(__VA_ARGS__); })
// Instantiates the inline definition behind an entry point that cannot be called here (taking
// the address of the overload of signature Sig odr-uses it).
template <class Sig>
void instantiated(Sig* f) {
    BOOST_TEST((f != nullptr));
}

}  // namespace

BOOST_AUTO_TEST_CASE(runtime_queries_say_no_device) {
    BOOST_TEST(!cuda::built_with_cuda());
    BOOST_TEST(cuda::device_count() == 0);
    BOOST_TEST(cuda::current_device() == 0);
    BOOST_TEST(cuda::free_device_memory() == 0u);
    KLEENE_EXPECT_NO_DEVICE(cuda::device_description(0));
    KLEENE_EXPECT_NO_DEVICE(cuda::require_device());
}

BOOST_AUTO_TEST_CASE(device_memory) {
    int x = 0;
    KLEENE_EXPECT_NO_DEVICE(kleene::detail::device_allocate(8));
    kleene::detail::device_deallocate(nullptr);  // nothing to free: no throw (noexcept)
    KLEENE_EXPECT_NO_DEVICE(kleene::detail::copy_host_to_device(&x, &x, sizeof x));
    KLEENE_EXPECT_NO_DEVICE(kleene::detail::copy_device_to_host(&x, &x, sizeof x));
    KLEENE_EXPECT_NO_DEVICE(kleene::detail::copy_device_to_device(&x, &x, sizeof x));
    KLEENE_EXPECT_NO_DEVICE(kleene::detail::device_zero(&x, sizeof x));
    KLEENE_EXPECT_NO_DEVICE(buffer<int, device>(4));
    KLEENE_EXPECT_NO_DEVICE(csr_matrix<f32, i32, device>(2, 2));
    KLEENE_EXPECT_NO_DEVICE(dense_matrix<f32>(2, 2, 1.0f).to_device());
}

BOOST_AUTO_TEST_CASE(streams_events_and_out_of_core) {
    int x = 0;
    KLEENE_EXPECT_NO_DEVICE(cuda::stream{});
    KLEENE_EXPECT_NO_DEVICE(cuda::event{});
    KLEENE_EXPECT_NO_DEVICE(cuda::host_registration(&x, sizeof x));
    KLEENE_EXPECT_NO_DEVICE(cuda::pinned_memory(64));
    KLEENE_EXPECT_NO_DEVICE(cuda::multiprocessor_count());
    KLEENE_EXPECT_NO_DEVICE(cuda::min_plus_gemm_blocks_per_sm<f32>());
    using cuda::stream;
    instantiated<void(void*, std::size_t, void const*, std::size_t, std::size_t, std::size_t,
                      cuda::copy_kind, stream const&)>(&cuda::copy_rows_async);
    instantiated<void(void*, int, std::size_t, stream const&)>(&cuda::fill_bytes_async);
    instantiated<void(dense_view<f32 const, device>, std::int64_t, unsigned long long*,
                      stream const&)>(&cuda::negative_diagonal_async<f32>);
}

BOOST_AUTO_TEST_CASE(dense_and_bit_products) {
    dense_matrix<f32, device> a, b, c;
    dense_matrix<bool, device> ba, bb, bc;
    KLEENE_EXPECT_NO_DEVICE(cuda::dense_gemm<min_plus<f32>>(a.view(), b.view(), c.view(), false));
    KLEENE_EXPECT_NO_DEVICE(
        cuda::dense_gemm<min_plus<f32>>(a.view(), b.view(), c.view(), false, default_context()));
    KLEENE_EXPECT_NO_DEVICE(
        cuda::dense_gemm<lor_land<bool>>(ba.view(), bb.view(), bc.view(), false));
    KLEENE_EXPECT_NO_DEVICE(cuda::dense_gemm<lor_land<bool>>(ba.view(), bb.view(), bc.view(), false,
                                                             default_context()));
    instantiated<void(dense_view<f32 const, device>, dense_view<f32 const, device>,
                      dense_view<f32, device>, bool, cuda::stream const&, context*)>(
        &cuda::dense_gemm<min_plus<f32>>);
    cuda::bit_view<std::uint64_t> bits;
    KLEENE_EXPECT_NO_DEVICE(cuda::bit_matrix(64, 64));
    KLEENE_EXPECT_NO_DEVICE(cuda::bit_matrix(64, 64, default_context()));
    KLEENE_EXPECT_NO_DEVICE(cuda::to_bits(dense_view<bool const, device>{}));
    KLEENE_EXPECT_NO_DEVICE(cuda::to_bits(dense_view<std::uint8_t const, device>{}));
    KLEENE_EXPECT_NO_DEVICE(cuda::from_bits(bits, bc.view()));
    KLEENE_EXPECT_NO_DEVICE(cuda::from_bits(bits, dense_view<std::uint8_t, device>{}));
    KLEENE_EXPECT_NO_DEVICE(cuda::bool_gemm(bits, bits, bits, false));
    instantiated<void(cuda::bit_view<std::uint64_t const>, cuda::bit_view<std::uint64_t const>,
                      cuda::bit_view<std::uint64_t>, bool, cuda::stream const&)>(&cuda::bool_gemm);
}

BOOST_AUTO_TEST_CASE(masks_and_elementwise_operations) {
    namespace d = cuda::detail;
    dense_matrix<f32, device> m;
    dense_vector<f32, device> v;
    sparse_vector<f32, i32, device> s;
    KLEENE_EXPECT_NO_DEVICE(cuda::dense_mask(kleene::mask(m)));
    KLEENE_EXPECT_NO_DEVICE(cuda::dense_mask(kleene::mask(v)));
    KLEENE_EXPECT_NO_DEVICE(cuda::dense_mask(kleene::mask(s)));
    context& ctx = default_context();
    KLEENE_EXPECT_NO_DEVICE(cuda::dense_mask(kleene::mask(m), ctx));
    cuda::dense_mask const none;
    f32* p = nullptr;
    KLEENE_EXPECT_NO_DEVICE(d::ewise_dense<true, plus_op<f32>, no_accum_t, f32>(
        ctx, p, none, no_accum, plus_op<f32>{}, p, p, 0, 0.0f, false));
    KLEENE_EXPECT_NO_DEVICE(d::apply_dense<abs_op<f32>, no_accum_t, f32>(
        ctx, p, none, no_accum, abs_op<f32>{}, p, 0, 0.0f, false));
    using csr = csr_matrix<f32, i32, device>;
    instantiated<csr(context&, csr const&, csr const&, cuda::csr_mask<i32> const&, bool)>(
        &d::mask_merge_csr<f32, i32>);
    instantiated<csr(context&, plus_op<f32>, csr const&, csr const&)>(
        &d::ewise_csr<true, plus_op<f32>, f32, i32>);
    instantiated<csr(context&, abs_op<f32>, csr const&)>(&d::apply_csr<abs_op<f32>, f32, i32>);
    instantiated<csr(context&, d::select_spec<f32>, csr const&)>(&d::select_csr<f32, i32>);
    KLEENE_EXPECT_NO_DEVICE(d::kronecker_dense<times_op<f32>, no_accum_t, f32>(
        ctx, p, none, no_accum, times_op<f32>{}, p, 0, 0, p, 0, 0, 0.0f, false));
    KLEENE_EXPECT_NO_DEVICE(d::dense_to_csr<f32, i32>(ctx, p, 0, 0, 0.0f));
    KLEENE_EXPECT_NO_DEVICE(d::sparse_to_dense<f32, i32>(ctx, p, 0, nullptr, p, 0, 0.0f));
    instantiated<void(context&, f32*, csr const&, f32)>(&d::csr_to_dense<f32, i32>);
    instantiated<csr(context&, times_op<f32>, csr const&, csr const&)>(
        &d::kronecker_csr<times_op<f32>, f32, i32>);
    // The public operations on device containers reach the same entry points.
    KLEENE_EXPECT_NO_DEVICE(kleene::mxm(m, m, m, plus_times<f32>{}));
    KLEENE_EXPECT_NO_DEVICE(kleene::apply(v, abs_op<f32>{}, v));
    KLEENE_EXPECT_NO_DEVICE(kleene::kronecker(m, times_op<f32>{}, m, m));
}

BOOST_AUTO_TEST_CASE(sparse_products) {
    using S = plus_times<f32>;
    using csr = csr_matrix<f32, i32, device>;
    using opts = cuda::sparse_options;
    KLEENE_EXPECT_NO_DEVICE(cuda::product_density<i32>(nullptr, nullptr, 0, nullptr, 0));
    KLEENE_EXPECT_NO_DEVICE(
        cuda::product_density<i32>(nullptr, nullptr, 0, nullptr, 0, &default_context()));
    instantiated<cuda::sparse_backend(dense_vector<f32, device>&, cuda::vector_mask const&,
                                      csr const&, dense_vector<f32, device> const&, opts const&)>(
        &cuda::spmv<S, i32>);
    instantiated<void(sparse_vector<f32, i32, device>&, cuda::vector_mask const&,
                      sparse_vector<f32, i32, device> const&, csr const&, context*)>(
        &cuda::spmspv<S, i32>);
    instantiated<cuda::sparse_backend(dense_view<f32, device>, csr const&,
                                      dense_view<f32 const, device>, opts const&)>(
        &cuda::spmm<S, i32>);
    instantiated<cuda::sparse_backend(csr&, csr const&, csr const&, opts const&)>(
        &cuda::spgemm<S, i32>);
    instantiated<cuda::sparse_backend(dense_view<f32, device>, csr const&, csr const&,
                                      opts const&)>(&cuda::spgemm_dense<S, i32>);
}

BOOST_AUTO_TEST_CASE(reduce_transpose_extract_assign) {
    namespace d = cuda::detail;
    using M = plus_monoid<f32>;
    using csr = csr_matrix<f32, i32, device>;
    cuda::dense_mask const none;
    f32* p = nullptr;
    d::index_spec const all{};
    context& ctx = default_context();
    KLEENE_EXPECT_NO_DEVICE(
        d::reduce_rows_dense(ctx, p, none, no_accum, M{}, p, 0, 0, 0.0f, false));
    KLEENE_EXPECT_NO_DEVICE(
        d::reduce_cols_dense(ctx, p, none, no_accum, M{}, p, 0, 0, 0.0f, false));
    KLEENE_EXPECT_NO_DEVICE(d::reduce_values(ctx, M{}, p, 0.0f, 0, 0.0f, false));
    KLEENE_EXPECT_NO_DEVICE(d::transpose_dense(ctx, p, none, no_accum, p, 0, 0, 0.0f, false));
    KLEENE_EXPECT_NO_DEVICE(
        d::extract_dense(ctx, p, none, no_accum, p, 0, all, all, 0.0f, false));
    KLEENE_EXPECT_NO_DEVICE(d::assign_dense(ctx, p, 0, 0, none, no_accum, p, 0.0f, nullptr,
                                            nullptr, 0, 0.0f, false));
    instantiated<void(context&, f32*, cuda::dense_mask const&, no_accum_t, M, csr const&, f32,
                      bool)>(&d::reduce_rows_csr<M, no_accum_t, f32, i32>);
    instantiated<csr(context&, csr const&)>(&d::transpose_csr<f32, i32>);
    instantiated<csr(context&, csr const&, d::index_spec, d::index_spec, std::int64_t const*,
                     std::int64_t const*)>(&d::extract_csr<f32, i32>);
    instantiated<void(context&, f32*, cuda::dense_mask const&, no_accum_t, csr const&,
                      d::index_spec, std::size_t, bool, f32, bool)>(
        &d::extract_csr_column<no_accum_t, f32, i32>);
    instantiated<csr(context&, csr const&, no_accum_t, csr const*, f32, d::index_spec,
                     std::int64_t const*, std::int64_t const*, std::int64_t const*)>(
        &d::assign_csr<no_accum_t, f32, i32>);
}

BOOST_AUTO_TEST_CASE(algorithm_kernels) {
    dense_matrix<f32, device> a, b;
    cuda::bit_view<std::uint64_t> bits;
    KLEENE_EXPECT_NO_DEVICE(cuda::floyd_warshall_blocked(a.view()));
    KLEENE_EXPECT_NO_DEVICE(cuda::floyd_warshall_naive(a.view()));
    KLEENE_EXPECT_NO_DEVICE(cuda::min_into(a.view(), dense_view<f32 const, device>(b.view())));
    KLEENE_EXPECT_NO_DEVICE(cuda::closure_diagonal(a.view()));
    KLEENE_EXPECT_NO_DEVICE(cuda::first_negative_diagonal(dense_view<f32 const, device>(a.view())));
    KLEENE_EXPECT_NO_DEVICE(cuda::bit_warshall(bits));
    KLEENE_EXPECT_NO_DEVICE(cuda::or_into(bits, bits));
    KLEENE_EXPECT_NO_DEVICE(cuda::set_bit_diagonal(bits));
    KLEENE_EXPECT_NO_DEVICE(cuda::apsp_bellman_ford(csr_matrix<f32, i32>(3, 3)));
    using cuda::stream;
    instantiated<void(dense_view<f32, device>, stream const&)>(&cuda::floyd_warshall_blocked<f32>);
    instantiated<void(dense_view<f32, device>, dense_view<f32 const, device>, stream const&)>(
        &cuda::min_into<f32>);
    instantiated<void(cuda::bit_view<std::uint64_t>, stream const&)>(&cuda::bit_warshall);
    instantiated<void(cuda::bit_view<std::uint64_t>, cuda::bit_view<std::uint64_t const>,
                      stream const&)>(&cuda::or_into);
    using csr = csr_matrix<f32, i32, device>;
    using pattern = csr_matrix<bool, i32, device>;
    instantiated<cuda::bfs_run(csr const&, csr const&, std::size_t, bool, cuda::bfs_tuning const&)>(
        &cuda::bfs<f32, i32>);
    instantiated<cuda::sssp_run<f32>(csr const&, std::size_t, cuda::sssp_tuning const&)>(
        &cuda::sssp<f32, i32>);
    instantiated<cuda::cc_run(pattern const&, cuda::cc_kernel)>(&cuda::connected_components<i32>);
    instantiated<cuda::pagerank_run(pattern const&, pattern const&, cuda::pagerank_params const&,
                                    cuda::pagerank_kernel)>(&cuda::pagerank<i32>);
    instantiated<cuda::tc_run(pattern const&, bool, cuda::tc_tuning const&)>(
        &cuda::triangle_count<i32>);
    instantiated<cuda::bc_run(pattern const&, pattern const&, std::vector<std::int64_t> const&)>(
        &cuda::betweenness<i32>);
    instantiated<void(csr const&, dense_view<f32 const, device>, dense_view<i32, device>)>(
        &cuda::predecessors<f32>);
    // A device graph's passes and its dense starts (graph_scans.hpp, apsp.hpp).
    context& ctx = default_context();
    instantiated<std::vector<std::int64_t>(pattern const&, bool, context&)>(&cuda::degrees<i32>);
    instantiated<cuda::graph_symmetry(csr const&, context&)>(&cuda::symmetry<f32, i32>);
    instantiated<cuda::weight_pass<f32>(csr const&, context&)>(&cuda::scan_weights<f32, i32>);
    instantiated<cuda::saturated_edge<f32>(csr const&, f32 const*, context&)>(
        &cuda::first_saturated_edge<f32, i32>);
    instantiated<void(csr const&, std::size_t, f32 const*, std::int64_t*, context&)>(
        &cuda::tight_edge_tree<f32, i32>);
    instantiated<void(csr const&, dense_view<double, device>, context&)>(
        &cuda::apsp_start<f32, double, i32>);
    KLEENE_EXPECT_NO_DEVICE(cuda::narrow_distances<f32>(
        dense_view<double const, device>{}, dense_view<f32, device>{}, 1.0, ctx));
    instantiated<void(pattern const&, cuda::bit_view<std::uint64_t>, context&)>(
        &cuda::pattern_bits<i32>);
    instantiated<csr(csr_matrix<f32, std::int64_t, device> const&, context&)>(
        &cuda::narrow_indices<f32>);
    instantiated<dense_matrix<f32>(csr const&, cuda::bellman_ford_options const&)>(
        &cuda::apsp_bellman_ford<f32, i32>);
    instantiated<void(csr const&, dense_view<f32, device>, cuda::bellman_ford_options const&)>(
        &cuda::apsp_bellman_ford<f32, i32>);
}

#else

BOOST_AUTO_TEST_CASE(cuda_build_has_the_real_entry_points) {
    BOOST_TEST_MESSAGE("built with CUDA: the device entry points are the .cu ones (tests/gpu)");
    BOOST_TEST(kleene::cuda::built_with_cuda());
}

#endif

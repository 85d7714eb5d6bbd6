// Operations captured into a CUDA graph (issue "The second floor", item 2a): on a context whose
// stream is being captured in global mode, the calls that read nothing back to the host enqueue
// their work and return (kleene::cuda::detail::end_of_call); the graph, launched, gives exactly
// the eager result (SpMV with and without long rows: under capture the long rows take a block
// each, their count read on the device). A call that must read a value back (SpGEMM sizes its
// output on the host) fails the capture with a device_error and leaves the stream usable. A .cu
// suite: it calls the CUDA runtime itself, so it is built only with the CUDA backend. Dense
// ewise_add / ewise_mult and apply (vectors and matrices, masked, accumulating, replacing) are
// captured too, with masks made before the capture and within it; so is a dense transpose in
// place.

#define BOOST_TEST_MODULE capture_gpu

#pragma nv_diag_suppress 554  // dense_view<T const> conversion: see dense_gemm.cuh
#include <boost/test/unit_test.hpp>
#include "gpu/gpu_test.hpp"

#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/cuda/mask.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include <cuda_runtime.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kleene;
using kleene::test::have_gpu;
using kleene::test::needs;

struct captured_stream {
    cudaStream_t s = nullptr;
    context ctx;
    captured_stream() {
        BOOST_REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
        ctx.set_stream(s);
    }
    ~captured_stream() { cudaStreamDestroy(s); }
    captured_stream(captured_stream const&) = delete;
    captured_stream& operator=(captured_stream const&) = delete;

    /// Captures f's work in global mode, launches the graph twice (it must be replayable) and
    /// waits; false (and the error) when f could not be captured.
    bool capture_and_replay(std::function<void(context&)> const& f, std::string& error) {
        BOOST_REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
        try {
            f(ctx);
        } catch (std::exception const& e) {
            error = e.what();
        }
        cudaGraph_t graph = nullptr;
        cudaError_t const end = cudaStreamEndCapture(s, &graph);
        if (!error.empty() || end != cudaSuccess) {
            if (error.empty()) error = cudaGetErrorString(end);
            if (graph) cudaGraphDestroy(graph);
            (void)cudaGetLastError();
            return false;
        }
        cudaGraphExec_t exec = nullptr;
        BOOST_REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
        BOOST_REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
        BOOST_REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
        BOOST_REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        return true;
    }
};

/// n x n, Poisson(mean) entries a row capped at `cap` (cap <= 256: no long rows for SpMV).
csr_matrix<float, std::int32_t> random_csr(std::size_t n, double mean, std::size_t cap,
                                           std::mt19937_64& g) {
    std::poisson_distribution<int> d(mean);
    buffer<std::int32_t> ptr(n + 1);
    ptr[0] = 0;
    std::vector<std::int32_t> col;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t const len = std::min<std::size_t>(cap, std::size_t(d(g)));
        std::vector<char> used(n);
        for (std::size_t k = 0; k < len; ++k) {
            std::size_t j = g() % n;
            while (used[j]) j = (j + 1) % n;
            used[j] = 1;
        }
        for (std::size_t j = 0; j < n; ++j)
            if (used[j]) col.push_back(std::int32_t(j));
        ptr[i + 1] = std::int32_t(col.size());
    }
    buffer<std::int32_t> c(col.size());
    std::copy(col.begin(), col.end(), c.begin());
    buffer<float> v(col.size());
    for (auto& x : v) x = float(1 + g() % 9);
    return csr_matrix<float, std::int32_t>(n, n, std::move(ptr), std::move(c), std::move(v), 1.0f);
}

template <class T>
std::vector<T> host_of(dense_vector<T, device> const& v) {
    auto h = v.to_host();
    return std::vector<T>(h.begin(), h.end());
}

}  // namespace

BOOST_AUTO_TEST_CASE(captured_calls_replay_the_eager_result) {
    if (!have_gpu(needs::minimal)) return;
    std::mt19937_64 g(1);
    std::size_t const n = 3000;
    auto const a = random_csr(n, 8.0, 200, g).to_device();
    auto const hubs = random_csr(n, 300.0, 1200, g).to_device();  // rows past 256: long rows
    dense_vector<float> uh(n);
    for (std::size_t i = 0; i < n; ++i) uh[i] = float(1 + g() % 9);
    auto const u = uh.to_device();
    dense_matrix<float> mh(300, 300);
    for (std::size_t i = 0; i < 300; ++i)
        for (std::size_t j = 0; j < 300; ++j) mh(i, j) = float(1 + g() % 100);
    auto const m = mh.to_device();
    auto const s = cuda::jit::compose("max", "times", "float");
    // Second operands and masks for the element-wise operations (every third entry masked out).
    dense_vector<float> u2h(n), vflags(n);
    for (std::size_t i = 0; i < n; ++i) u2h[i] = float(1 + g() % 9), vflags[i] = i % 3 ? 1.0f : 0.0f;
    auto const u2 = u2h.to_device(), vflags_d = vflags.to_device();
    dense_matrix<float> m2h(300, 300), mflags(300, 300);
    for (std::size_t i = 0; i < 300; ++i)
        for (std::size_t j = 0; j < 300; ++j)
            m2h(i, j) = float(1 + g() % 100), mflags(i, j) = (i + j) % 3 ? 1.0f : 0.0f;
    auto const m2 = m2h.to_device(), mflags_d = mflags.to_device();
    std::vector<std::int32_t> mi, mj;
    std::vector<float> mv;
    for (std::size_t i = 0; i < 300; ++i)
        for (std::size_t j = 0; j < 300; ++j)
            if ((i * 7 + j) % 5 == 0)
                mi.push_back(std::int32_t(i)), mj.push_back(std::int32_t(j)), mv.push_back(1.0f);
    auto const mcsr = csr_matrix<float, std::int32_t>::from_coo(300, 300, mi, mj, mv,
                                                                duplicate_policy::last)
                          .to_device();

    // The sampled product's temporary (a call cannot allocate with cudaMalloc under capture).
    dense_matrix<float, device> sampled(300, 300);
    captured_stream cs;
    // The masks' flags are made before the capture, on the same context (a mask is built once
    // and used by many calls).
    cuda::dense_mask const vmask(kleene::mask(vflags_d), cs.ctx);
    cuda::dense_mask const vmask_c(kleene::complement(kleene::mask(vflags_d)), cs.ctx);
    cuda::dense_mask const mmask(kleene::mask(mflags_d), cs.ctx);
    // The options of one call on context c (replace: C's entries outside the mask are dropped).
    auto const on = [](context& c, bool replace = false) {
        options o;
        o.ctx = &c;
        o.replace = replace;
        return o;
    };
    struct op {
        char const* name;
        std::function<void(context&, dense_vector<float, device>&, dense_matrix<float, device>&)> run;
    };
    std::vector<op> ops = {
        {"dense_gemm min_plus",
         [&](context& c, auto&, auto& out) {
             cuda::dense_gemm<min_plus<float>>(m.view(), m.view(), out.view(), false, c);
         }},
        {"dense_gemm min_plus over a mask's tiles (sampled), then the masked apply",
         [&](context& c, auto&, auto& out) {
             cuda::dense_gemm<min_plus<float>>(m.view(), m.view(), sampled.view(), mmask, c);
             cuda::apply(out, mmask, no_accum,
                         with_absent(identity_op<float>{}, min_plus<float>::zero()), sampled,
                         on(c));
         }},
        {"apply times 3, dense matrix, CSR mask made dense in the call",
         [&](context& c, auto&, auto& out) {
             cuda::apply(out, cuda::dense_mask(kleene::mask(mcsr), c), no_accum,
                         bind_second(times_op<float>{}, 3.0f), m, on(c));
         }},
        {"spmv min_plus (no long rows)",
         [&](context& c, auto& w, auto&) {
             cuda::spmv<min_plus<float>, std::int32_t>(
                 w, {}, a, u, {.backend = cuda::sparse_backend::generic, .ctx = &c});
         }},
        {"spmv min_plus (long rows)",
         [&](context& c, auto& w, auto&) {
             cuda::spmv<min_plus<float>, std::int32_t>(
                 w, {}, hubs, u, {.backend = cuda::sparse_backend::generic, .ctx = &c});
         }},
        {"jit spmv max.times (long rows)",
         [&](context& c, auto& w, auto&) { cuda::jit::spmv<float, std::int32_t>(w, {}, hubs, u, s, {.ctx = &c}); }},
        {"jit spmv max.times",
         [&](context& c, auto& w, auto&) { cuda::jit::spmv<float, std::int32_t>(w, {}, a, u, s, {.ctx = &c}); }},
        {"jit dense_gemm max.times",
         [&](context& c, auto&, auto& out) {
             cuda::jit::dense_gemm<float>(m.view(), m.view(), out.view(), false, s, c);
         }},
        {"reduce rows plus",
         [&](context& c, auto& w, auto&) {
             cuda::reduce(w, cuda::dense_mask{}, no_accum_t{}, plus_monoid<float>{}, a, on(c));
         }},
        {"ewise_add plus, dense vectors, masked, accumulate plus",
         [&](context& c, auto& w, auto&) {
             cuda::ewise_add(w, vmask, plus_op<float>{}, plus_op<float>{}, u, u2, on(c));
         }},
        {"ewise_mult min, dense matrices, masked, replace",
         [&](context& c, auto&, auto& out) {
             cuda::ewise_mult(out, mmask, no_accum, min_op<float>{}, m, m2, on(c, true));
         }},
        {"ewise_add max, dense matrices",
         [&](context& c, auto&, auto& out) {
             cuda::ewise_add(out, cuda::dense_mask{}, no_accum, max_op<float>{}, m, m2, on(c));
         }},
        {"apply times 3, dense vector, complemented mask, accumulate plus",
         [&](context& c, auto& w, auto&) {
             cuda::apply(w, vmask_c, plus_op<float>{}, bind_second(times_op<float>{}, 3.0f), u,
                         on(c));
         }},
        // A mask made within the captured call: its flags are allocated and released in the
        // graph (stream-ordered memory from the context's pool), no cudaMalloc or cudaFree.
        {"ewise_add plus, dense vectors, mask made in the call, accumulate plus",
         [&](context& c, auto& w, auto&) {
             cuda::ewise_add(w, cuda::dense_mask(kleene::mask(vflags_d), c), plus_op<float>{},
                             plus_op<float>{}, u, u2, on(c));
         }},
        {"apply times 3, dense matrix, complemented mask made in the call, replace",
         [&](context& c, auto&, auto& out) {
             cuda::apply(out, cuda::dense_mask(kleene::complement(kleene::mask(mflags_d)), c),
                         no_accum, bind_second(times_op<float>{}, 3.0f), m, on(c, true));
         }},
        {"transpose dense matrix in place (A copied in the call), masked",
         [&](context& c, auto&, auto& out) {
             cuda::ewise_add(out, cuda::dense_mask{}, no_accum, max_op<float>{}, m, m2, on(c));
             cuda::transpose(out, mmask, no_accum, out, on(c));
         }},
        {"apply times 3, dense matrix",
         [&](context& c, auto&, auto& out) {
             cuda::apply(out, cuda::dense_mask{}, no_accum, bind_second(times_op<float>{}, 3.0f), m,
                         on(c));
         }},
    };
    for (auto const& o : ops) {
        // Zero-filled: each operation writes either the vector or the matrix, and both are compared.
        dense_vector<float> const zeros(n, 0.0f);
        dense_matrix<float> const zero_m(300, 300, 0.0f);
        auto w_eager = zeros.to_device(), w_graph = zeros.to_device();
        auto c_eager = zero_m.to_device(), c_graph = zero_m.to_device();
        // Eager, twice, as the graph is launched twice (an accumulating call adds its result
        // each time); the first also grows the context's scratch before the capture.
        o.run(cs.ctx, w_eager, c_eager);
        o.run(cs.ctx, w_eager, c_eager);
        BOOST_REQUIRE(cudaStreamSynchronize(cs.s) == cudaSuccess);
        std::string error;
        bool const ok = cs.capture_and_replay([&](context& c) { o.run(c, w_graph, c_graph); }, error);
        BOOST_TEST(ok, o.name << ": " << error);
        if (!ok) continue;
        BOOST_TEST((host_of(w_graph) == host_of(w_eager)), o.name);
        auto const x = c_eager.to_host(), y = c_graph.to_host();
        BOOST_TEST(std::equal(x.data(), x.data() + x.rows() * x.cols(), y.data()), o.name);
    }
}

BOOST_AUTO_TEST_CASE(a_call_that_reads_back_fails_the_capture_cleanly) {
    if (!have_gpu(needs::minimal)) return;
    std::mt19937_64 g(2);
    auto const ad = random_csr(500, 6.0, 100, g).to_device();
    captured_stream cs;
    csr_matrix<float, std::int32_t, device> c;
    std::string error;
    auto const run = [&](context& x) {
        cuda::spgemm<min_plus<float>, std::int32_t>(
            c, ad, ad, {.backend = cuda::sparse_backend::generic, .ctx = &x});
    };
    run(cs.ctx);  // eager: scratch grown, as a user would have
    BOOST_TEST(!cs.capture_and_replay(run, error));
    BOOST_TEST(!error.empty());
    BOOST_TEST_MESSAGE("spgemm under capture: " << error);
    // The stream works again afterwards.
    run(cs.ctx);
    BOOST_TEST(cudaStreamSynchronize(cs.s) == cudaSuccess);
    BOOST_TEST(c.nnz() > 0u);
}

namespace {
__global__ void spin_kernel(long long cycles) {
    long long const t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_mask_made_on_another_stream_is_waited_for) {
    if (!have_gpu(needs::minimal)) return;
    // Context A's stream is busy (a kernel spinning about 50 ms) when the mask is made on it, so
    // its flags are written long after the call returns; a call on context B's stream must order
    // itself after A's stream (kleene/cuda/mask.hpp) and read the finished flags. w = u + 3
    // where the mask allows (plus's absent value is 0: u has none), 0 elsewhere.
    std::size_t const n = std::size_t(1) << 20;
    dense_vector<float> flags(n), uh(n);
    for (std::size_t i = 0; i < n; ++i) flags[i] = i % 3 ? 1.0f : 0.0f, uh[i] = float(1 + i % 7);
    auto const flags_d = flags.to_device(), u = uh.to_device();
    dense_vector<float> const zeros(n, 0.0f);
    auto w = zeros.to_device();
    captured_stream a, b;
    options o;
    o.ctx = &b.ctx;
    // Both kernels loaded first: with CUDA's lazy loading, a kernel's first launch may wait for
    // the device's work, the spin included, which would hide a missing order. The warm-up mask
    // is made on a third context, so that A's pool holds no flags from it.
    {
        captured_stream warm_stream;
        cuda::dense_mask const warm(kleene::mask(flags_d), warm_stream.ctx);
        cuda::apply(w, cuda::dense_mask{}, no_accum, bind_second(plus_op<float>{}, 3.0f), u, o);
        BOOST_REQUIRE(cudaStreamSynchronize(warm_stream.s) == cudaSuccess);
        w = zeros.to_device();
    }
    int khz = 0;
    BOOST_REQUIRE(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess);
    spin_kernel<<<1, 1, 0, a.s>>>(static_cast<long long>(khz) * 50);
    BOOST_REQUIRE(cudaGetLastError() == cudaSuccess);
    cuda::dense_mask const mk(kleene::mask(flags_d), a.ctx);
    cuda::apply(w, mk, no_accum, bind_second(plus_op<float>{}, 3.0f), u, o);
    auto const got = host_of(w);
    std::size_t wrong = 0, zero = 0;
    for (std::size_t i = 0; i < n; ++i) {
        float const want = i % 3 ? uh[i] + 3.0f : 0.0f;
        if (got[i] != want) {
            if (wrong < 5) BOOST_TEST_MESSAGE("w[" << i << "] = " << got[i] << ", not " << want);
            ++wrong;
            zero += got[i] == 0.0f;
        }
    }
    BOOST_TEST(wrong == 0u, wrong << " wrong, " << zero << " of them 0");
    // The same once A's stream is idle: the mask's flags themselves are right.
    BOOST_REQUIRE(cudaStreamSynchronize(a.s) == cudaSuccess);
    auto w2 = zeros.to_device();
    cuda::apply(w2, mk, no_accum, bind_second(plus_op<float>{}, 3.0f), u, o);
    auto const got2 = host_of(w2);
    std::size_t wrong2 = 0;
    for (std::size_t i = 0; i < n; ++i) wrong2 += got2[i] != (i % 3 ? uh[i] + 3.0f : 0.0f);
    BOOST_TEST(wrong2 == 0u);
}

namespace {
/// Runs f and returns what it threw as kleene::invalid_argument (empty: nothing thrown).
template <class F>
std::string refusal_of(F&& f) {
    try {
        f();
    } catch (kleene::invalid_argument const& e) {
        return e.what();
    }
    return {};
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_context_of_another_device_is_refused) {
    if (!have_gpu(needs::minimal)) return;
    // A context's stream, pool and handles belong to its device, and the kernels run on the
    // current one: a call on a context of another device is refused before anything is
    // enqueued (context::require_current_device). On a one-GPU host the context names a device
    // that does not exist; on a host of two or more, device 1 while device 0 is current, and then
    // the same calls with device 1 current, which must compute.
    int const count = cuda::device_count();
    int const other = count > 1 ? 1 : count;
    BOOST_REQUIRE(cudaSetDevice(0) == cudaSuccess);
    std::mt19937_64 g(3);
    std::size_t const n = 700;
    auto const ah = random_csr(n, 6.0, 100, g);
    dense_vector<float> uh(n);
    for (std::size_t i = 0; i < n; ++i) uh[i] = float(1 + g() % 9);
    dense_matrix<float> mh(64, 64);
    for (std::size_t i = 0; i < 64; ++i)
        for (std::size_t j = 0; j < 64; ++j) mh(i, j) = float(1 + (i * 7 + j) % 13);
    // The answers on device 0 with its own context.
    auto const a0 = ah.to_device();
    auto const u0 = uh.to_device();
    auto const m0 = mh.to_device();
    dense_vector<float, device> w0(n);
    dense_matrix<float, device> c0(64, 64);
    cuda::spmv<min_plus<float>, std::int32_t>(w0, {}, a0, u0,
                                              {.backend = cuda::sparse_backend::generic});
    cuda::dense_gemm<min_plus<float>>(m0.view(), m0.view(), c0.view(), false, default_context());
    auto const want_w = host_of(w0);
    auto const want_c = c0.to_host();

    context wrong(other);
    std::vector<std::pair<char const*, std::function<void()>>> const calls = {
        {"spmv", [&] {
             cuda::spmv<min_plus<float>, std::int32_t>(
                 w0, {}, a0, u0, {.backend = cuda::sparse_backend::generic, .ctx = &wrong});
         }},
        {"dense_gemm", [&] {
             cuda::dense_gemm<min_plus<float>>(m0.view(), m0.view(), c0.view(), false, wrong);
         }},
        {"dense_mask", [&] { cuda::dense_mask const mk(kleene::mask(u0), wrong); }},
        {"apply", [&] {
             options o;
             o.ctx = &wrong;
             cuda::apply(w0, cuda::dense_mask{}, no_accum, bind_second(plus_op<float>{}, 1.0f),
                         u0, o);
         }},
    };
    std::string const device_named = "device " + std::to_string(other);
    for (auto const& [name, call] : calls) {
        std::string const why = refusal_of(call);
        BOOST_TEST(why.find(device_named) != std::string::npos, name << ": " << why);
        BOOST_TEST(why.find("cudaSetDevice") != std::string::npos, name << ": " << why);
    }
    BOOST_TEST_MESSAGE("refused: " << refusal_of(calls[0].second));
    // Nothing was enqueued: the outputs still hold device 0's answers.
    BOOST_TEST(host_of(w0) == want_w);
    auto const c_after = c0.to_host();
    BOOST_TEST(std::equal(c_after.data(), c_after.data() + 64 * 64, want_c.data()));

    if (count < 2) {
        BOOST_TEST_MESSAGE("one CUDA device: the calls on device 1 with it current not run");
        return;
    }
    // Device 1 current: its own containers and the context of device 1 compute the same answers.
    BOOST_REQUIRE(cudaSetDevice(1) == cudaSuccess);
    {
        auto const a1 = ah.to_device();
        auto const u1 = uh.to_device();
        auto const m1 = mh.to_device();
        dense_vector<float, device> w1(n);
        dense_matrix<float, device> c1(64, 64);
        cuda::spmv<min_plus<float>, std::int32_t>(
            w1, {}, a1, u1, {.backend = cuda::sparse_backend::generic, .ctx = &wrong});
        cuda::dense_gemm<min_plus<float>>(m1.view(), m1.view(), c1.view(), false, wrong);
        BOOST_TEST(host_of(w1) == want_w);
        auto const c1h = c1.to_host();
        BOOST_TEST(std::equal(c1h.data(), c1h.data() + 64 * 64, want_c.data()));
        // And device 0's context is now the one refused.
        context zero(0);
        BOOST_TEST(refusal_of([&] {
                       cuda::spmv<min_plus<float>, std::int32_t>(
                           w1, {}, a1, u1,
                           {.backend = cuda::sparse_backend::generic, .ctx = &zero});
                   }).find("device 0") != std::string::npos);
    }
    BOOST_REQUIRE(cudaSetDevice(0) == cudaSuccess);
}

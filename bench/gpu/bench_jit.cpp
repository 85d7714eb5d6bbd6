// The JIT against the kernels compiled ahead of time (issue "Build in minutes", item 5): the same
// kernel source, once built by nvcc into the library and once by NVRTC at run time.
//   - compile and load costs: a first call (NVRTC, written to an empty cache directory), a call
//     from a new context (the disk cache), a call from the same context (modules in memory);
//   - SpMV on a Kronecker graph (scale 20 by default, edge factor 16, undirected), min_plus and
//     plus_times over float: the library's generic kernel (cuSPARSE off) against the JIT's, whole
//     synchronous calls, median of --runs;
//   - dense GEMM n x n (8192 by default), min_plus over float: the library's generic staged kernel
//     (the checked fp32 path off: tuning::checked_min_updates) and its default, against the JIT's;
//     and a user semiring (max.times, source text) through the JIT alone.
//
//   - SpGEMM A x A, min_plus over float, on a Kronecker graph (--spgemm-scale, default 16, edge
//     factor 8): the library's generic kernels against the JIT's;
//   bench_jit [--scale 20] [--spgemm-scale 16] [--gemm-n 8192] [--runs 10] [--cache DIR]
// Lines starting with RESULT are for scripts.

#include <kleene/algorithms/generate.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/dense_gemm.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/cuda/sparse.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/semiring.hpp>
#include <kleene/vector.hpp>

#include "bench_common.hpp"

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace kleene;
namespace jit = kleene::cuda::jit;

double median_ms(int runs, std::function<void()> const& f) {
    f();  // warm-up
    std::vector<double> t;
    for (int r = 0; r < runs; ++r) {
        auto const t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

jit::semiring_source max_times_source() {
    jit::semiring_source s;
    s.name = "max_times_user";
    s.value_type = "float";
    s.zero = "0.0f";
    s.one = "1.0f";
    s.add = "a > b ? a : b";
    s.mul = "a * b";
    s.idempotent_add = true;
    s.zero_annihilates = true;
    return s;
}

template <class S>
bool same(dense_vector<float, device> const& x, dense_vector<float, device> const& y) {
    auto const a = x.to_host(), b = y.to_host();
    for (std::size_t i = 0; i < a.size(); ++i) {
        bool const ok = std::is_same_v<S, plus_times<float>>
                            ? std::abs(a[i] - b[i]) <= 1e-4f * std::max(1.0f, std::abs(a[i]))
                            : a[i] == b[i];
        if (!ok) return false;
    }
    return true;
}

template <class S>
void spmv_row(char const* name, csr_matrix<float, std::int32_t, device> const& a,
              dense_vector<float, device> const& u, context& ctx, int runs) {
    dense_vector<float, device> w1(a.rows()), w2(a.rows());
    cuda::sparse_options opt;
    opt.ctx = &ctx;
    opt.backend = cuda::sparse_backend::generic;
    auto const s = jit::builtin(name, "float");
    double const aot = median_ms(runs, [&] { cuda::spmv<S, std::int32_t>(w1, {}, a, u, opt); });
    double const jt = median_ms(runs, [&] { jit::spmv<float, std::int32_t>(w2, {}, a, u, s, opt); });
    bool const ok = same<S>(w1, w2);
    std::printf("RESULT spmv %s nnz %zu aot_ms %.3f jit_ms %.3f ratio %.3f equal %d\n", name, a.nnz(),
                aot, jt, jt / aot, int(ok));
}

}  // namespace

int main(int argc, char** argv) {
    int scale = 20, runs = 10, spgemm_scale = 16;
    std::size_t n = 8192;
    std::string cache;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string const k = argv[i];
        if (k == "--scale") scale = std::atoi(argv[i + 1]);
        else if (k == "--gemm-n") n = std::strtoull(argv[i + 1], nullptr, 10);
        else if (k == "--spgemm-scale") spgemm_scale = std::atoi(argv[i + 1]);
        else if (k == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
        else if (k == "--cache") cache = argv[i + 1];
        else {
            std::fprintf(stderr, "bench_jit: unknown option %s\n", k.c_str());
            return 1;
        }
    }
    namespace fs = std::filesystem;
    if (cache.empty()) cache = (fs::temp_directory_path() / ("kleene-bench-jit-" + std::to_string(::getpid()))).string();
    fs::remove_all(cache);
    std::printf("NVRTC %d, cache %s\n", jit::nvrtc_version(), cache.c_str());

    // ---- compile and load costs ----
    {
        kronecker_options small;
        small.scale = 10;
        small.undirected = true;
        auto const g = kronecker_graph<float, std::int32_t>(small);
        auto const a = g.to_device();
        dense_vector<float, device> u(a.cols()), w(a.rows());
        dense_matrix<float, device> da(256, 256), db(256, 256), dc(256, 256);
        for (auto const& [fam, label] : {std::pair{jit::family::spmv, "spmv"}, std::pair{jit::family::gemm, "gemm"}}) {
            jit::report r[3];
            context first, kept;  // kept: the second call's context, used again by the third
            first.tune.jit_cache = kept.tune.jit_cache = cache;
            for (int step = 0; step < 3; ++step) {
                context& ctx = step == 0 ? first : kept;
                auto const t0 = std::chrono::steady_clock::now();
                if (fam == jit::family::spmv)
                    jit::spmv<float, std::int32_t>(w, {}, a, u, max_times_source(), {.ctx = &ctx}, &r[step]);
                else
                    jit::dense_gemm<float>(da.view(), db.view(), dc.view(), false, max_times_source(), ctx, &r[step]);
                double const whole = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                std::printf("RESULT jit_cost %s %s whole_ms %.2f compile_ms %.2f load_ms %.3f  # %s\n", label,
                            step == 0 ? "first" : step == 1 ? "disk" : "memory", whole, r[step].compile_ms,
                            r[step].load_ms, jit::describe(r[step]).c_str());
            }
        }
    }

    context ctx;
    ctx.tune.jit_cache = cache;
    // ---- SpMV on a Kronecker graph ----
    {
        kronecker_options opt;
        opt.scale = scale;
        opt.undirected = true;
        opt.weights = weight_range(1, 100);
        auto const g = kronecker_graph<float, std::int32_t>(opt);
        auto const a = g.to_device();
        dense_vector<float> uh(a.cols());
        for (std::size_t i = 0; i < uh.size(); ++i) uh[i] = float(1 + bench::mix(i) % 9);
        auto const u = uh.to_device();
        std::printf("kron scale %d: %zu vertices, %zu entries\n", scale, a.rows(), a.nnz());
        spmv_row<min_plus<float>>("min_plus", a, u, ctx, runs);
        spmv_row<plus_times<float>>("plus_times", a, u, ctx, runs);
    }
    // ---- SpGEMM A x A on a Kronecker graph (edge factor 8) ----
    if (spgemm_scale > 0) {
        kronecker_options opt;
        opt.scale = spgemm_scale;
        opt.edge_factor = 8;
        opt.undirected = true;
        opt.weights = weight_range(1, 100);
        auto const a = kronecker_graph<float, std::int32_t>(opt).to_device();
        csr_matrix<float, std::int32_t, device> c1, c2;
        cuda::sparse_options o;
        o.ctx = &ctx;
        o.backend = cuda::sparse_backend::generic;
        auto const s = jit::builtin("min_plus", "float");
        double const aot = median_ms(runs, [&] { cuda::spgemm<min_plus<float>, std::int32_t>(c1, a, a, o); });
        double const jt = median_ms(runs, [&] { jit::spgemm<float, std::int32_t>(c2, a, a, s, o); });
        auto const x = c1.to_host(), y = c2.to_host();
        bool const ok = x.nnz() == y.nnz() && std::equal(x.col_idx(), x.col_idx() + x.nnz(), y.col_idx()) &&
                        std::equal(x.values(), x.values() + x.nnz(), y.values());
        std::printf("RESULT spgemm min_plus scale %d nnz_a %zu nnz_c %zu aot_ms %.2f jit_ms %.2f ratio %.3f equal %d\n",
                    spgemm_scale, a.nnz(), x.nnz(), aot, jt, jt / aot, int(ok));
    }
    // ---- dense GEMM ----
    if (n > 0) {
        dense_matrix<float> ha(n, n);
        bench::fill_random_dense(ha, 7);
        auto const da = ha.to_device();
        dense_matrix<float, device> c1(n, n), c2(n, n);
        dense_view<float const, device> const a = da.view();
        double const updates = double(n) * double(n) * double(n);
        context generic;
        generic.tune.checked_min_updates = std::size_t(-1);
        double const aot = median_ms(runs, [&] { cuda::dense_gemm<min_plus<float>>(a, a, c1.view(), false, generic); });
        double const aot_default = median_ms(runs, [&] { cuda::dense_gemm<min_plus<float>>(a, a, c1.view(), false, ctx); });
        auto const s = jit::builtin("min_plus", "float");
        double const jt = median_ms(runs, [&] { jit::dense_gemm<float>(a, a, c2.view(), false, s, ctx); });
        auto const x = c1.to_host(), y = c2.to_host();
        bool ok = true;
        for (std::size_t i = 0; i < n && ok; ++i)
            for (std::size_t j = 0; j < n; ++j) ok &= x(i, j) == y(i, j);
        std::printf("RESULT gemm min_plus n %zu aot_generic_ms %.2f aot_default_ms %.2f jit_ms %.2f ratio %.3f "
                    "jit_tups %.2f equal %d\n",
                    n, aot, aot_default, jt, jt / aot, updates / jt / 1e9, int(ok));
        double const user = median_ms(runs, [&] { jit::dense_gemm<float>(a, a, c2.view(), false, max_times_source(), ctx); });
        std::printf("RESULT gemm max_times_user n %zu jit_ms %.2f jit_tups %.2f\n", n, user, updates / user / 1e9);
    }
    fs::remove_all(cache);
    return 0;
}

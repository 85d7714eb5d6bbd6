// docs/guide.md, "out-of-core apsp": a device-memory cap smaller than the matrix. With a GPU the
// call streams blocks of the host matrix through the device (out-of-core R-Kleene here, pinned);
// without one it runs on the CPU. Either way the distances equal an uncapped CPU run.
#include <kleene/algorithms/apsp.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

int main() {
    using namespace kleene;
    std::size_t const n = 400;
    std::mt19937 gen(3);
    std::uniform_int_distribution<int> vertex(0, int(n) - 1), weight(1, 100);
    std::vector<std::int32_t> from, to;
    std::vector<float> w;
    for (std::size_t e = 0; e < 8 * n; ++e)
        from.push_back(vertex(gen)), to.push_back(vertex(gen)), w.push_back(float(weight(gen)));
    auto const a = csr_matrix<float>::from_coo(n, n, from, to, w, duplicate_policy::min);

    bool const gpu = cuda::device_count() > 0;
    apsp_options opt;
    opt.algorithm = apsp_algorithm::rkleene;
    opt.device = gpu ? device_choice::gpu : device_choice::cpu;
    opt.max_device_bytes = n * n * sizeof(float) * 6 / 10;  // 60% of the matrix: out of core
    explain_trace why;
    opt.explain = &why;
    auto const capped = apsp(a, opt);
    std::printf("%s", why.str().c_str());  // on a GPU: "chose out of core on gpu", then the plan

    auto const reference = apsp(a, {.device = device_choice::cpu});
    bool ok = !gpu || why.str().find("out of core") != std::string::npos;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) ok &= capped.dist(i, j) == reference.dist(i, j);
    std::printf("%s: %s\n", gpu ? "out of core on the gpu" : "no gpu, cpu", ok ? "equal" : "DIFFERENT");
    return ok ? 0 : 1;
}

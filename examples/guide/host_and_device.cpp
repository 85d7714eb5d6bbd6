// docs/guide.md, "One API for host and device": the same function, written once, runs on host
// containers (CPU kernels) and on their device copies (CUDA kernels); the results are equal.
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

// Two-hop shortest distances that are not already edges, with a mask, an accumulator and
// replace; then the row minima. Nothing here names a memory space or a backend.
template <class Csr, class Vec>
void two_hops(Csr const& a, Csr& c, Vec& row_min) {
    using namespace kleene;
    c = a;  // start from the edges themselves
    mxm(c, complement(structure(a)), min_op<float>{}, a, a, min_plus<float>{}, {.replace = true});
    reduce(row_min, min_monoid<float>{}, c);
}

int main() {
    using namespace kleene;
    std::vector<int> const i{0, 0, 1, 2, 3}, j{1, 2, 3, 3, 0};
    std::vector<float> const w{1.5f, 4.0f, 2.0f, 0.5f, 1.0f};
    auto const a = csr_matrix<float>::from_coo(4, 4, i, j, w);

    csr_matrix<float> c(4, 4);
    dense_vector<float> m(4);
    two_hops(a, c, m);  // on the CPU
    std::printf("host:   %zu two-hop pairs, row 0 minimum %g\n", c.nnz(), double(m[0]));

    if (cuda::device_count() == 0) {
        std::printf("device: no GPU here, skipped\n");
        return 0;
    }
    auto const a_d = a.to_device();  // explicit copies; nothing moves behind your back
    csr_matrix<float, std::int32_t, device> c_d(4, 4);
    dense_vector<float, device> m_d(4);
    two_hops(a_d, c_d, m_d);  // the same code on the GPU
    auto const c_h = c_d.to_host();
    auto const m_h = m_d.to_host();
    std::printf("device: %zu two-hop pairs, row 0 minimum %g\n", c_h.nnz(), double(m_h[0]));
    bool same = c_h.nnz() == c.nnz();
    for (std::size_t k = 0; same && k < c.nnz(); ++k)
        same = c_h.col_idx()[k] == c.col_idx()[k] && c_h.value(k) == c.value(k);
    for (std::size_t r = 0; r < 4; ++r) same = same && m_h[r] == m[r];
    return same ? 0 : 1;
}

// docs/guide.md, "Concepts": containers, semirings, masks, accumulators, replace, pinned kernels
// and the explain trace, each checked against a result worked out by hand.
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    using namespace kleene;
    bool ok = true;

    // Containers: a 4-vertex weighted graph from coordinates (0-based rows, columns, values).
    std::vector<int> const i{0, 0, 1, 2}, j{1, 2, 3, 3};
    std::vector<float> const w{1.5f, 4.0f, 2.0f, 0.5f};
    auto const a = csr_matrix<float>::from_coo(4, 4, i, j, w);

    // Semirings: C = A min.+ A, two-hop shortest distances (CSR x CSR, Gustavson).
    csr_matrix<float> c(4, 4);
    explain_trace why;
    mxm(c, a, a, min_plus<float>{}, {.explain = &why});
    std::printf("%s", why.str().c_str());
    // 0->1->3 = 3.5 and 0->2->3 = 4.5: the min is 3.5, the only two-hop pair.
    ok &= c.nnz() == 1 && c.find(0, 3) >= 0 && c.value(std::size_t(c.find(0, 3))) == 3.5f;

    // The same product with the kernel pinned, and through dense storage (absent = +inf).
    csr_matrix<float> c2(4, 4);
    mxm(c2, a, a, min_plus<float>{}, {.kernel = kernel_choice::gustavson_hash, .explain = &why});
    dense_matrix<float> const d = to_dense<min_plus<float>>(a);
    dense_matrix<float> d2(4, 4);
    mxm(d2, d, d, min_plus<float>{});
    ok &= c2.nnz() == 1 && d2(0, 3) == 3.5f && d2(1, 0) == infinity<float>();

    // Masks, accumulator, replace: C<!structure(A), replace> min= A min.+ A. The mask lets C
    // keep only entries where A has none; replace deletes C's entries outside the mask.
    csr_matrix<float> acc = a;  // starts with A's own four entries
    mxm(acc, complement(structure(a)), min_op<float>{}, a, a, min_plus<float>{}, {.replace = true});
    ok &= acc.nnz() == 1 && acc.find(0, 3) >= 0;

    // A structural mask keeps the product only where A has an entry: (0, 3) is not one.
    csr_matrix<float> masked(4, 4);
    mxm(masked, structure(a), no_accum, a, a, min_plus<float>{});
    ok &= masked.nnz() == 0;

    // Spaces: device containers are explicit copies; an operation on them runs on the GPU.
    // Without a GPU (or a build without CUDA) the copy itself throws no_device.
    try {
        dense_matrix<float, device> dd = d.to_device(), dd2(4, 4);
        mxm(dd2, dd, dd, min_plus<float>{});
        ok &= dd2.to_host()(0, 3) == 3.5f;
    } catch (no_device const& e) {
        std::printf("no_device: %s\n", e.what());
        ok &= cuda::device_count() == 0;
    }
    // Host containers with the GPU asked for: invalid_argument (move them with to_device()).
    try {
        csr_matrix<float> c3(4, 4);
        mxm(c3, a, a, min_plus<float>{}, {.device = device_choice::gpu});
        ok = false;
    } catch (invalid_argument const& e) {
        std::printf("invalid_argument: %s\n", e.what());
    }

    // Errors: shapes that do not fit name both shapes.
    try {
        csr_matrix<float> wrong(3, 3);
        mxm(wrong, a, a, min_plus<float>{});
        ok = false;
    } catch (dimension_mismatch const& e) {
        std::printf("dimension_mismatch: %s\n", e.what());
    }
    return ok ? 0 : 1;
}

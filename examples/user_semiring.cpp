// A user-defined semiring: the "most reliable path" semiring over probabilities, (max, *), on
// float. Each edge holds the probability that a link works; the product of two matrices gives, for
// every pair, the probability of the most reliable two-hop route. The example runs it through
// every product and checks the results against each other.

#include <kleene/kleene.hpp>

#include <cmath>
#include <cstdio>
#include <random>

struct reliability {
    using value_type = float;
    static constexpr bool idempotent_add = true;
    static constexpr bool has_terminal = true;  // probability 1 cannot be beaten
    KLEENE_HD static constexpr float zero() { return 0.0f; }
    KLEENE_HD static constexpr float one() { return 1.0f; }
    KLEENE_HD static constexpr float terminal() { return 1.0f; }
    KLEENE_HD static constexpr float add(float a, float b) { return a < b ? b : a; }
    KLEENE_HD static constexpr float mul(float a, float b) { return a * b; }
};
static_assert(kleene::semiring_type<reliability>);

int main() {
    using namespace kleene;
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> p(0.5f, 1.0f);
    std::bernoulli_distribution edge(0.2);
    std::size_t const n = 60;
    std::vector<int> ii, jj;
    std::vector<float> vv;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j && edge(gen)) {
                ii.push_back(int(i));
                jj.push_back(int(j));
                vv.push_back(p(gen));
            }
    auto const a = csr_matrix<float>::from_coo(n, n, ii, jj, vv);
    auto const ad = to_dense<reliability>(a);

    csr_matrix<float> c_sparse(n, n);
    dense_matrix<float> c_dense(n, n), c_mixed(n, n);
    mxm(c_sparse, a, a, reliability{});
    mxm(c_dense, ad, ad, reliability{});
    mxm(c_mixed, a, ad, reliability{});
    auto const c_sd = to_dense<reliability>(c_sparse);

    dense_vector<float> x(n, 0.0f), y(n), z(n);
    x[0] = 1.0f;
    vxm(y, x, a, reliability{});
    mxv(z, ad, x, reliability{});  // z_i: reliability of the link i -> 0

    int bad = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            float const want = c_dense(i, j);
            bad += std::fabs(c_sd(i, j) - want) > 1e-6f;
            bad += std::fabs(c_mixed(i, j) - want) > 1e-6f;
        }
    for (std::size_t j = 0; j < n; ++j) {
        bad += std::fabs(y[j] - ad(0, j)) > 1e-6f;
        bad += std::fabs(z[j] - ad(j, 0)) > 1e-6f;
    }
    float best = 0;
    std::size_t bi = 0, bj = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j && c_dense(i, j) > best) best = c_dense(i, j), bi = i, bj = j;
    std::printf("most reliable two-hop route: %zu -> %zu with probability %.3f\n", bi, bj, best);
    std::printf("%d mismatches between storage pairs\n", bad);
    return bad == 0 ? 0 : 1;
}

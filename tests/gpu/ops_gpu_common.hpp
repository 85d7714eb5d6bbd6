#pragma once
// Shared by the GPU operation suites (test_operations_gpu, test_structure_gpu): random CSR, dense
// and mask inputs with small integer values (every result exact), the mask kinds as CPU views and
// as GPU masks, and exact comparisons of a device result with the CPU's. Host code only.

#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/operations.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace kleene::test {

using rng = std::mt19937_64;
using value_types = boost::mpl::list<float, double, std::int32_t, std::int64_t>;
using shape_list = std::vector<std::pair<std::size_t, std::size_t>>;

inline std::string dims(std::size_t rows, std::size_t cols) {
    return std::to_string(rows) + "x" + std::to_string(cols);
}

/// Values 1..9, or 1..2 where long products must stay exact (times).
template <class T>
T some_value(rng& g, int top = 9) {
    return T(1 + static_cast<int>(g() % static_cast<unsigned>(top)));
}

/// Random rows (Poisson lengths, a tenth empty, three of cols / 2 entries when cols > 500).
template <class T, class I>
csr_matrix<T, I> random_csr(std::size_t rows, std::size_t cols, double mean, rng& g,
                            bool iso = false, int top = 9) {
    std::poisson_distribution<int> d(mean);
    std::vector<std::size_t> lens(rows);
    for (auto& l : lens) l = g() % 10 == 0 ? 0 : std::min(cols, std::size_t(d(g)));
    if (cols > 500)
        for (std::size_t h = 0; h < 3 && rows > 0; ++h) lens[(h * 7919) % rows] = cols / 2;
    std::vector<std::size_t> all(cols);
    std::iota(all.begin(), all.end(), std::size_t(0));
    buffer<I> ptr(rows + 1);
    ptr[0] = 0;
    std::vector<I> col;
    for (std::size_t i = 0; i < rows; ++i) {
        std::vector<std::size_t> pick;
        std::sample(all.begin(), all.end(), std::back_inserter(pick), lens[i], g);
        for (auto j : pick) col.push_back(static_cast<I>(j));
        ptr[i + 1] = static_cast<I>(col.size());
    }
    buffer<I> c(col.size());
    std::copy(col.begin(), col.end(), c.begin());
    buffer<T> v(iso ? 0 : col.size());
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = some_value<T>(g, top);
    return csr_matrix<T, I>(rows, cols, std::move(ptr), std::move(c), std::move(v),
                            T(top == 9 ? 3 : 2));
}

/// Dense entries: `absent` with probability 0.3, else a small integer.
template <class T>
void fill_dense(T* p, std::size_t n, T absent, rng& g, int top = 9) {
    for (std::size_t k = 0; k < n; ++k) p[k] = g() % 10 < 3 ? absent : some_value<T>(g, top);
}
template <class T>
dense_matrix<T> random_dense(std::size_t rows, std::size_t cols, T absent, rng& g, int top = 9) {
    dense_matrix<T> m(rows, cols);
    fill_dense(m.data(), rows * cols, absent, g, top);
    return m;
}
template <class T>
dense_vector<T> random_vector(std::size_t n, T absent, rng& g) {
    dense_vector<T> v(n);
    fill_dense(v.data(), n, absent, g);
    return v;
}

/// Mask values 0 (off for a valued mask), 1 or 2.
inline dense_matrix<std::int32_t> random_mask(std::size_t rows, std::size_t cols, rng& g) {
    dense_matrix<std::int32_t> m(rows, cols);
    for (std::size_t k = 0; k < rows * cols; ++k) m.data()[k] = std::int32_t(g() % 3);
    return m;
}
inline dense_vector<std::int32_t> random_mask(std::size_t n, rng& g) {
    dense_vector<std::int32_t> m(n);
    for (std::size_t k = 0; k < n; ++k) m.data()[k] = std::int32_t(g() % 3);
    return m;
}
template <class I>
csr_matrix<std::int32_t, I> random_csr_mask(std::size_t rows, std::size_t cols, rng& g) {
    auto m = random_csr<std::int32_t, I>(rows, cols, 3.0, g);
    for (std::size_t k = 0; k < m.nnz(); ++k) m.values()[k] = std::int32_t(g() % 3);
    return m;
}

enum class mask_kind { none, valued, structural, complement_valued, complement_structural };
constexpr mask_kind all_masks[] = {mask_kind::none, mask_kind::valued, mask_kind::structural,
                                   mask_kind::complement_valued, mask_kind::complement_structural};

/// f(mask) with the mask view of kind k over m (host or device).
template <class M, class F>
void with_mask(mask_kind k, M const& m, F&& f) {
    switch (k) {
        case mask_kind::none: f(no_mask); break;
        case mask_kind::valued: f(kleene::mask(m)); break;
        case mask_kind::structural: f(kleene::structure(m)); break;
        case mask_kind::complement_valued: f(kleene::complement(kleene::mask(m))); break;
        case mask_kind::complement_structural: f(kleene::complement(kleene::structure(m))); break;
    }
}
template <class M>
cuda::dense_mask gpu_dense_mask(mask_kind k, M const& md) {
    cuda::dense_mask gm;
    with_mask(k, md, [&](auto mk) {
        if constexpr (!std::is_same_v<decltype(mk), no_mask_t>) gm = mk;
    });
    return gm;
}
template <class I>
cuda::csr_mask<I> gpu_csr_mask(mask_kind k, csr_matrix<std::int32_t, I, device> const& md) {
    cuda::csr_mask<I> gm;
    with_mask(k, md, [&](auto mk) {
        if constexpr (!std::is_same_v<decltype(mk), no_mask_t>) gm = cuda::csr_mask<I>(mk);
    });
    return gm;
}

template <class T>
auto accums() {
    return std::tuple{no_accum, plus_op<T>{}, min_op<T>{}};
}
template <class Tuple, class F>
void for_each(Tuple const& t, F&& f) {
    std::apply([&](auto const&... x) { (f(x), ...); }, t);
}
/// f(mask kind, accumulator, replace) for every combination.
template <class T, class F>
void for_all_write_backs(F&& f) {
    for (auto k : all_masks)
        for (bool replace : {false, true})
            for_each(accums<T>(), [&](auto accum) { f(k, accum, replace); });
}
template <class K, class A>
std::string describe(K k, A const& accum, bool replace) {
    return std::string(" mask ") + std::to_string(int(k)) + " accum " + typeid(accum).name() +
           (replace ? " replace" : "");
}

template <class T, class I>
void check_same(csr_matrix<T, I> const& want, csr_matrix<T, I, device> const& got_d,
                std::string const& what) {
    BOOST_TEST_INFO(what);
    auto const got = got_d.to_host();
    BOOST_TEST_REQUIRE(got.rows() == want.rows());
    BOOST_TEST_REQUIRE(got.cols() == want.cols());
    BOOST_TEST_REQUIRE(got.nnz() == want.nnz());
    for (std::size_t i = 0; i <= want.rows(); ++i)
        BOOST_TEST_REQUIRE(got.row_ptr()[i] == want.row_ptr()[i]);
    for (std::size_t k = 0; k < want.nnz(); ++k) {
        BOOST_TEST_REQUIRE(got.col_idx()[k] == want.col_idx()[k]);
        BOOST_TEST_REQUIRE(got.value(k) == want.value(k));
    }
}
template <class T>
void check_same(T const* want, T const* got, std::size_t n, std::string const& what) {
    BOOST_TEST_INFO(what);
    std::size_t bad = 0;
    for (std::size_t k = 0; k < n; ++k) bad += !(want[k] == got[k]);
    BOOST_TEST(bad == 0u);
}
template <class T>
void check_same(dense_matrix<T> const& want, dense_matrix<T, device> const& got,
                std::string const& what) {
    auto const h = got.to_host();
    check_same(want.data(), h.data(), want.rows() * want.cols(), what);
}
template <class T>
void check_same(dense_vector<T> const& want, dense_vector<T, device> const& got,
                std::string const& what) {
    auto const h = got.to_host();
    check_same(want.data(), h.data(), want.size(), what);
}

}  // namespace kleene::test

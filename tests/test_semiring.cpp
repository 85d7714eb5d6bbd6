#define BOOST_TEST_MODULE semiring
#include <boost/test/unit_test.hpp>
#include <kleene/kleene.hpp>

#include <climits>
#include <cstdint>

using namespace kleene;

BOOST_AUTO_TEST_CASE(identities_and_annihilators) {
    BOOST_TEST(min_plus<float>::zero() == infinity<float>());
    BOOST_TEST(min_plus<float>::one() == 0.0f);
    BOOST_TEST(max_plus<double>::zero() == -infinity<double>());
    BOOST_TEST(plus_times<int>::zero() == 0);
    BOOST_TEST(plus_times<int>::one() == 1);
    BOOST_TEST(max_min<int>::zero() == INT_MIN);
    BOOST_TEST(max_min<int>::one() == INT_MAX);
    BOOST_TEST(min_max<int>::zero() == INT_MAX);
    BOOST_TEST(lor_land<bool>::zero() == false);
    BOOST_TEST(lor_land<bool>::one() == true);
    static_assert(min_plus<float>::idempotent_add && !plus_times<float>::idempotent_add);
    static_assert(zero_annihilates<min_plus<int>>() && zero_annihilates<plus_times<double>>());
    static_assert(!zero_annihilates<any_pair<bool>>() && !zero_annihilates<min_first<float>>());
    static_assert(std::is_same_v<dense_safe<min_plus<float>>, min_plus<float>>);
}

BOOST_AUTO_TEST_CASE(integer_min_plus_saturates) {
    using S = min_plus<std::int32_t>;
    constexpr std::int32_t inf = infinity<std::int32_t>();
    BOOST_TEST(S::mul(inf, 5) == inf);
    BOOST_TEST(S::mul(5, inf) == inf);
    BOOST_TEST(S::mul(inf, -7) == inf);
    BOOST_TEST(S::mul(INT_MAX - 1, 10) == inf);  // overflow clamps to the sentinel
    BOOST_TEST(S::mul(INT_MIN + 1, -10) == INT_MIN);
    BOOST_TEST(S::mul(3, -4) == -1);
    BOOST_TEST(S::add(inf, 3) == 3);
    using M = max_plus<std::int64_t>;
    BOOST_TEST(M::mul(M::zero(), 9) == M::zero());
}

BOOST_AUTO_TEST_CASE(terminal_values) {
    BOOST_TEST(is_terminal<lor_land<bool>>(true));
    BOOST_TEST(!is_terminal<lor_land<bool>>(false));
    BOOST_TEST(is_terminal<any_pair<bool>>(false));  // any: every value ends the sum
    BOOST_TEST(!is_terminal<plus_times<float>>(1e30f));
    BOOST_TEST(is_terminal<min_plus<float>>(-infinity<float>()));
}

BOOST_AUTO_TEST_CASE(absent_aware_mul) {
    using S = absent_aware<plus_pair<int>>;
    BOOST_TEST(S::mul(0, 5) == 0);
    BOOST_TEST(S::mul(3, 5) == 1);
}

#pragma once
// KLEENE_TEST_SANITIZE is defined in builds with host sanitizers (KLEENE_SANITIZE, tests/
// CMakeLists.txt): the slow GraphBLAS-oracle suites then draw fewer or smaller random cases, so
// that each finishes in about a minute under ASan on two cores. Normal builds run every case.

#include <cstddef>
#include <vector>

namespace kleene_test {

#ifdef KLEENE_TEST_SANITIZE
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif

/// The cases a suite draws: all of them normally, under the sanitizers only those whose
/// `keep(case)` holds (the small and degenerate shapes, which reach the same code paths).
template <class C, class Keep>
std::vector<C> sanitizer_subset(std::vector<C> const& all, Keep keep) {
    if (!sanitized) return all;
    std::vector<C> out;
    for (auto const& c : all)
        if (keep(c)) out.push_back(c);
    return out;
}

}  // namespace kleene_test

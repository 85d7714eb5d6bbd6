#pragma once
// The CPU benchmarks' clock: the best of `runs` calls of f, in milliseconds.

#include <algorithm>
#include <chrono>

namespace kleene::bench {

template <class F>
double best_ms(int runs, F&& f) {
    double best = 1e300;
    for (int r = 0; r < runs; ++r) {
        auto const t0 = std::chrono::steady_clock::now();
        f();
        auto const t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return best;
}

}  // namespace kleene::bench

#pragma once
// The benchmarks' clocks: the best, or the median after one warm-up call, of `runs` calls of f,
// in milliseconds.

#include <algorithm>
#include <chrono>
#include <vector>

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

template <class F>
double median_ms(int runs, F&& f) {
    f();  // warm-up
    std::vector<double> t;
    for (int r = 0; r < runs; ++r) {
        auto const t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count());
    }
    std::sort(t.begin(), t.end());
    return t.empty() ? 0 : t[t.size() / 2];
}

}  // namespace kleene::bench

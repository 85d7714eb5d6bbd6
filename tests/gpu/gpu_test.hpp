#pragma once
// What every GPU suite shares: the skip rule. A case starts with `if (!have_gpu()) return;`, so
// the suites pass with a clear message on machines without a device (CI) and run in full on the
// GPU host.

#include <boost/test/unit_test.hpp>
#include <kleene/cuda/runtime.hpp>

namespace kleene::test {

inline bool have_gpu() {
    if (cuda::device_count() > 0) return true;
    BOOST_TEST_MESSAGE("no CUDA device: GPU test skipped");
    return false;
}

}  // namespace kleene::test

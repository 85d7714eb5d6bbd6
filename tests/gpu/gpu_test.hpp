#pragma once
// What every GPU suite shares: the skip rule. A case starts with `if (!have_gpu()) return;`, so
// the suites pass with a clear message on machines without a device (CI) and run in full on the
// GPU host. They cover builtin's instances: a KLEENE_INSTANCES=minimal build (CI's) compiles them
// but skips them, since its left-out pairs throw missing_instance (docs/architecture.md).

#include <boost/test/unit_test.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/instance_lists.hpp>
#include <string_view>

namespace kleene::test {

inline bool have_gpu() {
    if (std::string_view(KLEENE_INSTANCE_SET) == "minimal") {
        BOOST_TEST_MESSAGE("KLEENE_INSTANCES=minimal: GPU test skipped (build builtin or all)");
        return false;
    }
    if (cuda::device_count() > 0) return true;
    BOOST_TEST_MESSAGE("no CUDA device: GPU test skipped");
    return false;
}

}  // namespace kleene::test

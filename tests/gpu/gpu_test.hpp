#pragma once
// What every GPU suite shares: the skip rule. A case starts with `if (!have_gpu()) return;`, so
// the suites pass with a clear message on machines without a device (CI) and run in full on the
// GPU host. Most suites cover builtin's instances: a KLEENE_INSTANCES=minimal build (CI's)
// compiles them but skips them, since its left-out pairs throw missing_instance
// (docs/architecture.md). Suites that call only what the minimal set keeps (the algorithms, the
// JIT) say so, `have_gpu(needs::minimal)`, and run in every build that has a device.

#include <boost/test/unit_test.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/instance_lists.hpp>
#include <string_view>

namespace kleene::test {

/// The instance set a case's calls need.
enum class needs { minimal, builtin };

inline bool have_gpu(needs set = needs::builtin) {
    if (set == needs::builtin && std::string_view(KLEENE_INSTANCE_SET) == "minimal") {
        BOOST_TEST_MESSAGE("KLEENE_INSTANCES=minimal: GPU test skipped (build builtin or all)");
        return false;
    }
    if (cuda::device_count() > 0) return true;
    BOOST_TEST_MESSAGE("no CUDA device: GPU test skipped");
    return false;
}

}  // namespace kleene::test

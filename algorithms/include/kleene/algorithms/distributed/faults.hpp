#pragma once
// Failures planted on purpose (tests): one rank fails at one step of the distributed
// Floyd-Warshall, so that the tests can check that every rank ends, in bounded time, with the same
// error (docs/distributed.md, "Failures on one rank"). A plan is a plain value passed in
// options::fault (the CLI's hidden --inject-fault); nothing is read from the environment.

#include <signal.h>

#include <chrono>
#include <cstddef>
#include <kleene/error.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace kleene::distributed {

struct fault_plan {
    enum class kind {
        none,
        /// The set-up's buffers refused on the rank (host panels, device buffers): before any
        /// broadcast of the call.
        setup,
        /// An exception in one of the step's tiles (host: on a worker thread of the update;
        /// device: once the step's work and broadcasts are queued, as a kernel error would come).
        exception,
        /// A host allocation refused while the step prepares its panels, before their broadcasts
        /// (host: on the thread that talks to MPI; device: as `exception`).
        allocation,
        /// The process ends by SIGKILL at the start of the step.
        kill,
        /// The rank stops answering at the start of the step (sleeps until the job is ended).
        hang,
    };
    kind what = kind::none;
    int rank = 0;
    /// 1-based, as the messages count steps.
    std::size_t step = 1;

    /// Whether the plan fails `r` at 0-based step k with `w`.
    bool at(kind w, int r, std::size_t k) const { return what == w && r == rank && k + 1 == step; }
    bool at_setup(int r) const { return what == kind::setup && r == rank; }
};

/// "KIND:RANK:STEP" (STEP 1-based; "setup:RANK" takes none), KIND one of setup, exception,
/// allocation, kill, hang.
inline fault_plan parse_fault_plan(std::string const& s) {
    auto bad = [&](char const* why) {
        return invalid_argument("fault plan '" + s + "': " + why +
                                " (KIND:RANK:STEP, KIND setup, exception, allocation, kill or "
                                "hang, STEP from 1; setup:RANK)");
    };
    std::size_t const a = s.find(':');
    if (a == std::string::npos) throw bad("no rank");
    using K = fault_plan::kind;
    static constexpr std::pair<std::string_view, K> kinds[] = {{"setup", K::setup},
                                                               {"exception", K::exception},
                                                               {"allocation", K::allocation},
                                                               {"kill", K::kill},
                                                               {"hang", K::hang}};
    fault_plan p;
    p.what = K::none;
    for (auto const& [name, k] : kinds)
        if (s.compare(0, a, name) == 0) p.what = k;
    if (p.what == K::none) throw bad("unknown kind");
    std::size_t const b = s.find(':', a + 1);
    auto number = [&](std::string const& t) {
        if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos)
            throw bad("not a number");
        return std::stoul(t);
    };
    p.rank = static_cast<int>(number(s.substr(a + 1, b == std::string::npos ? b : b - a - 1)));
    if (p.what == K::setup) {
        if (b != std::string::npos) throw bad("setup takes no step");
        return p;
    }
    if (b == std::string::npos) throw bad("no step");
    p.step = number(s.substr(b + 1));
    if (p.step == 0) throw bad("steps count from 1");
    return p;
}

namespace detail {
/// The plan's kill and hang, at the start of 0-based step k on rank r.
inline void fault_at_step_start(fault_plan const& f, int r, std::size_t k) {
    if (f.at(fault_plan::kind::kill, r, k)) ::raise(SIGKILL);
    if (f.at(fault_plan::kind::hang, r, k))
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}
}  // namespace detail

}  // namespace kleene::distributed

#pragma once
// Progress on stderr for long work, shown only when stderr is a terminal and --quiet is not given.
// A command names its phases ("reading A.mtx", "product", "writing C.mtx"); a phase that runs past
// a short delay gets a live line with its elapsed time, redrawn in place, and leaves one finished
// line ("kleene: reading A.mtx: 2.31 s") when it ends. Short phases print nothing, so quick
// commands stay silent. KLEENE_PROGRESS=always|never overrides the terminal test (for scripts and
// the tests), KLEENE_PROGRESS_AFTER=seconds the delay (default 0.5).

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace kleene::tools {

class progress {
public:
    explicit progress(bool quiet);
    ~progress();
    progress(progress const&) = delete;
    progress& operator=(progress const&) = delete;

    /// Ends the current phase (if any) and starts `what`.
    void phase(std::string what);
    /// Ends the current phase.
    void done();
    bool enabled() const noexcept { return enabled_; }

private:
    using clock = std::chrono::steady_clock;
    void tick();
    void finish_locked();

    bool enabled_ = false;
    double after_s_ = 0.5;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::string what_;
    clock::time_point start_{};
    bool active_ = false;  // a phase is running
    bool shown_ = false;   // its live line is on the terminal
    bool stop_ = false;
    std::thread ticker_;
};

/// Runs f() as one phase of p and returns its result.
template <class F>
decltype(auto) in_phase(progress& p, std::string what, F&& f) {
    p.phase(std::move(what));
    struct end_phase {
        progress& p;
        ~end_phase() { p.done(); }
    } guard{p};
    return f();
}

}  // namespace kleene::tools

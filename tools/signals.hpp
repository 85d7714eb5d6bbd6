#pragma once
// Removing the temporaries of unfinished outputs when `kleene` is stopped by SIGINT, SIGTERM or
// SIGHUP, after which the process still dies of that signal (a shell sees 130 / 143 / 129).
//
// The signals are blocked in every thread (the mask is set first thing in main, before any thread
// exists, and threads inherit it) and taken by one thread with sigwait(). That thread runs
// ordinary code, not a signal handler, so it may lock and allocate: it takes the registry's lock,
// unlinks every registered name, restores the default action and raises the signal again. An
// output_file registers a temporary's name before creating it and unregisters it only after the
// rename or unlink (io::temp_observer), so there is no moment at which a signal could strand one.
// Signals ignored when kleene starts (nohup; SIGINT for a background job of a script) stay
// ignored. SIGKILL cannot be caught: it may leave a `.NAME.tmp.XXXXXX` behind.

#include <kleene/io/output_file.hpp>

#include <mutex>
#include <string>
#include <vector>

namespace kleene::tools {

class temp_registry final : public io::temp_observer {
  public:
    /// Blocks the signals and starts the waiting thread: call before any other thread starts.
    /// Never destroyed (that thread may use it until the process ends): make it with new.
    temp_registry();
    temp_registry(temp_registry const&) = delete;
    temp_registry& operator=(temp_registry const&) = delete;

    void add(std::string const& tmp) override;
    void remove(std::string const& tmp) override;

  private:
    ~temp_registry() = default;
    [[noreturn]] void wait_and_clean();

    std::mutex mutex_;
    std::vector<std::string> names_;
};

}  // namespace kleene::tools

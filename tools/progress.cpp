#include "progress.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <unistd.h>

namespace kleene::tools {

progress::progress(bool quiet) {
    std::string_view const mode = std::getenv("KLEENE_PROGRESS") ? std::getenv("KLEENE_PROGRESS") : "";
    if (mode == "always") enabled_ = !quiet;
    else if (mode == "never") enabled_ = false;
    else enabled_ = !quiet && isatty(STDERR_FILENO) == 1;
    if (char const* a = std::getenv("KLEENE_PROGRESS_AFTER")) after_s_ = std::atof(a);
    if (enabled_) ticker_ = std::thread([this] { tick(); });
}

progress::~progress() {
    if (!enabled_) return;
    {
        std::lock_guard lock(mutex_);
        finish_locked();
        stop_ = true;
    }
    wake_.notify_all();
    ticker_.join();
}

void progress::phase(std::string what) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    finish_locked();
    what_ = std::move(what);
    start_ = clock::now();
    active_ = true;
    wake_.notify_all();
}

void progress::done() {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    finish_locked();
}

void progress::finish_locked() {
    if (!active_) return;
    double const s = std::chrono::duration<double>(clock::now() - start_).count();
    if (shown_ || s >= after_s_) fmt::print(stderr, "\r\033[Kkleene: {}: {:.2f} s\n", what_, s);
    std::fflush(stderr);
    active_ = false;
    shown_ = false;
}

void progress::tick() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::milliseconds(200));
        if (!active_) continue;
        double const s = std::chrono::duration<double>(clock::now() - start_).count();
        if (s < after_s_) continue;
        fmt::print(stderr, "\r\033[Kkleene: {} ... {:.1f} s", what_, s);
        std::fflush(stderr);
        shown_ = true;
    }
}

}  // namespace kleene::tools

#include "signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

namespace kleene::tools {
namespace {

constexpr int handled[] = {SIGINT, SIGTERM, SIGHUP};

/// The handled signals that are not ignored (an ignored signal stays ignored).
sigset_t caught_set() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : handled) {
        struct sigaction old {};
        if (sigaction(s, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) sigaddset(&set, s);
    }
    return set;
}

}  // namespace

temp_registry::temp_registry() {
    sigset_t const set = caught_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([this] { wait_and_clean(); }).detach();
}

void temp_registry::add(std::string const& tmp) {
    std::lock_guard lock(mutex_);
    names_.push_back(tmp);
}

void temp_registry::remove(std::string const& tmp) {
    std::lock_guard lock(mutex_);
    auto const it = std::find(names_.begin(), names_.end(), tmp);
    if (it != names_.end()) names_.erase(it);
}

void temp_registry::wait_and_clean() {
    sigset_t const set = caught_set();
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    mutex_.lock();  // held until the process is gone: nothing is created or renamed after this
    for (auto const& n : names_) ::unlink(n.c_str());
    ::signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
    ::raise(sig);
    ::_exit(128 + sig);  // not reached: the default action of these signals ends the process
}

}  // namespace kleene::tools

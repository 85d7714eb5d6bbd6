// kleene::context (context.hpp): the host part; the CUDA backend fills its device_state.
// Compiled into kleene_cuda (with or without CUDA), below the operations that use it.

#include <kleene/context.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/error.hpp>

#include <omp.h>

#include <string>
#include <vector>

namespace kleene {

void detail::device_state_deleter::operator()(device_state* s) const noexcept {
    // The device resources go on their own device (a thread may have made another current since
    // they were made: its scratch is freed on the context's stream, its handles destroyed there).
    // A default context releases nothing (keep_handles): no CUDA call, the runtime may be gone.
    if (s->keep_handles) {
        delete s;
        return;
    }
    int const here = cuda::current_device();
    bool const away = here != s->owner_device;
    if (away) {
        try {
            cuda::set_current_device(s->owner_device);
        } catch (...) {
            return;  // its device is gone: leaked rather than freed on the wrong one
        }
    }
    delete s;
    if (away) {
        try {
            cuda::set_current_device(here);
        } catch (...) {
        }
    }
}

context::context(int device) : device_(device) {
    if (device < 0) throw invalid_argument("context: device " + std::to_string(device) + " < 0");
}
context::~context() = default;
context::context(context&&) noexcept = default;
context& context::operator=(context&&) noexcept = default;

void context::set_threads(int n) {
    if (n < 0) throw invalid_argument("context: threads " + std::to_string(n) + " < 0");
    threads_ = n;
}

void context::set_workspace(void* data, std::size_t bytes) noexcept {
    user_workspace_ = data;
    user_workspace_bytes_ = data ? bytes : 0;
}

std::size_t context::workspace_bytes() const noexcept {
    if (user_workspace_) return user_workspace_bytes_;
    return state_ ? state_->workspace.bytes : 0;
}

void context::require_current_device() const {
    int const here = cuda::current_device();
    if (here != device_)
        throw invalid_argument("kleene: a GPU call on a context of CUDA device " +
                               std::to_string(device_) + " while device " + std::to_string(here) +
                               " is the thread's current one: the context's stream, memory pool "
                               "and handles belong to device " + std::to_string(device_) +
                               "; make it current first (cudaSetDevice(" +
                               std::to_string(device_) + ")) or use a context of device " +
                               std::to_string(here));
}

detail::device_state& context::state() {
    require_current_device();
    if (!state_) {
        state_.reset(new detail::device_state);
        state_->owner_device = device_;
    }
    return *state_;
}

context& default_context() {
    // One per device, made on first use; they live as long as the thread.
    thread_local std::vector<std::unique_ptr<context>> by_device;
    int const d = cuda::current_device();
    if (by_device.size() <= static_cast<std::size_t>(d)) by_device.resize(std::size_t(d) + 1);
    auto& c = by_device[std::size_t(d)];
    if (!c) {
        c = std::make_unique<context>(d);
        c->state().keep_handles = true;
    }
    return *c;
}

namespace detail {
thread_scope::thread_scope(context const& ctx) {
    if (ctx.threads() > 0) {
        saved_ = omp_get_max_threads();
        omp_set_num_threads(ctx.threads());
    }
}
thread_scope::thread_scope(context const* ctx) : thread_scope(resolve(const_cast<context*>(ctx))) {}
thread_scope::~thread_scope() {
    if (saved_ > 0) omp_set_num_threads(saved_);
}
}  // namespace detail

}  // namespace kleene

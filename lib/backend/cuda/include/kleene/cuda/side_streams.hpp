#pragma once
// Streams of one call beside the context's stream (copy streams of the out-of-core runs, the
// distributed Floyd-Warshall's broadcast and copy streams): forked from the context's stream
// when made and joined back to it when finished, so that the call orders itself after what the
// caller queued there before and the caller's later work orders itself after all of the call.

#include <kleene/cuda/stream.hpp>

#include <array>
#include <cstddef>
#include <utility>

namespace kleene::cuda {

/// N streams beside `main` (a context's stream): forked from it when made (their work starts
/// after what was queued there before, the call's temporaries included) and joined back when
/// finished or destroyed, after which `main` is waited for. So on every way out, exceptions
/// included, nothing queued still uses the call's buffers or page-locked host ranges when they
/// are released, and temporaries released on `main` afterwards go back to the pool behind all
/// of it. A caller whose side streams may wait on another process (a broadcast) must end that
/// wait first (the distributed path aborts its communicators) before this goes.
template <std::size_t N>
struct side_streams {
    stream const& main;
    std::array<stream, N> side;
    bool finished = false;

    explicit side_streams(stream const& m, std::array<stream_priority, N> const& p = {})
        : main(m), side(make(p, std::make_index_sequence<N>{})) {
        event forked;
        forked.record(main);
        for (auto const& s : side) s.wait(forked);
    }
    side_streams(side_streams const&) = delete;
    side_streams& operator=(side_streams const&) = delete;
    /// Joins the side streams to `main` (later work there waits for all of theirs).
    void join() {
        for (auto const& s : side) {
            event joined;
            joined.record(s);
            main.wait(joined);
        }
    }
    /// Joins the side streams to `main` and waits for it (once: the destructor then does nothing).
    void finish() {
        join();
        main.synchronize();
        finished = true;
    }
    ~side_streams() {
        if (finished) return;
        try {
            finish();
        } catch (...) {  // already failing (the first error is the one to report): wait for each
            for (auto const& s : side) {
                try {
                    s.synchronize();
                } catch (...) {
                }
            }
            try {
                main.synchronize();
            } catch (...) {
            }
        }
    }

private:
    template <std::size_t... I>
    static std::array<stream, N> make(std::array<stream_priority, N> const& p,
                                      std::index_sequence<I...>) {
        return {stream(p[I])...};
    }
};

}  // namespace kleene::cuda

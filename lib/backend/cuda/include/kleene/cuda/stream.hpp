#pragma once
// CUDA streams and events as small RAII handles, for code that overlaps copies with kernels
// (out_of_core.hpp). The handles are opaque: no CUDA header is needed to use them; code compiled
// by nvcc gets the cudaStream_t / cudaEvent_t back through native().
//
// A stream is created non-blocking: it does not synchronise with the legacy default stream on
// which kleene's synchronous calls run, so work on it orders only through events. Every failure
// throws kleene::device_error (no_device in a build without CUDA).

#include <kleene/detail/device_entry.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/memory.hpp>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

class event;

/// Scheduling priority of a stream's work: where kernels of several streams wait for the same
/// SMs, those of a high-priority stream are started first (cudaStreamCreateWithPriority).
enum class stream_priority { normal, high };

class stream {
public:
  stream() KLEENE_DEVICE_BODY;
  explicit stream(stream_priority p) KLEENE_DEVICE_BODY;
  ~stream() KLEENE_DEVICE_DEFAULT;
  stream(stream&& o) noexcept KLEENE_DEVICE_DEFAULT;
  stream& operator=(stream&& o) noexcept KLEENE_DEVICE_DEFAULT;
  stream(stream const&) = delete;
  stream& operator=(stream const&) = delete;

  /// A stream object for `native` (a cudaStream_t; null: the legacy default stream) that does not
  /// own it: the stream is not destroyed with the object. For code written against cuda::stream
  /// that is to run on a context's stream.
  static stream borrow(void* native) noexcept { return stream(borrowed{}, native); }

  /// The cudaStream_t, as a pointer.
  void* native() const noexcept { return handle_; }
  /// Blocks the host until everything queued on the stream has finished.
  void synchronize() const KLEENE_DEVICE_BODY;
  /// Later work on this stream waits for the most recent record of e (a no-op if e was never
  /// recorded).
  void wait(event const& e) const KLEENE_DEVICE_BODY;
  /// Later work on this stream waits for everything queued so far on the legacy default stream
  /// (where the library's synchronous calls and plain cudaMemcpy run).
  void wait_default() const KLEENE_DEVICE_BODY;

private:
    struct borrowed {};
    stream(borrowed, void* h) noexcept : handle_(h), owned_(false) {}

    void* handle_ = nullptr;
    bool owned_ = true;
};

class event {
public:
    /// Timing is off (cheaper records and waits) unless asked for.
  explicit event(bool timing = false) KLEENE_DEVICE_BODY;
  ~event() KLEENE_DEVICE_DEFAULT;
  event(event&& o) noexcept KLEENE_DEVICE_DEFAULT;
  event& operator=(event&& o) noexcept KLEENE_DEVICE_DEFAULT;
  event(event const&) = delete;
  event& operator=(event const&) = delete;

  void* native() const noexcept { return handle_; }
  void record(stream const& s) KLEENE_DEVICE_BODY;
  /// Blocks the host until the most recent record has completed.
  void synchronize() const KLEENE_DEVICE_BODY;
  /// Milliseconds between two recorded timing events.
  static float elapsed_ms(event const& from, event const& to) KLEENE_DEVICE_VALUE;

private:
    void* handle_ = nullptr;
};

KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda

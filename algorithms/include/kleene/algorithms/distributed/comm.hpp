#pragma once
// What the distributed algorithms need from the processes they run on, as two small interfaces:
// - control: the host-side plane, always MPI (mpi.hpp): ranks, agreement on errors, small
//   reductions, broadcasts and point-to-point moves of host memory (the CPU path's panels, the
//   gather of the result).
// - device_panels: broadcasts of device buffers along a process row or column, enqueued on a CUDA
//   stream (NCCL: nccl.hpp).
// Neither header includes mpi.h or nccl.h; only the library kleene_distributed and the programs
// that start MPI link them.

#include <cstddef>
#include <cstdint>
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <kleene/error.hpp>
#include <memory>
#include <string>

namespace kleene::cuda {
class stream;
class event;
}

namespace kleene::distributed {

/// row: the processes of my process row (ranked by process column); col: of my process column.
enum class axis { row, col };

/// An error that every rank has agreed on (the same message everywhere): callers exit cleanly
/// rather than abort the job.
class collective_error : public error {
  public:
    using error::error;
};

/// A wait for the other ranks that passed its limit (control::set_wait_limit): some rank is stuck
/// or gone, so the ranks can no longer agree. Thrown only on the ranks that waited, and the
/// control may not be used again: the program must end the job (mpi_environment::abort).
class rank_timeout : public error {
  public:
    using error::error;
};

/// Device broadcasts that stalled (nothing ended within the limit) or that the transport reports
/// as failed: often the consequence of a failure on another rank, so an agreement prefers any
/// other rank's cause to this one (control::agree).
class panels_stalled : public device_error {
  public:
    using device_error::device_error;
};

/// A nonblocking broadcast in flight (control::ibroadcast). Destroyed before it completed, it
/// waits for it (a collective cannot be abandoned).
class pending {
  public:
    virtual ~pending() = default;
    /// Lets it progress; true once complete. Cheap: call it between pieces of work.
    virtual bool test() = 0;
    virtual void wait() = 0;
};

class control {
  public:
    virtual ~control() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// The grid the row and column groups were built for.
    virtual process_grid grid() const = 0;
    /// Distinct hosts among the ranks, and the host of a rank (0-based, by first rank).
    virtual int hosts() const = 0;
    virtual int host_of(int rank) const = 0;
    /// Rank among the ranks of this host (for the GPU each rank takes).
    virtual int local_rank() const = 0;

    virtual std::int64_t allreduce_min(std::int64_t x) = 0;
    virtual std::int64_t allreduce_max(std::int64_t x) = 0;
    virtual std::int64_t allreduce_sum(std::int64_t x) = 0;
    virtual double allreduce_max(double x) = 0;
    /// Host bytes from `root` of the world (of the axis group, by its index there) to all.
    virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
    virtual void broadcast(axis a, void* data, std::size_t bytes, int root) = 0;
    /// The same, started and left in flight: `data` must stay untouched until it completes.
    /// Every member of the group starts its broadcasts in the same order.
    virtual std::unique_ptr<pending> ibroadcast(axis a, void* data, std::size_t bytes,
                                                int root) = 0;
    virtual void send(void const* data, std::size_t bytes, int to) = 0;
    virtual void recv(void* data, std::size_t bytes, int from) = 0;
    /// The longest any one wait for other ranks may take, in seconds, before it throws
    /// rank_timeout (0, the default: no limit).
    virtual void set_wait_limit(double seconds) = 0;
    virtual double wait_limit() const = 0;

    /// Every rank passes whether its part went well (and why not); if any failed, every rank
    /// throws collective_error with the message of the lowest failed rank, preferring a rank
    /// whose failure is not marked `consequence` (one that may follow from another rank's, such
    /// as panels_stalled).
    void agree(bool ok, std::string const& why = {}, bool consequence = false) {
        std::int64_t const p = size();
        std::int64_t const bad = allreduce_min(ok            ? 2 * p
                                               : consequence ? p + rank()
                                                             : std::int64_t(rank()));
        if (bad >= 2 * p) return;
        std::uint64_t len = why.size();
        int const root = static_cast<int>(bad % p);
        broadcast(&len, sizeof len, root);
        std::string msg(len, '\0');
        if (rank() == root) msg = why;
        if (len) broadcast(msg.data(), len, root);
        throw collective_error(size() > 1 ? "rank " + std::to_string(root) + ": " + msg : msg);
    }
};

/// Broadcasts of device memory along a process row or column, enqueued on a stream.
class device_panels {
  public:
    virtual ~device_panels() = default;
    /// `bytes` at device address `data` from the group member `root` (its index in the group) to
    /// the others of my group along `a`, enqueued on s.
    virtual void broadcast(axis a, void* data, std::size_t bytes, int root,
                           cuda::stream const& s) = 0;
    /// Ends every pending operation (after a failure on some rank: nothing else will match them).
    virtual void abort() noexcept = 0;
    /// Blocks until the work queued before the last record of `e` has ended, watching the
    /// transport meanwhile: device_error when the device failed; panels_stalled when the
    /// transport reports an asynchronous error or `e` has not ended within `limit` seconds (0: no
    /// limit), after which the caller aborts (a partner will not come).
    virtual void wait(cuda::event const& e, double limit) = 0;
    virtual std::string name() const = 0;
};

}  // namespace kleene::distributed

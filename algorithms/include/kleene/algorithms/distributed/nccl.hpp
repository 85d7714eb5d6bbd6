#pragma once
// NCCL broadcasts of device panels (comm.hpp's device_panels): one communicator over all ranks
// (its unique id sent by rank 0 over the control plane), split into one per process row and one
// per process column (ncclCommSplit). One GPU per rank: use_device picks it before anything
// touches the device. Implemented in algorithms/distributed/src/nccl.cpp (a stub that throws
// no_device in builds without CUDA). NVLink multicast: the library sets nothing; the program or
// the launcher keeps NCCL_NVLS_ENABLE=0 where the hosts require it (the kleene CLI does).

#include <kleene/algorithms/distributed/comm.hpp>
#include <memory>
#include <string>

namespace kleene::distributed {

/// cudaSetDevice(local_rank mod the number of devices); returns the device chosen. Throws
/// no_device when there is none.
int use_device(int local_rank);

/// A failure during a device run's steps (from its first broadcast queued until its broadcasts
/// have all ended on this rank) aborts the communicators (ncclCommAbort), so that no
/// broadcast is left waiting for a partner: later broadcasts throw device_error ("the
/// communicators were aborted"), and a program that goes on makes a new nccl_panels. Failures
/// before (too little device memory to stream, a device buffer that cannot be allocated,
/// page-locking refused while streaming: agreed over the ranks before anything is queued) or
/// after (the copy back to the host) leave them usable. wait() polls a CUDA event and
/// ncclCommGetAsyncError, so that a rank whose partner stopped gives up within its limit.
class nccl_panels final : public device_panels {
  public:
    /// Collective over every rank of c (and its grid).
    explicit nccl_panels(control& c);
    ~nccl_panels() override;
    void broadcast(axis a, void* data, std::size_t bytes, int root, cuda::stream const& s) override;
    void abort() noexcept override;
    void wait(cuda::event const& e, double limit) override;
    std::string name() const override;

  private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace kleene::distributed

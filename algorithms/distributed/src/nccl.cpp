#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <kleene/algorithms/distributed/nccl.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/cuda/stream.hpp>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace kleene::distributed {

namespace {
void check(ncclResult_t rc, char const* what) {
    if (rc == ncclSuccess || rc == ncclInProgress) return;
    throw device_error(std::string(what) + " failed: " + ncclGetErrorString(rc));
}
}  // namespace

int use_device(int local_rank) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        throw no_device("distributed: rank needs a CUDA device and found none");
    int const d = local_rank % count;
    cuda::set_current_device(d);
    return d;
}

struct nccl_panels::impl {
    ncclComm_t world = nullptr, row = nullptr, col = nullptr;
    bool failed = false;  // set when the set-up failed on some rank: abort, don't destroy
    // wait() may run on several threads at once (host_copy::release_after), beside abort().
    std::mutex m;
    ~impl() {
        for (ncclComm_t c : {row, col, world})
            if (c) {
                if (failed)
                    ncclCommAbort(c);
                else
                    ncclCommDestroy(c);
            }
    }
};

nccl_panels::nccl_panels(control& c) : p_(std::make_unique<impl>()) {
    ncclUniqueId id{};
    std::string why;
    if (c.rank() == 0) {
        ncclResult_t const rc = ncclGetUniqueId(&id);
        if (rc != ncclSuccess) why = std::string("ncclGetUniqueId: ") + ncclGetErrorString(rc);
    }
    c.agree(why.empty(), why);
    c.broadcast(&id, sizeof id, 0);
    void* byte = nullptr;
    // The connecting broadcasts run on a stream of their own, the only one the set-up waits for.
    std::optional<cuda::stream> connect;
    try {
        check(ncclCommInitRank(&p_->world, c.size(), id, c.rank()), "ncclCommInitRank");
        process_grid const g = c.grid();
        int const r = c.rank();
        check(ncclCommSplit(p_->world, g.row_of(r), g.col_of(r), &p_->row, nullptr),
              "ncclCommSplit (process rows)");
        check(ncclCommSplit(p_->world, g.col_of(r), g.row_of(r), &p_->col, nullptr),
              "ncclCommSplit (process columns)");
        // NCCL connects the ranks of a communicator at its first collective; one byte along
        // each axis here makes those connections part of the set-up instead of the first step
        // of the first call. Waited for only once every rank has queued it.
        connect.emplace();
        auto const st = static_cast<cudaStream_t>(connect->native());
        cudaError_t const e = cudaMalloc(&byte, 1);
        if (e != cudaSuccess)
            throw device_error(std::string("cudaMalloc (1 byte) failed: ") + cudaGetErrorString(e));
        check(ncclBroadcast(byte, byte, 1, ncclUint8, 0, p_->row, st),
              "ncclBroadcast (connecting the process row)");
        check(ncclBroadcast(byte, byte, 1, ncclUint8, 0, p_->col, st),
              "ncclBroadcast (connecting the process column)");
        why.clear();
    } catch (std::exception const& e) {
        why = e.what();
        p_->failed = true;
    }
    try {
        c.agree(why.empty(), why);
    } catch (collective_error const&) {
        p_->failed = true;
        abort();  // ends the connecting broadcasts still queued
        (void)cudaFree(byte);
        throw;
    }
    cudaError_t const e =
        connect ? cudaStreamSynchronize(static_cast<cudaStream_t>(connect->native())) : cudaSuccess;
    (void)cudaFree(byte);
    if (e != cudaSuccess)
        throw device_error(std::string("cudaStreamSynchronize (connecting the process rows and "
                                       "columns) failed: ") +
                           cudaGetErrorString(e));
}

nccl_panels::~nccl_panels() = default;

void nccl_panels::broadcast(axis a, void* data, std::size_t bytes, int root,
                            cuda::stream const& s) {
    ncclComm_t const comm = a == axis::row ? p_->row : p_->col;
    if (!comm) throw device_error("ncclBroadcast: the communicators were aborted");
    check(ncclBroadcast(data, data, bytes, ncclUint8, root, comm,
                        static_cast<cudaStream_t>(s.native())),
          "ncclBroadcast");
}

void nccl_panels::wait(cuda::event const& e, double limit) {
    auto const ev = static_cast<cudaEvent_t>(e.native());
    auto const t0 = std::chrono::steady_clock::now();
    for (;;) {
        cudaError_t const rc = cudaEventQuery(ev);
        if (rc == cudaSuccess) return;
        if (rc != cudaErrorNotReady)
            throw device_error(std::string("cudaEventQuery (waiting for the device) failed: ") +
                               cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc));
        // A peer that failed is seen by the network transports as an asynchronous error; over
        // NVLink or PCIe its broadcasts just never come, which only the limit catches.
        {
            std::lock_guard const lock(p_->m);
            for (ncclComm_t comm : {p_->row, p_->col, p_->world}) {
                ncclResult_t async = ncclSuccess;
                if (comm && ncclCommGetAsyncError(comm, &async) == ncclSuccess &&
                    async != ncclSuccess && async != ncclInProgress)
                    throw panels_stalled(std::string("NCCL reports an asynchronous error: ") +
                                         ncclGetErrorString(async) + " (" +
                                         ncclGetLastError(comm) + ")");
            }
        }
        if (limit > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit) {
            char secs[32];
            std::snprintf(secs, sizeof secs, "%.3g", limit);
            throw panels_stalled(std::string("the device's broadcasts did not end within ") + secs +
                                 " s: some rank stopped or failed");
        }
        std::this_thread::yield();
    }
}

void nccl_panels::abort() noexcept {
    // ncclCommAbort ends the communicators' kernels still queued or waiting.
    std::lock_guard const lock(p_->m);
    for (ncclComm_t* c : {&p_->row, &p_->col, &p_->world})
        if (*c) {
            ncclCommAbort(*c);
            *c = nullptr;
        }
}

std::string nccl_panels::name() const {
    return "NCCL " + std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." +
           std::to_string(NCCL_PATCH);
}

}  // namespace kleene::distributed

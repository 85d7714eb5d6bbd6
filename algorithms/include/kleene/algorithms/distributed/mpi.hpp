#pragma once
// The MPI side of the distributed algorithms: starting MPI, and `control` (comm.hpp) over
// MPI_COMM_WORLD with one communicator per process row and per process column
// (MPI_Comm_split). Implemented in algorithms/distributed/src/mpi.cpp; this header does not
// include mpi.h. Messages past 2^31 bytes go in pieces. Errors come back as codes
// (MPI_ERRORS_RETURN) and become kleene::error.

#include <kleene/algorithms/distributed/comm.hpp>
#include <memory>

namespace kleene::distributed {

/// MPI_Init_thread (funneled) on construction, MPI_Finalize on destruction. The program decides
/// whether it was started under an MPI launcher; the library reads no environment.
class mpi_environment {
  public:
    mpi_environment(int& argc, char**& argv);
    ~mpi_environment();
    mpi_environment(mpi_environment const&) = delete;
    mpi_environment& operator=(mpi_environment const&) = delete;
    int rank() const;
    int size() const;
    /// MPI_Abort on the world: the last resort when a rank fails outside any agreement (the
    /// others would wait for it forever).
    [[noreturn]] static void abort(int code) noexcept;
};

class mpi_control final : public control {
  public:
    /// Every rank of the world, on grid g (g.size() must be the world's size).
    explicit mpi_control(process_grid g);
    ~mpi_control() override;
    int rank() const override;
    int size() const override;
    process_grid grid() const override;
    int hosts() const override;
    int host_of(int rank) const override;
    int local_rank() const override;
    std::int64_t allreduce_min(std::int64_t x) override;
    std::int64_t allreduce_max(std::int64_t x) override;
    std::int64_t allreduce_sum(std::int64_t x) override;
    double allreduce_max(double x) override;
    void broadcast(void* data, std::size_t bytes, int root) override;
    void broadcast(axis a, void* data, std::size_t bytes, int root) override;
    std::unique_ptr<pending> ibroadcast(axis a, void* data, std::size_t bytes,
                                        int root) override;
    void send(void const* data, std::size_t bytes, int to) override;
    void recv(void* data, std::size_t bytes, int from) override;
    /// With a limit, every wait polls its (nonblocking) operation until it ends or the limit
    /// passes; after a rank_timeout the control is broken: its operations throw at once, and
    /// nothing waits for the operations left in flight (the job is to be aborted).
    void set_wait_limit(double seconds) override;
    double wait_limit() const override;

  private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace kleene::distributed

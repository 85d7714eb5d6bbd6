#pragma once
// `mpirun -np P kleene apsp|closure ...`: the distributed path of the two commands
// (algorithms/include/kleene/algorithms/distributed/). Built when kleene_distributed is
// (KLEENE_MPI); main() starts MPI only when the program was started by an MPI launcher.

#include <cstddef>
#include <memory>
#include <string>

#include "../commands.hpp"
#include "../files.hpp"

namespace kleene::tools {

/// MPI, started by main() when an MPI launcher started the program.
struct mpi_session;
/// Null when no launcher started the program (or kleene was built without MPI).
std::unique_ptr<mpi_session, void (*)(mpi_session*)> start_mpi_if_launched(int& argc, char**& argv);
int mpi_rank(mpi_session const& s);
int mpi_size(mpi_session const& s);
/// Ends every rank (MPI_Abort): for a failure that the other ranks did not take part in.
[[noreturn]] void mpi_abort(int code);

struct distributed_args {
    std::string input, output, paths, type, device = "auto";
    /// --distributed-output: each rank writes its blocks there (layout.hpp) instead of a gather.
    std::string layout_dir;
    std::size_t block = 0;
    bool lookahead = true;
    /// --local-blocks: auto, device or streamed (distributed::options::blocks).
    std::string local_blocks = "auto";
    bool explain = false;
    bool reflexive = false;  // closure
    read_flags read;         // how rank 0 reads the input (files.hpp)
    /// --rank-timeout (distributed::options::timeout) and the tests' --inject-fault.
    double rank_timeout = 60;
    std::string inject_fault;
};

void run_apsp_distributed(distributed_args const& args, global_options const& g);
void run_closure_distributed(distributed_args const& args, global_options const& g);

}  // namespace kleene::tools

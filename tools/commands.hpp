#pragma once
// Each `kleene` subcommand lives in its own tools/cmd_*.cpp and registers itself here.

#include "usage.hpp"

#include <CLI/CLI.hpp>
#include <kleene/context.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/environment.hpp>
#include <kleene/options.hpp>

#include <optional>

#include <string>

namespace kleene::tools {

class temp_registry;
struct mpi_session;

/// Options every command shares, and what main() sets up for all of them.
struct global_options {
    bool quiet = false;
    bool json = false;
    /// Where outputs register their temporaries (removed on SIGINT/SIGTERM; see signals.hpp).
    temp_registry* temps = nullptr;
    /// Set when an MPI launcher started the program (mpi/distributed.hpp).
    mpi_session* mpi = nullptr;

    /// The commands' context, its tuning from the KLEENE_* variables (kleene/environment.hpp),
    /// built on first use: a bad value fails the command that runs, with the variable's name.
    kleene::context& context() const {
        if (!ctx_) ctx_.emplace(kleene::context_from_environment());
        return *ctx_;
    }

private:
    mutable std::optional<kleene::context> ctx_;
};

/// A usage error found by a command before it reads input (two outputs with one name, stdin
/// named twice): exit code 2, like CLI11's own.
struct usage_error : CLI::ValidationError {
    explicit usage_error(std::string const& what) : CLI::ValidationError(what) {}
};

/// Thrown by a command for invalid input or a failed operation: exit code 1, message on stderr.
/// (kleene::error from the library is treated the same way.)
struct command_failed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A failure of an MPI run that every rank agreed on (rank 0 reports it): exit code 1, no abort.
struct agreed_failure : command_failed {
    using command_failed::command_failed;
};

/// A failure that another rank of an MPI run reports: exit code 1 without a message here.
struct reported_elsewhere : command_failed {
    reported_elsewhere() : command_failed("reported by rank 0") {}
};

/// The value of a `--device auto|cpu|gpu` option (CLI11 has already checked it is one of them).
inline device_choice parse_device(std::string const& s) {
    if (s == "cpu") return device_choice::cpu;
    if (s == "gpu") return device_choice::gpu;
    return device_choice::automatic;
}

/// The value of a `--duplicates error|sum|min|max|last` option (checked while parsing).
inline duplicate_policy parse_duplicates(std::string const& s) {
    if (s == "sum") return duplicate_policy::sum;
    if (s == "min") return duplicate_policy::min;
    if (s == "max") return duplicate_policy::max;
    if (s == "last") return duplicate_policy::last;
    return duplicate_policy::error;
}

void add_demo_command(CLI::App& app, global_options& g);
void add_info_command(CLI::App& app, global_options& g);
void add_convert_command(CLI::App& app, global_options& g);
void add_mxm_command(CLI::App& app, global_options& g);
void add_compare_command(CLI::App& app, global_options& g);
void add_apsp_command(CLI::App& app, global_options& g);
void add_closure_command(CLI::App& app, global_options& g);
void add_path_command(CLI::App& app, global_options& g);
void add_bfs_command(CLI::App& app, global_options& g);
void add_cc_command(CLI::App& app, global_options& g);
void add_tc_command(CLI::App& app, global_options& g);
void add_pagerank_command(CLI::App& app, global_options& g);
void add_bc_command(CLI::App& app, global_options& g);
void add_sssp_command(CLI::App& app, global_options& g);
void add_generate_command(CLI::App& app, global_options& g);

}  // namespace kleene::tools

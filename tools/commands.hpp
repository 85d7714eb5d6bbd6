#pragma once
// Each `kleene` subcommand lives in its own tools/cmd_*.cpp and registers itself here.

#include <CLI/CLI.hpp>
#include <kleene/options.hpp>

#include <string>

namespace kleene::tools {

/// Options every command shares.
struct global_options {
    bool quiet = false;
    bool json = false;
};

/// Thrown by a command for invalid input or a failed operation: exit code 1, message on stderr.
/// (kleene::error from the library is treated the same way.)
struct command_failed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The value of a `--device auto|cpu|gpu` option (CLI11 has already checked it is one of them).
inline device_choice parse_device(std::string const& s) {
    if (s == "cpu") return device_choice::cpu;
    if (s == "gpu") return device_choice::gpu;
    return device_choice::automatic;
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
void add_sssp_command(CLI::App& app, global_options& g);
void add_generate_command(CLI::App& app, global_options& g);

}  // namespace kleene::tools

#include "commands.hpp"

namespace kleene::tools {
void add_compare_command(CLI::App& app, global_options&) {
    auto* cmd = app.add_subcommand("compare", "(being written)");
    cmd->callback([] { throw command_failed("'compare' is not built yet"); });
}
}  // namespace kleene::tools

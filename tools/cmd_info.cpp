#include "commands.hpp"

namespace kleene::tools {
void add_info_command(CLI::App& app, global_options&) {
    auto* cmd = app.add_subcommand("info", "(being written)");
    cmd->callback([] { throw command_failed("'info' is not built yet"); });
}
}  // namespace kleene::tools

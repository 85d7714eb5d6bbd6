#include "commands.hpp"

namespace kleene::tools {
void add_mxm_command(CLI::App& app, global_options&) {
    auto* cmd = app.add_subcommand("mxm", "(being written)");
    cmd->callback([] { throw command_failed("'mxm' is not built yet"); });
}
}  // namespace kleene::tools

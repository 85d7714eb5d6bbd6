#include "commands.hpp"

namespace kleene::tools {
void add_demo_command(CLI::App& app, global_options&) {
    auto* cmd = app.add_subcommand("demo", "(being written)");
    cmd->callback([] { throw command_failed("'demo' is not built yet"); });
}
}  // namespace kleene::tools

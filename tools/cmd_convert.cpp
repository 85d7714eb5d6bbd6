#include "commands.hpp"

namespace kleene::tools {
void add_convert_command(CLI::App& app, global_options&) {
    auto* cmd = app.add_subcommand("convert", "(being written)");
    cmd->callback([] { throw command_failed("'convert' is not built yet"); });
}
}  // namespace kleene::tools

// The `kleene` command line. Exit codes: 0 success, 1 invalid input or failed operation (message on
// stderr), 2 usage error.

#include "commands.hpp"

#include <kleene/kleene.hpp>

#include <fmt/core.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
    CLI::App app{"kleene: linear algebra over semirings (GraphBLAS-style), on the CPU and NVIDIA GPUs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string(kleene::version()));
    kleene::tools::global_options g;
    kleene::tools::add_demo_command(app, g);
    kleene::tools::add_info_command(app, g);
    kleene::tools::add_convert_command(app, g);
    kleene::tools::add_mxm_command(app, g);
    kleene::tools::add_compare_command(app, g);
    kleene::tools::add_apsp_command(app, g);
    kleene::tools::add_closure_command(app, g);
    kleene::tools::add_path_command(app, g);
    kleene::tools::add_bfs_command(app, g);
    kleene::tools::add_sssp_command(app, g);
    kleene::tools::add_generate_command(app, g);
    try {
        app.parse(argc, argv);
    } catch (CLI::CallForHelp const& e) {
        return app.exit(e);
    } catch (CLI::CallForAllHelp const& e) {
        return app.exit(e);
    } catch (CLI::CallForVersion const& e) {
        return app.exit(e);
    } catch (CLI::ParseError const& e) {
        app.exit(e);
        return 2;
    } catch (std::exception const& e) {
        // Subcommand callbacks run inside parse(): library and command failures land here.
        std::fflush(stdout);
        fmt::print(stderr, "kleene: error: {}\n", e.what());
        return 1;
    }
    return 0;
}

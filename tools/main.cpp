// The `kleene` command line. Exit codes: 0 success, 1 invalid input or failed operation (message on
// stderr), 2 usage error (checked while the command line is parsed, before any input is read), and
// "killed by a signal" for SIGINT/SIGTERM/SIGHUP, after removing unfinished outputs (signals.hpp).
// Standard output is flushed and checked at the end: a command whose report could not be written
// (a full disk, a closed pipe) fails. SIGPIPE is ignored, so a closed pipe is such a failure
// (exit 1, unfinished outputs removed) rather than a death that would leave temporaries behind.

#include "commands.hpp"
#include "signals.hpp"
#ifdef KLEENE_HAVE_MPI
#include "mpi/distributed.hpp"
#endif

#include <kleene/kleene.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>

namespace {

CLI::App* subcommand_named(CLI::App* app, std::string const& name) {
    for (CLI::App* s : app->get_subcommands([](CLI::App*) { return true; }))
        if (s->get_name() == name) return s;
    return nullptr;
}

/// "kleene compare" for `kleene compare mxm ...`: the commands named before the first option.
CLI::App* command_of(CLI::App& app, int argc, char** argv, std::string& path) {
    CLI::App* cur = &app;
    path = "kleene";
    for (int i = 1; i < argc; ++i) {
        CLI::App* sub = subcommand_named(cur, argv[i]);
        if (!sub) break;
        cur = sub;
        path += std::string(" ") + argv[i];
    }
    return cur;
}

/// The message for a word where a command is expected that names none.
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
    std::string path;
    CLI::App* cur = command_of(app, argc, argv, path);
    auto const subs = cur->get_subcommands([](CLI::App*) { return true; });
    int const next = 1 + static_cast<int>(std::count(path.begin(), path.end(), ' '));
    if (subs.empty() || next >= argc || argv[next][0] == '-') return std::nullopt;
    std::string names;
    for (CLI::App* s : subs) names += (names.empty() ? "" : ", ") + s->get_name();
    return fmt::format("{}: unknown command '{}' (commands: {})", path, argv[next], names);
}

/// Flushes standard output; a report that could not be written turns success into failure.
int finish_stdout(int rc) {
    errno = 0;
    bool const ok = std::fflush(stdout) == 0 && !std::ferror(stdout);
    if (ok) return rc;
    int const e = errno;
    fmt::print(stderr, "kleene: error: cannot write to standard output{}\n",
               e ? std::string(": ") + std::strerror(e) : std::string());
    return rc == 0 ? 1 : rc;
}

}  // namespace

int main(int argc, char** argv) {
    ::signal(SIGPIPE, SIG_IGN);
    // First, before any thread starts (signals.hpp); never destroyed.
    auto* const temps = new kleene::tools::temp_registry;
    CLI::App app{
        "kleene: linear algebra over semirings (GraphBLAS-style), on the CPU and NVIDIA GPUs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string(kleene::version()));
    kleene::tools::global_options g;
    g.temps = temps;
#ifdef KLEENE_HAVE_MPI
    // Under mpirun (or another MPI launcher) MPI starts here and ends after the command.
    auto const mpi = kleene::tools::start_mpi_if_launched(argc, argv);
    g.mpi = mpi.get();
    bool const many_ranks = mpi && kleene::tools::mpi_size(*mpi) > 1;
#else
    [[maybe_unused]] bool const many_ranks = false;
#endif
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
    kleene::tools::add_cc_command(app, g);
    kleene::tools::add_pagerank_command(app, g);
    kleene::tools::add_tc_command(app, g);
    kleene::tools::add_bc_command(app, g);
    kleene::tools::add_generate_command(app, g);
    if (auto const msg = unknown_command(app, argc, argv)) {
        fmt::print(stderr, "{}\n", *msg);
        return 2;
    }
    int rc = 0;
    try {
        app.parse(argc, argv);
    } catch (CLI::CallForHelp const& e) {
        rc = app.exit(e);
    } catch (CLI::CallForAllHelp const& e) {
        rc = app.exit(e);
    } catch (CLI::CallForVersion const& e) {
        rc = app.exit(e);
    } catch (CLI::ParseError const& e) {
        std::string path;
        command_of(app, argc, argv, path);
        fmt::print(stderr, "{}: {}\nRun '{} --help' for the options.\n", path, e.what(), path);
        rc = 2;
    } catch (kleene::tools::reported_elsewhere const&) {
        rc = 1;  // another rank of this MPI run printed the message
    } catch (kleene::tools::agreed_failure const& e) {
        std::fflush(stdout);
        fmt::print(stderr, "kleene: error: {}\n", e.what());
        rc = 1;
    } catch (std::bad_alloc const&) {
        // An allocation the library did not name (kernels name theirs: exception_carrier).
        std::fflush(stdout);
        fmt::print(stderr, "kleene: error: out of memory (std::bad_alloc)\n");
        rc = 1;
    } catch (std::exception const& e) {
        // Subcommand callbacks run inside parse(): library and command failures land here.
        std::fflush(stdout);
        fmt::print(stderr, "kleene: error: {}\n", e.what());
        rc = 1;
#ifdef KLEENE_HAVE_MPI
        // A failure the other ranks took no part in: they may be waiting for this one.
        if (many_ranks) {
            std::fflush(stderr);
            kleene::tools::mpi_abort(1);
        }
#endif
    }
    return finish_stdout(rc);
}

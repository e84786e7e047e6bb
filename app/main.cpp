// cwb: the Compile Workbench command line. Subcommands live in commands/; this file only dispatches.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "commands/commands.h"

int main(int argc, char** argv) {
    CLI::App app{"cwb - Compile Workbench: read, explain and compare torch.compile traces"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "cwb " CWB_VERSION);
    cwb::registerImportCommand(app);
    cwb::registerReportCommand(app);
    cwb::registerDisCommand(app);
    cwb::registerOpenCommand(app);
    cwb::registerRunCommand(app);
    cwb::registerExplainCommand(app);
    cwb::registerDiffCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::RuntimeError& done) {
        // Subcommands report their exit status this way so that CLI11 unwinds cleanly.
        return done.get_exit_code();
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        fmt::print(stderr, "cwb: error: {}\n", e.what());
        return 1;
    }
    return 0;
}

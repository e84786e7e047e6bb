// The `cwb` subcommands. Each registers its options on the CLI11 app and runs when selected.
#pragma once

#include <CLI/CLI.hpp>

namespace cwb {

void registerImportCommand(CLI::App& app);
void registerReportCommand(CLI::App& app);
void registerDisCommand(CLI::App& app);
void registerOpenCommand(CLI::App& app);
void registerRunCommand(CLI::App& app);
void registerExplainCommand(CLI::App& app);

}  // namespace cwb

// The `cwb` subcommands. Each registers its options on the CLI11 app and runs when selected.
#pragma once

#include <CLI/CLI.hpp>

namespace cwb {

void registerImportCommand(CLI::App& app);
void registerReportCommand(CLI::App& app);

}  // namespace cwb

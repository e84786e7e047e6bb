// The `cwb` subcommands. Each registers its options on the CLI11 app and runs when selected.
#pragma once

#include <malloc.h>

#include <CLI/CLI.hpp>

namespace cwb {

/// For the commands that import logs (import, report, open). Imports pass many payload-sized strings between
/// two threads; glibc's adaptive mmap threshold would move them onto the heap and let the resident size creep
/// up with the log's size, so a fixed threshold keeps it flat. Not for run/explain: tensor programs free and
/// allocate large buffers on every op, and a fixed threshold would hand each one fresh, page-faulting pages.
inline void keepImportMemoryFlat() { mallopt(M_MMAP_THRESHOLD, 64 * 1024); }

void registerImportCommand(CLI::App& app);
void registerReportCommand(CLI::App& app);
void registerDisCommand(CLI::App& app);
void registerOpenCommand(CLI::App& app);
void registerRunCommand(CLI::App& app);
void registerExplainCommand(CLI::App& app);
void registerDiffCommand(CLI::App& app);

}  // namespace cwb

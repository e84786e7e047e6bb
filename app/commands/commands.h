// The `cwb` subcommands. Each registers its options on the CLI11 app and runs when selected.
#pragma once

#include <malloc.h>

#include <CLI/CLI.hpp>

namespace cwb {

/// For the commands that import logs (import, report, open). Imports pass many payload-sized strings between
/// two threads; glibc's adaptive mmap threshold would move ever larger ones onto the heap and let the resident size
/// creep up with the log's size, so the thresholds are fixed: strings up to 4 MB (nearly all payloads) reuse heap
/// memory, larger ones get their own mapping, and up to 64 MB of free heap is kept rather than returned and
/// faulted in again. (A 64 KB threshold gave every payload fresh, page-faulting pages: a third of the import's
/// CPU time.) Not for run/explain: tensor programs free and allocate large buffers on every op.
inline void keepImportMemoryFlat() {
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

void registerImportCommand(CLI::App& app);
void registerReportCommand(CLI::App& app);
void registerDisCommand(CLI::App& app);
void registerOpenCommand(CLI::App& app);
void registerRunCommand(CLI::App& app);
void registerExplainCommand(CLI::App& app);
void registerDiffCommand(CLI::App& app);
void registerRuntimeCommand(CLI::App& app);
void registerTraceCommand(CLI::App& app);

}  // namespace cwb

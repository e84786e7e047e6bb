// Entry points over paths: import a log file or a directory of per-rank logs into a trace file, and open
// "whatever the user passed" (a .db trace, a raw log, a directory) as loaded TraceData.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "importers/torch_trace/torch_trace_importer.h"
#include "store/trace_reader.h"

namespace traces {

/// The log files a path stands for: the file itself, or a directory's TORCH_TRACE logs in name order
/// (files named dedicated_log_torch_trace*, or else every *.log / *.txt file). Throws if there are none.
std::vector<std::string> listTraceLogs(const std::string& path);

/// Progress of a multi-file import: which file, and bytes done over all files.
using PathProgressFn = std::function<void(const std::string& file, uint64_t bytesDone, uint64_t bytesTotal)>;

/// Imports every log of `path` into a new trace file at `outDb`, one session per file.
std::vector<ImportResult> importPath(const std::string& path, const std::string& outDb,
                                     const PathProgressFn& progress = {});

/// Imports every log of `path` into `sink`, one session per file.
std::vector<ImportResult> importPath(const std::string& path, RowSink& sink, const PathProgressFn& progress = {});

/// True when `path` is one of our SQLite trace files rather than a log or a directory.
bool isTraceDatabase(const std::string& path);

/// Loads `path` as a trace: directly when it is a trace file, otherwise by importing it in memory (a MemorySink;
/// no file is written). `importResults` receives what the import found, if it ran.
TraceData openAsTrace(const std::string& path, std::vector<ImportResult>* importResults = nullptr,
                      const PathProgressFn& progress = {});

}  // namespace traces

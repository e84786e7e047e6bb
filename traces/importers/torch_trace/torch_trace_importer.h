// Imports one PyTorch TORCH_TRACE log file as one session of a trace store, streaming it in flat memory.
// Every valid record is kept; malformed ones are counted and reported with their line numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "store/row_sink.h"

namespace traces {

struct ImportResult {
    RowId sessionId = 0;
    std::string sourceFile;
    uint64_t bytes = 0;
    int64_t lines = 0;
    int64_t records = 0;
    int64_t malformedRecords = 0;
    std::map<std::string, int64_t> eventCounts;  ///< by envelope event key ("artifact:<name>" for artifacts)
    std::vector<ImportIssue> firstIssues;        ///< the first few problems, for printing
};

/// Called now and then with the bytes read so far and the file's size.
using ImportProgressFn = std::function<void(uint64_t bytesDone, uint64_t bytesTotal)>;

/// Imports `logPath` into a new session of `sink`. Throws only when the file cannot be opened or the store fails.
ImportResult importTorchTraceLog(const std::string& logPath, RowSink& sink,
                                 const ImportProgressFn& progress = {});

}  // namespace traces

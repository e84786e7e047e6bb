// Imports one PyTorch TORCH_TRACE log file as one session of a trace store, streaming it in flat memory.
// Every valid record is kept; malformed ones are counted and reported with their line numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "importers/torch_trace/log_records.h"
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

/// One log's import in steps, its state (compile ids, open chromium spans, interned strings, the line count) kept
/// between them: a log read in parts as it grows gives the rows of reading it at once.
class LogImport {
public:
    /// Adds the log's session to `sink`.
    LogImport(const std::string& logPath, RowSink& sink, ImportProgressFn progress = {});
    ~LogImport();
    LogImport(const LogImport&) = delete;
    LogImport& operator=(const LogImport&) = delete;

    /// Imports the records of `range`, which must start where the previous read stopped (at a record's start).
    /// Throws only when the file cannot be opened or the store fails.
    void read(const LogByteRange& range);
    /// The offset and the lines read up to.
    uint64_t bytesRead() const;
    int64_t linesRead() const;
    /// Writes the session row as far as read and commits, so that readers see the rows so far.
    void publish();
    /// Adds the rows of the log's end (spans never closed, problems of the whole file) once all is read.
    ImportResult finish();

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Imports `logPath` into a new session of `sink`. Throws only when the file cannot be opened or the store fails.
ImportResult importTorchTraceLog(const std::string& logPath, RowSink& sink,
                                 const ImportProgressFn& progress = {});

}  // namespace traces

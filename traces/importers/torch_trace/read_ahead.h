// Reads a log's records and hashes their payloads on a thread of its own, a few records ahead of the importer:
// the md5 of every payload (checked against the record's, and the key payloads are stored under) is a fifth
// of the importer's work, and the writer thread keeps the other core busy only part of the time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "importers/torch_trace/log_records.h"

namespace traces {

/// A record read ahead, with what was found while reading it.
struct ReadRecord {
    LogRecord record;
    std::string payloadMd5;            ///< md5 of record.payload when it has payload lines, else empty
    std::vector<LogProblem> problems;  ///< problems met before this record (malformed lines skipped)
    uint64_t bytesRead = 0;            ///< the reader's position after this record
};

class ReadAheadRecords {
public:
    /// Opens the file at once (throws as LogRecordReader does) and starts reading.
    ReadAheadRecords(const std::string& path, LogByteRange range);
    ~ReadAheadRecords();
    ReadAheadRecords(const ReadAheadRecords&) = delete;
    ReadAheadRecords& operator=(const ReadAheadRecords&) = delete;

    /// The next record, valid until the next call; null at the end, with the problems after the last record in
    /// trailingProblems(). Rethrows what the reading thread threw.
    ReadRecord* next();
    std::vector<LogProblem>& trailingProblems();

    uint64_t fileSize() const;
    /// Where reading stopped, once next() returned null.
    uint64_t bytesRead() const;
    int64_t linesRead() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace traces

// Streams a TORCH_TRACE log as records (header line + tab-prefixed payload lines) in flat memory,
// whatever the file's size. Lines that cannot start a record are reported, never fatal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "importers/torch_trace/glog_header.h"

namespace traces {

struct LogRecord {
    int64_t line = 0;          ///< 1-based line of the header
    GlogHeader header;         ///< its views point into headerText
    std::string headerText;    ///< the header line, with room for simdjson's padding after it
    std::string payload;       ///< continuation lines, one leading tab removed each, joined by '\n'
    int64_t payloadLines = 0;
    bool cutShort = false;     ///< the file ended in the middle of this record's last line
};

/// A problem in the input: where it is (1-based line and column) and what is wrong.
/// A line longer than this is skipped with a `line_too_long` problem: holding it (and the copies that parsing
/// and storing a payload make) could exhaust memory, and no real record has one.
inline constexpr size_t kMaxLineBytes = 64u << 20;

struct LogProblem {
    int64_t line = 0;
    int column = 0;
    std::string kind;
    std::string message;
};

/// The part of a log file to read: bytes [begin, end) (end clipped to the file's size), `begin` at the start of a
/// record, with `linesBefore` lines before it; a log imported in parts as it grows reads one part at a time.
struct LogByteRange {
    uint64_t begin = 0;
    uint64_t end = UINT64_MAX;
    int64_t linesBefore = 0;
};

class LogRecordReader {
public:
    using ProblemSink = std::function<void(LogProblem)>;
    /// Throws std::runtime_error when the file cannot be opened.
    LogRecordReader(const std::string& path, ProblemSink onProblem, LogByteRange range = {});
    ~LogRecordReader();
    LogRecordReader(const LogRecordReader&) = delete;
    LogRecordReader& operator=(const LogRecordReader&) = delete;

    /// Reads the next well-formed record; false at the end of the file.
    bool next(LogRecord& record);

    /// The file offset read up to, and where the range read ends (the file's size when reading it all).
    uint64_t bytesRead() const { return bytesConsumed_; }
    uint64_t fileSize() const { return fileSize_; }
    int64_t linesRead() const { return lineNumber_; }

private:
    bool readLine(std::string_view& line);
    bool fillBuffer();
    void reportBadLine(std::string_view line, int column, const char* expected);
    void reportOverlongLine();

    std::FILE* file_ = nullptr;
    ProblemSink onProblem_;
    std::vector<char> buffer_;
    size_t begin_ = 0;
    size_t end_ = 0;
    bool eof_ = false;
    std::string spill_;          // a line that crosses a buffer boundary
    uint64_t overlongBytes_ = 0;  // the length so far of a line past kMaxLineBytes (its text is not kept)
    bool lastLineCut_ = false;   // the line just read had no terminating newline
    int64_t lineNumber_ = 0;
    uint64_t bytesConsumed_ = 0;
    uint64_t fileSize_ = 0;
    std::string pending_;        // a header line read while collecting the previous record's payload
    int64_t pendingLine_ = 0;
    bool hasPending_ = false;
    bool pendingCut_ = false;
};

}  // namespace traces

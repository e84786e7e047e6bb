// LogRecordReader: chunked reads, memchr line splitting, one record of look-ahead (see log_records.h).
#include "importers/torch_trace/log_records.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace traces {
namespace {

constexpr size_t kChunkBytes = 4u << 20;
constexpr size_t kJsonPadding = 64;  // simdjson reads up to this many bytes past the end of its input

bool looksBinary(std::string_view line) {
    size_t controls = 0;
    for (unsigned char c : line.substr(0, 256)) {
        if (c == 0) return true;
        if (c < 0x20 && c != '\t') ++controls;
    }
    return controls > 4;
}

std::string excerpt(std::string_view line) {
    std::string out;
    for (unsigned char c : line.substr(0, 60)) out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
    if (line.size() > 60) out += "...";
    return out;
}

}  // namespace

LogRecordReader::LogRecordReader(const std::string& path, ProblemSink onProblem, LogByteRange range)
    : onProblem_(std::move(onProblem)) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    if (std::fseek(file_, 0, SEEK_END) == 0) {
        long size = std::ftell(file_);
        fileSize_ = std::min(range.end, size > 0 ? static_cast<uint64_t>(size) : 0);
    }
    bytesConsumed_ = std::min(range.begin, fileSize_);
    lineNumber_ = range.linesBefore;
    std::fseek(file_, static_cast<long>(bytesConsumed_), SEEK_SET);
    // No larger than the range (+1, so that the first read of a small range already sees its end): a small log,
    // or the second's growth that `--follow` reads, then costs no 4 MB zeroed buffer.
    buffer_.resize(static_cast<size_t>(std::min<uint64_t>(kChunkBytes, fileSize_ - bytesConsumed_ + 1)));
}

LogRecordReader::~LogRecordReader() {
    if (file_) std::fclose(file_);
}

bool LogRecordReader::fillBuffer() {
    if (eof_) return false;
    // Bytes of the range not yet in the buffer: those consumed, plus the buffer's unread rest (none when called).
    size_t wanted = static_cast<size_t>(std::min<uint64_t>(buffer_.size(), fileSize_ - bytesConsumed_));
    size_t n = wanted == 0 ? 0 : std::fread(buffer_.data(), 1, wanted, file_);
    begin_ = 0;
    end_ = n;
    if (n < buffer_.size()) eof_ = true;
    return n > 0;
}

bool LogRecordReader::readLine(std::string_view& line) {
    spill_.clear();
    bool spilled = false;
    for (;;) {
        if (begin_ == end_ && !fillBuffer()) {
            if (overlongBytes_ > 0) {
                ++lineNumber_;
                reportOverlongLine();
                return false;
            }
            if (!spilled) return false;
            lastLineCut_ = true;  // the file's last line had no newline: it may have been cut mid-write
            ++lineNumber_;
            line = spill_;
            return true;
        }
        const char* start = buffer_.data() + begin_;
        const void* nl = std::memchr(start, '\n', end_ - begin_);
        if (nl) {
            size_t len = static_cast<size_t>(static_cast<const char*>(nl) - start);
            begin_ += len + 1;
            bytesConsumed_ += len + 1;
            ++lineNumber_;
            lastLineCut_ = false;
            if (overlongBytes_ == 0 && spill_.size() + len > kMaxLineBytes) overlongBytes_ = spill_.size();
            if (overlongBytes_ > 0) {
                overlongBytes_ += len;
                reportOverlongLine();
                spilled = false;
                continue;
            }
            if (spilled) {
                spill_.append(start, len);
                line = spill_;
            } else {
                line = std::string_view(start, len);
            }
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            return true;
        }
        if (overlongBytes_ == 0 && spill_.size() + (end_ - begin_) > kMaxLineBytes) {
            overlongBytes_ = spill_.size();
            spill_.clear();
            spill_.shrink_to_fit();
        }
        if (overlongBytes_ > 0) overlongBytes_ += end_ - begin_;
        else spill_.append(start, end_ - begin_);
        bytesConsumed_ += end_ - begin_;
        begin_ = end_;
        spilled = true;
    }
}

void LogRecordReader::reportOverlongLine() {
    onProblem_(LogProblem{lineNumber_, 1, "line_too_long",
                          "line of " + std::to_string(overlongBytes_) + " bytes is longer than the " +
                              std::to_string(kMaxLineBytes >> 20) + " MiB a trace line may have; skipped"});
    overlongBytes_ = 0;
}

void LogRecordReader::reportBadLine(std::string_view line, int column, const char* expected) {
    LogProblem p;
    p.line = lineNumber_;
    if (looksBinary(line)) {
        p.column = 1;
        p.kind = "binary_data";
        p.message = "binary data where a trace record was expected";
    } else {
        p.column = column;
        p.kind = "bad_header";
        p.message = std::string("not a trace record header: expected ") + expected + " in '" + excerpt(line) + "'";
    }
    onProblem_(std::move(p));
}

bool LogRecordReader::next(LogRecord& record) {
    // Find a header: the pending one from the previous call, or the next line that parses as one.
    for (;;) {
        if (hasPending_) {
            record.headerText.assign(pending_);
            record.line = pendingLine_;
            record.cutShort = pendingCut_;
            hasPending_ = false;
        } else {
            std::string_view line;
            if (!readLine(line)) return false;
            if (line.empty()) continue;
            if (line.front() == '\t') {
                // Continuation lines with no record to belong to: report the run once.
                int64_t first = lineNumber_;
                std::string_view more;
                bool header = false;
                while (readLine(more)) {
                    if (more.empty()) continue;
                    if (more.front() != '\t') {
                        pending_.assign(more);
                        pendingLine_ = lineNumber_;
                        pendingCut_ = lastLineCut_;
                        hasPending_ = header = true;
                        break;
                    }
                }
                int64_t last = header ? lineNumber_ - 1 : lineNumber_;
                onProblem_(LogProblem{first, 1, "orphan_payload",
                                      "payload lines " + std::to_string(first) + "-" + std::to_string(last) +
                                          " follow no valid record header; skipped"});
                continue;
            }
            record.headerText.assign(line);
            record.line = lineNumber_;
            record.cutShort = lastLineCut_;
        }
        record.headerText.reserve(record.headerText.size() + kJsonPadding);
        int column = 0;
        const char* expected = "";
        if (parseGlogHeader(record.headerText, record.header, column, expected)) break;
        reportBadLine(record.headerText, column, expected);
        // Its payload lines belong to the bad record: skip them quietly (the problem above covers them).
        std::string_view more;
        while (readLine(more)) {
            if (more.empty() || more.front() == '\t') continue;
            pending_.assign(more);
            pendingLine_ = lineNumber_;
            pendingCut_ = lastLineCut_;
            hasPending_ = true;
            break;
        }
    }

    record.payload.clear();
    record.payloadLines = 0;
    std::string_view line;
    while (readLine(line)) {
        if (line.empty()) continue;  // blank lines are noise some log stores insert; payload lines keep their tab
        if (line.front() != '\t') {
            pending_.assign(line);
            pendingLine_ = lineNumber_;
            pendingCut_ = lastLineCut_;
            hasPending_ = true;
            break;
        }
        if (record.payloadLines++ > 0) record.payload += '\n';
        record.payload.append(line.substr(1));
        if (lastLineCut_) record.cutShort = true;
    }
    return true;
}

}  // namespace traces

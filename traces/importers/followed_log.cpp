// Follow mode's import (see followed_log.h): finds where the complete records of a grown log end, and reads up
// to there with the log's LogImport, whose state carries over from one update to the next.
#include "importers/followed_log.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "importers/import_path.h"

namespace traces {
namespace {

struct FileState {
    uint64_t size = 0;
    uint64_t id = 0;
};

std::optional<FileState> fileState(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return std::nullopt;
    return FileState{static_cast<uint64_t>(info.st_size), static_cast<uint64_t>(info.st_ino)};
}

/// A line that can start a record: not a payload line (tab) and not a blank one (the reader skips blank lines
/// inside payloads, so they do not end a record).
bool startsRecord(char c) { return c != '\t' && c != '\n' && c != '\r'; }

/// The offset of the last line in (`from`, `size`) that can start a record, which ends every record before it;
/// `from` when there is none. Reads backwards from the end, so only the new bytes are read.
uint64_t lastRecordStart(std::FILE* file, uint64_t from, uint64_t size) {
    constexpr uint64_t kBlock = 64u << 10;
    std::vector<char> block(kBlock + 1);
    uint64_t end = size;  // block covers [begin, end), plus the byte at `end` when there is one
    while (end > from) {
        uint64_t begin = end > from + kBlock ? end - kBlock : from;
        size_t length = static_cast<size_t>(std::min(end + 1, size) - begin);
        if (std::fseek(file, static_cast<long>(begin), SEEK_SET) != 0 ||
            std::fread(block.data(), 1, length, file) != length)
            return from;
        // Candidates p in (begin, end] with p < size: byte p - 1 is a newline and byte p starts a record.
        for (uint64_t p = std::min(end, size - 1); p > begin; --p) {
            size_t i = static_cast<size_t>(p - begin);
            if (block[i - 1] == '\n' && startsRecord(block[i])) return p;
        }
        end = begin;
    }
    return from;
}

/// The first byte at or after `offset` that is not a line end, or 0 when there is none yet.
char firstNonBlankByte(std::FILE* file, uint64_t offset) {
    if (std::fseek(file, static_cast<long>(offset), SEEK_SET) != 0) return 0;
    for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file))
        if (c != '\n' && c != '\r') return static_cast<char>(c);
    return 0;
}

}  // namespace

FollowedLog::FollowedLog(std::string path, RowSink& sink) : path_(std::move(path)), import_(path_, sink) {
    if (auto state = fileState(path_)) fileId_ = state->id;
}

FollowedLog::Update FollowedLog::update() {
    std::optional<FileState> state = fileState(path_);
    if (!state) return Update::Unchanged;
    uint64_t done = import_.bytesRead();
    if (state->id != fileId_ || state->size < done) return Update::Restart;
    bool grew = state->size != seenSize_;
    seenSize_ = state->size;
    if (state->size == done) return Update::Unchanged;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path_.c_str(), "rb"), &std::fclose);
    if (!file) return Update::Unchanged;
    if (tailAssumedWhole_) {
        // The last record was taken as whole; a payload line now would have belonged to it.
        char next = firstNonBlankByte(file.get(), done);
        if (next == 0) return Update::Unchanged;
        if (next == '\t') return Update::Restart;
    }
    uint64_t end = lastRecordStart(file.get(), done, state->size);
    tailAssumedWhole_ = false;
    if (end == done && !grew) {
        // Quiet since the last update and ending with a whole line: the writer has finished its last record
        // (PyTorch writes a record at once). Should it go on with that record, update() starts over.
        if (std::fseek(file.get(), static_cast<long>(state->size - 1), SEEK_SET) != 0 || std::fgetc(file.get()) != '\n')
            return Update::Unchanged;
        end = state->size;
        tailAssumedWhole_ = true;
    }
    if (end == done) return Update::Unchanged;
    import_.read(LogByteRange{done, end, import_.linesRead()});
    import_.publish();
    return Update::Appended;
}

ImportResult FollowedLog::finish() {
    uint64_t done = import_.bytesRead();
    if (auto state = fileState(path_); state && state->size > done)
        import_.read(LogByteRange{done, state->size, import_.linesRead()});
    return import_.finish();
}

FollowedPath::FollowedPath(std::string path) : path_(std::move(path)) { startOver(); }

void FollowedPath::startOver() {
    logs_.clear();
    sink_ = std::make_unique<MemorySink>(MemorySink::Payloads::ModelOnly);
    bytes_ = 0;
}

bool FollowedPath::update() {
    bool changed = false;
    for (const std::string& file : listTraceLogs(path_)) {
        auto known = std::find_if(logs_.begin(), logs_.end(), [&](const Log& log) { return log.file == file; });
        if (known == logs_.end()) {
            logs_.push_back(Log{file, std::make_unique<FollowedLog>(file, *sink_)});
            changed = true;
        }
    }
    for (Log& log : logs_) {
        switch (log.follower->update()) {
            case FollowedLog::Update::Unchanged: break;
            case FollowedLog::Update::Appended: changed = true; break;
            case FollowedLog::Update::Restart:
                startOver();
                update();
                return true;
        }
    }
    bytes_ = 0;
    for (const Session& session : sink_->data().sessions) bytes_ += static_cast<uint64_t>(session.bytes);
    return changed;
}

TraceData FollowedPath::load(LoadProgress* progress) const {
    TraceData trace = loadTrace(sink_->data(), progress);
    trace.path = path_;
    return trace;
}

}  // namespace traces

// Follow mode's import: the TORCH_TRACE logs of a path (a file or a folder of rank logs) imported into memory as
// they grow, each update reading only the bytes appended since the last one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "importers/torch_trace/torch_trace_importer.h"
#include "store/memory_sink.h"
#include "store/trace_reader.h"

namespace traces {

/// One log file imported as it grows. A record is imported once the next one starts (its payload may still be
/// growing until then), or once the file has stopped growing for an update and ends with a whole line; finish()
/// imports the rest. Rows only ever get appended, so a log read in any number of parts gives the rows of reading
/// it at once.
class FollowedLog {
public:
    FollowedLog(std::string path, RowSink& sink);

    enum class Update {
        Unchanged,  ///< nothing new to import
        Appended,   ///< rows were added
        Restart,    ///< the file shrank, was replaced, or went on where it was assumed complete: import it anew
    };
    Update update();
    /// Imports what is left, even a record cut at the end, and the rows of the log's end.
    ImportResult finish();

private:
    std::string path_;
    LogImport import_;
    uint64_t seenSize_ = 0;       ///< the file's size at the previous update
    uint64_t fileId_ = 0;         ///< the file's inode: another file under the same name is another log
    bool tailAssumedWhole_ = false;  ///< the last record was imported without a following record's start
};

/// The logs of a path, file or folder (new rank logs join as they appear), followed into one MemorySink.
class FollowedPath {
public:
    explicit FollowedPath(std::string path);
    FollowedPath(const FollowedPath&) = delete;
    FollowedPath& operator=(const FollowedPath&) = delete;

    /// Imports what every log gained since the last call; true when rows were added (or the import began anew
    /// because a log was truncated or replaced). Throws while the path holds no log yet.
    bool update();
    /// The model of everything imported so far, as loadTrace gives it.
    TraceData load(LoadProgress* progress = nullptr) const;
    /// Bytes imported so far over all logs.
    uint64_t bytesImported() const { return bytes_; }
    size_t logCount() const { return logs_.size(); }

private:
    struct Log {
        std::string file;
        std::unique_ptr<FollowedLog> follower;
    };
    std::string path_;
    std::unique_ptr<MemorySink> sink_;
    std::vector<Log> logs_;
    uint64_t bytes_ = 0;

    void startOver();
};

}  // namespace traces

// Opens one path in the background: a trace file is loaded, a raw log or a directory is imported in memory (a
// MemorySink, no file written); then the views' analysis is built, all off the UI thread, with progress to show.
#pragma once

#include <future>
#include <memory>
#include <string>

#include "core/trace_analysis.h"
#include "importers/followed_log.h"
#include "store/trace_reader.h"

namespace app {

struct LoadedTrace {
    std::shared_ptr<const traces::TraceData> data;  ///< null from a follow refresh that found nothing new
    std::shared_ptr<const viz::TraceAnalysis> analysis;
    std::string importNote;  ///< "imported 2 file(s), 3 malformed record(s)" for logs; empty for trace files
};

class TraceLoad {
public:
    explicit TraceLoad(std::string path);
    /// Follow mode: imports what the logs of `follower` gained since its last update (all of them the first time)
    /// and loads everything it imported so far; with `onlyIfChanged`, gives no trace when nothing was added.
    /// Only one load may use a follower at a time.
    TraceLoad(std::string path, std::shared_ptr<traces::FollowedPath> follower, bool onlyIfChanged);
    /// Cancels a load still running and waits for it.
    ~TraceLoad();
    TraceLoad(const TraceLoad&) = delete;
    TraceLoad& operator=(const TraceLoad&) = delete;

    const std::string& path() const { return path_; }
    bool ready() const;
    /// Once ready(): the trace, or the load's error as an exception.
    LoadedTrace take();
    float fraction() const { return progress_->fraction(); }
    std::string stage() const { return progress_->stage(); }
    void cancel() { progress_->requestCancel(); }

private:
    std::string path_;
    std::shared_ptr<traces::LoadProgress> progress_;
    std::future<LoadedTrace> future_;
};

}  // namespace app

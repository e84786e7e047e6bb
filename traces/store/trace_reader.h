// The one read API of the trace store: loads a whole trace into traces::TraceData, from a trace file or from the
// rows a MemorySink gathered, optionally on a background thread with progress and cancellation (for the GUI).
// Both give the same model; artifact payloads other than those the views show stay out of it.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <string>

#include "model/trace_model.h"

namespace traces {

/// Shared between a loading thread and whoever watches it; every member is safe to read while loading.
class LoadProgress {
public:
    float fraction() const { return fraction_.load(); }
    std::string stage() const;
    void requestCancel() { cancel_ = true; }
    bool cancelRequested() const { return cancel_.load(); }

    void report(float fraction, std::string stage);

private:
    std::atomic<float> fraction_{0};
    std::atomic<bool> cancel_{false};
    mutable std::mutex mutex_;
    std::string stage_;
};

class LoadCancelled : public std::runtime_error {
public:
    LoadCancelled() : std::runtime_error("trace loading cancelled") {}
};

/// Loads every table of the trace at `path`. Throws DbError for missing, foreign or too-new files.
TraceData loadTrace(const std::string& path, LoadProgress* progress = nullptr);

/// Loads the rows a MemorySink gathered (`MemorySink::take()`, or a copy of `data()` to keep importing into it), as
/// loadTrace would load the trace file a TraceWriter given the same rows wrote.
TraceData loadTrace(TraceData sinkRows, LoadProgress* progress = nullptr);

/// loadTrace on a background thread; the future rethrows its errors.
std::future<TraceData> loadTraceAsync(const std::string& path, std::shared_ptr<LoadProgress> progress);

/// The payload text of one artifact (empty when it had none).
std::string loadArtifactPayload(const std::string& path, RowId artifactId);

}  // namespace traces

// `cwb run --trace FILE.db --stats FILE.json`: the recorders that listen to the capture engine's compile events
// during a run. The run command gives sink() to the capture engine and calls finish() when the script is done.
#pragma once

#include <memory>
#include <string>

#include "capture/compile_events.h"

namespace eng::record {
class TraceRecorder;
class StatsRecorder;
class FanOutSink;
}  // namespace eng::record

namespace cwb {

struct RecordingOptions {
    std::string script;     ///< the script as given on the command line
    std::string tracePath;  ///< --trace: empty when not asked for
    std::string statsPath;  ///< --stats: empty when not asked for
};

class RunRecording {
public:
    /// Creates the trace file at once (replacing an old one), so a run that crashes still leaves it.
    explicit RunRecording(const RecordingOptions& options);
    ~RunRecording();
    RunRecording(const RunRecording&) = delete;
    RunRecording& operator=(const RunRecording&) = delete;

    /// Where the capture engine sends its events; nullptr when neither --trace nor --stats was given.
    eng::capture::CompileEventSink* sink() { return sink_; }
    /// Completes the trace file and writes the stats JSON; throws std::runtime_error when it cannot write them.
    void finish();

private:
    RecordingOptions options_;
    std::unique_ptr<eng::record::TraceRecorder> trace_;
    std::unique_ptr<eng::record::StatsRecorder> stats_;
    std::unique_ptr<eng::record::FanOutSink> both_;
    eng::capture::CompileEventSink* sink_ = nullptr;
};

}  // namespace cwb

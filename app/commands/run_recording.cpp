// RunRecording (see run_recording.h): one TraceRecorder and/or StatsRecorder, fanned out when both are asked for.
#include "commands/run_recording.h"

#include "record/fan_out_sink.h"
#include "record/stats_recorder.h"
#include "record/trace_recorder.h"

namespace cwb {

RunRecording::RunRecording(const RecordingOptions& options) : options_(options) {
    eng::record::RunInfo run{options.script, std::string("cwb ") + CWB_VERSION};
    if (!options.tracePath.empty()) trace_ = std::make_unique<eng::record::TraceRecorder>(options.tracePath, run);
    if (!options.statsPath.empty()) stats_ = std::make_unique<eng::record::StatsRecorder>(run);
    if (trace_ && stats_) {
        both_ = std::make_unique<eng::record::FanOutSink>(
            std::vector<eng::capture::CompileEventSink*>{trace_.get(), stats_.get()});
        sink_ = both_.get();
    } else if (trace_) {
        sink_ = trace_.get();
    } else if (stats_) {
        sink_ = stats_.get();
    }
}

RunRecording::~RunRecording() = default;

void RunRecording::finish() {
    if (trace_) trace_->close();
    if (stats_) stats_->writeJson(options_.statsPath);
}

}  // namespace cwb

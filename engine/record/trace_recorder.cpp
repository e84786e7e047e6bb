// TraceRecorder (see trace_recorder.h): a SessionRecorder whose rows go to a trace file.
#include "record/trace_recorder.h"

#include "store/trace_writer.h"

namespace eng::record {

TraceRecorder::TraceRecorder(const std::string& path, const RunInfo& run)
    : SessionRecorder(std::make_unique<traces::TraceWriter>(path), run) {}

}  // namespace eng::record

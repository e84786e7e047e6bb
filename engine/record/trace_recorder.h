// `cwb run --trace FILE.db`: records every compile event of an engine run into a trace file, in the schema of
// imported TORCH_TRACE logs. Each compile is committed as it starts and as it finishes, so a run that crashes
// leaves a readable trace of everything up to the crash.
#pragma once

#include <string>

#include "record/session_recorder.h"

namespace eng::record {

class TraceRecorder : public SessionRecorder {
public:
    /// Creates (or replaces) the trace file at `path` with one engine-run session for `run`.
    TraceRecorder(const std::string& path, const RunInfo& run);
};

}  // namespace eng::record

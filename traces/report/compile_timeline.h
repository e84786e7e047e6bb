// The compile-time events (chromium_event spans) of a trace laid out in lanes, one per session (rank) and
// compile id, with nesting depths: what the workbench's Timeline view draws and `--format perfetto` writes.
#pragma once

#include "model/trace_model.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace traces {

struct TimelineSpan {
    const Span* span = nullptr;
    int depth = 0;  ///< spans of a lane that contain this one
};

struct TimelineLane {
    RowId sessionId = 0;
    std::string sessionLabel;  ///< "rank 0" or the log's file name
    std::string compileKey;    ///< "0/1" (attempts folded); "" for events outside any compile
    std::string label;         ///< "[0/1] forward", or "(no compile id)"
    std::optional<RowId> compileId;  ///< the compile a click selects: the attempt of the lane's first span
    std::vector<TimelineSpan> spans;  ///< by start time
    int depth = 1;  ///< rows the lane needs
};

struct CompileTimeline {
    double startUs = 0;  ///< earliest span start of the whole trace
    double endUs = 0;    ///< latest span end
    std::vector<TimelineLane> lanes;  ///< sessions in trace order; in each, lanes in order of first event
};

/// Holds pointers into `trace`, which must outlive the result.
CompileTimeline buildCompileTimeline(const TraceData& trace);

/// Chrome trace event JSON (Perfetto, chrome://tracing): a process per session, a thread per lane.
void writePerfettoTrace(const TraceData& trace, std::ostream& out);

}  // namespace traces

// The status a compile id shows in every view (tlparse's colours plus "recompiled"), and counts per status.
// One rule for all views, so a compile id has the same colour in the sites tree, the stepper and the metrics.
#pragma once

#include <array>
#include <string_view>

#include "model/trace_model.h"

namespace traces {
class TraceIndex;
}

namespace viz {

enum class CompileState { Ok, GraphBreak, Failed, Recompiled, Unknown, Empty };
constexpr int kCompileStateCount = 6;
/// Every state in legend and filter order.
constexpr std::array<CompileState, kCompileStateCount> kCompileStates = {
    CompileState::Ok, CompileState::GraphBreak, CompileState::Failed,
    CompileState::Recompiled, CompileState::Empty, CompileState::Unknown};

/// Lower-case words for labels and filters: "ok", "graph break", "failed", "recompiled", "empty graph", "unknown".
const char* compileStateName(CompileState state);

/// The status of the compile id whose first row (occurrence head) is `head`, over all its attempts:
/// failed if any attempt failed; empty graph if the last attempt finished without a graph (tlparse's
/// `status-empty`, ranked above breaks as there); graph break if an attempt restarted or recorded a break; unknown if the
/// last attempt never recorded metrics; recompiled for ids above 0 (`[0/1]`); ok otherwise.
CompileState compileStateOf(const traces::TraceIndex& index, const traces::Compile& head);

struct StateCounts {
    std::array<int, kCompileStateCount> byState{};

    int total() const;
    int count(CompileState state) const { return byState[static_cast<size_t>(state)]; }
    void add(CompileState state) { ++byState[static_cast<size_t>(state)]; }
    StateCounts& operator+=(const StateCounts& other);
};

}  // namespace viz

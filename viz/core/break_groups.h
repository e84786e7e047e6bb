// Graph breaks of a session folded into groups (the summary's de-duplicated break reasons) with what the
// breaks view shows per group: a title, where in user code, the source line and the compiles involved.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/summary.h"

namespace viz {

struct BreakGroup {
    traces::BreakReasonSummary reason;  ///< count, stack, compiles and GraphBreak rows folded together
    std::string title;        ///< the break type ("Failed to trace builtin operator"), else the reason's first line
    std::string location;     ///< "programs/breaks_cpu.py:9", or "" when the log named no user frame
    std::string sourceLine;   ///< the user's code at that line, trimmed, when the log had it
    std::string explanation;  ///< Dynamo's whole message: what it was tracing, Explanation and Hint lines
};

/// One group per summary break reason, in first-seen order.
std::vector<BreakGroup> groupBreaks(const traces::SessionSummary& summary);

/// Indices of the groups whose title, reason, location, source line or compile ids contain `text`.
std::vector<size_t> filterBreaks(const std::vector<BreakGroup>& groups, std::string_view text);

}  // namespace viz

// `cwb run --stats FILE.json`: the counts PyTorch keeps in torch._dynamo.utils.counters for a run, counted
// from the same rows a trace file would hold and with the same rules as the report's summary.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "record/session_recorder.h"

namespace eng::record {

struct RunStats {
    int64_t uniqueGraphs = 0;  ///< counters["stats"]["unique_graphs"]: graphs Dynamo kept and handed on
    int64_t graphBreaks = 0;   ///< the sum of counters["graph_break"]
    int64_t recompiles = 0;    ///< occurrences of compile ids whose compile number is above 0
    /// counters["graph_break"]: reason (without the "Encountered graph break when attempting to trace" preface)
    /// -> count, in first-seen order.
    std::vector<std::pair<std::string, int64_t>> graphBreakReasons;

    bool operator==(const RunStats&) const = default;
};

/// The stats of one session of a loaded trace (an engine run or an imported log): uniqueGraphs, graphBreaks and
/// recompiles as traces::summarizeSession counts them, reasons from its dynamo_graph_break_reason breaks.
RunStats statsOfSession(const traces::TraceData& trace, const traces::Session& session);

/// {"unique_graphs": N, "graph_breaks": N, "recompiles": N, "graph_break_reasons": {"reason": count}}.
std::string statsJson(const RunStats& stats);

class StatsRecorder : public SessionRecorder {
public:
    explicit StatsRecorder(const RunInfo& run);

    RunStats stats() const;
    /// Writes statsJson(stats()) to `path`; throws std::runtime_error when it cannot.
    void writeJson(const std::string& path) const;
};

}  // namespace eng::record

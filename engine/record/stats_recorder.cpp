// StatsRecorder (see stats_recorder.h): rows kept in memory, counted by the report's own summary code so that
// `--stats` and `cwb report` of the same run agree (recompiles: the report also counts limit-refused ones).
#include "record/stats_recorder.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

#include "parse/graph_break_text.h"
#include "report/summary.h"
#include "report/trace_index.h"
#include "store/memory_sink.h"

namespace eng::record {

RunStats statsOfSession(const traces::TraceData& trace, const traces::Session& session) {
    traces::TraceIndex index(trace);
    traces::SessionSummary summary = traces::summarizeSession(index, session);
    RunStats stats;
    stats.uniqueGraphs = summary.uniqueGraphs;
    stats.graphBreaks = summary.counts.graphBreaks;
    // PyTorch's trace holds compile ids above 0 only for compiles that ran: one the recompile limit refused has
    // a "Recompiling function" message (counted by the report) but no compile id of its own.
    stats.recompiles = 0;
    for (const traces::Compile* compile : index.session(session.id).compiles)
        if (compile->started && traces::isRecompile(index, *compile)) ++stats.recompiles;
    std::unordered_map<std::string, size_t> positions;
    // The same rows summary.counts.graphBreaks counts: one per break Dynamo reported (origin "artifact").
    for (const traces::GraphBreak* graphBreak : index.session(session.id).graphBreaks) {
        if (!traces::countedAsGraphBreak(*graphBreak)) continue;
        std::string key = traces::graphBreakCounterKey(graphBreak->reason);
        auto [it, isNew] = positions.try_emplace(key, stats.graphBreakReasons.size());
        if (isNew) stats.graphBreakReasons.emplace_back(key, 0);
        ++stats.graphBreakReasons[it->second].second;
    }
    return stats;
}

std::string statsJson(const RunStats& stats) {
    nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
    for (const auto& [reason, count] : stats.graphBreakReasons) reasons[reason] = count;
    nlohmann::ordered_json out;
    out["unique_graphs"] = stats.uniqueGraphs;
    out["graph_breaks"] = stats.graphBreaks;
    out["recompiles"] = stats.recompiles;
    out["graph_break_reasons"] = std::move(reasons);
    return out.dump(2) + "\n";
}

StatsRecorder::StatsRecorder(const RunInfo& run) : SessionRecorder(std::make_unique<traces::MemorySink>(), run) {}

RunStats StatsRecorder::stats() const {
    // The constructor made the target a MemorySink.
    const auto& memory = static_cast<const traces::MemorySink&>(target());
    return statsOfSession(memory.data(), memory.data().sessions.front());
}

void StatsRecorder::writeJson(const std::string& path) const {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error(path + ": cannot write the stats");
    out << statsJson(stats());
    if (!out.flush()) throw std::runtime_error(path + ": cannot write the stats");
}

}  // namespace eng::record

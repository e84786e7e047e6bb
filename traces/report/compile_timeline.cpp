// buildCompileTimeline and the Perfetto writer (see compile_timeline.h).
#include "report/compile_timeline.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace traces {
namespace {

using Json = nlohmann::ordered_json;

std::string sessionLabel(const Session& session) {
    if (session.rank) return "rank " + std::to_string(*session.rank);
    return session.sourceFile.empty() ? "session " + std::to_string(session.id) : session.sourceFile;
}

/// "0/1" from a compile row, else from the span's own compile_id arg ("0/1_2" folds to "0/1").
std::string laneKey(const Span& span, const Compile* compile) {
    if (compile) {
        CompileKey key = compile->key;
        key.attempt = 0;
        return key.str();
    }
    if (auto key = parseCompileKey(span.compileKey)) {
        key->attempt = 0;
        return key->str();
    }
    return "";
}

void assignDepths(TimelineLane& lane) {
    std::stable_sort(lane.spans.begin(), lane.spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
        return a.span->startUs < b.span->startUs;
    });
    std::vector<double> openEnds;
    for (TimelineSpan& s : lane.spans) {
        while (!openEnds.empty() && openEnds.back() <= s.span->startUs) openEnds.pop_back();
        s.depth = static_cast<int>(openEnds.size());
        lane.depth = std::max(lane.depth, s.depth + 1);
        openEnds.push_back(s.span->startUs + s.span->durationUs.value_or(0.0));
    }
}

}  // namespace

CompileTimeline buildCompileTimeline(const TraceData& trace) {
    CompileTimeline timeline;
    std::unordered_map<RowId, const Compile*> compiles;
    for (const Compile& c : trace.compiles) compiles[c.id] = &c;
    std::map<std::pair<RowId, std::string>, size_t> laneOf;
    std::unordered_map<RowId, size_t> sessionOrder;
    for (size_t i = 0; i < trace.sessions.size(); ++i) sessionOrder[trace.sessions[i].id] = i;
    double start = std::numeric_limits<double>::max(), end = std::numeric_limits<double>::lowest();
    for (const Span& span : trace.spans) {
        const Compile* compile = span.compileId && compiles.contains(*span.compileId) ? compiles[*span.compileId] : nullptr;
        std::string key = laneKey(span, compile);
        auto [it, added] = laneOf.try_emplace({span.sessionId, key}, timeline.lanes.size());
        if (added) {
            TimelineLane lane;
            lane.sessionId = span.sessionId;
            if (auto s = sessionOrder.find(span.sessionId); s != sessionOrder.end())
                lane.sessionLabel = sessionLabel(trace.sessions[s->second]);
            lane.compileKey = key;
            lane.label = key.empty() ? "(no compile id)" : "[" + key + "]";
            timeline.lanes.push_back(std::move(lane));
        }
        TimelineLane& lane = timeline.lanes[it->second];
        if (compile && !lane.compileId) lane.compileId = compile->id;
        if (compile && !compile->function.empty() && lane.label.find(' ') == std::string::npos)
            lane.label += " " + compile->function;
        lane.spans.push_back({&span, 0});
        start = std::min(start, span.startUs);
        end = std::max(end, span.startUs + span.durationUs.value_or(0.0));
    }
    for (TimelineLane& lane : timeline.lanes) assignDepths(lane);
    // Sessions in trace order; inside one, compiled lanes by first event, the lane without an id last.
    std::stable_sort(timeline.lanes.begin(), timeline.lanes.end(), [&](const TimelineLane& a, const TimelineLane& b) {
        size_t sa = sessionOrder[a.sessionId], sb = sessionOrder[b.sessionId];
        if (sa != sb) return sa < sb;
        if (a.compileKey.empty() != b.compileKey.empty()) return b.compileKey.empty();
        return a.spans.front().span->startUs < b.spans.front().span->startUs;
    });
    if (!timeline.lanes.empty()) {
        timeline.startUs = start;
        timeline.endUs = end;
    }
    return timeline;
}

void writePerfettoTrace(const TraceData& trace, std::ostream& out) {
    CompileTimeline timeline = buildCompileTimeline(trace);
    Json events = Json::array();
    std::map<RowId, int> pidOf;
    std::map<RowId, int> lanesInSession;
    for (const TimelineLane& lane : timeline.lanes) {
        auto [pid, newSession] = pidOf.try_emplace(lane.sessionId, static_cast<int>(pidOf.size()) + 1);
        if (newSession)
            events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid->second},
                              {"args", {{"name", lane.sessionLabel}}}});
        int tid = ++lanesInSession[lane.sessionId];
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid->second}, {"tid", tid},
                          {"args", {{"name", lane.label}}}});
        events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid->second}, {"tid", tid},
                          {"args", {{"sort_index", tid}}}});
        for (const TimelineSpan& s : lane.spans) {
            const Span& span = *s.span;
            Json args = Json::parse(span.args.empty() ? "{}" : span.args, nullptr, false);
            if (!args.is_object()) args = Json::object();
            if (!lane.compileKey.empty() && !args.contains("compile_id")) args["compile_id"] = lane.compileKey;
            Json event = {{"name", span.name}, {"cat", span.category.empty() ? "compile" : span.category},
                          {"ts", span.startUs}, {"pid", pid->second}, {"tid", tid}};
            double duration = span.durationUs.value_or(0.0);
            if (duration > 0) {
                event["ph"] = "X";
                event["dur"] = duration;
            } else {
                event["ph"] = "i";
                event["s"] = "t";
            }
            event["args"] = std::move(args);
            events.push_back(std::move(event));
        }
    }
    Json root = {{"displayTimeUnit", "ms"}, {"traceEvents", std::move(events)}};
    out << root.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace traces

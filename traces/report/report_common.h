// Pieces the three report writers share: how compiles are grouped under sites, anchor names, small formatters.
// Internal to traces/report; include only from the report_*.cpp files.
#pragma once

#include "model/trace_model.h"
#include "report/summary.h"
#include "report/trace_index.h"

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace traces::report_detail {

/// One compile site with its compiles in input order; `site` is null for compiles no site could claim.
struct SiteGroup {
    const CompileSite* site = nullptr;
    std::vector<const Compile*> compiles;
};

/// Sites in input order (empty ones included), then one site-less group if any compile lacked a site.
inline std::vector<SiteGroup> groupCompilesBySite(const TraceIndex& index, const Session& session) {
    const SessionRows& rows = index.session(session.id);
    std::vector<SiteGroup> groups;
    std::unordered_map<RowId, size_t> positionBySite;
    for (const CompileSite* site : rows.sites) {
        positionBySite[site->id] = groups.size();
        groups.push_back({site, {}});
    }
    SiteGroup orphans;
    for (const Compile* compile : rows.compiles) {
        auto siteId = index.effectiveSite(*compile);
        auto it = siteId ? positionBySite.find(*siteId) : positionBySite.end();
        if (it == positionBySite.end()) {
            orphans.compiles.push_back(compile);
        } else {
            groups[it->second].compiles.push_back(compile);
        }
    }
    if (!orphans.compiles.empty()) groups.push_back(std::move(orphans));
    return groups;
}

/// GraphBreak row id -> position of the de-duplicated break reason it was folded into.
inline std::unordered_map<RowId, size_t> breakReasonPositions(const SessionSummary& summary) {
    std::unordered_map<RowId, size_t> positions;
    for (size_t i = 0; i < summary.breakReasons.size(); ++i)
        for (RowId id : summary.breakReasons[i].graphBreakIds) positions[id] = i;
    return positions;
}

/// What the session's torchVersion names: the torch that wrote a log, or the cwb that ran the script itself.
inline const char* producerLabel(SessionKind kind) { return kind == SessionKind::EngineRun ? "engine" : "torch"; }

inline std::string sessionTitle(const Session& session) {
    std::string title = session.sourceFile.empty() ? "session " + std::to_string(session.id) : session.sourceFile;
    if (session.rank) title += " (rank " + std::to_string(*session.rank) + ")";
    return title;
}

inline std::string fileLine(const std::string& file, int line) {
    if (file.empty()) return "(unknown location)";
    return line > 0 ? file + ":" + std::to_string(line) : file;
}

inline std::string formatSeconds(double seconds) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
    return buffer;
}

inline std::string compileTitle(const Compile& compile) {
    std::string title = compile.key.display();
    if (!compile.function.empty()) title += " " + compile.function;
    return title;
}

/// "graph ops 2, nodes 4, guards 8", naming only the counts compilation_metrics recorded; empty if none.
inline std::string graphMetricsText(const Compile& compile) {
    std::string text;
    auto add = [&text](const char* label, const std::optional<int64_t>& value) {
        if (!value) return;
        text += (text.empty() ? "" : ", ") + std::string(label) + " " + std::to_string(*value);
    };
    add("graph ops", compile.opCount);
    add("nodes", compile.nodeCount);
    add("inputs", compile.inputCount);
    add("guards", compile.guardCount);
    add("shape-env guards", compile.shapeEnvGuardCount);
    add("cache size", compile.cacheSize);
    return text;
}

inline std::string statusName(const Compile& compile) { return toString(compile.status); }

/// Text made safe for HTML element content and attribute values.
inline std::string escapeHtml(std::string_view raw) {
    std::string out;
    out.reserve(raw.size() + raw.size() / 8);
    for (char c : raw) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

// Anchors are derived from row ids, which are unique in a trace file, so links never collide across sessions.
inline std::string sessionAnchor(RowId sessionId) { return "session-" + std::to_string(sessionId); }
inline std::string siteAnchor(const SiteGroup& group, RowId sessionId) {
    return group.site ? "site-" + std::to_string(group.site->id) : "site-none-" + std::to_string(sessionId);
}
inline std::string compileAnchor(RowId compileId) { return "compile-" + std::to_string(compileId); }
inline std::string breakReasonAnchor(RowId sessionId, size_t position) {
    return "break-" + std::to_string(sessionId) + "-" + std::to_string(position + 1);
}
inline std::string recompileAnchor(RowId sessionId, size_t position) {
    return "recompile-" + std::to_string(sessionId) + "-" + std::to_string(position + 1);
}

}  // namespace traces::report_detail

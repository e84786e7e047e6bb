// Lookup tables over a loaded TraceData, built once in linear time so that summaries and report writers
// never scan all guards, graphs or breaks for each compile. Holds pointers into the TraceData it indexes.
#pragma once

#include "model/trace_model.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace traces {

/// Rows of one session, each list in input order (seq, or line for import issues).
struct SessionRows {
    std::vector<const Compile*> compiles;
    std::vector<const CompileSite*> sites;
    std::vector<const Graph*> graphs;
    std::vector<const GraphBreak*> graphBreaks;
    std::vector<const OutputCode*> outputCode;
    std::vector<const ImportIssue*> issues;
};

/// Rows attached to one Compile row, each list in input order (index for guards and guard failures).
struct CompileRows {
    std::vector<const Guard*> guards;
    std::vector<const GuardFailure*> guardFailures;
    std::vector<const Graph*> graphs;
    std::vector<const GraphBreak*> graphBreaks;
    std::vector<const OutputCode*> outputCode;
};

class TraceIndex {
public:
    explicit TraceIndex(const TraceData& trace) : trace_(trace) {
        for (const Session& session : trace.sessions) sessions_[session.id];
        for (const Compile& compile : trace.compiles) {
            sessions_[compile.sessionId].compiles.push_back(&compile);
            compilesById_[compile.id] = &compile;
            perCompile_[compile.id];
        }
        for (const CompileSite& site : trace.sites) {
            sessions_[site.sessionId].sites.push_back(&site);
            sitesById_[site.id] = &site;
        }
        for (const Graph& graph : trace.graphs) {
            sessions_[graph.sessionId].graphs.push_back(&graph);
            if (graph.compileId) perCompile_[*graph.compileId].graphs.push_back(&graph);
        }
        for (const GraphBreak& graphBreak : trace.graphBreaks) {
            sessions_[graphBreak.sessionId].graphBreaks.push_back(&graphBreak);
            if (graphBreak.compileId) perCompile_[*graphBreak.compileId].graphBreaks.push_back(&graphBreak);
        }
        for (const OutputCode& code : trace.outputCode) {
            sessions_[code.sessionId].outputCode.push_back(&code);
            if (code.compileId) perCompile_[*code.compileId].outputCode.push_back(&code);
        }
        for (const ImportIssue& issue : trace.issues) sessions_[issue.sessionId].issues.push_back(&issue);
        for (const Guard& guard : trace.guards) perCompile_[guard.compileId].guards.push_back(&guard);
        for (const GuardFailure& failure : trace.guardFailures)
            perCompile_[failure.compileId].guardFailures.push_back(&failure);

        auto bySeq = [](const auto* a, const auto* b) { return a->seq < b->seq; };
        auto byIndex = [](const auto* a, const auto* b) { return a->index < b->index; };
        for (auto& [id, rows] : sessions_) {
            std::stable_sort(rows.compiles.begin(), rows.compiles.end(), bySeq);
            std::stable_sort(rows.graphs.begin(), rows.graphs.end(), bySeq);
            std::stable_sort(rows.graphBreaks.begin(), rows.graphBreaks.end(), bySeq);
            std::stable_sort(rows.outputCode.begin(), rows.outputCode.end(), bySeq);
            std::stable_sort(rows.issues.begin(), rows.issues.end(),
                             [](const ImportIssue* a, const ImportIssue* b) { return a->line < b->line; });
            linkAttempts(rows.compiles);
        }
        for (auto& [id, rows] : perCompile_) {
            std::stable_sort(rows.guards.begin(), rows.guards.end(), byIndex);
            std::stable_sort(rows.guardFailures.begin(), rows.guardFailures.end(), byIndex);
            std::stable_sort(rows.graphs.begin(), rows.graphs.end(), bySeq);
            std::stable_sort(rows.graphBreaks.begin(), rows.graphBreaks.end(), bySeq);
            std::stable_sort(rows.outputCode.begin(), rows.outputCode.end(), bySeq);
        }
    }

    const TraceData& trace() const { return trace_; }

    const SessionRows& session(RowId sessionId) const {
        auto it = sessions_.find(sessionId);
        return it == sessions_.end() ? empty_ : it->second;
    }

    const CompileRows& compile(RowId compileId) const {
        auto it = perCompile_.find(compileId);
        return it == perCompile_.end() ? emptyCompile_ : it->second;
    }

    const Compile* compileById(RowId compileId) const {
        auto it = compilesById_.find(compileId);
        return it == compilesById_.end() ? nullptr : it->second;
    }

    const CompileSite* siteById(RowId siteId) const {
        auto it = sitesById_.find(siteId);
        return it == sitesById_.end() ? nullptr : it->second;
    }

    /// The site a compile belongs to. Restart attempts (`[0/0_1]`) often carry no site of their own, so
    /// they inherit the one of the dynamo_start'ed attempt of the same compile id.
    std::optional<RowId> effectiveSite(const Compile& compile) const {
        if (compile.siteId) return compile.siteId;
        const Compile* head = occurrenceHead(compile);
        return head ? head->siteId : std::nullopt;
    }

    /// The first row (normally the dynamo_start'ed attempt 0) of the occurrence of `compile`'s id.
    /// An id repeats in one session only after torch._dynamo.reset(), so a started row opens a new one.
    const Compile* occurrenceHead(const Compile& compile) const {
        auto it = heads_.find(compile.id);
        return it == heads_.end() ? &compile : it->second;
    }

    /// All attempts of the occurrence headed by `head`, in input order (head first).
    const std::vector<const Compile*>& attempts(const Compile& head) const {
        static const std::vector<const Compile*> kNone;
        auto it = attempts_.find(head.id);
        return it == attempts_.end() ? kNone : it->second;
    }

private:
    using FrameKey = std::tuple<std::optional<int>, std::optional<int>, std::optional<int>>;

    void linkAttempts(const std::vector<const Compile*>& compiles) {
        std::map<FrameKey, const Compile*> openHeads;
        for (const Compile* compile : compiles) {
            FrameKey key{compile->key.autogradId, compile->key.frameId, compile->key.frameCompileId};
            auto it = openHeads.find(key);
            if (compile->started || it == openHeads.end()) {
                openHeads[key] = compile;
                heads_[compile->id] = compile;
            } else {
                heads_[compile->id] = it->second;
            }
            attempts_[heads_[compile->id]->id].push_back(compile);
        }
    }

    const TraceData& trace_;
    std::unordered_map<RowId, SessionRows> sessions_;
    std::unordered_map<RowId, CompileRows> perCompile_;
    std::unordered_map<RowId, const Compile*> compilesById_;
    std::unordered_map<RowId, const CompileSite*> sitesById_;
    std::unordered_map<RowId, const Compile*> heads_;
    std::unordered_map<RowId, std::vector<const Compile*>> attempts_;
    SessionRows empty_;
    CompileRows emptyCompile_;
};

}  // namespace traces

// Computes the explain-style SessionSummary from an indexed trace; every pass is linear in the session's rows.
// Counting rules follow our report spec (see summary.h and REPORT_JSON.md), message texts follow Dynamo's.
#include "report/summary.h"

#include "report/trace_index.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace traces {

// Started or not: when the recompile limit refuses a compile, Dynamo has already logged the recompile and its
// guard failures, but no dynamo_start.
bool countedAsGraphBreak(const GraphBreak& graphBreak) {
    // Dynamo's generic_jump on data and its step() back to a checkpoint leave their Unsupported counted as
    // unimplemented, not as a graph break.
    return graphBreak.origin == "artifact" && graphBreak.breakType != "Data-dependent branching" &&
           graphBreak.breakType.rfind("Encountered graph break that we cannot resume from.", 0) != 0;
}

bool isRecompile(const TraceIndex& index, const Compile& compile) {
    return index.occurrenceHead(compile) == &compile && compile.key.frameCompileId.value_or(0) > 0;
}

namespace {

bool isGeneratedOutputCode(const OutputCode& code) {
    // cwb's inductor records its wrapper as an "engine" row; the eager fallback's row generates nothing.
    return code.event == "inductor_output_code" || (code.event == "engine" && code.filename == "cwb_inductor_output_code");
}


constexpr int64_t kDefaultRecompileLimit = 8;
// The address torch 2.11 prints; earlier releases pointed at torch.compiler_troubleshooting.html.
constexpr const char* kTroubleshootingUrl =
    "https://docs.pytorch.org/docs/main/user_guide/torch_compiler/compile/programming_model.recompilation.html";
constexpr const char* kNoRecompileReasons = "Unable to find recompilation reasons";

/// Python's textwrap.indent: prefixes every line that is not whitespace-only, keeping the line ends.
std::string indentLines(std::string_view text, std::string_view prefix) {
    std::string out;
    out.reserve(text.size() + prefix.size() * 4);
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        size_t next = end == std::string_view::npos ? text.size() : end + 1;
        std::string_view line = text.substr(start, next - start);
        if (line.find_first_not_of(" \t\r\n\f\v") != std::string_view::npos) out += prefix;
        out += line;
        start = next;
    }
    return out;
}

std::string renderFailure(const GuardFailureText& failure) {
    return failure.failedCompile.empty() ? failure.reason : failure.failedCompile + ": " + failure.reason;
}

/// Splits "0/1: reason" as found in recompile_reasons; text without a compile-id prefix stays whole.
GuardFailureText splitRecompileReason(const std::string& text) {
    size_t colon = text.find(": ");
    if (colon != std::string::npos && parseCompileKey(std::string_view(text).substr(0, colon)))
        return {text.substr(0, colon), text.substr(colon + 2)};
    return {"", text};
}

/// The guard failures that triggered the occurrence headed by `head`: GuardFailure rows when the importer
/// made them, else the recompile_reasons strings; whichever attempt of the occurrence carries them.
std::vector<GuardFailureText> guardFailuresOf(const TraceIndex& index, const Compile& head) {
    std::vector<GuardFailureText> failures;
    const auto& attempts = index.attempts(head);
    for (const Compile* attempt : attempts) {
        for (const GuardFailure* failure : index.compile(attempt->id).guardFailures)
            failures.push_back({failure->failedCompile, failure->reason});
        if (!failures.empty()) return failures;
    }
    for (const Compile* attempt : attempts) {
        for (const std::string& reason : attempt->recompileReasons) failures.push_back(splitRecompileReason(reason));
        if (!failures.empty()) return failures;
    }
    return failures;
}

CompileRef refOf(const Compile& compile) { return {compile.id, compile.key.display()}; }

void countSession(const TraceIndex& index, const SessionRows& rows, SummaryCounts& counts) {
    for (const Compile* compile : rows.compiles) {
        if (compile->started) ++counts.compiles;
        if (isRecompile(index, *compile)) ++counts.recompiles;
        if (!compile->failType.empty()) ++counts.failedCompiles;
    }
    for (const Graph* graph : rows.graphs)
        if (graph->kind == GraphKind::Dynamo) ++counts.graphs;
    for (const GraphBreak* graphBreak : rows.graphBreaks)
        if (countedAsGraphBreak(*graphBreak)) ++counts.graphBreaks;
    for (const OutputCode* code : rows.outputCode)
        if (isGeneratedOutputCode(*code)) ++counts.outputCode;
}

// PyTorch's counters["stats"]["unique_graphs"] counts the graphs Dynamo kept: a restart discards the graph of
// the attempt it abandons, and a compile whose backend failed keeps none.
int64_t countUniqueGraphs(const TraceIndex& index, const SessionRows& rows) {
    int64_t kept = 0;
    for (const Graph* graph : rows.graphs) {
        if (graph->kind != GraphKind::Dynamo) continue;
        const Compile* compile = graph->compileId ? index.compileById(*graph->compileId) : nullptr;
        if (!compile) {
            ++kept;
            continue;
        }
        const auto& attempts = index.attempts(*index.occurrenceHead(*compile));
        if (!attempts.empty() && attempts.back() != compile) continue;
        bool failed = false;
        for (const Compile* attempt : attempts) failed = failed || !attempt->failType.empty();
        if (!failed) ++kept;
    }
    return kept;
}

void countOps(const TraceIndex& index, const SessionRows& rows, SessionSummary& summary) {
    // A compile's graph_op_count describes its Dynamo graph; count it once even if a compile logged two.
    std::unordered_set<RowId> compilesCounted;
    for (const Graph* graph : rows.graphs) {
        if (graph->kind != GraphKind::Dynamo) continue;
        const Compile* compile = graph->compileId ? index.compileById(*graph->compileId) : nullptr;
        if (compile && compile->opCount) {
            if (compilesCounted.insert(compile->id).second) {
                summary.ops += *compile->opCount;
                ++summary.opsGraphsFromMetrics;
            }
            continue;
        }
        for (const GraphNode& node : graph->nodes)
            if (node.op.starts_with("call_")) ++summary.ops;
        ++summary.opsGraphsFromNodes;
    }
}

void collectBreakReasons(const TraceIndex& index, const SessionRows& rows, SessionSummary& summary) {
    bool anyArtifact = false;
    for (const GraphBreak* graphBreak : rows.graphBreaks) anyArtifact = anyArtifact || graphBreak->origin == "artifact";
    const char* origin = anyArtifact ? "artifact" : "restart";
    summary.breakReasonsFromRestarts = !anyArtifact;

    std::unordered_map<std::string, size_t> positionByKey;
    std::vector<std::unordered_set<RowId>> compilesSeen;
    for (const GraphBreak* graphBreak : rows.graphBreaks) {
        if (graphBreak->origin != origin) continue;
        // Rows from older importers may lack a dedupKey; the type and location identify a break as well.
        std::string key = !graphBreak->dedupKey.empty()
                              ? graphBreak->dedupKey
                              : graphBreak->breakType + "@" + graphBreak->userFile + ":" +
                                    std::to_string(graphBreak->userLine) + "#" + graphBreak->reason;
        auto [it, isNew] = positionByKey.try_emplace(key, summary.breakReasons.size());
        if (isNew) {
            BreakReasonSummary reason;
            reason.dedupKey = graphBreak->dedupKey;
            reason.origin = origin;
            reason.breakType = graphBreak->breakType;
            reason.reason = graphBreak->reason;
            reason.userFile = graphBreak->userFile;
            reason.userLine = graphBreak->userLine;
            reason.userStack = graphBreak->userStack;
            if (!graphBreak->userStack.empty()) {
                const Frame& innermost = graphBreak->userStack.back();
                reason.userSource = innermost.source;
                if (reason.userFile.empty()) {
                    reason.userFile = innermost.file;
                    reason.userLine = innermost.line;
                }
            }
            summary.breakReasons.push_back(std::move(reason));
            compilesSeen.emplace_back();
        }
        BreakReasonSummary& reason = summary.breakReasons[it->second];
        ++reason.count;
        reason.graphBreakIds.push_back(graphBreak->id);
        if (!graphBreak->compileId) continue;
        const Compile* compile = index.compileById(*graphBreak->compileId);
        if (compile && compilesSeen[it->second].insert(compile->id).second) reason.compiles.push_back(refOf(*compile));
    }
}

/// Dynamo's configured limit, read from the dynamo_config string inside compilation_metrics when logged.
void readConfiguredLimit(const std::string& metricsJson, RecompileLimitStatus& status) {
    auto metrics = nlohmann::json::parse(metricsJson, nullptr, false);
    if (!metrics.is_object()) return;
    // Compiles keep the whole record envelope, {"compilation_metrics": {...}, "frame_id": ...}.
    if (auto inner = metrics.find("compilation_metrics"); inner != metrics.end() && inner->is_object())
        metrics = *inner;
    auto configText = metrics.find("dynamo_config");
    if (configText == metrics.end() || !configText->is_string()) return;
    auto config = nlohmann::json::parse(configText->get<std::string>(), nullptr, false);
    if (!config.is_object()) return;
    for (const char* name : {"recompile_limit", "cache_size_limit"}) {
        auto value = config.find(name);
        if (value != config.end() && value->is_number_integer()) {
            status.limitType = name;
            status.limit = value->get<int64_t>();
            return;
        }
    }
}

bool refusedByLimit(const Compile& compile, int64_t limit) {
    // RecompileLimitExceeded when Dynamo falls back to eager, FailOnRecompileLimitHit under fullgraph=True.
    if (compile.failType == "RecompileLimitExceeded" || compile.failType == "FailOnRecompileLimitHit") return true;
    // Dynamo checks the limit before dynamo_start, so a refused recompile leaves an id that never started.
    return !compile.started && compile.key.attempt == 0 && compile.key.frameCompileId.value_or(0) >= limit &&
           compile.key.frameCompileId.value_or(0) > 0;
}

struct FunctionGroup {
    std::vector<const Compile*> compiles;
    bool anyRecompile = false;
};

void fillFunctionIdentity(const TraceIndex& index, const FunctionGroup& group, FunctionRecompiles& function) {
    for (const Compile* compile : group.compiles) {
        if (compile->function.empty()) continue;
        function.function = compile->function;
        function.file = compile->file;
        function.firstLine = compile->firstLine;
        return;
    }
    for (const Compile* compile : group.compiles) {
        auto siteId = index.effectiveSite(*compile);
        const CompileSite* site = siteId ? index.siteById(*siteId) : nullptr;
        if (!site) continue;
        function.function = site->function;
        function.file = site->file;
        function.firstLine = site->line;
        return;
    }
}

void judgeRecompileLimit(const TraceIndex& index, const FunctionGroup& group, FunctionRecompiles& function) {
    RecompileLimitStatus status;
    status.limit = kDefaultRecompileLimit;
    for (const Compile* compile : group.compiles) {
        if (compile->metricsJson.empty()) continue;
        readConfiguredLimit(compile->metricsJson, status);
        break;
    }
    status.reached = function.compileCount >= status.limit;
    const Compile* refused = nullptr;
    for (const Compile* compile : group.compiles)
        if (refusedByLimit(*compile, status.limit)) refused = compile;
    status.hit = refused != nullptr;
    if (!status.reached && !status.hit) return;
    if (status.hit) {
        auto failures = guardFailuresOf(index, *index.occurrenceHead(*refused));
        std::string lastReason = failures.empty() ? kNoRecompileReasons : renderFailure(failures.front());
        status.warning = formatRecompileLimitWarning(status.limitType, status.limit, function.function, function.file,
                                                     function.firstLine, lastReason);
    }
    function.recompileLimit = std::move(status);
}

void collectRecompiles(const TraceIndex& index, const SessionRows& rows, SessionSummary& summary) {
    using FunctionKey = std::tuple<std::optional<int>, std::optional<int>>;
    std::map<FunctionKey, size_t> positionByKey;
    std::vector<FunctionGroup> groups;
    for (const Compile* compile : rows.compiles) {
        auto [it, isNew] = positionByKey.try_emplace(FunctionKey{compile->key.autogradId, compile->key.frameId},
                                                     groups.size());
        if (isNew) groups.emplace_back();
        groups[it->second].compiles.push_back(compile);
        if (compile->key.frameCompileId.value_or(0) > 0) groups[it->second].anyRecompile = true;
    }
    for (const FunctionGroup& group : groups) {
        if (!group.anyRecompile) continue;
        FunctionRecompiles function;
        function.autogradId = group.compiles.front()->key.autogradId;
        function.frameId = group.compiles.front()->key.frameId;
        fillFunctionIdentity(index, group, function);
        for (const Compile* compile : group.compiles) {
            if (compile->started) ++function.compileCount;
            if (!isRecompile(index, *compile)) continue;
            RecompileEvent event;
            event.compile = refOf(*compile);
            event.guardFailures = guardFailuresOf(index, *compile);
            event.message = formatRecompileMessage(function.function, function.file, function.firstLine,
                                                   event.guardFailures);
            function.recompiles.push_back(std::move(event));
        }
        judgeRecompileLimit(index, group, function);
        summary.recompiledFunctions.push_back(std::move(function));
    }
}

void collectPhaseTimes(const SessionRows& rows, SessionSummary& summary) {
    std::unordered_map<std::string, size_t> positionByPhase;
    for (const Compile* compile : rows.compiles) {
        if (compile->phases.empty()) continue;
        summary.compilePhases.push_back({refOf(*compile), compile->phases});
        for (const PhaseTime& phase : compile->phases) {
            auto [it, isNew] = positionByPhase.try_emplace(phase.phase, summary.phaseTotals.size());
            if (isNew) summary.phaseTotals.push_back({phase.phase, 0});
            summary.phaseTotals[it->second].seconds += phase.seconds;
        }
    }
}

}  // namespace

std::string formatRecompileMessage(const std::string& function, const std::string& file, int firstLine,
                                   const std::vector<GuardFailureText>& failures) {
    std::string reasons;
    for (size_t i = 0; i < failures.size(); ++i) {
        if (i > 0) reasons += '\n';
        reasons += renderFailure(failures[i]);
    }
    std::string details = "triggered by the following guard failure(s):\n" + indentLines(reasons, "- ");
    return "Recompiling function " + function + " in " + file + ":" + std::to_string(firstLine) + "\n" +
           indentLines(details, "    ");
}

std::string formatRecompileLimitWarning(const std::string& limitType, int64_t limit, const std::string& function,
                                        const std::string& file, int firstLine, const std::string& lastReason) {
    return "torch._dynamo hit config." + limitType + " (" + std::to_string(limit) + ")\n" +
           "   function: '" + function + "' (" + file + ":" + std::to_string(firstLine) + ")\n" +
           "   last reason: " + (lastReason.empty() ? std::string(kNoRecompileReasons) : lastReason) + "\n" +
           "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\n" +
           "To diagnose recompilation issues, see " + kTroubleshootingUrl;
}

SessionSummary summarizeSession(const TraceIndex& index, const Session& session) {
    SessionSummary summary;
    summary.sessionId = session.id;
    const SessionRows& rows = index.session(session.id);
    countSession(index, rows, summary.counts);
    summary.uniqueGraphs = countUniqueGraphs(index, rows);
    countOps(index, rows, summary);
    collectBreakReasons(index, rows, summary);
    collectRecompiles(index, rows, summary);
    collectPhaseTimes(rows, summary);
    return summary;
}

std::vector<SessionSummary> summarizeTrace(const TraceData& trace) {
    TraceIndex index(trace);
    std::vector<SessionSummary> summaries;
    summaries.reserve(trace.sessions.size());
    for (const Session& session : trace.sessions) summaries.push_back(summarizeSession(index, session));
    return summaries;
}

}  // namespace traces

// The Markdown report: GitHub-flavoured, every text that came from the log set in code spans or fenced
// blocks so that log content can never turn into markup.
#include "report/report.h"

#include "report/compile_insights.h"
#include "report/report_common.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace traces {
namespace {

using report_detail::compileTitle;
using report_detail::fileLine;
using report_detail::formatSeconds;
using report_detail::graphMetricsText;
using report_detail::groupCompilesBySite;
using report_detail::sessionTitle;
using report_detail::SiteGroup;
using report_detail::statusName;

size_t longestBacktickRun(std::string_view text) {
    size_t longest = 0, run = 0;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return longest;
}

/// A fenced block whose fence is longer than any backtick run inside, so the content cannot close it.
void fenced(std::ostream& out, std::string_view text, std::string_view language) {
    std::string fence(std::max<size_t>(3, longestBacktickRun(text) + 1), '`');
    out << fence << language << '\n' << text;
    if (text.empty() || text.back() != '\n') out << '\n';
    out << fence << "\n\n";
}

/// An inline code span; newlines become spaces because a span cannot hold them inside a table or list.
std::string code(std::string_view text) {
    std::string flat(text);
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    std::replace(flat.begin(), flat.end(), '\r', ' ');
    if (flat.empty()) return "` `";
    std::string ticks(longestBacktickRun(flat) + 1, '`');
    bool pad = flat.front() == '`' || flat.back() == '`';
    return ticks + (pad ? " " : "") + flat + (pad ? " " : "") + ticks;
}

/// Plain text with Markdown and HTML specials escaped, for names in headings and prose.
std::string text(std::string_view raw) {
    std::string out;
    out.reserve(raw.size());
    for (char c : raw) {
        if (std::string_view("\\`*_[]<>|~#").find(c) != std::string_view::npos) out += '\\';
        out += c == '\n' ? ' ' : c;
    }
    return out;
}

/// A table cell: pipes escaped even inside code spans, as GitHub splits cells before parsing spans.
std::string cell(std::string_view markdown) {
    std::string out;
    for (char c : markdown) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

void writeStack(std::ostream& out, const Stack& stack) {
    for (const Frame& frame : stack) {
        out << "- " << code(fileLine(frame.file, frame.line)) << " in " << code(frame.function);
        if (!frame.source.empty()) out << ": " << code(frame.source);
        out << '\n';
    }
    out << '\n';
}

void writeCounts(std::ostream& out, const SessionSummary& summary) {
    const SummaryCounts& counts = summary.counts;
    out << "### Summary\n\n"
        << "| Compiles | Graphs | Graph breaks | Recompiles | Failed compiles | Output code | Ops |\n"
        << "|---:|---:|---:|---:|---:|---:|---:|\n"
        << "| " << counts.compiles << " | " << counts.graphs << " | " << counts.graphBreaks << " | "
        << counts.recompiles << " | " << counts.failedCompiles << " | " << counts.outputCode << " | " << summary.ops
        << " |\n\n";
    out << "Dynamo kept " << summary.uniqueGraphs
        << " graph(s) (PyTorch's `unique_graphs`: restarted attempts and failed compiles excluded).\n\n";
    out << "Ops are Dynamo's `graph_op_count` for " << summary.opsGraphsFromMetrics
        << " graph(s) and counted `call_*` nodes for " << summary.opsGraphsFromNodes << " graph(s).\n\n";
}

void writeBreakReasons(std::ostream& out, const SessionSummary& summary) {
    out << "### Break reasons\n\n";
    if (summary.breakReasons.empty()) {
        out << "No graph breaks.\n\n";
        return;
    }
    if (summary.breakReasonsFromRestarts)
        out << "_This log has no `dynamo_graph_break_reason` artifacts; the list comes from restart reasons._\n\n";
    for (size_t i = 0; i < summary.breakReasons.size(); ++i) {
        const BreakReasonSummary& reason = summary.breakReasons[i];
        out << "#### " << (i + 1) << ". " << text(reason.breakType.empty() ? "Graph break" : reason.breakType)
            << "\n\n";
        out << "- Occurrences: " << reason.count << '\n';
        out << "- User code: " << code(fileLine(reason.userFile, reason.userLine)) << '\n';
        out << "- Compiles:";
        for (const CompileRef& ref : reason.compiles) out << ' ' << code(ref.display);
        out << "\n\n";
        if (!reason.userSource.empty()) fenced(out, reason.userSource, "python");
        fenced(out, reason.reason, "text");
    }
}

void writeRecompiles(std::ostream& out, const SessionSummary& summary) {
    out << "### Recompiles\n\n";
    if (summary.recompiledFunctions.empty()) {
        out << "No function was recompiled.\n\n";
        return;
    }
    for (const FunctionRecompiles& function : summary.recompiledFunctions) {
        out << "#### " << code(function.function) << " in " << code(fileLine(function.file, function.firstLine))
            << " (" << function.compileCount << " compiles)\n\n";
        for (const RecompileEvent& event : function.recompiles) {
            out << "Recompile " << code(event.compile.display) << ":\n\n";
            fenced(out, event.message, "text");
        }
        if (!function.recompileLimit) continue;
        const RecompileLimitStatus& limit = *function.recompileLimit;
        if (limit.hit) {
            out << "**Recompile limit hit**: from here on the function runs eagerly.\n\n";
            fenced(out, limit.warning, "text");
        } else {
            out << "**Recompile limit reached**: " << function.compileCount << " compiles against "
                << code("config." + limit.limitType) << " = " << limit.limit
                << "; the next guard failure makes Dynamo give up on this function.\n\n";
        }
    }
}

void writePhaseTimes(std::ostream& out, const SessionSummary& summary) {
    out << "### Compile time per phase\n\n";
    if (summary.phaseTotals.empty()) {
        out << "No compile times were recorded.\n\n";
        return;
    }
    out << "| Phase | Total |\n|---|---:|\n";
    for (const PhaseTime& phase : summary.phaseTotals)
        out << "| " << cell(code(phase.phase)) << " | " << formatSeconds(phase.seconds) << " |\n";
    out << "\n| Compile | Phases |\n|---|---|\n";
    for (const CompilePhaseTimes& compile : summary.compilePhases) {
        out << "| " << cell(code(compile.compile.display)) << " | ";
        for (size_t i = 0; i < compile.phases.size(); ++i)
            out << (i ? ", " : "") << cell(code(compile.phases[i].phase)) << ' '
                << formatSeconds(compile.phases[i].seconds);
        out << " |\n";
    }
    out << '\n';
}

std::string userFrameText(const Stack& stack) {
    return stack.empty() ? "" : code(fileLine(stack.back().file, stack.back().line));
}

void writeShapeFacts(std::ostream& out, const CompileInsights& insights) {
    if (!insights.symbols.empty()) {
        out << "Symbols:\n\n| Symbol | Event | Source | Value | Range | User frame |\n|---|---|---|---|---|---|\n";
        for (const ShapeSymbol& s : insights.symbols)
            out << "| " << cell(code(s.symbol)) << " | " << s.event << " | " << cell(code(s.source)) << " | "
                << cell(code(s.value)) << " | " << cell(code(s.range)) << " | " << cell(userFrameText(s.userStack))
                << " |\n";
        out << '\n';
    }
    if (!insights.specializations.empty()) {
        out << "Specializations:\n\n| Symbol | Sources | Value | Reason | User frame |\n|---|---|---|---|---|\n";
        for (const ShapeSpecialization& s : insights.specializations) {
            std::string sources;
            for (const std::string& source : s.sources) sources += (sources.empty() ? "" : ", ") + source;
            out << "| " << cell(code(s.symbol)) << " | " << cell(code(sources)) << " | " << cell(code(s.value))
                << " | " << cell(code(s.reason)) << " | " << cell(userFrameText(s.userStack)) << " |\n";
        }
        out << '\n';
    }
    if (!insights.guardsAddedFast.empty()) {
        out << "Shape guards added (`guard_added_fast`):\n\n";
        for (const FastGuard& g : insights.guardsAddedFast) {
            out << "- " << code(g.expr);
            if (!g.userStack.empty()) out << " from " << userFrameText(g.userStack);
            out << '\n';
        }
        out << '\n';
    }
}

void writeFailures(std::ostream& out, const TraceIndex& index, const Session& session) {
    auto failures = sessionFailures(index, session);
    out << "### Failures and restarts\n\n";
    if (failures.empty()) {
        out << "None: every compile attempt finished.\n\n";
        return;
    }
    out << "| Compile | Kind | Type | Reason | User frame |\n|---|---|---|---|---|\n";
    for (const CompileFailure& f : failures)
        out << "| " << cell(code(f.compile.display)) << " | " << f.kind << " | " << cell(code(f.type)) << " | "
            << cell(code(f.reason.substr(0, f.reason.find('\n')))) << " | "
            << cell(f.userFile.empty() ? "" : code(fileLine(f.userFile, f.userLine))) << " |\n";
    out << '\n';
}

void writeRecordsWithoutCompileId(std::ostream& out, const TraceIndex& index, const Session& session) {
    RecordsWithoutCompileId found = recordsWithoutCompileId(index.trace(), session.id);
    out << "### Records without a compile id\n\n";
    if (found.records.empty()) {
        out << "None: every record named its compile.\n\n";
        return;
    }
    out << found.records.size()
        << " record(s) named no compile id in their envelope (tlparse files them under `[-/-]`); "
        << found.joinedByPayload << " named one in their payload and were attached to that compile.\n\n";
    out << "| Record | Count |\n|---|---|\n";
    for (const auto& [name, count] : found.countsByName) out << "| " << cell(code(name)) << " | " << count << " |\n";
    out << '\n';
    if (found.withStack == 0) return;
    out << "Logged outside any compile, from:\n\n";
    for (const RecordWithoutCompileId* r : found.records)
        if (!r->stack.empty())
            out << "- line " << r->line << " " << code(r->name) << " from " << userFrameText(r->stack) << '\n';
    out << '\n';
}

void writeDivergence(std::ostream& out, const std::vector<RankDivergence>& divergences) {
    if (divergences.empty()) return;
    out << "## Rank divergence\n\n| What | Ranks | Detail |\n|---|---|---|\n";
    for (const RankDivergence& d : divergences) {
        std::string ranks;
        for (int rank : d.ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(rank);
        out << "| " << d.what << " | " << ranks << " | " << cell(code(d.detail)) << " |\n";
    }
    out << '\n';
}

void writeCompileFacts(std::ostream& out, const TraceIndex& index, const InsightIndex& insights,
                       const Compile& compile) {
    out << "- Status: **" << statusName(compile) << "**";
    if (!compile.started) out << " (no `dynamo_start` for this attempt)";
    out << '\n';
    if (!compile.function.empty())
        out << "- Function: " << code(compile.function) << " in " << code(fileLine(compile.file, compile.firstLine))
            << '\n';
    if (compile.line > 0) out << "- First record: line " << compile.line << '\n';
    if (std::string metrics = graphMetricsText(compile); !metrics.empty()) out << "- Metrics: " << metrics << '\n';
    const CompileInsights& facts = insights.compile(compile.id);
    if (std::string caches = cacheSummaryText(facts); !caches.empty()) out << "- Caches: " << text(caches) << '\n';
    if (std::string ops = customOpsText(facts.customOps); !ops.empty()) out << "- Custom ops: " << text(ops) << '\n';
    out << '\n';
    writeShapeFacts(out, facts);
    if (!compile.failType.empty()) {
        out << "**Failed** with " << code(compile.failType);
        if (!compile.failUserFile.empty()) out << " at " << code(fileLine(compile.failUserFile, compile.failUserLine));
        out << ":\n\n";
        fenced(out, compile.failReason, "text");
    }
    if (!compile.restartReasons.empty()) {
        out << "Restart reasons:\n\n";
        for (const std::string& reason : compile.restartReasons) fenced(out, reason, "text");
    }
    const CompileRows& rows = index.compile(compile.id);
    if (!rows.guardFailures.empty()) {
        out << "Guard failures that triggered this compile:\n\n";
        for (const GuardFailure* failure : rows.guardFailures)
            out << "- " << code(failure->failedCompile) << ": " << code(failure->reason) << '\n';
        out << '\n';
    } else if (!compile.recompileReasons.empty()) {
        out << "Recompile reasons:\n\n";
        for (const std::string& reason : compile.recompileReasons) out << "- " << code(reason) << '\n';
        out << '\n';
    }
    if (!rows.graphBreaks.empty()) out << "Graph breaks:\n\n";
    for (const GraphBreak* graphBreak : rows.graphBreaks)
        out << "- Graph break (" << graphBreak->origin << ") at "
            << code(fileLine(graphBreak->userFile, graphBreak->userLine)) << ": "
            << code(graphBreak->breakType.empty() ? graphBreak->reason : graphBreak->breakType) << '\n';
    if (!rows.graphBreaks.empty()) out << '\n';
}

void writeCompileArtifacts(std::ostream& out, const CompileRows& rows) {
    if (!rows.guards.empty()) {
        out << "Guards (" << rows.guards.size() << "):\n\n| # | Kind | Guard | Checks |\n|---:|---|---|---|\n";
        for (const Guard* guard : rows.guards)
            out << "| " << guard->index << " | " << cell(code(guard->kind)) << " | " << cell(code(guard->text))
                << " | " << cell(text(guard->checks)) << " |\n";
        out << '\n';
    }
    for (const Graph* graph : rows.graphs) {
        out << "Graph " << code(toString(graph->kind)) << ' ' << code(graph->name) << " (" << graph->nodes.size()
            << " nodes):\n\n";
        fenced(out, graph->text, "python");
    }
    for (const OutputCode* outputCode : rows.outputCode) {
        out << "Generated code " << code(outputCode->event);
        if (!outputCode->filename.empty()) out << ' ' << code(outputCode->filename);
        out << " (" << outputCode->kernels.size() << " kernels):\n\n";
        for (const Kernel& kernel : outputCode->kernels) {
            out << "Kernel " << code(kernel.name) << " (" << text(kernel.language) << "):\n\n";
            fenced(out, kernel.source, kernel.language == "cpp" ? "cpp" : "python");
        }
        out << "Wrapper module:\n\n";
        fenced(out, outputCode->source, outputCode->language.empty() ? "python" : outputCode->language);
    }
}

void writeSites(std::ostream& out, const TraceIndex& index, const InsightIndex& insights, const Session& session) {
    out << "### Compile sites\n\n";
    auto groups = groupCompilesBySite(index, session);
    if (groups.empty()) out << "No compiles.\n\n";
    for (const SiteGroup& group : groups) {
        if (group.site) {
            out << "#### " << code(group.site->function) << " at " << code(fileLine(group.site->file, group.site->line))
                << "\n\n";
            if (!group.site->userStack.empty()) {
                out << "User stack (outermost first):\n\n";
                writeStack(out, group.site->userStack);
            }
        } else {
            out << "#### Compiles without a known site\n\n";
        }
        for (const Compile* compile : group.compiles) {
            out << "##### " << code(compileTitle(*compile)) << " — " << statusName(*compile) << "\n\n";
            writeCompileFacts(out, index, insights, *compile);
            writeCompileArtifacts(out, index.compile(compile->id));
        }
    }
}

void writeIssues(std::ostream& out, const TraceIndex& index, const Session& session) {
    const auto& issues = index.session(session.id).issues;
    out << "### Import issues\n\n";
    if (issues.empty()) {
        out << "None: every record was imported.\n\n";
        return;
    }
    out << "| Line | Column | Kind | Message |\n|---:|---:|---|---|\n";
    for (const ImportIssue* issue : issues)
        out << "| " << issue->line << " | " << issue->column << " | " << cell(code(issue->kind)) << " | "
            << cell(code(issue->message)) << " |\n";
    out << '\n';
}

void writeSession(std::ostream& out, const TraceIndex& index, const InsightIndex& insights, const Session& session) {
    SessionSummary summary = summarizeSession(index, session);
    out << "## Session " << text(sessionTitle(session)) << "\n\n";
    out << "- Kind: " << toString(session.kind) << '\n';
    if (!session.sourcePath.empty()) out << "- Source: " << code(session.sourcePath) << '\n';
    if (!session.torchVersion.empty())
        out << "- " << (session.kind == SessionKind::EngineRun ? "Engine" : "Torch") << ": "
            << code(session.torchVersion) << '\n';
    if (session.kind == SessionKind::EngineRun)
        out << "- Compile events: " << session.records << "\n\n";
    else
        out << "- Records: " << session.records << " (" << session.malformedRecords << " malformed, "
            << recordsWithoutCompileId(index.trace(), session.id).records.size() << " without a compile id)\n\n";
    writeCounts(out, summary);
    writeBreakReasons(out, summary);
    writeRecompiles(out, summary);
    writePhaseTimes(out, summary);
    writeFailures(out, index, session);
    writeRecordsWithoutCompileId(out, index, session);
    writeSites(out, index, insights, session);
    writeIssues(out, index, session);
}

}  // namespace

void writeMarkdownReport(const TraceData& trace, std::ostream& out, const std::string& producedBy) {
    TraceIndex index(trace);
    InsightIndex insights(trace);
    out << "# Compile report\n\n";
    out << "Trace " << code(trace.path) << ", " << trace.sessions.size() << " session(s).\n\n";
    if (!producedBy.empty()) out << "Made by " << code(producedBy) << ".\n\n";
    writeDivergence(out, rankDivergence(index, insights));
    for (const Session& session : trace.sessions) writeSession(out, index, insights, session);
}

}  // namespace traces

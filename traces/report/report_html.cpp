// The HTML report: one self-contained page (inline CSS and a few lines of inline JS, nothing fetched), with a
// table of contents and links between break reasons, recompiles, compile ids and their sites.
#include "report/report.h"

#include "report/compile_insights.h"
#include "report/report_common.h"

#include <string>
#include <string_view>

namespace traces {
namespace {

using report_detail::breakReasonAnchor;
using report_detail::breakReasonPositions;
using report_detail::compileAnchor;
using report_detail::compileTitle;
using report_detail::fileLine;
using report_detail::formatSeconds;
using report_detail::graphMetricsText;
using report_detail::groupCompilesBySite;
using report_detail::producerLabel;
using report_detail::recompileAnchor;
using report_detail::sessionAnchor;
using report_detail::sessionTitle;
using report_detail::siteAnchor;
using report_detail::SiteGroup;
using report_detail::statusName;

constexpr std::string_view kStyle = R"css(
:root { --ok: #1a7f37; --failed: #cf222e; --restarted: #b7791f; --break: #65a30d; --unknown: #8250df;
        --empty: #d0d7de; --border: #d0d7de; --muted: #57606a; --code-bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; margin: 0;
       display: flex; align-items: flex-start; }
nav.toc { position: sticky; top: 0; max-height: 100vh; overflow: auto; width: 280px; flex: none; padding: 16px;
          border-right: 1px solid var(--border); font-size: 13px; }
nav.toc ul { list-style: none; padding-left: 12px; margin: 2px 0; }
main { padding: 16px 32px; min-width: 0; flex: 1; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
h1 { margin-top: 0; } h2 { border-bottom: 1px solid var(--border); padding-bottom: 4px; margin-top: 40px; }
pre { background: var(--code-bg); border: 1px solid var(--border); border-radius: 6px; padding: 8px 12px;
      overflow: auto; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; max-height: 480px; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code-bg);
       padding: 1px 4px; border-radius: 4px; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid var(--border); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--code-bg); } td.num { text-align: right; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 16px; }
.count { border: 1px solid var(--border); border-radius: 6px; padding: 6px 12px; min-width: 110px; }
.count b { display: block; font-size: 22px; } .count span { color: var(--muted); font-size: 12px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; color: #fff;
         vertical-align: middle; }
.status-ok { background: var(--ok); } .status-failed { background: var(--failed); }
.status-restarted { background: var(--restarted); } .status-unknown { background: var(--unknown); }
.status-empty { background: var(--empty); color: #1f2328; }
.status-break { background: var(--break); } .badge.muted { background: var(--muted); }
.compile { border-left: 4px solid var(--border); padding: 2px 0 2px 12px; margin: 12px 0; }
.compile.ok { border-color: var(--ok); } .compile.failed { border-color: var(--failed); }
.compile.restarted { border-color: var(--restarted); } .compile.unknown { border-color: var(--unknown); }
.site { border: 1px solid var(--border); border-radius: 8px; padding: 4px 16px; margin: 16px 0; }
.reason { border: 1px solid var(--border); border-radius: 8px; padding: 4px 16px; margin: 12px 0; }
.note { color: var(--muted); } .warning { border-left: 4px solid var(--failed); padding-left: 8px; }
ol.stack { font-size: 13px; } details > summary { cursor: pointer; margin: 4px 0; }
:target { outline: 2px solid #0969da; outline-offset: 2px; }
)css";

// Opens collapsed sections that hold the target of an in-page link, so a jump always lands on visible text.
constexpr std::string_view kScript = R"js(
function openTarget() {
  var el = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
  for (; el; el = el.parentElement) if (el.tagName === 'DETAILS') el.open = true;
}
window.addEventListener('hashchange', openTarget); window.addEventListener('DOMContentLoaded', openTarget);
)js";

using report_detail::escapeHtml;

std::string escape(std::string_view raw) { return escapeHtml(raw); }

std::string code(std::string_view raw) { return "<code>" + escape(raw) + "</code>"; }

void pre(std::ostream& out, std::string_view raw) { out << "<pre><code>" << escape(raw) << "</code></pre>\n"; }

std::string link(const std::string& anchor, std::string_view html) {
    return "<a href=\"#" + anchor + "\">" + std::string(html) + "</a>";
}

std::string statusBadge(const Compile& compile) {
    std::string status = statusName(compile);
    return "<span class=\"badge status-" + status + "\">" + status + "</span>";
}

void writeStack(std::ostream& out, const Stack& stack) {
    if (stack.empty()) return;
    out << "<details><summary>User stack (" << stack.size() << " frames, outermost first)</summary>"
        << "<ol class=\"stack\">";
    for (const Frame& frame : stack) {
        out << "<li>" << code(fileLine(frame.file, frame.line)) << " in " << code(frame.function);
        if (!frame.source.empty()) out << "<br>" << code(frame.source);
        out << "</li>";
    }
    out << "</ol></details>\n";
}

void writeCountCards(std::ostream& out, const SessionSummary& summary) {
    const SummaryCounts& counts = summary.counts;
    auto card = [&out](int64_t value, const char* label) {
        out << "<div class=\"count\"><b>" << value << "</b><span>" << label << "</span></div>";
    };
    out << "<div class=\"counts\">";
    card(counts.compiles, "compiles");
    card(counts.graphs, "graphs");
    card(counts.graphBreaks, "graph breaks");
    card(counts.recompiles, "recompiles");
    card(counts.failedCompiles, "failed compiles");
    card(counts.outputCode, "output code");
    card(summary.ops, "ops");
    out << "</div>\n<p class=\"note\">Dynamo kept " << summary.uniqueGraphs
        << " graph(s) (PyTorch's <code>unique_graphs</code>: restarted attempts and failed compiles excluded). "
        << "Ops are Dynamo's <code>graph_op_count</code> for "
        << summary.opsGraphsFromMetrics << " graph(s) and counted <code>call_*</code> nodes for "
        << summary.opsGraphsFromNodes << " graph(s).</p>\n";
}

void writeBreakReasons(std::ostream& out, const Session& session, const SessionSummary& summary) {
    out << "<h3 id=\"" << sessionAnchor(session.id) << "-breaks\">Break reasons</h3>\n";
    if (summary.breakReasons.empty()) {
        out << "<p>No graph breaks.</p>\n";
        return;
    }
    if (summary.breakReasonsFromRestarts)
        out << "<p class=\"note\">This log has no <code>dynamo_graph_break_reason</code> artifacts; the list comes "
               "from restart reasons.</p>\n";
    for (size_t i = 0; i < summary.breakReasons.size(); ++i) {
        const BreakReasonSummary& reason = summary.breakReasons[i];
        out << "<div class=\"reason\" id=\"" << breakReasonAnchor(session.id, i) << "\"><h4>" << (i + 1) << ". "
            << escape(reason.breakType.empty() ? "Graph break" : reason.breakType)
            << " <span class=\"badge status-break\">&times;" << reason.count << "</span></h4>\n";
        out << "<p>User code " << code(fileLine(reason.userFile, reason.userLine)) << " &middot; compiles";
        for (const CompileRef& ref : reason.compiles)
            out << ' ' << link(compileAnchor(ref.compileId), escape(ref.display));
        out << "</p>\n";
        if (!reason.userSource.empty()) pre(out, reason.userSource);
        out << "<details><summary>Full reason</summary>";
        pre(out, reason.reason);
        out << "</details>\n";
        writeStack(out, reason.userStack);
        out << "</div>\n";
    }
}

void writeRecompiles(std::ostream& out, const Session& session, const SessionSummary& summary) {
    out << "<h3 id=\"" << sessionAnchor(session.id) << "-recompiles\">Recompiles</h3>\n";
    if (summary.recompiledFunctions.empty()) {
        out << "<p>No function was recompiled.</p>\n";
        return;
    }
    for (size_t i = 0; i < summary.recompiledFunctions.size(); ++i) {
        const FunctionRecompiles& function = summary.recompiledFunctions[i];
        out << "<div class=\"reason\" id=\"" << recompileAnchor(session.id, i) << "\"><h4>"
            << code(function.function) << " in " << code(fileLine(function.file, function.firstLine)) << " <span "
            << "class=\"badge muted\">" << function.compileCount << " compiles</span></h4>\n";
        for (const RecompileEvent& event : function.recompiles) {
            out << "<p>" << link(compileAnchor(event.compile.compileId), escape(event.compile.display)) << "</p>\n";
            pre(out, event.message);
        }
        if (function.recompileLimit) {
            const RecompileLimitStatus& limit = *function.recompileLimit;
            out << "<div class=\"warning\">";
            if (limit.hit) {
                out << "<p><b>Recompile limit hit</b>: from here on the function runs eagerly.</p>";
                pre(out, limit.warning);
            } else {
                out << "<p><b>Recompile limit reached</b>: " << function.compileCount << " compiles against "
                    << code("config." + limit.limitType) << " = " << limit.limit
                    << "; the next guard failure makes Dynamo give up on this function.</p>";
            }
            out << "</div>\n";
        }
        out << "</div>\n";
    }
}

void writePhaseTimes(std::ostream& out, const Session& session, const SessionSummary& summary) {
    out << "<h3 id=\"" << sessionAnchor(session.id) << "-phases\">Compile time per phase</h3>\n";
    if (summary.phaseTotals.empty()) {
        out << "<p>No compile times were recorded.</p>\n";
        return;
    }
    out << "<table><tr><th>Phase</th><th>Total</th></tr>";
    for (const PhaseTime& phase : summary.phaseTotals)
        out << "<tr><td>" << code(phase.phase) << "</td><td class=\"num\">" << formatSeconds(phase.seconds)
            << "</td></tr>";
    out << "</table>\n<details><summary>Per compile</summary><table><tr><th>Compile</th><th>Phases</th></tr>";
    for (const CompilePhaseTimes& compile : summary.compilePhases) {
        out << "<tr><td>" << link(compileAnchor(compile.compile.compileId), escape(compile.compile.display))
            << "</td><td>";
        for (size_t i = 0; i < compile.phases.size(); ++i)
            out << (i ? ", " : "") << code(compile.phases[i].phase) << ' ' << formatSeconds(compile.phases[i].seconds);
        out << "</td></tr>";
    }
    out << "</table></details>\n";
}

std::string userFrameHtml(const Stack& stack) {
    return stack.empty() ? "" : code(fileLine(stack.back().file, stack.back().line));
}

void writeShapeFacts(std::ostream& out, const CompileInsights& insights) {
    if (!insights.symbols.empty()) {
        out << "<p>Symbols:</p><table><tr><th>Symbol</th><th>Event</th><th>Source</th><th>Value</th><th>Range</th>"
            << "<th>User frame</th></tr>";
        for (const ShapeSymbol& s : insights.symbols)
            out << "<tr><td>" << code(s.symbol) << "</td><td>" << escape(s.event) << "</td><td>" << code(s.source)
                << "</td><td>" << code(s.value) << "</td><td>" << code(s.range) << "</td><td>"
                << userFrameHtml(s.userStack) << "</td></tr>";
        out << "</table>\n";
    }
    if (!insights.specializations.empty()) {
        out << "<p>Specializations:</p><table><tr><th>Symbol</th><th>Sources</th><th>Value</th><th>Reason</th>"
            << "<th>User frame</th></tr>";
        for (const ShapeSpecialization& s : insights.specializations) {
            std::string sources;
            for (const std::string& source : s.sources) sources += (sources.empty() ? "" : ", ") + source;
            out << "<tr><td>" << code(s.symbol) << "</td><td>" << code(sources) << "</td><td>" << code(s.value)
                << "</td><td>" << escape(s.reason) << "</td><td>" << userFrameHtml(s.userStack) << "</td></tr>";
        }
        out << "</table>\n";
    }
    if (!insights.guardsAddedFast.empty()) {
        out << "<details><summary>Shape guards added (" << insights.guardsAddedFast.size() << ")</summary><ul>";
        for (const FastGuard& g : insights.guardsAddedFast) {
            out << "<li>" << code(g.expr);
            if (!g.userStack.empty()) out << " from " << userFrameHtml(g.userStack);
            out << "</li>";
        }
        out << "</ul></details>\n";
    }
}

void writeFailures(std::ostream& out, const Session& session, const TraceIndex& index) {
    auto failures = sessionFailures(index, session);
    out << "<h3 id=\"" << sessionAnchor(session.id) << "-failures\">Failures and restarts</h3>\n";
    if (failures.empty()) {
        out << "<p>None: every compile attempt finished.</p>\n";
        return;
    }
    out << "<table><tr><th>Compile</th><th>Kind</th><th>Type</th><th>Reason</th><th>User frame</th></tr>";
    for (const CompileFailure& f : failures)
        out << "<tr><td>" << link(compileAnchor(f.compile.compileId), escape(f.compile.display)) << "</td><td>"
            << escape(f.kind) << "</td><td>" << code(f.type) << "</td><td>"
            << escape(f.reason.substr(0, f.reason.find('\n'))) << "</td><td>"
            << (f.userFile.empty() ? "" : code(fileLine(f.userFile, f.userLine))) << "</td></tr>";
    out << "</table>\n";
}

void writeRecordsWithoutCompileId(std::ostream& out, const Session& session, const TraceIndex& index) {
    RecordsWithoutCompileId found = recordsWithoutCompileId(index.trace(), session.id);
    out << "<h3 id=\"" << sessionAnchor(session.id) << "-no-compile-id\">Records without a compile id</h3>\n";
    if (found.records.empty()) {
        out << "<p>None: every record named its compile.</p>\n";
        return;
    }
    out << "<p>" << found.records.size()
        << " record(s) named no compile id in their envelope (tlparse files them under <code>[-/-]</code>); "
        << found.joinedByPayload << " named one in their payload and were attached to that compile.</p>\n"
        << "<table><tr><th>Record</th><th>Count</th></tr>";
    for (const auto& [name, count] : found.countsByName)
        out << "<tr><td>" << code(name) << "</td><td>" << count << "</td></tr>";
    out << "</table>\n<details><summary>Every record</summary><table><tr><th>Line</th><th>Record</th>"
        << "<th>Compile named by its payload</th><th>Logged from</th></tr>";
    for (const RecordWithoutCompileId* r : found.records) {
        const Compile* joined = r->compileId ? index.compileById(*r->compileId) : nullptr;
        out << "<tr><td>" << r->line << "</td><td>" << code(r->event == r->name ? r->event : r->event + ": " + r->name)
            << "</td><td>" << (joined ? link(compileAnchor(joined->id), escape(joined->key.display())) : "")
            << "</td><td>"
            << (r->stack.empty() ? "" : code(fileLine(r->stack.back().file, r->stack.back().line))) << "</td></tr>";
    }
    out << "</table></details>\n";
}

void writeDivergence(std::ostream& out, const std::vector<RankDivergence>& divergences) {
    if (divergences.empty()) return;
    out << "<h2 id=\"divergence\">Rank divergence</h2>\n<table><tr><th>What</th><th>Ranks</th><th>Detail</th></tr>";
    for (const RankDivergence& d : divergences) {
        std::string ranks;
        for (int rank : d.ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(rank);
        out << "<tr><td>" << escape(d.what) << "</td><td>" << ranks << "</td><td>" << escape(d.detail) << "</td></tr>";
    }
    out << "</table>\n";
}

void writeCompileFacts(std::ostream& out, const Session& session, const TraceIndex& index,
                       const InsightIndex& insights, const Compile& compile,
                       const std::unordered_map<RowId, size_t>& breakPositions) {
    const CompileRows& rows = index.compile(compile.id);
    if (!compile.function.empty())
        out << "<p>Function " << code(compile.function) << " in " << code(fileLine(compile.file, compile.firstLine))
            << (compile.line > 0 ? " &middot; first record at line " + std::to_string(compile.line) : "") << "</p>\n";
    if (std::string metrics = graphMetricsText(compile); !metrics.empty())
        out << "<p class=\"note\">" << escape(metrics) << "</p>\n";
    const CompileInsights& facts = insights.compile(compile.id);
    if (std::string caches = cacheSummaryText(facts); !caches.empty())
        out << "<p class=\"note\">Caches: " << escape(caches) << "</p>\n";
    if (std::string ops = customOpsText(facts.customOps); !ops.empty())
        out << "<p class=\"" << (facts.customOps.nonCompliant.empty() ? "note" : "warning") << "\">Custom ops: "
            << escape(ops) << "</p>\n";
    writeShapeFacts(out, facts);
    if (!compile.failType.empty()) {
        out << "<div class=\"warning\"><p><b>Failed</b> with " << code(compile.failType);
        if (!compile.failUserFile.empty()) out << " at " << code(fileLine(compile.failUserFile, compile.failUserLine));
        out << "</p>";
        pre(out, compile.failReason);
        out << "</div>\n";
    }
    if (!compile.restartReasons.empty()) {
        out << "<p>Restart reasons:</p>\n";
        for (const std::string& reason : compile.restartReasons) pre(out, reason);
    }
    if (!rows.guardFailures.empty()) {
        out << "<p>Guard failures that triggered this compile:</p><ul>";
        for (const GuardFailure* failure : rows.guardFailures)
            out << "<li>" << code(failure->failedCompile) << ": " << code(failure->reason) << "</li>";
        out << "</ul>\n";
    } else if (!compile.recompileReasons.empty()) {
        out << "<p>Recompile reasons:</p><ul>";
        for (const std::string& reason : compile.recompileReasons) out << "<li>" << code(reason) << "</li>";
        out << "</ul>\n";
    }
    if (!rows.graphBreaks.empty()) {
        out << "<p>Graph breaks:</p><ul>";
        for (const GraphBreak* graphBreak : rows.graphBreaks) {
            std::string label = escape(graphBreak->breakType.empty() ? graphBreak->reason : graphBreak->breakType);
            auto position = breakPositions.find(graphBreak->id);
            if (position != breakPositions.end()) label = link(breakReasonAnchor(session.id, position->second), label);
            out << "<li>" << code(fileLine(graphBreak->userFile, graphBreak->userLine)) << " ("
                << escape(graphBreak->origin) << "): " << label << "</li>";
        }
        out << "</ul>\n";
    }
}

void writeCompileArtifacts(std::ostream& out, const CompileRows& rows) {
    if (!rows.guards.empty()) {
        out << "<details><summary>Guards (" << rows.guards.size() << ")</summary><table><tr><th>#</th><th>Kind</th>"
            << "<th>Guard</th><th>Checks</th></tr>";
        for (const Guard* guard : rows.guards) {
            out << "<tr><td class=\"num\">" << guard->index << "</td><td>" << code(guard->kind)
                << "</td><td style=\"padding-left:" << 8 + 16 * guard->depth << "px\">" << code(guard->text);
            if (!guard->userCode.empty()) out << "<br><span class=\"note\">" << escape(guard->userCode) << "</span>";
            out << "</td><td>" << escape(guard->checks) << "</td></tr>";
        }
        out << "</table></details>\n";
    }
    for (const Graph* graph : rows.graphs) {
        out << "<details><summary>Graph " << code(toString(graph->kind)) << ' ' << code(graph->name) << " ("
            << graph->nodes.size() << " nodes)</summary>";
        pre(out, graph->text);
        out << "</details>\n";
    }
    for (const OutputCode* outputCode : rows.outputCode) {
        out << "<details><summary>Generated code " << code(outputCode->event);
        if (!outputCode->filename.empty()) out << ' ' << code(outputCode->filename);
        out << " (" << outputCode->kernels.size() << " kernels)</summary>\n";
        for (const Kernel& kernel : outputCode->kernels) {
            out << "<p>Kernel " << code(kernel.name) << " (" << escape(kernel.language) << ")</p>";
            pre(out, kernel.source);
        }
        out << "<details><summary>Wrapper module</summary>";
        pre(out, outputCode->source);
        out << "</details></details>\n";
    }
}

void writeCompile(std::ostream& out, const Session& session, const TraceIndex& index, const InsightIndex& insights,
                  const SiteGroup& group, const Compile& compile,
                  const std::unordered_map<RowId, size_t>& breakPositions) {
    const CompileRows& rows = index.compile(compile.id);
    out << "<div class=\"compile " << statusName(compile) << "\" id=\"" << compileAnchor(compile.id) << "\"><h5>"
        << escape(compileTitle(compile)) << ' ' << statusBadge(compile);
    if (!rows.graphBreaks.empty()) out << " <span class=\"badge status-break\">graph break</span>";
    out << " <small>" << link(siteAnchor(group, session.id), "site") << "</small></h5>\n";
    writeCompileFacts(out, session, index, insights, compile, breakPositions);
    writeCompileArtifacts(out, rows);
    out << "</div>\n";
}

void writeSites(std::ostream& out, const Session& session, const TraceIndex& index, const InsightIndex& insights,
                const std::vector<SiteGroup>& groups, const SessionSummary& summary) {
    out << "<h3 id=\"" << sessionAnchor(session.id) << "-sites\">Compile sites</h3>\n";
    if (groups.empty()) out << "<p>No compiles.</p>\n";
    auto breakPositions = breakReasonPositions(summary);
    for (const SiteGroup& group : groups) {
        out << "<div class=\"site\" id=\"" << siteAnchor(group, session.id) << "\"><h4>";
        if (group.site) {
            out << code(group.site->function) << " at " << code(fileLine(group.site->file, group.site->line));
        } else {
            out << "Compiles without a known site";
        }
        out << "</h4>\n";
        if (group.site) writeStack(out, group.site->userStack);
        for (const Compile* compile : group.compiles)
            writeCompile(out, session, index, insights, group, *compile, breakPositions);
        out << "</div>\n";
    }
}

void writeIssues(std::ostream& out, const Session& session, const TraceIndex& index) {
    const auto& issues = index.session(session.id).issues;
    out << "<h3 id=\"" << sessionAnchor(session.id) << "-issues\">Import issues</h3>\n";
    if (issues.empty()) {
        out << "<p>None: every record was imported.</p>\n";
        return;
    }
    out << "<table><tr><th>Line</th><th>Column</th><th>Kind</th><th>Message</th></tr>";
    for (const ImportIssue* issue : issues)
        out << "<tr><td class=\"num\">" << issue->line << "</td><td class=\"num\">" << issue->column << "</td><td>"
            << code(issue->kind) << "</td><td>" << escape(issue->message) << "</td></tr>";
    out << "</table>\n";
}

void writeContents(std::ostream& out, const TraceData& trace, const TraceIndex& index) {
    out << "<nav class=\"toc\"><b>Contents</b><ul>";
    for (const Session& session : trace.sessions) {
        std::string anchor = sessionAnchor(session.id);
        out << "<li>" << link(anchor, escape(sessionTitle(session))) << "<ul>"
            << "<li>" << link(anchor + "-summary", "Summary") << "</li>"
            << "<li>" << link(anchor + "-breaks", "Break reasons") << "</li>"
            << "<li>" << link(anchor + "-recompiles", "Recompiles") << "</li>"
            << "<li>" << link(anchor + "-phases", "Compile time per phase") << "</li>"
            << "<li>" << link(anchor + "-failures", "Failures and restarts") << "</li>"
            << "<li>" << link(anchor + "-no-compile-id", "Records without a compile id") << "</li>"
            << "<li>" << link(anchor + "-sites", "Compile sites") << "<ul>";
        for (const SiteGroup& group : groupCompilesBySite(index, session)) {
            std::string label = "without a site";
            if (group.site) label = group.site->function + " (" + fileLine(group.site->file, group.site->line) + ")";
            out << "<li>" << link(siteAnchor(group, session.id), escape(label)) << "</li>";
        }
        out << "</ul></li><li>" << link(anchor + "-issues", "Import issues") << "</li></ul></li>";
    }
    out << "</ul></nav>\n";
}

void writeSession(std::ostream& out, const Session& session, const TraceIndex& index, const InsightIndex& insights) {
    SessionSummary summary = summarizeSession(index, session);
    std::string anchor = sessionAnchor(session.id);
    out << "<section id=\"" << anchor << "\"><h2>Session " << escape(sessionTitle(session)) << "</h2>\n"
        << "<p class=\"note\">" << toString(session.kind);
    if (!session.sourcePath.empty()) out << " &middot; " << code(session.sourcePath);
    if (!session.torchVersion.empty())
        out << " &middot; " << producerLabel(session.kind) << " " << code(session.torchVersion);
    if (session.kind == SessionKind::EngineRun)
        out << " &middot; " << session.records << " compile events</p>\n";
    else
        out << " &middot; " << session.records << " records (" << session.malformedRecords << " malformed, "
            << recordsWithoutCompileId(index.trace(), session.id).records.size() << " without a compile id)</p>\n";
    out << "<h3 id=\"" << anchor << "-summary\">Summary</h3>\n";
    writeCountCards(out, summary);
    writeBreakReasons(out, session, summary);
    writeRecompiles(out, session, summary);
    writePhaseTimes(out, session, summary);
    writeFailures(out, session, index);
    writeRecordsWithoutCompileId(out, session, index);
    writeSites(out, session, index, insights, groupCompilesBySite(index, session), summary);
    writeIssues(out, session, index);
    out << "</section>\n";
}

}  // namespace

void writeHtmlReport(const TraceData& trace, std::ostream& out, const std::string& producedBy) {
    TraceIndex index(trace);
    InsightIndex insights(trace);
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        << "<title>Compile report: " << escape(trace.path) << "</title>\n<style>" << kStyle << "</style>\n<script>"
        << kScript << "</script></head>\n<body>\n";
    writeContents(out, trace, index);
    out << "<main><h1>Compile report</h1>\n<p class=\"note\">Trace " << code(trace.path) << " &middot; "
        << trace.sessions.size() << " session(s)</p>\n";
    if (!producedBy.empty()) out << "<p class=\"note\">Made by " << code(producedBy) << "</p>\n";
    writeDivergence(out, rankDivergence(index, insights));
    for (const Session& session : trace.sessions) writeSession(out, session, index, insights);
    out << "</main>\n</body></html>\n";
}

}  // namespace traces

// The JSON report (format "cwb-report", schema in REPORT_JSON.md), streamed one compile at a time, plus the
// format dispatch shared by all writers.
#include "report/report.h"

#include "report/compile_insights.h"
#include "report/compile_timeline.h"
#include "report/report_common.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace traces {
namespace {

using Json = nlohmann::ordered_json;
using report_detail::breakReasonPositions;
using report_detail::groupCompilesBySite;
using report_detail::SiteGroup;
using report_detail::statusName;

constexpr int kJsonReportVersion = 1;
constexpr int kIndentWidth = 2;

/// Writes nested JSON incrementally with the same layout as Json::dump(2), so that a whole session never
/// has to be built in memory: containers are opened and closed by hand, leaves are dumped.
class JsonStream {
public:
    explicit JsonStream(std::ostream& out) : out_(out) {}

    void beginObject() { open('{', true); }
    void endObject() { close('}'); }
    void beginArray() { open('[', false); }
    void endArray() { close(']'); }

    void key(const std::string& name) {
        nextItem();
        out_ << Json(name).dump() << ": ";
        afterKey_ = true;
    }

    void value(const Json& leaf) {
        if (!afterKey_) nextItem();
        afterKey_ = false;
        // Invalid UTF-8 from a damaged log must not abort the report, hence `replace`.
        std::string text = leaf.dump(kIndentWidth, ' ', false, Json::error_handler_t::replace);
        std::string indent = "\n" + std::string(levels_.size() * kIndentWidth, ' ');
        size_t start = 0;
        for (size_t newline = text.find('\n'); newline != std::string::npos; newline = text.find('\n', start)) {
            out_.write(text.data() + start, static_cast<std::streamsize>(newline - start));
            out_ << indent;
            start = newline + 1;
        }
        out_.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
    }

    void field(const std::string& name, const Json& leaf) {
        key(name);
        value(leaf);
    }

private:
    struct Level {
        bool isObject = false;
        bool empty = true;
    };

    void nextItem() {
        if (levels_.empty()) return;
        out_ << (levels_.back().empty ? "\n" : ",\n") << std::string(levels_.size() * kIndentWidth, ' ');
        levels_.back().empty = false;
    }

    void open(char bracket, bool isObject) {
        if (!afterKey_) nextItem();
        afterKey_ = false;
        out_ << bracket;
        levels_.push_back({isObject, true});
    }

    void close(char bracket) {
        bool empty = levels_.back().empty;
        levels_.pop_back();
        if (!empty) out_ << '\n' << std::string(levels_.size() * kIndentWidth, ' ');
        out_ << bracket;
    }

    std::ostream& out_;
    std::vector<Level> levels_;
    bool afterKey_ = false;
};

Json orNull(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

template <class T>
Json orNull(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json stackJson(const Stack& stack) {
    Json frames = Json::array();
    for (const Frame& frame : stack)
        frames.push_back({{"file", frame.file}, {"line", frame.line}, {"function", frame.function},
                          {"source", frame.source}});
    return frames;
}

Json compileRefJson(const CompileRef& ref) { return {{"compile", ref.compileId}, {"key", ref.display}}; }

Json guardFailuresJson(const std::vector<GuardFailureText>& failures) {
    Json list = Json::array();
    for (const GuardFailureText& failure : failures)
        list.push_back({{"failed_compile", failure.failedCompile}, {"reason", failure.reason}});
    return list;
}

Json phasesJson(const std::vector<PhaseTime>& phases) {
    Json object = Json::object();
    for (const PhaseTime& phase : phases) object[phase.phase] = phase.seconds;
    return object;
}

Json summaryJson(const SummaryCounts& counts) {
    return {{"compiles", counts.compiles},         {"graphs", counts.graphs},
            {"graph_breaks", counts.graphBreaks},  {"recompiles", counts.recompiles},
            {"failed_compiles", counts.failedCompiles}, {"output_code", counts.outputCode}};
}

Json breakReasonsJson(const SessionSummary& summary) {
    Json list = Json::array();
    for (const BreakReasonSummary& reason : summary.breakReasons) {
        Json compiles = Json::array();
        for (const CompileRef& ref : reason.compiles) compiles.push_back(compileRefJson(ref));
        list.push_back({{"count", reason.count},
                        {"origin", reason.origin},
                        {"break_type", reason.breakType},
                        {"reason", reason.reason},
                        {"user_file", reason.userFile},
                        {"user_line", reason.userLine},
                        {"user_source", reason.userSource},
                        {"user_stack", stackJson(reason.userStack)},
                        {"dedup_key", reason.dedupKey},
                        {"compiles", std::move(compiles)},
                        {"graph_breaks", reason.graphBreakIds}});
    }
    return list;
}

Json recompilesJson(const SessionSummary& summary) {
    Json list = Json::array();
    for (const FunctionRecompiles& function : summary.recompiledFunctions) {
        Json events = Json::array();
        for (const RecompileEvent& event : function.recompiles)
            events.push_back({{"compile", event.compile.compileId},
                              {"key", event.compile.display},
                              {"guard_failures", guardFailuresJson(event.guardFailures)},
                              {"message", event.message}});
        Json limit = nullptr;
        if (function.recompileLimit) {
            const RecompileLimitStatus& status = *function.recompileLimit;
            limit = {{"limit_type", status.limitType}, {"limit", status.limit}, {"reached", status.reached},
                     {"hit", status.hit}, {"warning", orNull(status.warning)}};
        }
        list.push_back({{"function", function.function},
                        {"file", function.file},
                        {"first_line", function.firstLine},
                        {"frame_id", orNull(function.frameId)},
                        {"autograd_id", orNull(function.autogradId)},
                        {"compile_count", function.compileCount},
                        {"recompiles", std::move(events)},
                        {"recompile_limit", std::move(limit)}});
    }
    return list;
}

Json metricsJson(const Compile& compile) {
    return {{"cache_size", orNull(compile.cacheSize)},
            {"accumulated_cache_size", orNull(compile.accumulatedCacheSize)},
            {"guard_count", orNull(compile.guardCount)},
            {"shape_env_guard_count", orNull(compile.shapeEnvGuardCount)},
            {"op_count", orNull(compile.opCount)},
            {"node_count", orNull(compile.nodeCount)},
            {"input_count", orNull(compile.inputCount)},
            {"start_time", orNull(compile.startTime)}};
}

void writeCompileInsights(JsonStream& json, const CompileInsights& insights) {
    Json caches = Json::array();
    for (const CacheOutcome& c : insights.caches)
        caches.push_back({{"cache", c.cache}, {"result", c.result}, {"reason", orNull(c.reason)}, {"line", c.line}});
    json.field("caches", caches);
    Json symbols = Json::array();
    for (const ShapeSymbol& s : insights.symbols)
        symbols.push_back({{"symbol", s.symbol}, {"event", s.event}, {"source", s.source}, {"value", s.value},
                           {"range", s.range}, {"user_stack", stackJson(s.userStack)}, {"line", s.line}});
    json.field("symbols", symbols);
    Json specializations = Json::array();
    for (const ShapeSpecialization& s : insights.specializations)
        specializations.push_back({{"symbol", s.symbol}, {"sources", s.sources}, {"value", s.value},
                                   {"reason", s.reason}, {"user_stack", stackJson(s.userStack)}, {"line", s.line}});
    json.field("specializations", specializations);
    Json fastGuards = Json::array();
    for (const FastGuard& g : insights.guardsAddedFast)
        fastGuards.push_back({{"expr", g.expr}, {"user_stack", stackJson(g.userStack)}, {"line", g.line}});
    json.field("guards_added_fast", fastGuards);
    json.field("custom_ops", {{"compliant", insights.customOps.compliant},
                              {"non_compliant", insights.customOps.nonCompliant}});
}

Json recordsWithoutCompileIdJson(const TraceIndex& index, const RecordsWithoutCompileId& found) {
    Json byName = Json::object();
    for (const auto& [name, count] : found.countsByName) byName[name] = count;
    Json records = Json::array();
    for (const RecordWithoutCompileId* r : found.records) {
        const Compile* joined = r->compileId ? index.compileById(*r->compileId) : nullptr;
        records.push_back({{"line", r->line}, {"event", r->event}, {"name", r->name},
                           {"compile", joined ? Json{{"compile", joined->id}, {"key", joined->key.display()}}
                                              : Json(nullptr)},
                           {"stack", stackJson(r->stack)}});
    }
    return {{"count", found.records.size()}, {"joined_by_payload", found.joinedByPayload},
            {"with_stack", found.withStack}, {"by_name", byName}, {"records", records}};
}

Json failuresJson(const std::vector<CompileFailure>& failures) {
    Json list = Json::array();
    for (const CompileFailure& f : failures)
        list.push_back({{"compile", f.compile.compileId}, {"key", f.compile.display}, {"kind", f.kind},
                        {"type", f.type}, {"reason", f.reason}, {"user_file", f.userFile},
                        {"user_line", f.userLine}});
    return list;
}

Json divergenceJson(const std::vector<RankDivergence>& divergences) {
    Json list = Json::array();
    for (const RankDivergence& d : divergences)
        list.push_back({{"what", d.what}, {"ranks", d.ranks}, {"detail", d.detail}});
    return list;
}

void writeCompileChildren(JsonStream& json, const TraceIndex& index, const Compile& compile,
                          const std::unordered_map<RowId, size_t>& breakPositions) {
    const CompileRows& rows = index.compile(compile.id);
    Json failures = Json::array();
    for (const GuardFailure* failure : rows.guardFailures)
        failures.push_back({{"failed_compile", failure->failedCompile}, {"reason", failure->reason}});
    json.field("guard_failures", failures);

    json.key("graph_breaks");
    json.beginArray();
    for (const GraphBreak* graphBreak : rows.graphBreaks) {
        auto position = breakPositions.find(graphBreak->id);
        json.value({{"id", graphBreak->id},
                    {"line", graphBreak->line},
                    {"origin", graphBreak->origin},
                    {"break_type", graphBreak->breakType},
                    {"reason", graphBreak->reason},
                    {"user_file", graphBreak->userFile},
                    {"user_line", graphBreak->userLine},
                    {"break_reason", position == breakPositions.end() ? Json(nullptr) : Json(position->second)}});
    }
    json.endArray();

    json.key("guards");
    json.beginArray();
    for (const Guard* guard : rows.guards)
        json.value({{"index", guard->index}, {"kind", guard->kind}, {"source", guard->source}, {"text", guard->text},
                    {"checks", guard->checks}, {"user_code", guard->userCode}, {"depth", guard->depth}});
    json.endArray();

    json.key("graphs");
    json.beginArray();
    for (const Graph* graph : rows.graphs)
        json.value({{"id", graph->id}, {"kind", toString(graph->kind)}, {"name", graph->name},
                    {"line", graph->line}, {"node_count", graph->nodes.size()}, {"text", graph->text}});
    json.endArray();

    json.key("output_code");
    json.beginArray();
    for (const OutputCode* code : rows.outputCode) {
        Json kernels = Json::array();
        for (const Kernel& kernel : code->kernels)
            kernels.push_back({{"index", kernel.index}, {"name", kernel.name}, {"language", kernel.language},
                               {"launch_config", kernel.launchConfig},
                               {"compile_seconds", orNull(kernel.compileSeconds)}, {"source", kernel.source}});
        json.value({{"id", code->id}, {"event", code->event}, {"filename", code->filename},
                    {"language", code->language}, {"line", code->line}, {"source", code->source},
                    {"kernels", std::move(kernels)}});
    }
    json.endArray();
}

void writeCompile(JsonStream& json, const TraceIndex& index, const InsightIndex& insights, const Compile& compile,
                  const std::unordered_map<RowId, size_t>& breakPositions) {
    json.beginObject();
    json.field("id", compile.id);
    json.field("key", compile.key.display());
    json.field("compile_id", compile.key.str());
    json.field("autograd_id", orNull(compile.key.autogradId));
    json.field("frame_id", orNull(compile.key.frameId));
    json.field("frame_compile_id", orNull(compile.key.frameCompileId));
    json.field("attempt", compile.key.attempt);
    json.field("status", statusName(compile));
    json.field("started", compile.started);
    json.field("line", compile.line);
    json.field("function", compile.function);
    json.field("file", compile.file);
    json.field("first_line", compile.firstLine);
    json.field("fail_type", orNull(compile.failType));
    json.field("fail_reason", orNull(compile.failReason));
    json.field("fail_user_file", orNull(compile.failUserFile));
    json.field("fail_user_line", compile.failUserLine > 0 ? Json(compile.failUserLine) : Json(nullptr));
    json.field("restart_reasons", compile.restartReasons);
    json.field("recompile_reasons", compile.recompileReasons);
    json.field("metrics", metricsJson(compile));
    json.field("phases", phasesJson(compile.phases));
    writeCompileInsights(json, insights.compile(compile.id));
    writeCompileChildren(json, index, compile, breakPositions);
    json.endObject();
}

void writeSession(JsonStream& json, const TraceIndex& index, const InsightIndex& insights, const Session& session) {
    SessionSummary summary = summarizeSession(index, session);
    json.beginObject();
    json.field("id", session.id);
    json.field("source_file", session.sourceFile);
    json.field("source_path", session.sourcePath);
    json.field("rank", orNull(session.rank));
    json.field("kind", toString(session.kind));
    json.field("torch_version", session.torchVersion);
    json.field("process_id", session.processId);
    json.field("started_at", session.startedAt);
    json.field("bytes", session.bytes);
    json.field("records", session.records);
    json.field("malformed_records", session.malformedRecords);
    json.field("summary", summaryJson(summary.counts));
    json.field("unique_graphs", summary.uniqueGraphs);
    json.field("ops", {{"total", summary.ops},
                       {"graphs_from_metrics", summary.opsGraphsFromMetrics},
                       {"graphs_from_nodes", summary.opsGraphsFromNodes}});
    json.field("break_reasons_source", summary.breakReasonsFromRestarts ? "restart" : "artifact");
    json.field("break_reasons", breakReasonsJson(summary));
    json.field("recompiles", recompilesJson(summary));
    json.field("phase_times", phasesJson(summary.phaseTotals));
    json.field("failures", failuresJson(sessionFailures(index, session)));
    json.field("records_without_compile_id",
               recordsWithoutCompileIdJson(index, recordsWithoutCompileId(index.trace(), session.id)));

    auto breakPositions = breakReasonPositions(summary);
    json.key("compile_sites");
    json.beginArray();
    for (const SiteGroup& group : groupCompilesBySite(index, session)) {
        json.beginObject();
        json.field("id", group.site ? Json(group.site->id) : Json(nullptr));
        json.field("function", group.site ? group.site->function : "");
        json.field("file", group.site ? group.site->file : "");
        json.field("line", group.site ? group.site->line : 0);
        json.field("user_stack", stackJson(group.site ? group.site->userStack : Stack{}));
        json.key("compiles");
        json.beginArray();
        for (const Compile* compile : group.compiles) writeCompile(json, index, insights, *compile, breakPositions);
        json.endArray();
        json.endObject();
    }
    json.endArray();

    Json issues = Json::array();
    for (const ImportIssue* issue : index.session(session.id).issues)
        issues.push_back({{"line", issue->line}, {"column", issue->column}, {"kind", issue->kind},
                          {"message", issue->message}});
    json.field("import_issues", issues);
    json.endObject();
}

}  // namespace

void writeJsonReport(const TraceData& trace, std::ostream& out, const std::string& producedBy) {
    TraceIndex index(trace);
    InsightIndex insights(trace);
    JsonStream json(out);
    json.beginObject();
    json.field("format", "cwb-report");
    json.field("version", kJsonReportVersion);
    json.field("produced_by", producedBy);
    json.field("trace", trace.path);
    json.field("schema_version", trace.schemaVersion);
    json.field("divergence", divergenceJson(rankDivergence(index, insights)));
    json.key("sessions");
    json.beginArray();
    for (const Session& session : trace.sessions) writeSession(json, index, insights, session);
    json.endArray();
    json.endObject();
    out << '\n';
}

std::optional<ReportFormat> reportFormatFromString(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "md" || lower == "markdown") return ReportFormat::Markdown;
    if (lower == "html" || lower == "htm") return ReportFormat::Html;
    if (lower == "json") return ReportFormat::Json;
    if (lower == "perfetto") return ReportFormat::Perfetto;
    return std::nullopt;
}

void writeReport(const TraceData& trace, ReportFormat format, std::ostream& out, const std::string& producedBy) {
    switch (format) {
        case ReportFormat::Markdown: writeMarkdownReport(trace, out, producedBy); return;
        case ReportFormat::Html: writeHtmlReport(trace, out, producedBy); return;
        case ReportFormat::Json: writeJsonReport(trace, out, producedBy); return;
        case ReportFormat::Perfetto: writePerfettoTrace(trace, out); return;
    }
}

}  // namespace traces

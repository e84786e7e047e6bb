// Tests of the report writers: the JSON report against its documented schema, the HTML page's
// self-containment, escaping and links, and the Markdown report's sections and fences.
#include "report/report.h"

#include "report_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <sstream>

namespace traces {
namespace {

using report_fixture::makeReportTrace;

std::string render(const TraceData& trace, ReportFormat format) {
    std::ostringstream out;
    writeReport(trace, format, out);
    return out.str();
}

nlohmann::json jsonReport(const TraceData& trace) { return nlohmann::json::parse(render(trace, ReportFormat::Json)); }

const nlohmann::json& compileByKey(const nlohmann::json& session, const std::string& key) {
    for (const auto& site : session["compile_sites"])
        for (const auto& compile : site["compiles"])
            if (compile["key"] == key) return compile;
    throw std::runtime_error("no compile " + key);
}

TEST(ReportFormatTest, ParsesNamesInAnyCase) {
    EXPECT_EQ(reportFormatFromString("md"), ReportFormat::Markdown);
    EXPECT_EQ(reportFormatFromString("Markdown"), ReportFormat::Markdown);
    EXPECT_EQ(reportFormatFromString("HTML"), ReportFormat::Html);
    EXPECT_EQ(reportFormatFromString("htm"), ReportFormat::Html);
    EXPECT_EQ(reportFormatFromString("json"), ReportFormat::Json);
    EXPECT_FALSE(reportFormatFromString("pdf").has_value());
    EXPECT_FALSE(reportFormatFromString("").has_value());
}

TEST(JsonReportTest, TopLevelAndSessionFields) {
    nlohmann::json report = jsonReport(makeReportTrace());
    EXPECT_EQ(report["format"], "cwb-report");
    EXPECT_EQ(report["version"], 1);
    EXPECT_EQ(report["trace"], "runs/trace.cwb");
    ASSERT_EQ(report["sessions"].size(), 2u);

    const auto& session = report["sessions"][0];
    for (const char* field : {"id", "source_file", "source_path", "rank", "kind", "torch_version", "process_id",
                              "started_at", "bytes", "records", "malformed_records", "summary", "ops",
                              "break_reasons_source", "break_reasons", "recompiles", "phase_times", "compile_sites",
                              "import_issues"})
        EXPECT_TRUE(session.contains(field)) << field;
    EXPECT_EQ(session["id"], 1);
    EXPECT_EQ(session["rank"], 0);
    EXPECT_EQ(session["kind"], "imported_log");
    EXPECT_EQ(session["torch_version"], "2.8.0");
    EXPECT_TRUE(report["sessions"][1]["rank"].is_null());
}

TEST(JsonReportTest, SummaryHasExactlyTheSixCounts) {
    nlohmann::json report = jsonReport(makeReportTrace());
    const auto& summary = report["sessions"][0]["summary"];
    EXPECT_EQ(summary, nlohmann::json({{"compiles", 6}, {"graphs", 5}, {"graph_breaks", 3}, {"recompiles", 2},
                                        {"failed_compiles", 1}, {"output_code", 2}}));
    for (const auto& [name, value] : summary.items()) EXPECT_TRUE(value.is_number_integer()) << name;
    EXPECT_EQ(report["sessions"][1]["summary"]["graph_breaks"], 0);
}

TEST(JsonReportTest, BreakReasonsRecompilesAndPhases) {
    nlohmann::json report = jsonReport(makeReportTrace());
    const auto& session = report["sessions"][0];
    ASSERT_EQ(session["break_reasons"].size(), 2u);
    const auto& print = session["break_reasons"][0];
    EXPECT_EQ(print["count"], 2);
    EXPECT_EQ(print["user_file"], "helpers.py");
    EXPECT_EQ(print["user_line"], 3);
    EXPECT_EQ(print["user_source"], "print(\"value\", v)");
    EXPECT_EQ(print["user_stack"].size(), 3u);
    EXPECT_EQ(print["compiles"][1], nlohmann::json({{"compile", 103}, {"key", "[1/0]"}}));
    EXPECT_EQ(report["sessions"][1]["break_reasons_source"], "restart");

    ASSERT_EQ(session["recompiles"].size(), 1u);
    const auto& g = session["recompiles"][0];
    EXPECT_EQ(g["function"], "g");
    EXPECT_EQ(g["compile_count"], 3);
    EXPECT_TRUE(g["recompile_limit"].is_null());
    ASSERT_EQ(g["recompiles"].size(), 2u);
    EXPECT_EQ(g["recompiles"][0]["key"], "[2/1]");
    EXPECT_EQ(g["recompiles"][0]["guard_failures"][0]["failed_compile"], "2/0");
    EXPECT_EQ(g["recompiles"][0]["message"].get<std::string>().rfind("Recompiling function g in model.py:12\n", 0),
              0u);

    EXPECT_DOUBLE_EQ(session["phase_times"]["entire_frame_compile"].get<double>(), 2.25);
    EXPECT_EQ(session["ops"]["total"], 8);
}

TEST(JsonReportTest, CompilesSitUnderTheirSitesWithTheirRows) {
    nlohmann::json report = jsonReport(makeReportTrace());
    const auto& session = report["sessions"][0];
    ASSERT_EQ(session["compile_sites"].size(), 4u);
    const auto& f = session["compile_sites"][0];
    EXPECT_EQ(f["function"], "f");
    EXPECT_EQ(f["user_stack"][0]["source"], "out = f(x)");
    ASSERT_EQ(f["compiles"].size(), 2u);  // [0/0] and its retry [0/0_1], which inherits the site
    EXPECT_EQ(f["compiles"][1]["key"], "[0/0_1]");

    const auto& retry = compileByKey(session, "[0/0_1]");
    EXPECT_EQ(retry["compile_id"], "0/0_1");
    EXPECT_EQ(retry["status"], "ok");
    EXPECT_EQ(retry["attempt"], 1);
    EXPECT_FALSE(retry["started"].get<bool>());
    EXPECT_TRUE(retry["fail_type"].is_null());
    EXPECT_EQ(retry["restart_reasons"].size(), 1u);
    EXPECT_EQ(retry["metrics"]["op_count"], 2);
    EXPECT_TRUE(retry["metrics"]["node_count"].is_null());
    ASSERT_EQ(retry["guards"].size(), 2u);
    EXPECT_EQ(retry["guards"][1]["checks"], "x's first dimension is below 16");
    ASSERT_EQ(retry["graphs"].size(), 2u);
    EXPECT_EQ(retry["graphs"][0]["kind"], "dynamo");
    EXPECT_EQ(retry["graphs"][0]["node_count"], 4);
    EXPECT_EQ(retry["graphs"][1]["kind"], "aot_forward");
    ASSERT_EQ(retry["output_code"].size(), 1u);
    EXPECT_EQ(retry["output_code"][0]["kernels"][0]["name"], "triton_poi_fused_sin_0");
    EXPECT_EQ(retry["output_code"][0]["kernels"][0]["language"], "triton");
    ASSERT_EQ(retry["graph_breaks"].size(), 1u);
    EXPECT_TRUE(retry["graph_breaks"][0]["break_reason"].is_null());  // a restart row, not in the list

    const auto& resume = compileByKey(session, "[1/0]");
    ASSERT_EQ(resume["graph_breaks"].size(), 2u);
    EXPECT_EQ(resume["graph_breaks"][0]["break_reason"], 0);
    EXPECT_EQ(resume["graph_breaks"][1]["break_reason"], 1);

    const auto& failed = compileByKey(session, "[3/0]");
    EXPECT_EQ(failed["status"], "failed");
    EXPECT_EQ(failed["fail_type"], "BackendCompilerFailed");
    EXPECT_EQ(failed["fail_user_line"], 22);

    const auto& recompile = compileByKey(session, "[2/2]");
    EXPECT_EQ(recompile["status"], "restarted");
    EXPECT_EQ(recompile["guard_failures"].size(), 2u);
}

std::set<std::string> keysOf(const nlohmann::json& object) {
    std::set<std::string> keys;
    for (const auto& [key, value] : object.items()) keys.insert(key);
    return keys;
}

// Mirrors the field tables of traces/report/REPORT_JSON.md: a new or renamed field must be documented.
TEST(JsonReportTest, ObjectsHaveExactlyTheDocumentedFields) {
    nlohmann::json report = jsonReport(makeReportTrace());
    using Keys = std::set<std::string>;
    EXPECT_EQ(keysOf(report), (Keys{"format", "version", "produced_by", "trace", "schema_version", "divergence", "sessions"}));
    const auto& session = report["sessions"][0];
    EXPECT_EQ(keysOf(session),
              (Keys{"id", "source_file", "source_path", "rank", "kind", "torch_version", "process_id", "started_at",
                    "bytes", "records", "malformed_records", "summary", "unique_graphs", "ops", "break_reasons_source",
                    "break_reasons",
                    "recompiles", "phase_times", "failures", "records_without_compile_id", "compile_sites", "import_issues"}));
    ASSERT_FALSE(session["failures"].empty());
    EXPECT_EQ(keysOf(session["failures"][0]),
              (Keys{"compile", "key", "kind", "type", "reason", "user_file", "user_line"}));
    EXPECT_EQ(keysOf(session["ops"]), (Keys{"total", "graphs_from_metrics", "graphs_from_nodes"}));
    EXPECT_EQ(keysOf(session["break_reasons"][0]),
              (Keys{"count", "origin", "break_type", "reason", "user_file", "user_line", "user_source", "user_stack",
                    "dedup_key", "compiles", "graph_breaks"}));
    EXPECT_EQ(keysOf(session["break_reasons"][0]["user_stack"][0]), (Keys{"file", "line", "function", "source"}));
    EXPECT_EQ(keysOf(session["recompiles"][0]), (Keys{"function", "file", "first_line", "frame_id", "autograd_id",
                                                      "compile_count", "recompiles", "recompile_limit"}));
    EXPECT_EQ(keysOf(session["recompiles"][0]["recompiles"][0]), (Keys{"compile", "key", "guard_failures", "message"}));
    EXPECT_EQ(keysOf(session["compile_sites"][0]), (Keys{"id", "function", "file", "line", "user_stack", "compiles"}));
    const auto& compile = compileByKey(session, "[0/0_1]");
    EXPECT_EQ(keysOf(compile),
              (Keys{"id", "key", "compile_id", "autograd_id", "frame_id", "frame_compile_id", "attempt", "status",
                    "started", "line", "function", "file", "first_line", "fail_type", "fail_reason", "fail_user_file",
                    "fail_user_line", "restart_reasons", "recompile_reasons", "metrics", "phases", "caches", "symbols",
                    "specializations", "guards_added_fast", "custom_ops", "guard_failures", "graph_breaks", "guards", "graphs",
                    "output_code"}));
    EXPECT_EQ(keysOf(compile["metrics"]), (Keys{"cache_size", "accumulated_cache_size", "guard_count",
                                                "shape_env_guard_count", "op_count", "node_count", "input_count",
                                                "start_time"}));
    EXPECT_EQ(keysOf(compile["graph_breaks"][0]),
              (Keys{"id", "line", "origin", "break_type", "reason", "user_file", "user_line", "break_reason"}));
    EXPECT_EQ(keysOf(compile["guards"][0]), (Keys{"index", "kind", "source", "text", "checks", "user_code", "depth"}));
    EXPECT_EQ(keysOf(compile["graphs"][0]), (Keys{"id", "kind", "name", "line", "node_count", "text"}));
    EXPECT_EQ(keysOf(compile["output_code"][0]),
              (Keys{"id", "event", "filename", "language", "line", "source", "kernels"}));
    EXPECT_EQ(keysOf(compile["output_code"][0]["kernels"][0]),
              (Keys{"index", "name", "language", "launch_config", "compile_seconds", "source"}));
    EXPECT_EQ(keysOf(compileByKey(session, "[2/1]")["guard_failures"][0]), (Keys{"failed_compile", "reason"}));
    EXPECT_EQ(keysOf(session["import_issues"][0]), (Keys{"line", "column", "kind", "message"}));
}

TEST(JsonReportTest, RecompileLimitIsReportedWhenHit) {
    TraceData trace;
    trace.sessions.push_back({});
    trace.sessions[0].id = 1;
    for (int i = 0; i <= 8; ++i) {
        trace.compiles.push_back(report_fixture::makeCompile(i + 1, 1, std::nullopt, 0, i, 0, i < 8,
                                                             CompileStatus::Ok, "forward", 57));
        if (i == 0) continue;
        trace.guardFailures.push_back({i, i + 1, 0, "0/" + std::to_string(i - 1), "L['n'] == " + std::to_string(i)});
    }
    nlohmann::json report = jsonReport(trace);
    const auto& limit = report["sessions"][0]["recompiles"][0]["recompile_limit"];
    EXPECT_EQ(keysOf(limit), (std::set<std::string>{"limit_type", "limit", "reached", "hit", "warning"}));
    EXPECT_TRUE(limit["hit"].get<bool>());
    EXPECT_EQ(limit["warning"].get<std::string>().rfind("torch._dynamo hit config.recompile_limit (8)\n"
                                                        "   function: 'forward' (model.py:57)\n"
                                                        "   last reason: 0/7: L['n'] == 8\n", 0),
              0u);
    std::string html = render(trace, ReportFormat::Html);
    EXPECT_NE(html.find("Recompile limit hit"), std::string::npos);
}

TEST(JsonReportTest, OrphanCompilesAndImportIssues) {
    nlohmann::json report = jsonReport(makeReportTrace());
    const auto& sites = report["sessions"][1]["compile_sites"];
    ASSERT_EQ(sites.size(), 2u);
    EXPECT_TRUE(sites[1]["id"].is_null());
    EXPECT_EQ(sites[1]["compiles"][0]["key"], "[1/0_1]");

    const auto& issues = report["sessions"][0]["import_issues"];
    ASSERT_EQ(issues.size(), 2u);
    EXPECT_EQ(issues[0]["line"], 7);  // sorted by line
    EXPECT_EQ(issues[1]["kind"], "bad_json");
    EXPECT_EQ(issues[1]["column"], 7);
}

TEST(JsonReportTest, EmptyTraceAndInvalidUtf8StillGiveValidJson) {
    nlohmann::json empty = jsonReport(TraceData{});
    EXPECT_TRUE(empty["sessions"].is_array());
    EXPECT_TRUE(empty["sessions"].empty());

    TraceData trace = makeReportTrace();
    trace.compiles[7].failReason = "bad byte \xff here";
    EXPECT_NO_THROW(jsonReport(trace));
}

TEST(HtmlReportTest, IsOneSelfContainedPage) {
    std::string html = render(makeReportTrace(), ReportFormat::Html);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(html.find("<style>"), std::string::npos);
    EXPECT_EQ(html.find("<script src"), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
    EXPECT_EQ(html.find("@import"), std::string::npos);
    EXPECT_EQ(html.find("url("), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    // Every src/href stays inside the page. The graph-break docs URL may appear, but only as text.
    std::regex attribute(R"re((src|href)\s*=\s*"([^"]*)")re");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), attribute); it != std::sregex_iterator(); ++it)
        EXPECT_EQ((*it)[2].str().rfind('#', 0), 0u) << (*it)[0].str();
    EXPECT_NE(html.find("https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html"), std::string::npos);
    EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(HtmlReportTest, EscapesLogText) {
    std::string html = render(makeReportTrace(), ReportFormat::Html);
    EXPECT_NE(html.find("broken &lt;backend&gt; &amp; co"), std::string::npos);
    EXPECT_EQ(html.find("<backend>"), std::string::npos);
    EXPECT_NE(html.find("L[&#39;x&#39;].size()[0] &lt; 16 and flag &amp; 1"), std::string::npos);
    EXPECT_EQ(html.find("<class 'torch"), std::string::npos);
    EXPECT_NE(html.find("&lt;class &#39;torch._dynamo.variables.constant.ConstantVariable&#39;&gt;"),
              std::string::npos);
}

TEST(HtmlReportTest, LinksResolveToAnchorsOnThePage) {
    std::string html = render(makeReportTrace(), ReportFormat::Html);
    std::set<std::string> ids;
    std::regex idAttribute(R"re(\bid="([^"]+)")re");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), idAttribute); it != std::sregex_iterator(); ++it)
        EXPECT_TRUE(ids.insert((*it)[1].str()).second) << "duplicate id " << (*it)[1].str();
    std::regex hrefAttribute(R"re(href="#([^"]+)")re");
    size_t links = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), hrefAttribute); it != std::sregex_iterator(); ++it) {
        ++links;
        EXPECT_TRUE(ids.count((*it)[1].str())) << "dangling link #" << (*it)[1].str();
    }
    EXPECT_GT(links, 20u);
    // Break reason 1 links to the compiles it happened in; compiles link to their site; compiles link back.
    EXPECT_NE(html.find("href=\"#compile-101\">[0/0]</a>"), std::string::npos);
    EXPECT_NE(html.find("href=\"#site-1\""), std::string::npos);
    EXPECT_NE(html.find("href=\"#break-1-1\""), std::string::npos);
    EXPECT_NE(html.find("class=\"toc\""), std::string::npos);
}

TEST(HtmlReportTest, ShowsStatusesAndRecompileWording) {
    std::string html = render(makeReportTrace(), ReportFormat::Html);
    for (const char* status : {"status-ok", "status-failed", "status-restarted", "status-break"})
        EXPECT_NE(html.find(status), std::string::npos) << status;
    EXPECT_NE(html.find("Recompiling function g in model.py:12\n    triggered by the following guard failure(s):\n"
                        "    - 2/0: tensor &#39;x&#39; size mismatch at index 0. expected 8, actual 16"),
              std::string::npos);
    EXPECT_NE(html.find("<td class=\"num\">42</td>"), std::string::npos);
}

TEST(MarkdownReportTest, HasTheExpectedSections) {
    std::string md = render(makeReportTrace(), ReportFormat::Markdown);
    for (const char* heading :
         {"# Compile report\n", "## Session dedicated\\_log\\_torch\\_trace\\_rank\\_0.log (rank 0)\n", "### Summary\n",
          "### Break reasons\n", "### Recompiles\n", "### Compile time per phase\n", "### Compile sites\n",
          "### Import issues\n", "#### Compiles without a known site\n"})
        EXPECT_NE(md.find(heading), std::string::npos) << heading;
    EXPECT_NE(md.find("| 6 | 5 | 3 | 2 | 1 | 2 | 8 |"), std::string::npos);
    EXPECT_NE(md.find("```text\nRecompiling function g in model.py:12\n    triggered by the following guard "
                      "failure(s):\n    - 2/0: tensor 'x' size mismatch at index 0. expected 8, actual 16\n```"),
              std::string::npos);
    EXPECT_NE(md.find("- Occurrences: 2\n"), std::string::npos);
    EXPECT_NE(md.find("```python\nprint(\"value\", v)\n```"), std::string::npos);
    EXPECT_NE(md.find("_This log has no `dynamo_graph_break_reason` artifacts"), std::string::npos);
    EXPECT_NE(md.find("| 42 | 7 | `bad_json` |"), std::string::npos);
}

TEST(MarkdownReportTest, FencesCannotBeClosedByContent) {
    std::string md = render(makeReportTrace(), ReportFormat::Markdown);
    // The kernel's docstring holds ``` so its block needs a longer fence.
    EXPECT_NE(md.find("````python\n@triton.jit\n"), std::string::npos);
    // Every opening fence is closed: count fence lines by their length.
    std::istringstream lines(md);
    std::string line, open;
    for (std::getline(lines, line); lines; std::getline(lines, line)) {
        size_t ticks = line.find_first_not_of('`');
        if (ticks == std::string::npos) ticks = line.size();
        if (ticks < 3) continue;
        if (open.empty()) {
            open = line.substr(0, ticks);
        } else if (line == open) {
            open.clear();
        }
    }
    EXPECT_TRUE(open.empty()) << "unclosed fence " << open;
    // A pipe in a guard does not split the table row.
    EXPECT_NE(md.find("| 1 | `TYPE_MATCH` | `___check_type_id(L['y'], 1) \\| ___check_obj_id(L['z'], 2)` |"),
              std::string::npos);
}

}  // namespace
}  // namespace traces

// The trace recorder on synthetic event sequences: the file it writes reads back through traces::loadTrace and
// the report's summary like an imported log, and its counts equal what the stats recorder counts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../../traces/test_support.h"
#include "compile_event_scripts.h"
#include "parse/graph_break_text.h"
#include "record/fan_out_sink.h"
#include "record/stats_recorder.h"
#include "record/trace_recorder.h"
#include "report/report.h"
#include "report/summary.h"
#include "store/trace_reader.h"

using namespace traces;
using namespace recordtest;

namespace {

const eng::record::RunInfo kRun{"programs/demo.py", "cwb 0.1.0"};

struct Recorded {
    TraceData trace;
    SessionSummary summary;
    eng::record::RunStats stats;  ///< what the stats recorder counted from the same events
};

/// Plays `script` into a trace file and a stats recorder at once, then loads the file back.
template <typename Script>
Recorded record(const testsupport::TempDir& dir, Script script) {
    std::string path = dir.file("run.db");
    Recorded out;
    {
        eng::record::TraceRecorder traceRecorder(path, kRun);
        eng::record::StatsRecorder statsRecorder(kRun);
        eng::record::FanOutSink both({&traceRecorder, &statsRecorder});
        script(both);
        traceRecorder.close();
        out.stats = statsRecorder.stats();
    }
    out.trace = loadTrace(path);
    EXPECT_EQ(out.trace.sessions.size(), 1u);
    if (!out.trace.sessions.empty()) out.summary = summarizeTrace(out.trace).front();
    return out;
}

const Compile& compileNamed(const TraceData& trace, const std::string& key) {
    for (const Compile& c : trace.compiles)
        if (c.key.str() == key) return c;
    throw std::runtime_error("no compile " + key);
}

/// The stats the summary of the loaded file implies; the stats recorder must have counted the same.
void expectStatsMatchSummary(const Recorded& r) {
    EXPECT_EQ(r.stats.uniqueGraphs, r.summary.uniqueGraphs);
    EXPECT_EQ(r.stats.graphBreaks, r.summary.counts.graphBreaks);
    EXPECT_EQ(r.stats.recompiles, r.summary.counts.recompiles);  // no compile here was refused by the limit
    EXPECT_EQ(r.stats, eng::record::statsOfSession(r.trace, r.trace.sessions.front()));
}

}  // namespace

TEST(TraceRecorder, SessionDescribesTheRun) {
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) { playRecompile(sink); });
    const Session& s = r.trace.sessions.front();
    EXPECT_EQ(s.kind, SessionKind::EngineRun);
    EXPECT_EQ(s.sourceFile, "demo.py");
    EXPECT_EQ(s.sourcePath, "programs/demo.py");
    EXPECT_EQ(s.torchVersion, "cwb 0.1.0");
    EXPECT_EQ(s.processId, static_cast<int64_t>(getpid()));
    EXPECT_EQ(s.startedAt.size(), std::string("11-22 09:31:54.123").size());
    EXPECT_EQ(s.records, 9);  // one per event
}

TEST(TraceRecorder, RecompileWithGuardFailures) {
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) { playRecompile(sink); });
    ASSERT_EQ(r.trace.compiles.size(), 2u);
    const Compile& first = compileNamed(r.trace, "0/0");
    const Compile& second = compileNamed(r.trace, "0/1");
    EXPECT_TRUE(first.started);
    EXPECT_TRUE(second.started);
    EXPECT_EQ(first.status, CompileStatus::Ok);
    EXPECT_EQ(second.status, CompileStatus::Ok);
    EXPECT_EQ(first.function, "f");
    EXPECT_EQ(first.firstLine, 3);
    EXPECT_EQ(first.opCount, 2);
    ASSERT_EQ(first.phases.size(), 2u);
    EXPECT_EQ(first.phases[0].phase, "entire_frame_compile");
    EXPECT_DOUBLE_EQ(first.phases[0].seconds, 0.25);
    EXPECT_NE(first.metricsJson.find("\"compilation_metrics\""), std::string::npos);
    EXPECT_NE(first.metricsJson.find("\"graph_op_count\":2"), std::string::npos);

    // Both compiles come from the same user stack: one site, ending at the compiled frame.
    ASSERT_EQ(r.trace.sites.size(), 1u);
    EXPECT_EQ(r.trace.sites[0].function, "f");
    EXPECT_EQ(r.trace.sites[0].userStack.size(), 3u);
    EXPECT_EQ(first.siteId, r.trace.sites[0].id);
    EXPECT_EQ(second.siteId, r.trace.sites[0].id);

    ASSERT_EQ(r.trace.guardFailures.size(), 1u);
    EXPECT_EQ(r.trace.guardFailures[0].compileId, second.id);
    EXPECT_EQ(r.trace.guardFailures[0].failedCompile, "0/0");
    EXPECT_EQ(second.recompileReasons,
              std::vector<std::string>{"0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8"});

    ASSERT_EQ(r.trace.graphs.size(), 2u);
    EXPECT_EQ(r.trace.graphs[1].compileId, second.id);
    EXPECT_EQ(r.trace.graphs[1].name, "dynamo_output_graph");
    // The node rows the engine handed over are stored as they are (never parsed back from the text).
    std::vector<std::string> ops;
    for (const GraphNode& node : r.trace.graphs[1].nodes) ops.push_back(node.op);
    EXPECT_EQ(ops, (std::vector<std::string>{"placeholder", "call_function", "call_function", "output"}));
    EXPECT_EQ(r.trace.graphs[1].nodes[1].shape, "[8]");
    ASSERT_EQ(r.trace.guards.size(), 4u);
    EXPECT_EQ(r.trace.guards[3].compileId, second.id);
    EXPECT_EQ(r.trace.guards[3].index, 1);
    EXPECT_EQ(r.trace.guards[3].depth, 1);

    EXPECT_EQ(r.summary.counts.compiles, 2);
    EXPECT_EQ(r.summary.counts.recompiles, 1);
    EXPECT_EQ(r.summary.uniqueGraphs, 2);
    ASSERT_EQ(r.summary.recompiledFunctions.size(), 1u);
    ASSERT_EQ(r.summary.recompiledFunctions[0].recompiles.size(), 1u);
    EXPECT_EQ(r.summary.recompiledFunctions[0].recompiles[0].message,
              "Recompiling function f in programs/demo.py:3\n"
              "    triggered by the following guard failure(s):\n"
              "    - 0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8");
    EXPECT_EQ(r.stats, (eng::record::RunStats{2, 0, 1, {}}));
    expectStatsMatchSummary(r);
}

TEST(TraceRecorder, GraphBreakWithResumeFunction) {
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) { playBreakWithResume(sink); });
    ASSERT_EQ(r.trace.compiles.size(), 2u);
    EXPECT_EQ(r.trace.sites.size(), 2u);  // g and its resume function were called from different frames
    ASSERT_EQ(r.trace.graphBreaks.size(), 1u);
    const GraphBreak& b = r.trace.graphBreaks[0];
    EXPECT_EQ(b.origin, "artifact");
    EXPECT_EQ(b.compileId, compileNamed(r.trace, "0/0").id);
    EXPECT_EQ(b.breakType, "Failed to trace builtin operator");
    EXPECT_EQ(b.dedupKey, "Failed to trace builtin operator@programs/demo.py:8");
    // The stored text is Dynamo's dynamo_graph_break_reason payload: it parses back to the same break.
    ParsedGraphBreak parsed = parseGraphBreakText(b.text);
    EXPECT_EQ(parsed.reason, b.reason);
    EXPECT_EQ(parsed.userFile, "programs/demo.py");
    EXPECT_EQ(parsed.userLine, 8);
    EXPECT_EQ(parsed.userStack, b.userStack);

    EXPECT_EQ(r.summary.counts.graphBreaks, 1);
    ASSERT_EQ(r.summary.breakReasons.size(), 1u);
    EXPECT_EQ(r.summary.breakReasons[0].userSource, "print(\"between the two graphs\")");
    EXPECT_EQ(r.summary.counts.recompiles, 0);
    // counters["graph_break"] keys the message without Dynamo's "Encountered graph break ..." preface.
    EXPECT_EQ(r.stats, (eng::record::RunStats{2, 1, 0, {{kPrintBreakMessage, 1}}}));
    expectStatsMatchSummary(r);
}

TEST(TraceRecorder, FailedCompileKeepsNoGraph) {
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) { playFailedCompile(sink); });
    ASSERT_EQ(r.trace.compiles.size(), 1u);
    const Compile& c = r.trace.compiles[0];
    EXPECT_EQ(c.status, CompileStatus::Failed);
    EXPECT_EQ(c.failType, "BackendCompilerFailed");
    EXPECT_EQ(c.failUserLine, 13);
    EXPECT_EQ(r.trace.graphs.size(), 1u);
    EXPECT_EQ(r.summary.counts.failedCompiles, 1);
    EXPECT_EQ(r.stats, (eng::record::RunStats{0, 0, 0, {}}));
    expectStatsMatchSummary(r);
}

TEST(TraceRecorder, RestartedAttemptIsMarkedAndItsReasonKept) {
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) { playRestart(sink); });
    ASSERT_EQ(r.trace.compiles.size(), 2u);
    const Compile& abandoned = compileNamed(r.trace, "0/0");
    const Compile& kept = compileNamed(r.trace, "0/0_1");
    EXPECT_EQ(abandoned.status, CompileStatus::Restarted);
    EXPECT_TRUE(abandoned.started);
    EXPECT_FALSE(kept.started);  // Dynamo starts a compile id once; the attempt continues it
    EXPECT_EQ(kept.status, CompileStatus::Ok);
    ASSERT_EQ(r.trace.graphBreaks.size(), 1u);
    EXPECT_EQ(r.trace.graphBreaks[0].origin, "restart");
    EXPECT_EQ(r.trace.graphBreaks[0].breakType, "skip function graph_break");
    EXPECT_EQ(r.summary.counts.compiles, 1);
    EXPECT_EQ(r.summary.counts.graphBreaks, 0);  // restart reasons are not Dynamo's graph_break counter
    EXPECT_EQ(r.stats, (eng::record::RunStats{1, 0, 0, {}}));
    expectStatsMatchSummary(r);
}

TEST(TraceRecorder, RecompileLimitRefusalIsARecompileWithAWarning) {
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) { playRecompileLimit(sink); });
    ASSERT_EQ(r.trace.compiles.size(), 9u);
    const Compile& refused = compileNamed(r.trace, "0/8");
    EXPECT_FALSE(refused.started);
    EXPECT_EQ(refused.status, CompileStatus::Unknown);
    ASSERT_EQ(r.trace.artifacts.size(), 1u);
    EXPECT_EQ(r.trace.artifacts[0].name, "dynamo_warning");
    EXPECT_EQ(r.trace.artifacts[0].compileId, refused.id);
    EXPECT_EQ(loadArtifactPayload(dir.file("run.db"), r.trace.artifacts[0].id).substr(0, 44),
              "torch._dynamo hit config.recompile_limit (8)");
    EXPECT_EQ(r.summary.counts.recompiles, 8);
    ASSERT_EQ(r.summary.recompiledFunctions.size(), 1u);
    const auto& limit = r.summary.recompiledFunctions[0].recompileLimit;
    ASSERT_TRUE(limit.has_value());
    EXPECT_TRUE(limit->hit);
    EXPECT_NE(limit->warning.find("last reason: 0/7: tensor 'x' size mismatch"), std::string::npos);
    // --stats counts compile ids that compiled (PyTorch's trace has none for the refused call): 0/1 ... 0/7.
    EXPECT_EQ(r.stats, (eng::record::RunStats{8, 0, 7, {}}));
    EXPECT_EQ(r.stats, eng::record::statsOfSession(r.trace, r.trace.sessions.front()));
}

TEST(TraceRecorder, EventsOfAllScriptsInOneRun) {
    // Frame ids repeat across the scripts, as after torch._dynamo.reset(): each start opens a new compile.
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) {
        playRecompile(sink);
        playBreakWithResume(sink);
        playFailedCompile(sink);
    });
    EXPECT_EQ(r.summary.counts.compiles, 5);
    EXPECT_EQ(r.summary.counts.failedCompiles, 1);
    EXPECT_EQ(r.stats, (eng::record::RunStats{4, 1, 1, {{kPrintBreakMessage, 1}}}));
    expectStatsMatchSummary(r);
}

TEST(TraceRecorder, ReportsNameTheEngineRun) {
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) { playBreakWithResume(sink); });
    std::ostringstream markdown, html, json;
    writeMarkdownReport(r.trace, markdown);
    writeHtmlReport(r.trace, html);
    writeJsonReport(r.trace, json);
    EXPECT_NE(markdown.str().find("- Kind: engine_run\n"), std::string::npos);
    EXPECT_NE(markdown.str().find("- Engine: `cwb 0.1.0`\n- Compile events: 7\n"), std::string::npos);
    EXPECT_EQ(markdown.str().find("- Torch:"), std::string::npos);
    EXPECT_NE(html.str().find("engine <code>cwb 0.1.0</code> &middot; 7 compile events"), std::string::npos);
    nlohmann::json report = nlohmann::json::parse(json.str());
    const nlohmann::json& session = report.at("sessions").at(0);
    EXPECT_EQ(session.at("kind"), "engine_run");
    EXPECT_EQ(session.at("summary").at("graph_breaks"), r.stats.graphBreaks);
    EXPECT_EQ(session.at("summary").at("recompiles"), r.stats.recompiles);
}

TEST(TraceRecorder, ReasonsReportedAfterTheStartJoinTheStartedCompile) {
    // Dynamo logs the reasons first; an engine may report them just after compileStarted: same rows either way.
    testsupport::TempDir dir;
    Recorded r = record(dir, [](auto& sink) {
        sink.compileStarted(compileOf(key(0, 0), "f", 3), stackTo("f", 3));
        sink.compileFinished(finishedOf(key(0, 0), "f", 3, 2));
        sink.compileStarted(compileOf(key(0, 1), "f", 3), stackTo("f", 3));
        sink.recompileReasons(key(0, 1),
                              {GuardFailure{0, 0, 0, "0/0", "tensor 'x' rank mismatch. expected 1, actual 2"}});
        sink.compileFinished(finishedOf(key(0, 1), "f", 3, 2));
    });
    ASSERT_EQ(r.trace.compiles.size(), 2u);
    const Compile& second = compileNamed(r.trace, "0/1");
    EXPECT_TRUE(second.started);
    ASSERT_EQ(r.trace.guardFailures.size(), 1u);
    EXPECT_EQ(r.trace.guardFailures[0].compileId, second.id);
    EXPECT_EQ(r.summary.counts.recompiles, 1);
    expectStatsMatchSummary(r);
}

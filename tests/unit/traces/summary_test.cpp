// Tests of the explain-style session summary: the six counts, break de-duplication, Dynamo's recompile
// wording, the recompile-limit warning, phase times and ops.
#include "report/summary.h"

#include "report/trace_index.h"
#include "report_fixture.h"

#include <gtest/gtest.h>

namespace traces {
namespace {

using report_fixture::makeCompile;
using report_fixture::makeReportTrace;

SessionSummary summaryOf(const TraceData& trace, size_t sessionPosition) {
    return summarizeTrace(trace).at(sessionPosition);
}

TEST(SummaryTest, CountsFollowTheSpec) {
    SummaryCounts counts = summaryOf(makeReportTrace(), 0).counts;
    EXPECT_EQ(counts.compiles, 6);        // started rows only: retries [0/0_1] and [2/2_1] are not compiles
    EXPECT_EQ(counts.graphs, 5);          // Dynamo graphs; the aot_forward graph does not count
    EXPECT_EQ(counts.graphBreaks, 3);     // artifact rows; the restart row of [0/0_1] does not count
    EXPECT_EQ(counts.recompiles, 2);      // [2/1] and [2/2]
    EXPECT_EQ(counts.failedCompiles, 1);  // [3/0]
    EXPECT_EQ(counts.outputCode, 2);      // the graph_dump row is not inductor_output_code
}

TEST(SummaryTest, EngineRunsCountTheirGeneratedCodeButNotEagerFallbacks) {
    TraceData trace = makeReportTrace();
    for (OutputCode& code : trace.outputCode) code.event = "engine";
    trace.outputCode[0].filename = "cwb_inductor_output_code";
    trace.outputCode[1].filename = "cwb_inductor_eager_fallback";
    EXPECT_EQ(summaryOf(trace, 0).counts.outputCode, 1);
}

TEST(SummaryTest, OldLogCountsNoRestartRowsAsGraphBreaks) {
    SummaryCounts counts = summaryOf(makeReportTrace(), 1).counts;
    EXPECT_EQ(counts.compiles, 1);
    EXPECT_EQ(counts.graphs, 1);
    EXPECT_EQ(counts.graphBreaks, 0);
    EXPECT_EQ(counts.recompiles, 0);
    EXPECT_EQ(counts.failedCompiles, 0);
    EXPECT_EQ(counts.outputCode, 0);
}

TEST(SummaryTest, BreakReasonsAreDeduplicatedWithCounts) {
    SessionSummary summary = summaryOf(makeReportTrace(), 0);
    EXPECT_FALSE(summary.breakReasonsFromRestarts);
    ASSERT_EQ(summary.breakReasons.size(), 2u);

    const BreakReasonSummary& print = summary.breakReasons[0];
    EXPECT_EQ(print.count, 2);
    EXPECT_EQ(print.origin, "artifact");
    EXPECT_EQ(print.breakType, "Failed to trace builtin operator");
    EXPECT_EQ(print.reason, report_fixture::kPrintBreakReason);
    EXPECT_EQ(print.userFile, "helpers.py");
    EXPECT_EQ(print.userLine, 3);
    EXPECT_EQ(print.userSource, "print(\"value\", v)");
    ASSERT_EQ(print.compiles.size(), 2u);
    EXPECT_EQ(print.compiles[0].display, "[0/0]");
    EXPECT_EQ(print.compiles[0].compileId, 101);
    EXPECT_EQ(print.compiles[1].display, "[1/0]");
    EXPECT_EQ(print.graphBreakIds, (std::vector<RowId>{1, 3}));

    const BreakReasonSummary& item = summary.breakReasons[1];
    EXPECT_EQ(item.count, 1);
    EXPECT_EQ(item.userSource, "if x.sum().item() > 0:");
    ASSERT_EQ(item.compiles.size(), 1u);
    EXPECT_EQ(item.compiles[0].display, "[1/0]");
}

TEST(SummaryTest, OldLogFallsBackToRestartReasonsForTheList) {
    SessionSummary summary = summaryOf(makeReportTrace(), 1);
    EXPECT_TRUE(summary.breakReasonsFromRestarts);
    ASSERT_EQ(summary.breakReasons.size(), 1u);
    EXPECT_EQ(summary.breakReasons[0].count, 2);
    EXPECT_EQ(summary.breakReasons[0].origin, "restart");
    ASSERT_EQ(summary.breakReasons[0].compiles.size(), 2u);
    EXPECT_EQ(summary.breakReasons[0].compiles[0].display, "[0/0_1]");
    EXPECT_EQ(summary.breakReasons[0].compiles[1].display, "[1/0_1]");
}

TEST(SummaryTest, RecompilesUseDynamosExactWording) {
    SessionSummary summary = summaryOf(makeReportTrace(), 0);
    ASSERT_EQ(summary.recompiledFunctions.size(), 1u);
    const FunctionRecompiles& g = summary.recompiledFunctions[0];
    EXPECT_EQ(g.function, "g");
    EXPECT_EQ(g.file, "model.py");
    EXPECT_EQ(g.firstLine, 12);
    EXPECT_EQ(g.frameId, 2);
    EXPECT_EQ(g.compileCount, 3);
    EXPECT_FALSE(g.recompileLimit.has_value());
    ASSERT_EQ(g.recompiles.size(), 2u);

    EXPECT_EQ(g.recompiles[0].compile.display, "[2/1]");
    EXPECT_EQ(g.recompiles[0].message,
              "Recompiling function g in model.py:12\n"
              "    triggered by the following guard failure(s):\n"
              "    - 2/0: tensor 'x' size mismatch at index 0. expected 8, actual 16");

    // A multi-line reason gets "- " on every line, as textwrap.indent does in torch/_dynamo/guards.py.
    EXPECT_EQ(g.recompiles[1].compile.display, "[2/2]");
    ASSERT_EQ(g.recompiles[1].guardFailures.size(), 2u);
    EXPECT_EQ(g.recompiles[1].message,
              "Recompiling function g in model.py:12\n"
              "    triggered by the following guard failure(s):\n"
              "    - 2/1: G['USE_RELU'] == True  # if USE_RELU:  # model.py:14 in g\n"
              "    - User stack trace:\n"
              "    -   File \"model.py\", line 14, in g\n"
              "    -     if USE_RELU:\n"
              "    - 2/0: tensor 'x' size mismatch at index 0. expected 8, actual 4");
}

TEST(SummaryTest, RecompileMessageMatchesARealLog) {
    // From the TORCH_LOGS=recompiles output of shared/examples/04_break_item_branch (torch 2.11).
    std::vector<GuardFailureText> failures = {
        {"1/1", "___as_tensor(___stack0).item() <= 0.0  # if s.item() > 0.0:"},
        {"1/0", "___stack0 == 128.8458251953125  # if s.item() > 0.0:\nUser stack trace:\n"
                "  File \"corpus/programs/04_break_item_branch.py\", line 8, in torch_dynamo_resume_in_f_at_8\n"
                "    if s.item() > 0.0:"}};
    EXPECT_EQ(formatRecompileMessage("torch_dynamo_resume_in_f_at_8", "corpus/programs/04_break_item_branch.py", 8,
                                     failures),
              "Recompiling function torch_dynamo_resume_in_f_at_8 in corpus/programs/04_break_item_branch.py:8\n"
              "    triggered by the following guard failure(s):\n"
              "    - 1/1: ___as_tensor(___stack0).item() <= 0.0  # if s.item() > 0.0:\n"
              "    - 1/0: ___stack0 == 128.8458251953125  # if s.item() > 0.0:\n"
              "    - User stack trace:\n"
              "    -   File \"corpus/programs/04_break_item_branch.py\", line 8, in torch_dynamo_resume_in_f_at_8\n"
              "    -     if s.item() > 0.0:");
}

TEST(SummaryTest, RecompileReasonsStandInWhenThereAreNoGuardFailureRows) {
    TraceData trace;
    trace.sessions.push_back({});
    trace.sessions[0].id = 1;
    trace.compiles = {makeCompile(1, 1, std::nullopt, 0, 0, 0, true, CompileStatus::Ok, "f", 4),
                      makeCompile(2, 1, std::nullopt, 0, 1, 0, true, CompileStatus::Restarted, "f", 4),
                      makeCompile(3, 1, std::nullopt, 0, 1, 1, false, CompileStatus::Ok, "f", 4)};
    // As in 04_break_item_branch: compilation_metrics (and its recompile_reason) belongs to the retry [0/1_1].
    trace.compiles[2].recompileReasons = {"0/0: L['i'] == 1", "free text without an id"};
    SessionSummary summary = summaryOf(trace, 0);
    ASSERT_EQ(summary.recompiledFunctions.size(), 1u);
    ASSERT_EQ(summary.recompiledFunctions[0].recompiles.size(), 1u);
    const RecompileEvent& event = summary.recompiledFunctions[0].recompiles[0];
    ASSERT_EQ(event.guardFailures.size(), 2u);
    EXPECT_EQ(event.guardFailures[0].failedCompile, "0/0");
    EXPECT_EQ(event.guardFailures[0].reason, "L['i'] == 1");
    EXPECT_EQ(event.guardFailures[1].failedCompile, "");
    EXPECT_EQ(event.message,
              "Recompiling function f in model.py:4\n"
              "    triggered by the following guard failure(s):\n"
              "    - 0/0: L['i'] == 1\n"
              "    - free text without an id");
}

TraceData recompiledManyTimes(int startedCompiles, bool refusedAttempt) {
    TraceData trace;
    trace.sessions.push_back({});
    trace.sessions[0].id = 1;
    for (int i = 0; i < startedCompiles; ++i) {
        trace.compiles.push_back(makeCompile(i + 1, 1, std::nullopt, 0, i, 0, true, CompileStatus::Ok, "forward", 57));
        if (i > 0)
            trace.guardFailures.push_back({i, i + 1, 0, "0/" + std::to_string(i - 1), "tensor 'x' size mismatch"});
    }
    if (refusedAttempt) {
        // Dynamo checks the limit before dynamo_start: the refused id has reasons and metrics, never a start.
        Compile refused = makeCompile(100, 1, std::nullopt, 0, startedCompiles, 0, false, CompileStatus::Unknown,
                                      "forward", 57);
        refused.recompileReasons = {"0/7: tensor 'cache' size mismatch at index 2. expected 77, actual 78",
                                    "0/6: tensor 'cache' size mismatch at index 2. expected 76, actual 78"};
        trace.compiles.push_back(refused);
    }
    return trace;
}

TEST(SummaryTest, RecompileLimitHitShowsDynamosWarning) {
    SessionSummary summary = summaryOf(recompiledManyTimes(8, true), 0);
    ASSERT_EQ(summary.recompiledFunctions.size(), 1u);
    const FunctionRecompiles& function = summary.recompiledFunctions[0];
    EXPECT_EQ(function.compileCount, 8);
    // Seven recompiles that ran, and the eighth that Dynamo announced (with its guard failures) and then refused.
    ASSERT_EQ(function.recompiles.size(), 8u);
    EXPECT_EQ(function.recompiles.back().compile.display, "[0/8]");
    EXPECT_EQ(function.recompiles.back().guardFailures.size(), 2u);
    ASSERT_TRUE(function.recompileLimit.has_value());
    EXPECT_TRUE(function.recompileLimit->reached);
    EXPECT_TRUE(function.recompileLimit->hit);
    EXPECT_EQ(function.recompileLimit->warning,
              "torch._dynamo hit config.recompile_limit (8)\n"
              "   function: 'forward' (model.py:57)\n"
              "   last reason: 0/7: tensor 'cache' size mismatch at index 2. expected 77, actual 78\n"
              "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\n"
              "To diagnose recompilation issues, see "
              "https://docs.pytorch.org/docs/main/user_guide/torch_compiler/compile/"
              "programming_model.recompilation.html");
}

TEST(SummaryTest, RecompileLimitReachedWithoutEvidenceOfAHit) {
    SessionSummary summary = summaryOf(recompiledManyTimes(8, false), 0);
    const FunctionRecompiles& function = summary.recompiledFunctions.at(0);
    ASSERT_TRUE(function.recompileLimit.has_value());
    EXPECT_TRUE(function.recompileLimit->reached);
    EXPECT_FALSE(function.recompileLimit->hit);
    EXPECT_TRUE(function.recompileLimit->warning.empty());

    EXPECT_FALSE(summaryOf(recompiledManyTimes(7, false), 0).recompiledFunctions.at(0).recompileLimit.has_value());
}

TEST(SummaryTest, RecompileLimitComesFromTheLoggedDynamoConfig) {
    TraceData trace = recompiledManyTimes(2, false);
    trace.compiles[0].metricsJson = R"({"compile_id": "0/0", "dynamo_config": "{\"cache_size_limit\": 2}"})";
    SessionSummary summary = summaryOf(trace, 0);
    const FunctionRecompiles& function = summary.recompiledFunctions.at(0);
    ASSERT_TRUE(function.recompileLimit.has_value());
    EXPECT_EQ(function.recompileLimit->limitType, "cache_size_limit");
    EXPECT_EQ(function.recompileLimit->limit, 2);
    EXPECT_TRUE(function.recompileLimit->reached);
}

TEST(SummaryTest, RecompileLimitIsReadInsideTheStoredRecordEnvelope) {
    // The importer and the engine's recorder store compilation_metrics with its envelope around it.
    TraceData trace = recompiledManyTimes(3, false);
    trace.compiles[0].metricsJson =
        R"({"compilation_metrics": {"compile_id": "0/0", "dynamo_config": "{\"recompile_limit\": 3}"}, "frame_id": 0})";
    SessionSummary summary = summaryOf(trace, 0);
    const FunctionRecompiles& function = summary.recompiledFunctions.at(0);
    ASSERT_TRUE(function.recompileLimit.has_value());
    EXPECT_EQ(function.recompileLimit->limitType, "recompile_limit");
    EXPECT_EQ(function.recompileLimit->limit, 3);
    EXPECT_TRUE(function.recompileLimit->reached);
}

TEST(SummaryTest, PhaseTimesAreSummedByName) {
    SessionSummary summary = summaryOf(makeReportTrace(), 0);
    ASSERT_EQ(summary.phaseTotals.size(), 2u);
    EXPECT_EQ(summary.phaseTotals[0].phase, "entire_frame_compile");
    EXPECT_DOUBLE_EQ(summary.phaseTotals[0].seconds, 2.25);
    EXPECT_EQ(summary.phaseTotals[1].phase, "backend_compile");
    EXPECT_DOUBLE_EQ(summary.phaseTotals[1].seconds, 1.0);
    ASSERT_EQ(summary.compilePhases.size(), 3u);
    EXPECT_EQ(summary.compilePhases[0].compile.display, "[0/0_1]");
    EXPECT_EQ(summary.compilePhases[2].compile.display, "[3/0]");
}

TEST(SummaryTest, OpsPreferGraphOpCountAndFallBackToCallNodes) {
    SessionSummary summary = summaryOf(makeReportTrace(), 0);
    // 2 + 1 + 1 + 1 from graph_op_count, plus [1/0]'s call_function, call_method and call_module nodes.
    EXPECT_EQ(summary.ops, 8);
    EXPECT_EQ(summary.opsGraphsFromMetrics, 4);
    EXPECT_EQ(summary.opsGraphsFromNodes, 1);
}

TEST(SummaryTest, RetriesInheritTheSiteOfTheirStartedAttempt) {
    TraceData trace = makeReportTrace();
    TraceIndex index(trace);
    const Compile* retry = index.compileById(102);
    ASSERT_NE(retry, nullptr);
    EXPECT_EQ(index.effectiveSite(*retry), RowId{1});
    EXPECT_EQ(index.occurrenceHead(*retry)->id, 101);
    EXPECT_EQ(index.attempts(*index.compileById(101)).size(), 2u);
}

TEST(SummaryTest, EmptyTraceSummarizesToNothing) {
    EXPECT_TRUE(summarizeTrace(TraceData{}).empty());
    TraceData trace;
    trace.sessions.push_back({});
    SessionSummary summary = summaryOf(trace, 0);
    EXPECT_EQ(summary.counts.compiles, 0);
    EXPECT_TRUE(summary.breakReasons.empty());
    EXPECT_TRUE(summary.recompiledFunctions.empty());
}

}  // namespace
}  // namespace traces

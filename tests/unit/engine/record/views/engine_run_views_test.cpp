// The workbench's view models (viz/core) on a recorded engine run: the compile-site tree, the recompile stepper,
// the graph-break groups and the metrics read it as they read an imported log.
#include <gtest/gtest.h>

#include <memory>

#include "../../../traces/test_support.h"
#include "../compile_event_scripts.h"
#include "core/trace_analysis.h"
#include "record/trace_recorder.h"
#include "store/trace_reader.h"

using namespace traces;
using namespace recordtest;

namespace {

/// Records `script` into a trace file, loads it and analyses it as the workbench does after opening a file.
template <typename Script>
std::unique_ptr<viz::TraceAnalysis> recordAndAnalyse(const testsupport::TempDir& dir, Script script) {
    std::string path = dir.file("run.db");
    {
        eng::record::TraceRecorder recorder(path, {"programs/demo.py", "cwb 0.1.0"});
        script(recorder);
        recorder.close();
    }
    return std::make_unique<viz::TraceAnalysis>(std::make_shared<const TraceData>(loadTrace(path)));
}

}  // namespace

TEST(EngineRunViews, RecompileStepperShowsGuardFailuresAndGuardDiff) {
    testsupport::TempDir dir;
    auto analysis = recordAndAnalyse(dir, [](auto& sink) { playRecompile(sink); });
    const viz::SessionAnalysis* session = analysis->session(1);
    ASSERT_NE(session, nullptr);

    ASSERT_EQ(session->sites.compiles().size(), 2u);
    EXPECT_EQ(session->sites.compiles()[0].state, viz::CompileState::Ok);
    EXPECT_EQ(session->sites.compiles()[1].state, viz::CompileState::Recompiled);
    const viz::SiteTrieNode& leaf = session->sites.nodes()[static_cast<size_t>(session->sites.compiles()[0].node)];
    EXPECT_EQ(leaf.frame.function, "f");
    EXPECT_EQ(leaf.frame.line, 3);

    ASSERT_EQ(session->functions.size(), 1u);
    const viz::FunctionHistory& f = session->functions[0];
    EXPECT_EQ(f.function, "f");
    ASSERT_EQ(f.steps.size(), 2u);
    EXPECT_EQ(f.steps[1].display, "[0/1]");
    ASSERT_EQ(f.steps[1].guardFailures.size(), 1u);
    EXPECT_EQ(f.steps[1].guardFailures[0].failedCompile, "0/0");
    EXPECT_NE(f.steps[1].reason.find("Recompiling function f in programs/demo.py:3"), std::string::npos);
    EXPECT_EQ(f.steps[1].guards.size(), 2u);
    EXPECT_EQ(f.steps[1].diffCounts.changed, 1);  // the size in TENSOR_MATCH went from 4 to 8
    EXPECT_TRUE(f.steps[1].dynamoGraphId.has_value());

    EXPECT_EQ(session->metrics.compiles.size(), 2u);
    EXPECT_DOUBLE_EQ(session->metrics.compiles[0].totalSeconds, 0.25);
    EXPECT_EQ(session->metrics.recompiledFunctions, 1);
}

TEST(EngineRunViews, BreakGroupsAndResumeFunctionSites) {
    testsupport::TempDir dir;
    auto analysis = recordAndAnalyse(dir, [](auto& sink) { playBreakWithResume(sink); });
    const viz::SessionAnalysis* session = analysis->session(1);
    ASSERT_NE(session, nullptr);
    ASSERT_EQ(session->breaks.size(), 1u);
    EXPECT_EQ(session->breaks[0].title, "Failed to trace builtin operator");
    EXPECT_EQ(session->breaks[0].location, "programs/demo.py:8");
    EXPECT_EQ(session->breaks[0].sourceLine, "print(\"between the two graphs\")");
    ASSERT_EQ(session->sites.compiles().size(), 2u);
    EXPECT_EQ(session->sites.compiles()[0].state, viz::CompileState::GraphBreak);
    EXPECT_EQ(session->sites.compiles()[1].function, "torch_dynamo_resume_in_g_at_8");
}

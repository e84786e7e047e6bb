// Phase bars and session counts for the metrics view, on the real recompiles log.
#include "core/compile_metrics.h"

#include <gtest/gtest.h>

#include "real_traces.h"

namespace viz {
namespace {

using testing::onlySession;
using testing::realTrace;

TEST(CompileMetrics, EveryCompileGetsNestedPhaseBarsWithoutCumulativeRepeats) {
    const SessionMetrics& metrics = onlySession(realTrace("recompiles_cpu")).metrics;
    ASSERT_EQ(metrics.compiles.size(), 17u);
    const CompileTiming& first = metrics.compiles[0];
    EXPECT_EQ(first.display, "[0/0]");
    EXPECT_EQ(first.state, CompileState::Ok);
    ASSERT_EQ(first.nested.size(), 4u);
    EXPECT_EQ(first.nested[0].phase, "entire_frame_compile");
    EXPECT_EQ(first.nested[3].phase, "code_gen");
    EXPECT_EQ(first.nested[3].depth, 3);
    EXPECT_NEAR(first.totalSeconds, 74.887, 0.001);
    EXPECT_DOUBLE_EQ(metrics.maxTotalSeconds, first.totalSeconds);
    for (const CompileTiming& timing : metrics.compiles)
        for (const traces::PhaseTime& phase : timing.details) EXPECT_FALSE(isCumulativePhase(phase.phase)) << phase.phase;
    // by_const runs on the eager backend: only Dynamo's own phases, nested as far as they go.
    const CompileTiming& eager = metrics.compiles[9];
    EXPECT_EQ(eager.display, "[4/1]");
    EXPECT_EQ(eager.state, CompileState::Recompiled);
    ASSERT_EQ(eager.nested.size(), 2u);
    EXPECT_EQ(eager.nested[1].phase, "backend_compile");
}

TEST(CompileMetrics, SessionCountsMatchTheSummary) {
    const SessionMetrics& metrics = onlySession(realTrace("recompiles_cpu")).metrics;
    EXPECT_EQ(metrics.counts.compiles, 16);
    EXPECT_EQ(metrics.counts.recompiles, 12);
    EXPECT_EQ(metrics.counts.failedCompiles, 1);
    EXPECT_EQ(metrics.functions, 5);
    EXPECT_EQ(metrics.recompiledFunctions, 5);
    EXPECT_EQ(metrics.kernels, 8);
    EXPECT_EQ(metrics.states.count(CompileState::Recompiled), 11);
    for (const traces::PhaseTime& total : metrics.phaseTotals) EXPECT_FALSE(isCumulativePhase(total.phase));
    EXPECT_EQ(metrics.phaseTotals.front().phase, "entire_frame_compile");
}

TEST(CompileMetrics, RanksAreSessionsOfTheirOwn) {
    const TraceAnalysis& analysis = realTrace("ranks_cpu");
    ASSERT_EQ(analysis.sessions().size(), 2u);
    EXPECT_EQ(analysis.sessions()[0]->label.rfind("rank 0 ", 0), 0u);
    EXPECT_EQ(analysis.sessions()[1]->label.rfind("rank 1 ", 0), 0u);
    // Rank 1 also ran a second shape: one recompile there only.
    EXPECT_EQ(analysis.sessions()[0]->metrics.counts.recompiles, 0);
    EXPECT_EQ(analysis.sessions()[1]->metrics.counts.recompiles, 1);
}

}  // namespace
}  // namespace viz

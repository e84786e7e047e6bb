// The recompile stepper on the real recompiles log: every function's compiles in order, each step's reason in
// Dynamo's wording, the guard diff that explains it, the recompile-limit step, and Prev/Next.
#include "core/recompile_stepper.h"

#include <gtest/gtest.h>

#include "real_traces.h"

namespace viz {
namespace {

using testing::onlySession;
using testing::realTrace;

const FunctionHistory& historyOf(const SessionAnalysis& session, const std::string& function) {
    for (const FunctionHistory& history : session.functions)
        if (history.function == function) return history;
    throw std::runtime_error("no history for " + function);
}

std::vector<std::string> displays(const FunctionHistory& history) {
    std::vector<std::string> ids;
    for (const RecompileStep& step : history.steps) ids.push_back(step.display);
    return ids;
}

const GuardChange* onlyChangeOfKind(const RecompileStep& step, GuardChangeKind kind) {
    const GuardChange* found = nullptr;
    for (const GuardChange& change : step.guardDiff) {
        if (change.kind != kind) continue;
        if (found) return nullptr;
        found = &change;
    }
    return found;
}

TEST(RecompileStepper, OneHistoryPerFunctionWithItsCompilesInOrder) {
    const SessionAnalysis& session = onlySession(realTrace("recompiles_cpu"));
    ASSERT_EQ(session.functions.size(), 5u);
    EXPECT_EQ(session.functions[0].function, "by_shape");
    EXPECT_EQ(displays(historyOf(session, "by_shape")), (std::vector<std::string>{"[0/0]", "[0/1]"}));
    const FunctionHistory& byConst = historyOf(session, "by_const");
    EXPECT_EQ(displays(byConst), (std::vector<std::string>{"[4/0]", "[4/1]", "[4/2]", "[4/3]", "[4/4]", "[4/5]", "[4/6]",
                                                           "[4/7]", "[4/8]"}));
    EXPECT_EQ(byConst.recompiles, 8);
    EXPECT_EQ(byConst.label(), "by_const  programs/recompiles_cpu.py:33");
}

TEST(RecompileStepper, EachStepSaysWhyInDynamosWords) {
    const SessionAnalysis& session = onlySession(realTrace("recompiles_cpu"));
    const FunctionHistory& byShape = historyOf(session, "by_shape");
    EXPECT_NE(byShape.steps[0].reason.find("First compile of by_shape"), std::string::npos);
    EXPECT_EQ(byShape.steps[1].reason,
              "Recompiling function by_shape in programs/recompiles_cpu.py:9\n"
              "    triggered by the following guard failure(s):\n"
              "    - 0/0: tensor 'x' size mismatch at index 1. expected 16, actual 32");
    const FunctionHistory& byConst = historyOf(session, "by_const");
    // Dynamo lists every cache entry that rejected the call, newest first.
    ASSERT_EQ(byConst.steps[3].guardFailures.size(), 3u);
    EXPECT_EQ(byConst.steps[3].guardFailures[0].failedCompile, "4/2");
    EXPECT_EQ(byConst.steps[3].guardFailures[2].failedCompile, "4/0");
}

TEST(RecompileStepper, GuardDiffShowsTheGuardThatChanged) {
    const SessionAnalysis& session = onlySession(realTrace("recompiles_cpu"));
    const RecompileStep& kStep = historyOf(session, "by_const").steps[1];
    EXPECT_EQ(kStep.diffCounts.changed, 1);
    EXPECT_EQ(kStep.diffCounts.added, 0);
    EXPECT_EQ(kStep.diffCounts.removed, 0);
    const GuardChange* change = onlyChangeOfKind(kStep, GuardChangeKind::Changed);
    ASSERT_NE(change, nullptr);
    EXPECT_EQ(change->before->text, "L['k'] == 2");
    EXPECT_EQ(change->after->text, "L['k'] == 3");

    // A dim change makes the size dynamic: the tensor guard changes and two shape guards appear.
    const RecompileStep& shapeStep = historyOf(session, "by_shape").steps[1];
    EXPECT_EQ(shapeStep.diffCounts.changed, 1);
    EXPECT_EQ(shapeStep.diffCounts.added, 2);
    const GuardChange* tensor = onlyChangeOfKind(shapeStep, GuardChangeKind::Changed);
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(tensor->after->kind, "TENSOR_MATCH");
    EXPECT_NE(tensor->after->text.find("size=[8, None]"), std::string::npos);

    const RecompileStep& dtypeStep = historyOf(session, "by_dtype").steps[1];
    const GuardChange* dtype = onlyChangeOfKind(dtypeStep, GuardChangeKind::Changed);
    ASSERT_NE(dtype, nullptr);
    EXPECT_NE(dtype->after->text.find("torch.float64"), std::string::npos);
    EXPECT_TRUE(historyOf(session, "by_shape").steps[0].guardDiff.empty());
}

TEST(RecompileStepper, TheRefusedCompileCarriesTheRecompileLimitWarning) {
    const SessionAnalysis& session = onlySession(realTrace("recompiles_cpu"));
    const FunctionHistory& byConst = historyOf(session, "by_const");
    const RecompileStep& refused = byConst.steps.back();
    EXPECT_EQ(refused.state, CompileState::Failed);
    EXPECT_NE(refused.limitWarning.find("torch._dynamo hit config.recompile_limit (8)"), std::string::npos);
    for (size_t i = 0; i + 1 < byConst.steps.size(); ++i) EXPECT_TRUE(byConst.steps[i].limitWarning.empty());
    EXPECT_TRUE(byConst.steps[1].dynamoGraphId.has_value());
}

TEST(RecompileStepper, PrevAndNextStayWithinTheFunction) {
    const TraceAnalysis& analysis = realTrace("recompiles_cpu");
    const SessionAnalysis& session = onlySession(analysis);
    RecompileStepper stepper(&session.functions);
    const traces::Compile* target = analysis.findCompile(*traces::parseCompileKey("4/3"));
    ASSERT_NE(target, nullptr);
    ASSERT_TRUE(stepper.selectCompile(target->id));
    EXPECT_EQ(stepper.function()->function, "by_const");
    EXPECT_EQ(stepper.step()->display, "[4/3]");
    EXPECT_TRUE(stepper.next());
    EXPECT_EQ(stepper.step()->display, "[4/4]");
    EXPECT_TRUE(stepper.previous());
    EXPECT_TRUE(stepper.previous());
    EXPECT_EQ(stepper.step()->display, "[4/2]");
    stepper.selectStep(8);
    EXPECT_FALSE(stepper.next());
    EXPECT_EQ(stepper.step()->display, "[4/8]");
    stepper.selectFunction(0);
    EXPECT_FALSE(stepper.previous());
    EXPECT_EQ(stepper.step()->display, "[0/0]");
    EXPECT_FALSE(stepper.selectCompile(-1));
}

TEST(RecompileStepper, ResetRestartsFrameIdsSoTheSameIdIsAnotherFunction) {
    const SessionAnalysis& session = onlySession(realTrace("failures_cpu"));
    // strict [0/0], uses_broken [1/0], fine [2/0], then torch._dynamo.reset() and fine [0/0] again.
    ASSERT_EQ(session.functions.size(), 4u);
    EXPECT_EQ(session.functions[0].function, "strict");
    EXPECT_EQ(session.functions[3].function, "fine");
    EXPECT_EQ(displays(session.functions[3]), std::vector<std::string>{"[0/0]"});
    EXPECT_EQ(session.functions[0].steps[0].state, CompileState::Failed);
}

}  // namespace
}  // namespace viz

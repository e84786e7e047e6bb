// Closures made inside compiled code (a nested def, a lambda, a comprehension over a local) are inlined with
// their maker's live values, as Dynamo inlines NestedUserFunctionVariable; one that escapes the frame breaks
// the graph at its definition instead and still sees the right values on every call.
#include <gtest/gtest.h>

#include "capture_support.h"

namespace {

using capturetest::graphBreaks;
using capturetest::runCaptured;
using capturetest::tensorValues;

const eng::vm::ValueList& itemsOf(const eng::vm::Value& v) { return v.as<eng::vm::ListObject>().items; }

TEST(CaptureClosures, LambdaOverALocalIsInlined) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    w = x.sum()
    g = lambda z: z * w
    return g(x) + 1

def main():
    a = f(torch.ones(2))
    b = f(torch.full((2,), 2.0))
    return [a, b]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    EXPECT_EQ(run.uniqueGraphs, 1);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{9.0, 9.0}));
}

TEST(CaptureClosures, NestedDefWithNonlocalSeesAndUpdatesTheMakersVariable) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    total = x
    def add(y, scale=2.0):
        nonlocal total
        total = total + y * scale
    add(x)
    add(x, scale=1.0)
    return total

def main():
    return f(torch.ones(2))
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    EXPECT_EQ(run.uniqueGraphs, 1);
    EXPECT_EQ(tensorValues(run.returned), (std::vector<double>{4.0, 4.0}));
}

TEST(CaptureClosures, ComprehensionOverALocalIsInlined) {
    const char* source = R"(import torch

@torch.compile
def f(xs, s):
    k = s * 2
    return [t * k for t in xs]

def main():
    out = f([torch.ones(2), torch.full((2,), 3.0)], 1.5)
    return out
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    const auto& items = itemsOf(run.returned);
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{9.0, 9.0}));
}

TEST(CaptureClosures, AReturnedClosureBreaksAtItsDefinitionAndBindsEachCallsValues) {
    const char* source = R"(import torch

@torch.compile
def make(x):
    k = x * 2
    return lambda y: y + k

def main():
    f1 = make(torch.ones(2))
    f2 = make(torch.full((2,), 3.0))
    return [f1(torch.zeros(2)), f2(torch.zeros(2))]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 1);
    EXPECT_EQ(capturetest::linesWith(run.logs, "Unsupported nested function").size(), 1u);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{6.0, 6.0}));
}

TEST(CaptureClosures, AClosureLiveAcrossAGraphBreakKeepsItsCells) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    s = x * 2
    g = lambda y: y + s
    print("break")
    return g(x)

def main():
    a = f(torch.ones(2))
    b = f(torch.full((2,), 2.0))
    return [a, b]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "break\nbreak\n");
    // g is live at the print's break: the trace breaks at its definition instead, and the resumed frames read s
    // from the frame's real cell.
    EXPECT_EQ(capturetest::linesWith(run.logs, "Unsupported nested function").size(), 1u);
    // The resumed frame pins g by its code, not its identity: the second call's new g hits the cache.
    EXPECT_TRUE(run.events.recompiles.empty());
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{6.0, 6.0}));
}

TEST(CaptureClosures, ACellAssignedBeforeABreakReachesTheResumedFrame) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    s = x + 1
    print("break")
    g = lambda y: y * s
    return g(x)

def main():
    a = f(torch.ones(2))
    b = f(torch.full((2,), 2.0))
    return [a, b]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 1);  // the second call hits the cached entries
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{6.0, 6.0}));
}

TEST(CaptureClosures, AClosurePassedToABuiltinSeesTheFramesValues) {
    const char* source = R"(import torch

@torch.compile
def f(x, k):
    k = k * 10
    order = sorted([3, 1, 2], key=lambda v: -v * k)
    return x * order[0]

def main():
    return [f(torch.ones(2), 1), f(torch.ones(2), -1)]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{1.0, 1.0}));
}

}  // namespace

// try/except/finally inside compiled code is traced through when nothing raises (the handlers are never
// reached), as Dynamo does; a break inside a try block resumes inside it with the handlers still active; `with`
// on a context manager other than no_grad/enable_grad breaks with Dynamo's "Unsupported context manager" (gb0142).
#include <gtest/gtest.h>

#include "capture_support.h"

namespace {

using capturetest::graphBreaks;
using capturetest::runCaptured;
using capturetest::tensorValues;

const eng::vm::ValueList& itemsOf(const eng::vm::Value& v) { return v.as<eng::vm::ListObject>().items; }

TEST(CaptureTryWith, TryExceptFinallyWithNothingRaisingIsOneGraph) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    try:
        y = x + 1
    except ValueError:
        y = x - 1
    finally:
        y = y * 2
    try:
        z = y * 3
    except Exception:
        z = y
    try:
        return z + y
    finally:
        z = z * 0

def main():
    a = f(torch.ones(2))
    b = f(torch.zeros(2))
    return [a, b]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    EXPECT_EQ(run.uniqueGraphs, 1);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{16.0, 16.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{8.0, 8.0}));
}

TEST(CaptureTryWith, ABreakInsideTryResumesWithItsHandlersActive) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    y = x + 1
    try:
        print("in try")
        y = y * 2
        d = {}
        v = d['missing']
        y = y + 100
    except KeyError:
        y = y - 1
    finally:
        y = y + 10
    return y

def main():
    a = f(torch.ones(2))
    b = f(torch.ones(2))
    return [a, b]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "in try\nin try\n");
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{13.0, 13.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{13.0, 13.0}));
}

TEST(CaptureTryWith, UnsupportedContextManagerBreaksWithDynamosMessage) {
    const char* source = R"(import torch

class Ctx:
    def __init__(self):
        self.entered = 0
        self.exited = 0
    def __enter__(self):
        self.entered += 1
        return self
    def __exit__(self, a, b, c):
        self.exited += 1
        return False

@torch.compile
def f(x, c):
    y = x + 1
    with c:
        y = y * 2
    return y

def main():
    c = Ctx()
    a = f(torch.ones(2), c)
    b = f(torch.ones(2), c)
    return [a, b, c.entered, c.exited]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{4.0, 4.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{4.0, 4.0}));
    EXPECT_EQ(items[2].asInt(), 2);
    EXPECT_EQ(items[3].asInt(), 2);
    ASSERT_EQ(run.counters["graph_break"].size(), 1u);
    const std::string& reason = run.counters["graph_break"].begin()->first;
    EXPECT_EQ(reason.substr(0, reason.find('\n')), "Unsupported context manager");
    EXPECT_NE(reason.find("Explanation: Dynamo does not know how to enter a `Ctx` context manager."), std::string::npos);
    EXPECT_NE(reason.find("Developer debug context: Attempted SETUP_WITH/BEFORE_WITH/LOAD_SPECIAL on "
                          "LazyVariableTracker(realized: UserDefinedObjectVariable(Ctx))"),
              std::string::npos);
    EXPECT_NE(reason.find("gb/gb0142.html"), std::string::npos);
}

TEST(CaptureTryWith, UnsupportedContextManagerUnderFullgraphRaises) {
    const char* source = R"(import torch

@torch.compile(fullgraph=True)
def f(x, obj):
    with obj:
        return x + 1

def main():
    try:
        f(torch.ones(2), 3)
    except Exception as e:
        return str(e).split("\n")[0]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.returned.str(), "Unsupported context manager");
}

}  // namespace

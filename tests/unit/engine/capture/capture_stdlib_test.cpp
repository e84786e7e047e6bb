// Compiled code over the standard library's data types (collections, typing, dataclasses): the same results as
// eager, with the trace never running code that changes the program's state at trace time.
#include <gtest/gtest.h>

#include "capture_support.h"

namespace {

using capturetest::runCaptured;
using capturetest::tensorValues;

const eng::vm::ValueList& itemsOf(const eng::vm::Value& v) { return v.as<eng::vm::ListObject>().items; }

TEST(CaptureStdlib, DefaultdictFactoryRunsOnEveryCallThatMissesAKey) {
    // The factory counts its calls: a trace that ran __missing__ itself would bake the first call's value in.
    const char* source = R"(import collections
import torch

made = []

def factory():
    made.append(1)
    return len(made)

dd = collections.defaultdict(factory)

@torch.compile(backend="eager")
def f(x):
    v = dd["k"]
    del dd["k"]
    return x + v

def main():
    return [f(torch.zeros(2)), f(torch.zeros(2)), f(torch.zeros(2)), len(made), len(dd)]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{1.0, 1.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(tensorValues(items[2]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(items[3].asInt(), 3);
    EXPECT_EQ(items[4].asInt(), 0);
}

TEST(CaptureStdlib, NamedTuplesKeepTheirClassInTheTrace) {
    const char* source = R"(import collections
import torch

P = collections.namedtuple("P", ["a", "b"])

@torch.compile(backend="eager")
def f(p):
    if type(p) is P and isinstance(p, P):
        return p.a + p.b
    return p.a - p.b

def main():
    out = f(P(torch.ones(2), torch.ones(2)))
    return [out, f((torch.ones(2), torch.ones(2)).__class__ is tuple and P(torch.ones(2), torch.ones(2) * 2))]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{3.0, 3.0}));
}

}  // namespace

namespace {

TEST(CaptureStdlib, BuiltinTypesSumMapAndUnpackingStayInOneGraph) {
    // Dynamo traces these without a break: list()/tuple()/dict() of traced values, sum and map over tensors,
    // float("-inf"), star-unpacking and ** merging into a call.
    const char* source = R"(import torch

def scale(t, factor=1.0, shift=0.0):
    return t * factor + shift

@torch.compile(backend="eager")
def f(x):
    parts = list((x, x + 1, x + 2))
    first, *rest = parts
    d = dict(a=first, b=rest[0])
    d2 = dict(d)
    options = {"factor": 2.0}
    total = sum(map(lambda t: t * 2, tuple(rest)), d2["b"])
    floor = float("-inf")
    return scale(total, **options, shift=1.0).clamp(min=floor) + len(d2)

def main():
    return [f(torch.zeros(2)), f(torch.ones(2))]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(capturetest::graphBreaks(run), 0);
    EXPECT_EQ(run.uniqueGraphs, 1);
    const auto& items = itemsOf(run.returned);
    // (x+1) + 2(x+1) + 2(x+2) = 5x + 7; * 2 + 1 + 2 = 10x + 17
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{17.0, 17.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{27.0, 27.0}));
}

TEST(CaptureStdlib, ASetTheTraceMadeIsANewObjectOnEveryCall) {
    const char* source = R"(import torch

@torch.compile(backend="eager")
def f(x):
    return x + 1, {1, 2}

def main():
    _, first = f(torch.zeros(2))
    first.add(3)
    _, second = f(torch.zeros(2))
    return [len(first), len(second), first is second]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(capturetest::graphBreaks(run), 0);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(items[0].asInt(), 3);
    EXPECT_EQ(items[1].asInt(), 2);
    EXPECT_FALSE(items[2].asBool());
}

}  // namespace

// Methods of dicts and lists the frame made are traced (they change only the trace's own containers).
TEST(CaptureStdlib, MethodsOfContainersMadeInTheFrameAreTraced) {
    const char* source = R"(import torch

@torch.compile(backend="eager")
def f(a, b):
    tmp = {"a": a + 1, "b": b + 2}
    v = tmp.pop("b") + tmp.get("a") + tmp.get("missing", 3) + tmp.pop("missing", 4)
    tmp.setdefault("c", v)
    consts = {"k": 1}
    consts.setdefault("k", 10)
    xs = [a, b]
    xs.clear()
    xs.append(v)
    if "c" in tmp and "missing" not in tmp and consts["k"] == 1:
        return tmp["c"] + len(tmp) + len(xs)
    return a

def main():
    return f(torch.ones(2), torch.ones(2))
)";
    capturetest::CapturedRun run = capturetest::runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    // v = 3 + 2 + 3 + 4 = 12; tmp holds a and c; xs holds v.
    EXPECT_DOUBLE_EQ(eng::tensor::elementAt(run.returned.tensor(), 0).toDouble(), 15.0);
    EXPECT_TRUE(run.events.breaks.empty());
    EXPECT_EQ(run.uniqueGraphs, 1);
}

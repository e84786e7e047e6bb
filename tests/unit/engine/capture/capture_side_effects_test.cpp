// Side effects of compiled code on values from outside the frame (Dynamo's SideEffects): stores to globals,
// attribute stores on outside objects and nn.Modules, item stores/update/del on outside dicts are captured
// without a graph break and replayed on the real objects after the graph, exactly once per call.
#include <gtest/gtest.h>

#include "capture_support.h"

namespace {

using capturetest::graphBreaks;
using capturetest::runCaptured;
using capturetest::tensorValues;

const eng::vm::ValueList& itemsOf(const eng::vm::Value& v) { return v.as<eng::vm::ListObject>().items; }

TEST(CaptureSideEffects, GlobalCounterIsIncrementedOncePerCall) {
    const char* source = R"(import torch

counter = 0

@torch.compile
def f(x):
    global counter
    counter += 1
    return x + counter

def main():
    a = f(torch.zeros(2))
    b = f(torch.zeros(2))
    c = f(torch.zeros(2))
    return [a, b, c, counter]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    // Dynamo specializes ints of globals: the read is guarded (G['counter'] == 0), so every new value recompiles.
    EXPECT_EQ(run.uniqueGraphs, 3);
    ASSERT_FALSE(run.events.recompiles.empty());
    EXPECT_NE(run.events.recompiles[0].second.at(0).reason.find("G['counter'] == 0"), std::string::npos);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{1.0, 1.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(tensorValues(items[2]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(items[3].asInt(), 3);
}

TEST(CaptureSideEffects, GlobalTensorStoreIsReplayedAndReadBackInTheTrace) {
    const char* source = R"(import torch

G = None

@torch.compile
def f(x):
    global G
    G = x * 2
    return G + 1

def main():
    a = f(torch.ones(2))
    first = G
    b = f(torch.full((2,), 3.0))
    return [a, first, b, G]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    // G is only written, never guarded: the second call takes the cached graph and replays the store.
    EXPECT_EQ(run.uniqueGraphs, 1);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(tensorValues(items[2]), (std::vector<double>{7.0, 7.0}));
    EXPECT_EQ(tensorValues(items[3]), (std::vector<double>{6.0, 6.0}));
}

TEST(CaptureSideEffects, AttributeStoresOnOutsideObjectsAreReplayed) {
    const char* source = R"(import torch

class State:
    def __init__(self):
        self.calls = 0
        self.cache = None

@torch.compile
def f(x, state):
    state.calls += 1
    state.cache = x * 2
    return state.cache + state.calls

def main():
    s = State()
    a = f(torch.ones(2), s)
    b = f(torch.ones(2), s)
    c = f(torch.ones(2), s)
    return [a, b, c, s.calls, s.cache]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    // An attribute of an object passed in follows automatic dynamic: calls changed once, so the second compile
    // takes it as a SymInt input and the third call replays the cached entry.
    EXPECT_EQ(run.uniqueGraphs, 2);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{4.0, 4.0}));
    EXPECT_EQ(tensorValues(items[2]), (std::vector<double>{5.0, 5.0}));
    EXPECT_EQ(items[3].asInt(), 3);
    EXPECT_EQ(tensorValues(items[4]), (std::vector<double>{2.0, 2.0}));
}

TEST(CaptureSideEffects, StoreOnlyAttributeTakesTheCachedPathAndReplaysEveryCall) {
    const char* source = R"(import torch

class Box:
    pass

@torch.compile
def f(x, box):
    box.value = x.sin() * 0.0 + x
    return x + 1

def main():
    box = Box()
    f(torch.ones(2), box)
    first = box.value
    f(torch.full((2,), 5.0), box)
    return [first, box.value]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    EXPECT_EQ(run.uniqueGraphs, 1);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{1.0, 1.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{5.0, 5.0}));
}

TEST(CaptureSideEffects, ModulePlainAttributesAreReplayed) {
    const char* source = R"(import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.calls = 0
        self.last = None

    def forward(self, x):
        self.calls += 1
        y = self.fc(x)
        self.last = y
        return y * 2

def main():
    torch.manual_seed(0)
    net = Net()
    model = torch.compile(net)
    x = torch.ones(1, 2)
    a = model(x)
    b = model(x)
    return [net.calls, torch.equal(net.last * 2, b), torch.equal(a, b)]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(items[0].asInt(), 2);
    EXPECT_TRUE(items[1].asBool());
    EXPECT_TRUE(items[2].asBool());
}

TEST(CaptureSideEffects, ValuesReadBeforeAStoreKeepTheirOldValue) {
    const char* source = R"(import torch

class Box:
    def __init__(self, v):
        self.v = v

@torch.compile
def swap(box, x):
    old = box.v
    box.v = x
    return old

def main():
    box = Box(torch.zeros(2))
    a = swap(box, torch.ones(2))
    b = swap(box, torch.full((2,), 2.0))
    return [a, b, box.v]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{0.0, 0.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{1.0, 1.0}));
    EXPECT_EQ(tensorValues(items[2]), (std::vector<double>{2.0, 2.0}));
}

TEST(CaptureSideEffects, OutsideDictStoresUpdatesAndDeletesAreReplayed) {
    const char* source = R"(import torch

@torch.compile
def f(x, d):
    d['k'] = x * 2
    d.update({'u': x + 1}, w=d['k'] + 1)
    del d['gone']
    return d['w'] + d['a']

def main():
    d = {'a': torch.ones(2), 'gone': 1, 'k': None, 'u': None, 'w': None}
    r1 = f(torch.ones(2), d)
    d['gone'] = 2
    r2 = f(torch.full((2,), 2.0), d)
    return [r1, r2, d['k'], d['u'], d['w'], 'gone' in d, len(d)]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    // The dict has the same length on both calls: the second call replays the cached entry's stores.
    EXPECT_EQ(run.uniqueGraphs, 1);
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{4.0, 4.0}));
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{6.0, 6.0}));
    EXPECT_EQ(tensorValues(items[2]), (std::vector<double>{4.0, 4.0}));
    EXPECT_EQ(tensorValues(items[3]), (std::vector<double>{3.0, 3.0}));
    EXPECT_EQ(tensorValues(items[4]), (std::vector<double>{5.0, 5.0}));
    EXPECT_FALSE(items[5].asBool());
    EXPECT_EQ(items[6].asInt(), 4);
}

TEST(CaptureSideEffects, EffectsBeforeAGraphBreakHappenOnceAndAreVisibleToTheBreak) {
    const char* source = R"(import torch

class State:
    def __init__(self):
        self.before = 0
        self.after = 0

@torch.compile
def f(x, s):
    s.before += 1
    print("before is", s.before)
    s.after += 1
    return x * s.before

def main():
    s = State()
    f(torch.ones(2), s)
    r = f(torch.ones(2), s)
    return [r, s.before, s.after]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "before is 1\nbefore is 2\n");
    const auto& items = itemsOf(run.returned);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(items[1].asInt(), 2);
    EXPECT_EQ(items[2].asInt(), 2);
}

TEST(CaptureSideEffects, SetattrHooksStillBreakTheGraph) {
    const char* source = R"(import torch

class Logged:
    def __setattr__(self, name, value):
        print("set", name)

@torch.compile
def f(x, o):
    o.y = 1
    return x + 1

def main():
    f(torch.ones(2), Logged())
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "set y\n");
    // The store breaks; __setattr__, called by the breaking instruction, is a frame of its own whose print breaks.
    EXPECT_EQ(graphBreaks(run), 2);
    EXPECT_EQ(capturetest::linesWith(run.logs, "Unsupported attribute assignment").size(), 1u);
}

TEST(CaptureSideEffects, ItemStoresOnAnOutsideListAreReplayed) {
    const char* source = R"(import torch

@torch.compile
def f(x, xs):
    xs[0] = xs[0] + x
    del xs[1]
    return x * 2

def main():
    xs = [torch.zeros(2), 7, torch.ones(2)]
    f(torch.ones(2), xs)
    xs.append(8)
    f(torch.ones(2), xs)
    return xs
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    const auto& items = itemsOf(run.returned);
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(tensorValues(items[0]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(items[1].asInt(), 8);
}

TEST(CaptureSideEffects, ContainersMadeInTheFrameMutateWithoutBreaking) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    out = []
    out.append(x + 1)
    out.extend([x])
    d = {}
    d.update(a=x)
    d['b'] = x * 3
    del d['a']
    return out[0] + out[1] + d['b']

def main():
    return f(torch.ones(2))
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(graphBreaks(run), 0);
    EXPECT_EQ(tensorValues(run.returned), (std::vector<double>{6.0, 6.0}));
}

TEST(CaptureSideEffects, AListHeldTwiceAcrossABreakStaysOneList) {
    const char* source = R"(import torch

@torch.compile
def f(x):
    out = []
    out.append(x)
    alias = out
    print("break")
    alias.append(x + 1)
    return out

def main():
    return f(torch.ones(2))
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = itemsOf(run.returned);
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(tensorValues(items[1]), (std::vector<double>{2.0, 2.0}));
}

}  // namespace

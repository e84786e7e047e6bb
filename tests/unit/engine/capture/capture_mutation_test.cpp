// Mutations of a compiled frame's inputs, as PyTorch captures them: in-place tensor ops go into the graph and
// change the real input exactly once per call (the trace computes on copies of the inputs); appends to a list
// passed in are replayed on the real list after the graph, guarded by the list's length.
#include <gtest/gtest.h>

#include "capture_support.h"
#include "tensor/conversion.h"

namespace {

using capturetest::runCaptured;

std::vector<double> valuesOf(const eng::vm::Value& v) {
    const eng::tensor::Tensor& t = v.tensor();
    std::vector<double> out;
    for (int64_t i = 0; i < t.numel(); ++i) out.push_back(eng::tensor::elementAt(t, i).toDouble());
    return out;
}

TEST(CaptureMutation, InPlaceOpsOnInputsGoIntoTheGraphAndRunOnce) {
    const char* source = R"(import torch

@torch.compile
def step(p, g):
    p.add_(g, alpha=-0.5)
    p *= 2.0
    p -= g
    return p.sum()

def main():
    p = torch.ones(3)
    g = torch.tensor([1.0, 2.0, 4.0])
    s1 = step(p, g)
    s2 = step(p, g)
    return [p, s1, s2]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.uniqueGraphs, 1);
    EXPECT_TRUE(run.counters["graph_break"].empty());
    // Eagerly, one call maps p to (p - g/2) * 2 - g = 2p - 2g: 1 -> 2 - 2g, then 2(2 - 2g) - 2g = 4 - 6g.
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_EQ(valuesOf(items[0]), (std::vector<double>{-2.0, -8.0, -20.0}));
    EXPECT_EQ(valuesOf(items[1]), (std::vector<double>{2.0 * 3 - 2.0 * 7}));
    EXPECT_EQ(valuesOf(items[2]), (std::vector<double>{-30.0}));
}

TEST(CaptureMutation, InPlaceOnAViewOfAnInputChangesTheInputOnce) {
    const char* source = R"(import torch

@torch.compile
def bump_first_row(x):
    x[0] += 1.0
    return x * 1.0

def main():
    x = torch.zeros(2, 2)
    y = bump_first_row(x)
    return [x, y]
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    EXPECT_EQ(valuesOf(items[0]), (std::vector<double>{1.0, 1.0, 0.0, 0.0}));
    EXPECT_EQ(valuesOf(items[1]), (std::vector<double>{1.0, 1.0, 0.0, 0.0}));
}

TEST(CaptureMutation, AppendsToAnOutsideListAreReplayedAfterTheGraph) {
    const char* source = R"(import torch

@torch.compile
def collect(x, out):
    out.append(x * 2)
    out.extend([x + 1])
    return x + 1

def main():
    acc = []
    collect(torch.ones(2), acc)
    collect(torch.full((2,), 3.0), acc)
    return acc
)";
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_TRUE(run.counters["graph_break"].empty());
    // The second call sees a list of length 2, not 0: the length guard fails and it recompiles.
    EXPECT_EQ(run.uniqueGraphs, 2);
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    ASSERT_EQ(items.size(), 4u);
    EXPECT_EQ(valuesOf(items[0]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(valuesOf(items[1]), (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(valuesOf(items[2]), (std::vector<double>{6.0, 6.0}));
    EXPECT_EQ(valuesOf(items[3]), (std::vector<double>{4.0, 4.0}));
}

}  // namespace

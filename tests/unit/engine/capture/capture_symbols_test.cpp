// Symbolic sizes in printed graphs: the symbol travels on the dimension that became dynamic, so a static
// dimension whose size equals the symbol's hint still prints as a number.
#include <gtest/gtest.h>

#include <cmath>

#include "capture_support.h"

TEST(CaptureSymbols, StaticDimensionEqualToTheSymbolsHintStaysStatic) {
    const char* source = R"(import torch

@torch.compile
def f(x, b):
    return x * 2.0 + b

def main():
    b = torch.ones(4)
    f(torch.ones(3, 4), b)
    return f(torch.ones(4, 4), b)
)";
    capturetest::CapturedRun run = capturetest::runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_EQ(run.events.graphs.size(), 2u);
    const std::string& text = run.events.graphs[1].second.text;
    // The recompile made dim 0 of x dynamic (s0, hint 4); dim 1 and b's only dim are static 4s.
    EXPECT_NE(text.find("L_x_: \"f32[s0, 4][4, 1]cpu\""), std::string::npos) << text;
    EXPECT_NE(text.find("L_b_: \"f32[4][1]cpu\""), std::string::npos) << text;
    EXPECT_NE(text.find("mul: \"f32[s0, 4][4, 1]cpu\""), std::string::npos) << text;
    EXPECT_NE(text.find("add: \"f32[s0, 4][4, 1]cpu\""), std::string::npos) << text;
    EXPECT_EQ(text.find("s0, s0"), std::string::npos) << text;
}

// Sizes the code reads from computed tensors after the automatic-dynamic recompile: exact where the op passes a
// dimension through (a branch on it is a guard, a static one folds), read in the graph where it does not.
TEST(CaptureSymbols, SizesOfComputedTensorsAreThisCallsSizes) {
    const char* source = R"(import math
import torch

@torch.compile(backend="eager")
def f(x, w):
    k = (x @ w).relu()
    scale = 1.0 / math.sqrt(k.size(-1))
    tail = k[1:]
    if k.shape[0] > 5:
        k = k * 2.0
    return k * scale + tail.shape[0] + len(tail)

def main():
    w = torch.ones(4, 3)
    return [f(torch.ones(n, 4), w) for n in [4, 5, 7, 3]]
)";
    capturetest::CapturedRun run = capturetest::runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& items = run.returned.as<eng::vm::ListObject>().items;
    ASSERT_EQ(items.size(), 4u);
    const double scale = 4.0 / std::sqrt(3.0);
    const int sizes[] = {4, 5, 7, 3};
    for (size_t i = 0; i < 4; ++i) {
        const int n = sizes[i];
        const eng::tensor::Tensor& t = items[i].tensor();
        ASSERT_EQ(t.size(0), n);
        double expected = (n > 5 ? 2.0 : 1.0) * scale + 2.0 * (n - 1);
        EXPECT_NEAR(eng::tensor::elementAt(t, 0).toDouble(), expected, 1e-4) << "n=" << n;
    }
    // k.size(-1) folds, k.shape[0] is the symbol s0 (guarded, no break); the slice's size is read in the graph.
    EXPECT_TRUE(run.events.breaks.empty());
    const std::string& text = run.events.graphs.at(1).second.text;
    EXPECT_NE(text.find(".size(0)"), std::string::npos) << text;
}

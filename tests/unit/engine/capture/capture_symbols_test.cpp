// Symbolic sizes in printed graphs: the symbol travels on the dimension that became dynamic, so a static
// dimension whose size equals the symbol's hint still prints as a number.
#include <gtest/gtest.h>

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

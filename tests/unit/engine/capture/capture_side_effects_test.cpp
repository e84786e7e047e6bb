// Side effects of compiled code that Dynamo does not replay: a store through a user __setattr__ breaks the graph
// (the replayed stores are programs in tests/scripts/capture/side_effects/).
#include <gtest/gtest.h>

#include "capture_support.h"

namespace {

using capturetest::graphBreaks;
using capturetest::runCaptured;

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

}  // namespace

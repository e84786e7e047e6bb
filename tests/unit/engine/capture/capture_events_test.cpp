// The compile events a capture hands its sink (the contract of compile_events.h): keys, counts, phases, the
// user's stack, the printed graph and the guards (programs checked by what they print, log and compile are in
// tests/scripts/capture/); the program is tests/data/engine/programs/capture/allowed_function_and_sin.py.
#include <gtest/gtest.h>

#include "../test_programs.h"
#include "capture_support.h"

using capturetest::runCaptured;

TEST(CaptureEvents, CarryKeysCountsPhasesStacksAndGuards) {
    const std::string source = enginetest::testProgram("capture/allowed_function_and_sin.py");
    capturetest::CapturedRun run = runCaptured(source, "t.py", "main");
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_EQ(run.events.started.size(), 1u);
    ASSERT_EQ(run.events.finished.size(), 1u);
    const traces::Compile& c = run.events.finished[0];
    EXPECT_EQ(c.key.str(), "0/0");
    EXPECT_EQ(c.function, "f");
    EXPECT_EQ(c.file, "t.py");
    EXPECT_EQ(c.firstLine, 10);  // the decorator's line, as co_firstlineno
    EXPECT_EQ(c.status, traces::CompileStatus::Ok);
    EXPECT_EQ(c.opCount, 3);     // scale (allowed in graph), sin, add
    EXPECT_EQ(c.inputCount, 2);
    EXPECT_EQ(c.nodeCount, 6);   // 2 placeholders, 3 calls, output
    EXPECT_EQ(c.cacheSize, 0);
    ASSERT_TRUE(c.guardCount.has_value());
    EXPECT_GE(*c.guardCount, 2);
    // The user's stack at the call: main's line, then the compiled frame.
    ASSERT_EQ(run.events.startStacks.at(0).size(), 2u);
    EXPECT_EQ(run.events.startStacks[0][0].function, "main");
    EXPECT_EQ(run.events.startStacks[0][0].line, 15);
    EXPECT_EQ(run.events.startStacks[0][0].source, "return f(torch.ones(2), torch.zeros(2))");
    EXPECT_EQ(run.events.startStacks[0][1].function, "f");
    ASSERT_EQ(c.phases.size(), 2u);
    EXPECT_EQ(c.phases[0].phase, "entire_frame_compile");
    EXPECT_EQ(c.phases[1].phase, "backend_compile");
    ASSERT_EQ(run.events.graphs.size(), 1u);
    EXPECT_NE(run.events.graphs[0].second.text.find("scale: \"f32[2][1]cpu\" = __main__.scale(l_x_)"), std::string::npos)
        << run.events.graphs[0].second.text;
    ASSERT_EQ(run.events.guards.size(), 1u);
    bool tensorGuard = false;
    for (const auto& g : run.events.guards[0].second)
        tensorGuard = tensorGuard || (g.kind == "TENSOR_MATCH" && g.source == "L['x']" &&
                                      g.text.find("check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, "
                                                  "AutogradCPU), torch.float32, device=None, requires_grad=False, size=[2], stride=[1])") !=
                                          std::string::npos);
    EXPECT_TRUE(tensorGuard);
}

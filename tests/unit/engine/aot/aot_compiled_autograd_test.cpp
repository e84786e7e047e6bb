// Compiled autograd (torch._dynamo.config.compiled_autograd = True): the backward pass inside a compiled training
// step is captured and compiled as its own graph (compile id `!0/N/0`), cached across steps, equal to eager;
// passes it cannot capture run on the eager engine with the reason logged; freed graphs raise as in eager.
#include <gtest/gtest.h>

#include "aot_test_support.h"

namespace {

using capturetest::CapturedRun;

std::string trainScript(const std::string& backend, bool compiledAutograd, const std::string& loss = "((out - y) ** 2).mean()",
                        const std::string& backwardCall = "loss.backward()") {
    return std::string(R"(
import torch
import torch.nn as nn
)") + aottest::kSmallMlp + R"(
def step(model, x, y):
    out = model(x)
    loss = )" + loss + R"(
    )" + backwardCall + R"(
    return loss, out

def train(compiled, x, y):
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    fn = torch.compile(step, backend=")" + backend + R"(") if compiled else step
    values = []
    for i in range(3):
        opt.zero_grad()
        loss, out = fn(model, x, y)
        values.append(loss.detach())
        values.append(out.detach())
        for p in model.parameters():
            values.append(p.grad.clone())
        opt.step()
    for p in model.parameters():
        values.append(p.detach().clone())
    return values

def main():
    torch._dynamo.config.compiled_autograd = )" + (compiledAutograd ? "True" : "False") + R"(
    torch.manual_seed(1)
    x = torch.randn(8, 16)
    y = torch.randn(8, 8)
    return [train(False, x, y), train(True, x, y)]
)";
}

std::vector<std::pair<traces::CompileKey, traces::Graph>> graphsOfKind(const CapturedRun& run, traces::GraphKind kind) {
    std::vector<std::pair<traces::CompileKey, traces::Graph>> out;
    for (const auto& [key, graph] : run.events.graphs)
        if (graph.kind == kind) out.emplace_back(key, graph);
    return out;
}

int64_t counter(const CapturedRun& run, const std::string& group, const std::string& name) {
    auto g = run.counters.find(group);
    if (g == run.counters.end()) return 0;
    auto c = g->second.find(name);
    return c == g->second.end() ? 0 : c->second;
}

TEST(AotCompiledAutograd, BackwardInsideCompiledStepIsItsOwnGraph) {
    CapturedRun run = aottest::runWithAot(trainScript("inductor", true));
    aottest::expectSameAsEager(run);
    // One capture for three steps: the later passes have the same structure and run the cached code.
    EXPECT_EQ(counter(run, "compiled_autograd", "captures"), 1) << run.logs;
    EXPECT_EQ(counter(run, "compiled_autograd", "compiles"), 1);
    const auto captured = graphsOfKind(run, traces::GraphKind::CompiledAutograd);
    ASSERT_EQ(captured.size(), 1u);
    EXPECT_EQ(captured[0].first.autogradId, 0);
    EXPECT_FALSE(captured[0].first.frameId.has_value());  // `!0`: the capture, before Dynamo compiles it
    const std::string& text = captured[0].second.text;
    // The compiled region's backward is inlined (its saved values are inputs), the root gradient is an input.
    EXPECT_NE(text.find("grad_root"), std::string::npos) << text;
    EXPECT_NE(text.find("aot0_"), std::string::npos) << text;
    // Dynamo's compile of the captured graph has a compile id of its own, `!0/<frame>/0`, with generated code.
    const traces::Compile* compile = nullptr;
    for (const traces::Compile& c : run.events.finished)
        if (c.key.autogradId) compile = &c;
    ASSERT_NE(compile, nullptr);
    EXPECT_EQ(compile->key.autogradId, 0);
    ASSERT_TRUE(compile->key.frameId.has_value());
    EXPECT_EQ(compile->key.frameCompileId, 0);
    EXPECT_EQ(compile->status, traces::CompileStatus::Ok);
    EXPECT_EQ(compile->function, "forward");
    bool dynamoGraph = false;
    for (const auto& [key, graph] : run.events.graphs) dynamoGraph = dynamoGraph || (key == compile->key && graph.kind == traces::GraphKind::Dynamo);
    EXPECT_TRUE(dynamoGraph);
    bool inferenceCode = false;
    for (const traces::OutputCode& code : run.events.code) inferenceCode = inferenceCode || code.source.find("_inference']") != std::string::npos;
    EXPECT_TRUE(inferenceCode);
}

TEST(AotCompiledAutograd, DynamoResetForgetsCapturedPasses) {
    std::string script = trainScript("inductor", true);
    script.replace(script.find("    for p in model.parameters():\n        values.append(p.detach().clone())"), 0,
                   "    torch._dynamo.reset()\n    loss, out = fn(model, x, y)\n");
    CapturedRun run = aottest::runWithAot(script);
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(counter(run, "compiled_autograd", "captures"), 2) << run.logs;
    // The next capture after the reset starts the compiled autograd ids again.
    int firstIds = 0;
    for (const auto& [key, graph] : graphsOfKind(run, traces::GraphKind::CompiledAutograd)) firstIds += key.autogradId == 0 ? 1 : 0;
    EXPECT_EQ(firstIds, 2);
}

TEST(AotCompiledAutograd, OffByDefault) {
    CapturedRun run = aottest::runWithAot(trainScript("inductor", false));
    aottest::expectSameAsEager(run);
    EXPECT_TRUE(graphsOfKind(run, traces::GraphKind::CompiledAutograd).empty());
    EXPECT_EQ(counter(run, "compiled_autograd", "captures"), 0);
}

TEST(AotCompiledAutograd, AotEagerMatchesEager) {
    CapturedRun run = aottest::runWithAot(trainScript("aot_eager", true));
    aottest::expectSameAsEager(run);
    EXPECT_EQ(counter(run, "compiled_autograd", "captures"), 1);
}

TEST(AotCompiledAutograd, RetainGraphTwiceAddsBothPasses) {
    CapturedRun run = aottest::runWithAot(trainScript("inductor", true, "((out - y) ** 2).mean()",
                                                      "loss.backward(retain_graph=True)\n    loss.backward()"));
    aottest::expectSameAsEager(run);
    EXPECT_EQ(counter(run, "compiled_autograd", "captures"), 1);
}

TEST(AotCompiledAutograd, SecondPassThroughFreedGraphRaisesAsEager) {
    CapturedRun run = aottest::runWithAot(trainScript("inductor", true, "((out - y) ** 2).mean()", "loss.backward()\n    loss.backward()"));
    ASSERT_FALSE(run.ok);
    EXPECT_NE(run.error.find("Trying to backward through the graph a second time"), std::string::npos) << run.error;
}

TEST(AotCompiledAutograd, EagerNodesRunOnTheEagerEngineWithTheReason) {
    // cumsum has no derivative AOT Autograd can trace: the region keeps eager autograd, whose nodes no key can see.
    CapturedRun run = aottest::runWithAot(trainScript("inductor", true, "torch.cumsum(out - y, dim=1).pow(2).mean()"));
    aottest::expectSameAsEager(run);
    EXPECT_EQ(counter(run, "compiled_autograd", "captures"), 0);
    EXPECT_NE(run.logs.find("compiled autograd: this backward runs on the eager autograd engine: "), std::string::npos) << run.logs;
}

TEST(AotCompiledAutograd, DynamicShapeRegionsRunTheirBackwardEagerly) {
    // The second batch size recompiles the step with a dynamic batch: its backward graph has symbolic sizes.
    CapturedRun run = aottest::runWithAot(std::string(R"(
import torch
import torch.nn as nn
)") + aottest::kSmallMlp + R"(
def step(model, x):
    loss = model(x).pow(2).mean()
    loss.backward()
    return loss

def train(compiled):
    torch.manual_seed(0)
    model = MLP()
    fn = torch.compile(step) if compiled else step
    values = []
    for n in [4, 6, 8]:
        model.zero_grad()
        torch.manual_seed(n)
        values.append(fn(model, torch.randn(n, 16)).detach())
        values.append(model.fc1.weight.grad.clone())
    return values

def main():
    torch._dynamo.config.compiled_autograd = True
    return [train(False), train(True)]
)");
    aottest::expectSameAsEager(run);
    EXPECT_EQ(counter(run, "compiled_autograd", "captures"), 1);
    EXPECT_NE(run.logs.find("the backward of a compiled region with dynamic shapes"), std::string::npos) << run.logs;
}

}  // namespace

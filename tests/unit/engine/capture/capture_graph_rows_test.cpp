// The node rows an engine trace stores for each captured graph come from the graph's nodes, not from its printed
// text; they say what that text says (as the TORCH_TRACE importer reads it), so an engine run's graph view and an
// imported log's show the same rows.
#include <gtest/gtest.h>

#include "../test_programs.h"
#include "capture_support.h"
#include "parse/fx_graph_text.h"

namespace {

void expectSameRow(const traces::GraphNode& structured, const traces::GraphNode& parsed) {
    SCOPED_TRACE(structured.name);
    EXPECT_EQ(structured.index, parsed.index);
    EXPECT_EQ(structured.name, parsed.name);
    EXPECT_EQ(structured.op, parsed.op);
    EXPECT_EQ(structured.inputs, parsed.inputs);
    EXPECT_EQ(structured.dtype, parsed.dtype);
    EXPECT_EQ(structured.shape, parsed.shape);
    EXPECT_EQ(structured.stride, parsed.stride);
    EXPECT_EQ(structured.device, parsed.device);
    EXPECT_EQ(structured.sourceFile, parsed.sourceFile);
    EXPECT_EQ(structured.sourceLine, parsed.sourceLine);
    EXPECT_EQ(structured.sourceCode, parsed.sourceCode);
}

TEST(CaptureGraphRows, RowsSayWhatThePrintedGraphSays) {
    const std::string source = enginetest::testProgram("capture/cat_sum_and_transpose.py");
    const capturetest::CapturedRun run = capturetest::runCaptured(source, "rows.py");
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_FALSE(run.events.graphs.empty());
    const traces::Graph& graph = run.events.graphs.front().second;
    const std::vector<traces::GraphNode> parsed = traces::parseFxGraphText(graph.text);
    ASSERT_EQ(graph.nodes.size(), parsed.size()) << graph.text;
    for (size_t i = 0; i < parsed.size(); ++i) expectSameRow(graph.nodes[i], parsed[i]);
    // torch.cat (node `a`) reads both operands through its list, the output node both results.
    const auto named = [&](const std::string& name) {
        for (const traces::GraphNode& node : graph.nodes)
            if (node.name == name) return node;
        ADD_FAILURE() << "no node " << name << " in\n" << graph.text;
        return traces::GraphNode{};
    };
    EXPECT_EQ(named("a").inputs, (std::vector<std::string>{"l_x_", "mul"}));
    EXPECT_EQ(named("a").args, "[l_x_, mul], dim = 0");
    EXPECT_EQ(named("output").inputs.size(), 2u);
}

}  // namespace

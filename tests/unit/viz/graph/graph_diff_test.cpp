// Tests for the graph diff between recompiles: what a user stepping from [0/0] to [0/1] is told changed.
#include "graph/graph_diff.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph_fixtures.h"

namespace viz {
namespace {

using testing::node;

/// x -> mul -> add -> output, with x of `shape`.
traces::Graph chain(const std::string& shape) {
    return testing::graphOf(traces::GraphKind::Dynamo,
                            {node("l_x_", "placeholder", "L_x_", {}, shape),
                             node("mul", "call_function", "operator.mul", {"l_x_"}, shape),
                             node("add", "call_function", "operator.add", {"mul", "l_x_"}, shape),
                             node("output", "output", "output", {"add"}, "")});
}

TEST(GraphDiff, SameGraphHasNoChange) {
    GraphModel a = buildGraphModel(chain("[8, 16]"));
    GraphDiff diff = diffGraphModels(a, a);
    EXPECT_TRUE(diff.empty());
    EXPECT_EQ(diff.summary(), "no change");
    EXPECT_THAT(diff.beforeOfAfter, ::testing::ElementsAre(0, 1, 2, 3));
}

TEST(GraphDiff, StaticToSymbolicShapesAreChangesCalledOut) {
    GraphModel before = buildGraphModel(chain("[8, 16]"));
    traces::Graph dynamic = chain("[s0, 16]");
    // Dynamo passes the new size as an input of its own.
    dynamic.nodes.insert(dynamic.nodes.begin(), node("s0", "placeholder", "s0", {}, ""));
    dynamic.nodes[0].dtype = "Sym";
    for (size_t i = 0; i < dynamic.nodes.size(); ++i) dynamic.nodes[i].index = static_cast<int>(i);
    GraphModel after = buildGraphModel(dynamic);
    GraphDiff diff = diffGraphModels(before, after);
    EXPECT_EQ(diff.added, 1);
    EXPECT_EQ(diff.removed, 0);
    EXPECT_EQ(diff.changed, 3);
    EXPECT_EQ(diff.becameSymbolic, 3);
    EXPECT_EQ(diff.summary(), "1 added, 0 removed, 3 changed (3 became symbolic)");
    ASSERT_EQ(diff.changes.size(), 4u);
    EXPECT_EQ(diff.changes[0].kind, GraphChangeKind::Added);
    EXPECT_EQ(after.nodes[static_cast<size_t>(diff.changes[0].after)].name, "s0");
    EXPECT_EQ(diff.changes[1].what, "f32[8, 16] -> f32[s0, 16]");
    EXPECT_TRUE(diff.changes[1].becameSymbolic);
    EXPECT_EQ(diff.changeOfAfter[0], 0);
    EXPECT_EQ(diff.changeOfAfter[4], -1);  // the output's type is unknown both times: unchanged
}

TEST(GraphDiff, RenumberedNodesMatchAndInsertedOpsShowAsAddedWithTheirUsersInputsChanged) {
    GraphModel before = buildGraphModel(testing::graphOf(
        traces::GraphKind::Dynamo, {node("l_x_", "placeholder", "L_x_"), node("mul", "call_function", "operator.mul", {"l_x_"}),
                                    node("mul_1", "call_function", "operator.mul", {"mul"}),
                                    node("output", "output", "output", {"mul_1"}, "")}));
    // A relu inserted after the first mul: FX renumbers nothing here, but a second mul now comes first.
    GraphModel after = buildGraphModel(testing::graphOf(
        traces::GraphKind::Dynamo,
        {node("l_x_", "placeholder", "L_x_"), node("mul", "call_function", "operator.mul", {"l_x_"}),
         node("relu", "call_function", "torch.relu", {"mul"}), node("mul_1", "call_function", "operator.mul", {"relu"}),
         node("output", "output", "output", {"mul_1"}, "")}));
    GraphDiff diff = diffGraphModels(before, after);
    EXPECT_EQ(diff.summary(), "1 added, 0 removed, 1 changed");
    ASSERT_EQ(diff.changes.size(), 2u);
    EXPECT_EQ(after.nodes[static_cast<size_t>(diff.changes[0].after)].name, "relu");
    EXPECT_EQ(diff.changes[1].what, "inputs: mul -> relu");
    EXPECT_FALSE(diff.changes[1].becameSymbolic);
}

TEST(GraphDiff, RemovedNodesAreListedWhereTheyWere) {
    GraphModel before = buildGraphModel(testing::graphOf(
        traces::GraphKind::Dynamo, {node("l_x_", "placeholder", "L_x_"), node("sin", "call_function", "torch.sin", {"l_x_"}),
                                    node("cos", "call_function", "torch.cos", {"sin"}),
                                    node("output", "output", "output", {"cos"}, "")}));
    GraphModel after = buildGraphModel(testing::graphOf(
        traces::GraphKind::Dynamo, {node("l_x_", "placeholder", "L_x_"), node("cos", "call_function", "torch.cos", {"l_x_"}),
                                    node("output", "output", "output", {"cos"}, "")}));
    GraphDiff diff = diffGraphModels(before, after);
    ASSERT_EQ(diff.changes.size(), 2u);
    EXPECT_EQ(diff.changes[0].kind, GraphChangeKind::Removed);
    EXPECT_EQ(before.nodes[static_cast<size_t>(diff.changes[0].before)].name, "sin");
    EXPECT_EQ(diff.changes[1].kind, GraphChangeKind::Changed);
    EXPECT_EQ(diff.changes[1].what, "inputs: sin -> l_x_");
}

TEST(GraphDiff, AnotherConstantIsAChangeARenamedInputIsNot) {
    auto graph = [](const std::string& constant, const std::string& first) {
        std::vector<traces::GraphNode> nodes = {node("l_x_", "placeholder", "L_x_"),
                                                node(first, "call_function", "torch.sin", {"l_x_"}),
                                                node("mul", "call_function", "operator.mul", {first}),
                                                node("output", "output", "output", {"mul"}, "")};
        nodes[1].args = "(l_x_,)";
        nodes[2].args = "(" + first + ", " + constant + ")";
        return buildGraphModel(testing::graphOf(traces::GraphKind::Dynamo, std::move(nodes)));
    };
    EXPECT_TRUE(diffGraphModels(graph("4", "sin"), graph("4", "sin_1")).empty());
    GraphDiff diff = diffGraphModels(graph("4", "sin"), graph("5", "sin"));
    ASSERT_EQ(diff.changes.size(), 1u);
    EXPECT_EQ(diff.changes[0].what, "args: (sin, 4) -> (sin, 5)");
}

TEST(GraphDiff, SymbolicDimensions) {
    EXPECT_TRUE(hasSymbolicDimension("f32[s0, 16]"));
    EXPECT_TRUE(hasSymbolicDimension("bf16[2, u3]"));
    EXPECT_FALSE(hasSymbolicDimension("f32[8, 16]"));
    EXPECT_FALSE(hasSymbolicDimension(""));
    EXPECT_TRUE(hasSymbolicDimension("Sym"));
}

}  // namespace
}  // namespace viz

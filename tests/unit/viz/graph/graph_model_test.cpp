// Tests for the drawable graph model: edges, display text, fold paths, search.
#include "graph/graph_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph/fusion_map.h"
#include "graph/graph_search.h"
#include "graph_fixtures.h"

namespace viz {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(GraphModel, NodesAndEdgesFromInputs) {
    GraphModel model = buildGraphModel(testing::dynamoMlp());
    ASSERT_EQ(model.nodes.size(), 6u);
    EXPECT_EQ(model.title, "Dynamo");
    EXPECT_EQ(model.findNode("linear"), 3);
    EXPECT_EQ(model.findNode("nothing"), -1);
    std::vector<std::pair<int, int>> edges;
    for (const GraphModelEdge& edge : model.edges) edges.emplace_back(edge.from, edge.to);
    EXPECT_THAT(edges, ElementsAre(std::pair(2, 3), std::pair(0, 3), std::pair(1, 3), std::pair(3, 4), std::pair(4, 5)));

    const GraphModelNode& h = model.nodes[4];
    EXPECT_EQ(h.kind, NodeKind::Function);
    EXPECT_EQ(h.shortTarget, "gelu");
    EXPECT_EQ(h.opName, "gelu");
    EXPECT_EQ(h.tensorText, "f32[16, 64]");
    EXPECT_EQ(model.nodes[0].kind, NodeKind::Input);
    EXPECT_EQ(model.nodes[5].kind, NodeKind::Output);
}

TEST(GraphModel, RepeatedInputsGiveOneEdge) {
    traces::Graph graph = testing::graphOf(traces::GraphKind::PostGrad,
                                           {testing::node("a", "placeholder", "a"),
                                            testing::node("sq", "call_function", "torch.ops.aten.mul.Tensor", {"a", "a"}),
                                            testing::node("self_loop", "call_function", "f", {"self_loop", "missing"})});
    GraphModel model = buildGraphModel(graph);
    ASSERT_EQ(model.edges.size(), 1u);
    EXPECT_EQ(model.edges[0].from, 0);
    EXPECT_EQ(model.edges[0].to, 1);
}

// The engine records each torch.cond branch as a graph of no stage: its tab says which branch, not "other".
TEST(GraphModel, CondBranchGraphsAreTitledByTheirName) {
    traces::Graph branch = testing::graphOf(traces::GraphKind::Other, {testing::node("l_x_", "placeholder", "l_x_")});
    branch.name = "cond_true_0";
    EXPECT_EQ(buildGraphModel(branch).title, "cond_true_0");
    EXPECT_EQ(graphTitle(branch, FusionMap{}), "cond_true_0");
    branch.name.clear();
    EXPECT_EQ(buildGraphModel(branch).title, graphKindTitle(traces::GraphKind::Other));
}

TEST(GraphModel, ShortTargetsAndOpNames) {
    EXPECT_EQ(shortTargetOf("torch.ops.aten.mul.Tensor"), "aten.mul.Tensor");
    EXPECT_EQ(shortTargetOf("torch._C._nn.linear"), "linear");
    EXPECT_EQ(shortTargetOf("torch.nn.functional.layer_norm"), "layer_norm");
    EXPECT_EQ(shortTargetOf("<built-in function mul>"), "mul");
    EXPECT_EQ(shortTargetOf("<method 'sum' of 'torch._C.TensorBase' objects>"), "sum");
    EXPECT_EQ(shortTargetOf("operator.getitem"), "operator.getitem");

    EXPECT_EQ(opNameOf("call_function", "torch.ops.aten.native_layer_norm.default"), "native_layer_norm");
    EXPECT_EQ(opNameOf("call_function", "torch.ops.prims.convert_element_type.default"), "convert_element_type");
    EXPECT_EQ(opNameOf("call_function", "torch.sin"), "sin");
    EXPECT_EQ(opNameOf("call_function", "operator.mul"), "mul");
    EXPECT_EQ(opNameOf("call_method", "sum"), "sum");
    EXPECT_EQ(opNameOf("placeholder", "x"), "");
}

TEST(GraphModel, ModulePathsFromLiftedParametersAndModuleCalls) {
    EXPECT_THAT(modulePathOf("l_self_modules_fc1_parameters_weight_", "placeholder", ""), ElementsAre("fc1"));
    EXPECT_THAT(modulePathOf("l_self_modules_layers_modules_0_modules_attn_out_buffers_mask_", "placeholder", ""),
                ElementsAre("layers", "0", "attn_out"));
    EXPECT_THAT(modulePathOf("l_fn_self_modules_norm_parameters_bias_", "placeholder", ""), ElementsAre("norm"));
    EXPECT_THAT(modulePathOf("fc1", "call_module", "self.encoder.fc1"), ElementsAre("encoder", "fc1"));
    EXPECT_THAT(modulePathOf("w", "get_attr", "self.encoder.fc1.weight"), ElementsAre("encoder", "fc1"));
    EXPECT_THAT(modulePathOf("l_x_", "placeholder", "L_x_"), IsEmpty());
}

TEST(GraphModel, FoldPathsPreferModulesThenSourceLinesThenNames) {
    traces::Graph graph = testing::dynamoMlp();
    graph.nodes[3].sourceFile = "/home/me/programs/training_cuda.py";
    graph.nodes[3].sourceLine = 17;
    graph.nodes[3].sourceFunction = "forward";
    graph.nodes[3].inputs = {"l_x_"};  // a linear that reads no parameter
    GraphModel model = buildGraphModel(graph);
    EXPECT_THAT(model.nodes[0].foldPath, ElementsAre("fc1"));
    EXPECT_EQ(model.nodes[0].foldSource, FoldSource::Module);
    EXPECT_THAT(model.nodes[3].foldPath, ElementsAre("forward", "line 17"));
    EXPECT_EQ(model.nodes[3].foldSource, FoldSource::SourceLine);
    EXPECT_EQ(model.nodes[3].sourceText, "training_cuda.py:17");
    EXPECT_THAT(model.nodes[2].foldPath, ElementsAre("l_x_"));
    EXPECT_EQ(model.nodes[2].foldSource, FoldSource::Name);
}

TEST(GraphModel, CallsInheritTheModuleOfTheParametersTheyRead) {
    GraphModel model = buildGraphModel(testing::dynamoMlp());
    EXPECT_THAT(model.nodes[3].foldPath, ElementsAre("fc1"));  // linear reads fc1's weight and bias
    EXPECT_EQ(model.nodes[3].foldSource, FoldSource::Module);
    EXPECT_THAT(model.nodes[4].foldPath, ElementsAre("fc1"));  // gelu, after it
    EXPECT_THAT(model.nodes[5].foldPath, ElementsAre("output"));  // the output is nobody's

    traces::Graph numbered = testing::graphOf(traces::GraphKind::PostGrad,
                                              {testing::node("mul_12", "call_function", "torch.ops.aten.mul.Tensor")});
    EXPECT_THAT(buildGraphModel(numbered).nodes[0].foldPath, ElementsAre("mul"));
}

TEST(GraphSearch, MatchesNameTargetAndTypeWithExactNamesFirst) {
    GraphModel model = buildGraphModel(testing::postGradForward());
    EXPECT_THAT(searchNodes(model, "MUL"), ElementsAre(5, 6, 9));
    EXPECT_THAT(searchNodes(model, "mul_1"), ElementsAre(6));
    EXPECT_THAT(searchNodes(model, "aten.erf"), ElementsAre(7));
    // "add" is a node's exact name and part of "addmm": the exact one comes first.
    EXPECT_THAT(searchNodes(model, "add"), ElementsAre(8, 4));
    EXPECT_THAT(searchNodes(model, ""), IsEmpty());
    EXPECT_THAT(searchNodes(model, "conv"), IsEmpty());
    EXPECT_TRUE(containsNoCase("Hello", "ELL"));
    EXPECT_FALSE(containsNoCase("He", "Hello"));
}

}  // namespace
}  // namespace viz

// Tests for folding big graphs and for the displayed graph built from model, folding and fusion map.
#include "graph/graph_fold.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/display_graph.h"
#include "graph/graph_palette.h"
#include "graph_fixtures.h"

namespace viz {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

/// A stack of `layers` blocks, each a module with two parameters and a few ops on source lines 10..12.
traces::Graph stackedLayers(int layers) {
    std::vector<traces::GraphNode> nodes{testing::node("l_x_", "placeholder", "L_x_")};
    for (int layer = 0; layer < layers; ++layer) {
        std::string prefix = "l_self_modules_layers_modules_" + std::to_string(layer) + "_modules_fc_parameters_";
        nodes.push_back(testing::node(prefix + "weight_", "placeholder", ""));
        nodes.push_back(testing::node(prefix + "bias_", "placeholder", ""));
    }
    std::string previous = "l_x_";
    for (int layer = 0; layer < layers; ++layer) {
        std::string prefix = "l_self_modules_layers_modules_" + std::to_string(layer) + "_modules_fc_parameters_";
        std::string suffix = layer ? "_" + std::to_string(layer) : "";
        std::vector<std::pair<std::string, int>> ops{{"linear" + suffix, 10}, {"relu" + suffix, 11}, {"mul" + suffix, 12}};
        for (auto& [name, line] : ops) {
            std::vector<std::string> inputs{previous};
            if (name.starts_with("linear")) inputs = {previous, prefix + "weight_", prefix + "bias_"};
            traces::GraphNode n = testing::node(name, "call_function", "torch." + name.substr(0, name.find('_')), inputs);
            n.sourceFile = "model.py";
            n.sourceLine = line;
            n.sourceFunction = "forward";
            nodes.push_back(n);
            previous = name;
        }
    }
    nodes.push_back(testing::node("output", "output", "output", {previous}, ""));
    return testing::graphOf(traces::GraphKind::Dynamo, std::move(nodes));
}

int groupNamed(const Folding& folding, const std::string& key) {
    for (size_t g = 0; g < folding.groups.size(); ++g)
        if (folding.groups[g].key == key) return static_cast<int>(g);
    return -1;
}

TEST(GraphFold, ParametersFoldWithTheLayerThatReadsThem) {
    // 0 l_x_, 1-4 the parameters of layers 0 and 1, 5-7 layer 0's ops, 8-10 layer 1's ops, 11 output.
    GraphModel model = buildGraphModel(stackedLayers(2));
    Folding folding = foldGraph(model, 100);
    // "layers" holds both layers; each layer is named by the whole path its nodes share.
    ASSERT_EQ(folding.groups.size(), 3u);
    EXPECT_EQ(folding.groups[0].key, "layers");
    EXPECT_EQ(folding.groups[0].parent, -1);
    EXPECT_THAT(folding.groups[0].children, ElementsAre(1, 2));
    EXPECT_EQ(folding.groups[1].key, "layers.0.fc");
    EXPECT_EQ(folding.groups[1].label, "layers.0.fc  (5 nodes)");
    EXPECT_EQ(folding.groups[1].parent, 0);
    EXPECT_THAT(folding.groups[1].nodes, ElementsAre(1, 2, 5, 6, 7));
    EXPECT_THAT(folding.groups[2].nodes, ElementsAre(3, 4, 8, 9, 10));
    EXPECT_EQ(folding.groupOfNode[0], -1);  // l_x_ and output belong to no module
    EXPECT_EQ(folding.groupOfNode[9], 2);
    EXPECT_EQ(folding.groupOfNode[11], -1);
}

TEST(GraphFold, OverviewOpensLevelsWhileTheyFitAndRepeatedBlocksTogether) {
    GraphModel model = buildGraphModel(stackedLayers(30));  // 152 nodes: l_x_, layers (30 x 5), output
    Folding folding = foldGraph(model);
    // Opening "layers" shows 30 folded layers (32 units); opening those too would show 152.
    std::vector<bool> expanded = overviewExpansion(folding, model.nodes.size(), 40);
    int layers = groupNamed(folding, "layers");
    ASSERT_GE(layers, 0);
    EXPECT_TRUE(expanded[static_cast<size_t>(layers)]);
    for (size_t g = 0; g < folding.groups.size(); ++g) {
        EXPECT_EQ(expanded[g], static_cast<int>(g) == layers) << folding.groups[g].key;
    }
    // With room for fewer, the layers stay folded in one group: never some layers open and others not.
    expanded = overviewExpansion(folding, model.nodes.size(), 20);
    EXPECT_THAT(std::count(expanded.begin(), expanded.end(), true), 0);
    GraphModel small = buildGraphModel(stackedLayers(2));
    Folding smallFolding = foldGraph(small);
    expanded = overviewExpansion(smallFolding, small.nodes.size(), 40);
    EXPECT_THAT(expanded, ElementsAre(true, true, true));  // 12 nodes fit: everything opens
}

TEST(GraphFold, EveryLevelStaysWithinTheTarget) {
    GraphModel model = buildGraphModel(stackedLayers(30));  // 1 + 60 + 90 + 1 = 152 nodes
    for (int target : {3, 8, 50, 400}) {
        SCOPED_TRACE(target);
        Folding folding = foldGraph(model, target);
        // Units shown when a group is expanded: its child groups plus its nodes in no child.
        auto unitsInside = [&](int parent) {
            std::vector<bool> covered(model.nodes.size(), false);
            int units = 0;
            for (size_t g = 0; g < folding.groups.size(); ++g) {
                if (folding.groups[g].parent != parent) continue;
                ++units;
                for (int node : folding.groups[g].nodes) covered[static_cast<size_t>(node)] = true;
            }
            std::vector<int> members;
            if (parent < 0) for (const GraphModelNode& node : model.nodes) members.push_back(node.index);
            else members = folding.groups[static_cast<size_t>(parent)].nodes;
            for (int node : members) units += covered[static_cast<size_t>(node)] ? 0 : 1;
            return units;
        };
        EXPECT_LE(unitsInside(-1), target);
        for (size_t g = 0; g < folding.groups.size(); ++g) {
            const FoldGroup& group = folding.groups[g];
            EXPECT_LE(unitsInside(static_cast<int>(g)), target) << group.key;
            EXPECT_GE(group.nodes.size(), 2u);
            for (int child : group.children) {
                const FoldGroup& inner = folding.groups[static_cast<size_t>(child)];
                EXPECT_EQ(inner.parent, static_cast<int>(g));
                for (int node : inner.nodes)
                    EXPECT_NE(std::find(group.nodes.begin(), group.nodes.end(), node), group.nodes.end());
            }
        }
        for (const GraphModelNode& node : model.nodes) {
            int group = folding.groupOfNode[static_cast<size_t>(node.index)];
            if (group < 0) continue;
            const FoldGroup& innermost = folding.groups[static_cast<size_t>(group)];
            EXPECT_NE(std::find(innermost.nodes.begin(), innermost.nodes.end(), node.index), innermost.nodes.end());
            for (int child : innermost.children) {
                const std::vector<int>& inner = folding.groups[static_cast<size_t>(child)].nodes;
                EXPECT_EQ(std::find(inner.begin(), inner.end(), node.index), inner.end());
            }
        }
    }
    // With room for 8 units, the 30 layers inside "layers" come in bundles of four.
    Folding bundled = foldGraph(model, 8);
    int layers = groupNamed(bundled, "layers");
    int first = groupNamed(bundled, "layers.0 .. layers.3");
    ASSERT_GE(first, 0);
    EXPECT_EQ(bundled.groups[static_cast<size_t>(first)].nodes.size(), 20u);
    EXPECT_EQ(bundled.groups[static_cast<size_t>(first)].parent, layers);
    int layer1 = groupNamed(bundled, "layers.1.fc");
    ASSERT_GE(layer1, 0);
    EXPECT_EQ(bundled.groups[static_cast<size_t>(layer1)].parent, first);

    std::vector<bool> expanded(bundled.groups.size(), false);
    int weight = model.findNode("l_self_modules_layers_modules_1_modules_fc_parameters_weight_");
    EXPECT_EQ(shownGroupOf(bundled, expanded, weight), layers);
    expanded[static_cast<size_t>(layers)] = true;
    EXPECT_EQ(shownGroupOf(bundled, expanded, weight), first);
    expanded[static_cast<size_t>(first)] = true;
    EXPECT_EQ(shownGroupOf(bundled, expanded, weight), layer1);
    for (int g = bundled.groupOfNode[static_cast<size_t>(weight)]; g >= 0; g = bundled.groups[static_cast<size_t>(g)].parent)
        expanded[static_cast<size_t>(g)] = true;
    EXPECT_EQ(shownGroupOf(bundled, expanded, weight), -1);
    EXPECT_EQ(shownGroupOf(bundled, expanded, 0), -1);  // l_x_ is in no module: always itself
}

TEST(GraphFold, LongRunsOfOneKeyAreCutIntoChunks) {
    std::vector<traces::GraphNode> nodes;
    for (int i = 0; i < 30; ++i) {
        traces::GraphNode n = testing::node("op" + std::to_string(i) + "x", "call_function", "f");
        n.sourceFile = "model.py";
        n.sourceLine = 7;
        n.sourceFunction = "forward";
        nodes.push_back(n);
    }
    GraphModel model = buildGraphModel(testing::graphOf(traces::GraphKind::PostGrad, std::move(nodes)));
    Folding folding = foldGraph(model, 4);
    ASSERT_FALSE(folding.groups.empty());
    EXPECT_EQ(folding.groups[0].key, "forward / line 7");
    EXPECT_EQ(folding.groups[0].nodes.size(), 30u);
    // Inside, every node has the same key however deep: the run is cut into chunks of 30/4 rounded up (8), and
    // those again, so that no level shows more than 4 units.
    ASSERT_EQ(folding.groups[0].children.size(), 4u);
    const FoldGroup& chunk = folding.groups[static_cast<size_t>(folding.groups[0].children[0])];
    EXPECT_EQ(chunk.key, "op0x .. op7x");
    EXPECT_EQ(chunk.nodes.size(), 8u);
    EXPECT_EQ(chunk.children.size(), 4u);
    for (size_t g = 0; g < folding.groups.size(); ++g) EXPECT_LE(folding.groups[g].children.size(), 4u);
}

TEST(GraphFold, BundlesRunsWhenEvenTheCoarsestKeysAreTooMany) {
    std::vector<traces::GraphNode> nodes;
    for (int i = 0; i < 100; ++i) nodes.push_back(testing::node("n" + std::to_string(i) + "x", "call_function", "f"));
    GraphModel model = buildGraphModel(testing::graphOf(traces::GraphKind::PostGrad, std::move(nodes)));
    Folding folding = foldGraph(model, 10);
    EXPECT_EQ(folding.groups.size(), 10u);
    EXPECT_EQ(folding.groups[0].nodes.size(), 10u);
    EXPECT_EQ(folding.groups[0].key, "n0x .. n9x");
}

TEST(DisplayGraph, CollapsedGroupsMergeEdgesAndExpandedOnesBecomeClusters) {
    GraphModel model = buildGraphModel(stackedLayers(2));
    Folding folding = foldGraph(model, 100);  // layers > layers.0.fc, layers.1.fc
    DisplayOptions options;
    options.folding = &folding;
    DisplayGraph collapsed = buildDisplayGraph(model, options);
    // l_x_, [layers], output
    ASSERT_EQ(collapsed.layout.nodes.size(), 3u);
    EXPECT_TRUE(collapsed.layout.nodes[1].folded);
    EXPECT_EQ(collapsed.nodes[1].group, 0);
    EXPECT_THAT(collapsed.layout.nodes[1].lines, ElementsAre("layers", "10 nodes", "linear mul relu"));
    EXPECT_THAT(collapsed.layout.clusters, IsEmpty());

    std::vector<bool> expanded{true, false, false};
    DisplayGraph unset = buildDisplayGraph(model, options);
    EXPECT_EQ(unset.layout.nodes.size(), 3u);  // options.expanded is still unset
    options.expanded = &expanded;
    DisplayGraph layers = buildDisplayGraph(model, options);
    // l_x_, [layers.0.fc], [layers.1.fc], output; the two layers inside the cluster of "layers"
    ASSERT_EQ(layers.layout.nodes.size(), 4u);
    EXPECT_EQ(layers.nodes[1].group, 1);
    EXPECT_THAT(layers.layout.nodes[1].lines, ElementsAre("layers.0.fc", "5 nodes", "linear mul relu"));
    EXPECT_EQ(layers.displayNodeOf(model.findNode("relu_1")), 2);
    std::vector<std::tuple<int, int, int>> edges;
    for (const LayoutEdge& e : layers.layout.edges) edges.emplace_back(e.from, e.to, e.weight);
    EXPECT_THAT(edges, ElementsAre(std::tuple(0, 1, 1), std::tuple(1, 2, 1), std::tuple(2, 3, 1)));
    ASSERT_EQ(layers.layout.clusters.size(), 1u);
    EXPECT_EQ(layers.clusters[0].group, 0);
    EXPECT_EQ(layers.layout.nodes[1].cluster, 0);
    EXPECT_EQ(layers.layout.nodes[0].cluster, -1);

    expanded[2] = true;
    DisplayGraph open = buildDisplayGraph(model, options);
    EXPECT_EQ(open.layout.nodes.size(), 3u + 5u);
    ASSERT_EQ(open.layout.clusters.size(), 2u);
    EXPECT_EQ(open.clusters[1].group, 2);
    EXPECT_EQ(open.layout.clusters[1].parent, 0);
    int relu = open.displayNodeOf(model.findNode("relu_1"));
    EXPECT_EQ(open.nodes[static_cast<size_t>(relu)].modelNode, model.findNode("relu_1"));
    EXPECT_EQ(open.layout.nodes[static_cast<size_t>(relu)].cluster, 1);
    EXPECT_NE(layoutHash(open.layout), layoutHash(layers.layout));
}

TEST(DisplayGraph, ExpandedGroupsNestTheirClusters) {
    GraphModel model = buildGraphModel(stackedLayers(30));
    Folding folding = foldGraph(model, 8);
    int layers = groupNamed(folding, "layers");
    int bundle = groupNamed(folding, "layers.0 .. layers.3");
    int layer1 = groupNamed(folding, "layers.1.fc");
    ASSERT_GE(bundle, 0);
    ASSERT_GE(layer1, 0);
    std::vector<bool> expanded(folding.groups.size(), false);
    expanded[static_cast<size_t>(layers)] = true;
    expanded[static_cast<size_t>(bundle)] = true;
    DisplayOptions options;
    options.folding = &folding;
    options.expanded = &expanded;
    DisplayGraph display = buildDisplayGraph(model, options);
    // Inside the open bundle: four folded layers, in the bundle's cluster inside the cluster of "layers".
    ASSERT_EQ(display.layout.clusters.size(), 2u);
    EXPECT_EQ(display.clusters[0].group, layers);
    EXPECT_EQ(display.clusters[1].group, bundle);
    EXPECT_EQ(display.layout.clusters[1].parent, 0);
    int shownLayer1 = display.displayNodeOf(model.findNode("relu_1"));
    EXPECT_EQ(display.nodes[static_cast<size_t>(shownLayer1)].group, layer1);
    EXPECT_TRUE(display.layout.nodes[static_cast<size_t>(shownLayer1)].folded);
    EXPECT_EQ(display.layout.nodes[static_cast<size_t>(shownLayer1)].cluster, 1);
    EXPECT_EQ(display.layout.nodes[0].cluster, -1);  // l_x_

    expanded[static_cast<size_t>(layer1)] = true;
    display = buildDisplayGraph(model, options);
    ASSERT_EQ(display.layout.clusters.size(), 3u);
    EXPECT_EQ(display.clusters[2].group, layer1);
    EXPECT_EQ(display.layout.clusters[2].parent, 1);
    int relu = display.displayNodeOf(model.findNode("relu_1"));
    EXPECT_EQ(display.layout.nodes[static_cast<size_t>(relu)].cluster, 2);
    EXPECT_FALSE(display.layout.nodes[static_cast<size_t>(relu)].folded);
}

TEST(DisplayGraph, KernelClustersAndFusionColours) {
    GraphModel model = buildGraphModel(testing::postGradForward());
    std::vector<traces::OutputCode> codes = testing::mlpModules();
    FusionMap fusion = mapNodesToKernels(model, testing::pointers(codes));
    DisplayOptions options;
    options.fusion = &fusion;
    options.clusters = ClusterMode::Kernels;
    DisplayGraph display = buildDisplayGraph(model, options);
    ASSERT_EQ(display.layout.nodes.size(), model.nodes.size());
    ASSERT_EQ(display.layout.clusters.size(), 1u);
    EXPECT_EQ(display.layout.clusters[0].label, "triton_poi_fused_gelu_0");
    EXPECT_EQ(display.clusters[0].kernel, 0);
    EXPECT_EQ(display.layout.nodes[5].cluster, 0);  // mul
    EXPECT_EQ(display.layout.nodes[5].fill, kernelFill(0));
    EXPECT_EQ(display.layout.nodes[4].cluster, -1);  // addmm: extern, unfused
    EXPECT_EQ(display.layout.nodes[4].fill, kUnfusedFill);
    EXPECT_EQ(display.layout.nodes[0].fill, nodeKindFill(NodeKind::Input));
    EXPECT_THAT(display.layout.nodes[5].lines, ElementsAre("mul", "aten.mul.Tensor", "f32[16, 64]"));
    EXPECT_THAT(display.layout.nodes[0].lines, ElementsAre("primals_1", "f32[16, 64]"));
}

TEST(DisplayGraph, FusionDiagramFoldsEachKernelIntoOneBoxInItsColour) {
    GraphModel model = buildGraphModel(testing::postGradForward());
    for (GraphModelNode& node : model.nodes) {  // as if every call ran in module "fc"
        if (node.kind != NodeKind::Function) continue;
        node.foldPath = {"fc"};
        node.foldSource = FoldSource::Module;
    }
    std::vector<traces::OutputCode> codes = testing::mlpModules();
    FusionMap fusion = mapNodesToKernels(model, testing::pointers(codes));
    Folding folding = foldGraph(model, kFoldTargetUnits, &fusion);
    int fc = groupNamed(folding, "fc");
    int gelu = groupNamed(folding, "fc.triton_poi_fused_gelu_0");
    ASSERT_GE(fc, 0);
    ASSERT_GE(gelu, 0);
    EXPECT_EQ(folding.groups[static_cast<size_t>(gelu)].parent, fc);
    EXPECT_EQ(folding.groups[static_cast<size_t>(gelu)].kernel, 0);
    EXPECT_EQ(folding.groups[static_cast<size_t>(fc)].kernel, -1);  // addmm is an extern call, in no kernel
    EXPECT_EQ(folding.groups[static_cast<size_t>(gelu)].nodes.size(), 5u);

    // The overview opens the module but leaves the kernel one box, in the kernel's colour.
    std::vector<bool> expanded = overviewExpansion(folding, model.nodes.size());
    EXPECT_TRUE(expanded[static_cast<size_t>(fc)]);
    EXPECT_FALSE(expanded[static_cast<size_t>(gelu)]);
    DisplayOptions options;
    options.clusters = ClusterMode::Kernels;
    options.fusion = &fusion;
    options.folding = &folding;
    options.expanded = &expanded;
    DisplayGraph display = buildDisplayGraph(model, options);
    int box = display.displayNodeOf(model.findNode("erf"));
    EXPECT_EQ(display.nodes[static_cast<size_t>(box)].group, gelu);
    EXPECT_EQ(display.layout.nodes[static_cast<size_t>(box)].fill, kernelFill(0));
    EXPECT_THAT(display.layout.nodes[static_cast<size_t>(box)].lines, ElementsAre("triton_poi_fused_gelu_0", "fc", "5 nodes"));

    // Expanded, the kernel is a cluster of its nodes inside the module's cluster, and says which kernel it is.
    expanded[static_cast<size_t>(gelu)] = true;
    display = buildDisplayGraph(model, options);
    int erf = display.displayNodeOf(model.findNode("erf"));
    EXPECT_EQ(display.nodes[static_cast<size_t>(erf)].modelNode, model.findNode("erf"));
    int cluster = display.layout.nodes[static_cast<size_t>(erf)].cluster;
    ASSERT_GE(cluster, 0);
    EXPECT_EQ(display.clusters[static_cast<size_t>(cluster)].kernel, 0);
    EXPECT_EQ(display.layout.clusters[static_cast<size_t>(cluster)].fill, kernelClusterFill(0));
    int parent = display.layout.clusters[static_cast<size_t>(cluster)].parent;
    ASSERT_GE(parent, 0);
    EXPECT_EQ(display.clusters[static_cast<size_t>(parent)].group, fc);
}

/// stackedLayers as a training forward: a mask made in layer 0 that every layer reads, and what the backward
/// needs computed after the last layer (each layer's transposed weight), every layer's output saved.
traces::Graph trainingForward(int layers) {
    traces::Graph graph = stackedLayers(layers);
    std::vector<traces::GraphNode> nodes(graph.nodes.begin(), graph.nodes.end() - 1);
    traces::GraphNode output = graph.nodes.back();
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].name == "linear") {
            nodes.insert(nodes.begin() + static_cast<long>(i) + 1, testing::node("mask", "call_function", "torch.ones_like", {"linear"}));
            break;
        }
    }
    for (traces::GraphNode& node : nodes)
        if (node.name.starts_with("mul")) node.inputs.push_back("mask");
    for (int layer = 0; layer < layers; ++layer) {
        std::string weight = "l_self_modules_layers_modules_" + std::to_string(layer) + "_modules_fc_parameters_weight_";
        nodes.push_back(testing::node("t_" + std::to_string(layer), "call_function", "torch.t", {weight}));
        output.inputs.push_back("t_" + std::to_string(layer));
        output.inputs.push_back(layer ? "mul_" + std::to_string(layer) : "mul");
    }
    nodes.push_back(output);
    return testing::graphOf(traces::GraphKind::AotForward, std::move(nodes));
}

TEST(DisplayGraph, ATrainingForwardReadsAsAColumnOfLayersWithoutSideRoutes) {
    constexpr int kLayers = 12;
    GraphModel model = buildGraphModel(trainingForward(kLayers));
    Folding folding = foldGraph(model);
    // What the backward needs folds with the layer it belongs to, not in a second copy of every layer.
    for (int layer = 0; layer < kLayers; ++layer) {
        int group = folding.groupOfNode[static_cast<size_t>(model.findNode("t_" + std::to_string(layer)))];
        ASSERT_GE(group, 0);
        EXPECT_EQ(folding.groups[static_cast<size_t>(group)].key, "layers." + std::to_string(layer) + ".fc");
    }
    std::vector<bool> expanded(folding.groups.size(), false);
    expanded[static_cast<size_t>(groupNamed(folding, "layers"))] = true;
    DisplayOptions options;
    options.folding = &folding;
    options.expanded = &expanded;
    DisplayGraph display = buildDisplayGraph(model, options);
    // Each layer's box feeds the next one only: the mask's fan and the saved tensors' edges are left out, and
    // the boxes say so.
    int output = display.displayNodeOf(model.findNode("output"));
    int edgesIntoOutput = 0;
    for (const LayoutEdge& edge : display.layout.edges) {
        if (edge.to == output) {
            ++edgesIntoOutput;
            continue;
        }
        int from = display.nodes[static_cast<size_t>(edge.from)].group;
        int to = display.nodes[static_cast<size_t>(edge.to)].group;
        if (from < 0 || to < 0) continue;
        EXPECT_EQ(to, folding.groups[static_cast<size_t>(from)].parent == folding.groups[static_cast<size_t>(to)].parent ? from + 1 : to)
            << display.layout.nodes[static_cast<size_t>(edge.from)].lines.front() << " -> " << display.layout.nodes[static_cast<size_t>(edge.to)].lines.front();
    }
    EXPECT_EQ(edgesIntoOutput, 1);
    EXPECT_EQ(display.layout.nodes[static_cast<size_t>(output)].lines.back(), "<- 22 inputs, edges hidden");
    int first = display.displayNodeOf(model.findNode("mask"));
    EXPECT_EQ(display.layout.nodes[static_cast<size_t>(first)].lines.back(), "mask -> 11 users, edges hidden");
}

TEST(LayoutGraph, HashFollowsGeometryNotColours) {
    LayoutGraph a;
    a.nodes = {{"n0", {"a"}, 50, 24, -1, 0xffffff, false}, {"n1", {"b"}, 50, 24, -1, 0xffffff, false}};
    a.edges = {{0, 1, 1}};
    LayoutGraph b = a;
    b.nodes[0].fill = 0x123456;
    b.nodes[0].lines = {"other text"};
    EXPECT_EQ(layoutHash(a), layoutHash(b));
    b.nodes[0].width = 80;
    EXPECT_NE(layoutHash(a), layoutHash(b));
    LayoutGraph c = a;
    c.edges = {{1, 0, 1}};
    EXPECT_NE(layoutHash(a), layoutHash(c));

    auto [width, height] = labelBoxSize({"abcdefghij", "abc"});
    EXPECT_FLOAT_EQ(width, 10 * 7.0f + 16.0f);
    EXPECT_FLOAT_EQ(height, 2 * 14.0f + 10.0f);
    EXPECT_FLOAT_EQ(labelBoxSize({}).first, 48.0f);
}

}  // namespace
}  // namespace viz

// The module hierarchy on a real model: the 12-layer GPT-2 training log (HuggingFace GPT-2 from its config,
// torch 2.11 on an H100) folds by module in its Dynamo, AOT forward and AOT backward graphs. The log lives
// outside the repository (CWB_REAL_LOGS_DIR); the tests skip when it is absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "graph/display_graph.h"
#include "graph/fusion_map.h"
#include "graph/graph_fold.h"
#include "graph/graph_model.h"
#include "importers/import_path.h"
#include "layout/layout_worker.h"

namespace viz {
namespace {

/// The graphs of the log's biggest compile (the model's forward and backward), in capture order.
struct Gpt2 {
    traces::TraceData data;
    std::vector<const traces::Graph*> graphs;

    const traces::Graph* first(traces::GraphKind kind) const {
        for (const traces::Graph* graph : graphs)
            if (graph->kind == kind) return graph;
        return nullptr;
    }

    /// The forward's graph after Inductor's passes (what it fused), null when missing.
    const traces::Graph* postGradForward() const {
        for (const traces::Graph* graph : graphs)
            if (graph->kind == traces::GraphKind::PostGrad && graph->name == "inductor_post_grad_graph") return graph;
        return nullptr;
    }

    std::vector<const traces::OutputCode*> outputCodeOf(const traces::Graph& graph) const {
        std::vector<const traces::OutputCode*> codes;
        for (const traces::OutputCode& code : data.outputCode)
            if (code.compileId == graph.compileId) codes.push_back(&code);
        return codes;
    }
};

const Gpt2* gpt2() {
    static std::unique_ptr<Gpt2> loaded = [] {
        std::string dir = std::string(CWB_REAL_LOGS_DIR) + "/gpt2_train_cuda/log";
        if (!std::filesystem::exists(dir)) return std::unique_ptr<Gpt2>();
        auto gpt2 = std::make_unique<Gpt2>();
        gpt2->data = traces::openAsTrace(dir);
        const traces::Graph* biggest = nullptr;
        for (const traces::Graph& graph : gpt2->data.graphs)
            if (graph.kind == traces::GraphKind::Dynamo && (!biggest || graph.nodes.size() > biggest->nodes.size()))
                biggest = &graph;
        for (const traces::Graph& graph : gpt2->data.graphs)
            if (biggest && graph.compileId == biggest->compileId) gpt2->graphs.push_back(&graph);
        return gpt2;
    }();
    return loaded.get();
}

#define REQUIRE_GPT2()                                                                          \
    const Gpt2* model = gpt2();                                                                 \
    if (!model) GTEST_SKIP() << "no real logs at " CWB_REAL_LOGS_DIR " (set CWB_REAL_LOGS_DIR)"; \
    ASSERT_NE(model->first(traces::GraphKind::Dynamo), nullptr)

int groupKeyed(const Folding& folding, const std::string& key) {
    for (size_t g = 0; g < folding.groups.size(); ++g)
        if (folding.groups[g].key == key) return static_cast<int>(g);
    return -1;
}

std::string parentKey(const Folding& folding, int group) {
    int parent = folding.groups[static_cast<size_t>(group)].parent;
    return parent < 0 ? "" : folding.groups[static_cast<size_t>(parent)].key;
}

/// Share of the graph's computing nodes that fold by a module path (not by source line or name).
double moduleShare(const GraphModel& graph) {
    int computing = 0;
    int byModule = 0;
    for (const GraphModelNode& node : graph.nodes) {
        if (node.kind != NodeKind::Function && node.kind != NodeKind::Method) continue;
        ++computing;
        if (node.foldSource == FoldSource::Module) ++byModule;
    }
    return computing ? static_cast<double>(byModule) / computing : 0;
}

TEST(RealModelFold, DynamoGraphNestsTransformerBlocksByModule) {
    REQUIRE_GPT2();
    GraphModel graph = buildGraphModel(*model->first(traces::GraphKind::Dynamo));
    EXPECT_GT(graph.nodes.size(), 650u);
    Folding folding = foldGraph(graph);
    for (int layer = 0; layer < 12; ++layer) {
        std::string block = "transformer.h." + std::to_string(layer);
        int group = groupKeyed(folding, block);
        ASSERT_GE(group, 0) << block;
        EXPECT_EQ(parentKey(folding, group), "transformer.h") << block;
        int attention = groupKeyed(folding, block + ".attn");
        ASSERT_GE(attention, 0) << block;
        EXPECT_EQ(parentKey(folding, attention), block);
    }
    EXPECT_EQ(parentKey(folding, groupKeyed(folding, "transformer.h")), "transformer");
    EXPECT_GT(moduleShare(graph), 0.9);
}

TEST(RealModelFold, OverviewShowsOneCollapsedRowPerBlock) {
    REQUIRE_GPT2();
    GraphModel graph = buildGraphModel(*model->first(traces::GraphKind::Dynamo));
    Folding folding = foldGraph(graph);
    std::vector<bool> expanded = overviewExpansion(folding, graph.nodes.size());
    DisplayOptions options;
    options.folding = &folding;
    options.expanded = &expanded;
    DisplayGraph display = buildDisplayGraph(graph, options);
    EXPECT_LE(display.nodes.size(), static_cast<size_t>(kOverviewUnits));
    EXPECT_TRUE(expanded[static_cast<size_t>(groupKeyed(folding, "transformer"))]);
    EXPECT_TRUE(expanded[static_cast<size_t>(groupKeyed(folding, "transformer.h"))]);
    // Every block is one box, and the boxes say which block they are.
    std::vector<std::string> shownBlocks;
    for (size_t n = 0; n < display.nodes.size(); ++n) {
        int group = display.nodes[n].group;
        if (group < 0) continue;
        const std::string& key = folding.groups[static_cast<size_t>(group)].key;
        if (key.starts_with("transformer.h.")) shownBlocks.push_back(display.layout.nodes[n].lines.front());
    }
    EXPECT_EQ(shownBlocks.size(), 12u);
    EXPECT_THAT(shownBlocks, ::testing::Contains("transformer.h.11"));
    // The blocks sit in the cluster of transformer.h, inside the cluster of transformer.
    ASSERT_FALSE(display.layout.clusters.empty());
    bool nested = false;
    for (const LayoutCluster& cluster : display.layout.clusters)
        if (cluster.label.starts_with("transformer.h ") && cluster.parent >= 0)
            nested = nested || display.layout.clusters[static_cast<size_t>(cluster.parent)].label.starts_with("transformer ");
    EXPECT_TRUE(nested);
}

TEST(RealModelFold, OpeningEveryBlockLaysOutEachBlockShapeOnce) {
    REQUIRE_GPT2();
    // Laid out per group, the twelve blocks of the AOT backward are a few small graphs of the same shapes (blocks
    // differ where a neighbour's gradients interleave and where "h.10" is wider than "h.9"): the worker lays out
    // each shape once and places the same layout again.
    const traces::Graph* backward = model->first(traces::GraphKind::AotBackward);
    ASSERT_NE(backward, nullptr);
    ModuleDonors donors = moduleDonorsOf(model->graphs);
    GraphModel graph = buildGraphModel(*backward, &donors);
    Folding folding = foldGraph(graph);
    std::vector<bool> expanded = overviewExpansion(folding, graph.nodes.size());
    int opened = 0;
    for (int layer = 0; layer < 12; ++layer) {
        int block = groupKeyed(folding, "transformer.h." + std::to_string(layer));
        ASSERT_GE(block, 0) << layer;
        expanded[static_cast<size_t>(block)] = true;
        ++opened;
    }
    DisplayOptions options;
    options.folding = &folding;
    options.expanded = &expanded;
    DisplayGraph display = buildDisplayGraph(graph, options);
    ASSERT_TRUE(display.layout.nested);
    LayoutWorker worker;
    uint64_t key = worker.submit(std::make_shared<const LayoutGraph>(display.layout));
    ASSERT_TRUE(worker.waitIdle(std::chrono::seconds(120)));
    std::shared_ptr<const GraphLayout> layout = worker.result(key);
    ASSERT_NE(layout, nullptr);
    std::cout << "[          ] AOT backward, 12 blocks open: " << display.layout.nodes.size() << " boxes, "
              << layout->levels << " groups, " << layout->levelsLaidOut << " laid out, " << layout->seconds * 1000
              << " ms\n";
    EXPECT_GE(layout->levels, static_cast<size_t>(opened));
    EXPECT_LE(layout->levelsLaidOut + 6, layout->levels);  // at least half of the blocks came from the cache
    for (size_t c = 0; c < display.layout.clusters.size(); ++c) {
        int parent = display.layout.clusters[c].parent;
        if (parent < 0) continue;
        const Rect& inner = layout->clusters[c];
        const Rect& outer = layout->clusters[static_cast<size_t>(parent)];
        EXPECT_TRUE(inner.minX >= outer.minX && inner.maxX <= outer.maxX && inner.minY >= outer.minY &&
                    inner.maxY <= outer.maxY) << display.layout.clusters[c].label;
    }
}

TEST(RealModelFold, AotGraphsBorrowModulePathsFromDynamoAndTheForward) {
    REQUIRE_GPT2();
    const traces::Graph* forwardGraph = model->first(traces::GraphKind::AotForward);
    const traces::Graph* backwardGraph = model->first(traces::GraphKind::AotBackward);
    ASSERT_NE(forwardGraph, nullptr);
    ASSERT_NE(backwardGraph, nullptr);
    // Alone, AOT graphs name no module (primals_1, mm_3): they fold by source line.
    EXPECT_LT(moduleShare(buildGraphModel(*forwardGraph)), 0.1);
    ModuleDonors donors = moduleDonorsOf(model->graphs);
    GraphModel forward = buildGraphModel(*forwardGraph, &donors);
    GraphModel backward = buildGraphModel(*backwardGraph, &donors);
    EXPECT_GT(forward.nodes.size(), 1200u);
    EXPECT_GT(backward.nodes.size(), 1600u);
    EXPECT_GT(moduleShare(forward), 0.9);
    EXPECT_GT(moduleShare(backward), 0.9);
    // primals_7 is Dynamo's 7th placeholder: block 0's c_attn weight.
    int weight = forward.findNode("primals_7");
    ASSERT_GE(weight, 0);
    EXPECT_THAT(forward.nodes[static_cast<size_t>(weight)].foldPath,
                ::testing::ElementsAre("transformer", "h", "0", "attn", "c_attn"));
    for (const GraphModel* graph : {&forward, &backward}) {
        Folding folding = foldGraph(*graph);
        for (int layer = 0; layer < 12; ++layer)
            EXPECT_GE(groupKeyed(folding, "transformer.h." + std::to_string(layer)), 0) << graph->title << " " << layer;
    }
}

TEST(RealModelFold, FusionDiagramFoldsKernelsInsideTheirBlocks) {
    REQUIRE_GPT2();
    const traces::Graph* postGrad = model->postGradForward();
    ASSERT_NE(postGrad, nullptr);
    std::vector<const traces::OutputCode*> codes = model->outputCodeOf(*postGrad);
    ModuleDonors donors = moduleDonorsOf(model->graphs);
    GraphModel graph = buildGraphModel(*postGrad, &donors);
    auto kernelsInBlock = [&](const FusionMap& fusion, const std::string& block) {
        Folding folding = foldGraph(graph, kFoldTargetUnits, &fusion);
        int group = groupKeyed(folding, block);
        int count = 0;
        for (size_t g = 0; g < folding.groups.size(); ++g) {
            if (folding.groups[g].kernel < 0) continue;
            for (int outer = folding.groups[g].parent; outer >= 0; outer = folding.groups[static_cast<size_t>(outer)].parent) {
                if (outer != group) continue;
                ++count;
                EXPECT_THAT(folding.groups[g].key,
                            ::testing::HasSubstr(fusion.kernels[static_cast<size_t>(folding.groups[g].kernel)].name));
                break;
            }
        }
        return count;
    };
    // The kernels' comments name the nodes of their first call only: block 0 has its kernels, block 5 (which
    // calls the same kernels) none.
    FusionMap firstCalls = mapNodesToKernels(graph, codes);
    ASSERT_GE(firstCalls.kernels.size(), 10u);
    EXPECT_GE(kernelsInBlock(firstCalls, "transformer.h.0"), 3);
    EXPECT_EQ(kernelsInBlock(firstCalls, "transformer.h.5"), 0);
    // Inductor's provenance record names every call's nodes: every block shows its kernels, each one box.
    std::vector<KernelCallNodes> kernelCalls = kernelCallNodesOfCompile(model->data.artifacts, *postGrad->compileId);
    ASSERT_FALSE(kernelCalls.empty());
    FusionMap everyCall = mapNodesToKernels(graph, codes, kernelCalls);
    EXPECT_GE(kernelsInBlock(everyCall, "transformer.h.0"), 3);
    EXPECT_GE(kernelsInBlock(everyCall, "transformer.h.5"), 5);
    EXPECT_EQ(kernelsInBlock(everyCall, "transformer.h.5"), kernelsInBlock(everyCall, "transformer.h.6"));
    EXPECT_GE(kernelsInBlock(everyCall, "transformer.h.11"), 5);
}

TEST(RealModelFold, FusionOverviewIsAColumnOfBlocksInTheirKernelsColours) {
    REQUIRE_GPT2();
    const traces::Graph* postGrad = model->postGradForward();
    ASSERT_NE(postGrad, nullptr);
    std::vector<const traces::OutputCode*> codes = model->outputCodeOf(*postGrad);
    ModuleDonors donors = moduleDonorsOf(model->graphs);
    GraphModel graph = buildGraphModel(*postGrad, &donors);
    FusionMap fusion = mapNodesToKernels(graph, codes, kernelCallNodesOfCompile(model->data.artifacts, *postGrad->compileId));
    Folding folding = foldGraph(graph, kFoldTargetUnits, &fusion);
    std::vector<bool> expanded = overviewExpansion(folding, graph.nodes.size());
    DisplayOptions options;
    options.clusters = ClusterMode::Kernels;
    options.fusion = &fusion;
    options.folding = &folding;
    options.expanded = &expanded;
    DisplayGraph display = buildDisplayGraph(graph, options);
    // One box per block, each striped with the colours of the kernels it runs (the mask and the tensors saved
    // for the backward, computed after the last block, fold with their block).
    std::map<int, int> boxOfBlock;
    for (size_t n = 0; n < display.nodes.size(); ++n) {
        const std::string& label = display.layout.nodes[n].lines.front();
        if (!label.starts_with("transformer.h.")) continue;
        int block = std::stoi(label.substr(14));
        EXPECT_FALSE(boxOfBlock.contains(block)) << label << " shown twice";
        boxOfBlock[block] = static_cast<int>(n);
        EXPECT_GE(display.layout.nodes[n].swatches.size(), 5u) << label;
    }
    ASSERT_EQ(boxOfBlock.size(), 12u);
    // No side routes: a block feeds the next block only, and the output's edges from every block are left out.
    int output = display.displayNodeOf(graph.findNode("output"));
    int intoOutput = 0;
    for (const LayoutEdge& edge : display.layout.edges) {
        intoOutput += edge.to == output;
        for (auto [block, box] : boxOfBlock) {
            if (edge.from != box || edge.to == output) continue;
            std::string to = display.layout.nodes[static_cast<size_t>(edge.to)].lines.front();
            if (to.starts_with("transformer.h.")) {
                EXPECT_EQ(to, "transformer.h." + std::to_string(block + 1));
            }
        }
    }
    EXPECT_LE(intoOutput, 6);
}

TEST(RealModelFold, ResNetOverviewIsOneChainOfBlocks) {
    // torchvision ResNet-18: Dynamo prints each residual add as `out_4 += identity;  out_5: ... = out_4`. The
    // blocks read as one chain only when those in-place nodes carry the residual edges from block to block.
    std::string dir = std::string(CWB_REAL_LOGS_DIR) + "/resnet18_train_cuda/log";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no real logs at " << dir;
    traces::TraceData data = traces::openAsTrace(dir);
    const traces::Graph* dynamo = nullptr;
    for (const traces::Graph& graph : data.graphs)
        if (graph.kind == traces::GraphKind::Dynamo && !dynamo) dynamo = &graph;
    ASSERT_NE(dynamo, nullptr);
    GraphModel graph = buildGraphModel(*dynamo);
    std::vector<int> inputs(graph.nodes.size(), 0);
    for (const GraphModelEdge& edge : graph.edges) ++inputs[static_cast<size_t>(edge.to)];
    for (const GraphModelNode& node : graph.nodes)
        EXPECT_TRUE(node.kind == NodeKind::Input || inputs[static_cast<size_t>(node.index)] > 0) << node.name;
    Folding folding = foldGraph(graph);
    std::vector<bool> expanded = overviewExpansion(folding, graph.nodes.size());
    DisplayOptions options;
    options.folding = &folding;
    options.expanded = &expanded;
    DisplayGraph display = buildDisplayGraph(graph, options);
    auto boxOf = [&](const std::string& key) {
        for (size_t n = 0; n < display.nodes.size(); ++n)
            if (display.layout.nodes[n].lines.front() == key) return static_cast<int>(n);
        return -1;
    };
    std::vector<std::string> blocks;
    for (int layer = 1; layer <= 4; ++layer)
        for (int block = 0; block < 2; ++block) blocks.push_back("layer" + std::to_string(layer) + "." + std::to_string(block));
    for (size_t b = 0; b + 1 < blocks.size(); ++b) {
        int from = boxOf(blocks[b]);
        int to = boxOf(blocks[b + 1]);
        ASSERT_GE(from, 0) << blocks[b];
        ASSERT_GE(to, 0) << blocks[b + 1];
        bool linked = std::any_of(display.layout.edges.begin(), display.layout.edges.end(),
                                  [&](const LayoutEdge& edge) { return edge.from == from && edge.to == to; });
        EXPECT_TRUE(linked) << blocks[b] << " -> " << blocks[b + 1];
    }
}

}  // namespace
}  // namespace viz

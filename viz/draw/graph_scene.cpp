// The scene a graph canvas draws: a finished layout with its nodes' texts and colours and how each group is drawn
// (see graph_canvas.h).
#include "draw/graph_canvas.h"

namespace viz {
namespace {

/// A top-level group holding this many tenths of the boxes or more is outlined, not filled (see sceneOf).
constexpr size_t kSpanningTenths = 8;

}  // namespace

GraphScene sceneOf(const LayoutGraph& graph, std::shared_ptr<const GraphLayout> layout) {
    GraphScene scene;
    scene.layout = std::move(layout);
    scene.nodes.reserve(graph.nodes.size());
    for (const LayoutNode& node : graph.nodes) scene.nodes.push_back({node.lines, node.fill, node.folded, node.swatches});
    // A top-level group around nearly every box (GPT-2's "transformer") is drawn as an outline: its fill would
    // say nothing (everything is inside it) and cost llvmpipe a layer of pixels over most of the view.
    std::vector<size_t> boxesIn(graph.clusters.size(), 0);
    for (const LayoutNode& node : graph.nodes)
        for (int c = node.cluster; c >= 0 && static_cast<size_t>(c) < graph.clusters.size();
             c = graph.clusters[static_cast<size_t>(c)].parent)
            ++boxesIn[static_cast<size_t>(c)];
    auto parentOf = [&](size_t c) {
        int parent = graph.clusters[c].parent;
        return parent >= 0 && static_cast<size_t>(parent) < graph.clusters.size() ? parent : -1;
    };
    for (size_t i = 0; i < graph.clusters.size(); ++i) {
        const LayoutCluster& cluster = graph.clusters[i];
        int parent = parentOf(i);
        bool inSameFill = parent >= 0 && graph.clusters[static_cast<size_t>(parent)].fill == cluster.fill;
        bool spansGraph = parent < 0 && boxesIn[i] * 10 >= graph.nodes.size() * kSpanningTenths;
        scene.clusters.push_back({cluster.label, cluster.fill, inSameFill || spansGraph});
    }
    for (size_t i = 0; i < scene.clusters.size(); ++i) {
        bool onCanvas = true;
        for (int c = static_cast<int>(i); c >= 0 && onCanvas; c = parentOf(static_cast<size_t>(c)))
            onCanvas = scene.clusters[static_cast<size_t>(c)].outlineOnly;
        scene.clusters[i].onCanvas = onCanvas;
    }
    scene.edges = graph.edges;
    return scene;
}

}  // namespace viz

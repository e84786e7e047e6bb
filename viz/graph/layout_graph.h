// What a graph layout is computed from, independent of FX or Graphviz: boxes of a given size, directed edges and
// named clusters. The DOT writer, the layout worker and its cache all take this one description.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace viz {

/// Sizes are in points (1/72 inch), Graphviz's unit; the canvas draws one point as one pixel at zoom 1.
struct LayoutNode {
    std::string id;                  ///< unique DOT identifier ("n12")
    std::vector<std::string> lines;  ///< label, one entry per line
    float width = 0;
    float height = 0;
    int cluster = -1;                ///< index into LayoutGraph::clusters, -1 for none
    uint32_t fill = 0xffffff;        ///< 0xRRGGBB, used by exports only (the canvas colours nodes itself)
    bool folded = false;             ///< stands for a folded group of nodes (drawn stacked)
    /// A folded module in the fusion diagram: the colours of the kernels inside, in graph order, drawn as a strip
    /// along the box's bottom (its height has room for it).
    std::vector<uint32_t> swatches = {};
};

/// Height of the strip of kernel colours at the bottom of a folded module's box, in points.
constexpr float kSwatchStripPoints = 7.0f;

struct LayoutEdge {
    int from = 0;
    int to = 0;
    int weight = 1;  ///< how many model edges this one stands for (folded graphs merge them)
};

struct LayoutCluster {
    std::string label;
    uint32_t fill = 0xf0f0f0;
    int parent = -1;  ///< the cluster this one is drawn inside (expanded folds nest); -1 at the top
};

struct LayoutGraph {
    std::string title;
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
    std::vector<LayoutCluster> clusters;
    /// Lay each cluster's contents out on its own and place them inside each other (layout/nested_layout.h),
    /// rather than the whole graph in one Graphviz run: for folded graphs, whose clusters are opened groups.
    bool nested = false;
};

/// Hash of everything that changes the geometry (ids, sizes, edges, cluster membership and labels), not of
/// colours or node text: two graphs with the same hash share one cached layout.
uint64_t layoutHash(const LayoutGraph& graph);

/// Size of a box that holds `lines` in the canvas font (7 points per character, 14 per line) with padding.
std::pair<float, float> labelBoxSize(const std::vector<std::string>& lines);

}  // namespace viz

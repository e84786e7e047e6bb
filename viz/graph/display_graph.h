// What one graph tab shows: the model with folded groups collapsed or expanded, fill colours from fusion
// groups, and clusters (kernels in the fusion diagram, expanded folds in the graph view), as a LayoutGraph.
#pragma once

#include <string>
#include <vector>

#include "graph/fusion_map.h"
#include "graph/graph_fold.h"
#include "graph/graph_model.h"
#include "graph/layout_graph.h"

namespace viz {

enum class ClusterMode { None, Kernels, ExpandedFolds };

struct DisplayOptions {
    ClusterMode clusters = ClusterMode::ExpandedFolds;  ///< expanded folds are clusters in both other modes
    const FusionMap* fusion = nullptr;         ///< colours (and clusters in Kernels mode); null for none
    const Folding* folding = nullptr;          ///< null: every node shown on its own
    const std::vector<bool>* expanded = nullptr;  ///< per fold group; null: every group collapsed
};

/// Exactly one of modelNode and group is set.
struct DisplayNode {
    int modelNode = -1;
    int group = -1;
};

struct DisplayCluster {
    int kernel = -1;  ///< index into FusionMap::kernels (Kernels mode, or an expanded kernel's group)
    int group = -1;   ///< index into Folding::groups (an expanded group)
};

struct DisplayGraph {
    LayoutGraph layout;
    std::vector<DisplayNode> nodes;        ///< parallel to layout.nodes
    std::vector<DisplayCluster> clusters;  ///< parallel to layout.clusters
    std::vector<int> displayOfModelNode;   ///< per model node: the display node showing it (its group when folded)

    int displayNodeOf(int modelNode) const;
};

DisplayGraph buildDisplayGraph(const GraphModel& model, const DisplayOptions& options);

/// A node's label: its name, its target and its tensor type, each cut to a readable width.
std::vector<std::string> nodeLabelLines(const GraphModelNode& node);

}  // namespace viz

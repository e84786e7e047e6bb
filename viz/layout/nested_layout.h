// Per-group layout of a graph whose clusters nest (a folded graph's expanded groups), as Model Explorer lays graphs
// out: each cluster's contents are laid out on their own as a small graph (its nodes, and its inner clusters as
// boxes of their own layout's size), innermost first, and the pieces are placed inside each other. The layout
// worker runs the levels and caches each, so opening a group lays out that group and the small levels around it.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "graph/layout_graph.h"
#include "layout/graph_layout.h"

namespace viz {

/// One level: a cluster's direct contents (or the top level's). Its units are `nodes`, then `innerClusters`.
struct NestedLevel {
    int cluster = -1;                ///< the cluster laid out here; -1 for the top level
    std::vector<int> nodes;          ///< graph nodes directly inside
    std::vector<int> innerClusters;  ///< clusters directly inside, each one box here
    std::vector<LayoutEdge> edges;   ///< between units (merged, with weights)
};

struct NestedPlan {
    std::vector<NestedLevel> levels;  ///< inner levels before the levels around them; the top level last
    std::vector<int> levelOfCluster;  ///< per cluster, its level
    /// Per graph edge, the level whose layout routes it (the innermost holding both ends) and its edge there;
    /// -1, -1 for an edge inside one node.
    std::vector<std::pair<int, int>> edgeAt;
};

/// Splits `graph` by its clusters (LayoutCluster::parent nests them; LayoutNode::cluster places nodes).
NestedPlan planNestedLayout(const LayoutGraph& graph);

/// The small graph level `level` is laid out as, once each of its inner clusters' levels is laid out
/// (`layouts`, parallel to plan.levels; only those inner levels are read). Node i is unit i.
LayoutGraph nestedLevelGraph(const LayoutGraph& graph, const NestedPlan& plan, size_t level,
                             const std::vector<std::shared_ptr<const GraphLayout>>& layouts);

/// The whole graph's layout from every level's (parallel to plan.levels): nodes, clusters and edges parallel to
/// `graph`'s. An edge between levels follows its route in the level that holds both ends and is extended inside
/// the groups to the nodes themselves.
GraphLayout composeNestedLayout(const LayoutGraph& graph, const NestedPlan& plan,
                                const std::vector<std::shared_ptr<const GraphLayout>>& layouts);

}  // namespace viz

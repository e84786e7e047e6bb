// Folding for graphs too big to lay out whole: runs of consecutive nodes (in graph order, inputs moved next to
// their first user) that share a fold key become collapsible groups, nested: expanding a group shows its
// contents folded one level finer (module "layers" -> "layers.0", "layers.1", ...), down to single nodes.
#pragma once

#include <string>
#include <vector>

#include "graph/graph_model.h"

namespace viz {

/// Above this many nodes a graph is shown folded by default: dot takes seconds from about 2,500 nodes on.
constexpr int kFoldNodeThreshold = 2500;
/// No level of the fold tree shows more units (groups plus single nodes) than this, so that any state the
/// user expands to step by step lays out in about a second.
constexpr int kFoldTargetUnits = 400;

struct FoldGroup {
    std::string key;           ///< "layers.0.fc", "forward / line 17", "layers.0 .. layers.7" for a bundle of runs
    std::string label;         ///< key and size: "layers.0.fc  (12 nodes)"
    std::vector<int> nodes;    ///< every model node inside, in fold order
    int parent = -1;           ///< the group this one is shown in when that one is expanded; -1 at the top
    std::vector<int> children; ///< groups directly inside
};

struct Folding {
    std::vector<FoldGroup> groups;  ///< parents before their children
    std::vector<int> groupOfNode;   ///< per model node, the innermost group holding it, -1 when none does
};

/// Builds the fold tree. The top level uses the deepest fold-path depth whose units stay within `targetUnits`;
/// each group's contents use the next depth, and runs are bundled wherever a level would exceed the target.
Folding foldGraph(const GraphModel& model, int targetUnits = kFoldTargetUnits);

/// The group a node is shown as, given which groups are expanded: its outermost collapsed ancestor, or -1 when
/// every group around it is expanded (it is shown itself).
int shownGroupOf(const Folding& folding, const std::vector<bool>& expanded, int modelNode);

}  // namespace viz

// The module hierarchy of a graph: runs of consecutive nodes (in graph order, inputs moved next to their first
// user) that share a fold key become collapsible groups, nested by module path ("transformer" holds
// "transformer.h", which holds "transformer.h.0", ...), down to single nodes.
#pragma once

#include <string>
#include <vector>

#include "graph/fusion_map.h"
#include "graph/graph_model.h"

namespace viz {

/// Above this many nodes a graph opens folded (as an overview of its modules); smaller ones read whole.
constexpr int kFoldMinNodes = 60;
/// No level of the fold tree shows more units (groups plus single nodes) than this, so that any state the
/// user expands to step by step lays out in about a second.
constexpr int kFoldTargetUnits = 40;
/// How many units the first view of a folded graph shows at most (see overviewExpansion).
constexpr int kOverviewUnits = 48;

struct FoldGroup {
    std::string key;           ///< "layers.0.fc", "forward / line 17", "layers.0 .. layers.7" for a bundle of runs
    std::string label;         ///< key and size: "layers.0.fc  (12 nodes)"
    std::vector<int> nodes;    ///< every model node inside, in fold order
    int parent = -1;           ///< the group this one is shown in when that one is expanded; -1 at the top
    std::vector<int> children; ///< groups directly inside
    int kernel = -1;           ///< the kernel (index into FusionMap::kernels) every node inside fused into, if one
};

struct Folding {
    std::vector<FoldGroup> groups;  ///< parents before their children
    std::vector<int> groupOfNode;   ///< per model node, the innermost group holding it, -1 when none does
};

/// Builds the fold tree. The top level folds by the first fold-path segment ("transformer", "lm_head"); each
/// group's contents by the next segment that tells them apart, and a group is named by the longest path all its
/// nodes share ("transformer.h.0.attn.c_attn"). Runs are bundled wherever a level would exceed the target.
/// With `kernels` (the fusion diagram), each module's nodes fold further by the kernel they fused into, so that
/// a kernel is one box until it is expanded to its nodes.
Folding foldGraph(const GraphModel& model, int targetUnits = kFoldTargetUnits, const FusionMap* kernels = nullptr);

/// Which groups the first view opens: level by level from the top, while the units shown stay within `budget`.
/// Repeated siblings ("h.0" .. "h.11") open all together or not at all, so that blocks read as one row each.
std::vector<bool> overviewExpansion(const Folding& folding, size_t modelNodes, int budget = kOverviewUnits);

/// The group a node is shown as, given which groups are expanded: its outermost collapsed ancestor, or -1 when
/// every group around it is expanded (it is shown itself).
int shownGroupOf(const Folding& folding, const std::vector<bool>& expanded, int modelNode);

}  // namespace viz

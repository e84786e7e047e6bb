// What changed in a graph between two compiles of one function (a recompile): nodes added, removed and changed
// (tensor type, or inputs), with shapes that went from static to symbolic called out. No ImGui.
#pragma once

#include <string>
#include <vector>

#include "graph/graph_model.h"

namespace viz {

enum class GraphChangeKind { Added, Removed, Changed };

const char* graphChangeName(GraphChangeKind kind);

struct GraphNodeChange {
    GraphChangeKind kind = GraphChangeKind::Changed;
    int before = -1;  ///< node of the earlier graph (-1 for an added node)
    int after = -1;   ///< node of the later graph (-1 for a removed node)
    /// For a changed node: "f32[8, 16] -> f32[s0, 16]", "inputs: add, l_x_ -> add_1, l_x_", or both.
    std::string what;
    bool becameSymbolic = false;  ///< a dimension that was a number is a symbol now
};

struct GraphDiff {
    /// In the later graph's order; a removed node sits where it was, after the nodes matched before it.
    std::vector<GraphNodeChange> changes;
    std::vector<int> beforeOfAfter;  ///< per node of the later graph, its match in the earlier one, or -1
    std::vector<int> changeOfAfter;  ///< per node of the later graph, its index in `changes`, or -1
    int added = 0;
    int removed = 0;
    int changed = 0;
    int becameSymbolic = 0;

    bool empty() const { return changes.empty(); }
    /// "3 added, 1 removed, 5 changed (4 became symbolic)", or "no change".
    std::string summary() const;
};

/// Matches the nodes of two graphs in order by what they compute (op and target; inputs by name), so that FX's
/// renumbering (mul_1 becoming mul_2 when a node is inserted before it) is not a change.
GraphDiff diffGraphModels(const GraphModel& before, const GraphModel& after);

/// True when a tensor type like "f32[s0, 16]" has a symbolic dimension.
bool hasSymbolicDimension(std::string_view tensorText);

}  // namespace viz

// A fast layered layout for graphs dot would take minutes on (edges that span many ranks become tens of
// thousands of virtual nodes in dot's position phase): longest-path ranks, one barycentre pass to order each
// rank, straight edges. Pure C++, no Graphviz; used by the layout worker above a work threshold.
#pragma once

#include "graph/layout_graph.h"
#include "layout/graph_layout.h"

namespace viz {

/// dotWorkEstimate above which the worker uses layeredLayout instead of dot.
constexpr size_t kMaxDotWork = 30000;

/// Lays `graph` out top-down in screen coordinates (same conventions as dot's GraphLayout). Clusters get the
/// bounding box of their nodes; unlike dot's, they may overlap nodes outside them.
GraphLayout layeredLayout(const LayoutGraph& graph);

}  // namespace viz

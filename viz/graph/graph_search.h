// Search over a graph's nodes for the search box: by name, target, tensor type or source line.
#pragma once

#include <string_view>
#include <vector>

#include "graph/graph_model.h"

namespace viz {

/// True when `needle` occurs in `haystack` ignoring ASCII case; an empty needle matches nothing here
/// (an empty search box highlights no node).
bool containsNoCase(std::string_view haystack, std::string_view needle);

/// Model nodes whose name, target, tensor type or source location contains `query`, in graph order; nodes
/// whose name matches exactly come first, so Enter jumps to the node the user typed.
std::vector<int> searchNodes(const GraphModel& model, std::string_view query);

}  // namespace viz

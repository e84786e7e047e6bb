// JSON encodings of the list-valued columns (stacks, reason lists, a graph's nodes) shared by writer and reader.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {

std::string stackToJson(const Stack& stack);
Stack stackFromJson(std::string_view json);
std::string stringsToJson(const std::vector<std::string>& items);
std::vector<std::string> stringsFromJson(std::string_view json);
/// A graph's nodes as one JSON array with an array per node, its fields in GraphNode's order: [index, name, op,
/// target, args, [inputs...], shape, dtype, stride, device, source_file, source_line, source_function,
/// source_code]. One column of the graph's row instead of a row per node: a tenth of an import's writing cost.
/// Field by field, for the nodes column's equality (tests compare loaded models column by column).
bool operator==(const GraphNode& a, const GraphNode& b);
std::string graphNodesToJson(const std::vector<GraphNode>& nodes);
std::vector<GraphNode> graphNodesFromJson(std::string_view json);

}  // namespace traces

// Prints a captured graph as torch.fx does: the `graph_code` form of explain() (GraphModule.code) and the
// annotated print_readable form of TORCH_TRACE's dynamo_output_graph (shapes, strides, device, source lines).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fx/graph_ir.h"
#include "model/trace_model.h"

namespace eng::fx {

/// GraphModule.code: "\n\n\ndef forward(self, L_x_ : torch.Tensor):\n    l_x_ = L_x_\n ...\n    return (add,)\n    ".
std::string graphCode(const Graph& graph);
/// print_readable(): "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: \"f32[8, 16][16, 1]cpu\"): ...".
std::string readableGraph(const Graph& graph);
/// str(graph): FX's IR listing ("graph():\n    %l_x_ : torch.Tensor [num_users=1] = placeholder[target=L_x_] ...").
std::string graphIrText(const Graph& graph);
/// "f32[8, s0][s0, 1]cpu" for a tensor, "Sym(s0)" for a symbol, "" for anything else.
std::string metaText(const Graph& graph, const Node& node);
/// A tensor node's annotation in its parts ("f32", "[8, s0]", "[s0, 1]", "cpu"); nothing for other nodes.
struct TensorMeta {
    std::string dtype, shape, stride, device;
};
std::optional<TensorMeta> tensorMeta(const Graph& graph, const Node& node);
/// TORCH_LOGS=graph_sizes: "TRACED GRAPH TENSOR SIZES\n===== NAME =====\n" and each tensor node's size as a Python
/// tuple (symbols where dynamic), followed by its concrete sizes when it has a symbol, as Dynamo's get_graph_sizes.
std::string graphSizes(const Graph& graph, const std::string& name);
/// The trace's node rows of the graph, made from its nodes (not from the printed text): what readableGraph
/// prints, one row per node, with the argument text and the earlier nodes each node reads.
std::vector<traces::GraphNode> graphNodeRows(const Graph& graph);
/// The graph's trace row as Dynamo's output graph (dynamo_output_graph: the readable text and its node rows).
traces::Graph graphRow(const Graph& graph);
/// The call nodes of a graph (call_function, call_method, call_module): what compilation metrics count as ops.
int callNodeCount(const Graph& graph);
/// Python's repr of a constant argument as FX prints it (0.5, 'none', torch.float32, ...).
std::string constantText(const vm::Value& value);

}  // namespace eng::fx

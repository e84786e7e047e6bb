// A neutral model of one captured FX graph for drawing: nodes with their display text, edges from the nodes'
// inputs, and the path each node folds under when the graph is too big to lay out whole. No ImGui, no Graphviz.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/trace_model.h"

namespace viz {

enum class NodeKind { Input, Output, Function, Method, Module, Attribute, Other };

/// What a node's fold path was made from, which also decides how it reads ("layers.0.fc1", "forward / line 17").
enum class FoldSource { Module, SourceLine, Name };

/// From an FX op: placeholder, output, call_function, call_method, call_module, get_attr.
NodeKind nodeKindOf(std::string_view op);

struct GraphModelNode {
    int index = 0;            ///< position in traces::Graph::nodes (and in GraphModel::nodes)
    std::string name;
    NodeKind kind = NodeKind::Other;
    std::string shortTarget;  ///< the target without its namespace noise: "aten.mul.Tensor", "gelu", "self.fc1"
    std::string opName;       ///< the bare operator: "mul", "gelu", "native_layer_norm" ("" for inputs/outputs)
    std::string tensorText;   ///< "f32[16, 64]", "" when unknown
    std::string sourceText;   ///< "training.py:17", "" when unknown
    std::string args;         ///< the arguments as FX printed them: "(l_x_, 4)"
    /// Where the node folds, outermost first: module path segments ("layers", "0", "fc1") when the name or
    /// target says so (calls inherit the module of the parameters they read, else of their latest input),
    /// else the user function and line, else the name without its numeric suffix.
    std::vector<std::string> foldPath;
    FoldSource foldSource = FoldSource::Name;
};

struct GraphModelEdge {
    int from = 0;
    int to = 0;
};

struct GraphModel {
    traces::RowId graphId = 0;
    traces::GraphKind kind = traces::GraphKind::Other;
    std::string title;  ///< "AOT forward", "post-grad (inductor_post_grad_graph)", ...
    std::vector<GraphModelNode> nodes;
    std::vector<GraphModelEdge> edges;  ///< unique, from an input to its user
    std::unordered_map<std::string, int> indexByName;

    /// Index of the node called `name`, -1 when there is none.
    int findNode(std::string_view name) const;
    /// For each node, the indices of its users (built on demand by callers that walk forward).
    std::vector<std::vector<int>> usersOfNodes() const;
};

/// Module paths that graphs of one compile lend the graphs whose node names carry none: AOT and post-grad graphs
/// name parameters primals_1, primals_2, ... (Dynamo's placeholders in order) and a backward's inputs after the
/// forward nodes they saved.
struct ModuleDonors {
    std::shared_ptr<const GraphModel> dynamo;   ///< the compile's Dynamo graph
    std::shared_ptr<const GraphModel> forward;  ///< its AOT forward graph, with paths lent by `dynamo`
};

/// The donors among a compile's graphs (the first Dynamo and AOT forward graphs); empty when it has none.
ModuleDonors moduleDonorsOf(const std::vector<const traces::Graph*>& compileGraphs);

GraphModel buildGraphModel(const traces::Graph& graph, const ModuleDonors* donors = nullptr);

/// "torch.ops.aten.mul.Tensor" -> "aten.mul.Tensor", "torch._C._nn.gelu" -> "gelu", "<built-in function mul>"
/// -> "mul", "<method 'sum' of ...>" -> "sum"; anything else unchanged.
std::string shortTargetOf(std::string_view target);

/// The bare operator of a call: "aten.mul.Tensor" -> "mul", "torch.sin" -> "sin", "operator.add" -> "add".
std::string opNameOf(std::string_view op, std::string_view target);

/// The module path a parameter/buffer placeholder or module call names: "l_self_modules_layers_modules_0_
/// modules_fc1_parameters_weight_" -> {"layers", "0", "fc1"}; target "self.fc1" -> {"fc1"}; empty otherwise.
std::vector<std::string> modulePathOf(std::string_view name, std::string_view op, std::string_view target);

/// What the graph kind is called in tabs and titles: "Dynamo", "AOT forward", "post-grad", ...
std::string graphKindTitle(traces::GraphKind kind);
/// A graph's own title before any role: its kind's, or, for a graph of no stage (a torch.cond branch the engine
/// recorded), its name (cond_true_0).
std::string graphBaseTitle(const traces::Graph& graph);

}  // namespace viz

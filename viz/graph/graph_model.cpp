// Builds the drawable graph model from a stored FX graph (see graph_model.h).
#include "graph/graph_model.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace viz {
namespace {

bool isDigits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// "mul_12" -> "mul": nodes FX numbered apart belong together when nothing better is known.
std::string_view withoutNumericSuffix(std::string_view name) {
    size_t underscore = name.rfind('_');
    if (underscore != std::string_view::npos && underscore > 0 && isDigits(name.substr(underscore + 1)))
        return name.substr(0, underscore);
    return name;
}

std::string fileNameOf(std::string_view path) {
    size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string tensorTextOf(const traces::GraphNode& node) {
    if (node.dtype.empty() && node.shape.empty()) return {};
    if (node.shape.empty()) return node.dtype;
    return node.dtype + node.shape;
}

/// Dynamo inlines nn.Modules, so calls carry no module; only the parameters they read do. A call that reads a
/// parameter belongs to that parameter's module; any other call to the module of its latest input that has
/// one (the activation after a linear, the residual add after a block). Graph order is topological, so one
/// forward pass sees every input's path before its users.
void inheritModulePaths(GraphModel& model) {
    std::vector<std::vector<int>> inputs(model.nodes.size());
    for (const GraphModelEdge& edge : model.edges) inputs[static_cast<size_t>(edge.to)].push_back(edge.from);
    std::vector<bool> own(model.nodes.size());
    for (const GraphModelNode& node : model.nodes) own[static_cast<size_t>(node.index)] = !node.foldPath.empty();
    for (GraphModelNode& node : model.nodes) {
        bool computes = node.kind == NodeKind::Function || node.kind == NodeKind::Method || node.kind == NodeKind::Module;
        if (!computes || !node.foldPath.empty()) continue;
        int parameter = -1;
        int latest = -1;
        for (int input : inputs[static_cast<size_t>(node.index)]) {
            const GraphModelNode& from = model.nodes[static_cast<size_t>(input)];
            if (from.foldPath.empty()) continue;
            if (own[static_cast<size_t>(input)] && parameter < 0) parameter = input;
            latest = std::max(latest, input);
        }
        int donor = parameter >= 0 ? parameter : latest;
        if (donor >= 0) node.foldPath = model.nodes[static_cast<size_t>(donor)].foldPath;
    }
    // What is still without a module (a mask built from sizes, a constant) belongs where all its users are:
    // the longest module path they share. Walking backwards lets chains of such nodes follow their last user.
    std::vector<std::vector<int>> users = model.usersOfNodes();
    for (auto node = model.nodes.rbegin(); node != model.nodes.rend(); ++node) {
        bool computes = node->kind == NodeKind::Function || node->kind == NodeKind::Method || node->kind == NodeKind::Module;
        if (!computes || !node->foldPath.empty()) continue;
        std::optional<std::vector<std::string>> shared;
        for (int user : users[static_cast<size_t>(node->index)]) {
            const std::vector<std::string>& path = model.nodes[static_cast<size_t>(user)].foldPath;
            if (path.empty()) continue;
            if (!shared) {
                shared = path;
                continue;
            }
            size_t common = 0;
            while (common < shared->size() && common < path.size() && (*shared)[common] == path[common]) ++common;
            shared->resize(common);
        }
        if (shared) node->foldPath = std::move(*shared);
    }
    // Calls nothing uses (kept for their side effects) sit with the call before them.
    const std::vector<std::string>* previous = nullptr;
    for (GraphModelNode& node : model.nodes) {
        bool computes = node.kind == NodeKind::Function || node.kind == NodeKind::Method || node.kind == NodeKind::Module;
        if (computes && node.foldPath.empty() && previous) node.foldPath = *previous;
        if (computes && !node.foldPath.empty()) previous = &node.foldPath;
    }
}

/// "primals_12" -> 11 (the Dynamo placeholder it is), -1 for any other name.
int primalIndexOf(std::string_view name) {
    constexpr std::string_view kPrimals = "primals_";
    if (!name.starts_with(kPrimals) || !isDigits(name.substr(kPrimals.size()))) return -1;
    return std::stoi(std::string(name.substr(kPrimals.size()))) - 1;
}

/// Gives inputs that name no module the path their donor node has (see ModuleDonors).
void adoptModulePaths(GraphModel& model, const ModuleDonors& donors) {
    std::vector<const GraphModelNode*> dynamoInputs;
    if (donors.dynamo)
        for (const GraphModelNode& node : donors.dynamo->nodes)
            if (node.kind == NodeKind::Input) dynamoInputs.push_back(&node);
    for (GraphModelNode& node : model.nodes) {
        if (node.kind != NodeKind::Input || !node.foldPath.empty()) continue;
        const GraphModelNode* donor = nullptr;
        int primal = primalIndexOf(node.name);
        if (primal >= 0 && static_cast<size_t>(primal) < dynamoInputs.size()) donor = dynamoInputs[static_cast<size_t>(primal)];
        if (!donor && donors.forward) {
            int same = donors.forward->findNode(node.name);
            if (same >= 0) donor = &donors.forward->nodes[static_cast<size_t>(same)];
        }
        if (donor && donor->foldSource == FoldSource::Module) node.foldPath = donor->foldPath;
    }
}

}  // namespace

NodeKind nodeKindOf(std::string_view op) {
    if (op == "placeholder") return NodeKind::Input;
    if (op == "output") return NodeKind::Output;
    if (op == "call_function") return NodeKind::Function;
    if (op == "call_method") return NodeKind::Method;
    if (op == "call_module") return NodeKind::Module;
    if (op == "get_attr") return NodeKind::Attribute;
    return NodeKind::Other;
}

std::string shortTargetOf(std::string_view target) {
    for (std::string_view prefix : {"torch.ops.", "torch._C._nn.", "torch.nn.functional.", "torch._C."})
        if (target.starts_with(prefix)) return std::string(target.substr(prefix.size()));
    // Older logs print builtins and methods by their repr.
    constexpr std::string_view kBuiltin = "<built-in function ";
    constexpr std::string_view kMethod = "<method '";
    if (target.starts_with(kBuiltin) && target.ends_with('>'))
        return std::string(target.substr(kBuiltin.size(), target.size() - kBuiltin.size() - 1));
    if (target.starts_with(kMethod)) {
        size_t close = target.find('\'', kMethod.size());
        if (close != std::string_view::npos) return std::string(target.substr(kMethod.size(), close - kMethod.size()));
    }
    return std::string(target);
}

std::string opNameOf(std::string_view op, std::string_view target) {
    NodeKind kind = nodeKindOf(op);
    if (kind != NodeKind::Function && kind != NodeKind::Method) return {};
    std::string shortTarget = shortTargetOf(target);
    std::string_view name = shortTarget;
    // "aten.mul.Tensor" / "prims.convert_element_type.default": the second segment is the operator.
    size_t firstDot = name.find('.');
    if (firstDot != std::string_view::npos && target.starts_with("torch.ops.")) {
        std::string_view rest = name.substr(firstDot + 1);
        return std::string(rest.substr(0, rest.find('.')));
    }
    size_t lastDot = name.rfind('.');
    return std::string(lastDot == std::string_view::npos ? name : name.substr(lastDot + 1));
}

std::vector<std::string> modulePathOf(std::string_view name, std::string_view op, std::string_view target) {
    std::vector<std::string> path;
    NodeKind kind = nodeKindOf(op);
    if ((kind == NodeKind::Module || kind == NodeKind::Attribute) && target.starts_with("self.")) {
        std::string_view rest = target.substr(5);
        while (!rest.empty()) {
            size_t dot = rest.find('.');
            path.emplace_back(rest.substr(0, dot));
            if (dot == std::string_view::npos) break;
            rest.remove_prefix(dot + 1);
        }
        if (kind == NodeKind::Attribute && path.size() > 1) path.pop_back();  // the parameter itself
        return path;
    }
    // Dynamo names lifted parameters after their access path: l_self_modules_fc1_parameters_weight_,
    // l_fn_self_modules_layers_modules_0_modules_attn_buffers_mask_. Module names may hold underscores, so
    // segments end only where the next keyword starts.
    constexpr std::string_view kStart = "self_modules_";
    size_t start = name.find(kStart);
    if (start == std::string_view::npos) return path;
    std::string_view rest = name.substr(start + kStart.size() - std::string_view("modules_").size());
    while (rest.starts_with("modules_")) {
        rest.remove_prefix(8);
        size_t end = std::string_view::npos;
        for (std::string_view keyword : {"_modules_", "_parameters_", "_buffers_"}) end = std::min(end, rest.find(keyword));
        if (end == std::string_view::npos) {
            std::string_view last = rest.ends_with('_') ? rest.substr(0, rest.size() - 1) : rest;
            if (!last.empty()) path.emplace_back(last);
            break;
        }
        path.emplace_back(rest.substr(0, end));
        rest.remove_prefix(end + 1);
    }
    return path;
}

std::string graphBaseTitle(const traces::Graph& graph) {
    return graph.kind == traces::GraphKind::Other && !graph.name.empty() ? graph.name : graphKindTitle(graph.kind);
}

std::string graphKindTitle(traces::GraphKind kind) {
    switch (kind) {
        case traces::GraphKind::Dynamo: return "Dynamo";
        case traces::GraphKind::AotJoint: return "AOT joint";
        case traces::GraphKind::AotForward: return "AOT forward";
        case traces::GraphKind::AotBackward: return "AOT backward";
        case traces::GraphKind::AotInference: return "AOT inference";
        case traces::GraphKind::PreGrad: return "pre-grad";
        case traces::GraphKind::PostGrad: return "post-grad";
        case traces::GraphKind::JointPass: return "joint pass";
        case traces::GraphKind::CompiledAutograd: return "compiled autograd";
        case traces::GraphKind::DdpSplit: return "DDP split";
        case traces::GraphKind::Other: return "graph";
    }
    return "graph";
}

int GraphModel::findNode(std::string_view name) const {
    auto it = indexByName.find(std::string(name));
    return it == indexByName.end() ? -1 : it->second;
}

std::vector<std::vector<int>> GraphModel::usersOfNodes() const {
    std::vector<std::vector<int>> users(nodes.size());
    for (const GraphModelEdge& edge : edges) users[static_cast<size_t>(edge.from)].push_back(edge.to);
    return users;
}

ModuleDonors moduleDonorsOf(const std::vector<const traces::Graph*>& compileGraphs) {
    ModuleDonors donors;
    for (const traces::Graph* graph : compileGraphs)
        if (graph->kind == traces::GraphKind::Dynamo && !donors.dynamo) donors.dynamo = std::make_shared<GraphModel>(buildGraphModel(*graph));
    for (const traces::Graph* graph : compileGraphs)
        if (graph->kind == traces::GraphKind::AotForward && !donors.forward)
            donors.forward = std::make_shared<GraphModel>(buildGraphModel(*graph, &donors));
    return donors;
}

GraphModel buildGraphModel(const traces::Graph& graph, const ModuleDonors* donors) {
    GraphModel model;
    model.graphId = graph.id;
    model.kind = graph.kind;
    model.title = graphBaseTitle(graph);
    model.nodes.reserve(graph.nodes.size());
    for (const traces::GraphNode& source : graph.nodes) {
        GraphModelNode node;
        node.index = static_cast<int>(model.nodes.size());
        node.name = source.name;
        node.kind = nodeKindOf(source.op);
        node.shortTarget = shortTargetOf(source.target);
        node.opName = opNameOf(source.op, source.target);
        node.tensorText = tensorTextOf(source);
        node.args = source.args;
        if (!source.sourceFile.empty())
            node.sourceText = fileNameOf(source.sourceFile) + ":" + std::to_string(source.sourceLine);
        node.foldPath = modulePathOf(source.name, source.op, source.target);
        model.indexByName.emplace(node.name, node.index);
        model.nodes.push_back(std::move(node));
    }
    std::unordered_set<uint64_t> seen;
    for (size_t to = 0; to < graph.nodes.size(); ++to) {
        for (const std::string& input : graph.nodes[to].inputs) {
            int from = model.findNode(input);
            if (from < 0 || static_cast<size_t>(from) == to) continue;
            uint64_t key = (static_cast<uint64_t>(from) << 32) | to;
            if (seen.insert(key).second) model.edges.push_back({from, static_cast<int>(to)});
        }
    }
    if (donors) adoptModulePaths(model, *donors);
    inheritModulePaths(model);
    for (GraphModelNode& node : model.nodes) {
        const traces::GraphNode& source = graph.nodes[static_cast<size_t>(node.index)];
        node.foldSource = FoldSource::Module;
        if (node.foldPath.empty() && !source.sourceFile.empty()) {
            std::string function = source.sourceFunction.empty() ? fileNameOf(source.sourceFile) : source.sourceFunction;
            node.foldPath = {function, "line " + std::to_string(source.sourceLine)};
            node.foldSource = FoldSource::SourceLine;
        }
        if (node.foldPath.empty()) {
            node.foldPath = {std::string(withoutNumericSuffix(source.name))};
            node.foldSource = FoldSource::Name;
        }
    }
    return model;
}

}  // namespace viz

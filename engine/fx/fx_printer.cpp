// torch.fx's Python code generation for a captured graph: operators print as expressions, other calls as
// qualified calls with `key = value` keywords, and each line frees the values it used last (`;  a = b = None`).
#include "fx/fx_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "python/python_repr.h"
#include "ops/operators.h"

namespace eng::fx {

namespace {

/// The symbol of an operator node from its FX target (operator.add: "+"); FX prints an in-place operator as its
/// plain expression (operator.iadd(a, b) is `a + b`).
std::string_view operatorSymbol(const Node& node) {
    const std::string_view function = std::string_view(node.target).substr(node.target.rfind('.') + 1);
    switch (node.callKind) {
        case CallKind::Binary:
            if (auto operand = ops::binaryOperatorByFunction(function)) return ops::info(operand->op).symbol;
            break;
        case CallKind::Compare:
            if (auto op = ops::compareOperatorByFunction(function)) return ops::info(*op).symbol;
            break;
        case CallKind::Unary:
            if (auto op = ops::unaryOperatorByFunction(function)) return ops::info(*op).symbol;
            break;
        default: break;
    }
    return "?";
}

std::string shortDtype(tensor::DType dtype) {
    switch (dtype) {
        case tensor::DType::Bool: return "b8";
        case tensor::DType::UInt8: return "u8";
        case tensor::DType::Int8: return "i8";
        case tensor::DType::Int16: return "i16";
        case tensor::DType::Int32: return "i32";
        case tensor::DType::Int64: return "i64";
        case tensor::DType::Float16: return "f16";
        case tensor::DType::BFloat16: return "bf16";
        case tensor::DType::Float32: return "f32";
        case tensor::DType::Float64: return "f64";
        case tensor::DType::Complex64: return "c64";
        case tensor::DType::Complex128: return "c128";
    }
    return "?";
}

std::string argText(const Arg& arg) {
    switch (arg.kind) {
        case Arg::Kind::NodeRef: return arg.node->name;
        case Arg::Kind::Constant: return constantText(arg.constant);
        case Arg::Kind::List:
        case Arg::Kind::Tuple: {
            std::string out = arg.kind == Arg::Kind::List ? "[" : "(";
            for (size_t i = 0; i < arg.items.size(); ++i) out += (i ? ", " : "") + argText(arg.items[i]);
            if (arg.kind == Arg::Kind::Tuple && arg.items.size() == 1) out += ",";
            return out + (arg.kind == Arg::Kind::List ? "]" : ")");
        }
        case Arg::Kind::Slice: {
            std::string out = "slice(";
            for (size_t i = 0; i < arg.items.size(); ++i) out += (i ? ", " : "") + argText(arg.items[i]);
            return out + ")";
        }
    }
    return "?";
}

std::string callText(const Node& node) {
    std::vector<std::string> parts;
    for (const Arg& a : node.args) parts.push_back(argText(a));
    for (const auto& [key, a] : node.kwargs) parts.push_back(key + " = " + argText(a));
    auto joined = [&](size_t from) {
        std::string out;
        for (size_t i = from; i < parts.size(); ++i) out += (i > from ? ", " : "") + parts[i];
        return out;
    };
    switch (node.op) {
        case NodeOp::CallMethod: return fmt::format("{}.{}({})", parts.at(0), node.target, joined(1));
        case NodeOp::CallModule: return fmt::format("self.{}({})", node.target, joined(0));
        case NodeOp::GetAttr: return "self." + node.target;
        default: break;
    }
    switch (node.callKind) {
        case CallKind::Binary:
        case CallKind::Compare: return fmt::format("{} {} {}", parts.at(0), operatorSymbol(node), parts.at(1));
        case CallKind::Unary: return std::string(operatorSymbol(node)) + parts.at(0);
        case CallKind::GetItem: return fmt::format("{}[{}]", parts.at(0), parts.at(1));
        default: return fmt::format("{}({})", node.target, joined(0));
    }
}

/// A node's assignment line: `name = call`, or FX's form of an in-place operator.setitem, `x[key] = value;  name = x`.
std::string assignmentText(const Node& node, const std::string& annotatedName) {
    if (node.op == NodeOp::CallFunction && node.target == "operator.setitem" && node.args.size() == 3)
        return fmt::format("{}[{}] = {};  {} = {}", argText(node.args[0]), argText(node.args[1]), argText(node.args[2]), annotatedName,
                           argText(node.args[0]));
    return annotatedName + " = " + callText(node);
}

void collectNodes(const Arg& arg, std::vector<Node*>& out) {
    if (arg.kind == Arg::Kind::NodeRef) out.push_back(arg.node);
    for (const Arg& item : arg.items) collectNodes(item, out);
}

/// FX's delete_unused_values: for each node, the values whose last use it is (in argument order), and the
/// node itself when nothing uses it.
std::map<const Node*, std::vector<const Node*>> lastUses(const Graph& graph) {
    std::map<const Node*, std::vector<const Node*>> out;
    std::map<const Node*, bool> seen;
    std::map<const Node*, bool> used;
    const auto& nodes = graph.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        std::vector<Node*> inputs;
        for (const Arg& a : (*it)->args) collectNodes(a, inputs);
        for (const auto& kw : (*it)->kwargs) collectNodes(kw.second, inputs);
        for (Node* input : inputs) {
            used[input] = true;
            if (seen[input]) continue;
            seen[input] = true;
            if ((*it)->op != NodeOp::Output) out[it->get()].push_back(input);
        }
    }
    for (const auto& node : nodes)
        if (node->op != NodeOp::Placeholder && node->op != NodeOp::Output && !used[node.get()])
            out[node.get()].push_back(node.get());
    return out;
}

std::string deletions(const std::map<const Node*, std::vector<const Node*>>& uses, const Node* node) {
    auto it = uses.find(node);
    if (it == uses.end() || it->second.empty()) return "";
    std::string out = ";  ";
    for (const Node* n : it->second) out += n->name + " = ";
    return out + "None";
}

std::string outputText(const Node& output) { return "return " + argText(output.args.at(0)); }

std::string irArgText(const Arg& arg) {
    switch (arg.kind) {
        case Arg::Kind::NodeRef: return "%" + arg.node->name;
        case Arg::Kind::Constant: return constantText(arg.constant);
        default: {
            std::string out = arg.kind == Arg::Kind::List ? "[" : arg.kind == Arg::Kind::Tuple ? "(" : "slice(";
            for (size_t i = 0; i < arg.items.size(); ++i) out += (i ? ", " : "") + irArgText(arg.items[i]);
            if (arg.kind == Arg::Kind::Tuple && arg.items.size() == 1) out += ",";
            return out + (arg.kind == Arg::Kind::List ? "]" : ")");
        }
    }
}

}  // namespace

std::string graphIrText(const Graph& graph) {
    std::map<const Node*, int> users;
    for (const auto& node : graph.nodes()) {
        std::vector<Node*> inputs;
        for (const Arg& a : node->args) collectNodes(a, inputs);
        for (const auto& kw : node->kwargs) collectNodes(kw.second, inputs);
        std::set<Node*> distinct(inputs.begin(), inputs.end());
        for (Node* input : distinct) ++users[input];
    }
    std::string out = "graph():\n";
    for (const auto& node : graph.nodes()) {
        if (node->op == NodeOp::Output) {
            out += "    return " + argText(node->args.at(0)) + "\n";
            continue;
        }
        std::string type = node->op == NodeOp::Placeholder ? node->typeName + " " : "";
        out += fmt::format("    %{} : {}[num_users={}] = {}[target={}]", node->name, type, users[node.get()], toString(node->op), node->target);
        if (node->op != NodeOp::Placeholder && node->op != NodeOp::GetAttr) {
            std::string args;
            for (size_t i = 0; i < node->args.size(); ++i) args += (i ? ", " : "") + irArgText(node->args[i]);
            if (node->args.size() == 1) args += ",";
            std::string kwargs;
            for (size_t i = 0; i < node->kwargs.size(); ++i)
                kwargs += fmt::format("{}{}: {}", i ? ", " : "", node->kwargs[i].first, irArgText(node->kwargs[i].second));
            out += fmt::format("(args = ({}), kwargs = {{{}}})", args, kwargs);
        }
        out += "\n";
    }
    return out;
}

std::string constantText(const vm::Value& value) {
    switch (value.kind()) {
        case vm::Kind::None: return "None";
        case vm::Kind::Bool: return value.asBool() ? "True" : "False";
        case vm::Kind::Int: return std::to_string(value.asInt());
        case vm::Kind::Float: return python::floatRepr(value.asFloat());
        case vm::Kind::Str: return python::stringRepr(value.str());
        case vm::Kind::DType: return "torch." + std::string(tensor::dtypeName(value.as<vm::DTypeObject>().value));
        case vm::Kind::Device: return fmt::format("device(type='{}')", value.as<vm::DeviceObject>().value.str());
        case vm::Kind::Ellipsis: return "Ellipsis";
        case vm::Kind::Tuple:
        case vm::Kind::List: {
            const auto& items = value.is(vm::Kind::List) ? value.as<vm::ListObject>().items : value.as<vm::TupleObject>().items;
            std::string out = value.is(vm::Kind::List) ? "[" : "(";
            for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + constantText(items[i]);
            if (value.is(vm::Kind::Tuple) && items.size() == 1) out += ",";
            return out + (value.is(vm::Kind::List) ? "]" : ")");
        }
        case vm::Kind::Slice: {
            auto& s = value.as<vm::SliceObject>();
            return fmt::format("slice({}, {}, {})", constantText(s.start), constantText(s.stop), constantText(s.step));
        }
        case vm::Kind::Set: {
            const auto& set = value.as<vm::SetObject>();
            if (set.items.empty()) return set.frozen ? "frozenset()" : "set()";
            std::string out;
            for (size_t i = 0; i < set.items.size(); ++i) out += (i ? ", " : "") + constantText(set.items[i]);
            return set.frozen ? "frozenset({" + out + "})" : "{" + out + "}";
        }
        default: return "<object>";
    }
}

std::string metaText(const Graph& graph, const Node& node) {
    const vm::Value& example = node.example;
    if (example.is(vm::Kind::Float)) {
        for (const auto& [symbol, n] : graph.symbols)
            if (n->example.is(vm::Kind::Float) && n->example.asFloat() == example.asFloat()) return "Sym(" + symbol + ")";
        return "";
    }
    if (example.is(vm::Kind::Int)) {
        for (const auto& [symbol, n] : graph.symbols)
            if (n->example.is(vm::Kind::Int) && n->example.asInt() == example.asInt()) return "Sym(" + symbol + ")";
        return "Sym(" + std::to_string(example.asInt()) + ")";
    }
    const std::optional<TensorMeta> tensor = tensorMeta(graph, node);
    return tensor ? tensor->dtype + tensor->shape + tensor->stride + tensor->device : "";
}

std::optional<TensorMeta> tensorMeta(const Graph& graph, const Node& node) {
    if (!node.example.is(vm::Kind::Tensor)) return std::nullopt;
    const tensor::Tensor& t = node.example.tensor();
    // Each dimension prints as the symbol the tracer carried on it (tracer.cpp, inferDimSymbols), else its size.
    auto dimText = [&](size_t d) {
        if (d < node.dimSymbols.size() && !node.dimSymbols[d].empty()) return node.dimSymbols[d];
        return std::to_string(t.sizes()[d]);
    };
    std::string sizes, strides;
    for (size_t i = 0; i < t.sizes().size(); ++i) {
        sizes += (i ? ", " : "") + dimText(i);
        // A stride that is a product of dynamic sizes prints as that product.
        int64_t stride = t.strides()[i];
        std::string strideText = std::to_string(stride);
        if (!graph.symbols.empty() && stride > 1) {
            std::string product;
            int64_t rest = stride;
            for (size_t j = i + 1; j < t.sizes().size() && rest > 1; ++j)
                if (rest % t.sizes()[j] == 0) {
                    product += (product.empty() ? "" : "*") + dimText(j);
                    rest /= t.sizes()[j];
                }
            if (rest == 1 && !product.empty()) strideText = product;
        }
        strides += (i ? ", " : "") + strideText;
    }
    return TensorMeta{shortDtype(t.dtype()), "[" + sizes + "]", "[" + strides + "]", t.device().isCpu() ? "cpu" : t.device().str()};
}

std::string graphSizes(const Graph& graph, const std::string& name) {
    std::string text = "TRACED GRAPH TENSOR SIZES\n===== " + name + " =====\n";
    auto tuple = [](const std::vector<std::string>& items) {
        return "(" + fmt::format("{}", fmt::join(items, ", ")) + (items.size() == 1 ? ",)" : ")");
    };
    for (const auto& node : graph.nodes()) {
        if (!node->example.is(vm::Kind::Tensor)) continue;
        const tensor::Tensor& t = node->example.tensor();
        std::vector<std::string> sizes, concrete;
        bool symbolic = false;
        for (size_t d = 0; d < t.sizes().size(); ++d) {
            const bool hasSymbol = d < node->dimSymbols.size() && !node->dimSymbols[d].empty();
            symbolic = symbolic || hasSymbol;
            sizes.push_back(hasSymbol ? node->dimSymbols[d] : std::to_string(t.sizes()[d]));
            concrete.push_back(std::to_string(t.sizes()[d]));
        }
        text += node->name + ": " + tuple(sizes) + "\n";
        if (symbolic) text += node->name + " (concrete): " + tuple(concrete) + "\n";
    }
    return text;
}

traces::Graph graphRow(const Graph& graph) {
    traces::Graph row;
    row.kind = traces::GraphKind::Dynamo;
    row.name = "dynamo_output_graph";
    row.text = readableGraph(graph);
    row.nodes = graphNodeRows(graph);
    return row;
}

int callNodeCount(const Graph& graph) {
    int count = 0;
    for (const auto& node : graph.nodes())
        if (node->op == NodeOp::CallFunction || node->op == NodeOp::CallMethod || node->op == NodeOp::CallModule) ++count;
    return count;
}

std::vector<traces::GraphNode> graphNodeRows(const Graph& graph) {
    std::vector<traces::GraphNode> rows;
    for (const auto& node : graph.nodes()) {
        traces::GraphNode row;
        row.index = static_cast<int>(rows.size());
        row.name = node->name;
        row.op = toString(node->op);
        row.target = node->target;
        std::vector<Node*> inputs;
        for (const Arg& a : node->args) {
            row.args += (row.args.empty() ? "" : ", ") + argText(a);
            collectNodes(a, inputs);
        }
        for (const auto& [key, a] : node->kwargs) {
            row.args += (row.args.empty() ? "" : ", ") + key + " = " + argText(a);
            collectNodes(a, inputs);
        }
        for (const Node* input : inputs)
            if (std::find(row.inputs.begin(), row.inputs.end(), input->name) == row.inputs.end()) row.inputs.push_back(input->name);
        if (const std::optional<TensorMeta> meta = tensorMeta(graph, *node)) {
            row.dtype = meta->dtype;
            row.shape = meta->shape;
            row.stride = meta->stride;
            row.device = meta->device;
        }
        row.sourceFile = node->file.str();
        row.sourceLine = node->line;
        row.sourceFunction = node->function.str();
        row.sourceCode = node->code.str();
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string graphCode(const Graph& graph) {
    auto uses = lastUses(graph);
    std::string signature = "self";
    std::string body;
    for (Node* p : graph.placeholders()) {
        signature += p->typeName.empty() ? ", " + p->target : fmt::format(", {} : {}", p->target, p->typeName);
        if (p->name != p->target) body += fmt::format("    {} = {}\n", p->name, p->target);
    }
    for (const auto& node : graph.nodes()) {
        if (node->op == NodeOp::Placeholder) continue;
        if (node->op == NodeOp::Output) {
            body += "    " + outputText(*node) + "\n    ";
            continue;
        }
        body += fmt::format("    {}{}\n", assignmentText(*node, node->name), deletions(uses, node.get()));
    }
    return fmt::format("\n\n\ndef forward({}):\n{}", signature, body);
}

namespace {

/// print_readable's text of one GraphModule at `indent`, followed by the GraphModules of its subgraphs (a
/// torch.cond's branches) nested in it as torch prints submodule classes.
std::string readableModule(const Graph& graph, const std::string& className, const std::string& indent) {
    auto uses = lastUses(graph);
    const std::string body1 = indent + "        ";
    std::string signature = "self";
    std::string body;
    for (Node* p : graph.placeholders()) {
        signature += fmt::format(", {}: \"{}\"", p->target, metaText(graph, *p));
        if (p->name != p->target) body += fmt::format("{}{} = {}\n", body1, p->name, p->target);
    }
    std::string lastLocation;
    std::string nested;
    for (const auto& node : graph.nodes()) {
        if (node->op == NodeOp::Placeholder) continue;
        if (node->op == NodeOp::Output) {
            body += body1 + outputText(*node) + "\n";
            continue;
        }
        if (node->subgraph) nested += "\n" + readableModule(*node->subgraph, node->target, indent + "    ");
        std::string location = fmt::format("{}:{} in {}", node->file.str(), node->line, node->function.str());
        if (!node->file.empty() && location != lastLocation) {
            body += fmt::format("\n{}# File: {}, code: {}\n", body1, location, node->code.str());
            lastLocation = location;
        }
        std::string meta = metaText(graph, *node);
        body += fmt::format("{}{}{}\n", body1, assignmentText(*node, node->name + (meta.empty() ? "" : ": \"" + meta + "\"")),
                            deletions(uses, node.get()));
    }
    return fmt::format("{}class {}(torch.nn.Module):\n{}    def forward({}):\n{}{}", indent, className, indent, signature, body, nested);
}

}  // namespace

std::string readableGraph(const Graph& graph) { return readableModule(graph, "GraphModule", ""); }

}  // namespace eng::fx

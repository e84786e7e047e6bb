// GraphBuilder: new nodes run on their arguments' example values when they are added (grad mode off, so the
// examples record no autograd), and take their dimension symbols from their inputs as captured nodes do.
#include "aot/graph_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "fx/graph_runner.h"
#include "tensor/autograd/grad_mode.h"

namespace eng::aot {

using fx::Arg;
using fx::Node;

const tensor::Tensor* exampleTensor(const Node& node) {
    return node.example.is(vm::Kind::Tensor) ? &node.example.as<vm::TensorObject>().value : nullptr;
}

Arg GraphBuilder::ints(const std::vector<int64_t>& values) {
    std::vector<Arg> items;
    for (int64_t v : values) items.push_back(constant(vm::Value(v)));
    return Arg::ofItems(Arg::Kind::List, std::move(items));
}

Node* GraphBuilder::placeholder(const std::string& name, const Node& like, vm::Value example) {
    Node* node = graph_.addPlaceholder(name, std::move(example), like.typeName);
    node->dimSymbols = like.dimSymbols;
    for (const auto& [symbol, carrier] : graph_.symbols)
        if (carrier == &like) graph_.symbols[symbol] = node;
    return node;
}

Node* GraphBuilder::copy(const Node& node, const std::map<const Node*, Node*>& remap, const std::string& namePrefix) {
    std::function<Arg(const Arg&)> mapArg = [&](const Arg& a) {
        Arg out = a;
        if (a.kind == Arg::Kind::NodeRef) {
            auto found = remap.find(a.node);
            if (found == remap.end()) throw std::logic_error("GraphBuilder::copy: unmapped argument " + a.node->name);
            out.node = found->second;
        }
        for (Arg& item : out.items) item = mapArg(item);
        return out;
    };
    std::vector<Arg> args;
    for (const Arg& a : node.args) args.push_back(mapArg(a));
    std::vector<fx::KwArg> kwargs;
    for (const auto& [key, a] : node.kwargs) kwargs.emplace_back(key, mapArg(a));
    Node* out = graph_.addCall(node.op, node.target, namePrefix + node.name, std::move(args), std::move(kwargs));
    out->callKind = node.callKind;
    out->callee = node.callee;
    out->subgraph = node.subgraph;
    out->example = node.example;
    out->typeName = node.typeName;
    out->file = node.file;
    out->line = node.line;
    out->function = node.function;
    out->code = node.code;
    out->dimSymbols = node.dimSymbols;
    return out;
}

vm::Value GraphBuilder::exampleOf(const Arg& arg) const {
    switch (arg.kind) {
        case Arg::Kind::NodeRef: return arg.node->example;
        case Arg::Kind::Constant: return arg.constant;
        case Arg::Kind::List:
        case Arg::Kind::Tuple: {
            vm::ValueList items;
            for (const Arg& item : arg.items) items.push_back(exampleOf(item));
            return arg.kind == Arg::Kind::List ? vm::makeList(std::move(items)) : vm::makeTuple(std::move(items));
        }
        case Arg::Kind::Slice: break;
    }
    throw std::logic_error("GraphBuilder: slices are not built");
}

Node* GraphBuilder::finish(Node* node) {
    vm::ValueList args;
    for (const Arg& a : node->args) args.push_back(exampleOf(a));
    vm::KwArgs kwargs;
    for (const auto& [key, a] : node->kwargs) kwargs.emplace_back(key, exampleOf(a));
    tensor::autograd::GradModeGuard noGrad(false);
    node->example = fx::callNode(vm_, *node, std::move(args), std::move(kwargs));
    fx::inferDimSymbols(*node);
    return node;
}

Node* GraphBuilder::method(const std::string& name, Node* self, std::vector<Arg> args, std::vector<fx::KwArg> kwargs) {
    args.insert(args.begin(), ref(self));
    return finish(graph_.addCall(fx::NodeOp::CallMethod, name, name, std::move(args), std::move(kwargs)));
}

Node* GraphBuilder::torchFunction(const std::string& name, std::vector<Arg> args, std::vector<fx::KwArg> kwargs) {
    Node* node = graph_.addCall(fx::NodeOp::CallFunction, "torch." + name, name, std::move(args), std::move(kwargs));
    node->callKind = fx::CallKind::Callable;
    vm::Value callee = vm_.modules().at("torch");
    for (size_t start = 0; start <= name.size();) {
        const size_t dot = std::min(name.find('.', start), name.size());
        callee = vm_.getAttr(callee, name.substr(start, dot - start));
        start = dot + 1;
    }
    node->callee = callee;
    return finish(node);
}

Node* GraphBuilder::binaryOperator(ops::BinaryOperator op, Arg a, Arg b) {
    const std::string name(ops::info(op).function);
    Node* node = graph_.addCall(fx::NodeOp::CallFunction, "operator." + name, name, {std::move(a), std::move(b)}, {});
    node->callKind = fx::CallKind::Binary;
    finish(node);
    node->typeName = node->example.is(vm::Kind::Tensor) ? "torch.Tensor" : "torch.SymInt";
    return node;
}

Node* GraphBuilder::item(Node* several, int64_t index) {
    Node* node = graph_.addCall(fx::NodeOp::CallFunction, "operator.getitem", "getitem", {ref(several), constant(vm::Value(index))}, {});
    node->callKind = fx::CallKind::GetItem;
    return finish(node);
}

Arg GraphBuilder::sizesOf(const Node& node) const {
    const tensor::Tensor* t = exampleTensor(node);
    if (!t) throw std::logic_error("GraphBuilder::sizesOf: " + node.name + " is not a tensor");
    std::vector<Arg> items;
    for (int64_t d = 0; d < t->dim(); ++d) {
        const std::string symbol = static_cast<size_t>(d) < node.dimSymbols.size() ? node.dimSymbols[static_cast<size_t>(d)] : "";
        auto carrier = symbol.empty() ? graph_.symbols.end() : graph_.symbols.find(symbol);
        if (carrier != graph_.symbols.end()) items.push_back(ref(carrier->second));
        else if (!symbol.empty()) throw AotUnsupported(fmt::format("the size symbol {} of {} has no SymInt input", symbol, node.name));
        else items.push_back(constant(vm::Value(t->sizes()[static_cast<size_t>(d)])));
    }
    return Arg::ofItems(Arg::Kind::List, std::move(items));
}

void releaseExampleData(const std::vector<const fx::Graph*>& graphs, size_t minBytes) {
    std::map<const tensor::Storage*, tensor::StoragePtr> standIns;
    auto release = [&](vm::Value& v) {
        if (!v.is(vm::Kind::Tensor)) return;
        const tensor::Tensor& t = v.as<vm::TensorObject>().value;
        if (!t.defined() || t.nbytes() < minBytes) return;
        tensor::StoragePtr& empty = standIns[t.storage().get()];
        if (!empty) empty = std::make_shared<tensor::Storage>(0, t.device());
        tensor::Tensor standIn(empty, t.sizes(), t.strides(), t.storageOffset(), t.dtype());
        standIn.setRequiresGrad(t.requiresGrad());
        v = vm::makeTensor(std::move(standIn));
    };
    for (const fx::Graph* graph : graphs) {
        if (!graph) continue;
        for (const auto& node : graph->nodes()) {
            if (node->example.is(vm::Kind::Tuple)) {
                // A new tuple: the old one may be another graph's example too.
                const vm::TupleObject& old = node->example.as<vm::TupleObject>();
                vm::ValueList items = old.items;
                for (vm::Value& item : items) release(item);
                vm::Value copy = vm::makeTuple(std::move(items));
                copy.as<vm::TupleObject>().typeName = old.typeName;
                copy.as<vm::TupleObject>().fieldNames = old.fieldNames;
                node->example = std::move(copy);
            } else {
                release(node->example);
            }
        }
    }
}

}  // namespace eng::aot

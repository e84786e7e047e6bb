// freezing (torch._inductor.config.freezing) in lowering: with grad mode off, the graph's parameters and buffers are
// constants, and every node computed from them alone by a deterministic op (a weight's transpose or cast, a scale)
// is computed once at compile time into a constant buffer instead of on every call (Inductor's constant folding).
#include <fmt/format.h>

#include <set>

#include "fx/graph_runner.h"
#include "inductor/lowering_registry.h"
#include "tensor/conversion.h"

namespace eng::inductor::lowering {

namespace {

/// A graph input the module owns: an nn.Parameter, or a registered buffer (Dynamo's L_self_buffers_..._ source).
bool isModuleState(const fx::Node& node, const vm::Value& example) {
    if (!example.is(vm::Kind::Tensor)) return false;
    return example.as<vm::TensorObject>().parameter || node.target.find("_buffers_") != std::string::npos;
}

void forEachNodeRef(const fx::Arg& arg, const std::function<void(const fx::Node*)>& visit) {
    if (arg.kind == fx::Arg::Kind::NodeRef) visit(arg.node);
    for (const fx::Arg& item : arg.items) forEachNodeRef(item, visit);
}

}  // namespace

void Lowering::chooseFrozenInputs() {
    std::vector<std::string> names;
    size_t inputIndex = 0;
    for (const auto& owned : source_.nodes()) {
        if (owned->op != fx::NodeOp::Placeholder) continue;
        const vm::Value& example = examples_.at(inputIndex);
        if (isModuleState(*owned, example)) {
            frozen_[owned.get()] = example.as<vm::TensorObject>().value;
            names.push_back(fmt::format("arg{}_1 ({})", inputIndex, owned->name));
        }
        ++inputIndex;
    }
    if (frozen_.empty()) return;
    // A write into a parameter, or through a view of one, must reach the module as it does eagerly: a graph that
    // makes one keeps its parameters as inputs.
    std::set<const fx::Node*> viewsOfFrozen;
    for (const auto& [node, value] : frozen_) viewsOfFrozen.insert(node);
    for (const auto& owned : source_.nodes()) {
        const fx::Node& node = *owned;
        if (node.op == fx::NodeOp::Placeholder || node.op == fx::NodeOp::Output || node.args.empty()) continue;
        const fx::Node* self = node.args[0].kind == fx::Arg::Kind::NodeRef ? node.args[0].node : nullptr;
        if (!self || !viewsOfFrozen.contains(self)) continue;
        if (nodeIsInPlace(node)) {
            frozen_.clear();
            graph_.passNotes.push_back(fmt::format("freezing: nothing frozen: {} ({}) writes {}, a parameter or a view of one", node.name,
                                                   node.target, self->name));
            return;
        }
        if (viewOpOf(nodeOpName(node))) viewsOfFrozen.insert(&node);
    }
    graph_.passNotes.push_back(fmt::format("freezing: parameters and buffers are constants of this graph: {}", fmt::join(names, ", ")));
}

std::optional<LValue> Lowering::foldFrozen(const fx::Node& node) {
    if (frozen_.empty() || node.op == fx::NodeOp::CallModule || !node.example.is(vm::Kind::Tensor) || nodeIsInPlace(node) ||
        touchesComplex(node))
        return std::nullopt;
    // Registry ops are deterministic (random ops have no lowering and run as extern kernels on every call).
    const std::string op = nodeOpName(node);
    if (!LoweringRegistry::instance().find(op)) return std::nullopt;
    bool readsFrozen = false, onlyConstants = true;
    int64_t frozenElements = 0;
    auto visit = [&](const fx::Node* input) {
        if (auto it = frozen_.find(input); it != frozen_.end()) {
            readsFrozen = true;
            frozenElements += it->second.numel();
        } else if (values_.at(input).kind != LValue::Kind::Number) {
            onlyConstants = false;  // a tensor input, or a size that changes between calls
        }
    };
    for (const fx::Arg& arg : node.args) forEachNodeRef(arg, visit);
    for (const auto& kw : node.kwargs) forEachNodeRef(kw.second, visit);
    if (!readsFrozen || !onlyConstants) return std::nullopt;
    // What the caller receives stays its own tensor; a broadcast is not made into a larger constant than it reads.
    for (const fx::Arg& item : source_.output()->args.at(0).items)
        if (item.kind == fx::Arg::Kind::NodeRef && item.node == &node) return std::nullopt;
    if (node.example.as<vm::TensorObject>().value.numel() > frozenElements) return std::nullopt;

    std::vector<std::string> operands;
    const vm::Value result = fx::callNodeOn(*options_.vm, node, [&](const fx::Node& read) {
        if (auto it = frozen_.find(&read); it != frozen_.end()) {
            operands.push_back(read.name);
            return vm::makeTensor(it->second);
        }
        return values_.at(&read).number;
    });
    if (!result.is(vm::Kind::Tensor)) return std::nullopt;
    // Kept contiguous: a folded transpose is read row by row by the kernels and libraries that use it.
    const tensor::Tensor constant = tensor::contiguous(result.as<vm::TensorObject>().value);

    GraphBuffer b;
    b.name = newBufferName();
    b.kind = BufferKind::Extern;
    b.dtype = constant.dtype();
    for (int64_t size : constant.sizes()) b.sizes.push_back(indexConstant(size));
    b.strides = contiguousStrides(b.sizes);
    b.originNodes = {node.name};
    b.extern_.op = "constant";
    b.extern_.node = &node;
    b.extern_.foldedConstant = fmt::format("{}({})", op, fmt::join(operands, ", "));
    b.extern_.call = [constant](vm::Interpreter&, const vm::ValueList&, const SymbolValues&) { return vm::makeTensor(constant); };
    graph_.opOfNode[node.name] = op;
    graph_.passNotes.push_back(fmt::format("freezing: {} = {} folded at compile time", b.name, b.extern_.foldedConstant));
    frozen_[&node] = constant;
    return bufferValue(graph_.add(std::move(b)).id);
}

}  // namespace eng::inductor::lowering

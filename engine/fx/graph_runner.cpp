// The graph interpreter of the eager backends: one VM call per node, values kept per node and dropped after
// their last use so that memory behaves like the generated code's `x = None`.
#include "fx/graph_runner.h"

#include <fmt/format.h>

#include <stdexcept>
#include <unordered_map>

namespace eng::fx {

vm::Value applyUnary(ops::UnaryOperator op, const vm::Value& operand) {
    if (operand.is(vm::Kind::Tensor)) return vm::callOp(fmt::format("Tensor.__{}__", ops::info(op).function), {operand});
    if (op == ops::UnaryOperator::Negative) return operand.is(vm::Kind::Float) ? vm::Value(-operand.asFloat()) : vm::Value(-operand.asInt());
    if (op == ops::UnaryOperator::Invert) return vm::Value(~operand.asInt());
    return operand;
}

vm::Value applyOperator(vm::Interpreter& vm, CallKind kind, std::string_view target, const vm::ValueList& args) {
    const std::string_view function = target.substr(target.rfind('.') + 1);  // operator.add -> add
    switch (kind) {
        case CallKind::Binary:
            if (auto operand = ops::binaryOperatorByFunction(function))
                return vm.binaryOp(ops::binaryOpArg(operand->op, operand->inplace), args.at(0), args.at(1));
            break;
        case CallKind::Compare:
            if (auto op = ops::compareOperatorByFunction(function)) return vm.compare(static_cast<uint32_t>(*op), args.at(0), args.at(1));
            break;
        case CallKind::Unary:
            if (auto op = ops::unaryOperatorByFunction(function)) return applyUnary(*op, args.at(0));
            break;
        case CallKind::GetItem: return vm.getItem(args.at(0), args.at(1));
        case CallKind::Callable: break;
    }
    throw std::logic_error(fmt::format("{} is not an operator node's target", target));
}

namespace {

vm::Value argValue(const Arg& arg, const std::function<vm::Value(const Node&)>& nodeValue) {
    switch (arg.kind) {
        case Arg::Kind::NodeRef: return nodeValue(*arg.node);
        case Arg::Kind::Constant: return arg.constant;
        case Arg::Kind::List:
        case Arg::Kind::Tuple: {
            vm::ValueList items;
            for (const Arg& item : arg.items) items.push_back(argValue(item, nodeValue));
            return arg.kind == Arg::Kind::List ? vm::makeList(std::move(items)) : vm::makeTuple(std::move(items));
        }
        case Arg::Kind::Slice:
            return vm::Value(std::make_shared<vm::SliceObject>(argValue(arg.items[0], nodeValue), argValue(arg.items[1], nodeValue),
                                                               argValue(arg.items[2], nodeValue)));
    }
    return vm::Value();
}

}  // namespace

vm::Value callMethodNode(vm::Interpreter& vm, const vm::Value& self, const std::string& target, vm::ValueList args, vm::KwArgs kwargs) {
    vm::Value attribute = vm.getAttr(self, target);
    if (attribute.is(vm::Kind::Tensor) && args.empty() && kwargs.empty()) return attribute;
    return vm.call(attribute, std::move(args), std::move(kwargs));
}

vm::Value callNode(vm::Interpreter& vm, const Node& node, vm::ValueList args, vm::KwArgs kwargs) {
    if (node.op == NodeOp::CallMethod) {
        vm::Value self = args.at(0);
        args.erase(args.begin());
        return callMethodNode(vm, self, node.target, std::move(args), std::move(kwargs));
    }
    switch (node.callKind) {
        case CallKind::Binary:
        case CallKind::Compare:
        case CallKind::Unary:
        case CallKind::GetItem: return applyOperator(vm, node.callKind, node.target, args);
        case CallKind::Callable: break;
    }
    return vm.call(node.callee, std::move(args), std::move(kwargs));
}

vm::Value callNodeOn(vm::Interpreter& vm, const Node& node, const std::function<vm::Value(const Node&)>& nodeValue) {
    vm::ValueList args;
    for (const Arg& a : node.args) args.push_back(argValue(a, nodeValue));
    vm::KwArgs kwargs;
    for (const auto& [key, a] : node.kwargs) kwargs.emplace_back(key, argValue(a, nodeValue));
    return callNode(vm, node, std::move(args), std::move(kwargs));
}

vm::ValueList runGraph(vm::Interpreter& vm, const Graph& graph, const vm::ValueList& inputs, const NodeSubstitute& substitute) {
    std::unordered_map<const Node*, vm::Value> values;
    auto valueOf = [&](const Node& n) { return values.at(&n); };
    size_t nextInput = 0;
    for (const auto& owned : graph.nodes()) {
        const Node& node = *owned;
        switch (node.op) {
            case NodeOp::Placeholder: values[&node] = inputs.at(nextInput++); break;
            case NodeOp::GetAttr: values[&node] = node.callee; break;
            case NodeOp::Output: {
                vm::ValueList out;
                for (const Arg& item : node.args.at(0).items) out.push_back(argValue(item, valueOf));
                return out;
            }
            case NodeOp::CallMethod:
            case NodeOp::CallFunction:
            case NodeOp::CallModule: {
                std::optional<vm::Value> substituted = substitute ? substitute(vm, node, valueOf) : std::nullopt;
                values[&node] = substituted ? std::move(*substituted) : callNodeOn(vm, node, valueOf);
                break;
            }
        }
    }
    return {};
}

vm::Value subgraphCallable(const std::string& name, std::shared_ptr<const Graph> graph) {
    return vm::makeNative(name, [graph](vm::Interpreter& vm, vm::CallArgs& a) {
        if (!a.keywords.empty() || a.positional.size() != graph->placeholders().size())
            throw std::logic_error("a subgraph is called with one value per placeholder");
        return vm::makeTuple(runGraph(vm, *graph, a.positional));
    });
}

}  // namespace eng::fx

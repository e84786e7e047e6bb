// The graph interpreter of the eager backends: one VM call per node, values kept per node and dropped after
// their last use so that memory behaves like the generated code's `x = None`.
#include "capture/graph_runner.h"

#include <unordered_map>

#include "frontend/opcodes.h"

namespace eng::capture {

vm::Value applyUnary(uint32_t opcode, const vm::Value& operand) {
    auto op = static_cast<frontend::Opcode>(opcode);
    if (operand.is(vm::Kind::Tensor)) {
        const char* name = op == frontend::Opcode::UnaryNegative   ? "Tensor.__neg__"
                           : op == frontend::Opcode::UnaryPositive ? "Tensor.__pos__"
                                                                   : "Tensor.__invert__";
        return vm::callOp(name, {operand});
    }
    if (op == frontend::Opcode::UnaryNegative) return operand.is(vm::Kind::Float) ? vm::Value(-operand.asFloat()) : vm::Value(-operand.asInt());
    if (op == frontend::Opcode::UnaryInvert) return vm::Value(~operand.asInt());
    return operand;
}

namespace {

vm::Value argValue(const Arg& arg, const std::unordered_map<const Node*, vm::Value>& values) {
    switch (arg.kind) {
        case Arg::Kind::NodeRef: return values.at(arg.node);
        case Arg::Kind::Constant: return arg.constant;
        case Arg::Kind::List:
        case Arg::Kind::Tuple: {
            vm::ValueList items;
            for (const Arg& item : arg.items) items.push_back(argValue(item, values));
            return arg.kind == Arg::Kind::List ? vm::makeList(std::move(items)) : vm::makeTuple(std::move(items));
        }
        case Arg::Kind::Slice:
            return vm::Value(std::make_shared<vm::SliceObject>(argValue(arg.items[0], values), argValue(arg.items[1], values),
                                                               argValue(arg.items[2], values)));
    }
    return vm::Value();
}

}  // namespace

vm::Value callNode(vm::Interpreter& vm, const Node& node, vm::ValueList args, vm::KwArgs kwargs) {
    if (node.op == NodeOp::CallMethod) {
        vm::Value self = args.at(0);
        args.erase(args.begin());
        return vm.call(vm.getAttr(self, node.target), std::move(args), std::move(kwargs));
    }
    switch (node.callKind) {
        case CallKind::Binary: return vm.binaryOp(node.operatorCode, args.at(0), args.at(1));
        case CallKind::Compare: return vm.compare(node.operatorCode, args.at(0), args.at(1));
        case CallKind::Unary: return applyUnary(node.operatorCode, args.at(0));
        case CallKind::GetItem: return vm.getItem(args.at(0), args.at(1));
        case CallKind::Callable: break;
    }
    return vm.call(node.callee, std::move(args), std::move(kwargs));
}

vm::ValueList runGraph(vm::Interpreter& vm, const Graph& graph, const vm::ValueList& inputs) {
    std::unordered_map<const Node*, vm::Value> values;
    size_t nextInput = 0;
    for (const auto& owned : graph.nodes()) {
        const Node& node = *owned;
        switch (node.op) {
            case NodeOp::Placeholder: values[&node] = inputs.at(nextInput++); break;
            case NodeOp::GetAttr: values[&node] = node.callee; break;
            case NodeOp::Output: {
                vm::ValueList out;
                for (const Arg& item : node.args.at(0).items) out.push_back(argValue(item, values));
                return out;
            }
            case NodeOp::CallMethod:
            case NodeOp::CallFunction:
            case NodeOp::CallModule: {
                vm::ValueList args;
                for (const Arg& a : node.args) args.push_back(argValue(a, values));
                vm::KwArgs kwargs;
                for (const auto& [key, a] : node.kwargs) kwargs.emplace_back(key, argValue(a, values));
                values[&node] = callNode(vm, node, std::move(args), std::move(kwargs));
                break;
            }
        }
    }
    return {};
}

}  // namespace eng::capture

// torch.cond during capture. A Python predicate (a bool or int known at trace time) picks its branch then, which is
// inlined, as Dynamo does. A tensor predicate is decided when the graph runs: one graph node,
// torch.ops.higher_order.cond(pred, true_fn, false_fn, operands), whose call runs the branch the predicate picks on
// the operands, so the frame stays one graph without a break (Dynamo's count). The branches run on the eager runtime
// inside that node rather than as traced subgraphs; a branch must therefore be a function the guards can pin (one
// read from a global or an argument, without a closure, whose cells could change between calls), else the graph
// breaks and torch.cond runs eagerly.
#include <fmt/format.h>

#include "capture/symbolic_eval.h"

namespace eng::capture {

namespace {

const char* const kCondArguments[] = {"pred", "true_fn", "false_fn", "operands"};

bool pinnableBranch(const VarRef& branch) {
    if (branch->kind != Variable::Kind::Python || !branch->source || !branch->value.is(vm::Kind::Function)) return false;
    return branch->value.as<vm::FunctionObject>().closure.empty();
}

}  // namespace

VarRef traceCond(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                 const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    std::vector<VarRef> bound(4);
    for (size_t i = 0; i < 4; ++i) {
        if (i < args.size()) bound[i] = args[i];
        for (const auto& [key, value] : kwargs)
            if (key == kCondArguments[i]) bound[i] = value;
    }
    if (!bound[3]) bound[3] = tracer.constant(vm::makeTuple({}));
    const VarRef& pred = bound[0];
    const VarRef& operands = bound[3];
    if (!pred || !bound[1] || !bound[2] || args.size() > 4)
        tracer.unsupported("torch.cond: improper args", "torch.cond takes pred, true_fn, false_fn and operands.", {}, "torch.cond");
    std::vector<VarRef> items;
    if (operands->kind == Variable::Kind::Tuple || operands->kind == Variable::Kind::List) items = operands->items;
    else if (tracer.isConstant(operands) && tracer.exampleOf(operands).is(vm::Kind::Tuple))
        for (const vm::Value& item : tracer.exampleOf(operands).as<vm::TupleObject>().items) items.push_back(tracer.constant(item));
    else tracer.unsupported("torch.cond: improper args", "Expected operands to be a list or tuple of tensors.", {}, "torch.cond");
    if (tracer.isConstant(pred)) {
        // Dynamo specializes a Python predicate: the branch it picks is traced inline, the other never.
        const vm::Value value = tracer.exampleOf(pred);
        tracer.argOf(pred);
        if (value.is(vm::Kind::Bool) || value.is(vm::Kind::Int)) return tracer.callFunction(frame, value.asInt() != 0 ? bound[1] : bound[2], items, {});
    }
    if (pred->kind != Variable::Kind::Tensor || tracer.exampleOf(pred).as<vm::TensorObject>().value.numel() != 1)
        tracer.unsupported("torch.cond: improper args", "Expected pred to be bool or single-element tensor.", {}, "torch.cond");
    for (const VarRef& branch : {bound[1], bound[2]})
        if (!pinnableBranch(branch))
            tracer.unsupported("torch.cond: unsupported branch",
                               "cwb runs torch.cond's branches when the graph runs: each must be a function read from a global or an "
                               "argument, without a closure.",
                               {"Define the branch functions at module level.", "Pass what a branch reads as operands."}, "torch.cond");
    for (const VarRef& item : items)
        if (item->kind != Variable::Kind::Tensor && !tracer.isConstant(item))
            tracer.unsupported("torch.cond: improper args", "Expected operands to be a list or tuple of tensors.", {}, "torch.cond");
    // The operands as one tuple of their graph values (a list or a constant tuple alike).
    auto operandTuple = std::make_shared<Variable>();
    operandTuple->kind = Variable::Kind::Tuple;
    operandTuple->items = items;
    operandTuple->fresh = true;
    return tracer.callTensorOp(NodeOp::CallFunction, "torch.ops.higher_order.cond", {pred, bound[1], bound[2], operandTuple}, {},
                               callable->value, CallKind::Callable);
}

}  // namespace eng::capture

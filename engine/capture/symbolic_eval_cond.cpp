// torch.cond during capture, as Dynamo's CondHigherOrderVariable. A Python predicate (a bool or int known at trace
// time) picks its branch then, which is inlined. A tensor predicate is decided when the graph runs: each branch is
// traced into a subgraph of its own (speculateSubgraph), registered as a get_attr node (cond_true_0,
// cond_false_0), and one node torch.ops.higher_order.cond(pred, cond_true_0, cond_false_0, (operands...,)) returns
// the picked branch's outputs as a tuple, read by getitem nodes; tensors a branch reads from outside (closures,
// globals) are lifted into extra operands of both branches, so the frame stays one graph (Dynamo's count).
#include <fmt/format.h>

#include <algorithm>

#include "capture/symbolic_eval.h"
#include "fx/graph_runner.h"
#include "fx/written_arguments.h"

namespace eng::capture {

namespace {

const char* const kCondArguments[] = {"pred", "true_fn", "false_fn", "operands"};

/// Dynamo's add_subgraph name: `base_N` with the first N no get_attr of the graph uses yet.
std::string subgraphName(const Graph& graph, const std::string& base) {
    for (int n = 0;; ++n) {
        std::string name = fmt::format("{}_{}", base, n);
        const bool used = std::any_of(graph.nodes().begin(), graph.nodes().end(),
                                      [&](const auto& node) { return node->op == NodeOp::GetAttr && node->target == name; });
        if (!used) return name;
    }
}

Node* addSubgraphAttr(Tracer& tracer, const std::string& base, const std::shared_ptr<Graph>& subgraph) {
    const std::string name = subgraphName(tracer.graph(), base);
    Node* node = tracer.graph().addCall(NodeOp::GetAttr, name, name, {}, {});
    node->subgraph = subgraph;
    node->callee = fx::subgraphCallable(name, subgraph);
    node->example = node->callee;
    return node;
}

/// The tensors a branch returned: one tensor, or a tuple/list of them (Dynamo's rule for cond's outputs).
std::vector<VarRef> branchOutputs(Tracer& tracer, const VarRef& result) {
    std::vector<VarRef> items;
    if (result->kind == Variable::Kind::Tensor) items = {result};
    else if (result->kind == Variable::Kind::Tuple || result->kind == Variable::Kind::List) items = result->items;
    for (const VarRef& item : items)
        if (item->kind != Variable::Kind::Tensor) items.clear();
    if (items.empty())
        tracer.unsupported("torch.cond: unsupported branch output",
                           "Expected branches to return a tensor or a tuple/list of tensors.", {}, "torch.cond");
    return items;
}

/// Both branches must produce outputs of one metadata (count, dtype, shape, device): the node has one result.
void requireMatchingOutputs(Tracer& tracer, const Subgraph& a, const Subgraph& b) {
    bool same = a.outputs.size() == b.outputs.size();
    for (size_t i = 0; same && i < a.outputs.size(); ++i) {
        const tensor::Tensor& x = a.outputs[i]->example.tensor();
        const tensor::Tensor& y = b.outputs[i]->example.tensor();
        same = x.dtype() == y.dtype() && x.sizes() == y.sizes() && x.device() == y.device();
    }
    if (!same)
        tracer.unsupported("torch.cond: branches return different outputs",
                           "Expected true_fn and false_fn to return the same number of tensors with the same dtype, shape and device.",
                           {}, "torch.cond");
}

/// Gives both subgraphs the same inputs: their operands, then every value either one lifted, in one order.
std::vector<Node*> unifyLiftedInputs(Subgraph& a, Subgraph& b, size_t operandCount) {
    std::vector<Node*> lifted = a.lifted;
    for (Node* n : b.lifted)
        if (std::find(lifted.begin(), lifted.end(), n) == lifted.end()) lifted.push_back(n);
    for (Subgraph* sub : {&a, &b}) {
        std::vector<Node*> order = sub->graph->placeholders();
        order.resize(operandCount);
        for (Node* outer : lifted) {
            auto found = sub->liftedInputs.find(outer);
            Node* input = found != sub->liftedInputs.end() ? found->second : sub->graph->addPlaceholder(outer->name, outer->example, "");
            input->dimSymbols = outer->dimSymbols;
            order.push_back(input);
        }
        sub->graph->orderPlaceholders(order);
    }
    return lifted;
}

}  // namespace

Arg Tracer::liftIntoSubgraph(const VarRef& v) {
    Speculation* speculation = speculation_;
    // The value's argument in the graph the body interrupted (which may lift it further out, or make its input).
    std::swap(graph_, speculation->outer);
    speculation_ = speculation->enclosing;
    Arg outer;
    try {
        outer = argOf(v);
    } catch (...) {
        speculation_ = speculation;
        std::swap(graph_, speculation->outer);
        throw;
    }
    speculation_ = speculation;
    std::swap(graph_, speculation->outer);
    if (outer.kind != Arg::Kind::NodeRef) return outer;
    Subgraph& sub = *speculation->subgraph;
    if (auto found = sub.liftedInputs.find(outer.node); found != sub.liftedInputs.end()) return Arg::ofNode(found->second);
    if (!outer.node->example.is(vm::Kind::Tensor))
        unsupported("torch.cond: unsupported branch", "A branch of torch.cond reads a symbolic number from outside it.",
                    {"Pass what a branch reads as operands."}, "torch.cond");
    Node* input = graph_->addPlaceholder(outer.node->name, outer.node->example, "");
    input->dimSymbols = outer.node->dimSymbols;
    sub.liftedInputs[outer.node] = input;
    sub.lifted.push_back(outer.node);
    return Arg::ofNode(input);
}

Subgraph Tracer::speculateSubgraph(TraceFrame& frame, const VarRef& body, const std::vector<VarRef>& operands) {
    Subgraph sub;
    std::vector<Arg> outerArgs;
    for (const VarRef& operand : operands) outerArgs.push_back(argOf(operand));  // inputs get their placeholders outside
    Speculation speculation{std::move(graph_), &sub, speculation_};
    graph_ = std::make_unique<Graph>();
    speculation_ = &speculation;
    const size_t effectsBefore = effectWrites_;
    struct Restore {
        Tracer& tracer;
        Speculation& speculation;
        Subgraph& sub;
        ~Restore() {
            sub.graph = std::shared_ptr<Graph>(std::move(tracer.graph_));
            tracer.graph_ = std::move(speculation.outer);
            tracer.speculation_ = speculation.enclosing;
        }
    };
    {
        Restore restore{*this, speculation, sub};
        std::vector<VarRef> inputs;
        for (size_t i = 0; i < operands.size(); ++i) {
            if (outerArgs[i].kind != Arg::Kind::NodeRef) {
                inputs.push_back(operands[i]);  // a constant operand is specialised into the body
                continue;
            }
            Node* outer = outerArgs[i].node;
            Node* input = graph_->addPlaceholder(outer->name, outer->example, "");
            input->dimSymbols = outer->dimSymbols;
            inputs.push_back(wrapResult(outer->example, input));
        }
        sub.result = callFunction(frame, body, inputs, {});
        std::vector<Arg> outputs;
        for (const VarRef& item : branchOutputs(*this, sub.result)) {
            outputs.push_back(argOf(item));
            sub.outputs.push_back(outputs.back().node);
        }
        for (const auto& node : graph_->nodes())
            if (node->op != NodeOp::Placeholder && !fx::writtenArguments(*node).empty())
                unsupported("torch.cond: unsupported branch", fmt::format("A branch of torch.cond mutates a tensor in place ({}).", node->target),
                            {"Return the new value from the branch instead of writing it in place."}, "torch.cond");
        if (effectWrites_ != effectsBefore)
            unsupported("torch.cond: unsupported branch", "A branch of torch.cond has side effects on values outside it.", {},
                        "torch.cond");
        graph_->setOutput(std::move(outputs));
    }
    return sub;
}

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
    for (const VarRef& item : items)
        if (item->kind != Variable::Kind::Tensor && !tracer.isConstant(item))
            tracer.unsupported("torch.cond: improper args", "Expected operands to be a list or tuple of tensors.", {}, "torch.cond");
    Subgraph onTrue = tracer.speculateSubgraph(frame, bound[1], items);
    Subgraph onFalse = tracer.speculateSubgraph(frame, bound[2], items);
    requireMatchingOutputs(tracer, onTrue, onFalse);
    std::vector<Arg> operandArgs;
    vm::ValueList operandExamples;
    for (const VarRef& item : items)
        if (item->kind == Variable::Kind::Tensor) {
            operandArgs.push_back(tracer.argOf(item));
            operandExamples.push_back(tracer.exampleOf(item));
        }
    for (Node* outer : unifyLiftedInputs(onTrue, onFalse, operandArgs.size())) {
        operandArgs.push_back(Arg::ofNode(outer));
        operandExamples.push_back(outer->example);
    }
    const Arg predArg = tracer.argOf(pred);
    Node* trueAttr = addSubgraphAttr(tracer, "cond_true", onTrue.graph);
    Node* falseAttr = addSubgraphAttr(tracer, "cond_false", onFalse.graph);
    const vm::Value example = tracer.vm().call(callable->value, {tracer.exampleOf(pred), trueAttr->callee, falseAttr->callee,
                                                                 vm::makeTuple(operandExamples)});
    Node* node = tracer.recordCall(NodeOp::CallFunction, "torch.ops.higher_order.cond",
                                   {predArg, Arg::ofNode(trueAttr), Arg::ofNode(falseAttr), Arg::ofItems(Arg::Kind::Tuple, operandArgs)}, {});
    node->callKind = CallKind::Callable;
    node->callee = callable->value;
    node->example = example;
    // The node's tuple, read item by item (`getitem = cond[0]`), shaped as the branches returned it.
    auto tuple = std::make_shared<Variable>();
    tuple->kind = Variable::Kind::Tuple;
    tuple->value = example;
    tuple->node = node;
    tuple->fresh = true;
    std::vector<VarRef> results;
    for (size_t i = 0; i < onTrue.outputs.size(); ++i)
        results.push_back(tracer.getItem(tuple, tracer.constant(vm::Value(static_cast<int64_t>(i)))));
    if (onTrue.result->kind == Variable::Kind::Tensor) return results[0];
    auto shaped = std::make_shared<Variable>();
    shaped->kind = onTrue.result->kind;
    shaped->value = onTrue.result->kind == Variable::Kind::Tuple ? vm::makeTuple({}) : vm::Value();
    shaped->items = std::move(results);
    shaped->fresh = true;
    return shaped;
}

}  // namespace eng::capture

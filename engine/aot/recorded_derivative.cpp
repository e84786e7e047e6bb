// Recording the eager derivative of a forward node: its tensors are known to the recorder by their elements (storage,
// offset, geometry, dtype), so the detached copies an autograd node saves resolve to the graph values they copy, and
// each hooked runtime op (tensor/op_recorder.h) the backward formula calls adds the same call to the graph.
#include "aot/recorded_derivative.h"

#include <fmt/format.h>

#include "fx/graph_runner.h"
#include "ops/elementwise.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/node.h"
#include "tensor/iteration.h"
#include "tensor/op_recorder.h"

namespace eng::aot {

using fx::Arg;
using fx::Node;

namespace {

/// Which elements a tensor is: equal keys read the same values as long as the version is unchanged.
struct ElementsKey {
    const void* storage;
    int64_t offset;
    tensor::Shape sizes;
    tensor::Shape strides;
    tensor::DType dtype;
    auto operator<=>(const ElementsKey&) const = default;
};

ElementsKey keyOf(const tensor::Tensor& t) { return {t.storage().get(), t.storageOffset(), t.sizes(), t.strides(), t.dtype()}; }

class GraphRecorder final : public tensor::OpRecorder {
public:
    bool recordsCasts() const override { return true; }

    GraphRecorder(GraphBuilder& builder, const Node& forward) : b_(builder), forward_(forward) {}

    void bind(const tensor::Tensor& t, Node* node) { known_[keyOf(t)] = Known{node, t, tensor::versionOf(t)}; }

    Node* nodeOf(const tensor::Tensor& t) const {
        auto found = known_.find(keyOf(t));
        if (found == known_.end())
            throw AotUnsupported(fmt::format("{} ({}): its eager derivative computes a tensor with a runtime op that is not recorded",
                                             forward_.name, forward_.target));
        if (tensor::versionOf(found->second.keepAlive) != found->second.version)
            throw AotUnsupported(fmt::format("{} ({}): its eager derivative changes a tensor in place", forward_.name, forward_.target));
        return found->second.node;
    }

    void record(std::string_view function, const tensor::RecordedCall& call, const tensor::Tensor& result) override {
        std::vector<Arg> args;
        for (const tensor::Value& v : call.args) args.push_back(argOf(v));
        std::vector<fx::KwArg> kwargs;
        for (const auto& [key, v] : call.kwargs) kwargs.emplace_back(key, argOf(v));
        Node* node = nullptr;
        if (function == "Tensor.to") {
            // a cast of a formula computing in float32 (tensor.to(dtype), on the tensor's device)
            if (call.args.size() != 3 || !call.args[1].isNone() || call.args[2].kind() != tensor::Value::Kind::DType)
                throw AotUnsupported(fmt::format("{} ({}): its eager derivative moves a tensor to another device", forward_.name, forward_.target));
            node = b_.method("to", nodeOf(call.args[0].toTensor()), {argOf(call.args[2])});
            bind(result, node);
            return;
        }
        const bool numberFirst = args.size() == 2 && kwargs.empty() && !call.args[0].isTensor() && call.args[1].isTensor();
        if (numberFirst) {
            // a formula's number first (`1 - y`) is written as Dynamo captures `1.0 - y`: the operator form
            const auto op = ops::binaryOperatorOfTorchCall(function);
            if (!op) throw AotUnsupported(fmt::format("{} ({}): its eager derivative calls {} with a number first", forward_.name, forward_.target, function));
            node = b_.binaryOperator(*op, args[0], args[1]);
        } else {
            node = b_.torchFunction(std::string(function), std::move(args), std::move(kwargs));
        }
        bind(result, node);
    }

private:
    Arg argOf(const tensor::Value& v) const {
        if (v.isTensor()) return GraphBuilder::ref(nodeOf(v.toTensor()));
        return GraphBuilder::constant(vm::fromTensorValue(v));
    }

    struct Known {
        Node* node;
        tensor::Tensor keepAlive;  // keeps the storage (and so the key) from being reused while recording
        uint32_t version;
    };
    GraphBuilder& b_;
    const Node& forward_;
    std::map<ElementsKey, Known> known_;
};

bool hasSymbols(const Node& node) {
    for (const std::string& symbol : node.dimSymbols)
        if (!symbol.empty()) return true;
    return false;
}

}  // namespace

void recordEagerDerivative(GradContext& ctx, vm::Interpreter& vm) {
    Node& node = ctx.node;
    if (!ctx.grad) ctx.unsupported("an op with several results has no recorded derivative");
    GraphRecorder recorder(ctx.b, node);
    // Inputs that require grad become leaves that require grad (one per graph value, so `x * x` sends twice to x).
    std::vector<std::pair<Node*, tensor::Tensor>> leaves;
    std::vector<const Node*> tensorInputs;
    std::function<vm::Value(const Arg&)> live = [&](const Arg& a) -> vm::Value {
        switch (a.kind) {
            case Arg::Kind::Constant: return a.constant;
            case Arg::Kind::List:
            case Arg::Kind::Tuple: {
                vm::ValueList items;
                for (const Arg& item : a.items) items.push_back(live(item));
                return a.kind == Arg::Kind::List ? vm::makeList(std::move(items)) : vm::makeTuple(std::move(items));
            }
            case Arg::Kind::Slice: ctx.unsupported("a slice argument has no recorded derivative");
            case Arg::Kind::NodeRef: break;
        }
        Node* input = a.node;
        const tensor::Tensor* example = exampleTensor(*input);
        // A number computed in the graph (a SymInt) would reach the formula as its value and be recorded as a constant.
        if (!example) ctx.unsupported(fmt::format("the eager derivative would record the value of {} as a constant", input->name));
        tensorInputs.push_back(input);
        recorder.bind(*example, input);
        if (!ctx.requiresGrad(input)) return input->example;
        for (const auto& [known, leaf] : leaves)
            if (known == input) return vm::makeTensor(leaf);
        tensor::Tensor leaf = tensor::autograd::detached(*example);
        leaf.setRequiresGrad(true);
        leaves.emplace_back(input, leaf);
        return vm::makeTensor(leaf);
    };
    vm::ValueList args;
    for (const Arg& a : node.args) args.push_back(live(a));
    vm::KwArgs kwargs;
    for (const auto& [key, a] : node.kwargs) kwargs.emplace_back(key, live(a));

    // Under dynamic shapes only elementwise ops are recorded: their formulas are elementwise too, where another op's
    // formula may use its sizes as numbers, which the recording would make constants.
    bool dynamic = hasSymbols(node);
    for (const Node* input : tensorInputs) dynamic = dynamic || hasSymbols(*input);
    if (dynamic) {
        tensor::Shape broadcast;
        for (const Node* input : tensorInputs) broadcast = tensor::broadcastShapes(broadcast, exampleTensor(*input)->sizes());
        const tensor::Tensor* result = exampleTensor(node);
        if (!result || result->sizes() != broadcast) ctx.unsupported("under dynamic shapes only elementwise ops have recorded derivatives");
    }

    vm::Value result;
    {
        tensor::autograd::GradModeGuard gradOn(true);
        result = fx::callNode(vm, node, std::move(args), std::move(kwargs));
    }
    if (!result.is(vm::Kind::Tensor)) ctx.unsupported("its result is not a tensor");
    const tensor::Tensor& out = result.as<vm::TensorObject>().value;
    if (!out.requiresGrad() || out.isLeaf()) return;  // the eager op records no gradient: none flows back
    const std::shared_ptr<tensor::autograd::Node> backward = out.impl()->autograd->gradFn;

    // The eager op must be one autograd node straight over the leaves (ops recorded as several nodes are not).
    std::vector<Node*> inputOfEdge;
    for (const tensor::autograd::Edge& edge : backward->nextEdges()) {
        Node* input = nullptr;
        for (const auto& [known, leaf] : leaves)
            if (edge.valid() && leaf.impl()->autograd && leaf.impl()->autograd->gradAccumulator.lock() == edge.node) input = known;
        if (edge.valid() && !input) ctx.unsupported(fmt::format("its eager op records several autograd nodes ({} is not over its inputs)", backward->name()));
        inputOfEdge.push_back(input);
    }
    recorder.bind(out, &node);
    recorder.bind(*exampleTensor(*ctx.grad), ctx.grad);
    std::vector<tensor::Tensor> gradients;
    try {
        tensor::OpRecorderScope recording(&recorder);
        tensor::autograd::GradModeGuard gradOff(false);
        gradients = backward->apply({*exampleTensor(*ctx.grad)});
    } catch (const AotUnsupported&) {
        throw;
    } catch (const std::exception& e) {
        ctx.unsupported(fmt::format("its eager derivative {} raised: {}", backward->name(), e.what()));
    }
    for (size_t i = 0; i < inputOfEdge.size() && i < gradients.size(); ++i)
        if (inputOfEdge[i] && gradients[i].defined()) ctx.send(inputOfEdge[i], recorder.nodeOf(gradients[i]));
}

}  // namespace eng::aot

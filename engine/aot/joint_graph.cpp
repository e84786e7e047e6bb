// Joint graph tracing: the captured graph is functionalised into a new graph over primals, then differentiated
// node by node from the last to the first (reverse-mode, as the autograd engine walks its graph), with the
// gradients of each value summed where several uses send one.
#include "aot/joint_graph.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "aot/derivative_rules.h"
#include "aot/functionalize.h"
#include "aot/recorded_derivative.h"
#include "inductor/lowering_context.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"

namespace eng::aot {

using fx::Arg;
using fx::Node;

namespace {

bool isFloatTensor(const Node& node) {
    const tensor::Tensor* t = exampleTensor(node);
    return t && tensor::isFloating(t->dtype());
}

bool anyNodeArg(const Node& node, const std::function<bool(const Node*)>& test) {
    std::function<bool(const Arg&)> visit = [&](const Arg& a) {
        if (a.kind == Arg::Kind::NodeRef && test(a.node)) return true;
        for (const Arg& item : a.items)
            if (visit(item)) return true;
        return false;
    };
    for (const Arg& a : node.args)
        if (visit(a)) return true;
    for (const auto& kw : node.kwargs)
        if (visit(kw.second)) return true;
    return false;
}

}  // namespace

JointGraph traceJointGraph(vm::Interpreter& vm, const fx::Graph& graph, const vm::ValueList& inputs) {
    JointGraph joint;
    joint.graph = std::make_shared<fx::Graph>();
    joint.graph->symbols = graph.symbols;
    GraphBuilder b(vm, *joint.graph);
    const bool gradEnabled = tensor::autograd::isGradEnabled();

    std::set<const Node*> requiresGrad;
    std::vector<bool> inputRequiresGrad;
    const std::vector<Node*> placeholders = graph.placeholders();
    if (placeholders.size() != inputs.size()) throw AotUnsupported("the graph's inputs do not match its placeholders");
    for (size_t i = 0; i < placeholders.size(); ++i) {
        Node* primal = b.placeholder(fmt::format("primals_{}", i + 1), *placeholders[i], inputs[i]);
        joint.primals.push_back(primal);
        const bool needsGrad = gradEnabled && inputs[i].is(vm::Kind::Tensor) && inputs[i].as<vm::TensorObject>().value.requiresGrad();
        inputRequiresGrad.push_back(needsGrad);
        if (needsGrad) requiresGrad.insert(primal);
    }

    FunctionalForward forward = functionalize(b, graph, joint.primals, inputRequiresGrad, gradEnabled);
    joint.forwardNodes = forward.nodes;
    joint.forwardOutputs = forward.outputs;
    joint.inputMutations = forward.inputMutations;
    for (Node* node : forward.nodes) {
        const std::string op = inductor::lowering::nodeOpName(*node);
        if (!forward.gradEnabled.at(node) || passesNoGradient(op) || !anyNodeArg(*node, [&](const Node* n) { return requiresGrad.contains(n); }))
            continue;
        // The derivative rules are written for real tensors (a complex product's gradient takes the conjugate).
        auto complexNode = [](const Node* n) { return exampleTensor(*n) && tensor::isComplex(exampleTensor(*n)->dtype()); };
        if (complexNode(node) || anyNodeArg(*node, complexNode))
            throw AotUnsupported(fmt::format("{} ({}) differentiates through a complex tensor", node->name, node->target));
        // Several results: split/chunk/unbind get gradients item by item; others (max with dim) no rule traces.
        if (node->example.is(vm::Kind::Tuple) || node->example.is(vm::Kind::List)) {
            if (!hasSeveralDifferentiableResults(op))
                throw AotUnsupported(fmt::format("{} ({}) returns several values from inputs that require grad", node->name, node->target));
            requiresGrad.insert(node);
        }
        if (isFloatTensor(*node)) requiresGrad.insert(node);
    }

    // Gradients, accumulated per forward value.
    std::map<const Node*, Node*> grads;
    auto accumulate = [&](Node* input, Node* gradient) {
        auto [slot, added] = grads.emplace(input, gradient);
        if (!added) slot->second = b.method("add", slot->second, {GraphBuilder::ref(gradient)});
    };
    for (size_t i = 0; i < joint.forwardOutputs.size(); ++i) {
        const Arg& out = joint.forwardOutputs[i];
        if (out.kind != Arg::Kind::NodeRef || !requiresGrad.contains(out.node)) continue;
        const tensor::Tensor& example = *exampleTensor(*out.node);
        Node* tangent = b.placeholder(fmt::format("tangents_{}", joint.tangents.size() + 1), *out.node,
                                      vm::makeTensor(tensor::clone(example)));
        tangent->typeName = "torch.Tensor";
        joint.tangents.push_back(tangent);
        joint.tangentOutput.push_back(static_cast<int>(i));
        accumulate(out.node, tangent);
    }
    std::map<const Node*, std::map<int64_t, Node*>> itemGrads;  // ops with several results, by item
    auto accumulateItem = [&](Node* several, int64_t index, Node* gradient) {
        auto [slot, added] = itemGrads[several].emplace(index, gradient);
        if (!added) slot->second = b.method("add", slot->second, {GraphBuilder::ref(gradient)});
    };
    auto isDifferentiable = [&](const Node* n) { return requiresGrad.contains(n); };
    for (auto it = forward.nodes.rbegin(); it != forward.nodes.rend(); ++it) {
        Node* node = *it;
        auto grad = grads.find(node);
        auto items = itemGrads.find(node);
        if ((grad == grads.end() && items == itemGrads.end()) || !requiresGrad.contains(node)) continue;
        const std::string op = inductor::lowering::nodeOpName(*node);
        GradContext ctx(b, *node, grad == grads.end() ? nullptr : grad->second, items == itemGrads.end() ? std::map<int64_t, Node*>{} : items->second,
                        accumulate, accumulateItem, isDifferentiable);
        // The eager autograd's own formula, recorded, unless the op is one of the few written as graph rules.
        if (const GradRule* rule = findGradRule(op)) (*rule)(ctx);
        else recordEagerDerivative(ctx, vm);
    }
    // A tensor at two input positions: its whole gradient goes to the first, summed here, where the inductor fuses
    // the add into the kernels that make either part (GPT-2's tied head: the head's float32 cast of its bf16 weight
    // gradient), instead of the autograd engine adding two full-size gradients after the backward.
    const char* dedupe = std::getenv("CWB_AOT_DEDUPE_INPUTS");
    const bool dedupeOn = !(dedupe && std::string_view(dedupe) == "0");
    for (size_t i = 0; dedupeOn && i < joint.primals.size(); ++i) {
        if (!inputRequiresGrad[i]) continue;
        const tensor::Tensor& later = inputs[i].as<vm::TensorObject>().value;
        for (size_t j = 0; j < i; ++j) {
            if (!inputRequiresGrad[j] || !inputs[j].as<vm::TensorObject>().value.isSameTensor(later)) continue;
            joint.duplicateInputs.emplace_back(static_cast<int>(i), static_cast<int>(j));
            if (auto moved = grads.find(joint.primals[i]); moved != grads.end()) {
                Node* gradient = moved->second;
                grads.erase(moved);
                accumulate(joint.primals[j], gradient);
            }
            break;
        }
    }
    std::vector<Arg> outputs = joint.forwardOutputs;
    for (size_t i = 0; i < joint.primals.size(); ++i) {
        if (!inputRequiresGrad[i]) continue;
        joint.gradInputs.push_back(static_cast<int>(i));
        auto grad = grads.find(joint.primals[i]);
        joint.gradients.push_back(grad == grads.end() ? GraphBuilder::constant(vm::Value()) : GraphBuilder::ref(grad->second));
        outputs.push_back(joint.gradients.back());
    }
    for (const auto& [index, value] : joint.inputMutations) outputs.push_back(GraphBuilder::ref(value));
    b.output(std::move(outputs));
    return joint;
}

bool duplicatesHold(const std::vector<std::pair<int, int>>& duplicates, const vm::ValueList& inputs) {
    for (const auto& [later, earlier] : duplicates) {
        const vm::Value& a = inputs.at(static_cast<size_t>(later));
        const vm::Value& b = inputs.at(static_cast<size_t>(earlier));
        if (!a.is(vm::Kind::Tensor) || !b.is(vm::Kind::Tensor) || !a.as<vm::TensorObject>().value.isSameTensor(b.as<vm::TensorObject>().value))
            return false;
    }
    return true;
}

}  // namespace eng::aot

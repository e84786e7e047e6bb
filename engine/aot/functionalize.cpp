// Functionalisation (AOT Autograd's FunctionalTensorMode, for captured graphs): `y.add_(x)` on an intermediate
// becomes `add = y.add(x)` and later reads of y read `add`; on a graph input that does not require grad the final
// value is also written back by the epilogue. Aliasing the new graph cannot express falls back with the reason.
#include "aot/functionalize.h"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "fx/written_arguments.h"
#include "inductor/lowering_context.h"
#include "ops/operators.h"
#include "tensor/view_ops.h"

namespace eng::aot {

using fx::Arg;
using fx::Node;

namespace {

const Node* firstNodeArg(const Node& node) {
    return !node.args.empty() && node.args[0].kind == Arg::Kind::NodeRef ? node.args[0].node : nullptr;
}

/// The node's in-place form, if it is one (the op registry's marks, fx::writtenArguments): an in-place method,
/// `x += y` (operator.iadd) or a torch.X_ function. `n += 1` on a SymInt or number is operator.iadd too, but
/// rebinds a value: only a tensor is updated in place.
bool updatesInPlace(const Node& node) {
    if (!fx::writesOnlySelf(node)) return false;
    const Node* target = firstNodeArg(node);
    return node.callKind != fx::CallKind::Binary || (target && exampleTensor(*target));
}

/// A write that the functional graph cannot express: a flag-gated write (F.relu(x, inplace=True), batch_norm's
/// running statistics in training) or one into an argument other than self.
std::optional<std::string> unsupportedWrite(const Node& node) {
    for (const fx::WrittenArgument& written : fx::writtenArguments(node)) {
        if (!written.when.empty()) return fmt::format("{} ({}) with {}=True", node.name, node.target, written.when);
        if (written.index != 0) return fmt::format("{} ({}) writes its argument {}", node.name, node.target, written.param);
    }
    return std::nullopt;
}

/// `x[mask] = value` with a boolean mask of x's shape and one value (a number, or a 0-d tensor of x's dtype), as
/// its functional form x.masked_fill(mask, value), whose derivative the joint graph has. Other item assignments
/// (slices, ints, integer indices) have no functional form here yet: the graph runs eagerly.
Node* itemAssignment(GraphBuilder& builder, const Node& node, const std::map<const Node*, Node*>& remap) {
    const Node* target = firstNodeArg(node);
    const Arg& key = node.args.at(1);
    const Arg& value = node.args.at(2);
    const tensor::Tensor* mask = key.kind == Arg::Kind::NodeRef ? exampleTensor(*key.node) : nullptr;
    const tensor::Tensor* valueTensor = value.kind == Arg::Kind::NodeRef ? exampleTensor(*value.node) : nullptr;
    const bool oneValue = (value.kind == Arg::Kind::Constant && value.constant.isNumber()) ||
                          (valueTensor && valueTensor->dim() == 0 && valueTensor->dtype() == exampleTensor(*target)->dtype());
    if (!mask || mask->dtype() != tensor::DType::Bool || mask->sizes() != exampleTensor(*target)->sizes() || !oneValue)
        throw AotUnsupported(fmt::format("in-place function {} with an index other than a boolean mask of {}'s shape and one value",
                                         node.target, target->name));
    std::vector<Arg> args{key, value};
    for (Arg& a : args)
        if (a.kind == Arg::Kind::NodeRef) a.node = remap.at(a.node);
    return builder.method("masked_fill", remap.at(target), std::move(args));
}

}  // namespace

FunctionalForward functionalize(GraphBuilder& builder, const fx::Graph& graph, const std::vector<Node*>& inputs,
                                const std::vector<bool>& inputRequiresGrad, bool gradEnabled) {
    FunctionalForward out;
    std::map<const Node*, int> inputIndex;
    const std::vector<Node*> placeholders = graph.placeholders();
    for (size_t i = 0; i < placeholders.size(); ++i) {
        out.remap[placeholders[i]] = inputs[i];
        inputIndex[placeholders[i]] = static_cast<int>(i);
    }
    // Views and the tensors they were taken of: an in-place op on either would have to reach the other.
    std::set<const Node*> aliased;
    std::map<const Node*, const Node*> viewBase;
    for (const auto& owned : graph.nodes()) {
        if (owned->op != fx::NodeOp::CallFunction && owned->op != fx::NodeOp::CallMethod) continue;
        const Node* base = firstNodeArg(*owned);
        if (base && tensor::findViewOp(inductor::lowering::nodeOpName(*owned))) {
            aliased.insert(owned.get());
            aliased.insert(base);
            viewBase[owned.get()] = viewBase.contains(base) ? viewBase[base] : base;
        }
    }
    std::map<const Node*, int> mutatedInputs;  // captured placeholder -> position in out.inputMutations
    for (const auto& owned : graph.nodes()) {
        const Node& node = *owned;
        if (node.op == fx::NodeOp::Placeholder || node.op == fx::NodeOp::Output) continue;
        if (node.target == "torch._C._set_grad_enabled") {
            if (node.args.empty() || node.args[0].kind != Arg::Kind::Constant) throw AotUnsupported("torch._C._set_grad_enabled with a graph value");
            gradEnabled = node.args[0].constant.asBool();
            continue;
        }
        if (auto write = unsupportedWrite(node)) throw AotUnsupported(*write);
        if (!updatesInPlace(node)) {
            Node* copy = builder.copy(node, out.remap);
            out.remap[&node] = copy;
            out.nodes.push_back(copy);
            out.gradEnabled[copy] = gradEnabled;
            continue;
        }
        const Node* target = firstNodeArg(node);
        if (!target) throw AotUnsupported(fmt::format("{} ({}) updates a value that is not a tensor of the graph", node.name, node.target));
        if (aliased.contains(target))
            throw AotUnsupported(fmt::format("in-place {} on {}, which is a view or has views (functionalisation of views is not implemented)",
                                             node.target, target->name));
        auto input = inputIndex.find(target);
        // Also under no_grad: the backward would read the input after the write (eager's version check raises).
        if (input != inputIndex.end() && inputRequiresGrad[static_cast<size_t>(input->second)])
            throw AotUnsupported(fmt::format("in-place {} on the input {}, which requires grad", node.target, target->name));
        if (node.op == fx::NodeOp::CallFunction && node.callKind != fx::CallKind::Binary && node.target != "operator.setitem")
            throw AotUnsupported(fmt::format("in-place function {}", node.target));
        const bool itemWrite = node.target == "operator.setitem";
        Node* functional = itemWrite ? itemAssignment(builder, node, out.remap) : builder.copy(node, out.remap);
        if (itemWrite) {
            // already its functional form
        } else if (functional->callKind == fx::CallKind::Binary) {
            // operator.iand updates with operator.and_: the out-of-place function of the same operator.
            const auto operand = ops::binaryOperatorByFunction(std::string_view(node.target).substr(std::string_view("operator.").size()));
            if (!operand) throw AotUnsupported(fmt::format("in-place operator {}", node.target));
            functional->target = "operator." + ops::operatorFunction(operand->op, false);
        } else {
            functional->target = node.target.substr(0, node.target.size() - 1);
        }
        out.nodes.push_back(functional);
        out.gradEnabled[functional] = gradEnabled;
        out.remap[target] = functional;
        out.remap[&node] = functional;
        if (input != inputIndex.end()) {
            auto [slot, added] = mutatedInputs.emplace(target, static_cast<int>(out.inputMutations.size()));
            if (added) out.inputMutations.emplace_back(input->second, functional);
            else out.inputMutations[static_cast<size_t>(slot->second)].second = functional;
        }
    }
    std::set<const Node*> returned;
    for (const Arg& a : graph.output()->args.at(0).items) {
        if (a.kind == Arg::Kind::NodeRef && exampleTensor(*a.node)) {
            const Node* root = viewBase.contains(a.node) ? viewBase[a.node] : a.node;
            if (inputIndex.contains(root) || inputIndex.contains(a.node))
                throw AotUnsupported(fmt::format("the output {} aliases the graph input {} (output aliasing is not compiled)", a.node->name, root->name));
            if (!returned.insert(a.node).second) throw AotUnsupported(fmt::format("the output {} is returned twice", a.node->name));
        }
        std::function<Arg(const Arg&)> mapArg = [&](const Arg& arg) {
            Arg mapped = arg;
            if (arg.kind == Arg::Kind::NodeRef) mapped.node = out.remap.at(arg.node);
            for (Arg& item : mapped.items) item = mapArg(item);
            return mapped;
        };
        out.outputs.push_back(mapArg(a));
    }
    return out;
}

}  // namespace eng::aot

// Functionalisation (AOT Autograd's FunctionalTensorMode, for captured graphs): `y.add_(x)` on an intermediate
// becomes `add = y.add(x)` and later reads of y read `add`; on a graph input that does not require grad the final
// value is also written back by the epilogue. Aliasing the new graph cannot express falls back with the reason. A
// layer_norm of values that require grad becomes native_layer_norm, whose statistics the backward reads.
#include "aot/functionalize.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "aot/derivative_rules.h"
#include "aot/layer_norm_statistics.h"
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

/// The positions `x[key] = ...` writes for a basic key of constants (ints, slices, None, Ellipsis) over x's static
/// sizes: a bool tensor that broadcasts to x, the AND of one arange comparison per narrowed dim; null when the key
/// narrows nothing (the whole tensor is written); nullopt when the key is not such a key.
std::optional<Node*> basicRegion(GraphBuilder& b, const Node& x, const Arg& key) {
    const tensor::Tensor& t = *exampleTensor(x);
    for (const std::string& symbol : x.dimSymbols)
        if (!symbol.empty()) return std::nullopt;  // arange would keep this call's size
    std::vector<const Arg*> parts;
    if (key.kind == Arg::Kind::Tuple) for (const Arg& item : key.items) parts.push_back(&item);
    else parts.push_back(&key);
    auto constantPart = [](const Arg* p, vm::Kind kind) { return p->kind == Arg::Kind::Constant && p->constant.is(kind); };
    const int64_t rank = t.dim();
    int64_t consuming = 0;
    for (const Arg* p : parts) consuming += !constantPart(p, vm::Kind::None) && !constantPart(p, vm::Kind::Ellipsis);
    if (consuming > rank) return std::nullopt;
    Node* region = nullptr;
    int64_t dim = 0;
    for (const Arg* p : parts) {
        if (constantPart(p, vm::Kind::None)) continue;
        if (constantPart(p, vm::Kind::Ellipsis)) {
            dim += rank - consuming;
            consuming = rank;
            continue;
        }
        const int64_t n = t.sizes()[static_cast<size_t>(dim)];
        Node* positions = b.torchFunction("arange", {GraphBuilder::constant(vm::Value(n))});
        auto compare = [&](const char* op, int64_t bound) { return b.method(op, positions, {GraphBuilder::constant(vm::Value(bound))}); };
        Node* written = nullptr;
        if (p->kind == Arg::Kind::Slice) {
            std::optional<int64_t> bounds[3];
            for (size_t i = 0; i < 3; ++i) {
                if (constantPart(&p->items[i], vm::Kind::Int)) bounds[i] = p->items[i].constant.asInt();
                else if (!constantPart(&p->items[i], vm::Kind::None)) return std::nullopt;
            }
            const int64_t step = bounds[2].value_or(1);
            if (step <= 0) return std::nullopt;
            int64_t first = bounds[0].value_or(0), last = bounds[1].value_or(n);
            first = std::clamp<int64_t>(first < 0 ? first + n : first, 0, n);
            last = std::clamp<int64_t>(last < 0 ? last + n : last, 0, n);
            if (first == 0 && last == n && step == 1) {
                ++dim;
                continue;
            }
            written = b.method("logical_and", compare("ge", first), {GraphBuilder::ref(compare("lt", last))});
            if (step != 1) {
                Node* offset = b.method("sub", positions, {GraphBuilder::constant(vm::Value(first))});
                Node* onStep = b.method("eq", b.method("remainder", offset, {GraphBuilder::constant(vm::Value(step))}), {GraphBuilder::constant(vm::Value(int64_t{0}))});
                written = b.method("logical_and", written, {GraphBuilder::ref(onStep)});
            }
        } else if (constantPart(p, vm::Kind::Int)) {
            const int64_t k = p->constant.asInt();
            if (k < -n || k >= n) return std::nullopt;  // the eager op raises
            written = compare("eq", k < 0 ? k + n : k);
        } else {
            return std::nullopt;
        }
        std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
        shape[static_cast<size_t>(dim)] = n;
        written = b.method("reshape", written, {GraphBuilder::ints(shape)});
        region = region ? b.method("logical_and", region, {GraphBuilder::ref(written)}) : written;
        ++dim;
    }
    return region;
}

/// `x[index] = value` with one value (a number, or a 0-d tensor of x's dtype) as its functional form
/// x.masked_fill(mask, value), whose derivative the joint graph has: the mask is the index itself when it is a
/// boolean mask of x's shape, or the region a basic index writes. Other item assignments (integer tensor indices,
/// tensor values) have no functional form here yet: the graph runs eagerly.
Node* itemAssignment(GraphBuilder& builder, const Node& node, const std::map<const Node*, Node*>& remap) {
    const Node* target = firstNodeArg(node);
    const Arg& key = node.args.at(1);
    const Arg& value = node.args.at(2);
    const tensor::Tensor* mask = key.kind == Arg::Kind::NodeRef ? exampleTensor(*key.node) : nullptr;
    const tensor::Tensor* valueTensor = value.kind == Arg::Kind::NodeRef ? exampleTensor(*value.node) : nullptr;
    const bool oneValue = (value.kind == Arg::Kind::Constant && value.constant.isNumber()) ||
                          (valueTensor && valueTensor->dim() == 0 && valueTensor->dtype() == exampleTensor(*target)->dtype());
    std::optional<Node*> region;
    if (mask && mask->dtype() == tensor::DType::Bool && mask->sizes() == exampleTensor(*target)->sizes()) region = remap.at(key.node);
    else if (!mask && oneValue) region = basicRegion(builder, *target, key);
    // The whole tensor written with a tensor value: full_like takes numbers only.
    if (region && !*region && value.kind == Arg::Kind::NodeRef) region.reset();
    if (!oneValue || !region)
        throw AotUnsupported(fmt::format("in-place function {} with an index other than a boolean mask of {}'s shape or ints and slices, "
                                         "and a value other than one number", node.target, target->name));
    Arg filled = value;
    if (filled.kind == Arg::Kind::NodeRef) filled.node = remap.at(filled.node);
    if (!*region) return builder.torchFunction("full_like", {GraphBuilder::ref(remap.at(target)), filled});
    return builder.method("masked_fill", remap.at(target), {GraphBuilder::ref(*region), filled});
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
    // Values computed from inputs that require grad: a layer_norm of one saves its statistics for the backward.
    std::set<const Node*> needsGrad;
    for (size_t i = 0; i < placeholders.size(); ++i)
        if (inputRequiresGrad[i]) needsGrad.insert(placeholders[i]);
    auto readsGradValue = [&](const Node& node) {
        bool reads = false;
        std::function<void(const Arg&)> visit = [&](const Arg& a) {
            reads = reads || (a.kind == Arg::Kind::NodeRef && needsGrad.contains(a.node));
            for (const Arg& item : a.items) visit(item);
        };
        for (const Arg& a : node.args) visit(a);
        for (const auto& kw : node.kwargs) visit(kw.second);
        return reads;
    };
    for (const auto& owned : graph.nodes()) {
        const Node& node = *owned;
        if (node.op == fx::NodeOp::Placeholder || node.op == fx::NodeOp::Output) continue;
        if (gradEnabled && readsGradValue(node)) needsGrad.insert(&node);
        if (node.target == "torch._C._set_grad_enabled") {
            if (node.args.empty() || node.args[0].kind != Arg::Kind::Constant) throw AotUnsupported("torch._C._set_grad_enabled with a graph value");
            gradEnabled = node.args[0].constant.asBool();
            continue;
        }
        if (auto write = unsupportedWrite(node)) throw AotUnsupported(*write);
        if (!updatesInPlace(node)) {
            // Ops whose backward reads forward statistics become the forms that return them (layer_norm ->
            // native_layer_norm, CUDA sdpa -> the flash forward with its logsumexp): their nodes replace the copy.
            std::vector<Node*> added;
            Node* rewritten = needsGrad.contains(&node) && inductor::lowering::nodeOpName(node) == "layer_norm"
                                  ? nativeLayerNormForward(builder, node, out.remap, added)
                              : gradEnabled ? flashAttentionWithStatistics(builder, node, out.remap, added)
                                            : nullptr;
            if (rewritten) {
                out.remap[&node] = rewritten;
                for (Node* n : added) {
                    out.nodes.push_back(n);
                    out.gradEnabled[n] = gradEnabled;
                }
                continue;
            }
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
        const size_t built = builder.graph().nodes().size();
        Node* functional = itemWrite ? itemAssignment(builder, node, out.remap) : builder.copy(node, out.remap);
        if (itemWrite) {
            // The region mask's nodes come before the masked_fill (pushed below) in the forward.
            for (size_t i = built; i + 1 < builder.graph().nodes().size(); ++i) {
                out.nodes.push_back(builder.graph().nodes()[i].get());
                out.gradEnabled[out.nodes.back()] = gradEnabled;
            }
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

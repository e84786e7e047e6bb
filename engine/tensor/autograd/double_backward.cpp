// create_graph: the recorder that attaches each runtime op of a backward pass to the autograd graph (through the
// registry op's own derivative, its result already computed), the nodes whose formulas it covers, and the node a
// formula it does not cover leaves behind, which raises at a second backward rather than give a wrong gradient.
#include "tensor/autograd/double_backward.h"

#include <cctype>
#include <set>

#include <fmt/format.h>

#include "ops/elementwise.h"
#include "ops/operators.h"
#include "tensor/autograd/node.h"
#include "tensor/conversion.h"
#include "tensor/error.h"
#include "tensor/pointwise.h"
#include "tensor/registry.h"

namespace eng::tensor::autograd {

namespace {

bool anyRequiresGrad(const Value& v) {
    if (v.isTensor()) return v.toTensor().requiresGrad();
    if (v.isSequence())
        for (const Value& item : v.items())
            if (anyRequiresGrad(item)) return true;
    return false;
}

class CreateGraphRecorder final : public OpRecorder {
public:
    bool recordsStructuralOps() const override { return true; }

    void record(std::string_view function, const RecordedCall& call, const Tensor& result) override {
        if (!isGradEnabled() || !differentiableResult(result)) return;
        bool needed = false;
        for (const Value& v : call.args) needed = needed || anyRequiresGrad(v);
        for (const auto& [key, v] : call.kwargs) needed = needed || anyRequiresGrad(v);
        if (!needed) return;
        std::string name(function);
        std::vector<Value> args = call.args;
        if (!name.starts_with("torch.") && !name.starts_with("Tensor.")) {
            // `1 - y` in a formula is torch.sub(1, y): the reflected operator on the tensor.
            const bool numberFirst = args.size() == 2 && !args[0].isTensor() && args[1].isTensor();
            const auto op = numberFirst ? ops::binaryOperatorOfTorchCall(function) : std::nullopt;
            if (numberFirst && !op) fail(ErrorKind::NotImplemented, fmt::format("create_graph: cwb cannot record torch.{} with a number first", function));
            if (op) std::swap(args[0], args[1]);
            name = op ? "Tensor." + ops::reflectedDunder(*op) : "torch." + name;
        }
        const OpEntry* entry = OpRegistry::instance().find(name);
        if (!entry) fail(ErrorKind::NotImplemented, fmt::format("create_graph: cwb has no op {} to record", name));
        // The op runs once: its kernel here hands back the result the formula already computed, and the registry's
        // autograd dispatch attaches that result to the graph with the op's derivative.
        OpEntry replay = *entry;
        for (OpOverload& overload : replay.overloads) overload.kernel = [result](const Args&) { return Value(result); };
        KeywordArgs kwargs(call.kwargs.begin(), call.kwargs.end());
        OpRegistry::instance().call(replay, args, kwargs);
        if (!result.requiresGrad())
            fail(ErrorKind::NotImplemented, fmt::format("create_graph: {} recorded no derivative in cwb", name));
    }

private:
    static bool differentiableResult(const Tensor& t) { return t.defined() && (isFloating(t.dtype()) || isComplex(t.dtype())); }
};

OpRecorder* createGraphRecorder() {
    thread_local CreateGraphRecorder recorder;
    return &recorder;
}

// Nodes whose formulas call only recorded ops (pointwise ops, views, sum/mean, softmax, matrix products, casts, cat,
// stack, narrow, select, index_put). Each is checked
// against finite differences of its first derivative (tests/unit/engine/tensor/autograd_double_backward_test.cpp).
const std::set<std::string, std::less<>> kRecordedFormulas = {
    "AbsBackward0", "NegBackward0", "SignBackward0", "FloorBackward0", "CeilBackward0", "TruncBackward0", "RoundBackward0",
    "FracBackward0", "ExpBackward0", "Exp2Backward0", "Expm1Backward0", "LogBackward0", "Log2Backward0", "Log10Backward0",
    "Log1PBackward0", "SinBackward0", "CosBackward0", "TanBackward0", "AsinBackward0", "AcosBackward0", "AtanBackward0",
    "SinhBackward0", "CoshBackward0", "AsinhBackward0", "AcoshBackward0", "AtanhBackward0", "TanhBackward0", "SigmoidBackward0",
    "ReluBackward0", "SiluBackward0", "MishBackward0", "SqrtBackward0", "RsqrtBackward0", "ReciprocalBackward0", "ErfBackward0",
    "GeluBackward0", "LeakyReluBackward0", "SoftplusBackward0", "AddBackward0", "SubBackward0", "RsubBackward1", "MulBackward0",
    "DivBackward0", "DivBackward1", "PowBackward0", "PowBackward1", "PowBackward2", "Atan2Backward0", "MaximumBackward0",
    "MinimumBackward0", "WhereBackward0", "ClampBackward1", "MaskedFillBackward0", "LerpBackward0",
    "SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1", "SoftmaxBackward0", "LogSoftmaxBackward0",
    "MmBackward0", "BmmBackward0", "MvBackward0", "DotBackward0", "UnsafeViewBackward0", "AddmmBackward0", "OuterBackward0",
    "ViewBackward0", "SqueezeBackward1", "UnsqueezeBackward0", "PermuteBackward0", "TransposeBackward0", "TBackward0",
    "ExpandBackward0", "RepeatBackward0", "ToCopyBackward0", "CloneBackward0",
    // The losses (nll_loss, cross_entropy: softmax and log_softmax are recorded), layer_norm (mean recorded), the
    // selections (their gradients written into zeros by a recorded index_put: scatter_grad.h) and the joins and
    // splits (cat, stack, narrow and select recorded).
    "NllLossBackward0", "NativeLayerNormBackward0", "EmbeddingBackward0", "IndexBackward0", "IndexSelectBackward0",
    "GatherBackward0", "MaskedSelectBackward0", "SelectBackward0", "SliceBackward0", "NarrowBackward0", "CatBackward0",
    "StackBackward0", "SplitBackward0", "UnbindBackward0",
};

// PyTorch's aten name of a node's backward op: MulBackward0 -> mul_backward.
std::string backwardOpName(std::string_view node) {
    const size_t cut = node.find("Backward");
    const std::string_view stem = node.substr(0, cut);
    std::string out;
    for (char c : stem) {
        if (std::isupper(static_cast<unsigned char>(c))) {
            if (!out.empty()) out += '_';
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else {
            out += c;
        }
    }
    return out + "_backward";
}

}  // namespace

namespace {
thread_local bool tCreatingGraph = false;
}  // namespace

CreateGraphScope::CreateGraphScope() : gradOn_(true), recording_(createGraphRecorder()), previous_(tCreatingGraph) { tCreatingGraph = true; }
CreateGraphScope::~CreateGraphScope() { tCreatingGraph = previous_; }

bool creatingGraph() { return tCreatingGraph && isGradEnabled(); }

bool formulaRecordsItsOps(std::string_view nodeName) { return kRecordedFormulas.contains(nodeName); }

Tensor accumulateCreatingGraph(const Tensor& existing, const Tensor& grad) {
    const OpRegistry& ops = OpRegistry::instance();
    if (!existing.defined()) return ops.call("torch.clone", std::vector<Value>{Value(grad)}).toTensor();
    return ops.call("torch.add", std::vector<Value>{Value(existing), Value(grad)}).toTensor();
}

std::vector<Tensor> FormulaNode::applyCreatingGraph(const std::vector<Tensor>& gradOutputs, std::vector<bool> needs) {
    std::vector<Tensor> unpacked;
    for (size_t i = 0; i < saved_.size(); ++i) unpacked.push_back(unpackSaved(i));
    const std::optional<std::string> refusal = description_ ? description_->doubleBackwardRefusal() : std::nullopt;
    if (!refusal && formulaRecordsItsOps(name())) {
        const BackwardContext context{gradOutputs, unpacked, std::move(needs)};
        return formula_(context);
    }
    // Computed without history, then made the results of a node over everything they depend on, which raises.
    std::vector<Tensor> results;
    {
        const GradModeGuard gradOff(false);
        const OpRecorderScope unrecorded(nullptr);
        const BackwardContext context{gradOutputs, saved_, std::move(needs)};
        results = formula_(context);
    }
    std::vector<Tensor> outputs;
    for (Tensor& r : results)
        if (r.defined()) {
            r = detached(r);
            outputs.push_back(r);
        }
    std::vector<Tensor> inputs = gradOutputs;
    inputs.insert(inputs.end(), unpacked.begin(), unpacked.end());
    const std::string message = refusal.value_or(fmt::format("derivative for aten::{} is not implemented", backwardOpName(name())));
    recordOp(name() + "Backward", inputs, outputs, {}, [message](const BackwardContext&) -> std::vector<Tensor> {
        fail(ErrorKind::Runtime, message);
    });
    return results;
}

}  // namespace eng::tensor::autograd

// Registry calls with autograd: PyTorch's checks on in-place ops (leaves that require grad), the in-place
// rewrite of self's history, and a node that raises at backward time for ops without a derivative formula.
#include "tensor/autograd/dispatch.h"

#include <fmt/format.h>

#include <set>

#include "ops/operators.h"
#include "tensor/autograd/derivatives.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/inference_mode.h"
#include "tensor/conversion.h"
#include "tensor/pointwise.h"

namespace eng::tensor::autograd {

namespace {

// Ops whose tensor results never require grad even from inputs that do (metadata, factories *_like, random).
const std::set<std::string, std::less<>> kNonDifferentiable = {
    "detach", "data", "grad", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
    "randint_like", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "tensor", "as_tensor",
    "bernoulli", "multinomial", "requires_grad_", "detach_", "retain_grad", "backward", "__setattr__",
};

// Python's augmented assignments on tensors (__iadd__), and the out-of-place op each one updates self with.
const std::unordered_map<std::string, std::string> kAugmented = [] {
    std::unordered_map<std::string, std::string> augmented;
    for (size_t i = 0; i < ops::kBinaryOperators.size(); ++i) {
        const auto op = static_cast<ops::BinaryOperator>(i);
        augmented.emplace(ops::inplaceDunder(op), ops::dunder(op));
    }
    return augmented;
}();

bool valueRequiresGrad(const Value& v) {
    if (v.isTensor()) return v.toTensor().requiresGrad();
    if (v.isSequence())
        for (const Value& item : v.items())
            if (valueRequiresGrad(item)) return true;
    return false;
}

bool anyRequiresGrad(const Args& args) {
    for (size_t i = 0; i < args.size(); ++i)
        if (valueRequiresGrad(args[i])) return true;
    return false;
}

// True when the call writes into its first argument (x.add_(), x += y, x[i] = v, F.relu(x, inplace=True), as the
// schema marks it) and autograd must rewrite its history: not detach_, which writes no data it differentiates.
bool isInPlaceCall(const Schema& schema, const Args& args) {
    return writesArgument(schema, args, 0) && !kNonDifferentiable.contains(schema.name);
}

void collectTensors(const Value& v, std::vector<Tensor>& out) {
    if (v.isTensor()) out.push_back(v.toTensor());
    if (v.isSequence())
        for (const Value& item : v.items()) collectTensors(item, out);
}

// Ops without a formula still give their float results a node, so that using them in backward fails loudly
// (as PyTorch does for ops whose derivative is not implemented) instead of silently dropping gradients.
void recordNotImplemented(const std::string& schemaName, const std::vector<Tensor>& inputs, const Value& result) {
    // Operators are named by the op they call, as PyTorch's messages name aten ops.
    const std::string opName = schemaName == "__floordiv__" || schemaName == "__rfloordiv__" ? "floor_divide" : schemaName;
    std::vector<Tensor> outputs;
    collectTensors(result, outputs);
    recordOp("NotImplemented", inputs, outputs, {}, [opName](const BackwardContext&) -> std::vector<Tensor> {
        fail(ErrorKind::Runtime, fmt::format("derivative for aten::{} is not implemented", opName));
    });
}

std::vector<Tensor> tensorInputs(const Args& args) {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < args.size(); ++i) collectTensors(args[i], inputs);
    return inputs;
}

// Ops that make complex tensors from real ones.
const std::set<std::string, std::less<>> kMakesComplex = {"view_as_complex", "complex", "polar"};

bool anyComplex(const std::vector<Tensor>& tensors) {
    for (const Tensor& t : tensors)
        if (t.defined() && isComplex(t.dtype())) return true;
    return false;
}

// Self as it was before an in-place op: a copy of its values that takes over its autograd history, so that
// the in-place op can be recorded as an out-of-place op from this copy to the updated self.
Tensor snapshotBeforeInPlace(const Tensor& self) {
    Tensor before = clone(self);
    if (!self.isLeaf()) {
        const AutogradMeta& meta = *self.impl()->autograd;
        before.impl()->autograd = std::make_shared<AutogradMeta>();
        before.impl()->autograd->gradFn = meta.gradFn;
        before.impl()->autograd->outputNr = meta.outputNr;
    }
    return before;
}

// After an in-place op on a view, the base's elements in the view's region are the view's new values: the base
// becomes the result of PyTorch's CopySlices over (the base as it was, the updated view). The base is contiguous,
// so the region is the view's geometry applied to a row-major gradient of the base's shape.
void recordBaseUpdate(const Tensor& base, const Tensor& view) {
    Tensor before = detached(base);
    if (!base.isLeaf()) {
        before.impl()->autograd = std::make_shared<AutogradMeta>();
        before.impl()->autograd->gradFn = base.impl()->autograd->gradFn;
        before.impl()->autograd->outputNr = base.impl()->autograd->outputNr;
    }
    const Shape sizes = view.sizes(), strides = view.strides();
    const int64_t offset = view.storageOffset() - base.storageOffset();
    recordOp("CopySlices", {before, view}, {base}, {}, [sizes, strides, offset](const BackwardContext& ctx) {
        const Tensor g = contiguous(ctx.grad());
        auto region = [&](const Tensor& t) { return t.asStrided(sizes, strides, t.storageOffset() + offset); };
        Tensor rest;
        if (ctx.needs(0)) {
            rest = clone(g);
            fillInPlace(region(rest), Scalar(0.0));
        }
        return std::vector<Tensor>{rest, ctx.needs(1) ? clone(region(g)) : Tensor()};
    });
    // The base shares storage with the inputs above but is no view: it owns the elements.
    base.impl()->autograd->viewBase.reset();
}

Value inPlaceCall(const OpOverload& overload, const Args& args, const std::function<Value(const Args&)>& forward) {
    const std::string& name = overload.schema.name;
    const Tensor self = args.tensor(0);
    // x[i] = v writes through a view of x, hence PyTorch's wording for it.
    if (self.isLeaf() && self.requiresGrad())
        fail(ErrorKind::Runtime, name == "__setitem__" ? "a view of a leaf Variable that requires grad is being used in an in-place operation."
                                                       : "a leaf Variable that requires grad is being used in an in-place operation.");
    const Tensor base = self.impl()->autograd && self.impl()->autograd->viewBase ? Tensor::fromImpl(self.impl()->autograd->viewBase) : Tensor();
    if (base.defined()) {
        if (base.isLeaf() && base.requiresGrad())
            fail(ErrorKind::Runtime, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
        if (!base.isContiguous())
            fail(ErrorKind::NotImplemented,
                 fmt::format("{}: in-place operations on a view of a non-contiguous tensor that requires grad are not supported "
                             "by the cwb autograd; use the out-of-place op",
                             name));
    }
    const DerivativeTable& table = DerivativeTable::instance();
    const Derivative* derivative = table.find(name);
    if (!derivative) {
        auto augmented = kAugmented.find(name);
        const std::string outOfPlace = augmented != kAugmented.end() ? augmented->second
                                       : name.ends_with("_")         ? name.substr(0, name.size() - 1)
                                                                     : name;
        derivative = table.find(outOfPlace);
    }
    const Tensor before = snapshotBeforeInPlace(self);
    Value result = forward(args);
    // Bumped before the new node saves self, so only later in-place changes invalidate it.
    bumpVersion(self);
    std::vector<Value> values;
    for (size_t i = 0; i < args.size(); ++i) values.push_back(args[i]);
    values[0] = Value(before);
    const Args beforeArgs(std::move(values));
    if (!derivative) {
        recordNotImplemented(name, tensorInputs(beforeArgs), Value(self));
        return result;
    }
    const std::function<Value(const Args&)> updatedSelf = [&self](const Args&) { return Value(self); };
    (*derivative)(DerivativeCall{overload.schema, beforeArgs, updatedSelf, true});
    // retain_grad() follows the tensor to its new grad_fn, as PyTorch moves the hook.
    if (AutogradMeta* meta = self.impl()->autograd.get(); meta && meta->retainsGrad && meta->gradFn)
        meta->gradFn->addRetainedOutput(meta->outputNr, self.implPtr());
    if (base.defined()) recordBaseUpdate(base, self);
    return result;
}

}  // namespace

Value dispatch(const OpEntry& entry, const OpOverload& overload, const Args& args) {
    // nn.init functions run under torch.no_grad in PyTorch: they initialise parameters in place.
    if (entry.name.starts_with("torch.nn.init.")) {
        const GradModeGuard noGrad(false);
        return overload.kernel(args);
    }
    if (args.size() > 0 && args[0].isTensor() && isInference(args.tensor(0)) && isInPlaceCall(overload.schema, args))
        checkNotInferenceInPlace(args.tensor(0));
    if (!isGradEnabled() || !anyRequiresGrad(args)) {
        Value result = overload.kernel(args);
        if (args.size() > 0 && args[0].isTensor() && isInPlaceCall(overload.schema, args)) bumpVersion(args.tensor(0));
        return result;
    }
    const std::function<Value(const Args&)> forward = [&overload](const Args& a) {
        const GradModeGuard noGrad(false);
        return overload.kernel(a);
    };
    const std::string& name = overload.schema.name;
    // Composite ops record the ops they are made of: they run as they are, grad mode on.
    if (isCompositeOp(name)) return overload.kernel(args);
    if (kNonDifferentiable.contains(name)) return forward(args);
    if (isInPlaceCall(overload.schema, args)) return inPlaceCall(overload, args, forward);
    // Most derivative formulas are written for real tensors (a complex product's gradient needs the conjugate): an
    // op that reads or makes a complex tensor takes its complex formula, or runs and raises at backward rather than
    // give a wrong gradient.
    if (anyComplex(tensorInputs(args)) || kMakesComplex.contains(name)) {
        if (const Derivative* derivative = complexDerivative(name)) return (*derivative)(DerivativeCall{overload.schema, args, forward, false});
        Value result = forward(args);
        std::vector<Tensor> outputs;
        collectTensors(result, outputs);
        recordOp("NotImplemented", tensorInputs(args), outputs, {}, [name](const BackwardContext&) -> std::vector<Tensor> {
            fail(ErrorKind::NotImplemented, fmt::format("the derivative of {} through complex tensors is not implemented in cwb", name));
        });
        return result;
    }
    if (const Derivative* derivative = DerivativeTable::instance().find(name))
        return (*derivative)(DerivativeCall{overload.schema, args, forward, false});
    Value result = forward(args);
    recordNotImplemented(name, tensorInputs(args), result);
    return result;
}

}  // namespace eng::tensor::autograd

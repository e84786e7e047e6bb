// Graph nodes: formula nodes with saved tensors, AccumulateGrad for leaves, and how op results are attached to
// the graph (recordOp) with PyTorch's rule that a saved-and-freed graph cannot be walked twice.
#include "tensor/autograd/node.h"

#include <atomic>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "tensor/autograd/double_backward.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/inference_mode.h"
#include "tensor/conversion.h"
#include "tensor/error.h"
#include "tensor/pointwise.h"

namespace eng::tensor::autograd {

namespace {

std::atomic<uint64_t> gNextSequenceNr{0};

// Results that carry gradients: floating and complex tensors (a complex intermediate must not cut the graph).
bool differentiable(DType dtype) { return isFloating(dtype) || isComplex(dtype); }

std::shared_ptr<AutogradMeta>& metaOf(const Tensor& t) {
    auto& meta = t.impl()->autograd;
    if (!meta) meta = std::make_shared<AutogradMeta>();
    return meta;
}

// Whether a leaf's first .grad can be the incoming gradient itself, as PyTorch's AccumulateGrad takes it
// (accumulate_grad.h: no other reference to it, not under create_graph, the leaf's layout): then a backward pass
// makes no copy, and no launch, per parameter. "No other reference" is strict here: the engine's handle is the only
// one on the tensor and on its storage, so no view, saved tensor, sibling output or caller shares its elements.
bool takesGradientItself(const TensorImpl& leaf, const Tensor& grad) {
    // CWB_ACCUMULATE_GRAD_CLONE=1 copies every first gradient as before (to compare the two in one process's run).
    static const bool alwaysClone = [] {
        const char* value = std::getenv("CWB_ACCUMULATE_GRAD_CLONE");
        return value != nullptr && *value != '\0' && std::string_view(value) != "0";
    }();
    if (alwaysClone) return false;
    const std::shared_ptr<TensorImpl>& impl = grad.implPtr();
    if (impl.use_count() != 1 || !impl->storage || impl->storage.use_count() != 1 || !leaf.storage) return false;
    if (impl->requiresGrad || (impl->autograd && impl->autograd->gradFn)) return false;
    if (grad.dtype() != leaf.dtype || grad.device() != leaf.storage->device() || grad.sizes() != leaf.sizes) return false;
    if (!grad.isNonOverlappingAndDense()) return false;
    // The layout contract (utils::obeys_layout_contract): a dense leaf's strides, except where a dim has size 1,
    // else a contiguous gradient.
    const Tensor leafView = Tensor(leaf.storage, leaf.sizes, leaf.strides, leaf.offset, leaf.dtype);
    if (!leafView.isNonOverlappingAndDense()) return grad.isContiguous();
    for (size_t d = 0; d < leaf.sizes.size(); ++d)
        if (leaf.sizes[d] != 1 && grad.strides()[d] != leaf.strides[d]) return false;
    return true;
}

// Adds `grad` into a tensor's .grad: the first time a fresh copy (never an alias of a tensor the caller may hold)
// or, for AccumulateGrad (`fromAccumulateGrad`), the gradient itself when nothing else can see it; in place
// afterwards, as PyTorch's AccumulateGrad does outside create_graph (double_backward.h under it). retain_grad's
// copy (storeRetainedGrads) always clones, as PyTorch's does: that gradient flows on to other nodes.
void accumulateInto(TensorImpl& target, const Tensor& grad, bool fromAccumulateGrad = false) {
    if (!target.autograd) target.autograd = std::make_shared<AutogradMeta>();
    Tensor& existing = target.autograd->grad;
    if (creatingGraph()) {  // create_graph: the .grad keeps its history
        existing = accumulateCreatingGraph(existing, grad);
        return;
    }
    if (!existing.defined()) existing = fromAccumulateGrad && takesGradientItself(target, grad) ? grad : clone(grad);
    else addInPlace(existing, grad);
}

}  // namespace

Node::Node(std::string name, std::vector<Edge> next, std::vector<TensorGeometry> inputs, std::vector<TensorGeometry> outputs)
    : name_(std::move(name)),
      next_(std::move(next)),
      inputGeometry_(std::move(inputs)),
      outputGeometry_(std::move(outputs)),
      sequenceNr_(gNextSequenceNr++) {}

void Node::addRetainedOutput(uint32_t outputNr, const std::shared_ptr<TensorImpl>& tensor) {
    for (const auto& [nr, existing] : retained_)
        if (nr == outputNr && existing.lock() == tensor) return;
    retained_.emplace_back(outputNr, tensor);
}

void Node::storeRetainedGrads(const std::vector<Tensor>& gradOutputs) const {
    for (const auto& [nr, weak] : retained_) {
        std::shared_ptr<TensorImpl> impl = weak.lock();
        if (!impl || nr >= gradOutputs.size() || !gradOutputs[nr].defined()) continue;
        // Only the tensor still produced by this node retains: an in-place op since then moved its history.
        if (!impl->autograd || impl->autograd->gradFn.get() != this) continue;
        accumulateInto(*impl, gradOutputs[nr]);
    }
}

FormulaNode::FormulaNode(std::string name, std::vector<Edge> next, std::vector<TensorGeometry> inputs,
                         std::vector<TensorGeometry> outputs, std::vector<Tensor> saved, BackwardFormula formula,
                         std::shared_ptr<const BackwardDescription> description)
    : Node(std::move(name), std::move(next), std::move(inputs), std::move(outputs)),
      saved_(std::move(saved)),
      formula_(std::move(formula)),
      description_(std::move(description)) {
    for (const Tensor& s : saved_) checkNotInferenceSaved(s);
    for (const Tensor& s : saved_) savedInfo_.push_back({s.defined() ? versionOf(s) : 0, false, 0, {}, nullptr});
}

void FormulaNode::setSavedOrigins(const std::vector<Tensor>& originals) {
    for (size_t i = 0; i < originals.size() && i < savedInfo_.size(); ++i) {
        if (!originals[i].defined()) continue;
        const AutogradMeta* meta = originals[i].impl()->autograd.get();
        savedInfo_[i].isOwnOutput = meta && meta->gradFn.get() == this;
        savedInfo_[i].outputNr = meta ? meta->outputNr : 0;
        savedInfo_[i].original = originals[i].implPtr();
        if (meta && !savedInfo_[i].isOwnOutput) savedInfo_[i].gradFn = meta->gradFn;
    }
}

// PyTorch names a modified saved tensor by the node that produced it: this node for its own outputs, else the
// tensor's grad_fn as it is now (an in-place op has replaced it); leaves get no name.
std::string FormulaNode::savedOrigin(size_t i) const {
    if (savedInfo_[i].isOwnOutput) return fmt::format(", which is output {} of {},", savedInfo_[i].outputNr, name());
    const std::shared_ptr<TensorImpl> original = savedInfo_[i].original.lock();
    if (!original || !original->autograd || !original->autograd->gradFn) return "";
    return fmt::format(", which is output {} of {},", original->autograd->outputNr, original->autograd->gradFn->name());
}

void FormulaNode::checkSavedVersions() const {
    for (size_t i = 0; i < saved_.size(); ++i) {
        const Tensor& s = saved_[i];
        if (!s.defined() || versionOf(s) == savedInfo_[i].version) continue;
        const std::string origin = savedOrigin(i);
        fail(ErrorKind::Runtime,
             fmt::format("one of the variables needed for gradient computation has been modified by an inplace operation: "
                         "[torch.{}{}Tensor {}]{} is at version {}; expected version {} instead. Hint: enable anomaly detection to "
                         "find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
                         "check_nan=False).",
                         s.device().isCpu() ? "" : "cuda.", dtypeKernelName(s.dtype()), shapeStr(s.sizes()), origin, versionOf(s),
                         savedInfo_[i].version));
    }
}

const std::vector<Tensor>& FormulaNode::savedTensors() const {
    if (released_)
        fail(ErrorKind::Runtime,
             "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
             "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
             "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
             "saved tensors after calling backward.");
    checkSavedVersions();
    return saved_;
}

Tensor FormulaNode::unpackSaved(size_t i) {
    const Tensor& s = saved_[i];
    if (!s.defined()) return s;
    const SavedInfo& info = savedInfo_[i];
    const std::shared_ptr<Node> producer = info.isOwnOutput ? shared_from_this() : info.gradFn;
    if (producer) {
        Tensor out = detached(s);
        out.impl()->autograd = std::make_shared<AutogradMeta>();
        out.impl()->autograd->gradFn = producer;
        out.impl()->autograd->outputNr = info.outputNr;
        return out;
    }
    const std::shared_ptr<TensorImpl> leaf = info.original.lock();
    if (leaf && leaf->requiresGrad && (!leaf->autograd || !leaf->autograd->gradFn)) return Tensor::fromImpl(leaf);
    return s;
}

std::vector<Tensor> FormulaNode::apply(const std::vector<Tensor>& gradOutputs) {
    savedTensors();
    std::vector<bool> needs;
    for (const Edge& e : nextEdges()) needs.push_back(e.valid());
    if (creatingGraph()) return applyCreatingGraph(gradOutputs, std::move(needs));
    const BackwardContext context{gradOutputs, saved_, std::move(needs)};
    return formula_(context);
}

void FormulaNode::releaseSavedTensors() {
    // Nodes that saved nothing can run again, as in PyTorch (only freed saved values make a second pass fail).
    bool savedAny = false;
    for (const Tensor& s : saved_) savedAny = savedAny || s.defined();
    if (!savedAny) return;
    saved_.clear();
    savedInfo_.clear();
    released_ = true;
}

AccumulateGrad::AccumulateGrad(const Tensor& leaf)
    : Node("AccumulateGrad", {}, {}, {TensorGeometry::of(leaf)}), leaf_(leaf.implPtr()) {}

std::vector<Tensor> AccumulateGrad::apply(const std::vector<Tensor>& gradOutputs) {
    if (!gradOutputs.empty() && gradOutputs.front().defined()) accumulateInto(*leaf_, gradOutputs.front(), true);
    return {};
}

Edge gradientEdge(const Tensor& t) {
    if (!t.defined() || !t.requiresGrad()) return {};
    std::shared_ptr<AutogradMeta>& meta = metaOf(t);
    if (meta->gradFn) return {meta->gradFn, meta->outputNr};
    std::shared_ptr<Node> accumulator = meta->gradAccumulator.lock();
    if (!accumulator) {
        accumulator = std::make_shared<AccumulateGrad>(t);
        meta->gradAccumulator = accumulator;
    }
    return {accumulator, 0};
}

void recordOp(const std::string& name, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
              const std::vector<Tensor>& saved, BackwardFormula formula, std::shared_ptr<const BackwardDescription> description) {
    std::vector<Edge> next;
    std::vector<TensorGeometry> inputGeometry;
    bool anyRequiresGrad = false;
    for (const Tensor& input : inputs) {
        next.push_back(gradientEdge(input));
        anyRequiresGrad = anyRequiresGrad || next.back().valid();
        inputGeometry.push_back(input.defined() ? TensorGeometry::of(input) : TensorGeometry{});
    }
    bool anyDifferentiableOutput = false;
    for (const Tensor& output : outputs) anyDifferentiableOutput = anyDifferentiableOutput || (output.defined() && differentiable(output.dtype()));
    if (!anyRequiresGrad || !anyDifferentiableOutput) return;
    std::vector<TensorGeometry> outputGeometry;
    for (const Tensor& output : outputs) outputGeometry.push_back(TensorGeometry::of(output));
    std::vector<Tensor> savedDetached;
    for (const Tensor& s : saved) savedDetached.push_back(s.defined() ? detached(s) : Tensor());
    auto node = std::make_shared<FormulaNode>(name, std::move(next), std::move(inputGeometry), std::move(outputGeometry),
                                              std::move(savedDetached), std::move(formula), std::move(description));
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor& output = outputs[i];
        if (!output.defined() || !differentiable(output.dtype())) continue;
        bool isInput = false;
        std::shared_ptr<TensorImpl> viewBase;
        for (const Tensor& input : inputs) {
            if (!input.defined()) continue;
            isInput = isInput || input.isSameTensor(output);
            if (!viewBase && input.requiresGrad() && input.sharesStorageWith(output)) {
                const AutogradMeta* inputMeta = input.impl()->autograd.get();
                viewBase = inputMeta && inputMeta->viewBase ? inputMeta->viewBase : input.implPtr();
            }
        }
        if (isInput) continue;
        std::shared_ptr<AutogradMeta>& meta = metaOf(output);
        meta->gradFn = node;
        meta->outputNr = static_cast<uint32_t>(i);
        // An in-place op's result is the tensor it updated: it stays whatever view (or base) it was.
        if (viewBase != output.implPtr() && !meta->viewBase) meta->viewBase = viewBase;
    }
    node->setSavedOrigins(saved);
}

Tensor detached(const Tensor& t) { return t.asStrided(t.sizes(), t.strides(), t.storageOffset()); }

std::optional<std::string> gradFnName(const Tensor& t) {
    if (!t.defined() || t.isLeaf()) return std::nullopt;
    return t.impl()->autograd->gradFn->name();
}

}  // namespace eng::tensor::autograd

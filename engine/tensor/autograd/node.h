// The autograd graph: a Node per differentiable op result (its grad_fn), with edges to the nodes of its inputs,
// and AccumulateGrad nodes that add gradients into leaves' .grad. Built by recordOp, walked by backward().
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor::autograd {

class Node;

// Where a gradient goes: input `inputNr` of `node` (a node may receive several gradients, one per output).
struct Edge {
    std::shared_ptr<Node> node;
    uint32_t inputNr = 0;
    bool valid() const { return node != nullptr; }
};

// What a gradient flowing along an edge must look like: the shape, dtype and device of the tensor it is for.
struct TensorGeometry {
    Shape sizes;
    DType dtype = DType::Float32;
    Device device = kCpu;
    static TensorGeometry of(const Tensor& t) { return {t.sizes(), t.dtype(), t.device()}; }
};

class Node : public std::enable_shared_from_this<Node> {
public:
    virtual ~Node() = default;
    // PyTorch's class name of the node ("MulBackward0", "AccumulateGrad").
    const std::string& name() const { return name_; }
    // Gradients of the outputs (zeros where an output got none) -> one gradient per next edge (undefined = none).
    virtual std::vector<Tensor> apply(const std::vector<Tensor>& gradOutputs) = 0;
    // Frees saved tensors after a backward without retain_graph.
    virtual void releaseSavedTensors() {}

    const std::vector<Edge>& nextEdges() const { return next_; }
    // Geometry of each next edge's tensor, to cast and reduce gradients to it.
    const std::vector<TensorGeometry>& inputGeometry() const { return inputGeometry_; }
    const std::vector<TensorGeometry>& outputGeometry() const { return outputGeometry_; }
    // Creation order: the engine runs later nodes first when several are ready, as PyTorch does.
    uint64_t sequenceNr() const { return sequenceNr_; }
    // Non-leaf tensors that called retain_grad(): their .grad receives this node's output gradients.
    void addRetainedOutput(uint32_t outputNr, const std::shared_ptr<TensorImpl>& tensor);
    void storeRetainedGrads(const std::vector<Tensor>& gradOutputs) const;
    bool hasRetainedOutputs() const { return !retained_.empty(); }

protected:
    Node(std::string name, std::vector<Edge> next, std::vector<TensorGeometry> inputs, std::vector<TensorGeometry> outputs);

private:
    std::string name_;
    std::vector<Edge> next_;
    std::vector<TensorGeometry> inputGeometry_;
    std::vector<TensorGeometry> outputGeometry_;
    uint64_t sequenceNr_;
    std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retained_;
};

// Arguments of a derivative formula: output gradients, the tensors saved at forward time, and which inputs
// need a gradient (a formula may skip the others).
struct BackwardContext {
    const std::vector<Tensor>& grads;
    const std::vector<Tensor>& saved;
    std::vector<bool> needsInputGrad;
    const Tensor& grad() const { return grads.front(); }
    bool needs(size_t input) const { return input < needsInputGrad.size() && needsInputGrad[input]; }
};
using BackwardFormula = std::function<std::vector<Tensor>(const BackwardContext&)>;

/// What a node's backward is besides its formula, for compiled autograd to capture it into a graph: AOT Autograd's
/// compiled function describes its backward graph this way. Nodes of eager ops have none.
class BackwardDescription {
public:
    virtual ~BackwardDescription() = default;
    /// Under create_graph, the error a second backward through this node raises (its gradients are computed, then
    /// made the results of a node that raises), when it has its own wording: AOT Autograd's for compiled graphs.
    virtual std::optional<std::string> doubleBackwardRefusal() const { return std::nullopt; }
};

// A node whose backward is a formula over saved tensors. The formula must keep tensors only in `saved`
// (stored detached, so the graph has no reference cycles), not in its captures.
class FormulaNode final : public Node {
public:
    FormulaNode(std::string name, std::vector<Edge> next, std::vector<TensorGeometry> inputs, std::vector<TensorGeometry> outputs,
                std::vector<Tensor> saved, BackwardFormula formula, std::shared_ptr<const BackwardDescription> description = nullptr);
    std::vector<Tensor> apply(const std::vector<Tensor>& gradOutputs) override;
    void releaseSavedTensors() override;
    const std::shared_ptr<const BackwardDescription>& description() const { return description_; }
    /// The saved tensors as the formula would get them: raises as apply() does when they were freed or changed.
    const std::vector<Tensor>& savedTensors() const;
    // Records which node output each saved tensor was (called once outputs are attached to this node).
    void setSavedOrigins(const std::vector<Tensor>& originals);
    /// Saved tensor i as create_graph's formulas read it: with its autograd history (this node's own output, the
    /// node that produced a saved input, or the leaf itself), as PyTorch's SavedVariable::unpack.
    Tensor unpackSaved(size_t i);

private:
    // What a saved tensor was when saved: its version, and the node output it was (for PyTorch's message).
    struct SavedInfo {
        uint32_t version = 0;
        bool isOwnOutput = false;
        uint32_t outputNr = 0;
        std::weak_ptr<TensorImpl> original;  // a saved input: named by its grad_fn when the check fails
        std::shared_ptr<Node> gradFn;        // a saved non-leaf input's producer (older than this node: no cycle)
    };
    std::vector<Tensor> applyCreatingGraph(const std::vector<Tensor>& gradOutputs, std::vector<bool> needs);
    void checkSavedVersions() const;
    std::string savedOrigin(size_t i) const;
    std::vector<Tensor> saved_;
    std::vector<SavedInfo> savedInfo_;
    BackwardFormula formula_;
    std::shared_ptr<const BackwardDescription> description_;
    bool released_ = false;
};

// The sink for a leaf that requires grad: adds incoming gradients into its .grad.
class AccumulateGrad final : public Node {
public:
    explicit AccumulateGrad(const Tensor& leaf);
    std::vector<Tensor> apply(const std::vector<Tensor>& gradOutputs) override;

private:
    std::shared_ptr<TensorImpl> leaf_;
};

// The edge a gradient for `t` flows along: its grad_fn output, or its AccumulateGrad when it is a leaf that
// requires grad; invalid for tensors that do not require grad.
Edge gradientEdge(const Tensor& t);
// Makes `outputs` the results of a new node over `inputs` (undefined or grad-free inputs get no edge).
// `saved` tensors are stored detached. Outputs that already are one of the inputs are left alone.
void recordOp(const std::string& name, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
              const std::vector<Tensor>& saved, BackwardFormula formula, std::shared_ptr<const BackwardDescription> description = nullptr);
// A detached alias: same storage and geometry, no autograd history (Tensor.detach()).
Tensor detached(const Tensor& t);
// The grad_fn's name, or nullopt for leaves.
std::optional<std::string> gradFnName(const Tensor& t);

}  // namespace eng::tensor::autograd

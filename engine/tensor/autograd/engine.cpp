// Reverse-mode traversal: count each node's dependencies, then run nodes once all their gradients have arrived
// (latest-created first among the ready ones, like PyTorch's ready queue), casting and reducing each gradient to
// the geometry of the tensor it belongs to.
#include "tensor/autograd/engine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/grad_utils.h"
#include "tensor/autograd/node.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/pointwise.h"

namespace eng::tensor::autograd {

namespace {

std::string sizeRepr(const Shape& sizes) { return fmt::format("torch.Size([{}])", fmt::join(sizes, ", ")); }

// Makes a gradient fit the tensor it flows to: broadcast dims summed away, then its dtype and device.
Tensor conform(const Tensor& grad, const TensorGeometry& target, const std::string& producer, size_t index) {
    Tensor out = grad;
    if (out.sizes() != target.sizes) {
        if (shapeNumel(out.sizes()) != shapeNumel(target.sizes) && out.dim() < static_cast<int64_t>(target.sizes.size()))
            fail(ErrorKind::Runtime, fmt::format("Function {} returned an invalid gradient at index {} - got {} but expected shape "
                                                 "compatible with {}",
                                                 producer, index, shapeStr(out.sizes()), shapeStr(target.sizes)));
        out = sumToShape(out, target.sizes);
    }
    if (out.dtype() != target.dtype || out.device() != target.device) out = to(out, target.dtype, target.device);
    return out;
}

struct ReadyOrder {
    bool operator()(const Node* a, const Node* b) const { return a->sequenceNr() < b->sequenceNr(); }
};

}  // namespace

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& gradRoots, bool retainGraph) {
    std::vector<Edge> rootEdges;
    std::vector<Tensor> rootGrads;
    for (size_t i = 0; i < roots.size(); ++i) {
        const Tensor& root = roots[i];
        if (!root.requiresGrad())
            fail(ErrorKind::Runtime, fmt::format("element {} of tensors does not require grad and does not have a grad_fn", i));
        Tensor grad = i < gradRoots.size() ? gradRoots[i] : Tensor();
        if (!grad.defined()) {
            if (root.numel() != 1) fail(ErrorKind::Runtime, "grad can be implicitly created only for scalar outputs");
            grad = onesLike(root);
        } else if (grad.sizes() != root.sizes()) {
            fail(ErrorKind::Runtime, fmt::format("Mismatch in shape: grad_output[{}] has a shape of {} and output[{}] has a shape of {}.",
                                                 i, sizeRepr(grad.sizes()), i, sizeRepr(root.sizes())));
        }
        rootEdges.push_back(gradientEdge(root));
        rootGrads.push_back(conform(grad, TensorGeometry::of(root), "backward", i));
    }

    // Dependencies: how many edges point at each node from the part of the graph reachable from the roots.
    std::unordered_map<Node*, int64_t> dependencies;
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack;
    for (const Edge& e : rootEdges)
        if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
    while (!stack.empty()) {
        Node* node = stack.back();
        stack.pop_back();
        for (const Edge& next : node->nextEdges()) {
            if (!next.valid()) continue;
            ++dependencies[next.node.get()];
            if (seen.insert(next.node.get()).second) stack.push_back(next.node.get());
        }
    }

    const GradModeGuard noGrad(false);
    // Raw node pointers are safe here: the roots' edges keep the whole graph alive during the pass.
    std::unordered_map<Node*, std::vector<Tensor>> buffers;
    auto addToBuffer = [&](Node* node, uint32_t inputNr, const Tensor& grad) {
        std::vector<Tensor>& buffer = buffers[node];
        if (buffer.size() < node->outputGeometry().size()) buffer.resize(node->outputGeometry().size());
        Tensor& slot = buffer.at(inputNr);
        slot = slot.defined() ? add(slot, grad) : grad;
    };
    std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
    for (size_t i = 0; i < rootEdges.size(); ++i) addToBuffer(rootEdges[i].node.get(), rootEdges[i].inputNr, rootGrads[i]);
    for (const Edge& e : rootEdges) {
        Node* node = e.node.get();
        if (dependencies[node] == 0 && seen.erase(node)) ready.push(node);
    }

    while (!ready.empty()) {
        Node* node = ready.top();
        ready.pop();
        std::vector<Tensor> grads = std::move(buffers[node]);
        buffers.erase(node);
        grads.resize(node->outputGeometry().size());
        bool anyDefined = false;
        for (const Tensor& g : grads) anyDefined = anyDefined || g.defined();
        std::vector<Tensor> inputGrads;
        if (anyDefined) {
            // Formulas see zeros for outputs that received no gradient (e.g. unused pieces of a split).
            for (size_t i = 0; i < grads.size(); ++i) {
                if (grads[i].defined()) continue;
                const TensorGeometry& g = node->outputGeometry()[i];
                grads[i] = to(zeros(g.sizes, TensorOptions{g.dtype, kCpu, false}), std::nullopt, g.device);
            }
            node->storeRetainedGrads(grads);
            inputGrads = node->apply(grads);
            if (!retainGraph) node->releaseSavedTensors();
        }
        const std::vector<Edge>& next = node->nextEdges();
        for (size_t i = 0; i < next.size(); ++i) {
            if (!next[i].valid()) continue;
            Node* target = next[i].node.get();
            if (i < inputGrads.size() && inputGrads[i].defined())
                addToBuffer(target, next[i].inputNr, conform(inputGrads[i], node->inputGeometry()[i], node->name(), i));
            if (--dependencies[target] == 0) ready.push(target);
        }
    }
}

}  // namespace eng::tensor::autograd

// The eager backward pass: root gradients checked (ones for a one-element root), the nodes run in the walk's order
// (graph_walk.h), each gradient cast and reduced to the geometry of the tensor it belongs to.
#include "tensor/autograd/engine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "tensor/autograd/double_backward.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/autograd/graph_walk.h"
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

/// One node of an eager pass: formulas see zeros for outputs that received no gradient (e.g. unused pieces of a
/// split); each gradient it returns is made to fit the tensor it flows to.
std::vector<Tensor> runNode(Node& node, std::vector<Tensor>& grads, bool retainGraph) {
    for (size_t i = 0; i < grads.size(); ++i) {
        if (grads[i].defined()) continue;
        const TensorGeometry& g = node.outputGeometry()[i];
        grads[i] = to(zeros(g.sizes, TensorOptions{g.dtype, kCpu, false}), std::nullopt, g.device);
    }
    node.storeRetainedGrads(grads);
    std::vector<Tensor> inputGrads = node.apply(grads);
    if (!retainGraph) node.releaseSavedTensors();
    for (size_t i = 0; i < inputGrads.size() && i < node.nextEdges().size(); ++i)
        if (inputGrads[i].defined() && node.nextEdges()[i].valid())
            inputGrads[i] = conform(inputGrads[i], node.inputGeometry()[i], node.name(), i);
    return inputGrads;
}

}  // namespace

RootGradients rootGradients(const std::vector<Tensor>& roots, const std::vector<Tensor>& gradRoots) {
    RootGradients out;
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
        out.edges.push_back(gradientEdge(root));
        out.grads.push_back(conform(grad, TensorGeometry::of(root), "backward", i));
    }
    return out;
}

namespace {
BackwardInterceptor* gInterceptor = nullptr;
}  // namespace

BackwardInterceptorScope::BackwardInterceptorScope(BackwardInterceptor interceptor) : previous_(gInterceptor), interceptor_(std::move(interceptor)) {
    gInterceptor = &interceptor_;
}

BackwardInterceptorScope::~BackwardInterceptorScope() { gInterceptor = previous_; }

bool backwardIntercepted() { return gInterceptor != nullptr; }

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& gradRoots, bool retainGraph, bool createGraph) {
    const RootGradients start = rootGradients(roots, gradRoots);
    if (gInterceptor) {
        if (createGraph) fail(ErrorKind::Runtime, "compiled_autograd does not support create_graph");
        // The interceptor runs the pass itself or declines; a backward inside it (none today) would run eagerly.
        BackwardInterceptor* interceptor = gInterceptor;
        gInterceptor = nullptr;
        struct Restore {
            BackwardInterceptor* interceptor;
            ~Restore() { gInterceptor = interceptor; }
        } restore{interceptor};
        if ((*interceptor)(start, retainGraph)) return;
    }
    const GradModeGuard noGrad(false);
    std::optional<CreateGraphScope> recording;
    if (createGraph) recording.emplace();
    auto run = [&](Node& node, std::vector<Tensor>& grads) { return runNode(node, grads, retainGraph); };
    walkBackward(start.edges, start.grads, run, [](const Tensor& a, const Tensor& b) { return add(a, b); });
}

}  // namespace eng::tensor::autograd

namespace eng::tensor::autograd {

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, const std::vector<Tensor>& gradOutputs,
                         bool retainGraph, bool allowUnused, bool createGraph) {
    std::vector<Edge> inputEdges;
    for (const Tensor& input : inputs) {
        if (!input.requiresGrad()) fail(ErrorKind::Runtime, "One of the differentiated Tensors does not require grad");
        inputEdges.push_back(gradientEdge(input));
    }
    const RootGradients start = rootGradients(outputs, gradOutputs);
    std::vector<Tensor> results(inputs.size());
    const GradModeGuard noGrad(false);
    std::optional<CreateGraphScope> recording;
    if (createGraph) recording.emplace();
    auto run = [&](Node& node, std::vector<Tensor>& grads) -> std::vector<Tensor> {
        // The gradient reaching an input's edge is its result; no leaf's .grad is touched.
        for (size_t i = 0; i < inputEdges.size(); ++i)
            if (inputEdges[i].node.get() == &node && inputEdges[i].inputNr < grads.size() && grads[inputEdges[i].inputNr].defined())
                results[i] = grads[inputEdges[i].inputNr];
        if (dynamic_cast<AccumulateGrad*>(&node)) return {};
        return runNode(node, grads, retainGraph);
    };
    walkBackward(start.edges, start.grads, run, [](const Tensor& a, const Tensor& b) { return add(a, b); });
    for (const Tensor& r : results)
        if (!r.defined() && !allowUnused)
            fail(ErrorKind::Runtime, "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if "
                                     "this is the desired behavior.");
    return results;
}

}  // namespace eng::tensor::autograd

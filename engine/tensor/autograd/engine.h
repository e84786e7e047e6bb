// The backward pass: Tensor.backward / torch.autograd.backward over the recorded graph.
#pragma once

#include <functional>
#include <vector>

#include "tensor/autograd/node.h"

namespace eng::tensor::autograd {

/// Where a backward pass starts: the roots' edges and their gradients (checked, cast to the roots' geometry).
struct RootGradients {
    std::vector<Edge> edges;
    std::vector<Tensor> grads;
};
RootGradients rootGradients(const std::vector<Tensor>& roots, const std::vector<Tensor>& gradRoots);

/// Compiled autograd's entry: while a scope is installed, backward() first offers the pass to its interceptor,
/// which runs it (true) or declines (false: the eager engine runs it).
using BackwardInterceptor = std::function<bool(const RootGradients& start, bool retainGraph)>;
class BackwardInterceptorScope {
public:
    explicit BackwardInterceptorScope(BackwardInterceptor interceptor);
    ~BackwardInterceptorScope();
    BackwardInterceptorScope(const BackwardInterceptorScope&) = delete;
    BackwardInterceptorScope& operator=(const BackwardInterceptorScope&) = delete;

private:
    BackwardInterceptor* previous_;
    BackwardInterceptor interceptor_;
};
/// Whether an interceptor is installed now.
bool backwardIntercepted();

// Accumulates d(roots)/d(leaf) into every reachable leaf's .grad (and retain_grad tensors). gradRoots[i] may be
// undefined for a one-element root (implicitly ones). Without retainGraph the saved tensors are freed, so a
// second pass through the same nodes raises PyTorch's "Trying to backward through the graph a second time".
// With createGraph the pass itself is recorded (double_backward.h): the gradients have history.
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& gradRoots, bool retainGraph = false, bool createGraph = false);

// torch.autograd.grad: d(outputs)/d(inputs) returned (undefined for an input no gradient reached, with
// allowUnused), without accumulating into any .grad.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, const std::vector<Tensor>& gradOutputs,
                         bool retainGraph, bool allowUnused, bool createGraph = false);

}  // namespace eng::tensor::autograd

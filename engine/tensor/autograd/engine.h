// The backward pass: Tensor.backward / torch.autograd.backward over the recorded graph.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor::autograd {

// Accumulates d(roots)/d(leaf) into every reachable leaf's .grad (and retain_grad tensors). gradRoots[i] may be
// undefined for a one-element root (implicitly ones). Without retainGraph the saved tensors are freed, so a
// second pass through the same nodes raises PyTorch's "Trying to backward through the graph a second time".
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& gradRoots, bool retainGraph = false);

}  // namespace eng::tensor::autograd

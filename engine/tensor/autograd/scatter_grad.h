// Gradients written into zeros at the positions a selection read (index, gather, embedding, narrow, select, ...),
// out of place: under create_graph the write is a recorded torch.index_put, so the gradient carries its history
// and can be differentiated again; otherwise the runtime writes into the zeros in place.
#pragma once

#include <functional>
#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor::autograd {

/// torch.index_put(base, indices, values, accumulate) as a new tensor, recorded under create_graph.
Tensor indexPutCopy(const Tensor& base, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate);

/// A tensor of `shape` and `dtype` (on grad's device), zero but where `choose` of a tensor of flat positions picks
/// the elements grad's elements came from, which grad's elements are added into (repeats add up).
Tensor scatterToPositions(const Shape& shape, DType dtype, const Tensor& grad, const std::function<Tensor(const Tensor& positions)>& choose);

}  // namespace eng::tensor::autograd

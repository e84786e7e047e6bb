// Shape helpers shared by the derivative formulas and the backward engine: reducing a broadcast gradient to
// an input's shape and restoring the dims a reduction removed.
#pragma once

#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor::autograd {

// Sums `grad` over the dims that broadcasting added or stretched, giving a tensor of `shape` (PyTorch's sum_to).
Tensor sumToShape(const Tensor& grad, const Shape& shape);
// The dims a reduction over `dims` (None or empty: all) of a rank-`ndim` tensor removed, wrapped and sorted.
std::vector<int64_t> reducedDims(const std::optional<std::vector<int64_t>>& dims, int64_t ndim);
// A reduction result (or its gradient) of an input of `inputShape`, with the reduced dims put back as size 1
// when keepdim was false, then expanded to the input shape.
Tensor expandReduced(const Tensor& reduced, const Shape& inputShape, const std::vector<int64_t>& dims, bool keepdim);
// Same, without the final expand (size-1 dims kept, for broadcasting against the input).
Tensor unsqueezeReduced(const Tensor& reduced, const std::vector<int64_t>& dims, bool keepdim);
// Number of elements a reduction over `dims` folded into each result element.
int64_t reducedCount(const Shape& inputShape, const std::vector<int64_t>& dims);

}  // namespace eng::tensor::autograd

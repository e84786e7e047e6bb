// Gradient shape helpers: sum-to-shape for broadcasting, re-expansion of reduced dims.
#include "tensor/autograd/grad_utils.h"

#include <algorithm>

#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace eng::tensor::autograd {

Tensor sumToShape(const Tensor& grad, const Shape& shape) {
    if (grad.sizes() == shape) return grad;
    if (grad.dim() < static_cast<int64_t>(shape.size())) {
        // Fewer dims than the target (a value whose leading 1s setitem dropped): put them back first.
        Shape padded(shape.size() - static_cast<size_t>(grad.dim()), 1);
        padded.insert(padded.end(), grad.sizes().begin(), grad.sizes().end());
        return sumToShape(reshape(grad, padded), shape);
    }
    const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == 1 && grad.sizes()[static_cast<size_t>(lead) + i] != 1) dims.push_back(lead + static_cast<int64_t>(i));
    Tensor reduced = dims.empty() ? grad : sum(grad, dims, true);
    return reshape(reduced, shape);
}

std::vector<int64_t> reducedDims(const std::optional<std::vector<int64_t>>& dims, int64_t ndim) {
    std::vector<int64_t> out;
    if (!dims || dims->empty()) {
        for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
        return out;
    }
    for (int64_t d : *dims) out.push_back(wrapDim(d, ndim));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

Tensor unsqueezeReduced(const Tensor& reduced, const std::vector<int64_t>& dims, bool keepdim) {
    if (keepdim) return reduced;
    Tensor out = reduced;
    // Ascending order: each dim index refers to the input's layout once the smaller ones are back.
    for (int64_t d : dims) out = unsqueeze(out, d);
    return out;
}

Tensor expandReduced(const Tensor& reduced, const Shape& inputShape, const std::vector<int64_t>& dims, bool keepdim) {
    Tensor out = unsqueezeReduced(reduced, dims, keepdim);
    if (static_cast<size_t>(out.dim()) != inputShape.size()) out = reshape(out, Shape(inputShape.size(), 1));
    return expand(out, inputShape);
}

int64_t reducedCount(const Shape& inputShape, const std::vector<int64_t>& dims) {
    int64_t count = 1;
    for (int64_t d : dims) count *= inputShape[static_cast<size_t>(d)];
    return count;
}

}  // namespace eng::tensor::autograd

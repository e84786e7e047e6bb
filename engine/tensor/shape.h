// Shape and view ops with PyTorch's exact stride semantics: view (fails when strides don't allow it), reshape
// (a view when possible, else a copy), permute/transpose/expand/squeeze/unsqueeze, and joins/splits.
#pragma once

#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor {

// Resolves one -1 in `shape` against numel (RuntimeError "shape '[2, -1]' is invalid for input of size 7").
Shape inferShape(const Shape& shape, int64_t numel);
// Strides for viewing (sizes, strides) as newShape without copying, if possible (PyTorch's computeStride).
std::optional<Shape> viewStrides(const Shape& sizes, const Shape& strides, const Shape& newShape);

Tensor view(const Tensor& x, const Shape& shape);
// Tensor.view(dtype): x's bytes reinterpreted as dtype (PyTorch's view_dtype: a different element size scales the
// last dim, which must have stride 1, and the other strides; its errors).
Tensor viewDtype(const Tensor& x, DType dtype);
Tensor reshape(const Tensor& x, const Shape& shape);
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
// Tensor.t(): transpose of a <= 2-D tensor.
Tensor t(const Tensor& x);
Tensor unsqueeze(const Tensor& x, int64_t dim);
// No dims: drop every size-1 dim; otherwise drop the listed dims that have size 1.
Tensor squeeze(const Tensor& x, const std::optional<std::vector<int64_t>>& dims = std::nullopt);
// -1 keeps a size; new leading dims are allowed; size-1 dims stretch with stride 0.
Tensor expand(const Tensor& x, const Shape& sizes);
Tensor flatten(const Tensor& x, int64_t startDim = 0, int64_t endDim = -1);
Tensor unflatten(const Tensor& x, int64_t dim, const Shape& sizes);
// movedim's dim order: order[d] is the dim of x that lands at d (`source` at `destination`, the others in their
// order around them); PyTorch's errors for lists of different lengths or repeated dims.
std::vector<int64_t> movedimOrder(int64_t ndim, const std::vector<int64_t>& source, const std::vector<int64_t>& destination);
// Moves the dims `source` to the places `destination`; the others keep their order.
Tensor movedim(const Tensor& x, const std::vector<int64_t>& source, const std::vector<int64_t>& destination);
inline Tensor movedim(const Tensor& x, int64_t source, int64_t destination) {
    return movedim(x, std::vector<int64_t>{source}, std::vector<int64_t>{destination});
}
// The diagonal of dims dim1 x dim2 (shifted by offset) as the last dim of a view.
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
// A view of x's storage with any geometry inside it (torch.as_strided); no offset: x's own.
Tensor asStrided(const Tensor& x, const Shape& sizes, const Shape& strides, std::optional<int64_t> storageOffset);
// Windows of `size` every `step` elements along dimension, as a new last dim of a view (Tensor.unfold).
Tensor unfold(const Tensor& x, int64_t dimension, int64_t size, int64_t step);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
// x[..., index, ...] along dim (negative index counts from the end).
Tensor select(const Tensor& x, int64_t dim, int64_t index);
// The elements x[start:end:step] takes from a dim of `size` with Python's slice clamping (step > 0): the first
// index and how many.
struct SliceRange {
    int64_t first = 0;
    int64_t length = 0;
};
SliceRange sliceRange(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
// x[start:end:step] along dim with Python slice clamping; step must be positive.
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step = 1);
std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
// split(x, size): chunks of `size` (the last may be smaller); splitWithSizes: exact sizes.
std::vector<Tensor> split(const Tensor& x, int64_t splitSize, int64_t dim = 0);
std::vector<Tensor> splitWithSizes(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);

Tensor triu(const Tensor& x, int64_t diagonal = 0);
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor repeat(const Tensor& x, const Shape& repeats);
Tensor flip(const Tensor& x, const std::vector<int64_t>& dims);

}  // namespace eng::tensor

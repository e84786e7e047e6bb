// Factory functions: torch.empty/zeros/ones/full/arange/linspace/eye, the *_like variants, and tensors from
// flat C++ data. Defaults follow PyTorch (float32 unless the fill values say otherwise).
#pragma once

#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor {

struct TensorOptions {
    std::optional<DType> dtype;
    // Unset: factories create on the cpu, *_like on the source tensor's device (so that code building a
    // gradient or mask "like" a CUDA tensor gets a CUDA tensor, as in PyTorch).
    std::optional<Device> device = std::nullopt;
    bool requiresGrad = false;
};

Tensor empty(const Shape& sizes, DType dtype = kDefaultFloat, Device device = kCpu);
Tensor emptyStrided(const Shape& sizes, const Shape& strides, DType dtype, Device device = kCpu);
Tensor zeros(const Shape& sizes, const TensorOptions& options = {});
Tensor ones(const Shape& sizes, const TensorOptions& options = {});
// dtype defaults to the fill value's kind: bool, int64 or float32.
Tensor full(const Shape& sizes, Scalar fill, const TensorOptions& options = {});
// A zero-dim tensor holding value (dtype defaults to the scalar's own).
Tensor scalarTensor(Scalar value, std::optional<DType> dtype = std::nullopt, Device device = kCpu);

// dtype: int64 when start, end and step are all integral, else the default float.
Tensor arange(Scalar start, Scalar end, Scalar step = Scalar(int64_t{1}), const TensorOptions& options = {});
Tensor arange(Scalar end, const TensorOptions& options = {});
Tensor linspace(Scalar start, Scalar end, int64_t steps, const TensorOptions& options = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, const TensorOptions& options = {});

// *_like: same shape, dtype and device as t unless options say otherwise; contiguous, like PyTorch's
// preserve_format for dense inputs (a permuted dense input keeps its layout).
Tensor emptyLike(const Tensor& t, const TensorOptions& options = {});
Tensor zerosLike(const Tensor& t, const TensorOptions& options = {});
Tensor onesLike(const Tensor& t, const TensorOptions& options = {});
Tensor fullLike(const Tensor& t, Scalar fill, const TensorOptions& options = {});

// A contiguous tensor of `sizes` whose elements are values converted to dtype.
Tensor fromDoubles(const std::vector<double>& values, const Shape& sizes, DType dtype = kDefaultFloat);
Tensor fromInts(const std::vector<int64_t>& values, const Shape& sizes, DType dtype = DType::Int64);
// Every element as a double, in row-major order (for tests, printing and tolist).
std::vector<double> toDoubles(const Tensor& t);
std::vector<int64_t> toInts(const Tensor& t);

}  // namespace eng::tensor

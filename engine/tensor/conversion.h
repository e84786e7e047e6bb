// Copies and conversions: copy_ (broadcasting, casting, across devices), clone, contiguous, to(dtype/device),
// item() and the element-access helpers the printer and tolist use.
#pragma once

#include <optional>

#include "tensor/tensor.h"

namespace eng::tensor {

// dst.copy_(src): src broadcasts to dst's shape and converts to dst's dtype. Returns dst.
const Tensor& copyInto(const Tensor& dst, const Tensor& src);
// A fresh tensor with the same values; layout kept when dense (preserve_format), contiguous otherwise.
Tensor clone(const Tensor& t);
// t itself when already contiguous, else a contiguous copy.
Tensor contiguous(const Tensor& t);
// t itself when nothing changes and copy is false (as Tensor.to does).
Tensor to(const Tensor& t, std::optional<DType> dtype, std::optional<Device> device = std::nullopt, bool copy = false);
inline Tensor toDType(const Tensor& t, DType dtype) { return to(t, dtype); }

// The single element of a one-element tensor, as bool/int/float by the tensor's category.
Scalar item(const Tensor& t);
// Element at a flat row-major index, as a Scalar of the tensor's category (used by printing and tolist).
Scalar elementAt(const Tensor& t, int64_t flatIndex);

}  // namespace eng::tensor

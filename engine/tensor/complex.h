// Complex tensors (complex64, complex128): their views over (real, imaginary) float pairs, constructors, and the
// ops that have complex forms here (arithmetic, abs/angle/conj, sum/mean, fills and casts), as PyTorch computes them.
#pragma once

#include <optional>
#include <string_view>

#include "tensor/pointwise.h"
#include "tensor/reduction.h"

namespace eng::tensor {

// torch.view_as_real / torch.view_as_complex: views sharing storage, with PyTorch's checks and messages.
Tensor viewAsReal(const Tensor& x);
Tensor viewAsComplex(const Tensor& x);
// Tensor.real / Tensor.imag: float views of a complex tensor's parts (real of a real tensor is itself).
Tensor realPart(const Tensor& x);
Tensor imagPart(const Tensor& x);
// torch.complex(real, imag) and torch.polar(abs, angle): new complex tensors, broadcast.
Tensor complexFromParts(const Tensor& real, const Tensor& imag);
Tensor polar(const Tensor& abs, const Tensor& angle);
// conj of a complex tensor (materialized: cwb has no lazy conjugate bit); of a real tensor, the tensor itself.
Tensor conj(const Tensor& x);
Tensor angle(const Tensor& x);

// The complex forms the generic kernels route to when an operand is complex.
Tensor complexBinary(BinaryOp op, const Operand& a, const Operand& b, const Tensor* into);
Tensor complexUnary(UnaryOp op, const Tensor& x);
Tensor complexSum(const Tensor& x, const DimList& dims, bool keepdim, std::optional<DType> dtype, bool mean);
// Fills every element of a complex tensor with the real number `value` (imaginary part 0).
void complexFill(const Tensor& t, Scalar value);
// Copies between tensors of which at least one is complex (real into complex fills the imaginary part with 0;
// complex into real keeps the real part, as PyTorch's cast does).
void complexCopy(const Tensor& dst, const Tensor& src);

}  // namespace eng::tensor
